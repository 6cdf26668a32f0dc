-- callgrind.nvim.marks: costs drawn into a buffer, as virtual text at the end of lines and
-- as signs whose level follows the line's share of the event total. A line's text and sign
-- are one extmark of the namespace "callgrind" (extmark signs, not the legacy sign API: since
-- Neovim 0.10 legacy signs are extmarks too, in a namespace of the sign group's name).
--
--   Ir 1,234                 a line's self cost
--   Ir 1,234 ⇒ 5,678 incl    and, on a line with calls, the inclusive cost of those calls
local format = require "callgrind.format"

local marks = {}

local api = vim.api

marks.namespace = api.nvim_create_namespace("callgrind")

local HIGHLIGHTS = {
  CallgrindCost = "Comment",
  CallgrindHot = "WarningMsg",
  CallgrindCall = "Special",
  CallgrindHeat1 = "Comment",
  CallgrindHeat2 = "Identifier",
  CallgrindHeat3 = "WarningMsg",
  CallgrindHeat4 = "ErrorMsg",
}

--- Defines the highlight groups, as default links so that a colour scheme or the user may
--- set them.
function marks.define()
  for group, target in pairs(HIGHLIGHTS) do
    vim.cmd(("highlight default link %s %s"):format(group, target))
  end
end

--- A cost as shown: "1,234" (absolute) or "0.12%" of `total` (percent; "n/a" for a zero total).
function marks.cost_text(cost, total, number_format)
  if number_format == "percent" then
    if total == 0 then return "n/a" end
    return ("%.2f%%"):format(100 * cost / total)
  end
  return format.thousands(format.integer(cost))
end

local function share(cost, total)
  if total == 0 then return 0 end
  return 100 * cost / total
end

-- The sign level (1 to 4) of a line costing `percent` of the total.
local function heat_level(percent, heat)
  local level = 1
  for i, threshold in ipairs(heat) do
    if percent >= threshold then level = i + 1 end
  end
  return level
end

--- The virtual text chunks of a line: { {"Ir 1,234", group}, {" ⇒ 5,678 incl", "CallgrindCall"} }.
--- line = { self = cost, inclusive = cost of its calls, calls = how many files' calls (0: none) }.
function marks.chunks(line, view)
  local group = share(line.self, view.total) >= view.hot and "CallgrindHot" or "CallgrindCost"
  local chunks = { { view.event .. " " .. marks.cost_text(line.self, view.total, view.format), group } }
  if line.calls > 0 then
    local text = " ⇒ " .. marks.cost_text(line.inclusive, view.total, view.format) .. " incl"
    chunks[2] = { text, "CallgrindCall" }
  end
  return chunks
end

--- Removes every mark and sign of the plugin from a buffer.
function marks.clear(buf)
  if api.nvim_buf_is_loaded(buf) then
    api.nvim_buf_clear_namespace(buf, marks.namespace, 0, -1)
  end
end

-- The extmark options of one line, or nil when it shows nothing.
local function mark_of(line, view, text, signs)
  local opts = { priority = view.priority }
  local shown = false
  if text and (line.self ~= 0 or line.calls > 0) then
    opts.virt_text, opts.virt_text_pos, opts.hl_mode = marks.chunks(line, view), "eol", "combine"
    shown = true
  end
  if signs and line.self > 0 then
    local level = heat_level(share(line.self, view.total), view.heat)
    opts.sign_text, opts.sign_hl_group = view.sign_texts[level], "CallgrindHeat" .. level
    shown = true
  end
  return shown and opts or nil
end

--- Draws `lines` ({ [line number] = {self =, inclusive =, calls =} }) into a buffer.
--- view: event, format, total, hot, heat, sign_texts, display, priority. Lines past the
--- buffer's end (a source changed since the profile was made) and line 0 are left out; so
--- are lines without self cost and without calls. Signs mark lines with a positive self
--- cost. Returns the number of lines drawn.
function marks.draw(buf, lines, view)
  local last = api.nvim_buf_line_count(buf)
  local text = view.display ~= "signs"
  local signs = view.display ~= "virtual_text"
  local drawn = 0
  for n, line in pairs(lines) do
    local opts = n >= 1 and n <= last and mark_of(line, view, text, signs)
    if opts then
      api.nvim_buf_set_extmark(buf, marks.namespace, n - 1, 0, opts)
      drawn = drawn + 1
    end
  end
  return drawn
end

return marks
