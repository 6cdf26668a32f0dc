-- callgrind.system: the few things the module asks of the operating system — quoting for the
-- shell, whether a command succeeded or a program is installed, reading a whole file — in one
-- place, the same on Lua 5.1 to 5.4 and LuaJIT.
--
--   local system = require "callgrind.system"
--   if system.found("dot") then system.execute("dot -Tsvg " .. system.quote(path)) end
local system = {}

--- `s` single-quoted for the POSIX shell, so that no character of it is read by the shell.
function system.quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

--- Whether what os.execute returned means the command exited with status 0 (Lua 5.1 and
--- LuaJIT without 5.2 compatibility return the status, later Luas true/nil, how, code).
function system.succeeded(ok, how, code)
  if type(ok) == "number" then return ok == 0 end
  return ok == true and (how == nil or how == "exit") and (code == nil or code == 0)
end

--- Runs a shell command line; whether it exited with status 0.
function system.execute(command)
  return system.succeeded(os.execute(command))
end

--- Whether `program` (a name looked up on PATH, or a path) can be run.
function system.found(program)
  return system.execute("command -v " .. system.quote(program) .. " >/dev/null 2>&1")
end

--- The whole content of the file at `path`, or nil and a message.
function system.read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("*a")
  f:close()
  return text
end

return system
