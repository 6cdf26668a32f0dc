-- The stored outputs of callgrind_annotate 3.19 (CA) for the third-party profiles, and our
-- model's numbers put the way CA files and sums them, so a spec can compare the two row by row.
--
--   local oracle = require "helpers.oracle"
--   if oracle.available("gprof2dot/bool.callgrind", "self") then
--     local ca = oracle.read("gprof2dot/bool.callgrind", "self")   -- helpers.valgrind's shape
--     local ours = oracle.self_rows(prof, ca.events)
--     local mismatches = oracle.compare_rows(ca, ours, ca.events)
--   end
--
-- How CA 3.19 reads a file (read_input_file() in /usr/bin/callgrind_annotate):
-- * The key of a row is "file:function". The file is the one current at the last fn=, fi= or fe=
--   line: fl= alone does not change the key, and fn= does not go back to the fl= file after an
--   fi=/fe= block. The object is not part of the key.
-- * A cost line after calls=N is a call cost only when N > 0; after calls=0 it is self cost.
-- * PROGRAM TOTALS is the last summary: line, or the last totals: line when the summary is
--   missing or all zero, or else the sum of all rows ("(calculated)").
-- * --inclusive=yes: a key that is the target of a call with a positive count gets the sum of
--   all call costs to it; any other key gets its self cost plus the call costs made under it.
-- * Every key that had an fn=/fi=/fe= line is listed, zero or not ('.' means 0).
local vg = require "helpers.valgrind"
local fixtures = require "helpers.fixtures"

local oracle = {}

local subdir = "thirdparty/oracle-callgrind_annotate-3.19/"

local read_or_nil = fixtures.try_read

--- Base path of the oracle files of a profile: "gprof2dot/bool.callgrind" ->
--- ".../oracle-callgrind_annotate-3.19/gprof2dot__bool.callgrind".
local function base(profile)
  local dir, file = profile:match("^([^/]+)/([^/]+)$")
  assert(dir, "expected 'subdir/file', got '" .. tostring(profile) .. "'")
  return fixtures.testdata(subdir .. dir .. "__" .. file)
end

--- CA's exit status for a profile ("self" or "incl" run), or nil when it was not run.
function oracle.exit_status(profile, kind)
  local text = read_or_nil(base(profile) .. "." .. kind .. ".rc")
  return text and tonumber(text:match("%d+")) or nil
end

function oracle.available(profile, kind)
  return oracle.exit_status(profile, kind) == 0
end

--- CA's output parsed by helpers.valgrind.parse_annotate. CA keeps the '\r' of CRLF files in
--- file and function names (and in the event line); our model strips it, as KCachegrind does, so
--- the '\r' is removed here, on CA's side.
function oracle.read(profile, kind)
  local path = base(profile) .. "." .. kind .. ".txt"
  local text = assert(read_or_nil(path), "cannot read " .. path)
  return assert(vg.parse_annotate((text:gsub("\r", ""))))
end

local function zero_row(events)
  local row = {}
  for _, ev in ipairs(events) do
    row[ev] = 0
  end
  return row
end

local function add_row(into, row, events)
  for _, ev in ipairs(events) do
    into[ev] = into[ev] + (row[ev] or 0)
  end
end

--- Our self costs keyed like CA's flat listing: line costs summed per "line.file:fn.name".
--- This is CA's key wherever the file of a line comes from fl= at the function's fn= line or
--- from fi=/fe=; the two ways a file can disagree with CA (an fl= with no fn= after it, an fn=
--- right after an fi= block) are listed per profile by the spec.
function oracle.self_rows(prof, events)
  local rows = {}
  for fn in prof:functions() do
    for line in fn:lines() do
      local key = line.file .. ":" .. fn.name
      local row = rows[key]
      if not row then
        row = zero_row(events)
        rows[key] = row
      end
      for _, ev in ipairs(events) do
        row[ev] = row[ev] + line:cost(ev)
      end
    end
  end
  return rows
end

--- Compares CA's rows (a parse_annotate result) with ours ({key = {ev = cost}}) on every key of
--- either side and every event; a key missing on one side counts as all zero. `groups` lists
--- {ca = {keys}, ours = {keys}, why = text} whose keys differ between CA and the model for a
--- reason the spec explains: those are compared by their sums instead. Returns the mismatches as
--- text (an empty list when everything agrees).
function oracle.compare_rows(ca, ours, events, groups)
  local theirs = {}
  for _, row in ipairs(ca.rows) do
    theirs[row.key] = theirs[row.key] or zero_row(events)
    add_row(theirs[row.key], row.costs, events)
  end
  local mine = {}
  for key, row in pairs(ours) do
    mine[key] = row
  end
  local mismatches = {}
  local function check(label, want, got)
    for _, ev in ipairs(events) do
      if want[ev] ~= got[ev] then
        mismatches[#mismatches + 1] = string.format("%s %s: callgrind_annotate %s, ours %s", label, ev,
          tostring(want[ev]), tostring(got[ev]))
      end
    end
  end
  for _, group in ipairs(groups or {}) do
    local want, got = zero_row(events), zero_row(events)
    for _, key in ipairs(group.ca) do
      add_row(want, theirs[key] or {}, events)
      theirs[key] = nil
    end
    for _, key in ipairs(group.ours) do
      add_row(got, mine[key] or {}, events)
      mine[key] = nil
    end
    check("{" .. table.concat(group.ca, ", ") .. "} vs {" .. table.concat(group.ours, ", ") .. "}", want, got)
  end
  local keys = {}
  for key in pairs(theirs) do
    keys[#keys + 1] = key
  end
  for key in pairs(mine) do
    if not theirs[key] then
      keys[#keys + 1] = key
    end
  end
  table.sort(keys)
  local empty = zero_row(events)
  for _, key in ipairs(keys) do
    check(key, theirs[key] or empty, mine[key] or empty)
  end
  return mismatches
end

local function all_zero(row, events)
  for _, ev in ipairs(events) do
    if (row[ev] or 0) ~= 0 then
      return false
    end
  end
  return true
end

--- What CA prints as PROGRAM TOTALS for our model of a profile: {ev = cost} and whether CA
--- marks it "(calculated)".
function oracle.program_totals(prof, events)
  local summary, totals
  for _, section in ipairs(prof:sections()) do
    summary = section.summary or summary
    totals = section.totals or totals
  end
  local row = zero_row(events)
  if summary and not all_zero(summary, events) then
    add_row(row, summary, events)
    return row, false
  end
  if totals and not all_zero(totals, events) then
    add_row(row, totals, events)
    return row, false
  end
  for _, ev in ipairs(events) do
    row[ev] = prof:total(ev)
  end
  return row, true
end

-- Inclusive costs. KCachegrind's rule, which the model follows: a function called with a positive
-- count costs the sum of its incoming calls, self-calls left out; a function never called costs
-- its self cost plus its outgoing calls; a member of a cycle costs its self cost plus the calls
-- leaving the cycle. CA's rule is in the header above. Both give the same number for the
-- functions sharing one CA key (same name and fl= file, any object) when
--   * no member calls itself and no member is in a cycle: CA adds self-calls and the calls
--     inside the cycle, KCachegrind does not;
--   * no call with count 0 reaches a member: CA files its cost as the caller's self cost;
--   * either every member is called (both sides sum the incoming calls), or none is and each
--     member's lines and call sites all lie in the member's own file (CA files fi=/fe= lines under
--     another key; a key shared by a called and an uncalled member gets only the incoming calls).
-- Calling into a cycle changes nothing: both sides take that call's cost as written.

local function calls_itself(fn)
  for call in fn:callees() do
    if call.callee == fn then
      return true
    end
  end
  return false
end

local function reached_by_count_zero(fn)
  for call in fn:callers() do
    if call.count == 0 then
      return true
    end
  end
  return false
end

local function stays_in_own_file(fn)
  for line in fn:lines() do
    if line.file ~= fn.file then
      return false
    end
  end
  for call in fn:callees() do
    if call.file ~= fn.file then
      return false
    end
  end
  return true
end

local function called_from_own_file(fn)
  for call in fn:callers() do
    if call.file ~= fn.file then
      return false
    end
  end
  return true
end

--- The groups of functions whose summed inclusive cost CA's --inclusive=yes listing gives under
--- their key: { {key = "file:name", functions = {fn, ...}}, ... } in key order, and the number of
--- functions left out.
-- When the profile never names a callee's file (no cfi=/cfl= line, as in Xdebug's early format),
-- CA files each call under the caller's current file, while the model sends it to the function
-- of that name wherever its fn= block is (when that is unambiguous): such functions compare only
-- when all their calls come from their own file (`callee_files_unnamed`).
function oracle.comparable_inclusive(prof, callee_files_unnamed)
  local by_key, keys = {}, {}
  for fn in prof:functions() do
    local key = fn.file .. ":" .. fn.name
    if not by_key[key] then
      by_key[key] = {}
      keys[#keys + 1] = key
    end
    table.insert(by_key[key], fn)
  end
  table.sort(keys)
  local groups, left_out = {}, 0
  for _, key in ipairs(keys) do
    local members = by_key[key]
    local called, uncalled, ok = 0, 0, true
    for _, fn in ipairs(members) do
      if fn.cycle or calls_itself(fn) or reached_by_count_zero(fn) then
        ok = false
      elseif callee_files_unnamed and not called_from_own_file(fn) then
        ok = false
      elseif fn.called > 0 then
        called = called + 1
      elseif stays_in_own_file(fn) then
        uncalled = uncalled + 1
      else
        ok = false
      end
    end
    if ok and (called == 0 or uncalled == 0) then
      groups[#groups + 1] = { key = key, functions = members }
    else
      left_out = left_out + #members
    end
  end
  return groups, left_out
end

return oracle
