-- callgrind.flame.svg and diff_svg, read back as XML documents: every frame is as wide as its
-- cost, frames nest, the sums of the stacks hold, and the SVG embeds in a page beside others.
local callgrind = require "callgrind"
local flame = require "callgrind.flame"
local names = require "callgrind.names"
local xml = require "helpers.xml"
local vg = require "helpers.valgrind"

local SAMPLE = "examples/data/sample.callgrind.gz"
local PAD, TOP, BOTTOM = 10, 40, 40
local fmt = string.format

--- The SVG's root and its frames in document order: {x =, t =, d =, lines = title lines,
--- rect = attributes, label = text shown or nil, class =, el =}.
local function read_svg(text)
  local root = assert(xml.parse(text))
  local frames = {}
  for _, g in ipairs(xml.find_all(root, function(el) return el.tag == "g" and xml.has_class(el, "cgf-f") end)) do
    local lines = {}
    for line in (xml.child(g, "title").text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    local label = xml.child(g, "text")
    frames[#frames + 1] = {
      x = tonumber(g.attrs["data-x"]), t = tonumber(g.attrs["data-t"]), d = tonumber(g.attrs["data-d"]),
      lines = lines, rect = xml.child(g, "rect").attrs, label = label and label.text, el = g,
    }
  end
  return root, frames
end

--- Checks the geometry and the sums of an SVG; returns its root and frames, each with its
--- `self` (its cost less its children's) and `parent`.
local function check_svg(text, opts)
  opts = opts or {}
  local root, frames = read_svg(text)
  assert.are.equal("svg", root.tag)
  assert.is_true(xml.has_class(root, "cgf-root"))
  local width, height = tonumber(root.attrs.width), tonumber(root.attrs.height)
  local total = tonumber(root.attrs["data-total"])
  local fh = opts.frame_height or 16
  local scale = (width - 2 * PAD) / total
  local last_at, children_sum, end_of_last_child = {}, {}, {}
  local roots_sum = 0
  for i, f in ipairs(frames) do
    assert.are.equal(fmt("%.2f", f.t * scale), f.rect.width)
    assert.are.equal(fmt("%.2f", PAD + f.x * scale), f.rect.x)
    assert.are.equal(tostring(fh - 1), f.rect.height)
    local y = opts.icicle and TOP + (f.d - 1) * fh or height - BOTTOM - f.d * fh
    assert.are.equal(tostring(y), f.rect.y)
    if f.d == 1 then
      assert.is_true(f.x >= roots_sum)
      roots_sum = roots_sum + f.t
    else
      local parent = assert(last_at[f.d - 1], "a frame without a parent")
      local p = frames[parent]
      assert.is_true(f.x >= (end_of_last_child[parent] or p.x), "frames overlap")
      assert.is_true(f.x + f.t <= p.x + p.t, "a frame wider than its parent")
      end_of_last_child[parent] = f.x + f.t
      children_sum[parent] = (children_sum[parent] or 0) + f.t
      f.parent = parent
    end
    last_at[f.d] = i
    for d = f.d + 1, #last_at do last_at[d] = nil end
  end
  for i, f in ipairs(frames) do
    f.self = f.t - (children_sum[i] or 0)
    assert.is_true(f.self >= 0)
  end
  if opts.everything then assert.are.equal(total, roots_sum) end
  return root, frames, total
end

--- "Ir: 1,234 (12.34%), self 1,000 (10.00%)" -> 1234, 1000
local function costs_of(line)
  local cost, self = line:match(": ([%d,]+) %(.-%), self ([%d,]+) ")
  return tonumber((cost:gsub(",", ""))), tonumber((self:gsub(",", "")))
end

--- Checks that the frames of every function add up to its self cost, and the tooltips.
local function check_functions(prof, ev, frames)
  local by_key = {}
  for _, f in ipairs(frames) do
    local cost, self = costs_of(f.lines[2])
    assert.are.equal(f.t, cost)
    assert.are.equal(f.self, self)
    if f.lines[3] and f.lines[1] ~= "[other]" then
      local key = f.lines[1] .. "\0" .. f.lines[3]
      by_key[key] = (by_key[key] or 0) + f.self
    end
  end
  for fn in prof:functions() do
    local where = (fn.file ~= "" and fn.file or "???") .. (fn.object ~= "" and (" [" .. fn.object .. "]") or "")
    local key = names.clean(fn.name) .. "\0" .. names.clean(where)
    assert.are.equal(fn:self(ev), by_key[key] or 0, fn.name)
  end
end

describe("flame.svg", function()
  local available, why = xml.available()
  if not available then
    it("needs lua-expat", function() pending(why) end)
    return
  end
  local prof = assert(callgrind.load(SAMPLE))

  it("draws every frame as wide as its cost, nested, with the profile's sums", function()
    local text = flame.svg(prof, { min_share = 0, min_width = 0 })
    local root, frames, total = check_svg(text, { everything = true })
    assert.are.equal(prof:total("Ir"), total)
    assert.are.equal(#flame.stacks(prof, { min_share = 0 }).frames, #frames)
    check_functions(prof, "Ir", frames)
    assert.are.equal("1200", root.attrs.width)
    assert.is_truthy(text:find('^<%?xml version="1.0" encoding="UTF%-8" standalone="no"%?>\n<svg'))
  end)

  it("names the frame, its cost and share, and where the function is, on hover", function()
    local _, frames = read_svg(flame.svg(prof, { min_share = 0, min_width = 0 }))
    local main
    for _, f in ipairs(frames) do
      if f.lines[1] == "main" then main = f end
    end
    -- main's frame holds what the shares of its callees' costs give it: its inclusive cost,
    -- give or take the units the rounding of those shares moved elsewhere
    local frame
    for _, f in ipairs(flame.stacks(prof, { min_share = 0 }).frames) do
      if f.name == "main" then frame = f end
    end
    assert.is_true(math.abs(frame.total - prof:find("main"):inclusive("Ir")) <= 1)
    assert.are.same({ "main", fmt("Ir: %s (%.2f%%), self 1,859,688 (37.37%%)", callgrind.format.thousands(frame.total),
      100 * frame.total / 4976287), "examples/data/sample.c [./sample]" }, main.lines)
    assert.are.equal("main", main.label)
  end)

  it("leaves out frames narrower than min_width pixels and says how many", function()
    local text = flame.svg(prof)
    local root, frames = check_svg(text)
    local stacks = flame.stacks(prof, { min_share = 100 / 1180 }) -- a pixel of the 1180 between the margins
    local scale = 1180 / prof:total("Ir")
    local kept, left, left_cost = {}, 0, 0
    for i, f in ipairs(stacks.frames) do
      local parent_kept = not f.parent or kept[f.parent]
      kept[i] = parent_kept and f.total * scale >= 1
      if not kept[i] then
        left = left + 1
        if parent_kept then left_cost = left_cost + f.total end
      end
    end
    assert.is_true(left > 0)
    assert.are.equal(#stacks.frames - left, #frames)
    for _, f in ipairs(frames) do assert.is_true(tonumber(f.rect.width) >= 1) end
    local note = xml.find_all(root, function(el) return xml.has_class(el, "cgf-note") end)[1].text
    local says = fmt("%d narrower than 1 px left out (%.2f%% of the total)", left, 100 * left_cost / prof:total("Ir"))
    assert.is_truthy(note:find(says, 1, true), note)
    assert.is_truthy(text:find("<!-- Flame graph: Ir: event Ir, total 4,976,287; " .. #frames .. " frames drawn; "
      .. says .. " -->", 1, true))
  end)

  it("hangs the frames from the top with icicle", function()
    check_svg(flame.svg(prof, { icicle = true, min_share = 0, min_width = 0, frame_height = 12 }),
      { icicle = true, frame_height = 12, everything = true })
  end)

  it("embeds in a page beside other graphs: no prolog, no ids of its own, scoped style, a closed script", function()
    local text = flame.svg(prof, { inline = true, id = "graph-1", width = 800 })
    assert.is_truthy(text:find("^<svg "))
    local root = check_svg(text)
    assert.are.equal("graph-1", root.attrs.id)
    assert.are.equal(1, #xml.find_all({ children = { root } }, function(el) return el.attrs.id ~= nil end))
    local style = xml.child(root, "style").text
    for rule in style:gmatch("[^\n]+") do assert.is_truthy(rule:find("^%.cgf%-root "), rule) end
    local code = xml.child(root, "script").text
    assert.is_truthy(code:find("^%s*%(function %(%) {"))
    assert.is_truthy(code:find("}%)%(%);%s*$"))
    assert.is_nil(code:find("]]>", 1, true))
    assert.is_nil(code:find("getElementById", 1, true))
  end)

  it("outlines the frames of a marked function and gives their share", function()
    local fib = prof:find("fib")
    local root, frames = check_svg(flame.svg(prof, { mark = "fib", min_share = 0, min_width = 0 }))
    local marked, sum = 0, 0
    for _, f in ipairs(frames) do
      if xml.has_class(f.el, "cgf-mark") then
        marked = marked + 1
        assert.are.equal("fib", f.lines[1])
        sum = sum + f.t
      end
    end
    assert.is_true(marked > 0)
    assert.are.equal(fib:inclusive("Ir"), sum)
    local matched = xml.find_all(root, function(el) return xml.has_class(el, "cgf-matched") end)[1]
    assert.are.equal(fmt("Marked: %.2f%%", 100 * sum / prof:total("Ir")), matched.text)
  end)

  it("draws only the stacks through a focus function", function()
    local fib = prof:find("fib")
    local _, frames, total = check_svg(flame.svg(prof, { focus = fib, min_share = 0, min_width = 0 }), { everything = true })
    assert.are.equal(fib:inclusive("Ir"), total)
    local through = {}
    for i, f in ipairs(frames) do
      through[i] = f.lines[1] == "fib" or (f.parent and through[f.parent]) or false
    end
    for i, f in ipairs(frames) do
      if not through[i] then assert.are.equal(0, f.self, f.lines[1]) end
    end
  end)

  it("colours by object, file or name, and [other] frames grey", function()
    local fills = {}
    for _, colors in ipairs { "object", "file", "name" } do
      local _, frames = read_svg(flame.svg(prof, { colors = colors }))
      local by_frame, other = {}, nil
      for _, f in ipairs(frames) do
        assert.is_truthy(f.rect.fill:find("^#%x%x%x%x%x%x$"))
        if f.lines[1] == "[other]" then other = f.rect.fill end
        by_frame[#by_frame + 1] = f.rect.fill
      end
      assert.are.equal("#c8c8c8", other)
      fills[colors] = table.concat(by_frame, " ")
    end
    assert.are_not.equal(fills.object, fills.file)
    assert.are_not.equal(fills.file, fills.name)
  end)

  it("shortens C++ names in the frames and keeps the whole name in the tooltip", function()
    local long = "std::vector<int, std::allocator<int> >::push_back(int const&)"
    local cxx = assert(callgrind.parse("events: Ir\nfn=main\n1 1\ncfn=" .. long .. "\ncalls=1 1\n1 9\nfn=" .. long .. "\n1 9\n"))
    local _, frames = read_svg(flame.svg(cxx))
    assert.are.equal(long, frames[2].lines[1])
    assert.are.equal("std::vector::push_back", frames[2].label)
    local _, whole = read_svg(flame.svg(cxx, { strip = false }))
    assert.are.equal(long, whole[2].label)
    -- too narrow for the label: cut, with the whole label kept for zooming
    local _, narrow = read_svg(flame.svg(cxx, { width = 150, strip = false }))
    assert.are.equal(long:sub(1, 13) .. "..", narrow[2].label)
  end)

  it("writes any name as valid XML", function()
    local nasty = "a<b>&\"c'\1\233"
    local p = assert(callgrind.parse("events: Ir\nfn=" .. nasty .. "\n1 5\n"))
    local text = flame.svg(p, { title = "<&>" })
    local _, frames = check_svg(text)
    assert.are.equal(names.clean(nasty), frames[1].lines[1])
    assert.is_truthy(text:find(">&lt;&amp;&gt;</text>", 1, true))
  end)

  if vg.available() then
    for _, config in ipairs(vg.configs()) do
      it("keeps the sums on " .. config.name, function()
        local p = assert(callgrind.load(vg.profile(config.name)[1]))
        local ev = p:events()[1]
        local _, frames, total = check_svg(flame.svg(p, { event = ev, min_share = 0, min_width = 0 }), { everything = true })
        assert.are.equal(p:total(ev), total)
        check_functions(p, ev, frames)
      end)
    end
  end
end)

describe("flame.diff_svg", function()
  local available, why = xml.available()
  if not available then
    it("needs lua-expat", function() pending(why) end)
    return
  end
  if not vg.available() then
    it("needs valgrind", function() pending("valgrind is not installed") end)
    return
  end

  local function frame_named(frames, name)
    for _, f in ipairs(frames) do
      if f.lines[1] == name then return f end
    end
  end

  it("draws the new run, red where it is slower, blue where faster, grey where the same", function()
    local small = assert(callgrind.load(vg.profile("callgrind_workload_small")[1]))
    local large = assert(callgrind.load(vg.profile("callgrind_workload_large")[1]))
    local text = flame.diff_svg(small, large, { min_share = 0, min_width = 0 })
    local _, frames, total = check_svg(text, { everything = true })
    assert.are.equal(large:total("Ir"), total)
    check_functions(large, "Ir", frames)
    local scaled = frame_named(frames, "scaled")
    assert.is_truthy(scaled.rect.fill:find("^#ff"))
    assert.are_not.equal("#ffffff", scaled.rect.fill)
    local before = small:find("scaled"):self("Ir")
    local change = large:find("scaled"):self("Ir") - before
    assert.are.equal(fmt("self Ir before: %s, change +%s (+%.2f%%)", callgrind.format.thousands(before),
      callgrind.format.thousands(change), 100 * change / before), scaled.lines[4])
    assert.are.equal("#eeeeee", frame_named(frames, "steady").rect.fill)

    local _, reverse = read_svg(flame.diff_svg(large, small, { min_share = 0, min_width = 0 }))
    assert.is_truthy(frame_named(reverse, "scaled").rect.fill:find("ff$"))
    assert.is_nil(frame_named(reverse, "scaled").rect.fill:find("^#ff"))
  end)

  it("colours by the change of the whole frame with by = total, and scales the base with normalize", function()
    local small = assert(callgrind.load(vg.profile("callgrind_workload_small")[1]))
    local large = assert(callgrind.load(vg.profile("callgrind_workload_large")[1]))
    local _, frames = read_svg(flame.diff_svg(small, large, { by = "total" }))
    assert.is_truthy(frame_named(frames, "main").rect.fill:find("^#ff"))
    assert.is_truthy(frame_named(frames, "main").lines[4]:find("^total Ir before: "))
    local _, normalized = read_svg(flame.diff_svg(small, large, { normalize = true }))
    -- scaled to the new total, what did not change costs less than the new run: blue
    assert.is_truthy(frame_named(normalized, "steady").rect.fill:find("ff$"))
  end)

  it("says which frames the base run does not have", function()
    local base = assert(callgrind.parse("events: Ir\nfn=main\n1 5\n"))
    local new = assert(callgrind.parse("events: Ir\nfn=main\n1 5\ncfn=extra\ncalls=1 1\n1 5\nfn=extra\n1 5\n"))
    local _, frames = read_svg(flame.diff_svg(base, new))
    assert.are.equal("not in the base run", frame_named(frames, "extra").lines[4])
  end)
end)
