-- The bundled sample profile of spec/nvim_spec.lua, in a Neovim started in the repository:
-- the profile names its source "examples/data/sample.c", relative to the current directory.
local h = dofile(os.getenv("CALLGRIND_SPEC_REPO") .. "/spec/nvim/harness.lua")

h.run(function(out)
  local plugin = require "callgrind.nvim"
  -- progress_size = 0: the progress echo runs even for this small file
  plugin.setup { open_quickfix = false, progress_size = 0 }
  out.echoes = {}
  local echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    table.insert(out.echoes, chunks[1][1])
    return echo(chunks, history, opts)
  end
  vim.cmd("CallgrindLoad examples/data/sample.callgrind.gz")
  vim.api.nvim_echo = echo
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
