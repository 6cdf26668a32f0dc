-- Real profiles, made by valgrind while the specs run, read with the module
-- and compared with callgrind_annotate (CA) and with values worked out from
-- the raw records of each file (helpers.valgrind's own small reader).
--
-- Needs gcc, valgrind and callgrind_annotate on PATH; pending otherwise.
-- helpers/valgrind.lua lists the configurations and what each exercises.

local vg = require "helpers.valgrind"

if not vg.available() then
  describe("valgrind profiles", function()
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
  end)
  return
end

local callgrind = require "callgrind"

---------------------------------------------------------------------------
-- Helpers
---------------------------------------------------------------------------

local function collect(...)
  local list = {}
  for item in ... do
    list[#list + 1] = item
  end
  return list
end

local function basename(path)
  return (path:match("[^/]*$"))
end

-- Functions are keyed by (name, fl= file, object), as in the model.
local function function_key(fn)
  return (fn.object or "") .. "\0" .. (fn.file or "") .. "\0" .. fn.name
end

local function show_key(key)
  return (key:gsub("%z", " | "))
end

local function add_costs(into, costs)
  for ev, value in pairs(costs) do
    into[ev] = (into[ev] or 0) + value
  end
  return into
end

local function all_zero(costs)
  for _, value in pairs(costs) do
    if value ~= 0 then
      return false
    end
  end
  return true
end

-- Fails with up to 20 mismatch descriptions, so a failure shows the data.
local function assert_no_mismatch(mismatches, what)
  local shown = {}
  for i = 1, math.min(#mismatches, 20) do
    shown[i] = "  " .. mismatches[i]
  end
  if #mismatches > 20 then
    shown[#shown + 1] = "  ... " .. (#mismatches - 20) .. " more"
  end
  assert.are.equal(0, #mismatches, what .. ": " .. #mismatches .. " mismatches\n" .. table.concat(shown, "\n"))
end

local function compare_costs(mismatches, label, events, expected, actual)
  for _, ev in ipairs(events) do
    local want, have = expected[ev] or 0, actual[ev] or 0
    if want ~= have then
      mismatches[#mismatches + 1] = string.format("%s %s: expected %s, got %s", label, ev, tostring(want), tostring(have))
    end
  end
end

-- One load, one raw reading and one CA run per file and mode, shared by all specs.
local loaded, annotated = {}, {}

local function load(path, opts)
  local key = path .. (opts and "\0no cycles" or "")
  local entry = loaded[key]
  if not entry then
    local prof, err = callgrind.load(path, opts) -- strict by default
    entry = { prof = prof, err = err, raw = vg.read_raw(path) }
    if prof then
      entry.functions = collect(prof:functions())
      entry.by_key = {}
      for _, fn in ipairs(entry.functions) do
        entry.by_key[function_key(fn)] = fn
      end
    end
    loaded[key] = entry
  end
  assert(entry.prof, "load failed: " .. tostring(entry.err))
  return entry.prof, entry.raw, entry
end

local function annotate(path, inclusive)
  local key = path .. (inclusive and "\0incl" or "")
  if not annotated[key] then
    annotated[key] = vg.annotate(path, { inclusive = inclusive })
  end
  return annotated[key]
end

-- Self cost per CA key ("file:function", file = the fl/fi/fe file of each
-- line) from the module's line records.
local function self_by_ca_key(prof, entry)
  local events = prof:events()
  local by_key = {}
  for _, fn in ipairs(entry.functions) do
    for line in fn:lines() do
      local key = (line.file or fn.file) .. ":" .. fn.name
      local costs = by_key[key] or {}
      by_key[key] = costs
      for _, ev in ipairs(events) do
        costs[ev] = (costs[ev] or 0) + line:cost(ev)
      end
    end
  end
  return by_key
end

-- CA adds the cost line after `calls=0` to the caller's self cost
-- (`if ($curr_call_counter>0)` in its read_input_file()).
-- Valgrind writes such lines in every part after the first of a run with
-- dumps, for calls that were running when the previous part was dumped; the
-- cost is that call's inclusive cost within this part, a call cost, and we
-- keep it out of self cost. So CA's self cost for a key is ours plus the
-- calls=0 costs made under that key, taken from the raw records.
local function zero_count_call_costs(raw)
  local by_key = {}
  for _, call in ipairs(raw.calls) do
    if call.count == 0 then
      by_key[call.ca_key] = add_costs(by_key[call.ca_key] or {}, call.costs)
    end
  end
  return by_key
end

-- Which functions CA's --inclusive=yes can be compared with, and why not.
--
-- What CA computes (read_input_file() in /usr/bin/callgrind_annotate 3.19):
--  (a) a key that is the callee of at least one call with a non-zero count
--      gets the sum of all its incoming call costs (%cfn_totals), calls from
--      itself included;
--  (b) any other key keeps its self cost plus the costs of the calls made
--      under that key (and of calls=0 lines, which CA counts as self).
-- Callgrind's call costs are inclusive per call site. They only nest when a
-- function is active twice at once; with --separate-recs=2 (the default)
-- that happens only for functions calling themselves (fact'2 -> fact'2) and
-- for members of a cycle (is_even'2 <-> is_odd'2), and there (a) counts the
-- nested costs again (the recursion spec below shows it for fact'2). A
-- function merely calling into recursion is not affected: the cost of its
-- call into fact'2 is measured by callgrind, not summed by CA. So CA is a
-- reference for a function when
--  - it is not on a cycle and does not call itself;
--  - no other function contributes to its CA key (CA merges the same file
--    and name in two objects, like clamp() of common.h in multi and in
--    libmulti.so, or glibc's fstat in libc and ld.so);
--  - it is called and no incoming call has count 0 (CA drops those
--    zero-count continuation costs of multi-part files from (a); we add
--    them, as KCachegrind does), or
--  - it is not called and all its self lines and calls lie under its own key
--    (CA keeps inlined code under "header:function" keys, so its row for
--    the function misses what was inlined into it).
-- For those, KCachegrind's inclusive cost (ours) is CA's number: the sum
-- of the incoming calls, or self plus outgoing calls. Loaded with
-- cycles = false, the members of a cycle follow the same rule as any other
-- function: `with_cycles` false keeps them in the comparison.
local function inclusive_exemptions(raw, with_cycles)
  local in_cycle, self_calling = vg.raw_cycles(raw)
  local contributors = {}
  local function contribute(key, fn)
    contributors[key] = contributors[key] or {}
    contributors[key][fn] = true
  end
  for _, fn in ipairs(raw.function_list) do
    contribute(fn.file .. ":" .. fn.name, fn)
    for key in pairs(fn.ca_self) do
      contribute(key, fn)
    end
    for _, call in ipairs(fn.calls_out) do
      contribute(call.ca_key, fn)
    end
  end
  local reasons = {}
  for _, fn in ipairs(raw.function_list) do
    local key = fn.file .. ":" .. fn.name
    local count = 0
    for _ in pairs(contributors[key]) do
      count = count + 1
    end
    local called, zero_count_in = false, false
    for _, call in ipairs(fn.calls_in) do
      if call.count > 0 then
        called = true
      else
        zero_count_in = true
      end
    end
    local reason
    if in_cycle[fn] and with_cycles ~= false then
      reason = "on a cycle"
    elseif self_calling[fn] then
      reason = "calls itself"
    elseif count > 1 then
      reason = "CA key shared with another function"
    elseif called and zero_count_in then
      reason = "called, with calls=0 continuation costs"
    elseif not called then
      for other in pairs(fn.ca_self) do
        if other ~= key then
          reason = "not called, inlined code under another CA key"
        end
      end
      for _, call in ipairs(fn.calls_out) do
        if call.ca_key ~= key then
          reason = "not called, calls from inlined code under another CA key"
        end
      end
    end
    reasons[fn] = reason
  end
  return reasons
end

local function raw_function(raw, name, file_pattern)
  local found
  for _, fn in ipairs(raw.function_list) do
    if fn.name == name and fn.file:find(file_pattern) then
      assert(not found, "two raw functions named " .. name)
      found = fn
    end
  end
  return assert(found, "no raw function " .. name)
end

local function module_function(entry, raw_fn)
  return assert(entry.by_key[raw_fn.key], "module has no function " .. show_key(raw_fn.key))
end

local function raw_call(caller, callee)
  local found
  for _, call in ipairs(caller.calls_out) do
    if call.callee == callee then
      assert(not found, "two call sites " .. caller.name .. " -> " .. callee.name)
      found = call
    end
  end
  return assert(found, "no call " .. caller.name .. " -> " .. callee.name)
end

local function callee_count(fn, callee_name)
  local count = 0
  for call in fn:callees() do
    if call.callee.name == callee_name then
      count = count + call.count
    end
  end
  return count
end

---------------------------------------------------------------------------
-- Every file of every configuration
---------------------------------------------------------------------------

for _, config in ipairs(vg.configs()) do
  describe(config.name .. " (" .. config.about .. ")", function()
    it("writes the expected files", function()
      local files, empty = vg.profile(config.name)
      assert.are.equal(config.files, #files, table.concat(files, " "))
      if config.empty_base then
        -- --separate-threads leaves the base file behind, empty
        assert.are.equal(1, #empty)
        assert.matches("%.out%.%d+$", empty[1])
        -- not a profile; whatever load makes of it, it must not break
        local prof, err = callgrind.load(empty[1])
        if not prof then
          assert.matches(":%d+: ", err)
        end
      else
        assert.are.equal(0, #empty, table.concat(empty, " "))
      end
    end)

    it("loads every file; totals equal the totals:/summary: lines", function()
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local prof, raw = load(path)
        assert.are.same(raw.events, prof:events(), name)
        if prof.warnings then
          assert.are.same({}, prof:warnings(), name)
        end
        for i, ev in ipairs(raw.events) do
          local from_sections = 0
          for _, section in ipairs(raw.sections) do
            -- callgrind writes totals: per part; cachegrind only summary:
            local line = section.totals or section.summary
            assert(line, name .. ": section without totals: or summary:")
            from_sections = from_sections + (line[ev] or 0)
          end
          assert.are.equal(from_sections, prof:total(ev), name .. " " .. ev)
          assert.are.equal(from_sections, prof:total(i), name .. " event #" .. i)
          assert.are.equal(raw.total[ev], prof:total(ev), name .. " " .. ev .. " (sum of cost lines)")
        end
      end
    end)

    it("describes every section as the file does", function()
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local prof, raw = load(path)
        local sections = prof:sections()
        assert.are.equal(#raw.sections, #sections, name)
        local previous_events_line = 0
        for s, want in ipairs(raw.sections) do
          local have = sections[s]
          local label = name .. " section " .. s
          assert.are.same(want.events, have.events, label)
          assert.are.equal(want.part, have.part, label .. " part")
          assert.are.equal(want.thread, have.thread, label .. " thread")
          for _, field in ipairs({ "summary", "totals" }) do
            if want[field] then
              assert.is_table(have[field], label .. " " .. field)
              for _, ev in ipairs(want.events) do
                assert.are.equal(want[field][ev], have[field][ev], label .. " " .. field .. " " .. ev)
              end
            else
              assert.is_nil(have[field], label .. " " .. field)
            end
          end
          -- pid/cmd/creator: exact where the section's own header has them
          -- (every section of a file whose header repeats, 8.4a)
          if want.header.pid then
            assert.are.equal(tonumber(want.header.pid), have.pid, label .. " pid")
          end
          if want.header.cmd then
            assert.are.equal(want.header.cmd, (have.cmd or ""):match("^%s*(.-)%s*$"), label .. " cmd")
          end
          if want.header.creator then
            assert.are.equal(want.header.creator, have.creator, label .. " creator")
          end
          assert.is_table(have.headers, label .. " headers")
          for _, header in ipairs(have.headers) do
            assert.is_string(header.key, label)
            assert.is_string(header.value, label)
          end
          assert.is_string(have.source, label .. " source")
          assert.is_number(have.first_line, label .. " first_line")
          assert.is_true(have.first_line > previous_events_line and have.first_line <= want.events_line,
            label .. ": first_line " .. have.first_line .. " not in (" .. previous_events_line .. ", "
              .. want.events_line .. "]")
          previous_events_line = want.events_line
        end
      end
    end)

    it("has the same functions, line records and self costs as the raw records", function()
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local prof, raw, entry = load(path)
        local events = prof:events()
        local mismatches = {}
        for _, raw_fn in ipairs(raw.function_list) do
          if not entry.by_key[raw_fn.key] then
            mismatches[#mismatches + 1] = "missing function " .. show_key(raw_fn.key)
          end
        end
        for _, fn in ipairs(entry.functions) do
          local key = function_key(fn)
          local raw_fn = raw.functions[key]
          if not raw_fn then
            mismatches[#mismatches + 1] = "unexpected function " .. show_key(key)
          else
            local lines, self = {}, {}
            for line in fn:lines() do
              local line_key = line.file .. "\0" .. tostring(line.line or 0) .. "\0" .. tostring(line.addr or 0)
              local costs = lines[line_key] or {}
              lines[line_key] = costs
              for _, ev in ipairs(events) do
                costs[ev] = (costs[ev] or 0) + line:cost(ev)
              end
            end
            local expected_lines = {}
            for _, record in pairs(raw_fn.lines) do
              local line_key = record.file .. "\0" .. tostring(record.line or 0) .. "\0" .. tostring(record.addr or 0)
              expected_lines[line_key] = add_costs(expected_lines[line_key] or {}, record.costs)
            end
            for line_key, costs in pairs(expected_lines) do
              compare_costs(mismatches, show_key(key) .. " line " .. show_key(line_key), events, costs,
                lines[line_key] or {})
            end
            for line_key, costs in pairs(lines) do
              if not expected_lines[line_key] and not all_zero(costs) then
                mismatches[#mismatches + 1] = show_key(key) .. ": unexpected line " .. show_key(line_key)
              end
            end
            for _, ev in ipairs(events) do
              self[ev] = fn:self(ev)
            end
            compare_costs(mismatches, show_key(key) .. " self", events, raw_fn.self, self)
          end
        end
        assert_no_mismatch(mismatches, name)
      end
    end)

    it("has the same calls as the raw records, with calls=0 ones", function()
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local prof, raw, entry = load(path)
        local events = prof:events()
        local mismatches = {}
        local function site_key(caller_key, callee_key, file, line, addr)
          return caller_key .. " -> " .. callee_key .. " at " .. tostring(file) .. ":" .. tostring(line or 0) .. " "
            .. tostring(addr or 0)
        end
        local expected, have = {}, {}
        for _, call in ipairs(raw.calls) do
          local key = site_key(call.caller.key, call.callee.key, call.file, call.line, call.addr)
          local e = expected[key] or { count = 0, costs = {} }
          expected[key] = e
          e.count = e.count + call.count
          add_costs(e.costs, call.costs)
        end
        local callee_records, caller_records = 0, 0
        for _, fn in ipairs(entry.functions) do
          for call in fn:callees() do
            callee_records = callee_records + 1
            assert.are.equal(function_key(fn), function_key(call.caller), name)
            local key = site_key(function_key(call.caller), function_key(call.callee), call.file, call.line, call.addr)
            local h = have[key] or { count = 0, costs = {} }
            have[key] = h
            h.count = h.count + call.count
            for _, ev in ipairs(events) do
              h.costs[ev] = (h.costs[ev] or 0) + call:inclusive(ev)
            end
          end
          for call in fn:callers() do
            caller_records = caller_records + 1
            assert.are.equal(function_key(fn), function_key(call.callee), name)
          end
        end
        assert.are.equal(callee_records, caller_records, name .. ": callers and callees differ")
        for key, e in pairs(expected) do
          local h = have[key]
          if not h then
            mismatches[#mismatches + 1] = "missing call " .. show_key(key)
          else
            if h.count ~= e.count then
              mismatches[#mismatches + 1] = show_key(key) .. " count: expected " .. e.count .. ", got " .. h.count
            end
            compare_costs(mismatches, show_key(key), events, e.costs, h.costs)
          end
        end
        for key in pairs(have) do
          if not expected[key] then
            mismatches[#mismatches + 1] = "unexpected call " .. show_key(key)
          end
        end
        assert_no_mismatch(mismatches, name)
      end
    end)

    it("matches callgrind_annotate's self cost for every file:function", function()
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local prof, raw, entry = load(path)
        local ca = annotate(path, false)
        local ours = self_by_ca_key(prof, entry)
        for key, costs in pairs(zero_count_call_costs(raw)) do
          ours[key] = add_costs(ours[key] or {}, costs)
        end
        local mismatches = {}
        -- CA shows the file's events in file order; compare by name
        local known = {}
        for _, ev in ipairs(prof:events()) do
          known[ev] = true
        end
        for _, ev in ipairs(ca.events) do
          assert.is_true(known[ev], name .. ": CA event " .. ev .. " unknown to us")
        end
        for _, row in ipairs(ca.rows) do
          local mine = ours[row.key]
          if not mine then
            if not all_zero(row.costs) then
              mismatches[#mismatches + 1] = "only in CA: " .. row.key
            end
          else
            compare_costs(mismatches, row.key, ca.events, row.costs, mine)
          end
        end
        for key, costs in pairs(ours) do
          if not ca.by_key[key] and not all_zero(costs) then
            mismatches[#mismatches + 1] = "missing in CA: " .. key
          end
        end
        assert_no_mismatch(mismatches, name)
        -- PROGRAM TOTALS: the last summary: (else totals:) of the file; for
        -- single-section files that is our total.
        if #raw.sections == 1 then
          local section = raw.sections[1]
          compare_costs(mismatches, "PROGRAM TOTALS", ca.events, section.summary or section.totals, ca.totals)
          assert_no_mismatch(mismatches, name)
        end
      end
    end)

    it("matches callgrind_annotate's object column", function()
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local _, _, entry = load(path)
        local ca = annotate(path, false)
        -- CA remembers the object of the last fn= line of each key, and only
        -- for the function's own fl= key (inlined-code keys get none).
        local objects = {}
        for _, fn in ipairs(entry.functions) do
          local key = fn.file .. ":" .. fn.name
          objects[key] = objects[key] or {}
          objects[key][fn.object or ""] = true
        end
        local mismatches = {}
        local checked = 0
        for _, row in ipairs(ca.rows) do
          if row.object then
            checked = checked + 1
            if not (objects[row.key] and objects[row.key][row.object]) then
              local ours = {}
              for object in pairs(objects[row.key] or {}) do
                ours[#ours + 1] = object
              end
              mismatches[#mismatches + 1] = row.key .. ": CA [" .. row.object .. "], ours [" .. table.concat(ours, "] [")
                .. "]"
            end
          elseif objects[row.key] and config.tool == "callgrind" then
            mismatches[#mismatches + 1] = row.key .. ": no object in CA"
          end
        end
        assert_no_mismatch(mismatches, name)
        if config.tool == "callgrind" then
          assert.is_true(checked > 0, name)
        end
      end
    end)

    -- cycles = false: every function that does not call itself, cycle members included
    local function inclusive_against_ca(with_cycles)
      for _, path in ipairs(vg.profile(config.name)) do
        local name = basename(path)
        local prof, raw, entry = load(path, not with_cycles and { cycles = false } or nil)
        local ca = annotate(path, true)
        local events = prof:events()
        local reasons = inclusive_exemptions(raw, with_cycles)
        local mismatches = {}
        local compared = 0
        for _, raw_fn in ipairs(raw.function_list) do
          local fn = entry.by_key[raw_fn.key]
          if not reasons[raw_fn] and fn then
            compared = compared + 1
            local key = raw_fn.file .. ":" .. raw_fn.name
            local row = ca.by_key[key]
            local ours = {}
            for _, ev in ipairs(events) do
              ours[ev] = fn:inclusive(ev)
            end
            compare_costs(mismatches, key .. " [" .. raw_fn.object .. "]", ca.events, row and row.costs or {}, ours)
          elseif not fn then
            mismatches[#mismatches + 1] = "module has no function " .. show_key(raw_fn.key)
          end
        end
        assert_no_mismatch(mismatches, name)
        assert.is_true(compared > 0, name)
      end
    end

    it("matches callgrind_annotate --inclusive=yes outside recursion", function()
      inclusive_against_ca(true)
    end)

    it("matches callgrind_annotate --inclusive=yes on cycles too when loaded with cycles = false", function()
      inclusive_against_ca(false)
    end)

    local collects_jumps = false
    for _, arg in ipairs(config.args) do
      collects_jumps = collects_jumps or arg == "--collect-jumps=yes"
    end
    if collects_jumps then
      it("has the same jumps as the raw records", function()
        for _, path in ipairs(vg.profile(config.name)) do
          local name = basename(path)
          local _, raw, entry = load(path)
          local mismatches = {}
          local total = 0
          local function jump_key(fn_key, jump)
            return fn_key .. " " .. tostring(jump.from_line or 0) .. "/" .. tostring(jump.from_addr or 0) .. " -> "
              .. tostring(jump.to_line or 0) .. "/" .. tostring(jump.to_addr or 0)
              .. (jump.conditional and " jcnd" or " jump")
          end
          local expected, have = {}, {}
          for _, raw_fn in ipairs(raw.function_list) do
            for _, jump in ipairs(raw_fn.jumps) do
              local key = jump_key(raw_fn.key, jump)
              local e = expected[key] or { executed = 0, taken = 0, conditional = jump.conditional }
              expected[key] = e
              e.executed = e.executed + jump.executed
              e.taken = e.taken + jump.taken
            end
          end
          for _, fn in ipairs(entry.functions) do
            for jump in fn:jumps() do
              total = total + 1
              local key = jump_key(function_key(fn), jump)
              local h = have[key] or { executed = 0, taken = 0 }
              have[key] = h
              h.executed = h.executed + jump.executed
              h.taken = h.taken + (jump.taken or 0)
            end
          end
          for key, e in pairs(expected) do
            local h = have[key]
            if not h then
              mismatches[#mismatches + 1] = "missing jump " .. show_key(key)
            elseif h.executed ~= e.executed or (e.conditional and h.taken ~= e.taken) then
              mismatches[#mismatches + 1] = string.format("%s: expected %d/%d, got %d/%d", show_key(key), e.taken,
                e.executed, h.taken, h.executed)
            end
          end
          for key in pairs(have) do
            if not expected[key] then
              mismatches[#mismatches + 1] = "unexpected jump " .. show_key(key)
            end
          end
          assert_no_mismatch(mismatches, name)
          assert.is_true(total > 0, name)
        end
      end)
    end
  end)
end

---------------------------------------------------------------------------
-- Recursion (recursion.c), worked out by hand from the raw records
---------------------------------------------------------------------------

describe("recursion.c", function()
  local recursion_configs = { "callgrind_default", "callgrind_instr_jumps", "callgrind_line_jumps", "callgrind_cache_branch" }

  -- The calls the program makes: fact(10) is fact -> fact'2 -> 8 x fact'2;
  -- is_even(9) is is_even -> is_odd -> is_even'2 -> is_odd'2 -> ... down to
  -- is_odd'2(0): 4 calls is_even'2 -> is_odd'2 and 3 back.
  local expected_calls = {
    { "main", "fact", 1 }, { "fact", "fact'2", 1 }, { "fact'2", "fact'2", 8 },
    { "main", "is_even", 1 }, { "is_even", "is_odd", 1 }, { "is_odd", "is_even'2", 1 },
    { "is_even'2", "is_odd'2", 4 }, { "is_odd'2", "is_even'2", 3 }, { "main", "branchy", 1 },
  }

  local function setup(config_name)
    local path = vg.profile(config_name)[1]
    local prof, raw, entry = load(path)
    local source = "/recursion%.c$"
    local raw_fns, fns = {}, {}
    for _, fn_name in ipairs({ "main", "fact", "fact'2", "is_even", "is_odd", "is_even'2", "is_odd'2", "branchy" }) do
      raw_fns[fn_name] = raw_function(raw, fn_name, source)
      fns[fn_name] = module_function(entry, raw_fns[fn_name])
    end
    return prof, raw, raw_fns, fns, path
  end

  for _, config_name in ipairs(recursion_configs) do
    describe(config_name, function()
      it("has the calls the program makes", function()
        local _, _, _, fns = setup(config_name)
        for _, expected in ipairs(expected_calls) do
          assert.are.equal(expected[3], callee_count(fns[expected[1]], expected[2]),
            expected[1] .. " -> " .. expected[2])
        end
        assert.are.equal(1, fns.main.called)
        assert.are.equal(1, fns.fact.called)
        assert.are.equal(1, fns.is_even.called)
        assert.are.equal(1, fns.is_odd.called)
      end)

      it("puts is_even'2 and is_odd'2 (only) on a cycle", function()
        local _, _, _, fns = setup(config_name)
        assert.matches("^<cycle %d+>$", fns["is_even'2"].cycle)
        assert.are.equal(fns["is_even'2"].cycle, fns["is_odd'2"].cycle)
        for _, fn_name in ipairs({ "main", "fact", "fact'2", "is_even", "is_odd", "branchy" }) do
          assert.is_nil(fns[fn_name].cycle, fn_name)
        end
      end)

      it("gives fact and fact'2 the cost of the calls into them, self-calls excluded", function()
        local prof, raw, raw_fns, fns, path = setup(config_name)
        local main_to_fact = raw_call(raw_fns.main, raw_fns.fact)
        local fact_to_fact2 = raw_call(raw_fns.fact, raw_fns["fact'2"])
        local fact2_to_fact2 = raw_call(raw_fns["fact'2"], raw_fns["fact'2"])
        assert.are.equal(8, fact2_to_fact2.count)
        local ca = annotate(path, true)
        local fact2_key = raw_fns["fact'2"].file .. ":fact'2"
        for _, ev in ipairs(raw.events) do
          assert.are.equal(main_to_fact.costs[ev] or 0, fns.fact:inclusive(ev), "fact " .. ev)
          -- fact'2's activations nest: the 8 self-calls run inside the one call from fact
          assert.are.equal(fact_to_fact2.costs[ev] or 0, fns["fact'2"]:inclusive(ev), "fact'2 " .. ev)
          -- CA adds the nested self-calls again (why fact'2 is exempt above)
          assert.are.equal((fact_to_fact2.costs[ev] or 0) + (fact2_to_fact2.costs[ev] or 0),
            ca.by_key[fact2_key].costs[ev], "CA fact'2 " .. ev)
          assert.are.equal(raw_fns["fact'2"].self[ev] or 0, fns["fact'2"]:self(ev), "fact'2 self " .. ev)
        end
        assert.is_true(prof:total("Ir") > fns["fact'2"]:inclusive("Ir"))
      end)

      it("gives the cycle members self + calls leaving the cycle", function()
        local _, raw, raw_fns, fns = setup(config_name)
        local members = { raw_fns["is_even'2"], raw_fns["is_odd'2"] }
        local is_member = { [members[1]] = true, [members[2]] = true }
        -- the one call from outside into the cycle
        local entries = {}
        for _, member in ipairs(members) do
          for _, call in ipairs(member.calls_in) do
            if not is_member[call.caller] then
              entries[#entries + 1] = call
            end
          end
        end
        assert.are.equal(1, #entries)
        assert.are.equal(raw_fns.is_odd, entries[1].caller)
        assert.are.equal(raw_fns["is_even'2"], entries[1].callee)
        for _, ev in ipairs(raw.events) do
          local cycle_inclusive = 0
          for _, member in ipairs(members) do
            local expected = member.self[ev] or 0
            for _, call in ipairs(member.calls_out) do
              if not is_member[call.callee] then
                expected = expected + (call.costs[ev] or 0)
              end
            end
            local fn = fns[member.name]
            assert.are.equal(expected, fn:inclusive(ev), member.name .. " " .. ev)
            cycle_inclusive = cycle_inclusive + fn:inclusive(ev)
          end
          -- the cycle as a whole costs what the call into it costs
          assert.are.equal(entries[1].costs[ev] or 0, cycle_inclusive, "cycle " .. ev)
          -- outside the cycle the usual rule holds
          assert.are.equal(raw_call(raw_fns.main, raw_fns.is_even).costs[ev] or 0, fns.is_even:inclusive(ev))
          assert.are.equal(raw_call(raw_fns.is_even, raw_fns.is_odd).costs[ev] or 0, fns.is_odd:inclusive(ev))
        end
      end)

      if config_name:find("jumps") then
        it("counts the branches of branchy() as the program takes them", function()
          local _, _, _, fns = setup(config_name)
          local source = vg.read_file(vg.programs_dir .. "/recursion.c")
          local line_of = {}
          local n = 0
          for text in (source .. "\n"):gmatch("([^\n]*)\n") do
            n = n + 1
            line_of[text:match("^%s*(.-)%s*$")] = n
          end
          local for_line = assert(line_of["for (unsigned i = 0; i < rounds; i++) {"])
          local if_line = assert(line_of["if (i % 3 == 0)"])
          local else_if_line = assert(line_of["else if (i % 3 == 1)"])
          local summed = {}
          for jump in fns.branchy:jumps() do
            local key = jump.from_line .. ">" .. jump.to_line .. (jump.conditional and "?" or "")
            local s = summed[key] or { executed = 0, taken = 0 }
            summed[key] = s
            s.executed = s.executed + jump.executed
            s.taken = s.taken + (jump.taken or 0)
          end
          -- gcc -O0 tests the loop condition at the bottom: 31 tests, 30 back
          -- to the body; i % 3 == 0 for 10 of the 30 rounds, i % 3 == 1 for
          -- 10 of the other 20; the two then-branches jump back to the loop.
          assert.are.same({ executed = 31, taken = 30 }, summed[for_line .. ">" .. if_line .. "?"])
          assert.are.same({ executed = 30, taken = 20 }, summed[if_line .. ">" .. else_if_line .. "?"])
          assert.are.equal(20, summed[else_if_line .. ">" .. (else_if_line + 3) .. "?"].executed)
          assert.are.equal(10, summed[else_if_line .. ">" .. (else_if_line + 3) .. "?"].taken)
          assert.are.equal(10, summed[(if_line + 1) .. ">" .. for_line].executed)
          assert.are.equal(10, summed[(else_if_line + 1) .. ">" .. for_line].executed)
        end)
      end
    end)
  end
end)

---------------------------------------------------------------------------
-- Threads and dumps
---------------------------------------------------------------------------

describe("threads.c", function()
  local function section_ids(path)
    local prof = load(path)
    local ids = {}
    for _, section in ipairs(prof:sections()) do
      ids[#ids + 1] = tostring(section.part) .. "/" .. tostring(section.thread)
    end
    return ids
  end

  it("writes one file per thread and dump with --separate-threads", function()
    local files = vg.profile("callgrind_threads_separate")
    local ids, suffixes = {}, {}
    for _, path in ipairs(files) do
      suffixes[#suffixes + 1] = path:match("%.out%.%d+(.*)$")
      ids[#ids + 1] = section_ids(path)[1]
    end
    -- the client request dumps only the thread that makes it (thread 1)
    assert.are.same({ "-01", "-02", "-03", "-04", ".1-01" }, suffixes)
    assert.are.same({ "2/1", "2/2", "2/3", "2/4", "1/1" }, ids)
  end)

  it("writes all sections into one file with --combine-dumps", function()
    local path = vg.profile("callgrind_threads_combined")[1]
    assert.are.same({ "1/1", "2/1", "2/2", "2/3", "2/4" }, section_ids(path))
  end)

  it("repeats the file header for each thread of a single combined dump", function()
    local path = vg.profile("callgrind_threads_combined_single")[1]
    assert.are.same({ "1/1", "1/2", "1/3", "1/4" }, section_ids(path))
    local prof, raw = load(path)
    local pid = tonumber(raw.sections[1].header.pid)
    for s, section in ipairs(prof:sections()) do
      assert.is_not_nil(raw.sections[s].header.version, "raw section " .. s .. " repeats version:")
      assert.are.equal(pid, section.pid, "section " .. s)
      assert.are.equal(raw.sections[s].header.creator, section.creator, "section " .. s)
      assert.matches("threads_nodump", section.cmd, 1, true)
    end
  end)

  it("keeps calls=0 costs of the final dump as zero-count calls", function()
    local files = vg.profile("callgrind_client_dump")
    assert.are.equal(2, #files)
    assert.matches("%.1$", files[2])
    assert.are.same({ "2/nil" }, section_ids(files[1]))
    assert.are.same({ "1/nil" }, section_ids(files[2]))
    local _, raw, entry = load(files[1])
    local expected = 0
    for _, call in ipairs(raw.calls) do
      if call.count == 0 then
        expected = expected + 1
      end
    end
    assert.is_true(expected > 0, "valgrind wrote no calls=0 line")
    local zero = 0
    for _, fn in ipairs(entry.functions) do
      for call in fn:callees() do
        if call.count == 0 then
          zero = zero + 1
          assert.is_true(call:inclusive("Ir") > 0, tostring(call))
        end
      end
    end
    assert.are.equal(expected, zero)
  end)

  it("gives the same part 1 with and without --separate-threads", function()
    -- Everything before the dump runs in the main thread alone and does not
    -- depend on scheduling: two runs agree on every function exactly.
    local separate = vg.profile("callgrind_threads_separate")
    local single = vg.profile("callgrind_client_dump")
    local _, _, a = load(separate[#separate])
    local prof_b, _, b = load(single[2])
    local events = prof_b:events()
    local mismatches = {}
    for key, fn in pairs(a.by_key) do
      local other = b.by_key[key]
      if not other then
        mismatches[#mismatches + 1] = "only with --separate-threads: " .. show_key(key)
      else
        for _, ev in ipairs(events) do
          if fn:self(ev) ~= other:self(ev) or fn:inclusive(ev) ~= other:inclusive(ev) then
            mismatches[#mismatches + 1] = show_key(key) .. " " .. ev
          end
        end
      end
    end
    for key in pairs(b.by_key) do
      if not a.by_key[key] then
        mismatches[#mismatches + 1] = "only without --separate-threads: " .. show_key(key)
      end
    end
    assert_no_mismatch(mismatches, "part 1")
  end)

  it("sums the separate thread files to the combined file where the program is deterministic", function()
    -- Two runs of the same program. Exact: work() in every thread, the
    -- program's own object as a whole, and everything outside libc. Not
    -- exact: glibc's barrier, futex and join paths depend on which thread
    -- arrives last and whether a waiter finds the barrier released, and a
    -- few instructions around a thread switch are charged to main() in one
    -- run and to worker() in another (seen: main 129 / worker 37 against
    -- 133 / 33, same sum).
    local function merged(files)
      local self, work_calls = {}, 0
      for _, path in ipairs(files) do
        local _, _, entry = load(path)
        for key, fn in pairs(entry.by_key) do
          self[key] = (self[key] or 0) + fn:self("Ir")
          if fn.name == "work" then
            for call in fn:callers() do
              work_calls = work_calls + call.count
            end
          end
        end
      end
      return self, work_calls
    end
    local separate, separate_calls = merged(vg.profile("callgrind_threads_separate"))
    local combined, combined_calls = merged(vg.profile("callgrind_threads_combined"))
    assert.are.equal(4, separate_calls) -- main's warm-up and three workers
    assert.are.equal(4, combined_calls)
    local program_sum = { separate = 0, combined = 0 }
    local mismatches = {}
    local work_found = false
    for key, value in pairs(separate) do
      local object = key:match("^[^%z]*")
      if object:find("/threads$") then
        program_sum.separate = program_sum.separate + value
        program_sum.combined = program_sum.combined + (combined[key] or 0)
        if key:find("%zwork$") then
          work_found = true
          if combined[key] ~= value then
            mismatches[#mismatches + 1] = "work: " .. value .. " vs " .. tostring(combined[key])
          end
        end
      elseif not object:find("/libc%.so[^/]*$") and combined[key] ~= value then
        mismatches[#mismatches + 1] = show_key(key) .. ": " .. value .. " vs " .. tostring(combined[key])
      end
    end
    assert.is_true(work_found)
    assert_no_mismatch(mismatches, "separate vs combined")
    assert.are.equal(program_sum.separate, program_sum.combined, "threads' own code")
  end)
end)

---------------------------------------------------------------------------
-- Inlined code and several objects
---------------------------------------------------------------------------

describe("inline.c", function()
  it("keeps inlined lines in the function, under the header file", function()
    local path = vg.profile("callgrind_inline")[1]
    local _, _, entry = load(path)
    local main
    for _, fn in ipairs(entry.functions) do
      if fn.name == "main" and fn.file:find("/inline%.c$") then
        main = fn
      end
    end
    assert.is_not_nil(main)
    local files = {}
    for line in main:lines() do
      files[basename(line.file)] = (files[basename(line.file)] or 0) + line:cost("Ir")
    end
    assert.is_true((files["inline.h"] or 0) > 0)
    assert.is_true((files["inline.c"] or 0) > 0)
    -- CA shows the two parts as two keys
    local ca = annotate(path, false)
    assert.are.equal(files["inline.h"], ca.by_key[main.file:gsub("inline%.c$", "inline.h") .. ":main"].costs.Ir)
    assert.are.equal(files["inline.c"], ca.by_key[main.file .. ":main"].costs.Ir)
  end)

  it("has main under both files in cachegrind output (no fi=/fe= there)", function()
    local path = vg.profile("cachegrind_plain")[1]
    local _, _, entry = load(path)
    local found = {}
    for _, fn in ipairs(entry.functions) do
      if fn.name == "main" and fn.file:find("/inline%.[ch]$") then
        found[basename(fn.file)] = true
        assert.are.equal("", fn.object or "")
      end
    end
    assert.are.same({ ["inline.c"] = true, ["inline.h"] = true }, found)
  end)
end)

describe("multi-object program", function()
  it("keeps the same static name apart by file and object", function()
    local _, _, entry = load(vg.profile("callgrind_multi_object")[1])
    local scale, clamp = {}, {}
    for _, fn in ipairs(entry.functions) do
      if fn.name == "scale" then
        scale[#scale + 1] = basename(fn.file) .. " " .. basename(fn.object)
      elseif fn.name == "clamp" then
        clamp[#clamp + 1] = basename(fn.file) .. " " .. basename(fn.object)
      end
    end
    table.sort(scale)
    table.sort(clamp)
    assert.are.same({ "multi_lib.c libmulti.so", "multi_main.c multi", "multi_util.c multi" }, scale)
    assert.are.same({ "common.h libmulti.so", "common.h multi" }, clamp)
  end)

  it("counts calls within and across objects", function()
    local path = vg.profile("callgrind_multi_object")[1]
    local _, _, entry = load(path)
    local counts = {}
    for _, fn in ipairs(entry.functions) do
      if fn.object:find("multi") then
        for call in fn:callees() do
          local key = fn.name .. "@" .. basename(fn.object) .. " -> " .. call.callee.name .. "@"
            .. basename(call.callee.object)
          counts[key] = (counts[key] or 0) + call.count
          assert.is_true(call.addr ~= nil and call.addr > 0, key .. ": call site address")
        end
      end
    end
    assert.are.equal(40, counts["main@multi -> scale@multi"])
    assert.are.equal(40, counts["scale@multi -> clamp@multi"])
    assert.are.equal(1, counts["main@multi -> util_total@multi"])
    assert.are.equal(25, counts["util_total@multi -> scale@multi"])
    assert.are.equal(1, counts["main@multi -> lib_total@libmulti.so"])
    assert.are.equal(40, counts["lib_total@libmulti.so -> scale@libmulti.so"])
    assert.are.equal(40, counts["scale@libmulti.so -> clamp@libmulti.so"])
  end)

  it("matches CA's one clamp row with the sum of our two clamp functions", function()
    local path = vg.profile("callgrind_multi_object")[1]
    local _, _, entry = load(path)
    local sum, key = 0, nil
    for _, fn in ipairs(entry.functions) do
      if fn.name == "clamp" then
        sum = sum + fn:self("Ir")
        key = fn.file .. ":clamp"
      end
    end
    assert.are.equal(sum, annotate(path, false).by_key[key].costs.Ir)
  end)
end)

---------------------------------------------------------------------------
-- Event order
---------------------------------------------------------------------------

describe("event order", function()
  it("is the file's: callgrind and cachegrind list the same events differently", function()
    local callgrind_prof = load(vg.profile("callgrind_cache_branch")[1])
    local cachegrind_prof = load(vg.profile("cachegrind_sim")[1])
    assert.are.same({ "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim" },
      callgrind_prof:events())
    assert.are.same({ "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim" },
      cachegrind_prof:events())
    assert.are.same({ "Ir" }, load(vg.profile("cachegrind_no_sim")[1]):events())
    assert.are.same({ "Ir" }, load(vg.profile("callgrind_default")[1]):events())
  end)
end)
