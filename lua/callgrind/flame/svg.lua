-- callgrind.flame.svg: draws the frames of a flame graph (callgrind.flame.tree) as a
-- self-contained interactive SVG: one rectangle per frame as wide as its cost, a tooltip with
-- name, cost and share, click to zoom, search; colours by object, file or name, or by the change
-- against another run. Frames narrower than `min_width` pixels are left out, and the SVG says
-- how many and how much they cost.
local format = require "callgrind.format"
local names = require "callgrind.names"
local script = require "callgrind.flame.script"

local svg = {}

svg.DEFAULT_WIDTH = 1200
svg.DEFAULT_MIN_WIDTH = 1
svg.COLORS = { object = true, file = true, name = true }

local PAD = 10     -- pixels left and right of the frames
local TOP = 40     -- title and buttons
local BOTTOM = 40  -- details of the frame under the pointer, notes
local CHAR = 0.59  -- width of a character, in font sizes

local concat, floor, max, min = table.concat, math.floor, math.max, math.min

--- The percent of the total that a frame `min_width` pixels wide stands for in a picture
--- `width` pixels wide (no less than a tenth of a pixel's).
function svg.smallest_share(width, min_width)
  width = width or svg.DEFAULT_WIDTH
  return 100 * max(min_width or svg.DEFAULT_MIN_WIDTH, 0.1) / (width - 2 * PAD)
end
local fmt = string.format

local XML = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }

-- Text for XML: valid UTF-8 without control characters (names.clean), markup escaped.
local function text(s)
  return (names.clean(s):gsub("[&<>\"']", XML))
end

local function px(v)
  return fmt("%.2f", v)
end

local function share(n, total)
  if total == 0 then return "n/a" end
  return fmt("%.2f%%", 100 * n / total)
end

---------------------------------------------------------------------------
-- Colours
---------------------------------------------------------------------------

-- A hash of a string that is the same on every Lua (31-based, within 2^32).
local function hash(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
  return h
end

local function hsl(h, s, l)
  local function channel(n)
    local k = (n + h / 30) % 12
    local a = s * min(l, 1 - l)
    return l - a * max(-1, min(k - 3, 9 - k, 1))
  end
  return fmt("#%02x%02x%02x", floor(channel(0) * 255 + 0.5), floor(channel(8) * 255 + 0.5),
    floor(channel(4) * 255 + 0.5))
end

-- A warm colour for a key (object, file or name): the hue from the key, small changes of
-- lightness from the function's name so that neighbours stand apart.
local function key_color(key, name)
  local h = hash(key)
  local hue = h % 50      -- red to orange-yellow, as flames go
  local sat = 0.65 + (floor(h / 50) % 30) / 100
  local light = 0.55 + (hash(name) % 20) / 100
  return hsl(hue, sat, light)
end

local OTHER_COLOR = "#c8c8c8"
local THREAD_COLOR = "#dcdcdc"

local function frame_color(frame, colors)
  if frame.kind == "other" then return OTHER_COLOR end
  if frame.kind == "thread" then return THREAD_COLOR end
  local fn = frame.fn
  local key = colors == "file" and fn.file or colors == "name" and fn.name or fn.object
  return key_color(key, fn.name)
end

-- Red for a frame that costs more than in the base run, blue for less, light grey for the
-- same; stronger for bigger changes (a square root, so that small changes still show).
local function change_color(change, largest)
  if change == 0 or largest == 0 then return "#eeeeee" end
  local t = math.sqrt(min(math.abs(change) / largest, 1))
  local fade = floor(230 * (1 - t) + 0.5)
  if change > 0 then return fmt("#ff%02x%02x", fade, fade) end
  return fmt("#%02x%02xff", fade, fade)
end

---------------------------------------------------------------------------
-- Frames
---------------------------------------------------------------------------

-- x offsets (in cost units) of every frame: children side by side from their parent's start.
local function offsets(frames)
  local x, next_x, roots = {}, {}, 0
  for i, frame in ipairs(frames) do
    if frame.parent then
      x[i] = next_x[frame.parent]
      next_x[frame.parent] = x[i] + frame.total
    else
      x[i] = roots
      roots = roots + frame.total
    end
    next_x[i] = x[i]
  end
  return x
end

-- The label shown in a frame `width` pixels wide, and whether it is cut.
local function fit(label, width, font)
  local n = floor((width - 6) / (font * CHAR))
  if n < 3 then return "", true end
  if names.width(label) <= n then return label, false end
  local count, stop = 0, 0
  for pos, ch in label:gmatch("()([%z\1-\127\192-\255][\128-\191]*)") do
    count = count + 1
    if count > n - 2 then break end
    stop = pos + #ch - 1
  end
  return label:sub(1, stop) .. "..", true
end

local function tooltip(frame, event, total, change, opts)
  local name = frame.name
  local lines = { name }
  local cost = frame.total_exact or frame.total
  local self = frame.self_exact or frame.self
  lines[2] = ("%s: %s (%s), self %s (%s)"):format(event, format.thousands(cost), share(frame.total, total),
    format.thousands(self), share(frame.self, total))
  if frame.fn then
    local fn = frame.fn
    local where = names.file(fn.file)
    if fn.object ~= "" then where = where .. " [" .. fn.object .. "]" end
    lines[#lines + 1] = where
  elseif frame.kind == "other" then
    lines[#lines + 1] = "calls too small or too deep to draw one by one"
  end
  if change then
    if change.base then
      local before = format.integer(change.base)
      local rel = before ~= 0 and fmt(" (%+.2f%%)", 100 * change.change / before) or ""
      lines[#lines + 1] = ("%s %s before: %s, change %s%s%s"):format(opts.by or "self", event,
        format.thousands(before), change.change >= 0 and "+" or "-",
        format.thousands(format.integer(math.abs(change.change))), rel)
    else
      lines[#lines + 1] = "not in the base run"
    end
  end
  for i, line in ipairs(lines) do lines[i] = text(line) end
  return concat(lines, "\n")
end

-- Which frames are drawn: those at least `min_width` pixels wide (a frame's children are never
-- wider). Returns the set, how many are left out and what the topmost of them cost.
local function drawn(frames, scale, min_width)
  local keep, left_out, left_cost = {}, 0, 0
  for i, frame in ipairs(frames) do
    local parent_kept = not frame.parent or keep[frame.parent]
    if parent_kept and frame.total * scale >= min_width then
      keep[i] = true
    else
      left_out = left_out + 1
      if parent_kept then left_cost = left_cost + frame.total end
    end
  end
  return keep, left_out, left_cost
end

---------------------------------------------------------------------------
-- The picture
---------------------------------------------------------------------------

-- The share of the total that the frames of the marked functions hold (a frame inside another
-- marked frame counts once).
local function marked_share(frames, marks)
  local sum, inside = 0, {}
  for i, frame in ipairs(frames) do
    local parent_inside = frame.parent and inside[frame.parent]
    inside[i] = parent_inside or (frame.fn and marks[frame.fn]) or false
    if inside[i] and not parent_inside then sum = sum + frame.total end
  end
  return sum
end

--- The SVG text of the frames of `t` (callgrind.flame.tree). `extra.marks`: a set of functions
--- whose frames are outlined; `extra.changes`: per frame {base =, change =} for a differential
--- graph (colours from the changes).
function svg.render(t, opts, extra)
  local frames, total, event = t.frames, t.total, t.event
  local width = opts.width or svg.DEFAULT_WIDTH
  local fh = opts.frame_height or 16
  local font = min(12, fh - 4)
  local min_width = opts.min_width or svg.DEFAULT_MIN_WIDTH
  local scale = total > 0 and (width - 2 * PAD) / total or 0
  local keep, left_out, left_cost = drawn(frames, scale, min_width)
  local depth = 0
  for i, frame in ipairs(frames) do
    if keep[i] and frame.depth > depth then depth = frame.depth end
  end
  local height = TOP + depth * fh + BOTTOM
  local x = offsets(frames)
  local changes, marks = extra.changes, extra.marks
  local largest = 0
  if changes then
    for i in pairs(keep) do largest = max(largest, math.abs(changes[i].change)) end
  end
  local strip = opts.strip ~= false
  local colors = opts.colors or "object"

  local out = {}
  local function add(s) out[#out + 1] = s end
  if not opts.inline then add('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n') end
  add(('<svg xmlns="http://www.w3.org/2000/svg" class="cgf-root"%s width="%d" height="%d" '
    .. 'viewBox="0 0 %d %d" data-width="%d" data-pad="%d" data-total="%s" data-fh="%d" data-font="%d">\n')
    :format(opts.id and (' id="' .. text(opts.id) .. '"') or "", width, height, width, height, width, PAD,
      t.total_exact or tostring(total), fh, font))
  local title = opts.title or ((changes and "Differential flame graph: " or "Flame graph: ") .. event)
  local note = ("%s %s, total %s; %d frames drawn"):format(changes and "widths from the new run," or "event",
    event, format.thousands(t.total_exact or total), #frames - left_out)
  if left_out > 0 then
    note = note .. ("; %d narrower than %s px left out (%s of the total)"):format(left_out,
      tostring(min_width), share(left_cost, total))
  end
  add("<!-- " .. text(title):gsub("%-%-", "- -") .. ": " .. text(note) .. " -->\n")
  add("<style><![CDATA[\n" .. script.STYLE .. "]]></style>\n")
  add(('<rect x="0" y="0" width="%d" height="%d" fill="#f8f8f8"/>\n'):format(width, height))
  add(('<text class="cgf-heading" x="%s" y="24">%s</text>\n'):format(px(width / 2), text(title)))
  add(('<text class="cgf-button cgf-reset cgf-hidden" x="%d" y="24">Reset zoom</text>\n'):format(PAD))
  add(('<text class="cgf-button cgf-search cgf-right" x="%d" y="24">Search</text>\n'):format(width - PAD))
  local marked = ""
  if marks then marked = "Marked: " .. share(marked_share(frames, marks), total) end
  add(('<text class="cgf-matched cgf-right" x="%d" y="%d" data-marked="%s">%s</text>\n')
    :format(width - PAD, height - 22, marked, marked))
  add(('<text class="cgf-details" x="%d" y="%d"> </text>\n'):format(PAD, height - 22))
  add(('<text class="cgf-note" x="%d" y="%d" font-size="10">%s</text>\n'):format(PAD, height - 6, text(note)))

  add(('<g class="cgf-frames" font-size="%d">\n'):format(font))
  for i, frame in ipairs(frames) do
    if keep[i] then
      local w = frame.total * scale
      local y = opts.icicle and (TOP + (frame.depth - 1) * fh) or (height - BOTTOM - frame.depth * fh)
      local rx = PAD + x[i] * scale
      local label = frame.fn and strip and names.strip(names.clean(frame.name)) or names.clean(frame.name)
      local shown, cut = fit(label, w, font)
      local fill = changes and change_color(changes[i].change, largest) or frame_color(frame, colors)
      local class = (marks and frame.fn and marks[frame.fn]) and "cgf-f cgf-mark" or "cgf-f"
      local data_l = ""
      if (cut or shown == "") and label ~= names.clean(frame.name) then data_l = ' data-l="' .. text(label) .. '"' end
      add(('<g class="%s" data-x="%s" data-t="%s" data-d="%d"%s><title>%s</title>'):format(class,
        fmt("%.0f", x[i]), frame.total_exact or fmt("%.0f", frame.total), frame.depth, data_l,
        tooltip(frame, event, total, changes and changes[i], opts)))
      add(('<rect x="%s" y="%d" width="%s" height="%d" fill="%s"/>'):format(px(rx), y, px(w), fh - 1, fill))
      if shown ~= "" then
        add(('<text x="%s" y="%s">%s</text>'):format(px(rx + 3), px(y + fh / 2 + font * CHAR * 0.6), text(shown)))
      end
      add("</g>\n")
    end
  end
  add("</g>\n")
  add("<script><![CDATA[\n" .. script.CODE .. "]]></script>\n")
  add("</svg>\n")
  return concat(out)
end

return svg
