-- callgrind.nvim: profile costs shown next to the source code in Neovim.
--
--   require("callgrind.nvim").setup { display = "both", source_dirs = { "~/src/project" } }
--   require("callgrind.nvim").load("callgrind.out.1234")
--
-- One profile at a time. Every buffer whose file the profile names gets the self cost of each
-- line and the inclusive cost of the calls made there (callgrind.nvim.buffers); the profile
-- file is watched and read again when it changes; quickfix lists give the hottest functions
-- and the callers and callees of the function under the cursor. The user commands
-- (plugin/callgrind.lua) call the functions below.
--
-- Mistakes in calling these functions raise errors; what can go wrong at run time (a file
-- that does not load, an event the profile lacks, no profile loaded) is notified and
-- returned as nil, message.
local buffers = require "callgrind.nvim.buffers"
local config = require "callgrind.nvim.config"
local format = require "callgrind.format"
local functions = require "callgrind.nvim.functions"
local lists = require "callgrind.nvim.lists"
local loading = require "callgrind.nvim.loading"
local marks = require "callgrind.nvim.marks"
local resolve = require "callgrind.nvim.resolve"
local state = require "callgrind.nvim.state"
local watcher = require "callgrind.nvim.watcher"

local api = vim.api

local nvim = {}

local function notify(message, level)
  vim.notify("callgrind: " .. message, level or vim.log.levels.INFO)
end

local function no_profile()
  local message = "no profile loaded (:CallgrindLoad FILE)"
  notify(message, vim.log.levels.WARN)
  return nil, message
end

---------------------------------------------------------------------------
-- Loading
---------------------------------------------------------------------------

-- The event to show in a freshly loaded profile: the one shown before if it has it, then
-- the configured one, then its first.
local function choose_event(prof, previous)
  local known = {}
  for _, ev in ipairs(prof:events(true)) do
    known[ev] = true
  end
  if previous and known[previous] then return previous end
  local configured = state.options.event
  if configured and known[configured] then return configured end
  return prof:events()[1]
end

local function start_watching()
  local current = state.current
  watcher.stop(current.watcher)
  current.watcher = nil
  if state.options.watch then
    local path = current.path
    current.watcher = watcher.start(path, state.options.poll_interval, function()
      if state.current and state.current.path == path then
        nvim.load(path)
      end
    end)
  end
end

-- Makes `prof` the loaded profile, in place of the previous one (closed).
local function replace_profile(prof, path, event)
  local previous = state.current
  local current = { prof = prof, path = path, event = event, costs = {}, drawn = {}, annotated = {} }
  state.current = current
  current.resolver = resolve.new(buffers.file_names(), path, state.options.source_dirs)
  if previous then
    if previous.path == path then
      current.watcher = previous.watcher
    else
      watcher.stop(previous.watcher)
    end
    previous.prof:close()
  end
  state.generation = state.generation + 1
end

-- Makes a finished load the shown profile; returns true, or nil, message (notified).
local function loaded(path, prof, err)
  if not prof then
    notify(err, vim.log.levels.ERROR)
    state.last_load = { nil, err }
    return nil, err
  end
  local event = choose_event(prof, state.current and state.current.event)
  if not event then
    prof:close()
    local message = path .. ": the profile has no events"
    notify(message, vim.log.levels.ERROR)
    state.last_load = { nil, message }
    return nil, message
  end

  local again = state.current ~= nil and state.current.path == path
  replace_profile(prof, path, event)
  marks.define()
  buffers.watch_buffers()
  if not state.current.watcher then
    start_watching()
  end
  buffers.draw_all()
  notify(("%s %s: %s %s"):format(again and "reloaded" or "loaded", vim.fn.fnamemodify(path, ":~:."), event,
    format.thousands(format.integer(prof:total(event)))))
  state.last_load = { true }
  return true
end

--- Starts loading a profile (default: the loaded one, again) in the background and returns
--- true; the editor goes on meanwhile. When the load ends every buffer is drawn with it; on
--- failure the error is notified and the previous profile stays. A load that cannot start
--- returns nil, message. nvim.wait() blocks until the load ends.
function nvim.load(path)
  if path == nil then
    if not state.current then return no_profile() end
    path = state.current.path
  end
  if type(path) ~= "string" or path == "" then
    error("callgrind: load expects a file name, got " .. tostring(path), 2)
  end
  path = vim.fn.fnamemodify(path, ":p")
  local ok, callgrind = pcall(require, "callgrind")
  if not ok then
    local message = "cannot load the module (run `make nvim` in the plugin's directory): " .. callgrind
    notify(message, vim.log.levels.ERROR)
    return nil, message
  end
  local started, err = loading.start(callgrind, path, function(prof, message)
    return loaded(path, prof, message)
  end)
  if not started then
    notify(err, vim.log.levels.ERROR)
    return nil, err
  end
  return true
end

--- Blocks until the running load (if any) ends; returns how the last load ended: true, or
--- nil, message.
function nvim.wait()
  loading.wait()
  local last = state.last_load
  if not last then return nil, "no profile was loaded" end
  return last[1], last[2]
end

--- Stops the running load; the profile shown before stays. Returns true, or nil, message
--- (notified) when no load runs.
function nvim.cancel()
  local path = loading.cancel()
  if not path then
    local message = "no load is running"
    notify(message, vim.log.levels.WARN)
    return nil, message
  end
  notify("cancelled the load of " .. vim.fn.fnamemodify(path, ":~:."))
  return true
end

--- "callgrind: loading NAME 45%" while a load runs, else "": for a statusline.
function nvim.status()
  return loading.status()
end

--- Removes every mark and sign, the autocommands and the watcher, and closes the profile.
function nvim.clear()
  loading.cancel()
  buffers.clear_all()
  buffers.unwatch_buffers()
  local current = state.current
  if current then
    watcher.stop(current.watcher)
    current.prof:close()
    state.current = nil
  end
  state.revision = state.revision + 1
end

--- Draws the costs into a buffer (default: the current one), replacing what was there.
--- Returns true when the profile names the buffer's file.
function nvim.render(buf)
  if buf == nil or buf == 0 then
    buf = api.nvim_get_current_buf()
  elseif type(buf) ~= "number" or not api.nvim_buf_is_valid(buf) then
    error("callgrind: render expects a buffer number, got " .. tostring(buf), 2)
  end
  return buffers.draw(buf)
end

---------------------------------------------------------------------------
-- What is shown
---------------------------------------------------------------------------

--- Shows another event (a raw or derived event of the profile). An event the profile does
--- not have is notified and gives nil, message.
function nvim.set_event(event)
  if type(event) ~= "string" then
    error("callgrind: set_event expects an event name, got " .. type(event), 2)
  end
  local current = state.current
  if not current then return no_profile() end
  if not current.prof:has_event(event) then
    local message = ("unknown event '%s' (the profile has %s)"):format(event,
      table.concat(current.prof:events(true), ", "))
    notify(message, vim.log.levels.ERROR)
    return nil, message
  end
  current.event = current.prof:event_info(event).name
  buffers.draw_all()
  return true
end

--- Shows numbers as "absolute" counts or as a "percent" of the event's total.
function nvim.set_format(name)
  if not config.is_format(name) then
    error("callgrind: set_format expects \"absolute\" or \"percent\", got " .. tostring(name), 2)
  end
  state.format = name
  if state.current then
    buffers.draw_all()
  end
  return true
end

--- The loaded profile's events, derived ones included ({} without a profile).
function nvim.events()
  return state.current and state.current.prof:events(true) or {}
end

---------------------------------------------------------------------------
-- Quickfix lists
---------------------------------------------------------------------------

local function list_context()
  local current = state.current
  return {
    prof = current.prof,
    event = current.event,
    format = state.format,
    total = current.prof:total(current.event),
    resolver = current.resolver,
  }
end

local function set_quickfix(title, items)
  vim.fn.setqflist({}, " ", { title = title, items = items })
  if state.options.open_quickfix and #items > 0 then
    vim.cmd("botright copen")
  end
  return items
end

--- Fills the quickfix list with the `n` (default: option `top`) functions of highest self
--- cost. Returns the items.
function nvim.top(n)
  if n ~= nil and (type(n) ~= "number" or n < 1 or n % 1 ~= 0) then
    error("callgrind: top expects a count >= 1, got " .. tostring(n), 2)
  end
  if not state.current then return no_profile() end
  return set_quickfix(lists.top(list_context(), n or state.options.top))
end

-- The profiled function under the cursor of the current window, or nil, message.
local function function_under_cursor()
  local current = state.current
  local buf = api.nvim_get_current_buf()
  local line = api.nvim_win_get_cursor(0)[1]
  local names = buffers.names_of(buf)
  if #names > 0 then
    current.spans = current.spans or functions.spans(current.prof)
    local fn = functions.at(current.spans, names, line, current.event)
    if fn then return fn end
  end
  local where = vim.fn.fnamemodify(api.nvim_buf_get_name(buf), ":t")
  local message
  if #names == 0 then
    message = "the profile has no costs for this buffer" .. (where ~= "" and " (" .. where .. ")" or "")
  else
    message = ("no profiled function at line %d of %s"):format(line, where)
  end
  notify(message, vim.log.levels.WARN)
  return nil, message
end

local function call_list(make)
  if not state.current then return no_profile() end
  local fn, message = function_under_cursor()
  if not fn then return nil, message end
  local title, items = make(list_context(), fn)
  if #items == 0 then
    notify(title:gsub("^callgrind: ", "") .. ": none")
  end
  return set_quickfix(title, items)
end

--- Fills the quickfix list with the callers of the function under the cursor, at the call
--- sites. Returns the items.
function nvim.callers()
  return call_list(lists.callers)
end

--- Fills the quickfix list with the callees of the function under the cursor, at their
--- first lines. Returns the items.
function nvim.callees()
  return call_list(lists.callees)
end

---------------------------------------------------------------------------
-- Setup and state
---------------------------------------------------------------------------

--- Sets options (see :help callgrind-options) and draws again with them.
function nvim.setup(opts)
  local previous = state.options
  state.options = config.merge(previous, opts)
  if opts and opts.format then state.format = state.options.format end
  marks.define()
  local current = state.current
  if current then
    current.resolver.source_dirs = state.options.source_dirs
    if state.options.watch ~= previous.watch or state.options.poll_interval ~= previous.poll_interval then
      start_watching()
    end
    buffers.draw_all()
  end
  return nvim
end

--- A copy of the plugin's state: loaded, path, event, format, display, generation (successful
--- loads so far), buffers (those the profile has costs for) and loading (the path being read
--- in the background, or nil).
function nvim.state()
  local current, annotated = state.current, {}
  if current then
    for buf in pairs(current.annotated) do
      if api.nvim_buf_is_valid(buf) then
        annotated[#annotated + 1] = buf
      end
    end
    table.sort(annotated)
  end
  return {
    loaded = current ~= nil,
    path = current and current.path,
    event = current and current.event,
    format = state.format,
    display = state.options.display,
    generation = state.generation,
    buffers = annotated,
    loading = state.loading and state.loading.path,
  }
end

return nvim
