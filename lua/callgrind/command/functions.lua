-- callgrind.command.functions: one row per function with every event, self and inclusive,
-- its call count, file and object, as tab- or comma-separated values or JSON, for spreadsheets
-- and scripts.
local options = require "callgrind.command.options"
local core = require "callgrind.core"
local json = require "callgrind.json"

local functions = {
  summary = "one row per function with every event: --format=tsv|csv|json",
  description = [[
Writes every function of the profile with its self and inclusive cost of every event, how
often it was called, its file and its object: tab-separated values (the default), CSV (RFC
4180) or JSON. Numbers are exact decimal integers. Rows come by decreasing self cost of the
first event, then by name. Several FILEs are summed into one profile.]],
  epilog = [[
Columns: name, file, object, called, then for each event EV "EV self" and "EV inclusive".
JSON: {"events": [...], "functions": [{"name", "file", "object", "called",
"self": {EV: n}, "inclusive": {EV: n}}, ...]}.]],
}

function functions.define(cmd)
  cmd:option("--format", "tsv, csv or json"):argname("FORMAT")
    :convert(options.one_of("--format", { "tsv", "csv", "json" })):default("tsv")
  cmd:option("--events", "the events to write [every event of the profile, derived ones left out]")
    :argname("A,B,C")
  options.strict(cmd)
  options.profiles(cmd)
end

-- The functions by decreasing self cost of `event`, then name, file and object.
-- By decreasing self cost of `event`, then by name, file and object (ranked in C).
local function sorted_functions(prof, event)
  return core.rank(prof, event, false)
end

---------------------------------------------------------------------------
-- TSV and CSV
---------------------------------------------------------------------------

-- A field of tab-separated values: tabs, newlines and backslashes escaped.
local TSV_ESCAPES = { ["\\"] = "\\\\", ["\t"] = "\\t", ["\n"] = "\\n", ["\r"] = "\\r" }

local function tsv_field(s)
  if not s:find("[\\\t\n\r]") then return s end
  return (s:gsub("[\\\t\n\r]", TSV_ESCAPES))
end

-- A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
local function csv_field(s)
  if not s:find('[,"\r\n]') then return s end
  return '"' .. s:gsub('"', '""') .. '"'
end

local function write_table(out, prof, events, list, separator, field, form)
  local header = { "name", "file", "object", "called" }
  for _, ev in ipairs(events) do
    header[#header + 1] = ev .. " self"
    header[#header + 1] = ev .. " inclusive"
  end
  local lines = {}
  for i, h in ipairs(header) do header[i] = field(h) end
  lines[1] = table.concat(header, separator)
  -- every row made in C: name, file and object as fields of the format, called, then self and
  -- inclusive of each event (the header's fields, event names, are escaped here alike)
  local rows = core.cost_text(prof, list, events, separator, form)
  for i, row in ipairs(rows) do lines[i + 1] = row end
  out:write(table.concat(lines, "\n"), "\n")
end

---------------------------------------------------------------------------
-- JSON
---------------------------------------------------------------------------

local function costs_object(fn, kind, events)
  local members = {}
  for i, ev in ipairs(events) do members[i] = json.string(ev) .. ": " .. fn:exact(kind, ev) end
  return "{" .. table.concat(members, ", ") .. "}"
end

local function write_json(out, events, list)
  local names = {}
  for i, ev in ipairs(events) do names[i] = json.string(ev) end
  out:write('{"events": [', table.concat(names, ", "), '],\n "functions": [')
  for i, fn in ipairs(list) do
    out:write(i == 1 and "\n  " or ",\n  ", "{",
      '"name": ', json.string(fn.name), ', "file": ', json.string(fn.file),
      ', "object": ', json.string(fn.object), ', "called": ', fn:exact("called"),
      ', "self": ', costs_object(fn, "self", events), ', "inclusive": ', costs_object(fn, "inclusive", events), "}")
  end
  out:write(#list > 0 and "\n ]}\n" or "]}\n")
end

function functions.run(args, ctx)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local events = ctx.cli:events(prof, args.events) or prof:events()
  local list = sorted_functions(prof, events[1])
  if args.format == "json" then
    write_json(ctx.out, events, list)
  elseif args.format == "csv" then
    write_table(ctx.out, prof, events, list, ",", csv_field, "csv")
  else
    write_table(ctx.out, prof, events, list, "\t", tsv_field, "tsv")
  end
end

return functions
