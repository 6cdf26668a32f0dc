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
end)
