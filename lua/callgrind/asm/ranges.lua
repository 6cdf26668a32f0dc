-- callgrind.asm.ranges: which address ranges of the object to disassemble for one function.
--
-- The function's symbol holds all of its code, run or not. The profile may also give the
-- function code outside its symbol: valgrind counts a block to the function it was entered
-- from, so code reached by a jump into a part without a symbol (a split-off cold part of a
-- stripped program) or by falling through from the symbol's end (glibc's mempcpy) is the
-- function's, and so is all the code of a function without a symbol. Outside the symbol only
-- the stretches the profile names are shown: addresses closer than CLUSTER_GAP bytes form one
-- stretch; longer runs of code it never reached belong to other functions.
local ranges = {}

local CLUSTER_GAP = 256
-- stretches closer than this are disassembled by one objdump run rather than one each: a run
-- costs about 0.09 s whatever its size (objdump reads the object's tables) and 0.4 s a
-- megabyte (gcc's cc1), and the instructions between the stretches are skipped unread
-- (disassemble.parse's `wanted`); a function of a stripped cc1 whose code the profile scatters
-- over 1.5 MB took 3.3 s at 4 KiB, 1.5 s at 64 KiB
local RUN_GAP = 65536
-- x86 instructions are at most 15 bytes: enough past the last address to disassemble it
local LONGEST_INSTRUCTION = 16

local function in_symbol(symbol, addr)
  return symbol ~= nil and symbol.size > 0 and addr >= symbol.addr and addr < symbol.addr + symbol.size
end

--- The plan for `addrs` (the object addresses the profile names, ascending) and `symbol` (the
--- function's, or nil): { keep = { {first =, last =, stop =}, ... } (instructions starting in
--- [first, last] are the function's; objdump must read up to `stop`), runs = { {start =,
--- stop =}, ... } (objdump's ranges), outside = how many addresses lie outside the symbol }.
function ranges.plan(addrs, symbol)
  local keep, outside = {}, 0
  if symbol and symbol.size > 0 then
    keep[1] = { first = symbol.addr, last = symbol.addr + symbol.size - 1, stop = symbol.addr + symbol.size }
  end
  local stretch
  for _, addr in ipairs(addrs) do
    if not in_symbol(symbol, addr) then
      outside = outside + 1
      if stretch and addr - stretch.last <= CLUSTER_GAP then
        stretch.last, stretch.stop = addr, addr + LONGEST_INSTRUCTION
      else
        stretch = { first = addr, last = addr, stop = addr + LONGEST_INSTRUCTION }
        keep[#keep + 1] = stretch
      end
    end
  end
  table.sort(keep, function(a, b) return a.first < b.first end)

  local runs = {}
  for _, part in ipairs(keep) do
    local run = runs[#runs]
    if run and part.first - run.stop <= RUN_GAP then
      run.stop = math.max(run.stop, part.stop)
    else
      runs[#runs + 1] = { start = part.first, stop = part.stop }
    end
  end
  return { keep = keep, runs = runs, outside = outside }
end

--- Whether the instruction at `addr` is one the plan keeps. The parts are disjoint and sorted
--- by address (the symbol, then stretches outside it): a binary search, since a function of a
--- stripped program can have thousands of stretches (gcc's cc1: 4 s for one function when
--- every instruction was tried against each).
function ranges.kept(plan, addr)
  local keep = plan.keep
  local lo, hi = 1, #keep
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    local part = keep[mid]
    if addr < part.first then
      hi = mid - 1
    elseif addr > part.last then
      lo = mid + 1
    else
      return true
    end
  end
  return false
end

return ranges
