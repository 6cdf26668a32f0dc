-- callgrind.annotate.render: what callgrind_annotate 3.19 prints around annotated source: the
-- files it could not find, and the total of what was annotated. Each file's lines, with their
-- costs and calls, are laid out by the core (core.annotated_source, csrc/annotated.c).
local format = require "callgrind.format"
local layout = require "callgrind.layout"

local render = {}

--- The list of files that could not be found.
function render.missing(out, missing, user)
  table.sort(missing)
  out[#out + 1] = format.rule
  out[#out + 1] = user and "The following files chosen for annotation could not be found:"
    or "The following files chosen for auto-annotation could not be found:"
  out[#out + 1] = format.rule
  for _, file in ipairs(missing) do out[#out + 1] = "  " .. file end
  out[#out + 1] = ""
end

--- The costs printed next to source lines, as shares of the profile's total (of what was
--- annotated where the total is zero or smaller: profiles whose costs do not add up).
function render.annotated(out, annotated, settings)
  local shares = {}
  for _, ev in ipairs(settings.events) do
    local total = settings.totals[ev]
    if total == 0 or annotated[ev] > total then total = annotated[ev] end
    shares[ev] = total
  end
  local block = layout.block(settings.events, shares, settings.percentages)
  block:add(annotated, "events annotated", true)
  out[#out + 1] = block:render(true)
  out[#out + 1] = ""
end

return render
