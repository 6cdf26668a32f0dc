-- callgrind.dot: a Graphviz call graph of a profile, in the style of gprof2dot.
--
--   local dot = require "callgrind.dot"
--   io.open("graph.dot", "w"):write(dot.graph(prof, { event = "Ir", strip = true }))
--   -- then: dot -Tsvg graph.dot -o graph.svg
--
-- One node per function above a share of the total, one edge per caller/callee pair (summed
-- over call sites) above another share, members of a cycle grouped in a cluster. Colours go from
-- cold (blue) through green and yellow to hot (red). Built on the public userdata API only.
--
-- The module is also callable: dot(prof, opts) is dot.graph(prof, opts). The jobs live in
-- dot/choose.lua (which nodes and edges), dot/colors.lua (palettes) and dot/text.lua (DOT
-- syntax, labels that tell functions apart); this file checks the options and writes the text.
local choose = require "callgrind.dot.choose"
local core = require "callgrind.core"
local colors = require "callgrind.dot.colors"
local format = require "callgrind.format"
local names = require "callgrind.names"
local query = require "callgrind.query"
local text = require "callgrind.dot.text"

local dot = {}

local floor, max, min, sqrt = math.floor, math.max, math.min, math.sqrt
local concat, sort = table.concat, table.sort
local clean, escape, quote, number = names.clean, text.escape, text.quote, text.number

local TIMES = "\195\151" -- U+00D7 MULTIPLICATION SIGN, as gprof2dot writes call counts
local FONT = "Helvetica"
local DEFAULT_WIDTH = 40 -- characters of a wrapped line (names.wrap's default)

local KNOWN_OPTIONS = {
  event = true, node_threshold = true, edge_threshold = true, root = true, leaf = true,
  strip = true, wrap = true, colors = true, show_self = true, title = true,
}

--- A C++ name without argument lists, template arguments and trailing qualifiers (names.strip).
dot.strip_name = names.strip

--- A name cut into lines of about `width` characters (names.wrap).
dot.wrap_name = names.wrap

---------------------------------------------------------------------------
-- Options
---------------------------------------------------------------------------

local function check_options(opts)
  if opts == nil then return {} end
  if type(opts) ~= "table" then error("dot.graph: options must be a table", 3) end
  for key in pairs(opts) do
    if not KNOWN_OPTIONS[key] then error(("dot.graph: unknown option '%s'"):format(tostring(key)), 3) end
  end
  for _, key in ipairs { "node_threshold", "edge_threshold" } do
    local v = opts[key]
    if v ~= nil and (type(v) ~= "number" or v ~= v or v < 0) then
      error(("dot.graph: %s must be a number of percent, 0 or more"):format(key), 3)
    end
  end
  local wrap = opts.wrap
  if wrap ~= nil and type(wrap) ~= "boolean" and not (type(wrap) == "number" and wrap >= 1) then
    error("dot.graph: wrap must be true, false or a width of 1 or more", 3)
  end
  if opts.colors ~= nil and not colors.palettes[opts.colors] then
    error(("dot.graph: colors must be 'color', 'gray' or 'bw', not '%s'"):format(tostring(opts.colors)), 3)
  end
  if opts.title ~= nil and type(opts.title) ~= "string" then error("dot.graph: title must be a string", 3) end
  return opts
end

-- What the writing below reads: the options with their defaults, the event, the total and the
-- shares, the functions with their focus sets.
local function settings(prof, opts, functions)
  local g = {
    prof = prof,
    opts = opts,
    node_threshold = opts.node_threshold or 0.5,
    edge_threshold = opts.edge_threshold or 0.1,
    palette_name = opts.colors or "color",
    show_self = opts.show_self ~= false,
    wrap_width = opts.wrap == true and DEFAULT_WIDTH or opts.wrap and floor(opts.wrap) or nil,
    out = {},
  }
  g.palette = colors.palettes[g.palette_name]
  g.shown_names = {}
  if opts.event ~= nil or prof:events()[1] ~= nil then g.event = query.event(prof, opts.event) end
  g.shown_event = g.event and escape(clean(g.event))
  local total = g.event and prof:total(g.event) or 0
  g.total = total
  function g.fraction(cost)
    if total == 0 then return 0 end
    return cost / total
  end
  function g.percent(cost) -- "48.78%", "100.0%", "n/a"
    return format.share(cost, total)
  end
  g.functions = choose.functions(prof, functions)
  -- the labels tell apart functions of one name: the profile's, or those of the list given
  g.namesakes = functions and text.namesakes(g.functions) or core.namesakes(prof)
  g.root = opts.root ~= nil and choose.focus(opts.root, "root", g.functions) or nil
  g.leaf = opts.leaf ~= nil and choose.focus(opts.leaf, "leaf", g.functions) or nil
  return g
end

---------------------------------------------------------------------------
-- The text
---------------------------------------------------------------------------

local function add(g, line)
  g.out[#g.out + 1] = line
end

local function header(g)
  add(g, "digraph " .. quote("callgraph") .. " {")
  add(g, ("  // event %s, total %s; functions from %s%%, calls from %s%% of the total"):format(
    escape(clean(g.event or "none")), format.thousands(g.total), tostring(g.node_threshold),
    tostring(g.edge_threshold)))
  local attrs = { "fontname", FONT, "nodesep", "0.125", "ranksep", "0.25" }
  if g.opts.title then
    local n = #attrs
    attrs[n + 1], attrs[n + 2] = "label", g.opts.title
    attrs[n + 3], attrs[n + 4] = "labelloc", "t"
    attrs[n + 5], attrs[n + 6] = "fontsize", "14"
  end
  -- the title is plain text: clean and escape it like the names
  local line = {}
  for i = 1, #attrs, 2 do line[#line + 1] = attrs[i] .. "=" .. quote(clean(attrs[i + 1])) end
  add(g, "  graph [" .. concat(line, ", ") .. "];")
  add(g, ("  node [shape=\"box\", style=\"filled\", fontname=%s, fontsize=\"10\", height=\"0\", width=\"0\"];")
    :format(quote(FONT)))
  add(g, ("  edge [fontname=%s, fontsize=\"10\"];"):format(quote(FONT)))
end

-- Cleaned text `s` escaped and cut into lines when the graph wraps names, added to `lines`.
local function add_wrapped(g, lines, s)
  local parts = g.wrap_width and dot.wrap_name(s, g.wrap_width) or { s }
  for _, part in ipairs(parts) do lines[#lines + 1] = escape(part) end
end

-- A function's name as DOT text (cleaned and escaped), made once per function: the node's
-- label and tooltip and the tooltip of every edge at it show it.
local function shown_name(g, fn)
  local name = g.shown_names[fn]
  if not name then
    name = escape(clean(fn.name))
    g.shown_names[fn] = name
  end
  return name
end

local function node_label(g, fn)
  local lines = {}
  if g.opts.strip or g.wrap_width then
    local name = clean(fn.name)
    if g.opts.strip then name = dot.strip_name(name) end
    add_wrapped(g, lines, name)
  else
    lines[1] = shown_name(g, fn)
  end
  if g.where[fn] then add_wrapped(g, lines, clean(g.where[fn])) end
  lines[#lines + 1] = g.percent(g.inclusive[fn])
  if g.show_self then lines[#lines + 1] = "(" .. g.percent(g.event and fn:self(g.event) or 0) .. ")" end
  lines[#lines + 1] = format.thousands(fn.called) .. TIMES
  return concat(lines, "\\n")
end

local function node_tooltip(g, fn)
  local lines = { shown_name(g, fn), escape(clean(names.file(fn.file))) }
  local object = fn.object
  if object and object ~= "" then lines[#lines + 1] = escape(clean(object)) end
  if fn.cycle then lines[#lines + 1] = escape(fn.cycle) end
  if g.event then
    lines[#lines + 1] = ("%s: inclusive %s, self %s"):format(g.shown_event,
      format.thousands(g.inclusive[fn]), format.thousands(fn:self(g.event)))
  end
  return concat(lines, "\\n")
end

local function node_line(g, fn, indent)
  local frac = g.fraction(g.inclusive[fn])
  local attrs = { 'label="' .. node_label(g, fn) .. '"', 'tooltip="' .. node_tooltip(g, fn) .. '"' }
  if g.palette_name == "bw" then
    local w = min(max(frac, 0), 1)
    attrs[#attrs + 1] = 'fillcolor="#ffffff"'
    attrs[#attrs + 1] = 'fontcolor="#000000"'
    attrs[#attrs + 1] = 'color="#000000"'
    attrs[#attrs + 1] = 'fontsize="' .. number(8 + 16 * w) .. '"'
    attrs[#attrs + 1] = 'penwidth="' .. number(max(0.5, 4 * w)) .. '"'
  else
    local r, gr, b = g.palette(colors.shaped(frac))
    local fill = colors.hex(r, gr, b)
    attrs[#attrs + 1] = 'fillcolor="' .. fill .. '"'
    attrs[#attrs + 1] = 'fontcolor="' .. colors.text_on(r, gr, b) .. '"'
    attrs[#attrs + 1] = 'color="' .. fill .. '"'
  end
  return ("%s%s [%s];"):format(indent, quote("fn" .. fn.id), concat(attrs, ", "))
end

-- Cycles: their drawn members inside a cluster. Returns the set of functions drawn there.
local function clusters(g)
  local in_cluster = {}
  for index, cycle in ipairs(g.prof:cycles()) do
    local members = {}
    for _, fn in ipairs(cycle.members) do
      if g.nodes[fn] then members[#members + 1] = fn end
    end
    if #members > 0 then
      sort(members, function(a, b) return a.id < b.id end)
      local id = cycle.name:match("(%d+)") or tostring(index)
      add(g, ("  subgraph %s {"):format(quote("cluster_cycle" .. id)))
      local attrs = { "label", clean(cycle.name), "style", "dashed,rounded", "color", "#808080",
        "fontcolor", "#404040", "fontname", FONT, "fontsize", "10" }
      local cost = g.event and cycle.inclusive and cycle.inclusive[g.event]
      if cost then
        attrs[#attrs + 1] = "tooltip"
        attrs[#attrs + 1] = ("%s: inclusive %s (%s)"):format(clean(cycle.name), g.percent(cost),
          format.thousands(cost))
      end
      add(g, "    graph " .. text.attributes(attrs) .. ";")
      for _, fn in ipairs(members) do
        add(g, node_line(g, fn, "    "))
        in_cluster[fn] = true
      end
      add(g, "  }")
    end
  end
  return in_cluster
end

-- Why nothing is drawn, as a node of plain text.
local function empty_note(g)
  local why
  if not g.event then
    why = "the profile has no events"
  elseif g.total == 0 then
    why = ("the profile has no %s cost"):format(clean(g.event))
  else
    why = ("no function reaches %s%% of the total"):format(tostring(g.node_threshold))
  end
  local attrs = text.attributes { "shape", "plaintext", "style", "solid", "label", why }
  add(g, "  " .. quote("empty") .. " " .. attrs .. ";")
end

local function nodes(g)
  local in_cluster = clusters(g)
  local drawn = 0
  for _, fn in ipairs(g.functions) do
    if g.nodes[fn] then
      drawn = drawn + 1
      if not in_cluster[fn] then add(g, node_line(g, fn, "  ")) end
    end
  end
  if drawn == 0 then empty_note(g) end
end

local function edge_tooltip(g, edge, what)
  return shown_name(g, edge.caller) .. " -> " .. shown_name(g, edge.callee) .. "\\n"
    .. format.thousands(edge.count) .. what
end

local function edge_line(g, edge, attrs)
  add(g, ("  %s -> %s [%s];"):format(quote("fn" .. edge.caller.id), quote("fn" .. edge.callee.id), concat(attrs, ", ")))
end

-- Recursive calls (a function calling itself, or calls within a cycle) nest: callgrind records
-- each one's inclusive cost, so their sum counts nested calls again and can pass the total.
-- They are drawn as thin dashed grey arrows with their call count only.
local function recursive_edge(g, edge)
  local tooltip = edge_tooltip(g, edge, " recursive " .. (edge.count == 1 and "call" or "calls")
    .. ": their cost is part of " .. (edge.caller == edge.callee and "the function's" or "the cycle's"))
  edge_line(g, edge, { 'label="' .. format.thousands(edge.count) .. TIMES .. '"', 'tooltip="' .. tooltip .. '"',
    'color="#808080"', 'fontcolor="#595959"', 'style="dashed"', 'penwidth="0.5"', 'arrowsize="0.5"' })
end

local function weighted_edge(g, edge)
  local frac = g.fraction(edge.cost)
  local w = min(max(frac, 0), 1)
  local r, gr, b = g.palette(colors.shaped(frac))
  local penwidth = max(0.5, 4 * w)
  local attrs = {
    'label="' .. g.percent(edge.cost) .. "\\n" .. format.thousands(edge.count) .. TIMES .. '"',
    'tooltip="' .. edge_tooltip(g, edge, edge.count == 1 and " call" or " calls") .. '"',
    'color="' .. colors.hex(r, gr, b) .. '"',
    'fontcolor="' .. colors.readable_on_white(r, gr, b) .. '"',
    'penwidth="' .. number(penwidth) .. '"',
    'arrowsize="' .. number(0.5 * sqrt(penwidth)) .. '"',
  }
  if g.palette_name == "bw" then attrs[#attrs + 1] = 'fontsize="' .. number(8 + 16 * w) .. '"' end
  edge_line(g, edge, attrs)
end

local function edges(g)
  for _, edge in ipairs(g.edges) do
    if edge.recursive then recursive_edge(g, edge) else weighted_edge(g, edge) end
  end
end

---------------------------------------------------------------------------
-- The graph
---------------------------------------------------------------------------

local draw -- the text of the graph the settings describe (below)

--- The DOT text of the call graph of `prof`.
--- opts.event: name or index (default the first event); opts.node_threshold: percent of the
--- total inclusive cost a function needs to be drawn (default 0.5); opts.edge_threshold: the same
--- for a caller/callee pair (default 0.1); opts.root / opts.leaf: a function, a name or a list of
--- them: only what they call / what calls them, transitively; opts.strip: C++ names without
--- arguments and template arguments; opts.wrap: true (about 40 characters) or a width;
--- opts.colors: "color" (default), "gray" or "bw"; opts.show_self (default true): the self share
--- under the inclusive one; opts.title: a caption at the top.
function dot.graph(prof, opts)
  return draw(settings(prof, check_options(opts)))
end

-- The costliest `limit` neighbours of `fn` on one side (fn.callers or fn.callees), by the
-- inclusive cost of their calls with it; and how many more there are.
local function costliest(fn, event, iterate, other_of, limit)
  local cost, list = {}, {}
  for call in iterate(fn) do
    local other = other_of(call)
    if other ~= fn then
      if not cost[other] then list[#list + 1] = other end
      cost[other] = (cost[other] or 0) + (event ~= nil and call:inclusive(event) or 0)
    end
  end
  sort(list, function(a, b)
    if cost[a] ~= cost[b] then return cost[a] > cost[b] end
    return a.id < b.id
  end)
  local kept = {}
  for i = 1, min(limit, #list) do kept[i] = list[i] end
  return kept, #list - #kept
end

--- The DOT text of the graph around one function: `fn`, its callers and its callees (the
--- `limit` costliest of each, default 12), with the calls between them whatever their share
--- (thresholds 0 unless given); the caption says how many were left out. Other options as
--- dot.graph's.
function dot.around(prof, fn, opts)
  if opts ~= nil and type(opts) ~= "table" then error("dot.around: options must be a table", 2) end
  if type(fn) ~= "userdata" then error("dot.around: a function of the profile expected", 2) end
  local limit = opts and opts.limit or 12
  if type(limit) ~= "number" or limit < 0 then error("dot.around: limit must be a number, 0 or more", 2) end
  local o = { node_threshold = 0, edge_threshold = 0 }
  for key, value in pairs(opts or {}) do
    if key ~= "limit" then o[key] = value end
  end
  o = check_options(o)
  local event = o.event
  if event == nil then event = prof:events()[1] end
  local callers, callers_left = costliest(fn, event, fn.callers, function(call) return call.caller end, limit)
  local callees, callees_left = costliest(fn, event, fn.callees, function(call) return call.callee end, limit)
  local seen, functions = { [fn] = true }, { fn }
  for _, list in ipairs { callers, callees } do
    for _, other in ipairs(list) do
      if not seen[other] then
        seen[other] = true
        functions[#functions + 1] = other
      end
    end
  end
  local left = callers_left + callees_left
  if left > 0 and o.title == nil then
    o.title = ("%s: the %d costliest callers and callees; %d more not drawn"):format(clean(fn.name), limit, left)
  end
  return draw(settings(prof, o, functions))
end

-- The text of the graph the settings describe.
function draw(g)
  local chosen = choose.nodes(g, g.node_threshold)
  local kept = choose.edges(g, chosen, g.edge_threshold)
  g.nodes, g.edges = choose.focused(chosen, kept, g.root, g.leaf)
  g.where = text.locations(g.namesakes, g.nodes)
  header(g)
  nodes(g)
  edges(g)
  add(g, "}")
  add(g, "") -- the last line's end, without copying the whole text again to append it
  return concat(g.out, "\n")
end

-- dot(prof, opts), as callgrind.dot(prof, opts) was called when it was a function.
setmetatable(dot, {
  __call = function(_, prof, opts) return dot.graph(prof, opts) end,
})

return dot
