-- callgrind.command.select: a profile with some functions only — by name, or those above a
-- threshold — the others folded into one function so that no cost is lost.
local options = require "callgrind.command.options"
local write = require "callgrind.command.write"

local selection = {
  summary = "keep some functions of a profile, fold the others into one",
  description = [[
Writes a profile that keeps some functions only: those whose name matches a --keep pattern
(when there is one), less those matching a --drop pattern, less those below --threshold
percent of the total. The others are folded into one function, '(dropped functions)', so the
totals and the inclusive costs of the kept functions stay. Patterns are Lua patterns
('^std::', 'alloc$'); each option can be given several times.]],
}

local function lua_pattern(value)
  local ok, err = pcall(string.find, "", value)
  if not ok then
    return nil, ("'%s' is not a valid Lua pattern: %s"):format(value, tostring(err):gsub("^.-:%d+: ", ""))
  end
  return value
end

function selection.define(cmd)
  options.output(cmd, "the file to write (- for standard output)")
  cmd:option("--keep", "keep the functions whose name matches PATTERN"):argname("PATTERN"):count("*")
    :convert(lua_pattern)
  cmd:option("--drop", "drop the functions whose name matches PATTERN"):argname("PATTERN"):count("*")
    :convert(lua_pattern)
  cmd:option("--threshold", "drop the functions below PCT% of the total"):argname("PCT")
    :convert(options.percent("--threshold"))
  cmd:option("--by", "the cost --threshold looks at: inclusive or self"):argname("inclusive|self")
    :convert(options.one_of("--by", { "inclusive", "self" })):default("inclusive")
  options.event(cmd, "the event --threshold looks at [the first]")
  cmd:option("--dropped-name", "the name of the function the others are folded into"):argname("NAME")
  cmd:flag("--no-compress", "write names and positions in full")
  options.strict(cmd)
  options.profiles(cmd)
end

-- A predicate: the name matches one of `patterns` (nil when there are none).
local function any_name(patterns)
  if #patterns == 0 then return nil end
  return function(fn)
    for _, p in ipairs(patterns) do
      if fn.name:find(p) then return true end
    end
    return false
  end
end

function selection.run(args, ctx)
  if not args.output then ctx.cli:fail("select needs -o OUT (- for standard output)") end
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local event = args.threshold and ctx.cli:event(prof, args.event) or nil
  local selected = prof:select { keep = any_name(args.keep), drop = any_name(args.drop), threshold = args.threshold,
    by = args.by, event = event, dropped_name = args.dropped_name }
  local compress = not args.no_compress
  write.profile(ctx, selected, args.output, { compress_names = compress, compress_positions = compress })
end

return selection
