-- callgrind.command.annotate: callgrind_annotate's report — the functions by cost, with their
-- callers and callees on request, then the annotated source files — with its options.
local report = require "callgrind.report"
local options = require "callgrind.command.options"

local annotate = {
  summary = "callgrind_annotate's report: functions by cost, callers and callees, annotated source",
}

annotate.description = [[
Prints what callgrind_annotate prints, with the same options: the profile's description and
totals, one line per function by decreasing cost (with --tree, each with its callers '<' and
callees '>'), and with --auto=yes the source files of the functions that make up the
threshold, every line with its cost and the calls it makes. Several FILEs are summed into
one profile, as the threads and parts of a run are.]]

--- Every place where the output differs from callgrind_annotate 3.19's on purpose; the man page
--- lists the same.
annotate.differences = {
  "Recursion: the inclusive cost of a function calling itself, or in a cycle of mutual "
    .. "recursion, counts each nested call once (as KCachegrind does); callgrind_annotate adds "
    .. "the nested calls again and can show more than the program's total.",
  "Functions of the same file and name in two objects (a static inline function of a header "
    .. "compiled into a program and a library) are two lines, each with its object; "
    .. "callgrind_annotate sums them into one.",
  "The cost after a 'calls=0' line (callgrind writes them in dumps after the first, for calls "
    .. "still running) is the cost of that call; callgrind_annotate adds it to the caller's "
    .. "self cost and leaves it out of the callee's inclusive cost.",
  "PROGRAM TOTALS and the percentages are the sums of the costs read; callgrind_annotate takes "
    .. "the file's 'summary:' or 'totals:' line, which callgrind's cache simulation can make "
    .. "larger than the costs it writes.",
  "Files with several parts or threads (--separate-threads=yes --combine-dumps=yes) are read "
    .. "whole, and the header names the number of sections; callgrind_annotate reads the first "
    .. "header only, warns about the others and takes the totals of the last part.",
  "A zero count is printed as 0 in the function list and as '.' in annotated source, whether "
    .. "the profile wrote it or left it out; callgrind_annotate prints '.' for a count the file "
    .. "left out and 0 for one it wrote.",
  "Lines of equal cost (callers, callees, calls on a line) and the annotated files come in "
    .. "name order; callgrind_annotate lists them in an order that changes from run to run.",
  "Rows of code inlined from a header name the object of the function it was inlined into.",
  "All FILE arguments are profiles; source files to annotate are named with --source (which "
    .. "callgrind_annotate takes as arguments after the profile). A FILE is required: "
    .. "callgrind_annotate looks for callgrind.out.* in the current directory when none is given.",
  "Per-event thresholds (--sort=EV:PCT) are not supported; --threshold applies to the first "
    .. "sort event.",
}

local function epilog()
  local items = {}
  for i, text in ipairs(annotate.differences) do items[i] = "- " .. text end
  return "Differences from callgrind_annotate 3.19:\n" .. table.concat(items, "\n")
end
annotate.epilog = epilog()

local function no_sort_thresholds(value)
  if value:find(":", 1, true) then
    return nil, "per-event thresholds (--sort=EV:PCT) are not supported: use --threshold"
  end
  return value
end

-- An include directory as callgrind_annotate keeps it: one trailing "/" (it spells the option
-- -I=DIR, and argparse hands "=DIR" to -I).
local function directory(value)
  return (value:gsub("^=", ""):gsub("/+$", "")) .. "/"
end

function annotate.define(cmd)
  cmd:option("--show", "only show figures for events A,B,C [all]"):argname("A,B,C")
  cmd:option("--sort", "sort columns by events A,B,C [the shown ones]"):argname("A,B,C")
    :convert(no_sort_thresholds)
  cmd:option("--threshold", "stop listing functions once they make up PCT% of the first sort event's total")
    :argname("PCT"):convert(options.percent("--threshold")):default("99")
  cmd:option("--auto", "annotate the source files of the listed functions"):argname("yes|no")
    :convert(options.yes_no("--auto")):default("yes")
  cmd:option("--context", "lines of context before and after annotated lines"):argname("N")
    :convert(options.count("--context")):default("8")
  cmd:option("-I --include", "also look for source files in DIR (repeatable)"):argname("DIR")
    :count("*"):convert(directory)
  cmd:option("--inclusive", "list functions by inclusive cost"):argname("yes|no")
    :convert(options.yes_no("--inclusive")):default("no")
  cmd:option("--tree", "print each function's callers, callees or both"):argname("none|caller|calling|both")
    :convert(options.one_of("--tree", { "none", "caller", "calling", "both" })):default("none")
  cmd:option("--show-percs", "show a percentage for each non-zero count"):argname("yes|no")
    :convert(options.yes_no("--show-percs")):default("yes")
  cmd:option("--source", "annotate source file SRC (repeatable)"):argname("SRC"):count("*")
  cmd:option("--inlined", "code inlined from a header: a line of its own (split) or in its function (merge)")
    :argname("split|merge"):convert(options.one_of("--inlined", { "split", "merge" })):default("split")
  options.strict(cmd)
  options.profiles(cmd)
end

function annotate.run(args, ctx)
  local cli = ctx.cli
  local prof = cli:load(args.FILE, options.load_options(args))
  local sources = #args.source > 0 and args.source or nil
  local opts = {
    show = cli:events(prof, args.show),
    sort = cli:events(prof, args.sort),
    threshold = args.threshold,
    inclusive = args.inclusive,
    percentages = args.show_percs,
    inlined = args.inlined,
    include = args.include,
    files = sources,
    auto = args.auto,
    context = args.context,
  }
  -- the reports write their text to the output as they make it, never whole in memory
  opts.out = ctx.out
  if args.tree ~= "none" then opts.tree = args.tree end
  cli:written((args.tree == "none" and report.flat or report.tree)(prof, opts))
  -- a blank line ends the listing and the annotations, as in callgrind_annotate
  cli:written(ctx.out:write("\n"))
  if not (args.auto or sources) then return end
  local before = ctx.out.bytes
  cli:written(report.annotate(prof, opts))
  if ctx.out.bytes > before then cli:written(ctx.out:write("\n")) end
end

return annotate
