-- `make screenshots`: PNG pictures of the report page and of a flame graph of the bundled sample
-- (examples/data/), taken by headless chromium, into docs/ (the README shows them).
--
--   LUA_PATH="lua/?.lua;lua/?/init.lua;spec/?.lua;;" LUA_CPATH="build/5.4/?.so;;" lua5.4 docs/screenshots.lua
local callgrind = require "callgrind"
local browser = require "helpers.browser"

local SAMPLE = "examples/data/sample.callgrind.gz"
local WORK = "build/screenshots"

local missing = browser.missing()
if missing then
  io.stderr:write("screenshots: ", missing, "\n")
  os.exit(1)
end
assert(os.execute("mkdir -p " .. WORK))

local prof = assert(callgrind.load(SAMPLE))
local page = WORK .. "/report.html"
assert(callgrind.html.write(prof, page, { include = { "." }, asm = 0 }))
local svg = WORK .. "/flame.svg"
local f = assert(io.open(svg, "w"))
f:write(callgrind.flame.svg(prof, { title = "sample: Ir", width = 1200 }))
f:close()

-- the page's index of main: the first row of the listing
local shots = {
  { page, "docs/report.png", 1280, 900 },
  { page .. "#fn=0", "docs/report-function.png", 1280, 900 },
  { svg, "docs/flame.png", 1200, 260 },
}
for _, shot in ipairs(shots) do
  local target = shot[1]:find("#", 1, true) and ("file://" .. os.getenv("PWD") .. "/" .. shot[1]) or shot[1]
  local log = browser.screenshot(target, shot[2], shot[3], shot[4])
  local console = browser.console(log)
  if #console > 0 then
    io.stderr:write("screenshots: the page logged:\n", table.concat(console, "\n"), "\n")
    os.exit(1)
  end
  local png = io.open(shot[2], "rb")
  if not png or png:read(4) ~= "\137PNG" then
    io.stderr:write("screenshots: chromium wrote no ", shot[2], "\n", log, "\n")
    os.exit(1)
  end
  png:close()
  print("wrote " .. shot[2])
end
