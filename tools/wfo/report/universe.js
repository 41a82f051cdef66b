// The universe page of `wfo walk --universe --report DIR` (universe.html inlines this file at
// build time, embed_report.cmake): reads the document from <script id="report-data">
// (universe.json) and draws the per-symbol table (sortable by a click on a column header,
// each symbol linking to its walk report), the equal-weight portfolio's equity against
// equal-weight buy and hold, histograms of the symbols' OOS sharpe and WFE, and the last
// fold's winning parameters across symbols. Every text from the data goes in through
// textContent or an attribute, never as HTML: symbols are user input.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var app = document.getElementById('app');
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svgEl(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function fmt(v, digits) {
    return typeof v === 'number' && isFinite(v) ? v.toFixed(digits) : '-';
  }
  function pct(v) {
    return typeof v === 'number' && isFinite(v) ? (v * 100).toFixed(2) + '%' : '-';
  }
  function day(ts) {
    if (typeof ts !== 'string') return '-';
    var i = ts.indexOf('T00:00:00');
    return i < 0 ? ts : ts.slice(0, i);
  }
  function card(title, sub) {
    var c = el('section', 'card');
    c.appendChild(el('h2', null, title));
    if (sub) c.appendChild(el('p', 'sub', sub));
    return c;
  }
  function winnerText(w) {
    if (!w) return '(flat)';
    var parts = [];
    Object.keys(w.params).forEach(function (k) { parts.push(k + '=' + w.params[k]); });
    return parts.join(' ');
  }

  document.getElementById('subtitle').textContent =
    D.source + ' - ' + D.symbols.length + ' walked, ' + D.skipped.length + ' skipped' +
    (D.generated ? ' - generated ' + D.generated : '');

  // ---- Headline figures: the portfolio beside buy and hold.
  var P = D.portfolio;
  if (P) {
    var head = card('Equal-weight portfolio',
      P.symbols + ' symbols, ' + P.bars + ' bars [' + day(P.first_ts) + ' .. ' +
      day(P.last_ts) + '], ' + fmt(P.bars_per_year, 2) + ' bars per year (' +
      P.bars_per_year_source + '); at each bar the mean OOS return of the symbols with a bar then');
    var kpis = el('div', 'kpis');
    [['CAGR', 'cagr', pct], ['Sharpe', 'sharpe', function (v) { return fmt(v, 3); }],
     ['Max drawdown', 'max_drawdown', pct], ['Total return', 'total_return', pct]]
      .forEach(function (m) {
        [['strategy', 'strategy'], ['buy & hold', 'buy_and_hold']].forEach(function (side) {
          var k = el('div', 'kpi');
          k.appendChild(el('div', 'k', m[0] + ' (' + side[0] + ')'));
          k.appendChild(el('div', 'v', m[2](P[side[1]][m[1]])));
          kpis.appendChild(k);
        });
      });
    head.appendChild(kpis);
    app.appendChild(head);
  }

  // ---- The portfolio's equity against buy and hold (both start at 1).
  function lineChart(series, labels) {
    var w = 1000, h = 300, l = 56, r = 12, t = 12, b = 28;
    var n = series[0].values.length;
    var lo = Infinity, hi = -Infinity;
    series.forEach(function (s) {
      s.values.forEach(function (v) { if (v < lo) lo = v; if (v > hi) hi = v; });
    });
    if (!(hi > lo)) { hi = lo + 1; }
    // A log scale where the curves span more than 10x (buy and hold over decades).
    var log = lo > 0 && hi / lo > 10;
    var f = log ? Math.log : function (v) { return v; };
    var flo = f(lo), fhi = f(hi);
    var svg = svgEl('svg', { viewBox: '0 0 ' + w + ' ' + h, role: 'img' });
    function x(i) { return l + (n > 1 ? i / (n - 1) : 0) * (w - l - r); }
    function y(v) { return t + (fhi - f(v)) / (fhi - flo) * (h - t - b); }
    for (var g = 0; g <= 4; g++) {
      var v = log ? Math.exp(flo + (fhi - flo) * g / 4) : lo + (hi - lo) * g / 4;
      svg.appendChild(svgEl('line', { 'class': 'gridline', x1: l, x2: w - r, y1: y(v), y2: y(v) }));
      svg.appendChild(svgEl('text', { x: l - 6, y: y(v) + 4, 'text-anchor': 'end' }, v.toFixed(2)));
    }
    if (log) svg.appendChild(svgEl('text', { x: l + 4, y: t + 10 }, 'log scale'));
    svg.appendChild(svgEl('text', { x: l, y: h - 8 }, labels[0]));
    svg.appendChild(svgEl('text', { x: w - r, y: h - 8, 'text-anchor': 'end' }, labels[n - 1]));
    series.forEach(function (s) {
      var d = '';
      s.values.forEach(function (v, i) { d += (i ? 'L' : 'M') + x(i).toFixed(1) + ',' + y(v).toFixed(1); });
      svg.appendChild(svgEl('path', { d: d, fill: 'none', stroke: s.color, 'stroke-width': 1.6 }));
    });
    return svg;
  }
  function legend(items) {
    var lg = el('div', 'legend');
    items.forEach(function (it) {
      var s = el('span');
      var sw = el('span', 'sw');
      sw.style.background = it.color;
      s.appendChild(sw);
      s.appendChild(document.createTextNode(' ' + it.name));
      lg.appendChild(s);
    });
    return lg;
  }
  var E = D.equity;
  if (E && E.strategy.length) {
    var ec = card('Portfolio equity', 'The stitched OOS returns of every symbol, equal weight, ' +
      'rebalanced every bar, no cost; buy and hold from each symbol\'s first OOS bar');
    var series = [{ name: 'strategy', color: 'var(--accent)', values: E.strategy },
                  { name: 'buy and hold', color: 'var(--bh)', values: E.buy_and_hold }];
    ec.appendChild(legend(series));
    var box = el('div', 'chart');
    box.id = 'equity-chart';
    box.appendChild(lineChart(series, E.dates.map(day)));
    ec.appendChild(box);
    app.appendChild(ec);
  }

  // ---- Distributions across symbols: OOS sharpe and WFE.
  function histogram(values, title) {
    var c = card(title);
    var finite = values.filter(function (v) { return typeof v === 'number' && isFinite(v); });
    var missing = values.length - finite.length;
    if (!finite.length) {
      c.appendChild(el('p', 'sub', 'no symbol has a value'));
      return c;
    }
    var lo = Math.min.apply(null, finite), hi = Math.max.apply(null, finite);
    var bins = Math.max(1, Math.min(20, Math.ceil(Math.sqrt(finite.length))));
    if (!(hi > lo)) { hi = lo + 1; bins = 1; }
    var counts = [];
    for (var i = 0; i < bins; i++) counts.push(0);
    finite.forEach(function (v) {
      counts[Math.min(bins - 1, Math.floor((v - lo) / (hi - lo) * bins))]++;
    });
    var top = Math.max.apply(null, counts);
    var w = 480, h = 220, l = 34, r = 8, t = 10, b = 30;
    var svg = svgEl('svg', { viewBox: '0 0 ' + w + ' ' + h, role: 'img' });
    var bw = (w - l - r) / bins;
    counts.forEach(function (n, i) {
      var bh = n / top * (h - t - b);
      var rect = svgEl('rect', { x: l + i * bw + 1, y: h - b - bh, width: Math.max(1, bw - 2),
                                 height: bh, fill: 'var(--accent)' });
      rect.appendChild(svgEl('title', {}, (lo + (hi - lo) * i / bins).toFixed(3) + ' .. ' +
        (lo + (hi - lo) * (i + 1) / bins).toFixed(3) + ': ' + n));
      svg.appendChild(rect);
    });
    svg.appendChild(svgEl('line', { 'class': 'domain', x1: l, x2: w - r, y1: h - b, y2: h - b }));
    svg.appendChild(svgEl('text', { x: l - 4, y: t + 8, 'text-anchor': 'end' }, top));
    svg.appendChild(svgEl('text', { x: l, y: h - 10 }, lo.toFixed(3)));
    svg.appendChild(svgEl('text', { x: w - r, y: h - 10, 'text-anchor': 'end' }, hi.toFixed(3)));
    var box = el('div', 'chart');
    box.appendChild(svg);
    c.appendChild(el('p', 'sub', finite.length + ' symbols' +
      (missing ? ', ' + missing + ' without a value (not shown)' : '')));
    c.appendChild(box);
    return c;
  }
  var row = el('div', 'row');
  row.appendChild(histogram(D.symbols.map(function (s) { return s.summary.oos_sharpe; }),
                            'OOS sharpe across symbols'));
  row.appendChild(histogram(D.symbols.map(function (s) { return s.summary.wfe; }),
                            'WFE across symbols'));
  app.appendChild(row);

  // ---- The symbols table, sortable.
  var columns = [
    { key: 'symbol', name: 'symbol', text: true, get: function (s) { return s.symbol; } },
    { key: 'folds', name: 'folds', get: function (s) { return s.summary.folds; } },
    { key: 'oos_bars', name: 'OOS bars', get: function (s) { return s.summary.oos_bars; } },
    { key: 'oos', name: 'OOS dates', text: true,
      get: function (s) { return day(s.summary.oos_first_ts) + ' .. ' + day(s.summary.oos_last_ts); } },
    { key: 'oos_cagr', name: 'OOS cagr', digits: 4, sign: true,
      get: function (s) { return s.summary.oos_cagr; } },
    { key: 'oos_sharpe', name: 'OOS sharpe', digits: 3, sign: true,
      get: function (s) { return s.summary.oos_sharpe; } },
    { key: 'oos_max_drawdown', name: 'OOS max dd', digits: 4,
      get: function (s) { return s.summary.oos_max_drawdown; } },
    { key: 'oos_trades', name: 'OOS trades', get: function (s) { return s.summary.oos_trades; } },
    { key: 'wfe', name: 'WFE', digits: 3, get: function (s) { return s.summary.wfe; } },
    { key: 'pbo', name: 'PBO', digits: 3, get: function (s) { return s.summary.pbo; } },
    { key: 'winner', name: 'last winner', text: true,
      get: function (s) { return winnerText(s.summary.last_winner); } }
  ];
  var tc = card('Symbols', 'Click a column header to sort; click a symbol for its walk report');
  var scroll = el('div', 'scroll');
  var table = el('table', 'data');
  table.id = 'symbols';
  var thead = el('thead'), tbody = el('tbody'), htr = el('tr');
  var sortKey = null, sortDir = 1;
  columns.forEach(function (col) {
    var th = el('th', col.text ? 'l' : null, col.name);
    th.dataset.key = col.key;
    th.style.cursor = 'pointer';
    th.addEventListener('click', function () {
      sortDir = sortKey === col.key ? -sortDir : (col.text ? 1 : -1);
      sortKey = col.key;
      fill(col);
    });
    htr.appendChild(th);
  });
  thead.appendChild(htr);
  table.appendChild(thead);
  table.appendChild(tbody);
  function compare(col) {
    return function (a, b) {
      var x = col.get(a), y = col.get(b);
      var xn = x === null || x === undefined, yn = y === null || y === undefined;
      if (xn || yn) return xn === yn ? 0 : (xn ? 1 : -1);  // no value: last either way
      if (col.text) return sortDir * String(x).localeCompare(String(y));
      return sortDir * (x - y);
    };
  }
  function fill(col) {
    var rows = D.symbols.slice();
    if (col) rows.sort(compare(col));
    tbody.textContent = '';
    Array.prototype.forEach.call(htr.children, function (th) {
      th.textContent = columns.filter(function (c) { return c.key === th.dataset.key; })[0].name +
        (th.dataset.key === sortKey ? (sortDir > 0 ? ' \u25b2' : ' \u25bc') : '');
    });
    rows.forEach(function (s) {
      var tr = el('tr');
      columns.forEach(function (c) {
        var v = c.get(s);
        var td;
        if (c.key === 'symbol') {
          td = el('td', 'l');
          var a = el('a', null, s.symbol);
          a.setAttribute('href', s.page);
          td.appendChild(a);
        } else if (c.text) {
          td = el('td', 'l', v);
        } else {
          var cls = v === null || v === undefined ? 'na' : (c.sign ? (v > 0 ? 'pos' : v < 0 ? 'neg' : null) : null);
          td = el('td', cls, c.digits ? fmt(v, c.digits) : (v === null ? '-' : v));
        }
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }
  fill(null);
  scroll.appendChild(table);
  tc.appendChild(scroll);
  if (D.skipped.length) {
    tc.appendChild(el('h3', null, 'Skipped files'));
    var ul = el('ul');
    D.skipped.forEach(function (s) { ul.appendChild(el('li', null, s.symbol + ': ' + s.error)); });
    tc.appendChild(ul);
  }
  app.appendChild(tc);

  // ---- The last fold's winners across symbols: per parameter set, and per parameter value.
  var wc = card('Winning parameters across symbols',
    'The last fold\'s published winner of each symbol (the combo it trades now)');
  var sets = {}, perParam = {};
  D.symbols.forEach(function (s) {
    var w = s.summary.last_winner;
    var key = winnerText(w);
    sets[key] = (sets[key] || 0) + 1;
    if (!w) return;
    Object.keys(w.params).forEach(function (k) {
      var byValue = perParam[k] || (perParam[k] = {});
      var v = String(w.params[k]);
      byValue[v] = (byValue[v] || 0) + 1;
    });
  });
  function countTable(counts, label, id) {
    var t = el('table', 'data');
    if (id) t.id = id;
    var hr = el('tr');
    hr.appendChild(el('th', 'l', label));
    hr.appendChild(el('th', null, 'symbols'));
    var th = el('thead');
    th.appendChild(hr);
    t.appendChild(th);
    var tb = el('tbody');
    Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || a.localeCompare(b); })
      .forEach(function (k) {
        var tr = el('tr');
        tr.appendChild(el('td', 'l', k));
        tr.appendChild(el('td', null, counts[k]));
        tb.appendChild(tr);
      });
    t.appendChild(tb);
    return t;
  }
  wc.appendChild(el('h3', null, 'Per parameter set'));
  var ws = el('div', 'scroll');
  ws.appendChild(countTable(sets, 'winner', 'winners'));
  wc.appendChild(ws);
  Object.keys(perParam).forEach(function (k) {
    wc.appendChild(el('h3', null, 'Per value of ' + k));
    wc.appendChild(countTable(perParam[k], k, null));
  });
  app.appendChild(wc);
})();
