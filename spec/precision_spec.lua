-- Values beyond what a Lua number holds exactly, on every Lua version: integers on 5.3+,
-- doubles (exact up to 2^53) on 5.1 and LuaJIT, and obj:exact() everywhere.
local callgrind = require "callgrind"

local has_integers = math.type ~= nil

-- 2^53 + 1 = 9007199254740993 is the first integer a double cannot hold; it rounds to 2^53.
-- 2^63 - 1 is the largest cost, 2^64 - 1 the largest count.
local text = table.concat({
  "positions: instr line",
  "events: Ir Dr",
  "fl=big.c",
  "fn=main",
  "0x1000 1 9007199254740993 9223372036854775807",
  "0x1004 2 -9007199254740993 -9223372036854775807",
  "cfn=callee",
  "calls=18446744073709551615 0x2000 20",
  "0x1008 3 20 0",
  "jcnd=9007199254740995/9007199254740997 0x1010 4",
  "0x100c 3",
  "0x1010 4 1 1",
  "fn=callee",
  "0x2000 20 4294967296 4294967295",
}, "\n") .. "\n"

local function load_big()
  return assert(callgrind.parse(text, "big.callgrind"))
end

local function lines_of(fn)
  local list = {}
  for line in fn:lines() do list[#list + 1] = line end
  return list
end

describe("obj:exact()", function()
  it("gives a line's costs as decimal strings", function()
    local records = lines_of(load_big():find("main"))
    assert.equal("9007199254740993", records[1]:exact("cost", "Ir"))
    assert.equal("9223372036854775807", records[1]:exact("cost", "Dr"))
    assert.equal("-9007199254740993", records[2]:exact("cost", "Ir"))
    assert.equal("-9223372036854775807", records[2]:exact("cost", 2))
  end)

  it("gives them as two 32-bit halves: high * 2^32 + low, 0 <= low < 2^32", function()
    local records = lines_of(load_big():find("main"))
    -- 2^53 + 1 = 2097152 * 2^32 + 1
    assert.same({ 2097152, 1 }, { records[1]:exact("cost", "Ir", "halves") })
    -- 2^63 - 1 = (2^31 - 1) * 2^32 + (2^32 - 1)
    assert.same({ 2147483647, 4294967295 }, { records[1]:exact("cost", "Dr", "halves") })
    -- -(2^53 + 1) = -2097153 * 2^32 + (2^32 - 1)
    assert.same({ -2097153, 4294967295 }, { records[2]:exact("cost", "Ir", "halves") })
    -- -(2^63 - 1) = -2^31 * 2^32 + 1
    assert.same({ -2147483648, 1 }, { records[2]:exact("cost", "Dr", "halves") })
  end)

  it("gives self and inclusive costs of functions and the profile total", function()
    local prof = load_big()
    local main = prof:find("main")
    -- self Ir: (2^53 + 1) - (2^53 + 1) + 1 = 1; inclusive adds the call's 20 from callee
    assert.equal("1", main:exact("self", "Ir"))
    assert.equal("21", main:exact("inclusive", "Ir"))
    -- Dr: (2^63 - 1) - (2^63 - 1) + 1 in main, 2^32 - 1 in callee
    assert.equal("4294967296", prof:exact("total", "Dr"))
    assert.equal("4294967296", prof:find("callee"):exact("self", "Ir"))
    assert.same({ 1, 0 }, { prof:find("callee"):exact("self", "Ir", "halves") })
  end)

  it("gives counts up to 2^64 - 1 and positions", function()
    local prof = load_big()
    local call = prof:find("main"):callees()()
    assert.equal("18446744073709551615", call:exact("count"))
    assert.same({ 4294967295, 4294967295 }, { call:exact("count", "halves") })
    assert.equal("18446744073709551615", prof:find("callee"):exact("called"))
    assert.equal("20", call:exact("inclusive", "Ir"))
    assert.equal("3", call:exact("line"))
    assert.equal("4104", call:exact("addr"))
    assert.equal("20", call:exact("target_line"))
    assert.equal("8192", call:exact("target_addr"))
    local jump = prof:find("main"):jumps()()
    assert.equal("9007199254740997", jump:exact("executed"))
    assert.equal("9007199254740995", jump:exact("taken"))
    assert.same({ 2097152, 3 }, { jump:exact("taken", "halves") })
    assert.equal("3", jump:exact("from_line"))
    assert.equal("4108", jump:exact("from_addr"))
    assert.equal("4", jump:exact("to_line"))
    assert.equal("4112", jump:exact("to_addr"))
    local record = lines_of(prof:find("main"))[3]
    assert.equal("4", record:exact("line"))
    assert.equal("4112", record:exact("addr"))
  end)

  if has_integers then
    it("gives the halves as integers on Lua 5.3 and later", function()
      local high, low = lines_of(load_big():find("main"))[1]:exact("cost", "Ir", "halves")
      assert.equal("integer", math.type(high))
      assert.equal("integer", math.type(low))
    end)
  end

  it("gives nil for a position the profile does not have", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=f\n7 3\n"))
    local record = prof:find("f"):lines()()
    assert.equal("7", record:exact("line"))
    assert.is_nil(record:exact("addr"))
  end)

  it("names the values it knows when asked for another", function()
    local prof = load_big()
    local main = prof:find("main")
    assert.has_error(function() main:exact("cost", "Ir") end,
      "no exact value 'cost' for a function (known: self, inclusive, called)")
    assert.has_error(function() prof:exact("self", "Ir") end,
      "no exact value 'self' for a profile (known: total)")
    assert.has_error(function() main:exact("self", "Xx") end, "unknown event 'Xx' (known: Ir, Dr, CEst)")
    assert.has_error(function() main:exact("self", "Ir", "octal") end)
  end)
end)

describe("plain accessors", function()
  if has_integers then
    it("are exact integers on Lua 5.3 and later", function()
      local records = lines_of(load_big():find("main"))
      assert.equal(9007199254740993, records[1]:cost("Ir"))
      assert.equal("integer", math.type(records[1]:cost("Ir")))
      assert.equal(math.maxinteger, records[1]:cost("Dr"))
      -- counts beyond 2^63 - 1 wrap as Lua's unsigned integers do
      local call = load_big():find("main"):callees()()
      assert.equal(-1, call.count)
      assert.is_true(math.ult(0, call.count))
    end)
  else
    it("are doubles on Lua 5.1 and LuaJIT: exact up to 2^53, the nearest double beyond", function()
      local records = lines_of(load_big():find("main"))
      assert.equal(2 ^ 53, records[1]:cost("Ir"))
      assert.equal(2 ^ 53 - 1, 9007199254740991)
      assert.equal(-(2 ^ 53), records[2]:cost("Ir"))
      assert.equal(2 ^ 63, records[1]:cost("Dr"))
      assert.equal(2 ^ 64, load_big():find("main"):callees()().count)
      assert.equal(4294967296, load_big():find("callee"):self("Ir"))
    end)
  end
end)

describe("iterators", function()
  local prof = assert(callgrind.parse("events: Ir\nfn=a\n1 1\nfn=b\n2 2\nfn=c\n3 3\n"))

  if _VERSION == "Lua 5.4" then
    it("return the generic for's closing value on Lua 5.4", function()
      assert.equal(4, select("#", prof:functions()))
      assert.equal(4, select("#", prof:find("a"):lines()))
      assert.equal("userdata", type(select(4, prof:find("a"):callees())))
    end)

    it("end when a loop is left early", function()
      local chunk = load([[
        local iter, state, control, closing = ...
        for fn in iter, state, control, closing do break end
        return iter()
      ]])
      assert.is_nil(chunk(prof:functions()))
      local iter = prof:functions() -- not closed: carries on
      iter()
      assert.equal("b", iter().name)
    end)

    it("end when an error leaves the loop", function()
      local iter, state, control, closing = prof:functions()
      local chunk = load([[
        local iter, state, control, closing = ...
        for fn in iter, state, control, closing do error("stop") end
      ]])
      assert.is_false(pcall(chunk, iter, state, control, closing))
      assert.is_nil(iter())
    end)
  else
    it("return the iterator alone before Lua 5.4", function()
      assert.equal(1, select("#", prof:functions()))
      assert.equal(1, select("#", prof:find("a"):jumps()))
    end)
  end

  it("return nothing once finished, however often called", function()
    local iter = prof:functions()
    assert.equal("a", iter().name)
    assert.equal("b", iter().name)
    assert.equal("c", iter().name)
    assert.is_nil(iter())
    assert.is_nil(iter())
  end)
end)

describe("printed forms", function()
  it("print line numbers past 2^31 and counts past 2^53 exactly", function()
    local prof = assert(callgrind.parse(table.concat({
      "events: Ir",
      "fl=a.c",
      "fn=f",
      "4294967301 5",
      "cfn=g",
      "calls=9007199254740993 8589934592",
      "4294967301 7",
      "jump=9007199254740995 4294967302",
      "4294967301",
      "fn=g",
      "8589934592 7",
    }, "\n") .. "\n"))
    local f = prof:find("f")
    assert.equal("line a.c:4294967301", tostring(f:lines()()))
    assert.equal("call f -> g (9007199254740993 times at a.c:4294967301)", tostring(f:callees()()))
    assert.equal("jump a.c:4294967301 -> a.c:4294967302 (9007199254740995/9007199254740995)",
      tostring(f:jumps()()))
  end)
end)
