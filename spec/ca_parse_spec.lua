-- The callgrind_annotate output parser of helpers.valgrind, checked against
-- outputs of callgrind_annotate 3.19 stored with the third-party test data.
-- The valgrind specs trust this parser, so it gets its own exact checks.

local vg = require "helpers.valgrind"
local fixtures = require "helpers.fixtures"

-- The stored data: thirdparty/oracle-callgrind_annotate-3.19/ (outputs) and
-- thirdparty/gprof2dot/ (inputs) of the test data (spec/data/testdata).
local oracle_subdir = "/thirdparty/oracle-callgrind_annotate-3.19/"
local testdata = fixtures.testdata_dir()

local oracle_dir = testdata .. oracle_subdir

local function oracle(name)
  return vg.read_file(oracle_dir .. name)
end

local function sum_rows(result, event)
  local sum = 0
  for _, row in ipairs(result.rows) do
    sum = sum + row.costs[event]
  end
  return sum
end

describe("callgrind_annotate parser", function()
  describe("counts", function()
    it("reads thousands separators, dots and numbers beyond 2^31", function()
      assert.are.equal(309292148, vg.parse_count("309,292,148"))
      assert.are.equal(95507934985, vg.parse_count("95,507,934,985"))
      assert.are.equal(0, vg.parse_count("."))
      assert.are.equal(0, vg.parse_count("0"))
      assert.are.equal(-1234, vg.parse_count("-1,234"))
    end)
  end)

  describe("file:function keys", function()
    it("splits at the first ':' so C++ names keep theirs", function()
      local file, name = vg.split_key("???:std::vector<int>::push_back(int const&)")
      assert.are.equal("???", file)
      assert.are.equal("std::vector<int>::push_back(int const&)", name)
    end)

    it("skips a Windows drive letter", function()
      local file, name = vg.split_key("D:\\www\\Common.php:load_class")
      assert.are.equal("D:\\www\\Common.php", file)
      assert.are.equal("load_class", name)
    end)

    it("uses known file names when given (Xdebug's php:internal)", function()
      local file, name = vg.split_key("php:internal:php::file_exists")
      assert.are.equal("php", file) -- the documented default, wrong here
      assert.are.equal("internal:php::file_exists", name)
      file, name = vg.split_key("php:internal:php::file_exists", { ["php:internal"] = true })
      assert.are.equal("php:internal", file)
      assert.are.equal("php::file_exists", name)
    end)
  end)

  describe("gprof2dot bool.callgrind (Ir only, objects)", function()
    local self_cost = assert(vg.parse_annotate(oracle("gprof2dot__bool.callgrind.self.txt")))
    local inclusive = assert(vg.parse_annotate(oracle("gprof2dot__bool.callgrind.incl.txt")))

    it("reads events and PROGRAM TOTALS", function()
      assert.are.same({ "Ir" }, self_cost.events)
      assert.are.same({ "Ir" }, self_cost.recorded)
      assert.are.same({ Ir = 309292148 }, self_cost.totals)
      assert.is_false(self_cost.calculated)
      assert.are.same({ Ir = 309292148 }, inclusive.totals)
    end)

    it("reads the first self rows with file, function and object", function()
      assert.are.same({
        key = "???:g_type_create_instance", file = "???", name = "g_type_create_instance",
        object = "/opt/glib-perform/lib/libgobject-2.0.so.0.1900.0", costs = { Ir = 36936398 },
      }, self_cost.rows[1])
      assert.are.same({
        key = "???:g_slice_alloc", file = "???", name = "g_slice_alloc",
        object = "/opt/glib-perform/lib/libglib-2.0.so.0.1900.0", costs = { Ir = 26345592 },
      }, self_cost.rows[2])
      assert.are.equal(9134800, self_cost.by_key["???:test_perf_test_oclass"].costs.Ir)
      assert.are.equal("/home/pvanhoof/repos/gnome/glib/a.out", self_cost.by_key["???:test_perf_test_oclass"].object)
    end)

    it("reads rows without an object", function()
      local last = self_cost.rows[#self_cost.rows]
      assert.are.same({ key = "???:0x08048900", file = "???", name = "0x08048900", costs = { Ir = 1 } }, last)
    end)

    it("reads every row: self rows add up to PROGRAM TOTALS", function()
      assert.are.equal(412, #self_cost.rows)
      assert.are.equal(309292148, sum_rows(self_cost, "Ir"))
    end)

    it("reads the first inclusive rows", function()
      assert.are.same({
        key = "???:0x00000810", file = "???", name = "0x00000810", object = "/lib/ld-2.7.so",
        costs = { Ir = 309292148 },
      }, inclusive.rows[1])
      assert.are.equal("(below main)", inclusive.rows[4].name)
      assert.are.equal(308441989, inclusive.rows[4].costs.Ir)
      assert.are.equal(308441769, inclusive.by_key["???:main"].costs.Ir)
    end)
  end)

  describe("large 64-bit counts (gprof2dot selinux.callgrind)", function()
    it("keeps every digit", function()
      local result = assert(vg.parse_annotate(oracle("gprof2dot__selinux.callgrind.self.txt")))
      assert.are.equal(95507934985, result.totals.Ir)
      assert.are.equal(95507934985, sum_rows(result, "Ir"))
      local incl = assert(vg.parse_annotate(oracle("gprof2dot__selinux.callgrind.incl.txt")))
      assert.are.equal(95507934985, incl.rows[1].costs.Ir)
    end)
  end)

  describe("cachegrind output with nine events (valgrind ann1.cgout)", function()
    local result = assert(vg.parse_annotate(oracle("valgrind__ann1.cgout.self.txt")))

    it("reads all columns of PROGRAM TOTALS", function()
      assert.are.same({ "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw" }, result.events)
      assert.are.same({
        Ir = 5229753, I1mr = 952, ILmr = 931, Dr = 4057955, D1mr = 1918, DLmr = 1520,
        Dw = 18005, D1mw = 745, DLmw = 699,
      }, result.totals)
    end)

    it("reads zero columns (no percentage) between others", function()
      assert.are.same({
        key = "a.c:main", file = "a.c", name = "main",
        costs = { Ir = 5000015, I1mr = 1, ILmr = 1, Dr = 4000004, D1mr = 0, DLmr = 0, Dw = 3, D1mw = 0, DLmw = 0 },
      }, result.rows[1])
      local row = result.by_key["/build/glibc-OTsEL5/glibc-2.27/elf/dl-tunables.h:__GI___tunables_init"]
      assert.are.same({ Ir = 8055, I1mr = 0, ILmr = 0, Dr = 1909, D1mr = 8, DLmr = 8, Dw = 0, D1mw = 0, DLmw = 0 },
        row.costs)
    end)

    it("reads every row in every column", function()
      for _, event in ipairs(result.events) do
        assert.are.equal(result.totals[event], sum_rows(result, event), event)
      end
    end)
  end)

  describe("a profile without costs (gprof2dot empty.callgrind)", function()
    it("reads '.' totals as 0 and no rows", function()
      local result = assert(vg.parse_annotate(oracle("gprof2dot__empty.callgrind.self.txt")))
      assert.are.equal(9, #result.events)
      assert.is_true(result.calculated)
      assert.are.equal(0, result.totals.Ir)
      assert.are.equal(0, result.totals.D2mw)
      assert.are.equal(0, #result.rows)
    end)
  end)

  describe("pprof output", function()
    it("reads event names with parentheses and calculated totals", function()
      local result = assert(vg.parse_annotate(oracle("pprof__pprof.cpu.callgrind.self.txt")))
      assert.are.same({ "cpu(ms)" }, result.events)
      assert.is_true(result.calculated)
      assert.are.equal(6370, result.totals["cpu(ms)"])
      assert.are.same({
        key = "testdata/file3000.src:line3000", file = "testdata/file3000.src", name = "line3000",
        object = "/path/to/testbinary", costs = { ["cpu(ms)"] = 1120 },
      }, result.rows[1])
    end)
  end)

  describe("Xdebug output with CRLF and Windows paths", function()
    it("keeps the carriage returns CA leaves in names", function()
      local result = assert(vg.parse_annotate(oracle("webgrind-xdebugtoolkit__codeigniter.cg.self.txt"),
        { files = { ["php:internal\r"] = true } }))
      assert.are.same({ "Time" }, result.events)
      assert.are.equal(84418, result.totals.Time)
      local first = result.rows[1]
      assert.are.equal("D:\\Wwwroot\\ci\\system\\codeigniter\\Common.php\r", first.file)
      assert.are.equal("load_class\r", first.name)
      assert.is_nil(first.object)
      assert.are.equal(28725, first.costs.Time)
      assert.are.equal("php:internal\r", result.rows[2].file)
      assert.are.equal("php::file_exists\r", result.rows[2].name)
      assert.are.equal(16019, result.rows[2].costs.Time)
    end)
  end)

  describe("failed runs", function()
    it("reports output without an events line", function()
      local result, err = vg.parse_annotate(oracle("gprof2dot__bzr.callgrind.self.txt"))
      assert.is_nil(result)
      assert.matches("Events shown", err)
    end)
  end)

  describe("--tree output", function()
    -- Real callgrind_annotate 3.19 --tree=both output (one group of a
    -- profile of spec/programs/recursion.c), paths shortened.
    local text = table.concat({
      "Events recorded:  Ir",
      "Events shown:     Ir",
      "--------------------------------------------------------------------------------",
      "Ir               ",
      "--------------------------------------------------------------------------------",
      "128,885 (100.0%)  PROGRAM TOTALS",
      "",
      "--------------------------------------------------------------------------------",
      "Ir               file:function",
      "--------------------------------------------------------------------------------",
      "",
      "    544 ( 0.42%)  < /src/recursion.c:fact'2 (8x) [/tmp/recursion]",
      "    140 ( 0.11%)  < /src/recursion.c:fact (1x) [/tmp/recursion]",
      "    684 ( 0.53%)  *  /src/recursion.c:fact'2 [/tmp/recursion]",
      "    544 ( 0.42%)  >   /src/recursion.c:fact'2 (8x) [/tmp/recursion]",
      "",
      "    166 ( 0.12%)  *  ./elf/../sysdeps/x86/dl-prop.h:dl_main",
      "",
      "     71 ( 0.06%)  < ???:0x0000000004838030 (1x) [???]",
      "  1,234 ( 0.96%)  < ???:0x0000000000109040 (1,234x) []",
      "    142 ( 0.11%)  *  ./stdlib/./stdlib/cxa_finalize.c:__cxa_finalize [/usr/lib/libc.so.6]",
      "     30 ( 0.02%)  >   ./posix/./posix/register-atfork.c:__unregister_atfork (2x) [/usr/lib/libc.so.6]",
      "",
    }, "\n")
    local result = assert(vg.parse_annotate(text, { tree = true }))

    it("reads function rows marked with '*'", function()
      assert.are.equal(3, #result.rows)
      assert.are.equal("fact'2", result.rows[1].name)
      assert.are.equal("/src/recursion.c", result.rows[1].file)
      assert.are.equal("/tmp/recursion", result.rows[1].object)
      assert.are.same({ Ir = 684 }, result.rows[1].costs)
      assert.are.same({}, result.rows[2].callers)
      assert.is_nil(result.rows[2].object)
    end)

    it("reads callers ('<') and callees ('>') with counts and objects", function()
      local row = result.rows[1]
      assert.are.same({
        { key = "/src/recursion.c:fact'2", file = "/src/recursion.c", name = "fact'2", object = "/tmp/recursion",
          count = 8, costs = { Ir = 544 } },
        { key = "/src/recursion.c:fact", file = "/src/recursion.c", name = "fact", object = "/tmp/recursion",
          count = 1, costs = { Ir = 140 } },
      }, row.callers)
      assert.are.same({
        { key = "/src/recursion.c:fact'2", file = "/src/recursion.c", name = "fact'2", object = "/tmp/recursion",
          count = 8, costs = { Ir = 544 } },
      }, row.callees)
      local third = result.rows[3]
      assert.are.equal("???", third.callers[1].object)
      assert.are.equal("", third.callers[2].object) -- CA prints "[]" for a caller with an empty object
      assert.are.equal(1234, third.callers[2].count)
      assert.are.equal(1234, third.callers[2].costs.Ir)
      assert.are.equal(2, third.callees[1].count)
    end)
  end)

  describe("names with brackets", function()
    it("takes the object from the last bracket group", function()
      local text = table.concat({
        "Events shown:     Ir",
        "5 (100.0%)  PROGRAM TOTALS",
        "Ir  file:function",
        "----------",
        "3 (60.00%)  ???:0x0000000000401030 [PLT] [/tmp/a.out]",
        "2 (40.00%)  pprof.src:line2000 [1/2]",
      }, "\n")
      local result = assert(vg.parse_annotate(text))
      assert.are.equal("0x0000000000401030 [PLT]", result.rows[1].name)
      assert.are.equal("/tmp/a.out", result.rows[1].object)
      assert.are.equal("1/2", result.rows[2].object) -- ambiguous without no_objects
      result = assert(vg.parse_annotate(text, { no_objects = true }))
      assert.are.equal("line2000 [1/2]", result.rows[2].name)
      assert.is_nil(result.rows[2].object)
    end)
  end)

  describe("against callgrind_annotate itself", function()
    local bool_input = testdata .. "/thirdparty/gprof2dot/bool.callgrind"

    it("parses --tree=both into the same rows as the flat listing", function()
      if not vg.available() then
        pending("callgrind_annotate is not on PATH")
        return
      end
      local flat = vg.annotate(bool_input)
      local tree = vg.annotate(bool_input, { tree = "both" })
      assert.are.equal(#flat.rows, #tree.rows)
      for _, row in ipairs(flat.rows) do
        local other = tree.by_key[row.key]
        assert.is_not_nil(other, row.key)
        assert.are.same(row.costs, other.costs, row.key)
        assert.are.equal(row.object, other.object, row.key)
      end
      -- every call appears twice: as a callee of its caller and as a caller of its callee
      local as_callee, as_caller = {}, {}
      for _, row in ipairs(tree.rows) do
        for _, call in ipairs(row.callees) do
          as_callee[row.key .. " -> " .. call.key] = call.count
        end
        for _, call in ipairs(row.callers) do
          as_caller[call.key .. " -> " .. row.key] = call.count
        end
      end
      assert.are.same(as_callee, as_caller)
      assert.is_true(next(as_callee) ~= nil)
    end)
  end)
end)
