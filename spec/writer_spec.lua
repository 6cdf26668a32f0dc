-- prof:write: the Callgrind format out again, read back with the same numbers, by this module
-- and by callgrind_annotate.
local callgrind = require "callgrind"
local core = require "callgrind.core"
local writer = require "callgrind.writer"
local reference = require "helpers.reference_writer"
local model = require "helpers.model"
local fixtures = require "helpers.fixtures"
local vg = require "helpers.valgrind"

local function round_trip(prof, opts)
  local text = writer.text(prof, opts)
  local again, err = callgrind.parse(text, "written")
  assert(again, err)
  assert.same({}, again:warnings())
  return again, text
end

local function assert_same_model(a, b, what)
  local d = model.difference(model.snapshot(a), model.snapshot(b))
  assert(d == nil, (what or "") .. " differs at " .. tostring(d))
end

local variants = {
  { name = "compressed", opts = {} },
  { name = "uncompressed", opts = { compress_names = false, compress_positions = false } },
}

describe("prof:write", function()
  it("writes the extended example so that it reads back the same", function()
    local prof = assert(callgrind.parse(
      "events: Ir Dr\nfl=file1.c\nfn=main\n16 20\ncfn=func1\ncalls=1 50\n16 400 4\ncfi=file2.c\ncfn=func2\n" ..
      "calls=3 20\n16 400\nfn=func1\n51 100\ncfi=file2.c\ncfn=func2\ncalls=2 20\n51 300\nfl=file2.c\nfn=func2\n20 700 7\n"))
    for _, v in ipairs(variants) do
      local again, text = round_trip(prof, v.opts)
      assert_same_model(prof, again, v.name)
      assert.truthy(text:find("events: Ir Dr\n", 1, true))
      assert.truthy(text:find("\ntotals: 820 7\n", 1, true)) -- self costs only: Dr 4 is a call cost
    end
  end)

  it("compresses names and positions unless asked not to", function()
    local prof = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local compressed = writer.text(prof)
    local plain = writer.text(prof, { compress_names = false, compress_positions = false })
    assert.truthy(compressed:find("fn=%(%d+%) main\n"))
    assert.truthy(compressed:find("\n%+%d+ [%*%+%-]"))
    assert.falsy(plain:find("\nfn=%(%d"))
    assert.falsy(plain:find("\n[%+%-%*]"))
    assert.truthy(#compressed < #plain)
  end)

  it("keeps inlined code, jumps, long names, formulas and the description", function()
    local prof = assert(callgrind.parse([[
version: 1
creator: xdebug 3.1
cmd: ./prog 10
desc: Trigger: Program termination
positions: instr line
event: Ir : Instruction Fetches
event: Sum = Ir + Dr : Reads and fetches
events: Ir Dr
fl=a.c
fn=main
0x10 12 3 1
fi=inl.h
+4 1 42
jcnd=3/5 +8 2
* *
fe=a.c
+8 15 2
cfn=(7) (5)x
calls=1 0x40 1
* * 9
fn=(7)
0x40 1 9
]]))
    for _, v in ipairs(variants) do
      local again, text = round_trip(prof, v.opts)
      assert_same_model(prof, again, v.name)
      assert.equal("Instruction Fetches", again:event_info("Ir").long_name)
      assert.equal("Ir + Dr", again:event_info("Sum").formula)
      assert.equal("Reads and fetches", again:event_info("Sum").long_name)
      assert.equal((3 + 1) + 42 + 2, again:find("main"):self("Sum"))
      local s = again:sections()[1]
      assert.equal("./prog 10", s.cmd)
      assert.equal("Program termination", s.desc.Trigger)
      assert.truthy(text:find("creator: xdebug 3.1; rewritten by the callgrind Lua module 0.1.0", 1, true))
      assert.falsy(text:find("event: CEst", 1, true)) -- known formulas come back by themselves
    end
  end)

  it("writes to an open file", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=f\n1 5\n"))
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    assert.is_true(prof:write(f))
    f:close()
    assert.equal(5, assert(callgrind.load(path)):total(1))
    os.remove(path)
  end)

  it("replaces a file only once the whole text is written, and leaves nothing behind on failure", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=f\n1 5\n"))
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir))
    local target = dir .. "/out.callgrind"
    assert.is_true(prof:write(target))
    assert.equal(5, assert(callgrind.load(target)):total(1))
    -- a directory in the way: the rename fails, the temporary file goes away
    assert(os.execute("mkdir " .. dir .. "/busy && touch " .. dir .. "/busy/x"))
    local ok, err = prof:write(dir .. "/busy")
    assert.is_nil(ok)
    assert.is_string(err)
    -- a missing directory: nothing to write into
    ok, err = prof:write(dir .. "/missing/out")
    assert.is_nil(ok)
    assert.truthy(err:find("No such file or directory", 1, true))
    local pipe = io.popen("ls -A " .. dir)
    local listing = pipe:read("*a")
    pipe:close()
    assert.equal("busy\nout.callgrind\n", listing)
    os.execute("rm -rf " .. dir)
  end)

  it("writes into a device or a pipe in place, never a file over it", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=f\n1 5\n"))
    local system = require "callgrind.system"
    assert.equal("other", core.file_kind("/dev/null"))
    local dir = os.tmpname()
    os.remove(dir)
    assert.is_true(system.execute("mkdir " .. dir .. " && mkfifo " .. dir .. "/pipe"))
    assert.equal("directory", core.file_kind(dir))
    assert.equal("other", core.file_kind(dir .. "/pipe"))
    assert.is_nil(core.file_kind(dir .. "/missing"))
    assert.has_error(function() core.file_kind(nil) end)
    -- a reader at the other end of the pipe copies what comes through (given up after 10 s:
    -- a rename over the pipe would leave it waiting)
    assert.is_true(system.execute("timeout 10 cat " .. dir .. "/pipe > " .. dir .. "/copy &"))
    assert.is_true(prof:write(dir .. "/pipe"))
    -- still the pipe: a rename would have left a regular file there
    assert.equal("other", core.file_kind(dir .. "/pipe"))
    assert.is_true(system.execute("n=0; while [ ! -s " .. dir .. "/copy ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done; sleep 0.1"))
    assert.equal("file", core.file_kind(dir .. "/copy"))
    assert.equal(writer.text(prof), fixtures.read(dir .. "/copy"))
    assert.equal(5, assert(callgrind.load(dir .. "/copy")):total(1))
    os.execute("rm -rf " .. dir)
  end)

  it("writes a file in many buffers, the same text as writer.text", function()
    local prof = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    assert.is_true(prof:write(f, { compress_positions = false }))
    f:close()
    f = assert(io.open(path, "rb"))
    local written = f:read("*a")
    f:close()
    os.remove(path)
    local text = writer.text(prof, { compress_positions = false })
    assert.is_true(#text > 4 * 65536) -- the core sends 64 KiB at a time
    assert.equal(text, written)
  end)

  it("raises for a target that is neither a path nor a file", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=f\n1 5\n"))
    assert.has_error(function() prof:write(42) end)
    assert.has_error(function() prof:write("x", "y") end)
  end)
end)

describe("core.write", function()
  local prof = assert(callgrind.parse(
    "events: Ir\nfl=a.c\nfn=f\n1 5\ncfn=g\ncalls=2 9\n1 7\nfn=g\n9 7\n"))

  it("sends the function blocks to a function, a buffer at a time", function()
    local parts = {}
    assert.is_true(core.write(prof, function(s)
      parts[#parts + 1] = s
      return true
    end))
    -- the call's target is relative to the last position line; the call site is too
    assert.equal(
      "fl=(1) a.c\nfn=(1) f\n1 5\ncfi=(1)\ncfn=(2) g\ncalls=2 +8\n* 7\n\nfn=(2)\n+8 7\n\n",
      table.concat(parts))
    parts = {}
    assert.is_true(core.write(prof, function(s)
      parts[#parts + 1] = s
      return true
    end, { compress_names = false, compress_positions = false }))
    assert.equal("fl=a.c\nfn=f\n1 5\ncfi=a.c\ncfn=g\ncalls=2 9\n1 7\n\nfn=g\n9 7\n\n",
      table.concat(parts))
  end)

  it("stops when the function refuses, with its message", function()
    local calls = 0
    local ok, err = core.write(prof, function()
      calls = calls + 1
      return nil, "disk full"
    end)
    assert.is_nil(ok)
    assert.equal("disk full", err)
    assert.equal(1, calls)
    ok, err = core.write(prof, function() return false end)
    assert.is_nil(ok)
    assert.equal("the output refused the data", err)
  end)

  it("raises what the function raises, and the profile stays usable", function()
    local ok, err = pcall(core.write, prof, function() error("boom", 0) end)
    assert.is_false(ok)
    assert.equal("boom", err)
    assert.is_true(core.write(prof, function() return true end))
  end)

  it("refuses to close the profile while it is written", function()
    local ok, err = pcall(core.write, prof, function() prof:close() end)
    assert.is_false(ok)
    assert.truthy(err:find("being written", 1, true), err)
    assert.equal(12, prof:total("Ir"))
  end)

  it("raises for bad arguments", function()
    assert.has_error(function() core.write(prof, "not a function") end)
    assert.has_error(function() core.write(prof, print, "not a table") end)
    assert.has_error(function() core.write({}, print) end)
  end)
end)

describe("prof:write on the test profiles written by other tools", function()
  for _, path in ipairs(fixtures.testdata_profiles("")) do
    it("reads " .. path:match("testdata/(.*)") .. " back with every number", function()
      local prof = assert(callgrind.load(path, { strict = false }))
      for _, v in ipairs(variants) do
        assert_same_model(prof, (round_trip(prof, v.opts)), v.name)
      end
    end)
  end

  it("writes every test profile byte for byte as the Lua reference writer does", function()
    local paths = fixtures.testdata_profiles("")
    paths[#paths + 1] = "examples/data/sample.callgrind.gz"
    local options = { {}, { compress_names = false }, { compress_positions = false },
      { compress_names = false, compress_positions = false } }
    for _, path in ipairs(paths) do
      local prof = callgrind.load(path, { strict = false })
      if prof then
        for _, opts in ipairs(options) do
          local text = writer.text(prof, opts)
          assert(text == reference.text(prof, opts), path .. " differs from the reference")
        end
      end
    end
  end)
end)

if not vg.available() then
  describe("prof:write on valgrind profiles", function()
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
  end)
  return
end

-- Self cost per callgrind_annotate key ("file:function"), summed over its rows.
local function annotate_rows(path)
  local out = {}
  for _, row in ipairs(vg.annotate(path).rows) do
    local t = out[row.key] or {}
    for ev, v in pairs(row.costs) do t[ev] = (t[ev] or 0) + v end
    out[row.key] = t
  end
  return out
end

local function zero_count_calls(path)
  for _, call in ipairs(vg.read_raw(path).calls) do
    if call.count == 0 then return true end
  end
  return false
end

describe("prof:write on valgrind profiles", function()
  for _, config in ipairs(vg.configs()) do
    it("reads every " .. config.name .. " profile back with every number, here and in callgrind_annotate", function()
      for _, path in ipairs((vg.profile(config.name))) do
        local prof = assert(callgrind.load(path))
        for _, v in ipairs(variants) do
          assert_same_model(prof, (round_trip(prof, v.opts)), v.name)
          assert(writer.text(prof, v.opts) == reference.text(prof, v.opts),
            path .. " differs from the reference")
        end
        local written = vg.work_dir() .. "/" .. path:match("[^/]*$") .. ".written"
        assert.is_true(prof:write(written))
        -- callgrind_annotate reads one part; it counts calls=0 costs as self cost, which a
        -- rewritten multi-part profile keeps in fewer lines: compare where neither applies
        if #prof:sections() == 1 and not zero_count_calls(path) then
          assert.same(annotate_rows(path), annotate_rows(written))
        end
      end
    end)
  end
end)
