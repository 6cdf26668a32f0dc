-- Damaged profiles: every real profile the specs have, cut short, with bytes changed, lines
-- swapped and lines repeated. A strict load gives a profile or nil and "NAME:LINE: message"; a
-- tolerant load always gives a profile (the one fault no mode skips is a format version of 2 or
-- more, which a changed byte can write). Nothing may raise, crash or leak (`make sanitize` and
-- `make memcheck` run this file too).
local callgrind = require "callgrind"
local fixtures = require "helpers.fixtures"
local vg = require "helpers.valgrind"

-- A small deterministic generator, the same on every Lua version.
local function prng(seed)
  local state = seed % 2147483647
  if state <= 0 then state = state + 2147483646 end
  return function(n)
    state = state * 16807 % 2147483647
    return state % n + 1
  end
end

local function lines_of(text)
  local lines = {}
  for line in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
  end
  return lines
end

-- The damaged variants of a text: cuts, changed bytes, swapped and repeated lines.
local function variants(text, seed)
  local out = {}
  local n = #text
  local random = prng(seed)
  local small = n <= 4096
  if small then
    for cut = 0, n - 1 do out[#out + 1] = { "cut at " .. cut, text:sub(1, cut) } end
  else
    for i = 0, 31 do
      local cut = math.floor(n * i / 32) + random(97) - 1
      out[#out + 1] = { "cut at " .. cut, text:sub(1, cut) }
    end
  end
  local alphabet = "0123456789 +-*=:()\n\r\tabcfilnjx\0\255"
  for _ = 1, (small and 200 or 32) do
    local at = random(n)
    local k = random(#alphabet)
    local b = alphabet:sub(k, k)
    out[#out + 1] = { "byte " .. at .. " set to " .. b:byte(), text:sub(1, at - 1) .. b .. text:sub(at + 1) }
  end
  local lines = lines_of(text)
  if #lines >= 2 then
    for _ = 1, (small and 24 or 8) do
      local i, j = random(#lines), random(#lines)
      local copy = {}
      for k, l in ipairs(lines) do copy[k] = l end
      copy[i], copy[j] = copy[j], copy[i]
      out[#out + 1] = { "lines " .. i .. " and " .. j .. " swapped", table.concat(copy, "\n") .. "\n" }
      local dup = {}
      for k, l in ipairs(lines) do
        dup[#dup + 1] = l
        if k == i then dup[#dup + 1] = l end
      end
      out[#out + 1] = { "line " .. i .. " repeated", table.concat(dup, "\n") .. "\n" }
    end
  end
  return out
end

local function check(name, text, seed)
  local failures = {}
  for _, v in ipairs(variants(text, seed)) do
    local what, data = v[1], v[2]
    local ok, prof, err = pcall(callgrind.parse, data, name)
    if not ok then
      failures[#failures + 1] = what .. ": raised " .. tostring(prof)
    elseif not prof then
      local line = err:match("^" .. name:gsub("%p", "%%%0") .. ":(%d+): .")
      if not line then failures[#failures + 1] = what .. ": message without a line: " .. tostring(err) end
    end
    local tok, tprof, terr = pcall(callgrind.parse, data, name, { strict = false })
    if not tok then
      failures[#failures + 1] = what .. ": tolerant load raised " .. tostring(tprof)
    elseif not tprof and not tostring(terr):find("unsupported format version", 1, true) then
      failures[#failures + 1] = what .. ": tolerant load gave no profile: " .. tostring(terr)
    elseif tprof then
      -- the model is whole: functions can be walked
      local walked = 0
      for fn in tprof:functions() do
        for _, ev in ipairs(tprof:events()) do
          local _ = fn:self(ev) + fn:inclusive(ev)
        end
        for line in fn:lines() do local _ = line.line end
        for call in fn:callees() do local _ = call.callee.name end
        walked = walked + 1
        if walked == 40 then break end
      end
    end
    if #failures >= 5 then break end
  end
  assert.same({}, failures)
end

local function seed_of(name)
  local h = 7
  for i = 1, #name do h = (h * 31 + name:byte(i)) % 2147483647 end
  return h
end

describe("damaged profiles", function()
  local files = {}
  for _, path in ipairs(fixtures.testdata_profiles("")) do files[#files + 1] = path end
  local seeds = io.popen("ls fuzz/seeds/*.cg")
  for path in seeds:lines() do files[#files + 1] = path end
  seeds:close()

  for _, path in ipairs(files) do
    local name = path:match("([^/]*)$")
    it("never break the loader: " .. name, function()
      check(name, fixtures.read(path), seed_of(name))
    end)
  end

  if vg.available() then
    for _, config in ipairs(vg.configs()) do
      it("never break the loader: every " .. config.name .. " profile", function()
        for _, path in ipairs((vg.profile(config.name))) do
          local name = path:match("([^/]*)$")
          check(name, fixtures.read(path), seed_of(name))
        end
      end)
    end
  else
    pending("valgrind profiles: gcc, valgrind and callgrind_annotate are needed on PATH")
  end
end)
