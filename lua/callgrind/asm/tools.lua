-- callgrind.asm.tools: runs binutils' programs (objdump) and hands back what they print.
--
-- Every argument goes through the shell single-quoted, so object names taken from a profile
-- cannot run anything. Works on Lua 5.1 to 5.4 and LuaJIT: the exit status is read from the
-- shell's own `echo $?`, since pipe:close() does not report it on 5.1.
local system = require "callgrind.system"

local tools = {}

local quote = system.quote

local function read_and_remove(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local text = f:read("*a")
  f:close()
  os.remove(path)
  return text
end

--- Whether `program` (a name looked up on PATH, or a path) can be run.
tools.found = system.found

--- Runs `program` with the list `args`; returns its standard output, its standard error and
--- its exit status (a number).
function tools.run(program, args)
  local parts = { quote(program) }
  for i, arg in ipairs(args) do parts[i + 1] = quote(arg) end
  local err_path = os.tmpname()
  local command = table.concat(parts, " ") .. " 2>" .. quote(err_path) .. "; printf '\\n%s' $?"
  local pipe = assert(io.popen(command))
  local out = pipe:read("*a")
  pipe:close()
  local text, status = out:match("^(.*)\n(%d+)$")
  return text or out, read_and_remove(err_path), tonumber(status) or -1
end

--- Whether path names a file that can be opened for reading.
function tools.readable(path)
  local f = io.open(path, "rb")
  if not f then return false end
  f:close()
  return true
end

--- Whether the file `a` was modified after the file `b` (false when either is missing).
function tools.newer(a, b)
  return system.execute("[ " .. quote(a) .. " -nt " .. quote(b) .. " ]")
end

return tools
