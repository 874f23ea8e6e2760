// Draws every Plotly figure found in a <script type="application/json" class="plotly-figure">
// data island (built in Python by app/charts.py), on load and after each HTMX swap.
(function () {
  "use strict";

  // Half-width units of a string at the chart's 11 px: CJK and full-width characters count 2.
  function units(text) {
    var n = 0;
    for (var i = 0; i < text.length; i++) n += text.charCodeAt(i) > 0x2e7f ? 2 : 1;
    return n;
  }

  // Wrap `text` into lines of at most `max` units on spaces (a longer word stands alone).
  function wrapUnits(text, max) {
    var lines = [], line = "";
    text.split(" ").forEach(function (word) {
      if (line && units(line + " " + word) > max) { lines.push(line); line = word; }
      else { line = line ? line + " " + word : word; }
    });
    if (line) lines.push(line);
    return lines;
  }

  // A two-level (option, year) y axis on a phone: the option names beside the years took
  // 170 of a 316 px chart and left the bars 126 px. Put each option's name on rows of its
  // own above its years, across the plot, wrapped to the chart's width, and keep only the
  // year beside each bar.
  function headingsAbove(spec, width) {
    var layout = spec.layout || {};
    var ax = layout.yaxis;
    if (!ax || ax.type !== "multicategory") return;
    // ~6 px a unit at 11 px; the year labels and margins take about 70 px on the left.
    var max = Math.max(16, Math.floor((width - 70) / 6.2));
    var order = [], seen = {}, heads = [];
    (spec.data || []).forEach(function (trace) {
      var v = trace.y;
      if (!(Array.isArray(v) && Array.isArray(v[0]))) return;
      trace.y = v[0].map(function (outer, i) {
        var group = String(outer).replace(/<br>/g, " ");
        var key = group + "\u241f" + v[1][i];
        if (!seen["h" + group]) {
          seen["h" + group] = true;
          var lines = wrapUnits(group, max);
          heads.push({ at: order.length, lines: lines });
          lines.forEach(function (_, n) { order.push({ key: "\u241e" + n + group }); });
        }
        if (!seen["k" + key]) { seen["k" + key] = true; order.push({ key: key, label: v[1][i] }); }
        return key;
      });
    });
    if (!heads.length) return;
    var years = order.filter(function (o) { return o.label !== undefined; });
    layout.yaxis = Object.assign({}, ax, {
      type: "category",
      categoryorder: "array",
      categoryarray: order.map(function (o) { return o.key; }),
      tickmode: "array",
      tickvals: years.map(function (o) { return o.key; }),
      ticktext: years.map(function (o) { return o.label; }),
      tickfont: Object.assign({}, ax.tickfont || {}, { size: 10 }),
    });
    delete layout.yaxis.tick0;
    delete layout.yaxis.dtick;
    // A category axis also takes positions by index: a heading of k lines sits in the middle
    // of its k rows.
    layout.annotations = (layout.annotations || []).concat(heads.map(function (h) {
      return {
        xref: "paper", x: 0, xanchor: "left", yref: "y", y: h.at + (h.lines.length - 1) / 2,
        yanchor: "middle", text: "<b>" + h.lines.join("<br>") + "</b>", showarrow: false,
        align: "left", font: { size: 11 },
      };
    }));
    var rows = order.length - years.length;
    if (layout.height) layout.height += 24 * rows;
  }

  // Panels laid side by side (the reference architectures' price, memory and power) leave
  // each about 50 px of plot on a phone: stack them, one full-width panel under another,
  // each panel's title (a paper annotation above it) moved with it.
  function stackPanels(spec) {
    var layout = spec.layout || {};
    var panels = Object.keys(layout).filter(function (k) {
      var ax = layout[k];
      return /^xaxis\d*$/.test(k) && ax && Array.isArray(ax.domain) && ax.domain[1] - ax.domain[0] < 0.9;
    }).sort(function (a, b) { return layout[a].domain[0] - layout[b].domain[0]; });
    if (panels.length < 2) return;
    var PANEL = 240, GAP = 72;
    var total = panels.length * PANEL + (panels.length - 1) * GAP;
    var titles = (layout.annotations || []).filter(function (a) {
      return a.xref === "paper" && a.yref === "paper" && a.y === 1;
    });
    // Each title belongs to the panel it is centred over (matched before anything moves).
    var owned = panels.map(function (key) {
      var centre = (layout[key].domain[0] + layout[key].domain[1]) / 2;
      return titles.filter(function (a) { return Math.abs(a.x - centre) < 1e-6; });
    });
    panels.forEach(function (key, i) {
      var x = layout[key], y = layout["y" + key.slice(1)];
      var top = 1 - (i * (PANEL + GAP)) / total;
      owned[i].forEach(function (a) { a.x = 0.5; a.y = top; });
      x.domain = [0, 1];
      if (y) y.domain = [top - PANEL / total, top];
    });
    var margin = layout.margin || {};
    layout.height = total + (margin.t || 80) + (margin.b || 40) + 40;
  }

  // On a phone a chart is ~320 px wide: the option names of the TCO chart's (option, year)
  // axis would take most of it, and full money ticks ("NT$10,000,000") turn on their side.
  // Put the names above their years and write money ticks short (10M); the figure built in
  // Python (and the PDF drawn from it) is unchanged.
  var NARROW = 560; // px of chart width below which a chart is fitted for a phone

  function isNarrow(el) { return (el.clientWidth || window.innerWidth) < NARROW ? "1" : "0"; }

  function fitNarrow(spec, width) {
    var layout = spec.layout || {};
    if (width >= NARROW) return;
    headingsAbove(spec, width);
    stackPanels(spec);
    // Six "Month N" boxes over a 220 px plot ran into each other: keep the ones where the
    // cheapest option changes; the others keep their marker and their row in the table.
    // The utilisation chart's "Break-even at 46% / Hourly rent = 12-month contract" boxes
    // covered the lines they mark at 390 px (QA): a phone keeps "Break-even at 46%", the
    // table under the chart names the pair.
    if (layout.annotations) {
      layout.annotations = layout.annotations.filter(function (a) {
        return a.name !== "break_even_minor";
      }).map(function (a) {
        if (a.name !== "break_even_at" || typeof a.text !== "string") return a;
        return Object.assign({}, a, { text: a.text.split("<br>")[0] });
      });
    }
    // A marker's label written beside it ("At the targets: 349 users per replica") ran off
    // the left edge of a phone's chart (QA): the legend names the marker.
    (spec.data || []).forEach(function (trace) {
      if (trace.meta && trace.meta.role === "chosen" && trace.mode === "markers+text") {
        trace.mode = "markers";
      }
    });
    ["xaxis", "yaxis"].forEach(function (name) {
      var ax = layout[name];
      // Ticks written in Python (the TCO bars: "NT$10億", app/charts/theme.py money_ticks):
      // the currency is left to the axis title when it names it, as below. Not the years
      // `headingsAbove` wrote on a category axis: thinned as money, every other year went
      // ("Year 1, 3, 5" under one option, "Year 2, 4" under the next, QA at 390 px).
      var categories = ax && (ax.type === "multicategory" || ax.type === "category");
      if (ax && ax.tickmode === "array" && ax.ticktext && !categories) {
        var named = String((ax.title && (ax.title.text || ax.title)) || "");
        var symbol = (named.match(/NT\$|US\$/) || [])[0];
        if (symbol) ax.ticktext = ax.ticktext.map(function (s) { return s.replace(symbol, ""); });
        ax.tickangle = 0;
        // Every other tick, zero kept: six "1,000萬"-wide labels ran together on a
        // 250 px axis (QA: "−1,000萬 0 1,000萬,000萬,000萬").
        if (ax.tickvals && ax.tickvals.length > 4 && ax.ticktext.length === ax.tickvals.length) {
          var zero = Math.max(0, ax.tickvals.indexOf(0));
          var kept = ax.tickvals.map(function (_, i) { return (i - zero) % 2 === 0; });
          ax.tickvals = ax.tickvals.filter(function (_, i) { return kept[i]; });
          ax.ticktext = ax.ticktext.filter(function (_, i) { return kept[i]; });
        }
        return;
      }
      if (ax && ax.tickprefix && ax.type !== "multicategory") {
        ax.tickformat = "~s";
        // Level ticks: turned on their side they took 40 px of height. "NT$10MNT$20M" ran
        // together level, so the currency is left to the axis title when it names it.
        var title = String((ax.title && (ax.title.text || ax.title)) || "");
        if (title.indexOf(String(ax.tickprefix).trim()) >= 0) ax.tickprefix = "";
        ax.tickangle = 0;
        ax.nticks = Math.min(ax.nticks || 5, 5);
      }
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
      target.dataset.narrow = isNarrow(target);
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
  // A window narrowed past the phone width (or widened back: a tablet turned, a desktop
  // window dragged) keeps plotly's responsive resize of the wide layout — a TCO chart left
  // 64 px of plot beside its option names (QA). Such a chart is drawn again, fitted anew.
  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      var again = false;
      document.querySelectorAll(".chart[data-drawn]").forEach(function (el) {
        if (el.dataset.narrow !== isNarrow(el)) {
          delete el.dataset.drawn;
          again = true;
        }
      });
      if (again) draw(document);
    }, 150);
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll(".chart[data-drawn]").forEach(function (el) {
      if (window.Plotly) window.Plotly.Plots.resize(el);
    });
  });
})();
