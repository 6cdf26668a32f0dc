-- callgrind.annotate: source files printed with their costs line by line, the way
-- callgrind_annotate prints them with --auto=yes or for files named on its command line.
--
--   local annotate = require "callgrind.annotate"
--   io.write(annotate.source(prof, { include = { "src" }, context = 4 }))
--   local lines = annotate.file_costs(prof, "/home/me/prog/main.c", { "Ir" })
--
-- Line records give the self cost of each source line (summed over every function with code
-- there, inlined code under its header's name), calls give the inclusive cost of each call
-- site; both are summed by the core (core.file_lines), which also lays out each annotated
-- file (core.annotated_source). The jobs live in annotate/: costs.lua (the costs of lines),
-- files.lua (which files, and their text), render.lua (what is printed around the files).
local core = require "callgrind.core"
local format = require "callgrind.format"
local costs = require "callgrind.annotate.costs"
local files = require "callgrind.annotate.files"
local query = require "callgrind.query"
local render = require "callgrind.annotate.render"
local system = require "callgrind.system"

local annotate = {}

local DEFAULT_CONTEXT = 8
local DEFAULT_THRESHOLD = 99

--- Self and call costs of one source file, by line number:
--- { [line] = { self = {ev = cost}, calls = { {callee = fn, count = n, inclusive = {ev = cost}}, ... } } }.
--- `file` is the name as the profile writes it (line.file, call.file); `events` a list of
--- events (default: every raw event). Line 0 holds costs of code without line information.
--- A line's self cost sums every function's records there; its calls are summed per callee,
--- highest cost first, recursive calls left out where the recursion is entered on the same line.
function annotate.file_costs(prof, file, events)
  if type(file) ~= "string" then
    error("bad argument #2 to 'file_costs' (string expected, got " .. type(file) .. ")", 2)
  end
  events = costs.event_names(prof, events)
  return costs.with_self(costs.gather(prof, { file }, events)[file] or {}, events)
end

--- file_costs() for every file of the profile at once, in one pass:
--- { [file] = { [line] = { self = {ev = cost}, calls = {...} } } }, keyed by the names the
--- profile writes (line.file, call.file; "" for records without a file).
function annotate.costs_by_file(prof, events)
  events = costs.event_names(prof, events)
  local by_file = costs.gather(prof, nil, events)
  for _, lines in pairs(by_file) do costs.with_self(lines, events) end
  return by_file
end

--- The per-line sums of one event for every file, in the shape an editor draws them:
--- self = { [file] = { [line] = self cost } } (prof:line_costs), and
--- calls = { [file] = { [line] = inclusive cost } } for the lines that make calls: the sum of
--- what file_costs lists for them, summed by the core (core.line_totals) without a table per
--- call or per callee. With `file` (the name as the profile writes it), that file only: the
--- core reads only the records of the functions with code there (an editor's buffer).
function annotate.line_totals(prof, event, file)
  if file ~= nil and type(file) ~= "string" then
    error("bad argument #3 to 'line_totals' (string expected, got " .. type(file) .. ")", 2)
  end
  return core.line_totals(prof, prof:event_info(event).index, file)
end

--- The text of a source file the profile names: the name as written (absolute, or relative to
--- the current directory), then each include directory in turn with the name appended, as
--- callgrind_annotate's -I does. `include` a list of directories (default none), `reader` a
--- function(path) -> text or nil (default: reads the file). Returns the text and the label
--- for the header, or nil.
function annotate.find_source(file, include, reader)
  return files.find(file, include or {}, reader or system.read_file)
end

local function list_option(value)
  if type(value) == "string" then return { value } end
  return value
end

-- The lines and blocks of `pieces` written to `out` with a line end between them, one write
-- each rather than one joined copy of them all: true, or nil and the message of a write that
-- failed or raised an error, as the reports written in C answer.
local function write_pieces(out, pieces)
  for i, piece in ipairs(pieces) do
    local called, ok, err = pcall(out.write, out, piece, i < #pieces and "\n" or "")
    if not called then ok, err = nil, type(ok) == "string" and ok or nil end
    if not ok then return nil, err or "the output's write failed" end
  end
  return true
end

-- The options of annotate.source, checked, with their defaults.
local function settings_of(prof, opts)
  local context = opts.context or DEFAULT_CONTEXT
  if type(context) ~= "number" or context < 0 then error("context must be a number >= 0", 3) end
  query.check_output(opts.out, 3)
  local events = costs.event_names(prof, opts.show)
  local totals = {}
  for _, ev in ipairs(events) do totals[ev] = prof:total(ev) end
  local auto = opts.auto
  if auto == nil then auto = opts.files == nil end
  return {
    events = events,
    sort = costs.event_names(prof, opts.sort),
    totals = totals,
    context = math.floor(context),
    percentages = opts.percentages ~= false,
    threshold = opts.threshold or DEFAULT_THRESHOLD,
    auto = auto,
    reader = opts.read_file or system.read_file,
    include = list_option(opts.include) or {},
    named = list_option(opts.files),
  }
end

--- The annotated source text of the chosen files, as callgrind_annotate prints it.
--- opts:
---   files        list of file names as the profile writes them; when given, only these
---                (plus the automatic choice when `auto` is set explicitly)
---   auto         choose files by the threshold rule (default: true without `files`)
---   threshold    percent of the first sort event covered by the listed functions (99)
---   inclusive    the listing the threshold applies to is by inclusive cost
---   sort         events ordering functions for that choice (default: all raw events)
---   show         events shown (default: all raw events)
---   context      lines shown around costed lines (8)
---   include      directories searched for the files, after the name as written
---   percentages  show each cost's share of the total (true)
---   read_file    function(path) -> text or nil (default: reads the file)
---   out          a file, or an object with a write method: the text is written there file by
---                file, and the result is true, or nil and the message of a failed write
function annotate.source(prof, opts)
  opts = opts or {}
  local settings = settings_of(prof, opts)
  local order, user = files.choose(prof, settings.named, settings.auto, settings.sort, {
    threshold = settings.threshold, inclusive = opts.inclusive, inlined = opts.inlined })

  -- the text of the files found first, so that the costs are gathered for those only
  local found, missing, missing_user = {}, {}, false
  for _, file in ipairs(order) do
    local source, label = files.find(file, settings.include, settings.reader)
    if source then
      found[#found + 1] = { file = file, source = source, label = label }
    else
      missing[#missing + 1] = file
      missing_user = missing_user or user[file] == true
    end
  end
  -- each file's lines, costs and calls laid out by the core (core.annotated_source)
  local names, texts = {}, {}
  for i, f in ipairs(found) do
    names[i], texts[i] = f.file, f.source
  end
  local rendered, sums = {}, {}
  if #names > 0 then
    rendered, sums = core.annotated_source(prof, names, texts, settings.events, settings.percentages,
      settings.context)
  end

  local out, did_annotate = {}, false
  for i, f in ipairs(found) do
    out[#out + 1] = format.rule
    out[#out + 1] = "-- " .. (user[f.file] and "User" or "Auto") .. "-annotated source: " .. f.label
    out[#out + 1] = format.rule
    if not rendered[i] then
      out[#out + 1] = "  No information has been collected for " .. f.file
      out[#out + 1] = ""
    else
      did_annotate = true
      out[#out + 1] = rendered[i]
    end
  end
  if #missing > 0 then render.missing(out, missing, missing_user) end
  if did_annotate then
    local annotated = {}
    for i, ev in ipairs(settings.events) do annotated[ev] = sums[i] end
    render.annotated(out, annotated, settings)
  end
  if opts.out == nil then return table.concat(out, "\n") end
  return write_pieces(opts.out, out)
end

--- A function's machine code with its costs (callgrind.asm.text): the instructions objdump
--- disassembles from the profile's object, each with its costs, source line, calls and jumps.
function annotate.asm(prof, fn, opts)
  return require("callgrind.asm").text(prof, fn, opts)
end

return annotate
