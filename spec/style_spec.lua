-- docs/style.md, the parts a machine can check, on every Lua file of lua/callgrind: what a
-- file starts and ends with, where its requires stand, how long its lines are.
local fixtures = require "helpers.fixtures"

local FILES = fixtures.list("lua/callgrind/*.lua lua/callgrind/*/*.lua")

local function lines_of(path)
  local lines = {}
  for line in (fixtures.read(path) .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  if lines[#lines] == "" then lines[#lines] = nil end
  return lines
end

--- Checks `test(path, lines)` on every file; it returns nil or what is wrong. Fails with the list.
local function every_file(test)
  assert.is_true(#FILES > 40)
  local wrong = {}
  for _, path in ipairs(FILES) do
    local why = test(path, lines_of(path))
    if why then wrong[#wrong + 1] = path .. ": " .. why end
  end
  assert(#wrong == 0, "docs/style.md not followed:\n" .. table.concat(wrong, "\n"))
end

describe("the Lua style of docs/style.md", function()
  it("opens every file with what the module is for and ends it with its return", function()
    every_file(function(path, lines)
      if not lines[1]:find("^%-%- callgrind[%w_.]*: ") then return "line 1 does not say '-- callgrind.NAME: ...'" end
      if not lines[#lines]:find("^return [%w_]+$") then return "the last line is not 'return NAME'" end
    end)
  end)

  it("requires in the string-call form, before the module table, which is never M", function()
    every_file(function(_, lines)
      local table_line
      for i, line in ipairs(lines) do
        if line:find("^local M = ") then return "line " .. i .. ": a module table called M" end
        if line:find("^local [%w_]+ = {}$") and not table_line then table_line = i end
        if line:find("^local [%w_]+ = require%(") then return "line " .. i .. ": require(...) at the top" end
        if line:find("^local [%w_]+ = require ") and table_line then
          return "line " .. i .. ": a require after the module table (line " .. table_line .. ")"
        end
      end
    end)
  end)

  it("indents with spaces, leaves no trailing white space and keeps lines within 120 columns", function()
    every_file(function(_, lines)
      for i, line in ipairs(lines) do
        if line:find("\t") then return "line " .. i .. ": a tab" end
        if line:find("%s$") then return "line " .. i .. ": trailing white space" end
        -- columns, not bytes: a UTF-8 character counts once
        local _, continuation = line:gsub("[\128-\191]", "")
        if #line - continuation > 120 then return "line " .. i .. ": longer than 120 columns" end
      end
    end)
  end)
end)
