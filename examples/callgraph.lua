-- callgraph.lua: the call graph of a profile for Graphviz, in the style of gprof2dot.
--
--   lua5.4 examples/callgraph.lua [options] PROFILE [OUTPUT.dot]
--
-- Run it from the repository after `make` (LUA_PATH="lua/?.lua;lua/?/init.lua;;"
-- LUA_CPATH="build/5.4/?.so;;"), or anywhere once the module is installed.
local dot = require "callgrind.dot"
local format = require "callgrind.format"
local system = require "callgrind.system"
local cli = require("callgrind.cli").new("callgraph.lua")

local usage = [[
usage: callgraph.lua [options] PROFILE [OUTPUT.dot]

Draws the call graph of a Callgrind or Cachegrind profile as Graphviz DOT text, like gprof2dot:
a box per function with its inclusive share, (self share) and call count, coloured from cold
(blue) to hot (red); an arrow per caller and callee with the share and count of the calls;
members of a cycle of mutual recursion grouped in a frame.

The text goes to OUTPUT.dot, or to standard output when no OUTPUT is given. With an OUTPUT,
and Graphviz's `dot` on PATH, OUTPUT.svg is rendered next to it. PROFILE "-" reads standard
input.

options:
  --event=EV                 event name or 1-based index [the first event]
  -n P, --node-threshold=P   leave out functions below P% of the total [0.5]
  -e P, --edge-threshold=P   leave out calls below P% of the total [0.1]
  -z F, --root=F             only function F and what it calls, transitively (repeatable)
  -l F, --leaf=F             only function F and what calls it, transitively (repeatable)
  -s, --strip                strip C++ argument lists and template arguments from names
  -w, --wrap[=N]             wrap names longer than about N characters [40]
  -c M, --colors=M           color, gray or bw [color]
  --no-self                  leave out the (self share) line
  --title=TEXT               caption ["" for none; default: the profile, event and total]
  --no-svg                   do not render OUTPUT.svg
  -h, --help                 this text
]]

local function fail(message, status)
  cli:fail(message, status or 1)
end

local function bad_usage(message)
  cli:fail(message .. " (try --help)")
end

local function percent_value(name, value)
  local n = tonumber(value)
  if not n or n ~= n or n < 0 then
    bad_usage(("%s expects a percentage, 0 or more, not '%s'"):format(name, tostring(value)))
  end
  return n
end

---------------------------------------------------------------------------------------------
-- Options

local opts = { root = {}, leaf = {} }
local svg = true
local title
local positional = {}

-- name -> { key, takes a value }
local long_options = {
  event = { "event", true }, ["node-threshold"] = { "node_threshold", true },
  ["edge-threshold"] = { "edge_threshold", true }, root = { "root", true }, leaf = { "leaf", true },
  strip = { "strip", false }, wrap = { "wrap", false }, colors = { "colors", true },
  ["no-self"] = { "no_self", false }, title = { "title", true }, ["no-svg"] = { "no_svg", false },
  help = { "help", false },
}
local short_options = { n = "node-threshold", e = "edge-threshold", z = "root", l = "leaf",
  s = "strip", w = "wrap", c = "colors", h = "help" }

local function set(option, key, value)
  if key == "help" then
    io.stdout:write(usage)
    os.exit(0)
  elseif key == "event" then
    opts.event = tonumber(value) or value
  elseif key == "node_threshold" or key == "edge_threshold" then
    opts[key] = percent_value(option, value)
  elseif key == "root" or key == "leaf" then
    local list = opts[key]
    list[#list + 1] = value
  elseif key == "strip" then
    opts.strip = true
  elseif key == "wrap" then
    if value == nil then
      opts.wrap = true
    else
      local n = tonumber(value)
      if not n or n < 1 or n ~= math.floor(n) then
        bad_usage(("%s expects a width of 1 or more, not '%s'"):format(option, value))
      end
      opts.wrap = n
    end
  elseif key == "colors" then
    if value ~= "color" and value ~= "gray" and value ~= "grey" and value ~= "bw" then
      bad_usage(("%s expects color, gray or bw, not '%s'"):format(option, value))
    end
    opts.colors = value
  elseif key == "no_self" then
    opts.show_self = false
  elseif key == "title" then
    title = value
  elseif key == "no_svg" then
    svg = false
  end
end

local i = 1
local only_positional = false
while i <= #arg do
  local a = arg[i]
  if only_positional or a == "-" or a:sub(1, 1) ~= "-" then
    positional[#positional + 1] = a
  elseif a == "--" then
    only_positional = true
  elseif a:sub(1, 2) == "--" then
    local name, value = a:match("^%-%-([^=]+)=(.*)$")
    name = name or a:sub(3)
    local spec = long_options[name]
    if not spec then bad_usage(("unknown option '--%s'"):format(name)) end
    local key, takes_value = spec[1], spec[2]
    if takes_value and value == nil then
      i = i + 1
      value = arg[i]
      if value == nil then bad_usage(("--%s expects a value"):format(name)) end
    elseif not takes_value and value ~= nil and key ~= "wrap" then
      bad_usage(("--%s takes no value"):format(name))
    end
    set("--" .. name, key, value)
  else
    local letter = a:sub(2, 2)
    local name = short_options[letter]
    if not name or #a > 2 and not long_options[name][2] then bad_usage(("unknown option '%s'"):format(a)) end
    local value
    if long_options[name][2] then
      value = a:sub(3)
      if value == "" then
        i = i + 1
        value = arg[i]
        if value == nil then bad_usage(("-%s expects a value"):format(letter)) end
      end
    end
    set("-" .. letter, long_options[name][1], value)
  end
  i = i + 1
end

if #positional == 0 then
  io.stderr:write(usage)
  os.exit(2)
end
if #positional > 2 then bad_usage("too many arguments: expected PROFILE [OUTPUT.dot]") end
local input, output = positional[1], positional[2]
if #opts.root == 0 then opts.root = nil end
if #opts.leaf == 0 then opts.leaf = nil end

---------------------------------------------------------------------------------------------
-- Load, draw, write

local prof = cli:load(input)
local text
cli:run(function()
  if type(opts.event) == "string" then opts.event = cli:event(prof, opts.event) end
  if title == nil then
    local name = prof:event_info(opts.event or 1).name
    local source = input == "-" and "stdin" or input:match("([^/]+)/*$") or input
    title = ("%s: %s %s"):format(source, format.thousands(prof:total(name)), name)
  end
  if title ~= "" then opts.title = title end
  text = dot.graph(prof, opts)
end)

if not output then
  io.stdout:write(text)
  os.exit(0)
end

local file, open_err = io.open(output, "wb")
if not file then fail(open_err) end
local written, write_err = file:write(text)
if not written then fail(write_err) end
file:close()

local has_dot = system.found("dot")
if svg and has_dot then
  local svg_path = (output:match("^(.*)%.dot$") or output) .. ".svg"
  local command = ("dot -Tsvg -o %s %s"):format(system.quote(svg_path), system.quote(output))
  if not system.execute(command) then fail("dot could not render " .. output) end
end
