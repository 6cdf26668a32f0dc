-- callgrind.command.output: where the subcommands write, and how. Text goes to standard output
-- unchanged when that is a pipe or a file; only on a terminal are long lines cut to its width,
-- and colours are used when --color and NO_COLOR allow them.
--
--   local out = output.new { color = "auto" }
--   out:line(out:paint("bold", "Total") .. " 1,234")
local system = require "callgrind.system"

local output = {}
output.__index = output

local STYLES = {
  bold = "\27[1m",
  red = "\27[31m",
  green = "\27[32m",
  dim = "\27[2m",
}
local RESET = "\27[0m"

--- Whether file descriptor `fd` (1 for standard output, 2 for standard error) is a terminal.
function output.is_terminal(fd)
  return system.execute(("[ -t %d ]"):format(fd))
end

-- The terminal's width: $COLUMNS, else what stty says of the terminal, else 80.
local function terminal_width()
  local columns = tonumber(os.getenv("COLUMNS") or "")
  if columns and columns > 0 then return columns end
  local pipe = io.popen("stty size </dev/tty 2>/dev/null")
  local answer = pipe and pipe:read("*l")
  if pipe then pipe:close() end
  local width = answer and tonumber(answer:match("^%d+%s+(%d+)"))
  return width and width > 0 and width or 80
end

--- Whether colours are wanted: `choice` is "always", "never" or "auto" (colours on a
--- terminal unless the NO_COLOR environment variable is set and not empty, or TERM is dumb).
function output.wants_color(choice, terminal)
  if choice == "always" then return true end
  if choice == "never" then return false end
  local no_color = os.getenv("NO_COLOR")
  if no_color and no_color ~= "" then return false end
  if os.getenv("TERM") == "dumb" then return false end
  return terminal
end

--- An output on standard output. opts.color: "always", "never" or "auto" (default);
--- opts.terminal: whether standard output is a terminal (default: asked once).
function output.new(opts)
  opts = opts or {}
  local terminal = opts.terminal
  if terminal == nil then terminal = output.is_terminal(1) end
  local self = setmetatable({ file = opts.file or io.stdout, terminal = terminal, bytes = 0 }, output)
  self.color = output.wants_color(opts.color or "auto", terminal)
  self.width = terminal and (opts.width or terminal_width()) or nil
  return self
end

--- `text` in a style ("bold", "red", "green", "dim") when colours are on; else unchanged.
function output:paint(style, text)
  if not self.color then return text end
  return STYLES[style] .. text .. RESET
end

-- The number of columns `text` takes: escape sequences take none, and each UTF-8 character
-- one.
local function visible_length(text)
  local plain = text:gsub("\27%[[%d;]*m", "")
  local _, continuation = plain:gsub("[\128-\191]", "")
  return #plain - continuation
end

-- `line` cut to `width` columns, escape sequences kept whole, ending with a reset when it
-- held any.
local function cut(line, width)
  local kept, shown, i = {}, 0, 1
  while i <= #line and shown < width do
    local s, e = line:find("^\27%[[%d;]*m", i)
    if s then
      kept[#kept + 1] = line:sub(s, e)
      i = e + 1
    else
      local c = line:sub(i, i)
      local n = 1
      local byte = c:byte()
      if byte >= 0xF0 then n = 4 elseif byte >= 0xE0 then n = 3 elseif byte >= 0xC0 then n = 2 end
      kept[#kept + 1] = line:sub(i, i + n - 1)
      i = i + n
      shown = shown + 1
    end
  end
  local text = table.concat(kept)
  if text:find("\27", 1, true) then text = text .. RESET end
  return text
end

--- Writes one line of a screen-sized listing: cut to the terminal's width on a terminal,
--- whole on a pipe or in a file.
function output:line(text)
  text = (text or ""):gsub("%s+$", "")
  if self.width and visible_length(text) > self.width then text = cut(text, self.width) end
  self.file:write(text, "\n")
end

--- Writes text as it is (reports, data: never cut), counting its bytes (`bytes`); returns what
--- the file's write returns (the file, or nil and a message), so that a report written here
--- in pieces sees a failure.
function output:write(...)
  for i = 1, select("#", ...) do
    local piece = select(i, ...)
    self.bytes = self.bytes + (type(piece) == "string" and #piece or 1)
  end
  return self.file:write(...)
end

return output
