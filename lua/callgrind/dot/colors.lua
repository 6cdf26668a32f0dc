-- callgrind.dot.colors: the colours of a call graph. A share of the total (0 to 1) picks a
-- colour from a palette, cold (blue) to hot (red); text on a node is black or white, whichever
-- reads better, and an edge label is darkened until it reads on a white page.
local colors = {}

local floor, max, min = math.floor, math.max, math.min

-- The share of the total (0..1) is raised to 1/GAMMA before it picks a colour, so that the many
-- functions of a few percent get distinct colours instead of all looking equally cold.
local GAMMA = 2.2

local function hue_to_rgb(m1, m2, h)
  h = h % 1
  if h * 6 < 1 then return m1 + (m2 - m1) * h * 6 end
  if h * 2 < 1 then return m2 end
  if h * 3 < 2 then return m1 + (m2 - m1) * (2 / 3 - h) * 6 end
  return m1
end

local function hsl(h, s, l)
  local m2 = l <= 0.5 and l * (s + 1) or l + s - l * s
  local m1 = 2 * l - m2
  return hue_to_rgb(m1, m2, h + 1 / 3), hue_to_rgb(m1, m2, h), hue_to_rgb(m1, m2, h - 1 / 3)
end

local function to_linear(c)
  if c <= 0.04045 then return c / 12.92 end
  return ((c + 0.055) / 1.055) ^ 2.4
end

local function from_linear(c)
  if c <= 0.0031308 then return 12.92 * c end
  return 1.055 * c ^ (1 / 2.4) - 0.055
end

local function luminance(r, g, b)
  return 0.2126 * to_linear(r) + 0.7152 * to_linear(g) + 0.0722 * to_linear(b)
end

local function channel(c)
  return floor(min(max(c, 0), 1) * 255 + 0.5)
end

--- "#rrggbb" for red, green and blue from 0 to 1.
function colors.hex(r, g, b)
  return string.format("#%02x%02x%02x", channel(r), channel(g), channel(b))
end

--- Black or white, whichever stands out more on the colour (WCAG contrast).
function colors.text_on(r, g, b)
  local l = luminance(r, g, b)
  if (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.05) then return "#ffffff" end
  return "#000000"
end

--- The colour darkened until it reads on a white page (contrast 4.5 or more), for edge labels.
function colors.readable_on_white(r, g, b)
  local limit = 1.05 / 4.5 - 0.05
  local l = luminance(r, g, b)
  if l <= limit then return colors.hex(r, g, b) end
  local k = limit / l
  return colors.hex(from_linear(to_linear(r) * k), from_linear(to_linear(g) * k), from_linear(to_linear(b) * k))
end

--- The palettes by name: each a function(t) of a shaped share that gives red, green and blue.
colors.palettes = {
  -- cold to hot: dark blue (hue 240 degrees), cyan, green, yellow, saturated red (hue 0)
  color = function(t) return hsl((2 / 3) * (1 - t), 0.8 + 0.2 * t, 0.3 + 0.2 * t) end,
  -- light grey to black
  gray = function(t) return hsl(0, 0, 0.9 - 0.85 * t) end,
  -- black lines and text on white; the share shows in pen widths and font sizes
  bw = function() return 0, 0, 0 end,
}
colors.palettes.grey = colors.palettes.gray

--- A share of the total (clamped to 0..1) shaped for a palette.
function colors.shaped(fraction)
  return min(max(fraction, 0), 1) ^ (1 / GAMMA)
end

return colors
