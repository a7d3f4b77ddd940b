// Tichu Arena report: sort any table with class "sortable" by clicking (or Enter on) a header.
(function () {
  "use strict";
  function value(cell, numeric) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) raw = cell.textContent;
    if (numeric) {
      var n = parseFloat(raw);
      return isNaN(n) ? null : n;
    }
    return raw.toLowerCase();
  }
  function sortBy(table, column, header) {
    var numeric = header.getAttribute("data-type") === "num";
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a.cells[column], numeric), y = value(b.cells[column], numeric);
      if (x === null && y === null) return 0;
      if (x === null) return 1;  // empty cells last, whatever the direction
      if (y === null) return -1;
      var order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(header.parentNode.cells, function (th) {
      th.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.addEventListener("click", function () { sortBy(table, column, header); });
      header.addEventListener("keydown", function (e) {
        if (e.key === "Enter") sortBy(table, column, header);
      });
    });
  });
})();
// A bot's output shows its last lines, where the error is: each box opens scrolled to its end.
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("pre.output"), function (box) {
    box.scrollTop = box.scrollHeight;
  });
})();
