-- callgrind.health: `:checkhealth callgrind` in Neovim — whether Neovim finds the C module
-- (callgrind.core), whether it loads into Neovim's LuaJIT (a module built for another Lua
-- lacks that Lua's functions), its version, whether it is older than the C sources beside it,
-- and whether Graphviz's `dot` is there to draw the graphs of callgrind.dot. Neovim only; the
-- file loads anywhere (it touches `vim` only when check() runs).
local health = {}

-- Neovim 0.7 has require("health") with report_*; 0.9 adds vim.health.start, ok, ...; 0.10
-- deprecates report_*.
local function reporter()
  local api = vim.health or require "health"
  return {
    start = api.start or api.report_start,
    ok = api.ok or api.report_ok,
    info = api.info or api.report_info,
    warn = api.warn or api.report_warn,
    error = api.error or api.report_error,
  }
end

local BUILD_ADVICE = "run `make nvim` in the plugin's directory (see :help callgrind-install)"

-- Every file `require "callgrind.core"` may load, in the order Neovim tries them: 'runtimepath'
-- (lua/callgrind/core.so), then package.cpath.
local function candidates()
  local found = {}
  for _, path in ipairs(vim.api.nvim_get_runtime_file("lua/callgrind/core.so", true)) do
    found[#found + 1] = path
  end
  local on_cpath = package.searchpath("callgrind.core", package.cpath)
  if on_cpath then
    found[#found + 1] = on_cpath
  end
  return found
end

-- The Lua Neovim runs, as said in the report.
local function lua_name()
  return rawget(_G, "jit") and jit.version or _VERSION
end

-- Whether the module at `path` loads into this Lua; on failure the message to report.
local function loads(path)
  local open, err = package.loadlib(path, "luaopen_callgrind_core")
  if open then return true end
  local symbol = tostring(err):match("undefined symbol: (luaL?_[%w_]+)")
  if symbol then
    return false, ("%s was built for another Lua than Neovim's %s: it needs %s, which %s lacks"):format(path,
      lua_name(), symbol, lua_name())
  end
  return false, ("%s does not load: %s"):format(path, tostring(err))
end

-- A file's modification time in seconds, or nil when it does not exist.
local function mtime(path)
  local stat = (vim.uv or vim.loop).fs_stat(path)
  return stat and stat.mtime.sec
end

-- The newest C source of the checkout the module at `path` lies in (PLUGIN/lua/callgrind/
-- core.so beside PLUGIN/csrc), or nil when it does not lie in one.
local function newest_source(path)
  local root = path:match("^(.*)/lua/callgrind/core%.so$")
  if not root then return nil end
  local newest, newest_time
  for _, pattern in ipairs({ "csrc/*.[ch]", "csrc/*/*.[ch]" }) do
    for _, file in ipairs(vim.fn.glob(root .. "/" .. pattern, true, true)) do
      local time = mtime(file)
      if time and (not newest_time or time > newest_time) then newest, newest_time = file, time end
    end
  end
  return newest, newest_time
end

local function check_module(report)
  local found = candidates()
  if #found == 0 then
    report.error("callgrind.core not found: neither lua/callgrind/core.so in 'runtimepath' nor on package.cpath",
      { BUILD_ADVICE })
    return
  end
  local path = found[1]
  report.ok("callgrind.core found: " .. path)
  for i = 2, #found do
    report.info("not used, found after it: " .. found[i])
  end
  local ok, why = loads(path)
  if not ok then
    report.error(why, { BUILD_ADVICE })
    return
  end
  local loaded, core = pcall(require, "callgrind.core")
  if not loaded then
    report.error("require \"callgrind.core\" failed: " .. tostring(core), { BUILD_ADVICE })
    return
  end
  report.ok(("built for Neovim's Lua (%s): it loads"):format(lua_name()))
  report.ok("version " .. tostring(core._VERSION))
  local source, source_time = newest_source(path)
  local built = mtime(path)
  if source and built and source_time > built then
    report.warn(("%s is older than %s: the sources changed since it was built"):format(path, source),
      { BUILD_ADVICE })
  end
  local layer, err = pcall(require, "callgrind")
  if layer then
    report.ok("require \"callgrind\" works")
  else
    report.error("require \"callgrind\" failed: " .. tostring(err), { BUILD_ADVICE })
  end
end

local function check_graphviz(report)
  if vim.fn.executable("dot") == 1 then
    local version = vim.fn.system({ "dot", "-V" }):match("version%s+(%S+)")
    report.ok(("Graphviz: %s%s"):format(vim.fn.exepath("dot"), version and " (version " .. version .. ")" or ""))
  else
    report.warn("Graphviz's `dot` not found: needed only to draw the call graphs callgrind.dot writes",
      { "install Graphviz (Debian: apt-get install graphviz)" })
  end
end

--- Run by :checkhealth callgrind.
function health.check()
  local report = reporter()
  report.start("callgrind: the profile reader")
  check_module(report)
  report.start("callgrind: optional programs")
  check_graphviz(report)
end

return health
