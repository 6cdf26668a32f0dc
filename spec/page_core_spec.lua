-- core.function_rows and core.call_rows: what the report page takes from the core, as Lua
-- tables and as the JSON text the page embeds, on a profile whose numbers are worked out by
-- hand below and whose names hold the bytes callgrind.json escapes or replaces (a name has no
-- line break).
local callgrind = require "callgrind"
local core = require "callgrind.core"
local json = require "callgrind.json"

-- main (a.c, in prog) costs Ir 3, Dr 1 itself and calls work twice from line 7 (inclusive 10
-- and 2) and odd once from line 8 (1 and 0); work (b.c, in prog) costs 10 and 2; the function
-- of the awkward name (c.c, in lib) costs 1 and 0.
local ODD = 'q"b\\s\t\b\f\1\127 é \255 \237\160\128 \192\175 \244\144\128\128 \226\130 end'
local TEXT = table.concat({
  "events: Ir Dr",
  "ob=prog", "fl=a.c", "fn=main", "5 3 1",
  "cfl=b.c", "cfn=work", "calls=2 9", "7 10 2",
  "cob=lib", "cfl=c.c", "cfn=" .. ODD, "calls=1 1", "8 1",
  "fl=b.c", "fn=work", "9 10 2",
  "ob=lib", "fl=c.c", "fn=" .. ODD, "1 1",
  "",
}, "\n")

describe("core.function_rows and core.call_rows", function()
  local prof = assert(callgrind.parse(TEXT, "page"))
  local listed = {}
  for fn in prof:functions() do listed[#listed + 1] = fn end -- main, work, the odd one

  it("gives each function's name, file and object as indexes, count and costs", function()
    local rows, names = core.function_rows(prof, listed, { "Ir", "Dr" })
    assert.same({ "a.c", "prog", "b.c", "c.c", "lib" }, names)
    assert.same({ "main", 0, 1, 0, { 3, 1 }, { 14, 3 } }, rows[1])
    assert.same({ "work", 2, 1, 2, { 10, 2 }, { 10, 2 } }, rows[2])
    assert.same({ ODD, 3, 4, 1, { 1, 0 }, { 1, 0 } }, rows[3])
    local only_dr = core.function_rows(prof, { listed[2] }, { "Dr" })
    assert.same({ { "work", 0, 1, 2, { 2 }, { 2 } } }, only_dr)
  end)

  it("gives every call by the positions of its functions in the list", function()
    assert.same({ { 0, 1, 2, 10, 2, 7 }, { 0, 2, 1, 1, 0, 8 } }, core.call_rows(prof, listed, { "Ir", "Dr" }))
    local reversed = { listed[3], listed[2], listed[1] }
    assert.same({ { 2, 1, 2, 10, 7 }, { 2, 0, 1, 1, 8 } }, core.call_rows(prof, reversed, { "Ir" }))
  end)

  it("writes the JSON that callgrind.json writes for the same tables", function()
    for _, events in ipairs { { "Ir", "Dr" }, { "Dr" } } do
      local rows, names = core.function_rows(prof, listed, events)
      local text, json_names = core.function_rows(prof, listed, events, true)
      assert.equal(json.encode(rows), text)
      assert.same(names, json_names)
      assert.equal(json.encode(core.call_rows(prof, listed, events)), core.call_rows(prof, listed, events, true))
    end
    -- the name's bytes: escapes, one U+FFFD for each byte of no valid sequence, valid ones kept
    local text = core.function_rows(prof, { listed[3] }, { "Ir" }, true)
    local fffd = "\239\191\189"
    assert.equal('[["q\\"b\\\\s\\t\\b\\f\\u0001\\u007f é ' .. fffd .. " " .. fffd:rep(3) .. " "
      .. fffd:rep(2) .. " " .. fffd:rep(4) .. " " .. fffd:rep(2) .. ' end",0,1,1,[1],[1]]]', text)
  end)

  it("refuses a list that misses a callee, names a function twice or holds another profile's", function()
    assert.has_error(function() core.call_rows(prof, { listed[1] }, { "Ir" }) end,
      "the callee work is not in the list")
    assert.has_error(function() core.function_rows(prof, { listed[1], listed[1] }, { "Ir" }) end)
    local other = assert(callgrind.parse(TEXT, "other"))
    assert.has_error(function() core.function_rows(prof, { other:find("main") }, { "Ir" }) end)
  end)
end)
