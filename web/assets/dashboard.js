// Updates the status cells and counts from /api/v1/health without reloading the page.
(function () {
  var every = parseInt(document.body.dataset.refreshMs, 10) || 15000;
  function tick() {
    fetch('/api/v1/health', {headers: {Accept: 'application/json'}, cache: 'no-store'})
      .then(function (r) { if (!r.ok) { throw new Error('health: HTTP ' + r.status); } return r.json(); })
      .then(function (h) {
        ['operational', 'degraded', 'outage', 'unknown'].forEach(function (k) {
          var el = document.querySelector('[data-count="' + k + '"]');
          if (el && h.summary) { el.textContent = h.summary[k]; }
        });
        Object.keys(h.providers || {}).forEach(function (id) {
          var row = document.querySelector('tr[data-provider="' + CSS.escape(id) + '"]');
          if (!row) { return; }
          var p = h.providers[id];
          row.dataset.status = p.status;
          var s = row.querySelector('[data-field="status"]');
          s.textContent = p.status;
          s.className = 'pill s-' + p.status;
          row.querySelector('[data-field="last-checked"]').textContent = p.last_checked ? p.last_checked.replace(/\.\d+/, '') : '';
          row.querySelector('[data-field="response"]').textContent = p.response_time_ms == null ? '' : Math.round(p.response_time_ms) + ' ms';
        });
        var u = document.getElementById('updated');
        var now = new Date();
        u.dateTime = now.toISOString();
        u.textContent = now.toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
      })
      .catch(function (e) { console.warn('status refresh failed:', e.message); })
      .finally(function () { setTimeout(tick, every); });
  }
  setTimeout(tick, every);
})();
