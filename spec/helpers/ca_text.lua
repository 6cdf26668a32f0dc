-- Test helper: compares the text of callgrind_annotate (CA) with the text of
-- `callgrind annotate` line by line. Every difference must be explained by an allowance the
-- caller grants; what no allowance explains is reported.
--
--   local ca_text = require "helpers.ca_text"
--   local facts = ca_text.facts(vg.read_raw(path))          -- what the profile holds
--   local problems = ca_text.compare(ca_output, our_output, {
--     allow = { recursion = true, ... }, facts = facts, inclusive = false, threshold = 99 })
--
-- Allowances named after the documented differences of `callgrind help annotate`:
--   recursion      inclusive costs of self-calling functions and cycle members; recursive
--                  calls in annotated source
--   objects        one key (file:function) in two objects: CA sums them
--   zero_calls     costs after calls=0 lines: CA counts them as the caller's self cost
--   totals         PROGRAM TOTALS from the summary:/totals: line (CA) or the costs read (ours),
--                  and the percentages that follow from them
--   sections       files with several parts or threads: our "Sections:" header line
--   zeros          0 and "." for zero counts
--   ties           lines of equal cost, and the annotated files, in any order
--   inlined_object rows of inlined code with their function's object
local vg = require "helpers.valgrind"

local M = {}

local RULE = string.rep("-", 80)

local function split_lines(text)
  local lines = {}
  for line in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  local last = text:match("([^\n]+)$")
  if last then lines[#lines + 1] = last end
  return lines
end

local function squeeze(s)
  return (s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""))
end

local function add(set, key)
  set[key] = true
end

---------------------------------------------------------------------------
-- What the raw profile says about where the two programs may differ
---------------------------------------------------------------------------

-- CA's totals: the last summary: line that is not all zero, else the last totals: line
-- (read_input_file() of callgrind_annotate 3.19).
local function ca_totals(raw)
  local summary, totals
  for _, s in ipairs(raw.sections) do
    if s.summary then summary = s.summary end
    if s.totals then totals = s.totals end
  end
  local function zero(costs)
    if not costs then return true end
    for _, v in pairs(costs) do
      if v ~= 0 then return false end
    end
    return true
  end
  if not zero(summary) then return summary end
  if not zero(totals) then return totals end
  return raw.total
end

--- The keys (CA's "file:function") of the profile that the documented differences touch.
function M.facts(raw)
  local facts = { objects = {}, zero_calls = {}, recursion = {}, inlined = {}, zero_call_lines = {} }
  local objects_of = {}
  local function contribute(key, fn)
    objects_of[key] = objects_of[key] or {}
    objects_of[key][fn.object] = true
  end
  local in_cycle, self_calling = vg.raw_cycles(raw)
  for _, fn in ipairs(raw.function_list) do
    local own = fn.file .. ":" .. fn.name
    contribute(own, fn)
    for key in pairs(fn.ca_self) do
      contribute(key, fn)
      if key ~= own then add(facts.inlined, key) end
    end
    if in_cycle[fn] or self_calling[fn] then
      add(facts.recursion, own)
      for key in pairs(fn.ca_self) do add(facts.recursion, key) end
    end
  end
  for key, objects in pairs(objects_of) do
    local n = 0
    for _ in pairs(objects) do n = n + 1 end
    if n > 1 then add(facts.objects, key) end
  end
  for _, call in ipairs(raw.calls) do
    contribute(call.ca_key, call.caller)
    if call.count == 0 then
      add(facts.zero_calls, call.ca_key)
      add(facts.zero_calls, call.callee_ca_key)
      add(facts.zero_call_lines, (call.file or "???") .. ":" .. tostring(call.line))
    end
  end
  local ca = ca_totals(raw)
  facts.totals_differ = false
  for ev, v in pairs(raw.total) do
    if (ca[ev] or 0) ~= v then facts.totals_differ = true end
  end
  facts.sections = #raw.sections
  return facts
end

---------------------------------------------------------------------------
-- Reading the text into blocks
---------------------------------------------------------------------------

-- Blocks start with a rule, a title line and a rule: the header ("Profile data file"), the
-- totals, the function list ("file:function"), each annotated file, the list of files not
-- found and the annotated totals.
local function blocks_of(text)
  local lines = split_lines(text)
  local blocks = { preamble = {} }
  local current
  local i = 1
  while i <= #lines do
    if lines[i] == RULE and lines[i + 2] == RULE then
      current = { title = lines[i + 1], body = {} }
      blocks[#blocks + 1] = current
      i = i + 3
    else
      local into = current and current.body or blocks.preamble
      into[#into + 1] = lines[i]
      i = i + 1
    end
  end
  for _, b in ipairs(blocks) do
    local t = b.title
    if t:find("^Profile data file ") then
      b.kind = "header"
    elseif t:find("file:function%s*$") then
      b.kind = "listing"
    elseif t:find("^%-%- %a+%-annotated source: ") then
      b.kind = "source"
      b.file = t:match("^%-%- %a+%-annotated source: (.*)$")
    elseif t:find("^The following files chosen for auto%-annotation could not be found:") then
      b.kind = "missing"
    else
      b.kind = "totals"
      for _, line in ipairs(b.body) do
        if line:find("events annotated%s*$") then b.kind = "annotated" end
      end
    end
  end
  return blocks
end

-- Reads `n` cost columns at the start of `line`: counts as written and percentages (or "").
-- Returns the counts, the percentages and the rest of the line, or nil.
local function read_columns(line, n)
  local counts, percents, pos = {}, {}, 1
  for c = 1, n do
    local _, e, count = line:find("^%s*(%-?[%d,]+)", pos)
    if not e then _, e, count = line:find("^%s*(%.)", pos) end
    if not e then return nil end
    counts[c] = count
    pos = e + 1
    local _, pe, pct = line:find("^ (%(%s*%-?[%d%.]+%%%))", pos)
    percents[c] = pe and pct:gsub("%s", "") or ""
    if pe then pos = pe + 1 end
  end
  return counts, percents, line:sub(pos)
end

-- A function-list row: marker ("<", "*", ">" or nil), counts, percentages, key, call count
-- and object.
local function read_row(line, n)
  local counts, percents, rest = read_columns(line, n)
  if not counts then return nil end
  rest = rest:gsub("^%s+", ""):gsub("%s+$", "")
  local marker, body = rest:match("^([%*<>])%s+(.*)$")
  if not marker then body = rest end
  local object
  local s = body:find(" %[[^%[%]]*%]$")
  if s then
    object = body:sub(s + 2, -2)
    body = body:sub(1, s - 1)
  end
  local key, calls = body:match("^(.*) %(([%d,]+)x%)$")
  if not key then key = body end
  return { marker = marker, counts = counts, percents = percents, key = key, calls = calls, object = object,
    text = line }
end

---------------------------------------------------------------------------
-- Comparing
---------------------------------------------------------------------------

local Comparison = {}
Comparison.__index = Comparison

function Comparison:problem(where, message)
  self.problems[#self.problems + 1] = where .. ": " .. message
end

-- Two lines the same, or the same but for the widths of their blanks (allowance `layout`).
function Comparison:same_text(a, b)
  if a == b then return true end
  return self.allow.layout and squeeze(a) == squeeze(b)
end

function Comparison:check_text(where, ca, ours)
  if not self:same_text(ca or "", ours or "") then
    self:problem(where, ("callgrind_annotate has %q, callgrind %q"):format(tostring(ca), tostring(ours)))
  end
end

-- The counts of two rows or lines compared; `zeros` makes 0 and "." the same.
function Comparison:same_counts(a, b)
  for c = 1, #a.counts do
    local x, y = a.counts[c], b.counts[c]
    if self.allow.zeros then
      if x == "0" then x = "." end
      if y == "0" then y = "." end
    end
    if x ~= y then return false end
    if not self.percent_free and a.percents[c] ~= b.percents[c] then return false end
  end
  return true
end

function Comparison:exempt(key)
  local f, allow = self.facts, self.allow
  return (allow.objects and f.objects[key]) or (allow.zero_calls and f.zero_calls[key])
    or (allow.recursion and self.inclusive and f.recursion[key])
end

-- Where the label of a row starts: without the allowance `layout`, the columns must be as
-- wide as callgrind_annotate's.
local function label_column(text)
  return (text:find("[^%d%s,.%%()%-]") or #text + 1)
end

-- Two function-list rows (or caller/callee lines) of the same key.
function Comparison:check_row(where, a, b)
  if self:exempt(a.key) then return end
  if not self:same_counts(a, b) or a.calls ~= b.calls then
    self:problem(where, ("%s: callgrind_annotate has %q, callgrind %q"):format(a.key, a.text, b.text))
    return
  end
  if a.object ~= b.object and not (self.allow.inlined_object and a.object == nil and self.facts.inlined[a.key]) then
    self:problem(where, ("%s: object %s against %s"):format(a.key, tostring(a.object), tostring(b.object)))
    return
  end
  if not self.allow.layout and (label_column(a.text) ~= label_column(b.text) or a.text:find("%s$") ~= b.text:find("%s$")) then
    self:problem(where, ("%s: columns differ: %q against %q"):format(a.key, a.text, b.text))
  end
end

-- ---- header ------------------------------------------------------------------------------

function Comparison:compare_header(a, b)
  self:check_text("header", a.title, b.title)
  local ours = {}
  for _, line in ipairs(b.body) do
    if not (self.allow.sections and line:find("^Sections:%s+%d+$")) then ours[#ours + 1] = line end
  end
  local ca = {}
  for _, line in ipairs(a.body) do
    if self.allow.target_thread then line = line:gsub("^(Profiled target: .*), thread %d+%)$", "%1)") end
    if self.allow.thresholds_line and line:find("^Thresholds:") then line = line:gsub("^(Thresholds:%s+%S+).*$", "%1") end
    ca[#ca + 1] = line
  end
  if #ca ~= #ours then
    self:problem("header", ("%d lines against %d:\n%s\n--\n%s"):format(#ca, #ours, table.concat(ca, "\n"),
      table.concat(ours, "\n")))
    return
  end
  for i = 1, #ca do
    local x, y = ca[i], ours[i]
    self:check_text("header line " .. i, x, y)
  end
end

-- ---- totals -------------------------------------------------------------------------------

function Comparison:compare_totals(a, b)
  if self.allow.totals and self.facts.totals_differ then
    -- other totals, other column widths
    if squeeze(a.title) ~= squeeze(b.title) then self:check_text("totals heading", a.title, b.title) end
  else
    self:check_text("totals heading", a.title, b.title)
  end
  local ra, rb = read_row(a.body[1] or "", self.events), read_row(b.body[1] or "", self.events)
  if not ra or not rb then
    self:problem("totals", ("unreadable: %q, %q"):format(tostring(a.body[1]), tostring(b.body[1])))
    return
  end
  if self.allow.totals and self.facts.totals_differ then return end
  if not self:same_counts(ra, rb) then
    self:problem("totals", ("callgrind_annotate has %q, callgrind %q"):format(a.body[1], b.body[1]))
  elseif not self.percent_free then
    self:check_text("totals", a.body[1], b.body[1])
  end
end

-- ---- function list ----------------------------------------------------------------------------

-- The rows of a listing: flat, a list of rows; with --tree, a list of groups
-- {star = row, callers = {...}, callees = {...}}.
local function listing_entries(block, events, tree)
  local entries, group = {}, nil
  for _, line in ipairs(block.body) do
    if line:find("%S") then
      local row = read_row(line, events)
      if not row then error("cannot read the row: " .. line, 0) end
      if not tree then
        entries[#entries + 1] = row
      else
        group = group or { callers = {}, callees = {} }
        if row.marker == "<" then
          group.callers[#group.callers + 1] = row
        elseif row.marker == "*" then
          group.star = row
          entries[#entries + 1] = group
        else
          group.callees[#group.callees + 1] = row
        end
      end
    elseif group and group.star then
      group = nil
    end
  end
  return entries
end

-- Rows sorted by their counts (highest first), then key: the order of a list where lines of
-- equal cost may come in any order.
local function count_value(text)
  if text == "." then return 0 end
  return tonumber((text:gsub(",", "")))
end

local function by_counts_then_key(list)
  local sorted = {}
  for i, r in ipairs(list) do sorted[i] = r end
  table.sort(sorted, function(x, y)
    for c = 1, #x.counts do
      local p, q = count_value(x.counts[c]), count_value(y.counts[c])
      if p ~= q then return p > q end
    end
    if x.key ~= y.key then return x.key < y.key end
    return (x.object or "") < (y.object or "")
  end)
  return sorted
end

-- Caller or callee lines: equal as lists, or (allowance `ties`) as lists sorted by cost.
function Comparison:compare_calls(where, ca, ours)
  local function kept(list)
    local out = {}
    for _, r in ipairs(list) do
      local zero_count = self.allow.zero_calls and r.calls == "0"
      if not self:exempt(r.key) and not zero_count then out[#out + 1] = r end
    end
    return out
  end
  ca, ours = kept(ca), kept(ours)
  if self.allow.ties then
    ca, ours = by_counts_then_key(ca), by_counts_then_key(ours)
  end
  if #ca ~= #ours then
    local names = {}
    for _, r in ipairs(ca) do names[#names + 1] = "ca " .. r.key end
    for _, r in ipairs(ours) do names[#names + 1] = "ours " .. r.key end
    self:problem(where, ("%d lines against %d: %s"):format(#ca, #ours, table.concat(names, "; ")))
    return
  end
  for i = 1, #ca do
    if ca[i].key ~= ours[i].key then
      self:problem(where, ("line %d: %s against %s"):format(i, ca[i].key, ours[i].key))
    else
      self:check_row(where, ca[i], ours[i])
    end
  end
end

-- Whether the lists may end at different rows: when the threshold stops them, and what comes
-- before it may differ (allowed differences of rows, of the totals, or of CA's inclusive cut).
function Comparison:tails_may_differ(rows_a, rows_b)
  if self.threshold >= 100 then return false end
  if self.allow.totals and self.facts.totals_differ then return true end
  for _, list in ipairs { rows_a, rows_b } do
    for _, r in ipairs(list) do
      if self:exempt(r.key) then return true end
    end
  end
  return false
end

function Comparison:compare_listing(a, b)
  self:check_text("listing heading", a.title, b.title)
  local tree = self.tree ~= nil and self.tree ~= "none"
  local ea, eb = listing_entries(a, self.events, tree), listing_entries(b, self.events, tree)
  local function star(e) return tree and e.star or e end
  local function kept(list)
    local out = {}
    for _, e in ipairs(list) do
      if not self:exempt(star(e).key) then out[#out + 1] = e end
    end
    return out
  end
  local rows_a, rows_b = {}, {}
  for i, e in ipairs(ea) do rows_a[i] = star(e) end
  for i, e in ipairs(eb) do rows_b[i] = star(e) end
  local tails = self:tails_may_differ(rows_a, rows_b)
  self.tails = tails
  -- the files of exempt rows: the threshold may choose them on one side only
  self.exempt_files = {}
  for _, list in ipairs { rows_a, rows_b } do
    for _, r in ipairs(list) do
      if self:exempt(r.key) then self.exempt_files[(vg.split_key(r.key))] = true end
    end
  end
  local ka, kb = kept(ea), kept(eb)
  local n = math.min(#ka, #kb)
  if not tails and #ka ~= #kb then
    self:problem("listing", ("%d rows against %d"):format(#ka, #kb))
  end
  for i = 1, n do
    local ra, rb = star(ka[i]), star(kb[i])
    if ra.key ~= rb.key then
      self:problem("listing", ("row %d: %s against %s"):format(i, ra.key, rb.key))
      return
    end
    self:check_row("listing", ra, rb)
    if tree then
      if self.tree ~= "calling" then self:compare_calls("callers of " .. ra.key, ka[i].callers, kb[i].callers) end
      if self.tree ~= "caller" then self:compare_calls("callees of " .. ra.key, ka[i].callees, kb[i].callees) end
    end
  end
end

-- ---- annotated source ---------------------------------------------------------------------------

-- The lines of an annotated file: cost lines with their source text, calls ("=> key (Nx)"),
-- separators ("-- line N").
local function source_entries(block, events)
  local list = {}
  for i, line in ipairs(block.body) do
    local sep = line:match("^%-%- line (%d+) %-+$")
    if i == 1 then
      list[#list + 1] = { kind = "heading", text = line }
    elseif sep then
      list[#list + 1] = { kind = "separator", line = tonumber(sep), text = line }
    elseif line == "" or line:find("^  No information has been collected for ") or line:find("^@") then
      list[#list + 1] = { kind = "plain", text = line }
    else
      local counts, percents, rest = read_columns(line, events)
      if not counts then
        list[#list + 1] = { kind = "plain", text = line }
      else
        local key, calls = rest:match("^%s*=> (.-) %(([%d,]+)x%)%s*$")
        list[#list + 1] = { kind = key and "call" or "line", counts = counts, percents = percents, key = key,
          calls = calls, source = not key and rest or nil, text = line }
      end
    end
  end
  return list
end

-- CA ends one range and starts the next with two separators when they touch, where ours joins
-- them; and it ends a range on the file's last line with a separator, where ours does not.
local function last_entry(list)
  for i = #list, 1, -1 do
    if list[i].kind ~= "plain" then return list[i], i end
  end
end

local function without_touching_separators(list, ours)
  local last, at = last_entry(list)
  local our_last = last_entry(ours)
  if last and last.kind == "separator" and not (our_last and our_last.kind == "separator") then
    table.remove(list, at)
  end
  local out = {}
  local i = 1
  while i <= #list do
    local e, f = list[i], list[i + 1]
    if e.kind == "separator" and f and f.kind == "separator" and f.line == e.line + 1 then
      i = i + 2
    else
      out[#out + 1] = e
      i = i + 1
    end
  end
  return out
end

-- Groups the call lines that follow a source line, so that they compare as one item.
local function with_call_groups(list)
  local out = {}
  for _, e in ipairs(list) do
    local last = out[#out]
    if e.kind == "call" then
      if last and last.kind == "line" then
        last.calls_made = last.calls_made or {}
        last.calls_made[#last.calls_made + 1] = e
      else
        out[#out + 1] = e
      end
    else
      out[#out + 1] = e
    end
  end
  return out
end

function Comparison:compare_source(file, a, b)
  local where = "source " .. file
  local la, lb = source_entries(a, self.events), source_entries(b, self.events)
  if self.allow.context_markers then la = without_touching_separators(la, lb) end
  la, lb = with_call_groups(la), with_call_groups(lb)
  if #la ~= #lb then
    self:problem(where, ("%d lines against %d"):format(#la, #lb))
    return
  end
  local number = 0
  for i = 1, #la do
    local x, y = la[i], lb[i]
    if x.kind ~= y.kind then
      self:problem(where, ("line %d: %q against %q"):format(i, x.text, y.text))
      return
    end
    if x.kind == "separator" then number = x.line end
    if x.kind == "line" then
      number = number == 0 and 1 or number
      local site = file .. ":" .. number
      local free = self.allow.zero_calls and self.facts.zero_call_lines[site]
      if not free and not self:same_counts(x, y) then
        self:problem(where, ("line %d: %q against %q"):format(number, x.text, y.text))
      elseif not free and not self.percent_free and not self.allow.zeros then
        self:check_text(where, x.text, y.text)
      elseif squeeze(x.source) ~= squeeze(y.source) then
        self:problem(where, ("line %d: source %q against %q"):format(number, x.source, y.source))
      end
      if not free then self:compare_line_calls(where .. ":" .. number, x.calls_made or {}, y.calls_made or {}) end
      number = number + 1
    elseif x.kind ~= "call" then
      self:check_text(where, x.text, y.text)
    end
  end
end

-- The calls listed under a source line; recursive calls are ours to leave out.
function Comparison:compare_line_calls(where, ca, ours)
  local kept = {}
  for _, c in ipairs(ca) do
    if not (self.allow.recursion and self.facts.recursion[c.key]) then kept[#kept + 1] = c end
  end
  local mine = {}
  for _, c in ipairs(ours) do
    if not (self.allow.recursion and self.facts.recursion[c.key]) then mine[#mine + 1] = c end
  end
  if self.allow.ties then kept, mine = by_counts_then_key(kept), by_counts_then_key(mine) end
  if #kept ~= #mine then
    self:problem(where, ("%d calls against %d"):format(#kept, #mine))
    return
  end
  for i = 1, #kept do
    if kept[i].key ~= mine[i].key or kept[i].calls ~= mine[i].calls or not self:same_counts(kept[i], mine[i]) then
      self:problem(where, ("call %q against %q"):format(kept[i].text, mine[i].text))
    end
  end
end

-- ---- the whole text ------------------------------------------------------------------------------

local function by_kind(blocks)
  local out = { sources = {}, source_order = {} }
  for _, b in ipairs(blocks) do
    if b.kind == "source" then
      out.sources[b.file] = b
      out.source_order[#out.source_order + 1] = b.file
    else
      out[b.kind] = b
    end
  end
  return out
end

function Comparison:compare_missing(a, b)
  local function items(block)
    local list = {}
    for _, line in ipairs(block and block.body or {}) do
      if line:find("%S") then list[#list + 1] = squeeze(line) end
    end
    if self.allow.ties then table.sort(list) end
    return table.concat(list, "\n")
  end
  if items(a) ~= items(b) then
    self:problem("files not found", ("callgrind_annotate lists\n%s\ncallgrind\n%s"):format(items(a), items(b)))
  end
end

-- The files each side chose to annotate: those annotated and those not found.
local function chosen_files(k)
  local set = {}
  for _, f in ipairs(k.source_order) do set[f] = true end
  for _, line in ipairs(k.missing and k.missing.body or {}) do
    if line:find("%S") then set[squeeze(line)] = true end
  end
  return set
end

local function subset(x, y)
  for f in pairs(x) do
    if not y[f] then return false end
  end
  return true
end

-- The annotated files, the files not found and the annotated totals. When the listings may
-- end at different rows (see tails_may_differ), the files chosen by the threshold may differ
-- too, one side choosing a few more.
function Comparison:compare_annotations(ka, kb)
  local files_a, files_b = chosen_files(ka), chosen_files(kb)
  for f in pairs(self.exempt_files or {}) do
    if not files_b[f] then files_a[f] = nil end
    if not files_a[f] then files_b[f] = nil end
  end
  local same_choice = subset(files_a, files_b) and subset(files_b, files_a)
  if not same_choice and not (self.tails and (subset(files_a, files_b) or subset(files_b, files_a))) then
    self:problem("annotated files", "the files chosen differ beyond what the threshold explains")
  end
  local function common(order, other)
    local list = {}
    for _, f in ipairs(order) do
      if other[f] then list[#list + 1] = f end
    end
    return list
  end
  local order_a, order_b = common(ka.source_order, files_b), common(kb.source_order, files_a)
  if self.allow.ties then
    local sorted_b = {}
    for i, f in ipairs(kb.source_order) do sorted_b[i] = f end
    table.sort(sorted_b)
    if table.concat(sorted_b, "\n") ~= table.concat(kb.source_order, "\n") then
      self:problem("annotated files", "callgrind does not list them in name order")
    end
    table.sort(order_a)
    table.sort(order_b)
  end
  if table.concat(order_a, "\n") ~= table.concat(order_b, "\n") then
    self:problem("annotated files", ("callgrind_annotate has\n%s\ncallgrind\n%s"):format(table.concat(order_a, "\n"),
      table.concat(order_b, "\n")))
  else
    for _, file in ipairs(order_a) do self:compare_source(file, ka.sources[file], kb.sources[file]) end
  end
  if not same_choice then return end
  if ka.missing or kb.missing then self:compare_missing(ka.missing, kb.missing) end
  if (ka.annotated == nil) ~= (kb.annotated == nil) then
    self:problem("annotated totals", ka.annotated and "only callgrind_annotate has them" or "only callgrind has them")
  elseif ka.annotated and not self.percent_free then
    local x, y = read_row(ka.annotated.body[1] or "", self.events), read_row(kb.annotated.body[1] or "", self.events)
    if not (x and y and self:same_counts(x, y)) and not (self.allow.zero_calls and next(self.facts.zero_call_lines)) then
      self:problem("annotated totals", ("%q against %q"):format(tostring(ka.annotated.body[1]),
        tostring(kb.annotated.body[1])))
    end
  end
end

--- The differences between CA's text `ca` and ours that no allowance explains.
-- opts.allow: a set of allowance names; opts.facts: M.facts of the profile; opts.events: the
-- number of shown events; opts.inclusive, opts.threshold, opts.tree: the options both ran with.
function M.compare(ca, ours, opts)
  local self = setmetatable({ problems = {}, allow = opts.allow or {}, facts = opts.facts, events = opts.events,
    inclusive = opts.inclusive, threshold = opts.threshold or 99, tree = opts.tree }, Comparison)
  self.percent_free = self.allow.totals and self.facts.totals_differ
  local a, b = blocks_of(ca), blocks_of(ours)
  if table.concat(a.preamble, "\n") ~= table.concat(b.preamble, "\n") then
    self:problem("before the header", ("%q against %q"):format(table.concat(a.preamble, "\n"),
      table.concat(b.preamble, "\n")))
  end
  local ka, kb = by_kind(a), by_kind(b)
  for _, kind in ipairs { "header", "totals", "listing" } do
    if (ka[kind] == nil) ~= (kb[kind] == nil) then
      self:problem(kind, ka[kind] and "only callgrind_annotate has it" or "only callgrind has it")
    end
  end
  if ka.header and kb.header then self:compare_header(ka.header, kb.header) end
  if ka.totals and kb.totals then self:compare_totals(ka.totals, kb.totals) end
  if ka.listing and kb.listing then self:compare_listing(ka.listing, kb.listing) end
  self:compare_annotations(ka, kb)
  -- what follows the last block: CA ends with a blank line
  local last_a, last_b = a[#a], b[#b]
  if last_a and last_b and #last_a.body > 0 and #last_b.body > 0 then
    self:check_text("end", last_a.body[#last_a.body], last_b.body[#last_b.body])
  end
  return self.problems
end

--- Runs callgrind_annotate with `args` on `path` from its empty directory (so that it strips
--- no directory from file names) and returns its standard output.
function M.run_ca(path, args)
  local parts = { "cd", vg.quote(vg.work_dir() .. "/ca-cwd"), "&&", "callgrind_annotate" }
  for _, a in ipairs(args) do parts[#parts + 1] = vg.quote(a) end
  parts[#parts + 1] = vg.quote(path)
  local command = table.concat(parts, " ") .. " 2>/dev/null"
  if os.getenv("LD_PRELOAD") then command = "env -u LD_PRELOAD sh -c " .. vg.quote(command) end
  local pipe = assert(io.popen(command))
  local text = pipe:read("*a")
  pipe:close()
  return text
end

return M
