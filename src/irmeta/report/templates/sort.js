/* irmeta: click a header of a table.sortable to sort by that column (again: reverse);
   a link to a per-run anchor inside a closed <details> opens it. */
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null) { return { num: false, v: "" }; }
    var n = Number(v);
    return (v !== "" && !isNaN(n)) ? { num: true, v: n } : { num: false, v: v.toLowerCase() };
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    /* first click: numbers best first (largest, or smallest where lower is better),
       text A-Z; a second click reverses */
    var first = th.classList.contains("num") && !th.hasAttribute("data-lower-better") ?
      "descending" : "ascending";
    var dir = th.getAttribute("aria-sort") === first ?
      (first === "ascending" ? "descending" : "ascending") : first;
    var sign = dir === "ascending" ? 1 : -1;
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      var xe = a.cells[col].getAttribute("data-sort") === null;
      var ye = b.cells[col].getAttribute("data-sort") === null;
      if (xe !== ye) { return xe ? 1 : -1; }         /* missing values last */
      if (x.num && y.num) { return sign * (x.v - y.v); }
      return sign * String(x.v).localeCompare(String(y.v), undefined, { numeric: true });
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, col, th); }
      });
    });
  });
  /* run-attribute filters (--run-info): show the rows matching every chosen value */
  var selects = document.querySelectorAll("select[data-filter-table]");
  function filter() {
    var byTable = {};
    Array.prototype.forEach.call(selects, function (s) {
      var id = s.getAttribute("data-filter-table");
      (byTable[id] = byTable[id] || []).push(s);
    });
    Object.keys(byTable).forEach(function (id) {
      var table = document.getElementById(id);
      if (!table) { return; }
      var heads = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
        return (th.firstChild ? th.firstChild.textContent : "").trim();
      });
      var wanted = byTable[id].map(function (s) {
        return { col: heads.indexOf(s.getAttribute("data-filter-col")), v: s.value };
      });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var show = wanted.every(function (w) {
          return w.v === "" || w.col < 0 || row.cells[w.col].textContent.trim() === w.v;
        });
        row.hidden = !show;
      });
    });
  }
  Array.prototype.forEach.call(selects, function (s) { s.addEventListener("change", filter); });
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
}());
