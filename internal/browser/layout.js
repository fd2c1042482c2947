// The page's geometry for internal/browser's layout checks: what sticks
// out of the viewport sideways, and the box of every line of text. One
// object, defined once per page (the harness evaluates this file and then
// calls it).
(function () {
  "use strict";
  if (window.durasimLayout) return;
  var BOX = "data-scrollbox", CUE = "data-scroll-cue";

  function describe(el) {
    var r = el.getBoundingClientRect(), s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    var cls = el.getAttribute("class");
    if (cls) s += "." + cls.trim().split(/\s+/).join(".");
    var t = (el.textContent || "").trim().replace(/\s+/g, " ");
    if (t.length > 60) t = t.slice(0, 59) + "…";
    return s + " [x " + Math.round(r.left) + " to " + Math.round(r.right) + "] " + JSON.stringify(t);
  }

  // clips: the element cuts what overflows it sideways (hidden, clip,
  // auto, scroll): its own box is what a reader sees of its content.
  function clips(el) { return getComputedStyle(el).overflowX !== "visible"; }

  function scrollsX(el) {
    var o = getComputedStyle(el).overflowX;
    return (o === "auto" || o === "scroll") && el.scrollWidth > el.clientWidth + 1;
  }

  // clipRect is the part of the page el's content can show in: the
  // intersection of the boxes of its clipping ancestors (and of el itself
  // when self is true: a text's own element cuts it too).
  function clipRect(el, self) {
    var r = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
    for (var a = self ? el : el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (!clips(a)) continue;
      var c = a.getBoundingClientRect();
      r.l = Math.max(r.l, c.left); r.t = Math.max(r.t, c.top); r.r = Math.min(r.r, c.right); r.b = Math.min(r.b, c.bottom);
    }
    return r;
  }

  // visible: neither el nor an ancestor is hidden, and el is not in the
  // closed part of a <details> (which a browser lays out but does not
  // show).
  function visible(el) {
    for (var a = el, child = null; a; child = a, a = a.parentElement) {
      var cs = getComputedStyle(a);
      if (cs.display === "none" || cs.visibility === "hidden" || cs.opacity === "0" || a.hidden) return false;
      if (a.tagName === "DETAILS" && !a.open && child && child.tagName !== "SUMMARY") return false;
    }
    return true;
  }

  // cue is the visible element that tells a reader box scrolls: one with
  // data-scroll-cue in the box's parent, outside the box (inside it, it
  // would scroll away).
  function cueOf(box) {
    var cues = box.parentElement ? box.parentElement.querySelectorAll("[" + CUE + "]") : [];
    for (var k = 0; k < cues.length; k++) {
      var c = cues[k], r = c.getBoundingClientRect();
      if (box.contains(c) || r.width < 4 || r.height < 4 || !visible(c)) continue;
      if (r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5) continue;
      return c;
    }
    return null;
  }

  function overflow() {
    var vw = document.documentElement.clientWidth;
    var out = { pageWidth: document.documentElement.scrollWidth, viewportWidth: vw, wide: [], unmarked: [], noCue: [], boxes: 0, scrolling: 0 };
    var els = document.body.querySelectorAll("*"), reported = [];
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      if (el.ownerSVGElement) continue; // an inline SVG counts as one box
      var marked = el.hasAttribute(BOX), outer = el.parentElement ? el.parentElement.closest("[" + BOX + "]") : null;
      if (outer) continue; // inside a marked scroll box: it may be as wide as it likes
      if (marked) out.boxes++;
      if (scrollsX(el)) {
        if (!marked) out.unmarked.push(describe(el));
        else {
          out.scrolling++;
          if (!cueOf(el)) out.noCue.push(describe(el));
        }
      }
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.right <= vw + 0.5 && r.left >= -0.5) continue;
      var c = clipRect(el, false);
      if (Math.min(r.right, c.r) <= vw + 0.5 && Math.max(r.left, c.l) >= -0.5) continue; // cut by an ancestor that fits
      if (reported.some(function (p) { return p.contains(el); })) continue;
      reported.push(el);
      out.wide.push(describe(el));
    }
    return out;
  }

  // textBoxes is the box of every line of visible text: each text node's
  // line fragments, and each element extra selects (SVG groups that draw
  // their text as outlines), cut to what their clipping ancestors show.
  function textBoxes(extra) {
    var out = [], range = document.createRange();
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), n;
    var seen = new Map();
    function shown(el) {
      if (!seen.has(el)) seen.set(el, visible(el) && !el.closest("script,style,select,option,textarea,noscript,svg"));
      return seen.get(el);
    }
    function push(r, c, what) {
      var l = Math.max(r.left, c.l), t = Math.max(r.top, c.t), rr = Math.min(r.right, c.r), b = Math.min(r.bottom, c.b);
      if (rr - l > 0.5 && b - t > 0.5) out.push({ x: l, y: t, w: rr - l, h: b - t, what: what });
    }
    while ((n = walker.nextNode())) {
      if (!/\S/.test(n.data) || !shown(n.parentElement)) continue;
      range.selectNodeContents(n);
      var rects = range.getClientRects(), c = clipRect(n.parentElement, true);
      var what = describe(n.parentElement).replace(/ \[.*$/, "") + " " + JSON.stringify(n.data.trim().slice(0, 50));
      for (var k = 0; k < rects.length; k++) push(rects[k], c, what);
    }
    if (extra) {
      var els = document.querySelectorAll(extra);
      for (var i = 0; i < els.length; i++) {
        if (!visible(els[i])) continue;
        push(els[i].getBoundingClientRect(), clipRect(els[i], false), describe(els[i]).replace(/ \[.*$/, "") + " " + JSON.stringify(els[i].getAttribute("data-text") || ""));
      }
    }
    return out;
  }

  window.durasimLayout = { overflow: overflow, textBoxes: textBoxes };
})();
