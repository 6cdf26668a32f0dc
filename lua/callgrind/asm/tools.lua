-- callgrind.asm.tools: runs binutils' programs (objdump) and hands back what they print.
--
-- Every argument goes through the shell single-quoted, so object names taken from a profile
-- cannot run anything. Works on Lua 5.1 to 5.4 and LuaJIT: the exit status is read from the
-- shell's own `echo $?`, since pipe:close() does not report it on 5.1.
local tools = {}

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function read_and_remove(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local text = f:read("*a")
  f:close()
  os.remove(path)
  return text
end

--- Whether `program` (a name looked up on PATH, or a path) can be run.
function tools.found(program)
  local pipe = io.popen("command -v " .. quote(program) .. " >/dev/null 2>&1; echo $?")
  local status = pipe and pipe:read("*l")
  if pipe then pipe:close() end
  return status == "0"
end

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
  local pipe = io.popen("[ " .. quote(a) .. " -nt " .. quote(b) .. " ]; echo $?")
  local status = pipe and pipe:read("*l")
  if pipe then pipe:close() end
  return status == "0"
end

return tools
