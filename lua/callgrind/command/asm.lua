-- callgrind.command.asm: a function's machine code with its costs (callgrind.asm), the way
-- KCachegrind's machine-code view shows it.
local asm = require "callgrind.asm"
local options = require "callgrind.command.options"
local calls = require "callgrind.command.calls"

local command = {
  summary = "a function's machine code with the cost of every instruction and its jumps",
  description = [[
Disassembles FN with binutils' objdump from the object the profile names (ob=) and prints each
instruction with its costs, its source line, the calls it makes and the jumps that leave or
reach it (executed and taken counts); hot instructions are marked with '*'. Needs a profile
made with valgrind --dump-instr=yes (jumps with --collect-jumps=yes). The object is checked
against the profile first: a missing object, a rebuilt one or a missing objdump is said in
words, never shown as costs against the wrong code. FN is a function's name or, when no
function has that name, a Lua pattern. Several FILEs are summed into one profile.]],
}

local function address(value)
  local n = tonumber(value) or tonumber((value:gsub("^0[xX]", "")), 16)
  if not n or n < 0 or n ~= math.floor(n) then
    return nil, ("--offset expects an address (0x1000 or 4096), not '%s'"):format(value)
  end
  return n
end

function command.define(cmd)
  cmd:option("--show", "only show figures for events A,B,C [all]"):argname("A,B,C")
  cmd:option("--context", "only the hot instructions and N around each [every instruction]"):argname("N")
    :convert(options.count("--context"))
  cmd:option("--hot", "mark instructions with at least PCT% of the function's self cost"):argname("PCT")
    :convert(options.percent("--hot")):default("1")
  cmd:option("--show-percs", "show a percentage for each non-zero count"):argname("yes|no")
    :convert(options.yes_no("--show-percs")):default("yes")
  cmd:option("--object", "the object's file, when not where the profile says"):argname("PATH")
  cmd:option("--dir", "also look for objects in DIR (repeatable)"):argname("DIR"):count("*")
  cmd:option("--offset", "take this load offset off the profile's addresses"):argname("ADDR"):convert(address)
  cmd:option("--objdump", "the objdump program"):argname("PROG"):default("objdump")
  options.strict(cmd)
  cmd:argument("FN", "a function name or a Lua pattern")
  options.profiles(cmd)
end

function command.run(args, ctx)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local show = ctx.cli:events(prof, args.show)
  local functions = calls.matching_functions(ctx, prof, args.FN)
  local texts, failures = {}, {}
  for _, fn in ipairs(functions) do
    local text, kind = asm.text(prof, fn, {
      show = show, context = args.context, hot = args.hot, percentages = args.show_percs,
      object = args.object, dirs = #args.dir > 0 and args.dir or nil, offset = args.offset, objdump = args.objdump,
    })
    if kind then failures[#failures + 1] = (text:gsub("\n$", "")) else texts[#texts + 1] = text end
  end
  if #texts == 0 then ctx.cli:fail(failures[1]) end
  for _, message in ipairs(failures) do ctx.cli:warn(message) end
  ctx.out:write(table.concat(texts, "\n"))
end

return command
