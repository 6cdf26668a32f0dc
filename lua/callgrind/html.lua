-- callgrind.html: a report page of a profile, one self-contained HTML file that opens from disk
-- with no network and no server (style, script and data inline).
--
--   local html = require "callgrind.html"
--   assert(html.write(prof, "report.html", { include = { "src" } }))
--
-- The page holds a summary, the table of functions (self and inclusive costs of every event,
-- calls, file, object; sorted, filtered and cut at a threshold in the browser), a view per
-- function (callers and callees, annotated source, the call graph around it, machine code) and
-- the flame graph of the whole profile. What the page shows is computed here, once, with the
-- module's public API (report rows, calls, line sums, callgrind.dot, callgrind.flame,
-- callgrind.asm); the page's script only sorts, filters and draws it (html/page.lua).
local callgrind = require "callgrind"
local core = require "callgrind.core"
local json = require "callgrind.json"
local source_files = require "callgrind.annotate.files"
local rows = require "callgrind.rows"
local page = require "callgrind.html.page"
local query = require "callgrind.query"
local system = require "callgrind.system"
local writer = require "callgrind.writer"

local html = {}

local quote = system.quote

local DEFAULTS = {
  threshold = 99,
  hot = 1,
  graphs = 50,
  asm = 20,
  max_source_bytes = 4000000,
  context = 3,
}

-- instructions shown around the hot ones (asm.text's context): whole functions can be
-- thousands of instructions
local DEFAULT_ASM_CONTEXT = 8

local KNOWN = {
  title = true, show = true, threshold = true, include = true, read_file = true, max_source_bytes = true,
  graphs = true, dot = true, asm = true, asm_options = true, flame = true, hot = true, context = true,
}

local function fail(what, message)
  error(("html.%s: %s"):format(what, message), 0)
end

local function check_options(what, opts)
  if opts == nil then return {} end
  if type(opts) ~= "table" then fail(what, "options must be a table") end
  for key in pairs(opts) do
    if not KNOWN[key] then fail(what, ("unknown option '%s'"):format(tostring(key))) end
  end
  for _, key in ipairs { "threshold", "hot" } do
    local v = opts[key]
    if v ~= nil and (type(v) ~= "number" or v ~= v or v < 0 or v > 100) then
      fail(what, key .. " must be a number from 0 to 100")
    end
  end
  for _, key in ipairs { "graphs", "asm", "max_source_bytes", "context" } do
    local v = opts[key]
    if v ~= nil and (type(v) ~= "number" or v < 0 or v ~= math.floor(v)) then
      fail(what, key .. " must be a whole number, 0 or more")
    end
  end
  if opts.title ~= nil and type(opts.title) ~= "string" then fail(what, "title must be a string") end
  if opts.include ~= nil and type(opts.include) ~= "table" then fail(what, "include must be a list of directories") end
  if opts.read_file ~= nil and type(opts.read_file) ~= "function" then fail(what, "read_file must be a function") end
  if opts.flame ~= nil and opts.flame ~= false and type(opts.flame) ~= "table" then
    fail(what, "flame must be a table of flame.svg options, or false")
  end
  if opts.asm_options ~= nil and type(opts.asm_options) ~= "table" then fail(what, "asm_options must be a table") end
  if opts.dot ~= nil and opts.dot ~= false and type(opts.dot) ~= "string" then
    fail(what, "dot must be the Graphviz program, or false")
  end
  return opts
end

---------------------------------------------------------------------------
-- The summary
---------------------------------------------------------------------------

local function summary(prof)
  local sections = prof:sections()
  local first = sections[1] or {}
  local sources, seen = {}, {}
  local parts = {}
  for i, s in ipairs(sections) do
    if not seen[s.source] then
      seen[s.source] = true
      sources[#sources + 1] = s.source
    end
    parts[i] = { part = s.part or json.null, thread = s.thread or json.null, pid = s.pid or json.null,
      source = s.source }
  end
  local desc = {}
  for _, h in ipairs(first.headers or {}) do
    if h.key == "desc" then desc[#desc + 1] = h.value end
  end
  local stats = prof:stats()
  return {
    sources = sources, creator = first.creator or json.null, cmd = first.cmd or json.null,
    pid = first.pid or json.null, desc = desc, sections = parts,
    stats = { functions = stats.functions, calls = stats.calls, lines = stats.lines, jumps = stats.jumps,
      cycles = stats.cycles },
  }
end

---------------------------------------------------------------------------
-- The functions, their calls
---------------------------------------------------------------------------

-- Every function in the order of the listing's rows (inlined = "merge": one row per function,
-- as the function view needs), and how many of them the threshold keeps (the first ones: both
-- lists are sorted alike). The core gives the rows' functions and the count, no table per row.
local function function_order(prof, events, threshold)
  local query = rows.query(events, { inlined = "merge" })
  query.events, query.functions = events, true
  local all = core.rows(prof, query)
  query = rows.query(events, { inlined = "merge", threshold = threshold })
  query.events, query.count = events, true
  return all, core.rows(prof, query)
end

-- Strings (files, objects) as indexes into one table.
local function interner()
  local list, index = {}, {}
  return list, function(s)
    local i = index[s]
    if not i then
      list[#list + 1] = s
      i = #list - 1
      index[s] = i
    end
    return i
  end
end

---------------------------------------------------------------------------
-- Source files
---------------------------------------------------------------------------

local function find_source(file, include, reader)
  local annotate = require "callgrind.annotate"
  return annotate.find_source(file, include, reader)
end

local split_lines = source_files.split_lines

-- Sources of the functions' files, hottest functions first, up to max_bytes in all; per line
-- the self and call costs of every event (annotate.line_totals of each file read, whole-file
-- sums as the annotated source shows them). Returns { [file index] = {...} } and the number of readable
-- files left out for the size.
local function sources(prof, fns, events, intern, o)
  local include = o.include or {}
  local reader = o.read_file or system.read_file
  local chosen, order, bytes, skipped = {}, {}, 0, 0
  for _, entry in ipairs(fns) do
    local file = entry.fn.file
    if file ~= "" and file ~= "???" and chosen[file] == nil then
      chosen[file] = false
      local text, label = find_source(file, include, reader)
      if text then
        if bytes + #text <= o.max_source_bytes then
          bytes = bytes + #text
          chosen[file] = { text = text, label = label }
          order[#order + 1] = file
        else
          skipped = skipped + 1
        end
      end
    end
  end
  local out = {}
  if #order == 0 then return out, skipped end
  local annotate = require "callgrind.annotate"
  for _, file in ipairs(order) do
    local costs = {}
    local lines = {}
    for i, ev in ipairs(events) do
      local by_file, calls_by_file = annotate.line_totals(prof, ev, file)
      local self = by_file[file] or {}
      local calls = calls_by_file[file] or {}
      for line, cost in pairs(self) do
        if not lines[line] then lines[line] = true end
        costs[line] = costs[line] or {}
        costs[line][i] = cost
      end
      for line, cost in pairs(calls) do
        if not lines[line] then lines[line] = true end
        costs[line] = costs[line] or {}
        costs[line][#events + i] = cost
      end
    end
    local numbers = {}
    for line in pairs(lines) do numbers[#numbers + 1] = line end
    table.sort(numbers)
    local list = {}
    for _, line in ipairs(numbers) do
      local c = costs[line]
      local cells = { line }
      for i = 1, 2 * #events do cells[#cells + 1] = c[i] or 0 end
      list[#list + 1] = cells
    end
    out[intern(file)] = {
      label = chosen[file].label,
      text = split_lines(chosen[file].text),
      costs = list,
    }
  end
  return out, skipped
end

-- The lines of its own file that a function has costs on: first and last.
local function line_range(fn, event)
  local by_file = fn:line_costs(event, fn.file)
  local lines = by_file and by_file[fn.file]
  if not lines then return nil end
  local first, last
  for line in pairs(lines) do
    if line > 0 then
      if not first or line < first then first = line end
      if not last or line > last then last = line end
    end
  end
  if not first then return nil end
  return first, last
end

---------------------------------------------------------------------------
-- Call graphs and machine code
---------------------------------------------------------------------------

-- The SVG of the graph around each function of `list`, drawn by one run of Graphviz's `dot`
-- over all the graphs. Returns { [function index] = svg } or nil and why not.
local function graphs(prof, list, events, program)
  if #list == 0 then return {} end
  if not system.found(program) then
    return nil, "Graphviz's 'dot' was not installed when this page was made"
  end
  local dot = require "callgrind.dot"
  -- one run of Graphviz per graph, all from one shell: Graphviz 2.43 writes only the first of
  -- several graphs of a file to -o, and can crash on a file of many graphs that it draws one
  -- by one; each run bounded in time where coreutils' timeout is there (a dense graph can
  -- take minutes)
  local dir = os.tmpname()
  os.remove(dir)
  if not system.execute("mkdir -m 700 " .. quote(dir)) then
    return nil, "no temporary directory for the call graphs"
  end
  for i, item in ipairs(list) do
    local f = assert(io.open(("%s/g%d.dot"):format(dir, i), "wb"))
    f:write(dot.around(prof, item.fn, { event = events[1], strip = true, wrap = true }))
    f:close()
  end
  local bounded = system.found("timeout") and "timeout 60 " or ""
  -- one graph: draw.sh g1.dot writes g1.svg
  local script = assert(io.open(dir .. "/draw.sh", "wb"))
  script:write(('f=$1\n%s%s -Tsvg "$f" >"${f%%.dot}.svg" 2>/dev/null\n'):format(bounded, quote(program)))
  script:close()
  -- four at a time where xargs can (GNU's and the BSDs' -P): Graphviz's layouts are the page's
  -- longest step (50 graphs of single-100: 2.2 s one after the other on two cores)
  if system.execute("echo | xargs -P 2 true >/dev/null 2>&1") then
    os.execute(("cd %s && ls g*.dot | xargs -P 4 -n 1 sh draw.sh"):format(quote(dir)))
  else
    os.execute(("cd %s && for f in g*.dot; do sh draw.sh \"$f\"; done"):format(quote(dir)))
  end
  local out, drawn = {}, 0
  for i, item in ipairs(list) do
    local svg = (system.read_file(("%s/g%d.svg"):format(dir, i)) or ""):match("<svg.-</svg>")
    if svg then
      out[item.index] = svg
      drawn = drawn + 1
    end
  end
  os.execute("rm -rf " .. quote(dir))
  if drawn == 0 then return nil, "Graphviz's 'dot' failed on the call graphs" end
  return out
end

local function machine_code(prof, list, events, asm_options)
  local asm = require "callgrind.asm"
  local out, why = {}, nil
  -- the functions of one object read its symbol tables once
  local cache = {}
  for _, item in ipairs(list) do
    local o = { show = events, context = DEFAULT_ASM_CONTEXT, cache = cache }
    for k, v in pairs(asm_options or {}) do o[k] = v end
    local ok, text, kind = pcall(asm.text, prof, item.fn, o)
    if ok then
      out[item.index] = text
      if kind == "objdump" then
        why = text
        break
      end
    else
      out[item.index] = "No machine code: " .. tostring(text) .. "\n"
    end
  end
  return out, why
end

---------------------------------------------------------------------------
-- The data
---------------------------------------------------------------------------

local function event_names(prof, show)
  if show == nil then return prof:events() end
  if type(show) == "string" then
    local list = {}
    for name in show:gmatch("[^,%s]+") do list[#list + 1] = name end
    show = list
  end
  if type(show) ~= "table" or #show == 0 then fail("data", "show must be a list of events") end
  local names = {}
  for i, ev in ipairs(show) do
    if not prof:has_event(ev) then fail("data", ("unknown event '%s'"):format(tostring(ev))) end
    names[i] = prof:event_info(ev).name
  end
  return names
end

-- The data of the page as a Lua table (what html.data returns); with `as_json`, its calls are
-- the JSON text the page embeds (json.raw).
local function build(prof, o, as_json)
  local events = event_names(prof, o.show)
  local threshold = o.threshold or DEFAULTS.threshold
  local strings, intern = interner()
  local listed, shown = function_order(prof, events, threshold)
  local nrows = #listed
  local index_of, fns = {}, {}
  for i, fn in ipairs(listed) do
    index_of[fn] = i - 1
    fns[i] = { fn = fn, row = true }
  end
  -- every function has a merged row; one without would still take part in calls
  for fn in prof:functions() do
    if index_of[fn] == nil then
      fns[#fns + 1] = { fn = fn }
      listed[#fns] = fn
      index_of[fn] = #fns - 1
    end
  end
  -- each function's name, file and object (indexes into the strings) and costs, and every
  -- call record (caller, callee, count, inclusive costs, call site line), made by the core: as
  -- the JSON text the page embeds when the page is made
  local function_list, names = core.function_rows(prof, listed, events, as_json)
  for _, name in ipairs(names) do intern(name) end
  local calls = core.call_rows(prof, listed, events, as_json)
  if as_json then function_list, calls = json.raw(function_list), json.raw(calls) end
  local max_bytes = o.max_source_bytes or DEFAULTS.max_source_bytes
  local source_files, skipped = sources(prof, fns, events, intern,
    { include = o.include, read_file = o.read_file, max_source_bytes = max_bytes })
  local ranges = {}
  for i, entry in ipairs(fns) do
    local file = intern(entry.fn.file)
    if source_files[file] then
      local first, last = line_range(entry.fn, events[1])
      if first then ranges[#ranges + 1] = { i - 1, file, first, last } end
    end
  end
  local sources_json = {}
  for file, s in pairs(source_files) do sources_json[tostring(file)] = s end

  -- the hottest functions get a call graph and machine code
  local hottest = {}
  for i = 1, #fns do
    if fns[i].row then hottest[#hottest + 1] = { fn = fns[i].fn, index = i - 1 } end
  end
  local function first_n(n)
    local out = {}
    for i = 1, math.min(n, #hottest) do out[i] = hottest[i] end
    return out
  end
  local notes = {}
  local graph_count = o.graphs or DEFAULTS.graphs
  local graph_svgs = {}
  if o.dot == false then
    notes.graph = "call graphs were left out when this page was made"
  elseif graph_count > 0 then
    local why
    graph_svgs, why = graphs(prof, first_n(graph_count), events, o.dot or "dot")
    if not graph_svgs then
      graph_svgs, notes.graph = {}, why
    end
  end
  local asm_texts = {}
  local asm_count = o.asm or DEFAULTS.asm
  if not query.has_position(prof, "instr") then
    notes.asm = "the profile has no instruction addresses (valgrind --dump-instr=yes)"
  elseif asm_count > 0 then
    local why
    asm_texts, why = machine_code(prof, first_n(asm_count), events, o.asm_options)
    if why then
      asm_texts, notes.asm = {}, why:gsub("\n$", "")
    end
  end
  -- a node of a graph names its function by id ("fn12"): the page's index of it on the node
  -- makes a click on it show the function
  local by_id = {}
  for fn, i in pairs(index_of) do by_id[fn.id] = i end
  local function linked(svg)
    return (svg:gsub('(<g id="node%d+" class="node")(>%s*<title>fn(%d+)</title>)', function(node, rest, id)
      local i = by_id[tonumber(id)]
      if not i then return nil end
      return node .. ' data-fn="' .. i .. '"' .. rest
    end))
  end
  local graphs_json, asm_json = {}, {}
  for k, v in pairs(graph_svgs) do graphs_json[tostring(k)] = linked(v) end
  for k, v in pairs(asm_texts) do asm_json[tostring(k)] = v end

  local totals = {}
  for i, ev in ipairs(events) do totals[i] = prof:total(ev) end
  local title = o.title
  if not title then
    local s = summary(prof).sources
    title = "Profile " .. table.concat(s, ", ")
  end
  return {
    title = title,
    version = callgrind._VERSION,
    summary = summary(prof),
    events = events,
    totals = totals,
    threshold = threshold,
    shown = shown,
    rows = nrows,
    hot = o.hot or DEFAULTS.hot,
    context = o.context or DEFAULTS.context,
    strings = strings,
    functions = function_list,
    calls = calls,
    sources = sources_json,
    sources_skipped = skipped,
    ranges = ranges,
    graphs = graphs_json,
    graph_limit = graph_count,
    asm = asm_json,
    asm_limit = asm_count,
    notes = notes,
  }
end

local function flame_svg(prof, o)
  if o.flame == false then return nil end
  local flame = require "callgrind.flame"
  local fo = { inline = true, id = "cg-flame", event = (o.show and event_names(prof, o.show) or prof:events())[1],
    title = "Flame graph" }
  for k, v in pairs(o.flame or {}) do fo[k] = v end
  local ok, svg = pcall(flame.svg, prof, fo)
  if not ok then return nil, tostring(svg) end
  return svg
end

--- The data the page shows, as a Lua table (the page embeds it as JSON): { title =, version =,
--- summary = {sources=, creator=, cmd=, pid=, desc=, sections=, stats=}, events =, totals =,
--- threshold =, shown = (rows within the threshold), rows =, strings = (files and objects),
--- functions = { {name, file index, object index, called, {self...}, {inclusive...}}, ... } in
--- the listing's order (report.rows with inlined = "merge"), calls = { {caller, callee, count,
--- inclusive..., line}, ... }, sources =, ranges =, graphs =, asm =, notes = }. See README.
function html.data(prof, opts)
  if not query.is_profile(prof) then fail("data", "a profile expected") end
  return build(prof, check_options("data", opts))
end

--- The page as a string. opts: see README ("HTML report").
function html.page(prof, opts)
  if not query.is_profile(prof) then fail("page", "a profile expected") end
  opts = check_options("page", opts)
  local data = build(prof, opts, true)
  local svg, why = flame_svg(prof, opts)
  if not svg then data.notes.flame = why or "the flame graph was left out when this page was made" end
  return page.render(json.encode(data), svg, data.title)
end

--- Writes the page to `path`. Returns true, or nil and a message.
function html.write(prof, path, opts)
  if type(path) ~= "string" then fail("write", "a path expected") end
  local text = html.page(prof, opts)
  return writer.to_path(path, function(put) return put(text) end)
end

return html
