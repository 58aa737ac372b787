/*
 * report_page.js - the drawing script of the report page (runner/report/report_html.h), embedded
 * into renacer at build time (embed_text.cmake). It reads the page data from the
 * <script id="renacer-data"> element and sets every text with textContent, never as HTML.
 */
(function () {
'use strict';
var data = JSON.parse(document.getElementById('renacer-data').textContent);
var NS = 'http://www.w3.org/2000/svg';
var useChartJs = typeof window.Chart === 'function';
document.body.setAttribute('data-renderer', useChartJs ? 'chart.js' : 'svg');
function el(name, attrs, parent, text) {
  var e = name.charAt(0) === '!' ? document.createElement(name.slice(1)) :
    document.createElementNS(NS, name), k;
  for (k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
function median(a) {
  var s = a.slice().sort(function (x, y) { return x - y; }), n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : 0;
}
/* Numbers for people, as util/units.h writes them: three significant digits, durations from
 * ms ("850 us", "12.3 ms", "5.03 s"), bytes with binary prefixes, counts whole with a noun. */
function sig3(v) {
  var a = Math.abs(v);
  return a >= 99.95 || a === 0 ? v.toFixed(0) : a >= 9.995 ? v.toFixed(1) : v.toFixed(2);
}
function fmtMs(ms) {
  var a = Math.abs(ms);
  if (a === 0) return '0 ms';
  if (a < 0.001) return (ms * 1000).toFixed(1) + ' us';
  if (a < 0.9995) return sig3(ms * 1000) + ' us';
  if (a < 999.5) return sig3(ms) + ' ms';
  if (a < 99950) return sig3(ms / 1000) + ' s';
  var sec = Math.floor(a / 1000 + 0.5);
  return (ms < 0 ? '-' : '') + Math.floor(sec / 60) + ' min ' + (sec % 60) + ' s';
}
function fmtBytes(v) {
  var units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'], x = v, i = -1;
  if (Math.abs(x) < 1024) return x.toFixed(0) + ' B';
  while (Math.abs(x) >= 1023.95 && i < 4) { x /= 1024; i++; }
  return sig3(x) + ' ' + units[i];
}
function fmtVal(v, unit) {
  if (v === null || v === undefined || !isFinite(v)) return '-';
  if (unit === 'ms') return fmtMs(v);
  if (unit === 'ns') return fmtMs(v / 1e6);
  if (unit === 'bytes') return fmtBytes(v);
  if (unit === 'confidence') return v.toFixed(2);
  var whole = Math.abs(v - Math.round(v)) < 1e-9 ? String(Math.round(v)) : v.toFixed(1);
  return whole + (unit && unit !== 'count' ? ' ' + unit : '');
}
/* Axis labels: short units, with the decimals the axis's span needs (span 0: a value alone). */
function axisFmt(v, unit, span) {
  var a = Math.abs(v);
  function dec(scale, base) {
    return span ? Math.max(base, Math.min(6, Math.ceil(-Math.log10(span / scale)) + 1)) : base;
  }
  if (unit === 'bytes') {
    if (a >= 1073741824) return (v / 1073741824).toFixed(dec(1073741824, 2)) + ' GiB';
    if (a >= 1048576) return (v / 1048576).toFixed(dec(1048576, 1)) + ' MiB';
    if (a >= 1024) return (v / 1024).toFixed(dec(1024, 1)) + ' KiB';
    return Math.round(v) + ' B';
  }
  if (unit === 'ms') return (a >= 100 ? v.toFixed(0) : a >= 1 ? v.toFixed(2) : v.toFixed(3)) + ' ms';
  if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';
  if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';
  return String(Math.round(v * 100) / 100);
}
function pctChange(a, b) {
  if (a === null || b === null || a === undefined || b === undefined) return null;
  return a !== 0 ? (b - a) / Math.abs(a) : (b === 0 ? 0 : Infinity);
}
function fmtPct(r) {
  return r === null ? '-' : !isFinite(r) ? 'new' : (r >= 0 ? '+' : '') + (r * 100).toFixed(1) + '%';
}
var runs = data.runs, byId = {};
runs.forEach(function (r, i) { byId[r.id] = r; });
function short(r) { return r.commit ? r.commit.slice(0, 8) : '#' + r.id; }
function runLabel(r) {
  return short(r) + (r.subject ? ' ' + r.subject : '') + ' (run ' + r.id + ')';
}
var state = { branch: '', machine: data.machine || '', lo: 0, hi: -1, selected: null, prev: null };

/* ---- filters, zoom and pan ---- */
function visible() {
  return runs.filter(function (r) {
    return (!state.branch || r.branch === state.branch) &&
      (!state.machine || r.machine === state.machine);
  });
}
function fillSelect(sel, values, current) {
  clear(sel);
  el('!option', { value: '' }, sel, 'all');
  values.forEach(function (v) {
    var o = el('!option', { value: v }, sel, v || '(none)');
    if (v === current) o.selected = true;
  });
}
function uniq(key) {
  var seen = {}, out = [];
  runs.forEach(function (r) { if (!seen[r[key]]) { seen[r[key]] = 1; out.push(r[key]); } });
  return out;
}
var branchSel = document.getElementById('f-branch'), machineSel = document.getElementById('f-machine');
fillSelect(branchSel, uniq('branch'), state.branch);
fillSelect(machineSel, uniq('machine'), state.machine);
branchSel.addEventListener('change', function () { state.branch = branchSel.value; state.lo = 0; state.hi = -1; render(); });
machineSel.addEventListener('change', function () { state.machine = machineSel.value; state.lo = 0; state.hi = -1; render(); });
function view() {
  var vis = visible(), n = vis.length;
  if (state.hi < 0 || state.hi >= n) state.hi = n - 1;
  if (state.lo < 0) state.lo = 0;
  if (state.lo > state.hi) state.lo = Math.max(0, state.hi);
  return vis.slice(state.lo, state.hi + 1);
}
function zoom(factor, center) {
  var n = visible().length, span = state.hi - state.lo + 1, c = center === undefined ? (state.lo + state.hi) / 2 : center;
  var ns = Math.max(5, Math.min(n, Math.round(span * factor)));
  state.lo = Math.max(0, Math.round(c - ns / 2));
  state.hi = Math.min(n - 1, state.lo + ns - 1);
  state.lo = Math.max(0, state.hi - ns + 1);
  render();
}
function pan(by) {
  var n = visible().length, span = state.hi - state.lo;
  state.lo = Math.max(0, Math.min(n - 1 - span, state.lo + by));
  state.hi = state.lo + span;
  render();
}
document.getElementById('z-in').addEventListener('click', function () { zoom(0.5); });
document.getElementById('z-out').addEventListener('click', function () { zoom(2); });
document.getElementById('z-left').addEventListener('click', function () { pan(-Math.max(1, Math.round((state.hi - state.lo) / 4))); });
document.getElementById('z-right').addEventListener('click', function () { pan(Math.max(1, Math.round((state.hi - state.lo) / 4))); });
document.getElementById('z-reset').addEventListener('click', function () { state.lo = 0; state.hi = -1; render(); });

/* ---- the tooltip ---- */
var tip = document.getElementById('tooltip');
function showTip(r, lines, x, y) {
  clear(tip);
  el('!strong', {}, tip, short(r));
  el('!span', {}, tip, ' ' + (r.subject || '(no subject)'));
  el('!div', { 'class': 'meta' }, tip, (r.date ? 'authored ' + r.date + ' UTC, ' : '') +
    'run ' + r.id + ' at ' + r.time + ' UTC' + ', branch ' + (r.branch || '-') + ', machine ' + r.machine);
  lines.forEach(function (l) { el('!div', {}, tip, l); });
  tip.hidden = false;
  tip.style.left = Math.min(x + 14, window.innerWidth - 380) + window.scrollX + 'px';
  tip.style.top = y + 14 + window.scrollY + 'px';
}
function hideTip() { tip.hidden = true; }

/* ---- a chart: Chart.js when inlined, else SVG ---- */
var charts = [], positions = {}, markPositions = {};
function robustRange(vals, band) {
  var v = vals.filter(function (x) { return x !== null; });
  if (!v.length) return [0, 1];
  var m = median(v), mad = median(v.map(function (x) { return Math.abs(x - m); })) * 1.4826;
  var lo = Math.min.apply(null, v), hi = Math.max.apply(null, v);
  if (mad > 0) { lo = Math.max(lo, m - 8 * mad); hi = Math.min(hi, m + 8 * mad); }
  if (band && band.lo >= lo - 8 * mad && band.hi <= hi + 8 * mad) { lo = Math.min(lo, band.lo); hi = Math.max(hi, band.hi); }
  if (hi <= lo) { var d = Math.abs(lo) * 0.05 || 1; lo -= d; hi += d; }
  var pad = (hi - lo) * 0.06;
  return [lo - pad, hi + pad];
}
/* spec: {key, unit, runs: [run], med, min, max (arrays, null = no value), band, changes: [{i, text}],
 * marks: [{i, verdict, cls, title}] (FAIL/WARN of the run), envs: [{i, text}] (environment changes)} */
function drawChart(fig, spec) {
  var yr = robustRange(spec.med, spec.band), lo = yr[0], hi = yr[1], n = spec.runs.length;
  function clampv(v) { return v === null ? null : Math.max(lo, Math.min(hi, v)); }
  var off = spec.med.map(function (v) { return v !== null && (v < lo || v > hi); });
  function tipLines(i) {
    var l = [spec.title + ': ' + fmtVal(spec.med[i], spec.unit) + (spec.min[i] !== null && spec.min[i] !== spec.max[i] ?
      ' (runs ' + fmtVal(spec.min[i], spec.unit) + ' to ' + fmtVal(spec.max[i], spec.unit) + ')' : '')];
    if (off[i]) l.push('off the scale: drawn at the edge');
    spec.marks.forEach(function (m) { if (m.i === i) l.push(m.title); });
    spec.envs.forEach(function (e) { if (e.i === i) l.push(e.text); });
    spec.changes.forEach(function (c) { if (c.i === i) l.push(c.text); });
    return l;
  }
  var MARK_COLOR = { FAIL: '#b00020', WARN: '#e08a00' };
  if (useChartJs) {
    var canvas = el('!canvas', { width: 720, height: 220 }, fig);
    // The band goes beneath the series (drawn before it), so the median line keeps its
    // colour where it runs inside the band; change points go on top.
    var marks = { id: 'marks', beforeDatasetsDraw: function (ch) {
      if (!spec.band) return;
      var ctx = ch.ctx, xs = ch.scales.x, ys = ch.scales.y;
      ctx.save();
      ctx.fillStyle = 'rgba(240,180,0,0.2)';
      var b1 = ys.getPixelForValue(Math.min(hi, spec.band.hi)), b2 = ys.getPixelForValue(Math.max(lo, spec.band.lo));
      ctx.fillRect(xs.left, b1, xs.right - xs.left, Math.max(1, b2 - b1));
      ctx.restore();
    }, afterDatasetsDraw: function (ch) {
      var ctx = ch.ctx, xs = ch.scales.x, ys = ch.scales.y;
      ctx.save();
      ctx.strokeStyle = '#b00020'; ctx.setLineDash([5, 3]); ctx.lineWidth = 1.5;
      spec.changes.forEach(function (c) {
        var px = xs.getPixelForValue(c.i);
        ctx.beginPath(); ctx.moveTo(px, ys.top); ctx.lineTo(px, ys.bottom); ctx.stroke();
      });
      ctx.strokeStyle = '#7b3fb5'; ctx.setLineDash([2, 3]);
      spec.envs.forEach(function (e) {
        var px = xs.getPixelForValue(e.i);
        ctx.beginPath(); ctx.moveTo(px, ys.top); ctx.lineTo(px, ys.bottom); ctx.stroke();
      });
      spec.marks.forEach(function (m) {
        ctx.fillStyle = MARK_COLOR[m.cls];
        ctx.fillRect(xs.getPixelForValue(m.i) - 4, ys.top, 8, 8);
      });
      ctx.restore();
    } };
    var chart = new window.Chart(canvas, {
      type: 'line',
      data: { labels: spec.runs.map(short), datasets: [
        { data: spec.max.map(clampv), borderWidth: 0, pointRadius: 0, fill: false },
        { data: spec.min.map(clampv), borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: 'rgba(31,95,191,0.15)' },
        { data: spec.med.map(clampv), borderColor: '#1f5fbf', borderWidth: 1.5, fill: false,
          pointRadius: off.map(function (o) { return o ? 5 : 2; }),
          pointStyle: off.map(function (o) { return o ? 'triangle' : 'circle'; }),
          pointBackgroundColor: off.map(function (o) { return o ? '#b00020' : '#1f5fbf'; }),
          borderColor: '#1f5fbf' } ] },
      options: { animation: false, responsive: false, events: ['mousemove', 'mouseout', 'click'],
        interaction: { mode: 'index', intersect: false },
        scales: { y: { min: lo, max: hi, ticks: { callback: function (v) { return axisFmt(v, spec.unit, hi - lo); } } },
          x: { ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: 8 } } },
        plugins: { legend: { display: false }, tooltip: { enabled: false } },
        onHover: function (e, els) {
          if (!els.length) { hideTip(); return; }
          var i = els[0].index;
          showTip(spec.runs[i], tipLines(i), e.native.clientX, e.native.clientY);
        },
        onClick: function (e, els) { if (els.length) select(spec.runs[els[0].index].id); } },
      plugins: [marks] });
    canvas.addEventListener('mouseleave', hideTip);
    charts.push(chart);
    positions[spec.key] = function (id) {
      var i = spec.runs.findIndex(function (r) { return r.id === id; }), rc = canvas.getBoundingClientRect();
      if (i < 0) return null;
      return { x: rc.left + chart.scales.x.getPixelForValue(i), y: rc.top + chart.scales.y.getPixelForValue(clampv(spec.med[i])) };
    };
    markPositions[spec.key] = function () {
      var rc = canvas.getBoundingClientRect();
      return spec.marks.map(function (m) {
        return { run: spec.runs[m.i].id, commit: spec.runs[m.i].commit, verdict: m.verdict, title: m.title,
          x: rc.left + chart.scales.x.getPixelForValue(m.i), y: rc.top + chart.scales.y.top + 4 };
      });
    };
    return;
  }
  var W = 720, H = 220, L = 72, R = 12, T = 12, B = 28;
  var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, fig);
  function X(i) { return L + (n === 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1)); }
  function Y(v) { return T + (hi - v) * (H - T - B) / (hi - lo); }
  el('line', { x1: L, y1: T, x2: L, y2: H - B, 'class': 'axis' }, svg);
  el('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, 'class': 'axis' }, svg);
  el('text', { x: L - 4, y: T + 10, 'text-anchor': 'end', 'class': 'label' }, svg, axisFmt(hi, spec.unit, hi - lo));
  el('text', { x: L - 4, y: H - B, 'text-anchor': 'end', 'class': 'label' }, svg, axisFmt(lo, spec.unit, hi - lo));
  el('text', { x: L, y: H - 8, 'class': 'label' }, svg, short(spec.runs[0]));
  el('text', { x: W - R, y: H - 8, 'text-anchor': 'end', 'class': 'label' }, svg, short(spec.runs[n - 1]) + ' (' + n + ' runs)');
  if (spec.band) {
    el('rect', { x: L, width: W - L - R, y: Y(Math.min(hi, spec.band.hi)),
      height: Math.max(1, Y(Math.max(lo, spec.band.lo)) - Y(Math.min(hi, spec.band.hi))), 'class': 'band' }, svg);
  }
  var up = [], down = [], d = '';
  spec.med.forEach(function (v, i) {
    if (v === null) return;
    up.push(X(i) + ',' + Y(clampv(spec.max[i])));
    down.unshift(X(i) + ',' + Y(clampv(spec.min[i])));
    d += (d ? 'L' : 'M') + X(i).toFixed(1) + ' ' + Y(clampv(v)).toFixed(1);
  });
  el('polygon', { points: up.concat(down).join(' '), 'class': 'spread' }, svg);
  el('path', { d: d, 'class': 'series' }, svg);
  spec.med.forEach(function (v, i) {
    if (off[i]) el('path', { d: 'M' + (X(i) - 5) + ' ' + (v > hi ? T + 8 : H - B - 8) + ' l5 ' + (v > hi ? -8 : 8) + ' l5 ' + (v > hi ? 8 : -8) + 'z', 'class': 'off' }, svg);
  });
  spec.changes.forEach(function (c) {
    el('line', { x1: X(c.i), x2: X(c.i), y1: T, y2: H - B, 'class': 'change' }, svg);
  });
  spec.envs.forEach(function (e) {
    el('title', {}, el('line', { x1: X(e.i), x2: X(e.i), y1: T, y2: H - B, 'class': 'env' }, svg), e.text);
  });
  var markEls = spec.marks.map(function (m) {
    var r = el('rect', { x: X(m.i) - 4, y: T, width: 8, height: 8, 'class': 'mark mark-' + m.cls,
      'data-run': String(spec.runs[m.i].id), 'data-verdict': m.verdict }, svg);
    el('title', {}, r, m.title);
    return r;
  });
  var step = n > 1 ? (W - L - R) / (n - 1) : W - L - R;
  spec.runs.forEach(function (r, i) {
    var hit = el('rect', { x: X(i) - step / 2, y: T, width: step, height: H - T - B, 'class': 'hit' }, svg);
    hit.addEventListener('mousemove', function (e) { showTip(r, tipLines(i), e.clientX, e.clientY); });
    hit.addEventListener('mouseleave', hideTip);
    hit.addEventListener('click', function () { select(r.id); });
  });
  positions[spec.key] = function (id) {
    var i = spec.runs.findIndex(function (r) { return r.id === id; }), rc = svg.getBoundingClientRect();
    if (i < 0) return null;
    return { x: rc.left + X(i), y: rc.top + Y(clampv(spec.med[i]) === null ? lo : clampv(spec.med[i])) };
  };
  markPositions[spec.key] = function () {
    return spec.marks.map(function (m, k) {
      var rc = markEls[k].getBoundingClientRect();
      return { run: spec.runs[m.i].id, commit: spec.runs[m.i].commit, verdict: m.verdict, title: m.title,
        x: rc.left + rc.width / 2, y: rc.top + rc.height / 2 };
    });
  };
}

/* ---- the charts of the view ---- */
function isFlat(vals) {
  var v = vals.filter(function (x) { return x !== null; });
  return v.length > 0 && v.every(function (x) { return x === v[0]; });
}
function figure(parent, title, sub) {
  var fig = el('!figure', { 'class': 'chart' }, parent);
  el('!figcaption', {}, fig, title);
  if (sub) el('!div', { 'class': 'meta' }, fig, sub);
  wheelAndDrag(fig);
  return fig;
}
function wheelAndDrag(fig) {
  var startX = null;
  fig.addEventListener('wheel', function (e) {
    e.preventDefault();
    var rc = fig.getBoundingClientRect(), frac = Math.max(0, Math.min(1, (e.clientX - rc.left) / rc.width));
    zoom(e.deltaY < 0 ? 0.8 : 1.25, state.lo + frac * (state.hi - state.lo));
  }, { passive: false });
  fig.addEventListener('mousedown', function (e) { startX = e.clientX; });
  fig.addEventListener('mouseup', function (e) {
    if (startX === null) return;
    var dx = e.clientX - startX, per = fig.getBoundingClientRect().width / Math.max(1, state.hi - state.lo);
    startX = null;
    if (Math.abs(dx) > 8) pan(-Math.round(dx / per));
  });
}
function render() {
  charts.forEach(function (c) { c.destroy(); });
  charts = []; positions = {}; markPositions = {};
  var win = view(), ids = {}, trends = document.getElementById('trends'), flat = document.getElementById('flat');
  win.forEach(function (r, i) { ids[r.id] = i; });
  clear(trends); clear(flat);
  document.getElementById('view-info').textContent = win.length ? win.length + ' runs shown: ' +
    short(win[0]) + ' (' + win[0].time + ') to ' + short(win[win.length - 1]) + ' (' + win[win.length - 1].time + ')' : 'no runs match';
  var drawn = 0, folded = 0;
  data.charts.forEach(function (c) {
    var med = win.map(function () { return null; }), mn = med.slice(), mx = med.slice(), any = false;
    c.points.forEach(function (p) {
      var i = ids[p[0]];
      if (i === undefined) return;
      med[i] = p[1]; mn[i] = p[2]; mx[i] = p[3]; any = true;
    });
    if (!any) return;
    var title = c.target + ' \u00b7 ' + c.metric;
    if (isFlat(med) && isFlat(mn.concat(mx))) {
      el('!li', {}, flat, title + ': ' + fmtVal(med.filter(function (v) { return v !== null; })[0], c.unit) + ' in every run shown');
      folded++;
      return;
    }
    var changes = [];
    if (!state.machine || state.machine === data.machine) {
      c.changes.forEach(function (ch) {
        var i = ids[ch.run];
        if (i === undefined) return;
        changes.push({ i: i, text: (ch.env_change ? 'change point at an environment change (' + ch.env_change + '): ' : 'change point: ') +
          fmtPct(ch.rel_change) + ' (median ' + fmtVal(ch.before, c.unit) +
          ' -> ' + fmtVal(ch.after, c.unit) + ', ratio ' + ch.ratio.toFixed(3) + ', p ' + ch.p_value.toPrecision(2) +
          (ch.first_run !== ch.last_run ? ', somewhere in runs ' + ch.first_run + '..' + ch.last_run : '') + ')' +
          (ch.bisect ? '; bisect: ' + ch.bisect : '') });
      });
    }
    var marks = [];
    (c.marks || []).forEach(function (m) {
      var i = ids[m.run];
      if (i === undefined) return;
      marks.push({ i: i, verdict: m.verdict, cls: m.verdict === 'WARN' ? 'WARN' : 'FAIL',
        title: short(win[i]) + ' ' + m.verdict + ' ' + m.assertion + (m.short ? ': ' + m.short : '') });
    });
    var envs = [];
    win.forEach(function (r, i) {
      if (i > 0 && r.env_change && c.points.some(function (p) { return p[0] === r.id; }))
        envs.push({ i: i, text: 'environment changed: ' + r.env_change });
    });
    var fig = figure(trends, title + ' (' + c.unit + ', ' + changes.length + ' change point' + (changes.length === 1 ? '' : 's') + ')',
      changes.map(function (x) { return x.text; }).join('; '));
    drawChart(fig, { key: c.target + '/' + c.metric, title: title, unit: c.unit, runs: win, med: med, min: mn, max: mx,
      band: c.band, changes: changes, marks: marks, envs: envs });
    drawn++;
  });
  if (!flat.firstChild) el('!li', {}, flat, 'none');
  renderChanged(ids);
  renderSyscalls(win);
  document.body.setAttribute('data-charts-drawn', String(drawn));
  document.body.setAttribute('data-charts-folded', String(folded));
}

/* Per-syscall series: calls per run, the syscalls that moved most first. */
function renderSyscalls(win) {
  var box = document.getElementById('syscalls'), targets = {}, drawn = 0;
  clear(box);
  win.forEach(function (r, i) {
    var per = data.run_syscalls[r.id] || {};
    Object.keys(per).forEach(function (t) {
      targets[t] = targets[t] || {};
      Object.keys(per[t]).forEach(function (s) {
        targets[t][s] = targets[t][s] || win.map(function () { return null; });
      });
    });
  });
  Object.keys(targets).sort().forEach(function (t) {
    var names = Object.keys(targets[t]);
    win.forEach(function (r, i) {
      var per = (data.run_syscalls[r.id] || {})[t];
      if (!per) return;
      names.forEach(function (s) { targets[t][s][i] = per[s] || 0; });
    });
    var scored = names.map(function (s) {
      var v = targets[t][s].filter(function (x) { return x !== null; });
      var lo = Math.min.apply(null, v), hi = Math.max.apply(null, v);
      return { s: s, v: targets[t][s], score: (hi - lo) / Math.max(1, median(v)), flat: hi === lo, last: v[v.length - 1] };
    }).sort(function (a, b) { return b.score - a.score || (a.s < b.s ? -1 : 1); });
    el('!h3', {}, box, t);
    scored.filter(function (x) { return !x.flat; }).slice(0, 6).forEach(function (x) {
      var fig = figure(box, t + ' \u00b7 ' + x.s + ' (calls per run, moved ' + (x.score * 100).toFixed(0) + '%)');
      drawChart(fig, { key: t + '/syscall/' + x.s, title: x.s, unit: 'calls', runs: win, med: x.v, min: x.v, max: x.v, band: null,
        changes: [], marks: [], envs: [] });
      drawn++;
    });
    var rest = scored.filter(function (x) { return !x.flat; }).slice(6).map(function (x) { return x.s; });
    if (rest.length) el('!p', { 'class': 'meta' }, box, 'also moved: ' + rest.join(', '));
    var flats = scored.filter(function (x) { return x.flat; }).map(function (x) { return x.s + ' ' + x.last; });
    if (flats.length) el('!p', { 'class': 'meta' }, box, 'the same in every run: ' + flats.join(', '));
  });
  if (!box.firstChild) el('!p', {}, box, 'no per-syscall counts in the runs shown (a check counts syscalls when an assertion or golden trace needs them)');
  document.body.setAttribute('data-syscall-charts', String(drawn));
}

/* ---- what changed over the runs shown: verdict moves and change points, newest first ---- */
function renderChanged(ids) {
  var box = document.getElementById('changed'), n = 0;
  clear(box);
  if (!state.machine || state.machine === data.machine) {
    data.changed.forEach(function (it) {
      if (ids[it.run] === undefined) return;
      var li = el('!li', { 'data-run': String(it.run), 'data-kind': it.kind }, box);
      el('!span', { 'class': it.kind === 'verdict' ? 'verdict v-' + String(it.to).replace(/ /g, '-') : '' }, li, it.text);
      if (it.bisect) { li.appendChild(document.createTextNode(' \u00b7 ')); el('!code', {}, li, it.bisect); }
      n++;
    });
  }
  if (!n) el('!li', {}, box, 'nothing moved in the runs shown');
  box.setAttribute('data-items', String(n));
}

/* ---- one run: its verdicts and critical path ---- */
function verdictRank(v) {
  return { FAIL: 0, ERROR: 0, 'NO DATA': 0, WARN: 1, PASS: 2 }[v.verdict] !== undefined ?
    { FAIL: 0, ERROR: 0, 'NO DATA': 0, WARN: 1, PASS: 2 }[v.verdict] : 3;
}
function verdictTable(parent, list, id) {
  var t = el('!table', { id: id }, parent), tr = el('!tr', {}, el('!thead', {}, t));
  ['target', 'assertion', 'verdict', 'measured', 'budget', 'golden', 'message'].forEach(function (h) { el('!th', {}, tr, h); });
  var tb = el('!tbody', {}, t);
  (list || []).map(function (v, k) { return { v: v, k: k }; }).sort(function (a, b) {
    return verdictRank(a.v) - verdictRank(b.v) || a.k - b.k;
  }).forEach(function (x) {
    var v = x.v, row = el('!tr', {}, tb);
    el('!td', {}, row, v.target);
    el('!td', {}, row, v.assertion);
    el('!td', { 'class': 'verdict v-' + String(v.verdict).replace(/ /g, '-') }, row, v.verdict);
    [v.observed, v.budget, v.golden].forEach(function (x) { el('!td', { 'class': 'num' }, row, fmtVal(x, v.unit)); });
    var msg = el('!td', { 'class': 'msg' }, row);
    if (v.short && v.short !== v.message) {
      var d = el('!details', {}, msg);
      el('!summary', {}, d, v.short);
      d.appendChild(document.createTextNode(v.message));
    } else msg.textContent = v.message || '';
  });
  if (!list || !list.length) el('!td', { colspan: 7 }, el('!tr', {}, tb), 'no verdicts were recorded for this run');
}
function timeline(parent, cp) {
  var segs = cp.segments, W = 720, L = 150, R = 12, row = 18, end = 0, bars = 0;
  if (!segs.length) return 0;
  segs.forEach(function (s) { end = Math.max(end, s.end_ms); });
  if (end <= 0) end = 1;
  var svg = el('svg', { width: W, height: segs.length * row + 24, viewBox: '0 0 ' + W + ' ' + (segs.length * row + 24), role: 'img' }, parent);
  segs.forEach(function (s, i) {
    var x = L + s.start_ms * (W - L - R) / end, w = Math.max(1, (s.end_ms - s.start_ms) * (W - L - R) / end);
    el('text', { x: L - 6, y: i * row + 13, 'text-anchor': 'end', 'class': 'label' }, svg, s.process + ' [' + s.pid + ']');
    var r = el('rect', { x: x, y: i * row + 2, width: w, height: row - 4, 'class': 'bar' }, svg);
    el('title', {}, r, s.process + ': ' + fmtMs(s.start_ms) + ' to ' + fmtMs(s.end_ms));
    bars++;
  });
  el('text', { x: W - R, y: segs.length * row + 18, 'text-anchor': 'end', 'class': 'label' }, svg, fmtMs(end));
  return bars;
}
function select(id) {
  var r = byId[id];
  if (!r) return;
  if (state.selected !== id) { state.prev = state.selected; state.selected = id; }
  var box = document.getElementById('run-detail');
  clear(box);
  box.setAttribute('data-run', String(id));
  el('!h3', {}, box, 'Run ' + r.id + ': ' + short(r) + ' ' + (r.subject || ''));
  el('!p', { 'class': 'meta' }, box, (r.date ? 'authored ' + r.date + ' UTC \u00b7 ' : '') + 'checked ' + r.time +
    ' UTC \u00b7 branch ' + (r.branch || '-') + ' \u00b7 machine ' + r.machine + ' \u00b7 exit code ' + r.exit_code +
    (r.commit ? ' \u00b7 commit ' + r.commit : ''));
  verdictTable(box, data.run_verdicts[id], 'run-verdicts');
  (data.run_explain[id] || []).forEach(function (e) {
    el('!h4', {}, box, 'where the time went: ' + e.target + ' \u00b7 ' + e.assertion);
    el('!pre', { 'class': 'explain' }, box, e.text);
    if (e.svg) el('!a', { href: e.svg, 'class': 'explain-svg' }, el('!p', {}, box), 'differential flame graph');
  });
  (data.run_critical_paths[id] || []).forEach(function (cp) {
    el('!h4', {}, box, 'critical path: ' + cp.target);
    timeline(box, cp);
  });
  box.hidden = false;
  if (state.prev !== null) { aSel.value = String(state.prev); bSel.value = String(id); compare(); }
  else bSel.value = String(id);
}

/* ---- compare two runs ---- */
var aSel = document.getElementById('cmp-a'), bSel = document.getElementById('cmp-b');
function fillRuns(sel) {
  clear(sel);
  el('!option', { value: '' }, sel, '(pick a run)');
  runs.slice().reverse().forEach(function (r) { el('!option', { value: String(r.id) }, sel, runLabel(r)); });
}
fillRuns(aSel); fillRuns(bSel);
aSel.addEventListener('change', compare);
bSel.addEventListener('change', compare);
function compare() {
  var a = Number(aSel.value), b = Number(bSel.value), mt = document.getElementById('cmp-metrics'), st = document.getElementById('cmp-syscalls');
  clear(mt.tBodies[0]); clear(st.tBodies[0]);
  if (!byId[a] || !byId[b]) return;
  var rows = [];
  data.charts.forEach(function (c) {
    var va = null, vb = null;
    c.points.forEach(function (p) { if (p[0] === a) va = p[1]; if (p[0] === b) vb = p[1]; });
    if (va === null && vb === null) return;
    rows.push({ t: c.target, m: c.metric, u: c.unit, a: va, b: vb, r: pctChange(va, vb) });
  });
  function mag(r) { return r === null ? -1 : !isFinite(r) ? 1e9 : Math.abs(r); }
  rows.sort(function (x, y) { return mag(y.r) - mag(x.r); });
  rows.forEach(function (x) {
    var tr = el('!tr', {}, mt.tBodies[0]);
    [x.t, x.m, fmtVal(x.a, x.u), fmtVal(x.b, x.u), fmtPct(x.r)].forEach(function (v, i) { el('!td', i >= 2 ? { 'class': 'num' } : {}, tr, v); });
  });
  var sa = data.run_syscalls[a] || {}, sb = data.run_syscalls[b] || {}, srows = [];
  Object.keys(Object.assign({}, sa, sb)).forEach(function (t) {
    var A = sa[t] || {}, B = sb[t] || {};
    Object.keys(Object.assign({}, A, B)).forEach(function (s) {
      var x = A[s] || 0, y = B[s] || 0;
      if (x === y) return;
      srows.push({ t: t, s: s, a: x, b: y, r: pctChange(x, y), score: Math.abs(y - x) / Math.max(x, y, 1) });
    });
  });
  srows.sort(function (x, y) { return y.score - x.score || Math.abs(y.b - y.a) - Math.abs(x.b - x.a) || (x.s < y.s ? -1 : 1); });
  srows.forEach(function (x) {
    var tr = el('!tr', {}, st.tBodies[0]);
    [x.t, x.s, String(x.a), String(x.b), fmtPct(x.r)].forEach(function (v, i) { el('!td', i >= 2 ? { 'class': 'num' } : {}, tr, v); });
  });
  if (!srows.length) el('!td', { colspan: 5 }, el('!tr', {}, st.tBodies[0]), 'no syscall count moved (or neither run counted syscalls)');
  document.getElementById('compare').setAttribute('data-compared', a + ',' + b);
}

/* ---- the critical path of the last run ---- */
var bars = 0;
data.critical_path.forEach(function (cp, ti) {
  var box = document.getElementById('timeline-' + ti);
  if (box) bars += timeline(box, cp);
});
document.body.setAttribute('data-timeline-drawn', String(bars));
render();
window.renacerPage = {
  pointPosition: function (key, id) { return positions[key] ? positions[key](id) : null; },
  marks: function (key) { return markPositions[key] ? markPositions[key]() : []; },
  select: select
};
/* ms from navigation to the drawn page, for tests/bench/history/page.py */
document.body.setAttribute('data-render-ms', String(Math.round(performance.now())));
document.body.setAttribute('data-ready', '1');
})();
