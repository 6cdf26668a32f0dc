-- Test helper: Debian's chromium, headless, opening a local file the way a person would and
-- handing back the DOM it built and what it logged. Specs skip with browser.missing()'s message
-- when there is no chromium (`make deps` installs it when it can).
--
--   local browser = require "helpers.browser"
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

--- Opens `path` (a local file) in headless chromium: the DOM after the page's scripts ran, and
--- chromium's log (stderr; what the page writes to the console appears as CONSOLE lines).
function browser.dump_dom(path)
  local profile_dir = os.tmpname()
  os.remove(profile_dir)
  local out, err = os.tmpname(), os.tmpname()
  if path:sub(1, 1) ~= "/" then
    local pipe = io.popen("pwd")
    path = pipe:read("*l") .. "/" .. path
    pipe:close()
  end
  -- a sanitizer runtime preloaded for the Lua process (make sanitize) is not for chromium
  local command = table.concat({
    "env -u LD_PRELOAD timeout 120 chromium --headless --no-sandbox --disable-gpu",
    "--disable-background-networking --no-first-run --user-data-dir=" .. quote(profile_dir),
    "--enable-logging=stderr --dump-dom", quote("file://" .. path),
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
