-- callgrind.asm.disassemble: one address range of an object file disassembled by objdump, as a
-- list of instructions with the source line objdump finds for each in the debug information.
--
--   local list, err = disassemble.range("objdump", "/usr/bin/prog", 0x1159, 0x119c)
--   -- list[i] = { addr = 0x1159, size = 3, bytes = "0f b6 07", text = "movzbl (%rdi),%eax",
--   --             file = "/src/prog.c", line = 12, target = nil }
local tools = require "callgrind.asm.tools"

local disassemble = {}

-- The address a direct branch or call goes to, as objdump writes it at the end of the
-- instruction ("je 1199 <count_words+0x40>", "cbz x0, 4005d0 <f+0x10>"); nil for other
-- instructions. objdump's comments ("# 4060 <text.0>") name data, not targets.
local function branch_target(text)
  if text:find("#", 1, true) then return nil end
  local hex = text:match("[%s,](%x+) <[^>]*>$")
  return hex and tonumber(hex, 16) or nil
end

local function byte_count(bytes)
  local _, n = bytes:gsub("%x%x", "")
  return n
end

--- Reads objdump's `-d -l` text: instruction lines ("  1159:\t0f b6 07 \tmovzbl ..."), and the
--- lines before them that give the source position ("/src/prog.c:12", with an optional
--- "(discriminator N)"). Symbol headers, function names ("count_words():") and section titles
--- are skipped. With `wanted` (a function of an address), only the instructions it keeps are
--- read further than their address: a stripped program's function can span a megabyte of
--- other code that one run of objdump reads with it.
function disassemble.parse(text, wanted)
  local list = {}
  local file, line
  for row in text:gmatch("[^\n]+") do
    local hex = row:match("^%s*(%x+):\t")
    local addr = hex and tonumber(hex, 16)
    if addr and (not wanted or wanted(addr)) then
      local rest = row:match("^%s*%x+:\t(.*)$")
      local bytes, code = rest:match("^([^\t]*)\t(.*)$")
      bytes = (bytes or rest):gsub("%s+$", "")
      code = (code or ""):gsub("%s+$", "")
      list[#list + 1] = {
        addr = addr, size = byte_count(bytes), bytes = bytes, text = code,
        file = file, line = line, target = branch_target(code),
      }
    elseif not addr and not row:find("^%x+ <.*>:$") and not row:find("%(%):$") then
      local path, number = row:match("^(.-):(%d+)%s*%(discriminator %d+%)$")
      if not path then path, number = row:match("^(.-):(%d+)$") end
      if path and path ~= "" then file, line = path, tonumber(number) end
    end
  end
  return list
end

--- The instructions of [start, stop) in the object at `path`, disassembled by the program
--- `objdump` (only those `wanted` keeps, when given); or nil and objdump's own message.
function disassemble.range(objdump, path, start, stop, wanted)
  local out, err, status = tools.run(objdump, {
    "-d", "-l", "-z", "-C", "--insn-width=16",
    string.format("--start-address=0x%x", start), string.format("--stop-address=0x%x", stop),
    path,
  })
  if status ~= 0 then
    local first = err:match("[^\n]+") or ("exit status " .. status)
    return nil, first
  end
  return disassemble.parse(out, wanted)
end

return disassemble
