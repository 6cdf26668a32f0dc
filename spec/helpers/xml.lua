-- Test helper: XML text read into plain tables with lua-expat (Debian's lua-expat), to check
-- the SVG the flame graphs write as a document.
--
--   local xml = require "helpers.xml"
--   local root = assert(xml.parse(text))   -- {tag =, attrs = {name = value}, children = {...}, text =}
local xml = {}

local ok, lxp = pcall(require, "lxp")

--- Whether lua-expat can be loaded, and why not.
function xml.available()
  if ok then return true end
  return false, "lua-expat (lxp) cannot be loaded: " .. tostring(lxp)
end

--- The element tree of a document, or nil and expat's message.
function xml.parse(text)
  local root = { children = {} }
  local stack = { root }
  local parser = lxp.new {
    StartElement = function(_, tag, attrs)
      local el = { tag = tag, attrs = {}, children = {}, text = "" }
      for k, v in pairs(attrs) do
        if type(k) == "string" then el.attrs[k] = v end
      end
      local parent = stack[#stack]
      parent.children[#parent.children + 1] = el
      stack[#stack + 1] = el
    end,
    EndElement = function()
      stack[#stack] = nil
    end,
    CharacterData = function(_, data)
      local el = stack[#stack]
      el.text = (el.text or "") .. data
    end,
  }
  local good, message, line = parser:parse(text)
  if good then good, message, line = parser:parse() end
  parser:close()
  if not good then return nil, ("%s at line %s"):format(tostring(message), tostring(line)) end
  return root.children[1]
end

--- Whether an element has a class among those of its class attribute.
function xml.has_class(el, class)
  local classes = " " .. (el.attrs.class or "") .. " "
  return classes:find(" " .. class .. " ", 1, true) ~= nil
end

--- Every element below `el` (depth first) for which `keep(element)` is true.
function xml.find_all(el, keep, out)
  out = out or {}
  for _, child in ipairs(el.children) do
    if keep(child) then out[#out + 1] = child end
    xml.find_all(child, keep, out)
  end
  return out
end

--- The first child element with this tag.
function xml.child(el, tag)
  for _, child in ipairs(el.children) do
    if child.tag == tag then return child end
  end
  return nil
end

return xml
