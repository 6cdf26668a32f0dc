-- callgrind.webgrind: webgrind's preprocessed format, version 7 (the layout "with line numbers"
-- of webgrind's format description). The file is a sequence of little-endian unsigned 32-bit
-- numbers and newline-terminated strings:
--
--   version (7), headers_offset, function_count, function_offset * function_count,
--   per function: line, self, inclusive, invocations, called_from_count, sub_call_count,
--                 called_from_count * (function, line, count, cost),
--                 sub_call_count * (function, line, count, cost),
--                 file "\n", name "\n"
--   header lines "key: value\n" from headers_offset to the end of the data.
--
-- What we write there:
--   * one event: opts.event (a name or an index), by default the profile's first event;
--   * functions in prof:functions() order; a function's number is its position in that order,
--     counting from 0, and the offsets table points at each record;
--   * line: the line of the function's first line record (fn:lines()), 0 when it has none;
--   * self: fn:self(ev); inclusive: fn:inclusive(ev);
--   * invocations: fn.called, or 1 for a function nobody calls that has a self cost or calls
--     of its own (a root that ran);
--   * called-from records: the function's incoming calls grouped by (caller, call line), with
--     the counts and the calls' inclusive costs summed; sub-call records: its outgoing calls
--     grouped by (callee, call line) in the same way;
--   * file: fn.file; name: fn.name;
--   * headers: the first section's header lines as "key: value", with events:, summary: and
--     totals: reduced to the written event.
-- Every number must fit in 32 bits: a negative cost (Xdebug's memory deltas) or one of 2^32 or
-- more makes encode and write return nil and a message naming the function; nothing is wrapped
-- and no file is left behind. The reader returns nil and a message with a byte offset for data
-- it cannot read, never raising a Lua error.
local callgrind = require "callgrind"
local core = require "callgrind.core"
local webgrind = require "callgrind.webgrind"
local fixtures = require "helpers.fixtures"
local run = require "helpers.run"
local vg = require "helpers.valgrind"

local SAMPLE = "examples/data/sample.callgrind.gz"
local LIMIT = 4294967296 -- 2^32

---------------------------------------------------------------------------------------------
-- An independent reader of the layout (offsets are 0-based byte positions, as in the format)

local function u32_at(data, offset)
  local a, b, c, d = data:byte(offset + 1, offset + 4)
  assert(d, "no 32-bit number at byte " .. offset .. " (data is " .. #data .. " bytes)")
  return a + b * 256 + c * 65536 + d * 16777216
end

--- The newline-terminated string at `offset` and the offset just after its newline.
local function string_at(data, offset)
  local nl = data:find("\n", offset + 1, true)
  assert(nl, "no newline after byte " .. offset)
  return data:sub(offset + 1, nl - 1), nl
end

--- Little-endian 32-bit encoding, for building damaged inputs.
local function le32(v)
  return string.char(v % 256, math.floor(v / 256) % 256, math.floor(v / 65536) % 256,
    math.floor(v / 16777216) % 256)
end

--- Replaces the 32-bit number at `offset`.
local function patch(data, offset, v)
  return data:sub(1, offset) .. le32(v) .. data:sub(offset + 5)
end

--- Reads a whole file with the layout above, checking that every part follows the previous
--- one: records where the offsets table says, headers from headers_offset to the end.
local function parse_v7(data)
  local out = { version = u32_at(data, 0), headers_offset = u32_at(data, 4), count = u32_at(data, 8) }
  out.offsets, out.functions = {}, {}
  for i = 1, out.count do out.offsets[i] = u32_at(data, 8 + 4 * i) end
  local pos = 12 + 4 * out.count
  for i = 1, out.count do
    assert(out.offsets[i] == pos, "record " .. (i - 1) .. " at " .. out.offsets[i] .. ", expected " .. pos)
    local f = { number = i - 1 }
    f.line, f.self, f.inclusive = u32_at(data, pos), u32_at(data, pos + 4), u32_at(data, pos + 8)
    f.invocations = u32_at(data, pos + 12)
    local nfrom, nsub = u32_at(data, pos + 16), u32_at(data, pos + 20)
    pos = pos + 24
    for _, list in ipairs { { "called_from", nfrom }, { "sub_calls", nsub } } do
      local calls = {}
      for k = 1, list[2] do
        calls[k] = { fn = u32_at(data, pos), line = u32_at(data, pos + 4), count = u32_at(data, pos + 8),
          cost = u32_at(data, pos + 12) }
        pos = pos + 16
      end
      f[list[1]] = calls
    end
    f.file, pos = string_at(data, pos)
    f.name, pos = string_at(data, pos)
    out.functions[i] = f
  end
  assert(out.headers_offset == pos, "headers at " .. out.headers_offset .. ", functions end at " .. pos)
  out.headers = {}
  while pos < #data do
    out.headers[#out.headers + 1], pos = string_at(data, pos)
  end
  assert(pos == #data)
  return out
end

--- Call records in a canonical order (the format does not fix one).
local function sorted_calls(list)
  local copy = {}
  for i, c in ipairs(list) do copy[i] = { fn = c.fn, line = c.line, count = c.count, cost = c.cost } end
  table.sort(copy, function(a, b)
    if a.fn ~= b.fn then return a.fn < b.fn end
    return a.line < b.line
  end)
  return copy
end

--- The call record at `offset`, as a table.
local function call_at(data, offset)
  return { fn = u32_at(data, offset), line = u32_at(data, offset + 4), count = u32_at(data, offset + 8),
    cost = u32_at(data, offset + 12) }
end

---------------------------------------------------------------------------------------------
-- What a profile should become, worked out from the API

--- Groups calls by (other function's number, call line), summing counts and inclusive costs.
local function grouped(iter, other, number, ev)
  local index, list = {}, {}
  for call in iter do
    local fnr, line = number[other(call)], call.line or 0
    local key = fnr .. ":" .. line
    local g = index[key]
    if not g then
      g = { fn = fnr, line = line, count = 0, cost = 0 }
      index[key] = g
      list[#list + 1] = g
    end
    g.count = g.count + call.count
    g.cost = g.cost + call:inclusive(ev)
  end
  return sorted_calls(list)
end

local function expected_records(prof, ev)
  local list, number = {}, {}
  for fn in prof:functions() do
    list[#list + 1] = fn
    number[fn] = #list - 1
  end
  local records = {}
  for i, fn in ipairs(list) do
    local line = 0
    for l in fn:lines() do
      line = l.line or 0
      break
    end
    local sub_calls = grouped(fn:callees(), function(c) return c.callee end, number, ev)
    local invocations = fn.called
    if invocations == 0 and (fn:self(ev) ~= 0 or #sub_calls > 0) then invocations = 1 end
    records[i] = {
      number = i - 1, name = fn.name, file = fn.file, line = line, self = fn:self(ev),
      inclusive = fn:inclusive(ev), invocations = invocations,
      called_from = grouped(fn:callers(), function(c) return c.caller end, number, ev),
      sub_calls = sub_calls,
    }
  end
  return records
end

local function expected_headers(prof, ev)
  local first = prof:sections()[1]
  local out = {}
  for _, h in ipairs(first.headers) do
    if h.key == "events" then
      out[#out + 1] = "events: " .. ev
    elseif h.key == "summary" then
      out[#out + 1] = ("summary: %d"):format(first.summary[ev])
    elseif h.key == "totals" then
      out[#out + 1] = ("totals: %d"):format(first.totals[ev])
    else
      out[#out + 1] = h.key .. ": " .. h.value
    end
  end
  return out
end

--- Compares decoded functions (webgrind.decode's or parse_v7's) with what the profile gives.
local function assert_matches_profile(decoded, prof, ev)
  local expected = expected_records(prof, ev)
  assert.are.equal(#expected, #decoded.functions)
  assert.are.equal(prof:stats().functions, #decoded.functions)
  local self_total, invocations_seen = 0, 0
  for i, want in ipairs(expected) do
    local got = decoded.functions[i]
    local label = "function " .. (i - 1) .. " (" .. want.name .. ")"
    assert.are.equal(want.number, got.number, label)
    assert.are.equal(want.name, got.name, label)
    assert.are.equal(want.file, got.file, label)
    assert.are.equal(want.line, got.line, label)
    assert.are.equal(want.self, got.self, label)
    assert.are.equal(want.inclusive, got.inclusive, label)
    assert.are.equal(want.invocations, got.invocations, label)
    assert.are.same(want.called_from, sorted_calls(got.called_from), label)
    assert.are.same(want.sub_calls, sorted_calls(got.sub_calls), label)
    self_total = self_total + got.self
    invocations_seen = invocations_seen + got.invocations
  end
  assert.are.equal(prof:total(ev), self_total)
  assert.is_true(invocations_seen > 0)
end

---------------------------------------------------------------------------------------------
-- Files

local shell_quote = run.quote

--- A fresh empty directory and a function removing it with what it holds.
local function temp_dir()
  local marker = os.tmpname()
  local dir = marker .. ".d"
  local ok = os.execute("mkdir " .. shell_quote(dir))
  assert(ok == true or ok == 0, "cannot create " .. dir)
  local function entries()
    local list = {}
    local pipe = assert(io.popen("ls -A " .. shell_quote(dir)))
    for name in pipe:lines() do list[#list + 1] = name end
    pipe:close()
    table.sort(list)
    return list
  end
  local function remove()
    for _, name in ipairs(entries()) do os.remove(dir .. "/" .. name) end
    os.remove(dir)
    os.remove(marker)
  end
  return dir, entries, remove
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local data = f:read("*a")
  f:close()
  return data
end

---------------------------------------------------------------------------------------------
-- Profiles written by hand

-- The extended example of the Callgrind format specification.
local EXTENDED = fixtures.EXTENDED

-- Two events and the usual header lines.
local TWO_EVENTS = [[
version: 1
creator: hand
cmd: ./two
positions: line
events: Ir Dr
summary: 1300 130

fl=a.c
fn=main
3 100 10
cfn=work
calls=4 10
5 1200 120

fn=work
10 1200 120
totals: 1300 130
]]

-- Xdebug-style: memory deltas may be negative ({main} frees more than it allocates).
local NEGATIVE = [[
version: 1
creator: xdebug 2.9.8 (PHP 7.4.3)
cmd: /var/www/index.php
part: 1
positions: line

events: Time_(10ns) Memory_(bytes)

fl=(1) /var/www/lib.php
fn=(1) helper
3 5 200

fl=(2) /var/www/index.php
fn=(2) {main}

summary: 105 -3896

1 100 -4096
cfl=(1)
cfn=(1)
calls=1 0 0
2 5 200
]]

---------------------------------------------------------------------------------------------

describe("webgrind.encode: the byte layout", function()
  local prof = assert(callgrind.parse(EXTENDED, "extended"))
  local data = assert(webgrind.encode(prof))

  -- Worked out by hand from the example:
  --   main  (file1.c) self 20,  inclusive 20 + 400 + 400 = 820, nobody calls it but it ran: 1
  --         calls func1 once at line 16 (400) and func2 three times at line 16 (400)
  --   func1 (file1.c) self 100, inclusive 400 (what main spent in it), called once from main:16,
  --         calls func2 twice at line 51 (300)
  --   func2 (file2.c) self 700, inclusive 400 + 300 = 700, called 3 + 2 = 5 times
  -- Function numbers: main 0, func1 1, func2 2.
  -- Sizes: 12 bytes of head, 3 * 4 of offsets = 24, so main's record starts at 24;
  --   main  = 24 + 2 * 16 + "file1.c\n" (8) + "main\n" (5)  = 69 -> func1 at 93
  --   func1 = 24 + 2 * 16 + "file1.c\n" (8) + "func1\n" (6) = 70 -> func2 at 163
  --   func2 = 24 + 2 * 16 + "file2.c\n" (8) + "func2\n" (6) = 70 -> headers at 233
  --   headers: "events: Instructions\n" (21) -> 254 bytes in all.

  it("numbers the functions in prof:functions() order", function()
    local names = {}
    for fn in prof:functions() do names[#names + 1] = fn.name end
    assert.are.same({ "main", "func1", "func2" }, names)
  end)

  it("starts with version 7, the headers offset, the function count and the offsets", function()
    assert.are.equal(7, u32_at(data, 0))
    assert.are.equal(233, u32_at(data, 4))
    assert.are.equal(3, u32_at(data, 8))
    assert.are.equal(24, u32_at(data, 12))
    assert.are.equal(93, u32_at(data, 16))
    assert.are.equal(163, u32_at(data, 20))
  end)

  it("writes main's record at 24", function()
    assert.are.same({ 16, 20, 820, 1, 0, 2 }, {
      u32_at(data, 24), u32_at(data, 28), u32_at(data, 32), u32_at(data, 36), u32_at(data, 40),
      u32_at(data, 44) })
    -- no called-from records; two sub-call records at 48 and 64
    assert.are.same({
      { fn = 1, line = 16, count = 1, cost = 400 },
      { fn = 2, line = 16, count = 3, cost = 400 },
    }, sorted_calls { call_at(data, 48), call_at(data, 64) })
    assert.are.equal("file1.c\nmain\n", data:sub(81, 93))
  end)

  it("writes func1's record at 93", function()
    assert.are.same({ 51, 100, 400, 1, 1, 1 }, {
      u32_at(data, 93), u32_at(data, 97), u32_at(data, 101), u32_at(data, 105), u32_at(data, 109),
      u32_at(data, 113) })
    assert.are.same({ fn = 0, line = 16, count = 1, cost = 400 }, call_at(data, 117)) -- called from
    assert.are.same({ fn = 2, line = 51, count = 2, cost = 300 }, call_at(data, 133)) -- sub-call
    assert.are.equal("file1.c\nfunc1\n", data:sub(150, 163))
  end)

  it("writes func2's record at 163", function()
    assert.are.same({ 20, 700, 700, 5, 2, 0 }, {
      u32_at(data, 163), u32_at(data, 167), u32_at(data, 171), u32_at(data, 175), u32_at(data, 179),
      u32_at(data, 183) })
    assert.are.same({
      { fn = 0, line = 16, count = 3, cost = 400 },
      { fn = 1, line = 51, count = 2, cost = 300 },
    }, sorted_calls { call_at(data, 187), call_at(data, 203) })
    assert.are.equal("file2.c\nfunc2\n", data:sub(220, 233))
  end)

  it("ends with the header lines, from the headers offset to the end of the data", function()
    assert.are.equal("events: Instructions\n", data:sub(234))
    assert.are.equal(254, #data)
  end)

  it("reads back whole with the independent reader", function()
    local parsed = parse_v7(data)
    assert.are.equal(7, parsed.version)
    assert.are.same({ 24, 93, 163 }, parsed.offsets)
    assert.are.same({ "events: Instructions" }, parsed.headers)
    assert_matches_profile(parsed, prof, "Instructions")
  end)

  it("agrees with webgrind.decode", function()
    local parsed, decoded = parse_v7(data), assert(webgrind.decode(data, "extended"))
    assert.are.equal(7, decoded.version)
    assert.are.same(parsed.headers, decoded.headers)
    for i, f in ipairs(parsed.functions) do
      local g = decoded.functions[i]
      for _, key in ipairs { "number", "name", "file", "line", "self", "inclusive", "invocations" } do
        assert.are.equal(f[key], g[key], key)
      end
      assert.are.same(sorted_calls(f.called_from), sorted_calls(g.called_from))
      assert.are.same(sorted_calls(f.sub_calls), sorted_calls(g.sub_calls))
    end
  end)

  it("groups calls by function and line, and writes 0 for a function without line records", function()
    -- main calls leaf from line 4 twice (2 + 3 calls, 20 + 30) and from line 6 once (1 call, 5):
    -- two records, the line 4 one summed.
    local p = assert(callgrind.parse(table.concat({
      "events: Ir", "fl=g.c", "fn=main", "4 10", "cfn=leaf", "calls=2 9", "4 20", "cfn=leaf",
      "calls=3 9", "4 30", "cfn=leaf", "calls=1 9", "6 5", "fn=leaf", "9 55", "",
    }, "\n"), "grouping"))
    local parsed = parse_v7(assert(webgrind.encode(p)))
    assert.are.same({ { fn = 1, line = 4, count = 5, cost = 50 }, { fn = 1, line = 6, count = 1, cost = 5 } },
      sorted_calls(parsed.functions[1].sub_calls))
    assert.are.same({ { fn = 0, line = 4, count = 5, cost = 50 }, { fn = 0, line = 6, count = 1, cost = 5 } },
      sorted_calls(parsed.functions[2].called_from))
    assert.are.equal(6, parsed.functions[2].invocations)

    -- positions are instruction addresses only: every line is 0, and two calls from two
    -- addresses make one record
    local q = assert(callgrind.parse(table.concat({
      "positions: instr", "events: Ir", "fl=g.c", "fn=main", "0x10 10", "cfn=leaf", "calls=2 0x40",
      "0x14 20", "cfn=leaf", "calls=1 0x40", "0x18 5", "fn=leaf", "0x40 25", "",
    }, "\n"), "no lines"))
    parsed = parse_v7(assert(webgrind.encode(q)))
    assert.are.equal(0, parsed.functions[1].line)
    assert.are.equal(0, parsed.functions[2].line)
    assert.are.same({ { fn = 1, line = 0, count = 3, cost = 25 } }, parsed.functions[1].sub_calls)
  end)
end)

describe("webgrind round trips", function()
  local function round_trip(prof)
    local dir, _, remove = temp_dir()
    local path = dir .. "/profile.webgrind"
    local ok, err = prof:write_webgrind(path)
    local decoded, derr = callgrind.load_webgrind(path)
    local data = read(path)
    remove()
    assert.is_true(ok, err)
    assert.is_table(decoded, derr)
    return decoded, data
  end

  local function check(prof)
    local ev = prof:events()[1]
    local decoded, data = round_trip(prof)
    assert.are.equal(7, decoded.version)
    assert_matches_profile(decoded, prof, ev)
    assert.are.same(expected_headers(prof, ev), decoded.headers)
    -- the bytes follow the layout too
    local parsed = parse_v7(data)
    assert_matches_profile(parsed, prof, ev)
    assert.are.same(decoded.headers, parsed.headers)
  end

  it("keeps every function of the bundled sample", function()
    local prof = assert(callgrind.load(SAMPLE))
    check(prof)
  end)

  it("keeps every function of a profile made with valgrind", function()
    if not vg.available() then
      pending("valgrind, gcc or callgrind_annotate not installed")
      return
    end
    local files = vg.profile("callgrind_default")
    local prof = assert(callgrind.load(files[1]))
    check(prof)
  end)
end)

describe("webgrind errors", function()
  it("refuses a negative cost, naming the function", function()
    local prof = assert(callgrind.parse(NEGATIVE, "negative"))
    local data, err = webgrind.encode(prof, { event = "Memory_(bytes)" })
    assert.is_nil(data)
    assert.is_string(err)
    assert.truthy(err:find("function '{main}'", 1, true), err)
    assert.truthy(err:find("does not fit in 32 bits", 1, true), err)
    assert.truthy(err:find("-4096", 1, true), err)
    assert.falsy(err:find(tostring(LIMIT - 4096), 1, true), err)
    -- the time event has no negative number and is written
    local parsed = parse_v7(assert(webgrind.encode(prof)))
    assert.are.equal(2, #parsed.functions)
  end)

  it("refuses a cost of 2^32, and writes 2^32 - 1", function()
    local prof = assert(callgrind.parse("events: Ir\nfl=big.c\nfn=huge\n1 4294967296\n", "big"))
    local data, err = webgrind.encode(prof)
    assert.is_nil(data)
    assert.truthy(err:find("function 'huge'", 1, true), err)
    assert.truthy(err:find("does not fit in 32 bits", 1, true), err)

    local max = assert(callgrind.parse("events: Ir\nfl=big.c\nfn=largest\n1 4294967295\n", "max"))
    local parsed = parse_v7(assert(webgrind.encode(max)))
    assert.are.equal(LIMIT - 1, parsed.functions[1].self)
    assert.are.equal(LIMIT - 1, parsed.functions[1].inclusive)
  end)

  it("refuses an inclusive cost of 2^32 made of two halves", function()
    local prof = assert(callgrind.parse(table.concat({
      "events: Ir", "fl=a.c", "fn=main", "1 2147483648", "cfn=f", "calls=1 5", "2 2147483648",
      "fn=f", "5 2147483648", "",
    }, "\n"), "halves"))
    local data, err = webgrind.encode(prof)
    assert.is_nil(data)
    assert.truthy(err:find("function 'main'", 1, true), err)
    assert.truthy(err:find("does not fit in 32 bits", 1, true), err)
  end)

  it("checks every number before the core sends a byte", function()
    local prof = assert(callgrind.parse(NEGATIVE, "negative"))
    local sent = 0
    local ok, err = core.write_webgrind(prof, function()
      sent = sent + 1
      return true
    end, "Memory_(bytes)")
    assert.is_nil(ok)
    assert.are.equal("function '{main}': self cost (-4096) does not fit in 32 bits", err)
    assert.are.equal(0, sent)
  end)

  it("core.write_webgrind sends the functions and stops when the function refuses", function()
    local prof = assert(callgrind.parse(EXTENDED, "extended"))
    local parts = {}
    assert.is_true(core.write_webgrind(prof, function(s)
      parts[#parts + 1] = s
      return true
    end, 1))
    local data = assert(webgrind.encode(prof))
    assert.are.equal(data:sub(1, u32_at(data, 4)), table.concat(parts)) -- all but the headers
    local ok, err = core.write_webgrind(prof, function() return nil, "disk full" end, "Instructions")
    assert.is_nil(ok)
    assert.are.equal("disk full", err)
    assert.has_error(function() core.write_webgrind(prof, print, "nope") end)
    assert.has_error(function() core.write_webgrind(prof, nil, 1) end)
  end)

  it("reports a directory it cannot write in", function()
    local prof = assert(callgrind.parse(EXTENDED, "extended"))
    local ok, err = prof:write_webgrind("/nonexistent/directory/profile.webgrind")
    assert.is_nil(ok)
    assert.truthy(err:find("No such file or directory", 1, true), err)
  end)

  it("leaves no file and no temporary file behind when a number does not fit", function()
    local dir, entries, remove = temp_dir()
    finally(remove)
    local path = dir .. "/negative.webgrind"
    local prof = assert(callgrind.parse(NEGATIVE, "negative"))
    local ok, err = prof:write_webgrind(path, { event = "Memory_(bytes)" })
    assert.is_nil(ok)
    assert.truthy(err:find("function '{main}'", 1, true), err)
    assert.truthy(err:find("does not fit in 32 bits", 1, true), err)
    assert.are.same({}, entries())
    -- the same call through the module; then a good write leaves exactly the one file
    assert.is_nil((webgrind.write(prof, path, { event = 2 })))
    assert.are.same({}, entries())
    assert.is_true(webgrind.write(prof, path))
    assert.are.same({ "negative.webgrind" }, entries())
  end)

  describe("decode", function()
    local data = assert(webgrind.encode(assert(callgrind.parse(EXTENDED, "extended"))))

    local function refuses(input, name)
      local ok, result, err = pcall(webgrind.decode, input, name)
      assert.is_true(ok, result) -- never a Lua error
      assert.is_nil(result)
      assert.is_string(err)
      assert.truthy(err:find(name, 1, true), err)
      local at = err:match("at byte (%d+)")
      assert.truthy(at, err)
      return err, tonumber(at)
    end

    it("refuses data cut short, saying where", function()
      -- in the head, the offsets table, the numbers, the call records and the strings of
      -- each record, and at the start of each record
      for _, cut in ipairs { 0, 1, 3, 4, 7, 8, 11, 12, 16, 23, 24, 30, 44, 47, 48, 63, 70, 80, 85,
        88, 92, 93, 100, 117, 140, 149, 155, 157, 162, 163, 170, 190, 210, 219, 225, 227, 232 } do
        local _, at = refuses(data:sub(1, cut), "cut at " .. cut)
        assert.is_true(at <= cut, "cut at " .. cut .. ": reported byte " .. at)
      end
    end)

    it("refuses another version", function()
      for _, version in ipairs { 0, 5, 6, 8, LIMIT - 1 } do
        local err = refuses(patch(data, 0, version), "version " .. version)
        assert.truthy(err:find("version " .. version, 1, true), err)
      end
    end)

    it("refuses offsets and counts beyond the data", function()
      -- reported at the field holding the bad offset (the second entry of the offsets table)
      local err, at = refuses(patch(data, 16, 1000), "function offset")
      assert.are.equal(16, at, err)
      assert.truthy(err:find("offset 1000", 1, true), err)
      err, at = refuses(patch(data, 16, #data), "function offset at the end")
      assert.are.equal(16, at, err)
      err = refuses(patch(data, 4, 1000), "headers offset")
      assert.truthy(err:find("headers offset", 1, true), err)
      err = refuses(patch(data, 4, #data + 1), "headers offset past the end")
      assert.truthy(err:find("headers offset", 1, true), err)
      err = refuses(patch(data, 8, LIMIT - 1), "function count")
      assert.truthy(err:find("function count", 1, true), err)
      -- a call record naming function 3 of 3
      err = refuses(patch(data, 48, 3), "function number")
      assert.truthy(err:find("function number 3", 1, true), err)
    end)

    it("reads an empty profile", function()
      local decoded = assert(webgrind.decode(le32(7) .. le32(12) .. le32(0), "empty"))
      assert.are.same({ version = 7, headers = {}, functions = {} }, decoded)
    end)
  end)

  it("load of a missing file gives nil and a message", function()
    local result, err = callgrind.load_webgrind("/nonexistent/directory/profile.webgrind")
    assert.is_nil(result)
    assert.is_string(err)
    assert.truthy(err:find("profile.webgrind", 1, true), err)
  end)
end)

describe("webgrind event option", function()
  local prof = assert(callgrind.parse(TWO_EVENTS, "two"))

  it("writes the first event by default", function()
    local parsed = parse_v7(assert(webgrind.encode(prof)))
    assert.are.same({ 3, 100, 1300, 1 }, { parsed.functions[1].line, parsed.functions[1].self,
      parsed.functions[1].inclusive, parsed.functions[1].invocations })
    assert.are.same({ 10, 1200, 1200, 4 }, { parsed.functions[2].line, parsed.functions[2].self,
      parsed.functions[2].inclusive, parsed.functions[2].invocations })
    assert.are.same({ "version: 1", "creator: hand", "cmd: ./two", "positions: line", "events: Ir",
      "summary: 1300", "totals: 1300" }, parsed.headers)
  end)

  it("writes the second event's numbers and names it in events:", function()
    local data = assert(webgrind.encode(prof, { event = "Dr" }))
    local parsed = parse_v7(data)
    -- main: self 10, inclusive 10 + 120; work: self 120, called 4 times from main's line 5
    assert.are.same({ 3, 10, 130, 1 }, { parsed.functions[1].line, parsed.functions[1].self,
      parsed.functions[1].inclusive, parsed.functions[1].invocations })
    assert.are.same({ { fn = 1, line = 5, count = 4, cost = 120 } }, parsed.functions[1].sub_calls)
    assert.are.same({ 10, 120, 120, 4 }, { parsed.functions[2].line, parsed.functions[2].self,
      parsed.functions[2].inclusive, parsed.functions[2].invocations })
    assert.are.same({ { fn = 0, line = 5, count = 4, cost = 120 } }, parsed.functions[2].called_from)
    assert.are.same({ "version: 1", "creator: hand", "cmd: ./two", "positions: line", "events: Dr",
      "summary: 130", "totals: 130" }, parsed.headers)
    assert_matches_profile(parsed, prof, "Dr")
    -- the event by its index gives the same bytes, and so does the file
    assert.are.equal(data, webgrind.encode(prof, { event = 2 }))
    local dir, _, remove = temp_dir()
    finally(remove)
    assert.is_true(prof:write_webgrind(dir .. "/dr.webgrind", { event = "Dr" }))
    assert.are.equal(data, read(dir .. "/dr.webgrind"))
  end)
end)
