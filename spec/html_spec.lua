-- callgrind.html: the report page's data and markup. The data the page embeds is checked against
-- report.flat's listing (the same rows, numbers and threshold), the calls against the profile's
-- call handles, the source lines against prof:line_costs; the page is one file that fetches
-- nothing. What the browser makes of it: spec/html_browser_spec.lua.
local callgrind = require "callgrind"
local html = require "callgrind.html"
local report = require "callgrind.report"
local format = require "callgrind.format"
local json = require "callgrind.json"
local dkjson = require "dkjson"
local fixtures = require "helpers.fixtures"
local vg = require "helpers.valgrind"

local SAMPLE = "examples/data/sample.callgrind.gz"

local function has_program(name)
  local ok = os.execute("command -v " .. name .. " >/dev/null 2>&1")
  return ok == true or ok == 0
end

-- The rows of report.flat's listing: { {cost = "1,859,688", label = "file:name [object]"}, ... }.
local function flat_rows(text)
  local listing = text:match("\nIr%s+file:function\n%-+\n(.*)$")
  local list = {}
  for line in listing:gmatch("([^\n]+)") do
    local cost, label = line:match("^%s*([%d,]+) %(%s*[%d.]+%%%)  (.+)$")
    list[#list + 1] = { cost = cost, label = label }
  end
  return list
end

local function index_of(data, name)
  for i, f in ipairs(data.functions) do
    if f[1] == name then return i - 1 end
  end
end

describe("callgrind.html data", function()
  local prof = assert(callgrind.load(SAMPLE))
  local data = html.data(prof, { include = { "." }, graphs = 0, asm = 0 })

  it("is callgrind.html", function()
    assert.equal(html, callgrind.html)
    assert.equal(json, callgrind.json)
  end)

  it("summarises the profile", function()
    assert.same({ "Ir" }, data.events)
    assert.same({ 4976287 }, data.totals)
    assert.equal("./sample", data.summary.cmd)
    assert.equal("callgrind-3.19.0", data.summary.creator)
    assert.equal(8196, data.summary.pid)
    assert.same({ "I1 cache: ", "D1 cache: ", "LL cache: ", "Timerange: Basic block 0 - 1129633",
      "Trigger: Program termination" }, data.summary.desc)
    assert.equal(1, #data.summary.sections)
    assert.equal(1, data.summary.sections[1].part)
    assert.equal(264, data.summary.stats.functions)
    assert.equal(454, data.summary.stats.calls)
  end)

  it("holds report.flat's rows in its order, with its numbers, and its threshold", function()
    local listed = flat_rows(report.flat(prof, { inlined = "merge" }))
    assert.equal(16, #listed)
    assert.equal(#listed, data.shown)
    assert.equal(99, data.threshold)
    for i, row in ipairs(listed) do
      local f = data.functions[i]
      assert.equal(row.label, format.location(data.strings[f[2] + 1], f[1], data.strings[f[3] + 1]))
      assert.equal(row.cost, format.thousands(f[5][1]))
    end
    -- and every row with threshold 100
    local all = report.rows(prof, { inlined = "merge", threshold = 100 })
    assert.equal(#all, data.rows)
    for i, row in ipairs(all) do
      local f = data.functions[i]
      assert.equal(row.name, f[1])
      assert.equal(row.self.Ir, f[5][1])
      assert.equal(row.inclusive.Ir, f[6][1])
      assert.equal(row.functions[1].called, f[4])
    end
    assert.same({ "main", 0, 1, 1, { 1859688 }, { 4852108 } },
      { data.functions[1][1], 0, 1, data.functions[1][4], data.functions[1][5], data.functions[1][6] })
  end)

  it("holds every call, with its count, inclusive cost and line", function()
    assert.equal(454, #data.calls)
    local main = index_of(data, "main")
    local strcat = index_of(data, "__strcat_avx2")
    local count, cost, lines = 0, 0, {}
    for _, c in ipairs(data.calls) do
      if c[1] == main and c[2] == strcat then
        count, cost = count + c[3], cost + c[4]
        lines[#lines + 1] = c[5]
      end
    end
    assert.equal(40189, count)
    assert.equal(1808505, cost)
    assert.same({ 44 }, lines)
    -- every function's incoming calls add up as its call handles do
    for fn in prof:functions() do
      local i
      for k, f in ipairs(data.functions) do
        if f[1] == fn.name and data.strings[f[2] + 1] == fn.file and data.strings[f[3] + 1] == fn.object then i = k - 1 end
      end
      local expected, calls = 0, 0
      for call in fn:callers() do expected, calls = expected + call:inclusive("Ir"), calls + call.count end
      local got, got_calls = 0, 0
      for _, c in ipairs(data.calls) do
        if c[2] == i then got, got_calls = got + c[4], got_calls + c[3] end
      end
      assert.equal(expected, got)
      assert.equal(calls, got_calls)
    end
  end)

  it("holds the source files it can read, with each line's self and call costs", function()
    local file
    for i, s in ipairs(data.strings) do
      if s == "examples/data/sample.c" then file = tostring(i - 1) end
    end
    local source = assert(data.sources[file], "sample.c is read")
    local text = fixtures.read("examples/data/sample.c")
    assert.equal(select(2, text:gsub("\n", "")), #source.text)
    assert.truthy(source.text[44]:find("strcat(out, syllables", 1, true))
    local self = prof:line_costs("Ir", "examples/data/sample.c")["examples/data/sample.c"]
    -- what the calls made on line 44 cost: __strcat_avx2's 1,808,505 and the first call's
    -- trip through the dynamic linker
    local calls44 = 0
    for fn in prof:functions() do
      for call in fn:callees() do
        if call.file == "examples/data/sample.c" and call.line == 44 then calls44 = calls44 + call:inclusive("Ir") end
      end
    end
    assert.equal(1809237, calls44)
    local seen = 0
    for _, c in ipairs(source.costs) do
      assert.equal(self[c[1]] or 0, c[2])
      if c[1] == 44 then
        assert.equal(321519, c[2])
        assert.equal(calls44, c[3])
      end
      seen = seen + 1
    end
    assert.is_true(seen > 10)
    -- main's lines: the range the function view shows
    local main = index_of(data, "main")
    local range
    for _, r in ipairs(data.ranges) do
      if r[1] == main then range = r end
    end
    assert.equal(tonumber(file), range[2])
    local lines = prof:find("main"):line_costs("Ir", "examples/data/sample.c")["examples/data/sample.c"]
    local first, last = math.huge, 0
    for line in pairs(lines) do
      if line > 0 then first, last = math.min(first, line), math.max(last, line) end
    end
    assert.same({ first, last }, { range[3], range[4] })
    -- without an include directory that holds it, no source
    local none = html.data(prof, { graphs = 0, asm = 0, read_file = function() return nil end })
    assert.same({}, none.sources)
    assert.same({}, none.ranges)
  end)

  it("says why there is no machine code or call graph", function()
    local d = html.data(prof, { graphs = 2, dot = "/nonexistent/dot", asm = 1 })
    assert.equal("Graphviz's 'dot' was not installed when this page was made", d.notes.graph)
    assert.same({}, d.graphs)
    -- ./sample is not beside the profile: the text says so
    local first = d.asm["0"]
    assert.truthy(first:find("^No machine code for main: the object ./sample of main was not found"), first)
    local line = callgrind.parse("events: Ir\nfn=f\n1 5\n", "line.out")
    assert.equal("the profile has no instruction addresses (valgrind --dump-instr=yes)", html.data(line).notes.asm)
  end)

  it("draws the call graph around the hottest functions with Graphviz", function()
    if not has_program("dot") then
      pending("Graphviz's dot is not installed")
      return
    end
    local d = html.data(prof, { graphs = 3, asm = 0 })
    local n = 0
    for key, svg in pairs(d.graphs) do
      n = n + 1
      assert.truthy(tonumber(key) < 3)
      assert.truthy(svg:find("^<svg"), svg:sub(1, 80))
      assert.truthy(svg:find("</svg>$"))
    end
    assert.equal(3, n)
    -- main's graph names its callees
    assert.truthy(d.graphs["0"]:find(">__strcat_avx2<", 1, true))
    -- each node carries the page's index of its function, for a click to show it
    local strcat = index_of(d, "__strcat_avx2")
    assert.truthy(d.graphs["0"]:find('<g id="node%d+" class="node" data%-fn="' .. strcat .. '">\n<title>fn%d+</title>'),
      d.graphs["0"]:sub(1, 800))
  end)

  it("rejects bad options", function()
    assert.has_error(function() html.data(prof, { bogus = 1 }) end, "html.data: unknown option 'bogus'")
    assert.has_error(function() html.data(prof, { threshold = 120 }) end,
      "html.data: threshold must be a number from 0 to 100")
    assert.has_error(function() html.data(prof, { graphs = -1 }) end, "html.data: graphs must be a whole number, 0 or more")
    assert.has_error(function() html.data(prof, { show = { "Nope" } }) end, "html.data: unknown event 'Nope'")
    assert.has_error(function() html.data("prof") end, "html.data: a profile expected")
    assert.has_error(function() html.page(prof, { flame = "yes" }) end, "html.page: flame must be a table of flame.svg options, or false")
    assert.has_error(function() html.page(prof, { asm_options = 8 }) end, "html.page: asm_options must be a table")
    assert.has_error(function() html.write(prof) end, "html.write: a path expected")
  end)
end)

describe("dot.around, the graph of the function view", function()
  local dot = require "callgrind.dot"
  local prof = assert(callgrind.load(SAMPLE))

  -- The names of the nodes of DOT text, and the number of arrows.
  local function nodes(text)
    local names = {}
    for name in text:gmatch('\n  "fn%d+" %[label="([^\\"]+)') do names[#names + 1] = name end
    table.sort(names)
    return names, select(2, text:gsub('\n  "fn%d+" %-> "fn%d+"', ""))
  end

  it("draws a function, its callers and its callees, and the calls between them", function()
    local names, arrows = nodes(dot.around(prof, prof:find("fib")))
    assert.same({ "fib", "fib'2", "main" }, names)
    assert.equal(3, arrows) -- main -> fib, fib -> fib'2, fib'2 -> fib'2
    names = nodes(dot.around(prof, prof:find("main")))
    assert.equal(1 + 1 + 8, #names)
  end)

  it("keeps the costliest `limit` of each side, and says how many it left out", function()
    local text = dot.around(prof, prof:find("main"), { limit = 3 })
    local names, arrows = nodes(text)
    assert.same({ "(below main)", "__strcat_avx2", "__strcmp_avx2", "main", "qsort" }, names)
    assert.equal(4, arrows)
    assert.truthy(text:find('label="main: the 3 costliest callers and callees; 5 more not drawn"', 1, true), text)
    assert.has_error(function() dot.around(prof, "main") end, "dot.around: a function of the profile expected")
    assert.has_error(function() dot.around(prof, prof:find("main"), { limit = -1 }) end,
      "dot.around: limit must be a number, 0 or more")
  end)
end)

describe("callgrind.html page", function()
  local prof = assert(callgrind.load(SAMPLE))

  it("is one file with its style, script and data inline, fetching nothing", function()
    local page = html.page(prof, { graphs = 0, asm = 0 })
    assert.truthy(page:find("^<!DOCTYPE html>\n"))
    assert.falsy(page:find("<link", 1, true))
    assert.falsy(page:find("%ssrc="))
    assert.falsy(page:find("@import", 1, true))
    assert.falsy(page:find("url%("))
    assert.falsy(page:find("fetch(", 1, true))
    assert.falsy(page:find("XMLHttpRequest", 1, true))
    local _, scripts = page:gsub("<script[ >]", "")
    -- the data, the page's script, the flame graph's script
    assert.equal(3, scripts)
    assert.truthy(page:find('<svg xmlns="http://www.w3.org/2000/svg" class="cgf-root" id="cg-flame"', 1, true))
  end)

  it("embeds html.data as JSON a JSON reader reads back, with no '</script>' inside", function()
    local opts = { graphs = 0, asm = 0, include = { "." } }
    local page = html.page(prof, opts)
    local text = page:match('<script type="application/json" id="cg%-data">(.-)</script>')
    assert.falsy(text:find("<", 1, true))
    local decoded = assert(dkjson.decode(text))
    local data = html.data(prof, opts)
    assert.equal(#data.functions, #decoded.functions)
    assert.same(data.functions[1], decoded.functions[1])
    assert.same(data.calls, decoded.calls)
    assert.same(data.totals, decoded.totals)
    assert.same(data.events, decoded.events)
    assert.equal(data.shown, decoded.shown)
  end)

  it("keeps names with markup, quotes and bytes that are not UTF-8 as data", function()
    local odd = assert(callgrind.parse('events: Ir\nfl=a.c\nfn=</script><b>"x"\n1 5\nfn=caf\233\n2 3\n', "odd.out"))
    local page = html.page(odd, { graphs = 0, asm = 0, flame = false })
    assert.falsy(page:find("</script><b>", 1, true))
    local text = page:match('<script type="application/json" id="cg%-data">(.-)</script>')
    local decoded = assert(dkjson.decode(text))
    assert.equal('</script><b>"x"', decoded.functions[1][1])
    assert.equal("caf\239\191\189", decoded.functions[2][1])
    assert.equal("the flame graph was left out when this page was made", decoded.notes.flame)
  end)

  it("writes the page to a file", function()
    local path = os.tmpname()
    assert(html.write(prof, path, { graphs = 0, asm = 0 }))
    assert.equal(html.page(prof, { graphs = 0, asm = 0 }), fixtures.read(path))
    os.remove(path)
    local ok, err = html.write(prof, "/nonexistent/dir/page.html", { graphs = 0, asm = 0 })
    assert.is_nil(ok)
    assert.truthy(err:find("/nonexistent/dir/page.html", 1, true), err)
  end)
end)

describe("callgrind.html machine code", function()
  if not vg.available() then
    pending("gcc and valgrind are needed on PATH")
    return
  end
  if not has_program("objdump") then
    pending("objdump is needed")
    return
  end

  it("holds asm.text of the hottest functions of a profile with instruction addresses", function()
    local file = vg.profile("callgrind_asm")[1]
    local prof = assert(callgrind.load(file))
    local data = html.data(prof, { graphs = 0, asm = 3 })
    local asm = require "callgrind.asm"
    local n = 0
    for key, text in pairs(data.asm) do
      n = n + 1
      local f = data.functions[tonumber(key) + 1]
      assert.is_true(tonumber(key) < 3)
      local fn
      for candidate in prof:functions() do
        if candidate.name == f[1] and candidate.file == data.strings[f[2] + 1]
          and candidate.object == data.strings[f[3] + 1] then fn = candidate end
      end
      assert.equal(asm.text(prof, fn, { show = { "Ir" }, context = 8 }), text)
    end
    assert.equal(3, n)
    assert.truthy(data.asm["0"]:find("-- Machine code: ", 1, true), data.asm["0"])
  end)
end)
