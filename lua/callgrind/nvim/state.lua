-- callgrind.nvim.state: what the plugin's parts share — the options, the number format, the
-- loaded profile and the counters that tell when buffers must be drawn again.
local config = require "callgrind.nvim.config"

local options = config.defaults()

local state = {
  options = options,
  format = options.format, -- "absolute" or "percent"
  generation = 0, -- successful loads so far
  revision = 0, -- changes of what buffers show; a buffer drawn at the current one is up to date
  -- The loaded profile, or nil: { prof =, path =, event =, costs = { [event] = { [file] = buffers.costs_of } },
  -- resolver =, spans =, watcher =, drawn = { [buf] = revision }, annotated = { [buf] = true } }
  current = nil,
  -- The load running in the background, or nil (callgrind.nvim.loading).
  loading = nil,
  -- How the last load ended: { true } or { nil, message }.
  last_load = nil,
}

return state
