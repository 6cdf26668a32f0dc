-- :checkhealth callgrind (lua/callgrind/health.lua) in a headless Neovim: the module found,
-- loaded and its version; a module built for another Lua, one older than its sources and a
-- missing one reported as such; Graphviz present or not. Scenario: spec/nvim/health.lua.
local callgrind = require "callgrind"
local nvim = require "helpers.nvim"
local run = require "helpers.run"

local quote = run.quote
local execute = nvim.execute
local REPO = nvim.REPO

if nvim.skip(":checkhealth callgrind") then
  return
end

local function sh(command)
  assert(execute(command), "failed: " .. command)
end

-- The files of spec/nvim/health.lua.
local function health_files()
  local dir = nvim.make_dir()
  sh("mkdir -p " .. quote(dir .. "/plugin") .. " " .. quote(dir .. "/stale/lua/callgrind") .. " "
    .. quote(dir .. "/stale/csrc") .. " " .. quote(dir .. "/other/callgrind") .. " " .. quote(dir .. "/empty"))
  sh("cp -R " .. quote(REPO .. "/lua") .. " " .. quote(REPO .. "/plugin") .. " " .. quote(dir .. "/plugin"))
  sh("rm -f " .. quote(dir .. "/plugin/lua/callgrind/core.so"))
  sh("cp " .. quote(nvim.CORE) .. " " .. quote(dir .. "/stale/lua/callgrind/core.so"))
  sh("touch -d 2020-01-01 " .. quote(dir .. "/stale/lua/callgrind/core.so"))
  sh("touch " .. quote(dir .. "/stale/csrc/newer.c"))
  -- lua_callk is in Lua 5.2 to 5.4, not in LuaJIT: what a module built for them calls
  local source = dir .. "/other/core.c"
  require("helpers.fixtures").write(source, "int lua_callk(void *L, int n, int r, long c, void *k);\n"
    .. "int luaopen_callgrind_core(void *L);\n"
    .. "int luaopen_callgrind_core(void *L) { return lua_callk(L, 0, 0, 0, 0); }\n")
  sh("cc -shared -fPIC -o " .. quote(dir .. "/other/callgrind/core.so") .. " " .. quote(source))
  return dir
end

-- The report's lines of one status, as "STATUS text".
local function lines(report)
  local out = {}
  for i, line in ipairs(report.lines) do
    out[i] = line.status .. " " .. line.text
  end
  return out
end

describe(":checkhealth callgrind", function()
  local dir
  local findings = nvim.once(function()
    dir = health_files()
    return nvim.scenario("health.lua", dir, dir)
  end)

  teardown(function()
    if dir then
      execute("rm -rf " .. quote(dir))
    end
  end)

  local has_dot = execute("command -v dot >/dev/null 2>&1")

  it("reports the module found, loaded into Neovim's Lua, and its version", function()
    local f = findings()
    local report = lines(f.installed)
    assert.are.same({
      "OK callgrind.core found: " .. nvim.CORE,
      "OK built for Neovim's Lua (" .. f.lua .. "): it loads",
      "OK version " .. callgrind._VERSION,
      "OK require \"callgrind\" works",
    }, { report[1], report[2], report[3], report[4] })
    assert.are.equal(5, #report)
    if has_dot then
      assert.matches("^OK Graphviz: /.*/dot %(version [%d.]+%)$", report[5])
    else
      assert.matches("^WARNING Graphviz's `dot` not found", report[5])
    end
  end)

  it("warns when Graphviz is missing", function()
    local report = lines(findings().no_dot)
    assert.are.equal(5, #report)
    assert.are.equal("WARNING Graphviz's `dot` not found: needed only to draw the call graphs callgrind.dot writes",
      report[5])
    assert.matches("apt-get install graphviz", findings().no_dot.text, 1, true)
  end)

  it("names the copy Neovim loads first, the others, and a module older than its sources", function()
    local f = findings()
    local report = lines(f.stale)
    local stale = dir .. "/stale/lua/callgrind/core.so"
    assert.are.equal("OK callgrind.core found: " .. stale, report[1])
    assert.matches("not used, found after it: " .. nvim.CORE, f.stale.text, 1, true)
    assert.are.equal("OK version " .. callgrind._VERSION, report[3])
    assert.are.equal(("WARNING %s is older than %s/stale/csrc/newer.c: the sources changed since it was built")
      :format(stale, dir), report[4])
    assert.are.equal("OK require \"callgrind\" works", report[5])
  end)

  it("reports a module built for another Lua, with what to do", function()
    local f = findings()
    local path = dir .. "/other/callgrind/core.so"
    assert.are.same({
      "OK callgrind.core found: " .. path,
      ("ERROR %s was built for another Lua than Neovim's %s: it needs lua_callk, which %s lacks")
        :format(path, f.lua, f.lua),
    }, { lines(f.other_lua)[1], lines(f.other_lua)[2] })
    assert.matches("run `make nvim` in the plugin's directory", f.other_lua.text, 1, true)
  end)

  it("reports a missing module, with what to do", function()
    local report = findings().missing
    assert.are.equal("ERROR callgrind.core not found: neither lua/callgrind/core.so in 'runtimepath' nor on "
      .. "package.cpath", lines(report)[1])
    assert.matches("run `make nvim` in the plugin's directory", report.text, 1, true)
  end)
end)
