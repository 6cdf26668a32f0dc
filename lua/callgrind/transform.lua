-- callgrind.transform: new profiles from loaded ones — merges, differences and selections.
-- The work is done by the core (callgrind.core.combine and .select), which builds the result
-- exactly as if it had been read from a file: functions matched by (name, file, object),
-- events by name, and every cost, inclusive cost and cycle computed again.
local core = require "callgrind.core"
local query = require "callgrind.query"

local transform = {}

local function check_profile(value, what)
  if not query.is_profile(value) then
    error(what .. ": a profile expected", 3)
  end
end

-- The analysis options of a new profile: only `cycles` (nil: as the sources were analysed).
local function analysis_options(opts, what)
  if opts == nil then return nil end
  if type(opts) ~= "table" then error(what .. ": options must be a table", 3) end
  if opts.cycles ~= nil and type(opts.cycles) ~= "boolean" then error(what .. ": cycles must be a boolean", 3) end
  return { cycles = opts.cycles }
end

--- The sum of several profiles (threads of a run, several runs): a new profile.
--- opts.cycles: false for no cycle detection (default: as the profiles were loaded).
function transform.merge(profiles, opts)
  if type(profiles) ~= "table" or #profiles == 0 then error("merge: a list of profiles expected", 2) end
  for i, p in ipairs(profiles) do check_profile(p, "merge: item " .. i) end
  return core.combine(profiles, nil, analysis_options(opts, "merge"))
end

--- `new` minus `base`: every cost is the new one minus the base one (negative when the new run
--- spends less); functions of only one side are kept. Call counts are those of `new`.
function transform.diff(base, new, opts)
  check_profile(base, "diff: base")
  check_profile(new, "diff: new")
  return core.combine({ new, base }, { 1, -1 }, analysis_options(opts, "diff"))
end

--- A new profile with some functions only; the others are folded into one function named
--- opts.dropped_name (default "(dropped functions)"), so that no cost is lost: the totals stay
--- and so do the inclusive costs of the kept functions.
--- opts.keep: a filter (Lua patterns {name=, file=, object=}, or a predicate) of functions to
--- keep; opts.drop: a filter of functions to drop; opts.threshold: drop functions whose cost is
--- below that percentage of the total, by opts.event (default the first) and opts.by ("inclusive",
--- the default, or "self"); opts.cycles as for merge.
function transform.select(prof, opts)
  check_profile(prof, "select")
  opts = opts or {}
  if type(opts) ~= "table" then error("select: options must be a table", 2) end
  if opts.section or opts.part or opts.thread then
    error("select: sections are chosen when loading: callgrind.load(path, {section = n})", 2)
  end
  local keep = opts.keep and query.matcher(opts.keep)
  local drop = opts.drop and query.matcher(opts.drop)
  local limit, cost_of
  if opts.threshold then
    local ev = query.event(prof, opts.event)
    local by = opts.by or "inclusive"
    if by ~= "inclusive" and by ~= "self" then error("select: by must be 'inclusive' or 'self'", 2) end
    limit = prof:total(ev) * opts.threshold / 100
    cost_of = function(fn) return by == "self" and fn:self(ev) or fn:inclusive(ev) end
  end
  local mask = {}
  for fn in prof:functions() do
    local kept = true
    if keep and not keep(fn) then kept = false end
    if kept and drop and drop(fn) then kept = false end
    if kept and limit and math.abs(cost_of(fn)) < limit then kept = false end
    mask[fn.id] = kept
  end
  return core.select(prof, mask, opts.dropped_name, analysis_options(opts, "select"))
end

return transform
