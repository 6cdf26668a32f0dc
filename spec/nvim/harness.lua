-- Runs inside `nvim --headless` for spec/nvim_spec.lua: loads the plugin from the repository,
-- records notifications, reads back what the plugin drew (extmarks, signs, the quickfix list)
-- and writes a scenario's findings to a file as a Lua table literal.
--
--   local h = dofile(os.getenv("CALLGRIND_SPEC_REPO") .. "/spec/nvim/harness.lua")
--   h.run(function(out) vim.cmd("CallgrindLoad x.out"); out.marks = h.marks(0) end)
--
-- Environment: CALLGRIND_SPEC_REPO (the repository), CALLGRIND_SPEC_DIR (the scenario's files),
-- CALLGRIND_SPEC_OUT (where the findings go).
local harness = {}

local uv = vim.uv or vim.loop
local api = vim.api

harness.repo = assert(os.getenv("CALLGRIND_SPEC_REPO"), "CALLGRIND_SPEC_REPO is not set")
harness.dir = os.getenv("CALLGRIND_SPEC_DIR")
local out_path = assert(os.getenv("CALLGRIND_SPEC_OUT"), "CALLGRIND_SPEC_OUT is not set")

package.cpath = harness.repo .. "/build/jit/?.so;" .. package.cpath
vim.cmd("runtime plugin/callgrind.lua")

-- every notification: { {message =, level =}, ... }
harness.notes = {}
vim.notify = function(message, level)
  table.insert(harness.notes, { message = message, level = level or vim.log.levels.INFO })
end

--- The notifications since index `from` (default 1) whose message contains `text`.
function harness.notes_with(text, from)
  local found = {}
  for i = from or 1, #harness.notes do
    if harness.notes[i].message:find(text, 1, true) then
      found[#found + 1] = harness.notes[i]
    end
  end
  return found
end

local function real(path)
  if path == "" then
    return ""
  end
  return uv.fs_realpath(path) or path
end

--- Opens a file in the current window and returns its buffer.
function harness.edit(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  return api.nvim_get_current_buf()
end

-- What the plugin asked nvim_buf_set_extmark for, by buffer and mark id: Neovim reports an
-- extmark's sign in its details only from 0.10 on; before, the harness reads it from here.
local requested = {}
local set_extmark = api.nvim_buf_set_extmark
api.nvim_buf_set_extmark = function(buf, ns, line, col, opts)
  local id = set_extmark(buf, ns, line, col, opts)
  if buf == 0 then
    buf = api.nvim_get_current_buf()
  end
  requested[buf] = requested[buf] or {}
  requested[buf][id] = opts
  return id
end

local SIGNS_IN_DETAILS = vim.fn.has("nvim-0.10") == 1

-- The plugin's extmarks of a buffer: { [line] = {details}, ... }; one per line at most.
local function plugin_marks(buf)
  local ns = api.nvim_create_namespace("callgrind")
  local found = {}
  for _, mark in ipairs(api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local line, details = mark[2] + 1, mark[4]
    assert(not found[line], "two marks on line " .. line)
    if not SIGNS_IN_DETAILS then
      local opts = (requested[buf] or {})[mark[1]] or {}
      details.sign_text, details.sign_hl_group = opts.sign_text, opts.sign_hl_group
    end
    found[line] = details
  end
  return found
end

--- The plugin's virtual text of a buffer: { [line] = { text =, groups = "A,B" } }.
function harness.marks(buf)
  local found = {}
  for line, details in pairs(plugin_marks(buf)) do
    if details.virt_text then
      local texts, groups = {}, {}
      for i, chunk in ipairs(details.virt_text) do
        texts[i], groups[i] = chunk[1], chunk[2]
      end
      found[line] = { text = table.concat(texts), groups = table.concat(groups, ","), pos = details.virt_text_pos }
    end
  end
  return found
end

--- The plugin's signs in a buffer: { [line] = highlight group } (the group names the level).
function harness.signs(buf)
  local found = {}
  for line, details in pairs(plugin_marks(buf)) do
    found[line] = details.sign_hl_group
  end
  return found
end

--- The texts of the plugin's signs in a buffer, without Neovim's padding: { [line] = text }.
function harness.sign_texts(buf)
  local found = {}
  for line, details in pairs(plugin_marks(buf)) do
    if details.sign_text then
      found[line] = details.sign_text:gsub("%s+$", "")
    end
  end
  return found
end

-- Signs placed with the legacy sign API in a buffer (the plugin places none). Neovim 0.10
-- lists extmark signs here too, without a sign name.
local function legacy_signs(buf)
  local count = 0
  for _, sign in ipairs((vim.fn.sign_getplaced(buf, { group = "*" })[1] or {}).signs or {}) do
    if sign.name ~= "" then
      count = count + 1
    end
  end
  return count
end

--- Every extmark of the plugin's namespace, those with a sign among them, and every legacy
--- sign, over all buffers.
function harness.leftovers()
  local ns = api.nvim_create_namespace("callgrind")
  local marks, signs, legacy = 0, 0, 0
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      marks = marks + #api.nvim_buf_get_extmarks(buf, ns, 0, -1, {})
      for _ in pairs(harness.signs(buf)) do
        signs = signs + 1
      end
    end
    legacy = legacy + legacy_signs(buf)
  end
  return { marks = marks, signs = signs, legacy_signs = legacy }
end

--- The quickfix list: { title =, items = { {file = real path or "", lnum =, text =}, ... } }.
function harness.quickfix()
  local list = vim.fn.getqflist({ title = 1, items = 1 })
  local items = {}
  for i, item in ipairs(list.items) do
    local name = item.bufnr > 0 and api.nvim_buf_get_name(item.bufnr) or ""
    items[i] = { file = real(name), lnum = item.lnum, text = item.text }
  end
  return { title = list.title, items = items }
end

--- Puts the cursor of the current window on a line of a buffer shown there.
function harness.cursor(buf, line)
  api.nvim_set_current_buf(buf)
  api.nvim_win_set_cursor(0, { line, 0 })
end

-- A Lua literal for strings, numbers, booleans and tables of them (keys sorted).
local function literal(value, indent)
  local kind = type(value)
  if kind == "string" then
    return ("%q"):format(value)
  elseif kind == "number" then
    if value % 1 == 0 then
      return ("%d"):format(value)
    end
    return ("%.17g"):format(value)
  elseif kind == "boolean" or kind == "nil" then
    return tostring(value)
  elseif kind == "table" then
    local keys = {}
    for key in pairs(value) do
      keys[#keys + 1] = key
    end
    table.sort(keys, function(a, b)
      if type(a) ~= type(b) then
        return type(a) < type(b)
      end
      return a < b
    end)
    local inner = indent .. "  "
    local parts = {}
    for _, key in ipairs(keys) do
      local key_text = type(key) == "string" and ("[%q]"):format(key) or ("[%d]"):format(key)
      parts[#parts + 1] = inner .. key_text .. " = " .. literal(value[key], inner)
    end
    if #parts == 0 then
      return "{}"
    end
    return "{\n" .. table.concat(parts, ",\n") .. ",\n" .. indent .. "}"
  end
  error("cannot write a " .. kind)
end

--- Runs a scenario: `body(out)` fills `out`; an error is recorded as out.error. Writes the
--- findings and quits Neovim.
function harness.run(body)
  local out = {}
  local ok, err = xpcall(function()
    body(out)
  end, debug.traceback)
  if not ok then
    out.error = tostring(err)
  end
  out.notes = harness.notes
  local file = assert(io.open(out_path, "w"))
  file:write("return ", literal(out, ""), "\n")
  file:close()
  vim.cmd("qall!")
end

return harness
