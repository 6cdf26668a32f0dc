-- `make bench-html`: the report page (callgrind.html) of the 100 MB profile of 50,000 functions
-- that bench/gen.c makes (`gen single 100`, the file `make bench` uses): the time to load the
-- profile and write the page, the page's size and what makes it up, and the time headless
-- chromium takes to open it from disk and draw it (the page records when its script is done:
-- data-drawn-ms on <html>). Writes bench/html.md (BENCH_HTML_RESULTS=PATH elsewhere).
local callgrind = require "callgrind"
local json = require "callgrind.json"

local BIN = os.getenv("BENCH_BIN") or "build/5.4/bench"
local DATA = "bench/data"
local PROFILE = DATA .. "/single-100.callgrind"
local RESULTS = os.getenv("BENCH_HTML_RESULTS") or "bench/html.md"
local WORK = "build/bench-html"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function must(command)
  local ok = os.execute(command)
  if ok ~= true and ok ~= 0 then error("failed: " .. command, 0) end
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

local function now()
  local pipe = io.popen("date +%s.%N")
  local t = tonumber(pipe:read("*l"))
  pipe:close()
  return t
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

must("mkdir -p " .. DATA .. " " .. WORK)
if not exists(PROFILE) then
  print("making " .. PROFILE)
  must(("%s/gen single 100 %s.tmp && mv %s.tmp %s"):format(BIN, quote(PROFILE), quote(PROFILE), quote(PROFILE)))
end

local lines = { "# The report page of a big profile", "",
  "`make bench-html`: `callgrind.html` on `" .. PROFILE .. "` (bench/gen.c `single 100`).", "" }
local function say(text)
  print(text)
  lines[#lines + 1] = text
end

local t0 = now()
local prof = assert(callgrind.load(PROFILE))
local t1 = now()
local stats = prof:stats()
say(("- profile: %.1f MB, %d functions, %d calls; loaded in %.2f s"):format(#read(PROFILE) / 1e6, stats.functions,
  stats.calls, t1 - t0))

local page = WORK .. "/single-100.html"
t0 = now()
assert(callgrind.html.write(prof, page))
t1 = now()
local size = #read(page)
say(("- page written in %.2f s (the data, 50 call graphs drawn by Graphviz, the flame graph): %.1f MB")
  :format(t1 - t0, size / 1e6))

-- what makes up the page
local data = callgrind.html.data(prof, { graphs = 0, asm = 0 })
local parts = {}
for _, key in ipairs { "functions", "calls", "strings", "sources" } do
  parts[#parts + 1] = ("%s %.1f MB"):format(key, #json.encode(data[key]) / 1e6)
end
say("- the data: " .. table.concat(parts, ", ") .. ("; %d functions in the table at the 99%% threshold, %d in all")
  :format(data.shown, data.rows))

-- chromium: from its start to the DOM dumped, and the page's own clock when its script was done
local function open(url)
  local profile_dir = WORK .. "/chromium"
  must("rm -rf " .. quote(profile_dir))
  local start = now()
  local pipe = io.popen(("timeout 300 chromium --headless --no-sandbox --disable-gpu --no-first-run "
    .. "--disable-background-networking --user-data-dir=%s --dump-dom %s 2>/dev/null"):format(quote(profile_dir), quote(url)))
  local dom = pipe:read("*a")
  pipe:close()
  return now() - start, dom
end
local ok = os.execute("command -v chromium >/dev/null 2>&1")
if ok == true or ok == 0 then
  local blank = open("about:blank")
  local pwd = io.popen("pwd"):read("*l")
  local url = "file://" .. pwd .. "/" .. page
  local best, drawn, rows
  for _ = 1, 3 do
    local t, dom = open(url)
    if not best or t < best then
      best = t
      drawn = tonumber(dom:match('data%-drawn%-ms="(%d+)"'))
      local body = dom:match('id="table"><thead>.-<tbody>(.-)</tbody>') or ""
      rows = select(2, body:gsub("<tr ", ""))
    end
  end
  say(("- chromium (headless, best of 3): %.2f s from its start to the DOM of the page, %.2f s for an empty page; "
    .. "the page's script done %.2f s after the navigation began; %d table rows drawn"):format(best, blank,
    (drawn or 0) / 1000, rows))
else
  say("- chromium is not installed: the page was not opened")
end

say("")
say("How the page stays small and quick: the data is JSON in one `<script type=\"application/json\">` "
  .. "element (functions as arrays, files and objects as indexes into one list of strings, every call once); "
  .. "the table draws the rows within the threshold, 200 at a time, and more on request; callers, callees, "
  .. "source and graphs of a function are drawn when it is shown; call graphs and machine code are made for "
  .. "the hottest functions only (`graphs`, `asm`), and source text up to `max_source_bytes`.")

local f = assert(io.open(RESULTS, "w"))
f:write(table.concat(lines, "\n"), "\n")
f:close()
print("wrote " .. RESULTS)
