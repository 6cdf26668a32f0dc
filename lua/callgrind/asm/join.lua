-- callgrind.asm.join: the profile's records of one function set against the instructions
-- objdump found, after checking that they are the same code.
--
-- The checks are what a rebuilt or different file breaks: every address the profile costs,
-- jumps from or calls from must be the first byte of an instruction; a jump inside the function
-- must land on one; and where the instruction is a direct branch, the profile's target must be
-- the branch's target or the next instruction (the fall-through). Any failure refuses the join:
-- costs are never shown against code that is not the code that was profiled.
local join = {}

local function hex(n)
  return string.format("0x%x", n)
end

-- The instruction that holds `addr` without starting there, for the message.
local function inside(instructions, addr)
  for _, instruction in ipairs(instructions) do
    if addr > instruction.addr and addr < instruction.addr + instruction.size then return instruction end
  end
  return nil
end

-- Why the profile's `what` (a phrase ending in a profile address) cannot be at `addr`.
local function not_an_instruction(what, addr, instructions)
  local holder = inside(instructions, addr)
  if holder then
    return string.format("%s, inside the instruction at %s (%s)", what, hex(holder.addr), holder.text)
  end
  return what .. ", where the object has no instruction"
end

-- nil when the jump agrees with the instruction it leaves from, else why not.
local function check_jump(jump, from, to, instructions, at, fn)
  if jump.to_function ~= fn or to == nil then return nil end
  -- a target in code not disassembled (a jump never taken to code outside the function's
  -- stretches) cannot be checked
  if not at[to] and inside(instructions, to) then
    return not_an_instruction("the profile has a jump from " .. hex(jump.from) .. " to " .. hex(jump.to), to,
      instructions)
  end
  local target = from.target
  if target and target ~= to and to ~= from.addr + from.size then
    return string.format("the profile's jump at %s goes to %s, the instruction there (%s) to %s",
      hex(jump.from), hex(jump.to), from.text, hex(target))
  end
  return nil
end

-- Every address of the profile's records, checked; nil, or why they do not fit.
local function check(instructions, at, recs, offset, fn)
  for _, addr in ipairs(recs.addrs) do
    if not at[addr - offset] then
      return not_an_instruction("the profile has costs at " .. hex(addr), addr - offset, instructions)
    end
  end
  for addr in pairs(recs.calls) do
    if not at[addr - offset] then
      return not_an_instruction("the profile has a call at " .. hex(addr), addr - offset, instructions)
    end
  end
  for _, jump in ipairs(recs.jumps) do
    local from = at[jump.from - offset]
    if not from then
      return not_an_instruction("the profile has a jump at " .. hex(jump.from), jump.from - offset, instructions)
    end
    local why = check_jump(jump, from, jump.to and jump.to - offset, instructions, at, fn)
    if why then return why end
  end
  return nil
end

local function new_row(instruction, offset, events)
  local costs = {}
  for _, ev in ipairs(events) do costs[ev] = 0 end
  return {
    addr = instruction.addr, profile_addr = instruction.addr + offset, size = instruction.size,
    bytes = instruction.bytes, text = instruction.text, file = instruction.file,
    line = instruction.line, costs = costs, executed = false, calls = {}, jumps_out = {},
    jumps_in = {},
  }
end

--- One row per instruction of `instructions` (from disassemble.range, not empty), with the
--- profile's costs, calls and jumps on it; or nil and why the object's code is not the profiled
--- one. `recs` from records.collect, `offset` the load offset taken off the profile's
--- addresses. Also returns the number of instructions whose source line differs between the
--- profile and the object's debug information.
function join.rows(instructions, recs, offset, fn, events)
  local at, instruction_at = {}, {}
  for i, instruction in ipairs(instructions) do
    at[instruction.addr] = i
    instruction_at[instruction.addr] = instruction
  end
  local why = check(instructions, instruction_at, recs, offset, fn)
  if why then return nil, why end

  local rows, other_lines = {}, 0
  for i, instruction in ipairs(instructions) do rows[i] = new_row(instruction, offset, events) end
  for _, addr in ipairs(recs.addrs) do
    local row, entry = rows[at[addr - offset]], recs.by_addr[addr]
    row.costs, row.executed = entry.costs, true
    if entry.line and row.line and entry.line ~= row.line then other_lines = other_lines + 1 end
    row.file, row.line = entry.file or row.file, entry.line or row.line
  end
  for addr, calls in pairs(recs.calls) do rows[at[addr - offset]].calls = calls end
  for _, jump in ipairs(recs.jumps) do
    local out = {
      from = jump.from - offset, to = jump.to and jump.to - offset, executed = jump.executed,
      taken = jump.taken, conditional = jump.conditional, to_function = jump.to_function,
    }
    local from = rows[at[out.from]]
    from.jumps_out[#from.jumps_out + 1] = out
    local to = jump.to_function == fn and out.to and at[out.to]
    if to then rows[to].jumps_in[#rows[to].jumps_in + 1] = out end
  end
  for _, jump in ipairs(recs.jumps_in) do
    -- the source lies in another function: an address of this object only when it shares it
    local other = jump.from_function
    local to = at[jump.to - offset]
    if to then
      rows[to].jumps_in[#rows[to].jumps_in + 1] = {
        from = other.object == fn.object and jump.from - offset or jump.from, from_function = other,
        executed = jump.executed, taken = jump.taken, conditional = jump.conditional,
      }
    end
  end
  return rows, other_lines
end

return join
