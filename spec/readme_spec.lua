-- README.md against the module: the API reference names every method, field and module function
-- the code has, and every Lua example runs on the interpreter running the specs.
--
-- The examples run one by one in a separate interpreter (the one running the specs), in a
-- temporary directory holding the files they name; their output (print, io.write, stdout) is
-- captured there. A block is skipped when the line before its opening fence is
-- `<!-- not run -->`, and runs only on some versions after `<!-- runs on Lua 5.4 -->` (versions
-- 5.1 to 5.4, LuaJIT). A comment `--> text` in a block is output the block must print: the
-- texts of a block are found in its output in order, runs of white space counting as one.
local callgrind = require "callgrind"
local core = require "callgrind.core"
local run = require "helpers.run"

local fixtures = require "helpers.fixtures"

local read, write, list = fixtures.read, fixtures.write, fixtures.list

local README = read("README.md")

--- The text of the `## title` section, up to the next `## ` heading.
local function section(title)
  local start = README:find("\n## " .. title .. "\n", 1, true)
  assert(start, "README.md has no section '## " .. title .. "'")
  local stop = README:find("\n## ", start + 1, true)
  return README:sub(start, stop or #README)
end

local API = section("API reference")

--- Whether `text` holds `s` not followed by a character of a name (so that `call.line` does
--- not count as a mention of `call.lin`).
local function mentions(text, s)
  local from = 1
  while true do
    local a, b = text:find(s, from, true)
    if not a then return false end
    if not text:sub(b + 1, b + 1):find("^[%w_]") then return true end
    from = a + 1
  end
end

local function missing_report(missing)
  table.sort(missing)
  return "missing from the API reference of README.md: " .. table.concat(missing, ", ")
end

--- The fields of a kind of object in the binding's field table (csrc/binding/fields.c,
--- `static const field KIND_fields[] = {{"name", SHOWS, getter}, ...}`) that show where `flag`
--- (F_INDEX: obj.name, F_EXACT: obj:exact(name)) says, in table order.
local function fields_of(kind, flag)
  local source = read("csrc/binding/fields.c")
  local table_text = source:match("static const field " .. kind .. "_fields%[%] = (%b{})")
  assert(table_text, "no field table for " .. kind .. " in fields.c")
  local names = {}
  for name, shows in table_text:gmatch('{"([%w_]+)",%s*([^,]+),') do
    if shows:find(flag, 1, true) then names[#names + 1] = name end
  end
  return names
end

local KINDS = {
  { kind = "profile", prefix = "prof" },
  { kind = "function", prefix = "fn" },
  { kind = "call", prefix = "call" },
  { kind = "line", prefix = "line" },
  { kind = "jump", prefix = "jump" },
}

local KEYWORDS = { ["function"] = true, ["end"] = true, ["local"] = true, ["repeat"] = true }

describe("README.md, API reference", function()
  it("names every method of every object as prof:NAME(, fn:NAME(, call:NAME(, line:NAME(, jump:NAME(", function()
    local missing, count = {}, 0
    for _, k in ipairs(KINDS) do
      for name in pairs(core.methods[k.kind]) do
        count = count + 1
        local ref = k.prefix .. ":" .. name .. "("
        if not API:find(ref, 1, true) then missing[#missing + 1] = "`" .. ref .. "`" end
      end
    end
    assert.is_true(count > 20)
    assert(#missing == 0, missing_report(missing))
  end)

  it("names every field of functions, calls, line records and jumps", function()
    local missing = {}
    for _, k in ipairs(KINDS) do
      if k.kind ~= "profile" then
        local fields = fields_of(k.kind, "F_INDEX")
        assert.is_true(#fields >= 3, "no fields found for " .. k.kind .. " in fields.c")
        for _, field in ipairs(fields) do
          local ref = KEYWORDS[field] and (k.prefix .. '["' .. field .. '"]') or (k.prefix .. "." .. field)
          if not mentions(API, ref) then missing[#missing + 1] = "`" .. ref .. "`" end
        end
      end
    end
    assert(#missing == 0, missing_report(missing))
  end)

  it("names every field of the tables profile methods return", function()
    local source = read("csrc/binding/profile_methods.c")
    local fields, seen = {}, {}
    local function add(name)
      if not seen[name] then
        seen[name] = true
        fields[#fields + 1] = name
      end
    end
    for name in source:gmatch('lua_setfield%(L, %-?%d+, "([%w_]+)"%)') do add(name) end
    for name in source:gmatch('{"([%w_]+)", cg_[%w_]+%(p%)}') do add(name) end -- prof:stats()
    -- the header fields of prof:sections(), read by the core (cg_section_header_field)
    local profile_c = read("csrc/profile.c")
    local header_field = profile_c:match("\nvoid cg_section_header_field%(.-\n}\n")
    assert(header_field, "no cg_section_header_field in csrc/profile.c")
    for list in header_field:gmatch("static const char %*const %a+%[%] = (%b{})") do
      for name in list:gmatch('"([%w_]+)"') do add(name) end
    end
    for name in source:gmatch('lua_getfield%(L, %-?%d+, "([%w_]+)"%)') do add(name) end
    assert.is_true(#fields > 20)
    local missing = {}
    for _, name in ipairs(fields) do
      local quoted = API:find("`" .. name .. "`", 1, true)
      local assigned = API:find("[^%w_]" .. name .. "=")
      if not (quoted or assigned) then missing[#missing + 1] = name end
    end
    assert(#missing == 0, missing_report(missing))
  end)

  it("lists the names obj:exact() takes in every table row of obj:exact", function()
    local missing = {}
    for _, k in ipairs(KINDS) do
      local names = fields_of(k.kind, "F_EXACT")
      assert.is_true(#names >= 1, "no exact names found for " .. k.kind)
      local rows = 0
      for row in API:gmatch("\n(| `" .. k.prefix .. ":exact%([^\n]*)") do
        rows = rows + 1
        for _, name in ipairs(names) do
          if not row:find('"' .. name .. '"', 1, true) then
            missing[#missing + 1] = k.prefix .. ':exact("' .. name .. '")'
          end
        end
      end
      assert(rows > 0, "no table row for `" .. k.prefix .. ":exact(`")
    end
    assert(#missing == 0, missing_report(missing))
  end)

  it("names every public function of the Lua modules as MODULE.NAME", function()
    local missing = {}
    local modules = 0
    for _, path in ipairs(list("lua/callgrind/*.lua")) do
      local name = path:match("([%w_]+)%.lua$")
      if name ~= "init" and not name:find("^nvim") then
        modules = modules + 1
        local module = require("callgrind." .. name)
        for key in pairs(module) do
          if type(key) == "string" and not key:find("^_") then
            local ref = name .. "." .. key
            -- a method of objects the module makes is written MODULE:NAME
            local method = name .. ":" .. key
            if not (mentions(API, ref) or mentions(API, method)) then missing[#missing + 1] = "`" .. ref .. "`" end
          end
        end
        -- the modules `callgrind` loads on first use
        if callgrind[name] ~= nil and not mentions(API, "callgrind." .. name) then
          missing[#missing + 1] = "`callgrind." .. name .. "`"
        end
      end
    end
    assert.is_true(modules >= 10)
    for key in pairs(callgrind) do
      if not mentions(API, "callgrind." .. key) then missing[#missing + 1] = "`callgrind." .. key .. "`" end
    end
    for key in pairs(core) do
      if not mentions(API, "core." .. key) then missing[#missing + 1] = "`core." .. key .. "`" end
    end
    assert(#missing == 0, missing_report(missing))
  end)
end)

---------------------------------------------------------------------------------------------
-- The examples

--- Every ```lua block of the README: { line =, code =, skip =, versions = {["5.4"] = true} }.
local function lua_blocks()
  local blocks = {}
  local lines = {}
  for line in (README .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  local i = 1
  while i <= #lines do
    if lines[i] == "```lua" then
      local marker = ""
      local j = i - 1
      while j >= 1 and lines[j]:find("^%s*$") do j = j - 1 end
      if j >= 1 and lines[j]:find("^<!%-%-") then marker = lines[j] end
      local code = {}
      local k = i + 1
      while lines[k] and lines[k] ~= "```" do
        code[#code + 1] = lines[k]
        k = k + 1
      end
      local block = { line = i, code = table.concat(code, "\n") .. "\n" }
      if marker:find("not run", 1, true) then block.skip = true end
      local versions = marker:match("runs on Lua (.-)%s*%-%->")
      if versions then
        block.versions = {}
        for v in versions:gmatch("[%w%.]+") do block.versions[v] = true end
      end
      blocks[#blocks + 1] = block
      i = k
    end
    i = i + 1
  end
  return blocks
end

local function this_version()
  if rawget(_G, "jit") then return "LuaJIT" end
  return _VERSION:match("%d+%.%d+")
end

local function normalized(text)
  return (text:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""))
end

--- The `--> text` comments of a block, in order.
local function expected_output(code)
  local texts = {}
  for line in code:gmatch("[^\n]+") do
    local text = line:match("%-%->%s*(.-)%s*$")
    if text and text ~= "" then texts[#texts + 1] = normalized(text) end
  end
  return texts
end

-- What each block runs in: the module and the bundled sample loaded, as the reference says.
local RUNNER = [=[
local path = arg[1]
local f = assert(io.open(path, "rb"))
local code = f:read("*a")
f:close()
local env = setmetatable({}, { __index = _G })
env.callgrind = require "callgrind"
env.prof = assert(env.callgrind.load("examples/data/sample.callgrind.gz"))
local chunk, err
if setfenv then
  chunk, err = loadstring(code, "=" .. path)
  if chunk then setfenv(chunk, env) end
else
  chunk, err = load(code, "=" .. path, "t", env)
end
if not chunk then
  io.stderr:write(err, "\n")
  os.exit(3)
end
local ok, failure = xpcall(chunk, debug.traceback)
io.stdout:flush()
if not ok then
  io.stderr:write(tostring(failure), "\n")
  os.exit(1)
end
]=]

-- Files the examples name, made from the bundled sample.
local FILES = {
  ["examples/data/sample.callgrind.gz"] = "examples/data/sample.callgrind.gz",
  ["examples/data/sample.c"] = "examples/data/sample.c",
  ["callgrind.out.1234"] = "examples/data/sample.callgrind.gz",
  ["callgrind.out.before"] = "examples/data/sample.callgrind.gz",
  ["callgrind.out.after"] = "examples/data/sample.callgrind.gz",
}

local function shell(command)
  local pipe = assert(io.popen("(" .. command .. ") 2>&1; echo \"status $?\""))
  local out = pipe:read("*a")
  pipe:close()
  return out
end

--- Module search paths with every relative entry made absolute, for a run elsewhere.
local function absolute(paths, cwd)
  local out = {}
  for entry in paths:gmatch("[^;]+") do
    if entry:sub(1, 1) ~= "/" then entry = cwd .. "/" .. entry end
    out[#out + 1] = entry
  end
  return table.concat(out, ";")
end

describe("README.md, examples", function()
  local blocks = lua_blocks()
  local quote = run.quote
  local cwd = shell("pwd"):match("^([^\n]*)")
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    local commands = { "mkdir -p " .. quote(dir .. "/examples/data") }
    for name, source in pairs(FILES) do
      commands[#commands + 1] = "cp " .. quote(source) .. " " .. quote(dir .. "/" .. name)
    end
    local out = shell(table.concat(commands, " && "))
    assert(out:find("status 0", 1, true), out)
    write(dir .. "/runner.lua", RUNNER)
  end)

  teardown(function()
    if dir and dir:find("^/tmp/") then shell("rm -rf " .. quote(dir)) end
  end)

  it("has examples, few of them marked not to run", function()
    local skipped = 0
    for _, block in ipairs(blocks) do
      if block.skip then skipped = skipped + 1 end
    end
    assert.is_true(#blocks >= 15)
    assert.is_true(skipped <= 3)
  end)

  for n, block in ipairs(blocks) do
    local first = block.code:match("^([^\n]*)")
    local title = ("example %d (README.md line %d) runs: %s"):format(n, block.line, first)
    local runs_here = not block.skip and (not block.versions or block.versions[this_version()])
    if runs_here then
      it(title, function()
        local file = ("example%02d.lua"):format(n)
        write(dir .. "/" .. file, block.code)
        local command = table.concat({
          "cd " .. quote(dir), "&&",
          "LUA_PATH=" .. quote(absolute(package.path, cwd)),
          "LUA_CPATH=" .. quote(absolute(package.cpath, cwd)),
          run.interpreter(), "runner.lua", file,
          ">" .. quote(dir .. "/" .. file .. ".out"), "2>" .. quote(dir .. "/" .. file .. ".err"),
        }, " ")
        local status = shell(command)
        local out = read(dir .. "/" .. file .. ".out")
        local err = read(dir .. "/" .. file .. ".err")
        assert(status:find("status 0", 1, true),
          ("README.md line %d: the example fails:\n%s\n%s"):format(block.line, err, status))
        local text, from = normalized(out), 1
        for _, expected in ipairs(expected_output(block.code)) do
          local a, b = text:find(expected, from, true)
          assert(a, ("README.md line %d: the output lacks '%s' (in order); it is:\n%s")
            :format(block.line, expected, out))
          from = b + 1
        end
      end)
    else
      pending(title .. " (not on this Lua)")
    end
  end
end)
