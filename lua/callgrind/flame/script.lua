-- callgrind.flame.script: the style sheet and the script of the flame graph SVG. Both work in a
-- file of their own and inline in an HTML page beside other graphs: every rule is under the
-- graph's root class, the script finds its own graph (the SVG around it) and defines no global.
-- Neither contains "]]>", so both sit in CDATA sections.
local script = {}

script.STYLE = [[
.cgf-root text { font-family: Verdana, "DejaVu Sans", sans-serif; fill: #000; }
.cgf-root .cgf-f { cursor: pointer; }
.cgf-root .cgf-f rect { rx: 2px; ry: 2px; }
.cgf-root .cgf-f text { pointer-events: none; }
.cgf-root .cgf-f:hover rect { stroke: #000; stroke-width: 0.5px; }
.cgf-root .cgf-parent { opacity: 0.5; }
.cgf-root .cgf-mark rect { stroke: #1a3fd6; stroke-width: 1.5px; }
.cgf-root .cgf-found rect { fill: #e600e6; }
.cgf-root .cgf-heading { font-size: 17px; text-anchor: middle; }
.cgf-root .cgf-button { cursor: pointer; fill: #1a3fd6; }
.cgf-root .cgf-hidden { display: none; }
.cgf-root .cgf-right { text-anchor: end; }
]]

--- The graph's geometry comes from the root's data attributes (data-width, data-pad, data-total,
--- data-fh, data-font); frames from their own (data-x: offset and data-t: cost, in cost units;
--- data-d: depth; data-l: the label when the text shown is not the whole of it).
script.CODE = [[
(function () {
  "use strict";
  var me = document.currentScript;
  var root = me && me.closest ? me.closest("svg.cgf-root") : null;
  if (!root) {
    var all = document.querySelectorAll("svg.cgf-root");
    root = all[all.length - 1];
  }
  if (!root || root.cgf) return;
  var NS = "http://www.w3.org/2000/svg";
  var width = +root.getAttribute("data-width"), pad = +root.getAttribute("data-pad");
  var total = +root.getAttribute("data-total"), fh = +root.getAttribute("data-fh");
  var charWidth = +root.getAttribute("data-font") * 0.59;
  var details = root.querySelector(".cgf-details"), matched = root.querySelector(".cgf-matched");
  var resetButton = root.querySelector(".cgf-reset"), searchButton = root.querySelector(".cgf-search");
  var frames = [], byNode = new Map(), lastTerm = "";
  var nodes = root.querySelectorAll("g.cgf-f");
  for (var i = 0; i < nodes.length; i++) {
    var g = nodes[i], title = g.querySelector("title");
    var lines = title ? title.textContent.split("\n") : [""];
    var f = { g: g, rect: g.querySelector("rect"), text: g.querySelector("text"),
      x: +g.getAttribute("data-x"), t: +g.getAttribute("data-t"), d: +g.getAttribute("data-d"),
      name: lines[0], info: lines[1] || "", label: g.getAttribute("data-l") || lines[0] };
    frames.push(f);
    byNode.set(g, f);
  }

  function fit(f, w) {
    var n = Math.floor((w - 6) / charWidth);
    var s = n < 3 ? "" : (f.label.length <= n ? f.label : f.label.slice(0, n - 2) + "..");
    if (!f.text) {
      if (!s) return;
      f.text = document.createElementNS(NS, "text");
      f.g.appendChild(f.text);
    }
    f.text.textContent = s;
    f.text.setAttribute("x", (+f.rect.getAttribute("x") + 3).toFixed(2));
    f.text.setAttribute("y", (+f.rect.getAttribute("y") + fh / 2 + charWidth * 0.6).toFixed(2));
  }

  // Shows the frames inside [x0, x0 + t0] from depth d0 on across the whole width, the frames
  // that contain it above them dimmed, and hides the rest.
  function layout(x0, t0, d0) {
    var scale = (width - 2 * pad) / t0;
    frames.forEach(function (f) {
      var inside = f.d >= d0 && f.x >= x0 && f.x + f.t <= x0 + t0;
      var above = f.d < d0 && f.x <= x0 && f.x + f.t >= x0 + t0;
      var w = above ? width - 2 * pad : f.t * scale;
      if (!(inside || above) || w < 0.1) {
        f.g.classList.add("cgf-hidden");
        return;
      }
      f.g.classList.remove("cgf-hidden");
      f.g.classList.toggle("cgf-parent", above);
      f.rect.setAttribute("x", (above ? pad : pad + (f.x - x0) * scale).toFixed(2));
      f.rect.setAttribute("width", w.toFixed(2));
      fit(f, w);
    });
  }

  function zoom(f) {
    layout(f.x, f.t, f.d);
    resetButton.classList.remove("cgf-hidden");
  }

  function reset() {
    layout(0, total, 1);
    resetButton.classList.add("cgf-hidden");
  }

  function clearSearch() {
    frames.forEach(function (f) { f.g.classList.remove("cgf-found"); });
    matched.textContent = matched.getAttribute("data-marked") || "";
    searchButton.textContent = "Search";
    lastTerm = "";
  }

  // Highlights the frames whose name matches the regular expression and shows their share of
  // the total, counting a frame inside another match once.
  function search(term) {
    clearSearch();
    if (!term) return null;
    var re;
    try { re = new RegExp(term); } catch (e) {
      matched.textContent = "Bad expression: " + term;
      return null;
    }
    var hits = [];
    frames.forEach(function (f) {
      if (re.test(f.name)) {
        f.g.classList.add("cgf-found");
        hits.push(f);
      }
    });
    hits.sort(function (a, b) { return a.x - b.x || b.t - a.t; });
    var sum = 0, end = -1;
    hits.forEach(function (f) {
      if (f.x >= end) {
        sum += f.t;
        end = f.x + f.t;
      }
    });
    var share = total > 0 ? 100 * sum / total : 0;
    matched.textContent = "Matched: " + share.toFixed(2) + "%";
    searchButton.textContent = "Clear search";
    lastTerm = term;
    return share;
  }

  root.addEventListener("click", function (e) {
    var g = e.target.closest ? e.target.closest("g.cgf-f") : null;
    if (g && byNode.has(g)) zoom(byNode.get(g));
  });
  root.addEventListener("mouseover", function (e) {
    var g = e.target.closest ? e.target.closest("g.cgf-f") : null;
    if (g && byNode.has(g)) {
      var f = byNode.get(g);
      details.textContent = f.name + " \u2014 " + f.info;
    }
  });
  root.addEventListener("mouseout", function () { details.textContent = " "; });
  resetButton.addEventListener("click", reset);
  searchButton.addEventListener("click", function () {
    if (lastTerm) return clearSearch();
    var term = window.prompt("Search for frames whose name matches (a regular expression):", "");
    if (term) search(term);
  });

  // For the page around the graph: zoom to the widest frame of a function by name, reset, search.
  root.cgf = {
    zoom: function (name) {
      var best = null;
      frames.forEach(function (f) { if (f.name === name && (!best || f.t > best.t)) best = f; });
      if (best) zoom(best);
      return best !== null;
    },
    reset: reset,
    search: search,
    clear: clearSearch
  };
})();
]]

return script
