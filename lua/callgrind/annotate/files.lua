-- callgrind.annotate.files: which source files to annotate, and their text.
local core = require "callgrind.core"
local names = require "callgrind.names"
local rows = require "callgrind.rows"

local files = {}

--- callgrind_annotate's choice: the files of the rows its listing shows (sorted by `sort`, cut
--- at `opts.threshold` of the first sort event, by inclusive cost with `opts.inclusive`), but
--- unknown files; in name order. Its rows are keyed "file:function", the functions of one name
--- in several objects summed.
function files.by_threshold(prof, sort, opts)
  local query = rows.query(sort, { threshold = opts.threshold, inclusive = opts.inclusive, inlined = opts.inlined })
  query.by_key = not query.merged
  local chosen = {}
  for _, file in ipairs(core.row_files(prof, query)) do
    if not names.is_unknown(file) then chosen[#chosen + 1] = file end
  end
  table.sort(chosen)
  return chosen
end

--- The files to annotate in order: those named (`named`, a list), then, with `auto`, those the
--- threshold chooses. Returns the list and the set of the named ones.
function files.choose(prof, named, auto, sort, opts)
  local order, user, wanted = {}, {}, {}
  for _, file in ipairs(named or {}) do
    if not wanted[file] then
      order[#order + 1] = file
      user[file] = true
      wanted[file] = true
    end
  end
  if auto then
    for _, file in ipairs(files.by_threshold(prof, sort, opts)) do
      if not wanted[file] then
        order[#order + 1] = file
        wanted[file] = true
      end
    end
  end
  return order, user
end

--- Tries the name as written (absolute, or relative to the current directory), then each
--- include directory in turn with the name appended, as callgrind_annotate's -I does. Returns
--- the text and the label for the header, or nil.
function files.find(file, include, reader)
  local text = reader(file)
  if text then return text, file end
  for _, dir in ipairs(include) do
    if dir ~= "" then
      local prefix = dir:sub(-1) == "/" and dir or dir .. "/"
      text = reader(prefix .. file)
      if text then return text, prefix .. " + " .. file end
    end
  end
  return nil
end

--- The lines of a text, without their line ends ("\n", and "\r\n").
function files.split_lines(text)
  local lines, n, pos = {}, 0, 1
  while true do
    local stop = text:find("\n", pos, true)
    if not stop then break end
    n = n + 1
    lines[n] = text:sub(pos, stop - 1)
    pos = stop + 1
  end
  if pos <= #text then lines[n + 1] = text:sub(pos) end
  if text:find("\r", 1, true) then
    for i, line in ipairs(lines) do lines[i] = line:gsub("\r$", "") end
  end
  return lines
end

return files
