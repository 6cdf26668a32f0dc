-- callgrind.command.html: the report page of a profile (callgrind.html), one HTML file that
-- opens from disk.
local html = require "callgrind.html"
local options = require "callgrind.command.options"
local write = require "callgrind.command.write"

local command = {
  summary = "a self-contained HTML report page: table, callers and callees, source, graphs",
  description = [[
Writes one HTML file that a browser opens from disk, with no network and no server: the
profile's summary; the table of functions with self and inclusive costs of every event, calls,
file and object, sorted by any column, filtered by name, file or object, cut at --threshold
with a switch to show all; a view per function with its callers and callees, its annotated
source (when the file can be read), the call graph around it (drawn by Graphviz's 'dot' when
installed) and its machine code (for profiles with instruction addresses, when objdump can
read the object); and the flame graph of the whole profile. Costs show as numbers or as
percentages. Several FILEs are summed into one profile.]],
}

-- An include directory, as annotate takes it.
local function directory(value)
  return (value:gsub("^=", ""):gsub("/+$", "")) .. "/"
end

function command.define(cmd)
  options.output(cmd, "the page to write: OUT.html (- for standard output)")
  cmd:option("--show", "events A,B,C in the table [all]"):argname("A,B,C")
  cmd:option("--threshold", "list the functions that make up PCT% of the first event's total; the page can show all")
    :argname("PCT"):convert(options.percent("--threshold")):default("99")
  cmd:option("-I --include", "also look for source files in DIR (repeatable)"):argname("DIR")
    :count("*"):convert(directory)
  cmd:option("--max-source", "at most N bytes of source text in the page"):argname("N")
    :convert(options.count("--max-source")):default("4000000")
  cmd:option("--graphs", "draw the call graph around the N hottest functions (0: none)"):argname("N")
    :convert(options.count("--graphs")):default("50")
  cmd:option("--asm", "machine code of the N hottest functions (0: none)"):argname("N")
    :convert(options.count("--asm")):default("20")
  cmd:flag("--no-flame", "leave the flame graph out")
  cmd:option("--title", "the page's title [the profile's name]"):argname("TEXT")
  options.strict(cmd)
  options.profiles(cmd)
end

function command.run(args, ctx)
  if not args.output then ctx.cli:fail("html needs -o OUT.html (- for standard output)") end
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local text = html.page(prof, {
    show = ctx.cli:events(prof, args.show),
    threshold = args.threshold,
    include = args.include,
    max_source_bytes = args.max_source,
    graphs = args.graphs,
    asm = args.asm,
    flame = (not args.no_flame) and {} or false,
    title = args.title,
  })
  write.text(ctx, text, args.output)
end

return command
