// Stratagem — progressive enhancement only: every page works without this file.
(function () {
  "use strict";

  // Language/currency switches keep the page's current address (the planner pushes its
  // form into the URL as it updates), so switching never loses the workload.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-keep-location]");
    if (!link) return;
    var url = new URL(link.href, window.location.href);
    url.searchParams.set("next", window.location.pathname + window.location.search);
    link.href = url.toString();
  });

  // Range inputs show their value in the <output> named by data-output.
  function syncOutputs(root) {
    root.querySelectorAll("input[type=range][data-output]").forEach(function (input) {
      var out = document.getElementById(input.dataset.output);
      if (out) out.textContent = input.value + (input.dataset.suffix || "");
    });
  }
  document.addEventListener("input", function (event) {
    var el = event.target;
    if (el.matches && el.matches("input[type=range][data-output]")) {
      var out = document.getElementById(el.dataset.output);
      if (out) out.textContent = el.value + (el.dataset.suffix || "");
    }
  });
  document.addEventListener("DOMContentLoaded", function () { syncOutputs(document); });

  // A POST form is sent once: a second click while the first is on its way made a second
  // customer (QA). The second submit is cancelled; the buttons are not disabled, so the
  // button clicked first is still sent. HTMX forms have their own request queue. A page
  // brought back from the back/forward cache can be sent again.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[method=post]") || form.hasAttribute("hx-post")) return;
    if (event.defaultPrevented) return;
    if (form.dataset.sending) { event.preventDefault(); return; }
    form.dataset.sending = "1";
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sending]").forEach(function (form) {
      delete form.dataset.sending;
    });
  });
})();

// Self-assessment: show the data question for training tasks and the users question for
// serving (both stay visible without JavaScript); move focus to the answer when it arrives.
(function () {
  "use strict";
  function sync(form) {
    var checked = form.querySelector("input[name=task]:checked");
    var task = checked ? checked.value : "";
    form.querySelectorAll("[data-show-for]").forEach(function (el) {
      var show = !task || el.dataset.showFor.split(" ").indexOf(task) >= 0;
      if (el.dataset.showFor === "inference" && !task) show = false;
      el.hidden = !show;
    });
  }
  function syncSize(form) {
    var checked = form.querySelector("input[name=size]:checked");
    var other = form.querySelector(".other-size");
    if (other) other.hidden = !(checked && checked.value === "other");
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("#assess-form");
    if (form && event.target.name === "task") sync(form);
    if (form && event.target.name === "size") syncSize(form);
  });
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("assess-form");
    if (form) { sync(form); syncSize(form); }
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.elt;
    if (target && (target.id === "result" || target.closest("#result"))) {
      target.focus({ preventScroll: false });
    }
  });
})();

// Planner: show only the model field that the chosen source uses (all show without JS).
(function () {
  "use strict";
  function sync(form) {
    var checked = form.querySelector("input[name=model_source]:checked");
    var source = checked ? checked.value : "preset";
    var map = { preset: "[data-source=preset]", custom: ".source-custom", config: ".source-config" };
    Object.keys(map).forEach(function (key) {
      form.querySelectorAll(map[key]).forEach(function (el) {
        el.hidden = key !== source;
        el.setAttribute("data-show-for", key);
      });
    });
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("#plan-form");
    if (form && event.target.name === "model_source") sync(form);
  });
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("plan-form");
    if (form) sync(form);
  });
  // "How?" links open the explain entry they point to.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-open-explain]");
    if (!link) return;
    var target = document.getElementById(link.getAttribute("href").slice(1));
    if (target && target.tagName === "DETAILS") target.open = true;
  });
})();

// Planner: show the fields the chosen task uses (training, serving or images).
(function () {
  "use strict";
  var GROUPS = {
    "for-train": ["pretrain", "full_finetune", "lora", "qlora"],
    "for-serve": ["inference"],
    "for-image": ["image"]
  };
  function sync(form) {
    var task = (form.querySelector("#f-task") || {}).value || "";
    Object.keys(GROUPS).forEach(function (cls) {
      form.querySelectorAll("." + cls).forEach(function (el) {
        el.hidden = GROUPS[cls].indexOf(task) < 0;
      });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.id === "f-task") sync(event.target.form);
  });
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("plan-form");
    if (form) sync(form);
  });
})();

// Live forms (/plan, /tco): an error swapped in beside a field (hx-swap-oob) marks the field
// invalid and an emptied one clears it, as a full page load does (QA: the message appeared
// but the field kept aria-invalid unset and no red border).
(function () {
  "use strict";
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("p.error[id^='err-']").forEach(function (err) {
      var field = document.getElementById("f-" + err.id.slice(4));
      if (!field) return;
      if (err.textContent.trim()) field.setAttribute("aria-invalid", "true");
      else field.removeAttribute("aria-invalid");
    });
  });
})();

// Quote builder: its buttons replace the whole builder, so focus would fall back to the top
// of the page (QA, keyboard). After the swap it goes where the action left off: the first
// field in error; a new line's first field; the "Add a line" button after a removal; the
// save button after a save.
(function () {
  "use strict";
  var lastAction = "";
  document.addEventListener("submit", function (event) {
    if (!event.target.closest || !event.target.closest("#quote-builder")) return;
    lastAction = event.submitter && event.submitter.name === "action" ? event.submitter.value : "";
  }, true);
  document.addEventListener("htmx:afterSettle", function () {
    var builder = document.getElementById("quote-builder");
    if (!builder || !lastAction) return;  // set only by a submit from the builder
    var target = builder.querySelector("[aria-invalid=true]");
    if (!target && lastAction === "add") {
      var lines = builder.querySelectorAll("[id^='f-line-'][id$='-option_key']");
      target = lines.length ? lines[lines.length - 1] : null;
    }
    if (!target && lastAction.indexOf("remove-") === 0) target = builder.querySelector("button.add-line");
    if (!target && lastAction === "save") target = builder.querySelector("button.save-quote");
    lastAction = "";
    if (target) target.focus({ preventScroll: false });
  });
})();

// A plan page's sections save on their own (the quote builder swaps itself in): the page's
// other forms of that plan then carry the version just saved, or the next one — "Change
// status" after "Save quote" — was refused as someone else's edit (QA). The version in the
// page's heading follows.
(function () {
  "use strict";
  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.detail && event.detail.elt;
    var drawn = swapped && swapped.closest ? swapped.closest("[data-plan-version]") : null;
    if (!drawn) drawn = document.querySelector("#quote-builder[data-plan-version]");
    if (!drawn) return;
    var id = drawn.getAttribute("data-plan-id");
    var version = drawn.getAttribute("data-plan-version");
    document.querySelectorAll("form[action^='/plans/" + id + "/'] input[type=hidden][name=version]")
      .forEach(function (input) { input.value = version; });
    document.querySelectorAll(".plan-version[data-plan-id='" + id + "']").forEach(function (el) {
      el.textContent = version;
    });
  });
})();

// Forms whose action cannot be taken back ask first: data-confirm holds the question, in the
// page's language (QA: one click published an empty price list, archived the current one,
// deleted a draft of 19,864 rows). Registered in the capture phase, so a "no" stops the
// submit before the double-submit guard above marks the form as sending.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-confirm]")) return;
    if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
  }, true);
})();
