-- The hand-written profile of spec/nvim_spec.lua, driven through the user commands. The files
-- lie in CALLGRIND_SPEC_DIR (T below), Neovim runs in T/work:
--   T/prof/hand.out          the profile; hand2.next, broken.next and hand3.next are moved
--                            over it in turn; broken.out does not load
--   T/prof/main.c            "main.c" in the profile: next to the profile file
--   T/abs/util.c             an absolute name, opened through the symbolic link T/link
--   T/tree/lib/deep.c        "lib/deep.c": found by its path's ending only
--   T/include/inc/fast.h     "inc/fast.h": in a source directory
local h = dofile(os.getenv("CALLGRIND_SPEC_REPO") .. "/spec/nvim/harness.lua")
local T = h.dir

h.run(function(out)
  -- the plugin file defines the commands and loads nothing more
  out.loaded_by_plugin_file = {
    commands = vim.fn.exists(":CallgrindLoad") == 2,
    module = package.loaded["callgrind.nvim"] ~= nil,
    core = package.loaded["callgrind.core"] ~= nil,
  }
  vim.cmd("CallgrindLoad")
  out.reload_without_profile = h.notes_with("no profile loaded")
  local plugin = require "callgrind.nvim"
  out.api_errors = {}
  for name, call in pairs({
    display = function() plugin.setup { display = "popup" } end,
    unknown_option = function() plugin.setup { colour = true } end,
    set_format = function() plugin.set_format("decimal") end,
    set_event = function() plugin.set_event(2) end,
    top = function() plugin.top(0) end,
    render = function() plugin.render("main.c") end,
    load = function() plugin.load(42) end,
    sign_texts = function() plugin.setup { sign_texts = { "a", "b" } } end,
    sign_width = function() plugin.setup { sign_texts = { "a", "b", "c", "abc" } } end,
  }) do
    local ok, err = pcall(call)
    out.api_errors[name] = ok and "no error" or tostring(err)
  end
  plugin.setup { display = "both", source_dirs = { T .. "/include" }, poll_interval = 100, open_quickfix = false }

  -- a buffer open before the load, the others opened after it (autocommands)
  local main = h.edit(T .. "/prof/main.c")
  out.commands_before_load = vim.fn.exists(":CallgrindTop") == 2
  vim.cmd("CallgrindLoad " .. T .. "/prof/hand.out")
  plugin.wait()
  -- the (event, file) pairs whose sums the plugin has asked for: { ["Ir main.c"] = true }
  local function summed()
    local list = {}
    for event, by_file in pairs(require("callgrind.nvim.state").current.costs) do
      for file in pairs(by_file) do list[event .. " " .. file] = true end
    end
    return list
  end
  out.summed_after_load = summed()
  local util = h.edit(T .. "/link/util.c")
  local deep = h.edit(T .. "/tree/lib/deep.c")
  local fast = h.edit(T .. "/include/inc/fast.h")
  local other = h.edit(T .. "/work/other.c")
  local buffers = { main = main, util = util, deep = deep, fast = fast, other = other }
  out.summed_after_open = summed()

  local function snapshot()
    local shot = { marks = {}, signs = {} }
    for name, buf in pairs(buffers) do
      shot.marks[name] = h.marks(buf)
      shot.signs[name] = h.signs(buf)
    end
    return shot
  end

  out.absolute = snapshot()
  out.sign_texts = h.sign_texts(util)
  out.drawn_legacy_signs = h.leftovers().legacy_signs
  local state = plugin.state()
  out.state = state
  out.annotated = #state.buffers

  vim.cmd("CallgrindFormat")
  out.percent = snapshot()
  out.percent_format = plugin.state().format
  vim.cmd("CallgrindFormat absolute")
  vim.cmd("CallgrindFormat decimal")
  out.bad_format = h.notes_with("not 'decimal'")

  vim.cmd("CallgrindEvent Dr")
  out.summed_after_event = summed()
  out.dr = snapshot()
  vim.cmd("CallgrindTop 3")
  out.top_dr = h.quickfix()
  vim.cmd("CallgrindEvent Sum")
  out.sum = snapshot()
  vim.cmd("CallgrindEvent Bogus")
  out.bogus_event = h.notes_with("unknown event 'Bogus'")
  out.event_after_bogus = plugin.state().event
  vim.cmd("CallgrindEvent Ir")
  out.event_completion = vim.fn.getcompletion("CallgrindEvent ", "cmdline")
  out.format_completion = vim.fn.getcompletion("CallgrindFormat p", "cmdline")

  vim.cmd("CallgrindTop")
  out.top = h.quickfix()
  vim.cmd("CallgrindTop 2")
  out.top2 = h.quickfix()

  h.cursor(util, 11)
  vim.cmd("CallgrindCallers")
  out.callers_compute = h.quickfix()
  vim.cmd("CallgrindCallees")
  out.callees_compute = h.quickfix()
  h.cursor(main, 5)
  vim.cmd("CallgrindCallees")
  out.callees_main = h.quickfix()
  h.cursor(deep, 21)
  vim.cmd("CallgrindCallers")
  out.callers_helper = h.quickfix()
  h.cursor(fast, 7) -- compute's inlined line 7 lies inside fast_op's lines 5 to 9
  vim.cmd("CallgrindCallees")
  out.callees_at_fast_7 = h.quickfix()
  h.cursor(fast, 5)
  vim.cmd("CallgrindCallers")
  out.callers_at_fast_5 = h.quickfix()
  local before = #h.notes
  h.cursor(main, 1)
  vim.cmd("CallgrindCallers")
  out.no_function = h.notes_with("no profiled function at line 1 of main.c", before + 1)
  out.quickfix_after_no_function = h.quickfix().title
  before = #h.notes
  h.cursor(other, 3)
  vim.cmd("CallgrindCallees")
  out.no_costs = h.notes_with("the profile has no costs for this buffer (other.c)", before + 1)

  -- a profile that fails to load leaves the loaded one
  vim.cmd("CallgrindLoad " .. T .. "/prof/broken.out")
  plugin.wait()
  out.load_error = h.notes_with("broken.out:4: bad cost 'x'")
  out.path_after_error = plugin.state().path
  out.util_after_error = h.marks(util)

  plugin.setup { display = "signs" }
  out.signs_only = { marks = h.marks(util), signs = h.signs(util) }
  plugin.setup { display = "virtual_text" }
  out.text_only = { marks = h.marks(util), signs = h.signs(util) }
  plugin.setup { display = "both", sign_texts = { "1", "2", "3", "!!" } }
  out.own_sign_texts = h.sign_texts(util)
  plugin.setup { sign_texts = require("callgrind.nvim.config").defaults().sign_texts }

  -- the profile file rewritten: read again by the watcher
  local generation = plugin.state().generation
  assert(os.rename(T .. "/prof/hand2.next", T .. "/prof/hand.out"))
  out.reloaded_in_time = vim.wait(5000, function()
    return plugin.state().generation == generation + 1
  end, 20)
  out.reloaded = snapshot()

  -- rewritten with something unreadable: notified, the data stays
  before = #h.notes
  assert(os.rename(T .. "/prof/broken.next", T .. "/prof/hand.out"))
  out.reload_error_in_time = vim.wait(5000, function()
    return #h.notes_with("hand.out:4: bad cost 'x'", before + 1) > 0
  end, 20)
  out.reload_error_generation = plugin.state().generation - generation
  out.after_reload_error = h.marks(util)

  -- :CallgrindLoad without an argument reads the same file again
  assert(os.rename(T .. "/prof/hand3.next", T .. "/prof/hand.out"))
  vim.cmd("CallgrindLoad")
  plugin.wait()
  out.explicit_reload = { generation = plugin.state().generation - generation, marks = h.marks(util) }

  vim.cmd("CallgrindClear")
  out.cleared = h.leftovers()
  out.cleared_state = plugin.state()
  out.cleared_autocmds = vim.fn.exists("#callgrind")
  vim.cmd("bwipeout " .. util)
  local reopened = h.edit(T .. "/link/util.c")
  out.reopened_after_clear = { marks = h.marks(reopened), signs = h.signs(reopened) }
  before = #h.notes
  vim.cmd("CallgrindTop")
  out.top_without_profile = h.notes_with("no profile loaded", before + 1)

  -- the quickfix window opens when asked to
  plugin.setup { open_quickfix = true }
  vim.cmd("CallgrindLoad " .. T .. "/prof/hand.out")
  plugin.wait()
  vim.cmd("CallgrindTop 1")
  out.window_after_top = vim.bo.buftype

  -- the plugin file defines nothing when sourced again
  vim.cmd("delcommand CallgrindTop")
  vim.cmd("runtime plugin/callgrind.lua")
  out.sourced_again = vim.fn.exists(":CallgrindTop")
end)
