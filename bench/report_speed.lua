-- bench/report_speed.lua: the reports table of bench/run.lua: how long each report, writer and
-- annotation of the Lua module takes on a profile, next to the load and to callgrind_annotate,
-- with the targets they are held to.
--
--   local report_speed = dofile("bench/report_speed.lua")
--   report_speed.measure(entry, env)   -- entry: a measured file of run.lua; env: its helpers
--   report_speed.section(entries, env) -- the markdown of every measured entry
--
-- Each step runs in a process of its own: the Lua steps through bench/time_report.lua (the
-- public API only, so the table holds whatever the module does behind it), the commands whole,
-- from start to exit. A step that takes less than REPEAT_BELOW seconds runs three times and its
-- median is kept; none may take more than BENCH_REPORT_TIMEOUT seconds (60): a step cut there
-- misses every target of the table on files that load in less than 30 s.

local M = {}

local TIMEOUT = tonumber(os.getenv("BENCH_REPORT_TIMEOUT") or "") or 60
local REPEAT_BELOW = 2

-- What runs and what it is held to: `load` the most it may take in load times, `ca` the least
-- speed-up over callgrind_annotate (default options). `api` names a step of time_report.lua,
-- `cmd` a command (%s: the file).
local function steps(env)
  local lua, command = env.lua, env.command
  local out = env.quote(env.data .. "/command-output") -- where the commands that write files write
  return {
    { label = "`report.flat` (default)", api = "flat", load = 0.5 },
    { label = "`report.flat`, `threshold = 100`", api = "flat100", load = 1 },
    { label = "`report.tree` (default)", api = "tree", load = 0.5 },
    { label = "`report.tree`, `threshold = 100`", api = "tree100", load = 1 },
    { label = "`examples/annotate.lua` (default), whole run", cmd = lua .. " examples/annotate.lua %s",
      load = 2, ca = 12 },
    { label = "`examples/annotate.lua --auto=yes`, whole run",
      cmd = lua .. " examples/annotate.lua --auto=yes %s", load = 2, ca = 12 },
    { label = "`callgrind annotate` (default), whole run", cmd = command .. " annotate %s", load = 2,
      ca = 12 },
    { label = "`callgrind annotate --auto=yes`, whole run", cmd = command .. " annotate --auto=yes %s",
      load = 2, ca = 12 },
    { label = "`prof:write`", api = "write", load = 2 },
    { label = "`webgrind.write`", api = "webgrind", load = 2 },
    { label = "`annotate.file_costs` (the costliest file)", api = "file_costs", load = 0.2 },
    { label = "`annotate.line_totals` of the costliest file (the Neovim plugin's marks of a buffer)",
      api = "line_totals", load = 0.2 },
    { label = "`annotate.line_totals` (every file)", api = "line_totals_all" },
    { label = "`annotate.costs_by_file` (every file)", api = "costs_by_file" },
    -- the other subcommands, whole runs: within 2x of the load of what they read (issue 13)
    { label = "`callgrind info`, whole run", cmd = command .. " info %s", load = 2 },
    { label = "`callgrind top`, whole run", cmd = command .. " top %s", load = 2 },
    { label = "`callgrind functions`, whole run", cmd = command .. " functions %s", load = 2 },
    { label = "`callgrind graph -o FILE.dot`, whole run", cmd = command .. " graph %s -o " .. out .. ".dot",
      load = 2 },
    { label = "`callgrind flame -o FILE.svg`, whole run", cmd = command .. " flame %s -o " .. out .. ".svg",
      load = 2 },
    { label = "`callgrind convert --to callgrind`, whole run",
      cmd = command .. " convert --to callgrind %s -o " .. out .. ".callgrind", load = 2 },
    { label = "`callgrind diff FILE FILE` (two loads), whole run", cmd = command .. " diff %s %s", twice = true,
      load = 4 },
    { label = "`callgrind merge FILE FILE` (two loads), whole run",
      cmd = command .. " merge -o " .. out .. ".merged %s %s", twice = true, load = 4 },
  }
end

-- Runs a shell command; gives its output and exit status.
local function run_status(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("*a")
  local _, _, code = p:close()
  return out, code or 0
end

-- One run of a step: its seconds, "timeout", "failed" or "refused" (a writer that cannot hold the
-- profile's numbers, webgrind's 32 bits), and the load seconds it saw (Lua steps).
local function run_once(step, path, env)
  local out_file = env.data .. "/report-output.tmp"
  if step.cmd then
    local quoted = env.quote(path)
    local cmd = step.twice and step.cmd:format(quoted, quoted) or step.cmd:format(quoted)
    local seconds, rc = env.timed(("timeout %d %s"):format(TIMEOUT, cmd))
    for _, extension in ipairs { ".dot", ".svg", ".callgrind", ".merged" } do
      os.remove(env.data .. "/command-output" .. extension)
    end
    if rc == 124 then return "timeout" end
    if rc ~= 0 then return "failed" end
    return seconds
  end
  local out, rc = run_status(("timeout %d %s bench/time_report.lua %s %s %s"):format(TIMEOUT,
    env.lua, step.api, env.quote(path), env.quote(out_file)))
  os.remove(out_file)
  local r = env.parse_keys(out)
  if rc == 124 then return "timeout", r.load_seconds end
  if rc == 0 and r.refused then return "refused", r.load_seconds end
  if rc ~= 0 or not r.step_seconds then
    env.log("  %s failed: %s", step.api, out:sub(1, 300))
    return "failed", r.load_seconds
  end
  return r.step_seconds, r.load_seconds
end

local function run_step(step, path, env)
  local times, loads = {}, {}
  for i = 1, 3 do
    local seconds, load = run_once(step, path, env)
    if load then loads[#loads + 1] = load end
    if type(seconds) ~= "number" then return seconds, loads end
    times[i] = seconds
    if seconds >= REPEAT_BELOW then break end
  end
  return env.median(times), loads
end

--- Runs every step on one measured file (entry.path); the results go into entry.reports.
function M.measure(entry, env)
  local loads, results = {}, {}
  -- loads of their own first, so that the load figure never rests on the steps alone
  for _ = 1, 3 do
    local _, load = run_once({ api = "load" }, entry.path, env)
    if load then loads[#loads + 1] = load end
  end
  for i, step in ipairs(steps(env)) do
    env.log("  %s: %s", entry.name, step.label)
    local seconds, step_loads = run_step(step, entry.path, env)
    results[i] = { step = step, seconds = seconds }
    for _, l in ipairs(step_loads) do loads[#loads + 1] = l end
  end
  entry.reports = { load = env.median(loads), loads = #loads, results = results }
end

-- ---- the tables ---------------------------------------------------------------------------

local function verdict(ok)
  if ok == nil then return "-" end
  return ok and "PASS" or "MISS"
end

-- The figure and verdict of one step against its targets. A step cut by the timeout took more
-- than TIMEOUT seconds, which fails a target whose bound is below TIMEOUT and leaves the others
-- undecided. Gives the cells and the list of targets passed (true) or missed (false).
local function judge(result, load, ca, env)
  local s, step = result.seconds, result.step
  local over = s == "timeout"
  local seconds = over and TIMEOUT or s
  local targets = {}
  if step.load then targets[#targets + 1] = "≤ " .. step.load .. "× load" end
  if step.ca then targets[#targets + 1] = "≥ " .. step.ca .. "× faster" end
  local cells = { time = over and ("> " .. env.fmt_s(TIMEOUT)) or env.fmt_s(s), ratio = "-",
    speedup = "-", target = #targets > 0 and table.concat(targets, ", ") or "-" }
  if s == "refused" then
    -- the writer's format cannot hold the numbers: nothing to time, no target judged
    cells.time, cells.verdict = "refused", "not possible"
    return cells, {}
  end
  if type(seconds) ~= "number" then
    cells.verdict = s
    return cells, #targets > 0 and { false } or {}
  end
  local function check(ok)
    if over and ok then return nil end
    return ok
  end
  local oks = {}
  cells.ratio = (over and "> " or "") .. env.fmt_n(seconds / load, 2) .. "×"
  if step.load then oks[#oks + 1] = check(seconds <= step.load * load) end
  if type(ca) == "number" then
    cells.speedup = (over and "< " or "") .. env.fmt_n(ca / seconds, 1) .. "×"
    if step.ca then oks[#oks + 1] = check(ca / seconds >= step.ca) end
  end
  local all = nil
  for _, ok in pairs(oks) do all = ok and (all ~= false) end
  cells.verdict = verdict(all)
  return cells, oks
end

local function file_table(entry, env)
  local r = entry.reports
  local ca = entry.ca_seconds
  local rows, passed, judged = {}, 0, 0
  table.insert(rows, { ("`callgrind.load` (median of %d processes; %s× the tokenizer, %s× wc -l)")
    :format(r.loads, env.fmt_n(r.load / entry.tok.median, 1), entry.wc and env.fmt_n(r.load / entry.wc, 0) or "-"),
    env.fmt_s(r.load), "1.00×", type(ca) == "number" and (env.fmt_n(ca / r.load, 1) .. "×") or "-", "-", "-" })
  table.insert(rows, { "callgrind_annotate (default options)", env.fmt_s(ca),
    type(ca) == "number" and (env.fmt_n(ca / r.load, 1) .. "×") or "-", "1.0×", "-", "-" })
  for _, result in ipairs(r.results) do
    local cells, oks = judge(result, r.load, ca, env)
    for _, ok in pairs(oks) do
      judged = judged + 1
      if ok then passed = passed + 1 end
    end
    table.insert(rows, { result.step.label, cells.time, cells.ratio, cells.speedup, cells.target,
      cells.verdict })
  end
  local rss_ok = entry.rss_ratio <= 1.0
  judged = judged + 1
  if rss_ok then passed = passed + 1 end
  table.insert(rows, { "peak RSS of a load / file size (bench/driver)", env.fmt_n(entry.rss_ratio, 2) .. "×",
    "-", "-", "≤ 1.0×", verdict(rss_ok) })
  return env.markdown_table({ "step", "time", "/ load", "callgrind_annotate / step", "target",
    "verdict" }, rows), passed, judged
end

--- The section of results.md, and how many targets passed of how many were judged.
function M.section(entries, env)
  local lines, passed, judged = {}, 0, 0
  local function add(s) lines[#lines + 1] = s or "" end
  add("## Reports, writers and annotation")
  add()
  add("Each step in a process of its own, page cache warm: the Lua steps through "
    .. "bench/time_report.lua (load, then the step alone, wall time), the commands whole from "
    .. "start to exit with their output to /dev/null. A step under " .. REPEAT_BELOW .. " s runs "
    .. "three times (the median is shown), none more than " .. TIMEOUT .. " s (`> " .. TIMEOUT
    .. " s`: cut there). \"/ load\" is the step's time over the median `callgrind.load` of "
    .. "every process on that file; callgrind_annotate / step is the speed-up over "
    .. "callgrind_annotate with its default options (the same run as in the tables above). "
    .. "\"refused\": the writer's format cannot hold the profile's numbers (webgrind's are 32 "
    .. "bits), which it says before writing anything; no target is judged there. "
    .. "Targets: reports at the core's speed, and the command's.")
  add()
  for _, entry in ipairs(entries) do
    if entry.reports then
      add(("### %s (%s MB; %s functions, %s line records, %s calls, %s jumps)"):format(entry.name,
        env.fmt_n(entry.bytes / 1e6, 1), env.fmt_count(entry.c.functions), env.fmt_count(entry.c.lines),
        env.fmt_count(entry.c.calls), env.fmt_count(entry.c.jumps)))
      add()
      local text, p, j = file_table(entry, env)
      add(text)
      add()
      passed, judged = passed + p, judged + j
    end
  end
  return table.concat(lines, "\n"), passed, judged
end

return M
