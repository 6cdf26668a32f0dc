-- Where the specs find their inputs: files in spec/data, among them the real profiles written
-- by other tools in spec/data/testdata.
local fixtures = {}

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

function fixtures.read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

--- The text of a file, or nil when it cannot be read.
function fixtures.try_read(path)
  return exists(path) and fixtures.read(path) or nil
end

function fixtures.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

--- The paths a shell pattern names, sorted.
function fixtures.list(pattern)
  local found = {}
  local pipe = assert(io.popen("ls " .. pattern .. " 2>/dev/null"))
  for path in pipe:lines() do found[#found + 1] = path end
  pipe:close()
  table.sort(found)
  return found
end

function fixtures.data(name)
  return "spec/data/" .. name
end

-- The profiles written by other tools, kept in the repository (spec/data/testdata/README.md),
-- as an absolute path so that tools run from other directories find them too.
-- Found on first use, so that specs which need none start no shell (under ThreadSanitizer a
-- child shell cannot run).
local testdata
local function testdata_path()
  if testdata then return testdata end
  local pipe = assert(io.popen("cd spec/data/testdata && pwd"))
  testdata = pipe:read("*l")
  pipe:close()
  assert(testdata, "spec/data/testdata not found: run the specs from the repository's top directory")
  return testdata
end

--- Path of a test profile written by another tool, e.g.
--- fixtures.testdata("thirdparty/pprof/pprof.cpu.callgrind").
function fixtures.testdata(name)
  return testdata_path() .. "/" .. name
end

function fixtures.testdata_dir()
  return testdata_path()
end

--- Every profile under a test data directory (sorted), via `find`: the notes, the licence texts
--- and callgrind_annotate's outputs beside them are left out.
function fixtures.testdata_profiles(subdir)
  local dir = fixtures.testdata(subdir)
  local list = {}
  local pipe = assert(io.popen("find '" .. dir .. "' -type f ! -name '*.md' ! -name '*.post.exp'"
    .. " ! -path '*/LICENSES/*' ! -path '*/oracle-callgrind_annotate-*' | sort"))
  for line in pipe:lines() do list[#list + 1] = line end
  pipe:close()
  return list
end

--- The extended example of the Callgrind format specification: main 820 inclusive (self 20),
--- func1 400 (self 100), func2 700; main calls func1 once (400) and func2 three times (400),
--- func1 calls func2 twice (300). Several specs work out their numbers from it.
fixtures.EXTENDED = [[
# callgrind format
events: Instructions

fl=file1.c
fn=main
16 20
cfn=func1
calls=1 50
16 400
cfi=file2.c
cfn=func2
calls=3 20
16 400

fn=func1
51 100
cfi=file2.c
cfn=func2
calls=2 20
51 300

fl=file2.c
fn=func2
20 700
]]

--- A source file's text of `count` lines "PREFIX 1", "PREFIX 2", ..., each ended by a newline.
function fixtures.numbered(prefix, count)
  local lines = {}
  for n = 1, count do lines[n] = prefix .. " " .. n end
  return table.concat(lines, "\n") .. "\n"
end

--- Collects an iterator's values into a list.
function fixtures.collect(iter)
  local list = {}
  for v in iter do list[#list + 1] = v end
  return list
end

--- Functions of a profile by "name" (or "name@file" when names repeat).
function fixtures.functions_by_name(prof)
  local by = {}
  for fn in prof:functions() do
    by[fn.name] = by[fn.name] and by[fn.name] or fn
    by[fn.name .. "@" .. fn.file] = fn
  end
  return by
end

return fixtures
