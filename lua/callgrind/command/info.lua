-- callgrind.command.info: what a profile holds — its header, events and totals, parts and
-- threads, counts of functions, calls, lines and jumps, and the warnings of its load.
local format = require "callgrind.format"
local options = require "callgrind.command.options"

local info = {
  summary = "the profile's header, events and totals, sections, counts and warnings",
  description = [[
Describes a profile: who wrote it and for which command, its events (with their long names
and formulas) and totals, its sections (one per part and thread), how many functions, calls,
line records, jumps and cycles it holds, the memory its model takes, and what the load found
doubtful. With --strict=no, malformed lines are skipped and listed among the warnings.]],
}

function info.define(cmd)
  options.strict(cmd)
  options.profiles(cmd)
end

local function header_block(out, prof, paths)
  local first = prof:sections()[1] or {}
  out:line(out:paint("bold", "Profile") .. "    " .. table.concat(paths, ", "))
  if first.creator then out:line("Creator    " .. first.creator) end
  if first.version then out:line("Version    " .. first.version) end
  if first.cmd then out:line("Command    " .. first.cmd) end
  if first.pid then out:line("PID        " .. first.pid) end
  for _, h in ipairs(first.headers or {}) do
    if h.key == "desc" then out:line("Desc       " .. h.value) end
  end
  out:line("Positions  " .. table.concat(prof:positions(), " "))
end

local function events_block(out, prof)
  out:line()
  out:line(out:paint("bold", "Events"))
  local rows = {}
  for _, ev in ipairs(prof:events(true)) do
    local e = prof:event_info(ev)
    local about = e.long_name or ""
    if e.formula then about = about .. (about ~= "" and " " or "") .. "= " .. e.formula end
    if e.derived then about = about .. (about ~= "" and " " or "") .. "(derived)" end
    rows[#rows + 1] = { e.name, format.thousands(prof:total(ev)), about }
  end
  for line in (format.table(rows, { false, true }) .. "\n"):gmatch("([^\n]*)\n") do out:line("  " .. line) end
end

local function section_label(s)
  local parts = {}
  if s.part then parts[#parts + 1] = "part " .. s.part end
  if s.thread then parts[#parts + 1] = "thread " .. s.thread end
  if s.pid then parts[#parts + 1] = "pid " .. s.pid end
  parts[#parts + 1] = ("%s:%d"):format(s.source, s.first_line)
  return table.concat(parts, ", ")
end

local function sections_block(out, prof)
  local sections = prof:sections()
  out:line()
  out:line(out:paint("bold", "Sections") .. " " .. #sections)
  local events = prof:events()
  for i, s in ipairs(sections) do
    local costs = {}
    for _, ev in ipairs(events) do
      if s.costs[ev] then costs[#costs + 1] = ev .. " " .. format.thousands(s.costs[ev]) end
    end
    out:line(("  %d. %s: %s"):format(i, section_label(s), table.concat(costs, ", ")))
  end
end

local function counts_block(out, prof)
  local stats = prof:stats()
  out:line()
  out:line(out:paint("bold", "Counts"))
  local rows = {
    { "functions", format.thousands(stats.functions) },
    { "calls", format.thousands(stats.calls) },
    { "line records", format.thousands(stats.lines) },
    { "jumps", format.thousands(stats.jumps) },
    { "cycles", format.thousands(stats.cycles) },
    { "model size", ("%.1f MB"):format(stats.bytes / 1e6) },
  }
  for line in (format.table(rows, { false, true }) .. "\n"):gmatch("([^\n]*)\n") do out:line("  " .. line) end
end

local function warnings_block(out, prof)
  local warnings, dropped = prof:warnings()
  out:line()
  out:line(out:paint("bold", "Warnings") .. " " .. (#warnings + dropped))
  for _, w in ipairs(warnings) do out:line("  " .. w) end
  if dropped > 0 then out:line(("  ... and %d more"):format(dropped)) end
end

function info.run(args, ctx)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local out = ctx.out
  header_block(out, prof, args.FILE)
  events_block(out, prof)
  sections_block(out, prof)
  counts_block(out, prof)
  warnings_block(out, prof)
end

return info
