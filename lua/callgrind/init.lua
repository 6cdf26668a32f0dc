-- callgrind: read Callgrind and Cachegrind profiles.
--
--   local callgrind = require "callgrind"
--   local prof, err = callgrind.load("callgrind.out.1234")
--
-- The C core (callgrind.core) holds the model; this module is the entry point that user
-- scripts require, and the home of the helpers built on the core's public API.
local core = require "callgrind.core"

local callgrind = {
  _VERSION = core._VERSION,
}

--- Loads a profile from a path, or several into one model from a list of paths.
-- Returns the profile, or nil, "FILE:LINE: message", kind.
-- opts.strict (default true): false skips malformed lines with a warning.
-- opts.progress(done_bytes, total_bytes): called a bounded number of times; return false to stop.
function callgrind.load(path, opts)
  return core.load(path, opts)
end

--- Parses a profile held in a string; `name` is used in messages.
function callgrind.parse(text, name, opts)
  return core.parse(text, name, opts)
end

return callgrind
