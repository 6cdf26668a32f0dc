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
}
external_dependencies = {
   ZLIB = { header = "zlib.h", library = "z" },
}
build = {
   type = "builtin",
   modules = {
      ["callgrind.core"] = {
         sources = {
            "csrc/analysis.c", "csrc/arena.c", "csrc/builder.c", "csrc/combine.c", "csrc/events.c",
            "csrc/idmap.c", "csrc/idxtab.c", "csrc/lines.c", "csrc/loader.c", "csrc/parser.c",
            "csrc/profile.c", "csrc/reader.c", "csrc/resolve.c", "csrc/strtab.c",
            "csrc/binding/exact.c", "csrc/binding/handles.c", "csrc/binding/iterators.c",
            "csrc/binding/load.c", "csrc/binding/module.c", "csrc/binding/objects.c",
            "csrc/binding/profile_methods.c",
         },
         defines = { "_POSIX_C_SOURCE=200809L" },
         incdirs = { "csrc", "$(ZLIB_INCDIR)" },
         libdirs = { "$(ZLIB_LIBDIR)" },
         libraries = { "z" },
      },
      callgrind = "lua/callgrind/init.lua",
      ["callgrind.annotate"] = "lua/callgrind/annotate.lua",
      ["callgrind.dot"] = "lua/callgrind/dot.lua",
      ["callgrind.format"] = "lua/callgrind/format.lua",
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
      ["callgrind.nvim.marks"] = "lua/callgrind/nvim/marks.lua",
      ["callgrind.nvim.resolve"] = "lua/callgrind/nvim/resolve.lua",
      ["callgrind.nvim.state"] = "lua/callgrind/nvim/state.lua",
      ["callgrind.nvim.watcher"] = "lua/callgrind/nvim/watcher.lua",
   },
   copy_directories = { "examples", "plugin", "doc" },
}
test = {
   type = "command",
   command = "make test",
}
