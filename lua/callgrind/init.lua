-- callgrind: read Callgrind and Cachegrind profiles.
--
--   local callgrind = require "callgrind"
--   local prof, err = callgrind.load("callgrind.out.1234")
--
-- The C core (callgrind.core) holds the model; this module is the entry point that user
-- scripts require, and the home of the helpers built on the core's public API.
local core = require "callgrind.core"
local query = require "callgrind.query"
local transform = require "callgrind.transform"
local writer = require "callgrind.writer"
local webgrind = require "callgrind.webgrind"

local callgrind = {
  _VERSION = core._VERSION,
}

-- Iteration helpers as profile methods: prof:top{...}, prof:by_file(ev), ...
local profile_methods = core.methods.profile
profile_methods.top = query.top
profile_methods.by_file = query.by_file
profile_methods.by_object = query.by_object
profile_methods.find_all = query.find_all
profile_methods.select = transform.select
profile_methods.write = writer.write
profile_methods.write_webgrind = webgrind.write

--- Loads a profile from a path, or several into one model from a list of paths.
--- Returns the profile, or nil, "FILE:LINE: message", kind.
--- opts.strict (default true): false skips malformed lines with a warning.
--- opts.progress(done_bytes, total_bytes): called a bounded number of times; return false to stop.
function callgrind.load(path, opts)
  return core.load(path, opts)
end

--- Starts loading in a native thread and returns a handle at once (or nil, message, kind).
--- handle:poll() returns "loading", done_bytes, total_bytes while the load runs, then what load
--- returns; handle:wait() blocks until the end; handle:cancel() stops it and frees what it built.
--- Same options as load, but for progress: poll the handle instead.
function callgrind.load_async(path, opts)
  return core.load_async(path, opts)
end

--- Parses a profile held in a string; `name` is used in messages.
function callgrind.parse(text, name, opts)
  return core.parse(text, name, opts)
end

--- The sum of several loaded profiles, as a new profile.
callgrind.merge = transform.merge

--- A profile whose costs are `new` minus `base`.
callgrind.diff = transform.diff

--- Reads a file in webgrind's preprocessed format (see callgrind.webgrind).
callgrind.load_webgrind = webgrind.load

-- Reports and pictures, loaded when first used.
local lazy = {
  report = "callgrind.report",
  query = "callgrind.query",
  format = "callgrind.format",
  progress = "callgrind.progress",
  annotate = "callgrind.annotate",
  asm = "callgrind.asm",
  writer = "callgrind.writer",
  transform = "callgrind.transform",
  webgrind = "callgrind.webgrind",
  flame = "callgrind.flame",
  names = "callgrind.names",
  dot = "callgrind.dot", -- callable: callgrind.dot(prof, opts) is callgrind.dot.graph(prof, opts)
  html = "callgrind.html",
  json = "callgrind.json",
  system = "callgrind.system",
}

setmetatable(callgrind, {
  __index = function(t, key)
    local name = lazy[key]
    if not name then return nil end
    local module = require(name)
    rawset(t, key, module)
    return module
  end,
})

return callgrind
