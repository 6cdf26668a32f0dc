-- callgrind.nvim.commands: the user commands of plugin/callgrind.lua — their arguments
-- checked, mistakes notified, the work left to callgrind.nvim.
local commands = {}

local FORMATS = { "absolute", "percent" }

local function plugin()
  return require "callgrind.nvim"
end

local function complain(message)
  vim.notify("callgrind: " .. message, vim.log.levels.ERROR)
end

local function starting_with(prefix, words)
  local found = {}
  for _, word in ipairs(words) do
    if word:sub(1, #prefix) == prefix then
      found[#found + 1] = word
    end
  end
  return found
end

--- :CallgrindLoad [file]
function commands.load(args)
  if args.args == "" then
    plugin().load()
  else
    plugin().load(vim.fn.expand(args.args))
  end
end

--- :CallgrindEvent {event}
function commands.event(args)
  plugin().set_event(args.args)
end

--- :CallgrindFormat [absolute|percent]; without an argument, the other one.
function commands.format(args)
  local name = args.args
  if name == "" then
    name = plugin().state().format == "percent" and "absolute" or "percent"
  elseif name ~= "absolute" and name ~= "percent" then
    complain("the format is absolute or percent, not '" .. name .. "'")
    return
  end
  plugin().set_format(name)
end

--- :CallgrindTop [count]
function commands.top(args)
  local count
  if args.args ~= "" then
    count = tonumber(args.args)
    if not count or count < 1 or count % 1 ~= 0 then
      complain("the count is a whole number >= 1, not '" .. args.args .. "'")
      return
    end
  end
  plugin().top(count)
end

function commands.callers()
  plugin().callers()
end

function commands.callees()
  plugin().callees()
end

function commands.cancel()
  plugin().cancel()
end

function commands.clear()
  plugin().clear()
end

--- Completion of :CallgrindEvent: the loaded profile's events, derived ones included.
function commands.complete_event(prefix)
  if not package.loaded["callgrind.nvim"] then return {} end
  return starting_with(prefix, plugin().events())
end

--- Completion of :CallgrindFormat.
function commands.complete_format(prefix)
  return starting_with(prefix, FORMATS)
end

return commands
