-- Reports written to an output (opts.out, core's `out` argument): the text handed to the
-- output's write method in pieces as it is made, the same bytes as the string the report
-- returns without one, and a write that fails ending the report with its message.
local callgrind = require "callgrind"
local core = require "callgrind.core"
local report = require "callgrind.report"
local command = require "helpers.command"
local generated = require "helpers.generated"

-- 2,000 functions of three records: a listing and a function table of well over 64 KiB, the
-- size of one piece, so that they come in several.
local big = assert(callgrind.parse(generated.profile_text(2000, 3), "big.out"))

-- An output that keeps what it is given; `fail_at`: the write that fails instead (returning
-- nil and a message, or raising an error with `raise`).
local function collector(fail_at, raise)
  local out = { pieces = {}, calls = 0 }
  function out:write(...)
    self.calls = self.calls + 1
    if self.calls == fail_at then
      if raise then error("the disk went away") end
      return nil, "No space left on device"
    end
    for i = 1, select("#", ...) do self.pieces[#self.pieces + 1] = select(i, ...) end
    return self
  end
  function out:text() return table.concat(self.pieces) end
  return out
end

local function largest(pieces)
  local n = 0
  for _, piece in ipairs(pieces) do n = math.max(n, #piece) end
  return n
end

describe("core.functions_text to an output", function()
  it("writes the same text in pieces of at most 64 KiB and returns true", function()
    local whole = core.functions_text(big, { "Ir", "Dr" }, "tsv")
    assert.is_true(#whole > 65536 + 1000)
    local out = collector()
    assert.is_true(core.functions_text(big, { "Ir", "Dr" }, "tsv", out))
    assert.equal(whole, out:text())
    assert.is_true(#out.pieces >= 2)
    assert.is_true(largest(out.pieces) <= 65536)
  end)

  it("writes into a file", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    assert.is_true(core.functions_text(big, { "Ir" }, "json", f))
    f:close()
    f = assert(io.open(path, "rb"))
    local text = f:read("*a")
    f:close()
    os.remove(path)
    assert.equal(core.functions_text(big, { "Ir" }, "json"), text)
  end)

  it("stops at the first write that fails and gives its message", function()
    local out = collector(2)
    assert.same({ nil, "No space left on device" }, { core.functions_text(big, { "Ir" }, "csv", out) })
    assert.equal(2, out.calls)
    local raising = collector(1, true)
    local ok, err = core.functions_text(big, { "Ir" }, "csv", raising)
    assert.is_nil(ok)
    assert.truthy(err:find("the disk went away", 1, true))
    assert.equal(1, raising.calls)
    -- an error that is not a string, a refusal without a message
    assert.same({ nil, "the output's write failed" },
      { core.functions_text(big, { "Ir" }, "tsv", { write = function() error({}) end }) })
    assert.same({ nil, "the output's write failed" },
      { core.functions_text(big, { "Ir" }, "tsv", { write = function() return false end }) })
    local closed = assert(io.open(os.tmpname(), "wb"))
    closed:close()
    ok, err = core.functions_text(big, { "Ir" }, "tsv", closed)
    assert.is_nil(ok)
    assert.truthy(err:find("closed file", 1, true))
  end)

  it("refuses an output without a write method", function()
    for _, bad in ipairs { 42, "stdout", {}, { write = "no" } } do
      assert.has_error(function() core.functions_text(big, { "Ir" }, "tsv", bad) end,
        "functions_text: out: a file or an object with a write method expected")
    end
  end)
end)

describe("query.check_output", function()
  local query = require "callgrind.query"

  it("takes nil, files and objects with a write method, and places its error", function()
    query.check_output(nil)
    query.check_output(io.stdout)
    query.check_output(collector())
    query.check_output({ write = setmetatable({}, { __call = function() end }) })
    for _, bad in ipairs { 42, "stdout", {}, { write = "no" }, true } do
      local ok, err = pcall(function() query.check_output(bad, 1) end)
      assert.is_false(ok)
      assert.matches("output_spec.lua:%d+: out must be a file or an object with a write method$", err)
    end
  end)
end)

describe("report.flat and report.tree to an output", function()
  it("write the text they return without one", function()
    for _, make in ipairs { report.flat, report.tree } do
      local whole = make(big, { threshold = 100 })
      assert.is_true(#whole > 65536)
      local out = collector()
      assert.is_true(make(big, { threshold = 100, out = out }))
      assert.equal(whole, out:text())
      assert.is_true(#out.pieces >= 2)
    end
  end)

  it("give the message of a write that fails", function()
    local out = collector(1)
    assert.same({ nil, "No space left on device" }, { report.flat(big, { out = out }) })
    assert.equal(1, out.calls)
    assert.has_error(function() report.tree(big, { out = 42 }) end,
      "out must be a file or an object with a write method")
  end)

  it("return the same text they write when the text outgrows its buffer several times", function()
    -- the returned text's buffer grows eightfold from 512 KiB on: a tree of 7 MB crosses
    -- 512 KiB and 4 MiB
    local many = assert(callgrind.parse(generated.profile_text(40000, 3), "many.out"))
    local whole = report.tree(many, { threshold = 100 })
    assert.is_true(#whole > 5 * 1024 * 1024)
    local out = collector()
    assert.is_true(report.tree(many, { threshold = 100, out = out }))
    assert.equal(whole, out:text())
  end)
end)

describe("report.annotate to an output", function()
  local prof = assert(callgrind.parse("events: Ir\nfl=src.c\nfn=main\n2 10\n3 5\n", "a.out"))
  local source = "int main(void) {\n  work();\n  more();\n  return 0;\n}\n"
  local function read_file(path) return path == "src.c" and source or nil end

  it("writes the annotated source it returns without one", function()
    local whole = report.annotate(prof, { files = { "src.c" }, read_file = read_file })
    assert.truthy(whole:find("10 (66.67%)", 1, true))
    local out = collector()
    assert.is_true(report.annotate(prof, { files = { "src.c" }, read_file = read_file, out = out }))
    assert.equal(whole, out:text())
  end)

  it("gives the message of a write that fails", function()
    local out = collector(2)
    assert.same({ nil, "No space left on device" },
      { report.annotate(prof, { files = { "src.c" }, read_file = read_file, out = out }) })
    local raising = collector(1, true)
    local ok, err = report.annotate(prof, { files = { "src.c" }, read_file = read_file, out = raising })
    assert.is_nil(ok)
    assert.truthy(err:find("the disk went away", 1, true))
    assert.has_error(function() report.annotate(prof, { out = true }) end,
      "out must be a file or an object with a write method")
  end)
end)

describe("the command's reports on a full disk", function()
  local path
  setup(function()
    path = command.scratch() .. "/big.out"
    local f = assert(io.open(path, "wb"))
    f:write(generated.profile_text(2000, 3))
    f:close()
  end)

  for _, args in ipairs { { "functions" }, { "annotate" }, { "annotate", "--tree=both" } } do
    it(table.concat(args, " ") .. " fails with the write's message, not a traceback", function()
      local list = { table.unpack and table.unpack(args) or unpack(args) }
      list[#list + 1] = path
      local _, err, status = command.run(list, { stdout = "/dev/full" })
      assert.equal(2, status)
      assert.equal("callgrind: cannot write the report: No space left on device\n", err)
    end)
  end

  it("info, whose text is short, fails when standard output is flushed", function()
    local _, err, status = command.run({ "info", path }, { stdout = "/dev/full" })
    assert.equal(2, status)
    assert.equal("callgrind: cannot write to standard output: No space left on device\n", err)
  end)
end)
