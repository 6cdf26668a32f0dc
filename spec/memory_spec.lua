-- The garbage collector is told what each model holds: a script that loads profiles one after
-- the other and drops them, without prof:close(), keeps about one or two models alive, not all.
-- Peaks are read from /proc/self/status (VmHWM) in a fresh interpreter, so that nothing else of
-- the spec run counts.
local fixtures = require "helpers.fixtures"
local run = require "helpers.run"
local generated = require "helpers.generated"

-- Loads (or merges) `times` times, dropping each profile (or closing it), and prints the peak.
local LOOP = [[
local callgrind = require "callgrind"
local path, times, mode = arg[1], tonumber(arg[2]), arg[3]
local total = 0
local base = mode == "merge" and assert(callgrind.load(path))
for _ = 1, times do
  local prof = base and assert(callgrind.merge { base, base }) or assert(callgrind.load(path))
  total = total + prof:total("Ir")
  if mode == "close" then prof:close() end
end
local status = io.open("/proc/self/status"):read("*a")
print(status:match("VmHWM:%s*(%d+) kB"), total)
]]

local function peak_kb(script, path, times, mode)
  local out, err, status = run.script(script, { path, tostring(times), mode or "" })
  assert(status == 0, err)
  local kb, total = out:match("^(%d+)%s+(%d+)")
  return tonumber(kb), tonumber(total)
end

-- Under AddressSanitizer or memcheck freed blocks are held back on purpose (quarantine), so a
-- peak says nothing about the collector: `make sanitize` and `make memcheck` set this.
local SANITIZED = os.getenv("CALLGRIND_SPEC_SANITIZED") ~= nil
local peak_it = SANITIZED and pending or it

describe("memory the garbage collector sees", function()
  local dir = os.tmpname()
  local path, script = dir .. ".callgrind", dir .. ".lua"

  setup(function()
    fixtures.write(path, generated.profile_text(20000, 40))
    fixtures.write(script, LOOP)
  end)

  teardown(function()
    os.remove(path)
    os.remove(script)
    os.remove(dir)
  end)

  it("is told the size of a model", function()
    local callgrind = require "callgrind"
    local prof = assert(callgrind.load(path))
    local stats = prof:stats()
    -- at least the line records' costs and the functions: well above the size of the userdata
    assert.is_true(stats.bytes > stats.lines * 2 + stats.functions * 16)
    assert.is_true(stats.bytes < 64 * 1024 * 1024)
  end)

  peak_it("keeps a loop over 40 loads below 3 times the peak of one load", function()
    local one, total_one = peak_kb(script, path, 1)
    local forty, total_forty = peak_kb(script, path, 40)
    assert.equal(total_one * 40, total_forty)
    -- the model is several megabytes: without the collector's help forty of them pile up
    assert.is_true(forty < 3 * one, ("one load peaks at %d kB, forty at %d kB"):format(one, forty))
  end)

  peak_it("keeps a loop over 20 merges below 3 times the peak of one", function()
    local one, total_one = peak_kb(script, path, 1, "merge")
    local twenty, total_twenty = peak_kb(script, path, 20, "merge")
    assert.equal(total_one * 20, total_twenty)
    assert.is_true(twenty < 3 * one, ("one merge peaks at %d kB, twenty at %d kB"):format(one, twenty))
  end)

  peak_it("frees at once with prof:close()", function()
    local one = peak_kb(script, path, 1, "close")
    local forty = peak_kb(script, path, 40, "close")
    assert.is_true(forty < 1.5 * one, ("one load peaks at %d kB, forty at %d kB"):format(one, forty))
  end)
end)
