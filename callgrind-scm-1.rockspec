rockspec_format = "3.0"
package = "callgrind"
version = "scm-1"
source = {
   url = "git+file://./",
}
description = {
   summary = "Read Callgrind and Cachegrind profiles from Lua, fast",
   detailed = [[
A C core parses the whole Callgrind format (Valgrind's callgrind and cachegrind, Xdebug, pprof
and other writers, gzip-compressed or not) into a compact model; a thin Lua layer gives
functions, calls, per-line and per-instruction costs, jumps, inclusive costs and cycles the way
KCachegrind computes them.]],
   license = "MIT",
   labels = { "profiling", "valgrind", "callgrind", "cachegrind" },
}
dependencies = {
   "lua >= 5.1",
   "argparse >= 0.7",
}
external_dependencies = {
   ZLIB = { header = "zlib.h", library = "z" },
}
build = {
   type = "builtin",
   modules = {
      ["callgrind.core"] = {
         sources = {
            "csrc/analysis.c", "csrc/arena.c", "csrc/builder.c", "csrc/combine.c", "csrc/events.c", "csrc/fault.c",
            "csrc/flame.c", "csrc/flame_deal.c", "csrc/flame_folded.c", "csrc/hash.c", "csrc/idmap.c",
            "csrc/idxtab.c", "csrc/lines.c", "csrc/linesums.c", "csrc/loader.c", "csrc/parser.c", "csrc/pipeline.c", "csrc/profile.c",
            "csrc/reader.c", "csrc/resolve.c", "csrc/rows.c", "csrc/strtab.c", "csrc/write.c",
            "csrc/binding/async.c", "csrc/binding/exact.c", "csrc/binding/fields.c", "csrc/binding/flame.c", "csrc/binding/handles.c",
            "csrc/binding/iterators.c", "csrc/binding/load.c", "csrc/binding/module.c",
            "csrc/binding/objects.c", "csrc/binding/profile_methods.c", "csrc/binding/rows.c", "csrc/binding/writers.c",
         },
         defines = { "_POSIX_C_SOURCE=200809L" },
         incdirs = { "csrc", "$(ZLIB_INCDIR)" },
         libdirs = { "$(ZLIB_LIBDIR)" },
         libraries = { "z", "pthread" },
      },
      callgrind = "lua/callgrind/init.lua",
      ["callgrind.annotate"] = "lua/callgrind/annotate.lua",
      ["callgrind.asm"] = "lua/callgrind/asm.lua",
      ["callgrind.asm.disassemble"] = "lua/callgrind/asm/disassemble.lua",
      ["callgrind.asm.join"] = "lua/callgrind/asm/join.lua",
      ["callgrind.asm.object"] = "lua/callgrind/asm/object.lua",
      ["callgrind.asm.ranges"] = "lua/callgrind/asm/ranges.lua",
      ["callgrind.asm.records"] = "lua/callgrind/asm/records.lua",
      ["callgrind.asm.render"] = "lua/callgrind/asm/render.lua",
      ["callgrind.asm.tools"] = "lua/callgrind/asm/tools.lua",
      ["callgrind.cli"] = "lua/callgrind/cli.lua",
      ["callgrind.command"] = "lua/callgrind/command/init.lua",
      ["callgrind.command.annotate"] = "lua/callgrind/command/annotate.lua",
      ["callgrind.command.callees"] = "lua/callgrind/command/callees.lua",
      ["callgrind.command.callers"] = "lua/callgrind/command/callers.lua",
      ["callgrind.command.calls"] = "lua/callgrind/command/calls.lua",
      ["callgrind.command.convert"] = "lua/callgrind/command/convert.lua",
      ["callgrind.command.diff"] = "lua/callgrind/command/diff.lua",
      ["callgrind.command.functions"] = "lua/callgrind/command/functions.lua",
      ["callgrind.command.graph"] = "lua/callgrind/command/graph.lua",
      ["callgrind.command.info"] = "lua/callgrind/command/info.lua",
      ["callgrind.command.json"] = "lua/callgrind/command/json.lua",
      ["callgrind.command.merge"] = "lua/callgrind/command/merge.lua",
      ["callgrind.command.options"] = "lua/callgrind/command/options.lua",
      ["callgrind.command.output"] = "lua/callgrind/command/output.lua",
      ["callgrind.command.select"] = "lua/callgrind/command/select.lua",
      ["callgrind.command.top"] = "lua/callgrind/command/top.lua",
      ["callgrind.command.write"] = "lua/callgrind/command/write.lua",
      ["callgrind.dot"] = "lua/callgrind/dot.lua",
      ["callgrind.flame"] = "lua/callgrind/flame.lua",
      ["callgrind.flame.script"] = "lua/callgrind/flame/script.lua",
      ["callgrind.flame.svg"] = "lua/callgrind/flame/svg.lua",
      ["callgrind.flame.tree"] = "lua/callgrind/flame/tree.lua",
      ["callgrind.format"] = "lua/callgrind/format.lua",
      ["callgrind.health"] = "lua/callgrind/health.lua",
      ["callgrind.names"] = "lua/callgrind/names.lua",
      ["callgrind.progress"] = "lua/callgrind/progress.lua",
      ["callgrind.query"] = "lua/callgrind/query.lua",
      ["callgrind.report"] = "lua/callgrind/report.lua",
      ["callgrind.rows"] = "lua/callgrind/rows.lua",
      ["callgrind.transform"] = "lua/callgrind/transform.lua",
      ["callgrind.webgrind"] = "lua/callgrind/webgrind.lua",
      ["callgrind.writer"] = "lua/callgrind/writer.lua",
      ["callgrind.nvim"] = "lua/callgrind/nvim/init.lua",
      ["callgrind.nvim.buffers"] = "lua/callgrind/nvim/buffers.lua",
      ["callgrind.nvim.commands"] = "lua/callgrind/nvim/commands.lua",
      ["callgrind.nvim.config"] = "lua/callgrind/nvim/config.lua",
      ["callgrind.nvim.functions"] = "lua/callgrind/nvim/functions.lua",
      ["callgrind.nvim.lists"] = "lua/callgrind/nvim/lists.lua",
      ["callgrind.nvim.loading"] = "lua/callgrind/nvim/loading.lua",
      ["callgrind.nvim.marks"] = "lua/callgrind/nvim/marks.lua",
      ["callgrind.nvim.resolve"] = "lua/callgrind/nvim/resolve.lua",
      ["callgrind.nvim.state"] = "lua/callgrind/nvim/state.lua",
      ["callgrind.nvim.watcher"] = "lua/callgrind/nvim/watcher.lua",
   },
   install = {
      bin = { callgrind = "bin/callgrind" },
   },
   copy_directories = { "examples", "plugin", "doc", "completion" },
}
test = {
   type = "command",
   command = "make test",
}
