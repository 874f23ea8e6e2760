// Draws every Plotly figure found in a <script type="application/json" class="plotly-figure">
// data island (built in Python by app/charts.py), on load and after each HTMX swap.
(function () {
  "use strict";

  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("script.plotly-figure").forEach(function (island) {
      var target = document.getElementById(island.dataset.target);
      if (!target || target.dataset.drawn === island.textContent.length + "") return;
      var spec;
      try {
        spec = JSON.parse(island.textContent);
      } catch (err) {
        console.warn("chart data unreadable", island.dataset.target);
        return;
      }
      var config = Object.assign({ responsive: true, displaylogo: false }, spec.config || {});
      var layout = spec.layout || {};
      // The card around a chart already has a heading: drop the figure's own title on the
      // page (the PDF keeps it) and give the space back to the plot.
      if (target.hasAttribute("data-card-title") && layout.title) {
        layout.title = { text: "" };
        if (layout.margin && layout.margin.t > 60) layout.margin.t -= 36;
      }
      window.Plotly.react(target, spec.data || [], layout, config);
      target.dataset.drawn = island.textContent.length + "";
      target.closest("figure") && target.closest("figure").classList.add("is-drawn");
    });
  }

  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  // After an HTMX swap the old target is detached: look again in the whole document
  // (already drawn figures are skipped).
  document.addEventListener("htmx:afterSettle", function () { draw(document); });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll(".chart[data-drawn]").forEach(function (el) {
      if (window.Plotly) window.Plotly.Plots.resize(el);
    });
  });
})();
