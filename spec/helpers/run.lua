-- Runs the example scripts the way a user does: a separate interpreter (the one running the
-- specs) with the module found through the same paths, output and status captured.
local run = {}

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
run.quote = quote

--- The interpreter running the specs, by name.
function run.interpreter()
  if rawget(_G, "jit") then return "luajit" end
  return "lua" .. _VERSION:match("%d+%.%d+")
end

--- The text of a file the helpers made for output ("" when there is none), and the file removed.
local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local text = f:read("*a")
  f:close()
  os.remove(path)
  return text
end
run.read_all = read_all

--- Runs a shell command; returns its exit status as a number on every Lua version.
function run.status(command)
  local ok, how, code = os.execute(command)
  if type(ok) == "number" then -- Lua 5.1: the raw wait status
    if ok > 255 then return math.floor(ok / 256) end
    return ok
  end
  if ok == true then return 0 end
  if how == "exit" then return code end
  return code or 1
end

--- Runs `script` with `args` (a list); returns stdout, stderr and the exit status (a number).
function run.script(script, args)
  local parts = {
    "LUA_PATH=" .. quote(package.path), "LUA_CPATH=" .. quote(package.cpath),
    run.interpreter(), quote(script),
  }
  for _, a in ipairs(args or {}) do parts[#parts + 1] = quote(a) end
  local out, err = os.tmpname(), os.tmpname()
  local command = table.concat(parts, " ") .. " >" .. quote(out) .. " 2>" .. quote(err) .. "; echo $?"
  local pipe = assert(io.popen(command))
  local status = tonumber(pipe:read("*l"))
  pipe:close()
  return read_all(out), read_all(err), status
end

return run
