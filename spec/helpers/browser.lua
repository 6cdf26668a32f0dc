-- Test helper: Debian's chromium, headless, opening a local file the way a person would and
-- handing back the DOM it built and what it logged. Specs skip with browser.missing()'s message
-- when there is no chromium (`make deps` installs it when it can), and fail instead when
-- CALLGRIND_SPEC_REQUIRE_CHROMIUM=1 (CI sets it: .ci/run).
--
--   local browser = require "helpers.browser"
--   if browser.unavailable(it, pending) then return end   -- inside a describe block
--   local dom, log = browser.dump_dom("/tmp/page.html")
local run = require "helpers.run"

local browser = {}

local quote, read_all = run.quote, run.read_all

local found
--- Nil when chromium can be run, else why not.
function browser.missing()
  if found == nil then
    local pipe = io.popen("command -v chromium 2>/dev/null")
    local path = pipe:read("*l")
    pipe:close()
    found = path or false
  end
  if found then return nil end
  return "chromium is not installed (Debian package chromium; .ci/deps installs it when it can)"
end

--- Whether a missing chromium fails the browser specs instead of skipping them.
function browser.required()
  return os.getenv("CALLGRIND_SPEC_REQUIRE_CHROMIUM") == "1"
end

--- For a describe block (pass busted's `it` and `pending`): when chromium cannot run (or the
--- suite runs under memcheck), adds one pending test that says why, or a failing one when
--- browser.required(), and returns true (the block then adds nothing more).
function browser.unavailable(it, pending)
  local missing = browser.missing()
  if not missing and os.getenv("CALLGRIND_SPEC_NO_VALGRIND") then
    -- under memcheck the whole suite runs inside valgrind: no browser there
    pending("the browser specs are skipped under memcheck")
    return true
  end
  if not missing then return false end
  if browser.required() then
    it("needs chromium", function() error(missing .. "; CALLGRIND_SPEC_REQUIRE_CHROMIUM=1 requires it", 0) end)
  else
    pending(missing)
  end
  return true
end

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local pipe = io.popen("pwd")
  local dir = pipe:read("*l")
  pipe:close()
  return dir .. "/" .. path
end

local function url_of(path)
  if path:find("^file://") then return path end
  return "file://" .. absolute(path)
end

--- Opens `path` (a local file, or a file:// URL with a #fragment) in headless chromium and
--- writes a PNG screenshot of `width` x `height` pixels to `png`. Returns chromium's log.
function browser.screenshot(path, png, width, height)
  local profile_dir = os.tmpname()
  os.remove(profile_dir)
  local err = os.tmpname()
  local command = table.concat({
    "env -u LD_PRELOAD timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars",
    "--disable-background-networking --no-first-run --user-data-dir=" .. quote(profile_dir),
    "--enable-logging=stderr --window-size=" .. width .. "," .. height,
    "--screenshot=" .. quote(absolute(png)), quote(url_of(path)), ">/dev/null", "2>" .. quote(err),
  }, " ")
  os.execute(command)
  local log = read_all(err)
  os.remove(err)
  os.execute("rm -rf " .. quote(profile_dir))
  return log
end

--- Opens `path` (a local file, or a file:// URL with a #fragment) in headless chromium: the DOM after the page's scripts ran, and
--- chromium's log (stderr; what the page writes to the console appears as CONSOLE lines).
function browser.dump_dom(path)
  local profile_dir = os.tmpname()
  os.remove(profile_dir)
  local out, err = os.tmpname(), os.tmpname()
  -- a sanitizer runtime preloaded for the Lua process (make sanitize) is not for chromium
  local command = table.concat({
    "env -u LD_PRELOAD timeout 120 chromium --headless --no-sandbox --disable-gpu",
    "--disable-background-networking --no-first-run --user-data-dir=" .. quote(profile_dir),
    "--enable-logging=stderr --dump-dom", quote(url_of(path)),
    ">" .. quote(out), "2>" .. quote(err),
  }, " ")
  os.execute(command)
  local dom, log = read_all(out), read_all(err)
  os.execute("rm -rf " .. quote(profile_dir))
  return dom, log
end

--- The lines of a chromium log that come from the page's console (errors included).
function browser.console(log)
  local lines = {}
  for line in log:gmatch("[^\n]+") do
    if line:find(":CONSOLE", 1, true) then lines[#lines + 1] = line end
  end
  return lines
end

return browser
