-- callgrind.command.convert: a profile rewritten in the Callgrind format, or in webgrind's
-- preprocessed format.
local webgrind = require "callgrind.webgrind"
local options = require "callgrind.command.options"
local write = require "callgrind.command.write"

local convert = {
  summary = "rewrite a profile, or make webgrind's preprocessed file",
  description = [[
Writes the profile again in the Callgrind format (--to callgrind: compressed names and
positions, one part, readable by callgrind_annotate and KCachegrind), or in the preprocessed
format of webgrind, the PHP profile viewer, for one event (--to webgrind). Several FILEs are
summed into one profile first.]],
}

function convert.define(cmd)
  cmd:option("--to", "the format to write: callgrind or webgrind"):argname("FORMAT")
    :convert(options.one_of("--to", { "callgrind", "webgrind" })):default("callgrind")
  options.output(cmd, "the file to write [- : standard output]")
  options.event(cmd, "the event of a webgrind file [the first]")
  cmd:flag("--no-compress", "callgrind: write names and positions in full")
  options.strict(cmd)
  options.profiles(cmd)
end

function convert.run(args, ctx)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local target = args.output or "-"
  if args.to == "webgrind" then
    if target == "-" and ctx.out.terminal then
      ctx.cli:fail("webgrind's format is binary: name the file to write with -o FILE")
    end
    local event = ctx.cli:event(prof, args.event)
    local data, err = webgrind.encode(prof, { event = event })
    if not data then ctx.cli:fail((target == "-" and "stdout" or target) .. ": " .. err) end
    write.text(ctx, data, target)
  else
    local compress = not args.no_compress
    write.profile(ctx, prof, target, { compress_names = compress, compress_positions = compress })
  end
end

return convert
