-- callgrind.nvim.resolve: which source files a profile's file names stand for.
--
-- Profiles write file names as the compiler saw them: absolute ("/home/u/p/src/x.c"), relative
-- to the directory the program was built in ("src/x.c", "./src/x.c"), or "???" when unknown.
-- An absolute name matches a buffer by real path; a relative one is tried against the profile
-- file's directory, the current directory and each source directory; failing those, a relative
-- name matches a path that ends with the same whole components ("src/x.c" matches
-- "/home/u/p/src/x.c" but not "/home/u/p/mysrc/x.c") when it names no existing file.
local names = require "callgrind.names"

local uv = vim.uv or vim.loop

local resolve = {}

local function is_absolute(path)
  return path:sub(1, 1) == "/"
end

local is_unknown = names.is_unknown

local function components(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      if #parts > 0 and parts[#parts] ~= ".." then
        parts[#parts] = nil
      elseif not is_absolute(path) then
        parts[#parts + 1] = ".."
      end
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return parts
end

--- `path` with "//", "/./" and "dir/.." folded, without touching the file system.
function resolve.normalize(path)
  local joined = table.concat(components(path), "/")
  if is_absolute(path) then return "/" .. joined end
  return joined == "" and "." or joined
end

local function join(dir, name)
  if dir:sub(-1) == "/" then return dir .. name end
  return dir .. "/" .. name
end

local function basename(path)
  return path:match("([^/]*)$")
end

-- The real path of a file, or its folded name when it does not exist (a new buffer).
local function real_path(path)
  return uv.fs_realpath(path) or resolve.normalize(path)
end

-- Whether the components of `short` end `long`, whole components only.
local function is_suffix(short, long)
  if #short == 0 or #short > #long then return false end
  local offset = #long - #short
  for i, part in ipairs(short) do
    if long[offset + i] ~= part then return false end
  end
  return true
end

-- A relative name's components for suffix matching: leading ".." say nothing about the
-- directory the file lies in.
local function suffix_parts(name)
  local parts = components(name)
  while parts[1] == ".." do
    table.remove(parts, 1)
  end
  return parts
end

local Resolver = {}
Resolver.__index = Resolver

--- A resolver for the file names of one profile.
--- names: the profile's file names; profile_path: the profile file (its directory is tried for
--- relative names); source_dirs: more directories to try.
function resolve.new(names, profile_path, source_dirs)
  local by_base = {}
  for _, name in ipairs(names) do
    if not is_unknown(name) then
      local base = basename(name)
      by_base[base] = by_base[base] or {}
      table.insert(by_base[base], name)
    end
  end
  local profile_dir = vim.fn.fnamemodify(profile_path, ":p:h")
  return setmetatable({ by_base = by_base, profile_dir = profile_dir, source_dirs = source_dirs }, Resolver)
end

--- The directories a relative name is tried in, in order.
function Resolver:directories()
  local dirs = { self.profile_dir, uv.cwd() }
  for _, dir in ipairs(self.source_dirs) do
    dirs[#dirs + 1] = vim.fn.expand(dir)
  end
  return dirs
end

--- Whether a profile name stands for the file whose real path is `target`; and whether it
--- stands for some existing file at all (then it is not matched by suffix elsewhere).
function Resolver:names_file(name, target)
  if is_absolute(name) then return real_path(name) == target, true end
  local exists = false
  for _, dir in ipairs(self:directories()) do
    local candidate = join(dir, name)
    local real = uv.fs_realpath(candidate)
    if (real or resolve.normalize(candidate)) == target then return true, true end
    exists = exists or real ~= nil
  end
  return false, exists
end

--- The profile's names for the file at `path` (a buffer's name): those that name it exactly,
--- or else the relative names that end its path with the most components. May be empty.
function Resolver:names_for(path)
  if path == "" then return {} end
  local absolute = vim.fn.fnamemodify(path, ":p")
  local target = real_path(absolute)
  local seen, exact, suffix, best = {}, {}, {}, 0
  local path_parts = { components(target), components(absolute) }
  for _, base in ipairs({ basename(absolute), basename(target) }) do
    for _, name in ipairs(self.by_base[base] or {}) do
      if not seen[name] then
        seen[name] = true
        local names_it, exists = self:names_file(name, target)
        if names_it then
          exact[#exact + 1] = name
        elseif not exists then
          local parts = suffix_parts(name)
          if #parts >= best and (is_suffix(parts, path_parts[1]) or is_suffix(parts, path_parts[2])) then
            if #parts > best then suffix, best = {}, #parts end
            suffix[#suffix + 1] = name
          end
        end
      end
    end
  end
  local found = #exact > 0 and exact or suffix
  table.sort(found)
  return found
end

-- A loaded buffer whose path ends with the components of a relative name.
local function buffer_ending_with(name)
  local parts = suffix_parts(name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local path = vim.api.nvim_buf_get_name(buf)
    if path ~= "" and vim.bo[buf].buftype == "" and is_suffix(parts, components(path)) then
      return path
    end
  end
  return nil
end

--- The path of the file a profile name stands for: the name itself when absolute, the first
--- directory that holds a relative name, or a loaded buffer ending with it. nil when none is
--- found, or for an unknown file ("???", "").
function Resolver:locate(name)
  if is_unknown(name) then return nil end
  if is_absolute(name) then return uv.fs_stat(name) and name or nil end
  for _, dir in ipairs(self:directories()) do
    local candidate = join(dir, name)
    if uv.fs_stat(candidate) then return resolve.normalize(candidate) end
  end
  return buffer_ending_with(name)
end

resolve.is_unknown = is_unknown
resolve.basename = basename

return resolve
