-- The callgrind user commands. The plugin's code is loaded when one of them first runs.
if vim.g.loaded_callgrind then
  return
end
vim.g.loaded_callgrind = 1

local function run(name)
  return function(args)
    require("callgrind.nvim.commands")[name](args)
  end
end

local function complete(name)
  return function(prefix)
    return require("callgrind.nvim.commands")[name](prefix)
  end
end

local command = vim.api.nvim_create_user_command

command("CallgrindLoad", run("load"), { nargs = "?", complete = "file", desc = "Load a Callgrind profile" })
command("CallgrindEvent", run("event"), { nargs = 1, complete = complete("complete_event"), desc = "Show another event" })
command("CallgrindFormat", run("format"), {
  nargs = "?",
  complete = complete("complete_format"),
  desc = "Show costs as absolute counts or percentages",
})
command("CallgrindTop", run("top"), { nargs = "?", desc = "Quickfix list of the hottest functions" })
command("CallgrindCallers", run("callers"), { nargs = 0, desc = "Quickfix list of the callers of the function here" })
command("CallgrindCallees", run("callees"), { nargs = 0, desc = "Quickfix list of the callees of the function here" })
command("CallgrindCancel", run("cancel"), { nargs = 0, desc = "Stop the load running in the background" })
command("CallgrindClear", run("clear"), { nargs = 0, desc = "Remove the costs and forget the profile" })
