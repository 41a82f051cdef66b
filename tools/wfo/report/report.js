// The script of the `wfo walk|sweep --report` page. report.html inlines this file into its
// last <script> at build time (embed_report.cmake), so the written page stays one file. It
// reads the report document from <script id="report-data"> (report.json, equity cut to at most
// 4,000 points) and draws every section as hand-written SVG and HTML tables, top to bottom:
// headline figures and findings, OOS equity against buy-and-hold with drawdown, the folds
// (table, parameter stability, IS vs OOS objective), robust selection (decisions, DSR, PBO
// with its logit histogram), the objective landscape (heatmap, histogram), how to read it, and
// the inputs with the reproducing command line. buildLayout() writes the sections, drawAll()
// the charts (again on resize). No library, nothing fetched. ES5 in one closure, so it runs in
// any browser that opens a local file; ctest report_js_syntax checks it parses and
// report_browser that every chart draws. It must not contain a closing script tag or an HTML
// comment opener (the build refuses both).
(function () {
  'use strict';

  // ---- Errors: shown on the page and flagged on <html> for the browser test. ----
  function showError(message) {
    document.documentElement.setAttribute('data-js-error', String(message).slice(0, 300));
    var app = document.getElementById('app');
    if (app) {
      var div = document.createElement('div');
      div.className = 'error';
      div.textContent = 'The report could not be drawn: ' + message;
      app.insertBefore(div, app.firstChild);
    }
  }
  window.addEventListener('error', function (e) { showError(e.message || 'script error'); });

  var D = JSON.parse(document.getElementById('report-data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var DAY = 86400000;
  var WALK = D.kind === 'walk';
  var IN = D.inputs;
  var OBJ = IN.objective;
  var L = D.landscape || {};
  var HM = L.heatmap || null;
  var FOLDS = D.folds || [];
  var state = { hmIndex: HM ? HM.folds.length - 1 : 0, selFold: null, log: false, hmPair: 0 };
  // More than two varying axes (HM.axes): the heatmap holds the whole grid and the page shows
  // one pair of axes at a time, every pair in canonical order (the first two first).
  var PAIRS = [];
  if (HM && HM.axes) {
    for (var pa = 0; pa < HM.axes.length; pa++) {
      for (var pb = pa + 1; pb < HM.axes.length; pb++) PAIRS.push([pa, pb]);
    }
  }
  // Robust selection (docs/spec-10-selection.md): one object per fold (walk) or one for the
  // window (sweep). Null when the run had none (--no-selection): nothing of it is drawn.
  var SEL = D.selection ? (Array.isArray(D.selection) ? D.selection : [D.selection]) : null;
  if (SEL && !SEL.length) SEL = null;
  state.selIndex = 0;
  if (SEL) {  // the PBO shown in detail: the last one computed, else the last entry
    state.selIndex = SEL.length - 1;
    for (var si = SEL.length - 1; si >= 0; si--) { if (SEL[si] && SEL[si].pbo) { state.selIndex = si; break; } }
  }

  // ---- Small helpers -------------------------------------------------------------------
  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, s, attrs) {
    var a = { x: x, y: y };
    if (attrs) for (var k in attrs) a[k] = attrs[k];
    var t = svg('text', a, parent);
    t.textContent = s;
    return t;
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function isNum(v) { return typeof v === 'number' && isFinite(v); }
  function fmt(v, d) {
    if (!isNum(v)) return '–';
    if (Math.abs(v) >= 1e9) return v.toExponential(2);
    return v.toFixed(d === undefined ? 3 : d);
  }
  function pct(v, d) {
    if (!isNum(v)) return '–';
    if (Math.abs(v) >= 1e7) return (v * 100).toExponential(2) + '%';
    return (v * 100).toFixed(d === undefined ? 1 : d) + '%';
  }
  function spct(v, d) { return (isNum(v) && v > 0 ? '+' : '') + pct(v, d); }
  function grp(n) {
    return isNum(n) ? String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : '–';
  }
  function signCls(v) { return !isNum(v) ? 'na' : v > 0 ? 'pos' : v < 0 ? 'neg' : ''; }
  function pad(n) { return n < 10 ? '0' + n : '' + n; }
  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  function isoDate(ms) {
    var d = new Date(ms);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate());
  }
  function hhmm(ms) { var d = new Date(ms); return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()); }
  var INTRADAY = (function () {
    var all = [];
    if (D.equity && D.equity.ms) all = all.concat(D.equity.ms.slice(0, 50));
    FOLDS.forEach(function (f) { all = all.concat(f.ms); });
    return all.some(function (t) { return t % DAY !== 0; });
  })();
  function when(ms) { return INTRADAY ? isoDate(ms) + ' ' + hhmm(ms) : isoDate(ms); }
  function shortTs(s) {
    if (!s) return '–';
    return s.replace('T00:00:00Z', '').replace('T', ' ').replace(/Z$/, '');
  }
  function finiteExtent(arrays) {
    var lo = Infinity, hi = -Infinity;
    arrays.forEach(function (a) {
      for (var i = 0; i < a.length; i++) {
        var v = a[i];
        if (isNum(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
      }
    });
    return lo <= hi ? [lo, hi] : [0, 1];
  }
  function linear(d0, d1, r0, r1) {
    var k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
    var f = function (v) { return r0 + (v - d0) * k; };
    f.inv = function (p) { return k === 0 ? d0 : d0 + (p - r0) / k; };
    return f;
  }
  function niceStep(raw) {
    if (!(raw > 0) || !isFinite(raw)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
  }
  function niceTicks(lo, hi, count) {
    if (!(hi > lo)) { var pad0 = Math.abs(lo) * 0.05 || 1; lo -= pad0; hi += pad0; }
    var step = niceStep((hi - lo) / Math.max(1, count));
    var a = Math.floor(lo / step) * step, b = Math.ceil(hi / step) * step, ticks = [];
    for (var v = a, i = 0; v <= b + step * 1e-9 && i < 200; v += step, i++) {
      ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    var dec = Math.max(0, Math.min(8, -Math.floor(Math.log10(step) + 1e-9)));
    return { lo: a, hi: b, ticks: ticks, label: function (x) {
      return Math.abs(x) >= 1e9 ? x.toExponential(1) : x.toFixed(dec);
    } };
  }
  function logTicks(lo, hi) {
    var ticks = [], k0 = Math.floor(Math.log10(lo)), k1 = Math.ceil(Math.log10(hi));
    var mults = k1 - k0 > 3 ? [1] : [1, 2, 5];
    for (var k = k0; k <= k1; k++) {
      mults.forEach(function (m) {
        var v = m * Math.pow(10, k);
        if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
      });
    }
    if (ticks.length < 2) return null;
    return ticks;
  }
  // Calendar-aware time ticks in UTC.
  var TIME_STEPS = [[1e3, 's'], [5e3, 's'], [15e3, 's'], [3e4, 's'], [6e4, 'm'], [3e5, 'm'],
    [9e5, 'm'], [18e5, 'm'], [36e5, 'h'], [108e5, 'h'], [216e5, 'h'], [432e5, 'h'], [DAY, 'd'],
    [2 * DAY, 'd'], [7 * DAY, 'd'], [14 * DAY, 'd'], [1, 'M'], [2, 'M'], [3, 'M'], [6, 'M'],
    [1, 'Y'], [2, 'Y'], [5, 'Y'], [10, 'Y'], [20, 'Y'], [50, 'Y'], [100, 'Y']];
  function timeTicks(t0, t1, maxTicks) {
    var span = Math.max(1, t1 - t0), step = TIME_STEPS[TIME_STEPS.length - 1];
    for (var i = 0; i < TIME_STEPS.length; i++) {
      var s = TIME_STEPS[i];
      var approx = s[1] === 'M' ? s[0] * 30.44 * DAY : s[1] === 'Y' ? s[0] * 365.25 * DAY : s[0];
      if (span / approx <= maxTicks) { step = s; break; }
    }
    var n = step[0], unit = step[1], out = [], t, d;
    if (unit === 'M' || unit === 'Y') {
      d = new Date(t0);
      var y = d.getUTCFullYear(), m = unit === 'Y' ? 0 : d.getUTCMonth();
      if (unit === 'Y') y = Math.ceil(y / n) * n; else m = Math.ceil(m / n) * n;
      for (var guard = 0; guard < 400; guard++) {
        t = Date.UTC(y, m, 1);
        if (t > t1) break;
        if (t >= t0) {
          out.push({ t: t, label: unit === 'Y' ? String(new Date(t).getUTCFullYear())
            : MONTHS[new Date(t).getUTCMonth()] + ' ' + new Date(t).getUTCFullYear() });
        }
        if (unit === 'Y') y += n; else m += n;
      }
    } else {
      for (t = Math.ceil(t0 / n) * n; t <= t1 && out.length < 400; t += n) {
        out.push({ t: t, label: unit === 'd' ? isoDate(t) : unit === 's' ?
          hhmm(t) + ':' + pad(new Date(t).getUTCSeconds()) :
          (span > DAY ? isoDate(t).slice(5) + ' ' : '') + hhmm(t) });
      }
    }
    return out;
  }
  function bisect(arr, x) {  // index of the element nearest to x in ascending arr
    var lo = 0, hi = arr.length - 1;
    while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (arr[mid] <= x) lo = mid; else hi = mid; }
    return Math.abs(arr[hi] - x) < Math.abs(arr[lo] - x) ? hi : lo;
  }
  function foldAt(ms) {  // the walk fold whose OOS window holds ms
    for (var lo = 0, hi = FOLDS.length - 1; lo <= hi;) {
      var mid = (lo + hi) >> 1, f = FOLDS[mid];
      if (ms < f.ms[2]) hi = mid - 1; else if (ms > f.ms[3]) lo = mid + 1; else return f;
    }
    return null;
  }
  function paramText(p, names) {
    if (!p) return 'flat (no ranked combo)';
    return names.map(function (n) { return n + ' ' + p[n]; }).join(', ');
  }
  function compactValues(vals) {
    if (vals.length <= 8) return vals.join(', ');
    return vals.slice(0, 3).join(', ') + ', …, ' + vals.slice(-2).join(', ') +
      '  (' + vals.length + ' values)';
  }

  // ---- Tooltip ---------------------------------------------------------------------------
  var tipEl = document.getElementById('tooltip');
  function tip(html, ev) {
    tipEl.innerHTML = html;
    tipEl.hidden = false;
    var w = tipEl.offsetWidth, h = tipEl.offsetHeight, x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + w > window.innerWidth - 8) x = ev.clientX - w - 14;
    if (y + h > window.innerHeight - 8) y = ev.clientY - h - 14;
    tipEl.style.left = Math.max(4, x) + 'px';
    tipEl.style.top = Math.max(4, y) + 'px';
  }
  function untip() { tipEl.hidden = true; }

  // Frame f's plot as n bands of width `band` that answer the pointer (the selection and fold
  // charts): the band under it highlighted and show(i, ev) (its tooltip) as it moves, both
  // gone when it leaves, pick(i) on a click; `pointer`: the cursor says it can be clicked.
  function bandHover(f, g, n, band, pointer, show, pick) {
    var hl = svg('rect', { y: f.y0, height: f.y1 - f.y0, width: band, fill: 'rgba(37,99,235,0.07)', visibility: 'hidden' }, g);
    var ov = svg('rect', { x: f.x0, y: f.y0, width: f.x1 - f.x0, height: f.y1 - f.y0, fill: 'transparent',
      style: pointer ? 'cursor:pointer' : '' }, g);
    function at(ev) {
      var r = f.svg.getBoundingClientRect(), px = (ev.clientX - r.left) * f.W / r.width;
      return Math.max(0, Math.min(n - 1, Math.floor((px - f.x0) / band)));
    }
    ov.addEventListener('pointermove', function (ev) {
      var i = at(ev);
      hl.setAttribute('x', f.x0 + i * band); hl.setAttribute('visibility', 'visible');
      show(i, ev);
    });
    ov.addEventListener('pointerleave', function () { untip(); hl.setAttribute('visibility', 'hidden'); });
    ov.addEventListener('click', function (ev) { pick(at(ev)); });
  }

  // ---- Chart frame: an SVG the width of its container. -----------------------------------
  function frame(el, height, m) {
    el.innerHTML = '';
    var W = Math.max(320, Math.floor(el.clientWidth || 900));
    var s = svg('svg', { width: W, height: height, viewBox: '0 0 ' + W + ' ' + height }, el);
    return { svg: s, W: W, H: height, x0: m.l, x1: W - m.r, y0: m.t, y1: height - m.b };
  }
  function done(el, marks) {
    el.setAttribute('data-rendered', '1');
    el.setAttribute('data-marks', String(marks));
  }
  function noteIn(el, msg) {
    el.innerHTML = '<div class="note">' + esc(msg) + '</div>';
  }
  function yGrid(f, g, ticks, ys, label, x0, x1) {
    ticks.forEach(function (v) {
      var y = ys(v);
      svg('line', { x1: x0, x2: x1, y1: y, y2: y, 'class': v === 0 ? 'zero' : 'gridline' }, g);
      text(g, x0 - 8, y + 3.5, label(v), { 'text-anchor': 'end' });
    });
  }
  function xTimeAxis(g, ticks, xs, yTop, yBottom) {
    ticks.forEach(function (tk) {
      var x = xs(tk.t);
      svg('line', { x1: x, x2: x, y1: yTop, y2: yBottom, 'class': 'gridline' }, g);
      text(g, x, yBottom + 15, tk.label, { 'text-anchor': 'middle' });
    });
  }
  function pathD(xs, ys, xv, yv) {
    var d = '', pen = false;
    for (var i = 0; i < xv.length; i++) {
      if (!isNum(yv[i])) { pen = false; continue; }
      d += (pen ? 'L' : 'M') + xs(xv[i]).toFixed(1) + ',' + ys(yv[i]).toFixed(1);
      pen = true;
    }
    return d;
  }

  // ---- Layout ------------------------------------------------------------------------------
  function card(id, title, sub, extra) {
    return '<section class="card" id="' + id + '"><h2>' + esc(title) + '</h2>' +
      (sub ? '<p class="sub">' + sub + '</p>' : '') + (extra || '') + '</section>';
  }
  function kpi(k, v, cls) {
    return '<div class="kpi"><div class="k">' + esc(k) + '</div><div class="v ' + (cls || '') +
      '">' + esc(v) + '</div></div>';
  }
  function baseName(p) { return String(p).split(/[\\/]/).pop(); }

  function buildLayout() {
    var app = document.getElementById('app');
    var S = D.summary, html = '';
    var file = baseName(IN.data.path);
    document.getElementById('title').innerHTML = '<span class="kind">' +
      (WALK ? 'Walk-forward' : 'Sweep') + '</span> · ' + esc(file) +
      (IN.strategy ? ' · ' + esc(IN.strategy) : '');
    var sub = [IN.family];
    if (WALK) {
      var ow = S.oos_window;
      sub.push(IN.walk.mode + ' IS ' + grp(IN.walk.is_bars) + ' / OOS ' + grp(IN.walk.oos_bars) + ' bars');
      sub.push(grp(S.folds) + ' folds');
      if (ow) sub.push('out of sample ' + shortTs(ow.first_ts) + ' → ' + shortTs(ow.last_ts));
    } else {
      sub.push('window ' + grp(IN.window.bars) + ' bars ' + shortTs(IN.window.first_ts) + ' → ' +
        shortTs(IN.window.last_ts));
    }
    sub.push(grp(IN.grid.valid) + ' valid combos');
    sub.push('objective ' + OBJ);
    sub.push('annualised at ' + bpyText());
    sub.push('generated ' + shortTs(D.generated) + ' UTC');
    document.getElementById('subtitle').textContent = sub.join('  ·  ');

    // Summary figures
    var k = '';
    if (WALK) {
      var m = S.oos;
      k += kpi('OOS total return', spct(m.total_return), signCls(m.total_return));
      k += kpi('Buy & hold (same bars)', spct(S.buy_hold_return), signCls(S.buy_hold_return));
      k += kpi('OOS CAGR', spct(m.cagr), signCls(m.cagr));
      k += kpi('OOS Sharpe', fmt(m.sharpe, 2), signCls(m.sharpe));
      k += kpi('OOS max drawdown', pct(m.max_drawdown));
      k += kpi('WFE, mean of fold ratios', fmt(S.wfe, 2), signCls(S.wfe));
      k += kpi('WFE, aggregate', S.wfe_aggregate == null ? 'n/a' : fmt(S.wfe_aggregate, 2),
        signCls(S.wfe_aggregate));
      k += kpi('OOS trades', grp(m.trades));
      k += kpi('Exposure', pct(m.exposure, 0));
    } else {
      var w = S.winner || {};
      k += kpi('Top ' + OBJ, fmt(S.winner_objective, 3), signCls(S.winner_objective));
      k += kpi('Top total return', spct(w.total_return), signCls(w.total_return));
      k += kpi('Buy & hold (window)', spct(S.buy_hold_return), signCls(S.buy_hold_return));
      if (OBJ !== 'sharpe') k += kpi('Top Sharpe', fmt(w.sharpe, 2), signCls(w.sharpe));
      k += kpi('Top CAGR', spct(w.cagr), signCls(w.cagr));
      k += kpi('Top max drawdown', pct(w.max_drawdown));
      k += kpi('Top trades', grp(w.trades));
      k += kpi('Ranked (of ' + grp(S.evaluated) + ' valid)', grp(S.ranked));
    }
    html += '<section class="card"><div class="kpis">' + k + '</div>' +
      ((S.findings || []).length ? '<ul class="findings" id="findings">' + S.findings.map(function (f) {
        return '<li>' + esc(f) + '</li>';
      }).join('') + '</ul>' : '') + '</section>';

    // Equity
    var eqTitle = WALK ? 'Out-of-sample equity vs buy-and-hold'
      : 'In-sample equity of the top combo vs buy-and-hold';
    var eqSub = WALK ? 'Growth of 1 over the stitched out-of-sample bars: each fold trades its ' +
      'in-sample winner, switches paying their cost (SPEC §8). The red band is the drawdown ' +
      'from the running peak; the lower panel shows it in percent.' :
      'Growth of 1 over the sweep window for the best-ranked combo. This is in-sample: the ' +
      'combo was chosen on these very bars.';
    var pts = D.equity ? D.equity.points : 0, bars = D.equity ? D.equity.bars : 0;
    if (D.equity && pts < bars) {
      eqSub += ' Drawn from ' + grp(pts) + ' of ' + grp(bars) + ' bars (extremes kept); equity.csv has every bar.';
    }
    html += card('sec-equity', eqTitle, eqSub,
      '<div class="controls"><div class="legend">' +
      '<span><span class="sw" style="background:var(--accent)"></span>' + (WALK ? 'OOS equity' : 'Top combo') + '</span>' +
      '<span><span class="sw" style="background:var(--bh)"></span>Buy & hold</span>' +
      '<span><span class="box" style="background:var(--dd-soft);border-color:rgba(220,38,38,.35)"></span>Drawdown</span>' +
      (WALK && FOLDS.length <= 80 ? '<span><span class="sw" style="background:#cbd2dc;height:10px;width:1px"></span>Fold start</span>' : '') +
      '</div><label style="margin-left:auto"><input type="checkbox" id="logscale"> log scale</label></div>' +
      '<div class="chart" id="chart-equity"></div>');

    if (WALK) {
      var names = D.params.varying.length ? D.params.varying : D.params.names.slice(0, 1);
      html += card('sec-folds', 'Folds', 'One row per fold: the in-sample window it optimised on, ' +
        'the out-of-sample bars its winner traded, the winner, and ' + esc(OBJ) + ' in and out of ' +
        'sample. A fold\'s WFE = its OOS CAGR / its IS CAGR (only where IS CAGR > 0); the headline ' +
        '"WFE, mean of fold ratios" averages these, "WFE, aggregate" divides the whole OOS CAGR by ' +
        'the pooled IS CAGR (see "Reading this report"). ' +
        (HM ? 'Click a row to show its heatmap below.' : ''),
        '<div class="scroll"><table class="data" id="table-folds"></table></div>');
      html += '<div class="row">' +
        card('sec-params', 'Parameter stability', 'The winning ' + esc(names.join(', ')) +
          ' of each fold, over the out-of-sample bars it traded; the y range is the whole grid axis. ' +
          'Steady lines mean the optimum is stable; jumps mean it is not.' + (SEL ? ' The line is the published ' +
          'combo (what traded), which robust selection may hold while the fold\'s winner differs.' : ''),
          (SEL ? '<div class="legend"><span><span class="sw" style="background:var(--accent)"></span>published</span>' +
            '<span><span class="box" style="background:#fff;border:2px solid var(--held);border-radius:50%"></span>' +
            'fold winner not published (held or DSR gate)</span><span style="color:var(--raw)">× raw arg-max ' +
            '(plateau winner differs)</span></div>' : '') +
          '<div class="chart" id="chart-params"></div>') +
        card('sec-isoos', 'In-sample vs out-of-sample ' + OBJ, 'Per fold: the winner\'s ' +
          esc(OBJ) + ' on its in-sample window, and what it earned on the next ' +
          grp(IN.walk.oos_bars) + ' bars.',
          '<div class="legend"><span><span class="box" style="background:var(--accent)"></span>in sample</span>' +
          '<span><span class="box" style="background:var(--oos)"></span>out of sample</span></div>' +
          '<div class="chart" id="chart-isoos"></div>') + '</div>';
    } else {
      html += card('sec-top', 'Top ' + grp((D.top || []).length) + ' combos',
        'Ranked by ' + esc(OBJ) + ' (SPEC §7: constraints first, ties to the lower id).',
        '<div class="scroll"><table class="data" id="table-top"></table></div>');
    }
    if (SEL) html += selectionCard();

    // Landscape
    var lsub = WALK ? 'The ' + esc(OBJ) + ' of every combo of the grid on a fold\'s in-sample ' +
      'window: does the winner sit on a broad plateau (robust) or a lone spike (likely overfit)?'
      : 'The ' + esc(OBJ) + ' of every combo over the window: plateau or spike?';
    var notes = '';
    if (L.note) notes += '<div class="note">' + esc(L.note) + '</div>';
    if (L.heatmap_note && HM) notes += '<div class="note">' + esc(L.heatmap_note) + '</div>';
    var hmCtl = '';
    if (HM) {
      var opts = HM.folds.map(function (f, i) {
        var label = WALK ? 'Fold ' + f.fold + ': IS ' + shortTs(f.window.first_ts) + ' → ' +
          shortTs(f.window.last_ts) : 'Window ' + shortTs(f.window.first_ts) + ' → ' + shortTs(f.window.last_ts);
        return '<option value="' + i + '"' + (i === state.hmIndex ? ' selected' : '') + '>' +
          esc(label) + '</option>';
      }).join('');
      hmCtl = '<div class="controls">' + (HM.folds.length > 1 ? '<label>' + (WALK ? 'Fold ' : '') +
        '<select id="hm-fold">' + opts + '</select></label>' : '<span>' + (WALK ? 'Fold ' + HM.folds[0].fold + ', ' : '') +
        (WALK ? 'IS ' : 'window ') + esc(shortTs(HM.folds[0].window.first_ts)) + ' → ' + esc(shortTs(HM.folds[0].window.last_ts)) + '</span>') +
        '<span id="hm-info"></span></div>';
    }
    var legendHm = '<div class="legend"><span><span class="box" style="background:linear-gradient(90deg,#440154,#3b528b,#21918c,#5ec962,#fde725)"></span>' +
      esc(OBJ) + ' (low → high)</span><span><span class="box" style="background:repeating-linear-gradient(45deg,#d7dbe2 0 2px,#f3f4f6 2px 5px)"></span>fails constraints (not ranked)</span>' +
      '<span><span class="box" style="background:#f3f4f6"></span>invalid combo</span>' +
      '<span><span class="box" style="background:#fff;border:2px solid #111"></span>winner</span></div>';
    if (L.available && !HM && L.heatmap_note) notes += '<div class="note">' + esc(L.heatmap_note) + '</div>';
    if (PAIRS.length) {
      hmCtl += '<div class="controls"><label>Axes <select id="hm-pair">' + PAIRS.map(function (p, i) {
        return '<option value="' + i + '"' + (i === state.hmPair ? ' selected' : '') + '>' +
          esc(HM.axes[p[1]].name + ' × ' + HM.axes[p[0]].name) + '</option>';
      }).join('') + '</select></label><span id="hm-held"></span></div>';
    }
    var hmCol = HM ? '<div style="min-width:0"><h3 id="hm-title">Heatmap: ' + esc(HM.y.name) + ' × ' + esc(HM.x.name) +
      '</h3>' + hmCtl + legendHm + '<div class="chart" id="chart-heatmap"></div></div>' : '';
    var histCol = L.available ? '<div style="min-width:0"><h3>Histogram of ' + esc(OBJ) + ' over ranked combos' +
      (WALK ? ' (fold ' + L.fold + ' in sample)' : '') + '</h3>' +
      '<div class="legend"><span><span class="box" style="background:#93b4f5"></span>combos per bin</span>' +
      '<span><span class="box" style="background:var(--win)"></span>winner\'s bin</span></div>' +
      '<div class="chart" id="chart-histogram"></div></div>' : '';
    html += card('sec-landscape', 'Objective landscape', lsub, notes +
      (hmCol ? '<div class="row" style="margin:0">' + hmCol + histCol + '</div>' : histCol));

    // Glossary: the headline figures defined exactly.
    if (WALK) {
      html += card('sec-glossary', 'Reading this report', '',
        '<dl class="glossary">' +
        '<dt>WFE, mean of fold ratios</dt><dd>For each fold whose winner has an in-sample CAGR above 0, ' +
        'its out-of-sample CAGR divided by that in-sample CAGR; the mean over those folds (0 if none). ' +
        'One fold with a large ratio can carry it: a walk that lost money can still read near 1.</dd>' +
        '<dt>WFE, aggregate</dt><dd>The CAGR of the stitched out-of-sample series (the "OOS CAGR" ' +
        'above) divided by the pooled in-sample CAGR: every fold\'s winner\'s in-sample total return ' +
        'R<sub>f</sub> compounded in turn and annualised over the sum of the folds\' in-sample bars ' +
        'W<sub>f</sub>, (&prod;(1 + R<sub>f</sub>))<sup>A / &sum;W<sub>f</sub></sup> &minus; 1 with ' +
        'A = bars per year; a fold without a winner counts flat. Here the pooled in-sample CAGR is ' +
        esc(spct(S.is_cagr_pooled)) + (S.wfe_aggregate == null ? ', not above 0, so the ratio is n/a.' : '.') +
        '</dd></dl>');
    }

    // Inputs
    html += card('sec-inputs', 'Inputs', 'Everything needed to reproduce this report.',
      '<table class="kv" id="table-inputs"></table>' +
      '<h3>Reproduce <button class="copy" id="copy-cmd">copy</button></h3>' +
      '<p class="sub" style="margin:0">Every setting explicit (from the directory the run started in):</p>' +
      '<pre class="cmd" id="cmd">' + esc(IN.command) + '</pre>' +
      (IN.command_as_run !== IN.command ? '<p class="sub" style="margin:8px 0 0">As run:</p><pre class="cmd">' +
        esc(IN.command_as_run) + '</pre>' : ''));
    html += '<footer>wfo ' + esc(D.kind) + ' report · report.json, ' +
      (WALK ? 'folds.csv' : 'top.csv') + ', equity.csv' + (L.available ? ', objective.csv' : '') +
      ' beside this file hold the full data · charts are inline SVG drawn by this page, no external resources</footer>';
    app.insertAdjacentHTML('beforeend', html);

    var log = document.getElementById('logscale');
    log.addEventListener('change', function () { state.log = log.checked; drawEquity(); });
    var sel = document.getElementById('hm-fold');
    if (sel) sel.addEventListener('change', function () { state.hmIndex = +sel.value; drawHeatmap(); markRows(); });
    var pairSel = document.getElementById('hm-pair');
    if (pairSel) {
      pairSel.addEventListener('change', function () { state.hmPair = +pairSel.value; drawHeatmap(); });
      // A link may name the pair: report.html#heatmap=X,Y (two axis names, either order).
      var want = /(?:^#|&)heatmap=([^&]*)/.exec(location.hash);
      if (want) {
        var names = decodeURIComponent(want[1]).split(',');
        PAIRS.forEach(function (p, i) {
          var a = HM.axes[p[0]].name, b = HM.axes[p[1]].name;
          if ((a === names[0] && b === names[1]) || (a === names[1] && b === names[0])) {
            pairSel.value = String(i);
            pairSel.dispatchEvent(new Event('change'));
          }
        });
      }
    }
    document.getElementById('copy-cmd').addEventListener('click', copyCommand);
    fillTables();
    if (SEL) {
      fillSelectionTables();
      var pick = document.getElementById('sel-fold');
      if (pick) pick.addEventListener('change', function () { selectSel(+pick.value); });
    }
  }

  function selectionInputs(S) {
    var axes = Object.keys(S.plateau_radius_axes || {}).map(function (k) { return k + ' ' + S.plateau_radius_axes[k]; });
    return 'hysteresis_abs ' + S.hysteresis_abs + ', hysteresis_rel ' + S.hysteresis_rel + '; plateau ' + S.plateau +
      (S.plateau ? ' (' + esc(S.plateau_stat) + ', radius ' + S.plateau_radius + (axes.length ? ', ' + esc(axes.join(', ')) : '') + ')' : '') +
      '; min_dsr ' + (S.min_dsr === null ? 'none' : S.min_dsr) + '; pbo_blocks ' + S.pbo_blocks + ', pbo_max_combos ' +
      grp(S.pbo_max_combos) + '<br><span class="muted">From the config\'s [strategy.selection]: wfo has no flags for ' +
      'them, so the command line below runs with the defaults; add --config to reproduce this selection.</span>';
  }

  function copyCommand() {
    var pre = document.getElementById('cmd'), range = document.createRange();
    range.selectNodeContents(pre);
    var s = window.getSelection();
    s.removeAllRanges();
    s.addRange(range);
    try {
      if (navigator.clipboard) navigator.clipboard.writeText(IN.command).catch(function () {});
    } catch (e) { /* selection stays for a manual copy */ }
  }

  // ---- Tables --------------------------------------------------------------------------------
  function fillTables() {
    var names = D.params.names;
    if (WALK) {
      var fixed = names.filter(function (n) { return D.params.varying.indexOf(n) < 0; });
      if (D.params.varying.length) names = D.params.varying;
      var h = '<thead><tr><th>fold</th><th class="l">in sample</th><th class="l">out of sample</th><th>id</th>';
      names.forEach(function (n) { h += '<th class="l">' + esc(n) + '</th>'; });
      h += '<th>IS ' + esc(OBJ) + '</th><th>OOS ' + esc(OBJ) + '</th><th>WFE</th><th>OOS return</th>' +
        '<th>OOS max DD</th><th>OOS trades</th>' +
        (SEL ? '<th class="l">selection</th><th>DSR</th><th>PBO</th>' : '') + '</tr></thead><tbody>';
      FOLDS.forEach(function (f, i) {
        h += '<tr class="' + (HM ? 'click' : '') + '" data-fold="' + i + '"><td>' + f.index + '</td>' +
          '<td class="l">' + shortTs(f.is.first_ts) + ' → ' + shortTs(f.is.last_ts) + '</td>' +
          '<td class="l">' + shortTs(f.oos.first_ts) + ' → ' + shortTs(f.oos.last_ts) + '</td>' +
          '<td>' + (f.id === null ? '–' : f.id) + '</td>';
        names.forEach(function (n, j) {
          h += '<td class="l">' + (f.params ? esc(f.params[n]) : j === 0 ? '<span class="muted">flat</span>' : '') + '</td>';
        });
        var om = f.oos.metrics;
        h += '<td class="' + signCls(f.is_objective) + '">' + fmt(f.is_objective) + '</td>' +
          '<td class="' + signCls(f.oos_objective) + '">' + fmt(f.oos_objective) + '</td>' +
          '<td class="' + signCls(f.wfe) + '">' + fmt(f.wfe, 2) + '</td>' +
          '<td class="' + signCls(om.total_return) + '">' + spct(om.total_return) + '</td>' +
          '<td>' + pct(om.max_drawdown) + '</td><td>' + grp(om.trades) + '</td>' + foldSelCells(i) + '</tr>';
      });
      var t = document.getElementById('table-folds');
      t.innerHTML = h + '</tbody>';
      if (D.params.varying.length && fixed.length && FOLDS.length && FOLDS.some(function (f) { return f.params; })) {
        var p0 = FOLDS.filter(function (f) { return f.params; })[0].params;
        t.parentNode.insertAdjacentHTML('afterend', '<p class="sub" style="margin:6px 0 0">Fixed in the grid: ' +
          esc(fixed.map(function (n) { return n + ' ' + p0[n]; }).join(', ')) + '.</p>');
      }
      t.addEventListener('click', function (ev) {
        var tr = ev.target.closest('tr[data-fold]');
        if (tr) selectFold(+tr.getAttribute('data-fold'));
      });
      markRows();
    } else {
      var th = '<thead><tr><th>rank</th><th>id</th>';
      names.forEach(function (n) { th += '<th class="l">' + esc(n) + '</th>'; });
      th += '<th>' + esc(OBJ) + '</th><th>trades</th><th>win rate</th><th>profit factor</th>' +
        '<th>max DD</th><th>total return</th><th>CAGR</th>' + (OBJ === 'sharpe' ? '' : '<th>Sharpe</th>') +
        '<th>exposure</th></tr></thead><tbody>';
      (D.top || []).forEach(function (r, i) {
        var m = r.metrics;
        th += '<tr><td>' + (i + 1) + '</td><td>' + r.id + '</td>';
        names.forEach(function (n) { th += '<td class="l">' + esc(r.params[n]) + '</td>'; });
        th += '<td class="' + signCls(r.objective) + '">' + fmt(r.objective) + '</td><td>' + grp(m.trades) +
          '</td><td>' + pct(m.win_rate) + '</td><td>' + (m.profit_factor >= 1e9 ? 'no loss' : fmt(m.profit_factor, 2)) +
          '</td><td>' + pct(m.max_drawdown) + '</td><td class="' + signCls(m.total_return) + '">' +
          spct(m.total_return) + '</td><td>' + spct(m.cagr) + '</td>' +
          (OBJ === 'sharpe' ? '' : '<td>' + fmt(m.sharpe, 2) + '</td>') + '<td>' + pct(m.exposure, 0) + '</td></tr>';
      });
      document.getElementById('table-top').innerHTML = th + '</tbody>';
    }
    // Inputs
    var rows = [];
    var d = IN.data;
    rows.push(['Data file', esc(d.path) + (d.absolute_path && d.absolute_path !== d.path ?
      ' <span class="muted">(' + esc(d.absolute_path) + ')</span>' : '') +
      ' <span class="muted">· ' + grp(d.bytes) + ' bytes</span>']);
    rows.push(['Bars in file', grp(d.bars) + ' bars, ' + esc(shortTs(d.first_ts)) + ' → ' + esc(shortTs(d.last_ts)) +
      (d.skip_bad_rows ? ' (bad rows skipped)' : '')]);
    if (WALK) {
      var F0 = FOLDS[0], F1 = FOLDS[FOLDS.length - 1];
      rows.push(['Walk-forward', esc(IN.walk.mode) + ', IS ' + grp(IN.walk.is_bars) + ' bars, OOS ' +
        grp(IN.walk.oos_bars) + ' bars per fold, warm-up ' + grp(IN.walk.warmup) + ' bars, ' + grp(FOLDS.length) + ' folds']);
      if (F0) {
        rows.push(['Bar range used', 'IS of fold 0 from bar ' + F0.is.first + ' (' + esc(shortTs(F0.is.first_ts)) +
          '); OOS bars ' + F0.oos.first + ' → ' + F1.oos.last + ' (' + esc(shortTs(F0.oos.first_ts)) + ' → ' +
          esc(shortTs(F1.oos.last_ts)) + ')']);
      }
    } else {
      rows.push(['Window', grp(IN.window.bars) + ' bars: bars ' + IN.window.first + ' → ' + IN.window.last + ' (' +
        esc(shortTs(IN.window.first_ts)) + ' → ' + esc(shortTs(IN.window.last_ts)) + '), warm-up ' + grp(IN.window.warmup)]);
    }
    rows.push(['Strategy', esc(IN.family) + (IN.strategy ? ' (config strategy ' + esc(IN.strategy) + ')' : '')]);
    rows.push(['Grid', IN.grid.axes.map(function (a) {
      return '<code>' + esc(a.name) + '</code>: ' + esc(compactValues(a.values));
    }).join('<br>')]);
    rows.push(['Combos', grp(IN.grid.combos) + ' in the grid, ' + grp(IN.grid.valid) + ' valid, ' +
      grp(IN.grid.invalid) + ' invalid (SPEC §5)']);
    rows.push(['Costs', fmt(IN.costs.commission_bps, 2) + ' bps commission + ' + fmt(IN.costs.slippage_bps, 2) +
      ' bps slippage per unit of position change']);
    rows.push(['Fill', esc(IN.fill)]);
    rows.push(['Gaps in the data', gapsText(IN.gaps)]);
    rows.push(['Bars per year', esc(bpyText()) + (IN.median_interval_s == null ? ''
      : ', median bar interval ' + fmt(IN.median_interval_s, 0) + ' s')]);
    var c = IN.constraints;
    rows.push(['Objective', esc(OBJ) + ' (maximised)']);
    rows.push(['Constraints', 'min_trades ' + c.min_trades + ', max_drawdown ' + c.max_drawdown +
      (c.min_exposure === null ? '' : ', min_exposure ' + c.min_exposure) + '; top ' + IN.top]);
    rows.push(['Backend', esc(IN.backend.used) + ' (requested ' + esc(IN.backend.requested) + '), precision ' +
      esc(IN.precision) + ', threads ' + (IN.threads === 0 ? 'all cores' : IN.threads)]);
    if (SEL && IN.selection) rows.push(['Robust selection', selectionInputs(IN.selection)]);
    rows.push(['Landscape', L.available ? (WALK ? 'fold ' + L.fold + ' IS window, ' : 'the window, ') +
      grp(L.valid) + ' combos evaluated for the heatmap/histogram (cap ' + grp(L.cap) + ' per window)'
      : esc(L.note || '')]);
    rows.push(['Generated', esc(shortTs(D.generated)) + ' UTC, report directory ' + esc(IN.report_dir)]);
    document.getElementById('table-inputs').innerHTML = rows.map(function (r) {
      return '<tr><th>' + r[0] + '</th><td>' + r[1] + '</td></tr>';
    }).join('');
  }

  // Every gap over 5x the median bar interval; holes (also over 4 days) marked.
  function gapsText(g) {
    if (!g) return '–';
    if (!g.list.length) return 'none over ' + g.listed_over_median_x + '× the median interval';
    return grp(g.list.length) + ' over ' + g.listed_over_median_x + '× the median interval' +
      (g.holes ? ', <strong>' + grp(g.holes) + ' over 4 days (holes)</strong>' : '') + ':<br>' +
      g.list.map(function (e) {
        return (e.hole ? '<strong>' : '') + esc(shortTs(e.from)) + ' → ' + esc(shortTs(e.to)) + ' (' +
          fmt(e.seconds / 86400, 1) + ' days, after bar ' + e.after_bar + ')' + (e.hole ? '</strong>' : '');
      }).join('<br>');
  }

  // SPEC §6's A and where it came from: "525,960 bars/year (observed in the file)".
  function bpyText() {
    var src = {flag: '--bars-per-year', config: 'config', daily_default: 'daily default',
      observed: 'observed in the file'}[IN.bars_per_year_source] || IN.bars_per_year_source;
    return grp(IN.bars_per_year) + ' bars/year' + (src ? ' (' + src + ')' : '');
  }

  // The folds table's selection columns: the hysteresis decision, DSR and PBO of fold i.
  function foldSelCells(i) {
    if (!SEL) return '';
    var s = selOf(i);
    if (!s) return '<td class="na">–</td><td class="na">–</td><td class="na">–</td>';
    var q = s.dsr, p = s.pbo;
    return vcell('reason', s.reason, badge(s), 'l') +
      vcell('dsr', q ? q.dsr : null, fmt(q ? q.dsr : null, 3), q && q.min_dsr !== null ? (q.passes ? 'pos' : 'neg') : '') +
      vcell('pbo', p ? p.pbo : null, p ? fmt(p.pbo, 3) : '<span class="muted" title="' + esc(s.pbo_skipped || '') + '">skipped</span>',
        p ? pboCls(p.pbo) : '');
  }

  function markRows() {
    if (!WALK) return;
    var cur = HM ? HM.folds[state.hmIndex].fold : null;
    var rows = document.querySelectorAll('#table-folds tr[data-fold]');
    for (var i = 0; i < rows.length; i++) {
      rows[i].classList.toggle('sel', HM !== null && +rows[i].getAttribute('data-fold') === cur);
    }
  }

  function selectFold(i) {
    if (!HM) return;
    var idx = -1;
    HM.folds.forEach(function (f, j) { if (f.fold === FOLDS[i].index) idx = j; });
    var info = document.getElementById('hm-info');
    if (idx < 0) {
      if (info) info.textContent = 'Fold ' + FOLDS[i].index + ' has no heatmap in this report (see the note above).';
      return;
    }
    state.hmIndex = idx;
    var sel = document.getElementById('hm-fold');
    if (sel) sel.value = String(idx);
    drawHeatmap();
    markRows();
    document.getElementById('sec-landscape').scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  // ---- Robust selection ------------------------------------------------------------------------
  function selOf(i) { return SEL && SEL[i] ? SEL[i] : null; }
  function selLabel(i) { return WALK ? (FOLDS[i] ? 'fold ' + FOLDS[i].index : 'fold ' + i) : 'window'; }
  function selNames() { return D.params.varying.length ? D.params.varying : D.params.names; }
  // The hysteresis decision (SPEC §10.1) as a badge class, a short label and a sentence.
  function decision(s) {
    var m = s.hysteresis ? s.hysteresis.margin : null, r = s.reason;
    var by = isNum(m) && m > 0 ? 'by more than the margin ' + fmt(m, 4) : 'in the SPEC §7 order (margin 0)';
    var what = s.hysteresis && s.hysteresis.compares === 'plateau_score' ? 'plateau score' : OBJ;
    var table = {
      first: ['switch', 'first', 'no combo was published before: the winner is published.'],
      same: ['same', 'same', 'the winner is the combo already published: kept.'],
      beats_margin: ['switch', 'switched', 'the winner beats the published combo\'s ' + what + ' ' + by + ': it replaces it.'],
      held: ['held', 'held', 'the winner does not beat the published combo\'s ' + what + ' ' + by + ': the published combo is held.'],
      current_not_in_grid: ['switch', 'switched', 'the published combo is no longer in the grid: the winner replaces it.'],
      current_invalid: ['switch', 'switched', 'the published combo is invalid (SPEC §5): the winner replaces it.'],
      current_fails_constraint: ['switch', 'switched', 'the published combo fails a constraint (or has no ' + esc(OBJ) +
        ') on this window: the winner replaces it.'],
      no_winner_held: ['held', 'held', 'nothing is ranked on this window: the published combo is held.'],
      no_winner: ['none', 'none', 'nothing is ranked: nothing is published.'],
      dsr_below_min: ['gate', 'DSR gate', 'the winner\'s deflated Sharpe is below min_dsr: it replaces nothing (' +
        (s.published ? 'the published combo is held' : 'nothing is published') + ').']
    };
    var d = table[r] || ['same', String(r), 'reason ' + String(r) + '.'];
    return { cls: d[0], label: d[1], text: d[2] };
  }
  // The fold winner that was not published (held by hysteresis or stopped by the DSR gate).
  function unpublishedWinner(s) {
    return s && s.winner && (!s.published || s.winner.id !== s.published.id) ? s.winner : null;
  }
  function badge(s) {
    var d = decision(s);
    return '<span class="badge ' + d.cls + '" title="' + esc(s.reason + ': ' + d.text) + '">' + esc(d.label) + '</span>';
  }
  // A table cell that keeps the exact value in data-v (report.json's, for tests and copying).
  function rawAttr(v) { return esc(v === null || v === undefined ? '' : String(v)); }
  function vcell(key, v, shown, cls) {
    return '<td data-k="' + key + '" data-v="' + rawAttr(v) + '"' + (cls ? ' class="' + cls + '"' : '') + '>' + shown + '</td>';
  }
  function comboCell(key, c, extra) {
    if (!c) return vcell(key, null, '<span class="muted">none</span>', 'l');
    return vcell(key, c.id, '<b>' + c.id + '</b> <span class="muted">' + esc(paramText(c.params, selNames())) + '</span>' +
      (extra || ''), 'l');
  }
  function pboCls(p) { return !isNum(p) ? 'na' : p >= 0.5 ? 'neg' : 'pos'; }
  function gateCell(dsr) {
    if (!dsr || dsr.min_dsr === null) return vcell('passes', dsr ? dsr.passes : null, '<span class="muted">no gate</span>');
    return vcell('passes', dsr.passes, '<span class="badge ' + (dsr.passes ? 'pass' : 'fail') + '">' +
      (dsr.passes ? 'pass' : 'fail') + '</span>');
  }

  function selectionCard() {
    var s0 = SEL[0], h0 = s0.hysteresis || {}, S = IN.selection || null;
    var minDsr = S ? S.min_dsr : (s0.dsr ? s0.dsr.min_dsr : null);
    var set = ['hysteresis margin max(' + fmt(h0.abs, 4) + ', ' + fmt(h0.rel, 4) + ' × |current|) on the ' +
      (h0.compares === 'plateau_score' ? 'plateau score' : esc(OBJ)),
      s0.plateau ? 'plateau winner (' + esc(s0.plateau.stat) + (S ? ', radius ' + S.plateau_radius : '') + ')' : 'no plateau: the winner is the raw arg-max',
      minDsr === null ? 'no DSR gate' : 'DSR gate min_dsr ' + fmt(minDsr, 3),
      S ? (S.pbo_blocks ? 'PBO with S = ' + S.pbo_blocks + ' blocks (up to ' + grp(S.pbo_max_combos) + ' combos)' : 'PBO off') : ''];
    var sub = (WALK ? 'Per fold, on its in-sample window: which combo won, which was published (what traded the ' +
      'out-of-sample bars) and why, and how likely the choice is to be overfit. ' : 'On the sweep window: which combo won, ' +
      'which would be published and why, and how likely the choice is to be overfit. ') +
      'Settings: ' + set.filter(function (x) { return x; }).join(' · ') + '.';
    var detailOpts = SEL.map(function (s, i) {
      return '<option value="' + i + '"' + (i === state.selIndex ? ' selected' : '') + '>' + esc(selLabel(i)) +
        (s && s.pbo ? ': PBO ' + fmt(s.pbo.pbo, 3) : ': PBO skipped') + '</option>';
    }).join('');
    var pboCol = '<div style="min-width:0"><h3>PBO by CSCV: logit distribution</h3><div class="controls">' +
      (SEL.length > 1 ? '<label><select id="sel-fold">' + detailOpts + '</select></label>' : '') +
      '<span id="sel-info"></span></div><div class="legend">' +
      '<span><span class="box" style="background:#f2a7a7"></span>λ ≤ 0: the in-sample pick ranked at or below the OOS median</span>' +
      '<span><span class="box" style="background:#93b4f5"></span>λ > 0: above it</span></div>' +
      '<div class="chart" id="chart-logit"></div><div id="sel-pbo-detail"></div></div>';
    var perFold = WALK ? '<div style="min-width:0"><h3>Deflated Sharpe and PBO per fold</h3><div class="legend">' +
      '<span><span class="box" style="background:var(--accent)"></span>DSR</span>' +
      '<span><span class="box" style="background:#e07a7a"></span>PBO</span>' +
      (minDsr !== null ? '<span><span class="sw" style="background:var(--accent);height:2px"></span>min_dsr ' + fmt(minDsr, 3) + '</span>' : '') +
      '<span><span class="sw" style="background:#9aa3b2;height:1px"></span>0.5</span></div>' +
      '<div class="chart" id="chart-selection"></div></div>' : '';
    return card('sec-selection', 'Robust selection', sub,
      '<h3>Winner, plateau winner and published combo</h3>' +
      '<div class="scroll"><table class="data" id="table-selection"></table></div>' +
      '<h3>Overfitting statistics</h3>' +
      '<div class="scroll"><table class="data" id="table-overfit"></table></div>' +
      '<div class="row" style="margin:14px 0 0">' + (perFold || '') + pboCol + '</div>' +
      '<h3>What these mean</h3>' + selectionExplain());
  }

  function selectionExplain() {
    return '<dl class="explain">' +
      '<dt>Raw winner, plateau winner, published combo</dt><dd>The raw winner is the arg-max of ' + esc(OBJ) +
      ' on the in-sample window (SPEC §7). With <code>plateau = true</code> the winner is instead the combo whose ' +
      'grid neighbourhood scores best (mean or lower quantile of ' + esc(OBJ) + ' around it), which favours broad ' +
      'plateaus over lone spikes. The published combo is the one that actually trades' + (WALK ? ' the fold\'s ' +
      'out-of-sample bars' : '') + '.</dd>' +
      '<dt>Hysteresis decision</dt><dd>A new winner replaces the published combo only when it beats it on the same ' +
      'window by more than max(hysteresis_abs, hysteresis_rel × |current|); otherwise the published combo is ' +
      '<span class="badge held">held</span>, which avoids paying switching costs for a marginal, probably noisy, ' +
      'improvement. <span class="badge switch">switched</span> and <span class="badge same">same</span> mark the ' +
      'other outcomes; hover a badge for its exact reason.</dd>' +
      '<dt>Deflated Sharpe ratio (DSR)</dt><dd>Bailey &amp; López de Prado (2014), <i>The Deflated Sharpe Ratio: ' +
      'Correcting for Selection Bias, Backtest Overfitting and Non-Normality</i>. The probability that the winner\'s ' +
      'true per-bar Sharpe ratio exceeds E[max SR], the best Sharpe that N zero-skill trials would show by luck, ' +
      'given the window length and the skew and kurtosis of its returns. Near 1: hard to explain by luck; 0.5 or ' +
      'less: no better than the best of N random trials. N counts every valid combo although neighbours are ' +
      'correlated, so the DSR shown is conservative. With min_dsr set, a winner below it replaces nothing.</dd>' +
      '<dt>Probability of backtest overfitting (PBO)</dt><dd>Bailey, Borwein, López de Prado &amp; Zhu (2015), ' +
      '<i>The Probability of Backtest Overfitting</i>, by combinatorially symmetric cross-validation (CSCV): the ' +
      'in-sample window is cut into S equal blocks; for every choice of half of them as in-sample (the rest out of ' +
      'sample) the best combo in-sample is ranked among all combos out of sample. λ = ln(ω / (1 − ω)) of that ' +
      'relative rank ω is above 0 when the pick beats the out-of-sample median. PBO is the share of splits with ' +
      'λ ≤ 0: well below 0.5 the selection carries information, near or above 0.5 it is likely overfit.</dd>' +
      '<dt>Performance degradation and P(OOS loss)</dt><dd>From the same splits: the OLS slope and intercept of the ' +
      'pick\'s out-of-sample ' + esc(OBJ) + ' on its in-sample ' + esc(OBJ) + ' (a negative slope means higher ' +
      'in-sample scores came with worse out-of-sample ones), and the share of splits whose pick had an ' +
      'out-of-sample ' + esc(OBJ) + ' below 0. The per-split points are not stored, so no scatter is drawn.</dd>' +
      '</dl>';
  }

  function fillSelectionTables() {
    var h = '<thead><tr><th>' + (WALK ? 'fold' : '') + '</th><th class="l">raw winner (arg-max)</th><th>raw ' + esc(OBJ) +
      '</th><th class="l">plateau winner</th><th>plateau score</th><th class="l">previously published</th>' +
      '<th class="l">published</th><th class="l">decision</th><th>margin</th></tr></thead><tbody>';
    SEL.forEach(function (s, i) {
      if (!s) return;
      var pl = s.plateau, cur = s.current;
      h += '<tr class="click" data-sel="' + i + '"><td>' + (WALK ? esc(selLabel(i).replace('fold ', '')) : 'window') + '</td>' +
        comboCell('raw_id', s.raw) + vcell('raw_objective', s.raw ? s.raw.objective : null, fmt(s.raw ? s.raw.objective : null, 4)) +
        (pl ? comboCell('plateau_id', pl, pl.id !== (s.raw && s.raw.id) ? ' <span class="badge switch">moved</span>' : '') +
          vcell('plateau_score', pl.score, fmt(pl.score, 4) + ' <span class="muted">' + esc(pl.stat) + ' of ' + grp(pl.neighbours) + '</span>')
          : vcell('plateau_id', null, '<span class="muted">off</span>', 'l') + vcell('plateau_score', null, '–', 'na')) +
        (cur ? vcell('current_id', cur.id, '<b>' + cur.id + '</b>' + (cur.passes ? '' : ' <span class="muted">' +
          (!cur.in_grid ? 'not in grid' : !cur.valid ? 'invalid' : 'fails constraints') + '</span>'), 'l')
          : vcell('current_id', null, '<span class="muted">none</span>', 'l')) +
        comboCell('published_id', s.published) +
        vcell('reason', s.reason, badge(s) + ' <span class="muted">' + esc(s.changed ? 'changed' : 'unchanged') + '</span>', 'l') +
        vcell('margin', s.hysteresis ? s.hysteresis.margin : null, fmt(s.hysteresis ? s.hysteresis.margin : null, 4)) + '</tr>';
    });
    document.getElementById('table-selection').innerHTML = h + '</tbody>';

    var o = '<thead><tr><th>' + (WALK ? 'fold' : '') + '</th><th>DSR</th><th>SR / bar</th><th>E[max SR]</th><th>trials N</th>' +
      '<th>bars T</th><th>skew</th><th>kurt</th><th>min_dsr</th><th>gate</th><th>PBO</th><th>splits</th>' +
      '<th>median λ</th><th>slope</th><th>intercept</th><th>P(OOS loss)</th></tr></thead><tbody>';
    SEL.forEach(function (s, i) {
      if (!s) return;
      var q = s.dsr, p = s.pbo;
      o += '<tr class="click" data-sel="' + i + '"><td>' + (WALK ? esc(selLabel(i).replace('fold ', '')) : 'window') + '</td>';
      if (q) {
        o += vcell('dsr', q.dsr, fmt(q.dsr, 3), q.min_dsr === null ? '' : q.passes ? 'pos' : 'neg') +
          vcell('sharpe', q.sharpe, fmt(q.sharpe, 4)) + vcell('expected_max_sharpe', q.expected_max_sharpe, fmt(q.expected_max_sharpe, 4)) +
          vcell('trials', q.trials, grp(q.trials)) + vcell('bars', q.bars, grp(q.bars)) +
          vcell('skew', q.skew, fmt(q.skew, 2)) + vcell('kurt', q.kurt, fmt(q.kurt, 2)) +
          vcell('min_dsr', q.min_dsr, q.min_dsr === null ? '–' : fmt(q.min_dsr, 3), q.min_dsr === null ? 'na' : '');
      } else {
        o += vcell('dsr', null, '<span class="muted">no winner</span>') + '<td class="na" colspan="7">–</td>';
      }
      o += gateCell(q);
      if (p) {
        o += vcell('pbo', p.pbo, fmt(p.pbo, 3), pboCls(p.pbo)) +
          vcell('splits_with_winner', p.splits_with_winner, grp(p.splits_with_winner) + ' <span class="muted">of ' + grp(p.splits) + '</span>') +
          vcell('median_logit', p.logit.median, fmt(p.logit.median, 3), signCls(p.logit.median)) +
          vcell('slope', p.degradation.slope, fmt(p.degradation.slope, 3), signCls(p.degradation.slope)) +
          vcell('intercept', p.degradation.intercept, fmt(p.degradation.intercept, 3)) +
          vcell('prob_oos_loss', p.prob_oos_loss, fmt(p.prob_oos_loss, 3));
      } else {
        o += vcell('pbo', null, '<span class="muted">skipped</span>', 'l') +
          '<td class="l muted" colspan="5" data-k="pbo_skipped">' + esc(s.pbo_skipped || 'not computed') + '</td>';
      }
      o += '</tr>';
    });
    document.getElementById('table-overfit').innerHTML = o + '</tbody>';
    ['table-selection', 'table-overfit'].forEach(function (id) {
      document.getElementById(id).addEventListener('click', function (ev) {
        var tr = ev.target.closest('tr[data-sel]');
        if (tr) selectSel(+tr.getAttribute('data-sel'));
      });
    });
    markSelRows();
  }
  function markSelRows() {
    var rows = document.querySelectorAll('#table-selection tr[data-sel], #table-overfit tr[data-sel]');
    for (var i = 0; i < rows.length; i++) {
      rows[i].classList.toggle('sel', +rows[i].getAttribute('data-sel') === state.selIndex);
    }
  }
  function selectSel(i) {
    if (!SEL || !SEL[i]) return;
    state.selIndex = i;
    var pick = document.getElementById('sel-fold');
    if (pick) pick.value = String(i);
    drawLogit();
    markSelRows();
  }

  // DSR and PBO of every fold on one [0, 1] scale.
  function drawSelection() {
    var el = document.getElementById('chart-selection');
    if (!el || !SEL) return;
    var n = SEL.length, f = frame(el, 240, { l: 44, r: 12, t: 10, b: 36 }), g = f.svg, marks = 0;
    var ys = linear(0, 1, f.y1, f.y0), band = (f.x1 - f.x0) / n;
    yGrid(f, g, [0, 0.25, 0.5, 0.75, 1], ys, function (v) { return v.toFixed(2); }, f.x0, f.x1);
    svg('line', { x1: f.x0, x2: f.x1, y1: ys(0.5), y2: ys(0.5), stroke: '#9aa3b2', 'stroke-dasharray': '2 3' }, g);
    var every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor((f.x1 - f.x0) / 34))));
    SEL.forEach(function (s, i) {
      var cx = f.x0 + (i + 0.5) * band, bw = Math.max(1, Math.min(18, band * 0.36));
      if (i % every === 0) text(g, cx, f.y1 + 14, WALK && FOLDS[i] ? String(FOLDS[i].index) : String(i), { 'text-anchor': 'middle' });
      if (!s) return;
      var dv = s.dsr ? s.dsr.dsr : null, pv = s.pbo ? s.pbo.pbo : null;
      if (isNum(dv)) {
        svg('rect', { x: cx - bw - 0.5, y: ys(dv), width: bw, height: Math.max(1, f.y1 - ys(dv)), fill: 'var(--accent)', rx: 1 }, g);
        marks++;
      }
      if (isNum(pv)) {
        svg('rect', { x: cx + 0.5, y: ys(pv), width: bw, height: Math.max(1, f.y1 - ys(pv)), fill: '#e07a7a', rx: 1 }, g);
        marks++;
      } else {
        text(g, cx + bw / 2, f.y1 - 4, '×', { 'text-anchor': 'middle' });
      }
    });
    var minDsr = IN.selection ? IN.selection.min_dsr : null;
    if (isNum(minDsr)) {
      svg('line', { x1: f.x0, x2: f.x1, y1: ys(minDsr), y2: ys(minDsr), stroke: 'var(--accent)', 'stroke-width': 1.2, 'stroke-dasharray': '6 3' }, g);
    }
    text(g, (f.x0 + f.x1) / 2, f.y1 + 30, WALK ? 'fold' : '', { 'class': 'axis-title', 'text-anchor': 'middle' });
    svg('rect', { x: f.x0, y: f.y0, width: f.x1 - f.x0, height: f.y1 - f.y0, 'class': 'domain' }, g);
    bandHover(f, g, n, band, true, function (i, ev) {
      var s = SEL[i];
      if (!s) { untip(); return; }
      tip('<b>' + esc(selLabel(i)) + '</b> ' + badge(s) + '<br>DSR ' + fmt(s.dsr ? s.dsr.dsr : null) +
        (s.dsr && s.dsr.min_dsr !== null ? ' (min ' + fmt(s.dsr.min_dsr) + ', ' + (s.dsr.passes ? 'pass' : 'fail') + ')' : '') +
        '<br>PBO ' + (s.pbo ? fmt(s.pbo.pbo) : 'skipped: ' + esc(s.pbo_skipped || '')) +
        '<br><span class="t">click: its logit histogram</span>', ev);
    }, selectSel);
    done(el, marks);
  }

  // The CSCV logit histogram of the chosen fold (SPEC §10.4: 20 bins over [-ln Np, ln Np]).
  function drawLogit() {
    var el = document.getElementById('chart-logit'), s = selOf(state.selIndex);
    if (!el || !s) return;
    var info = document.getElementById('sel-info'), detail = document.getElementById('sel-pbo-detail');
    var P = s.pbo;
    if (info) info.textContent = selLabel(state.selIndex) + (P ? ': PBO ' + fmt(P.pbo, 3) : '');
    if (!P) {
      noteIn(el, 'PBO skipped for ' + selLabel(state.selIndex) + ': ' + (s.pbo_skipped || 'not computed') + '.');
      if (detail) detail.innerHTML = '';
      done(el, 0);
      return;
    }
    var Hs = P.histogram, nb = Hs.counts.length, lo = Hs.lo, hi = Hs.hi;
    if (!isNum(lo) || !isNum(hi) || !(hi > lo) || !nb) {
      noteIn(el, 'No logit histogram: ' + grp(P.splits_with_winner) + ' splits with a winner, ' + grp(P.combos) + ' participants.');
    } else {
      var f = frame(el, 230, { l: 50, r: 14, t: 14, b: 38 }), g = f.svg, marks = 0, bw = (hi - lo) / nb;
      var xs = linear(lo, hi, f.x0, f.x1), cmax = Math.max.apply(null, Hs.counts);
      var yt = niceTicks(0, Math.max(1, cmax), 4), ys = linear(0, yt.hi, f.y1, f.y0);
      yGrid(f, g, yt.ticks.filter(function (v) { return v === Math.round(v); }), ys, function (v) { return grp(v); }, f.x0, f.x1);
      var xt = niceTicks(lo, hi, Math.max(3, Math.floor((f.x1 - f.x0) / 70)));
      xt.ticks.forEach(function (v) {
        if (v < lo || v > hi) return;
        svg('line', { x1: xs(v), x2: xs(v), y1: f.y1, y2: f.y1 + 4, stroke: '#9aa3b2' }, g);
        text(g, xs(v), f.y1 + 16, xt.label(v), { 'text-anchor': 'middle' });
      });
      Hs.counts.forEach(function (cnt, i) {
        if (!(cnt > 0)) return;
        var a = lo + i * bw, x = xs(a), w = Math.max(1, xs(a + bw) - x - 1), y = ys(cnt);
        svg('rect', { x: x + 0.5, y: y, width: w, height: Math.max(1, f.y1 - y), fill: a + bw / 2 <= 0 ? '#f2a7a7' : '#93b4f5',
          'data-bin': i, 'data-count': cnt }, g);
        marks++;
      });
      svg('line', { x1: xs(0), x2: xs(0), y1: f.y0, y2: f.y1, stroke: '#4b5563', 'stroke-width': 1.2 }, g);
      if (isNum(P.logit.median)) {
        var mx = xs(P.logit.median);
        svg('line', { x1: mx, x2: mx, y1: f.y0, y2: f.y1, stroke: '#b45309', 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }, g);
        text(g, mx, f.y0 - 3, 'median ' + fmt(P.logit.median, 2), { 'text-anchor': mx > (f.x0 + f.x1) / 2 ? 'end' : 'start', 'class': 'title' });
      }
      text(g, (f.x0 + f.x1) / 2, f.y1 + 32, 'logit λ of the in-sample pick\'s out-of-sample rank', { 'class': 'axis-title', 'text-anchor': 'middle' });
      text(g, 12, (f.y0 + f.y1) / 2, 'splits', { 'class': 'axis-title', 'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (f.y0 + f.y1) / 2 + ')' });
      svg('line', { x1: f.x0, x2: f.x1, y1: f.y1, y2: f.y1, stroke: '#9aa3b2' }, g);
      var ov = svg('rect', { x: f.x0, y: f.y0, width: f.x1 - f.x0, height: f.y1 - f.y0, fill: 'transparent' }, g);
      ov.addEventListener('pointermove', function (ev) {
        var r = f.svg.getBoundingClientRect(), px = (ev.clientX - r.left) * f.W / r.width;
        var i = Math.floor((xs.inv(px) - lo) / bw);
        if (i < 0 || i >= nb) { untip(); return; }
        tip('<b>' + grp(Hs.counts[i]) + ' split' + (Hs.counts[i] === 1 ? '' : 's') + '</b><br>λ ' + fmt(lo + i * bw, 3) + ' … ' +
          fmt(lo + (i + 1) * bw, 3), ev);
      });
      ov.addEventListener('pointerleave', untip);
      done(el, marks);
    }
    if (detail) detail.innerHTML = pboDetail(P);
  }
  function pboDetail(P) {
    var q = P.logit, kv = [['min', q.min], ['q05', q.q05], ['q25', q.q25], ['median', q.median], ['q75', q.q75],
      ['q95', q.q95], ['max', q.max], ['mean', q.mean]];
    var t = '<table class="data" id="table-logit" style="margin-top:8px"><thead><tr><th class="l">logit λ</th>' +
      kv.map(function (p) { return '<th>' + p[0] + '</th>'; }).join('') + '</tr></thead><tbody><tr data-row="quantile"><td class="l muted">' +
      'quantile</td>' + kv.map(function (p) { return vcell('logit_' + p[0], p[1], fmt(p[1], 3), signCls(p[1])); }).join('') +
      '</tr></tbody></table>';
    var g = P.degradation;
    var rows = [['PBO', '<b data-k="pbo" data-v="' + rawAttr(P.pbo) + '">' + fmt(P.pbo, 4) + '</b> <span class="muted">(' +
        grp(P.splits_with_winner) + ' of ' + grp(P.splits) + ' splits had an in-sample winner)</span>'],
      ['CSCV blocks', 'S = ' + P.blocks + ' blocks of ' + grp(P.block_bars) + ' bars' + (P.remainder_bars ?
        ', ' + grp(P.remainder_bars) + ' oldest bars left out' : '')],
      ['Participants', grp(P.combos) + ' combos' + (P.excluded_nonpositive ? ', ' + grp(P.excluded_nonpositive) +
        ' excluded (equity ≤ 0 in a block)' : '')],
      ['Degradation', 'OOS ' + esc(OBJ) + ' = <span data-k="intercept" data-v="' + rawAttr(g.intercept) + '">' +
        fmt(g.intercept, 4) + '</span> + <span data-k="slope" data-v="' + rawAttr(g.slope) + '">' + fmt(g.slope, 4) +
        '</span> × IS ' + esc(OBJ) + ' <span class="muted">(OLS over ' + grp(g.points) + ' splits)</span>'],
      ['P(OOS loss)', '<span data-k="prob_oos_loss" data-v="' + rawAttr(P.prob_oos_loss) + '">' + pct(P.prob_oos_loss, 1) +
        '</span> <span class="muted">of splits: the pick\'s out-of-sample ' + esc(OBJ) + ' below 0</span>']];
    return t + '<table class="kv" style="margin-top:8px">' + rows.map(function (r) {
      return '<tr><th>' + r[0] + '</th><td>' + r[1] + '</td></tr>';
    }).join('') + '</table>';
  }

  // ---- Equity vs buy-and-hold, with drawdown ---------------------------------------------------
  function drawEquity() {
    var el = document.getElementById('chart-equity'), E = D.equity;
    if (!E || !E.ms.length) { noteIn(el, 'No equity to draw (no ranked combo).'); done(el, 0); return; }
    var t = E.ms.slice(), eq = E.equity.slice(), bh = E.buy_hold.slice(), dd = E.drawdown.slice();
    if (E.base_ms !== null) { t.unshift(E.base_ms); eq.unshift(1); bh.unshift(1); dd.unshift(0); }
    var f = frame(el, 440, { l: 62, r: 18, t: 10, b: 26 });
    var mainH = 282, gapH = 32, ddTop = f.y0 + mainH + gapH, ddBot = f.y1, g = f.svg;
    var xs = linear(t[0], t[t.length - 1], f.x0, f.x1);
    var ext = finiteExtent([eq, bh]), logOk = state.log && ext[0] > 0, ys, ticks, label;
    if (logOk) {
      var lt = logTicks(ext[0], ext[1]);
      var l0 = Math.log10(ext[0]), l1 = Math.log10(ext[1]);
      if (l1 - l0 < 1e-9) { l0 -= 0.05; l1 += 0.05; }
      var padL = (l1 - l0) * 0.04, ly = linear(l0 - padL, l1 + padL, f.y0 + mainH, f.y0);
      ys = function (v) { return ly(Math.log10(Math.max(v, 1e-12))); };
      ticks = lt || [ext[0], ext[1]];
      label = function (v) { return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2); };
    } else {
      var nt = niceTicks(ext[0], ext[1], 6);
      ys = linear(nt.lo, nt.hi, f.y0 + mainH, f.y0);
      ticks = nt.ticks;
      label = nt.label;
    }
    var tt = timeTicks(t[0], t[t.length - 1], Math.max(3, Math.floor((f.x1 - f.x0) / 110)));
    // grids and axes
    yGrid(f, g, ticks, ys, label, f.x0, f.x1);
    xTimeAxis(g, tt, xs, f.y0, ddBot);
    text(g, 14, f.y0 + mainH / 2, 'growth of 1', { 'class': 'axis-title', transform:
      'rotate(-90 14 ' + (f.y0 + mainH / 2) + ')', 'text-anchor': 'middle' });
    svg('line', { x1: f.x0, x2: f.x1, y1: ys(1), y2: ys(1), stroke: '#9aa3b2', 'stroke-dasharray': '2 3' }, g);
    // fold boundaries
    var marks = 0;
    if (WALK && FOLDS.length > 1 && FOLDS.length <= 80) {
      FOLDS.forEach(function (fd, i) {
        if (i === 0) return;
        var x = xs(fd.ms[2]);
        svg('line', { x1: x, x2: x, y1: f.y0, y2: f.y0 + mainH, stroke: '#cbd2dc', 'stroke-dasharray': '4 3' }, g);
      });
    }
    // drawdown band: between the running peak (equity / (1 - dd)) and the equity
    var top = '', bottom = '', inDd = false, band = '';
    function flush() { if (inDd) band += top + bottom + 'Z'; top = ''; bottom = ''; inDd = false; }
    var bottomPts = [];
    for (var i = 0; i < t.length; i++) {
      var ok = isNum(eq[i]) && isNum(dd[i]) && dd[i] > 0 && dd[i] < 1;
      if (ok) {
        var peak = eq[i] / (1 - dd[i]);
        if (!inDd) {
          var j = Math.max(0, i - 1);
          top = 'M' + xs(t[j]).toFixed(1) + ',' + ys(isNum(eq[j]) ? eq[j] : peak).toFixed(1);
          bottomPts = [[xs(t[j]), ys(isNum(eq[j]) ? eq[j] : peak)]];
          inDd = true;
        }
        top += 'L' + xs(t[i]).toFixed(1) + ',' + ys(peak).toFixed(1);
        bottomPts.push([xs(t[i]), ys(eq[i])]);
      } else if (inDd) {
        top += 'L' + xs(t[i]).toFixed(1) + ',' + ys(isNum(eq[i]) ? eq[i] : 1).toFixed(1);
        bottom = bottomPts.reverse().map(function (p) { return 'L' + p[0].toFixed(1) + ',' + p[1].toFixed(1); }).join('');
        flush();
      }
    }
    if (inDd) {
      bottom = bottomPts.reverse().map(function (p) { return 'L' + p[0].toFixed(1) + ',' + p[1].toFixed(1); }).join('');
      flush();
    }
    if (band) { svg('path', { d: band, fill: 'var(--dd-soft)', stroke: 'none' }, g); marks++; }
    svg('path', { d: pathD(xs, ys, t, bh), fill: 'none', stroke: 'var(--bh)', 'stroke-width': 1.5 }, g);
    svg('path', { d: pathD(xs, ys, t, eq), fill: 'none', stroke: 'var(--accent)', 'stroke-width': 2,
      'stroke-linejoin': 'round' }, g);
    marks += 2;
    // underwater panel
    var ddMax = finiteExtent([dd])[1];
    var dt = niceTicks(0, Math.max(ddMax, 0.01), 3);
    var dys = linear(0, dt.hi, ddTop, ddBot);
    text(g, f.x0, ddTop - 6, 'drawdown from peak (max ' + pct(ddMax) + ')', { 'class': 'title' });
    dt.ticks.forEach(function (v) {
      var y = dys(v);
      svg('line', { x1: f.x0, x2: f.x1, y1: y, y2: y, 'class': v === 0 ? 'zero' : 'gridline' }, g);
      text(g, f.x0 - 8, y + 3.5, v === 0 ? '0%' : '-' + (v * 100).toFixed(dt.hi < 0.1 ? 1 : 0) + '%', { 'text-anchor': 'end' });
    });
    var ad = 'M' + xs(t[0]).toFixed(1) + ',' + dys(0).toFixed(1);
    for (var k = 0; k < t.length; k++) {
      if (isNum(dd[k])) ad += 'L' + xs(t[k]).toFixed(1) + ',' + dys(Math.min(dd[k], dt.hi)).toFixed(1);
    }
    ad += 'L' + xs(t[t.length - 1]).toFixed(1) + ',' + dys(0).toFixed(1) + 'Z';
    svg('path', { d: ad, fill: 'rgba(220,38,38,0.28)', stroke: 'var(--dd)', 'stroke-width': 1 }, g);
    marks++;
    svg('rect', { x: f.x0, y: f.y0, width: f.x1 - f.x0, height: ddBot - f.y0, 'class': 'domain' }, g);
    // crosshair + tooltip
    var cross = svg('line', { y1: f.y0, y2: ddBot, 'class': 'cross', visibility: 'hidden' }, g);
    var dotE = svg('circle', { r: 4, fill: 'var(--accent)', stroke: '#fff', 'stroke-width': 1.5, visibility: 'hidden' }, g);
    var dotB = svg('circle', { r: 3.5, fill: 'var(--bh)', stroke: '#fff', 'stroke-width': 1.5, visibility: 'hidden' }, g);
    var ov = svg('rect', { x: f.x0, y: f.y0, width: f.x1 - f.x0, height: ddBot - f.y0, fill: 'transparent' }, g);
    ov.addEventListener('pointermove', function (ev) {
      var r = f.svg.getBoundingClientRect(), px = (ev.clientX - r.left) * f.W / r.width;
      var i = bisect(t, xs.inv(px)), x = xs(t[i]);
      cross.setAttribute('x1', x); cross.setAttribute('x2', x); cross.setAttribute('visibility', 'visible');
      if (isNum(eq[i])) { dotE.setAttribute('cx', x); dotE.setAttribute('cy', ys(eq[i])); dotE.setAttribute('visibility', 'visible'); }
      if (isNum(bh[i])) { dotB.setAttribute('cx', x); dotB.setAttribute('cy', ys(bh[i])); dotB.setAttribute('visibility', 'visible'); }
      var fd = WALK ? foldAt(t[i]) : null;
      tip('<b>' + esc(when(t[i])) + '</b><br>' + (WALK ? 'OOS equity ' : 'Equity ') + fmt(eq[i], 4) + ' <span class="t">(' + spct(eq[i] - 1) + ')</span>' +
        '<br>Buy & hold ' + fmt(bh[i], 4) + ' <span class="t">(' + spct(bh[i] - 1) + ')</span>' +
        '<br>Drawdown ' + pct(dd[i], 2) +
        (fd ? '<br><span class="t">fold ' + fd.index + ': ' + esc(paramText(fd.params, D.params.varying.length ? D.params.varying : D.params.names)) + '</span>' : ''), ev);
    });
    ov.addEventListener('pointerleave', function () {
      untip();
      [cross, dotE, dotB].forEach(function (e) { e.setAttribute('visibility', 'hidden'); });
    });
    done(el, marks);
  }

  // ---- Parameter stability -------------------------------------------------------------------
  function drawParams() {
    var el = document.getElementById('chart-params');
    if (!el) return;
    if (!FOLDS.length) { noteIn(el, 'No folds.'); done(el, 0); return; }
    var names = D.params.varying.length ? D.params.varying : D.params.names.slice(0, 1);
    var panelH = names.length > 3 ? 70 : 92, gapH = 26, top0 = 8, bottomM = 26;
    var H = top0 + names.length * panelH + (names.length - 1) * gapH + bottomM + 14;
    var f = frame(el, H, { l: 86, r: 14, t: top0 + 14, b: bottomM });
    var g = f.svg, t0 = FOLDS[0].ms[2], t1 = FOLDS[FOLDS.length - 1].ms[3];
    var xs = linear(t0, t1, f.x0, f.x1), marks = 0;
    var tt = timeTicks(t0, t1, Math.max(2, Math.floor((f.x1 - f.x0) / 110)));
    names.forEach(function (name, pi) {
      var py0 = f.y0 + pi * (panelH + gapH), py1 = py0 + panelH;
      var values = (D.params.values && D.params.values[name]) || [];
      var numeric = values.length > 0 && values.every(function (v) { return isFinite(+v) && v !== ''; });
      var yOf, ticks = [];
      if (numeric) {
        var nums = values.map(Number), lo = Math.min.apply(null, nums), hi = Math.max.apply(null, nums);
        var nt = niceTicks(lo, hi, 3), ys = linear(nt.lo, nt.hi, py1, py0);
        yOf = function (v) { return ys(+v); };
        ticks = nt.ticks.map(function (v) { return { y: ys(v), label: nt.label(v) }; });
      } else {
        var step = panelH / Math.max(1, values.length);
        yOf = function (v) { var i = values.indexOf(String(v)); return py1 - (i + 0.5) * step; };
        ticks = values.map(function (v) { return { y: yOf(v), label: v }; });
      }
      ticks.forEach(function (tk) {
        svg('line', { x1: f.x0, x2: f.x1, y1: tk.y, y2: tk.y, 'class': 'gridline' }, g);
        text(g, f.x0 - 8, tk.y + 3.5, tk.label, { 'text-anchor': 'end' });
      });
      tt.forEach(function (tk) {
        svg('line', { x1: xs(tk.t), x2: xs(tk.t), y1: py0, y2: py1, 'class': 'gridline' }, g);
      });
      svg('rect', { x: f.x0, y: py0, width: f.x1 - f.x0, height: panelH, 'class': 'domain' }, g);
      text(g, f.x0, py0 - 5, name, { 'class': 'title' });
      var d = '', pen = false, dots = FOLDS.length <= 160;
      FOLDS.forEach(function (fd) {
        var xa = xs(fd.ms[2]), xb = xs(fd.ms[3]);
        if (!fd.params) {
          pen = false;
          svg('rect', { x: xa, y: py1 - 4, width: Math.max(1, xb - xa), height: 4, fill: '#cbd2dc' }, g);
          return;
        }
        var y = yOf(fd.params[name]);
        d += (pen ? 'L' : 'M') + xa.toFixed(1) + ',' + y.toFixed(1) + 'L' + xb.toFixed(1) + ',' + y.toFixed(1);
        pen = true;
        if (dots) {
          svg('circle', { cx: xa, cy: y, r: 2.6, fill: 'var(--accent)' }, g);
          marks++;
        }
      });
      svg('path', { d: d, fill: 'none', stroke: 'var(--accent)', 'stroke-width': 1.8, 'stroke-linejoin': 'round' }, g);
      marks++;
      if (SEL) marks += drawSelMarks(g, name, xs, yOf, py0);
    });
    tt.forEach(function (tk) { text(g, xs(tk.t), f.y1 + 15, tk.label, { 'text-anchor': 'middle' }); });
    var cross = svg('line', { y1: f.y0, y2: f.y1, 'class': 'cross', visibility: 'hidden' }, g);
    var ov = svg('rect', { x: f.x0, y: f.y0 - 14, width: f.x1 - f.x0, height: f.y1 - f.y0 + 14, fill: 'transparent',
      style: HM ? 'cursor:pointer' : '' }, g);
    function at(ev) {
      var r = f.svg.getBoundingClientRect(), px = (ev.clientX - r.left) * f.W / r.width;
      return foldAt(Math.min(t1, Math.max(t0, xs.inv(px))));
    }
    ov.addEventListener('pointermove', function (ev) {
      var fd = at(ev);
      if (!fd) { untip(); return; }
      var x = xs(fd.ms[2]);
      cross.setAttribute('x1', x); cross.setAttribute('x2', x); cross.setAttribute('visibility', 'visible');
      tip('<b>Fold ' + fd.index + '</b> <span class="t">OOS ' + esc(shortTs(fd.oos.first_ts)) + ' → ' +
        esc(shortTs(fd.oos.last_ts)) + '</span><br>' + esc(paramText(fd.params, D.params.names)) +
        '<br>IS ' + esc(OBJ) + ' ' + fmt(fd.is_objective) + ' · OOS ' + fmt(fd.oos_objective) +
        selTip(selOf(FOLDS.indexOf(fd))) + (HM ? '<br><span class="t">click: heatmap of this fold</span>' : ''), ev);
    });
    ov.addEventListener('pointerleave', function () { untip(); cross.setAttribute('visibility', 'hidden'); });
    ov.addEventListener('click', function (ev) {
      var fd = at(ev);
      if (fd) selectFold(FOLDS.indexOf(fd));
    });
    done(el, marks);
  }

  // Robust selection on the parameter chart: where a fold's winner was not published (held
  // by hysteresis or stopped by the DSR gate), an amber bar over the fold and a hollow amber
  // ring at the winner's value beside the published line; where the plateau winner differs
  // from the raw arg-max, a grey cross at the raw one's value.
  function drawSelMarks(g, name, xs, yOf, py0) {
    var marks = 0;
    FOLDS.forEach(function (fd, i) {
      var s = selOf(i);
      if (!s) return;
      var xa = xs(fd.ms[2]), xb = xs(fd.ms[3]), xm = (xa + xb) / 2, w = unpublishedWinner(s);
      if (w && w.params) {
        svg('rect', { x: xa, y: py0 + 1, width: Math.max(1, xb - xa), height: 3, fill: 'var(--held)', 'data-sel': 'held' }, g);
        svg('circle', { cx: xm, cy: yOf(w.params[name]), r: 3.6, fill: '#fff', stroke: 'var(--held)',
          'stroke-width': 1.7, 'data-sel': 'winner' }, g);
        marks += 2;
      }
      if (s.raw && s.raw.params && s.winner && s.raw.id !== s.winner.id) {
        var y = yOf(s.raw.params[name]), r = 3;
        svg('path', { d: 'M' + (xm - r) + ',' + (y - r) + 'L' + (xm + r) + ',' + (y + r) + 'M' + (xm - r) + ',' +
          (y + r) + 'L' + (xm + r) + ',' + (y - r), stroke: 'var(--raw)', 'stroke-width': 1.5, 'data-sel': 'raw' }, g);
        marks++;
      }
    });
    return marks;
  }
  function selTip(s) {
    if (!s) return '';
    var w = unpublishedWinner(s);
    return '<br>' + badge(s) + ' <span class="t">' + esc(decision(s).text) + '</span>' +
      (w ? '<br><span class="t">not published: ' + esc(paramText(w.params, D.params.names)) + '</span>' : '') +
      (s.raw && s.winner && s.raw.id !== s.winner.id ? '<br><span class="t">raw arg-max: ' +
        esc(paramText(s.raw.params, D.params.names)) + '</span>' : '');
  }

  // ---- In-sample vs out-of-sample objective per fold ----------------------------------------
  function drawIsOos() {
    var el = document.getElementById('chart-isoos');
    if (!el) return;
    if (!FOLDS.length) { noteIn(el, 'No folds.'); done(el, 0); return; }
    var isv = FOLDS.map(function (f) { return f.is_objective; });
    var oov = FOLDS.map(function (f) { return f.oos_objective; });
    var ext = finiteExtent([isv, oov, [0]]);
    var f = frame(el, 262, { l: 56, r: 14, t: 12, b: 36 }), g = f.svg;
    var nt = niceTicks(ext[0], ext[1], 5), ys = linear(nt.lo, nt.hi, f.y1, f.y0);
    yGrid(f, g, nt.ticks, ys, nt.label, f.x0, f.x1);
    var n = FOLDS.length, band = (f.x1 - f.x0) / n, marks = 0;
    var every = Math.max(1, Math.ceil(n / Math.floor((f.x1 - f.x0) / 34)));
    FOLDS.forEach(function (fd, i) {
      var x = f.x0 + i * band;
      if (i % every === 0) text(g, x + band / 2, f.y1 + 14, String(fd.index), { 'text-anchor': 'middle' });
    });
    text(g, (f.x0 + f.x1) / 2, f.y1 + 30, 'fold', { 'class': 'axis-title', 'text-anchor': 'middle' });
    text(g, 12, (f.y0 + f.y1) / 2, OBJ, { 'class': 'axis-title', 'text-anchor': 'middle',
      transform: 'rotate(-90 12 ' + (f.y0 + f.y1) / 2 + ')' });
    if (band >= 4) {
      var bw = Math.min(22, band * 0.38), y0 = ys(0);
      FOLDS.forEach(function (fd, i) {
        var cx = f.x0 + (i + 0.5) * band;
        [[isv[i], cx - bw - 1, 'var(--accent)'], [oov[i], cx + 1, 'var(--oos)']].forEach(function (b) {
          if (!isNum(b[0])) return;
          var y = ys(Math.max(nt.lo, Math.min(nt.hi, b[0])));
          svg('rect', { x: b[1], y: Math.min(y, y0), width: bw, height: Math.max(1, Math.abs(y - y0)), fill: b[2], rx: 1.5 }, g);
          marks++;
        });
      });
    } else {
      var xsn = function (i) { return f.x0 + (i + 0.5) * band; };
      var idx = FOLDS.map(function (_, i) { return i; });
      svg('path', { d: pathD(xsn, ys, idx, oov), fill: 'none', stroke: 'var(--oos)', 'stroke-width': 1.2, opacity: 0.85 }, g);
      svg('path', { d: pathD(xsn, ys, idx, isv), fill: 'none', stroke: 'var(--accent)', 'stroke-width': 1.4 }, g);
      marks += 2;
    }
    svg('line', { x1: f.x0, x2: f.x1, y1: ys(0), y2: ys(0), stroke: '#9aa3b2' }, g);
    bandHover(f, g, n, band, HM, function (i, ev) {
      var fd = FOLDS[i];
      tip('<b>Fold ' + fd.index + '</b><br>IS ' + esc(OBJ) + ' ' + fmt(fd.is_objective) + '<br>OOS ' + esc(OBJ) + ' ' +
        fmt(fd.oos_objective) + '<br>WFE ' + fmt(fd.wfe, 2) + '<br><span class="t">' + esc(paramText(fd.params, D.params.names)) + '</span>', ev);
    }, selectFold);
    done(el, marks);
  }

  // ---- Heatmap ---------------------------------------------------------------------------------
  var VIRIDIS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
    [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];
  function viridis(u) {
    u = Math.max(0, Math.min(1, isNum(u) ? u : 0));
    var x = u * (VIRIDIS.length - 1), i = Math.min(VIRIDIS.length - 2, Math.floor(x)), k = x - i;
    var a = VIRIDIS[i], b = VIRIDIS[i + 1];
    return [0, 1, 2].map(function (j) { return Math.round(a[j] + (b[j] - a[j]) * k); });
  }
  function rgb(c) { return 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')'; }

  // The heatmap shown: the fold's own for exactly two axes; with more, the slice of the
  // fold's grid on the chosen pair, every other axis held at the fold winner's value (at its
  // first value where the fold has no winner). Cells as the two-axis heatmap: iy * nx + ix.
  function heatmapView() {
    var fd = HM.folds[state.hmIndex];
    if (!PAIRS.length) return { x: HM.x, y: HM.y, fd: fd, held: [], failTotal: fd.fail.length };
    var A = HM.axes, p = PAIRS[state.hmPair], xa = p[0], ya = p[1], stride = [], step = 1;
    A.forEach(function (a, k) { stride[k] = step; step *= a.values.length; });
    var at = fd.winner_at || A.map(function () { return 0; }), base = 0, held = [];
    A.forEach(function (a, k) {
      if (k === xa || k === ya) return;
      base += at[k] * stride[k];
      held.push(a.name + ' ' + a.values[at[k]]);
    });
    var nx = A[xa].values.length, ny = A[ya].values.length, failed = {};
    fd.fail.forEach(function (id) { failed[id] = true; });
    var z = [], fail = [], winner = null;
    for (var iy = 0; iy < ny; iy++) {
      for (var ix = 0; ix < nx; ix++) {
        var id = base + ix * stride[xa] + iy * stride[ya], c = iy * nx + ix;
        z.push(fd.z[id]);
        if (failed[id]) fail.push(c);
        if (id === fd.winner) winner = c;
      }
    }
    return { x: A[xa], y: A[ya], held: held, failTotal: fd.fail.length, heldAtWinner: fd.winner_at !== null,
      fd: { z: z, fail: fail, winner: winner, winner_id: fd.winner_id } };
  }

  function drawHeatmap() {
    var el = document.getElementById('chart-heatmap');
    if (!el) return;
    if (!HM) {
      noteIn(el, L.heatmap_note || L.note || 'No heatmap for this run.');
      return;
    }
    var V = heatmapView(), XA = V.x, YA = V.y;
    var fd = V.fd, nx = XA.values.length, ny = YA.values.length;
    var title = document.getElementById('hm-title');
    if (title) title.textContent = 'Heatmap: ' + YA.name + ' × ' + XA.name;
    el.setAttribute('data-x', XA.name);
    el.setAttribute('data-y', YA.name);
    el.setAttribute('data-held', V.held.join(', '));
    var heldEl = document.getElementById('hm-held');
    if (heldEl) {
      heldEl.textContent = V.held.length ? (V.heldAtWinner ? 'other axes held at the winner\'s values: ' :
        'no winner: other axes held at their first values: ') + V.held.join(', ') : '';
    }
    var fail = {};
    fd.fail.forEach(function (c) { fail[c] = true; });
    var lo = Infinity, hi = -Infinity;
    fd.z.forEach(function (v, c) {
      if (isNum(v) && !fail[c] && !(OBJ === 'profit_factor' && v >= 1e9)) {
        if (v < lo) lo = v; if (v > hi) hi = v;
      }
    });
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    var W = Math.max(320, Math.floor(el.clientWidth || 600));
    var longest = YA.values.reduce(function (a, v) { return Math.max(a, String(v).length); }, 1);
    var m = { l: Math.max(56, Math.min(150, 34 + 6.4 * longest)), r: 74, t: 10, b: 44 };
    var cw = Math.min(46, (W - m.l - m.r) / nx), ch = Math.max(5, Math.min(Math.max(30, 150 / ny), cw));
    if (ny * ch > 460) ch = 460 / ny;
    var plotW = cw * nx, plotH = ch * ny;
    var f = frame(el, Math.ceil(plotH + m.t + m.b), m), g = f.svg;
    var defs = svg('defs', null, g);
    var pat = svg('pattern', { id: 'hatch', width: 5, height: 5, patternUnits: 'userSpaceOnUse',
      patternTransform: 'rotate(45)' }, defs);
    svg('rect', { width: 5, height: 5, fill: '#eef0f3' }, pat);
    svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: '#b8bec9', 'stroke-width': 2 }, pat);
    var x0 = f.x0, y0 = f.y0;
    svg('rect', { x: x0, y: y0, width: plotW, height: plotH, fill: '#f3f4f6' }, g);
    function colorOf(v) { return viridis(hi > lo ? (Math.min(v, hi) - lo) / (hi - lo) : 0.5); }
    var marks = 0, cells = nx * ny;
    if (cells <= 40000) {
      for (var c = 0; c < cells; c++) {
        var v = fd.z[c];
        if (v === null) continue;
        var ix = c % nx, iy = (c - ix) / nx;
        svg('rect', { x: (x0 + ix * cw).toFixed(2), y: (y0 + (ny - 1 - iy) * ch).toFixed(2),
          width: (cw + 0.3).toFixed(2), height: (ch + 0.3).toFixed(2),
          fill: fail[c] ? 'url(#hatch)' : rgb(colorOf(v)) }, g);
        marks++;
      }
    } else {
      // Large grids: one pixel per cell on a canvas, shown as an <image> (thousands of
      // <rect>s would make the page slow).
      var cv = document.createElement('canvas');
      cv.width = nx; cv.height = ny;
      var ctx = cv.getContext('2d'), img = ctx.createImageData(nx, ny);
      for (var q = 0; q < cells; q++) {
        var zv = fd.z[q], qx = q % nx, qy = ny - 1 - (q - qx) / nx, o = (qy * nx + qx) * 4;
        if (zv === null) continue;
        var col = fail[q] ? [200, 204, 212] : colorOf(zv);
        img.data[o] = col[0]; img.data[o + 1] = col[1]; img.data[o + 2] = col[2]; img.data[o + 3] = 255;
        marks++;
      }
      ctx.putImageData(img, 0, 0);
      svg('image', { x: x0, y: y0, width: plotW, height: plotH, preserveAspectRatio: 'none',
        href: cv.toDataURL('image/png'), style: 'image-rendering:pixelated' }, g);
    }
    svg('rect', { x: x0, y: y0, width: plotW, height: plotH, 'class': 'domain' }, g);
    // axes: thin the labels so they do not overlap
    var ex = Math.max(1, Math.ceil(34 / cw)), ey = Math.max(1, Math.ceil(14 / ch));
    XA.values.forEach(function (v, i) {
      if (i % ex) return;
      text(g, x0 + (i + 0.5) * cw, y0 + plotH + 14, v, { 'text-anchor': 'middle' });
    });
    YA.values.forEach(function (v, i) {
      if (i % ey) return;
      text(g, x0 - 6, y0 + (ny - 1 - i + 0.5) * ch + 3.5, v, { 'text-anchor': 'end' });
    });
    text(g, x0 + plotW / 2, y0 + plotH + 34, XA.name, { 'class': 'axis-title', 'text-anchor': 'middle' });
    text(g, 12, y0 + plotH / 2, YA.name, { 'class': 'axis-title', 'text-anchor': 'middle',
      transform: 'rotate(-90 12 ' + (y0 + plotH / 2) + ')' });
    // winner
    if (fd.winner !== null) {
      var wx = fd.winner % nx, wy = (fd.winner - wx) / nx;
      var rx = x0 + wx * cw, ry = y0 + (ny - 1 - wy) * ch;
      svg('rect', { x: rx - 1, y: ry - 1, width: cw + 2, height: ch + 2, fill: 'none', stroke: '#fff', 'stroke-width': 3 }, g);
      svg('rect', { x: rx - 1, y: ry - 1, width: cw + 2, height: ch + 2, fill: 'none', stroke: '#111', 'stroke-width': 1.6 }, g);
      if (Math.min(cw, ch) >= 8) {
        var r = Math.min(5, Math.min(cw, ch) / 4);
        svg('circle', { cx: rx + cw / 2, cy: ry + ch / 2, r: r, fill: '#fff', stroke: '#111', 'stroke-width': 1.2 }, g);
      } else {
        // Cells too small to see: a ring around the winner's cell.
        svg('circle', { cx: rx + cw / 2, cy: ry + ch / 2, r: 8, fill: 'none', stroke: '#fff', 'stroke-width': 3.5 }, g);
        svg('circle', { cx: rx + cw / 2, cy: ry + ch / 2, r: 8, fill: 'none', stroke: '#e11d48', 'stroke-width': 1.8 }, g);
      }
      marks++;
    }
    // colour bar
    var gid = 'vgrad', grad = svg('linearGradient', { id: gid, x1: 0, y1: 1, x2: 0, y2: 0 }, defs);
    VIRIDIS.forEach(function (cc, i) {
      svg('stop', { offset: (i / (VIRIDIS.length - 1) * 100) + '%', 'stop-color': rgb(cc) }, grad);
    });
    var bx = x0 + plotW + 16, bh = Math.max(60, Math.min(plotH, 220));
    svg('rect', { x: bx, y: y0, width: 12, height: bh, fill: 'url(#' + gid + ')', stroke: '#d1d5db' }, g);
    [[hi, y0 + 4], [(lo + hi) / 2, y0 + bh / 2 + 3.5], [lo, y0 + bh]].forEach(function (p) {
      text(g, bx + 16, p[1], fmt(p[0], 2));
    });
    var info = document.getElementById('hm-info');
    if (info) {
      info.textContent = (fd.winner_id !== null ? 'winner id ' + fd.winner_id + ' · ' : 'no ranked combo · ') +
        grp(V.failTotal) + ' combos fail the constraints';
    }
    var hov = svg('rect', { width: cw, height: ch, fill: 'none', stroke: '#e11d48', 'stroke-width': 1.5, visibility: 'hidden' }, g);
    var ov = svg('rect', { x: x0, y: y0, width: plotW, height: plotH, fill: 'transparent' }, g);
    ov.addEventListener('pointermove', function (ev) {
      var rr = f.svg.getBoundingClientRect(), px = (ev.clientX - rr.left) * f.W / rr.width,
        py = (ev.clientY - rr.top) * f.H / rr.height;
      var ix = Math.floor((px - x0) / cw), iyr = Math.floor((py - y0) / ch);
      if (ix < 0 || ix >= nx || iyr < 0 || iyr >= ny) { untip(); return; }
      var iy = ny - 1 - iyr, c = iy * nx + ix, v = fd.z[c];
      hov.setAttribute('x', x0 + ix * cw); hov.setAttribute('y', y0 + iyr * ch); hov.setAttribute('visibility', 'visible');
      var status = v === null ? 'invalid combo (SPEC §5)' : fail[c] ? 'fails the constraints: not ranked' :
        c === fd.winner ? '<b>winner</b>' : 'ranked';
      tip('<b>' + esc(XA.name) + ' ' + esc(XA.values[ix]) + ', ' + esc(YA.name) + ' ' + esc(YA.values[iy]) +
        (V.held.length ? ', ' + esc(V.held.join(', ')) : '') + '</b><br>' + esc(OBJ) + ' ' + (v === null ? '–' : fmt(v, 4)) + '<br><span class="t">' + status + '</span>', ev);
    });
    ov.addEventListener('pointerleave', function () { untip(); hov.setAttribute('visibility', 'hidden'); });
    done(el, marks);
  }

  // ---- Histogram ---------------------------------------------------------------------------------
  function drawHistogram() {
    var el = document.getElementById('chart-histogram');
    if (!el) return;
    var Hs = L.histogram;
    if (!Hs) { noteIn(el, L.note || 'No histogram for this run.'); return; }
    if (!Hs.counts.length) { noteIn(el, 'No ranked combo with a finite ' + OBJ + ' to draw.'); done(el, 0); return; }
    var nb = Hs.counts.length, lo = Hs.lo, hi = Hs.hi;
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
    var bw = (hi - lo) / nb;
    var f = frame(el, 300, { l: 54, r: 16, t: 22, b: 40 }), g = f.svg;
    var xt = niceTicks(lo, hi, Math.max(3, Math.floor((f.x1 - f.x0) / 80)));
    var xs = linear(xt.lo, xt.hi, f.x0, f.x1);
    var cmax = Math.max.apply(null, Hs.counts);
    var yt = niceTicks(0, Math.max(1, cmax), 4), ys = linear(0, yt.hi, f.y1, f.y0);
    yGrid(f, g, yt.ticks.filter(function (v) { return v === Math.round(v); }), ys,
      function (v) { return grp(v); }, f.x0, f.x1);
    xt.ticks.forEach(function (v) {
      if (v < xt.lo || v > xt.hi) return;
      svg('line', { x1: xs(v), x2: xs(v), y1: f.y1, y2: f.y1 + 4, stroke: '#9aa3b2' }, g);
      text(g, xs(v), f.y1 + 16, xt.label(v), { 'text-anchor': 'middle' });
    });
    text(g, (f.x0 + f.x1) / 2, f.y1 + 33, OBJ + ' (in sample)', { 'class': 'axis-title', 'text-anchor': 'middle' });
    text(g, 12, (f.y0 + f.y1) / 2, 'combos', { 'class': 'axis-title', 'text-anchor': 'middle',
      transform: 'rotate(-90 12 ' + (f.y0 + f.y1) / 2 + ')' });
    var marks = 0, bars = [];
    Hs.counts.forEach(function (cnt, i) {
      var a = lo + i * bw, b = a + bw, x = xs(a), w = Math.max(1, xs(b) - xs(a) - 1);
      var win = Hs.winner_bin === i;
      if (cnt > 0) {
        var bh = Math.max(win ? 3 : 1, f.y1 - ys(cnt));
        svg('rect', { x: x + 0.5, y: f.y1 - bh, width: w, height: bh,
          fill: win ? 'var(--win)' : '#93b4f5', stroke: win ? '#b45309' : 'none' }, g);
        marks++;
      }
      bars.push([a, b, cnt]);
    });
    svg('line', { x1: f.x0, x2: f.x1, y1: f.y1, y2: f.y1, stroke: '#9aa3b2' }, g);
    if (isNum(Hs.winner_value) && Hs.winner_value >= lo && Hs.winner_value <= hi) {
      var wx = xs(Hs.winner_value);
      svg('line', { x1: wx, x2: wx, y1: f.y0 - 6, y2: f.y1, stroke: '#b45309', 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }, g);
      text(g, wx, f.y0 - 10, 'winner ' + fmt(Hs.winner_value, 3), { 'text-anchor': wx > (f.x0 + f.x1) / 2 ? 'end' : 'start',
        'class': 'title', dx: wx > (f.x0 + f.x1) / 2 ? -4 : 4 });
      marks++;
    }
    var extra = [];
    if (Hs.no_loss) extra.push(grp(Hs.no_loss) + ' combos with no losing trade (profit_factor 1e9) not binned');
    if (Hs.nonfinite) extra.push(grp(Hs.nonfinite) + ' combos with a non-finite ' + OBJ + ' not binned');
    if (extra.length) {
      var note = document.createElement('div');
      note.className = 'note';
      note.textContent = extra.join('; ') + '.';
      el.appendChild(note);
    }
    var hl = svg('rect', { y: f.y0, height: f.y1 - f.y0, fill: 'rgba(37,99,235,0.08)', visibility: 'hidden' }, g);
    var ov = svg('rect', { x: f.x0, y: f.y0, width: f.x1 - f.x0, height: f.y1 - f.y0, fill: 'transparent' }, g);
    ov.addEventListener('pointermove', function (ev) {
      var r = f.svg.getBoundingClientRect(), px = (ev.clientX - r.left) * f.W / r.width;
      var v = xs.inv(px), i = Math.floor((v - lo) / bw);
      if (i < 0 || i >= nb) { untip(); hl.setAttribute('visibility', 'hidden'); return; }
      var b = bars[i];
      hl.setAttribute('x', xs(b[0])); hl.setAttribute('width', Math.max(1, xs(b[1]) - xs(b[0])));
      hl.setAttribute('visibility', 'visible');
      tip('<b>' + grp(b[2]) + ' combo' + (b[2] === 1 ? '' : 's') + '</b><br>' + esc(OBJ) + ' ' + fmt(b[0], 3) +
        ' … ' + fmt(b[1], 3) + (Hs.winner_bin === i ? '<br><span class="t">holds the winner</span>' : '') +
        '<br><span class="t">' + grp(Hs.ranked) + ' ranked combos in all</span>', ev);
    });
    ov.addEventListener('pointerleave', function () { untip(); hl.setAttribute('visibility', 'hidden'); });
    done(el, marks);
  }

  function drawAll() {
    drawEquity();
    if (WALK) { drawParams(); drawIsOos(); }
    if (SEL) { drawSelection(); drawLogit(); }
    drawHeatmap();
    drawHistogram();
  }

  buildLayout();
  drawAll();
  var lastW = window.innerWidth, timer = 0;
  window.addEventListener('resize', function () {
    if (window.innerWidth === lastW) return;
    lastW = window.innerWidth;
    clearTimeout(timer);
    timer = setTimeout(drawAll, 120);
  });
  document.body.setAttribute('data-report-ready', '1');
})();
