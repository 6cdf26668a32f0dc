# callgrind: build, test and try the module with the Lua interpreters Debian packages.
# Every interpreter is named explicitly: `lua` may point at any version.

LUA          ?= lua5.4
# LUA_VERSION names the build directory (build/5.3, build/jit) and follows LUA unless given.
LUA_VERSION  ?= $(if $(filter luajit,$(LUA)),jit,$(patsubst lua%,%,$(LUA)))
LUA_INCDIR   ?= $(if $(filter jit,$(LUA_VERSION)),/usr/include/luajit-2.1,$(firstword \
                  $(wildcard /usr/include/lua$(LUA_VERSION)) /usr/include))
CC           ?= cc
CFLAGS       ?= -O2 -g
WARN         := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS     += -D_POSIX_C_SOURCE=200809L
# gzip input is inflated by ISA-L's igzip when it is installed (libisal-dev; about three times
# zlib's speed), else by zlib: GZIP_BACKEND=zlib chooses zlib. The rockspec builds with zlib.
# Decided once per run, before `deps` may install ISA-L, so that every object and link of the
# run agrees.
ifeq ($(origin GZIP_BACKEND),undefined)
GZIP_BACKEND := $(if $(wildcard /usr/include/isa-l/igzip_lib.h),isal,zlib)
endif
export GZIP_BACKEND
GZIP_LIBS    := $(if $(filter isal,$(GZIP_BACKEND)),-lisal,-lz)
CPPFLAGS     += $(if $(filter isal,$(GZIP_BACKEND)),-DCG_WITH_ISAL)
LDLIBS       := $(GZIP_LIBS) -pthread

BUILD        := build/$(LUA_VERSION)
CORE_SRCS    := $(wildcard csrc/*.c)
CORE_OBJS    := $(patsubst csrc/%.c,$(BUILD)/obj/%.o,$(CORE_SRCS))
BINDING_SRCS := $(wildcard csrc/binding/*.c)
BINDING_OBJS := $(patsubst csrc/%.c,$(BUILD)/obj/%.o,$(BINDING_SRCS))
MODULE       := $(BUILD)/callgrind/core.so
CORE_LIB     := $(BUILD)/libcallgrind.a
C_TESTS      := $(patsubst spec/c/%.c,$(BUILD)/ctest/%,$(wildcard spec/c/test_*.c))

BUSTED       := $(LUA) /usr/bin/busted
LUA_ENV      := LUA_PATH="lua/?.lua;lua/?/init.lua;spec/?.lua;;" LUA_CPATH="$(BUILD)/?.so;;"
# The `callgrind` command as LuaRocks installs it (see `make rock`), for the specs that run it.
ROCK_TREE    := $(BUILD)/rock
COMMAND_ENV  := CALLGRIND_COMMAND="$(abspath $(ROCK_TREE))/bin/callgrind"

.PHONY: all deps test test-c test-lua test-all modules jit-module nvim demo clean format install rock

all: $(MODULE)

deps:
	@sh .ci/deps

# No -fvisibility here: the headers hide what they declare (#pragma GCC visibility), so that
# every build, LuaRocks' included, exports luaopen_callgrind_core alone; the module's link
# checks it (EXPORTS_CHECK), so a declaration outside those pragmas fails every build.
$(BUILD)/obj/%.o: csrc/%.c $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -c $< -o $@

# inflate.o is built again when the gzip backend changes
GZIP_STAMP   := $(BUILD)/gzip-backend-$(GZIP_BACKEND)
$(GZIP_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/gzip-backend-*
	@touch $@
$(BUILD)/obj/inflate.o: $(GZIP_STAMP)

$(CORE_LIB): $(CORE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/obj/binding/%.o: csrc/binding/%.c $(wildcard csrc/*.h csrc/binding/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -pthread -fPIC -Icsrc -I$(LUA_INCDIR) -c $< -o $@

# The dynamic symbols a module defines besides luaopen_callgrind_core (sanitizers' own aside).
EXPORTS_CHECK = leaked=$$(nm -D --defined-only $(1) | awk '{print $$3}' | \
	    grep -v -e '^luaopen_callgrind_core$$' -e '^__' -e '^_init$$' -e '^_fini$$' || true); \
	if [ -n "$$leaked" ]; then \
	    echo "$(1) exports more than luaopen_callgrind_core:" $$leaked; \
	    echo "declare them in a header, between its pragmas GCC visibility push(hidden) and pop"; \
	    rm -f $(1); exit 1; \
	fi

$(MODULE): $(BINDING_OBJS) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDLIBS)
	@$(call EXPORTS_CHECK,$@)

$(BUILD)/ctest/%: spec/c/%.c $(CORE_LIB) spec/c/ctest.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -Icsrc -o $@ $< $(CORE_LIB) $(LDLIBS) -lz

# `make test` runs the C tests once and the busted suite on every Lua interpreter installed
# (LUAS names them; CI names all five so that a missing one fails); `make test-lua` runs the
# suite on $(LUA) only; `make modules` builds the module for each. The Neovim specs need the
# LuaJIT module, built whenever LuaJIT's headers are there.
ALL_LUAS     := lua5.1 lua5.2 lua5.3 lua5.4 luajit
LUAS         ?= $(foreach lua,$(ALL_LUAS),$(if $(shell command -v $(lua)),$(lua)))
JIT_INCDIR   := /usr/include/luajit-2.1
JIT_MODULE   := build/jit/callgrind/core.so

test: deps test-c test-all

test-c: $(C_TESTS)
	@for t in $(C_TESTS); do echo "== $$t"; $$t || exit 1; done

test-lua: $(MODULE) $(if $(wildcard $(JIT_INCDIR)/lua.h),jit-module) rock
	$(LUA_ENV) $(COMMAND_ENV) $(BUSTED) --output=utfTerminal spec

# Runs `make GOAL` once per interpreter of LUAS, with its version and headers.
define each_lua
	@set -e; for lua in $(LUAS); do \
	    echo "== $(1) on $$lua"; \
	    $(MAKE) --no-print-directory LUA=$$lua $(1); \
	done
endef

test-all:
	$(call each_lua,test-lua)

# The module for every interpreter of LUAS, each in build/VERSION/.
modules:
	$(call each_lua,all)

# The module for LuaJIT, which Neovim embeds; `make nvim` puts it where Neovim's runtimepath
# loader finds it (lua/callgrind/core.so), for using the plugin from a checkout.
jit-module:
	@$(MAKE) --no-print-directory LUA=luajit CFLAGS="-O2 -g" BUILD=build/jit all

nvim: jit-module
	cp $(JIT_MODULE) lua/callgrind/core.so

# The plugin's specs on today's Neovim (Debian 13's), in a Debian 13 root made once with
# debootstrap under build/trixie and reused (see .ci/nvim-current; needs root and, the first
# time, the Debian mirror).
.PHONY: test-nvim-current
test-nvim-current:
	sh .ci/nvim-current

# The main job on the bundled sample: the `callgrind` command as LuaRocks installs it (into
# $(BUILD)/rock, nothing outside the checkout), printing callgrind_annotate's report.
demo: deps rock
	$(ROCK_TREE)/bin/callgrind annotate examples/data/sample.callgrind.gz

format:
	clang-format -i csrc/*.c csrc/*.h csrc/binding/*.c csrc/binding/*.h spec/c/*.c spec/c/*.h

# LuaRocks and the rock. LuaRocks knows LuaJIT as Lua 5.1; given a prefix that holds LuaJIT
# alone (bin/luajit and include/luajit-2.1, links made in $(BUILD)/luajit-prefix), it builds
# with LuaJIT's headers and installs the `callgrind` command to run on LuaJIT. Debian's
# lua-argparse lies outside every LuaRocks tree, where LuaRocks cannot see it: when the
# interpreter finds argparse, a configuration naming it in `rocks_provided` (and nothing else:
# it stands in for the user's own LuaRocks configuration) spares LuaRocks a download it cannot
# make offline; otherwise LuaRocks installs argparse from its repository.
JIT_PREFIX   := $(BUILD)/luajit-prefix
ROCKS_LUA    := --lua-version $(if $(filter jit,$(LUA_VERSION)),5.1 --lua-dir=$(abspath $(JIT_PREFIX)),$(LUA_VERSION))
ARGPARSE     = $(shell $(LUA) -e 'io.write(require("argparse").version)' 2>/dev/null)
LUAROCKS     = $(if $(ARGPARSE),LUAROCKS_CONFIG="$(abspath $(BUILD))/luarocks-config.lua") luarocks $(ROCKS_LUA)
# LuaJIT's wrapper runs the real luajit, not the link in $(JIT_PREFIX). With ISA-L installed,
# the rock inflates gzip input with it too (the rockspec alone builds with zlib, found everywhere).
ISAL_ROCK    := CFLAGS="-O2 -fPIC -DCG_WITH_ISAL" LIBFLAG="-shared -Wl,--no-as-needed -lisal"
ROCKS_VARS   = $(if $(filter jit,$(LUA_VERSION)),LUA_BINDIR="$(dir $(shell command -v luajit))") \
               $(if $(filter isal,$(GZIP_BACKEND)),$(ISAL_ROCK))
ROCK_FILES   := callgrind-scm-1.rockspec bin/callgrind $(wildcard lua/callgrind/*.lua lua/callgrind/*/*.lua \
                  csrc/*.[ch] csrc/binding/*.[ch] doc/* man/* completion/*)
PREFIX       ?= /usr/local

# Writes the LuaRocks configuration and LuaJIT's prefix that $(LUAROCKS) uses.
define luarocks_setup
	@mkdir -p $(BUILD)
	$(if $(ARGPARSE),@echo 'rocks_provided = { argparse = "$(ARGPARSE)-1" }' > $(BUILD)/luarocks-config.lua)
	$(if $(filter jit,$(LUA_VERSION)),@mkdir -p $(JIT_PREFIX)/bin $(JIT_PREFIX)/include && \
	    ln -sfn $$(command -v luajit) $(JIT_PREFIX)/bin/luajit && ln -sfn $(JIT_INCDIR) $(JIT_PREFIX)/include/luajit-2.1)
endef

# `make install` installs the rock with LuaRocks (the module and the `callgrind` command), then
# the man page and the bash completion under PREFIX (default /usr/local, LuaRocks' own system
# tree), where man and bash-completion look: LuaRocks installs neither. ROCKS_FLAGS go to
# LuaRocks (`make install ROCKS_FLAGS=--local PREFIX=$$HOME/.local`).
install:
	$(luarocks_setup)
	$(LUAROCKS) make $(ROCKS_FLAGS) callgrind-scm-1.rockspec $(ROCKS_VARS)
	install -D -m 644 man/callgrind.1 $(DESTDIR)$(PREFIX)/share/man/man1/callgrind.1
	install -D -m 644 completion/callgrind.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/callgrind

# The rock installed into a tree of its own, $(BUILD)/rock, from a copy of the sources (so that
# LuaRocks leaves no objects in the checkout): the specs run $(BUILD)/rock/bin/callgrind.
rock: $(ROCK_TREE)/bin/callgrind

$(ROCK_TREE)/bin/callgrind: $(ROCK_FILES)
	$(luarocks_setup)
	@rm -rf $(BUILD)/rock-src $(ROCK_TREE)
	@mkdir -p $(BUILD)/rock-src
	cp -R callgrind-scm-1.rockspec bin lua csrc doc man completion examples plugin $(BUILD)/rock-src/
	cd $(BUILD)/rock-src && $(LUAROCKS) make --tree "$(abspath $(ROCK_TREE))" callgrind-scm-1.rockspec $(ROCKS_VARS) >../rock.log 2>&1 \
	    || { cat ../rock.log; exit 1; }
	@rm -rf $(BUILD)/rock-src

clean:
	rm -rf build lua/callgrind/core.so

# PNG screenshots of the report page (callgrind.html) and of a flame graph of the bundled
# sample, taken by headless chromium, into docs/ (the README shows them).
.PHONY: screenshots
screenshots: $(MODULE)
	$(LUA_ENV) $(LUA) docs/screenshots.lua

# Benchmarks (CI does not run them): `make bench` measures every data file and writes
# bench/results.md; `make bench BENCH_QUICK=1` only those of 100 MB and less; BENCH_BIG=1 adds
# 2 GB. The reports table runs the `callgrind` command as `make rock` installs it.
# The data files are made once into bench/data/ (see bench/README.md).
BENCH_BIN    := $(BUILD)/bench
BENCH_PROGS  := $(BENCH_BIN)/gen $(BENCH_BIN)/driver $(BENCH_BIN)/tokenize $(BENCH_BIN)/workload \
                $(BENCH_BIN)/roundtrip
# the thread counts the loader is also measured with (bench/README.md)
BENCH_THREADS ?= 2

.PHONY: bench bench-flavours bench-html

bench: deps $(MODULE) $(BENCH_PROGS) rock
	$(LUA_ENV) BENCH_BIN=$(BENCH_BIN) BENCH_QUICK=$(BENCH_QUICK) BENCH_BIG=$(BENCH_BIG) \
	    BENCH_THREADS="$(BENCH_THREADS)" BENCH_LOAD_ONLY=$(BENCH_LOAD_ONLY) BENCH_RUNS=$(BENCH_RUNS) \
	    BENCH_LUA=$(LUA) BENCH_COMMAND="$(abspath $(ROCK_TREE))/bin/callgrind" $(LUA) bench/run.lua

# The Lua side on every interpreter of LUAS, on the data files `make bench` made:
# bench/flavours.md.
bench-flavours: deps modules
	BENCH_LUAS="$(LUAS)" $(LUA) bench/flavours.lua

# The report page of the 100 MB profile of 50,000 functions (bench/data/single-100.callgrind,
# made by bench/gen.c): time to write it, its size, and the time headless chromium takes to
# open and draw it; writes bench/html.md.
bench-html: deps $(MODULE) $(BENCH_BIN)/gen
	$(LUA_ENV) BENCH_BIN=$(BENCH_BIN) $(LUA) bench/html.lua

$(BENCH_BIN)/driver: bench/driver.c $(CORE_LIB) csrc/callgrind.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -Icsrc -o $@ $< $(CORE_LIB) $(LDLIBS)

# The tokenizer drives the core's reader (reader.h) with a line sink of its own: no parser, no builder.
$(BENCH_BIN)/tokenize: bench/tokenize.c $(CORE_LIB) $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -Icsrc -o $@ $< $(CORE_LIB) $(LDLIBS)

# How far apart two cores are (the round trip of a cache line), printed beside the thread figures.
$(BENCH_BIN)/roundtrip: bench/roundtrip.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -pthread -o $@ $<

$(BENCH_BIN)/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -o $@ $<

# Robustness. `make sanitize` builds the library, the C tests and the Lua module with
# AddressSanitizer and UndefinedBehaviorSanitizer and runs the whole suite against them;
# `make memcheck` runs the C tests and the specs under valgrind's memcheck; `make fuzz` runs the
# libFuzzer harness for FUZZ_SECONDS (see fuzz/README.md).
SAN_FLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_BUILD    := build/sanitize
SAN_PRELOAD  := $(shell $(CC) -print-file-name=libasan.so) $(shell $(CC) -print-file-name=libubsan.so)
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
TESTDATA     := spec/data/testdata
FUZZ_CORPORA := $(TESTDATA)/valgrind $(TESTDATA)/thirdparty/gprof2dot $(TESTDATA)/thirdparty/kcachegrind \
                  $(TESTDATA)/thirdparty/pprof $(TESTDATA)/thirdparty/webgrind-xdebugtoolkit
MEMCHECK     := valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
                  --errors-for-leak-kinds=definite,indirect

.PHONY: sanitize memcheck fuzz tsan

sanitize: deps jit-module
	$(MAKE) BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDLIBS="$(GZIP_LIBS) -pthread -fsanitize=address,undefined" test-c
	$(MAKE) BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDLIBS="$(GZIP_LIBS) -pthread -fsanitize=address,undefined" \
	    $(SAN_BUILD)/callgrind/core.so
	CALLGRIND_SPEC_SANITIZED=1 LD_PRELOAD="$(SAN_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    LUA_PATH="lua/?.lua;lua/?/init.lua;spec/?.lua;;" LUA_CPATH="$(SAN_BUILD)/?.so;;" \
	    $(BUSTED) --output=utfTerminal spec

# ThreadSanitizer on the module's threads, those of load_async and of threaded loads: the module
# built with -fsanitize=thread and the specs of background and threaded loads run against it
# (halt on the first report).
TSAN_BUILD   := build/tsan
tsan: deps
	$(MAKE) BUILD=$(TSAN_BUILD) CFLAGS="-O1 -g -fsanitize=thread" LDLIBS="$(GZIP_LIBS) -pthread -fsanitize=thread" \
	    $(TSAN_BUILD)/callgrind/core.so
	CALLGRIND_SPEC_TSAN=1 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
	    LD_PRELOAD="$(shell $(CC) -print-file-name=libtsan.so)" \
	    LUA_PATH="lua/?.lua;lua/?/init.lua;spec/?.lua;;" LUA_CPATH="$(TSAN_BUILD)/?.so;;" \
	    $(BUSTED) --output=utfTerminal spec/async_spec.lua spec/parallel_spec.lua

memcheck: deps jit-module $(C_TESTS) $(MODULE)
	@for t in $(C_TESTS); do echo "== memcheck $$t"; $(MEMCHECK) $$t || exit 1; done
	CALLGRIND_SPEC_NO_VALGRIND=1 CALLGRIND_SPEC_SANITIZED=1 $(LUA_ENV) $(MEMCHECK) $(BUSTED) --output=utfTerminal spec

fuzz: $(FUZZ_BUILD)/fuzz_load
	@mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/artifacts
	$(FUZZ_BUILD)/fuzz_load -max_total_time=$(FUZZ_SECONDS) -dict=fuzz/fuzz.dict -max_len=16384 \
	    -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/artifacts/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus fuzz/seeds $(FUZZ_CORPORA)

$(FUZZ_BUILD)/fuzz_load: fuzz/fuzz_load.c $(CORE_SRCS) $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -Icsrc -o $@ fuzz/fuzz_load.c $(CORE_SRCS) $(GZIP_LIBS)
