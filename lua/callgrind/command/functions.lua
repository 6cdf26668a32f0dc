-- callgrind.command.functions: one row per function with every event, self and inclusive,
-- its call count, file and object, as tab- or comma-separated values or JSON, for spreadsheets
-- and scripts.
local options = require "callgrind.command.options"
local core = require "callgrind.core"

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

function functions.run(args, ctx)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local events = ctx.cli:events(prof, args.events) or prof:events()
  -- ranked and written in C to the output, without an object per function
  ctx.cli:written(core.functions_text(prof, events, args.format, ctx.out))
end

return functions
