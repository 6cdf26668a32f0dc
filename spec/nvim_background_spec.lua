-- The Neovim plugin loads in the background: a big profile (200 MB, made here by bench/gen.c)
-- is read while a 10 ms timer keeps ticking on Neovim's main loop, and :CallgrindCancel stops a
-- load without losing the profile shown (spec/nvim/background.lua).
local nvim = require "helpers.nvim"
local run = require "helpers.run"

local quote = run.quote

if nvim.skip("the Neovim plugin's background loads") then
  return
end

describe("the Neovim plugin's background loads", function()
  local dir
  local findings = nvim.once(function()
    dir = nvim.make_dir()
    local gen = dir .. "/gen"
    assert(nvim.execute("cc -O2 -o " .. quote(gen) .. " bench/gen.c"), "cannot build bench/gen.c")
    assert(nvim.execute(quote(gen) .. " instr 200 " .. quote(dir .. "/big.callgrind") .. " >/dev/null"))
    return nvim.scenario("background.lua", dir, dir)
  end)

  teardown(function()
    if dir then
      nvim.execute("rm -rf " .. quote(dir))
    end
  end)

  it("returns at once and loads the profile", function()
    local f = findings()
    assert.is_true(f.started)
    -- a load that blocked would return after the whole load (seconds); the bound leaves room
    -- for a machine busy with other work
    assert.is_true(f.returned_ms < 500, ("load returned after %.0f ms"):format(f.returned_ms))
    assert.is_true(f.loading_after_start)
    assert.matches("^callgrind: loading big%.callgrind %d+%%$", f.status_while_loading)
    assert.is_true(f.loaded_in_time)
    assert.is_true(f.state.loaded)
    assert.is_nil(f.state.loading)
    assert.equal(dir .. "/big.callgrind", f.state.path)
    assert.equal(1, f.loaded_note)
  end)

  it("keeps the main loop turning through the load", function()
    local f = findings()
    -- A load on the main loop would stop the 10 ms timer for the whole load: a tick or two,
    -- and one gap as long as the load. The bounds are relative to the load's own length (half
    -- a second for this file on two threads, some seconds on one), with room for a machine
    -- busy with other work, which delays a tick by tens of milliseconds: at least half the
    -- ticks the load's length holds, and no gap longer than a quarter of it (at least 100 ms,
    -- at most half a second).
    local possible = f.load_ms / 10
    assert.is_true(f.ticks >= possible / 2,
      ("only %d ticks in %.0f ms"):format(f.ticks, f.load_ms))
    local bound = math.min(500, math.max(100, f.load_ms / 4))
    assert.is_true(f.max_gap_ms <= bound,
      ("the timer stopped for %.0f ms in a load of %.0f ms"):format(f.max_gap_ms, f.load_ms))
  end)

  it("echoes the progress of a big file, rising, and clears it at the end", function()
    local echoes = findings().echoes
    assert.is_true(#echoes >= 3, "too few progress echoes: " .. #echoes)
    local last = -1
    for i = 1, #echoes - 1 do
      local percent = tonumber(echoes[i]:match("^callgrind: loading big%.callgrind (%d+)%%$"))
      assert.is_truthy(percent, echoes[i])
      assert.is_true(percent > last and percent <= 100)
      last = percent
    end
    assert.equal("", echoes[#echoes])
  end)

  it("cancels a load with :CallgrindCancel and keeps the profile shown", function()
    local f = findings()
    assert.is_nil(f.after_cancel.loading)
    assert.is_true(f.after_cancel.loaded)
    assert.equal(dir .. "/big.callgrind", f.after_cancel.path)
    assert.equal(0, f.generation_change)
    assert.equal(1, f.cancel_note)
    assert.equal(1, f.nothing_to_cancel)
    assert.equal("", f.status_after)
  end)
end)
