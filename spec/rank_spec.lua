-- core.rank and core.cost_text: the functions in order of cost, and rows of their costs as text,
-- on a profile whose every number is worked out by hand below.
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

describe("core.cost_text", function()
  local prof = load()
  local beta = find(prof, "beta", "a.c", "main")
  local alpha = find(prof, "alpha", "a.c", "main")

  it("gives the called count, then self and inclusive cost of each event", function()
    assert.same({ "0\t7\t12\t0\t2", "3\t5\t5\t2\t2" },
      core.cost_text(prof, { beta, alpha }, { "Ir", "Dr" }, "\t"))
    assert.same({ "3;2;2" }, core.cost_text(prof, { alpha }, { 2 }, ";"))
    assert.same({ "0" }, core.cost_text(prof, { beta }, {}, ","))
    assert.same({}, core.cost_text(prof, {}, { "Ir" }, ","))
  end)

  it("puts name, file and object first as escaped TSV or quoted CSV fields", function()
    local g = find(prof, 'g<a, "b">', "x,y.c", "libx.so")
    local t = find(prof, "t\tab\\x", "x,y.c", "libx.so")
    assert.same({ "beta\ta.c\tmain\t0\t7\t12", 'g<a, "b">\tx,y.c\tlibx.so\t0\t1\t1',
      "t\\tab\\\\x\tx,y.c\tlibx.so\t0\t1\t1" },
      core.cost_text(prof, { beta, g, t }, { "Ir" }, "\t", "tsv"))
    assert.same({ "beta,a.c,main,0,7,12", '"g<a, ""b"">","x,y.c",libx.so,0,1,1',
      't\tab\\x,"x,y.c",libx.so,0,1,1' },
      core.cost_text(prof, { beta, g, t }, { "Ir" }, ",", "csv"))
  end)

  it("refuses bad arguments", function()
    assert.has_error(function() core.cost_text(prof, { beta }, { "Bc" }, ",") end,
      "unknown event 'Bc' (known: Ir, Dr, CEst)")
    assert.has_error(function() core.cost_text(prof, { beta }, { "Ir" }, ",", "xml") end)
    assert.has_error(function() core.cost_text(prof, { "beta" }, { "Ir" }, ",") end)
    local closed = load()
    closed:close()
    assert.has_error(function() core.cost_text(closed, {}, {}, ",") end, "the profile is closed")
  end)
end)
