-- Where the specs find their inputs: files in spec/data, and the real profiles written by
-- other tools in the shared test data (../shared/testdata, or $CALLGRIND_TESTDATA).
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

local testdata = os.getenv("CALLGRIND_TESTDATA")
if not testdata then
  for _, dir in ipairs { "../shared/testdata", "../../shared/testdata" } do
    if exists(dir .. "/thirdparty/SOURCES.md") then
      testdata = dir
      break
    end
  end
end

-- Absolute, so that tools run from other directories find it too.
if testdata and testdata:sub(1, 1) ~= "/" then
  local pipe = io.popen("cd '" .. testdata .. "' && pwd")
  testdata = pipe:read("*l") or testdata
  pipe:close()
end

--- Path of a shared test file, e.g. fixtures.shared("thirdparty/pprof/pprof.cpu.callgrind").
function fixtures.shared(name)
  assert(testdata, "shared test data not found: set CALLGRIND_TESTDATA or provide ../shared/testdata")
  return testdata .. "/" .. name
end

function fixtures.shared_dir()
  return testdata
end

--- Every file under a shared test directory (sorted), via `find`.
function fixtures.shared_files(subdir)
  local dir = fixtures.shared(subdir)
  local list = {}
  local pipe = assert(io.popen("find '" .. dir .. "' -type f | sort"))
  for line in pipe:lines() do list[#list + 1] = line end
  pipe:close()
  return list
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
