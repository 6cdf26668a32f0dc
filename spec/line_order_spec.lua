-- Line records of blocks that come back out of order (valgrind's --dump-every-bb parts, inlined
-- code moving the line back and forth): the builder holds such a block's records by position
-- before they join the function's stream (csrc/line_block.h). The model is the one the same
-- blocks written in order make, with the sums worked out here, on one thread and on several:
-- with a negative cost on the way, with events a later part adds, and with blocks of more
-- positions than a held block takes.
local callgrind = require "callgrind"
local model = require "helpers.model"

-- A small deterministic generator, so that every run writes the same text.
local function stepper(seed)
  local state = seed
  return function(n)
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n
  end
end

-- The number of events an `events:` line names.
local function count_events(line)
  local n = 0
  for _ in line:gmatch("%S+") do n = n + 1 end
  return n
end

--- Text of `functions` functions shown in `blocks` blocks each, `records` records a block on
--- `lines` lines of z.c and of an inlined a.h (every fifth line); `sorted`: each block's records
--- in (line, file) order, else in a shuffled order. `events`: the first events line (default
--- Ir). `parts`: {block = events line} starting a new part there (later parts may add events).
--- `negative`: {function, block} whose first record costs -3. Gives the text and the expected
--- sums: by function, "file:line" -> costs.
local function blocks_text(o)
  local rnd = stepper(o.seed or 7)
  local events = o.events or "Ir"
  local out = { "events: " .. events, "positions: line" }
  local width = count_events(events)
  local sums = {}
  local defined = {}
  for b = 1, o.blocks do
    if o.parts and o.parts[b] then
      out[#out + 1] = ""
      out[#out + 1] = "part: " .. b
      out[#out + 1] = "events: " .. o.parts[b]
      width = count_events(o.parts[b])
    end
    for f = 1, o.functions do
      out[#out + 1] = defined.z and "fl=(1)" or "fl=(1) z.c"
      defined.z = true
      out[#out + 1] = defined[f] and ("fn=(%d)"):format(f) or ("fn=(%d) f%d"):format(f, f)
      defined[f] = true
      local recs = {}
      for k = 1, o.records do
        local line = 1 + rnd(o.lines)
        local cost = {}
        for e = 1, width do cost[e] = rnd(50) end
        if k == 1 and o.negative and o.negative[1] == f and o.negative[2] == b then cost[1] = -3 end
        recs[#recs + 1] = { line = line, file = line % 5 == 0 and "a.h" or "z.c", cost = cost }
      end
      if o.sorted then
        table.sort(recs, function(x, y)
          if x.line ~= y.line then return x.line < y.line end
          return x.file < y.file
        end)
      end
      sums[f] = sums[f] or {}
      for _, r in ipairs(recs) do
        local inlined = r.file == "a.h"
        if inlined then
          out[#out + 1] = defined.a and "fi=(2)" or "fi=(2) a.h"
          defined.a = true
        end
        out[#out + 1] = r.line .. " " .. table.concat(r.cost, " ")
        if inlined then out[#out + 1] = "fe=(1)" end
        local key = r.file .. ":" .. r.line
        local sum = sums[f][key] or {}
        for e, v in ipairs(r.cost) do sum[e] = (sum[e] or 0) + v end
        sums[f][key] = sum
      end
    end
  end
  return table.concat(out, "\n") .. "\n", sums
end

-- The line records' sums, by function name, as blocks_text gives them.
local function line_sums(prof)
  local events = prof:events()
  local got = {}
  for fn in prof:functions() do
    local f = tonumber(fn.name:match("^f(%d+)$"))
    got[f] = {}
    for l in fn:lines() do
      local cost = {}
      for e, ev in ipairs(events) do cost[e] = l:cost(ev) end
      -- events after the last nonzero one of the generator's widest part
      while #cost > 1 and cost[#cost] == 0 do cost[#cost] = nil end
      got[f][l.file .. ":" .. l.line] = cost
    end
  end
  return got
end

local function trimmed(sums)
  for _, by_line in pairs(sums) do
    for _, cost in pairs(by_line) do
      while #cost > 1 and cost[#cost] == 0 do cost[#cost] = nil end
    end
  end
  return sums
end

-- The shuffled text against its sums, and against the text in order, on 1, 2 and 3 threads.
local function check(o)
  local shuffled, sums = blocks_text(o)
  local in_order = blocks_text(setmetatable({ sorted = true }, { __index = o }))
  local expected
  for _, opts in ipairs { { threads = 1 }, { threads = 2, chunk_size = 100 }, { threads = 3, chunk_size = 4096 } } do
    local prof = assert(callgrind.parse(shuffled, "shuffled", opts))
    assert.same(trimmed(sums), line_sums(prof))
    local got = model.snapshot(prof)
    prof:close()
    local twin = assert(callgrind.parse(in_order, "in order", opts))
    local want = model.snapshot(twin)
    twin:close()
    assert.is_nil(model.difference(want, got))
    expected = expected or got
    assert.is_nil(model.difference(expected, got))
  end
end

describe("line records of blocks out of order", function()
  it("make the model of the same blocks in order", function()
    check { functions = 6, blocks = 20, records = 120, lines = 40 }
  end)

  it("with a negative cost after blocks were held", function()
    check { functions = 4, blocks = 16, records = 120, lines = 30, negative = { 2, 10 } }
  end)

  it("with events added by a later part", function()
    check { functions = 4, blocks = 16, records = 120, lines = 30, parts = { [9] = "Ir Dr Dw" } }
    -- one function: its block held across the part, the records held widened
    check { functions = 1, blocks = 16, records = 120, lines = 30, parts = { [9] = "Ir Dr Dw" } }
  end)

  it("with blocks of more positions than a held block takes", function()
    check { functions = 1, blocks = 4, records = 12000, lines = 6000 }
  end)

  it("with five events, and events added by a later part", function()
    check { functions = 4, blocks = 16, records = 120, lines = 30, events = "Ir Dr Dw I1mr D1mr" }
    check { functions = 3, blocks = 16, records = 120, lines = 30, events = "Ir Dr Dw I1mr D1mr",
      parts = { [9] = "Ir Dr Dw I1mr D1mr D1mw ILmr" } }
  end)
end)
