-- prof:by_file (core.file_costs): the self cost of every source file, on a profile whose every
-- number is worked out by hand below.
local callgrind = require "callgrind"
local core = require "callgrind.core"

-- main (a.c) has records in a.c (lines 1-3: Ir 3+4+1 = 8, Dr 1), inlined from inl.h (Ir 5, Dr 2)
-- and from b.c (Ir 2); leaf (b.c) has Ir 6, Dr 1; oneline (c.c) one record, Ir 9; caller (d.c)
-- only calls, so d.c has no line record. Per file: a.c 8 1, b.c 6+2 = 8 1, c.c 9 0, inl.h 5 2.
local TEXT = table.concat({
  "events: Ir Dr",
  "fl=a.c", "fn=main",
  "1 3 1", "2 4",
  "fi=inl.h", "10 5 2",
  "fi=b.c", "20 2",
  "fe=a.c", "3 1",
  "cfl=b.c", "cfn=leaf", "calls=1 1", "3 7 1",
  "fl=b.c", "fn=leaf", "1 6 1",
  "fl=c.c", "fn=oneline", "7 9",
  "fl=d.c", "fn=caller", "cfl=a.c", "cfn=main", "calls=1 1", "1 22 4",
  "",
}, "\n")

local function rows(list, events)
  local out = {}
  for i, entry in ipairs(list) do
    local costs = {}
    for k, ev in ipairs(events) do costs[k] = tostring(entry.costs[ev]) end
    out[i] = entry.file .. " " .. table.concat(costs, " ")
  end
  return out
end

describe("prof:by_file", function()
  local prof = assert(callgrind.parse(TEXT, "files"))

  it("sums every file's records, inlined code under its own file, by decreasing cost", function()
    assert.same({ "c.c 9 0", "a.c 8 1", "b.c 8 1", "inl.h 5 2" }, rows(prof:by_file(), { "Ir", "Dr" }))
    assert.same({ "inl.h 5 2", "a.c 8 1", "b.c 8 1", "c.c 9 0" }, rows(prof:by_file("Dr"), { "Ir", "Dr" }))
    assert.same(rows(prof:by_file("Dr"), { "Ir", "Dr" }), rows(prof:by_file(2), { "Ir", "Dr" }))
  end)

  it("gives the raw events only, and files with call sites only not at all", function()
    for _, entry in ipairs(prof:by_file()) do
      local keys = {}
      for ev in pairs(entry.costs) do keys[#keys + 1] = ev end
      table.sort(keys)
      assert.same({ "Dr", "Ir" }, keys)
      assert.not_equal("d.c", entry.file)
    end
  end)

  it("adds up to the profile's total", function()
    local ir, dr = 0, 0
    for _, entry in ipairs(core.file_costs(prof)) do
      ir, dr = ir + entry.costs.Ir, dr + entry.costs.Dr
    end
    assert.same({ prof:total("Ir"), prof:total("Dr") }, { ir, dr })
    assert.same({ 30, 4 }, { ir, dr })
  end)

  it("lists the files in name order in the core", function()
    assert.same({ "a.c 8 1", "b.c 8 1", "c.c 9 0", "inl.h 5 2" }, rows(core.file_costs(prof), { "Ir", "Dr" }))
  end)

  it("is empty for a profile without line records, and refuses a closed profile", function()
    local empty = assert(callgrind.parse("events: Ir\nfl=a.c\nfn=f\n", "empty"))
    assert.same({}, prof.by_file(empty))
    empty:close()
    assert.has_error(function() core.file_costs(empty) end, "the profile is closed")
  end)
end)
