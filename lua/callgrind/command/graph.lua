-- callgrind.command.graph: the call graph as Graphviz DOT text, or rendered by Graphviz's
-- `dot` as SVG, PNG or PDF.
local dot = require "callgrind.dot"
local format = require "callgrind.format"
local options = require "callgrind.command.options"
local system = require "callgrind.system"
local write = require "callgrind.command.write"

local graph = {
  summary = "the call graph: .dot, or .svg/.png/.pdf rendered by Graphviz",
  description = [[
Draws the call graph in the manner of gprof2dot: a box per function with its inclusive share,
(self share) and call count, coloured from cold (blue) to hot (red); an arrow per caller and
callee with the share and count of the calls; the members of a cycle of mutual recursion in a
frame. The output's extension (or --format) chooses what is written: DOT text (.dot, and
standard output without -o), or SVG, PNG or PDF rendered by Graphviz's 'dot', which must then
be installed.]],
}

local FORMATS = { dot = true, svg = true, png = true, pdf = true }

function graph.define(cmd)
  options.output(cmd, "the file to write: OUT.dot, OUT.svg, OUT.png or OUT.pdf [DOT text on standard output]")
  cmd:option("-T --format", "dot, svg, png or pdf [from OUT's extension]"):argname("FORMAT")
    :convert(options.one_of("--format", { "dot", "svg", "png", "pdf" }))
  options.event(cmd, "the event [the first]")
  cmd:option("-n --node-threshold", "leave out functions below PCT% of the total"):argname("PCT")
    :convert(options.percent("--node-threshold")):default("0.5")
  cmd:option("--edge-threshold", "leave out calls below PCT% of the total"):argname("PCT")
    :convert(options.percent("--edge-threshold")):default("0.1")
  cmd:option("--root", "only FN and what it calls (repeatable)"):argname("FN"):count("*")
  cmd:option("--leaf", "only FN and what calls it (repeatable)"):argname("FN"):count("*")
  cmd:flag("--strip", "strip C++ argument lists and template arguments from names")
  cmd:option("--wrap", "wrap names longer than about N characters"):argname("N"):convert(options.count("--wrap", 1))
  cmd:option("--colors", "color, gray or bw"):argname("SCHEME")
    :convert(options.one_of("--colors", { "color", "gray", "grey", "bw" })):default("color")
  cmd:flag("--no-self", "leave out the (self share) line")
  cmd:option("--title", "the caption [the profile, event and total; '' for none]"):argname("TEXT")
  options.strict(cmd)
  options.profiles(cmd)
end

-- What to write: "dot", "svg", "png" or "pdf", from --format or the output's extension.
local function output_format(ctx, args)
  if args.format then return args.format end
  if not args.output or args.output == "-" then return "dot" end
  local extension = args.output:match("%.([%w]+)$")
  extension = extension and extension:lower()
  if not FORMATS[extension] then
    ctx.cli:fail(("cannot tell the format of '%s' from its name: use .dot, .svg, .png or .pdf, or --format"):format(
      args.output))
  end
  return extension
end

-- Renders DOT text with Graphviz into `target` ("-": standard output) as `kind`.
local function render(ctx, text, kind, target)
  if not system.found("dot") then
    ctx.cli:fail(("Graphviz's 'dot' is needed to write %s (on Debian: apt-get install graphviz); "
      .. "without it, write DOT text (-o FILE.dot)"):format(target == "-" and kind or target))
  end
  local source = os.tmpname()
  write.text(ctx, text, source)
  io.stdout:flush()
  local command = ("dot -T%s %s %s"):format(kind, target == "-" and "" or ("-o " .. system.quote(target)),
    system.quote(source))
  local ok = system.execute(command)
  os.remove(source)
  if not ok then ctx.cli:fail(("dot could not write %s"):format(target == "-" and kind or target)) end
end

local function title_of(args, prof, event)
  if args.title then return args.title ~= "" and args.title or nil end
  local names = {}
  for i, path in ipairs(args.FILE) do names[i] = path == "-" and "stdin" or path:match("([^/]+)/*$") or path end
  return ("%s: %s %s"):format(table.concat(names, ", "), format.thousands(prof:total(event)), event)
end

function graph.run(args, ctx)
  local kind = output_format(ctx, args)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local event = ctx.cli:event(prof, args.event)
  local text = dot.graph(prof, {
    event = event, node_threshold = args.node_threshold, edge_threshold = args.edge_threshold,
    root = #args.root > 0 and args.root or nil, leaf = #args.leaf > 0 and args.leaf or nil,
    strip = args.strip, wrap = args.wrap, colors = args.colors, show_self = not args.no_self,
    title = title_of(args, prof, event),
  })
  local target = args.output or "-"
  if kind == "dot" then
    write.text(ctx, text, target)
  else
    render(ctx, text, kind, target)
  end
end

return graph
