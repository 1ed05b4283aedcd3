// The prunesim report: draws the run's data (the JSON in #data) as HTML tables and SVG.
// Plain DOM and SVG, no library; nothing is fetched.
(function () {
  'use strict';

  var NS = 'http://www.w3.org/2000/svg';
  var D = JSON.parse(document.getElementById('data').textContent);
  // Up to this many executed tasks in view, each is its own bar; beyond, each machine's row
  // is drawn as slices of SLICE_PX pixels.
  var LOD = 3000;
  var SLICE_PX = 3;
  // Outcome indices (runner: Outcome::ALL order).
  var ON_TIME = 0, LATE = 1, EXP_PEND = 2, EXP_EXEC = 3, PRUNED_PEND = 4, PRUNED_EXEC = 5;
  var BAR_CLASSES = [ON_TIME, LATE, EXP_EXEC, PRUNED_EXEC];
  var DROP_COLOR = '#000000', EXPIRY_COLOR = '#d55e00';

  function $(id) { return document.getElementById(id); }

  function h(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    if (attrs) { for (var k in attrs) { e.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { e.textContent = text; }
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function s(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    if (attrs) { for (var k in attrs) { e.setAttribute(k, attrs[k]); } }
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function num(x, digits) {
    if (x === null || x === undefined || !isFinite(x)) { return 'n/a'; }
    if (digits === undefined) {
      var a = Math.abs(x);
      digits = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;
      if (Number.isInteger(x)) { digits = 0; }
    }
    return x.toFixed(digits);
  }

  function clamp(x, lo, hi) { return Math.max(lo, Math.min(hi, x)); }

  // Nice tick values covering [a, b] with about n of them.
  function ticks(a, b, n) {
    var span = b - a;
    if (!(span > 0)) { return [a]; }
    var step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = n / span * step;
    if (err <= 0.15) { step *= 10; } else if (err <= 0.35) { step *= 5; } else if (err <= 0.75) { step *= 2; }
    var out = [];
    for (var t = Math.ceil(a / step) * step; t <= b + 1e-9; t += step) { out.push(t); }
    return out;
  }

  // ---------------------------------------------------------------- what ran and summary
  var S = D.summary || {};

  function whatRan() {
    var dl = $('what-ran');
    function item(k, v) {
      if (v === undefined || v === null || v === '') { return; }
      h('dt', null, dl, k);
      h('dd', null, dl, String(v));
    }
    var mapper = S.mapper ? Object.keys(S.mapper).filter(function (k) { return S.mapper[k] !== null && k !== 'name'; })
      .map(function (k) { return k + ' ' + JSON.stringify(S.mapper[k]); }).join(', ') : '';
    item('experiment', D.title);
    item('heuristic', (S.heuristic || '') + (S.mapper && S.mapper.name && S.mapper.name !== S.heuristic ? ' (= ' + S.mapper.name + ')' : '') + (mapper ? ' (' + mapper + ')' : ''));
    if (S.pruner) {
      item('pruner', Object.keys(S.pruner).map(function (k) { return k + ' ' + JSON.stringify(S.pruner[k]); }).join(', '));
    }
    if (S.system) {
      var sys = S.system;
      item('system', (S.pet ? S.pet.task_types + ' task types x ' + S.pet.machines + ' machines; ' : '') +
        'queue size ' + JSON.stringify(sys.queue_size) + '; drop model ' + sys.drop_model +
        '; the first ' + sys.skip_first + ' and last ' + sys.skip_last + ' tasks by arrival not counted');
    }
    item('trials', S.trials !== undefined ? S.trials + ' (seed ' + S.seed + ')' : undefined);
    item('robustness', S.robustness_mean !== undefined ? num(S.robustness_mean, 2) + ' % (mean over trials)' : undefined);
    if (S.optimum) { item('clairvoyant optimum', 'in [' + num(S.optimum.lower, 2) + ', ' + num(S.optimum.upper, 2) + '] %'); }
    if (S.pct_epsilon) { item('approximate', 'PCT tails trimmed at epsilon ' + S.pct_epsilon); }
    if (D.manifest) { item('built from', 'prunesim ' + D.manifest.version + ', git ' + D.manifest.git_revision); }
  }

  function summaryTable() {
    var t = $('summary-table');
    var head = h('tr', null, h('thead', null, t));
    ['measure', 'mean', '95% CI', 'unit', 'definition'].forEach(function (c) { h('th', null, head, c); });
    var body = h('tbody', null, t);
    var metrics = S.metrics || {};
    var docs = S.metrics_doc || {};
    var group = null;
    D.metrics.forEach(function (m) {
      var e = metrics[m.name];
      if (!e) { return; }
      if (m.group !== group) {
        group = m.group;
        h('th', { colspan: 5 }, h('tr', { 'class': 'group' }, body), group);
      }
      var tr = h('tr', { id: 'metric-' + m.name }, body);
      var d = m.count ? (Number.isInteger(e.mean) ? 0 : 1) : m.unit === '%' ? 2 : undefined;
      h('td', null, tr, m.name);
      h('td', { 'class': 'num' }, tr, num(e.mean, d));
      h('td', { 'class': 'num' }, tr, e.ci95_low === null || e.ci95_low === undefined ? 'n/a (one trial)' :
        '[' + num(e.ci95_low, d) + ', ' + num(e.ci95_high, d) + ']');
      h('td', null, tr, (docs[m.name] && docs[m.name].unit) || m.unit);
      h('td', { 'class': 'def' }, tr, (docs[m.name] && docs[m.name].definition) || m.definition);
    });
  }

  var TRIAL_COLUMNS = ['robustness', 'on_time', 'counted', 'n_late', 'n_expired_pending', 'n_expired_executing',
    'n_pruned_pending', 'n_pruned_executing', 'n_unmapped', 'n_discarded', 'mapping_events', 'engaged_events',
    'deferrals', 'wasted', 'span', 'optimum_lower', 'optimum_upper'];

  function trialsTable() {
    var t = $('trials-table');
    if (!D.trials) { h('tr', null, t).appendChild(h('td', null, null, 'no trials.csv')); return; }
    var cols = D.trials.columns;
    var shown = TRIAL_COLUMNS.filter(function (c) { return cols.indexOf(c) >= 0; });
    var head = h('tr', null, h('thead', null, t));
    h('th', null, head, 'trial');
    shown.forEach(function (c) { h('th', null, head, c); });
    var body = h('tbody', null, t);
    var traced = {};
    D.traces.forEach(function (tr, i) { traced[tr.trial] = i; });
    D.trials.rows.forEach(function (row) {
      var k = row[cols.indexOf('trial')];
      var tr = h('tr', null, body);
      var td = h('td', { 'class': 'num' }, tr);
      if (traced[k] !== undefined) {
        var a = h('a', { 'class': 'trial', href: '#trace', 'data-trial': k }, td, String(k));
        a.addEventListener('click', function () { selectTrace(traced[k]); });
      } else {
        td.textContent = String(k);
      }
      shown.forEach(function (c) {
        var doc = D.metrics.filter(function (m) { return m.name === c; })[0];
        var v = row[cols.indexOf(c)];
        h('td', { 'class': 'num' }, tr, num(v, doc && doc.count ? 0 : doc && doc.unit === '%' ? 2 : undefined));
      });
    });
  }

  function outcomeTable() {
    var t = $('outcome-table');
    var head = h('tr', null, h('thead', null, t));
    ['', 'outcome', 'meaning'].forEach(function (c) { h('th', null, head, c); });
    var body = h('tbody', null, t);
    D.outcomes.forEach(function (o) {
      var tr = h('tr', null, body);
      h('span', { 'class': 'key', style: 'display:inline-block;width:14px;height:10px;background:' + o.color }, h('td', null, tr));
      h('td', null, tr, o.name);
      h('td', { 'class': 'def' }, tr, o.definition);
    });
  }

  // ---------------------------------------------------------------- one trial's trace
  var M = D.machines.length;
  var cur = null;      // the prepared trace on view
  var view = null;     // {x0, x1}: the time domain shown
  var pending = false; // a redraw is scheduled

  function lowerBound(arr, x) { // first index with arr[i] >= x
    var lo = 0, hi = arr.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (arr[mid] < x) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }

  function upperBound(arr, x) { // first index with arr[i] > x
    var lo = 0, hi = arr.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (arr[mid] <= x) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }

  function prepare(tr) {
    if (tr.prepared) { return tr.prepared; }
    var T = tr.tasks, n = T.task.length;
    var rows = [], marks = [];
    for (var m = 0; m < M; m++) { rows.push([]); marks.push([]); }
    var t0 = Infinity, t1 = -Infinity, executed = 0, neverMapped = 0, deferredMapped = [];
    for (var i = 0; i < n; i++) {
      t0 = Math.min(t0, T.arrival[i]);
      t1 = Math.max(t1, T.end[i]);
      var mc = T.machine[i];
      if (mc === null) { neverMapped++; continue; }
      if (T.start[i] !== null) { rows[mc].push(i); executed++; }
      var o = T.outcome[i];
      if (o === EXP_PEND || o === EXP_EXEC || o === PRUNED_PEND || o === PRUNED_EXEC) { marks[mc].push(i); }
      if (T.first_deferred[i] !== null) { deferredMapped.push(i); }
    }
    if (!(t1 > t0)) { t0 = 0; t1 = 1; }
    var starts = [], ends = [], markAt = [];
    for (m = 0; m < M; m++) {
      rows[m].sort(function (a, b) { return T.start[a] - T.start[b]; });
      marks[m].sort(function (a, b) { return T.end[a] - T.end[b]; });
      starts.push(Float64Array.from(rows[m], function (i) { return T.start[i]; }));
      ends.push(Float64Array.from(rows[m], function (i) { return T.end[i]; }));
      markAt.push(Float64Array.from(marks[m], function (i) { return T.end[i]; }));
    }
    // Robustness over time: counted tasks by the tick they ended.
    var counted = [];
    for (i = 0; i < n; i++) { if (T.counted[i]) { counted.push(i); } }
    counted.sort(function (a, b) { return T.end[a] - T.end[b]; });
    var cum = [], ok = 0;
    counted.forEach(function (i, k) {
      if (T.outcome[i] === ON_TIME) { ok++; }
      cum.push([T.end[i], 100 * ok / (k + 1)]);
    });
    var nw = 60, wins = [];
    for (var w = 0; w < nw; w++) { wins.push([0, 0]); }
    counted.forEach(function (i) {
      var w = clamp(Math.floor((T.end[i] - t0) / (t1 - t0) * nw), 0, nw - 1);
      wins[w][1]++;
      if (T.outcome[i] === ON_TIME) { wins[w][0]++; }
    });
    var windowed = [];
    wins.forEach(function (c, w) {
      if (c[1] > 0) { windowed.push([t0 + (w + 0.5) * (t1 - t0) / nw, 100 * c[0] / c[1], c[1]]); }
    });
    tr.prepared = {
      trial: tr.trial, T: T, E: tr.events, n: n, rows: rows, starts: starts, ends: ends, marks: marks,
      markAt: markAt, t0: t0, t1: t1, executed: executed, neverMapped: neverMapped,
      deferredMapped: deferredMapped, cum: cum, windowed: windowed
    };
    return tr.prepared;
  }

  function selectTrace(i) {
    var sel = $('trial-select');
    sel.value = String(i);
    cur = prepare(D.traces[i]);
    view = { x0: cur.t0, x1: cur.t1 };
    drawTypes();
    redraw();
  }

  function setView(x0, x1) {
    var full = cur.t1 - cur.t0;
    var w = clamp(x1 - x0, Math.min(5, full), full);
    var c = (x0 + x1) / 2;
    x0 = c - w / 2;
    x1 = c + w / 2;
    if (x0 < cur.t0) { x1 += cur.t0 - x0; x0 = cur.t0; }
    if (x1 > cur.t1) { x0 -= x1 - cur.t1; x1 = cur.t1; }
    view = { x0: Math.max(cur.t0, x0), x1: x1 };
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () { pending = false; redraw(); });
    }
  }

  function zoom(factor, at) {
    var c = at === undefined ? (view.x0 + view.x1) / 2 : at;
    setView(c - (c - view.x0) * factor, c + (view.x1 - c) * factor);
  }

  function redraw() {
    drawTimeline();
    drawRobustness();
    drawLevel();
  }

  // Geometry shared by the charts on the time axis.
  var LEFT = 96, RIGHT = 16;

  function chartWidth(el) { return Math.max(480, el.clientWidth || 1100); }

  function xScale(W) {
    var k = (W - LEFT - RIGHT) / (view.x1 - view.x0);
    return function (t) { return LEFT + (t - view.x0) * k; };
  }

  function timeAxis(g, x, y, W, labels) {
    var ax = s('g', { 'class': 'axis' }, g);
    ticks(view.x0, view.x1, Math.max(2, Math.floor((W - LEFT - RIGHT) / 90))).forEach(function (t) {
      var px = x(t);
      s('line', { x1: px, x2: px, y1: y, y2: y + 4 }, ax);
      if (labels) { s('text', { x: px, y: y + 15, 'text-anchor': 'middle' }, ax).textContent = num(t, 0); }
    });
    s('line', { x1: LEFT, x2: W - RIGHT, y1: y, y2: y }, ax);
  }

  function clip(svg, id, x, y, w, hgt) {
    var cp = s('clipPath', { id: id }, s('defs', null, svg));
    s('rect', { x: x, y: y, width: Math.max(0, w), height: Math.max(0, hgt) }, cp);
    return 'url(#' + id + ')';
  }

  function markPath(kind, x, y, r) {
    if (kind === 'dropped') {
      return 'M' + (x - r) + ' ' + (y - r) + 'L' + (x + r) + ' ' + (y + r) + 'M' + (x - r) + ' ' + (y + r) + 'L' + (x + r) + ' ' + (y - r);
    }
    return 'M' + (x - r) + ' ' + (y - r) + 'L' + (x + r) + ' ' + (y - r) + 'L' + x + ' ' + (y + r * 0.8) + 'Z';
  }

  function markKind(o) { return o === PRUNED_PEND || o === PRUNED_EXEC ? 'dropped' : 'expired'; }

  function legend() {
    var l = $('legend');
    l.textContent = '';
    BAR_CLASSES.forEach(function (o) {
      var sp = h('span', null, l);
      h('span', { 'class': 'key', style: 'background:' + D.outcomes[o].color }, sp);
      sp.appendChild(document.createTextNode(D.outcomes[o].name.replace(/_/g, ' ')));
    });
    [['dropped', DROP_COLOR, 'dropped (pruner or heuristic)'], ['expired', EXPIRY_COLOR, 'expired at its deadline on a machine']].forEach(function (k) {
      var sp = h('span', null, l);
      var svg = s('svg', { width: 14, height: 12, style: 'vertical-align:middle;margin-right:4px' }, sp);
      s('path', { d: markPath(k[0], 7, 6, 4), stroke: k[1], fill: k[0] === 'expired' ? k[1] : 'none', 'stroke-width': 2 }, svg);
      sp.appendChild(document.createTextNode(k[2]));
    });
    var sp = h('span', null, l);
    var svg = s('svg', { width: 18, height: 12, style: 'vertical-align:middle;margin-right:4px' }, sp);
    s('line', { x1: 1, x2: 17, y1: 6, y2: 6, 'class': 'defer' }, svg);
    sp.appendChild(document.createTextNode('deferred: first deferral to mapping'));
  }

  function drawTimeline() {
    var box = $('timeline');
    box.textContent = '';
    $('tooltip').hidden = true;
    if (!cur) { return; }
    var T = cur.T;
    var W = chartWidth(box);
    var rowH = clamp(Math.floor(560 / Math.max(M, 1)), 8, 34);
    var top = 8, plotH = rowH * M, H = top + plotH + 28;
    var svg = s('svg', { width: W, height: H, id: 'timeline-svg' }, box);
    var x = xScale(W);
    var pw = W - LEFT - RIGHT;
    var every = Math.max(1, Math.ceil(12 / rowH));
    for (var m = 0; m < M; m++) {
      var y = top + m * rowH;
      if (m % 2 === 1) { s('rect', { x: LEFT, y: y, width: pw, height: rowH, 'class': 'rowband' }, svg); }
      if (m % every === 0) {
        s('text', { x: LEFT - 6, y: y + rowH / 2 + 4, 'text-anchor': 'end' }, svg).textContent = D.machines[m];
      }
    }
    timeAxis(svg, x, top + plotH, W, true);
    s('text', { x: LEFT + pw / 2, y: H - 1, 'text-anchor': 'middle', 'class': 'note' }, svg);
    var g = s('g', { 'clip-path': clip(svg, 'clip-timeline', LEFT, top, pw, plotH) }, svg);
    // What is in view, per machine.
    var lo = [], hi = [], inView = 0;
    for (m = 0; m < M; m++) {
      lo.push(lowerBound(cur.ends[m], view.x0));
      hi.push(upperBound(cur.starts[m], view.x1));
      inView += Math.max(0, hi[m] - lo[m]);
    }
    var pad = Math.max(1, Math.round(rowH * 0.12));
    var aggregated = inView > LOD;
    var slices = {};
    if (!aggregated) {
      for (m = 0; m < M; m++) {
        for (var k = lo[m]; k < hi[m]; k++) {
          var i = cur.rows[m][k];
          var x0 = x(T.start[i]), x1 = x(T.end[i]);
          s('rect', {
            'class': 'bar', 'data-i': i, x: x0.toFixed(2), y: top + m * rowH + pad,
            width: Math.max(1, x1 - x0).toFixed(2), height: rowH - 2 * pad, fill: D.outcomes[T.outcome[i]].color
          }, g);
        }
      }
    } else {
      var nb = Math.ceil(pw / SLICE_PX), per = (view.x1 - view.x0) / nb;
      for (m = 0; m < M; m++) {
        var busy = new Float64Array(nb * 4), count = new Uint32Array(nb);
        for (k = lo[m]; k < hi[m]; k++) {
          i = cur.rows[m][k];
          var a = Math.max(T.start[i], view.x0), b = Math.min(T.end[i], view.x1);
          var c = BAR_CLASSES.indexOf(T.outcome[i]);
          if (c < 0) { c = 0; }
          var b0 = clamp(Math.floor((a - view.x0) / per), 0, nb - 1), b1 = clamp(Math.floor((b - view.x0) / per), 0, nb - 1);
          for (var q = b0; q <= b1; q++) {
            var ov = Math.min(b, view.x0 + (q + 1) * per) - Math.max(a, view.x0 + q * per);
            if (ov > 0) { busy[q * 4 + c] += ov; }
            count[q]++;
          }
        }
        for (q = 0; q < nb; q++) {
          var tot = busy[q * 4] + busy[q * 4 + 1] + busy[q * 4 + 2] + busy[q * 4 + 3];
          if (!(tot > 0)) { continue; }
          var best = 0;
          for (c = 1; c < 4; c++) { if (busy[q * 4 + c] > busy[q * 4 + best]) { best = c; } }
          var key = m + ':' + q;
          slices[key] = { m: m, a: view.x0 + q * per, b: view.x0 + (q + 1) * per, busy: Array.prototype.slice.call(busy, q * 4, q * 4 + 4), n: count[q] };
          s('rect', {
            'class': 'agg', 'data-k': key, x: (LEFT + q * SLICE_PX).toFixed(1), y: top + m * rowH + pad,
            width: SLICE_PX, height: rowH - 2 * pad, fill: D.outcomes[BAR_CLASSES[best]].color,
            'fill-opacity': clamp(tot / per, 0.25, 1).toFixed(2)
          }, g);
        }
      }
    }
    // Drops and expiries.
    var r = clamp(rowH / 4, 2.5, 5), nMarks = 0, mlo = [], mhi = [];
    for (m = 0; m < M; m++) {
      mlo.push(lowerBound(cur.markAt[m], view.x0));
      mhi.push(upperBound(cur.markAt[m], view.x1));
      nMarks += mhi[m] - mlo[m];
    }
    // Many marks in view (more than one per 16 pixels of a row on average): one per machine,
    // kind and 12 pixels, drawn smaller and thinner.
    var dense = nMarks > LOD || nMarks * 16 > M * pw, markPx = 4 * SLICE_PX;
    if (dense) { r = Math.min(r, 2.5); }
    var seen = {};
    for (m = 0; m < M; m++) {
      for (k = mlo[m]; k < mhi[m]; k++) {
        i = cur.marks[m][k];
        var kind = markKind(T.outcome[i]);
        var px = x(T.end[i]);
        if (dense) {
          var sk = m + ':' + kind + ':' + Math.floor(px / markPx);
          if (seen[sk]) { continue; }
          seen[sk] = true;
        }
        var yy = kind === 'dropped' ? top + m * rowH + rowH / 2 : top + m * rowH + r + 1;
        s('path', {
          'class': 'mark', 'data-i': i, d: markPath(kind, px, yy, r),
          stroke: kind === 'dropped' ? DROP_COLOR : EXPIRY_COLOR, fill: kind === 'dropped' ? 'none' : EXPIRY_COLOR,
          'stroke-width': dense ? 1 : 2
        }, g);
      }
    }
    // Deferral periods: from the first deferral to the mapping, on the machine it went to.
    if ($('show-deferrals').checked && !aggregated) {
      cur.deferredMapped.forEach(function (i) {
        var a = T.first_deferred[i], b = T.mapped[i];
        if (b < view.x0 || a > view.x1) { return; }
        var yd = top + T.machine[i] * rowH + 1.5;
        s('line', { 'class': 'defer', 'data-i': i, x1: x(a), x2: Math.max(x(a) + 1, x(b)), y1: yd, y2: yd }, g);
      });
    }
    $('view-note').textContent = 'time ' + num(view.x0, 0) + ' to ' + num(view.x1, 0) + ': ' + inView +
      ' executed tasks in view' + (aggregated ? ', drawn as slices of ' + SLICE_PX + ' px (zoom in to see single tasks)' : '') +
      '; ' + cur.executed + ' executed, ' + cur.neverMapped + ' never mapped (not on a machine) in this trial';
    box.onwheel = function (e) {
      e.preventDefault();
      var rect = svg.getBoundingClientRect();
      var t = view.x0 + (e.clientX - rect.left - LEFT) / pw * (view.x1 - view.x0);
      zoom(e.deltaY < 0 ? 1 / 1.25 : 1.25, clamp(t, view.x0, view.x1));
    };
    tooltips(svg, slices);
  }

  // Dragging pans, double-click shows the whole trial.
  function panning() {
    var box = $('timeline'), drag = null;
    box.addEventListener('mousedown', function (e) {
      drag = { x: e.clientX, x0: view.x0, x1: view.x1 };
      box.classList.add('dragging');
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag || !cur) { return; }
      var pw = chartWidth(box) - LEFT - RIGHT;
      var dt = (e.clientX - drag.x) / pw * (drag.x1 - drag.x0);
      setView(drag.x0 - dt, drag.x1 - dt);
    });
    window.addEventListener('mouseup', function () { drag = null; box.classList.remove('dragging'); });
    box.addEventListener('dblclick', function () { if (cur) { setView(cur.t0, cur.t1); } });
    $('zoom-in').addEventListener('click', function () { zoom(1 / 1.5); });
    $('zoom-out').addEventListener('click', function () { zoom(1.5); });
    $('zoom-reset').addEventListener('click', function () { setView(cur.t0, cur.t1); });
    $('show-deferrals').addEventListener('change', function () { drawTimeline(); });
    window.addEventListener('resize', function () { if (cur) { redraw(); drawTypes(); } });
  }

  function field(v, digits) { return v === null || v === undefined ? '' : num(v, digits); }

  function taskTable(i) {
    var T = cur.T;
    var rows = [
      ['task', T.task[i]], ['type', T.task_type[i]], ['arrival', field(T.arrival[i], 0)],
      ['deadline', field(T.deadline[i], 0)], ['counted', T.counted[i] ? 'yes' : 'no'],
      ['considered', field(T.considered[i], 0)], ['deferrals', T.deferrals[i]],
      ['first deferred', field(T.first_deferred[i], 0)], ['mapped', field(T.mapped[i], 0)],
      ['machine', T.machine[i] === null ? '' : D.machines[T.machine[i]]],
      ['chance when mapped', T.chance[i] === null ? '' : num(T.chance[i], 4)],
      ['start', field(T.start[i], 0)], ['end', field(T.end[i], 0)],
      ['outcome', D.outcomes[T.outcome[i]].name], ['ended by', D.ended_by[T.ended_by[i]]]
    ];
    var t = h('table');
    rows.forEach(function (r) {
      var tr = h('tr', null, t);
      h('td', null, tr, r[0]);
      h('td', null, tr, String(r[1]));
    });
    return t;
  }

  function sliceTable(sl) {
    var t = h('table');
    function row(k, v) { var tr = h('tr', null, t); h('td', null, tr, k); h('td', null, tr, v); }
    row('machine', D.machines[sl.m]);
    row('time', num(sl.a, 0) + ' to ' + num(sl.b, 0));
    row('tasks', String(sl.n));
    var w = sl.b - sl.a;
    BAR_CLASSES.forEach(function (o, c) {
      if (sl.busy[c] > 0) { row(D.outcomes[o].name, num(100 * sl.busy[c] / w, 0) + ' % of the time'); }
    });
    return t;
  }

  function tooltips(svg, slices) {
    var tip = $('tooltip');
    svg.addEventListener('mousemove', function (e) {
      var el = e.target;
      var content = null;
      if (el.classList && (el.classList.contains('bar') || el.classList.contains('mark') || el.classList.contains('defer'))) {
        content = taskTable(+el.getAttribute('data-i'));
      } else if (el.classList && el.classList.contains('agg')) {
        content = sliceTable(slices[el.getAttribute('data-k')]);
      }
      if (!content) { tip.hidden = true; return; }
      tip.textContent = '';
      tip.appendChild(content);
      tip.hidden = false;
      var w = tip.offsetWidth, hh = tip.offsetHeight;
      var left = e.clientX + 14, topp = e.clientY + 14;
      if (left + w > window.innerWidth - 4) { left = e.clientX - w - 14; }
      if (topp + hh > window.innerHeight - 4) { topp = e.clientY - hh - 14; }
      tip.style.left = Math.max(0, left) + 'px';
      tip.style.top = Math.max(0, topp) + 'px';
    });
    svg.addEventListener('mouseleave', function () { tip.hidden = true; });
  }

  // Points in the view, at most about two per pixel.
  function visiblePoints(pts, W) {
    var lo = 0, hi = pts.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (pts[mid][0] < view.x0) { lo = mid + 1; } else { hi = mid; } }
    var a = Math.max(0, lo - 1);
    var b = a;
    while (b < pts.length && pts[b][0] <= view.x1) { b++; }
    b = Math.min(pts.length, b + 1);
    var step = Math.max(1, Math.floor((b - a) / (2 * W)));
    var out = [];
    for (var i = a; i < b; i += step) { out.push(pts[i]); }
    if (b > a && out[out.length - 1] !== pts[b - 1]) { out.push(pts[b - 1]); }
    return out;
  }

  function yAxis(g, y, vals, fmt) {
    var ax = s('g', { 'class': 'axis' }, g);
    vals.forEach(function (v) {
      s('line', { x1: LEFT - 4, x2: LEFT, y1: y(v), y2: y(v) }, ax);
      s('text', { x: LEFT - 7, y: y(v) + 4, 'text-anchor': 'end' }, ax).textContent = fmt(v);
    });
    s('line', { x1: LEFT, x2: LEFT, y1: y(vals[0]), y2: y(vals[vals.length - 1]) }, ax);
  }

  function drawRobustness() {
    var box = $('robustness');
    box.textContent = '';
    if (!cur) { return; }
    var W = chartWidth(box), top = 10, ph = 150, H = top + ph + 24;
    var svg = s('svg', { width: W, height: H }, box);
    var x = xScale(W);
    var y = function (v) { return top + ph - v / 100 * ph; };
    [0, 25, 50, 75, 100].forEach(function (v) { s('line', { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), 'class': 'grid' }, svg); });
    yAxis(svg, y, [0, 25, 50, 75, 100], function (v) { return v + ' %'; });
    timeAxis(svg, x, top + ph, W, true);
    var g = s('g', { 'clip-path': clip(svg, 'clip-rob', LEFT, 0, W - LEFT - RIGHT, H) }, svg);
    var pts = visiblePoints(cur.cum, W);
    if (pts.length) {
      s('path', {
        d: 'M' + pts.map(function (p) { return x(p[0]).toFixed(1) + ' ' + y(p[1]).toFixed(1); }).join('L'),
        fill: 'none', stroke: '#0072b2', 'stroke-width': 2, 'class': 'cumulative'
      }, g);
    }
    cur.windowed.forEach(function (p) {
      var c = s('circle', { cx: x(p[0]), cy: y(p[1]), r: 3, fill: '#e69f00', 'class': 'window' }, g);
      s('title', null, c).textContent = num(p[1], 1) + ' % of ' + p[2] + ' counted tasks ending around ' + num(p[0], 0);
    });
    var lg = s('g', null, svg);
    s('line', { x1: W - 330, x2: W - 310, y1: 18, y2: 18, stroke: '#0072b2', 'stroke-width': 2 }, lg);
    s('text', { x: W - 305, y: 22 }, lg).textContent = 'cumulative';
    s('circle', { cx: W - 220, cy: 18, r: 3, fill: '#e69f00' }, lg);
    s('text', { x: W - 212, y: 22 }, lg).textContent = 'per window of the trial';
  }

  function drawLevel() {
    var box = $('level');
    box.textContent = '';
    if (!cur) { return; }
    var E = cur.E, n = E.tick.length;
    var W = chartWidth(box), top = 10, ph = 120, H = top + ph + 24;
    var svg = s('svg', { width: W, height: H }, box);
    var x = xScale(W);
    var maxLevel = 0;
    for (var i = 0; i < n; i++) { if (E.level[i] !== null) { maxLevel = Math.max(maxLevel, E.level[i]); } }
    var p = S.pruner || {};
    var toggle = typeof p.toggle === 'number' ? p.toggle : null;
    var ymax = Math.max(1, maxLevel, toggle || 0) * 1.15;
    var y = function (v) { return top + ph - Math.min(v, ymax) / ymax * ph; };
    var yt = ticks(0, ymax, 4);
    yt.forEach(function (v) { s('line', { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), 'class': 'grid' }, svg); });
    yAxis(svg, y, yt, function (v) { return num(v, v < 10 && !Number.isInteger(v) ? 1 : 0); });
    timeAxis(svg, x, top + ph, W, true);
    var g = s('g', { 'clip-path': clip(svg, 'clip-level', LEFT, 0, W - LEFT - RIGHT, H) }, svg);
    var lo = lowerBound(E.tick, view.x0), hi = upperBound(E.tick, view.x1);
    var a = Math.max(0, lo - 1), b = Math.min(n, hi + 1);
    // Engaged stretches.
    for (i = a; i < b; i++) {
      if (!E.engaged[i]) { continue; }
      var j = i;
      while (j + 1 < b && E.engaged[j + 1]) { j++; }
      var end = j + 1 < n ? E.tick[j + 1] : E.tick[j] + 1;
      s('rect', { x: x(E.tick[i]), y: top, width: Math.max(1, x(end) - x(E.tick[i])), height: ph, fill: '#cc79a7', 'fill-opacity': 0.18, 'class': 'engaged' }, g);
      i = j;
    }
    if (toggle !== null) {
      s('line', { x1: LEFT, x2: W - RIGHT, y1: y(toggle), y2: y(toggle), stroke: '#cc79a7', 'stroke-dasharray': '6 3' }, g);
      if (p.schmitt) {
        s('line', { x1: LEFT, x2: W - RIGHT, y1: y(toggle * p.schmitt_off), y2: y(toggle * p.schmitt_off), stroke: '#cc79a7', 'stroke-dasharray': '2 3' }, g);
      }
    }
    var step = Math.max(1, Math.floor((b - a) / (2 * W)));
    var d = [], dots = [];
    for (i = a; i < b; i += step) {
      if (E.level[i] === null) { continue; }
      d.push(x(E.tick[i]).toFixed(1) + ' ' + y(E.level[i]).toFixed(1));
      if (E.misses[i] > 0) { dots.push(i); }
    }
    if (d.length) { s('path', { d: 'M' + d.join('L'), fill: 'none', stroke: '#333', 'stroke-width': 1.5, 'class': 'level' }, g); }
    if (dots.length <= 4 * W) {
      dots.forEach(function (i) {
        s('circle', { cx: x(E.tick[i]), cy: y(E.misses[i]), r: 1.8, fill: '#999' }, g);
      });
    }
    $('level-note').textContent = toggle !== null ? 'Dashed: the toggle, ' + toggle +
      (p.schmitt ? '; dotted: the Schmitt trigger\'s off level, ' + num(toggle * p.schmitt_off, 2) : '') + '.' :
      (S.pruner ? 'Dropping is off in this run.' : '');
  }

  function drawTypes() {
    var box = $('types');
    box.textContent = '';
    if (!cur) { return; }
    var T = cur.T, nt = 0;
    for (var i = 0; i < cur.n; i++) { nt = Math.max(nt, T.task_type[i] + 1); }
    var counts = [];
    for (var t = 0; t < nt; t++) { counts.push(new Array(D.outcomes.length).fill(0)); }
    for (i = 0; i < cur.n; i++) { if (T.counted[i]) { counts[T.task_type[i]][T.outcome[i]]++; } }
    var W = chartWidth(box), rh = 22, top = 8, H = top + nt * rh + 8;
    var svg = s('svg', { width: W, height: H }, box);
    var maxTot = 1;
    counts.forEach(function (c) { maxTot = Math.max(maxTot, c.reduce(function (a, b) { return a + b; }, 0)); });
    var pw = W - LEFT - RIGHT - 140;
    counts.forEach(function (c, t) {
      var y = top + t * rh;
      var tot = c.reduce(function (a, b) { return a + b; }, 0);
      s('text', { x: LEFT - 6, y: y + 15, 'text-anchor': 'end' }, svg).textContent = 'type ' + t;
      var x = LEFT;
      c.forEach(function (k, o) {
        if (!k) { return; }
        var w = k / maxTot * pw;
        var r = s('rect', { x: x, y: y + 3, width: w, height: rh - 6, fill: D.outcomes[o].color, 'class': 'type-bar' }, svg);
        s('title', null, r).textContent = 'type ' + t + ': ' + k + ' ' + D.outcomes[o].name + ' (' + num(100 * k / tot, 1) + ' %)';
        x += w;
      });
      s('text', { x: x + 6, y: y + 15 }, svg).textContent = tot ? num(100 * c[ON_TIME] / tot, 1) + ' % on time of ' + tot : 'no counted task';
    });
  }

  // ---------------------------------------------------------------- start
  whatRan();
  summaryTable();
  trialsTable();
  outcomeTable();
  if (!D.traces.length || !M) {
    $('no-trace').hidden = false;
    $('trace-body').hidden = true;
    $('trial-select').hidden = true;
  } else {
    var sel = $('trial-select');
    D.traces.forEach(function (tr, i) { h('option', { value: String(i) }, sel, String(tr.trial)); });
    sel.addEventListener('change', function () { selectTrace(+sel.value); });
    legend();
    panning();
    selectTrace(0);
  }
})();
