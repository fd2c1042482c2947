// durasim report site: the cue over a scroll box shows while the box
// scrolls sideways, and a sequence diagram that scrolls opens on the
// lifelines its violation's events join (data-focus, CSS pixels from its
// left edge) unless the reader has moved it.
(function () {
  "use strict";
  var moved = [];

  function each(sel, f) {
    var els = document.querySelectorAll(sel);
    for (var i = 0; i < els.length; i++) f(els[i]);
  }

  function cues() {
    each("[data-scrollbox]", function (box) {
      box.parentElement.classList.toggle("scrolls", box.scrollWidth > box.clientWidth + 1);
    });
  }

  function focus() {
    each("[data-scrollbox][data-focus]", function (box) {
      if (moved.indexOf(box) >= 0) return;
      var f = box.getAttribute("data-focus").split(" ").map(Number), w = box.clientWidth;
      if (box.scrollWidth <= w + 1) return;
      var left = f[1] - f[0] + 40 <= w ? (f[0] + f[1] - w) / 2 : f[0] - 20;
      box.scrollLeft = Math.max(0, Math.min(left, box.scrollWidth - w));
    });
  }

  function start() {
    cues();
    focus();
    each("[data-scrollbox]", function (box) {
      var mine = function () { if (moved.indexOf(box) < 0) moved.push(box); };
      ["pointerdown", "wheel", "touchstart", "keydown"].forEach(function (ev) { box.addEventListener(ev, mine, { passive: true }); });
    });
    window.addEventListener("resize", function () { cues(); focus(); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
