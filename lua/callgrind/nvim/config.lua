-- callgrind.nvim.config: the plugin's options, their defaults and their checks.
local config = {}

local DISPLAYS = { virtual_text = true, signs = true, both = true }
local FORMATS = { absolute = true, percent = true }

local function defaults()
  return {
    display = "virtual_text", -- "virtual_text", "signs" or "both"
    format = "absolute", -- "absolute" or "percent"
    event = nil, -- event shown after a load (default: the profile's first)
    hot = 1, -- percent of the event total from which a line is highlighted as hot
    heat = { 0.1, 1, 10 }, -- percent thresholds of sign levels 2, 3 and 4
    sign_texts = { "▂", "▄", "▆", "█" }, -- the signs of levels 1 to 4
    top = 20, -- entries of :CallgrindTop without a count
    source_dirs = {}, -- directories searched for relative file names
    watch = true, -- reload the profile when its file changes
    poll_interval = 1000, -- milliseconds between checks of the profile file
    open_quickfix = true, -- open the quickfix window after filling it
    progress_size = 16 * 1024 * 1024, -- bytes from which loading shows its progress
    priority = 10, -- priority of the extmarks (virtual text and signs)
  }
end

-- Bad options are the caller's mistake: raised, without a position inside this file.
local function fail(message)
  error("callgrind: " .. message, 0)
end

local function check_number(opts, key, min)
  local value = opts[key]
  if type(value) ~= "number" or value < min then
    fail(("option '%s' must be a number >= %s, got %s"):format(key, tostring(min), tostring(value)))
  end
end

local function check_count(opts, key)
  check_number(opts, key, 1)
  if opts[key] % 1 ~= 0 then
    fail(("option '%s' must be a whole number, got %s"):format(key, tostring(opts[key])))
  end
end

local function check_heat(heat)
  if type(heat) ~= "table" or #heat ~= 3 then
    fail("option 'heat' must be a list of three percentages")
  end
  for i, value in ipairs(heat) do
    if type(value) ~= "number" or (i > 1 and value <= heat[i - 1]) then
      fail("option 'heat' must hold three increasing numbers")
    end
  end
end

-- Neovim takes sign texts of one or two display cells.
local function check_sign_texts(texts)
  local message = "option 'sign_texts' must be a list of four texts of one or two cells"
  if type(texts) ~= "table" or #texts ~= 4 then
    fail(message)
  end
  for _, text in ipairs(texts) do
    if type(text) ~= "string" or text:find("%c") then
      fail(message)
    end
    local width = vim.fn.strdisplaywidth(text)
    if width < 1 or width > 2 then
      fail(message .. ", got '" .. text .. "'")
    end
  end
end

local function check_dirs(dirs)
  if type(dirs) ~= "table" then
    fail("option 'source_dirs' must be a list of directories")
  end
  for _, dir in ipairs(dirs) do
    if type(dir) ~= "string" then
      fail("option 'source_dirs' must be a list of strings")
    end
  end
end

local function validate(opts)
  if not DISPLAYS[opts.display] then
    fail("option 'display' must be \"virtual_text\", \"signs\" or \"both\", got " .. tostring(opts.display))
  end
  if not FORMATS[opts.format] then
    fail("option 'format' must be \"absolute\" or \"percent\", got " .. tostring(opts.format))
  end
  if opts.event ~= nil and type(opts.event) ~= "string" then
    fail("option 'event' must be an event name")
  end
  check_number(opts, "hot", 0)
  check_heat(opts.heat)
  check_sign_texts(opts.sign_texts)
  check_count(opts, "top")
  check_dirs(opts.source_dirs)
  if type(opts.watch) ~= "boolean" then fail("option 'watch' must be a boolean") end
  if type(opts.open_quickfix) ~= "boolean" then fail("option 'open_quickfix' must be a boolean") end
  check_count(opts, "poll_interval")
  check_number(opts, "progress_size", 0)
  check_number(opts, "priority", 0)
end

--- The default options, as a new table.
config.defaults = defaults

--- `current` with the keys of `opts` replacing its own, checked; raises on an unknown key or
--- a bad value.
function config.merge(current, opts)
  if opts ~= nil and type(opts) ~= "table" then
    fail("setup expects a table of options, got " .. type(opts))
  end
  local known = defaults()
  local merged = {}
  for key, value in pairs(current) do
    merged[key] = value
  end
  for key, value in pairs(opts or {}) do
    if known[key] == nil and key ~= "event" then
      fail("unknown option '" .. tostring(key) .. "'")
    end
    merged[key] = value
  end
  validate(merged)
  return merged
end

--- Whether `name` is a number format.
function config.is_format(name)
  return FORMATS[name] == true
end

return config
