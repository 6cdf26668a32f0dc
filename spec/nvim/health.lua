-- :checkhealth callgrind for spec/nvim_health_spec.lua, in the situations a user meets. The
-- files lie in CALLGRIND_SPEC_DIR (T below):
--   T/plugin/                   the repository's lua/ and plugin/, without a module
--   T/stale/lua/callgrind/core.so, T/stale/csrc/newer.c
--                               a module older than the C source beside it
--   T/other/callgrind/core.so   a module that needs lua_callk, as one built for Lua 5.2+ does
--   T/empty/                    a directory without programs, for a PATH without dot
local h = dofile(os.getenv("CALLGRIND_SPEC_REPO") .. "/spec/nvim/harness.lua")
local T = h.dir
local api = vim.api

-- The report of :checkhealth callgrind: { text = all of it, lines = { {status =, text =} } } with
-- the OK, WARNING and ERROR lines in order (Neovim 0.7 writes "- OK: text", 0.10 "- ✅ OK text").
local function checkhealth()
  package.loaded["callgrind.core"], package.loaded["callgrind"] = nil, nil
  vim.cmd("checkhealth callgrind")
  local all = api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd("bwipeout!")
  local lines = {}
  for _, line in ipairs(all) do
    local status, text = line:match("^%s*%- [^%w]*(%u+):?%s+(.*)$")
    if status == "OK" or status == "WARNING" or status == "ERROR" then
      lines[#lines + 1] = { status = status, text = text }
    end
  end
  return { text = table.concat(all, "\n"), lines = lines }
end

h.run(function(out)
  out.lua = rawget(_G, "jit") and jit.version or _VERSION
  vim.opt.runtimepath:remove(h.repo)
  vim.opt.runtimepath:prepend(T .. "/plugin")
  local cpath = package.cpath

  out.installed = checkhealth()

  local path = vim.env.PATH
  vim.env.PATH = T .. "/empty"
  out.no_dot = checkhealth()
  vim.env.PATH = path

  vim.opt.runtimepath:append(T .. "/stale")
  out.stale = checkhealth()
  vim.opt.runtimepath:remove(T .. "/stale")

  package.cpath = T .. "/other/?.so"
  out.other_lua = checkhealth()

  package.cpath = T .. "/none/?.so"
  out.missing = checkhealth()
  package.cpath = cpath
end)
