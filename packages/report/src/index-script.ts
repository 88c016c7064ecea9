// The index page's script, inlined and admitted by its hash in the page's
// Content-Security-Policy. Plain ES2017 in a string: it runs in the reader's
// browser as written (no bundler between this text and the page).
export const INDEX_SCRIPT = `(function () {
  'use strict';
  var table = document.getElementById('instances');
  var form = document.getElementById('filters');
  if (!table || !form) return;
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var search = document.getElementById('f-search');
  var selects = Array.prototype.slice.call(form.querySelectorAll('select'));
  var attr = { library: 'library', crashType: 'crashType', rootCause: 'rootCause', pipelineStage: 'pipelineStage', status: 'status' };
  form.hidden = false;

  function matches(row) {
    var q = search.value.trim().toLowerCase();
    if (q && row.dataset.search.indexOf(q) < 0) return false;
    return selects.every(function (s) {
      if (!s.value) return true;
      if (s.dataset.key === 'flags') return (' ' + row.dataset.flags + ' ').indexOf(' ' + s.value + ' ') >= 0;
      return row.dataset[attr[s.dataset.key]] === s.value;
    });
  }

  function apply() {
    var shown = 0;
    var counts = {};
    rows.forEach(function (row) {
      var ok = matches(row);
      row.hidden = !ok;
      if (!ok) return;
      shown++;
      counts['status:' + row.dataset.status] = (counts['status:' + row.dataset.status] || 0) + 1;
      row.dataset.flags.split(' ').forEach(function (f) {
        if (f) counts['flag:' + f] = (counts['flag:' + f] || 0) + 1;
      });
    });
    document.getElementById('count-shown').textContent = String(shown);
    Array.prototype.forEach.call(document.querySelectorAll('[data-count]'), function (el) {
      el.textContent = String(counts[el.getAttribute('data-count')] || 0);
    });
  }

  function key(row, col) {
    var cell = row.cells[col];
    var v = cell.hasAttribute('data-sort') ? cell.getAttribute('data-sort') : cell.textContent.trim();
    return v;
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (a === '') return 1;
    if (b === '') return -1;
    var na = Number(a);
    var nb = Number(b);
    if (!isNaN(na) && !isNaN(nb)) return na - nb;
    return a < b ? -1 : 1;
  }

  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  headers.forEach(function (th, col) {
    var button = th.querySelector('button');
    button.addEventListener('click', function () {
      var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
      headers.forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', dir);
      var sign = dir === 'ascending' ? 1 : -1;
      rows.sort(function (a, b) {
        var ka = key(a, col);
        var kb = key(b, col);
        // Empty values last in both directions; ties by id, always ascending.
        if (ka === '' || kb === '') return compare(ka, kb) || compare(a.dataset.id, b.dataset.id);
        return sign * compare(ka, kb) || compare(a.dataset.id, b.dataset.id);
      });
      rows.forEach(function (row) { tbody.appendChild(row); });
    });
  });

  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('reset', function () { setTimeout(apply, 0); });
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  apply();
})();
`;
