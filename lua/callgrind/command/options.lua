-- callgrind.command.options: the options several subcommands share, and the converters that
-- check option values, so that every subcommand spells and checks them alike.
--
--   local options = require "callgrind.command.options"
--   options.profiles(cmd)              -- FILE... (or options.profile(cmd) for one FILE)
--   options.event(cmd)                 -- -e, --event EV
--   cmd:option("--threshold"):convert(options.percent("--threshold"))
local options = {}

--- A converter for a percentage from 0 to 100; a trailing "%" is allowed, as
--- callgrind_annotate allows it.
function options.percent(name)
  return function(value)
    local n = tonumber((value:gsub("%%$", "")))
    if not n or n ~= n or n < 0 or n > 100 then
      return nil, ("%s expects a percentage from 0 to 100, not '%s'"):format(name, value)
    end
    return n
  end
end

--- A converter for a percentage of 0 or more (growth can exceed 100%).
function options.positive_percent(name)
  return function(value)
    local n = tonumber((value:gsub("%%$", "")))
    if not n or n ~= n or n < 0 or n == math.huge then
      return nil, ("%s expects a percentage, 0 or more, not '%s'"):format(name, value)
    end
    return n
  end
end

--- A converter for a whole number of at least `min` (default 0).
function options.count(name, min)
  min = min or 0
  return function(value)
    local n = tonumber(value)
    if not n or n ~= math.floor(n) or n < min or n == math.huge then
      return nil, ("%s expects a whole number of %d or more, not '%s'"):format(name, min, value)
    end
    return n
  end
end

--- A converter for yes|no into true|false.
function options.yes_no(name)
  local values = { yes = true, no = false }
  return function(value)
    local v = values[value]
    if v == nil then return nil, ("%s expects yes or no, not '%s'"):format(name, value) end
    return v
  end
end

--- A converter that accepts one of `choices` (a list of strings).
function options.one_of(name, choices)
  local known = {}
  for _, c in ipairs(choices) do known[c] = true end
  return function(value)
    if not known[value] then
      return nil, ("%s expects %s, not '%s'"):format(name, table.concat(choices, ", "), value)
    end
    return value
  end
end

--- The one profile a subcommand reads: FILE ("-" for standard input).
function options.profile(cmd, name)
  cmd:argument(name or "FILE", "a Callgrind or Cachegrind profile (gzip-compressed or not); - reads standard input")
end

--- Several profiles summed into one, as the threads and parts of a run are.
function options.profiles(cmd)
  cmd:argument("FILE", "profiles (gzip-compressed or not), summed into one; - reads standard input")
    :args("+")
end

--- -e, --event EV: the event a subcommand looks at (default the profile's first).
function options.event(cmd, what)
  cmd:option("-e --event", what or "the event to look at, raw or derived [the first of the profile]")
    :argname("EV")
end

--- --strict=yes|no: whether a malformed line stops the load.
function options.strict(cmd)
  cmd:option("--strict", "stop at the first malformed line; no: skip it with a warning")
    :argname("yes|no"):convert(options.yes_no("--strict")):default("yes")
end

--- -o, --output OUT: where a subcommand writes ("-" for standard output).
function options.output(cmd, what)
  cmd:option("-o --output", what):argname("OUT")
end

--- The load options of a subcommand's arguments.
function options.load_options(args)
  return { strict = args.strict }
end

return options
