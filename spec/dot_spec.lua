-- callgrind.dot: the DOT text of call graphs, read back and checked against numbers worked out
-- by hand; Graphviz renders every graph (pending when `dot` is not installed), and
-- examples/callgraph.lua writes .dot and .svg files.
local callgrind = require "callgrind"
local dot = require "callgrind.dot"
local fixtures = require "helpers.fixtures"
local run = require "helpers.run"

local SAMPLE = "examples/data/sample.callgrind.gz"
local TIMES = "\195\151"
local unpack = table.unpack or unpack

---------------------------------------------------------------------------------------------
-- Helpers

local read, write, shell_quote = fixtures.try_read, fixtures.write, run.quote

local has_dot = run.status("command -v dot >/dev/null 2>&1") == 0

--- Renders DOT text with Graphviz: exit status, the SVG and what dot wrote on stderr.
local function render(text)
  local base = os.tmpname()
  write(base .. ".dot", text)
  local status = run.status(("dot -Tsvg -o %s %s 2>%s"):format(shell_quote(base .. ".svg"),
    shell_quote(base .. ".dot"), shell_quote(base .. ".err")))
  local svg, err = read(base .. ".svg"), read(base .. ".err")
  os.remove(base .. ".dot")
  os.remove(base .. ".svg")
  os.remove(base .. ".err")
  os.remove(base)
  return status, svg, err
end

local function assert_renders(text)
  local status, svg, err = render(text)
  assert.are.equal(0, status, err)
  assert.is_truthy(svg and svg:find("<svg", 1, true), "no SVG written")
  assert.are.equal("", err)
  return svg
end

--- The value of a double-quoted DOT string starting after its opening quote at `i`: escapes
--- undone (\n gives a line break, \x gives x), HTML entities of labels decoded. Returns the text
--- and the position after the closing quote.
local function dot_string(s, i)
  local out = {}
  while true do
    local c = s:sub(i, i)
    assert(c ~= "", "unterminated string")
    if c == '"' then break end
    if c == "\\" then
      local nextc = s:sub(i + 1, i + 1)
      out[#out + 1] = nextc == "n" and "\n" or nextc
      i = i + 2
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  local text = table.concat(out):gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&amp;", "&")
  return text, i + 1
end

--- `key="value", ...` pairs of an attribute list, every value quoted.
local function attributes(s)
  local attrs, i = {}, 1
  while true do
    local a, b, key = s:find('^,?%s*([%w_]+)="', i)
    if not a then break end
    local value
    value, i = dot_string(s, b + 1)
    attrs[key] = value
  end
  assert(s:sub(i) == "", "unparsed attributes: " .. s:sub(i))
  return attrs
end

local function lines_of(text)
  local list = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do list[#list + 1] = line end
  return list
end

--- Reads the DOT text this module writes: nodes (id -> attrs, with attrs.lines the label's
--- lines), edges ("from->to" -> attrs), clusters (name -> {label=, members={id...}}), and the
--- graph's own attributes.
local function parse_dot(text)
  local graph = { nodes = {}, edges = {}, clusters = {}, attrs = {}, node_count = 0, edge_count = 0 }
  local cluster
  for _, line in ipairs(lines_of(text)) do
    local from, to, rest = line:match('^%s*"([^"]+)" %-> "([^"]+)" %[(.*)%];$')
    if from then
      local attrs = attributes(rest)
      attrs.lines = lines_of(attrs.label)
      assert.is_nil(graph.edges[from .. "->" .. to], "edge drawn twice")
      graph.edges[from .. "->" .. to] = attrs
      graph.edge_count = graph.edge_count + 1
    else
      local id
      id, rest = line:match('^%s*"([^"]+)" %[(.*)%];$')
      if id then
        local attrs = attributes(rest)
        attrs.lines = lines_of(attrs.label)
        assert.is_nil(graph.nodes[id], "node drawn twice")
        graph.nodes[id] = attrs
        if id:match("^fn%d+$") then graph.node_count = graph.node_count + 1 end
        if cluster then cluster.members[#cluster.members + 1] = id end
      else
        local name = line:match('^%s*subgraph "([^"]+)" {$')
        if name then
          cluster = { members = {} }
          graph.clusters[name] = cluster
        elseif line:match("^%s*}$") then
          cluster = nil
        else
          local which
          which, rest = line:match("^%s*(%a+) %[(.*)%];$")
          if which == "graph" then
            local attrs = attributes(rest)
            if cluster then cluster.label = attrs.label else graph.attrs = attrs end
          end
        end
      end
    end
  end
  return graph
end

--- Node ids by the first line of their label.
local function ids_by_name(graph)
  local ids = {}
  for id, attrs in pairs(graph.nodes) do ids[attrs.lines[1]] = id end
  return ids
end

local function edge(graph, from, to)
  local ids = ids_by_name(graph)
  if not ids[from] or not ids[to] then return nil end
  return graph.edges[ids[from] .. "->" .. ids[to]]
end

local function sorted_names(graph)
  local names = {}
  for _, attrs in pairs(graph.nodes) do names[#names + 1] = attrs.lines[1] end
  table.sort(names)
  return names
end

-- The format specification's extended example: main 820 = 100%, func1 400 = 48.78% (self 100
-- = 12.20%), func2 700 = 85.37% (self 700); main -> func1 1x 400, main -> func2 3x 400,
-- func1 -> func2 2x 300 = 36.59%.
local EXTENDED = fixtures.EXTENDED

-- a and b call each other (a cycle); leaf calls itself. Self costs 10 + 30 + 40 + 20 = 100.
-- a costs 30 (nothing leaves the cycle from it), b 40 + 20 (its call to leaf) = 60,
-- leaf 20 (called by b).
local RECURSIVE = [[
events: Ir
fl=r.c
fn=main
1 10
cfn=a
calls=1 1
2 90
fn=a
1 30
cfn=b
calls=3 1
2 60
fn=b
1 40
cfn=a
calls=2 1
2 10
cfn=leaf
calls=3 1
3 20
fn=leaf
1 20
cfn=leaf
calls=4 1
2 5
]]

---------------------------------------------------------------------------------------------

describe("callgrind.dot as a module", function()
  local prof = assert(callgrind.parse(EXTENDED, "extended"))

  it("is the same table through callgrind and through require, with its functions", function()
    assert.are.equal(dot, callgrind.dot)
    assert.are.equal("table", type(callgrind.dot))
    assert.are.equal("function", type(callgrind.dot.graph))
    assert.are.equal("function", type(callgrind.dot.strip_name))
    assert.are.equal("function", type(callgrind.dot.wrap_name))
  end)

  it("still draws the graph when called as a function, with or without options", function()
    local graph = parse_dot(callgrind.dot(prof))
    assert.are.same({ "func1", "48.78%", "(12.20%)", "1" .. TIMES }, graph.nodes[ids_by_name(graph).func1].lines)
    assert.are.equal(dot.graph(prof, { colors = "bw" }), callgrind.dot(prof, { colors = "bw" }))
    assert.are.equal(dot.graph(prof, { colors = "bw" }), dot(prof, { colors = "bw" }))
    assert.are.equal(dot.graph(prof), callgrind.report.dot(prof))
    local ok, err = pcall(callgrind.dot, prof, { nodes = 3 })
    assert.is_false(ok)
    assert.truthy(err:find("dot.graph: unknown option 'nodes'", 1, true), err)
  end)
end)

describe("dot.graph on the extended example", function()
  local prof = assert(callgrind.parse(EXTENDED, "extended"))

  it("draws one node per function with inclusive %, (self %) and call count", function()
    local graph = parse_dot(dot.graph(prof))
    assert.are.equal(3, graph.node_count)
    local ids = ids_by_name(graph)
    assert.are.same({ "main", "100.0%", "(2.44%)", "0" .. TIMES }, graph.nodes[ids.main].lines)
    assert.are.same({ "func1", "48.78%", "(12.20%)", "1" .. TIMES }, graph.nodes[ids.func1].lines)
    assert.are.same({ "func2", "85.37%", "(85.37%)", "5" .. TIMES }, graph.nodes[ids.func2].lines)
  end)

  it("names nodes after the function ids", function()
    local graph = parse_dot(dot.graph(prof))
    for fn in prof:functions() do
      assert.are.equal(fn.name, graph.nodes["fn" .. fn.id].lines[1])
    end
  end)

  it("draws one edge per caller and callee with the calls' share and count", function()
    local graph = parse_dot(dot.graph(prof))
    assert.are.equal(3, graph.edge_count)
    assert.are.same({ "48.78%", "1" .. TIMES }, edge(graph, "main", "func1").lines)
    assert.are.same({ "48.78%", "3" .. TIMES }, edge(graph, "main", "func2").lines)
    assert.are.same({ "36.59%", "2" .. TIMES }, edge(graph, "func1", "func2").lines)
  end)

  it("sums the call sites of a pair into one edge", function()
    local twice = EXTENDED:gsub("\nfn=func1\n", "\nfn=func1\n51 0\ncfi=file2.c\ncfn=func2\ncalls=4 20\n52 0\n", 1)
    local p = assert(callgrind.parse(twice, "twice"))
    local graph = parse_dot(dot.graph(p))
    assert.are.same({ "36.59%", "6" .. TIMES }, edge(graph, "func1", "func2").lines)
  end)

  it("colours hot nodes and thick edges apart from cold ones, with readable text", function()
    local graph = parse_dot(dot.graph(prof))
    local ids = ids_by_name(graph)
    local main, func1 = graph.nodes[ids.main], graph.nodes[ids.func1]
    assert.matches("^#%x%x%x%x%x%x$", main.fillcolor)
    assert.are_not.equal(main.fillcolor, func1.fillcolor)
    assert.are.equal("#ff0000", main.fillcolor) -- 100% is saturated red
    assert.is_truthy(main.fontcolor == "#000000" or main.fontcolor == "#ffffff")
    local thick, thin = edge(graph, "main", "func2"), edge(graph, "func1", "func2")
    assert.is_true(tonumber(thick.penwidth) > tonumber(thin.penwidth))
  end)

  it("draws a cold function blue and white on it", function()
    local cold = assert(callgrind.parse("events: Ir\nfn=main\n1 1000\ncfn=tiny\ncalls=1 1\n1 1\nfn=tiny\n1 1\n", "c"))
    local graph = parse_dot(dot.graph(cold, { node_threshold = 0 }))
    local tiny = graph.nodes[ids_by_name(graph).tiny]
    local r, g, b = tiny.fillcolor:match("^#(%x%x)(%x%x)(%x%x)$")
    assert.is_true(tonumber(b, 16) > tonumber(r, 16) and tonumber(b, 16) > tonumber(g, 16), tiny.fillcolor)
    assert.are.equal("#ffffff", tiny.fontcolor)
  end)

  it("leaves out the self share with show_self = false, and adds a title", function()
    local graph = parse_dot(dot.graph(prof, { show_self = false, title = "Extended \"example\"" }))
    assert.are.same({ "func1", "48.78%", "1" .. TIMES }, graph.nodes[ids_by_name(graph).func1].lines)
    assert.are.equal('Extended "example"', graph.attrs.label)
  end)

  it("accepts the event by name or index", function()
    local by_name = dot.graph(prof, { event = "Instructions" })
    assert.are.equal(by_name, dot.graph(prof, { event = 1 }))
    assert.are.equal(by_name, dot.graph(prof))
    assert.has_error(function() dot.graph(prof, { event = "Cycles" }) end)
  end)

  it("renders with Graphviz in every colour scheme", function()
    for _, colors in ipairs { "color", "gray", "bw" } do
      local text = dot.graph(prof, { colors = colors })
      local graph = parse_dot(text)
      assert.are.equal(3, graph.node_count)
      if has_dot then assert_renders(text) end
    end
    if not has_dot then pending("graphviz's dot is not installed: rendering not checked") end
  end)

  it("rejects bad options", function()
    assert.has_error(function() dot.graph(prof, { node_treshold = 1 }) end)
    assert.has_error(function() dot.graph(prof, { node_threshold = -1 }) end)
    assert.has_error(function() dot.graph(prof, { edge_threshold = "x" }) end)
    assert.has_error(function() dot.graph(prof, { colors = "pink" }) end)
    assert.has_error(function() dot.graph(prof, { wrap = 0 }) end)
    assert.has_error(function() dot.graph(prof, { root = "nosuch" }) end)
    assert.has_error(function() dot.graph(prof, { leaf = 42 }) end)
  end)
end)

describe("dot.graph thresholds", function()
  local prof = assert(callgrind.parse(EXTENDED, "extended"))

  it("leaves out functions below the node threshold, and their edges", function()
    local graph = parse_dot(dot.graph(prof, { node_threshold = 50 }))
    assert.are.same({ "func2", "main" }, sorted_names(graph))
    assert.are.equal(1, graph.edge_count)
    assert.are.same({ "48.78%", "3" .. TIMES }, edge(graph, "main", "func2").lines)
    graph = parse_dot(dot.graph(prof, { node_threshold = 48.78 }))
    assert.are.equal(3, graph.node_count) -- 48.78...% is kept: at or above
    graph = parse_dot(dot.graph(prof, { node_threshold = 100 }))
    assert.are.same({ "main" }, sorted_names(graph))
    assert.are.equal(0, graph.edge_count)
  end)

  it("leaves out calls below the edge threshold", function()
    local graph = parse_dot(dot.graph(prof, { edge_threshold = 40 }))
    assert.are.equal(3, graph.node_count)
    assert.are.equal(2, graph.edge_count)
    assert.is_nil(edge(graph, "func1", "func2"))
    assert.is_not_nil(edge(graph, "main", "func1"))
    graph = parse_dot(dot.graph(prof, { edge_threshold = 50 }))
    assert.are.equal(0, graph.edge_count)
  end)

  it("says why a graph is empty and still renders", function()
    local text = dot.graph(prof, { node_threshold = 101 })
    local graph = parse_dot(text)
    assert.are.equal(0, graph.node_count)
    assert.matches("101%%", graph.nodes.empty.label)
    if has_dot then assert_renders(text) else pending("graphviz's dot is not installed") end
  end)
end)

describe("dot.graph focus", function()
  local prof = assert(callgrind.parse(EXTENDED, "extended"))

  it("keeps what a root calls, transitively", function()
    local graph = parse_dot(dot.graph(prof, { root = "func1" }))
    assert.are.same({ "func1", "func2" }, sorted_names(graph))
    assert.are.equal(1, graph.edge_count)
    assert.is_not_nil(edge(graph, "func1", "func2"))
    -- a function object works as well as a name
    assert.are.equal(dot.graph(prof, { root = "func1" }), dot.graph(prof, { root = prof:find("func1") }))
    graph = parse_dot(dot.graph(prof, { root = "main" }))
    assert.are.equal(3, graph.node_count)
  end)

  it("keeps what calls a leaf, transitively", function()
    local graph = parse_dot(dot.graph(prof, { leaf = "func1" }))
    assert.are.same({ "func1", "main" }, sorted_names(graph))
    assert.are.same({ "48.78%", "1" .. TIMES }, edge(graph, "main", "func1").lines)
    graph = parse_dot(dot.graph(prof, { leaf = "func2" }))
    assert.are.equal(3, graph.node_count)
  end)

  it("keeps the paths from a root to a leaf", function()
    local graph = parse_dot(dot.graph(prof, { root = "func1", leaf = "func2" }))
    assert.are.same({ "func1", "func2" }, sorted_names(graph))
    graph = parse_dot(dot.graph(prof, { root = "func2", leaf = "func1" }))
    assert.are.equal(0, graph.node_count)
  end)

  it("follows only the edges above the threshold", function()
    local graph = parse_dot(dot.graph(prof, { root = "func1", edge_threshold = 40 }))
    assert.are.same({ "func1" }, sorted_names(graph))
  end)

  it("draws the root even below the node threshold", function()
    local graph = parse_dot(dot.graph(prof, { root = "func1", node_threshold = 60 }))
    assert.are.same({ "func1", "func2" }, sorted_names(graph))
  end)
end)

describe("dot.graph cycles", function()
  local prof = assert(callgrind.parse(RECURSIVE, "recursive"))

  it("draws the members of a cycle inside a cluster named after it", function()
    local text = dot.graph(prof)
    local graph = parse_dot(text)
    local ids = ids_by_name(graph)
    local cluster = graph.clusters.cluster_cycle1
    assert.is_not_nil(cluster)
    assert.are.equal("<cycle 1>", cluster.label)
    table.sort(cluster.members)
    local expected = { ids.a, ids.b }
    table.sort(expected)
    assert.are.same(expected, cluster.members)
    assert.are.equal(4, graph.node_count)
    assert.are.same({ "a", "30.00%", "(30.00%)", "3" .. TIMES }, graph.nodes[ids.a].lines)
    assert.are.same({ "b", "60.00%", "(40.00%)", "3" .. TIMES }, graph.nodes[ids.b].lines)
    -- calls within the cycle nest: their count only, dashed, no share that could overlap
    assert.are.same({ "2" .. TIMES }, edge(graph, "b", "a").lines)
    assert.are.same({ "3" .. TIMES }, edge(graph, "a", "b").lines)
    assert.are.equal("dashed", edge(graph, "a", "b").style)
    assert.are.same({ "20.00%", "3" .. TIMES }, edge(graph, "b", "leaf").lines)
    if has_dot then assert_renders(text) else pending("graphviz's dot is not installed") end
  end)

  it("draws a self-call as a dashed loop with its count, not a share", function()
    local graph = parse_dot(dot.graph(prof))
    local ids = ids_by_name(graph)
    local loop = graph.edges[ids.leaf .. "->" .. ids.leaf]
    assert.are.same({ "4" .. TIMES }, loop.lines)
    assert.are.equal("dashed", loop.style)
    assert.truthy(loop.tooltip:find("4 recursive calls: their cost is part of the function's", 1, true))
  end)

  it("never labels a recursive edge beyond the total", function()
    -- fact calls itself 9 times, and callgrind records each nested call's inclusive cost: the
    -- self-calls sum to 180 of a total of 101
    local deep = assert(callgrind.parse("events: Ir\nfn=main\n1 1\ncfn=fact\ncalls=1 1\n2 100\n"
      .. "fn=fact\n1 100\ncfn=fact\ncalls=9 1\n2 180\n", "fact"))
    local graph = parse_dot(dot.graph(deep))
    for _, e in pairs(graph.edges) do
      for _, line in ipairs(e.lines) do
        local share = tonumber(line:match("^([%d.]+)%%$"))
        assert.is_true(share == nil or share <= 100, line)
      end
    end
    local ids = ids_by_name(graph)
    assert.are.same({ "9" .. TIMES }, graph.edges[ids.fact .. "->" .. ids.fact].lines)
  end)

  it("leaves out clusters whose members are all left out", function()
    local graph = parse_dot(dot.graph(prof, { root = "leaf" }))
    assert.is_nil(graph.clusters.cluster_cycle1)
    assert.are.same({ "leaf" }, sorted_names(graph))
  end)
end)

describe("dot.graph names", function()
  local names = {
    vector = "std::vector<int, std::allocator<int> >::push_back(int const&)",
    quoted = 'operator"" _km(char const*)',
    backslash = "C:\\src\\f {lambda()#1}",
    entity = "tag&amp;&lt;",
    call = "Foo::operator()(int) const",
    less = "std::less<Key>::operator<(Key const&, Key const&) const",
    record = "a|b <port> {x}",
  }
  local order = { "vector", "quoted", "backslash", "entity", "call", "less", "record" }
  local text = { "events: Ir", "fl=x.cc", "fn=main", "1 1" }
  for _, key in ipairs(order) do
    text[#text + 1] = "cfn=" .. names[key]
    text[#text + 1] = "calls=1 1"
    text[#text + 1] = "1 10"
  end
  for _, key in ipairs(order) do
    text[#text + 1] = "fn=" .. names[key]
    text[#text + 1] = "1 10"
  end
  local prof = assert(callgrind.parse(table.concat(text, "\n") .. "\n", "names"))

  local function label_names(graph)
    local set = {}
    for _, attrs in pairs(graph.nodes) do set[attrs.lines[1]] = true end
    return set
  end

  it("escapes quotes, backslashes and entities, and keeps <, >, {, } and | as they are", function()
    local out = dot.graph(prof)
    assert.is_truthy(out:find('label="operator\\"\\" _km(char const*)\\n', 1, true))
    assert.is_truthy(out:find('label="C:\\\\src\\\\f {lambda()#1}\\n', 1, true))
    assert.is_truthy(out:find('label="tag&amp;amp;&amp;lt;\\n', 1, true))
    assert.is_truthy(out:find('label="std::vector<int, std::allocator<int> >::push_back(int const&amp;)\\n', 1, true))
    local graph = parse_dot(out)
    local seen = label_names(graph)
    for _, name in pairs(names) do assert.is_true(seen[name], name) end
  end)

  it("gives Graphviz the names exactly", function()
    if not has_dot then
      pending("graphviz's dot is not installed: rendering not checked")
      return
    end
    local svg = assert_renders(dot.graph(prof))
    local function xml(s)
      return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
    end
    for _, name in pairs(names) do
      assert.is_truthy(svg:find(">" .. xml(name) .. "</text>", 1, true), name)
    end
  end)

  it("strips argument lists and template arguments like gprof2dot --strip", function()
    local graph = parse_dot(dot.graph(prof, { strip = true }))
    local seen = label_names(graph)
    for _, name in ipairs { "std::vector::push_back", 'operator"" _km', "Foo::operator()",
      "std::less::operator<", "main" } do
      assert.is_true(seen[name], name)
    end
    assert.are.equal("std::map::find", dot.strip_name("std::map<int, std::pair<int, int> >::find(int const&) const"))
    assert.are.equal("(below main)", dot.strip_name("(below main)"))
    assert.are.equal("(anonymous namespace)::f", dot.strip_name("(anonymous namespace)::f(int)"))
    assert.are.equal("ns::operator<<", dot.strip_name("ns::operator<<(std::ostream&, X const&)"))
    assert.are.equal("f'2", dot.strip_name("f(int)'2"))
    assert.are.equal("plain_c", dot.strip_name("plain_c"))
  end)

  it("wraps long names at about 40 characters", function()
    local graph = parse_dot(dot.graph(prof, { wrap = true }))
    local node = graph.nodes["fn" .. prof:find(names.vector).id]
    local name_lines = { unpack(node.lines, 1, #node.lines - 3) }
    assert.is_true(#name_lines >= 2)
    for _, line in ipairs(name_lines) do assert.is_true(#line <= 40, line) end
    assert.are.equal((names.vector:gsub(" ", "")), (table.concat(name_lines):gsub(" ", "")))
    -- short names stay on one line
    assert.are.same({ "main" }, { unpack(graph.nodes["fn" .. prof:find("main").id].lines, 1, 1) })
    assert.are.equal(4, #graph.nodes["fn" .. prof:find("main").id].lines)
    -- a width of our own, and a word longer than it
    local lines = dot.wrap_name("abcdefghijklmnopqrstuvwxyz::f", 10)
    for _, line in ipairs(lines) do assert.is_true(#line <= 10, line) end
    assert.are.equal("abcdefghijklmnopqrstuvwxyz::f", table.concat(lines))
  end)

  it("strips, then wraps", function()
    local graph = parse_dot(dot.graph(prof, { strip = true, wrap = 14 }))
    local node = graph.nodes["fn" .. prof:find(names.vector).id]
    assert.are.same({ "std::vector::", "push_back" }, { node.lines[1], node.lines[2] })
  end)

  it("tells apart functions of one name in several files", function()
    local p = assert(callgrind.parse(table.concat({
      "events: Ir", "fl=src/main.c", "fn=main", "1 1",
      "cfi=lib/a/util.c", "cfn=dup", "calls=1 1", "1 10",
      "cfi=lib/b/other.c", "cfn=dup", "calls=1 1", "1 10",
      "fl=lib/a/util.c", "fn=dup", "1 10",
      "fl=lib/b/other.c", "fn=dup", "1 10",
    }, "\n") .. "\n", "dups"))
    local graph = parse_dot(dot.graph(p))
    local seen = {}
    for _, attrs in pairs(graph.nodes) do
      if attrs.lines[1] == "dup" then seen[attrs.lines[2]] = attrs.lines[3] end
    end
    assert.are.same({ ["util.c"] = "47.62%", ["other.c"] = "47.62%" }, seen)
    -- a name of its own gets no file line
    assert.are.same({ "main", "100.0%" }, { unpack(graph.nodes["fn" .. p:find("main").id].lines, 1, 2) })
  end)

  it("writes bytes that are not UTF-8 as visible \\x escapes", function()
    local p = assert(callgrind.parse("events: Ir\nfn=caf\233\tx\n1 10\n", "latin1"))
    local out = dot.graph(p)
    assert.is_truthy(out:find('label="caf\\\\xE9\\\\x09x\\n', 1, true))
    if has_dot then assert_renders(out) end
  end)
end)

describe("dot.graph with a zero total", function()
  local prof = assert(callgrind.parse(
    "events: Ir Miss\nfn=main\n1 5 0\ncfn=f\ncalls=2 1\n1 3 0\nfn=f\n1 3 0\n", "zero"))

  it("divides by nothing: n/a shares, and thresholds of 0 keep everything", function()
    local text = dot.graph(prof, { event = "Miss", node_threshold = 0, edge_threshold = 0 })
    assert.is_nil(text:find("nan", 1, true))
    assert.is_nil(text:find("inf", 1, true))
    local graph = parse_dot(text)
    local ids = ids_by_name(graph)
    assert.are.same({ "f", "n/a", "(n/a)", "2" .. TIMES }, graph.nodes[ids.f].lines)
    assert.are.same({ "n/a", "2" .. TIMES }, edge(graph, "main", "f").lines)
    if has_dot then assert_renders(text) end
  end)

  it("says so when the thresholds leave nothing", function()
    local text = dot.graph(prof, { event = "Miss" })
    local graph = parse_dot(text)
    assert.are.equal(0, graph.node_count)
    assert.matches("no Miss cost", graph.nodes.empty.label)
    if has_dot then assert_renders(text) end
  end)
end)

describe("dot.graph on the sample profile", function()
  local prof = assert(callgrind.load(SAMPLE))
  local by_id = {}
  for fn in prof:functions() do by_id["fn" .. fn.id] = fn end

  local function as_printed(n, total)
    local p = 100 * n / total
    if p >= 99.995 then return string.format("%.1f%%", p) end
    return string.format("%.2f%%", p)
  end

  it("prints every node's shares as 100 * cost / total", function()
    local total = prof:total("Ir")
    local graph = parse_dot(dot.graph(prof, { wrap = true }))
    assert.is_true(graph.node_count > 10)
    for id, attrs in pairs(graph.nodes) do
      local fn = assert(by_id[id], id)
      local n = #attrs.lines
      assert.is_true(fn:inclusive("Ir") * 200 >= total, fn.name) -- at least 0.5%
      assert.are.equal(as_printed(fn:inclusive("Ir"), total), attrs.lines[n - 2], fn.name)
      assert.are.equal("(" .. as_printed(fn:self("Ir"), total) .. ")", attrs.lines[n - 1], fn.name)
    end
    for key, attrs in pairs(graph.edges) do
      local from, to = key:match("^(.-)%->(.*)$")
      local cost, count = 0, 0
      for call in by_id[from]:callees() do
        if call.callee == by_id[to] then
          cost = cost + call:inclusive("Ir")
          count = count + call.count
        end
      end
      local recursive = from == to or (by_id[from].cycle ~= nil and by_id[from].cycle == by_id[to].cycle)
      if recursive then -- the count only: nested costs would overlap
        assert.are.equal(1, #attrs.lines, key)
      else
        assert.are.equal(as_printed(cost, total), attrs.lines[1], key)
      end
      assert.are.equal(string.format("%d", count), attrs.lines[#attrs.lines]:gsub(TIMES, ""):gsub(",", ""), key)
    end
  end)

  it("renders with Graphviz", function()
    if not has_dot then
      pending("graphviz's dot is not installed: rendering not checked")
      return
    end
    for _, opts in ipairs { {}, { strip = true, wrap = true, colors = "gray" }, { root = "main", colors = "bw" },
      { leaf = "__strcmp_avx2", node_threshold = 0, edge_threshold = 0 }, { node_threshold = 0, edge_threshold = 0 } } do
      local svg = assert_renders(dot.graph(prof, opts))
      assert.is_truthy(svg:find("</svg>", 1, true))
    end
  end)
end)

describe("examples/callgraph.lua", function()
  -- the script run by the interpreter running the specs, with the words of `args` as arguments
  local function callgraph(args)
    local words = {}
    for word in args:gmatch("%S+") do words[#words + 1] = word end
    local out, err, status = run.script("examples/callgraph.lua", words)
    return status, out, err
  end

  it("writes the graph to standard output", function()
    local status, out, err = callgraph("-n 1 --strip " .. SAMPLE)
    assert.are.equal(0, status, err)
    local graph = parse_dot(out)
    assert.is_true(graph.node_count > 5)
    assert.are.equal("sample.callgrind.gz: 4,976,287 Ir", graph.attrs.label)
  end)

  it("writes OUTPUT.dot and renders OUTPUT.svg next to it", function()
    local base = os.tmpname()
    local status, out, err = callgraph(("--event=Ir --node-threshold=1 -e 0.5 --wrap=30 --colors gray %s %s")
      :format(SAMPLE, base .. ".dot"))
    assert.are.equal(0, status, err)
    assert.are.equal("", out)
    local text = read(base .. ".dot")
    local svg = read(base .. ".svg")
    os.remove(base .. ".dot")
    os.remove(base .. ".svg")
    os.remove(base)
    assert.is_truthy(text and text:find("^digraph"))
    assert.are.equal(dot.graph(assert(callgrind.load(SAMPLE)), { event = "Ir", node_threshold = 1,
      edge_threshold = 0.5, wrap = 30, colors = "gray", title = "sample.callgrind.gz: 4,976,287 Ir" }), text)
    if not has_dot then
      assert.is_nil(svg)
      pending("graphviz's dot is not installed: the SVG is not checked")
      return
    end
    assert.is_truthy(svg and svg:find("</svg>", 1, true))
  end)

  it("focuses on a root and a leaf", function()
    local status, out, err = callgraph("--root main -l __strcmp_avx2 --title= " .. SAMPLE)
    assert.are.equal(0, status, err)
    local graph = parse_dot(out)
    assert.is_nil(graph.attrs.label)
    local on_paths = { main = true, qsort = true, qsort_r = true, ["msort_with_tmp.part.0"] = true,
      ["msort_with_tmp.part.0'2"] = true, by_count = true, __strcmp_avx2 = true }
    for _, attrs in pairs(graph.nodes) do assert.is_true(on_paths[attrs.lines[1]], attrs.lines[1]) end
    local ids = ids_by_name(graph)
    assert.is_not_nil(ids.main)
    assert.is_not_nil(ids.__strcmp_avx2)
    assert.is_not_nil(edge(graph, "main", "__strcmp_avx2"))
  end)

  it("prints its usage with --help", function()
    local status, out = callgraph("--help")
    assert.are.equal(0, status)
    assert.matches("^usage: callgraph%.lua", out)
    for _, option in ipairs { "--event", "--node-threshold", "--edge-threshold", "--root", "--leaf", "--strip",
      "--wrap", "--colors" } do
      assert.is_truthy(out:find(option, 1, true), option)
    end
  end)

  it("fails with a message on a missing file", function()
    local status, out, err = callgraph("/nonexistent/callgrind.out.1")
    assert.are_not.equal(0, status)
    assert.are.equal("", out)
    assert.are.equal("callgraph.lua: /nonexistent/callgrind.out.1: No such file or directory\n", err)
  end)

  it("fails with a message on bad options and arguments", function()
    for args, message in pairs {
      ["--bogus " .. SAMPLE] = "unknown option '--bogus'",
      ["--node-threshold=lots " .. SAMPLE] = "--node-threshold expects a percentage",
      ["-e -1 " .. SAMPLE] = "-e expects a percentage",
      ["--colors=pink " .. SAMPLE] = "--colors expects color, gray or bw",
      ["--wrap=0 " .. SAMPLE] = "--wrap expects a width",
      ["--event=Nope " .. SAMPLE] = "unknown event 'Nope'",
      ["--root=nosuch " .. SAMPLE] = "no function named 'nosuch'",
      ["--event"] = "--event expects a value",
      [SAMPLE .. " a.dot b.dot"] = "too many arguments",
      [""] = "usage:",
    } do
      local status, out, err = callgraph(args)
      assert.are_not.equal(0, status, args)
      assert.are.equal("", out, args)
      assert.is_truthy(err:find(message, 1, true), args .. ": " .. err)
    end
  end)
end)
