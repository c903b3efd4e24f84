// qflow's bench page: sort and filter the problems table, open a problem's session.
"use strict";
(function () {
  const table = document.getElementById("problems");
  if (!table) return;
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const shown = document.getElementById("shown");
  const filter = document.getElementById("filter");
  const search = document.getElementById("search");
  const view = document.getElementById("session-view");

  function value(row, col, type) {
    const cell = row.cells[col];
    const v = cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent;
    return type === "num" ? Number(v) : String(v).toLowerCase();
  }

  table.querySelectorAll("th button.sort").forEach(function (button) {
    button.addEventListener("click", function () {
      const th = button.parentElement;
      const col = Number(button.dataset.col);
      const type = th.dataset.type;
      const down = th.getAttribute("aria-sort") === "ascending";
      table.querySelectorAll("thead th").forEach(function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      const sorted = rows.slice().sort(function (a, b) {
        const x = value(a, col, type), y = value(b, col, type);
        const c = x < y ? -1 : x > y ? 1 : 0;
        return down ? -c : c;
      });
      const frag = document.createDocumentFragment();
      sorted.forEach(function (r) { frag.appendChild(r); });
      body.appendChild(frag);
    });
  });

  function apply() {
    const kind = filter.value;
    const text = search.value.trim().toLowerCase();
    let n = 0;
    rows.forEach(function (r) {
      const keep = (kind === "all" || r.dataset[kind] === "1") && (!text || r.dataset.id.indexOf(text) >= 0);
      r.hidden = !keep;
      if (keep) n += 1;
    });
    shown.textContent = n + " of " + rows.length + " shown";
  }
  filter.addEventListener("change", apply);
  search.addEventListener("input", apply);

  // The sessions follow this script in the file: the table works before the browser has read them.
  const parsed = new Promise(function (resolve) {
    if (document.readyState !== "loading") resolve();
    else document.addEventListener("DOMContentLoaded", resolve);
  });

  async function unpack(id) {
    await parsed;
    const text = document.getElementById(id).textContent.trim();
    const bytes = Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); });
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return await new Response(stream).text();
  }

  body.addEventListener("click", function (event) {
    const button = event.target.closest("button.open");
    if (!button) return;
    unpack(button.dataset.s).then(function (html) {
      // The session's HTML was written by qflow with every outside text escaped.
      view.innerHTML = '<p><button type="button" id="close-session">Close the session (Esc)</button></p>' + html;
      view.querySelector("#close-session").addEventListener("click", close);
      view.dataset.opened = button.dataset.s;
      view.focus();
    }).catch(function (err) {
      view.textContent = "This session could not be unpacked: " + err;
    });
  });

  function close() {
    const opened = view.dataset.opened;
    view.innerHTML = "";
    delete view.dataset.opened;
    const back = opened && body.querySelector('button[data-s="' + opened + '"]');
    if (back) back.focus();
  }
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && view.dataset.opened) close();
  });
  // A link may name a view: #show=failed (or flipped, near) and #problem=ID (its session opened).
  const wanted = new URLSearchParams(location.hash.slice(1));
  const show = wanted.get("show");
  if (show && filter.querySelector('option[value="' + CSS.escape(show) + '"]')) {
    filter.value = show;
    apply();
  }
  const problem = wanted.get("problem");
  if (problem) {
    const row = rows.find(function (r) { return r.dataset.id === problem.toLowerCase(); });
    const button = row && row.querySelector("button.open");
    if (button) button.click();
  }
  document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
  window.addEventListener("load", function () {
    document.documentElement.dataset.loadedMs = String(Math.round(performance.now()));
  });
})();
