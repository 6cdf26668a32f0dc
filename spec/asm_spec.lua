-- callgrind.asm (annotate.asm): a function's machine code with the profile's costs. The numbers
-- are checked against the raw records of profiles valgrind makes while the specs run (read by
-- helpers.valgrind's own reader) and against objdump run here on its own.
local callgrind = require "callgrind"
local asm = require "callgrind.asm"
local annotate = require "callgrind.annotate"
local format = require "callgrind.format"
local fixtures = require "helpers.fixtures"
local vg = require "helpers.valgrind"
local run = require "helpers.run"

local quote = run.quote

local function hex(n)
  return string.format("%x", n)
end

-- A made-up profile of one function of `object` with instruction positions.
local function tiny_profile(object, positions)
  return assert(callgrind.parse(table.concat({
    "positions: " .. (positions or "instr line"),
    "events: Ir",
    "ob=" .. object,
    "fl=prog.c",
    "fn=work",
    positions == "line" and "3 10" or "0x1000 3 10",
  }, "\n") .. "\n", "tiny.callgrind"))
end

local function command_output(command)
  local pipe = assert(io.popen(command))
  local text = pipe:read("*a")
  pipe:close()
  return text
end

describe("callgrind.asm, what it cannot show", function()
  it("is callgrind.asm, and annotate.asm prints the same text", function()
    assert.equal(asm, callgrind.asm)
    local prof = tiny_profile("/nonexistent/prog")
    assert.equal(asm.text(prof, "work"), annotate.asm(prof, "work"))
  end)

  it("says that a profile without instruction positions has no machine code", function()
    local prof = tiny_profile("/nonexistent/prog", "line")
    local rows, message, kind = asm.instructions(prof, prof:find("work"))
    assert.is_nil(rows)
    assert.equal("positions", kind)
    assert.truthy(message:find("--dump-instr=yes", 1, true))
    local text, text_kind = asm.text(prof, "work")
    assert.equal("No machine code for work: " .. message .. "\n", text)
    assert.equal("positions", text_kind)
  end)

  it("names the object it cannot find, and where it looked", function()
    local prof = tiny_profile("/nonexistent/prog")
    local rows, message, kind = asm.instructions(prof, "work", { dirs = { "/nonexistent/lib" } })
    assert.is_nil(rows)
    assert.equal("object", kind)
    assert.equal("the object /nonexistent/prog of work was not found (looked for /nonexistent/prog, "
      .. "/nonexistent/lib/prog)", message)
    local _, given = asm.instructions(prof, "work", { object = "/nonexistent/other" })
    assert.equal("the object /nonexistent/prog of work was not found (looked for /nonexistent/other)", given)
  end)

  it("says when the profile names no object", function()
    local rows, message, kind = asm.instructions(tiny_profile("???"), "work")
    assert.is_nil(rows)
    assert.equal("object", kind)
    assert.equal("the profile names no object file for work (ob=???)", message)
  end)

  it("says when objdump is missing: a program not found, or a PATH without it", function()
    local prof = tiny_profile("/nonexistent/prog")
    local rows, message, kind = asm.instructions(prof, "work", { objdump = "no-such-objdump" })
    assert.is_nil(rows)
    assert.equal("objdump", kind)
    assert.equal("'no-such-objdump' was not found: the machine code needs objdump, from GNU binutils", message)

    local script = os.tmpname()
    fixtures.write(script, [[
      local callgrind = require "callgrind"
      local prof = assert(callgrind.parse("positions: instr line\nevents: Ir\nob=/bin/sh\nfn=work\n0x1000 3 10\n"))
      io.write((callgrind.annotate.asm(prof, "work")))
    ]])
    local interpreter = command_output("command -v " .. run.interpreter()):match("[^\n]+")
    local out = command_output("PATH=/nonexistent LUA_PATH=" .. quote(package.path) .. " LUA_CPATH="
      .. quote(package.cpath) .. " " .. quote(interpreter) .. " " .. quote(script) .. " 2>&1")
    os.remove(script)
    assert.equal("No machine code for work: 'objdump' was not found: the machine code needs objdump, "
      .. "from GNU binutils\n", out)
  end)

  it("raises for bad arguments", function()
    local prof = tiny_profile("/nonexistent/prog")
    assert.has_error(function() asm.instructions({}, "work") end, "bad argument #1 (a profile expected)")
    assert.has_error(function() asm.text(prof, 42) end,
      "bad argument #2 (a function of the profile, or a name, expected)")
    assert.has_error(function() asm.text(prof, "nothing") end, "no function named 'nothing' in the profile")
    assert.has_error(function() asm.text(prof, "work", { context = -1 }) end, "context must be a number >= 0")
    assert.has_error(function() asm.text(prof, "work", { hot = "x" }) end, "hot must be a number >= 0")
    assert.has_error(function() asm.text(prof, "work", 5) end, "bad argument #3 (a table of options expected)")
    assert.has_error(function() asm.text(prof, "work", { show = "Nope" }) end)
  end)
end)

if not vg.available() then
  describe("callgrind.asm on valgrind profiles", function()
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
  end)
  return
end

---------------------------------------------------------------------------------------------
-- Oracles

local function raw_function(raw, name, object_pattern)
  for _, fn in ipairs(raw.function_list) do
    if fn.name == name and (object_pattern == nil or fn.object:find(object_pattern)) then return fn end
  end
  error("no function " .. name .. " in the raw profile")
end

-- Ir per address from the raw records of one function.
local function raw_costs(raw_fn)
  local by_addr = {}
  for _, record in pairs(raw_fn.lines) do
    by_addr[record.addr] = (by_addr[record.addr] or 0) + (record.costs.Ir or 0)
  end
  return by_addr
end

-- The instruction addresses objdump finds in [start, stop) of `path`, with their text.
local function objdump_instructions(path, start, stop)
  local out = command_output(string.format("objdump -d --start-address=0x%x --stop-address=0x%x %s", start,
    stop, quote(path)))
  local list = {}
  for addr, text in out:gmatch("\n%s*(%x+):\t[^\t]*\t?([^\n]*)") do
    list[#list + 1] = { addr = tonumber(addr, 16), text = text }
  end
  return list
end

-- `nm`'s address and size of a symbol.
local function nm_symbol(path, name)
  local out = command_output("nm -S " .. quote(path))
  for addr, size, sym in out:gmatch("(%x+) (%x+) %a ([^\n]+)") do
    if sym == name then return tonumber(addr, 16), tonumber(size, 16) end
  end
  error("no symbol " .. name .. " in " .. path)
end

local function by_profile_addr(rows)
  local map = {}
  for _, row in ipairs(rows) do map[row.profile_addr] = row end
  return map
end

-- The printed line of the instruction at `addr`, and the lines under it up to the next
-- instruction.
local function printed(text, row)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  for i, line in ipairs(lines) do
    if line:find(" " .. hex(row.addr) .. "  " .. row.bytes, 1, true) then
      local under = {}
      local j = i + 1
      while lines[j] and lines[j]:find("^%s+%S") and not lines[j]:find("^%s*[%d,.]+ ") do
        under[#under + 1] = lines[j]
        j = j + 1
      end
      return line, under
    end
  end
  return nil
end

local function contains(lines, s)
  for _, line in ipairs(lines) do
    if line:find(s, 1, true) then return true end
  end
  return false
end

---------------------------------------------------------------------------------------------

describe("callgrind.asm on valgrind profiles", function()
  local file, prof, raw, binary

  setup(function()
    file = vg.profile("callgrind_asm")[1]
    prof = assert(callgrind.load(file))
    raw = vg.read_raw(file)
    binary = vg.build("asm")
  end)

  it("puts every instruction cost of a function on the instruction at its address", function()
    local fn = prof:find("count_words")
    local rows, info = assert(asm.instructions(prof, fn))
    local start, size = nm_symbol(binary, "count_words")
    assert.equal(binary, info.path)
    assert.same({ name = "count_words", addr = start, size = size }, info.symbol)
    assert.equal(0, info.offset)

    -- one row per instruction objdump finds in the symbol
    local expected = objdump_instructions(binary, start, start + size)
    assert.equal(#expected, #rows)
    for i, instruction in ipairs(expected) do
      assert.equal(instruction.addr, rows[i].addr)
      assert.equal(instruction.addr, rows[i].profile_addr)
    end

    -- the raw records' costs on their instruction, nothing elsewhere, summing to the self cost
    local costs = raw_costs(raw_function(raw, "count_words"))
    local sum, costed = 0, 0
    for _, row in ipairs(rows) do
      assert.equal(costs[row.addr] or 0, row.costs.Ir)
      assert.equal(costs[row.addr] ~= nil, row.executed)
      sum = sum + row.costs.Ir
      if costs[row.addr] then costed = costed + 1 end
    end
    local records = 0
    for _ in pairs(costs) do records = records + 1 end
    assert.equal(records, costed)
    assert.equal(fn:self("Ir"), sum)
    assert.equal(fn:self("Ir"), info.self.Ir)

    -- and in the printed form
    local text = asm.text(prof, fn)
    for _, row in ipairs(rows) do
      local line = printed(text, row)
      assert.truthy(line, "no line for " .. hex(row.addr))
      local count = row.costs.Ir == 0 and "." or format.thousands(row.costs.Ir)
      assert.truthy(line:find("^%s*" .. count:gsub("%.", "%%.") .. " "), line)
    end
    assert.truthy(text:find(format.thousands(fn:self("Ir")) .. " %(.-%)%s+self cost of count_words\n$"))
  end)

  it("puts each jump's counts on the instruction it leaves from, and on the one it reaches", function()
    local fn = prof:find("count_words")
    local rows = assert(asm.instructions(prof, fn))
    local text = asm.text(prof, fn)
    local at = by_profile_addr(rows)
    local jumps = raw_function(raw, "count_words").jumps
    assert.is_true(#jumps >= 4)
    local conditional = 0
    for _, jump in ipairs(jumps) do
      local from, to = at[jump.from_addr], at[jump.to_addr]
      local found
      for _, out in ipairs(from.jumps_out) do
        if out.to == jump.to_addr and out.executed == jump.executed and out.taken == jump.taken
          and out.conditional == jump.conditional then
          found = out
        end
      end
      assert.truthy(found, "jump from " .. hex(jump.from_addr) .. " missing")
      local reached = false
      for _, entry in ipairs(to.jumps_in) do reached = reached or entry == found end
      assert.is_true(reached)
      local _, under = printed(text, from)
      local counts = jump.conditional
        and (format.thousands(jump.taken) .. " of " .. format.thousands(jump.executed) .. " taken")
        or (format.thousands(jump.executed) .. "x")
      local kind = jump.conditional and "jcnd" or "jump"
      assert.truthy(contains(under, kind .. " -> " .. hex(jump.to_addr) .. ": " .. counts), from.text)
      local _, under_target = printed(text, to)
      assert.truthy(contains(under_target, kind .. " <- " .. hex(jump.from_addr) .. ": " .. counts))
      if jump.conditional then conditional = conditional + 1 end
    end
    assert.is_true(conditional >= 2)
  end)

  it("puts the calls on their call instruction with the callee's inclusive cost", function()
    local fn = prof:find("main")
    local rows = assert(asm.instructions(prof, fn))
    local at = by_profile_addr(rows)
    local calls = 0
    for call in fn:callees() do
      local row = at[call.addr]
      assert.truthy(row.text:find("call"), row.text)
      local entry
      for _, c in ipairs(row.calls) do
        if c.callee == call.callee then entry = c end
      end
      assert.equal(call.count, entry.count)
      assert.equal(call:inclusive("Ir"), entry.inclusive.Ir)
      calls = calls + 1
    end
    assert.is_true(calls >= 4)
    local text = asm.text(prof, fn)
    assert.truthy(text:find("=> [^\n]*count_words %(200x%)"))
  end)

  it("disassembles a function of libc at its place in libc", function()
    -- the strlen main calls, whichever variant the machine chose (__strlen_avx2, _evex, _sse2)
    local fn
    for call in prof:find("main"):callees() do
      if call.callee.name:find("strlen") and call.callee.object:find("libc") then fn = call.callee end
    end
    assert.truthy(fn, "no strlen from libc")
    local rows, info = assert(asm.instructions(prof, fn))
    assert.equal(fn.object, info.path)
    assert.equal(0, info.offset)

    local costs = raw_costs(raw_function(raw, fn.name, "libc"))
    local low, high, sum = math.huge, 0, 0
    for addr, cost in pairs(costs) do
      low, high, sum = math.min(low, addr), math.max(high, addr), sum + cost
    end
    assert.equal(fn:self("Ir"), sum)
    -- objdump run here: every costed address starts an instruction, the same one the rows show
    local text_at = {}
    for _, instruction in ipairs(objdump_instructions(fn.object, low, high + 16)) do
      text_at[instruction.addr] = instruction.text
    end
    local at = by_profile_addr(rows)
    local rows_sum = 0
    for addr, cost in pairs(costs) do
      assert.truthy(text_at[addr], "no instruction at " .. hex(addr))
      assert.equal(cost, at[addr].costs.Ir)
      assert.equal(text_at[addr]:match("^%S+"), at[addr].text:match("^%S+"))
    end
    for _, row in ipairs(rows) do rows_sum = rows_sum + row.costs.Ir end
    assert.equal(sum, rows_sum)
    -- the function starts where its symbol does, and callers enter it there
    if info.symbol then assert.equal(info.symbol.addr, rows[1].addr) end
    for call in fn:callers() do assert.equal(rows[1].profile_addr, call.target_addr) end
  end)

  it("marks hot instructions and shows only them and their context", function()
    local fn = prof:find("count_words")
    local rows = assert(asm.instructions(prof, fn, { hot = 5 }))
    local hot = {}
    for i, row in ipairs(rows) do
      assert.equal(row.costs.Ir * 100 >= 5 * fn:self("Ir"), row.hot)
      if row.hot then hot[#hot + 1] = i end
    end
    assert.is_true(#hot >= 3 and #hot < #rows - 4)

    local text = asm.text(prof, fn, { hot = 5, context = 1 })
    local shown = {}
    for i, row in ipairs(rows) do
      local line = printed(text, row)
      if line then
        shown[#shown + 1] = i
        assert.equal(row.hot, line:find("%)  %*  ") ~= nil, line)
      end
    end
    local expected = {}
    for i = 1, #rows do
      for _, h in ipairs(hot) do
        if math.abs(i - h) <= 1 then
          expected[#expected + 1] = i
          break
        end
      end
    end
    assert.same(expected, shown)
    assert.truthy(text:find("\n%-%- %d+ instructions? not shown, %x+%-%x+ %-%-"))
    assert.truthy(text:find("Hot (*):      at least 5% of the function's self Ir", 1, true))
    -- nothing reaches 50%: the header says so, and context shows no instruction
    local none = asm.text(prof, fn, { hot = 50, context = 2 })
    assert.truthy(none:find("Hot (*):      none: no instruction has 50% of the function's self Ir", 1, true))
    for _, row in ipairs(rows) do assert.is_nil(printed(none, row)) end
  end)

  it("detects a binary rebuilt after profiling and shows no costs against it", function()
    local rebuilt = vg.build_variant("asm", "rebuilt", "-DREBUILT")
    local copy = file .. ".rebuilt"
    -- the profile of the first build, naming the rebuilt one as its object (and command)
    local text, renamed = fixtures.read(file):gsub(binary:gsub("%p", "%%%0"), (rebuilt:gsub("%%", "%%%%")))
    assert.is_true(renamed >= 2, "the profile does not name " .. binary)
    fixtures.write(copy, text)
    local changed = assert(callgrind.load(copy))
    for _, name in ipairs { "count_words", "main" } do
      local rows, message, kind = asm.instructions(changed, name)
      assert.is_nil(rows)
      assert.equal("mismatch", kind)
      assert.truthy(message:find(rebuilt .. " is not the file that was profiled", 1, true), message)
      local text = asm.text(changed, name)
      assert.equal("No machine code for " .. name .. ": " .. message .. "\n", text)
    end
    -- the untouched functions of libc are still shown
    assert.truthy(asm.instructions(changed, changed:find("main"):callees()().callee))
  end)

  -- The text of a profile of count_words alone and a call to it from main, every address moved
  -- by `bias`; `retarget(jump)` may give a jump another target.
  local function moved_profile(fn, entry, bias, retarget, extra)
    local lines = { "positions: instr line", "events: Ir", "ob=" .. binary, "fl=" .. fn.file, "fn=main",
      string.format("0x%x 30 5", bias + 0x10), "cfn=count_words",
      string.format("calls=200 0x%x 9", bias + entry), string.format("0x%x 30 7", bias + 0x14),
      "fn=count_words" }
    for line in fn:lines() do
      lines[#lines + 1] = string.format("0x%x %d %d", bias + line.addr, line.line, line:cost("Ir"))
    end
    for _, record in ipairs(extra or {}) do
      lines[#lines + 1] = string.format("0x%x %d %d", bias + record.addr, record.line, record.cost)
    end
    for jump in fn:jumps() do
      local kind = jump.conditional and ("jcnd=" .. jump.taken .. "/" .. jump.executed) or ("jump=" .. jump.executed)
      local to = retarget and retarget(jump) or jump.to_addr
      lines[#lines + 1] = string.format("%s 0x%x %d", kind, bias + to, jump.to_line)
      lines[#lines + 1] = string.format("0x%x %d", bias + jump.from_addr, jump.from_line)
    end
    return assert(callgrind.parse(table.concat(lines, "\n") .. "\n", "moved.callgrind"))
  end

  it("maps run-time addresses by the load offset, from the symbol or as given", function()
    local fn = prof:find("count_words")
    local rows = assert(asm.instructions(prof, fn))
    local bias = 0x555555554000
    local moved = moved_profile(fn, rows[1].addr, bias)
    for _, opts in ipairs { {}, { offset = bias } } do
      local moved_rows, info = assert(asm.instructions(moved, "count_words", opts))
      assert.equal(bias, info.offset)
      assert.equal(#rows, #moved_rows)
      for i, row in ipairs(rows) do
        assert.equal(row.addr, moved_rows[i].addr)
        assert.equal(row.addr + bias, moved_rows[i].profile_addr)
        assert.equal(row.costs.Ir, moved_rows[i].costs.Ir)
        assert.equal(#row.jumps_out, #moved_rows[i].jumps_out)
      end
    end
    assert.truthy(asm.text(moved, "count_words"):find("Addresses:    the profile's minus a load offset of 0x555555554000",
      1, true))
    -- a wrong offset is refused
    local _, message, kind = asm.instructions(moved, "count_words", { offset = bias + 16 })
    assert.equal("mismatch", kind)
    assert.truthy(message:find(string.format("its callers enter count_words at 0x%x (less the load offset 0x%x), "
      .. "the object's symbol count_words starts at 0x%x", bias + rows[1].addr, bias + 16, rows[1].addr), 1, true),
      message)
  end)

  it("shows a jump from another function on the instruction it reaches", function()
    local fn = prof:find("count_words")
    local rows = assert(asm.instructions(prof, fn))
    local main = nm_symbol(binary, "main")
    -- as another writer would put a tail call: main jumps (jfn=) to count_words' first instruction
    local lines = { "positions: instr line", "events: Ir", "ob=" .. binary, "fl=" .. fn.file, "fn=main",
      string.format("0x%x 30 5", main), "jfn=count_words", string.format("jump=5 0x%x 9", rows[1].addr),
      string.format("0x%x 30", main), "fn=count_words" }
    for line in fn:lines() do
      lines[#lines + 1] = string.format("0x%x %d %d", line.addr, line.line, line:cost("Ir"))
    end
    local jumped = assert(callgrind.parse(table.concat(lines, "\n") .. "\n", "tail.callgrind"))
    local jumped_rows = assert(asm.instructions(jumped, "count_words"))
    local into = jumped_rows[1].jumps_in
    assert.equal(1, #into)
    assert.equal("main", into[1].from_function.name)
    assert.equal(main, into[1].from)
    assert.equal(5, into[1].executed)
    local _, under = printed(asm.text(jumped, "count_words"), jumped_rows[1])
    assert.truthy(contains(under, "jump <- main at " .. hex(main) .. ": 5x"))
  end)

  it("refuses a jump whose target is not where the instruction goes", function()
    local fn = prof:find("count_words")
    local rows = assert(asm.instructions(prof, fn))
    -- the first conditional jump sent to the function's first instruction instead
    local changed
    local profile = moved_profile(fn, rows[1].addr, 0, function(jump)
      if jump.conditional and not changed then
        changed = jump
        return rows[1].addr
      end
    end)
    local row
    for _, r in ipairs(rows) do
      if r.addr == changed.from_addr then row = r end
    end
    local result, message, kind = asm.instructions(profile, "count_words")
    assert.is_nil(result)
    assert.equal("mismatch", kind)
    assert.truthy(message:find(string.format("the profile's jump at 0x%x goes to 0x%x, the instruction there (%s) to 0x%x",
      row.addr, rows[1].addr, row.text, changed.to_addr), 1, true), message)
  end)

  it("shows code the profile gives the function outside its symbol, and only that", function()
    local fn = prof:find("count_words")
    local rows = assert(asm.instructions(prof, fn))
    -- as if count_words jumped into main's code: four of main's instructions, not its first
    local main_rows = assert(asm.instructions(prof, "main"))
    local extra = {}
    -- (the last one with a source line the object's debug information does not give it)
    for i = 5, 8 do extra[#extra + 1] = { addr = main_rows[i].addr, line = i < 8 and main_rows[i].line or 99, cost = i } end
    local profile = moved_profile(fn, rows[1].addr, 0, nil, extra)
    local more, info = assert(asm.instructions(profile, "count_words"))
    assert.equal(#rows + 4, #more)
    for i = 1, 4 do
      assert.equal(main_rows[i + 4].addr, more[#rows + i].addr)
      assert.equal(i + 4, more[#rows + i].costs.Ir)
      assert.equal(i < 4 and main_rows[i + 4].line or 99, more[#rows + i].line)
    end
    local sum = 0
    for _, row in ipairs(more) do sum = sum + row.costs.Ir end
    assert.equal(profile:find("count_words"):self("Ir"), sum)
    assert.same({ "4 of the profile's addresses of count_words lie outside its symbol (code it jumps or falls into,"
      .. " which valgrind counts as the function's)", "1 instruction's source line differs from the object's debug"
      .. " information" }, info.notes)
    local last = rows[#rows]
    assert.truthy(asm.text(profile, "count_words"):find(string.format("\n%%-%%- %x%%-%x: not this function's code %%-",
      last.addr + last.size, main_rows[5].addr - 1)))
  end)

  it("notes an object newer than the profile when its code still matches", function()
    local copy = file .. ".old"
    fixtures.write(copy, fixtures.read(file))
    assert.truthy(os.execute("touch -d 2000-01-01 " .. quote(copy)))
    local old = assert(callgrind.load(copy))
    local rows, info = asm.instructions(old, "count_words")
    assert.truthy(rows)
    assert.same({ "the object is newer than the profile; its code matches the profile's addresses" }, info.notes)
    local _, fresh = asm.instructions(prof, "count_words")
    assert.same({}, fresh.notes)
  end)

  it("prints a header that says what was read", function()
    local text = asm.text(prof, "count_words", { show = "Ir", percentages = false })
    local start = nm_symbol(binary, "count_words")
    assert.truthy(text:find("^" .. format.rule .. "\n%-%- Machine code: count_words\n" .. format.rule .. "\n"))
    assert.truthy(text:find("\nObject:       " .. binary:gsub("%p", "%%%0") .. "\n"))
    assert.truthy(text:find("\nSymbol:       count_words at 0x" .. hex(start) .. ", %d+ bytes\n"))
    assert.truthy(text:find("\nAddresses:    as the profile writes them\n", 1, true))
    assert.truthy(text:find("\nEvents shown: Ir\n", 1, true))
    assert.falsy(text:find("%)", 1, true))
  end)

  it("reads an object's symbol table once for the functions of one cache", function()
    -- an objdump that notes each table it is asked for, then runs the real one
    local log, wrapper = os.tmpname(), os.tmpname()
    os.remove(log)
    fixtures.write(wrapper, "#!/bin/sh\ncase \"$1\" in -t|-T) echo \"$1\" >> " .. quote(log) .. ";; esac\n"
      .. 'exec objdump "$@"\n')
    assert.equal(0, run.status("chmod +x " .. quote(wrapper)))
    local function tables_read()
      local h = io.open(log)
      if not h then return 0 end
      local n = select(2, h:read("*a"):gsub("\n", ""))
      h:close()
      os.remove(log)
      return n
    end
    local cache = {}
    local texts = {}
    for i, name in ipairs { "count_words", "main", "count_words" } do
      texts[i] = asm.text(prof, name, { objdump = wrapper, cache = cache })
    end
    assert.equal(1, tables_read()) -- the program's symbol table, read for the first function
    assert.equal(texts[1], texts[3])
    assert.equal(texts[1], asm.text(prof, "count_words", { objdump = wrapper }))
    assert.equal(texts[2], asm.text(prof, "main", { objdump = wrapper }))
    assert.equal(2, tables_read()) -- without a cache, once a function
    os.remove(wrapper)
  end)
end)

describe("callgrind.asm.ranges", function()
  local ranges = require "callgrind.asm.ranges"

  -- a symbol at 0x1000 of 0x100 bytes; outside it, addresses 0x2000 and 0x2100 (one stretch:
  -- 256 bytes apart), 0x5000, and 0x30000 (more than 64 KiB past the others)
  local plan = ranges.plan({ 0x1004, 0x2000, 0x2100, 0x5000, 0x30000 }, { addr = 0x1000, size = 0x100 })

  it("keeps the symbol and the stretches the profile names outside it", function()
    local keep = {}
    for i, part in ipairs(plan.keep) do keep[i] = { part.first, part.last, part.stop } end
    assert.same({ { 0x1000, 0x10ff, 0x1100 }, { 0x2000, 0x2100, 0x2110 }, { 0x5000, 0x5000, 0x5010 },
      { 0x30000, 0x30000, 0x30010 } }, keep)
    assert.equal(4, plan.outside)
  end)

  it("disassembles stretches less than 64 KiB apart in one run of objdump", function()
    local runs = {}
    for i, run in ipairs(plan.runs) do runs[i] = { run.start, run.stop } end
    assert.same({ { 0x1000, 0x5010 }, { 0x30000, 0x30010 } }, runs)
  end)

  it("tells the instructions it keeps, at every edge of every part", function()
    local kept = {}
    for _, addr in ipairs { 0xfff, 0x1000, 0x10ff, 0x1100, 0x1fff, 0x2000, 0x2080, 0x2100, 0x2101, 0x4fff,
      0x5000, 0x5001, 0x2ffff, 0x30000, 0x30001 } do
      if ranges.kept(plan, addr) then kept[#kept + 1] = string.format("%x", addr) end
    end
    assert.same({ "1000", "10ff", "2000", "2080", "2100", "5000", "30000" }, kept)
    assert.is_false(ranges.kept(ranges.plan({}, nil), 0x1000))
  end)
end)
