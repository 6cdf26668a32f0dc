-- callgrind.json: JSON text for what the module writes (the `functions` subcommand, the data of
-- the HTML report): strings made valid UTF-8, numbers as exact integers, and a small encoder
-- for tables of those.
--
--   local json = require "callgrind.json"
--   json.string('f(a, "b")')                       --> "f(a, \"b\")"
--   json.encode({ name = "main", costs = { 1, 2 } })  --> {"costs":[1,2],"name":"main"}
local json = {}

local ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r",
  ["\t"] = "\\t" }

local function escape_control(c)
  return ESCAPES[c] or string.format("\\u%04x", c:byte())
end

-- The length of the valid UTF-8 sequence starting at byte i of s, or nil.
local function sequence_length(s, i)
  local b = s:byte(i)
  local n, min
  if b < 0x80 then return 1
  elseif b >= 0xC2 and b <= 0xDF then n, min = 2, 0x80
  elseif b >= 0xE0 and b <= 0xEF then n, min = 3, 0x800
  elseif b >= 0xF0 and b <= 0xF4 then n, min = 4, 0x10000
  else return nil end
  local code = b % (2 ^ (7 - n))
  for k = 1, n - 1 do
    local c = s:byte(i + k)
    if not c or c < 0x80 or c > 0xBF then return nil end
    code = code * 64 + c % 64
  end
  if code < min or code > 0x10FFFF or (code >= 0xD800 and code <= 0xDFFF) then return nil end
  return n
end

-- `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD: JSON text is UTF-8,
-- and names in profiles are bytes.
local function valid_utf8(s)
  if not s:find("[\128-\255]") then return s end
  local parts, i = {}, 1
  while i <= #s do
    local n = sequence_length(s, i)
    if n then
      parts[#parts + 1] = s:sub(i, i + n - 1)
      i = i + n
    else
      parts[#parts + 1] = "\239\191\189"
      i = i + 1
    end
  end
  return table.concat(parts)
end

--- A JSON string literal for `s`.
function json.string(s)
  return '"' .. valid_utf8(s):gsub('[%c"\\]', escape_control) .. '"'
end

local math_type, floor, huge, format = math.type, math.floor, math.huge, string.format

--- A JSON number for a Lua number: integers written whole on every Lua version (never as
--- 1e+15), others with 17 significant digits; NaN and infinities, which JSON lacks, as null.
function json.number(n)
  -- an integer first: the page's data holds millions of them
  if math_type and math_type(n) == "integer" then return tostring(n) end
  if n ~= n or n == huge or n == -huge then return "null" end
  if n == floor(n) and n > -2 ^ 63 and n < 2 ^ 63 then return format("%.0f", n) end
  return format("%.17g", n)
end

-- A table with keys 1..n only (an empty table counts as a list).
local function is_list(t)
  local n = #t
  for key in pairs(t) do
    if type(key) ~= "number" or key < 1 or key > n or key ~= math.floor(key) then return false end
  end
  return true
end

local encode

-- the metatable of json.raw's values
local RAW = {}

local function encode_into(value, out, depth)
  local kind = type(value)
  if kind == "string" then
    out[#out + 1] = json.string(value)
  elseif kind == "number" then
    out[#out + 1] = json.number(value)
  elseif kind == "boolean" then
    out[#out + 1] = value and "true" or "false"
  elseif value == nil or value == json.null then
    out[#out + 1] = "null"
  elseif kind == "table" and getmetatable(value) == RAW then
    out[#out + 1] = value.text
  elseif kind == "table" then
    if depth > 100 then error("json.encode: tables nested too deep (a cycle?)", 0) end
    if is_list(value) then
      out[#out + 1] = "["
      for i, item in ipairs(value) do
        if i > 1 then out[#out + 1] = "," end
        encode_into(item, out, depth + 1)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for key in pairs(value) do
        if type(key) ~= "string" then error("json.encode: object keys must be strings", 0) end
        keys[#keys + 1] = key
      end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, key in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = json.string(key)
        out[#out + 1] = ":"
        encode_into(value[key], out, depth + 1)
      end
      out[#out + 1] = "}"
    end
  else
    error("json.encode: cannot encode a " .. kind, 0)
  end
end

--- A value that encodes as null (inside a list, where nil would end it).
json.null = setmetatable({}, { __tostring = function() return "null" end })

--- A value that encodes as `text`, JSON made elsewhere (the report page's calls, written by
--- the core), which encode copies as it is.
function json.raw(text)
  return setmetatable({ text = text }, RAW)
end

--- The JSON text of a value: strings, numbers, booleans, json.null, and tables of them (a table
--- with keys 1..n is an array, one with string keys an object, keys sorted).
function encode(value)
  local out = {}
  encode_into(value, out, 0)
  return table.concat(out)
end
json.encode = encode

return json
