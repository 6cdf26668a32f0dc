-- callgrind.nvim.loading: profiles read in the background (callgrind.load_async), so that the
-- editor never freezes on a big file. A timer polls the load's handle from the main loop, shows
-- the progress of big files, and hands the profile over when the load ends. One load at a time:
-- a new one replaces the one running.
local state = require "callgrind.nvim.state"

local uv = vim.uv or vim.loop
local api = vim.api

local loading = {}

-- Milliseconds between polls: short enough that a finished load shows at once, long enough
-- that polling costs nothing.
local POLL_MS = 20

local function percent(job)
  return job.total > 0 and math.floor(100 * job.done / job.total) or 0
end

local function stop(job)
  if job.timer then
    job.timer:stop()
    job.timer:close()
    job.timer = nil
  end
  if state.loading == job then state.loading = nil end
  if job.shown then
    api.nvim_echo({ { "" } }, false, {})
  end
end

local function finish(job, prof, err)
  stop(job)
  return job.on_done(prof, err)
end

-- Big files echo "callgrind: loading NAME 45%" as they go.
local function show_progress(job, done, total)
  job.done, job.total = done, total
  if not job.big or percent(job) == job.shown then return end
  job.shown = percent(job)
  api.nvim_echo({ { loading.status() } }, false, {})
  vim.cmd("redraw")
end

local function poll(job)
  if state.loading ~= job then return end
  local prof, done, total = job.handle:poll()
  if prof == "loading" then return show_progress(job, done, total) end
  return finish(job, prof, done)
end

--- Starts loading `path` with the module `callgrind`, in place of a load already running.
--- `on_done(prof)` or `on_done(nil, message)` runs on the main loop when the load ends.
--- Returns true, or nil, message when the load cannot start.
function loading.start(callgrind, path, on_done)
  loading.cancel()
  local handle, err = callgrind.load_async(path)
  if not handle then return nil, err end
  local stat = uv.fs_stat(path)
  local job = {
    handle = handle,
    path = path,
    name = vim.fn.fnamemodify(path, ":t"),
    on_done = on_done,
    big = stat ~= nil and stat.size >= state.options.progress_size,
    done = 0,
    total = stat and stat.size or 0,
  }
  state.loading = job
  job.timer = uv.new_timer()
  job.timer:start(POLL_MS, POLL_MS, vim.schedule_wrap(function()
    poll(job)
  end))
  return true
end

--- Blocks until the running load ends and hands it over; returns what on_done returns, or
--- nothing when no load runs.
function loading.wait()
  local job = state.loading
  if job then return finish(job, job.handle:wait()) end
end

--- Stops the running load and frees what it built. Returns its path, or nil when none runs.
function loading.cancel()
  local job = state.loading
  if not job then return nil end
  job.handle:cancel()
  stop(job)
  return job.path
end

--- "callgrind: loading NAME 45%" while a load runs, else "": for a statusline.
function loading.status()
  local job = state.loading
  if not job then return "" end
  return ("callgrind: loading %s %d%%"):format(job.name, percent(job))
end

return loading
