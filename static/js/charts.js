// Draws every Plotly figure found in a <script type="application/json" class="plotly-figure">
// data island (built in Python by app/charts.py), on load and after each HTMX swap.
(function () {
  "use strict";

  // Re-wrap a label at `width` characters on word boundaries (Plotly breaks lines at <br>).
  function rewrap(text, width) {
    var lines = [], line = "";
    String(text).replace(/<br>/g, " ").split(" ").forEach(function (word) {
      if (line && (line + " " + word).length > width) { lines.push(line); line = word; }
      else { line = line ? line + " " + word : word; }
    });
    if (line) lines.push(line);
    return lines.join("<br>");
  }

  // On a phone a chart is ~320 px wide: long group labels on a two-level (option, year)
  // axis would take most of it and be cut, and full money ticks ("NT$10,000,000") turn on
  // their side. Wrap the group labels narrower and write money ticks short (10M); the
  // figure built in Python (and the PDF drawn from it) is unchanged.
  function fitNarrow(spec, width) {
    var layout = spec.layout || {};
    if (width >= 560) return;
    ["yaxis", "xaxis"].forEach(function (name) {
      var ax = layout[name];
      if (!ax || ax.type !== "multicategory") return;
      var key = name === "yaxis" ? "y" : "x";
      (spec.data || []).forEach(function (trace) {
        var v = trace[key];
        if (Array.isArray(v) && Array.isArray(v[0])) {
          trace[key] = [v[0].map(function (s) { return rewrap(s, 16); }), v[1]];
        }
      });
      ax.tickfont = Object.assign({}, ax.tickfont || {}, { size: 10 });
    });
    ["xaxis", "yaxis"].forEach(function (name) {
      var ax = layout[name];
      if (ax && ax.tickprefix && ax.type !== "multicategory") ax.tickformat = "~s";
    });
  }

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
      fitNarrow(spec, target.clientWidth || window.innerWidth);
      var layout = spec.layout || {};
      // The card around a chart already has a heading: drop the figure's own title on the
      // page (the PDF keeps it) and give the space back to the plot.
      if (target.hasAttribute("data-card-title") && layout.title) {
        layout.title = { text: "" };
        if (layout.margin && layout.margin.t > 60) layout.margin.t -= 36;
      }
      // The space kept for a chart before it is drawn (.chart's min-height) is its own
      // height once known: a one-row timeline of 180 px left 140 px of blank card below it.
      if (layout.height) target.style.minHeight = layout.height + "px";
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
