-- The report page in a real browser: headless chromium opens it from file://, and the DOM its
-- script builds is read back: the table's rows and numbers are report.flat's, clicking a column
-- heading reorders the rows, following a function's link shows its callers and callees, and
-- nothing is logged to the console. Actions are clicks made by a script added at the end of a
-- copy of the page, which writes what it saw into a <pre>.
local callgrind = require "callgrind"
local html = require "callgrind.html"
local report = require "callgrind.report"
local format = require "callgrind.format"
local browser = require "helpers.browser"
local fixtures = require "helpers.fixtures"

local SAMPLE = "examples/data/sample.callgrind.gz"

-- The text of an element's cells: { {"1,859,688", "4,852,108", "1", "main", ...}, ... } per row
-- of the tbody of the element with that id.
local function table_rows(dom, id)
  local body = dom:match('id="' .. id:gsub("%p", "%%%0") .. '"[^>]*>.-<tbody>(.-)</tbody>')
  assert(body, "no table " .. id)
  local rows = {}
  for row in body:gmatch("<tr[^>]*>(.-)</tr>") do
    local cells = {}
    for cell in row:gmatch("<td[^>]*>(.-)</td>") do cells[#cells + 1] = (cell:gsub("<[^>]+>", "")) end
    rows[#rows + 1] = cells
  end
  return rows
end

local function unescape(s)
  return (s:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&#39;", "'"):gsub("&amp;", "&"))
end

describe("the report page in chromium", function()
  if browser.unavailable(it, pending) then return end

  local prof = assert(callgrind.load(SAMPLE))
  local dir, page_path, page

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p '" .. dir .. "'"))
    page_path = dir .. "/report.html"
    assert(html.write(prof, page_path, { include = { "." }, asm = 2 }))
    page = fixtures.read(page_path)
  end)

  teardown(function()
    os.execute("rm -rf '" .. dir .. "'")
  end)

  -- The page with `script` run after its own, what it writes in <pre id="out">, and the DOM.
  local function driven(name, script)
    local path = dir .. "/" .. name .. ".html"
    fixtures.write(path, (page:gsub("</body>", function()
      return '<pre id="out"></pre><script>\n(function () { var out = [];\n' .. script
        .. '\ndocument.getElementById("out").textContent = out.join("\\n"); })();\n</script>\n</body>'
    end)))
    local dom, log = browser.dump_dom(path)
    assert.are.same({}, browser.console(log))
    local out = dom:match('<pre id="out">(.-)</pre>')
    assert(out, dom:sub(1, 500))
    return unescape(out), dom
  end

  local shown = report.rows(prof, { inlined = "merge" })

  it("opens from file:// and shows report.flat's rows and numbers, logging nothing", function()
    local dom, log = browser.dump_dom(page_path)
    assert.are.same({}, browser.console(log))
    local rows = table_rows(dom, "table")
    assert.equal(#shown, #rows)
    local flat = report.flat(prof, { inlined = "merge" })
    for i, row in ipairs(shown) do
      local cells = rows[i]
      -- Ir self, Ir inclusive, calls, function, file, object
      assert.equal(format.thousands(row.self.Ir), cells[1])
      assert.equal(format.thousands(row.inclusive.Ir), cells[2])
      assert.equal(format.thousands(row.functions[1].called), cells[3])
      assert.equal(row.name, unescape(cells[4]))
      assert.equal(row.file, unescape(cells[5]))
      assert.equal(row.object, unescape(cells[6]))
      assert.truthy(flat:find("\n *" .. cells[1]:gsub("%p", "%%%0") .. " %(%s*[%d.]+%%%)  "
        .. format.location(row.file, row.name, row.object):gsub("%p", "%%%0") .. "\n"), cells[4])
    end
    assert.truthy(dom:find('<span class="count" id="count">16 of 264 functions (threshold 99% of Ir: 248 smaller ones hidden)</span>',
      1, true))
    -- the summary and the flame graph are there
    assert.truthy(dom:find("<b>./sample</b>", 1, true))
    assert.truthy(dom:find("4,976,287", 1, true))
    assert.truthy(dom:find('class="cgf-root" id="cg-flame"', 1, true))
    assert.truthy(dom:find('data%-drawn%-ms="%d+"'))
  end)

  it("sorts by a column heading clicked, and again the other way", function()
    local out = driven("sort", [[
      function names() {
        return Array.prototype.map.call(document.querySelectorAll("#table tbody tr td.name"), function (td) { return td.textContent; }).join("|");
      }
      function cells(col) {
        return Array.prototype.map.call(document.querySelectorAll("#table tbody tr"), function (tr) { return tr.children[col].textContent; }).join("|");
      }
      document.querySelector('#table th[data-col="i0"]').click();
      out.push("inclusive " + names());
      out.push("values " + cells(1));
      out.push("heading " + document.querySelector('#table th[data-col="i0"]').className);
      document.querySelector('#table th[data-col="name"]').click();
      out.push("by name " + names());
      document.querySelector('#table th[data-col="name"]').click();
      out.push("by name, down " + names());
      document.getElementById("all").click();
      out.push("all " + document.querySelectorAll("#table tbody tr").length);
      window.callgrindReport.filter("strc");
      out.push("filtered " + names());
      // in the object only: libc's functions
      var field = document.getElementById("filter-field");
      field.value = "object";
      field.dispatchEvent(new Event("change"));
      window.callgrindReport.filter("libc.so");
      out.push("in libc " + document.querySelectorAll("#table tbody tr").length + " " + document.getElementById("count").textContent);
      field.value = "name";
      field.dispatchEvent(new Event("change"));
      out.push("named libc " + document.querySelectorAll("#table tbody tr").length);
    ]])
    local by_inclusive = {}
    for i, row in ipairs(shown) do by_inclusive[i] = row end
    table.sort(by_inclusive, function(a, b)
      if a.inclusive.Ir ~= b.inclusive.Ir then return a.inclusive.Ir > b.inclusive.Ir end
      return false
    end)
    local values, names = {}, {}
    for i, row in ipairs(by_inclusive) do values[i], names[i] = format.thousands(row.inclusive.Ir), row.name end
    assert.equal("values " .. table.concat(values, "|"), out:match("(values [^\n]*)"))
    local listed = out:match("inclusive ([^\n]*)")
    assert.truthy(listed:find("^main|"), listed)
    assert.equal("heading num sorted", out:match("heading ([^\n]*)") and "heading " .. out:match("heading ([^\n]*)"))
    local sorted = {}
    for i, row in ipairs(shown) do sorted[i] = row.name end
    table.sort(sorted)
    assert.equal(table.concat(sorted, "|"), out:match("by name ([^\n]*)"))
    local down = {}
    for i = #sorted, 1, -1 do down[#down + 1] = sorted[i] end
    assert.equal(table.concat(down, "|"), out:match("by name, down ([^\n]*)"))
    -- "show all" lifts the threshold: 200 rows drawn at first, the rest behind "Show more"
    assert.equal("all 200", out:match("(all %d+)"))
    -- the filter matches names, files and objects, in the order chosen last
    local all = report.rows(prof, { inlined = "merge", threshold = 100 })
    local matched = {}
    for k, row in ipairs(all) do
      local text = (row.name .. "\0" .. row.file .. "\0" .. row.object):lower()
      if text:find("strc", 1, true) then matched[#matched + 1] = { name = row.name, k = k } end
    end
    table.sort(matched, function(a, b)
      if a.name ~= b.name then return a.name > b.name end
      return a.k < b.k
    end)
    local expected = {}
    for k, m in ipairs(matched) do expected[k] = m.name end
    assert.is_true(#expected > 5)
    assert.equal(table.concat(expected, "|"), out:match("filtered ([^\n]*)"))
    local in_libc = 0
    for _, row in ipairs(all) do
      if row.object:lower():find("libc.so", 1, true) then in_libc = in_libc + 1 end
    end
    assert.is_true(in_libc > 0)
    assert.equal(("in libc %d %s of 264 functions"):format(math.min(200, in_libc), format.thousands(in_libc)),
      out:match("(in libc [^\n]*)"))
    assert.equal("named libc 0", out:match("(named libc %d+)"))
  end)

  it("moves to a function when its link is clicked: callers and callees with counts and costs", function()
    local out = driven("navigate", [[
      var link = Array.prototype.filter.call(document.querySelectorAll("#table a[data-fn]"), function (a) { return a.textContent === "main"; })[0];
      link.click();
      out.push("view " + !document.getElementById("function").classList.contains("hidden"));
      out.push("table " + !document.getElementById("functions").classList.contains("hidden"));
      out.push("name " + document.getElementById("fn-name").textContent);
      ["callers", "callees"].forEach(function (kind) {
        document.querySelectorAll("table.calls." + kind + " tbody tr").forEach(function (tr) {
          out.push(kind + " " + Array.prototype.map.call(tr.children, function (td) { return td.textContent; }).join(" | "));
        });
      });
      document.querySelector('.subtabs button[data-sub="graph"]').click();
      out.push("main's graph " + document.querySelectorAll("#sub-graph svg").length);
      // a click on a node of the graph moves to its function
      var node = Array.prototype.filter.call(document.querySelectorAll("#sub-graph g.node"), function (g) {
        return g.querySelector("text").textContent === "__strcmp_avx2";
      })[0];
      if (node) {
        node.dispatchEvent(new MouseEvent("click", { bubbles: true }));
        out.push("graph to " + document.getElementById("fn-name").textContent);
        link.click();
      }
      // on to a callee, then the source tab
      var callee = Array.prototype.filter.call(document.querySelectorAll("table.calls.callees a"), function (a) { return a.textContent === "fib"; })[0];
      callee.click();
      out.push("then " + document.getElementById("fn-name").textContent);
      document.querySelector('.subtabs button[data-sub="source"]').click();
      document.querySelectorAll("#sub-source tr.hot").forEach(function (tr) { out.push("hot " + tr.getAttribute("data-line")); });
      document.querySelector('.subtabs button[data-sub="graph"]').click();
      out.push("fib's graph " + document.querySelectorAll("#sub-graph svg").length + " " + document.querySelector("#sub-graph").textContent);
      document.getElementById("percent").click();
      out.push("percent " + document.querySelector("#table tbody tr td").textContent);
      out.push("still on fib " + !document.getElementById("function").classList.contains("hidden") + " " +
        document.querySelector("#fn-info dd:last-child").textContent);
      window.callgrindReport.tab("functions");
      document.getElementById("percent").click();
      out.push("numbers again " + document.querySelector("#table tbody tr td").textContent + " " +
        document.getElementById("function").classList.contains("hidden"));
      out.push("flame " + window.callgrindReport.flame(0));
      out.push("flame tab " + !document.getElementById("flame").classList.contains("hidden"));
    ]])
    assert.truthy(out:find("view true\ntable false\nname main\n", 1, true), out)
    local main = prof:find("main")
    for call in main:callers() do
      assert.truthy(out:find("\ncallers " .. format.thousands(call.count) .. " | " .. format.thousands(call:inclusive("Ir"))
        .. " | " .. call.caller.name .. " | ", 1, true), out)
    end
    local callees = 0
    for call in main:callees() do
      callees = callees + 1
      if call.callee.name == "__strcat_avx2" then
        assert.truthy(out:find("\ncallees 40,189 | 1,808,505 | __strcat_avx2 | examples/data/sample.c:44\n", 1, true), out)
      end
    end
    local _, listed = out:gsub("\ncallees ", "")
    assert.is_true(listed > 3 and listed <= callees)
    assert.truthy(out:find("\nthen fib\n", 1, true), out)
    local dot = os.execute("command -v dot >/dev/null 2>&1")
    if dot == true or dot == 0 then
      assert.truthy(out:find("\nmain's graph 1\ngraph to __strcmp_avx2\n", 1, true), out)
    end
    -- fib is not among the 50 hottest functions: its graph is not drawn, and the page says so
    assert.truthy(out:find("\nfib's graph 0 Call graphs are drawn for the 50 hottest functions only", 1, true), out)
    -- the source around fib's lines, hot lines (1% of the total or more) marked
    local fib_lines = prof:find("fib"):line_costs("Ir", "examples/data/sample.c")["examples/data/sample.c"]
    local first, last = math.huge, 0
    for line in pairs(fib_lines) do
      if line > 0 then first, last = math.min(first, line), math.max(last, line) end
    end
    local hot = {}
    for line, cost in pairs(prof:line_costs("Ir", "examples/data/sample.c")["examples/data/sample.c"]) do
      if line >= first - 3 and line <= last + 3 and cost * 100 >= prof:total("Ir") then hot[#hot + 1] = "hot " .. line end
    end
    table.sort(hot)
    assert.is_true(#hot > 0)
    local marked = {}
    for line in out:gmatch("\n(hot %d+)") do marked[#marked + 1] = line end
    table.sort(marked)
    assert.same(hot, marked)
    assert.truthy(out:find("\npercent 37.37%\n", 1, true), out)
    -- fib: self 18, inclusive 121,231 of 4,976,287
    assert.truthy(out:find("\nstill on fib true self 0.00%, inclusive 2.44%\n", 1, true), out)
    assert.truthy(out:find("\nnumbers again 1,859,688 true\n", 1, true), out)
    assert.truthy(out:find("\nflame true\nflame tab true", 1, true), out)
  end)

  it("shows a function's machine code in its tab, as asm.text prints it, or why there is none", function()
    local out = driven("asm", [[
      [0, 1, 5].forEach(function (i) {
        window.callgrindReport.show(i);
        document.querySelector('.subtabs button[data-sub="asm"]').click();
        var pre = document.querySelector("#sub-asm pre.asm"), note = document.querySelector("#sub-asm p.note");
        out.push("== " + i + " " + document.getElementById("fn-name").textContent);
        out.push(pre ? pre.textContent : "note " + note.textContent);
      });
    ]])
    local asm = require "callgrind.asm"
    -- the page was made with asm = 2: the two hottest functions
    for _, name in ipairs { "main", "__strcat_avx2" } do
      local expected = asm.text(prof, prof:find(name), { show = { "Ir" }, context = 8 })
      local shown = out:match("== %d+ " .. name:gsub("%p", "%%%0") .. "\n(.-)\n==") or ""
      assert.equal(expected, shown)
    end
    assert.truthy(out:find("\nNo machine code for main: the object ./sample of main was not found", 1, true), out)
    assert.truthy(out:find("== 5 _int_malloc\nnote Machine code is shown for the 2 hottest functions only; "
      .. "'callgrind asm NAME FILE' shows any.", 1, true), out)
  end)

  it("opens on a function's view from the address's #fn=N", function()
    local dom, log = browser.dump_dom("file://" .. page_path .. "#fn=1")
    assert.are.same({}, browser.console(log))
    assert.truthy(dom:find('<h2 id="fn-name">__strcat_avx2</h2>', 1, true))
    local callers = table_rows(dom, "sub-calls")
    assert.equal("40,189", callers[1][1])
    assert.equal("1,808,505", callers[1][2])
    assert.equal("main", callers[1][3])
  end)
end)
