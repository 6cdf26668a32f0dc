-- The `callgrind` command as LuaRocks installs it (helpers.command builds the rock into a tree
-- of its own), run from a directory outside the checkout: the program's options and help, every
-- subcommand's output, and each one's failure on a bad file, a bad option and a missing file.
local callgrind = require "callgrind"
local format = require "callgrind.format"
local command = require "helpers.command"
local fixtures = require "helpers.fixtures"
local run = require "helpers.run"

local function absolute(path)
  local pipe = assert(io.popen("pwd"))
  local dir = pipe:read("*l")
  pipe:close()
  return dir .. "/" .. path
end

local SAMPLE = absolute("examples/data/sample.callgrind.gz")
local REPOSITORY = absolute("")

-- What no command may print: a Lua traceback or a place inside the module.
local function assert_clean(err)
  assert.falsy(err:find("stack traceback", 1, true), err)
  assert.falsy(err:find("%.lua:%d+:"), err)
end

local function lines_of(text)
  local lines = {}
  for line in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  return lines
end

local dir -- the scratch directory the command runs in, with the files below

local function path(name)
  return dir .. "/" .. name
end

setup(function()
  dir = command.scratch()
  -- main (self 10) calls work twice (30); in b.out work costs three times as much
  fixtures.write(path("a.out"), "events: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=2 5\n2 30\nfn=work\n5 30\n")
  fixtures.write(path("b.out"), "events: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=2 5\n2 90\nfn=work\n5 90\n")
  fixtures.write(path("text.out"), "Dear reader,\nthis is not a profile.\n")
  fixtures.write(path("quoted.out"), 'events: Ir Dr\nfl=q.c\nfn=f(a, "b")\n1 7 2\n')
  fixtures.write(path("escaped.out"), 'events: Ir\nfl=dir\\q.c\nfn=f\tg\\h\n1 7\n')
end)

teardown(function() command.cleanup() end)

describe("the installed callgrind command", function()
  it("is LuaRocks' wrapper, which runs the interpreter the rock was built for", function()
    local wrapper = fixtures.read(command.path())
    local interpreter = run.interpreter()
    assert.truthy(wrapper:find("^#!/bin/sh"), wrapper)
    assert.truthy(wrapper:find("/" .. interpreter .. "' ", 1, true), wrapper)
    assert.falsy(wrapper:find(REPOSITORY .. "lua/", 1, true), "the command must not use the checkout")
  end)

  it("lists its subcommands with --help", function()
    local out, err, status = command.run { "--help" }
    assert.equal(0, status, err)
    assert.truthy(out:find("^Usage: callgrind "), out)
    for _, name in ipairs { "annotate", "top", "functions", "callers", "callees", "diff", "merge", "select",
      "convert", "graph", "flame", "html", "asm", "info", "help" } do
      assert.truthy(out:find("\n   " .. name .. " ", 1, true), name)
    end
  end)

  it("shows a subcommand's help with 'help NAME' and 'NAME --help'", function()
    local out, err, status = command.run { "help", "diff" }
    assert.equal(0, status, err)
    assert.truthy(out:find("^Usage: callgrind diff "), out)
    assert.truthy(out:find("--fail-above PCT", 1, true), out)
    local again = command.run { "diff", "--help" }
    assert.equal(out, again)
    local _, err
    _, err, status = command.run { "help", "nothing" }
    assert.equal(2, status)
    assert.equal("callgrind: unknown command 'nothing' (see 'callgrind --help')\n", err)
    out, err, status = command.run { "help" }
    assert.equal(0, status, err)
    assert.equal((command.run { "--help" }), out)
  end)

  it("has a man page that names every subcommand and every option", function()
    local man = fixtures.read(REPOSITORY .. "man/callgrind.1"):gsub("\\%-", "-")
    local help = command.run { "--help" }
    local headings = {}
    for heading in man:gmatch("\n%.SS ([^\n]+)") do headings[#headings + 1] = heading end
    headings = table.concat(headings, ", ")
    for name in ("\n" .. help:match("\nCommands:\n(.*)")):gmatch("\n   ([%a]+) ") do
      assert.truthy(headings:find(name, 1, true) or man:find("\n.B callgrind " .. name .. "\n", 1, true), name)
      if name ~= "help" then
        local section = (command.run { "help", name } .. "\n\n"):match("\nOptions:\n(.-)\n\n")
        for option in section:gmatch("%-%-[%a][%w%-]*") do
          if option ~= "--help" then assert.truthy(man:find(option, 1, true), name .. " " .. option) end
        end
      end
    end
  end)

  it("prints its version", function()
    local out, _, status = command.run { "--version" }
    assert.equal(0, status)
    assert.equal("callgrind " .. callgrind._VERSION, out:match("^(%S+ %S+)"))
  end)

  it("prints its usage and exits with 2 without a subcommand, and names an unknown one", function()
    local out, err, status = command.run {}
    assert.equal(2, status)
    assert.equal("", out)
    assert.truthy(err:find("^Usage: callgrind "), err)
    out, err, status = command.run { "frobnicate", path("a.out") }
    assert.equal(2, status)
    assert.equal("callgrind: unknown command 'frobnicate' (see 'callgrind --help')\n", err)
  end)

  it("takes --opt=value, --opt value, -oVALUE and -o VALUE alike, and -- before a file named like an option", function()
    local expected = command.run { "top", "--limit=1", path("a.out") }
    assert.truthy(expected:find("By self cost", 1, true))
    for _, args in ipairs { { "top", "--limit", "1", path("a.out") }, { "top", "-n1", path("a.out") },
      { "top", "-n", "1", path("a.out") }, { "top", "-n", "1", "--", path("a.out") } } do
      local out, err, status = command.run(args)
      assert.equal(0, status, err)
      assert.equal(expected, out)
    end
    fixtures.write(path("-n"), fixtures.read(path("a.out")))
    local out, err, status = command.run({ "top", "--", "-n" }, { cwd = dir })
    assert.equal(0, status, err)
    assert.truthy(out:find("^%-n: 40 Ir in all"), out)
  end)

  it("reads standard input for -, and gzip-compressed files as such", function()
    local out, err, status = command.run({ "info", "-" }, { stdin = fixtures.read(path("a.out")) })
    assert.equal(0, status, err)
    assert.truthy(out:find("Ir    40", 1, true), out)
    out, err, status = command.run({ "top", "-n", "1", "-" }, { stdin = fixtures.read(SAMPLE) })
    assert.equal(0, status, err)
    assert.truthy(out:find("4,976,287 Ir in all", 1, true), out)
  end)

  it("sums several files into one profile", function()
    local out, err, status = command.run { "functions", path("a.out"), path("b.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find("\nwork\ta.c\t\t4\t120\t120\n", 1, true), out)
  end)

  it("colours only when asked, or on a terminal without NO_COLOR", function()
    local plain = command.run { "top", path("a.out") }
    assert.falsy(plain:find("\27", 1, true))
    local coloured = command.run { "--color=always", "top", path("a.out") }
    assert.truthy(coloured:find("\27[1mBy self cost (Ir)\27[0m", 1, true), coloured)
    assert.equal(plain, (coloured:gsub("\27%[%d*m", "")))
    local never = command.run({ "--color", "never", "top", path("a.out") }, { env = { NO_COLOR = false } })
    assert.equal(plain, never)
    local _, err, status = command.run { "--color=sometimes", "top", path("a.out") }
    assert.equal(2, status)
    assert.truthy(err:find("^callgrind: argument for option '%-%-color' must be one of 'never', 'always', 'auto'"), err)
  end)

  describe("on a terminal", function()
    -- script(1) runs the command on a pseudo-terminal; its output comes back with CR LF
    local function on_terminal(args, env)
      local parts = { "env", "COLUMNS=40" }
      for name, value in pairs(env or {}) do parts[#parts + 1] = name .. "=" .. run.quote(value) end
      parts[#parts + 1] = run.quote(command.path())
      for _, a in ipairs(args) do parts[#parts + 1] = run.quote(a) end
      local line = "script -qec " .. run.quote(table.concat(parts, " ")) .. " /dev/null"
      if os.getenv("LD_PRELOAD") then line = "env -u LD_PRELOAD " .. line end
      local pipe = assert(io.popen(line))
      local text = pipe:read("*a")
      pipe:close()
      return (text:gsub("\r\n", "\n"))
    end

    local has_script = os.execute("command -v script >/dev/null 2>&1")
    if has_script ~= true and has_script ~= 0 then
      pending("script(1) is needed to run the command on a terminal")
      return
    end

    it("colours by default, cuts long lines to the width, and not with NO_COLOR", function()
      local out = on_terminal { "top", SAMPLE }
      assert.truthy(out:find("\27[1mBy self cost (Ir)\27[0m", 1, true), out)
      for _, line in ipairs(lines_of(out)) do
        assert.truthy(#line:gsub("\27%[%d*m", "") <= 40, line)
      end
      local piped = command.run { "top", SAMPLE }
      assert.truthy(piped:find("__strcat_avx2  (./string/../sysdeps/x86_64/multiarch/strcat-avx2.S)", 1, true))
      local plain = on_terminal({ "top", SAMPLE }, { NO_COLOR = "1" })
      assert.falsy(plain:find("\27", 1, true), plain)
    end)

    it("draws no progress bar for a load shorter than a second", function()
      local out = on_terminal { "info", SAMPLE }
      assert.falsy(out:find("%] +%d+%% of "), out)
    end)
  end)
end)

describe("the bash completion", function()
  local has_bash = os.execute("command -v bash >/dev/null 2>&1")
  if has_bash ~= true and has_bash ~= 0 then
    pending("bash is needed")
    return
  end

  -- What completion/callgrind.bash offers for the words typed (the last one being completed).
  local function complete(...)
    local words = { ... }
    local quoted = {}
    for i, w in ipairs(words) do quoted[i] = run.quote(w) end
    local script = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _callgrind; printf '%%s\\n' \"${COMPREPLY[@]}\"")
      :format(run.quote(REPOSITORY .. "completion/callgrind.bash"), table.concat(quoted, " "), #words - 1)
    local pipe = assert(io.popen("cd " .. run.quote(dir) .. " && bash -c " .. run.quote(script)))
    local offered = {}
    for line in pipe:lines() do
      if line ~= "" then offered[line] = true end
    end
    pipe:close()
    return offered
  end

  it("offers every subcommand, and every option of each that its help lists", function()
    local help = command.run { "--help" }
    local names = {}
    for name in ("\n" .. help:match("\nCommands:\n(.*)")):gmatch("\n   ([%a]+) ") do names[#names + 1] = name end
    assert.is_true(#names >= 12)
    local offered = complete("callgrind", "")
    for _, name in ipairs(names) do
      assert.truthy(offered[name], name)
      if name ~= "help" then
        local text = command.run { "help", name }
        local options = complete("callgrind", name, "-")
        local section = (text .. "\n\n"):match("\nOptions:\n(.-)\n\n")
        for option in section:gmatch("%-[%-%a][%w%-]*") do
          if option:find("^%-%-") or #option == 2 then
            assert.truthy(options[option], name .. " " .. option)
          end
        end
      end
    end
  end)

  it("offers the values of options that take a fixed set, after a blank or an =", function()
    assert.same({ none = true, caller = true, calling = true, both = true }, complete("callgrind", "annotate", "--tree", ""))
    assert.same({ caller = true, calling = true }, complete("callgrind", "annotate", "--tree", "=", "ca"))
    assert.same({ json = true }, complete("callgrind", "functions", "--format=j"))
    assert.same({ never = true }, complete("callgrind", "--color", "n"))
    assert.same({ ["a.out"] = true }, complete("callgrind", "top", "a.o"))
  end)
end)

-- ---- every subcommand on a bad file, a bad option and a missing file ------------------------------

describe("every subcommand fails with one line and status 2", function()
  local subcommands = {
    { "annotate" }, { "top" }, { "functions" }, { "callers", "main" }, { "callees", "main" },
    { "diff", "BASE" }, { "merge", "-o", "OUT" }, { "select", "-o", "OUT" }, { "convert" }, { "graph" }, { "info" },
    { "flame" }, { "html", "-o", "OUT" }, { "asm", "main" },
  }
  local function args_for(sub, file, extra)
    local args = {}
    for _, a in ipairs(sub) do
      if a == "BASE" then a = path("a.out") elseif a == "OUT" then a = path("written.out") end
      args[#args + 1] = a
    end
    if extra then args[#args + 1] = extra end
    args[#args + 1] = file
    return args
  end

  for _, sub in ipairs(subcommands) do
    local name = sub[1]
    it(name .. ": on a file that is no profile, naming the file and the line", function()
      local out, err, status = command.run(args_for(sub, path("text.out")))
      assert.equal(2, status)
      assert.equal("", out)
      assert.equal("callgrind: " .. path("text.out") .. ":1: unrecognized line starting with 'Dear'\n", err)
    end)

    it(name .. ": on a missing file", function()
      local _, err, status = command.run(args_for(sub, "/nonexistent/profile"))
      assert.equal(2, status)
      assert.equal("callgrind: /nonexistent/profile: No such file or directory\n", err)
    end)

    it(name .. ": on an unknown option, naming it", function()
      local _, err, status = command.run(args_for(sub, path("a.out"), "--bogus"))
      assert.equal(2, status)
      assert.equal(("callgrind: unknown option '--bogus' (see 'callgrind help %s')\n"):format(name), err)
      assert_clean(err)
    end)
  end

  it("and on a bad value, a missing argument or an unknown event, with no traceback", function()
    local cases = {
      { { "annotate", "--inclusive=maybe", path("a.out") }, "callgrind: --inclusive expects yes or no, not 'maybe'" },
      { { "annotate", "--threshold=120", path("a.out") }, "callgrind: --threshold expects a percentage from 0 to 100, not '120'" },
      { { "annotate", "--sort=Ir:50", path("a.out") }, "callgrind: per-event thresholds (--sort=EV:PCT) are not supported" },
      { { "annotate", "--show=Nope", path("a.out") }, "callgrind: unknown event 'Nope' (known: Ir, CEst)" },
      { { "top" }, "callgrind: missing argument 'FILE' (see 'callgrind help top')" },
      { { "top", "-e", "Dr", path("a.out") }, "callgrind: unknown event 'Dr' (known: Ir, CEst)" },
      { { "functions", "--format=xml", path("a.out") }, "callgrind: --format expects tsv, csv, json, not 'xml'" },
      { { "callers", "[", path("a.out") }, "callgrind: '[' is no function name and no valid Lua pattern" },
      { { "callers", "nothing", path("a.out") }, "callgrind: no function is named or matches 'nothing'" },
      { { "diff", path("a.out") }, "callgrind: missing argument 'NEW' (see 'callgrind help diff')" },
      { { "diff", "--fail-above=lots", path("a.out"), path("b.out") }, "callgrind: --fail-above expects a percentage" },
      { { "merge", path("a.out") }, "callgrind: merge needs -o OUT" },
      { { "select", "--keep=%", "-o", "-", path("a.out") }, "callgrind: '%' is not a valid Lua pattern" },
      { { "convert", "--to=json", path("a.out") }, "callgrind: --to expects callgrind, webgrind, not 'json'" },
      { { "graph", "-o", path("g.jpg"), path("a.out") }, "callgrind: cannot tell the format of '" .. path("g.jpg") },
      { { "info", "-", path("a.out") }, "callgrind: - (standard input) can only be read alone" },
      { { "merge", "-o", "/nonexistent/dir/out", path("a.out") }, "callgrind: /nonexistent/dir/out" },
      { { "flame", "-o", path("f.png"), path("a.out") }, "callgrind: cannot tell the format of '" .. path("f.png") },
      { { "flame", "--diff", path("a.out"), "-o", path("f.folded"), path("b.out") },
        "callgrind: --diff draws an SVG: write OUT.svg" },
      { { "flame", "--colors=blue", path("a.out") }, "callgrind: --colors expects object, file, name, not 'blue'" },
      { { "flame", "-e", "Dr", path("a.out") }, "callgrind: unknown event 'Dr' (known: Ir, CEst)" },
      { { "flame", "--diff", "/nonexistent/base", "-o", path("f.svg"), path("b.out") },
        "callgrind: /nonexistent/base: No such file or directory" },
      { { "html", path("a.out") }, "callgrind: html needs -o OUT.html (- for standard output)" },
      { { "html", "--threshold=101", "-o", path("r.html"), path("a.out") },
        "callgrind: --threshold expects a percentage from 0 to 100, not '101'" },
      { { "html", "--show=Nope", "-o", path("r.html"), path("a.out") }, "callgrind: unknown event 'Nope' (known: Ir, CEst)" },
      { { "html", "-o", "/nonexistent/dir/r.html", path("a.out") }, "callgrind: /nonexistent/dir/r.html" },
      { { "asm", "nothing", path("a.out") }, "callgrind: no function is named or matches 'nothing'" },
      { { "asm", "--offset=zz", "main", path("a.out") }, "callgrind: --offset expects an address (0x1000 or 4096), not 'zz'" },
      { { "asm", "main", path("a.out") }, "callgrind: No machine code for main: the profile has no instruction addresses" },
      { { "asm", "main", SAMPLE }, "callgrind: No machine code for main: the object ./sample of main was not found" },
    }
    for _, case in ipairs(cases) do
      local out, err, status = command.run(case[1])
      assert.equal(2, status, table.concat(case[1], " ") .. "\n" .. err)
      assert.equal("", out)
      assert.equal(1, select(2, err:gsub("\n", "")), err)
      assert.equal(case[2], err:sub(1, #case[2]), err)
      assert_clean(err)
    end
  end)

  it("and --strict=no reads a damaged file, with its warnings on stderr", function()
    fixtures.write(path("damaged.out"), "events: Ir\nfn=main\n1 x\n2 5\n")
    local out, err, status = command.run { "info", "--strict=no", path("damaged.out") }
    assert.equal(0, status, err)
    assert.equal("callgrind: warning: " .. path("damaged.out") .. ":3: bad cost 'x'\n", err)
    assert.truthy(out:find("\nWarnings 1\n  " .. path("damaged.out") .. ":3: bad cost 'x'\n", 1, true), out)
  end)
end)

-- ---- each subcommand's output ------------------------------------------------------------------

describe("callgrind annotate", function()
  it("prints callgrind_annotate's listing of the bundled sample", function()
    local out, err, status = command.run { "annotate", "--auto=no", SAMPLE }
    assert.equal(0, status, err)
    assert.truthy(out:find("\n4,976,287 (100.0%)  PROGRAM TOTALS\n", 1, true), out)
    assert.truthy(out:find("\n1,859,688 (37.37%)  examples/data/sample.c:main [./sample]\n", 1, true), out)
    assert.truthy(out:find("Auto-annotation:  off", 1, true))
    assert.equal("\n\n", out:sub(-2))
  end)

  it("annotates a source file named with --source, found through -I", function()
    local out, err, status = command.run { "annotate", "--auto=no", "--context=1", "-I", REPOSITORY, "--source",
      "examples/data/sample.c", SAMPLE }
    assert.equal(0, status, err)
    assert.truthy(out:find("\n-- User-annotated source: " .. REPOSITORY .. " + examples/data/sample.c\n", 1, true), out)
    -- columns as wide as the file's line costs, as callgrind_annotate sizes them (the call lines
    -- below overflow them)
    assert.truthy(out:find("\n321,519 ( 6.46%)          strcat(out, syllables[(seed >> (3 * i)) & 7]);", 1, true), out)
  end)

  it("prints callers and callees with --tree and leaves percentages out with --show-percs=no", function()
    local out, err, status = command.run { "annotate", "--auto=no", "--tree=both", "--show-percs=no", path("a.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find("\n30  < a.c:main (2x)\n30  *  a.c:work\n", 1, true), out)
    assert.truthy(out:find("\n10  *  a.c:main\n30  >   a.c:work (2x)\n", 1, true), out)
  end)
end)

describe("callgrind top", function()
  it("lists the hottest functions by self and inclusive cost", function()
    local out, err, status = command.run { "top", "-n", "2", SAMPLE }
    assert.equal(0, status, err)
    local lines = lines_of(out)
    assert.equal(SAMPLE .. ": 4,976,287 Ir in all, 264 functions, 454 calls, command: ./sample", lines[1])
    assert.equal("By self cost (Ir)", lines[3])
    assert.truthy(lines[5]:find("^1,859,688%s+37%.4%%%s+1%s+main  %(examples/data/sample%.c%)$"), lines[5])
    assert.truthy(lines[6]:find("^1,808,505%s+36%.3%%%s+40,189%s+__strcat_avx2 "), lines[6])
    assert.equal("By inclusive cost (Ir)", lines[8])
    assert.truthy(lines[10]:find("^4,976,287%s+100%.0%%%s+0%s+0x000000000001ab70  %(%?%?%?%)$"), lines[10])
  end)

  it("names the cycles of mutual recursion", function()
    local cycle = { "events: Ir", "fn=main", "1 1", "cfn=f1", "calls=1 1", "1 100" }
    for i = 1, 20 do cycle[#cycle + 1] = ("fn=f%d\n1 5\ncfn=f%d\ncalls=1 1\n1 1"):format(i, i % 20 + 1) end
    fixtures.write(path("cycle.out"), table.concat(cycle, "\n") .. "\n")
    local out, err, status = command.run { "top", path("cycle.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find("\n<cycle 1> (20 functions: f1, f10, f11, f12, f13, f14, f15, f16, ...): inclusive 100\n",
      1, true), out)
  end)
end)

describe("callgrind functions", function()
  it("writes tab-separated values with exact numbers", function()
    local out, err, status = command.run { "functions", SAMPLE }
    assert.equal(0, status, err)
    local lines = lines_of(out)
    assert.equal("name\tfile\tobject\tcalled\tIr self\tIr inclusive", lines[1])
    assert.equal("main\texamples/data/sample.c\t./sample\t1\t1859688\t4852108", lines[2])
    assert.equal(1 + 264, #lines)
  end)

  it("escapes backslashes and tabs in tab-separated fields", function()
    local out, err, status = command.run { "functions", path("escaped.out") }
    assert.equal(0, status, err)
    assert.equal('name\tfile\tobject\tcalled\tIr self\tIr inclusive\nf\\tg\\\\h\tdir\\\\q.c\t\t0\t7\t7\n', out)
  end)

  it("quotes CSV fields as RFC 4180 says", function()
    local out, err, status = command.run { "functions", "--format=csv", path("quoted.out") }
    assert.equal(0, status, err)
    assert.equal('name,file,object,called,Ir self,Ir inclusive,Dr self,Dr inclusive\n"f(a, ""b"")",q.c,,0,7,7,2,2\n', out)
  end)

  it("writes JSON that a JSON reader reads back", function()
    local json = require "dkjson"
    local out, err, status = command.run { "functions", "--format", "json", "--events", "Ir,CEst", path("quoted.out") }
    assert.equal(0, status, err)
    local data = assert(json.decode(out))
    assert.same({ "Ir", "CEst" }, data.events)
    assert.same({ name = 'f(a, "b")', file = "q.c", object = "", called = 0, self = { Ir = 7, CEst = 7 },
      inclusive = { Ir = 7, CEst = 7 } }, data.functions[1])
  end)
end)

describe("callgrind callers and callees", function()
  it("list a function's callers with counts, inclusive costs and call sites", function()
    local out, err, status = command.run { "callers", "__strcat_avx2", SAMPLE }
    assert.equal(0, status, err)
    local lines = lines_of(out)
    assert.truthy(lines[1]:find("^__strcat_avx2 %(.*strcat%-avx2%.S, /usr/lib/x86_64%-linux%-gnu/libc%.so%.6%): "
      .. "self 1,808,505, inclusive 1,808,505 Ir, called 40,189 times$"), lines[1])
    assert.truthy(lines[3]:find("^%s+40,189%s+1,808,505%s+36%.34%%%s+main%s+examples/data/sample%.c:44$"), lines[3])
    assert.equal(3, #lines)
  end)

  it("list a function's callees, by a Lua pattern when no function has the name", function()
    local out, err, status = command.run { "callees", "-n", "2", "^mai", SAMPLE }
    assert.equal(0, status, err)
    local lines = lines_of(out)
    assert.truthy(lines[1]:find("^main %(examples/data/sample%.c, %./sample%): self 1,859,688, inclusive 4,852,108 Ir, "
      .. "called 1 time$"), lines[1])
    assert.truthy(lines[3]:find("^%s+40,189%s+1,808,505%s+36%.34%%%s+__strcat_avx2%s+examples/data/sample%.c:44$"), lines[3])
    assert.truthy(lines[4]:find("__strcmp_avx2%s+examples/data/sample%.c:27$"), lines[4])
    assert.equal(4, #lines)
  end)

  it("mark recursive calls", function()
    -- main calls f, which calls itself: 4 in the outer call, 6 in the inner ones
    fixtures.write(path("rec.out"),
      "events: Ir\nfn=main\n1 1\ncfn=f\ncalls=1 1\n1 10\nfn=f\n1 4\ncfn=f\ncalls=2 1\n1 6\nfn=f\n2 6\n")
    local out, err, status = command.run { "callers", "f", path("rec.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find("\n%s+2%s+6%s+54%.55%%%s+f %(recursive%)%s+%?%?%?:1\n"), out)
    assert.truthy(out:find("\n%s+1%s+10%s+90%.91%%%s+main%s+%?%?%?:1\n"), out)
  end)
end)

describe("callgrind diff", function()
  it("shows the totals and the functions that changed", function()
    local out, err, status = command.run { "diff", path("a.out"), path("b.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find("^Totals\nevent  base  new  change        %%\nIr       40  100     %+60  %+150%.0%%\n"), out)
    local first = out:match("Biggest regressions by self cost\n[^\n]*\n([^\n]*)")
    assert.truthy(first:find("+60", 1, true) and first:find("a.c:work", 1, true), out)
  end)

  it("exits 1 with --fail-above and names what grew; 0 for the same file twice", function()
    local out, err, status = command.run { "diff", "--fail-above", "5", path("a.out"), path("b.out") }
    assert.equal(1, status)
    assert.truthy(out:find("^Totals\n"))
    assert.equal("callgrind: Ir grew by more than 5% (--by=self, --min=1%):\n"
      .. "  total: 40 -> 100 (+150.0%)\n  a.c:work: 30 -> 90 (+200.0%)\n", err)
    _, err, status = command.run { "diff", "--fail-above=5", path("a.out"), path("a.out") }
    assert.equal(0, status, err)
    assert.equal("", err)
  end)

  it("leaves functions below --min out of the gate, and gates on inclusive costs with --by", function()
    -- main's own cost grows from 10 to 11 (+10%): 25% of the total before, 27% after, so
    -- --min=30 spares it
    fixtures.write(path("c.out"), "events: Ir\nfl=a.c\nfn=main\n1 11\ncfn=work\ncalls=2 5\n2 30\nfn=work\n5 30\n")
    local _, err, status = command.run { "diff", "--fail-above=5", "--min=30", path("a.out"), path("c.out") }
    assert.equal(0, status, err)
    _, err, status = command.run { "diff", "--fail-above=5", path("a.out"), path("c.out") }
    assert.equal(1, status)
    assert.equal("callgrind: Ir grew by more than 5% (--by=self, --min=1%):\n  a.c:main: 10 -> 11 (+10.0%)\n", err)
    _, err, status = command.run { "diff", "--fail-above=2", "--by=inclusive", path("a.out"), path("c.out") }
    assert.equal(1, status)
    assert.equal("callgrind: Ir grew by more than 2% (--by=inclusive, --min=1%):\n  total: 40 -> 41 (+2.5%)\n"
      .. "  a.c:main: 40 -> 41 (+2.5%)\n", err)
  end)
end)

describe("callgrind diff as a regression gate, on valgrind's profiles of one program", function()
  local vg = require "helpers.valgrind"
  if not vg.available() then
    pending("gcc and valgrind are needed on PATH")
    return
  end

  -- workload.c with an input five times as large: scaled() does five times the work
  it("passes the same profile twice, and fails a bigger input naming the functions that grew", function()
    local small = vg.profile("callgrind_workload_small")[1]
    local large = vg.profile("callgrind_workload_large")[1]
    local out, err, status = command.run { "diff", "--fail-above", "5", small, small }
    assert.equal(0, status, err)
    assert.equal("", err)
    assert.truthy(out:find("\nBiggest regressions by self cost\n  (none)\n", 1, true), out)
    out, err, status = command.run { "diff", "--fail-above", "5", small, large }
    assert.equal(1, status, err)
    -- what the gate names, worked out from the two profiles
    local format = require "callgrind.format"
    local base, new = assert(callgrind.load(small)), assert(callgrind.load(large))
    local function named(label, before, after)
      return ("  %s: %s -> %s (%+.1f%%)\n"):format(label, format.thousands(before), format.thousands(after),
        100 * (after - before) / before)
    end
    local scaled_before, scaled = base:find("scaled"), new:find("scaled")
    assert.is_true(scaled:self("Ir") > 4 * scaled_before:self("Ir"))
    assert.equal("callgrind: Ir grew by more than 5% (--by=self, --min=1%):\n"
      .. named("total", base:total("Ir"), new:total("Ir"))
      .. named(format.location(scaled.file, scaled.name, scaled.object), scaled_before:self("Ir"), scaled:self("Ir")), err)
    assert.truthy(out:find("^Totals\n"), out)
  end)
end)

describe("callgrind merge, select and convert", function()
  it("merge sums profiles into one file", function()
    local out, err, status = command.run { "merge", "-o", path("m.out"), path("a.out"), path("b.out") }
    assert.equal(0, status, err)
    assert.equal("", out)
    local merged = assert(callgrind.load(path("m.out")))
    assert.equal(40 + 100, merged:total("Ir"))
    assert.equal(4, merged:find("work").called)
  end)

  it("merge skips an empty file with a warning, as valgrind's base file of a threaded run", function()
    fixtures.write(path("empty.out"), "")
    local _, err, status = command.run { "merge", "-o", path("m2.out"), path("empty.out"), path("a.out") }
    assert.equal(0, status, err)
    assert.equal("callgrind: warning: " .. path("empty.out") .. ":0: empty input\n", err)
    assert.equal(40, assert(callgrind.load(path("m2.out"))):total("Ir"))
  end)

  it("select keeps the functions asked for and folds the others", function()
    local out, err, status = command.run { "select", "--keep", "^main$", "-o", "-", path("a.out") }
    assert.equal(0, status, err)
    local kept = assert(callgrind.parse(out, "selected"))
    assert.equal(40, kept:total("Ir"))
    assert.equal(2, kept:stats().functions)
    assert.equal(30, kept:find("(dropped functions)"):self("Ir"))
    assert.equal(40, kept:find("main"):inclusive("Ir"))
    _, err, status = command.run { "select", "--threshold=50", "--by=self", "--dropped-name=rest", "-o", path("s.out"),
      path("a.out") }
    assert.equal(0, status, err)
    local selected = assert(callgrind.load(path("s.out")))
    assert.equal(10, selected:find("rest"):self("Ir"))
  end)

  it("convert rewrites a profile and makes webgrind's file", function()
    local out, err, status = command.run { "convert", "--no-compress", SAMPLE }
    assert.equal(0, status, err)
    assert.equal(4976287, assert(callgrind.parse(out, "converted")):total("Ir"))
    assert.falsy(out:find("\nfn=%(%d+%)"), "names are compressed")
    assert.truthy(out:find("\nfn=main\n", 1, true))
    _, err, status = command.run { "convert", "--to=webgrind", "-o", path("w.webgrind"), SAMPLE }
    assert.equal(0, status, err)
    local decoded = assert(callgrind.load_webgrind(path("w.webgrind")))
    assert.equal(7, decoded.version)
    assert.equal(264, #decoded.functions)
  end)
end)

describe("callgrind graph", function()
  local function has_dot()
    local ok = os.execute("command -v dot >/dev/null 2>&1")
    return ok == true or ok == 0
  end

  it("writes DOT text to standard output or to a .dot file", function()
    local out, err, status = command.run { "graph", "--root", "main", "-n", "1", path("a.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find('^digraph "callgraph" {\n'), out)
    assert.truthy(out:find('label="a.out: 40 Ir"', 1, true), out)
    assert.truthy(out:find('"fn1" -> "fn2"', 1, true), out)
    _, err, status = command.run { "graph", "-o", path("g.dot"), "--title=", path("a.out") }
    assert.equal(0, status, err)
    assert.falsy(fixtures.read(path("g.dot")):find("label=\"a.out", 1, true))
  end)

  it("renders SVG, PNG and PDF with Graphviz", function()
    if not has_dot() then
      pending("Graphviz's dot is not installed")
      return
    end
    for ext, magic in pairs { svg = "<svg", png = "\137PNG", pdf = "%PDF" } do
      local _, err, status = command.run { "graph", "-o", path("g." .. ext), SAMPLE }
      assert.equal(0, status, err)
      assert.truthy(fixtures.read(path("g." .. ext)):find(magic, 1, true), ext)
    end
  end)

  it("says what to do when dot is missing", function()
    local _, err, status = command.run({ "graph", "-o", path("nodot.svg"), path("a.out") },
      { env = { PATH = "/nonexistent" } })
    assert.equal(2, status)
    assert.equal("callgrind: Graphviz's 'dot' is needed to write " .. path("nodot.svg")
      .. " (on Debian: apt-get install graphviz); without it, write DOT text (-o FILE.dot)\n", err)
    assert.falsy(fixtures.try_read(path("nodot.svg")))
  end)
end)

describe("callgrind flame", function()
  it("writes the folded stacks to standard output, adding up to the total", function()
    local out, err, status = command.run { "flame", SAMPLE }
    assert.equal(0, status, err)
    local sum, lines = 0, 0
    for stack, cost in out:gmatch("([^\n]+) (%d+)\n") do
      assert.falsy(stack:find("^ "))
      sum, lines = sum + tonumber(cost), lines + 1
    end
    assert.equal(4976287, sum)
    assert.equal(select(2, out:gsub("\n", "")), lines)
    assert.truthy(out:find("\n0x000000000001ab70;%(below main%);__libc_start_main@@GLIBC_2%.34;%(below main%);main;fib %d+\n"), out)
    -- frames with their file, as name [object] too
    out = command.run { "flame", "--file", "--object", path("a.out") }
    assert.equal("a.c:main 10\na.c:main;a.c:work 30\n", out)
    out = command.run { "flame", "-o", "-", "--min-share=0", path("a.out") }
    assert.equal("main 10\nmain;work 30\n", out)
  end)

  it("draws an interactive SVG, an icicle, a differential one, threads as roots", function()
    local _, err, status = command.run { "flame", "-o", path("f.svg"), "--title", "sample", "--mark", "fib", SAMPLE }
    assert.equal(0, status, err)
    local svg = fixtures.read(path("f.svg"))
    assert.truthy(svg:find('^<%?xml version="1.0" encoding="UTF%-8" standalone="no"%?>\n<svg '), svg:sub(1, 200))
    assert.truthy(svg:find(">sample</text>", 1, true))
    assert.truthy(svg:find("<title>main\n", 1, true))
    _, err, status = command.run { "flame", "-T", "svg", "-o", path("icicle.out"), "--icicle", SAMPLE }
    assert.equal(0, status, err)
    -- the root frame at the top, under the title, rather than at the bottom
    assert.truthy(fixtures.read(path("icicle.out")):find('<rect x="10.00" y="40" width="1180.00"', 1, true))
    assert.falsy(svg:find('<rect x="10.00" y="40" width="1180.00"', 1, true))
    _, err, status = command.run { "flame", "--diff", path("a.out"), "-o", path("d.svg"), path("b.out") }
    assert.equal(0, status, err)
    local diff = fixtures.read(path("d.svg"))
    -- work costs 90 where it cost 30: +200%
    assert.truthy(diff:find("<title>work\nIr: 90 (90.00%), self 90 (90.00%)\na.c\nself Ir before: 30, change +60 (+200.00%)</title>",
      1, true), diff)
    local out
    out, err, status = command.run { "flame", "--threads", path("a.out") }
    assert.equal(0, status, err)
    assert.equal("thread 1;main 10\nthread 1;main;work 30\n", out)
  end)
end)

describe("callgrind html", function()
  it("writes the report page, one file with its data inline", function()
    local out, err, status = command.run { "html", "-o", path("r.html"), "--graphs=0", "--asm=0", "-I", REPOSITORY, SAMPLE }
    assert.equal(0, status, err)
    assert.equal("", out)
    assert.equal("", err)
    local page = fixtures.read(path("r.html"))
    assert.truthy(page:find("^<!DOCTYPE html>"))
    local data = page:match('<script type="application/json" id="cg%-data">(.-)</script>')
    local decoded = assert(require("dkjson").decode(data))
    assert.equal(264, #decoded.functions)
    assert.equal(16, decoded.shown)
    assert.equal("main", decoded.functions[1][1])
    assert.same({ 1859688 }, decoded.functions[1][5])
    assert.equal("Profile " .. SAMPLE, decoded.title)
    -- sample.c found through -I, flame graph there
    local found = false
    for _, s in pairs(decoded.sources) do
      if s.label == REPOSITORY .. " + examples/data/sample.c" then found = true end
    end
    assert.is_true(found)
    assert.truthy(page:find('id="cg-flame"', 1, true))
    out, err, status = command.run { "html", "-o", "-", "--no-flame", "--title", "t<1>", "--threshold=50", "--graphs=0",
      path("a.out") }
    assert.equal(0, status, err)
    assert.truthy(out:find("<title>t&lt;1&gt;</title>", 1, true))
    assert.falsy(out:find('id="cg-flame"', 1, true))
    decoded = assert(require("dkjson").decode(out:match('<script type="application/json" id="cg%-data">(.-)</script>')))
    assert.equal(1, decoded.shown)
    assert.equal(2, decoded.rows)
  end)
end)

describe("callgrind asm", function()
  local vg = require "helpers.valgrind"
  if not vg.available() then
    pending("gcc and valgrind are needed on PATH")
    return
  end

  it("prints a function's machine code with its costs, the hot ones only with --context", function()
    local file = vg.profile("callgrind_asm")[1]
    local prof = assert(callgrind.load(file))
    local fn = prof:find("count_words")
    local out, err, status = command.run { "asm", "count_words", file }
    assert.equal(0, status, err)
    assert.equal(require("callgrind.asm").text(prof, fn), out)
    assert.truthy(out:find("^%-+\n%-%- Machine code: count_words\n"), out)
    assert.truthy(out:find(format.thousands(fn:self("Ir")) .. " %(.-%)%s+self cost of count_words\n$"), out)
    local short
    short, err, status = command.run { "asm", "--context=1", "--show-percs=no", "count_words", file }
    assert.equal(0, status, err)
    assert.equal(require("callgrind.asm").text(prof, fn, { context = 1, percentages = false }), short)
    assert.is_true(#short < #out)
  end)
end)

describe("callgrind info", function()
  it("describes the header, events, sections, counts and warnings", function()
    local out, err, status = command.run { "info", SAMPLE }
    assert.equal(0, status, err)
    for _, expected in ipairs {
      "Profile    " .. SAMPLE .. "\n", "Creator    callgrind-3.19.0\n", "Command    ./sample\n", "PID        8196\n",
      "Desc       Trigger: Program termination\n", "Positions  instr line\n",
      "\nEvents\n  Ir    4,976,287\n  CEst  4,976,287  Cycle Estimation = ",
      "\nSections 1\n  1. part 1, pid 8196, " .. SAMPLE .. ":2: Ir 4,976,287\n",
      "  functions        264\n  calls            454\n  line records  14,010\n  jumps          1,099\n"
        .. "  cycles             0\n",
      "\nWarnings 0\n",
    } do
      assert.truthy(out:find(expected, 1, true), expected .. "\nin\n" .. out)
    end
  end)
end)
