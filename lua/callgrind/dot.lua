-- callgrind.dot: a Graphviz call graph of a profile, in the style of gprof2dot.
--
--   local dot = require "callgrind.dot"
--   io.open("graph.dot", "w"):write(dot.graph(prof, { event = "Ir", strip = true }))
--   -- then: dot -Tsvg graph.dot -o graph.svg
--
-- One node per function above a share of the total, one edge per caller/callee pair (summed
-- over call sites) above another share, members of a cycle grouped in a cluster. Colours go from
-- cold (blue) through green and yellow to hot (red). Built on the public userdata API only.
local format = require "callgrind.format"
local names = require "callgrind.names"

local dot = {}

local floor, max, min, sqrt = math.floor, math.max, math.min, math.sqrt
local concat, sort = table.concat, table.sort

local TIMES = "\195\151" -- U+00D7 MULTIPLICATION SIGN, as gprof2dot writes call counts
local FONT = "Helvetica"
local DEFAULT_WIDTH = 40 -- characters of a wrapped line (names.wrap's default)

local KNOWN_OPTIONS = {
  event = true, node_threshold = true, edge_threshold = true, root = true, leaf = true,
  strip = true, wrap = true, colors = true, show_self = true, title = true,
}

---------------------------------------------------------------------------------------------
-- Text: DOT escapes. Valid UTF-8, C++ name stripping and wrapping are callgrind.names'.

local clean = names.clean

--- A C++ name without argument lists, template arguments and trailing qualifiers (names.strip).
dot.strip_name = names.strip

--- A name cut into lines of about `width` characters (names.wrap).
dot.wrap_name = names.wrap

local ESCAPES = { ["\\"] = "\\\\", ['"'] = '\\"', ["&"] = "&amp;" }

--- Text for a double-quoted DOT string. Backslashes start escapes (\n, \N, \G...) and Graphviz
--- reads HTML entities (&lt;, &amp;) in labels, so both are escaped; `<`, `>`, `{`, `}` and `|`
--- mean nothing outside record shapes and HTML labels, and stay as they are.
local function escape(s)
  return (s:gsub('[\\"&]', ESCAPES))
end

local function quote(s)
  return '"' .. escape(s) .. '"'
end

---------------------------------------------------------------------------------------------
-- Colours.

local function hue_to_rgb(m1, m2, h)
  h = h % 1
  if h * 6 < 1 then return m1 + (m2 - m1) * h * 6 end
  if h * 2 < 1 then return m2 end
  if h * 3 < 2 then return m1 + (m2 - m1) * (2 / 3 - h) * 6 end
  return m1
end

local function hsl(h, s, l)
  local m2 = l <= 0.5 and l * (s + 1) or l + s - l * s
  local m1 = 2 * l - m2
  return hue_to_rgb(m1, m2, h + 1 / 3), hue_to_rgb(m1, m2, h), hue_to_rgb(m1, m2, h - 1 / 3)
end

local function to_linear(c)
  if c <= 0.04045 then return c / 12.92 end
  return ((c + 0.055) / 1.055) ^ 2.4
end

local function from_linear(c)
  if c <= 0.0031308 then return 12.92 * c end
  return 1.055 * c ^ (1 / 2.4) - 0.055
end

local function luminance(r, g, b)
  return 0.2126 * to_linear(r) + 0.7152 * to_linear(g) + 0.0722 * to_linear(b)
end

local function hex(r, g, b)
  local function channel(c)
    return floor(min(max(c, 0), 1) * 255 + 0.5)
  end
  return string.format("#%02x%02x%02x", channel(r), channel(g), channel(b))
end

--- Black or white, whichever stands out more on the colour (WCAG contrast).
local function text_on(r, g, b)
  local l = luminance(r, g, b)
  if (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.05) then return "#ffffff" end
  return "#000000"
end

--- The colour darkened until it reads on a white page (contrast 4.5 or more), for edge labels.
local function readable_on_white(r, g, b)
  local limit = 1.05 / 4.5 - 0.05
  local l = luminance(r, g, b)
  if l <= limit then return hex(r, g, b) end
  local k = limit / l
  return hex(from_linear(to_linear(r) * k), from_linear(to_linear(g) * k), from_linear(to_linear(b) * k))
end

-- The share of the total (0..1) is raised to 1/GAMMA before it picks a colour, so that the many
-- functions of a few percent get distinct colours instead of all looking equally cold.
local GAMMA = 2.2

local PALETTES = {
  -- cold to hot: dark blue (hue 240 degrees), cyan, green, yellow, saturated red (hue 0)
  color = function(t)
    return hsl((2 / 3) * (1 - t), 0.8 + 0.2 * t, 0.3 + 0.2 * t)
  end,
  -- light grey to black
  gray = function(t)
    return hsl(0, 0, 0.9 - 0.85 * t)
  end,
  -- black lines and text on white; the share shows in pen widths and font sizes
  bw = function()
    return 0, 0, 0
  end,
}
PALETTES.grey = PALETTES.gray

local function shaped(fraction)
  return min(max(fraction, 0), 1) ^ (1 / GAMMA)
end

---------------------------------------------------------------------------------------------
-- The graph.

local function attributes(list)
  local out = {}
  for i = 1, #list, 2 do
    out[#out + 1] = list[i] .. "=" .. quote(list[i + 1])
  end
  return "[" .. concat(out, ", ") .. "]"
end

local function number_text(x)
  return (string.format("%.2f", x))
end

local function basename(path)
  return path:match("([^/\\]+)[/\\]*$") or path
end

--- For each function whose name other functions share, the text that tells it apart: the
--- file's base name, the whole file, and the object as well when needed.
local function locations(functions)
  local by_name = {}
  for _, fn in ipairs(functions) do
    local group = by_name[fn.name]
    if not group then
      group = {}
      by_name[fn.name] = group
    end
    group[#group + 1] = fn
  end
  local schemes = {
    function(fn) return basename(fn.file ~= "" and fn.file or "???") end,
    function(fn) return fn.file ~= "" and fn.file or "???" end,
    function(fn)
      return basename(fn.file ~= "" and fn.file or "???") .. " [" .. basename(fn.object or "") .. "]"
    end,
    function(fn) return (fn.file ~= "" and fn.file or "???") .. " [" .. (fn.object or "") .. "]" end,
  }
  local where = {}
  for _, group in pairs(by_name) do
    if #group > 1 then
      local chosen = schemes[#schemes]
      for _, scheme in ipairs(schemes) do
        local seen, unique = {}, true
        for _, fn in ipairs(group) do
          local text = scheme(fn)
          if seen[text] then
            unique = false
            break
          end
          seen[text] = true
        end
        if unique then
          chosen = scheme
          break
        end
      end
      for _, fn in ipairs(group) do where[fn] = chosen(fn) end
    end
  end
  return where
end

--- Functions named by a focus option: a function object, a name (every function of that name),
--- or a list of those. Returns a set.
local function focus_set(option, what, functions)
  local set, any = {}, false
  local items = option
  if type(option) ~= "table" then items = { option } end
  for _, item in ipairs(items) do
    if type(item) == "string" then
      local found = false
      for _, fn in ipairs(functions) do
        if fn.name == item then
          set[fn] = true
          found = true
        end
      end
      if not found then error(("dot.graph: %s: no function named '%s'"):format(what, item), 4) end
    elseif type(item) == "userdata" then
      set[item] = true
    else
      error(("dot.graph: %s must be a function, a name or a list of them, not a %s"):format(what,
        type(item)), 4)
    end
    any = true
  end
  if not any then error(("dot.graph: %s names no function"):format(what), 4) end
  return set
end

--- Keeps the nodes reachable from `from` along kept edges (`forward`: caller to callee).
local function reach(from, edges, nodes, forward)
  local next_of = {}
  for _, edge in ipairs(edges) do
    local a, b = edge.caller, edge.callee
    if not forward then a, b = b, a end
    local list = next_of[a]
    if not list then
      list = {}
      next_of[a] = list
    end
    list[#list + 1] = b
  end
  local seen, stack = {}, {}
  for fn in pairs(from) do
    if nodes[fn] then
      seen[fn] = true
      stack[#stack + 1] = fn
    end
  end
  while #stack > 0 do
    local fn = stack[#stack]
    stack[#stack] = nil
    for _, other in ipairs(next_of[fn] or {}) do
      if not seen[other] and nodes[other] then
        seen[other] = true
        stack[#stack + 1] = other
      end
    end
  end
  return seen
end

local function filter_edges(edges, nodes)
  local kept = {}
  for _, edge in ipairs(edges) do
    if nodes[edge.caller] and nodes[edge.callee] then kept[#kept + 1] = edge end
  end
  return kept
end

local draw -- the graph of a list of functions (below)

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
  if opts.colors ~= nil and not PALETTES[opts.colors] then
    error(("dot.graph: colors must be 'color', 'gray' or 'bw', not '%s'"):format(tostring(opts.colors)), 3)
  end
  if opts.title ~= nil and type(opts.title) ~= "string" then error("dot.graph: title must be a string", 3) end
  return opts
end

--- The DOT text of the call graph of `prof`.
-- opts.event: name or index (default the first event); opts.node_threshold: percent of the
-- total inclusive cost a function needs to be drawn (default 0.5); opts.edge_threshold: the same
-- for a caller/callee pair (default 0.1); opts.root / opts.leaf: a function, a name or a list of
-- them: only what they call / what calls them, transitively; opts.strip: C++ names without
-- arguments and template arguments; opts.wrap: true (about 40 characters) or a width;
-- opts.colors: "color" (default), "gray" or "bw"; opts.show_self (default true): the self share
-- under the inclusive one; opts.title: a caption at the top.
function dot.graph(prof, opts)
  return draw(prof, check_options(opts))
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
  -- the neighbours of each side by the inclusive cost of their calls with fn
  local function side(iterate, other_of)
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
    return list
  end
  local callers = side(fn.callers, function(call) return call.caller end)
  local callees = side(fn.callees, function(call) return call.callee end)
  local seen, functions = { [fn] = true }, { fn }
  for _, list in ipairs { callers, callees } do
    for i = 1, min(limit, #list) do
      if not seen[list[i]] then
        seen[list[i]] = true
        functions[#functions + 1] = list[i]
      end
    end
  end
  local left = max(0, #callers - limit) + max(0, #callees - limit)
  if left > 0 and o.title == nil then
    o.title = ("%s: the %d costliest callers and callees; %d more not drawn"):format(clean(fn.name), limit, left)
  end
  return draw(prof, o, functions)
end

-- The graph of `functions` (default every function of the profile).
function draw(prof, opts, functions)
  local node_threshold = opts.node_threshold or 0.5
  local edge_threshold = opts.edge_threshold or 0.1
  local palette_name = opts.colors or "color"
  local palette = PALETTES[palette_name]
  local show_self = opts.show_self ~= false
  local wrap_width = opts.wrap == true and DEFAULT_WIDTH or opts.wrap and floor(opts.wrap) or nil

  local event = opts.event
  if event == nil then event = prof:events()[1] end
  local event_name = event ~= nil and prof:event_info(event).name or nil

  if not functions then
    functions = {}
    for fn in prof:functions() do functions[#functions + 1] = fn end
  end
  sort(functions, function(a, b) return a.id < b.id end)

  local root_set = opts.root ~= nil and focus_set(opts.root, "root", functions) or nil
  local leaf_set = opts.leaf ~= nil and focus_set(opts.leaf, "leaf", functions) or nil

  local total = event_name and prof:total(event_name) or 0
  local function fraction(cost)
    if total == 0 then return 0 end
    return cost / total
  end
  local function percent(cost) -- "48.78%", "100.0%", "n/a" (format.percent without padding)
    return (format.percent(cost, total):gsub("[ ()]", ""))
  end

  -- nodes above the threshold, and the focus functions whatever their share
  local inclusive, nodes = {}, {}
  for _, fn in ipairs(functions) do
    local cost = event_name and fn:inclusive(event_name) or 0
    inclusive[fn] = cost
    if fraction(cost) * 100 >= node_threshold or (root_set and root_set[fn]) or (leaf_set and leaf_set[fn]) then
      nodes[fn] = true
    end
  end

  -- one edge per caller/callee pair between drawn nodes, above the threshold
  local edges = {}
  for _, fn in ipairs(functions) do
    if nodes[fn] then
      local pairs_of, order = {}, {}
      for call in fn:callees() do
        local callee = call.callee
        if nodes[callee] then
          local edge = pairs_of[callee]
          if not edge then
            edge = { caller = fn, callee = callee, count = 0, cost = 0 }
            pairs_of[callee] = edge
            order[#order + 1] = edge
          end
          edge.count = edge.count + call.count
          edge.cost = edge.cost + (event_name and call:inclusive(event_name) or 0)
        end
      end
      for _, edge in ipairs(order) do
        -- a recursive call's cost is nested in its caller's: a share of it would overlap
        edge.recursive = edge.caller == edge.callee or (fn.cycle ~= nil and edge.callee.cycle == fn.cycle)
        if edge.recursive or fraction(edge.cost) * 100 >= edge_threshold then edges[#edges + 1] = edge end
      end
    end
  end

  -- focus, the way gprof2dot prunes: from the root down, then from the leaf up
  if root_set then
    nodes = reach(root_set, edges, nodes, true)
    edges = filter_edges(edges, nodes)
  end
  if leaf_set then
    nodes = reach(leaf_set, edges, nodes, false)
    edges = filter_edges(edges, nodes)
  end
  sort(edges, function(a, b)
    if a.caller.id ~= b.caller.id then return a.caller.id < b.caller.id end
    return a.callee.id < b.callee.id
  end)

  local where = locations(functions)

  local out = {}
  local function add(line) out[#out + 1] = line end

  add("digraph " .. quote("callgraph") .. " {")
  add(("  // event %s, total %s; functions from %s%%, calls from %s%% of the total"):format(
    escape(clean(event_name or "none")), format.thousands(total), tostring(node_threshold), tostring(edge_threshold)))
  local graph_attrs = { "fontname", FONT, "nodesep", "0.125", "ranksep", "0.25" }
  if opts.title then
    local n = #graph_attrs
    graph_attrs[n + 1], graph_attrs[n + 2] = "label", opts.title
    graph_attrs[n + 3], graph_attrs[n + 4] = "labelloc", "t"
    graph_attrs[n + 5], graph_attrs[n + 6] = "fontsize", "14"
  end
  -- the title is plain text: clean and escape it like the names
  local graph_line = {}
  for i = 1, #graph_attrs, 2 do
    graph_line[#graph_line + 1] = graph_attrs[i] .. "=" .. quote(clean(graph_attrs[i + 1]))
  end
  add("  graph [" .. concat(graph_line, ", ") .. "];")
  add(("  node [shape=\"box\", style=\"filled\", fontname=%s, fontsize=\"10\", height=\"0\", width=\"0\"];")
    :format(quote(FONT)))
  add(("  edge [fontname=%s, fontsize=\"10\"];"):format(quote(FONT)))

  local function node_line(fn, indent)
    local frac = fraction(inclusive[fn])
    local t = shaped(frac)
    local lines = {}
    local name = clean(fn.name)
    if opts.strip then name = dot.strip_name(name) end
    local name_lines = wrap_width and dot.wrap_name(name, wrap_width) or { name }
    for _, line in ipairs(name_lines) do lines[#lines + 1] = escape(line) end
    if where[fn] then
      local location = clean(where[fn])
      local location_lines = wrap_width and dot.wrap_name(location, wrap_width) or { location }
      for _, line in ipairs(location_lines) do lines[#lines + 1] = escape(line) end
    end
    lines[#lines + 1] = percent(inclusive[fn])
    if show_self then lines[#lines + 1] = "(" .. percent(event_name and fn:self(event_name) or 0) .. ")" end
    lines[#lines + 1] = format.thousands(fn.called) .. TIMES

    local tooltip = { clean(fn.name), clean(fn.file ~= "" and fn.file or "???") }
    if fn.object and fn.object ~= "" then tooltip[#tooltip + 1] = clean(fn.object) end
    if fn.cycle then tooltip[#tooltip + 1] = fn.cycle end
    if event_name then
      tooltip[#tooltip + 1] = ("%s: inclusive %s, self %s"):format(clean(event_name),
        format.thousands(inclusive[fn]), format.thousands(fn:self(event_name)))
    end
    for i, text in ipairs(tooltip) do tooltip[i] = escape(text) end

    local r, g, b = palette(t)
    local attrs = { 'label="' .. concat(lines, "\\n") .. '"', 'tooltip="' .. concat(tooltip, "\\n") .. '"' }
    if palette_name == "bw" then
      attrs[#attrs + 1] = 'fillcolor="#ffffff"'
      attrs[#attrs + 1] = 'fontcolor="#000000"'
      attrs[#attrs + 1] = 'color="#000000"'
      attrs[#attrs + 1] = 'fontsize="' .. number_text(8 + 16 * min(max(frac, 0), 1)) .. '"'
      attrs[#attrs + 1] = 'penwidth="' .. number_text(max(0.5, 4 * min(max(frac, 0), 1))) .. '"'
    else
      local fill_color = hex(r, g, b)
      attrs[#attrs + 1] = 'fillcolor="' .. fill_color .. '"'
      attrs[#attrs + 1] = 'fontcolor="' .. text_on(r, g, b) .. '"'
      attrs[#attrs + 1] = 'color="' .. fill_color .. '"'
    end
    return ("%s%s [%s];"):format(indent, quote("fn" .. fn.id), concat(attrs, ", "))
  end

  -- cycles: their drawn members inside a cluster
  local in_cluster = {}
  local cycle_index = 0
  for _, cycle in ipairs(prof:cycles()) do
    cycle_index = cycle_index + 1
    local members = {}
    for _, fn in ipairs(cycle.members) do
      if nodes[fn] then members[#members + 1] = fn end
    end
    if #members > 0 then
      sort(members, function(a, b) return a.id < b.id end)
      local id = cycle.name:match("(%d+)") or tostring(cycle_index)
      add(("  subgraph %s {"):format(quote("cluster_cycle" .. id)))
      local cluster = { "label", clean(cycle.name), "style", "dashed,rounded", "color", "#808080",
        "fontcolor", "#404040", "fontname", FONT, "fontsize", "10" }
      local cycle_cost = event_name and cycle.inclusive and cycle.inclusive[event_name]
      if cycle_cost then
        cluster[#cluster + 1] = "tooltip"
        cluster[#cluster + 1] = ("%s: inclusive %s (%s)"):format(clean(cycle.name), percent(cycle_cost),
          format.thousands(cycle_cost))
      end
      add("    graph " .. attributes(cluster) .. ";")
      for _, fn in ipairs(members) do
        add(node_line(fn, "    "))
        in_cluster[fn] = true
      end
      add("  }")
    end
  end

  local drawn = 0
  for _, fn in ipairs(functions) do
    if nodes[fn] then
      drawn = drawn + 1
      if not in_cluster[fn] then add(node_line(fn, "  ")) end
    end
  end
  if drawn == 0 then
    local why
    if not event_name then
      why = "the profile has no events"
    elseif total == 0 then
      why = ("the profile has no %s cost"):format(clean(event_name))
    else
      why = ("no function reaches %s%% of the total"):format(tostring(node_threshold))
    end
    add("  " .. quote("empty") .. " " .. attributes { "shape", "plaintext", "style", "solid", "label", why } .. ";")
  end

  -- Recursive calls (a function calling itself, or calls within a cycle) nest: callgrind records
  -- each one's inclusive cost, so their sum counts nested calls again and can pass the total.
  -- They are drawn as thin dashed grey arrows with their call count only.
  local function recursive_edge(edge)
    local tooltip = escape(clean(edge.caller.name)) .. " -> " .. escape(clean(edge.callee.name)) .. "\\n"
      .. format.thousands(edge.count) .. " recursive " .. (edge.count == 1 and "call" or "calls")
      .. ": their cost is part of " .. (edge.caller == edge.callee and "the function's" or "the cycle's")
    local attrs = { 'label="' .. format.thousands(edge.count) .. TIMES .. '"', 'tooltip="' .. tooltip .. '"',
      'color="#808080"', 'fontcolor="#595959"', 'style="dashed"', 'penwidth="0.5"', 'arrowsize="0.5"' }
    add(("  %s -> %s [%s];"):format(quote("fn" .. edge.caller.id), quote("fn" .. edge.callee.id), concat(attrs, ", ")))
  end

  local function weighted_edge(edge)
    local frac = fraction(edge.cost)
    local w = min(max(frac, 0), 1)
    local r, g, b = palette(shaped(frac))
    local penwidth = max(0.5, 4 * w)
    local label = percent(edge.cost) .. "\\n" .. format.thousands(edge.count) .. TIMES
    local tooltip = escape(clean(edge.caller.name)) .. " -> " .. escape(clean(edge.callee.name)) .. "\\n"
      .. format.thousands(edge.count) .. (edge.count == 1 and " call" or " calls")
    local attrs = {
      'label="' .. label .. '"',
      'tooltip="' .. tooltip .. '"',
      'color="' .. hex(r, g, b) .. '"',
      'fontcolor="' .. readable_on_white(r, g, b) .. '"',
      'penwidth="' .. number_text(penwidth) .. '"',
      'arrowsize="' .. number_text(0.5 * sqrt(penwidth)) .. '"',
    }
    if palette_name == "bw" then attrs[#attrs + 1] = 'fontsize="' .. number_text(8 + 16 * w) .. '"' end
    add(("  %s -> %s [%s];"):format(quote("fn" .. edge.caller.id), quote("fn" .. edge.callee.id), concat(attrs, ", ")))
  end

  for _, edge in ipairs(edges) do
    if edge.recursive then recursive_edge(edge) else weighted_edge(edge) end
  end

  add("}")
  return concat(out, "\n") .. "\n"
end

return dot
