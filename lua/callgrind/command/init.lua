-- callgrind.command: the `callgrind` program — subcommands that read, report, compare and
-- rewrite Callgrind and Cachegrind profiles from the shell, built on the module's public API.
--
--   require("callgrind.command").main(arg)      -- what bin/callgrind does
--
-- Options are parsed with argparse; every subcommand lives in its own module
-- (callgrind.command.NAME) with a `define(cmd)` that declares its options and a
-- `run(args, ctx)` that does the work. Errors end the program with `callgrind: message` and
-- status 2 (1 for a failed `diff` gate), never a traceback.
local callgrind = require "callgrind"
local cli = require "callgrind.cli"
local output = require "callgrind.command.output"

local command = {}

local PROGRAM = "callgrind"

--- In the order `callgrind --help` lists them.
command.NAMES = { "annotate", "top", "functions", "callers", "callees", "diff", "merge", "select", "convert",
  "graph", "flame", "html", "asm", "info" }

local DESCRIPTION = [[
Reads Callgrind and Cachegrind profiles (valgrind --tool=callgrind or --tool=cachegrind, and
other writers of the Callgrind format), plain or gzip-compressed, and reports, compares and
rewrites them.]]

local EPILOG = [[
Run 'callgrind help COMMAND' or 'callgrind COMMAND --help' for a command's options, and see
callgrind(1). Errors end with status 2 (1 when 'diff --fail-above' finds a regression).]]

-- Text written with line breaks for the source, as paragraphs argparse wraps to the width
-- of the help: single line breaks become spaces, blank lines stay.
local function reflow(text)
  if not text then return nil end
  return (text:gsub("([^\n])\n([^\n])", "%1 %2"))
end

--- The subcommand module of a name.
function command.module(name)
  return require("callgrind.command." .. name)
end

local function version_text()
  local jit = rawget(_G, "jit")
  return ("%s %s (%s)"):format(PROGRAM, callgrind._VERSION, jit and jit.version or _VERSION)
end

--- The argument parser of the whole program; with `only` (a command's name), of that command
--- alone, which parses its command lines as the whole program's does (every command's module
--- and definition cost a run a third of a small profile's load).
function command.parser(only)
  local argparse = require "argparse"
  local parser = argparse(PROGRAM, reflow(DESCRIPTION), reflow(EPILOG))
    :command_target("command")
    :require_command(false)
    :help_max_width(80)
  -- `help NAME` prints what `NAME --help` prints; run by main, so that an unknown NAME is
  -- reported like any other error
  parser:command("help", "Shows the help of a command, or of the program.")
    :summary("the help of a command: callgrind help COMMAND")
    :argument("name", "a command"):args("?"):argname("COMMAND")
  parser:flag("--version", "Show the version and exit."):action(function()
    io.stdout:write(version_text(), "\n")
    os.exit(0)
  end)
  parser:option("--color", "Colours on a terminal: never, always or auto (auto: not when NO_COLOR is set).")
    :argname("WHEN"):choices({ "never", "always", "auto" }):default("auto")
  local commands = {}
  for _, name in ipairs(only and { only } or command.NAMES) do
    local module = command.module(name)
    local cmd = parser:command(name, reflow(module.description), module.epilog):summary(module.summary)
      :help_max_width(80):help_description_margin(30)
    module.define(cmd)
    commands[name] = cmd
  end
  return parser, commands
end

-- `callgrind help [NAME]`.
local function help(fail, parser, commands, name)
  if name == nil then
    io.stdout:write(parser:get_help(), "\n")
  elseif commands[name] then
    io.stdout:write(commands[name]:get_help(), "\n")
  else
    fail:fail(("unknown command '%s' (see 'callgrind --help')"):format(name))
  end
end

-- argparse's messages put a suggestion on a line of its own; one line reads better after
-- "callgrind: ".
local function one_line(message)
  return (message:gsub("\n[Dd]id you mean", "; did you mean"):gsub("\n", " "))
end

-- The subcommand named on a command line, for pointing at its help.
local function named_command(args)
  local known = {}
  for _, name in ipairs(command.NAMES) do known[name] = true end
  for _, a in ipairs(args) do
    if known[a] then return a end
  end
end

--- Runs the program on a list of arguments (the global `arg` of a script) and exits.
function command.main(args)
  local fail = cli.new(PROGRAM)
  local list = {}
  for i = 1, #args do list[i] = args[i] end
  local parsed
  fail:run(function()
    -- the command named is all the parser needs; help, a mistyped command or none at all
    -- want every one (their names, suggestions, the program's help)
    local name = named_command(list)
    local parser, commands = command.parser(name ~= "help" and name or nil)
    local ok, result = parser:pparse(list)
    if not ok then
      local hint = name and (" (see 'callgrind help %s')"):format(name) or " (see 'callgrind --help')"
      fail:fail(one_line(result) .. hint)
    end
    parsed = result
    if not parsed.command then
      io.stderr:write(parser:get_usage(), "\n")
      os.exit(2)
    elseif parsed.command == "help" then
      help(fail, parser, commands, parsed.name)
      io.stdout:flush()
      os.exit(0)
    end
  end)
  local ctx = { cli = fail, out = output.new { color = parsed.color } }
  fail:run(function() command.module(parsed.command).run(parsed, ctx) end)
  -- the end of a short text is written here: a full disk or a closed pipe shows only now
  local flushed, err = io.stdout:flush()
  if not flushed then fail:fail("cannot write to standard output: " .. tostring(err)) end
  os.exit(ctx.status or 0)
end

return command
