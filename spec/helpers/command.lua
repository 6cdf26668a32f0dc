-- Test helper: the `callgrind` command as LuaRocks installs it, run the way a user runs it —
-- from a directory outside the checkout, with no LUA_PATH pointing into it.
--
--   local command = require "helpers.command"
--   local out, err, status = command.run { "top", "-n", "3", path }
--   command.run({ "info", "-" }, { stdin = text, env = { NO_COLOR = "1" } })
--
-- `make test-lua` installs the rock into build/VERSION/rock and names the command in
-- CALLGRIND_COMMAND; run alone, the helper asks make for that tree itself.
local run = require "helpers.run"

local command = {}

local quote, read_all = run.quote, run.read_all

local function repository()
  local pipe = assert(io.popen("pwd"))
  local dir = pipe:read("*l")
  pipe:close()
  return dir
end

local path_cache
--- The installed command's path.
function command.path()
  if path_cache then return path_cache end
  local env = os.getenv("CALLGRIND_COMMAND")
  if env and env ~= "" then
    path_cache = env
    return env
  end
  local interpreter = run.interpreter()
  local version = interpreter == "luajit" and "jit" or interpreter:match("^lua(.*)$")
  local log = os.tmpname()
  local ok = os.execute(("make -s LUA=%s rock >%s 2>&1"):format(interpreter, quote(log)))
  if ok ~= true and ok ~= 0 then error("make rock failed:\n" .. read_all(log), 0) end
  os.remove(log)
  path_cache = repository() .. "/build/" .. version .. "/rock/bin/callgrind"
  return path_cache
end

local scratch
--- A directory of its own outside the checkout, where the command runs by default.
function command.scratch()
  if not scratch then
    scratch = os.tmpname()
    os.remove(scratch)
    assert(os.execute("mkdir -p " .. quote(scratch)))
  end
  return scratch
end

--- Removes the scratch directory.
function command.cleanup()
  if scratch then os.execute("rm -rf " .. quote(scratch)) end
  scratch = nil
end

--- Runs the command with `args` (a list). opts.stdin: text for standard input; opts.cwd:
--- the directory (default: the scratch directory); opts.env: variables to set ({NAME = value},
--- false to unset); opts.path: the command (default: the installed one); opts.stdout: a file
--- standard output goes to instead ("/dev/full"), whose text is then not read. Returns standard
--- output, standard error and the exit status.
function command.run(args, opts)
  opts = opts or {}
  local parts = { "cd", quote(opts.cwd or command.scratch()), "&&", "env" }
  -- a sanitizer runtime preloaded into the specs' interpreter is not the command's
  if os.getenv("LD_PRELOAD") then parts[#parts + 1] = "-u LD_PRELOAD" end
  parts[#parts + 1] = "-u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_2 -u LUA_CPATH_5_2 -u LUA_PATH_5_3"
    .. " -u LUA_CPATH_5_3 -u LUA_PATH_5_4 -u LUA_CPATH_5_4"
  for name, value in pairs(opts.env or {}) do
    if value == false then
      parts[#parts + 1] = "-u " .. name
    else
      parts[#parts + 1] = name .. "=" .. quote(value)
    end
  end
  parts[#parts + 1] = quote(opts.path or command.path())
  for _, a in ipairs(args) do parts[#parts + 1] = quote(a) end
  local out, err = os.tmpname(), os.tmpname()
  local input = "/dev/null"
  if opts.stdin then
    input = os.tmpname()
    local f = assert(io.open(input, "wb"))
    f:write(opts.stdin)
    f:close()
  end
  local line = table.concat(parts, " ") .. " <" .. quote(input) .. " >" .. quote(opts.stdout or out) .. " 2>" .. quote(err)
    .. "; echo $?"
  local pipe = assert(io.popen(line))
  local status = tonumber(pipe:read("*l"))
  pipe:close()
  if opts.stdin then os.remove(input) end
  if opts.stdout then os.remove(out) end
  return opts.stdout and "" or read_all(out), read_all(err), status
end

return command
