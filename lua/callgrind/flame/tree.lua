-- callgrind.flame.tree: the frames of a flame graph as Lua tables. Stacks of one profile or of
-- several (each thread under a root frame of its own), the stacks through some functions only,
-- and the matching of two runs' frames for a differential graph.
local core = require "callgrind.core"

local tree = {}

-- The sum of two decimal strings of integers >= 0, exact whatever their size (Lua 5.1 and
-- LuaJIT hold integers beyond 2^53 only as text).
local function add_decimal(a, b)
  local out, carry = {}, 0
  local i, j = #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local d = carry + (i > 0 and a:byte(i) - 48 or 0) + (j > 0 and b:byte(j) - 48 or 0)
    out[#out + 1] = string.char(48 + d % 10)
    carry = d >= 10 and 1 or 0
    i, j = i - 1, j - 1
  end
  local s = string.reverse(table.concat(out)):gsub("^0+", "")
  return s == "" and "0" or s
end
tree.add_decimal = add_decimal

--- Frames of every profile, one after the other; with `labels`, each profile under a root frame
--- of kind "thread" named by its label. `opts` are core.flame's; `exact` adds self_exact and
--- total_exact strings.
function tree.build(profiles, labels, opts, exact)
  local frames, total, total_exact = {}, 0, "0"
  for i, prof in ipairs(profiles) do
    local o = { event = opts.event, min_share = opts.min_share, max_depth = opts.max_depth,
      max_frames = opts.max_frames, exact = exact }
    local sum, list = core.flame(prof, o)
    local base, root = #frames, nil
    if labels then
      root = base + 1
      frames[root] = { name = labels[i], kind = "thread", depth = 1, self = 0, total = sum }
      if exact then frames[root].self_exact, frames[root].total_exact = "0", "0" end
      base = root
    end
    for j, frame in ipairs(list) do
      frame.name = frame.fn and frame.fn.name or "[other]"
      frame.kind = frame.fn and "function" or "other"
      if frame.parent then
        frame.parent = frame.parent + base
      else
        frame.parent = root
        if root and exact then frames[root].total_exact = add_decimal(frames[root].total_exact, frame.total_exact) end
      end
      if root then frame.depth = frame.depth + 1 end
      frames[base + j] = frame
    end
    total = total + sum
    if exact then
      for j = 1, #list do
        local frame = list[j]
        if frame.depth == (root and 2 or 1) then total_exact = add_decimal(total_exact, frame.total_exact) end
      end
    end
  end
  return { event = opts.event, total = total, total_exact = exact and total_exact or nil, frames = frames }
end

local function copy(frame)
  local out = {}
  for k, v in pairs(frame) do out[k] = v end
  return out
end

--- Only the stacks through the functions of `set`: their frames and what lies below them, and
--- above them the frames that lead there, as wide as what they lead to.
function tree.focus(t, set)
  local frames = t.frames
  local inside, through, through_exact = {}, {}, {}
  for i, frame in ipairs(frames) do
    local parent_inside = frame.parent and inside[frame.parent] or false
    inside[i] = parent_inside or (frame.fn ~= nil and set[frame.fn] == true)
    if inside[i] and not parent_inside then
      local p = frame.parent
      while p do
        through[p] = (through[p] or 0) + frame.total
        if frame.total_exact then through_exact[p] = add_decimal(through_exact[p] or "0", frame.total_exact) end
        p = frames[p].parent
      end
    end
  end
  local out, index, total, total_exact = {}, {}, 0, "0"
  for i, frame in ipairs(frames) do
    if inside[i] or through[i] then
      local kept = copy(frame)
      if not inside[i] then
        kept.self, kept.total = 0, through[i]
        if kept.total_exact then kept.self_exact, kept.total_exact = "0", through_exact[i] end
      end
      kept.parent = frame.parent and index[frame.parent]
      out[#out + 1] = kept
      index[i] = #out
      if not kept.parent then
        total = total + kept.total
        if kept.total_exact then total_exact = add_decimal(total_exact, kept.total_exact) end
      end
    end
  end
  return { event = t.event, total = total, total_exact = t.total_exact and total_exact or nil, frames = out }
end

-- What a frame is, across two runs: a function by name, file and object, else its kind and name.
local function identity(frame)
  local fn = frame.fn
  if fn then return fn.name .. "\0" .. fn.file .. "\0" .. fn.object end
  return "\1" .. frame.kind .. "\1" .. frame.name
end

--- For each frame of `new`, its cost in `base` (the frame with the same stack of functions) and
--- the change: { base = n or nil, change = n } by `by` ("self" or "total"); `normalize` scales
--- base's costs to new's total first.
function tree.compare(base, new, by, normalize)
  local ids, count = {}, 0
  local function id_of(parent_id, frame)
    local key = (parent_id or 0) .. "\0" .. identity(frame)
    local id = ids[key]
    if not id then
      count = count + 1
      id = count
      ids[key] = id
    end
    return id
  end
  local scale = 1
  if normalize and base.total > 0 then scale = new.total / base.total end
  local base_ids, base_of = {}, {}
  for i, frame in ipairs(base.frames) do
    base_ids[i] = id_of(frame.parent and base_ids[frame.parent], frame)
    base_of[base_ids[i]] = frame
  end
  local changes, new_ids = {}, {}
  for i, frame in ipairs(new.frames) do
    new_ids[i] = id_of(frame.parent and new_ids[frame.parent], frame)
    local old = base_of[new_ids[i]]
    local before = old and old[by] * scale or nil
    changes[i] = { base = before, change = frame[by] - (before or 0) }
  end
  return changes
end

return tree
