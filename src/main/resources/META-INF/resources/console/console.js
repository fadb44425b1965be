// The Exactly console: a static page that reads the documented HTTP API with the operator's API
// key. The key is kept in sessionStorage (this tab only) and sent in the Authorization header,
// never in a URL. Every action is an API call; the only one that writes is a redrive.
(function () {
  'use strict';

  var KEY = 'exactly.console.key';
  var view = document.getElementById('view');

  // --- DOM helpers: text is always set as text, never parsed as HTML ---------------------------
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) { return; }
        if (k === 'text') { el.textContent = v; }
        else if (k.indexOf('on') === 0) { el.addEventListener(k.substring(2), v); }
        else { el.setAttribute(k, v === true ? '' : v); }
      });
    }
    for (var i = 2; i < arguments.length; i++) { append(el, arguments[i]); }
    return el;
  }
  function append(el, c) {
    if (c === null || c === undefined || c === false) { return; }
    if (Array.isArray(c)) { c.forEach(function (x) { append(el, x); }); return; }
    el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }
  function num(n) { return n === null || n === undefined ? '–' : Number(n).toLocaleString('en'); }
  function age(s) {
    if (s === null || s === undefined) { return '–'; }
    s = Math.round(s);
    if (s < 120) { return s + ' s'; }
    if (s < 7200) { return Math.round(s / 60) + ' min'; }
    if (s < 172800) { return (s / 3600).toFixed(1) + ' h'; }
    return (s / 86400).toFixed(1) + ' days';
  }
  function when(t) { return t ? new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '–'; }
  // focus for keyboard and screen-reader users when the page's content is replaced: the first of
  // the elements (or ids) given that is shown and enabled, made focusable when it is a heading
  function refocus() {
    for (var i = 0; i < arguments.length; i++) {
      var el = typeof arguments[i] === 'string' ? document.getElementById(arguments[i]) : arguments[i];
      if (el && !el.disabled && el.getClientRects().length > 0) {
        if (/^H[1-6]$/.test(el.tagName)) { el.setAttribute('tabindex', '-1'); }
        el.focus();
        return;
      }
    }
  }
  function link(hash, text, attrs) { return h('a', Object.assign({ href: hash, text: text }, attrs || {})); }

  // --- the key -------------------------------------------------------------------------------
  function key() { return sessionStorage.getItem(KEY); }
  function askForKey(message) {
    sessionStorage.removeItem(KEY);
    clear(view);
    document.getElementById('forget-key').hidden = true;
    document.getElementById('key-prompt').hidden = false;
    document.getElementById('key-error').textContent = message || '';
    document.getElementById('key-input').focus();
  }
  document.getElementById('key-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var input = document.getElementById('key-input');
    var k = input.value.trim();
    input.value = '';
    // checked with a call any key may make: the first page of queues
    fetch('/api/v1/queues?limit=1', { headers: { Authorization: 'Bearer ' + k, Accept: 'application/json' } })
      .then(function (r) {
        if (r.status === 401 || r.status === 403) { askForKey('That key was refused (' + r.status + ').'); return; }
        sessionStorage.setItem(KEY, k);
        document.getElementById('key-prompt').hidden = true;
        route(true);
      })
      .catch(function () { askForKey('The service could not be reached.'); });
  });
  document.getElementById('forget-key').addEventListener('click', function () { askForKey(); });

  // --- the API -------------------------------------------------------------------------------
  function ApiError(status, problem) { this.status = status; this.problem = problem; }
  function api(method, path, body) {
    var init = { method: method, headers: { Authorization: 'Bearer ' + key(), Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.text().then(function (t) {
        var json = t ? JSON.parse(t) : null;
        if (r.status === 401) { askForKey('The key was refused: enter it again.'); }
        if (!r.ok) { throw new ApiError(r.status, json); }
        return json;
      });
    });
  }
  function q(params) {
    var parts = [];
    Object.keys(params).forEach(function (k) {
      if (params[k] !== null && params[k] !== undefined && params[k] !== '') {
        parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(params[k]));
      }
    });
    return parts.length ? '?' + parts.join('&') : '';
  }
  function failure(e) {
    var text = e instanceof ApiError
      ? (e.problem && (e.problem.detail || e.problem.title)) || ('HTTP ' + e.status)
      : String(e);
    return h('p', { class: 'error', role: 'alert', text: text });
  }

  // --- routing: #/ (overview), #/queue/<name>, #/lookup?messageId= | ?queue=&transactionId=,
  // #/webhooks[?source=<name>] ---------------------------------------------------------------
  function parseHash() {
    var hash = location.hash.replace(/^#/, '') || '/';
    var i = hash.indexOf('?');
    var path = i < 0 ? hash : hash.substring(0, i);
    var params = new URLSearchParams(i < 0 ? '' : hash.substring(i + 1));
    return { path: path, params: params };
  }
  // moveFocus: put the focus on the new page's main heading (after a route change, not on load)
  function route(moveFocus) {
    if (!key()) { askForKey(); return; }
    document.getElementById('key-prompt').hidden = true;
    document.getElementById('forget-key').hidden = false;
    var r = parseHash();
    var navO = document.getElementById('nav-overview');
    var navL = document.getElementById('nav-lookup');
    var navW = document.getElementById('nav-webhooks');
    navO.removeAttribute('aria-current');
    navL.removeAttribute('aria-current');
    navW.removeAttribute('aria-current');
    clear(view);
    if (r.path === '/webhooks') {
      navW.setAttribute('aria-current', 'page');
      webhooksPage(r.params.get('source'));
    } else if (r.path.indexOf('/queue/') === 0) {
      navO.setAttribute('aria-current', 'page');
      queuePage(decodeURIComponent(r.path.substring('/queue/'.length)));
    } else if (r.path === '/lookup') {
      navL.setAttribute('aria-current', 'page');
      lookupPage(r.params);
    } else {
      navO.setAttribute('aria-current', 'page');
      overviewPage();
    }
    if (moveFocus === true) { refocus(view.querySelector('h1')); }
  }
  window.addEventListener('hashchange', function () { route(true); });

  // --- overview ------------------------------------------------------------------------------
  var overview = { contains: '', limit: 25, cursors: [null], page: 0, sort: 'queue', dir: 1, rows: [], next: null };

  function overviewPage() {
    document.title = 'Queues – Exactly console';
    var filter = h('input', { id: 'filter', type: 'search', value: overview.contains, placeholder: 'part of a name' });
    var size = h('select', { id: 'page-size' }, [10, 25, 100, 1000].map(function (n) {
      return h('option', { value: n, selected: n === overview.limit, text: n });
    }));
    var form = h('form', { class: 'toolbar', role: 'search', onsubmit: function (e) {
      e.preventDefault();
      overview.contains = filter.value.trim();
      overview.limit = Number(size.value);
      overview.cursors = [null];
      overview.page = 0;
      loadOverview();
    } },
      h('label', { for: 'filter' }, 'Queue name contains', filter),
      h('label', { for: 'page-size' }, 'Queues per page', size),
      h('button', { type: 'submit', text: 'Show' }));
    view.appendChild(h('h1', { text: 'Queues' }));
    view.appendChild(h('p', { class: 'muted', text: 'Every queue with its messages, the lag of each consumer group, '
      + 'its oldest undelivered message, its dead letters and the duplicates it answered within its window. '
      + 'Queues are paged by name; the column buttons sort the page shown.' }));
    view.appendChild(form);
    view.appendChild(h('div', { id: 'overview-table' }));
    loadOverview();
  }

  // focusIds: where the focus goes once the page of queues is drawn (the first shown and enabled)
  function loadOverview(focusIds) {
    var holder = document.getElementById('overview-table');
    if (!holder) { return; }
    clear(holder);
    holder.appendChild(h('p', { class: 'muted', text: 'Loading…' }));
    api('GET', '/api/v1/overview' + q({ contains: overview.contains, limit: overview.limit,
      after: overview.cursors[overview.page] }))
      .then(function (data) {
        overview.rows = data.queues;
        overview.next = data.next || null;
        renderOverview();
        if (focusIds) { refocus.apply(null, focusIds); }
      })
      .catch(function (e) { clear(holder); holder.appendChild(failure(e)); });
  }

  var COLUMNS = [
    { key: 'queue', label: 'Queue', value: function (r) { return r.queue; } },
    { key: 'messages', label: 'Messages stored', num: true, value: function (r) { return r.messages; } },
    { key: 'lag', label: 'Lag per consumer group', num: true,
      value: function (r) { return r.consumerGroups.reduce(function (a, g) { return Math.max(a, g.lag); }, 0); } },
    { key: 'oldest', label: 'Oldest undelivered', num: true,
      value: function (r) { return r.oldestUndeliveredAgeSeconds === undefined ? -1 : r.oldestUndeliveredAgeSeconds; } },
    { key: 'dead', label: 'Dead letters not redriven', num: true, value: function (r) { return r.deadLettersNotRedriven; } },
    { key: 'dups', label: 'Duplicates in window', num: true, value: function (r) { return r.duplicates.atLeast; } }
  ];

  function renderOverview() {
    var holder = document.getElementById('overview-table');
    clear(holder);
    var col = COLUMNS.filter(function (c) { return c.key === overview.sort; })[0];
    var rows = overview.rows.slice().sort(function (a, b) {
      var x = col.value(a), y = col.value(b);
      return (x < y ? -1 : x > y ? 1 : 0) * overview.dir;
    });
    var head = h('tr', null, COLUMNS.map(function (c) {
      var sorted = c.key === overview.sort;
      return h('th', { scope: 'col', class: c.num ? 'num' : null,
        'aria-sort': sorted ? (overview.dir > 0 ? 'ascending' : 'descending') : 'none' },
        h('button', { type: 'button', 'data-sort': c.key, onclick: function () {
          overview.dir = sorted ? -overview.dir : (c.num ? -1 : 1);
          overview.sort = c.key;
          renderOverview();
          refocus(document.querySelector('#queues button[data-sort="' + c.key + '"]'));
        } }, c.label));
    }));
    var body = h('tbody', null, rows.map(function (r) {
      return h('tr', { 'data-queue': r.queue },
        h('th', { scope: 'row' }, link('#/queue/' + encodeURIComponent(r.queue), r.queue)),
        h('td', { class: 'num' }, num(r.messages)),
        h('td', { class: 'num' }, r.consumerGroups.length === 0 ? h('span', { class: 'muted', text: 'no group' })
          : r.consumerGroups.map(function (g, i) { return [i ? h('br') : null, g.group + ': ' + num(g.lag)]; })),
        h('td', { class: 'num' }, age(r.oldestUndeliveredAgeSeconds)),
        h('td', { class: 'num' }, r.deadLettersNotRedriven > 0
          ? h('span', { class: 'warn', text: num(r.deadLettersNotRedriven) + ' of ' + num(r.deadLetters) })
          : num(r.deadLettersNotRedriven) + (r.deadLetters ? ' of ' + num(r.deadLetters) : '')),
        h('td', { class: 'num' }, num(r.duplicates.atLeast) + ' in ' + age(r.duplicates.windowSeconds)));
    }));
    holder.appendChild(h('table', { id: 'queues' },
      h('caption', { class: 'muted', text: 'Page ' + (overview.page + 1) + (overview.contains ? ', names containing "'
        + overview.contains + '"' : '') + ': ' + rows.length + (rows.length === 1 ? ' queue' : ' queues') }),
      h('thead', null, head), body));
    if (rows.length === 0) { holder.appendChild(h('p', { text: 'No queue matches.' })); }
    holder.appendChild(h('div', { class: 'toolbar' },
      h('button', { type: 'button', id: 'prev-page', class: 'secondary', disabled: overview.page === 0, onclick: function () {
        overview.page--; loadOverview(['prev-page', 'next-page']);
      } }, 'Previous page'),
      h('button', { type: 'button', id: 'next-page', class: 'secondary', disabled: !overview.next, onclick: function () {
        overview.cursors[overview.page + 1] = overview.next;
        overview.page++;
        loadOverview(['next-page', 'prev-page']);
      } }, 'Next page')));
  }

  // --- a queue -------------------------------------------------------------------------------
  function queuePage(name) {
    document.title = name + ' – Exactly console';
    view.appendChild(h('p', null, link('#/', '← All queues')));
    view.appendChild(h('h1', { text: 'Queue ' + name }));
    // "." and ".." are no queue's name (the API refuses them): as a path segment the browser would
    // resolve them away, e.g. /api/v1/queues/../stats to /api/v1/stats, so nothing is fetched
    if (name === '.' || name === '..') {
      view.appendChild(h('p', { class: 'error', role: 'alert', id: 'queue-refused',
        text: 'Queue name "' + name + '" must not be \'.\' or \'..\' (a URL path cannot name them).' }));
      return;
    }
    var figures = h('div', { id: 'queue-figures' }, h('p', { class: 'muted', text: 'Loading…' }));
    var dests = h('section', { id: 'destinations', 'aria-labelledby': 'dest-title' });
    var chart = h('section', { id: 'duplicates', 'aria-labelledby': 'dup-title' });
    var dead = h('section', { id: 'dead-letters', 'aria-labelledby': 'dl-title' });
    view.appendChild(figures);
    view.appendChild(dests);
    view.appendChild(chart);
    view.appendChild(dead);
    loadQueueFigures(figures, name).then(function () {
      destinations(dests, name);
      duplicatesChart(chart, name, 48);
      deadLetters(dead, name, { cursors: [null], page: 0 });
    }).catch(function (e) { clear(figures); figures.appendChild(failure(e)); });
  }

  // the queue's options and stats, drawn into holder; the promise fails with the API's error
  function loadQueueFigures(holder, name) {
    var base = '/api/v1/queues/' + encodeURIComponent(name);
    return Promise.all([api('GET', base), api('GET', base + '/stats')]).then(function (res) {
      renderQueueFigures(holder, res[0], res[1]);
    });
  }

  function renderQueueFigures(holder, queue, stats) {
    clear(holder);
    var oldest = stats.consumerGroups.reduce(function (a, g) {
      return g.oldestUndeliveredAgeSeconds === undefined ? a : Math.max(a === null ? 0 : a, g.oldestUndeliveredAgeSeconds);
    }, null);
    holder.appendChild(h('div', { class: 'cards' },
      card('Messages stored', num(stats.messages), 'figure-messages'),
      card('Partitions', num(stats.partitions)),
      card('Consumer groups', num(stats.consumerGroups.length)),
      card('Oldest undelivered', age(oldest)),
      card('Dead letters', num(stats.deadLetters)),
      card('Duplicates in window', num(stats.duplicates ? stats.duplicates.atLeast : 0))));
    holder.appendChild(h('h2', { text: 'Consumer groups' }));
    if (stats.consumerGroups.length === 0) {
      holder.appendChild(h('p', { class: 'muted', text: 'No consumer group has popped from this queue yet.' }));
    } else {
      holder.appendChild(h('table', { id: 'groups' },
        h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'Group' }), h('th', { scope: 'col', class: 'num', text: 'Lag' }),
          h('th', { scope: 'col', text: 'Oldest undelivered stored at' }), h('th', { scope: 'col', class: 'num', text: 'Its age' }))),
        h('tbody', null, stats.consumerGroups.map(function (g) {
          return h('tr', null, h('th', { scope: 'row', text: g.group }), h('td', { class: 'num', text: num(g.lag) }),
            h('td', { text: when(g.oldestUndeliveredAt) }), h('td', { class: 'num', text: age(g.oldestUndeliveredAgeSeconds) }));
        }))));
    }
    holder.appendChild(h('h2', { text: 'Options' }));
    holder.appendChild(h('dl', { class: 'facts', id: 'options' }, Object.keys(queue.options).map(function (k) {
      return [h('dt', { text: k }), h('dd', { text: String(queue.options[k]) })];
    }), h('dt', { text: 'dead-letter queue' }), h('dd', null, link('#/queue/' + encodeURIComponent(stats.deadLetterQueue),
      stats.deadLetterQueue)), h('dt', { text: 'created' }), h('dd', { text: when(queue.createdAt) })));
  }
  // the queue's destinations with their delivery state (GET /api/v1/queues/{queue}/destinations)
  function destinations(holder, name) {
    clear(holder);
    holder.appendChild(h('h2', { id: 'dest-title', text: 'Destinations' }));
    api('GET', '/api/v1/queues/' + encodeURIComponent(name) + '/destinations').then(function (data) {
      var list = data.destinations || [];
      if (list.length === 0) {
        holder.appendChild(h('p', { class: 'muted', text: 'No destination receives this queue\'s messages.' }));
        return;
      }
      holder.appendChild(h('table', { id: 'destinations-table' },
        h('thead', null, h('tr', null, ['Destination', 'Type', 'Target', 'Order', 'State'].map(function (t) {
          return h('th', { scope: 'col', text: t });
        }), ['Delivered', 'Pending', 'Oldest undelivered', 'Failed attempts', 'Dead letters'].map(function (t) {
          return h('th', { scope: 'col', class: 'num', text: t });
        }), h('th', { scope: 'col', text: 'Last error' }))),
        h('tbody', null, list.map(function (d) {
          var st = d.state || {};
          return h('tr', null, h('th', { scope: 'row', text: d.name }), h('td', { text: d.type }),
            h('td', { text: d.url || d.queueUrl || d.eventBus || '–' }),
            h('td', { text: d.ordered === false ? 'unordered' : 'in order' }),
            h('td', { text: st.paused ? 'paused' : 'delivering' }),
            h('td', { class: 'num', text: num(st.delivered) }), h('td', { class: 'num', text: num(st.pending) }),
            h('td', { class: 'num', text: age(st.oldestUndeliveredAgeSeconds) }),
            h('td', { class: 'num', text: num(st.failedAttempts) }), h('td', { class: 'num', text: num(st.deadLetters) }),
            h('td', { text: st.lastError ? st.lastError + ' (' + when(st.lastErrorAt) + ')' : '–' }));
        }))));
    }).catch(function (e) {
      if (e instanceof ApiError && e.status === 404) {
        holder.appendChild(h('p', { class: 'muted', text: 'No destination receives this queue\'s messages.' }));
      } else {
        holder.appendChild(failure(e));
      }
    });
  }

  function card(label, value, id) {
    return h('div', { class: 'card', id: id }, h('span', { class: 'value', text: value }), h('span', { class: 'muted', text: label }));
  }

  // keepFocus: the period select had the focus and keeps it once redrawn
  function duplicatesChart(holder, name, hours, keepFocus) {
    clear(holder);
    var select = h('select', { id: 'dup-hours', onchange: function () { duplicatesChart(holder, name, Number(select.value), true); } },
      [[24, 'last day'], [48, 'last 2 days'], [168, 'last 7 days'], [840, 'last 35 days']].map(function (o) {
        return h('option', { value: o[0], selected: o[0] === hours, text: o[1] });
      }));
    holder.appendChild(h('h2', { id: 'dup-title', text: 'Duplicates answered per hour' }));
    holder.appendChild(h('div', { class: 'toolbar' }, h('label', { for: 'dup-hours' }, 'Period', select)));
    if (keepFocus) { select.focus(); }
    var box = h('div', { class: 'chart', id: 'dup-chart', role: 'img' });
    holder.appendChild(box);
    api('GET', '/api/v1/queues/' + encodeURIComponent(name) + '/duplicates' + q({ hours: hours })).then(function (s) {
      var start = Date.parse(s.since) / 1000;
      var now = Math.floor(Date.now() / 3600000) * 3600;
      var byHour = {};
      var total = 0;
      s.hours.forEach(function (x) { byHour[Date.parse(x.hour) / 1000] = x.duplicates; total += x.duplicates; });
      var xs = [], ys = [];
      for (var t = start; t <= now; t += 3600) { xs.push(t); ys.push(byHour[t] || 0); }
      var dups = total + (total === 1 ? ' duplicate' : ' duplicates');
      box.setAttribute('aria-label', 'Chart: ' + dups + ' answered over the period, per hour (UTC)');
      box.setAttribute('data-total', String(total));
      if (window.uPlot) {
        // times in UTC, as in every table of the console (uPlot draws local time by default)
        new window.uPlot({ width: Math.min(900, view.clientWidth || 900), height: 220,
          tzDate: function (ts) { return window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
          series: [{ label: 'Hour (UTC)' }, { label: 'duplicates', stroke: '#0b5c8a', fill: 'rgba(11,92,138,0.15)', width: 2 }],
          axes: [{ label: 'UTC' }, { label: 'per hour' }], scales: { x: { time: true } } }, [xs, ys], box);
      }
      holder.appendChild(h('p', { class: 'muted', text: dups + ' over the period (a lower bound: each '
        + 'instance writes its counts every few seconds). The deduplication window is ' + age(s.windowSeconds) + '.' }));
      holder.appendChild(h('details', null, h('summary', { text: 'The figures as a table' }),
        h('table', null, h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'Hour (UTC)' }),
          h('th', { scope: 'col', class: 'num', text: 'Duplicates' }))),
          h('tbody', null, s.hours.map(function (x) {
            return h('tr', null, h('td', { text: when(x.hour) }), h('td', { class: 'num', text: num(x.duplicates) }));
          })))));
    }).catch(function (e) { box.appendChild(failure(e)); });
  }

  // focusIds: where the focus goes once the page of dead letters is drawn (the first shown and
  // enabled; else the section's heading)
  function deadLetters(holder, name, state, focusIds) {
    clear(holder);
    holder.appendChild(h('h2', { id: 'dl-title', text: 'Dead letters' }));
    var results = h('div', { id: 'redrive-results', 'aria-live': 'polite' });
    var list = h('div', null, h('p', { class: 'muted', text: 'Loading…' }));
    holder.appendChild(list);
    holder.appendChild(results);
    api('GET', '/api/v1/queues/' + encodeURIComponent(name) + '/dead-letters' + q({ limit: 20, after: state.cursors[state.page] }))
      .then(function (page) {
        clear(list);
        if (page.deadLetters.length === 0) {
          list.appendChild(h('p', { text: 'No dead letters in ' + page.deadLetterQueue + '.' }));
          if (focusIds) { refocus('dl-title'); }
          return;
        }
        var boxes = [];
        var table = h('table', { id: 'dead-letter-table' },
          h('caption', { class: 'muted', text: 'Copies stored in ' + page.deadLetterQueue + ', page ' + (state.page + 1) }),
          h('thead', null, h('tr', null,
            h('td', null, h('span', { class: 'muted', text: 'Select' })),
            h('th', { scope: 'col', text: 'Dead letter' }), h('th', { scope: 'col', text: 'Origin key' }),
            h('th', { scope: 'col', text: 'Why' }), h('th', { scope: 'col', text: 'Dead-lettered at' }),
            h('th', { scope: 'col', text: 'Redriven' }), h('th', { scope: 'col', text: 'Action' }))),
          h('tbody', null, page.deadLetters.map(function (d) {
            var o = d.origin || {};
            var box = h('input', { type: 'checkbox', value: d.messageId, 'aria-label': 'Select dead letter ' + d.messageId,
              disabled: !!d.redrivenTo });
            boxes.push(box);
            return h('tr', { 'data-id': d.messageId },
              h('td', null, box),
              h('td', null, link('#/lookup?messageId=' + d.messageId, d.messageId)),
              h('td', { text: (o.partition || d.partition) + ' / ' + (o.transactionId || '–') }),
              h('td', { text: [o.status, o.consumerGroup ? 'group ' + o.consumerGroup : null,
                o.attempts !== undefined ? o.attempts + ' attempts' : null, o.error].filter(Boolean).join(', ') }),
              h('td', { text: when(d.createdAt) }),
              h('td', null, d.redrivenTo ? link('#/lookup?messageId=' + d.redrivenTo, 'yes, ' + when(d.redrivenAt))
                : h('span', { text: 'no' })),
              h('td', null, d.redrivenTo ? null : h('button', { type: 'button', class: 'secondary',
                'aria-label': 'Redrive ' + d.messageId, onclick: function () {
                  redrive(name, [d.messageId], null, holder, state, results);
                } }, 'Redrive')));
          })));
        list.appendChild(table);
        list.appendChild(h('div', { class: 'toolbar' },
          h('button', { type: 'button', id: 'redrive-selected', onclick: function () {
            var ids = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
            if (ids.length === 0) { results.textContent = 'Select the dead letters to redrive first.'; return; }
            redrive(name, ids, null, holder, state, results);
          } }, 'Redrive selected'),
          h('button', { type: 'button', id: 'redrive-all', class: 'danger', onclick: function () {
            redrive(name, null, 1000, holder, state, results);
          } }, 'Redrive all not redriven'),
          h('button', { type: 'button', class: 'secondary', id: 'dl-prev', disabled: state.page === 0, onclick: function () {
            state.page--; deadLetters(holder, name, state, ['dl-prev', 'dl-next']);
          } }, 'Previous page'),
          h('button', { type: 'button', class: 'secondary', id: 'dl-next', disabled: !page.next, onclick: function () {
            state.cursors[state.page + 1] = page.next; state.page++; deadLetters(holder, name, state, ['dl-next', 'dl-prev']);
          } }, 'Next page')));
        if (focusIds) { refocus.apply(null, focusIds.concat(['dl-title'])); }
      }).catch(function (e) { clear(list); list.appendChild(failure(e)); });
  }

  function confirm(text) {
    var dialog = document.getElementById('confirm');
    document.getElementById('confirm-text').textContent = text;
    return new Promise(function (resolve) {
      dialog.addEventListener('close', function once() {
        dialog.removeEventListener('close', once);
        resolve(dialog.returnValue === 'ok');
      });
      dialog.returnValue = '';
      dialog.showModal();
      document.getElementById('confirm-cancel').focus();
    });
  }

  function redrive(name, ids, limit, holder, state, results) {
    var what = ids ? ids.length + ' dead letter' + (ids.length > 1 ? 's' : '')
      : 'every dead letter not redriven yet (up to ' + limit + ')';
    confirm('Redrive ' + what + ' of queue ' + name + ' back to ' + name + '? Each is pushed again to its origin '
      + 'partition, once: a copy redriven before is answered duplicate.').then(function (ok) {
      if (!ok) { return; }
      api('POST', '/api/v1/queues/' + encodeURIComponent(name) + '/redrive', ids ? { messageIds: ids } : { limit: limit })
        .then(function (answer) {
          deadLetters(holder, name, state, [ids && ids.length === 1 ? null : (ids ? 'redrive-selected' : 'redrive-all')]);
          // a redrive stores messages and marks dead letters: the queue's figures change with it
          var figures = document.getElementById('queue-figures');
          if (figures) {
            loadQueueFigures(figures, name).catch(function (e) { clear(figures); figures.appendChild(failure(e)); });
          }
          var out = document.getElementById('redrive-results') || results;
          clear(out);
          out.appendChild(h('h3', { text: 'Redrive result' }));
          out.appendChild(h('table', { id: 'redrive-result-table' },
            h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'Dead letter' }), h('th', { scope: 'col', text: 'Result' }),
              h('th', { scope: 'col', text: 'Message stored' }), h('th', { scope: 'col', text: 'Queue / partition' }))),
            h('tbody', null, answer.results.map(function (r) {
              return h('tr', null, h('td', { text: r.deadLetterId }), h('td', { text: r.status }),
                h('td', null, r.messageId ? link('#/lookup?messageId=' + r.messageId, r.messageId) : '–'),
                h('td', { text: r.queue ? r.queue + ' / ' + r.partition : '–' }));
            }))));
          out.appendChild(h('p', { text: answer.remaining + (answer.remaining === 1 ? ' dead letter remains'
            : ' dead letters remain') + ' not redriven.' }));
        })
        .catch(function (e) { clear(results); results.appendChild(failure(e)); });
    });
  }

  // --- look up a message ---------------------------------------------------------------------
  function lookupPage(params) {
    document.title = 'Look up a message – Exactly console';
    view.appendChild(h('h1', { text: 'Look up a message' }));
    view.appendChild(h('p', { class: 'muted', text: 'By its messageId (what a push answered, queued or duplicate), '
      + 'or by queue and transactionId (the idempotency key): for a key answered duplicate, this shows the stored '
      + 'original it pointed to and when it was stored.' }));
    var id = h('input', { id: 'lookup-id', name: 'messageId', value: params.get('messageId') || '', size: 38 });
    var queue = h('input', { id: 'lookup-queue', name: 'queue', value: params.get('queue') || '' });
    var txn = h('input', { id: 'lookup-txn', name: 'transactionId', value: params.get('transactionId') || '', size: 30 });
    view.appendChild(h('form', { class: 'toolbar', id: 'lookup-by-id', onsubmit: function (e) {
      e.preventDefault(); location.hash = '#/lookup' + q({ messageId: id.value.trim() });
    } }, h('label', { for: 'lookup-id' }, 'messageId', id), h('button', { type: 'submit', text: 'Find by id' })));
    view.appendChild(h('form', { class: 'toolbar', id: 'lookup-by-key', onsubmit: function (e) {
      e.preventDefault(); location.hash = '#/lookup' + q({ queue: queue.value.trim(), transactionId: txn.value });
    } }, h('label', { for: 'lookup-queue' }, 'queue', queue), h('label', { for: 'lookup-txn' }, 'transactionId', txn),
      h('button', { type: 'submit', text: 'Find by key' })));
    var out = h('div', { id: 'lookup-result' });
    view.appendChild(out);
    if (params.get('messageId')) {
      var mid = params.get('messageId');
      api('GET', '/api/v1/messages/' + encodeURIComponent(mid)).then(function (m) {
        return api('GET', '/api/v1/queues/' + encodeURIComponent(m.queue)).then(function (qv) {
          var until = new Date(Date.parse(m.createdAt) + qv.options.dedupWindowSeconds * 1000).toISOString();
          showMessage(out, { message: m, storedAt: m.createdAt, windowSeconds: qv.options.dedupWindowSeconds,
            duplicatesUntil: until });
        });
      }).catch(function (e) { out.appendChild(failure(e)); });
    } else if (params.get('queue') && params.get('transactionId') !== null) {
      api('GET', '/api/v1/messages' + q({ queue: params.get('queue'), transactionId: params.get('transactionId') }))
        .then(function (found) {
          if (found.messages.length === 0) {
            out.appendChild(h('p', { text: 'No message is stored under transactionId "' + found.transactionId + '" in queue '
              + found.queue + ': it was never pushed there, or retention purged it.' }));
          }
          found.messages.forEach(function (s) { showMessage(out, s); });
        }).catch(function (e) { out.appendChild(failure(e)); });
    }
  }

  function showMessage(out, s) {
    var m = s.message;
    var section = h('section', { class: 'message', 'data-message-id': m.messageId, 'aria-label': 'Message ' + m.messageId });
    out.appendChild(section);
    var live = Date.parse(s.duplicatesUntil) > Date.now();
    section.appendChild(h('h2', { text: 'Message ' + m.messageId }));
    section.appendChild(h('div', { class: 'explain', id: 'why-duplicate' },
      h('p', null, 'This is the original stored for transactionId ', h('code', { text: m.transactionId }), ' in queue ',
        link('#/queue/' + encodeURIComponent(m.queue), m.queue), ', partition ' + m.partition + ', stored at ',
        h('strong', { class: 'stored-at', text: when(s.storedAt) }), '.'),
      h('p', { text: live
        ? 'A push of the same transactionId to this queue and partition before ' + when(s.duplicatesUntil)
          + ' (the window of ' + age(s.windowSeconds) + ') is answered "duplicate" with messageId ' + m.messageId
          + ', and nothing is written.'
        : 'Its window of ' + age(s.windowSeconds) + ' ended at ' + when(s.duplicatesUntil)
          + ': a push of the same transactionId now is stored as a new message.' })));
    section.appendChild(h('dl', { class: 'facts' },
      h('dt', { text: 'queue' }), h('dd', { text: m.queue }),
      h('dt', { text: 'partition / offset' }), h('dd', { text: m.partition + ' / ' + m.offset }),
      h('dt', { text: 'transactionId' }), h('dd', { text: m.transactionId }),
      h('dt', { text: 'stored at' }), h('dd', { text: when(m.createdAt) }),
      m.traceId ? [h('dt', { text: 'traceId' }), h('dd', { text: m.traceId })] : null,
      m.contentType ? [h('dt', { text: 'content type' }), h('dd', { text: m.contentType })] : null));
    section.appendChild(h('h3', { text: 'Payload' }));
    section.appendChild(h('pre', { class: 'payload', text: m.payload !== undefined ? JSON.stringify(m.payload, null, 2)
      : '(base64) ' + m.payloadBase64 }));
    section.appendChild(h('h3', { text: 'Headers' }));
    section.appendChild(h('pre', { class: 'headers', text: m.headers ? JSON.stringify(m.headers, null, 2) : '(none)' }));
    section.appendChild(h('h3', { text: 'Deliveries' }));
    var deliveries = h('div', null);
    section.appendChild(deliveries);
    api('GET', '/api/v1/messages/' + m.messageId + '/deliveries').then(function (d) {
      if (d.deliveries.length === 0) {
        deliveries.appendChild(h('p', { class: 'muted', text: 'No consumer group reads its partition yet.' }));
        return;
      }
      deliveries.appendChild(h('table', null, h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'Consumer group' }),
        h('th', { scope: 'col', text: 'State' }), h('th', { scope: 'col', class: 'num', text: 'Attempts' }),
        h('th', { scope: 'col', text: 'Last outcome' }), h('th', { scope: 'col', text: 'Dead letter' }))),
        h('tbody', null, d.deliveries.map(function (g) {
          return h('tr', null, h('th', { scope: 'row', text: g.consumerGroup }), h('td', { text: g.state }),
            h('td', { class: 'num', text: num(g.attempts) }),
            h('td', { text: [g.lastOutcome, g.lastError].filter(Boolean).join(': ') || '–' }),
            h('td', null, g.deadLetterId ? link('#/lookup?messageId=' + g.deadLetterId, g.deadLetterId) : '–'));
        }))));
    }).catch(function (e) { deliveries.appendChild(failure(e)); });
  }

  // --- webhook sources -----------------------------------------------------------------------
  function windowText(s) {
    var w = s.window;
    var from = {
      source: 'set by exactly.webhooks.sources.' + s.name + '.window-seconds',
      preset: 'the ' + s.preset + ' preset\u2019s window',
      queue: 'set on the queue through the queue API',
      'default': 'the queue default'
    }[w.from] || w.from;
    var more = '';
    if (w.appliesAtNextDelivery) {
      more = '; the source\u2019s ' + age(w.configuredSeconds) + ' applies at its next delivery';
    } else if (w.configuredSeconds !== undefined && w.configuredSeconds !== w.seconds) {
      more = '; the source asks for ' + age(w.configuredSeconds) + ', not applied over the queue\u2019s own';
    }
    if (!w.queueExists) { more += ' (the queue is created by the first delivery)'; }
    return age(w.seconds) + ' \u2013 ' + from + more;
  }
  function both(c1, c24, key, warn) {
    var a = c1[key], b = c24[key];
    var text = num(a) + ' / ' + num(b);
    return warn && b > 0 ? h('span', { class: 'warn', text: text }) : text;
  }

  function webhooksPage(selected) {
    document.title = 'Webhook sources \u2013 Exactly console';
    view.appendChild(h('h1', { text: 'Webhook sources' }));
    view.appendChild(h('p', { class: 'muted', text: 'Every enabled source (POST /webhooks/<source>) with what became of '
      + 'its deliveries over the last hour / the last 24 hours: accepted (stored as new messages), duplicates '
      + '(redeliveries answered duplicate, nothing written), signature failures (refused with 401: nothing written) '
      + 'and other refusals (400, 413, 422). The figures are kept in the database, so every instance shows the same. '
      + 'A source without a secret is disabled and not listed.' }));
    var holder = h('div', { id: 'webhook-sources-table' }, h('p', { class: 'muted', text: 'Loading\u2026' }));
    var detail = h('section', { id: 'webhook-source-hours', 'aria-labelledby': 'wh-hours-title' });
    view.appendChild(holder);
    view.appendChild(detail);
    api('GET', '/api/v1/webhooks/sources').then(function (data) {
      clear(holder);
      if (data.sources.length === 0) {
        holder.appendChild(h('p', { text: 'No webhook source is enabled: set a source\u2019s secret (see the webhooks '
          + 'documentation).' }));
        return;
      }
      holder.appendChild(h('table', { id: 'webhook-sources' },
        h('caption', { class: 'muted', text: data.sources.length + ' sources; counts for the last hour / the last 24 '
          + 'hours; kept ' + age(data.keptHours * 3600) }),
        h('thead', null, h('tr', null,
          h('th', { scope: 'col', text: 'Source and its queue' }),
          h('th', { scope: 'col', text: 'Deduplication window in force' }),
          h('th', { scope: 'col', class: 'num', text: 'Accepted' }),
          h('th', { scope: 'col', class: 'num', text: 'Duplicates' }),
          h('th', { scope: 'col', class: 'num', text: 'Signature failures' }),
          h('th', { scope: 'col', class: 'num', text: 'Other refusals' }),
          h('th', { scope: 'col', text: 'Last delivery' }),
          h('th', { scope: 'col', text: 'Last signature failure' }))),
        h('tbody', null, data.sources.map(function (s) {
          return h('tr', { 'data-source': s.name },
            h('th', { scope: 'row' }, link('#/webhooks?source=' + encodeURIComponent(s.name), s.name),
              h('span', { class: 'sub' }, 'preset ' + s.preset + ', signature ' + s.signature + ', queue ',
                link('#/queue/' + encodeURIComponent(s.queue), s.queue))),
            h('td', { class: 'window', text: windowText(s) }),
            h('td', { class: 'num accepted' }, both(s.lastHour, s.last24Hours, 'accepted')),
            h('td', { class: 'num duplicates' }, both(s.lastHour, s.last24Hours, 'duplicates')),
            h('td', { class: 'num signature-failures' }, both(s.lastHour, s.last24Hours, 'signatureFailures', true)),
            h('td', { class: 'num rejected' }, both(s.lastHour, s.last24Hours, 'rejected', true)),
            h('td', { class: 'when', text: when(s.lastDeliveryAt) }),
            h('td', { class: 'when', text: when(s.lastSignatureFailureAt) }));
        }))));
      var chosen = selected && data.sources.some(function (s) { return s.name === selected; }) ? selected : null;
      if (chosen) { sourceHours(detail, chosen, 24); }
      else {
        detail.appendChild(h('h2', { id: 'wh-hours-title', text: 'Per hour' }));
        detail.appendChild(h('p', { class: 'muted', text: 'Choose a source\u2019s name above for its deliveries per hour.' }));
      }
    }).catch(function (e) { clear(holder); holder.appendChild(failure(e)); });
  }

  // keepFocus: the period select had the focus and keeps it once redrawn
  function sourceHours(holder, name, hours, keepFocus) {
    clear(holder);
    var select = h('select', { id: 'wh-hours', onchange: function () { sourceHours(holder, name, Number(select.value), true); } },
      [[24, 'last day'], [48, 'last 2 days'], [168, 'last 7 days']].map(function (o) {
        return h('option', { value: o[0], selected: o[0] === hours, text: o[1] });
      }));
    holder.appendChild(h('h2', { id: 'wh-hours-title', text: 'Source ' + name + ' per hour' }));
    holder.appendChild(h('div', { class: 'toolbar' }, h('label', { for: 'wh-hours' }, 'Period', select)));
    if (keepFocus) { select.focus(); }
    var box = h('div', null, h('p', { class: 'muted', text: 'Loading\u2026' }));
    holder.appendChild(box);
    api('GET', '/api/v1/webhooks/sources/' + encodeURIComponent(name) + '/hours' + q({ hours: hours })).then(function (d) {
      clear(box);
      if (d.hours.length === 0) {
        box.appendChild(h('p', { text: 'No delivery in the period.' }));
        return;
      }
      box.appendChild(h('table', { id: 'webhook-hours' },
        h('thead', null, h('tr', null, h('th', { scope: 'col', text: 'Hour (UTC)' }),
          h('th', { scope: 'col', class: 'num', text: 'Accepted' }), h('th', { scope: 'col', class: 'num', text: 'Duplicates' }),
          h('th', { scope: 'col', class: 'num', text: 'Signature failures' }),
          h('th', { scope: 'col', class: 'num', text: 'Other refusals' }))),
        h('tbody', null, d.hours.slice().reverse().map(function (x) {
          return h('tr', null, h('th', { scope: 'row', text: when(x.hour) }), h('td', { class: 'num', text: num(x.accepted) }),
            h('td', { class: 'num', text: num(x.duplicates) }), h('td', { class: 'num', text: num(x.signatureFailures) }),
            h('td', { class: 'num', text: num(x.rejected) }));
        }))));
    }).catch(function (e) { clear(box); box.appendChild(failure(e)); });
  }

  route();
}());
