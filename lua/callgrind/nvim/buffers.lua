-- callgrind.nvim.buffers: the loaded profile's costs drawn into every buffer whose file it
-- names, now and — through autocommands — whenever a buffer is read, entered or renamed.
local annotate = require "callgrind.annotate"
local marks = require "callgrind.nvim.marks"
local state = require "callgrind.nvim.state"

local api = vim.api

local buffers = {}

local GROUP = "callgrind"

--- The per-line sums of one event in one of the profile's files, computed when a buffer of
--- that file is first drawn with that event and kept with the profile:
--- { self = { [line] = cost }, calls = { [line] = inclusive cost } }. The core reads only the
--- records of the functions with code in the file (annotate.line_totals with a file).
function buffers.costs_of(event, name)
  local current = state.current
  local by_file = current.costs[event]
  if not by_file then
    by_file = {}
    current.costs[event] = by_file
  end
  local costs = by_file[name]
  if not costs then
    local self, calls = annotate.line_totals(current.prof, event, name)
    costs = { self = self[name] or {}, calls = calls[name] or {} }
    by_file[name] = costs
  end
  return costs
end

--- Every file name the profile gives a line cost or a call site (prof:source_files).
function buffers.file_names()
  return state.current.prof:source_files()
end

--- The profile's names for a buffer's file ({} for special buffers and unnamed ones).
function buffers.names_of(buf)
  if vim.bo[buf].buftype ~= "" then return {} end
  return state.current.resolver:names_for(api.nvim_buf_get_name(buf))
end

-- The lines of the profile files named `names`, summed for one event:
-- { [line] = { self =, inclusive =, calls = } }.
local function summed_lines(names, event)
  local lines = {}
  local function line_of(n)
    local line = lines[n]
    if not line then
      line = { self = 0, inclusive = 0, calls = 0 }
      lines[n] = line
    end
    return line
  end
  for _, name in ipairs(names) do
    local costs = buffers.costs_of(event, name)
    for n, cost in pairs(costs.self) do
      local line = line_of(n)
      line.self = line.self + cost
    end
    for n, inclusive in pairs(costs.calls) do
      local line = line_of(n)
      line.inclusive = line.inclusive + inclusive
      line.calls = line.calls + 1
    end
  end
  return lines
end

local function view()
  local current, options = state.current, state.options
  return {
    event = current.event,
    format = state.format,
    total = current.prof:total(current.event),
    hot = options.hot,
    heat = options.heat,
    sign_texts = options.sign_texts,
    display = options.display,
    priority = options.priority,
  }
end

--- Draws a buffer again: clears it, then draws the costs of the profile's files it holds.
--- Returns true when the profile names the buffer's file.
function buffers.draw(buf)
  marks.clear(buf)
  local current = state.current
  if not current or not api.nvim_buf_is_loaded(buf) then return false end
  current.drawn[buf] = state.revision
  local names = buffers.names_of(buf)
  current.annotated[buf] = #names > 0 or nil
  if #names == 0 then return false end
  marks.draw(buf, summed_lines(names, current.event), view())
  return true
end

--- Draws every loaded buffer again.
function buffers.draw_all()
  state.revision = state.revision + 1
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      buffers.draw(buf)
    end
  end
end

--- Removes the plugin's marks (costs and signs) from every buffer.
function buffers.clear_all()
  for _, buf in ipairs(api.nvim_list_bufs()) do
    marks.clear(buf)
  end
end

local function draw_when_stale(args)
  local current = state.current
  if current and current.drawn[args.buf] ~= state.revision then
    buffers.draw(args.buf)
  end
end

local function forget(args)
  local current = state.current
  if current then current.drawn[args.buf], current.annotated[args.buf] = nil, nil end
end

--- Creates the autocommands (group "callgrind") that draw buffers as they come.
function buffers.watch_buffers()
  local group = api.nvim_create_augroup(GROUP, { clear = true })
  local function on(events, callback)
    api.nvim_create_autocmd(events, { group = group, callback = callback })
  end
  -- text read again, or another name: drawn whatever was there
  on({ "BufReadPost", "BufFilePost" }, function(args)
    buffers.draw(args.buf)
  end)
  on({ "BufWinEnter", "BufEnter" }, draw_when_stale)
  on("BufWipeout", forget)
  -- relative names may now name other files
  on("DirChanged", buffers.draw_all)
  on("ColorScheme", marks.define)
end

--- Deletes those autocommands.
function buffers.unwatch_buffers()
  pcall(api.nvim_del_augroup_by_name, GROUP)
end

return buffers
