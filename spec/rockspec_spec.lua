-- The rockspec builds what the repository holds: every C source and every Lua module.
local list = require("helpers.fixtures").list

local function rockspec()
  local env = {}
  local chunk
  if setfenv then
    chunk = assert(loadfile("callgrind-scm-1.rockspec"))
    setfenv(chunk, env)
  else
    chunk = assert(loadfile("callgrind-scm-1.rockspec", "t", env))
  end
  chunk()
  return env
end

describe("callgrind-scm-1.rockspec", function()
  local spec = rockspec()
  local modules = spec.build.modules

  it("compiles every C source of the core and the binding", function()
    local sources = {}
    for _, path in ipairs(modules["callgrind.core"].sources) do sources[#sources + 1] = path end
    table.sort(sources)
    local expected = list("csrc/*.c")
    for _, path in ipairs(list("csrc/binding/*.c")) do expected[#expected + 1] = path end
    table.sort(expected)
    assert.same(expected, sources)
  end)

  it("installs every Lua module under its name", function()
    local installed = {}
    for name, path in pairs(modules) do
      if type(path) == "string" then
        installed[#installed + 1] = path
        local file = "lua/" .. name:gsub("%.", "/")
        if path:match("/init%.lua$") then file = file .. "/init" end
        assert.equal(file .. ".lua", path)
      end
    end
    table.sort(installed)
    local expected = list("lua/callgrind/*.lua")
    for _, path in ipairs(list("lua/callgrind/*/*.lua")) do expected[#expected + 1] = path end
    table.sort(expected)
    assert.same(expected, installed)
  end)

  it("installs the callgrind command, its man page and its bash completion", function()
    assert.same({ callgrind = "bin/callgrind" }, spec.build.install.bin)
    local copied = {}
    for _, d in ipairs(spec.build.copy_directories) do copied[d] = true end
    assert.truthy(copied.man and copied.completion)
    assert.truthy(io.open("man/callgrind.1")):close()
    assert.truthy(io.open("completion/callgrind.bash")):close()
    assert.equal("#!/usr/bin/env lua\n", io.open("bin/callgrind"):read("*l") .. "\n")
  end)

  it("depends on argparse, which the command parses its options with", function()
    local names = {}
    for _, dep in ipairs(spec.dependencies) do names[#names + 1] = dep:match("^(%S+)") end
    assert.same({ "lua", "argparse" }, names)
  end)
end)

-- The rock as LuaRocks builds it (its builtin backend, its own flags): the tree `make rock` installs
-- for the command's specs (build/VERSION/rock, built offline from a copy of the sources), on every
-- interpreter.
describe("the rock built by luarocks", function()
  local run = require "helpers.run"
  local quote = run.quote
  local tree = require("helpers.command").path():match("^(.*)/bin/callgrind$")
  local interpreter = run.interpreter()
  local abi = rawget(_G, "jit") and "5.1" or _VERSION:match("%d+%.%d+")

  local function output(command)
    local pipe = assert(io.popen(command))
    local text = pipe:read("*a")
    pipe:close()
    return text
  end

  it("exports luaopen_callgrind_core and nothing else", function()
    local module = tree .. "/lib/lua/" .. abi .. "/callgrind/core.so"
    local symbols = {}
    for name in output("nm -D --defined-only " .. quote(module)):gmatch("%S+ %a (%S+)") do
      symbols[#symbols + 1] = name
    end
    assert.same({ "luaopen_callgrind_core" }, symbols)
  end)

  it("installs a module that loads profiles", function()
    local env = ("LUA_PATH=%s LUA_CPATH=%s"):format(quote(tree .. "/share/lua/" .. abi .. "/?.lua;" .. tree
      .. "/share/lua/" .. abi .. "/?/init.lua"), quote(tree .. "/lib/lua/" .. abi .. "/?.so"))
    local printed = output(env .. " " .. interpreter .. " -e " .. quote('local cg = require "callgrind" '
      .. 'print(assert(cg.load("examples/data/sample.callgrind.gz")):total("Ir"), cg._VERSION)'))
    assert.equal("4976287\t" .. require("callgrind")._VERSION .. "\n", printed)
  end)
end)
