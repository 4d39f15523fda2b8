document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.dataset.dir !== "asc"; th.dataset.dir = up ? "asc" : "desc";
      function key(row) { var t = row.cells[col].textContent.trim(), n = parseFloat(t.replace(/[,%]/g, ""));
        return t === "\u2013" ? null : (isNaN(n) ? t : n); }
      rows.sort(function (a, b) { var x = key(a), y = key(b);
        if (x === null) return 1; if (y === null) return -1;
        var r = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
        return up ? r : -r; });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.querySelectorAll(".plot img").forEach(function (img) {
  img.addEventListener("click", function () { img.parentNode.classList.toggle("zoomed"); });
});
