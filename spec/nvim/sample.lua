-- The bundled sample profile of spec/nvim_spec.lua, in a Neovim started in the repository:
-- the profile names its source "examples/data/sample.c", relative to the current directory.
local h = dofile(os.getenv("CALLGRIND_SPEC_REPO") .. "/spec/nvim/harness.lua")

h.run(function(out)
  local plugin = require "callgrind.nvim"
  plugin.setup { open_quickfix = false }
  vim.cmd("CallgrindLoad examples/data/sample.callgrind.gz")
  -- the load runs in the background: the main loop turns until it has ended
  out.loaded_in_time = vim.wait(10000, function()
    return not plugin.state().loading
  end, 5)
  local sample = h.edit("examples/data/sample.c") -- opened after the load
  out.lines = vim.api.nvim_buf_line_count(sample)
  out.marks = h.marks(sample)
  out.signs = h.signs(sample)
  vim.cmd("CallgrindFormat percent")
  out.percent = h.marks(sample)
  vim.cmd("CallgrindFormat absolute")
  vim.cmd("CallgrindTop 5")
  out.top = h.quickfix()
  h.cursor(sample, 54)
  vim.cmd("CallgrindCallers")
  out.callers_fib = h.quickfix()
  out.state = plugin.state()
end)
