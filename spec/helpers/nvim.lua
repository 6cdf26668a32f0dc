-- Runs the Neovim plugin's scenarios (spec/nvim/*.lua) in a headless Neovim for the nvim*_spec
-- files: each scenario writes its findings, a Lua table literal, which `scenario` returns.
--
--   local nvim = require "helpers.nvim"
--   if nvim.skip("the Neovim plugin") then return end
--   local findings = nvim.once(function() return nvim.scenario("hand.lua", dir, cwd) end)
--
-- Needs Neovim on PATH (CALLGRIND_SPEC_NO_NVIM=1 skips these specs without it) and the LuaJIT
-- build of the module, build/jit/callgrind/core.so.
local fixtures = require "helpers.fixtures"
local run = require "helpers.run"

local nvim = {}

local quote = run.quote
local load_chunk = loadstring or load
local read = fixtures.try_read

function nvim.execute(command)
  return run.status(command) == 0
end
local execute = nvim.execute

nvim.REPO = (function()
  local pipe = assert(io.popen("pwd"))
  local dir = pipe:read("*l")
  pipe:close()
  return dir
end)()
nvim.CORE = nvim.REPO .. "/build/jit/callgrind/core.so"

--- Without Neovim on PATH: a describe block named `what` that is pending (with
--- CALLGRIND_SPEC_NO_NVIM=1) or fails, and true.
function nvim.skip(what)
  if execute("command -v nvim >/dev/null 2>&1") then
    return false
  end
  describe(what, function()
    if os.getenv("CALLGRIND_SPEC_NO_NVIM") == "1" then
      pending("nvim is not installed (CALLGRIND_SPEC_NO_NVIM=1)")
    else
      it("needs Neovim", function()
        error("nvim is not on PATH: install Neovim, or set CALLGRIND_SPEC_NO_NVIM=1 to skip these specs")
      end)
    end
  end)
  return true
end

--- A new empty directory.
function nvim.make_dir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(execute("mkdir -p " .. quote(dir)))
  return dir
end

--- Runs spec/nvim/<script> in `cwd` with its files in `dir`; returns the scenario's findings.
--- Fails with Neovim's output when the scenario fails or writes nothing.
function nvim.scenario(script, dir, cwd)
  if not read(nvim.CORE) then
    error(nvim.CORE .. " is missing: build the LuaJIT module first with `make jit-module`")
  end
  local result_path, output_path = dir .. "/findings.lua", dir .. "/nvim-output.txt"
  os.remove(result_path)
  local command = table.concat({
    "cd", quote(cwd), "&&", "env -u LD_PRELOAD",
    "CALLGRIND_SPEC_REPO=" .. quote(nvim.REPO), "CALLGRIND_SPEC_DIR=" .. quote(dir),
    "CALLGRIND_SPEC_OUT=" .. quote(result_path),
    "timeout 60 nvim --headless -u NONE -i NONE -n",
    "--cmd", quote("set rtp^=" .. nvim.REPO:gsub("([ ,\\])", "\\%1")),
    "-c", quote("luafile " .. nvim.REPO:gsub(" ", "\\ ") .. "/spec/nvim/" .. script),
    ">" .. quote(output_path), "2>&1 </dev/null",
  }, " ")
  local finished = execute(command)
  local output = read(output_path) or ""
  local text = read(result_path)
  if not text then
    error(("nvim wrote no findings for %s (%s); its output:\n%s"):format(script,
      finished and "exit 0" or "failed or timed out", output))
  end
  local findings = assert(load_chunk(text, "=findings"))()
  if findings.error then
    error(("the %s scenario failed in nvim: %s\nnvim's output:\n%s"):format(script, findings.error, output))
  end
  return findings
end

--- Runs `make` once, for all the tests of a describe block; its error, if any, every time.
function nvim.once(make)
  local findings, failure
  return function()
    if not findings and not failure then
      local ok, result = pcall(make)
      if ok then
        findings = result
      else
        failure = result
      end
    end
    if failure then
      error(failure, 0)
    end
    return findings
  end
end

return nvim
