-- bench/flavours.lua: the Lua side of the benchmarks on every Lua interpreter, behind
-- `make bench-flavours` (see bench/README.md).
--
-- Runs bench/lua_walk.lua with each interpreter named in BENCH_LUAS against the module built
-- for it (build/VERSION/), on the instr 100 MB and 1 GB data files that `make bench` makes,
-- and writes bench/flavours.md. Run from the repository root.

local LUAS = os.getenv("BENCH_LUAS") or "lua5.1 lua5.2 lua5.3 lua5.4 luajit"
local FILES = {
  { name = "instr 100 MB", path = "bench/data/instr-100.callgrind", runs = 3 },
  { name = "instr 1 GB", path = "bench/data/instr-1000.callgrind", runs = 1 },
}

local function run(cmd)
  local pipe = assert(io.popen(cmd .. " 2>&1"))
  local out = pipe:read("*a")
  local ok = pipe:close()
  return out, ok
end

local function median(values)
  table.sort(values)
  return values[math.floor((#values + 1) / 2)]
end

local function build_dir(lua)
  return "build/" .. (lua == "luajit" and "jit" or lua:gsub("^lua", ""))
end

local function walk(lua, path)
  local out, ok = run(('LUA_PATH="lua/?.lua;lua/?/init.lua;;" LUA_CPATH="%s/?.so;;" %s '
    .. "bench/lua_walk.lua '%s'"):format(build_dir(lua), lua, path))
  if not ok then error(lua .. " bench/lua_walk.lua " .. path .. " failed:\n" .. out, 0) end
  local r = {}
  for key, value in out:gmatch("(%S+) (%S+)\n") do r[key] = tonumber(value) or value end
  return r
end

local function fmt_s(x)
  if x >= 10 then return ("%.1f s"):format(x) end
  if x >= 0.1 then return ("%.2f s"):format(x) end
  return ("%.1f ms"):format(x * 1000)
end

local function measure(lua, file)
  local keys = { "load_seconds", "callees_seconds", "lines_seconds", "annotate_seconds", "editor_seconds" }
  local samples = {}
  for _, key in ipairs(keys) do samples[key] = {} end
  for _ = 1, file.runs do
    local r = walk(lua, file.path)
    for _, key in ipairs(keys) do table.insert(samples[key], r[key]) end
  end
  local row = { file.name, lua }
  for _, key in ipairs(keys) do row[#row + 1] = fmt_s(median(samples[key])) end
  return row
end

local function main()
  local rows = {}
  for _, file in ipairs(FILES) do
    local f = io.open(file.path, "rb")
    if not f then error(file.path .. " is missing: `make bench` makes it", 0) end
    f:close()
    for lua in LUAS:gmatch("%S+") do
      io.stderr:write(("bench: %s with %s\n"):format(file.name, lua))
      rows[#rows + 1] = measure(lua, file)
    end
  end
  local out = {
    "# The Lua module on each interpreter",
    "",
    "CPU time (`os.clock`) of `callgrind.load`, of a walk over every function and its callees "
      .. "(`call.callee`, `call:inclusive(1)`), of a walk over every line record "
      .. "(`line:cost(1)`), of `annotate.costs_by_file(prof, {1})` (every file's per-line costs) "
      .. "and of `annotate.line_totals(prof, 1)` (the same as the sums the Neovim plugin draws); "
      .. "median of 3 runs for 100 MB, one run for 1 GB. "
      .. "Made by `make bench-flavours`.",
    "",
    "| file | Lua | load | functions and callees | line records | costs by file | line totals |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
  }
  for _, row in ipairs(rows) do out[#out + 1] = "| " .. table.concat(row, " | ") .. " |" end
  local text = table.concat(out, "\n") .. "\n"
  io.write(text)
  local f = assert(io.open("bench/flavours.md", "w"))
  f:write(text)
  f:close()
end

local ok, err = pcall(main)
if not ok then
  io.stderr:write("bench: ", tostring(err), "\n")
  os.exit(1)
end
