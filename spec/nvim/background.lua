-- A big profile loaded in the background (spec/nvim_background_spec.lua): a timer ticks every
-- 10 ms meanwhile and records when it ran; :CallgrindCancel stops a second load, leaving the
-- first profile. The profile is CALLGRIND_SPEC_DIR/big.callgrind, made by the spec.
local h = dofile(os.getenv("CALLGRIND_SPEC_REPO") .. "/spec/nvim/harness.lua")
local uv = vim.uv or vim.loop

h.run(function(out)
  local plugin = require "callgrind.nvim"
  local big = h.dir .. "/big.callgrind"
  plugin.setup { open_quickfix = false, watch = false }

  out.echoes = {}
  local echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    table.insert(out.echoes, chunks[1][1])
    return echo(chunks, history, opts)
  end

  local ticks = {}
  local timer = uv.new_timer()
  timer:start(10, 10, function()
    ticks[#ticks + 1] = uv.hrtime()
  end)
  local started = uv.hrtime()
  out.started = plugin.load(big)
  out.returned_ms = (uv.hrtime() - started) / 1e6
  out.loading_after_start = plugin.state().loading ~= nil
  out.status_while_loading = plugin.status()
  out.loaded_in_time = vim.wait(120000, function()
    return not plugin.state().loading
  end, 10)
  out.load_ms = (uv.hrtime() - started) / 1e6
  timer:stop()
  timer:close()
  vim.api.nvim_echo = echo

  local max_gap = 0
  for i = 2, #ticks do
    max_gap = math.max(max_gap, (ticks[i] - ticks[i - 1]) / 1e6)
  end
  out.ticks, out.max_gap_ms = #ticks, max_gap
  out.state = plugin.state()
  out.loaded_note = #h.notes_with("loaded " .. vim.fn.fnamemodify(big, ":~:.") .. ": Ir")

  -- a second load, cancelled: the first profile stays
  local generation = plugin.state().generation
  plugin.load(big)
  vim.wait(30, function() return false end)
  vim.cmd("CallgrindCancel")
  out.after_cancel = plugin.state()
  out.cancel_note = #h.notes_with("cancelled the load of")
  out.generation_change = plugin.state().generation - generation
  vim.cmd("CallgrindCancel")
  out.nothing_to_cancel = #h.notes_with("no load is running")
  out.status_after = plugin.status()
end)
