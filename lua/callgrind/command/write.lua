-- callgrind.command.write: how the subcommands that make files write them — to a path, or to
-- standard output for "-" — so that a failed write is reported the same way everywhere.
local write = {}

--- Writes `prof` in the Callgrind format to `target` (a path, or "-" for standard output).
function write.profile(ctx, prof, target, opts)
  local ok, err = prof:write(target == "-" and io.stdout or target, opts)
  if not ok then ctx.cli:fail(err) end
end

--- Writes `text` to `target` (a path, or "-" for standard output).
function write.text(ctx, text, target)
  if target == "-" then
    ctx.out:write(text)
    return
  end
  local f, err = io.open(target, "wb")
  if not f then ctx.cli:fail(err) end
  local ok, werr = f:write(text)
  local closed, cerr = f:close()
  if not ok or not closed then ctx.cli:fail(target .. ": " .. tostring(werr or cerr)) end
end

return write
