-- `callgrind annotate`, as installed, against callgrind_annotate 3.19: both run with the same
-- options on profiles valgrind makes while the specs run, and their texts are compared line by
-- line (helpers.ca_text). A difference must be one that `callgrind help annotate` and the man
-- page document, or one of the differences of the report helpers listed below, which are
-- allowed until the report helpers print what callgrind_annotate prints there.
--
-- The whole table of option sets runs on Lua 5.4; on the other interpreters (the same command
-- on another Lua) a few of them do.
local vg = require "helpers.valgrind"
local ca_text = require "helpers.ca_text"
local command = require "helpers.command"
local fixtures = require "helpers.fixtures"
local annotate = require "callgrind.command.annotate"

-- The documented differences, as the allowances of helpers.ca_text, each with words of the
-- item of annotate.differences (the help and the man page) that documents it.
local DOCUMENTED = {
  recursion = "Recursion: the inclusive cost",
  objects = "Functions of the same file and name in two objects",
  zero_calls = "The cost after a 'calls=0' line",
  totals = "PROGRAM TOTALS and the percentages are the sums of the costs read",
  sections = "Files with several parts or threads",
  zeros = "A zero count is printed as 0",
  ties = "Lines of equal cost",
  inlined_object = "Rows of code inlined from a header name the object",
}

-- The report helpers (callgrind.report, callgrind.rows, callgrind.annotate) lay out the text
-- as callgrind_annotate does (column widths, the header's lines as the file writes them, the
-- context markers of annotated source): only the documented differences above are allowed.

-- The profiles compared: recursion, thirteen events (summary: above the costs), several parts
-- and threads in one file, dumps with calls=0 lines, inlined code, one name in two objects, and
-- cachegrind's files.
local CONFIGS = {
  "callgrind_default", "callgrind_cache_branch", "callgrind_threads_combined", "callgrind_client_dump",
  "callgrind_inline", "callgrind_multi_object", "cachegrind_sim", "cachegrind_no_sim",
}

-- Option sets: `--show`/`--sort` are filled in per profile (its last event shown and sorted by).
local OPTION_SETS = {
  { "--auto=yes" },
  { "--auto=no", "--inclusive=yes" },
  { "--auto=no", "--threshold=100" },
  { "--auto=no", "--threshold=50", "--inclusive=yes" },
  { "--auto=no", "--threshold=20" },
  { "--auto=no", "--tree=caller" },
  { "--auto=no", "--tree=calling" },
  { "--auto=no", "--tree=both", "--inclusive=yes" },
  { "--auto=no", "SHOW", "SORT" },
  { "--auto=yes", "--context=2", "--include=/tmp" },
  { "--auto=yes", "--context=0", "--show-percs=no" },
}

local SMOKE = { callgrind_default = { 1, 8 }, cachegrind_sim = { 9 } }

teardown(function() command.cleanup() end)

-- Text compared by its words: runs of blanks as one, quotes left out, in lower case (the man
-- page writes the metavariables of the help, FILE, in italics: file).
local function words(text)
  return (text:gsub("['\"`]", ""):gsub("%s+", " "):lower())
end

-- The text of a man page: font macros' arguments (joined without blanks for the alternating
-- ones, .BR and the like), plain lines, escapes resolved; other requests left out.
local function man_text(source)
  local out = {}
  for line in source:gmatch("[^\n]+") do
    local macro, rest = line:match("^%.(%a%a?) ?(.*)$")
    if not macro then
      out[#out + 1] = line
    elseif macro == "B" or macro == "I" then
      out[#out + 1] = rest
    elseif #macro == 2 and macro:find("^[BIR][BIR]$") then
      rest = rest:gsub("\\ ", "\1") -- an escaped blank does not separate arguments
      local args = {}
      local i = 1
      while i <= #rest do
        local q = rest:match('^"([^"]*)"', i)
        if q then
          args[#args + 1] = q
          i = i + #q + 2
        else
          local word = rest:match("^(%S+)", i)
          if word then
            args[#args + 1] = word
            i = i + #word
          else
            i = i + 1
          end
        end
      end
      out[#out + 1] = table.concat(args)
    end
  end
  local text = table.concat(out, " ")
  return (text:gsub("\\f[BIRP]", ""):gsub("\\%-", "-"):gsub("\\ ", " "):gsub("\1", " "):gsub("\\%(bu", ""))
end

describe("the differences from callgrind_annotate", function()
  it("are listed in `callgrind help annotate` and in the man page, and each allowance below is one", function()
    local help = words(command.run { "help", "annotate" })
    local man = words(man_text(fixtures.read("man/callgrind.1")))
    for _, item in ipairs(annotate.differences) do
      assert.truthy(help:find(words(item), 1, true), "not in the help: " .. item)
      assert.truthy(man:find(words(item), 1, true), "not in man/callgrind.1: " .. item .. "\n" .. man)
    end
    for name, text in pairs(DOCUMENTED) do
      local found = false
      for _, item in ipairs(annotate.differences) do
        if item:find(text, 1, true) then found = true end
      end
      assert.truthy(found, name .. ": no documented difference says '" .. text .. "'")
    end
  end)
end)

if not vg.available() then
  describe("callgrind annotate against callgrind_annotate", function()
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
  end)
  return
end

local function options_of(args, events)
  local out = { threshold = 99, events = #events }
  local list = {}
  for _, a in ipairs(args) do
    if a == "SHOW" then
      a = "--show=" .. events[#events] .. (#events > 1 and ("," .. events[1]) or "")
      out.events = #events > 1 and 2 or 1
    elseif a == "SORT" then
      a = "--sort=" .. events[#events]
    end
    list[#list + 1] = a
    if a == "--inclusive=yes" then out.inclusive = true end
    out.threshold = tonumber(a:match("^%-%-threshold=(%d+)$")) or out.threshold
    out.tree = a:match("^%-%-tree=(%a+)$") or out.tree
  end
  return list, out
end

describe("helpers.ca_text", function()
  -- callgrind_annotate's own text against altered copies of it: the comparison must see each
  -- alteration, with every allowance granted
  local path, text, facts, events
  local allow_all = {}
  setup(function()
    path = vg.profile("callgrind_default")[1]
    text = ca_text.run_ca(path, { "--auto=yes", "--tree=both" })
    local raw = vg.read_raw(path)
    facts, events = ca_text.facts(raw), #raw.events
    for name in pairs(DOCUMENTED) do allow_all[name] = true end
  end)

  local function problems(altered)
    return ca_text.compare(text, altered, { allow = allow_all, facts = facts, events = events, tree = "both" })
  end

  it("finds no difference between a text and itself", function()
    assert.same({}, problems(text))
  end)

  -- `text` with the first `old` (plain text) replaced by `new`
  local function replaced(old, new)
    local a, b = text:find(old, 1, true)
    assert.truthy(a, old)
    return text:sub(1, a - 1) .. new .. text:sub(b + 1)
  end

  it("finds a changed count, a missing caller, a changed source line and a missing annotated file", function()
    local row = text:match("\n(%s*[%d,]+ %(%s*[%d.]+%%%)%s+%*%s+[^\n]*dl%-lookup%.c:do_lookup_x[^\n]*)\n")
    assert.is_true(#problems(replaced(row, (row:gsub("^(%s*)(%d)", "%19")))) > 0)
    local caller = text:match("\n([^\n]*< [^\n]*dl%-lookup%.c:_dl_lookup_symbol_x [^\n]*\n)")
    assert.is_true(#problems(replaced(caller, "")) > 0)
    assert.is_true(#problems(replaced("return n * fact(n - 1);", "return n * fact(n - 2);")) > 0)
    assert.is_true(#problems(replaced("-- Auto-annotated source: ", "-- Auto-annotated source: x")) > 0)
  end)
end)

local full = _VERSION == "Lua 5.4" and not rawget(_G, "jit")

describe("callgrind annotate against callgrind_annotate", function()
  local allow = {}
  for name in pairs(DOCUMENTED) do allow[name] = true end

  for _, config in ipairs(CONFIGS) do
    for set_index, set in ipairs(OPTION_SETS) do
      local smoke = SMOKE[config]
      local wanted = full or (smoke and (smoke[1] == set_index or smoke[2] == set_index))
      if wanted then
        it(("%s with %s prints callgrind_annotate's text but for the allowed differences"):format(config,
          table.concat(set, " ")), function()
          local files = vg.profile(config)
          for _, path in ipairs(files) do
            local raw = vg.read_raw(path)
            local args, opts = options_of(set, raw.events)
            local expected = ca_text.run_ca(path, args)
            local ours_args = { "annotate" }
            for _, a in ipairs(args) do ours_args[#ours_args + 1] = a end
            ours_args[#ours_args + 1] = path
            -- both run in callgrind_annotate's empty directory, which prefixes no file name
            local out, err, status = command.run(ours_args, { cwd = vg.work_dir() .. "/ca-cwd" })
            assert.equal(0, status, err)
            assert.truthy(expected:find("PROGRAM TOTALS", 1, true), "callgrind_annotate failed on " .. path)
            opts.allow = allow
            opts.facts = ca_text.facts(raw)
            local problems = ca_text.compare(expected, out, opts)
            local shown = {}
            for i = 1, math.min(10, #problems) do shown[i] = problems[i] end
            assert(#problems == 0, ("%s %s: %d differences not allowed:\n%s"):format(path, table.concat(args, " "),
              #problems, table.concat(shown, "\n")))
          end
        end)
      end
    end
  end
end)
