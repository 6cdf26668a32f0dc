-- callgrind.load_async: a load in a native thread, polled, waited for, cancelled or dropped.
local callgrind = require "callgrind"
local fixtures = require "helpers.fixtures"
local generated = require "helpers.generated"
local run = require "helpers.run"

-- Under ThreadSanitizer (make tsan) no child process can run: the preloaded runtime breaks sh.
local CHILDREN = os.getenv("CALLGRIND_SPEC_TSAN") == nil

local FUNCTIONS, LINES = 20000, 40 -- some megabytes: a few tenths of a second to load

-- Polls until the load ends; returns what the last poll returned and the "loading" polls seen.
local function poll_to_end(handle)
  local seen = {}
  while true do
    local a, b, c = handle:poll()
    if a ~= "loading" then return a, b, c, seen end
    seen[#seen + 1] = { b, c }
  end
end

describe("load_async", function()
  local base = os.tmpname()
  local big, small, broken = base .. ".big", base .. ".small", base .. ".broken"
  local script = base .. ".lua"

  setup(function()
    fixtures.write(big, generated.profile_text(FUNCTIONS, LINES))
    fixtures.write(small, generated.profile_text(30, 5))
    fixtures.write(broken, "events: Ir\nfn=main\n1 2\nthis is not a cost line\n")
  end)

  teardown(function()
    for _, path in ipairs { big, small, broken, script, base } do os.remove(path) end
  end)

  it("polls while loading, then returns the profile load would", function()
    local handle = assert(callgrind.load_async(big))
    local prof, _, _, seen = poll_to_end(handle)
    assert.equal(generated.ir_total(FUNCTIONS, LINES), prof:total("Ir"))
    assert.equal(FUNCTIONS, prof:stats().functions)
    local size = #fixtures.read(big)
    local last = 0
    for _, progress in ipairs(seen) do
      assert.is_true(progress[1] >= last and progress[1] <= size)
      assert.is_true(progress[2] == 0 or progress[2] == size)
      last = progress[1]
    end
    -- the same profile on every poll afterwards
    assert.equal(prof, handle:poll())
    assert.equal(prof, handle:wait())
    local sync = assert(callgrind.load(big))
    assert.equal(sync:total("Dr"), prof:total("Dr"))
    assert.equal(sync:find("function_77"):inclusive("Ir"), prof:find("function_77"):inclusive("Ir"))
  end)

  it("waits for a list of paths, loaded into one model", function()
    local prof = assert(callgrind.load_async({ small, small }):wait())
    assert.equal(2 * generated.ir_total(30, 5), prof:total("Ir"))
  end)

  it("returns load's errors: the file, the line and the kind", function()
    local prof, message, kind = callgrind.load_async(broken):wait()
    local _, sync_message, sync_kind = callgrind.load(broken)
    assert.is_nil(prof)
    assert.equal(sync_message, message)
    assert.equal("format", kind)
    assert.equal(sync_kind, kind)
    assert.truthy(message:find(broken .. ":4:", 1, true))
    local _, missing, missing_kind = callgrind.load_async(base .. ".nowhere"):wait()
    assert.truthy(missing:find(base .. ".nowhere", 1, true))
    assert.equal("io", missing_kind)
  end)

  it("takes load's options, but for progress", function()
    local prof = assert(callgrind.load_async(broken, { strict = false }):wait())
    assert.equal(1, #prof:warnings())
    assert.equal(2, prof:total("Ir"))
    assert.has_error(function() callgrind.load_async(small, { progress = print }) end,
      "bad argument #2 to 'load_async' (opts.progress is for load: poll the handle instead)")
    assert.has_error(function() callgrind.load_async(42) end)
    assert.has_error(function() callgrind.load_async({}) end)
  end)

  it("cancels a running load: poll then says so", function()
    local handle = assert(callgrind.load_async(big))
    assert.is_true(handle:cancel())
    local prof, message, kind = handle:poll()
    assert.is_nil(prof)
    assert.equal(big .. ": load cancelled", message)
    assert.equal("aborted", kind)
    assert.is_false(handle:cancel())
    assert.equal("callgrind background load (cancelled)", tostring(handle))
  end)

  it("leaves a finished load alone when cancelled afterwards", function()
    local handle = assert(callgrind.load_async(small))
    local prof = assert(handle:wait())
    assert.is_false(handle:cancel())
    assert.equal(prof, handle:poll())
    assert.equal(generated.ir_total(30, 5), prof:total("Ir"))
  end)

  it("cancels and joins a handle collected while loading", function()
    for _ = 1, 4 do callgrind.load_async(big) end
    collectgarbage()
    collectgarbage()
    local prof = assert(callgrind.load_async(small):wait())
    assert.equal(generated.ir_total(30, 5), prof:total("Ir"))
  end)

  it("runs many loads at once", function()
    local handles = {}
    for i = 1, 6 do handles[i] = assert(callgrind.load_async(i % 2 == 0 and big or small)) end
    for i = #handles, 1, -1 do
      local prof = assert(handles[i]:wait())
      local expected = i % 2 == 0 and generated.ir_total(FUNCTIONS, LINES) or generated.ir_total(30, 5)
      assert.equal(expected, prof:total("Ir"))
    end
  end)

  local child_it = CHILDREN and it or pending
  child_it("lets the interpreter exit while a load runs", function()
    fixtures.write(script, ([[
      local callgrind = require "callgrind"
      local loads = { callgrind.load_async(%q), callgrind.load_async(%q) }
      print(#loads == 2 and "started")
    ]]):format(big, big))
    local out, err, status = run.script(script)
    assert.equal("started\n", out)
    assert.equal("", err)
    assert.equal(0, status)
  end)
end)
