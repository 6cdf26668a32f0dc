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
LDLIBS       := -lz

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

.PHONY: all deps test test-c test-lua test-all modules jit-module nvim demo clean format install

all: $(MODULE)

deps:
	@sh .ci/deps

$(BUILD)/obj/%.o: csrc/%.c $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(CORE_LIB): $(CORE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/obj/binding/%.o: csrc/binding/%.c $(wildcard csrc/*.h csrc/binding/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -Icsrc -I$(LUA_INCDIR) -c $< -o $@

$(MODULE): $(BINDING_OBJS) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDLIBS)

$(BUILD)/ctest/%: spec/c/%.c $(CORE_LIB) spec/c/ctest.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -Icsrc -o $@ $< $(CORE_LIB) $(LDLIBS)

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

test-lua: $(MODULE) $(if $(wildcard $(JIT_INCDIR)/lua.h),jit-module)
	$(LUA_ENV) $(BUSTED) --output=utfTerminal spec

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

demo: deps $(MODULE)
	$(LUA_ENV) $(LUA) examples/top.lua examples/data/sample.callgrind.gz

format:
	clang-format -i csrc/*.c csrc/*.h csrc/binding/*.c csrc/binding/*.h spec/c/*.c spec/c/*.h

# LuaRocks knows LuaJIT as Lua 5.1 (whose tree LuaJIT searches), with LuaJIT's headers.
install:
	luarocks --lua-version $(if $(filter jit,$(LUA_VERSION)),5.1,$(LUA_VERSION)) \
	    make callgrind-scm-1.rockspec $(if $(filter jit,$(LUA_VERSION)),LUA_INCDIR=$(JIT_INCDIR))

clean:
	rm -rf build lua/callgrind/core.so

# Benchmarks (CI does not run them): `make bench` measures every data file and writes
# bench/results.md; `make bench BENCH_QUICK=1` only the 100 MB ones; BENCH_BIG=1 adds 2 GB.
# The data files are made once into bench/data/ (see bench/README.md).
BENCH_BIN    := $(BUILD)/bench
BENCH_PROGS  := $(BENCH_BIN)/gen $(BENCH_BIN)/driver $(BENCH_BIN)/workload

.PHONY: bench bench-flavours

bench: deps $(MODULE) $(BENCH_PROGS)
	$(LUA_ENV) BENCH_BIN=$(BENCH_BIN) BENCH_QUICK=$(BENCH_QUICK) BENCH_BIG=$(BENCH_BIG) \
	    BENCH_LUA=$(LUA) $(LUA) bench/run.lua

# The Lua side on every interpreter of LUAS, on the data files `make bench` made:
# bench/flavours.md.
bench-flavours: deps modules
	BENCH_LUAS="$(LUAS)" $(LUA) bench/flavours.lua

$(BENCH_BIN)/driver: bench/driver.c $(CORE_LIB) csrc/callgrind.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -Icsrc -o $@ $< $(CORE_LIB) $(LDLIBS)

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
FUZZ_CORPORA := $(wildcard ../shared/testdata/valgrind ../shared/testdata/thirdparty/gprof2dot \
                  ../shared/testdata/thirdparty/kcachegrind ../shared/testdata/thirdparty/pprof \
                  ../shared/testdata/thirdparty/webgrind-xdebugtoolkit)
MEMCHECK     := valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
                  --errors-for-leak-kinds=definite,indirect

.PHONY: sanitize memcheck fuzz

sanitize: deps jit-module
	$(MAKE) BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDLIBS="-lz -fsanitize=address,undefined" test-c
	$(MAKE) BUILD=$(SAN_BUILD) CFLAGS="$(SAN_FLAGS)" LDLIBS="-lz -fsanitize=address,undefined" \
	    $(SAN_BUILD)/callgrind/core.so
	LD_PRELOAD="$(SAN_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    LUA_PATH="lua/?.lua;lua/?/init.lua;spec/?.lua;;" LUA_CPATH="$(SAN_BUILD)/?.so;;" \
	    $(BUSTED) --output=utfTerminal spec

memcheck: deps jit-module $(C_TESTS) $(MODULE)
	@for t in $(C_TESTS); do echo "== memcheck $$t"; $(MEMCHECK) $$t || exit 1; done
	CALLGRIND_SPEC_NO_VALGRIND=1 $(LUA_ENV) $(MEMCHECK) $(BUSTED) --output=utfTerminal spec

fuzz: $(FUZZ_BUILD)/fuzz_load
	@mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/artifacts
	$(FUZZ_BUILD)/fuzz_load -max_total_time=$(FUZZ_SECONDS) -dict=fuzz/fuzz.dict -max_len=16384 \
	    -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/artifacts/ -print_final_stats=1 \
	    $(FUZZ_BUILD)/corpus fuzz/seeds $(FUZZ_CORPORA)

$(FUZZ_BUILD)/fuzz_load: fuzz/fuzz_load.c $(CORE_SRCS) $(wildcard csrc/*.h)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -Icsrc -o $@ fuzz/fuzz_load.c $(CORE_SRCS) -lz
