-- core.call_pairs and core.namesakes: what callgrind.dot takes from the core, on a profile whose
-- every number is worked out by hand below.
local callgrind = require "callgrind"
local core = require "callgrind.core"

-- main calls work from two call sites (2 calls, inclusive Ir 30 and Dr 3; 1 call, 12 and 1),
-- helper once (4 and 0); work calls helper 3 times (9 and 0) and itself once (5 and 0); helper
-- calls nothing. Two functions named `dup` live in two files; main calls both.
local TEXT = table.concat({
  "events: Ir Dr",
  "fl=main.c",
  "fn=main", "1 1",
  "cfn=work", "calls=2 10", "2 30 3",
  "cfn=helper", "calls=1 20", "3 4",
  "cfn=work", "calls=1 10", "4 12 1",
  "cfl=a.c", "cfn=dup", "calls=1 1", "5 2",
  "cfl=b.c", "cfn=dup", "calls=4 1", "6 8",
  "fn=work", "10 20",
  "cfn=helper", "calls=3 20", "11 9",
  "cfn=work", "calls=1 10", "12 5",
  "fn=helper", "20 4",
  "fl=a.c", "fn=dup", "1 2",
  "fl=b.c", "fn=dup", "1 2",
  "",
}, "\n")

local function find(prof, name, file)
  for fn in prof:functions() do
    if fn.name == name and (file == nil or fn.file == file) then return fn end
  end
  error("no function " .. name)
end

-- "caller>callee count cost" of each pair.
local function labels(pairs)
  local out = {}
  for i, p in ipairs(pairs) do
    out[i] = ("%s>%s %s %s"):format(p.caller.name, p.callee.name, tostring(p.count), tostring(p.cost))
  end
  return out
end

describe("core.call_pairs", function()
  local prof = assert(callgrind.parse(TEXT, "pairs"))
  local main, work, helper = find(prof, "main"), find(prof, "work"), find(prof, "helper")
  local dup_a, dup_b = find(prof, "dup", "a.c"), find(prof, "dup", "b.c")

  it("sums the calls of each pair over its call sites, in the order of the list and of first calls", function()
    assert.same({
      "main>work 3 42", "main>helper 1 4", "work>helper 3 9", "work>work 1 5",
    }, labels(core.call_pairs(prof, { main, work, helper }, "Ir")))
    assert.same({ "main>work 3 4", "main>helper 1 0", "work>helper 3 0", "work>work 1 0" },
      labels(core.call_pairs(prof, { main, work, helper }, 2)))
  end)

  it("keeps only calls between listed functions, the callers in the list's order, each once", function()
    assert.same({ "work>helper 3 9", "work>work 1 5" },
      labels(core.call_pairs(prof, { helper, work, work }, "Ir")))
    assert.same({ "work>helper 3 9", "work>work 1 5", "main>work 3 42", "main>helper 1 4" },
      labels(core.call_pairs(prof, { work, helper, main, work }, "Ir")))
    assert.same({ "main>helper 1 4" }, labels(core.call_pairs(prof, { main, helper }, "Ir")))
    assert.same({ "work>work 1 5" }, labels(core.call_pairs(prof, { work }, "Ir")))
    assert.same({}, core.call_pairs(prof, { helper, dup_a }, "Ir"))
  end)

  it("tells apart callees of one name and gives costs of 0 without an event", function()
    local pairs = core.call_pairs(prof, { main, dup_a, dup_b })
    assert.same({ "main>dup 1 0", "main>dup 4 0" }, labels(pairs))
    assert.equal(dup_a, pairs[1].callee)
    assert.equal(dup_b, pairs[2].callee)
    assert.equal(main, pairs[1].caller)
  end)

  it("refuses functions of another profile and unknown events", function()
    local other = assert(callgrind.parse(TEXT, "other"))
    assert.has_error(function() core.call_pairs(prof, { find(other, "main") }, "Ir") end)
    assert.has_error(function() core.call_pairs(prof, { main }, "Bc") end)
    assert.has_error(function() core.call_pairs(prof, { main, "main" }, "Ir") end)
  end)
end)

describe("core.namesakes", function()
  it("lists every name two functions share, its functions in the order first met", function()
    local prof = assert(callgrind.parse(TEXT, "names"))
    local groups = core.namesakes(prof)
    assert.equal(1, #groups)
    assert.same({ "a.c", "b.c" }, { groups[1][1].file, groups[1][2].file })
    assert.equal("dup", groups[1][1].name)
  end)

  it("is empty when every name is its own, and orders several shared names by name", function()
    local prof = assert(callgrind.parse("events: Ir\nfl=x.c\nfn=b\n1 1\nfn=a\n1 1\n", "unique"))
    assert.same({}, core.namesakes(prof))
    prof = assert(callgrind.parse(table.concat({
      "events: Ir", "fl=1.c", "fn=z", "1 1", "fn=y", "1 1", "fl=2.c", "fn=z", "1 1", "fn=y", "1 1",
      "fl=3.c", "fn=y", "1 1", "",
    }, "\n"), "several"))
    local groups = core.namesakes(prof)
    assert.equal(2, #groups)
    assert.same({ "y", "y", "y" }, { groups[1][1].name, groups[1][2].name, groups[1][3].name })
    assert.same({ "1.c", "2.c", "3.c" }, { groups[1][1].file, groups[1][2].file, groups[1][3].file })
    assert.same({ "1.c", "2.c" }, { groups[2][1].file, groups[2][2].file })
  end)

  it("refuses a closed profile, as call_pairs does", function()
    local prof = assert(callgrind.parse(TEXT, "closed"))
    local main = find(prof, "main")
    prof:close()
    assert.has_error(function() core.namesakes(prof) end, "the profile is closed")
    assert.has_error(function() core.call_pairs(prof, { main }, "Ir") end, "the profile is closed")
  end)
end)
