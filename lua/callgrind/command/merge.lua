-- callgrind.command.merge: several profiles (the threads of a run, the parts of its dumps,
-- several runs) summed into one file in the Callgrind format.
local options = require "callgrind.command.options"
local write = require "callgrind.command.write"

local merge = {
  summary = "sum several profiles into one file",
  description = [[
Sums profiles into one and writes it in the Callgrind format, which callgrind_annotate,
KCachegrind and this command read: the threads of a run (--separate-threads=yes writes one
file per thread, and an empty base file, which is skipped with a warning), the parts of its
dumps, or several runs. Functions are matched by name, file and object, events by name.]],
}

function merge.define(cmd)
  options.output(cmd, "the file to write (- for standard output)")
  cmd:flag("--no-compress", "write names and positions in full, without name or position compression")
  options.strict(cmd)
  options.profiles(cmd)
end

function merge.run(args, ctx)
  if not args.output then ctx.cli:fail("merge needs -o OUT (- for standard output)") end
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local compress = not args.no_compress
  write.profile(ctx, prof, args.output, { compress_names = compress, compress_positions = compress })
end

return merge
