-- The flame graph SVG in a real browser: headless chromium opens it as a file and inside a page
-- beside a second graph, runs its script, searches and zooms, and logs nothing.
local callgrind = require "callgrind"
local flame = require "callgrind.flame"
local browser = require "helpers.browser"
local fixtures = require "helpers.fixtures"

local SAMPLE = "examples/data/sample.callgrind.gz"

describe("the flame graph in chromium", function()
  if browser.unavailable(it, pending) then return end

  local prof = assert(callgrind.load(SAMPLE))
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p '" .. dir .. "'"))
  end)

  teardown(function()
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("renders the SVG file without error", function()
    local path = dir .. "/sample.svg"
    fixtures.write(path, flame.svg(prof))
    local dom, log = browser.dump_dom(path)
    assert.are.same({}, browser.console(log))
    assert.is_truthy(dom:find('<svg xmlns="http://www.w3.org/2000/svg" class="cgf-root"', 1, true), dom:sub(1, 300))
    assert.is_nil(dom:find("parsererror", 1, true))
    assert.is_truthy(dom:find("<title>main\n", 1, true))
  end)

  it("searches and zooms inside a page with two graphs, each on its own", function()
    local fib = prof:find("fib")
    local share = string.format("%.2f", 100 * fib:inclusive("Ir") / prof:total("Ir"))
    local page = table.concat({
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>two graphs</title></head><body>",
      flame.svg(prof, { inline = true, id = "one", min_share = 0, min_width = 0 }),
      flame.svg(prof, { inline = true, id = "two", icicle = true }),
      "<pre id=\"out\"></pre><script>",
      "var one = document.getElementById('one'), two = document.getElementById('two'), out = [];",
      "out.push('api ' + typeof one.cgf + ' ' + typeof two.cgf);",
      "out.push('share ' + one.cgf.search('^fib$').toFixed(2));",
      "out.push('matched ' + one.querySelector('.cgf-matched').textContent);",
      "out.push('found ' + one.querySelectorAll('.cgf-found').length);",
      "out.push('other found ' + two.querySelectorAll('.cgf-found').length);",
      "out.push('zoom ' + two.cgf.zoom('qsort'));",
      "var widths = [];",
      "two.querySelectorAll('g.cgf-f').forEach(function (g) {",
      "  if (g.classList.contains('cgf-hidden')) return;",
      "  widths.push(g.querySelector('title').textContent.split('\\n')[0] + '=' + g.querySelector('rect').getAttribute('width'));",
      "});",
      "out.push('shown ' + widths.join(' | '));",
      "out.push('hidden ' + two.querySelectorAll('g.cgf-hidden').length);",
      "two.cgf.reset();",
      "out.push('after reset ' + two.querySelectorAll('g.cgf-hidden').length);",
      "document.getElementById('out').textContent = out.join('\\n');",
      "</script></body></html>",
    }, "\n")
    local path = dir .. "/page.html"
    fixtures.write(path, page)
    local dom, log = browser.dump_dom(path)
    assert.are.same({}, browser.console(log))
    local out = assert(dom:match('<pre id="out">(.-)</pre>'), dom:sub(1, 300))
    assert.is_truthy(out:find("api object object", 1, true), out)
    assert.is_truthy(out:find("share " .. share, 1, true), out)
    assert.is_truthy(out:find("matched Matched: " .. share .. "%", 1, true), out)
    assert.is_truthy(out:find("other found 0", 1, true), out)
    assert.is_truthy(out:find("zoom true", 1, true), out)
    -- the zoomed frame and the frames above it span the whole width
    assert.is_truthy(out:find("qsort=1180.00", 1, true), out)
    assert.is_truthy(out:find("main=1180.00", 1, true), out)
    assert.is_nil(out:find("__strcat_avx2=", 1, true), out)
    assert.is_nil(out:find("hidden 0\n", 1, true), out)
    assert.is_truthy(out:find("after reset 0", 1, true), out)
    local found = tonumber(out:match("found (%d+)"))
    local frames = 0
    for _, f in ipairs(flame.stacks(prof, { min_share = 0 }).frames) do
      if f.name == "fib" then frames = frames + 1 end
    end
    assert.are.equal(frames, found)
  end)
end)
