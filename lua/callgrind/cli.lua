-- callgrind.cli: what command-line programs built on the module share — one way to fail, loads
-- that are strict unless asked otherwise, events checked before any report runs.
--
--   local cli = require("callgrind.cli").new("top.lua")
--   cli:run(function()
--     local prof = cli:load(arg[1])
--     local ev = cli:event(prof, arg[2])
--     ...
--   end)
--
-- A program prints `NAME: message` on stderr and exits with status 2 for a bad file or option;
-- it never shows a Lua traceback or a path inside the module.
local callgrind = require "callgrind"
local progress = require "callgrind.progress"

local cli = {}
cli.__index = cli

--- A front end named `name` (the program name its messages start with).
function cli.new(name)
  if type(name) ~= "string" then error("cli.new: a program name expected", 2) end
  return setmetatable({ name = name }, cli)
end

--- Prints `NAME: message` on stderr and exits with `status` (default 2).
function cli:fail(message, status)
  io.stderr:write(self.name, ": ", message, "\n")
  os.exit(status or 2)
end

--- Ends the program as fail does when a report written to a file failed (`ok` nil: `err`
--- says why, "No space left on device" or the like); else returns.
function cli:written(ok, err)
  if not ok then self:fail("cannot write the report: " .. tostring(err)) end
end

--- Prints `NAME: warning: message` on stderr.
function cli:warn(message)
  io.stderr:write(self.name, ": warning: ", message, "\n")
end

-- An error raised inside the module carries the place it was raised at ("…/report.lua:31: ");
-- a user needs the message only.
local function without_location(message)
  if type(message) ~= "string" then return tostring(message) end
  return (message:gsub("^[^\n]-%.lua:%d+: ", ""))
end

--- Runs `main`; an error it raises ends the program with `NAME: message` and status 2.
function cli:run(main, ...)
  local args = { n = select("#", ...), ... }
  local ok, err = xpcall(function() return main((table.unpack or unpack)(args, 1, args.n)) end,
    function(e) return e end)
  if not ok then self:fail(without_location(err)) end
end

-- A bar on stderr for loads that take longer than this many seconds, on a terminal only.
local PROGRESS_DELAY = 1

--- Loads a profile (a path, "-" for standard input, or a list of paths summed into one) the
--- way a command-line program should: strict unless opts.strict is false, with a progress bar
--- on a terminal when the load takes more than a second, its warnings on stderr; a file that
--- cannot be read, is malformed or has no events ends the program.
function cli:load(paths, opts)
  opts = opts or {}
  if type(paths) == "table" and #paths == 1 then paths = paths[1] end
  local load_opts = { strict = opts.strict ~= false, cycles = opts.cycles,
    progress = progress.bar { min_bytes = 0, delay = PROGRESS_DELAY } }
  local prof, err
  if paths == "-" then
    prof, err = callgrind.parse(io.stdin:read("*a"), "stdin", load_opts)
  else
    if type(paths) == "table" then
      for _, path in ipairs(paths) do
        if path == "-" then self:fail("- (standard input) can only be read alone, not among several profiles") end
      end
    end
    prof, err = callgrind.load(paths, load_opts)
  end
  if not prof then self:fail(err) end
  for _, warning in ipairs((prof:warnings())) do self:warn(warning) end
  if #prof:events() == 0 then
    local name = type(paths) == "table" and table.concat(paths, ", ") or paths
    self:fail(name .. ": no events: not a Callgrind or Cachegrind profile")
  end
  return prof
end

-- The events a profile knows, for messages: raw ones, then derived ones.
local function known_events(prof)
  return table.concat(prof:events(true), ", ")
end

--- The name of event `name` (or the first event when nil); ends the program when the profile
--- has no such event.
function cli:event(prof, name)
  if name == nil then return prof:events()[1] end
  if not prof:has_event(name) then
    self:fail(("unknown event '%s' (known: %s)"):format(name, known_events(prof)))
  end
  return name
end

--- A list of event names from "A,B,C" (nil stays nil); ends the program at an unknown one.
function cli:events(prof, list)
  if list == nil then return nil end
  local names = {}
  for name in list:gmatch("[^,%s]+") do names[#names + 1] = self:event(prof, name) end
  if #names == 0 then self:fail("an empty list of events") end
  return names
end

--- A long list cut for one line: the first `max` items, then "...".
function cli.shorten(items, max)
  if #items <= max then return table.concat(items, ", ") end
  local shown = {}
  for i = 1, max do shown[i] = items[i] end
  return table.concat(shown, ", ") .. ", ..."
end

return cli
