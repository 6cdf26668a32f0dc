-- callgrind.names: function names made readable for pictures: text that is valid UTF-8 without
-- control characters, C++ names without their argument and template lists, long names cut into
-- lines. The call graphs (callgrind.dot) and the flame graphs (callgrind.flame) share them.
local names = {}

local concat = table.concat
local byte, char = string.byte, string.char
local max = math.max

local DEFAULT_WIDTH = 40

-- What the reports print for a file or an object the profile does not name.
local UNKNOWN = "???"

--- A file (or object) as printed: "???" when the profile names none (nil or "").
function names.file(path)
  if path == nil or path == "" then return UNKNOWN end
  return path
end

--- Whether a file or object name stands for none: nil, "" or "???".
function names.is_unknown(path)
  return path == nil or path == "" or path == UNKNOWN
end

local function is_cont(b)
  return b and b >= 0x80 and b <= 0xBF
end

-- Length in bytes of the valid UTF-8 sequence at `i`, or nil when the byte there starts none.
local function sequence_length(s, i)
  local b1, b2, b3, b4 = byte(s, i, i + 3)
  if b1 < 0x80 then return 1 end
  if b1 >= 0xC2 and b1 <= 0xDF then return is_cont(b2) and 2 or nil end
  if b1 >= 0xE0 and b1 <= 0xEF then
    if not (is_cont(b2) and is_cont(b3)) then return nil end
    if b1 == 0xE0 and b2 < 0xA0 then return nil end -- overlong
    if b1 == 0xED and b2 > 0x9F then return nil end -- surrogates
    return 3
  end
  if b1 >= 0xF0 and b1 <= 0xF4 then
    if not (is_cont(b2) and is_cont(b3) and is_cont(b4)) then return nil end
    if b1 == 0xF0 and b2 < 0x90 then return nil end -- overlong
    if b1 == 0xF4 and b2 > 0x8F then return nil end -- above U+10FFFF
    return 4
  end
  return nil
end

--- `s` with every control character and every byte that is not part of valid UTF-8 written as
--- the visible text \xNN, so that Graphviz reads the label as UTF-8 and shows every byte.
function names.clean(s)
  if not s:find("[%z\1-\31\127-\255]") then return s end
  local out, i, n = {}, 1, #s
  while i <= n do
    local b = byte(s, i)
    local len = sequence_length(s, i)
    if len and not (b < 0x20 or b == 0x7F) then
      out[#out + 1] = s:sub(i, i + len - 1)
      i = i + len
    else
      out[#out + 1] = string.format("\\x%02X", b)
      i = i + 1
    end
  end
  return concat(out)
end

--- Number of characters (not bytes) of a UTF-8 string.
function names.width(s)
  local _, continuation = s:gsub("[\128-\191]", "")
  return #s - continuation
end

-- Operators and names whose brackets are not argument or template lists, kept by `strip`.
local PROTECTED = {
  "(anonymous namespace)", "operator()", "operator<=>", "operator<<=", "operator>>=",
  "operator->*", "operator<<", "operator>>", "operator<=", "operator>=", "operator->",
  "operator<", "operator>",
}

local function replace_plain(s, from, to)
  local out, pos = {}, 1
  while true do
    local a, b = s:find(from, pos, true)
    if not a then break end
    out[#out + 1] = s:sub(pos, a - 1)
    out[#out + 1] = to
    pos = b + 1
  end
  out[#out + 1] = s:sub(pos)
  return concat(out)
end

--- A C++ name without its argument lists, template arguments and trailing qualifiers, like
--- gprof2dot --strip: "std::vector<int>::push_back(int const&) const" -> "std::vector::push_back".
--- Operator names and "(anonymous namespace)" survive; a name that would vanish is kept whole.
function names.strip(name)
  local s = name
  local marked = not s:find("[\1\2]")
  if marked then
    for i, token in ipairs(PROTECTED) do
      s = replace_plain(s, token, "\1" .. char(64 + i) .. "\2")
    end
  end
  s = s:gsub("%b()", "")
  s = s:gsub("%s+const$", ""):gsub("%s+volatile$", ""):gsub("%s+const$", "")
  local previous
  repeat -- innermost first: "a<b<c>>" where ">>" is not a balanced pair for %b<>
    previous = s
    s = s:gsub("<[^<>]*>", "")
  until s == previous
  if marked then
    s = s:gsub("\1(%u)\2", function(letter) return PROTECTED[byte(letter) - 64] end)
  end
  s = s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  if s == "" or s:find("^[%s:]*$") then return name end
  return s
end

-- Where a long name may break: after spaces, commas, "::" and template brackets, before "(".
local function tokens_of(s)
  local tokens, start, i, n = {}, 1, 1, #s
  while i <= n do
    local c = s:sub(i, i)
    local cut -- the token ends after position `cut`
    if c == " " or c == "," or c == "<" or c == ">" then
      cut = i
    elseif c == ":" and s:sub(i + 1, i + 1) == ":" then
      cut = i + 1
    elseif c == "(" and i > start then
      cut = i - 1
    end
    if cut then
      if cut >= start then tokens[#tokens + 1] = s:sub(start, cut) end
      start = cut + 1
      i = max(i, cut) + 1
    else
      i = i + 1
    end
  end
  if start <= n then tokens[#tokens + 1] = s:sub(start) end
  return tokens
end

-- Splits a token wider than `width` characters into pieces of `width` (never inside a UTF-8
-- sequence).
local function hard_split(token, width)
  local pieces, current, count = {}, {}, 0
  for ch in token:gmatch("[%z\1-\127\192-\255][\128-\191]*") do
    if count == width then
      pieces[#pieces + 1] = concat(current)
      current, count = {}, 0
    end
    current[#current + 1] = ch
    count = count + 1
  end
  if #current > 0 then pieces[#pieces + 1] = concat(current) end
  return pieces
end

local function fill(tokens, width)
  local lines, line = {}, ""
  for _, token in ipairs(tokens) do
    if line ~= "" and names.width(line .. token:gsub(" +$", "")) > width then
      lines[#lines + 1] = line:gsub(" +$", "")
      line = token:gsub("^ +", "")
    else
      line = line .. token
    end
  end
  line = line:gsub(" +$", "")
  if line ~= "" then lines[#lines + 1] = line end
  return lines
end

--- A name cut into lines of at most `width` characters (about), at the places a C++ name reads
--- best, with lines of even length rather than a full line and a short rest.
function names.wrap(name, width)
  width = width or DEFAULT_WIDTH
  if names.width(name) <= width then return { name } end
  local tokens = {}
  for _, token in ipairs(tokens_of(name)) do
    if names.width(token) > width then
      for _, piece in ipairs(hard_split(token, width)) do tokens[#tokens + 1] = piece end
    else
      tokens[#tokens + 1] = token
    end
  end
  local best = fill(tokens, width)
  local count = #best
  for target = math.ceil(names.width(name) / count), width - 1 do
    local lines = fill(tokens, target)
    if #lines <= count then return lines end
  end
  return best
end

return names
