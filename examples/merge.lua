-- merge.lua: several profiles (the threads of a run, several runs, the .N dumps) in one file.
--
--   lua5.4 examples/merge.lua OUT IN...
--
-- Functions are matched by name, file and object, events by name; OUT is written in the
-- Callgrind format, readable by this module, callgrind_annotate and KCachegrind.
local cli = require("callgrind.cli").new("merge.lua")

local usage = [[
usage: merge.lua [--no-compress] OUT IN...

Sums Callgrind or Cachegrind profiles into one and writes it to OUT.

options:
  --no-compress   write names and positions in full (no name or position compression)
  -h, --help      this text
]]

local compress = true
local paths = {}
for _, a in ipairs(arg) do
  if a == "-h" or a == "--help" then
    io.write(usage)
    os.exit(0)
  elseif a == "--no-compress" then
    compress = false
  elseif a:sub(1, 1) == "-" then
    cli:fail("unknown option '" .. a .. "' (see --help)")
  else
    paths[#paths + 1] = a
  end
end
if #paths < 2 then
  io.stderr:write(usage)
  os.exit(2)
end

local out = table.remove(paths, 1)
cli:run(function()
  -- an empty file among the inputs (valgrind's --separate-threads=yes leaves the base file
  -- empty) is skipped with a warning
  local prof = cli:load(paths)
  local ok, err = prof:write(out, { compress_names = compress, compress_positions = compress })
  if not ok then cli:fail(err, 1) end
  io.stderr:write(("merge.lua: %d profiles, %d functions, written to %s\n"):format(#paths, prof:stats().functions,
    out))
end)
