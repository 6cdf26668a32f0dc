-- callgrind.flame: flame graphs of a profile: call stacks with costs, the folded text other
-- tools read, and an interactive SVG drawn here (no external program).
--
--   local flame = require "callgrind.flame"
--   io.open("prof.folded", "w"):write(flame.folded(prof, { event = "Ir" }))
--   io.open("prof.svg", "w"):write(flame.svg(prof, { event = "Ir" }))
--
-- A profile holds call edges, not stacks: the C core (core.flame) builds stacks from the call
-- graph on the assumption that every path reaching a function gets a share of its costs in
-- proportion to the cost the path brings in (see README, "Flame graphs"), with exact integer
-- costs. This module checks options, puts threads under roots of their own and draws.
local core = require "callgrind.core"
local query = require "callgrind.query"
local tree = require "callgrind.flame.tree"
local svg = require "callgrind.flame.svg"

local flame = {}

local DEFAULT_MIN_SHARE = 0.01 -- percent of the total: calls below fold into [other]
local DEFAULT_MAX_FRAMES = 2000000

local COMMON = { event = true, min_share = true, max_depth = true, max_frames = true, labels = true }
local KNOWN = {
  stacks = { exact = true, focus = true },
  folded = { file = true, object = true },
  svg = {
    width = true, frame_height = true, min_width = true, title = true, colors = true, strip = true,
    icicle = true, inline = true, id = true, mark = true, focus = true,
  },
}
KNOWN.diff_svg = { by = true, normalize = true }
for key in pairs(KNOWN.svg) do KNOWN.diff_svg[key] = true end

local function fail(what, message)
  error(("flame.%s: %s"):format(what, message), 0)
end

-- The profiles to draw: one, or a list of them (threads, each under a root of its own).
local function profile_list(what, prof)
  if query.is_profile(prof) then return { prof }, false end
  if type(prof) ~= "table" or #prof == 0 then fail(what, "a profile or a list of profiles expected") end
  for i, p in ipairs(prof) do
    if not query.is_profile(p) then fail(what, ("item %d of the list is not a profile"):format(i)) end
  end
  return prof, true
end

local function check_number(what, opts, key, low, high)
  local v = opts[key]
  if v == nil then return end
  if type(v) ~= "number" or v ~= v or v < low or (high and v > high) then
    fail(what, ("%s must be a number from %s%s"):format(key, tostring(low), high and (" to " .. tostring(high)) or ""))
  end
end

local function check_whole(what, opts, key)
  local v = opts[key]
  if v == nil then return end
  if type(v) ~= "number" or v < 1 or v ~= math.floor(v) then
    fail(what, ("%s must be a whole number from 1"):format(key))
  end
end

local function check_options(what, opts)
  if opts == nil then return {} end
  if type(opts) ~= "table" then fail(what, "options must be a table") end
  for key in pairs(opts) do
    if not (COMMON[key] or KNOWN[what][key]) then fail(what, ("unknown option '%s'"):format(tostring(key))) end
  end
  check_number(what, opts, "min_share", 0, 100)
  check_whole(what, opts, "max_depth")
  check_whole(what, opts, "max_frames")
  check_number(what, opts, "width", 100)
  check_number(what, opts, "frame_height", 4)
  check_number(what, opts, "min_width", 0)
  if opts.labels ~= nil and type(opts.labels) ~= "table" then fail(what, "labels must be a list of strings") end
  if opts.colors ~= nil and not svg.COLORS[opts.colors] then
    fail(what, ("colors must be 'object', 'file' or 'name', not '%s'"):format(tostring(opts.colors)))
  end
  if opts.by ~= nil and opts.by ~= "self" and opts.by ~= "total" then
    fail(what, ("by must be 'self' or 'total', not '%s'"):format(tostring(opts.by)))
  end
  for _, key in ipairs { "title", "id" } do
    if opts[key] ~= nil and type(opts[key]) ~= "string" then fail(what, key .. " must be a string") end
  end
  return opts
end

-- The event's name, the same in every profile of the list.
local function event_of(what, profiles, ev)
  local ok, name = pcall(query.event, profiles[1], ev)
  if not ok then fail(what, tostring(name):gsub("^.-: ", "")) end
  for _, p in ipairs(profiles) do
    if not p:has_event(name) then fail(what, ("a profile of the list has no event '%s'"):format(name)) end
  end
  return name
end

-- A root label for each profile of a list: opts.labels, else "thread N" from the sections.
local function labels_of(what, profiles, opts)
  local labels = {}
  for i, p in ipairs(profiles) do
    local label = opts.labels and opts.labels[i]
    if label ~= nil and type(label) ~= "string" then fail(what, "labels must be a list of strings") end
    if not label then
      local thread
      for _, section in ipairs(p:sections()) do
        local t = section.thread or 1
        if thread == nil then thread = t elseif thread ~= t then thread = false end
      end
      label = thread and ("thread " .. tostring(thread)) or ("profile " .. i)
    end
    labels[i] = label
  end
  return labels
end

-- Options for core.flame: min_share as a share of 1.
local function core_options(opts, event, min_share)
  return {
    event = event,
    min_share = (opts.min_share or min_share) / 100,
    max_depth = opts.max_depth,
    max_frames = opts.max_frames or DEFAULT_MAX_FRAMES,
  }
end

-- Function objects named by a focus or mark option: a function, a name (every function of
-- that name) or a list of them. Returns a set, or nil for nil.
local function function_set(what, key, option, profiles)
  if option == nil then return nil end
  local items = (type(option) == "table") and option or { option }
  local set, any = {}, false
  for _, item in ipairs(items) do
    if type(item) == "string" then
      local found = false
      for _, p in ipairs(profiles) do
        for _, fn in ipairs(p:find_all(item)) do
          set[fn] = true
          found = true
        end
      end
      if not found then fail(what, ("%s: no function named '%s'"):format(key, item)) end
    elseif type(item) == "userdata" then
      set[item] = true
    else
      fail(what, ("%s must be a function, a name or a list of them"):format(key))
    end
    any = true
  end
  if not any then fail(what, key .. " names no function") end
  return set
end

local function build(what, prof, opts, min_share, exact)
  local profiles, listed = profile_list(what, prof)
  local event = event_of(what, profiles, opts.event)
  local labels = listed and labels_of(what, profiles, opts) or nil
  local ok, result = pcall(tree.build, profiles, labels, core_options(opts, event, min_share), exact)
  if not ok then fail(what, tostring(result):gsub("^[^:]*:%d+: ", "")) end
  local focus = function_set(what, "focus", opts.focus, profiles)
  if focus then result = tree.focus(result, focus) end
  return result, profiles
end

--- The call stacks of one event: { event =, total =, frames = { {name =, fn =, kind =, depth =,
--- parent =, self =, total =}, ... } } in depth-first order. A frame's stack is the path from
--- its root to it, its `self` the cost of that stack. opts: event, min_share (percent, default
--- 0.01; 0 keeps every stack), max_depth, max_frames, labels, focus, exact.
function flame.stacks(prof, opts)
  opts = check_options("stacks", opts)
  return (build("stacks", prof, opts, DEFAULT_MIN_SHARE, opts.exact))
end

--- The folded text: "main;parse;read 12345" per stack. opts: event, min_share, max_depth,
--- max_frames, labels, file (frames "file:name"), object (frames "name [object]").
function flame.folded(prof, opts)
  opts = check_options("folded", opts)
  local profiles, listed = profile_list("folded", prof)
  local event = event_of("folded", profiles, opts.event)
  local labels = listed and labels_of("folded", profiles, opts) or {}
  local parts = {}
  for i, p in ipairs(profiles) do
    local o = core_options(opts, event, DEFAULT_MIN_SHARE)
    o.file, o.object, o.prefix = opts.file, opts.object, labels[i]
    local ok, text = pcall(core.flame_folded, p, o)
    if not ok then fail("folded", tostring(text):gsub("^[^:]*:%d+: ", "")) end
    parts[i] = text
  end
  return table.concat(parts)
end

-- The smallest share worth walking for a picture: frames narrower than `min_width` pixels
-- are not drawn, so what is smaller folds into [other] frames.
local function picture_share(opts)
  return svg.smallest_share(opts.width, opts.min_width)
end

--- An interactive SVG flame graph (a string). See README for the options.
function flame.svg(prof, opts)
  opts = check_options("svg", opts)
  local stacks, profiles = build("svg", prof, opts, picture_share(opts), true)
  local marks = function_set("svg", "mark", opts.mark, profiles)
  return svg.render(stacks, opts, { marks = marks })
end

--- A differential flame graph: frame widths from `new`, colours from the change of each frame
--- against `base` (red: slower, blue: faster). opts as flame.svg, and `by` ("self", the
--- default, or "total": what changes colour a frame) and `normalize` (scale base to new's total).
function flame.diff_svg(base, new, opts)
  opts = check_options("diff_svg", opts)
  local new_stacks, profiles = build("diff_svg", new, opts, picture_share(opts), true)
  local base_stacks = build("diff_svg", base, opts, picture_share(opts), true)
  local marks = function_set("diff_svg", "mark", opts.mark, profiles)
  local changes = tree.compare(base_stacks, new_stacks, opts.by or "self", opts.normalize)
  return svg.render(new_stacks, opts, { marks = marks, changes = changes })
end

--- Loads every thread of a profile (a path or a list of paths, as callgrind.load takes) as a
--- profile of its own, to draw them as separate roots. Returns the list and their labels.
function flame.threads(source, load_opts)
  local callgrind = require "callgrind"
  local all, err, kind = callgrind.load(source, load_opts)
  if not all then return nil, err, kind end
  local seen, threads = {}, {}
  for _, section in ipairs(all:sections()) do
    local t = section.thread or 1
    if not seen[t] then
      seen[t] = true
      threads[#threads + 1] = t
    end
  end
  all:close()
  table.sort(threads)
  local profiles, labels = {}, {}
  for i, t in ipairs(threads) do
    local o = {}
    for k, v in pairs(load_opts or {}) do o[k] = v end
    o.thread = t
    local p, message, what = callgrind.load(source, o)
    if not p then return nil, message, what end
    profiles[i], labels[i] = p, "thread " .. tostring(t)
  end
  return profiles, labels
end

return flame
