-- callgrind.command.flame: flame graphs (callgrind.flame): an interactive SVG drawn here, a
-- differential one against a base run, or the folded text other tools read.
local flame = require "callgrind.flame"
local options = require "callgrind.command.options"
local write = require "callgrind.command.write"

local command = {
  summary = "a flame graph: OUT.svg (interactive, or --diff against a base run) or OUT.folded",
  description = [[
Draws the profile's call stacks as a flame graph: one bar per stack, as wide as what it costs,
callers below callees. An SVG (.svg) is interactive: hovering shows a frame's cost and share,
clicking zooms, Search highlights the frames a regular expression matches. The folded text
(.folded, and standard output without -o) is what flamegraph.pl, inferno and speedscope read.
A profile holds calls, not stacks: a function's costs are shared among the paths that reach it
in proportion to what each incoming call costs (see callgrind(1)). With --diff BASE the SVG
is a differential flame graph: widths from FILE, red where a frame costs more than in BASE,
blue where less. Several FILEs are summed into one profile.]],
}

function command.define(cmd)
  options.output(cmd, "the file to write: OUT.svg or OUT.folded [folded text on standard output]")
  cmd:option("-T --format", "svg or folded [from OUT's extension]"):argname("FORMAT")
    :convert(options.one_of("--format", { "svg", "folded" }))
  options.event(cmd, "the event [the first]")
  cmd:option("--diff", "a differential flame graph against the base run BASE (svg)"):argname("BASE")
  cmd:option("--by", "what colours a frame of a differential graph: its self cost or its total")
    :argname("self|total"):convert(options.one_of("--by", { "self", "total" })):default("self")
  cmd:flag("--normalize", "scale BASE to FILE's total before comparing")
  cmd:flag("--icicle", "roots at the top, callees below them")
  cmd:flag("--threads", "each thread of FILE under a root of its own")
  cmd:option("--min-share", "fold calls below PCT% of the total into [other] frames"):argname("PCT")
    :convert(options.percent("--min-share"))
  cmd:option("--max-depth", "at most N function frames per stack"):argname("N"):convert(options.count("--max-depth", 1))
  cmd:option("--focus", "only the stacks through FN (repeatable)"):argname("FN"):count("*")
  cmd:option("--mark", "outline the frames of FN and give its share (repeatable)"):argname("FN"):count("*")
  cmd:option("--colors", "colour frames by object, file or name"):argname("object|file|name")
    :convert(options.one_of("--colors", { "object", "file", "name" })):default("object")
  cmd:option("--width", "the SVG's width in pixels"):argname("PX"):convert(options.count("--width", 100))
  cmd:option("--title", "the SVG's heading"):argname("TEXT")
  cmd:flag("--no-strip", "whole C++ names in the frames")
  cmd:flag("--file", "folded frames as file:name")
  cmd:flag("--object", "folded frames as name [object]")
  options.strict(cmd)
  options.profiles(cmd)
end

-- "svg" or "folded", from --format or the output's extension.
local function output_format(ctx, args)
  if args.format then return args.format end
  if not args.output or args.output == "-" then return args.diff and "svg" or "folded" end
  local extension = args.output:match("%.([%w]+)$")
  extension = extension and extension:lower()
  if extension == "svg" or extension == "folded" then return extension end
  ctx.cli:fail(("cannot tell the format of '%s' from its name: use .svg or .folded, or --format"):format(args.output))
end

local function list_or_nil(list)
  return #list > 0 and list or nil
end

function command.run(args, ctx)
  local kind = output_format(ctx, args)
  if args.diff and kind ~= "svg" then ctx.cli:fail("--diff draws an SVG: write OUT.svg") end
  local load_opts = options.load_options(args)
  local prof
  if args.threads then
    if #args.FILE > 1 then ctx.cli:fail("--threads reads one FILE") end
    -- loaded whole first, for the command's messages on a bad file and its warnings
    ctx.cli:load(args.FILE, load_opts):close()
    local message
    prof, message = flame.threads(args.FILE[1], { strict = load_opts.strict })
    if not prof then ctx.cli:fail(message) end
  else
    prof = ctx.cli:load(args.FILE, load_opts)
  end
  local first = prof[1] or prof
  local event = ctx.cli:event(first, args.event)
  local opts = { event = event, min_share = args.min_share, max_depth = args.max_depth }
  local text
  if kind == "folded" then
    opts.file, opts.object = args.file or nil, args.object or nil
    text = flame.folded(prof, opts)
  else
    opts.icicle = args.icicle or nil
    opts.colors = args.colors
    opts.width = args.width
    opts.title = args.title
    opts.strip = not args.no_strip
    opts.focus = list_or_nil(args.focus)
    opts.mark = list_or_nil(args.mark)
    if args.diff then
      local base = ctx.cli:load(args.diff, load_opts)
      if not base:has_event(event) then ctx.cli:fail(("%s has no event '%s'"):format(args.diff, event)) end
      opts.by, opts.normalize = args.by, args.normalize or nil
      text = flame.diff_svg(base, prof, opts)
    else
      text = flame.svg(prof, opts)
    end
  end
  write.text(ctx, text, args.output or "-")
end

return command
