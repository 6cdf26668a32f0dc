-- callgrind.dot.choose: what a call graph draws. Functions above a share of the total become
-- nodes, caller/callee pairs between nodes above another share become edges (their call sites
-- summed), and the focus options keep what a root calls or what calls a leaf, the way gprof2dot
-- prunes.
local core = require "callgrind.core"
local query = require "callgrind.query"

local choose = {}

local max, sort = math.max, table.sort

local function by_id(a, b)
  return a.id < b.id
end

--- The functions of a profile (or the list `only`) in id order.
function choose.functions(prof, only)
  local functions = {}
  if not only then
    -- prof:functions() gives them in id order already
    for fn in prof:functions() do functions[#functions + 1] = fn end
    return functions
  end
  for i, fn in ipairs(only) do functions[i] = fn end
  sort(functions, by_id)
  return functions
end

--- The functions named by a focus option: a function object, a name (every function of that
--- name), or a list of those; `what` names the option in errors. Returns a set.
function choose.focus(option, what, functions)
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

--- The nodes: every function whose inclusive cost reaches `threshold` percent of the total,
--- and the focus functions (`g.root`, `g.leaf`) whatever their share. Sets `g.inclusive` (the
--- cost of every function) and returns the set of nodes.
function choose.nodes(g, threshold)
  local inclusive, nodes = {}, {}
  local root, leaf = g.root or {}, g.leaf or {}
  for _, fn in ipairs(g.functions) do
    local cost = g.event and fn:inclusive(g.event) or 0
    inclusive[fn] = cost
    if g.fraction(cost) * 100 >= threshold or root[fn] or leaf[fn] then nodes[fn] = true end
  end
  g.inclusive = inclusive
  return nodes
end

--- One edge per caller/callee pair between nodes, { caller =, callee =, count =, cost =,
--- recursive = }, kept when recursive or when its cost reaches `threshold` percent of the
--- total; in the order of the functions, then of their first call. The calls are summed per
--- pair in C (core.call_pairs): Lua sees each pair once, not each call record.
function choose.edges(g, nodes, threshold)
  local callers = {}
  for _, fn in ipairs(g.functions) do
    if nodes[fn] then callers[#callers + 1] = fn end
  end
  local edges = {}
  for _, edge in ipairs(core.call_pairs(g.prof, callers, g.event)) do
    -- a recursive call's cost is nested in its caller's: a share of it would overlap
    edge.recursive = query.is_recursive(edge)
    if edge.recursive or g.fraction(edge.cost) * 100 >= threshold then edges[#edges + 1] = edge end
  end
  return edges
end

-- The nodes reachable from `from` along `edges` (`forward`: caller to callee).
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

local function edges_between(edges, nodes)
  local kept = {}
  for _, edge in ipairs(edges) do
    if nodes[edge.caller] and nodes[edge.callee] then kept[#kept + 1] = edge end
  end
  return kept
end

-- The edges sorted by caller id, then callee id; the ids are read once per edge, not at
-- every comparison (a field of a function handle is a call into C).
local function sort_by_ids(edges)
  local key, span = {}, 1
  for _, edge in ipairs(edges) do span = max(span, edge.caller.id + 1, edge.callee.id + 1) end
  for _, edge in ipairs(edges) do key[edge] = edge.caller.id * span + edge.callee.id end
  sort(edges, function(a, b) return key[a] < key[b] end)
end

--- The nodes and edges left by the focus sets `root` and `leaf` (either may be nil): from the
--- root down, then from the leaf up. The edges come back sorted by caller and callee id.
function choose.focused(nodes, edges, root, leaf)
  if root then
    nodes = reach(root, edges, nodes, true)
    edges = edges_between(edges, nodes)
  end
  if leaf then
    nodes = reach(leaf, edges, nodes, false)
    edges = edges_between(edges, nodes)
  end
  sort_by_ids(edges)
  return nodes, edges
end

return choose
