-- callgrind.dot.text: the DOT syntax of a call graph (quoted strings, attribute lists,
-- numbers) and the text that tells apart functions of one name.
local names = require "callgrind.names"

local text = {}

local concat, find = table.concat, string.find

local ESCAPES = { ["\\"] = "\\\\", ['"'] = '\\"', ["&"] = "&amp;" }

--- Text for a double-quoted DOT string. Backslashes start escapes (\n, \N, \G...) and Graphviz
--- reads HTML entities (&lt;, &amp;) in labels, so both are escaped; `<`, `>`, `{`, `}` and `|`
--- mean nothing outside record shapes and HTML labels, and stay as they are.
function text.escape(s)
  -- most names have none: no new string then
  if not find(s, '[\\"&]') then return s end
  return (s:gsub('[\\"&]', ESCAPES))
end

--- `s` as a double-quoted DOT string.
function text.quote(s)
  return '"' .. text.escape(s) .. '"'
end

--- "[k1="v1", k2="v2"]" from the list { k1, v1, k2, v2, ... }.
function text.attributes(list)
  local out = {}
  for i = 1, #list, 2 do
    out[#out + 1] = list[i] .. "=" .. text.quote(list[i + 1])
  end
  return "[" .. concat(out, ", ") .. "]"
end

--- A number with two decimals, as pen widths and font sizes are written.
function text.number(x)
  return (string.format("%.2f", x))
end

local function basename(path)
  return path:match("([^/\\]+)[/\\]*$") or path
end

-- The ways of telling a function's place, shortest first: the file's base name, the whole
-- file, and the object as well.
local SCHEMES = {
  function(fn) return basename(names.file(fn.file)) end,
  function(fn) return names.file(fn.file) end,
  function(fn) return basename(names.file(fn.file)) .. " [" .. basename(fn.object or "") .. "]" end,
  function(fn) return names.file(fn.file) .. " [" .. (fn.object or "") .. "]" end,
}

-- The first scheme that gives every function of the group a text of its own (else the last).
local function telling_apart(group)
  for _, scheme in ipairs(SCHEMES) do
    local seen, unique = {}, true
    for _, fn in ipairs(group) do
      local where = scheme(fn)
      if seen[where] then
        unique = false
        break
      end
      seen[where] = true
    end
    if unique then return scheme end
  end
  return SCHEMES[#SCHEMES]
end

--- The functions of the list that share their name with another of the list: one list per
--- name, in the order the names first come.
function text.namesakes(functions)
  local by_name, order = {}, {}
  for _, fn in ipairs(functions) do
    local name = fn.name
    local group = by_name[name]
    if not group then
      group = {}
      by_name[name] = group
      order[#order + 1] = group
    end
    group[#group + 1] = fn
  end
  local groups = {}
  for _, group in ipairs(order) do
    if #group > 1 then groups[#groups + 1] = group end
  end
  return groups
end

--- For each function of the groups of namesakes (lists of functions of one name) that hold
--- one of `wanted` (a set of functions; nil: every group), the text that tells it apart from
--- the others of its group: the file's base name, the whole file, and the object as well when
--- needed. { [fn] = text }.
function text.locations(groups, wanted)
  local where = {}
  for _, group in ipairs(groups) do
    local shown = not wanted
    for _, fn in ipairs(group) do shown = shown or wanted[fn] end
    if shown then
      local scheme = telling_apart(group)
      for _, fn in ipairs(group) do where[fn] = scheme(fn) end
    end
  end
  return where
end

return text
