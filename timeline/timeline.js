// durasim timeline: one run's history on lanes in virtual time, drawn on
// a canvas (a 100,000-event run would be too many DOM nodes). Written for
// durasim, no library: see the doc of Go package timeline.
(function () {
  "use strict";
  var LANE_H = 22, AXIS_H = 46, LABEL_W = 96, EV = 10, BAR = 9, SPAN = 5, LINE = 4, SAME_STEP = 9, SAME_MAX = 5;
  var RED = "#c62828", PURPLE = "#7b1fa2";
  var all = [];
  window.durasimTimelines = all;

  function jobColor(job) {
    if (!job) return "#5f6368";
    return "hsl(" + ((job * 137.508) % 360).toFixed(1) + ",62%,40%)";
  }
  function jobFill(job) {
    if (!job) return "rgba(95,99,104,0.22)";
    return "hsla(" + ((job * 137.508) % 360).toFixed(1) + ",62%,55%,0.30)";
  }

  // millis formats microseconds as the trace does: "30003ms", "2612.106ms".
  function millis(us) {
    var ms = Math.floor(us / 1000), frac = us % 1000;
    if (frac === 0) return String(ms);
    var f = String(frac);
    while (f.length < 3) f = "0" + f;
    return ms + "." + f.replace(/0+$/, "");
  }

  function human(us) {
    var a = Math.abs(us);
    if (a === 0) return "0";
    if (a >= 60e6) return (us / 60e6).toFixed(a >= 600e6 ? 0 : 1).replace(/\.0$/, "") + " min";
    if (a >= 1e6) return (us / 1e6).toFixed(a >= 10e6 ? 1 : 2).replace(/\.?0+$/, "") + " s";
    if (a >= 1e3) return (us / 1e3).toFixed(a >= 10e3 ? 1 : 2).replace(/\.?0+$/, "") + " ms";
    return us + " µs";
  }

  // Glyph painters: each draws a mark centred at (x, y) in colour c.
  var paint = {
    dot: function (g, x, y, c) { circle(g, x, y, 2.5, c); },
    request: function (g, x, y) { circle(g, x, y, 2.5, "#80868b"); },
    lease: function (g, x, y, c) { g.fillStyle = c; g.fillRect(x - 1.5, y - 7, 3, 14); },
    beat: function (g, x, y, c) { g.fillStyle = c; g.fillRect(x - 0.75, y - 4, 1.5, 8); },
    reject: function (g, x, y) { cross(g, x, y, 3.5, RED, 2); },
    commit: function (g, x, y, c) { g.fillStyle = c; g.fillRect(x - 3.5, y - 3.5, 7, 7); g.strokeStyle = "#111"; g.lineWidth = 0.8; g.strokeRect(x - 3.5, y - 3.5, 7, 7); },
    publish: function (g, x, y, c) { poly(g, [x, y - 5, x + 4.5, y + 3.5, x - 4.5, y + 3.5], c, "#111"); },
    deliver: function (g, x, y, c) { poly(g, [x, y - 5, x + 4, y, x, y + 5, x - 4, y], "#fff", c); },
    apply: function (g, x, y, c) { circle(g, x, y, 4.5, c, "#111"); },
    skip: function (g, x, y, c) { circle(g, x, y, 4, "#fff", c); },
    ack: function (g, x, y) { g.strokeStyle = "#2e7d32"; g.lineWidth = 2.2; g.beginPath(); g.moveTo(x - 4, y); g.lineTo(x - 1, y + 3.5); g.lineTo(x + 4.5, y - 4.5); g.stroke(); },
    retry: function (g, x, y) { poly(g, [x + 4, y - 4.5, x + 4, y + 4.5, x - 4, y], "#ef8f00", "#8a5300"); },
    dead: function (g, x, y) { g.fillStyle = "#111"; g.fillRect(x - 4, y - 4, 8, 8); cross(g, x, y, 2.5, "#fff", 1.2); },
    cancel: function (g, x, y) { cross(g, x, y, 4, "#80868b", 2); },
    crash: function (g, x, y) { cross(g, x, y, 7, RED, 3); },
    restart: function (g, x, y) { poly(g, [x - 3, y - 6, x + 5, y, x - 3, y + 6], "#2e7d32", "#1b4d1e"); },
    pause: function (g, x, y) { g.fillStyle = PURPLE; g.fillRect(x - 4, y - 5, 3, 10); g.fillRect(x + 1, y - 5, 3, 10); },
    resume: function (g, x, y) { poly(g, [x - 3, y - 5, x + 4, y, x - 3, y + 5], PURPLE); },
    duplicate: function (g, x, y) { circle(g, x - 2.5, y, 3.5, "#fff", PURPLE); circle(g, x + 2.5, y, 3.5, PURPLE, PURPLE); },
    delay: function (g, x, y) { poly(g, [x - 4, y - 5, x + 4, y - 5, x - 4, y + 5, x + 4, y + 5], PURPLE, PURPLE); },
    reorder: function (g, x, y) { g.strokeStyle = PURPLE; g.lineWidth = 2; g.beginPath(); g.moveTo(x - 5, y - 4); g.lineTo(x + 5, y + 4); g.moveTo(x - 5, y + 4); g.lineTo(x + 5, y - 4); g.stroke(); poly(g, [x + 5, y + 4, x + 1, y + 4, x + 4, y + 1], PURPLE); },
    ambiguous: function (g, x, y) { g.fillStyle = "#e65100"; g.font = "bold 13px sans-serif"; g.textAlign = "center"; g.textBaseline = "middle"; g.fillText("?", x, y); },
    deadline: function (g, x, y) { g.fillStyle = RED; g.fillRect(x - 1, y - 7, 2, 14); poly(g, [x + 1, y - 7, x + 7, y - 4.5, x + 1, y - 2], RED); },
    breaker: function (g, x, y) { g.strokeStyle = "#111"; g.lineWidth = 1.5; g.strokeRect(x - 4, y - 4, 8, 8); g.beginPath(); g.moveTo(x - 4, y + 4); g.lineTo(x + 4, y - 4); g.stroke(); },
    phase: function (g, x, y) { poly(g, [x, y - 5, x + 5, y, x, y + 5, x - 5, y], "#9aa0a6", "#5f6368"); },
    fail: function (g, x, y) { cross(g, x, y, 3.5, "#e65100", 2); },
    expired: function (g, x, y) { circle(g, x, y, 4.5, "#fff", RED); g.strokeStyle = RED; g.lineWidth = 1.2; g.beginPath(); g.moveTo(x, y - 3); g.lineTo(x, y); g.lineTo(x + 2.5, y); g.stroke(); },
    dlq: function (g, x, y) { g.fillStyle = "#333"; g.fillRect(x - 4.5, y - 3, 9, 6); g.strokeStyle = "#fff"; g.lineWidth = 1; g.beginPath(); g.moveTo(x - 4.5, y - 3); g.lineTo(x, y + 0.5); g.lineTo(x + 4.5, y - 3); g.stroke(); },
    operator: function (g, x, y) { poly(g, [x, y - 5, x + 5, y, x, y + 5, x - 5, y], "#00897b", "#004d40"); }
  };
  // noteDot marks where a fault of the plan took effect.
  function noteDot(g, x, y) { circle(g, x, y, 2.5, PURPLE, "#fff"); }
  function circle(g, x, y, r, fill, stroke) {
    g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI);
    if (fill) { g.fillStyle = fill; g.fill(); }
    if (stroke) { g.strokeStyle = stroke; g.lineWidth = 1.2; g.stroke(); }
  }
  function cross(g, x, y, r, c, w) {
    g.strokeStyle = c; g.lineWidth = w; g.beginPath();
    g.moveTo(x - r, y - r); g.lineTo(x + r, y + r); g.moveTo(x - r, y + r); g.lineTo(x + r, y - r); g.stroke();
  }
  function poly(g, p, fill, stroke) {
    g.beginPath(); g.moveTo(p[0], p[1]);
    for (var i = 2; i < p.length; i += 2) g.lineTo(p[i], p[i + 1]);
    g.closePath();
    if (fill) { g.fillStyle = fill; g.fill(); }
    if (stroke) { g.strokeStyle = stroke; g.lineWidth = 1; g.stroke(); }
  }

  function Timeline(root) {
    this.root = root;
    var d = JSON.parse(root.querySelector(".dtl-data").textContent);
    this.d = d;
    this.ui = d.ui;
    this.unpack();
    this.sel = -1;
    this.violation = d.selected;
    this.onlyInvolved = false;
    this.query = "";
    this.compress = true;
    this.stats = { draws: 0, lastDrawMs: 0, firstDrawAt: 0, marks: 0, bars: 0, links: 0 };
    this.vis = new Uint8Array(this.n);
    this.el = {
      view: root.querySelector(".dtl-view"), axis: root.querySelector(".dtl-axis"), body: root.querySelector(".dtl-body"),
      labels: root.querySelector(".dtl-labels"), canvas: root.querySelector(".dtl-canvas"), tip: root.querySelector(".dtl-tip"),
      detail: root.querySelector(".dtl-detail"), count: root.querySelector(".dtl-count"), search: root.querySelector(".dtl-search"),
      involved: root.querySelector(".dtl-involved"), gaps: root.querySelector(".dtl-gaps"), vsel: root.querySelector(".dtl-vsel"),
      msg: root.querySelector(".dtl-msg"), inv: root.querySelector(".dtl-inv"), legend: root.querySelector(".dtl-legend")
    };
    this.makeLabels();
    this.makeLegend();
    this.buildMap();
    this.filter();
    this.fit();
    this.bind();
    this.resize();
  }

  // unpack turns the flat arrays into typed columns and per-lane indices.
  Timeline.prototype.unpack = function () {
    var d = this.d, n = d.text.length, ev = d.ev, i;
    this.n = n;
    var at = this.at = new Float64Array(n), lane = this.lane = new Int32Array(n), kind = this.kind = new Int32Array(n);
    var job = this.job = new Int32Array(n), other = this.other = new Int32Array(n), ten = this.ten = new Int32Array(n);
    var key = this.keyOf = new Int32Array(n), eid = this.eid = new Int32Array(n), gl = this.gl = new Int32Array(n);
    for (i = 0; i < n; i++) {
      var k = i * EV;
      at[i] = ev[k]; lane[i] = ev[k + 1]; kind[i] = ev[k + 2]; job[i] = ev[k + 3]; other[i] = ev[k + 4];
      ten[i] = ev[k + 5]; key[i] = ev[k + 6]; eid[i] = ev[k + 7]; gl[i] = ev[k + 9];
    }
    d.ev = null;
    var counts = new Int32Array(d.lanes.length);
    for (i = 0; i < n; i++) counts[lane[i]]++;
    this.byLane = [];
    for (var l = 0; l < d.lanes.length; l++) this.byLane.push(new Int32Array(counts[l]));
    var fill = new Int32Array(d.lanes.length);
    for (i = 0; i < n; i++) this.byLane[lane[i]][fill[lane[i]]++] = i;
    // A target's ops carry milliseconds: a handler's effect, completion
    // and commit often share one instant on one lane. Each op after the
    // first of an instant is drawn a step to the right of it (at most
    // SAME_MAX steps), so that every mark can be seen, hovered and clicked.
    this.off = new Float64Array(n);
    if (d.clock === "whole") {
      for (l = 0; l < d.lanes.length; l++) {
        var li = this.byLane[l], run = 0;
        for (var q = 1; q < li.length; q++) {
          run = at[li[q]] === at[li[q - 1]] ? Math.min(run + 1, SAME_MAX) : 0;
          this.off[li[q]] = run * SAME_STEP;
        }
      }
    }
    this.workerLanes = [];
    for (l = 0; l < d.lanes.length; l++) if (d.lanes[l].role === "w") this.workerLanes.push(l);
    this.glyphName = d.glyphs;
    this.notes = {};
    var noteAt = d.noteAt || [], notes = d.notes || [];
    for (i = 0; i < noteAt.length; i++) this.notes[noteAt[i]] = this.notes[noteAt[i]] ? this.notes[noteAt[i]] + "; " + notes[i] : notes[i];
    this.named = {};
    this.colors = {};
    this.fills = {};
  };

  // line is event i's trace line with its number after its time (a
  // target's lines carry their own time: "t=1.503s #24 w0 effect …"),
  // and the fault of the plan that took effect there, if one did.
  Timeline.prototype.line = function (i) {
    var t = this.d.text[i], s;
    if (this.d.clock === "whole") { var sp = t.indexOf(" "); s = t.slice(0, sp) + " #" + (i + 1) + t.slice(sp); }
    else s = "t=" + millis(this.at[i]) + "ms #" + (i + 1) + " " + t;
    return this.notes[i] ? s + "\n" + this.ui.fault + ": " + this.notes[i] : s;
  };

  Timeline.prototype.makeLabels = function () {
    var box = this.el.labels;
    box.textContent = "";
    for (var l = 0; l < this.d.lanes.length; l++) {
      var ln = this.d.lanes[l], div = document.createElement("div");
      div.className = "dtl-lane" + (ln.crashed ? " dtl-crashed" : "");
      div.textContent = ln.name + (ln.crashed ? " ✕" : "");
      div.title = ln.name;
      div.setAttribute("data-lane", ln.name);
      box.appendChild(div);
    }
  };

  Timeline.prototype.makeLegend = function () {
    var box = this.el.legend, ui = this.ui;
    var items = this.d.legend || ["lease", "commit", "publish", "deliver", "apply", "skip", "ack", "retry", "dead", "reject", "crash", "pause", "duplicate", "delay", "reorder", "ambiguous", "deadline", "429", "named"];
    for (var k = 0; k < items.length; k++) {
      var name = items[k], span = document.createElement("span"), c = document.createElement("canvas");
      c.width = 32; c.height = 32; c.style.width = "16px"; c.style.height = "16px";
      var g = c.getContext("2d");
      g.scale(2, 2);
      if (name === "429") { g.fillStyle = "rgba(229,57,53,0.18)"; g.fillRect(0, 0, 16, 16); g.fillStyle = RED; g.font = "bold 8px sans-serif"; g.fillText("429", 1, 11); }
      else if (name === "named") { circle(g, 8, 8, 6, null, RED); }
      else if (name === "fault") { noteDot(g, 8, 8); }
      else if (name === "pause") { g.fillStyle = this.hatch(g); g.fillRect(0, 3, 16, 10); }
      else paint[name](g, 8, 8, jobColor(3));
      span.appendChild(c);
      span.appendChild(document.createTextNode(ui[name] || name));
      box.appendChild(span);
    }
  };

  Timeline.prototype.hatch = function (g) {
    var p = document.createElement("canvas");
    p.width = 8; p.height = 8;
    var h = p.getContext("2d");
    h.fillStyle = "rgba(123,31,162,0.10)"; h.fillRect(0, 0, 8, 8);
    h.strokeStyle = "rgba(123,31,162,0.55)"; h.lineWidth = 1.2;
    h.beginPath(); h.moveTo(0, 8); h.lineTo(8, 0); h.moveTo(-2, 2); h.lineTo(2, -2); h.moveTo(6, 10); h.lineTo(10, 6); h.stroke();
    return g.createPattern(p, "repeat");
  };

  // buildMap builds the piecewise-linear map from time to the drawn axis:
  // each idle gap (no event for longer than the cut-off) shrinks to a
  // sliver of the busy time, a longer gap to a wider one.
  Timeline.prototype.buildMap = function () {
    var at = this.at, n = this.n, end = Math.max(this.d.end, n ? at[n - 1] : 0);
    var t0 = n ? at[0] : 0, gaps = [], prev = t0, i, busy = end - t0;
    var cut = Math.max(100e3, (end - t0) / 200);
    if (this.compress) {
      for (i = 1; i <= n; i++) {
        var t = i < n ? at[i] : end;
        if (t - prev > cut) { gaps.push([prev, t]); busy -= t - prev; }
        prev = Math.max(prev, t);
      }
    }
    var unit = Math.max(busy / 30, 1000);
    var segT = [t0], segU = [t0], segS = [1];
    for (i = 0; i < gaps.length; i++) {
      var a = gaps[i][0], b = gaps[i][1], last = segT.length - 1;
      var ua = segU[last] + (a - segT[last]) * segS[last];
      var w = Math.min(b - a, unit * (0.6 + 0.4 * Math.min(1, Math.log10((b - a) / cut))));
      segT.push(a); segU.push(ua); segS.push(w / (b - a));
      segT.push(b); segU.push(ua + w); segS.push(1);
    }
    this.segT = segT; this.segU = segU; this.segS = segS; this.gaps = gaps;
    this.t0 = t0; this.tEnd = end;
    var u = this.u = new Float64Array(n), seg = 0;
    for (i = 0; i < n; i++) { // times ascend: walk the segments once
      while (seg + 1 < segT.length && segT[seg + 1] <= at[i]) seg++;
      u[i] = segU[seg] + (at[i] - segT[seg]) * segS[seg];
    }
  };

  function search(arr, v) { // the last index with arr[i] <= v (0 if none)
    var lo = 0, hi = arr.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (arr[mid] <= v) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  Timeline.prototype.U = function (t) {
    var k = search(this.segT, t);
    return this.segU[k] + (t - this.segT[k]) * this.segS[k];
  };
  Timeline.prototype.T = function (u) {
    var k = search(this.segU, u);
    return this.segT[k] + (u - this.segU[k]) / this.segS[k];
  };
  Timeline.prototype.X = function (t) { return (this.U(t) - this.u0) / (this.u1 - this.u0) * this.W; };
  // xOf is event i's x, from its precomputed place on the axis.
  // (plus its step to the right among the ops of one instant).
  Timeline.prototype.xOf = function (i) { return (this.u[i] - this.u0) / (this.u1 - this.u0) * this.W + this.off[i]; };

  Timeline.prototype.fit = function () {
    var a = this.U(this.t0), b = this.U(this.tEnd), m = Math.max((b - a) * 0.02, 500);
    this.u0 = this.f0 = a - m; this.u1 = this.f1 = b + m;
    this.full = this.u1 - this.u0;
  };

  // within moves the view inside the run's extent (the fitted view's),
  // keeping its span, or fits the run when the span would hold all of it:
  // no blank before the first event or after the end.
  Timeline.prototype.within = function () {
    var span = this.u1 - this.u0;
    if (span >= this.U(this.tEnd) - this.U(this.t0)) { this.u0 = this.f0; this.u1 = this.f1; return; }
    if (this.u0 < this.f0) { this.u0 = this.f0; this.u1 = this.f0 + span; }
    if (this.u1 > this.f1) { this.u1 = this.f1; this.u0 = this.f1 - span; }
  };

  Timeline.prototype.zoom = function (factor, x) {
    if (x === undefined) x = this.W / 2;
    var u = this.u0 + (this.u1 - this.u0) * x / this.W;
    var span = Math.min(Math.max((this.u1 - this.u0) * factor, 20), this.full * 1.5);
    this.u0 = u - span * x / this.W;
    this.u1 = this.u0 + span;
    this.redraw();
  };

  Timeline.prototype.pan = function (dx) {
    var du = dx / this.W * (this.u1 - this.u0);
    this.u0 -= du; this.u1 -= du;
    this.redraw();
  };

  // filter recomputes which events show: the violation's critical path
  // when "only the jobs involved" is on, and the search terms.
  Timeline.prototype.filter = function () {
    var n = this.n, vis = this.vis, i, shown = 0;
    var inv = null;
    if (this.onlyInvolved && this.violation >= 0) {
      inv = new Uint8Array(n);
      var idx = this.d.involved[this.d.violations[this.violation].group];
      for (i = 0; i < idx.length; i++) inv[idx[i]] = 1;
    }
    var match = this.matcher(this.query);
    for (i = 0; i < n; i++) {
      vis[i] = (!inv || inv[i]) && (!match || match(i)) ? 1 : 0;
      shown += vis[i];
    }
    this.shown = shown;
    this.named = {};
    if (this.violation >= 0) {
      var ev = this.d.violations[this.violation].events;
      for (i = 0; i < ev.length; i++) this.named[ev[i]] = true;
    }
    if (this.el.count) this.el.count.textContent = this.ui.shown.replace("%s", shown.toLocaleString()).replace("%s", n.toLocaleString());
    if (this.sel >= 0 && !vis[this.sel]) this.select(-1);
    this.redraw();
  };

  // matcher turns a query into a test of one event: every term must
  // match its job (j3), event id (e7), kind, tenant, lane or key.
  Timeline.prototype.matcher = function (q) {
    var terms = q.trim().toLowerCase().split(/\s+/).filter(function (s) { return s; });
    if (!terms.length) return null;
    var self = this, tests = terms.map(function (term) { return self.term(term); });
    return function (i) {
      for (var k = 0; k < tests.length; k++) if (!tests[k](i)) return false;
      return true;
    };
  };

  Timeline.prototype.term = function (term) {
    var self = this, m, k;
    term = term.replace(/^(job|tenant|key|kind|lane)=/, "");
    if ((m = /^j(\d+)$/.exec(term))) {
      var j = +m[1];
      return function (i) { return self.job[i] === j || self.other[i] === j; };
    }
    if ((m = /^e(\d+)$/.exec(term))) {
      var e = +m[1];
      return function (i) { return self.eid[i] === e; };
    }
    var kinds = this.d.kinds.indexOf(term), lanes = [];
    for (k = 0; k < this.d.lanes.length; k++) if (this.d.lanes[k].name === term) lanes.push(k);
    var strs = this.d.strs, tenant = -1, keys = new Uint8Array(strs.length);
    for (k = 1; k < strs.length; k++) {
      var s = strs[k].toLowerCase();
      if (s === term) tenant = k;
      if (s.indexOf(":") >= 0 && s.indexOf(term) >= 0) keys[k] = 1;
    }
    return function (i) {
      return self.kind[i] === kinds || self.ten[i] === tenant || keys[self.keyOf[i]] === 1 || lanes.indexOf(self.lane[i]) >= 0;
    };
  };

  Timeline.prototype.bind = function () {
    var self = this, el = this.el;
    var timer = 0;
    if (el.search) el.search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { self.query = el.search.value; self.filter(); }, 120);
    });
    if (el.involved) el.involved.addEventListener("click", function () {
      self.onlyInvolved = !self.onlyInvolved;
      el.involved.setAttribute("aria-pressed", String(self.onlyInvolved));
      self.filter();
    });
    if (el.gaps) el.gaps.addEventListener("change", function () {
      var tc = self.T((self.u0 + self.u1) / 2), ts = self.T(self.u1) - self.T(self.u0);
      self.compress = el.gaps.checked;
      self.buildMap();
      self.fit();
      if (!self.compress) { var uc = self.U(tc), half = Math.min(ts, self.full) / 2; self.u0 = uc - half; self.u1 = uc + half; self.within(); }
      self.redraw();
    });
    if (el.vsel) el.vsel.addEventListener("change", function () { self.showViolation(+el.vsel.value); });
    this.root.querySelector(".dtl-zin").addEventListener("click", function () { self.zoom(0.5); });
    this.root.querySelector(".dtl-zout").addEventListener("click", function () { self.zoom(2); });
    this.root.querySelector(".dtl-fit").addEventListener("click", function () { self.fit(); self.redraw(); });
    this.bindMouse(el.canvas, true);
    this.bindMouse(el.axis, false);
    el.view.addEventListener("keydown", function (ev) { self.onKey(ev); });
    window.addEventListener("resize", function () { self.resize(); });
  };

  Timeline.prototype.bindMouse = function (c, marks) {
    var self = this, drag = null;
    c.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = c.getBoundingClientRect();
      self.zoom(Math.exp(ev.deltaY * 0.0015), ev.clientX - r.left);
    }, { passive: false });
    c.addEventListener("mousedown", function (ev) { drag = { x: ev.clientX, moved: false }; });
    window.addEventListener("mouseup", function (ev) {
      if (drag && !drag.moved && marks && ev.target === c) {
        var r = c.getBoundingClientRect();
        self.select(self.hit(ev.clientX - r.left, ev.clientY - r.top));
        self.el.view.focus({ preventScroll: true });
      }
      drag = null;
    });
    c.addEventListener("mousemove", function (ev) {
      if (drag && (ev.buttons & 1)) {
        var dx = ev.clientX - drag.x;
        if (Math.abs(dx) > 2 || drag.moved) { drag.moved = true; drag.x = ev.clientX; self.pan(dx); }
        return;
      }
      if (marks) self.hover(ev);
    });
    c.addEventListener("mouseleave", function () { self.el.tip.hidden = true; });
  };

  // hit finds the shown mark nearest to (x, y) in the canvas, within 7 px.
  Timeline.prototype.hit = function (x, y) {
    var l = Math.floor(y / LANE_H);
    if (l < 0 || l >= this.d.lanes.length) return -1;
    var idx = this.byLane[l], best = -1, bestD = 7;
    var lo = this.firstAt(idx, this.T(this.u0 + (x - 8 - SAME_MAX * SAME_STEP) / this.W * (this.u1 - this.u0)));
    for (var k = lo; k < idx.length; k++) {
      var i = idx[k], px = this.xOf(i);
      if (px - this.off[i] > x + 8) break;
      if (!this.vis[i]) continue;
      var dd = Math.abs(px - x);
      if (dd <= bestD) { best = i; bestD = dd; }
    }
    return best;
  };

  // firstAt is the first position in a lane's index at or after time t.
  Timeline.prototype.firstAt = function (idx, t) {
    var lo = 0, hi = idx.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (this.at[idx[mid]] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  };

  Timeline.prototype.hover = function (ev) {
    var r = this.el.canvas.getBoundingClientRect(), vr = this.el.view.getBoundingClientRect();
    var i = this.hit(ev.clientX - r.left, ev.clientY - r.top), tip = this.el.tip;
    this.hovered = i;
    if (i < 0) { tip.hidden = true; return; }
    this.showTip(i, ev.clientX, ev.clientY);
  };

  // showTip shows event i's trace line beside the point (x, y) of the
  // window.
  Timeline.prototype.showTip = function (i, x, y) {
    var tip = this.el.tip, vr = this.el.view.getBoundingClientRect();
    tip.textContent = this.line(i);
    tip.hidden = false;
    var left = x - vr.left + 14, top = y - vr.top + 14;
    if (left > vr.width * 0.55) left = Math.max(0, x - vr.left - tip.offsetWidth - 10);
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  };

  Timeline.prototype.onKey = function (ev) {
    switch (ev.key) {
      case "ArrowRight": case "n": this.step(1); break;
      case "ArrowLeft": case "p": this.step(-1); break;
      case "+": case "=": this.zoom(0.5); break;
      case "-": this.zoom(2); break;
      case "0": this.fit(); this.redraw(); break;
      case "Escape": this.select(-1); break;
      default: return;
    }
    ev.preventDefault();
  };

  // step moves the selection to the next (+1) or previous (-1) shown event
  // of the selected job (of the same lane for an event with no job).
  Timeline.prototype.step = function (dir) {
    var i = this.sel, n = this.n;
    if (i < 0) {
      var v = this.violation >= 0 ? this.d.violations[this.violation] : null;
      for (i = dir > 0 ? 0 : n - 1; i >= 0 && i < n; i += dir) if (this.vis[i] && (!v || !v.job || this.job[i] === v.job)) break;
      if (i >= 0 && i < n) this.select(i, true);
      return;
    }
    var j = this.job[i], l = this.lane[i];
    for (var k = i + dir; k >= 0 && k < n; k += dir) {
      if (!this.vis[k]) continue;
      if (j ? (this.job[k] === j || this.other[k] === j) : this.lane[k] === l) { this.select(k, true); this.tipTo(k); return; }
    }
  };

  // tipTo moves a shown tooltip to event i's mark (the selection moved by
  // key): it never stays on the mark the keys left.
  Timeline.prototype.tipTo = function (i) {
    var tip = this.el.tip;
    if (tip.hidden) return;
    this.draw();
    var r = this.el.canvas.getBoundingClientRect(), vr = this.el.view.getBoundingClientRect();
    var x = r.left + this.xOf(i), y = r.top + this.lane[i] * LANE_H + LANE_H / 2;
    if (x < r.left || x > r.right || y < vr.top || y > vr.bottom) { tip.hidden = true; return; }
    this.hovered = i;
    this.showTip(i, x, y);
  };

  Timeline.prototype.select = function (i, reveal) {
    this.sel = i;
    var d = this.el.detail;
    if (i < 0) { d.textContent = this.ui.hint; this.redraw(); return; }
    var who = this.job[i] ? this.ui.job + " j" + this.job[i] : this.ui.noJob;
    d.textContent = this.line(i) + "   [" + who + "]";
    if (reveal) this.reveal(i);
    this.redraw();
  };

  // reveal pans an event into view and scrolls its lane into the box.
  Timeline.prototype.reveal = function (i) {
    var x = this.xOf(i);
    if (x < 20 || x > this.W - 20) {
      var span = this.u1 - this.u0, u = this.U(this.at[i]);
      this.u0 = u - span / 2; this.u1 = u + span / 2;
    }
    var body = this.el.body, y = this.lane[i] * LANE_H;
    if (y < body.scrollTop || y + LANE_H > body.scrollTop + body.clientHeight) body.scrollTop = y - body.clientHeight / 2;
  };

  Timeline.prototype.showViolation = function (k) {
    this.violation = k;
    var v = this.d.violations[k];
    if (this.el.inv) this.el.inv.textContent = v.invariant;
    if (this.el.msg) this.el.msg.textContent = v.text.indexOf(v.invariant + ": ") === 0 ? v.text.slice(v.invariant.length + 2) : v.text;
    this.filter();
  };

  Timeline.prototype.resize = function () {
    var c = this.el.canvas, a = this.el.axis, dpr = window.devicePixelRatio || 1;
    var w = c.clientWidth || (this.el.view.clientWidth - LABEL_W);
    if (w <= 0) return; // hidden: drawn when shown
    var h = this.d.lanes.length * LANE_H;
    this.W = w; this.H = h; this.dpr = dpr;
    c.style.height = h + "px";
    c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    a.style.width = w + "px"; // as wide as the lanes, whether or not they scroll
    a.width = Math.round(w * dpr); a.height = Math.round(AXIS_H * dpr);
    this.g = c.getContext("2d"); this.ga = a.getContext("2d");
    this.pattern = this.hatch(this.g);
    this.redraw(true);
  };

  Timeline.prototype.redraw = function (now) {
    if (!this.g) return;
    if (now) { this.draw(); return; }
    if (this.pending) return;
    var self = this;
    this.pending = true;
    requestAnimationFrame(function () { self.pending = false; self.draw(); });
  };

  Timeline.prototype.draw = function () {
    var t = performance.now(), g = this.g;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.clearRect(0, 0, this.W, this.H);
    this.drawLanes(g);
    this.drawSpans(g);
    this.drawBars(g);
    this.drawLines(g);
    this.stats.links = this.drawLinks(g);
    this.stats.marks = this.drawMarks(g);
    this.drawViolation(g);
    this.drawBarLabels(g);
    this.drawSelection(g);
    this.drawAxis();
    this.stats.draws++;
    this.stats.lastDrawMs = performance.now() - t;
    if (!this.stats.firstDrawAt) this.stats.firstDrawAt = performance.now();
  };

  Timeline.prototype.drawLanes = function (g) {
    var lanes = this.d.lanes;
    for (var l = 0; l < lanes.length; l++) {
      var y = l * LANE_H;
      g.fillStyle = l % 2 ? "#f7f8fb" : "#ffffff";
      g.fillRect(0, y, this.W, LANE_H);
      var a = Math.max(this.X(lanes[l].from), -10), b = Math.min(this.X(lanes[l].to), this.W + 10);
      if (b > a) { g.fillStyle = "#c4c8d0"; g.fillRect(a, y + LANE_H / 2 - 0.5, b - a, 1); }
      if (lanes[l].crashed) paint.crash(g, this.X(lanes[l].to), y + LANE_H / 2);
    }
    g.fillStyle = "rgba(120,124,135,0.13)";
    for (var k = 0; k < this.gaps.length; k++) {
      var x0 = this.X(this.gaps[k][0]), x1 = this.X(this.gaps[k][1]);
      if (x1 < 0 || x0 > this.W) continue;
      g.fillRect(x0, 0, Math.max(x1 - x0, 1), this.H);
    }
  };

  Timeline.prototype.drawSpans = function (g) {
    var s = this.d.spans, kinds = this.d.spanKinds;
    for (var k = 0; k < s.length; k += SPAN) {
      var kind = kinds[s[k]], ev = s[k + 4];
      if (ev >= 0 && !this.vis[ev]) continue;
      var x0 = this.X(s[k + 2]), x1 = Math.max(this.X(s[k + 3]), x0 + 1);
      if (x1 < 0 || x0 > this.W) continue;
      if (kind === "429") {
        g.fillStyle = "rgba(229,57,53,0.12)";
        for (var w = 0; w < this.workerLanes.length; w++) g.fillRect(x0, this.workerLanes[w] * LANE_H, x1 - x0, LANE_H);
        if (this.workerLanes.length) {
          g.fillStyle = RED; g.font = "bold 10px sans-serif"; g.textAlign = "left"; g.textBaseline = "top";
          var bx = Math.max(x0, 0) + 2, by = this.workerLanes[0] * LANE_H + 1;
          g.fillText("429", bx, by);
          if (this.rec) this.rec.labels.push({ x: bx, y: by, w: g.measureText("429").width, h: 10, what: "429" });
        }
        continue;
      }
      var y = s[k + 1] * LANE_H;
      if (kind === "pause") { g.fillStyle = this.pattern; g.fillRect(x0, y + 2, x1 - x0, LANE_H - 4); }
      else if (kind === "open") { g.fillStyle = "rgba(198,40,40,0.35)"; g.fillRect(x0, y + 3, x1 - x0, LANE_H - 6); }
      else if (kind === "half-open") { g.fillStyle = "rgba(239,143,0,0.35)"; g.fillRect(x0, y + 3, x1 - x0, LANE_H - 6); }
      else if (kind === "delay") {
        g.strokeStyle = PURPLE; g.lineWidth = 1.5; g.setLineDash([4, 3]);
        g.beginPath(); g.moveTo(x0, y + LANE_H - 5); g.lineTo(x1, y + LANE_H - 5); g.stroke(); g.setLineDash([]);
        g.fillStyle = PURPLE; g.fillRect(x1 - 1, y + LANE_H - 9, 2, 8);
      }
    }
  };

  // drawBars draws the leases in view; a bar narrower than a few pixels
  // gets neither outline nor label.
  Timeline.prototype.drawBars = function (g) {
    var b = this.d.bars, n = 0;
    g.font = "10px sans-serif"; g.textBaseline = "middle"; g.textAlign = "left";
    for (var k = 0; k < b.length; k += BAR) {
      if (!this.vis[b[k + 8]]) continue;
      var from = b[k + 4], valid = b[k + 5], to = b[k + 6];
      var x0 = this.X(from), x1 = this.X(to);
      if (x1 < 0 || x0 > this.W) continue;
      var xv = to > valid ? this.X(valid) : x1, y = b[k] * LANE_H + 4, h = LANE_H - 8, job = b[k + 1], w = Math.max(xv - x0, 1.5);
      n++;
      g.fillStyle = this.fill(job); g.fillRect(x0, y, w, h);
      if (x1 - x0 < 4) continue;
      g.strokeStyle = this.color(job); g.lineWidth = 1; g.strokeRect(x0 + 0.5, y + 0.5, Math.max(w - 1, 0.5), h - 1);
      if (to > valid) { // held past its expiry: dotted until someone noticed
        g.setLineDash([2, 3]); g.beginPath(); g.moveTo(xv, y + 1); g.lineTo(x1, y + 1); g.stroke(); g.setLineDash([]);
      }
    }
    this.stats.bars = n;
  };

  // Half the width of each mark's shape, for the labels to keep clear of.
  var HALF = { dot: 3.5, request: 3.5, lease: 2, beat: 1.5, reject: 4.5, commit: 4.5, publish: 5.5, deliver: 5, apply: 6, skip: 5.5,
    ack: 5.5, retry: 5, dead: 5, cancel: 5, crash: 8.5, restart: 6, pause: 5, resume: 5, duplicate: 7, delay: 5, reorder: 6,
    ambiguous: 5, deadline: 8, breaker: 5, phase: 6, fail: 4.5, expired: 6, dlq: 5.5, operator: 6 };
  var RING = 11; // the ring around an event the violation names

  // drawBarLabels writes each lease's label ("j3 f2 a1": job, fence,
  // attempt) in the first stretch of its bar that no mark covers, or not
  // at all (nor when the lanes are drawn as density strips): a label
  // never lies under or over a mark.
  Timeline.prototype.drawBarLabels = function (g) {
    var b = this.d.bars;
    if (this.dense) return; // the lanes are density strips: no room between marks
    g.font = "10px sans-serif"; g.textBaseline = "middle"; g.textAlign = "left";
    for (var k = 0; k < b.length; k += BAR) {
      if (!this.vis[b[k + 8]]) continue;
      var lane = b[k], x0 = this.X(b[k + 4]), x1 = this.X(b[k + 6]);
      var lo = Math.max(x0, 0) + 4, hi = Math.min(x1, this.W) - 3;
      var label = "j" + b[k + 1] + (b[k + 2] >= 0 ? " f" + b[k + 2] : "") + " a" + b[k + 3], need = g.measureText(label).width + 4;
      if (hi - lo < need) continue;
      var at = this.gapIn(lane, b[k + 4], b[k + 6], lo, hi, need);
      if (at < 0) continue;
      var y = lane * LANE_H + LANE_H / 2;
      g.fillStyle = this.color(b[k + 1]); g.fillText(label, at + 2, y);
      if (this.rec) this.rec.labels.push({ x: at + 2, y: y - 6, w: need - 4, h: 12, what: label });
    }
  };

  // gapIn finds, between x lo and hi of lane l (times from to to), the
  // first stretch need wide that no shown mark or ring covers; -1: none.
  Timeline.prototype.gapIn = function (l, from, to, lo, hi, need) {
    var idx = this.byLane[l], start = lo, named = this.named;
    for (var k = this.firstAt(idx, from); k < idx.length && this.at[idx[k]] <= to; k++) {
      var i = idx[k];
      if (!this.vis[i]) continue;
      var x = this.xOf(i), half = named[i] ? RING : HALF[this.glyphName[this.gl[i]]] || 6;
      if (x + half <= start) continue;
      if (x - half - start >= need) return start;
      start = Math.max(start, x + half);
      if (start > hi) return -1;
    }
    return hi - start >= need ? start : -1;
  };

  Timeline.prototype.drawLines = function (g) {
    var L = this.d.lines, kinds = this.d.lineKinds;
    for (var k = 0; k < L.length; k += LINE) {
      if (L[k + 3] >= 0 && !this.vis[L[k + 3]]) continue;
      var x = this.X(L[k + 1]);
      if (x < 0 || x > this.W) continue;
      g.strokeStyle = kinds[L[k]] === "deadline" ? RED : "#5f6368";
      g.lineWidth = 1.2; g.setLineDash([6, 4]);
      g.beginPath(); g.moveTo(x + 0.5, 0); g.lineTo(x + 0.5, this.H); g.stroke(); g.setLineDash([]);
    }
  };

  // drawLinks joins commit → publish → deliver → apply of one effect;
  // zoomed far out on a big run there are too many to read: none drawn.
  Timeline.prototype.drawLinks = function (g) {
    var L = this.d.links, n = 0, at = this.at, lo = this.T(this.u0), hi = this.T(this.u1), cand = 0, k;
    for (k = 0; k < L.length; k += 2) if (at[L[k + 1]] >= lo && at[L[k]] <= hi && this.vis[L[k]] && this.vis[L[k + 1]]) cand++;
    this.linksHidden = cand > 3000;
    if (this.linksHidden) return 0;
    g.lineWidth = 1;
    for (k = 0; k < L.length; k += 2) {
      var a = L[k], b = L[k + 1];
      if (at[b] < lo || at[a] > hi || !this.vis[a] || !this.vis[b]) continue;
      g.strokeStyle = this.color(this.job[a]);
      g.globalAlpha = 0.55;
      g.beginPath(); g.moveTo(this.xOf(a), this.lane[a] * LANE_H + LANE_H / 2); g.lineTo(this.xOf(b), this.lane[b] * LANE_H + LANE_H / 2); g.stroke();
      g.globalAlpha = 1;
      n++;
    }
    return n;
  };

  // drawMarks draws the shown events of each lane in view. With more than
  // DENSE of them in view the marks would only hide each other: each lane
  // then shows, per two-pixel column, a tick as tall as its events are many.
  var DENSE = 6000;
  Timeline.prototype.drawMarks = function (g) {
    var lo = this.T(this.u0 - (this.u1 - this.u0) * 0.01), hi = this.T(this.u1 + (this.u1 - this.u0) * 0.01);
    var from = [], inView = 0, l;
    for (l = 0; l < this.byLane.length; l++) {
      var idx = this.byLane[l], a = this.firstAt(idx, lo), b = this.firstAt(idx, hi + 1e-3);
      from.push([a, b]);
      inView += b - a;
    }
    this.dense = inView > DENSE;
    var n = 0;
    for (l = 0; l < this.byLane.length; l++) n += this.dense ? this.drawDense(g, l, from[l][0], from[l][1]) : this.drawLane(g, l, from[l][0], from[l][1]);
    return n;
  };

  Timeline.prototype.drawLane = function (g, l, a, b) {
    var idx = this.byLane[l], y = l * LANE_H + LANE_H / 2, n = 0, last = new Float64Array(this.glyphName.length).fill(-1e9);
    for (var k = a; k < b; k++) {
      var i = idx[k];
      if (!this.vis[i]) continue;
      var x = this.xOf(i), gi = this.gl[i];
      if (x - last[gi] < 1) continue; // the same shape within a pixel
      paint[this.glyphName[gi]](g, x, y, this.color(this.job[i]));
      if (this.notes[i]) noteDot(g, x, y - 7);
      last[gi] = x;
      n++;
      if (this.rec) { var hw = HALF[this.glyphName[gi]] || 6; this.rec.marks.push({ x: x - hw, y: y - 7, w: 2 * hw, h: 14, what: "#" + (i + 1) }); }
    }
    return n;
  };

  Timeline.prototype.drawDense = function (g, l, a, b) {
    var idx = this.byLane[l], bins = Math.ceil(this.W / 2) + 1, count = new Int32Array(bins), first = new Int32Array(bins).fill(-1);
    var top = l * LANE_H, max = 0, k, n = 0;
    for (k = a; k < b; k++) {
      var i = idx[k];
      if (!this.vis[i]) continue;
      var bin = Math.floor(this.xOf(i) / 2);
      if (bin < 0 || bin >= bins) continue;
      if (first[bin] < 0) first[bin] = i;
      max = Math.max(max, ++count[bin]);
    }
    for (k = 0; k < bins; k++) {
      if (!count[k]) continue;
      var h = 4 + (LANE_H - 8) * Math.log(1 + count[k]) / Math.log(1 + max);
      g.fillStyle = this.color(this.job[first[k]]);
      g.fillRect(k * 2, top + (LANE_H - h) / 2, 2, h);
      n += count[k];
    }
    return n;
  };

  // color and fill cache each job's colours (a canvas parses every colour
  // string it is given).
  Timeline.prototype.color = function (job) {
    var c = this.colors[job];
    if (c === undefined) c = this.colors[job] = jobColor(job);
    return c;
  };
  Timeline.prototype.fill = function (job) {
    var c = this.fills[job];
    if (c === undefined) c = this.fills[job] = jobFill(job);
    return c;
  };

  Timeline.prototype.drawViolation = function (g) {
    if (this.violation < 0) return;
    var ev = this.d.violations[this.violation].events, pts = [];
    for (var k = 0; k < ev.length; k++) {
      var i = ev[k];
      if (!this.vis[i]) continue;
      pts.push([this.xOf(i), this.lane[i] * LANE_H + LANE_H / 2]);
    }
    g.strokeStyle = RED; g.lineWidth = 2.5;
    if (pts.length > 1) {
      g.setLineDash([5, 3]); g.beginPath(); g.moveTo(pts[0][0], pts[0][1]);
      for (k = 1; k < pts.length; k++) g.lineTo(pts[k][0], pts[k][1]);
      g.stroke(); g.setLineDash([]);
    }
    for (k = 0; k < pts.length; k++) { g.beginPath(); g.arc(pts[k][0], pts[k][1], 8.5, 0, 2 * Math.PI); g.stroke(); }
  };

  Timeline.prototype.drawSelection = function (g) {
    if (this.sel < 0) return;
    var i = this.sel, x = this.xOf(i), y = this.lane[i] * LANE_H + LANE_H / 2;
    g.strokeStyle = "#1a73e8"; g.lineWidth = 2;
    g.strokeRect(x - 7, y - 8, 14, 16);
    g.globalAlpha = 0.25; g.fillStyle = "#1a73e8"; g.fillRect(x - 0.5, 0, 1, this.H); g.globalAlpha = 1;
  };

  // drawAxis writes the time scale, the compressed gaps and the labels of
  // the vertical lines.
  Timeline.prototype.drawAxis = function () {
    var g = this.ga, W = this.W;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.clearRect(0, 0, W, AXIS_H);
    g.fillStyle = "#fafbfc"; g.fillRect(0, 0, W, AXIS_H);
    g.font = "11px sans-serif"; g.textBaseline = "top"; g.fillStyle = "#333"; g.strokeStyle = "#888"; g.lineWidth = 1;
    var perPx = (this.u1 - this.u0) / W, step = niceStep(perPx * 90), marks = [];
    for (var s = 0; s < this.segT.length; s++) {
      if (this.segS[s] !== 1) continue; // ticks only where time is to scale
      var a = Math.max(this.segT[s], this.T(this.u0)), b = Math.min(s + 1 < this.segT.length ? this.segT[s + 1] : Infinity, this.T(this.u1));
      if (s > 0 && this.segT[s] >= a) marks.push(this.segT[s]); // where a gap ends
      for (var t = Math.ceil(a / step) * step; t <= b; t += step) marks.push(t);
    }
    var rows = [[], [], []], lastLabel = ""; // the axis's three rows of labels: lines, idle gaps, times
    for (var m = 0; m < marks.length; m++) {
      var x = this.X(marks[m]);
      g.beginPath(); g.moveTo(x + 0.5, AXIS_H - 8); g.lineTo(x + 0.5, AXIS_H); g.stroke();
      var label = tick(marks[m], step);
      if (label !== lastLabel && this.place(g, rows[2], label, x - g.measureText(label).width / 2, AXIS_ROWS[2], "#333", 12)) lastLabel = label;
    }
    for (var k = 0; k < this.gaps.length; k++) {
      var x0 = this.X(this.gaps[k][0]), x1 = this.X(this.gaps[k][1]);
      if (x1 < 0 || x0 > W) continue;
      g.fillStyle = "rgba(120,124,135,0.18)"; g.fillRect(x0, 0, x1 - x0, AXIS_H);
      var gl = "≈ " + human(this.gaps[k][1] - this.gaps[k][0]) + " " + this.ui.idle;
      if (x1 - x0 > 12) this.place(g, rows[1], gl, (x0 + x1) / 2 - g.measureText(gl).width / 2, AXIS_ROWS[1], "#555", 6);
    }
    var L = this.d.lines;
    // The run's phases (quiesce, drained) first, then the documents'
    // deadlines: where two labels collide, the phase keeps its place.
    for (var pass = 0; pass < 2; pass++) {
      for (k = 0; k < L.length; k += LINE) {
        var isDeadline = this.d.lineKinds[L[k]] === "deadline";
        if (isDeadline !== (pass === 1)) continue;
        if (L[k + 3] >= 0 && !this.vis[L[k + 3]]) continue;
        var xl = this.X(L[k + 1]);
        if (xl < 0 || xl > W) continue;
        var text = this.d.lineLabels[k / LINE], tw = g.measureText(text).width;
        // beside its line: to the right, or to the left where the right has no room
        this.place(g, rows[0], text, xl + 3 + tw <= W - 1 ? xl + 3 : xl - 3 - tw, AXIS_ROWS[0], isDeadline ? RED : "#444", 6);
      }
    }
    if (this.linksHidden) this.place(g, rows[0], this.ui.linksOff, W - g.measureText(this.ui.linksOff).width - 4, AXIS_ROWS[0], "#777", 6);
  };

  // The tops of the axis's rows of labels, and the height of a label.
  var AXIS_ROWS = [2, 15, 28], LABEL_H = 12;

  // place writes a label on a row of the axis, moved inside the axis if it
  // would stick out of it, unless it would then overlap one already on the
  // row (pad pixels apart at least); true when it wrote it.
  Timeline.prototype.place = function (g, row, text, x, y, color, pad) {
    var w = g.measureText(text).width;
    x = Math.max(1, Math.min(x, this.W - w - 1));
    if (x < 1) return false; // wider than the axis
    for (var k = 0; k < row.length; k++) if (x < row[k][1] + pad && x + w > row[k][0] - pad) return false;
    row.push([x, x + w]);
    g.textAlign = "left"; g.textBaseline = "top"; g.fillStyle = color; g.fillText(text, x, y);
    if (this.rec) this.rec.axis.push({ x: x, y: y, w: w, h: LABEL_H, what: text });
    return true;
  };

  // tick labels a time with the precision the step between ticks needs.
  function tick(us, step) {
    if (us === 0) return "0";
    var unit = us >= 1e6 ? 1e6 : us >= 1e3 ? 1e3 : 1, name = unit === 1e6 ? " s" : unit === 1e3 ? " ms" : " µs";
    var dec = Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
    return (us / unit).toFixed(Math.min(dec, 6)) + name;
  }

  function niceStep(v) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(v, 1))));
    var m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  // The test and scripting interface.
  Timeline.prototype.info = function () {
    return {
      id: this.root.id, lanes: this.d.lanes.length, laneLabels: this.el.labels.children.length,
      laneNames: this.d.lanes.map(function (l) { return l.name; }), events: this.n, shown: this.shown,
      marks: this.stats.marks, dense: !!this.dense, bars: this.stats.bars, links: this.stats.links, draws: this.stats.draws,
      lastDrawMs: this.stats.lastDrawMs, firstDrawAt: this.stats.firstDrawAt, selected: this.sel,
      onlyInvolved: this.onlyInvolved, violation: this.violation, width: this.W
    };
  };
  // pointOf is where event i's mark is on screen (after scrolling it in).
  Timeline.prototype.pointOf = function (i) {
    this.reveal(i);
    this.draw();
    var r = this.el.canvas.getBoundingClientRect();
    return { x: r.left + this.xOf(i), y: r.top + this.lane[i] * LANE_H + LANE_H / 2 };
  };
  // layout redraws and returns, in the window's coordinates, what each
  // canvas drew: the lanes' text (lease labels, the 429 bands' labels)
  // and marks, the axis's labels, and each canvas's own box.
  Timeline.prototype.layout = function () {
    this.rec = { labels: [], marks: [], axis: [] };
    this.draw();
    var rec = this.rec, c = this.el.canvas.getBoundingClientRect(), a = this.el.axis.getBoundingClientRect();
    this.rec = null;
    function move(list, r) { return list.map(function (b) { return { x: b.x + r.left, y: b.y + r.top, w: b.w, h: b.h, what: b.what }; }); }
    function box(r, what) { return { x: r.left, y: r.top, w: r.width, h: r.height, what: what }; }
    return [{ canvas: box(c, "lanes"), text: move(rec.labels, c), marks: move(rec.marks, c) },
      { canvas: box(a, "axis"), text: move(rec.axis, a), marks: [] }];
  };
  Timeline.prototype.shownIndices = function () {
    var out = [];
    for (var i = 0; i < this.n; i++) if (this.vis[i]) out.push(i);
    return out;
  };

  function init(root) {
    if (root.dtl) return root.dtl;
    root.dtl = new Timeline(root);
    root.dtl.index = all.length;
    all.push(root.dtl);
    return root.dtl;
  }

  function start() {
    var roots = document.querySelectorAll(".dtl");
    for (var k = 0; k < roots.length; k++) {
      if (!roots[k].closest("[hidden]")) init(roots[k]);
    }
    var tabs = document.querySelectorAll(".dtl-tabs [role=tab]");
    for (k = 0; k < tabs.length; k++) tabs[k].addEventListener("click", showTab);
    all.ready = true;
  }

  function showTab(ev) {
    var tabs = document.querySelectorAll(".dtl-tabs [role=tab]");
    for (var k = 0; k < tabs.length; k++) {
      var on = tabs[k] === ev.currentTarget, panel = document.getElementById(tabs[k].getAttribute("aria-controls"));
      tabs[k].setAttribute("aria-selected", String(on));
      panel.hidden = !on;
      if (on) { var t = init(panel.querySelector(".dtl")); t.resize(); }
    }
  }
  window.durasimTimeline = { init: init, millis: millis };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
