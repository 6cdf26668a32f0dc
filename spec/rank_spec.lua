-- core.rank and core.functions_text: the functions in order of cost, and all of them with their
-- costs as text, on a profile whose every number is worked out by hand below.
local callgrind = require "callgrind"
local core = require "callgrind.core"

-- Self costs (Ir Dr): zeta 5 1, alpha@b.c 5 0, alpha@a.c 5 2, beta 7 0 (and calls alpha@a.c
-- three times, inclusive 5 2), alpha@a.c in libx.so 5 0, and two functions of awkward names.
local TEXT = table.concat({
  "events: Ir Dr",
  "ob=main",
  "fl=b.c",
  "fn=zeta", "1 5 1",
  "fn=alpha", "2 5",
  "fl=a.c",
  "fn=alpha", "1 5 2",
  "fn=beta", "1 7", "cfn=alpha", "calls=3 1", "1 5 2",
  "ob=libx.so",
  "fn=alpha", "1 5",
  "fl=x,y.c",
  'fn=g<a, "b">', "1 1",
  "fn=t\tab\\x", "1 1",
  "",
}, "\n")

local function load()
  return assert(callgrind.parse(TEXT, "ranked"))
end

-- "name file object" of each function of a list.
local function labels(fns)
  local out = {}
  for i, fn in ipairs(fns) do
    out[i] = fn.name .. " " .. fn.file .. " " .. fn.object
  end
  return out
end

local function find(prof, name, file, object)
  for fn in prof:functions() do
    if fn.name == name and fn.file == file and fn.object == object then return fn end
  end
  error("no function " .. name)
end

describe("core.rank", function()
  local prof = load()

  it("orders by decreasing self cost, ties by name, file and object", function()
    assert.same({
      "beta a.c main", "alpha a.c libx.so", "alpha a.c main", "alpha b.c main", "zeta b.c main",
      'g<a, "b"> x,y.c libx.so', "t\tab\\x x,y.c libx.so",
    }, labels(core.rank(prof, "Ir", false)))
  end)

  it("orders by inclusive cost when asked, and by the event given by name or index", function()
    assert.same({
      "alpha a.c main", "beta a.c main", "zeta b.c main", "alpha a.c libx.so", "alpha b.c main",
      'g<a, "b"> x,y.c libx.so', "t\tab\\x x,y.c libx.so",
    }, labels(core.rank(prof, "Dr", true)))
    assert.same(labels(core.rank(prof, "Dr", false)), labels(core.rank(prof, 2, false)))
    assert.same({ "alpha a.c main", "zeta b.c main", "alpha a.c libx.so" },
      labels(core.rank(prof, 2, false, 3)))
  end)

  it("gives at most `limit` functions", function()
    assert.same({ "beta a.c main", "alpha a.c libx.so" }, labels(core.rank(prof, "Ir", false, 2)))
    assert.same({}, core.rank(prof, "Ir", false, 0))
    assert.equal(7, #core.rank(prof, "Ir", false, 100))
  end)

  it("gives the first `limit` of the whole ranking, rising or falling, on a real profile", function()
    local sample = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local function ids(list)
      local out = {}
      for i, fn in ipairs(list) do out[i] = fn.id end
      return out
    end
    for _, inclusive in ipairs { false, true } do
      for _, ascending in ipairs { false, true } do
        local all = ids(core.rank(sample, "Ir", inclusive, nil, ascending))
        assert.equal(264, #all)
        for _, limit in ipairs { 1, 2, 5, 10, 30, 65, 200 } do
          assert.same({ (table.unpack or unpack)(all, 1, limit) },
            ids(core.rank(sample, "Ir", inclusive, limit, ascending)))
        end
      end
    end
    -- rising: the cheapest first, ties (many functions cost nothing inclusive of nothing) by name
    local first = core.rank(sample, "Ir", false, 3, true)
    assert.is_true(first[1]:self("Ir") <= first[2]:self("Ir") and first[2]:self("Ir") <= first[3]:self("Ir"))
  end)

  it("refuses an unknown event and a closed profile", function()
    assert.has_error(function() core.rank(prof, "Bc", false) end, "unknown event 'Bc' (known: Ir, Dr, CEst)")
    assert.has_error(function() core.rank(prof, 4, false) end,
      "event index 4 out of range (1 to 3)")
    assert.has_error(function() core.rank(prof, 1.5, false) end, "event index 1.5 out of range (1 to 3)")
    local closed = load()
    closed:close()
    assert.has_error(function() core.rank(closed, "Ir", false) end, "the profile is closed")
  end)
end)

describe("core.functions_text", function()
  local prof = load()

  it("writes every function by self cost of the first event as tab-separated values, fields escaped", function()
    assert.equal(table.concat({
      "name\tfile\tobject\tcalled\tIr self\tIr inclusive",
      "beta\ta.c\tmain\t0\t7\t12",
      "alpha\ta.c\tlibx.so\t0\t5\t5",
      "alpha\ta.c\tmain\t3\t5\t5",
      "alpha\tb.c\tmain\t0\t5\t5",
      "zeta\tb.c\tmain\t0\t5\t5",
      'g<a, "b">\tx,y.c\tlibx.so\t0\t1\t1',
      "t\\tab\\\\x\tx,y.c\tlibx.so\t0\t1\t1",
      "",
    }, "\n"), core.functions_text(prof, { "Ir" }, "tsv"))
  end)

  it("writes CSV as RFC 4180 quotes it, ranked by the first event given", function()
    assert.equal(table.concat({
      "name,file,object,called,Dr self,Dr inclusive,Ir self,Ir inclusive",
      "alpha,a.c,main,3,2,2,5,5",
      "zeta,b.c,main,0,1,1,5,5",
      "alpha,a.c,libx.so,0,0,0,5,5",
      "alpha,b.c,main,0,0,0,5,5",
      "beta,a.c,main,0,0,2,7,12",
      '"g<a, ""b"">","x,y.c",libx.so,0,0,0,1,1',
      't\tab\\x,"x,y.c",libx.so,0,0,0,1,1',
      "",
    }, "\n"), core.functions_text(prof, { "Dr", 1 }, "csv"))
  end)

  it("writes JSON as callgrind.json writes it, derived events included", function()
    local text = core.functions_text(prof, { "Ir", "CEst" }, "json")
    assert.equal('{"events": ["Ir", "CEst"],\n "functions": [\n  {"name": "beta", "file": "a.c", "object": "main", '
      .. '"called": 0, "self": {"Ir": 7, "CEst": 7}, "inclusive": {"Ir": 12, "CEst": 12}},\n  {"name": "alpha", ',
      text:sub(1, 196))
    local last = '{"name": "t\\tab\\\\x", "file": "x,y.c", "object": "libx.so", "called": 0, '
      .. '"self": {"Ir": 1, "CEst": 1}, "inclusive": {"Ir": 1, "CEst": 1}}\n ]}\n'
    assert.equal(last, text:sub(-#last))
    local data = assert(require("dkjson").decode(text))
    assert.equal(7, #data.functions)
    assert.same({ name = 'g<a, "b">', file = "x,y.c", object = "libx.so", called = 0,
      self = { Ir = 1, CEst = 1 }, inclusive = { Ir = 1, CEst = 1 } }, data.functions[6])
  end)

  it("writes the heading alone, or an empty list, for a profile without functions", function()
    local empty = assert(callgrind.parse("events: Ir\n", "empty"))
    assert.equal("name\tfile\tobject\tcalled\tIr self\tIr inclusive\n", core.functions_text(empty, { "Ir" }, "tsv"))
    assert.equal('{"events": ["Ir"],\n "functions": []}\n', core.functions_text(empty, { "Ir" }, "json"))
  end)

  it("refuses bad arguments", function()
    assert.has_error(function() core.functions_text(prof, { "Bc" }, "tsv") end,
      "unknown event 'Bc' (known: Ir, Dr, CEst)")
    assert.has_error(function() core.functions_text(prof, { "Ir" }, "xml") end)
    assert.has_error(function() core.functions_text(prof, {}, "tsv") end)
    local closed = load()
    closed:close()
    assert.has_error(function() core.functions_text(closed, { "Ir" }, "tsv") end, "the profile is closed")
  end)
end)
