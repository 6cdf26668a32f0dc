-- callgrind.command.json: JSON strings for the `functions` subcommand, which writes the rest
-- of its JSON itself (objects of names and exact integers need no general encoder).
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

return json
