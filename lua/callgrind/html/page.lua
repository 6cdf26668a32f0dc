-- callgrind.html.page: the HTML, style and script of the report page. The data comes in as JSON
-- text (callgrind.html builds it) and sits in a <script type="application/json"> element; the
-- script draws the summary, the table (only the rows in view: a page of rows at a time), the
-- function view and its tabs from it, so the page's size follows the data, not the markup.
local page = {}

local STYLE = [[
:root {
  --line: #d0d4da;
  --soft: #f3f5f8;
  --text: #1d2430;
  --dim: #5b6575;
  --link: #0b57d0;
  --hot: #fff1e6;
  --hotline: #e8590c;
}
* { box-sizing: border-box; }
body {
  margin: 0;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--text);
  background: #fff;
}
header { padding: 12px 20px 8px; border-bottom: 1px solid var(--line); background: var(--soft); }
h1 { font-size: 18px; margin: 0 0 6px; word-break: break-all; }
h2 { font-size: 16px; margin: 12px 0 6px; word-break: break-all; }
h3 { font-size: 14px; margin: 14px 0 4px; }
#summary { display: flex; flex-wrap: wrap; gap: 6px 28px; color: var(--dim); }
#summary b { color: var(--text); font-weight: 600; }
#summary table { border-collapse: collapse; }
#summary td { padding: 0 10px 0 0; }
nav {
  display: flex;
  align-items: center;
  gap: 4px;
  padding: 6px 20px 0;
  border-bottom: 1px solid var(--line);
  position: sticky;
  top: 0;
  background: #fff;
  z-index: 2;
}
nav button, .subtabs button {
  font: inherit;
  border: 1px solid var(--line);
  border-bottom: none;
  background: var(--soft);
  padding: 5px 12px;
  border-radius: 6px 6px 0 0;
  cursor: pointer;
  color: var(--text);
}
nav button.on, .subtabs button.on { background: #fff; font-weight: 600; position: relative; top: 1px; }
nav .spacer { flex: 1; }
nav label { color: var(--dim); padding-bottom: 4px; }
section { padding: 10px 20px 30px; }
.hidden { display: none !important; }
.controls { display: flex; gap: 16px; align-items: center; margin-bottom: 8px; flex-wrap: wrap; }
.controls input[type=search] {
  font: inherit;
  padding: 4px 8px;
  width: 28em;
  max-width: 100%;
  border: 1px solid var(--line);
  border-radius: 4px;
}
.count { color: var(--dim); }
table.grid { border-collapse: collapse; width: 100%; }
table.grid th, table.grid td {
  padding: 3px 8px;
  border-bottom: 1px solid #eceef1;
  text-align: left;
  vertical-align: top;
}
table.grid th {
  position: sticky;
  top: 34px;
  background: #fff;
  border-bottom: 2px solid var(--line);
  white-space: nowrap;
  cursor: pointer;
  user-select: none;
  z-index: 1;
}
table.grid th.sorted::after { content: " \25BC"; font-size: 10px; color: var(--dim); }
table.grid th.sorted.up::after { content: " \25B2"; }
table.grid td.num, table.grid th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.grid td.name { word-break: break-all; }
table.grid td.where { color: var(--dim); word-break: break-all; font-size: 13px; }
table.grid tbody tr:hover { background: #f7f9fc; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
button.more { font: inherit; margin-top: 8px; padding: 4px 12px; cursor: pointer; }
.note { color: var(--dim); font-style: italic; margin: 8px 0; }
.subtabs { display: flex; gap: 4px; border-bottom: 1px solid var(--line); margin: 12px 0 8px; }
.subtabs .go { margin-left: auto; border-radius: 6px; border-bottom: 1px solid var(--line); margin-bottom: 3px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dl.facts dt { color: var(--dim); }
dl.facts dd { margin: 0; word-break: break-all; }
pre, .src { font: 12px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre.asm { background: var(--soft); padding: 8px; overflow-x: auto; }
table.src { border-collapse: collapse; }
table.src td { padding: 0 8px; white-space: pre; }
table.src td.num { text-align: right; color: var(--dim); }
table.src td.ln { text-align: right; color: #98a1ad; border-right: 1px solid var(--line); }
table.src tr.cost td.num { color: var(--text); }
table.src tr.hot { background: var(--hot); }
table.src tr.hot td.ln { border-right: 3px solid var(--hotline); color: var(--hotline); font-weight: 600; }
table.src tr.call td { color: var(--dim); font-style: italic; }
table.src tr.gap td { color: #98a1ad; }
.graph svg { max-width: 100%; height: auto; }
.graph g.node[data-fn] { cursor: pointer; }
.recursive { color: var(--dim); font-size: 12px; }
]]

local SCRIPT = [==[
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("cg-data").textContent);
  var E = D.events, T = D.totals, F = D.functions, S = D.strings, C = D.calls, NE = E.length;
  var PAGE = 200;
  var state = {
    sort: null, up: false, filter: "", field: "any", all: false, limit: PAGE, percent: false, current: -1,
    sub: "calls"
  };
  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function thousands(n) {
    var neg = n < 0, s = String(Math.abs(n)), out = "";
    while (s.length > 3) { out = "," + s.slice(-3) + out; s = s.slice(0, -3); }
    return (neg ? "-" : "") + s + out;
  }
  function share(n, total) {
    if (total === 0) return "n/a";
    var p = 100 * n / total;
    return (Math.abs(p) >= 99.995 ? p.toFixed(1) : p.toFixed(2)) + "%";
  }
  function cost(n, ev) { return state.percent ? share(n, T[ev]) : thousands(n); }
  function fileOf(i) { var f = S[F[i][1]]; return f === "" ? "???" : f; }
  function objectOf(i) { return S[F[i][2]]; }
  function link(i) {
    var a = el("a", null, F[i][0]);
    a.href = "#fn=" + i;
    a.setAttribute("data-fn", i);
    return a;
  }

  // ---- summary
  function summary() {
    var s = D.summary, box = $("summary");
    document.title = D.title;
    $("title").textContent = D.title;
    function fact(label, value) {
      if (value === null || value === undefined || value === "") return;
      var d = el("div"); d.appendChild(el("span", null, label + " ")); d.appendChild(el("b", null, String(value)));
      box.appendChild(d);
    }
    fact("Command", s.cmd);
    fact("Creator", s.creator);
    fact("PID", s.pid);
    // callgrind writes cache parameters as "I1 cache:" with nothing after when there is no
    // cache simulation: those lines say nothing
    fact("", s.desc.filter(function (d) { return !/:\s*$/.test(d); }).join("; "));
    var t = el("table"), tb = el("tbody");
    for (var i = 0; i < NE; i++) {
      var r = el("tr"); r.appendChild(el("td", null, E[i])); r.appendChild(el("td", "num", thousands(T[i])));
      tb.appendChild(r);
    }
    t.appendChild(tb);
    var ev = el("div"); ev.appendChild(el("span", null, "Events")); ev.appendChild(t); box.appendChild(ev);
    var parts = [];
    for (var j = 0; j < s.sections.length; j++) {
      var p = s.sections[j], words = [];
      if (p.part !== null) words.push("part " + p.part);
      if (p.thread !== null) words.push("thread " + p.thread);
      if (p.pid !== null) words.push("pid " + p.pid);
      parts.push(words.length ? words.join(", ") : "section " + (j + 1));
    }
    fact(s.sections.length === 1 ? "Section" : s.sections.length + " sections:", parts.join("; "));
    fact("Functions", thousands(s.stats.functions));
    fact("Calls", thousands(s.stats.calls));
    fact("Files", s.sources.join(", "));
  }

  // ---- the table
  var COLUMNS = [];
  // the cost of event c in field k of a function's row (4 self, 5 inclusive)
  function costOf(k, c) {
    return function (i) { return F[i][k][c]; };
  }
  for (var c = 0; c < NE; c++) {
    COLUMNS.push({ key: "s" + c, label: E[c] + " self", num: true, value: costOf(4, c) });
    COLUMNS.push({ key: "i" + c, label: E[c] + " incl.", num: true, value: costOf(5, c) });
  }
  COLUMNS.push({ key: "calls", label: "calls", num: true, value: function (i) { return F[i][3]; } });
  COLUMNS.push({ key: "name", label: "function", value: function (i) { return F[i][0]; } });
  COLUMNS.push({ key: "file", label: "file", value: fileOf });
  COLUMNS.push({ key: "object", label: "object", value: objectOf });
  function column(key) {
    for (var k = 0; k < COLUMNS.length; k++) if (COLUMNS[k].key === key) return COLUMNS[k];
    return null;
  }

  function head() {
    var tr = el("tr");
    COLUMNS.forEach(function (col) {
      var th = el("th", col.num ? "num" : null, col.label);
      th.setAttribute("data-col", col.key);
      th.title = "sort by " + col.label;
      if (state.sort === col.key) th.className += " sorted" + (state.up ? " up" : "");
      th.addEventListener("click", function () { sortBy(col.key); });
      tr.appendChild(th);
    });
    var thead = $("table").tHead;
    thead.textContent = "";
    thead.appendChild(tr);
  }

  function sortBy(key) {
    var col = column(key);
    if (!col) return false;
    if (state.sort === key) state.up = !state.up;
    else { state.sort = key; state.up = !col.num; }
    state.limit = PAGE;
    draw();
    return true;
  }

  function view() {
    var n = state.all ? D.rows : D.shown, list = [], f = state.filter.toLowerCase(), field = state.field;
    function has(text) { return text.toLowerCase().indexOf(f) >= 0; }
    for (var i = 0; i < n; i++) {
      if (f && !((field === "any" || field === "name") && has(F[i][0]) ||
                 (field === "any" || field === "file") && has(fileOf(i)) ||
                 (field === "any" || field === "object") && has(objectOf(i)))) continue;
      list.push(i);
    }
    if (state.sort) {
      var col = column(state.sort), up = state.up ? 1 : -1;
      list.sort(function (a, b) {
        var x = col.value(a), y = col.value(b);
        if (x < y) return -up;
        if (x > y) return up;
        return a - b;
      });
    }
    return list;
  }

  function draw() {
    head();
    var list = view(), body = $("table").tBodies[0], shown = Math.min(list.length, state.limit);
    var frag = document.createDocumentFragment();
    for (var k = 0; k < shown; k++) {
      var i = list[k], tr = el("tr");
      tr.setAttribute("data-fn", i);
      for (var e = 0; e < NE; e++) {
        tr.appendChild(el("td", "num", cost(F[i][4][e], e)));
        tr.appendChild(el("td", "num", cost(F[i][5][e], e)));
      }
      tr.appendChild(el("td", "num", thousands(F[i][3])));
      var name = el("td", "name"); name.appendChild(link(i)); tr.appendChild(name);
      tr.appendChild(el("td", "where", fileOf(i)));
      tr.appendChild(el("td", "where", objectOf(i)));
      frag.appendChild(tr);
    }
    body.textContent = "";
    body.appendChild(frag);
    var more = $("more");
    more.classList.toggle("hidden", shown >= list.length);
    more.textContent = "Show " + Math.min(1000, list.length - shown) + " more ("
      + thousands(list.length - shown) + " not shown)";
    var cut = D.rows - D.shown;
    $("count").textContent = thousands(list.length) + " of " + thousands(D.rows) + " functions" +
      (state.all || cut === 0 ? ""
        : " (threshold " + D.threshold + "% of " + E[0] + ": " + thousands(cut) + " smaller ones hidden)");
  }

  // ---- calls of one function
  var byCaller = null, byCallee = null;
  function index() {
    if (byCaller) return;
    byCaller = {}; byCallee = {};
    for (var k = 0; k < C.length; k++) {
      var c = C[k];
      (byCaller[c[0]] || (byCaller[c[0]] = [])).push(c);
      (byCallee[c[1]] || (byCallee[c[1]] = [])).push(c);
    }
  }
  // calls summed per other function: [{fn, count, costs[], lines[]}], highest cost first
  function grouped(list, other) {
    var by = {}, out = [];
    (list || []).forEach(function (c) {
      var o = c[other], g = by[o];
      if (!g) {
        g = by[o] = { fn: o, count: 0, costs: [], lines: [] };
        for (var e = 0; e < NE; e++) g.costs[e] = 0;
        out.push(g);
      }
      g.count += c[2];
      for (var e2 = 0; e2 < NE; e2++) g.costs[e2] += c[3 + e2];
      var line = c[3 + NE];
      if (line && g.lines.indexOf(line) < 0) g.lines.push(line);
    });
    out.sort(function (a, b) { return b.costs[0] - a.costs[0] || a.fn - b.fn; });
    return out;
  }
  function callTable(title, groups, self, kind) {
    var box = el("div");
    box.appendChild(el("h3", null, title + " (" + groups.length + ")"));
    if (!groups.length) {
      box.appendChild(el("p", "note", kind === "callers" ? "No function calls it." : "It calls no function."));
      return box;
    }
    var t = el("table", "grid calls " + kind), tr = el("tr");
    tr.appendChild(el("th", "num", "count"));
    for (var e = 0; e < NE; e++) tr.appendChild(el("th", "num", E[e] + " incl."));
    tr.appendChild(el("th", null, kind === "callers" ? "caller" : "callee"));
    tr.appendChild(el("th", null, "call sites"));
    var thead = el("thead"); thead.appendChild(tr); t.appendChild(thead);
    var tb = el("tbody");
    groups.forEach(function (g) {
      var r = el("tr");
      r.setAttribute("data-fn", g.fn);
      r.appendChild(el("td", "num", thousands(g.count)));
      for (var e = 0; e < NE; e++) r.appendChild(el("td", "num", cost(g.costs[e], e)));
      var name = el("td", "name"); name.appendChild(link(g.fn));
      if (g.fn === self) name.appendChild(el("span", "recursive", " (recursive)"));
      r.appendChild(name);
      var site = g.lines.length ? fileOf(kind === "callers" ? g.fn : self) + ":" + g.lines.join(", ") : "";
      r.appendChild(el("td", "where", site));
      tb.appendChild(r);
    });
    t.appendChild(tb);
    box.appendChild(t);
    return box;
  }

  // ---- source
  var rangeOf = null, lineCosts = {};
  function sourceOf(i) {
    if (!rangeOf) { rangeOf = {}; D.ranges.forEach(function (r) { rangeOf[r[0]] = r; }); }
    var box = el("div"), r = rangeOf[i];
    if (!r) {
      var file = fileOf(i);
      box.appendChild(el("p", "note", file === "???" ? "The profile names no source file for this function." :
        "No source to show: " + file + " could not be read when this page was made, or has no lines of this function" +
        (D.sources_skipped ? " (" + D.sources_skipped
          + " source files were left out: the page holds at most the size its options allow)." : ".")));
      return box;
    }
    var src = D.sources[r[1]], costs = lineCosts[r[1]];
    if (!costs) {
      costs = lineCosts[r[1]] = {};
      src.costs.forEach(function (c) { costs[c[0]] = c; });
    }
    box.appendChild(el("p", "note", src.label + ", lines " + r[2] + " to " + r[3] + " and " + D.context
      + " around; costs are the whole line's, as in the annotated source"));
    var t = el("table", "src"), head = el("tr");
    head.appendChild(el("th", "ln", "line"));
    for (var e = 0; e < NE; e++) head.appendChild(el("th", "num", E[e]));
    for (var e2 = 0; e2 < NE; e2++) head.appendChild(el("th", "num", E[e2] + " calls"));
    head.appendChild(el("th", null, ""));
    t.appendChild(head);
    var from = Math.max(1, r[2] - D.context), to = Math.min(src.text.length, r[3] + D.context);
    for (var n = from; n <= to; n++) {
      var c = costs[n], tr = el("tr", c ? "cost" : null);
      tr.setAttribute("data-line", n);
      tr.appendChild(el("td", "ln", String(n)));
      var hot = false;
      for (var k = 0; k < 2 * NE; k++) {
        var v = c ? c[1 + k] : 0;
        if (k < NE && T[k] > 0 && v * 100 >= D.hot * T[k]) hot = true;
        tr.appendChild(el("td", "num", v ? cost(v, k % NE) : "."));
      }
      if (hot) tr.className += " hot";
      tr.appendChild(el("td", null, src.text[n - 1]));
      t.appendChild(tr);
    }
    box.appendChild(t);
    return box;
  }

  function graphOf(i) {
    var box = el("div", "graph");
    if (D.graphs[i] !== undefined) { box.innerHTML = D.graphs[i]; return box; }
    box.appendChild(el("p", "note", D.notes.graph ? "No call graph: " + D.notes.graph + "." :
      "Call graphs are drawn for the " + D.graph_limit
        + " hottest functions only; 'callgrind graph --root NAME FILE' draws any."));
    return box;
  }

  function asmOf(i) {
    var box = el("div");
    if (D.asm[i] !== undefined) { box.appendChild(el("pre", "asm", D.asm[i])); return box; }
    box.appendChild(el("p", "note", D.notes.asm ? "No machine code: " + D.notes.asm + "." :
      "Machine code is shown for the " + D.asm_limit
        + " hottest functions only; 'callgrind asm NAME FILE' shows any."));
    return box;
  }

  // ---- the function view
  var SUBS = ["calls", "source", "graph", "asm"];
  function showSub(name) {
    state.sub = name;
    SUBS.forEach(function (s) {
      $("sub-" + s).classList.toggle("hidden", s !== name);
      var b = document.querySelector('.subtabs button[data-sub="' + s + '"]');
      b.classList.toggle("on", s === name);
    });
    var i = state.current, box = $("sub-" + name);
    if (i < 0 || box.getAttribute("data-fn") === String(i)) return;
    box.textContent = "";
    box.setAttribute("data-fn", i);
    if (name === "source") box.appendChild(sourceOf(i));
    else if (name === "graph") box.appendChild(graphOf(i));
    else if (name === "asm") box.appendChild(asmOf(i));
  }

  function showFunction(i) {
    if (!render(i)) return false;
    tab("function");
    showSub(state.sub);
    window.scrollTo(0, 0);
    return true;
  }

  // the view of function i, drawn whatever tab is shown
  function render(i) {
    if (!(i >= 0 && i < F.length)) return false;
    state.current = i;
    index();
    $("fn-name").textContent = F[i][0];
    var info = $("fn-info");
    info.textContent = "";
    var dl = el("dl", "facts");
    function fact(k, v) { dl.appendChild(el("dt", null, k)); dl.appendChild(el("dd", null, v)); }
    fact("file", fileOf(i));
    fact("object", objectOf(i) || "-");
    fact("called", thousands(F[i][3]) + (F[i][3] === 1 ? " time" : " times"));
    for (var e = 0; e < NE; e++) fact(E[e], "self " + cost(F[i][4][e], e) + ", inclusive " + cost(F[i][5][e], e));
    info.appendChild(dl);
    var calls = $("sub-calls");
    calls.textContent = "";
    calls.setAttribute("data-fn", i);
    calls.appendChild(callTable("Callers", grouped(byCallee[i], 0), i, "callers"));
    calls.appendChild(callTable("Callees", grouped(byCaller[i], 1), i, "callees"));
    SUBS.forEach(function (s) { if (s !== "calls") $("sub-" + s).removeAttribute("data-fn"); });
    return true;
  }

  function inFlame(i) {
    var svg = $("cg-flame");
    tab("flame");
    if (!svg || !svg.cgf) return false;
    svg.cgf.reset();
    var name = F[i][0];
    var found = svg.cgf.zoom(name);
    svg.cgf.search("^" + name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$");
    $("flame-note").textContent = found ? "Zoomed to " + name + "; its frames are highlighted." :
      name + " has no frame wide enough to be drawn in this flame graph.";
    return found;
  }

  // ---- tabs and navigation
  var TABS = ["functions", "flame", "function"];
  function tab(name) {
    TABS.forEach(function (t) {
      $(t).classList.toggle("hidden", t !== name);
      $("tab-" + t).classList.toggle("on", t === name);
    });
    if (name === "function") $("tab-function").classList.remove("hidden");
  }

  function fromHash() {
    var m = /^#fn=(\d+)$/.exec(location.hash);
    if (m) return showFunction(Number(m[1]));
    if (location.hash === "#flame") { tab("flame"); return true; }
    tab("functions");
    return false;
  }

  document.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest("a[data-fn], g.node[data-fn]") : null;
    if (!a) return;
    ev.preventDefault();
    var i = Number(a.getAttribute("data-fn"));
    if (history.pushState) history.pushState(null, "", "#fn=" + i);
    showFunction(i);
  });
  window.addEventListener("popstate", fromHash);
  window.addEventListener("hashchange", fromHash);
  TABS.forEach(function (t) {
    $("tab-" + t).addEventListener("click", function () {
      if (t === "function" && state.current < 0) return;
      tab(t);
    });
  });
  SUBS.forEach(function (s) {
    document.querySelector('.subtabs button[data-sub="' + s + '"]')
      .addEventListener("click", function () { showSub(s); });
  });
  $("fn-flame").addEventListener("click", function () { inFlame(state.current); });
  $("more").addEventListener("click", function () { state.limit += 1000; draw(); });
  var timer = null;
  $("filter").addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.filter = $("filter").value; state.limit = PAGE; draw(); }, 120);
  });
  $("filter-field").addEventListener("change", function () {
    state.field = $("filter-field").value;
    state.limit = PAGE;
    draw();
  });
  $("all").addEventListener("change", function () { state.all = $("all").checked; state.limit = PAGE; draw(); });
  $("percent").addEventListener("change", function () {
    state.percent = $("percent").checked;
    draw();
    if (state.current >= 0) { render(state.current); showSub(state.sub); }
  });
  $("all-label").appendChild(document.createTextNode(" show all " + thousands(D.rows) + " functions"));
  if (D.notes.flame) $("flame-note").textContent = "No flame graph: " + D.notes.flame;

  summary();
  draw();
  fromHash();
  // how long the page took to be drawn, for benchmarks (bench/html.lua reads it)
  if (window.performance && performance.now) {
    document.documentElement.setAttribute("data-drawn-ms", String(Math.round(performance.now())));
  }
  // for scripts and tests that drive the page
  window.callgrindReport = { data: D, sortBy: sortBy, show: showFunction, flame: inFlame, tab: tab,
    filter: function (text, field) {
      $("filter").value = text; state.filter = text;
      if (field) { $("filter-field").value = field; state.field = field; }
      state.limit = PAGE; draw();
    },
    showAll: function (on) { $("all").checked = !!on; state.all = !!on; state.limit = PAGE; draw(); },
    percent: function (on) {
      $("percent").checked = !!on; state.percent = !!on; draw();
      if (state.current >= 0) { render(state.current); showSub(state.sub); }
    } };
})();
]==]

local BODY = [[
<header><h1 id="title"></h1><div id="summary"></div></header>
<nav>
<button id="tab-functions" class="on">Functions</button>
<button id="tab-flame">Flame graph</button>
<button id="tab-function" class="hidden">Function</button>
<span class="spacer"></span>
<label><input type="checkbox" id="percent"> costs as percentages</label>
</nav>
<section id="functions">
<div class="controls">
<input type="search" id="filter" placeholder="Filter by name, file or object" aria-label="filter">
<select id="filter-field" aria-label="what the filter looks at">
<option value="any">in name, file or object</option><option value="name">in the name</option>
<option value="file">in the file</option><option value="object">in the object</option>
</select>
<label id="all-label"><input type="checkbox" id="all"></label>
<span class="count" id="count"></span>
</div>
<table class="grid" id="table"><thead></thead><tbody></tbody></table>
<button class="more hidden" id="more"></button>
</section>
<section id="function" class="hidden">
<h2 id="fn-name"></h2>
<div id="fn-info"></div>
<div class="subtabs">
<button data-sub="calls" class="on">Callers and callees</button>
<button data-sub="source">Source</button>
<button data-sub="graph">Call graph</button>
<button data-sub="asm">Machine code</button>
<button class="go" id="fn-flame">Show in the flame graph</button>
</div>
<div id="sub-calls"></div>
<div id="sub-source" class="hidden"></div>
<div id="sub-graph" class="hidden"></div>
<div id="sub-asm" class="hidden"></div>
</section>
<section id="flame" class="hidden">
<p class="note" id="flame-note"></p>
]]

local ESCAPES = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }

local function escape(s)
  return (s:gsub('[&<>"]', ESCAPES))
end

--- The whole page: `data` is the JSON text of callgrind.html's data, `svg` the flame graph (an
--- inline SVG, or nil), `title` the page's title.
function page.render(data, svg, title)
  -- "<" only occurs inside JSON strings, where \u003c means the same: no "</script>" can end
  -- the element early
  local safe = data:gsub("<", "\\u003c")
  return table.concat {
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    "<title>", escape(title), "</title>\n<style>\n", STYLE, "</style>\n</head>\n<body>\n",
    BODY, svg or "", "\n</section>\n",
    '<script type="application/json" id="cg-data">', safe, "</script>\n",
    "<script>\n", SCRIPT, "</script>\n</body>\n</html>\n",
  }
end

return page
