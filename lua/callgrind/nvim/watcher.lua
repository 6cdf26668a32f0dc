-- callgrind.nvim.watcher: calls back (on the main loop) when a file changes.
local uv = vim.uv or vim.loop

local watcher = {}

--- Polls `path` every `interval` milliseconds; `on_change()` runs through vim.schedule after a
--- change, once however many changes come before it runs. Returns a handle for stop().
function watcher.start(path, interval, on_change)
  local pending = false
  local poll = uv.new_fs_poll()
  poll:start(path, interval, function(err)
    -- a file being replaced is missing for a moment: its return is a change too
    if err or pending then return end
    pending = true
    vim.schedule(function()
      pending = false
      on_change()
    end)
  end)
  return poll
end

--- Stops a watcher started by start().
function watcher.stop(poll)
  if poll and not poll:is_closing() then
    poll:stop()
    poll:close()
  end
end

return watcher
