/*
 * gen.c - writes large profiles in the Callgrind format, shaped like the output of real writers,
 * for the benchmarks. The same arguments always give the same bytes.
 *
 *   gen KIND SIZE_MB OUT
 *
 * KIND   instr   callgrind --dump-instr=yes --collect-jumps=yes on a big C++ program:
 *                `positions: instr line`, `events: Ir`, 40 functions per MB over 50 objects
 *        line13  callgrind --cache-sim=yes --branch-sim=yes: `positions: line`, 13 events,
 *                20 functions per MB, no jumps
 *        single  callgrind --dump-instr=yes --collect-jumps=yes without --separate-callers: like
 *                instr, but every function in one block, each instruction one record; 50,000
 *                functions up to 100 MB, 500 per MB beyond, their size following the file's
 *        xdebug  Xdebug 3's profiler on a long PHP job: one block per invocation
 * SIZE_MB        decimal megabytes (10^6 bytes); the body stops at the first block past it
 *                (single: the functions' sizes are drawn to reach it, within a few percent)
 *
 * The callgrind kinds carry `summary:` in the header, before the costs it sums: the body is
 * written first, after room left for the header, and moved down once the header is known.
 *
 * Every random choice comes from one integer PRNG (splitmix64) so the output does not depend on
 * the platform's floating point or libc. Function bodies are drawn from a generator seeded by
 * the function's index, so a function is the same code in every block that shows it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x5eed0fca11f00dULL

/* single: bytes of file per function (its name, its block's first lines) and per instruction
 * record with its share of jumps, calls and inlining (in tenths), measured on the output; they
 * set the functions' sizes */
#define SINGLE_BYTES_PER_FN 127
#define SINGLE_DECIBYTES_PER_INSTR 103

/* ---- random numbers ---------------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t below(rng *r, uint32_t n) {
    return (uint32_t)(((rnd(r) >> 32) * (uint64_t)n) >> 32);
}

static int chance(rng *r, uint32_t permille) {
    return below(r, 1000) < permille;
}

/* In [0, n), most often near 0 (u^3 of a uniform u). */
static uint32_t skewed(rng *r, uint32_t n) {
    uint64_t u = rnd(r) >> 43; /* 21 bits */
    return (uint32_t)(((((u * u) >> 21) * u) >> 21) * n >> 21);
}

static uint64_t mix(uint64_t a, uint64_t b) {
    rng r = {a * 0x9e3779b97f4a7c15ULL ^ b};
    return rnd(&r);
}

/* ---- output ------------------------------------------------------------------------------ */

enum { OUT_BUF = 4 << 20, LINE_MAX_BYTES = 4096 };

/* A buffered writer. */
typedef struct out {
    int fd;
    char *buf;
    size_t len;
    uint64_t flushed;
} out;

static void die(const char *what) {
    fprintf(stderr, "gen: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void write_at(int fd, const char *buf, size_t n, off_t at) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, buf + done, n - done, at + (off_t)done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) die("write");
        done += (size_t)w;
    }
}

/* Writes the buffer at the end of what was flushed before. */
static void out_flush(out *o) {
    write_at(o->fd, o->buf, o->len, (off_t)o->flushed);
    o->flushed += o->len;
    o->len = 0;
}

static uint64_t out_pos(const out *o) {
    return o->flushed + o->len;
}

/* Makes sure one line (at most LINE_MAX_BYTES) fits in the buffer. */
static void need(out *o) {
    if (o->len + LINE_MAX_BYTES > OUT_BUF) out_flush(o);
}

static void put(out *o, const char *s, size_t n) {
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

#define PUT(o, lit) put(o, lit, sizeof(lit) - 1)

static void putc_(out *o, char c) {
    o->buf[o->len++] = c;
}

static void puts_(out *o, const char *s) {
    put(o, s, strlen(s));
}

static const char two_digits[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243"
    "4445464748495051525354555657585960616263646566676869707172737475767778798081828384858687"
    "888990919293949596979899";

static void put_u(out *o, uint64_t v) {
    if (v < 10) {
        o->buf[o->len++] = (char)('0' + v);
        return;
    }
    int n = 1;
    for (uint64_t bound = 10; n < 20 && v >= bound; bound *= 10) n++;
    char *end = o->buf + o->len + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--end = two_digits[d + 1];
        *--end = two_digits[d];
    }
    if (v >= 10) {
        *--end = two_digits[v * 2 + 1];
        *--end = two_digits[v * 2];
    } else {
        *--end = (char)('0' + v);
    }
    o->len += (size_t)n;
}

static void put_hex(out *o, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do tmp[n++] = digits[v & 15];
    while ((v >>= 4) != 0);
    PUT(o, "0x");
    while (n) putc_(o, tmp[--n]);
}

/* ---- strings ----------------------------------------------------------------------------- */

/* Names live as long as the program: a bump allocator over large chunks. */
static char *pool_at;
static size_t pool_left;

static const char *keep(const char *s) {
    size_t n = strlen(s) + 1;
    if (n > pool_left) {
        pool_left = 1 << 20;
        if (!(pool_at = malloc(pool_left))) die("malloc");
    }
    char *p = pool_at;
    memcpy(p, s, n);
    pool_at += n;
    pool_left -= n;
    return p;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) die("calloc");
    return p;
}

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---- vocabularies for C++ programs ------------------------------------------------------- */

/* The vocabularies and the objects are laid out by hand, in columns. */
/* clang-format off */

static const char *const cxx_classes[] = {
    "Connection",    "ConnectionPool", "HttpParser",      "RequestHandler", "ResponseWriter",
    "BufferPool",    "Arena",          "Scheduler",       "TaskQueue",      "WorkerThread",
    "Session",       "SessionManager", "JsonValue",       "JsonParser",     "JsonWriter",
    "QueryPlanner",  "QueryExecutor",  "BTreeIndex",      "BTreeNode",      "PageCache",
    "WriteAheadLog", "Compactor",      "LruCache",        "BloomFilter",    "Histogram",
    "Counter",       "Registry",       "TokenValidator",  "Sha256",         "Base64Codec",
    "Router",        "RouteMatcher",   "TimerWheel",      "EventLoop",      "Epoller",
    "Socket",        "TlsStream",      "StringPiece",     "Status",         "Logger",
    "ConfigLoader",  "RateLimiter",    "Tokenizer",       "Lexer",          "Parser",
    "AstNode",       "TypeChecker",    "Interpreter",     "Frame",          "Collector",
    "Mesh",          "Texture",        "ShaderProgram",   "RigidBody",      "CollisionWorld",
    "Snapshot",      "Manifest",       "BlockBuilder",    "BlockReader",    "FilterPolicy",
    "Comparator",    "Iterator",       "MergingIterator", "VersionSet",     "MemTable",
    "SkipList",      "Channel",        "ServerContext",   "CompletionQueue", "Metadata",
    "Descriptor",    "Reflection",     "MessageLite",     "CodedInputStream", "Allocator",
    "ThreadPool",    "Future",         "Promise",         "Executor",       "StrandImpl"};

static const char *const cxx_methods[] = {
    "parse",         "serialize",       "operator()",     "operator<<",      "operator==",
    "operator[]",    "operator=",       "operator bool",  "operator->",      "operator<",
    "reset",         "reserve",         "insert",         "find",            "lookup",
    "emplace_back",  "push_back",       "_M_realloc_insert", "_M_emplace_hint_unique",
    "_M_get_insert_unique_pos", "handle_read", "handle_write", "on_complete", "dispatch",
    "run_once",      "poll",            "flush",          "compact",         "split",
    "merge",         "hash",            "compare",        "visit",           "evaluate",
    "resolve",       "allocate",        "deallocate",     "grow",            "shrink_to_fit",
    "try_lock",      "unlock",          "notify_all",     "wait_for",        "encode",
    "decode",        "update",          "apply",          "commit",          "rollback",
    "checkpoint",    "scan",            "seek",           "next",            "prev",
    "valid",         "size",            "clear",          "swap",            "copy_from",
    "move_to",       "validate",        "normalize",      "tokenize",        "emit",
    "load",          "store",           "get",            "set",             "erase",
    "rehash",        "append",          "consume",        "refill",          "drain",
    "schedule",      "cancel",          "post",           "invoke",          "~",
    ""};

static const char *const cxx_args[] = {
    "()",
    "() const",
    "(int)",
    "(unsigned long)",
    "(char const*, unsigned long)",
    "(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
    "(std::basic_string_view<char, std::char_traits<char> >)",
    "(void*, unsigned long) const",
    "(std::unique_ptr<Task, std::default_delete<Task> >&&)",
    "(std::function<void (Status const&)>)",
    "(long, std::chrono::duration<long, std::ratio<1l, 1000000000l> >)",
    "(unsigned char const*, unsigned char const*, unsigned int*)",
    "(Slice const&, Slice const&) const",
    "(std::vector<int, std::allocator<int> > const&)",
    "(std::shared_ptr<Connection>)",
    "(double, double)",
    "(unsigned int, bool)",
    "(std::pair<unsigned long, unsigned long>&)",
    "(std::initializer_list<std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, "
    "std::allocator<char> > const, JsonValue> >)",
    "(Iterator*, Iterator*)",
    "(std::error_code&)",
    "(long*, long*, __gnu_cxx::__ops::_Iter_less_iter)",
    "(std::_Rb_tree_node_base*, std::_Rb_tree_node_base*)",
    "(int, char**)"};

static const char *const cxx_templates[] = {
    "",
    "",
    "",
    "",
    "<int>",
    "<unsigned long>",
    "<char>",
    "<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >",
    "<JsonValue*>",
    "<std::pair<int const, Session*> >",
    "<16ul>",
    "<true>",
    "<Connection, std::default_delete<Connection> >",
    "<std::vector<unsigned char, std::allocator<unsigned char> > >",
    "<(anonymous namespace)::Entry, 64ul>"};

static const char *const cxx_suffixes[] = {"", "", "", "", "", "", "", "", "", "", "", "",
                                           " [clone .constprop.0]", " [clone .isra.0]",
                                           " [clone .cold]", "'2"};

/* Sub-namespaces under an object's own namespace. */
static const char *const cxx_subspaces[] = {
    "",        "detail",   "internal", "(anonymous namespace)", "impl",  "v2",
    "io",      "codec",    "wire",     "table",                 "util",  "sync",
    "mem",     "proto",    "plan",     "exec",                  "cache", "stats"};

static const char *const source_dirs[] = {
    "net", "net/http", "db", "db/btree", "core", "util", "rpc", "storage", "sched", "json",
    "metrics", "auth", "io", "codec", "cache", "plan", "exec", "config"};

static const char *const source_stems[] = {
    "connection", "pool", "parser", "handler", "writer", "buffer", "arena", "scheduler",
    "queue", "worker", "session", "value", "planner", "executor", "index", "node", "page_cache",
    "wal", "compactor", "lru", "bloom", "histogram", "registry", "token", "sha256", "base64",
    "router", "matcher", "timer", "event_loop", "epoll", "socket", "tls", "status", "logging",
    "config", "limiter", "lexer", "ast", "types", "interp", "frame", "gc", "snapshot",
    "manifest", "block", "filter", "comparator", "iterator", "version_set", "memtable",
    "skiplist", "channel", "context", "metadata", "descriptor", "reflection", "stream",
    "allocator", "thread_pool", "future", "strand", "crc32c", "varint", "coding", "env"};

static const char *const stl_headers[] = {
    "/usr/include/c++/12/bits/stl_vector.h",    "/usr/include/c++/12/bits/stl_tree.h",
    "/usr/include/c++/12/bits/basic_string.h",  "/usr/include/c++/12/bits/basic_string.tcc",
    "/usr/include/c++/12/bits/stl_algo.h",      "/usr/include/c++/12/bits/stl_algobase.h",
    "/usr/include/c++/12/bits/stl_heap.h",      "/usr/include/c++/12/bits/stl_iterator.h",
    "/usr/include/c++/12/bits/hashtable.h",     "/usr/include/c++/12/bits/hashtable_policy.h",
    "/usr/include/c++/12/bits/unique_ptr.h",    "/usr/include/c++/12/bits/shared_ptr_base.h",
    "/usr/include/c++/12/bits/char_traits.h",   "/usr/include/c++/12/bits/move.h",
    "/usr/include/c++/12/bits/new_allocator.h", "/usr/include/c++/12/bits/alloc_traits.h",
    "/usr/include/c++/12/bits/std_function.h",  "/usr/include/c++/12/bits/stl_pair.h",
    "/usr/include/c++/12/bits/invoke.h",        "/usr/include/c++/12/bits/atomic_base.h",
    "/usr/include/c++/12/bits/stl_deque.h",     "/usr/include/c++/12/bits/stl_list.h",
    "/usr/include/c++/12/bits/ostream.tcc",     "/usr/include/c++/12/bits/locale_facets.h",
    "/usr/include/c++/12/bits/chrono.h",        "/usr/include/c++/12/bits/std_mutex.h",
    "/usr/include/c++/12/ext/atomicity.h",      "/usr/include/c++/12/ext/aligned_buffer.h",
    "/usr/include/c++/12/string_view",          "/usr/include/c++/12/optional",
    "/usr/include/c++/12/variant",              "/usr/include/c++/12/tuple",
    "/usr/include/c++/12/ostream",              "/usr/include/c++/12/sstream",
    "/usr/include/c++/12/streambuf",            "/usr/include/c++/12/istream",
    "/usr/include/c++/12/array",                "/usr/include/c++/12/functional",
    "/usr/include/x86_64-linux-gnu/bits/string_fortified.h",
    "/usr/include/x86_64-linux-gnu/bits/stdio2.h"};

static const char *const glibc_files[] = {
    "./malloc/./malloc/malloc.c",
    "./malloc/./malloc/arena.c",
    "./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S",
    "./string/../sysdeps/x86_64/multiarch/memset-vec-unaligned-erms.S",
    "./string/../sysdeps/x86_64/multiarch/strlen-avx2.S",
    "./string/../sysdeps/x86_64/multiarch/memcmp-avx2-movbe.S",
    "./string/../sysdeps/x86_64/multiarch/strchr-avx2.S",
    "./stdio-common/./stdio-common/vfprintf-internal.c",
    "./libio/./libio/fileops.c",
    "./libio/./libio/genops.c",
    "./nptl/./nptl/pthread_mutex_lock.c",
    "./nptl/./nptl/pthread_mutex_unlock.c",
    "./stdlib/./stdlib/msort.c",
    "./stdlib/./stdlib/qsort.c",
    "./time/../sysdeps/unix/sysv/linux/clock_gettime.c",
    "./misc/../sysdeps/unix/sysv/linux/x86_64/syscall.S",
    "./elf/./elf/dl-lookup.c",
    "./elf/../sysdeps/x86_64/dl-machine.h",
    "./elf/./elf/dl-runtime.c",
    "./elf/../sysdeps/x86_64/dl-trampoline.h",
    "./math/../sysdeps/ieee754/dbl-64/e_exp.c",
    "./math/../sysdeps/ieee754/dbl-64/e_log.c",
    "./math/../sysdeps/ieee754/dbl-64/s_sin.c",
    "./math/../sysdeps/ieee754/dbl-64/e_pow.c"};

static const char *const glibc_names[] = {
    "malloc", "free", "_int_malloc", "_int_free", "realloc", "calloc", "malloc_consolidate",
    "unlink_chunk.constprop.0", "__memmove_avx_unaligned_erms", "__memset_avx2_unaligned_erms",
    "__strlen_avx2", "__memcmp_avx2_movbe", "__strchr_avx2", "__vfprintf_internal",
    "_IO_file_xsputn@@GLIBC_2.2.5", "_IO_new_file_overflow", "_IO_default_xsputn",
    "pthread_mutex_lock@@GLIBC_2.2.5", "pthread_mutex_unlock@@GLIBC_2.2.5", "msort_with_tmp.part.0",
    "qsort_r", "clock_gettime@@GLIBC_2.17", "syscall", "__libc_start_main@@GLIBC_2.34",
    "(below main)", "exit", "__cxa_finalize", "getenv", "strtoul", "__strtoul_internal",
    "_dl_lookup_symbol_x", "do_lookup_x", "_dl_relocate_object", "_dl_runtime_resolve_xsave",
    "_dl_fixup", "check_match", "_dl_start", "_dl_sysdep_start", "dl_main", "__exp_finite",
    "__log_finite", "__sin_fma", "__pow_finite", "cos", "sin", "exp", "log", "pow", "sqrt",
    "floor", "ceil", "fmod", "frexp", "ldexp", "strtod", "____strtod_l_internal",
    "round_and_return", "str_to_mpn.part.0", "__mpn_mul_1", "__mpn_lshift"};

/* Exported names of C libraries: prefix, verb, object. */
static const char *const c_verbs[] = {
    "init", "free", "new", "get", "set", "update", "final", "read", "write", "ctrl", "push",
    "pop", "find", "copy", "dup", "cmp", "hash", "encode", "decode", "parse", "step", "reset",
    "alloc", "flush", "load", "store", "open", "close", "bind", "prepare", "compress", "fetch"};

static const char *const c_objects[] = {
    "", "_ex", "_ctx", "_buf", "_block", "_key", "_md", "_state", "_node", "_table", "_list",
    "_frame", "_stream", "_internal", "_impl", "_fast", "_slow", "_data", "_cb", "_entry",
    "_cursor", "_page", "_session", "_cert", "_params", "_window", "_dict", "_tree"};

/* ---- the program a callgrind profile describes -------------------------------------------- */

typedef struct object_spec {
    const char *path;
    unsigned weight;      /* share of the functions, in parts of the sum of weights */
    int debug;            /* line info and source files */
    const char *ns;       /* namespace of its C++ names */
    const char *src_root; /* where its source files live */
    const char *c_prefix; /* C libraries: the prefix of their exported names */
    unsigned names_begin, names_end; /* glibc: its slice of glibc_names */
} object_spec;

#define APP(path, weight, ns, root) {path, weight, 1, ns, root, NULL, 0, 0}
#define CXXLIB(path, weight, ns) {path, weight, 0, ns, NULL, NULL, 0, 0}
#define CLIB(path, weight, prefix) {path, weight, 0, NULL, NULL, prefix, 0, 0}
#define GLIBC(path, weight, from, to) {path, weight, 1, NULL, NULL, NULL, from, to}

/* Fifty objects: the executable and its own libraries (with debug info), third-party C++
 * and C libraries, the C++ runtime (without) and glibc, in the order a linker maps them. */
static const object_spec object_specs[] = {
    APP("/opt/app/bin/appserver", 240, "app", "/home/build/app/src/server"),
    APP("/opt/app/lib/libapp_core.so", 60, "app::core", "/home/build/app/src/core"),
    APP("/opt/app/lib/libapp_net.so", 50, "app::net", "/home/build/app/src/net"),
    APP("/opt/app/lib/libapp_http.so", 45, "app::http", "/home/build/app/src/http"),
    APP("/opt/app/lib/libapp_db.so", 55, "app::db", "/home/build/app/src/db"),
    APP("/opt/app/lib/libapp_storage.so", 40, "app::storage", "/home/build/app/src/storage"),
    APP("/opt/app/lib/libapp_json.so", 25, "app::json", "/home/build/app/src/json"),
    APP("/opt/app/lib/libapp_rpc.so", 30, "app::rpc", "/home/build/app/src/rpc"),
    APP("/opt/app/lib/libapp_sched.so", 20, "app::sched", "/home/build/app/src/sched"),
    APP("/opt/app/lib/libapp_metrics.so", 15, "app::metrics", "/home/build/app/src/metrics"),
    APP("/opt/app/lib/libapp_auth.so", 15, "app::auth", "/home/build/app/src/auth"),
    APP("/opt/app/lib/libapp_cache.so", 20, "app::cache", "/home/build/app/src/cache"),
    APP("/opt/app/lib/libapp_script.so", 35, "app::script", "/home/build/app/src/script"),
    APP("/opt/app/lib/libapp_render.so", 25, "app::render", "/home/build/app/src/render"),
    APP("/opt/app/lib/libapp_config.so", 8, "app::config", "/home/build/app/src/config"),
    APP("/opt/app/plugins/libplugin_csv.so", 6, "plugin::csv", "/home/build/app/plugins/csv"),
    APP("/opt/app/plugins/libplugin_geo.so", 8, "plugin::geo", "/home/build/app/plugins/geo"),
    APP("/opt/app/plugins/libplugin_search.so", 12, "plugin::search",
        "/home/build/app/plugins/search"),
    APP("/opt/app/plugins/libplugin_audit.so", 5, "plugin::audit",
        "/home/build/app/plugins/audit"),
    APP("/opt/app/lib/libleveldb.so.1.23", 14, "leveldb", "/home/build/third_party/leveldb"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libprotobuf.so.32.0.12", 30, "google::protobuf"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libgrpc++.so.1.51.1", 18, "grpc"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libgrpc.so.29.0.0", 16, "grpc_core"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libabsl_strings.so.20220623.0.0", 6,
           "absl::lts_20220623"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libabsl_synchronization.so.20220623.0.0", 4,
           "absl::lts_20220623::synchronization_internal"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libboost_system.so.1.74.0", 3, "boost::system"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libboost_thread.so.1.74.0", 4, "boost::detail"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libboost_filesystem.so.1.74.0", 4, "boost::filesystem"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libboost_regex.so.1.74.0", 8, "boost::re_detail_107400"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libfmt.so.9.1.0", 5, "fmt::v9::detail"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libspdlog.so.1.10.0", 5, "spdlog::details"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libyaml-cpp.so.0.7.0", 5, "YAML"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libicuuc.so.72.1", 8, "icu_72"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libicui18n.so.72.1", 8, "icu_72::number::impl"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libtbb.so.12.8", 5, "tbb::detail::r1"),
    CLIB("/usr/lib/x86_64-linux-gnu/libssl.so.3", 5, "SSL_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libcrypto.so.3", 12, "EVP_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", 2, "deflate_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4", 3, "ZSTD_"),
    CLIB("/usr/lib/x86_64-linux-gnu/liblz4.so.1.9.4", 1, "LZ4_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6", 8, "sqlite3"),
    CLIB("/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2", 3, "pcre2_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libxml2.so.2.9.14", 6, "xml"),
    CLIB("/usr/lib/x86_64-linux-gnu/libcurl.so.4.8.0", 4, "curl_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libnghttp2.so.14.24.1", 2, "nghttp2_"),
    CLIB("/usr/lib/x86_64-linux-gnu/libgcc_s.so.1", 1, "__gcc_"),
    CXXLIB("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", 30, "std"),
    GLIBC("/usr/lib/x86_64-linux-gnu/libm.so.6", 3, 39, 60),
    GLIBC("/usr/lib/x86_64-linux-gnu/libc.so.6", 8, 0, 30),
    GLIBC("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 2, 30, 39),
};

/* clang-format on */

#define NOBJECTS ((uint32_t)COUNT(object_specs))

typedef struct object {
    uint32_t id;
    uint32_t fn_begin, fn_end;
    uint32_t file_begin, file_end; /* its source files, empty without debug info */
} object;

typedef struct file {
    const char *name;
    uint32_t id;
    uint32_t next_line; /* where the next function defined in it starts */
} file;

typedef struct func {
    const char *name;
    uint32_t id, object, file;
    uint32_t line;                    /* first line, 0 without debug info */
    uint32_t headers[3];              /* files its inlined code comes from */
    uint64_t addr;                    /* entry address in its object */
    uint32_t unit;                    /* Ir of one call, for the inclusive cost of calls */
    uint32_t bb_begin, nbb, in_begin; /* its code in cgen's arrays */
} func;

/* ---- function bodies ---------------------------------------------------------------------- */

enum { MAX_BB = 1024, MAX_BB_INSTR = 10, MAX_INSTR = MAX_BB * MAX_BB_INSTR };
enum { END_FALL, END_COND, END_JUMP, END_CALL, END_RET };

/* How blocks end, in percent: conditional branch below [0], jump below [1], call below [2],
 * falling through to the next block above. */
static const uint32_t instr_ends[3] = {50, 62, 88};
static const uint32_t single_ends[3] = {14, 17, 25};

typedef struct instr {
    uint32_t offset, line;
    uint8_t file; /* 0: the function's file, 1..3: an inlined header */
    uint8_t loads, stores;
} instr;

typedef struct block {
    uint32_t first, count; /* instructions */
    uint8_t end, ncallees;
    uint16_t mul, div;   /* executions per entry of the function: mul / div */
    uint16_t taken;      /* per mille of executions that take the branch */
    uint16_t miss;       /* per mille of data accesses that miss D1 */
    uint32_t target;     /* block a branch goes to */
    uint32_t callees[3]; /* a call site calls one function, or 2-3 through a pointer */
} block;

/* The code of one function as make_body draws it. */
typedef struct code {
    block bb[MAX_BB];
    instr in[MAX_INSTR];
    uint32_t nbb, ninstr, nbytes;
} code;

/* A function's code as kept for writing: its part of the arrays of all functions' code. */
typedef struct body {
    const block *bb;
    const instr *in;
    uint32_t nbb;
} body;

typedef struct cgen {
    int line13;             /* 0: instr + Ir + jumps; 1: line + 13 events, no jumps */
    int single;             /* every function in one block (instr otherwise) */
    uint32_t mean_bb_milli; /* single: mean basic blocks per function, in thousandths */
    uint32_t nfns, nfiles, unknown_file;
    uint32_t popular; /* the last `popular` functions (C++ runtime, libc) are called most */
    object objects[NOBJECTS];
    func *fns;
    file *files;
    unsigned char *fn_defined, *file_defined, *obj_defined;
    code scratch;
    block *all_bb; /* the code of every function, drawn once */
    instr *all_in;
    size_t nall_bb, nall_in, cap_bb, cap_in;
    rng r;
    out *o;
    /* state of the writer that the format's compression depends on */
    uint32_t cur_ob, cur_fl, cur_file;
    uint64_t last_addr, last_line;
    int nev;
    uint64_t sums[13];
    uint64_t blocks_executed;
} cgen;

static uint32_t pick_callee(cgen *g, rng *r, uint32_t self) {
    uint32_t n = g->nfns, k = below(r, 1000);
    if (k < 2) return self;                               /* recursion */
    if (k < 6 && self > 8) return self - 1 - below(r, 8); /* back to a caller */
    if (self + 1 >= n) return self;
    uint32_t span = n - self - 1;
    if (k < 300) { /* the runtime and libc, which call each other only downwards */
        uint32_t to = n - 1 - skewed(r, g->popular);
        return to > self ? to : self + 1 + skewed(r, span);
    }
    if (span > n / 4) span = n / 4;
    return self + 1 + skewed(r, span);
}

/* The code of function f, the same every time. */
static void make_body(cgen *g, uint32_t f, code *b) {
    const func *fn = &g->fns[f];
    rng r = {mix(SEED, f)};
    int debug = fn->line != 0;
    if (g->single) {
        /* heavy-tailed like the other kinds (u has mean 2047 / 22), scaled to the wanted mean */
        uint64_t u = below(&r, 1u << below(&r, 11));
        uint64_t n = 1 + u * (g->mean_bb_milli - 1000) * 22 / 2047 / 1000;
        b->nbb = (uint32_t)(n < MAX_BB ? n : MAX_BB);
    } else {
        b->nbb = 1 + below(&r, 1u << below(&r, 10));
    }
    uint32_t ni = 0, offset = 0;
    uint32_t line = fn->line, hline[3];
    for (int h = 0; h < 3; h++) hline[h] = 20 + below(&r, 1500);
    uint8_t cur = 0;
    for (uint32_t k = 0; k < b->nbb; k++) {
        block *bb = &b->bb[k];
        bb->first = ni;
        bb->count = 1 + below(&r, MAX_BB_INSTR);
        /* single: valgrind's blocks run on past conditional branches (superblocks), a
         * profile of one run has a call every 60 or so instructions, and many functions end
         * with one */
        uint32_t e = below(&r, 100);
        const uint32_t *ends = g->single ? single_ends : instr_ends;
        bb->end = k + 1 == b->nbb ? (g->single && e < 40 ? END_CALL : END_RET)
                  : e < ends[0]   ? END_COND
                  : e < ends[1]   ? END_JUMP
                  : e < ends[2]   ? END_CALL
                                  : END_FALL;
        uint32_t w = below(&r, 100);
        bb->mul = 1, bb->div = 1;
        if (k > 0 && w < 20) bb->div = (uint16_t)(2 + below(&r, 7));
        if (k > 0 && w >= 80) bb->mul = (uint16_t)(2 + skewed(&r, 64));
        bb->taken = (uint16_t)below(&r, 1001);
        bb->miss = (uint16_t)skewed(&r, 80);
        bb->target = below(&r, 3) == 0 ? (k > 3 ? k - 1 - below(&r, 3) : 0) : k + 1 + below(&r, 6);
        if (bb->target >= b->nbb) bb->target = b->nbb - 1;
        bb->ncallees = 0;
        if (bb->end == END_CALL) {
            bb->ncallees = (uint8_t)(below(&r, 10) == 0 ? 2 + below(&r, 2) : 1);
            for (int c = 0; c < bb->ncallees; c++) bb->callees[c] = pick_callee(g, &r, f);
        }
        for (uint32_t i = 0; i < bb->count; i++, ni++) {
            /* one draw gives every field: bits 0-3 size, 4-10 loads, 11-17 stores, 18-27
             * inlining, 28-29 which header, 30-36 line step kind, 37-48 step */
            static const uint8_t sizes[16] = {1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 7, 8};
            uint64_t x = rnd(&r);
            instr *in = &b->in[ni];
            in->offset = offset;
            offset += sizes[x & 15];
            in->loads = ((x >> 4) & 127) * 100 < 30 * 128;
            in->stores = ((x >> 11) & 127) * 100 < 14 * 128;
            if (!debug) {
                in->line = 0, in->file = 0;
                continue;
            }
            /* inlined code comes and goes; lines move by small steps, now and then far */
            uint32_t inl = (uint32_t)((x >> 18) & 1023);
            if (cur == 0 && inl < 61)
                cur = (uint8_t)(1 + ((x >> 28) & 3) % 3);
            else if (cur != 0 && inl < 205)
                cur = 0;
            uint32_t *l = cur ? &hline[cur - 1] : &line;
            uint32_t kind = (uint32_t)((x >> 30) & 127) * 100 / 128;
            uint32_t step = (uint32_t)((x >> 37) & 4095);
            if (kind < 55) {
            } else if (kind < 85) {
                *l += 1 + step % 3;
            } else if (kind < 94) {
                uint32_t back = 1 + step % 6;
                *l = *l > back ? *l - back : 1;
            } else if (kind < 99) {
                *l += 5 + step % 40;
            } else {
                *l = 1 + step % 3000;
            }
            in->line = *l;
            in->file = cur;
        }
    }
    b->ninstr = ni;
    b->nbytes = offset;
}

/* Draws the code of function f and keeps it. */
static void keep_body(cgen *g, uint32_t f) {
    code *c = &g->scratch;
    func *fn = &g->fns[f];
    make_body(g, f, c);
    if (g->nall_bb + c->nbb > g->cap_bb) {
        g->cap_bb = (g->cap_bb + c->nbb) * 2;
        if (!(g->all_bb = realloc(g->all_bb, g->cap_bb * sizeof *g->all_bb))) die("realloc");
    }
    if (g->nall_in + c->ninstr > g->cap_in) {
        g->cap_in = (g->cap_in + c->ninstr) * 2;
        if (!(g->all_in = realloc(g->all_in, g->cap_in * sizeof *g->all_in))) die("realloc");
    }
    fn->bb_begin = (uint32_t)g->nall_bb;
    fn->nbb = c->nbb;
    fn->in_begin = (uint32_t)g->nall_in;
    memcpy(g->all_bb + g->nall_bb, c->bb, c->nbb * sizeof *c->bb);
    memcpy(g->all_in + g->nall_in, c->in, c->ninstr * sizeof *c->in);
    g->nall_bb += c->nbb;
    g->nall_in += c->ninstr;
}

/* ---- callgrind writer --------------------------------------------------------------------- */

static void put_name(cgen *g, const char *key, unsigned char *defined, uint32_t index, uint32_t id,
                     const char *name) {
    out *o = g->o;
    puts_(o, key);
    putc_(o, '(');
    put_u(o, id);
    putc_(o, ')');
    if (!defined[index]) {
        defined[index] = 1;
        putc_(o, ' ');
        puts_(o, name);
    }
    putc_(o, '\n');
}

static void put_file(cgen *g, const char *key, uint32_t f) {
    put_name(g, key, g->file_defined, f, g->files[f].id, g->files[f].name);
}

/* A subposition as callgrind writes it: relative within 99 of the last one, else absolute
 * (addresses in hex, lines in decimal). */
static void put_subposition(out *o, uint64_t v, uint64_t last, int hex) {
    int64_t d = (int64_t)(v - last);
    if (last == 0 || d <= -100 || d >= 100) {
        if (hex) {
            put_hex(o, v);
        } else {
            put_u(o, v);
        }
    } else if (d > 0) {
        putc_(o, '+');
        put_u(o, (uint64_t)d);
    } else if (d == 0) {
        putc_(o, '*');
    } else {
        putc_(o, '-');
        put_u(o, (uint64_t)-d);
    }
    putc_(o, ' ');
}

static void put_addr(out *o, uint64_t v, uint64_t last) {
    put_subposition(o, v, last, 1);
}

static void put_line(out *o, uint64_t v, uint64_t last) {
    put_subposition(o, v, last, 0);
}

/* Writes the position and makes it the last one. */
static void put_position(cgen *g, uint64_t addr, uint64_t line) {
    if (!g->line13) {
        put_addr(g->o, addr, g->last_addr);
        g->last_addr = addr;
    }
    put_line(g->o, line, g->last_line);
    g->last_line = line;
}

/* The position of a line that repeats the last one (call costs, jump sources): `*`, or the
 * value itself when it is 0 (valgrind compresses only against a last value above 0). */
static void put_same_position(cgen *g) {
    put_position(g, g->last_addr, g->last_line);
}

/* Costs, trailing zeros left out as callgrind does; then the end of the line. */
static void put_costs(out *o, const uint64_t *c, int n) {
    while (n > 1 && c[n - 1] == 0) n--;
    for (int i = 0; i < n; i++) {
        put_u(o, c[i]);
        putc_(o, i + 1 < n ? ' ' : '\n');
    }
}

/* The 13 costs of a run of instructions executed `count` times, as cache and branch simulation
 * give them: mostly small, misses rare. */
static void sim_costs(rng *r, const body *b, const block *bb, uint32_t from, uint32_t to,
                      uint64_t count, int ends_block, uint64_t *c) {
    uint64_t loads = 0, stores = 0;
    for (uint32_t i = from; i < to; i++) loads += b->in[i].loads, stores += b->in[i].stores;
    uint64_t x = rnd(r), u = (x >> 21) & 255;
    c[0] = count * (to - from);
    c[1] = count * loads;
    c[2] = count * stores;
    c[3] = (x & 127) < 8 ? 1 + ((x >> 7) & 3) % 3 : 0; /* the first runs of a line miss I1 */
    c[4] = c[1] * bb->miss / 1000;
    c[5] = c[2] * bb->miss / 2000;
    c[6] = c[3] && ((x >> 9) & 3) == 0;
    c[7] = c[4] * ((x >> 11) & 31) / 100;
    c[8] = c[5] * ((x >> 16) & 31) / 100;
    c[9] = ends_block && bb->end == END_COND ? count : 0;
    c[10] = c[9] * ((u * u * u) >> 16) * 200 / 256 / 1000; /* mispredictions: mostly few */
    c[11] = ends_block && bb->ncallees > 1 ? count : 0;
    c[12] = c[11] * ((x >> 29) & 127) / 1000;
}

/* The inclusive costs of `count` calls to function `callee`. */
static void call_costs(const cgen *g, uint32_t callee, uint64_t count, uint64_t *c) {
    uint64_t ir = count * g->fns[callee].unit, h = mix(callee, 7);
    c[0] = ir;
    if (!g->line13) return;
    c[1] = ir * (250 + h % 150) / 1000;
    c[2] = ir * (100 + (h >> 8) % 100) / 1000;
    c[3] = ir / (2000 + (h >> 16) % 8000);
    c[4] = c[1] / (20 + (h >> 24) % 80);
    c[5] = c[2] / (40 + (h >> 32) % 80);
    c[6] = c[3] / (2 + (h >> 40) % 6);
    c[7] = c[4] / (3 + (h >> 44) % 10);
    c[8] = c[5] / (3 + (h >> 48) % 10);
    c[9] = ir / (6 + (h >> 52) % 4);
    c[10] = c[9] / (12 + (h >> 56) % 30);
    c[11] = ir / (150 + (h >> 58) % 100);
    c[12] = c[11] / (8 + (h >> 60) % 8);
}

static void switch_file(cgen *g, const func *fn, uint8_t slot) {
    uint32_t want = slot ? fn->headers[slot - 1] : fn->file;
    if (want == g->cur_file) return;
    put_file(g, want == fn->file ? "fe=" : "fi=", want);
    g->cur_file = want;
}

static void write_calls(cgen *g, const func *fn, const block *bb, uint64_t count) {
    out *o = g->o;
    uint64_t c[13];
    uint64_t shares = (uint64_t)bb->ncallees * (bb->ncallees + 1) / 2;
    for (int k = 0; k < bb->ncallees; k++) {
        /* calls through a pointer spread over their targets: 1/3 and 2/3, or 1/6, 2/6, 3/6 */
        uint64_t n = count * (uint64_t)(k + 1) / shares;
        if (n == 0) continue;
        uint32_t callee = bb->callees[k];
        const func *cf = &g->fns[callee];
        need(o);
        if (cf->object != g->cur_ob)
            put_name(g, "cob=", g->obj_defined, cf->object, g->objects[cf->object].id,
                     object_specs[cf->object].path);
        if (cf->file != g->cur_file) put_file(g, "cfi=", cf->file);
        put_name(g, "cfn=", g->fn_defined, callee, cf->id, cf->name);
        PUT(o, "calls=");
        put_u(o, n);
        putc_(o, ' ');
        if (!g->line13) put_addr(o, cf->addr, cf->object == fn->object ? g->last_addr : 0);
        put_line(o, cf->line, g->last_line);
        putc_(o, '\n');
        put_same_position(g);
        call_costs(g, callee, n, c);
        put_costs(o, c, g->nev);
    }
}

static void write_jump(cgen *g, const func *fn, const body *b, const block *bb, uint64_t count) {
    out *o = g->o;
    uint64_t taken = bb->end == END_COND ? count * bb->taken / 1000 : count;
    if (taken == 0) return;
    const instr *to = &b->in[b->bb[bb->target].first];
    uint32_t to_file = to->file ? fn->headers[to->file - 1] : fn->file;
    need(o);
    if (to_file != g->cur_file) put_file(g, "jfi=", to_file);
    if (bb->end == END_COND) {
        PUT(o, "jcnd=");
        put_u(o, taken);
        putc_(o, '/');
        put_u(o, count);
    } else {
        PUT(o, "jump=");
        put_u(o, count);
    }
    putc_(o, ' ');
    put_addr(o, fn->addr + to->offset, g->last_addr);
    put_line(o, to->line, g->last_line);
    putc_(o, '\n');
    put_same_position(g);
    putc_(o, '\n');
}

/* One run of instructions of a block that share file and line (line13), or one instruction. */
static void write_run(cgen *g, const func *fn, const body *b, const block *bb, uint32_t from,
                      uint32_t to, uint64_t count) {
    out *o = g->o;
    uint64_t c[13];
    const instr *in = &b->in[from];
    need(o);
    switch_file(g, fn, in->file);
    put_position(g, fn->addr + in->offset, in->line);
    int ends_block = to == bb->first + bb->count;
    if (g->line13) {
        sim_costs(&g->r, b, bb, from, to, count, ends_block, c);
    } else {
        c[0] = count;
    }
    for (int e = 0; e < g->nev; e++) g->sums[e] += c[e];
    put_costs(o, c, g->nev);
    if (!ends_block) return;
    if (bb->end == END_CALL) write_calls(g, fn, bb, count);
    if (!g->line13 && (bb->end == END_COND || bb->end == END_JUMP)) write_jump(g, fn, b, bb, count);
}

/* One fn= block: the function as run from one context, `calls` times. A first block shows every
 * part of the function that runs; others a share of it, the way one caller uses it. */
static void write_block(cgen *g, uint32_t f, int first) {
    out *o = g->o;
    const func *fn = &g->fns[f];
    const body view = {g->all_bb + fn->bb_begin, g->all_in + fn->in_begin, fn->nbb};
    const body *b = &view;
    /* single: one run's counts, most code run a few times (start-up, error paths) */
    uint32_t e = below(&g->r, g->single ? 9 : 15);
    uint64_t calls = (1ull << e) + below(&g->r, 1u << e);
    uint32_t coverage = first ? 1000 : 300 + below(&g->r, 701);
    need(o);
    putc_(o, '\n');
    if (fn->object != g->cur_ob) {
        put_name(g, "ob=", g->obj_defined, fn->object, g->objects[fn->object].id,
                 object_specs[fn->object].path);
        g->cur_ob = fn->object;
    }
    if (fn->file != g->cur_fl) {
        put_file(g, "fl=", fn->file);
        g->cur_fl = fn->file;
    }
    g->cur_file = fn->file;
    put_name(g, "fn=", g->fn_defined, f, fn->id, fn->name);
    g->last_addr = g->last_line = 0;
    for (uint32_t k = 0; k < b->nbb; k++) {
        const block *bb = &b->bb[k];
        if (k > 0 && !chance(&g->r, coverage)) continue;
        uint64_t count = calls * bb->mul / bb->div;
        if (count == 0) continue;
        g->blocks_executed += count;
        uint32_t end = bb->first + bb->count;
        if (!g->line13) {
            for (uint32_t i = bb->first; i < end; i++) write_run(g, fn, b, bb, i, i + 1, count);
            continue;
        }
        for (uint32_t i = bb->first; i < end;) {
            uint32_t j = i + 1;
            while (j < end && b->in[j].line == b->in[i].line && b->in[j].file == b->in[i].file) j++;
            write_run(g, fn, b, bb, i, j, count);
            i = j;
        }
    }
}

/* The body: every function once, in the order of their objects, and between them blocks of
 * functions shown again from other contexts (the hot ones more often), until `target` bytes. */
static void write_body(cgen *g, uint64_t target) {
    out *o = g->o;
    uint64_t start = out_pos(o);
    g->r.s = mix(SEED, 0xb0d1);
    g->cur_ob = g->cur_fl = g->cur_file = UINT32_MAX;
    for (uint32_t f = 0; f < g->nfns; f++) {
        write_block(g, f, 1);
        if (g->single) continue;
        uint64_t due = target / g->nfns * (f + 1) + target % g->nfns * (f + 1) / g->nfns;
        while (out_pos(o) - start < due) {
            uint32_t again =
                below(&g->r, 10) < 7 ? below(&g->r, g->nfns) : g->nfns - 1 - skewed(&g->r, g->nfns);
            write_block(g, again, 0);
        }
    }
}

static const char *const event_names13 = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim";

static void write_callgrind_header(cgen *g) {
    out *o = g->o;
    need(o);
    PUT(o, "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n");
    puts_(o, g->line13 ? "pid: 51877\n" : g->single ? "pid: 50412\n" : "pid: 48213\n");
    PUT(o, "cmd:  /opt/app/bin/appserver --config=/etc/appserver/bench.conf --threads=1 "
           "--requests=200000\npart: 1\n\n\n");
    if (g->line13) {
        PUT(o, "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
               "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
               "desc: LL cache: 8388608 B, 64 B, 16-way associative\n\n");
    } else {
        PUT(o, "desc: I1 cache: \ndesc: D1 cache: \ndesc: LL cache: \n\n");
    }
    PUT(o, "desc: Timerange: Basic block 0 - ");
    put_u(o, g->blocks_executed);
    PUT(o, "\ndesc: Trigger: Program termination\n\n");
    if (g->line13) {
        PUT(o, "positions: line\nevents: ");
        puts_(o, event_names13);
    } else {
        PUT(o, "positions: instr line\nevents: Ir");
    }
    PUT(o, "\nsummary:");
    for (int e = 0; e < g->nev; e++) {
        putc_(o, ' ');
        put_u(o, g->sums[e]);
    }
    PUT(o, "\n\n");
}

static void write_totals(cgen *g) {
    out *o = g->o;
    need(o);
    PUT(o, "\ntotals:");
    for (int e = 0; e < g->nev; e++) {
        putc_(o, ' ');
        put_u(o, g->sums[e]);
    }
    putc_(o, '\n');
}

/* A C++ name, distinct for each `local` index within one object. */
static const char *cxx_name(const char *ns, uint32_t local, uint64_t h) {
    const uint64_t nsub = COUNT(cxx_subspaces), ncls = COUNT(cxx_classes),
                   nmeth = COUNT(cxx_methods), nargs = COUNT(cxx_args);
    const uint64_t space = nsub * ncls * nmeth * nargs;
    uint64_t p = (uint64_t)local * 2654435761u % space; /* a bijection: 2654435761 is prime */
    const char *sub = cxx_subspaces[p % nsub];
    p /= nsub;
    const char *cls = cxx_classes[p % ncls];
    p /= ncls;
    const char *meth = cxx_methods[p % nmeth];
    p /= nmeth;
    const char *args = cxx_args[p % nargs];
    const char *tmpl = cxx_templates[h % COUNT(cxx_templates)];
    const char *suffix = cxx_suffixes[(h >> 16) % COUNT(cxx_suffixes)];
    char buf[1024];
    char method[96];
    if (strcmp(meth, "~") == 0) {
        snprintf(method, sizeof method, "~%s", cls); /* destructor */
    } else if (meth[0] == '\0') {
        snprintf(method, sizeof method, "%s", cls); /* constructor */
    } else {
        snprintf(method, sizeof method, "%s", meth);
    }
    snprintf(buf, sizeof buf, "%s%s%s::%s%s::%s%s%s", ns, sub[0] ? "::" : "", sub, cls, tmpl,
             method, args, suffix);
    return keep(buf);
}

/* A C name, distinct for each `local` index within one object. */
static const char *c_name(const char *prefix, uint32_t local, uint64_t h) {
    const uint32_t nv = COUNT(c_verbs), no = COUNT(c_objects);
    uint32_t gen = local / (nv * no);
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s%s%.0u%s", prefix, c_verbs[local % nv],
             c_objects[local / nv % no], gen, (h >> 8) % 9 == 0 ? ".part.0" : "");
    return keep(buf);
}

static void setup_callgrind(cgen *g, uint64_t size_mb) {
    uint64_t nfns = size_mb * (g->line13 ? 20 : 40);
    if (nfns < 400) nfns = 400;
    if (g->single) {
        nfns = size_mb * 500 < 50000 ? 50000 : size_mb * 500;
        /* what the functions' names and first lines leave for the records; blocks hold 5.5
         * instructions on average */
        uint64_t bytes = size_mb * 1000000, fixed = nfns * SINGLE_BYTES_PER_FN;
        uint64_t left = bytes > 2 * fixed ? bytes - fixed : bytes / 2;
        uint64_t instrs_milli = left * 10000 / SINGLE_DECIBYTES_PER_INSTR / nfns;
        g->mean_bb_milli = (uint32_t)(instrs_milli * 2 / 11);
        if (g->mean_bb_milli < 1000) g->mean_bb_milli = 1000;
    }
    g->nfns = (uint32_t)nfns;
    g->popular = g->nfns / 12;
    g->nev = g->line13 ? 13 : 1;
    uint32_t nsources = (uint32_t)(400 + 3 * size_mb),
             nproject_headers = (uint32_t)(60 + size_mb / 2);
    uint32_t nstl = (uint32_t)COUNT(stl_headers);
    g->nfiles = nsources + COUNT(glibc_files) + nstl + nproject_headers + 1;
    g->files = xcalloc(g->nfiles, sizeof *g->files);
    g->fns = xcalloc(g->nfns, sizeof *g->fns);
    g->fn_defined = xcalloc(g->nfns, 1);
    g->file_defined = xcalloc(g->nfiles, 1);
    g->obj_defined = xcalloc(NOBJECTS, 1);
    rng r = {mix(SEED, 0x5e7)};

    /* Files get sparse ids that start in the hundreds, as callgrind's node numbers do. */
    uint32_t nf = 0, id = 120;
    char buf[512];
#define ADD_FILE(nm)                                                                               \
    do {                                                                                           \
        g->files[nf].name = keep(nm);                                                              \
        g->files[nf].id = id;                                                                      \
        g->files[nf].next_line = 12 + below(&r, 40);                                               \
        id += 1 + below(&r, 3);                                                                    \
        nf++;                                                                                      \
    } while (0)
    g->unknown_file = nf;
    ADD_FILE("???");
    uint32_t header_begin = nf;
    for (uint32_t i = 0; i < nstl; i++) ADD_FILE(stl_headers[i]);
    for (uint32_t i = 0; i < nproject_headers; i++) {
        const char *dir = source_dirs[i % COUNT(source_dirs)];
        const char *stem = source_stems[i / COUNT(source_dirs) % COUNT(source_stems)];
        uint32_t gen = i / (uint32_t)(COUNT(source_dirs) * COUNT(source_stems));
        snprintf(buf, sizeof buf, "/home/build/app/include/app/%s/%s%s%.0u.h", dir, stem,
                 gen ? "_v" : "", gen);
        ADD_FILE(buf);
    }
    uint32_t header_end = nf;
    uint32_t glibc_begin = nf;
    for (uint32_t i = 0; i < COUNT(glibc_files); i++) ADD_FILE(glibc_files[i]);

    /* Objects: functions and source files in proportion to their weights. */
    unsigned total_weight = 0, debug_weight = 0;
    for (uint32_t k = 0; k < NOBJECTS; k++) {
        total_weight += object_specs[k].weight;
        if (object_specs[k].debug && object_specs[k].ns) debug_weight += object_specs[k].weight;
    }
    uint32_t fn_at = 0, weight_at = 0, debug_at = 0;
    uint32_t source_begin = nf;
    for (uint32_t k = 0; k < NOBJECTS; k++) {
        const object_spec *spec = &object_specs[k];
        object *ob = &g->objects[k];
        ob->id = k + 1;
        weight_at += spec->weight;
        ob->fn_begin = fn_at;
        ob->fn_end = fn_at = (uint32_t)((uint64_t)g->nfns * weight_at / total_weight);
        if (ob->fn_end <= ob->fn_begin) ob->fn_end = fn_at = ob->fn_begin + 1;
        if (k + 1 == NOBJECTS) ob->fn_end = g->nfns;
        if (spec->debug && spec->ns) {
            uint32_t from = source_begin + (uint32_t)((uint64_t)nsources * debug_at / debug_weight);
            debug_at += spec->weight;
            uint32_t to = source_begin + (uint32_t)((uint64_t)nsources * debug_at / debug_weight);
            ob->file_begin = nf;
            for (uint32_t i = from; i < to; i++) {
                uint32_t local = i - from;
                const char *dir = source_dirs[local % COUNT(source_dirs)];
                const char *stem = source_stems[local / COUNT(source_dirs) % COUNT(source_stems)];
                uint32_t gen = local / (uint32_t)(COUNT(source_dirs) * COUNT(source_stems));
                snprintf(buf, sizeof buf, "%s/%s/%s%s%.0u.cc", spec->src_root, dir, stem,
                         gen ? "_" : "", gen);
                ADD_FILE(buf);
            }
            ob->file_end = nf;
            if (ob->file_end == ob->file_begin) {
                snprintf(buf, sizeof buf, "%s/main.cc", spec->src_root);
                ADD_FILE(buf);
                ob->file_end = nf;
            }
        } else if (spec->debug) {
            ob->file_begin = glibc_begin;
            ob->file_end = glibc_begin + COUNT(glibc_files);
        } else {
            ob->file_begin = ob->file_end = 0;
        }
    }
#undef ADD_FILE
    g->nfiles = nf;

    /* Functions: names, files, first lines, ids; then their code, which gives addresses. */
    uint32_t fn_id = 300;
    for (uint32_t k = 0; k < NOBJECTS; k++) {
        const object_spec *spec = &object_specs[k];
        object *ob = &g->objects[k];
        uint32_t n = ob->fn_end - ob->fn_begin;
        for (uint32_t i = ob->fn_begin; i < ob->fn_end; i++) {
            func *fn = &g->fns[i];
            uint32_t local = i - ob->fn_begin;
            uint64_t h = mix(SEED ^ 0xf00, i);
            fn->object = k;
            fn->id = fn_id;
            fn_id += 1 + (uint32_t)(h % 4);
            fn->unit = 12 + skewed(&r, 100000);
            fn->name = NULL; /* no symbol: named after its address below */
            if (spec->ns) {
                fn->name = cxx_name(spec->ns, local, h);
            } else if (spec->c_prefix && h % 5 != 0) {
                fn->name = c_name(spec->c_prefix, local, h);
            } else if (spec->names_begin + local < spec->names_end) {
                fn->name = glibc_names[spec->names_begin + local];
            }
            if (ob->file_end > ob->file_begin) {
                uint32_t nfile = ob->file_end - ob->file_begin;
                fn->file = ob->file_begin + (uint32_t)((uint64_t)local * nfile / n);
                file *fl = &g->files[fn->file];
                fn->line = fl->next_line;
                fl->next_line += 8 + below(&r, 180);
                for (int hh = 0; hh < 3; hh++)
                    fn->headers[hh] = below(&r, 10) < 7
                                          ? header_begin + 1 + below(&r, nstl)
                                          : header_begin + 1 + nstl +
                                                below(&r, header_end - header_begin - 1 - nstl);
            } else {
                fn->file = g->unknown_file;
                fn->line = 0;
            }
        }
    }
    for (uint32_t k = 0; k < NOBJECTS; k++) {
        object *ob = &g->objects[k];
        uint64_t addr = 0x4000 + 0x1000 * (uint64_t)(k % 7) + 0x40 * below(&r, 64);
        for (uint32_t i = ob->fn_begin; i < ob->fn_end; i++) {
            func *fn = &g->fns[i];
            fn->addr = addr;
            keep_body(g, i);
            addr += (g->scratch.nbytes + 16) & ~(uint64_t)15;
            if (!fn->name) {
                snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)fn->addr);
                fn->name = keep(buf);
            }
        }
    }
}

enum { HEADER_ROOM = 1 << 16 };

/* Moves bytes [from, end) of a file `by` bytes towards its start. */
static void move_down(int fd, uint64_t from, uint64_t end, uint64_t by) {
    enum { STEP = 8 << 20 };
    char *buf = malloc(STEP);
    if (!buf) die("malloc");
    for (uint64_t at = from; at < end;) {
        ssize_t n = pread(fd, buf, end - at < STEP ? (size_t)(end - at) : STEP, (off_t)at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("read");
        write_at(fd, buf, (size_t)n, (off_t)(at - by));
        at += (uint64_t)n;
    }
    free(buf);
}

static void gen_callgrind(int line13, int single, uint64_t size_mb, out *o) {
    cgen *g = xcalloc(1, sizeof *g);
    g->line13 = line13;
    g->single = single;
    g->o = o;
    setup_callgrind(g, size_mb);
    /* the body and totals, after room for the header */
    o->flushed = HEADER_ROOM;
    write_body(g, size_mb * 1000000);
    write_totals(g);
    out_flush(o);
    uint64_t end = o->flushed;
    /* the header, which holds their sum, in front of them */
    o->flushed = 0;
    write_callgrind_header(g);
    size_t header = o->len;
    move_down(o->fd, HEADER_ROOM, end, HEADER_ROOM - header);
    out_flush(o);
    if (ftruncate(o->fd, (off_t)(end - (HEADER_ROOM - header))) != 0) die("truncate");
}

/* ---- Xdebug ------------------------------------------------------------------------------- */

/* The vocabularies are laid out by hand, in columns. */
/* clang-format off */
static const char *const php_internal[] = {
    "strlen", "count", "array_key_exists", "in_array", "array_map", "array_filter",
    "array_merge", "array_keys", "array_values", "implode", "explode", "str_replace",
    "substr", "strpos", "str_contains", "str_starts_with", "sprintf", "preg_match",
    "preg_replace", "preg_replace_callback", "preg_split", "json_encode", "json_decode",
    "is_array", "is_string", "is_null", "is_callable", "method_exists", "property_exists",
    "class_exists", "get_class", "spl_object_id", "spl_autoload_call", "func_get_args",
    "call_user_func_array", "array_slice", "array_splice", "array_search", "array_unique",
    "array_flip", "array_reverse", "array_combine", "array_fill_keys", "usort", "uasort",
    "ksort", "sort", "iterator_to_array", "array_pop", "array_push", "array_shift",
    "array_unshift", "array_key_first", "array_key_last", "trim", "rtrim", "ltrim",
    "strtolower", "strtoupper", "ucfirst", "lcfirst", "mb_strlen", "mb_substr",
    "mb_strtolower", "htmlspecialchars", "number_format", "round", "floor", "ceil", "max",
    "min", "abs", "intval", "floatval", "is_numeric", "ctype_digit", "hash", "md5", "sha1",
    "crc32", "base64_encode", "base64_decode", "random_bytes", "random_int", "microtime",
    "hrtime", "time", "date", "strtotime", "mktime", "file_exists", "is_file", "is_dir",
    "file_get_contents", "file_put_contents", "fopen", "fwrite", "fclose", "fread",
    "realpath", "dirname", "basename", "pathinfo", "getenv", "ini_get", "serialize",
    "unserialize", "var_export", "compact", "extract", "array_walk", "array_reduce",
    "array_column", "range", "str_repeat", "str_pad", "wordwrap", "nl2br", "urlencode",
    "rawurlencode", "http_build_query", "parse_url", "parse_str", "filter_var",
    "PDO->prepare", "PDOStatement->execute", "PDOStatement->fetch", "PDOStatement->fetchAll",
    "PDOStatement->bindValue", "PDO->lastInsertId", "DateTime->__construct", "DateTime->format",
    "DateTimeImmutable->modify", "DateTimeZone->__construct", "ArrayIterator->current",
    "ArrayIterator->next", "ArrayIterator->valid", "Closure::fromCallable", "Closure->bindTo",
    "SplObjectStorage->attach", "SplObjectStorage->contains", "ReflectionClass->__construct",
    "ReflectionClass->getMethod", "ReflectionMethod->invokeArgs",
    "ReflectionNamedType->getName", "ReflectionParameter->getType", "Redis->get", "Redis->set",
    "Redis->hGetAll", "curl_exec", "curl_setopt_array", "curl_init", "ob_start",
    "ob_get_clean", "header", "headers_sent", "session_start", "password_verify",
    "openssl_encrypt", "openssl_decrypt", "gzcompress", "gzuncompress", "iconv",
    "mb_convert_encoding", "array_intersect_key", "array_diff_key", "array_replace",
    "is_object", "is_int", "is_bool", "gettype", "get_object_vars", "array_is_list",
    "str_ends_with", "vsprintf", "printf", "fputcsv", "fgetcsv", "stream_get_contents"};

static const char *const php_vendors[] = {
    "App\\Http\\Controllers",       "App\\Services\\Billing",        "App\\Services\\Search",
    "App\\Models",                  "App\\Jobs",                     "App\\Repositories",
    "App\\Support",                 "App\\Listeners",                "App\\Policies",
    "Illuminate\\Database\\Eloquent", "Illuminate\\Database\\Query", "Illuminate\\Support",
    "Illuminate\\Container",        "Illuminate\\Events",            "Illuminate\\Queue",
    "Illuminate\\Routing",          "Illuminate\\Http",              "Illuminate\\View",
    "Illuminate\\Cache",            "Illuminate\\Validation",        "Illuminate\\Pipeline",
    "Symfony\\Component\\HttpFoundation", "Symfony\\Component\\Console",
    "Symfony\\Component\\Routing",  "Symfony\\Component\\Finder",    "Monolog\\Handler",
    "Monolog",                      "GuzzleHttp",                    "GuzzleHttp\\Psr7",
    "Carbon",                       "Doctrine\\DBAL",                "League\\Flysystem",
    "Psr\\Log",                     "Ramsey\\Uuid",                  "Brick\\Math",
    "Laravel\\Horizon",             "Spatie\\Permission",            "Nesbot\\Carbon"};

static const char *const php_classes[] = {
    "Builder",      "Model",        "Collection",   "Container",    "Dispatcher",
    "Router",       "Request",      "Response",     "Factory",      "Manager",
    "Repository",   "Handler",      "Logger",       "Client",       "Connection",
    "Grammar",      "Processor",    "Relation",     "HasMany",      "BelongsTo",
    "Str",          "Arr",          "Pipeline",     "Validator",    "Rule",
    "Store",        "Worker",       "Job",          "Listener",     "Policy",
    "Invoice",      "Order",        "User",         "Product",      "Customer",
    "SearchIndex",  "Tokenizer",    "Formatter",    "Serializer",   "Normalizer",
    "Uri",          "Stream",       "HeaderBag",    "ParameterBag", "Kernel",
    "Application",  "Command",      "Finder",       "Filesystem",   "Encrypter"};

static const char *const php_methods[] = {
    "__construct",   "__get",        "__call",        "__callStatic",  "get",
    "first",         "where",        "whereIn",       "orderBy",       "find",
    "findOrFail",    "save",         "update",        "delete",        "create",
    "make",          "resolve",      "build",         "handle",        "dispatch",
    "fire",          "listen",       "map",           "filter",        "each",
    "reduce",        "pluck",        "toArray",       "jsonSerialize", "getAttribute",
    "setAttribute",  "getRelationValue", "hydrate",   "newQuery",      "compileSelect",
    "select",        "run",          "prepareBindings", "send",        "request",
    "format",        "parse",        "validate",      "passes",        "authorize",
    "remember",      "put",          "forget",        "log",           "info",
    "write",         "read",         "exists",        "normalize",     "serialize",
    "calculateTotals", "applyDiscounts", "rank",      "tokenize",      "score"};

/* clang-format on */

#define X_ANY_HANDLER UINT32_MAX /* a site that calls a user function chosen at run time */

typedef struct xsite {
    uint32_t line, callee;
    uint16_t loop;     /* up to this many calls per run; 0: one call */
    uint16_t permille; /* chance that the site runs at all */
} xsite;

typedef struct xfunc {
    const char *name;
    uint32_t file, line;
    uint32_t site_begin, nsites;
    uint32_t self_time;
    int internal;
} xfunc;

typedef struct xcall {
    uint32_t callee, line;
    uint64_t time, mem;
} xcall;

typedef struct xframe {
    xcall *calls;
    size_t n, cap;
} xframe;

enum { X_MAX_DEPTH = 40 };

typedef struct xgen {
    uint32_t nfns, nfiles, nuser, ninternal;
    xfunc *fns;
    const char **files;
    uint32_t *fn_ids, *file_ids; /* 0 until first written */
    uint32_t next_fn_id, next_file_id;
    xsite *sites;
    xframe frames[X_MAX_DEPTH + 3]; /* one per depth; the last two: the job loop, {main} */
    rng r;
    out *o;
    int64_t budget;
    uint64_t peak_mem;
} xgen;

enum { X_MAIN, X_AUTOLOAD, X_KERNEL, X_DAEMON, X_NEXT_JOB, X_FIXED };

/* Xdebug numbers names in the order it first writes them; php:internal is file 1. */
#define X_WRITTEN 0x80000000u

static void xput_name(out *o, const char *key, uint32_t *ids, uint32_t *next_id, uint32_t index,
                      const char *name) {
    puts_(o, key);
    putc_(o, '(');
    int first = !(ids[index] & X_WRITTEN);
    if (ids[index] == 0) ids[index] = (*next_id)++;
    put_u(o, ids[index] & ~X_WRITTEN);
    putc_(o, ')');
    if (first) {
        ids[index] |= X_WRITTEN;
        putc_(o, ' ');
        puts_(o, name);
    }
    putc_(o, '\n');
}

static void xframe_push(xframe *fr, xcall c) {
    if (fr->n == fr->cap) {
        fr->cap = fr->cap ? fr->cap * 2 : 16;
        fr->calls = realloc(fr->calls, fr->cap * sizeof *fr->calls);
        if (!fr->calls) die("realloc");
    }
    fr->calls[fr->n++] = c;
}

/* Writes the block of one finished invocation, as Xdebug does when a function returns. */
static void xwrite_block(xgen *g, uint32_t f, uint32_t line, uint64_t self_time, uint64_t self_mem,
                         const xframe *fr) {
    out *o = g->o;
    const xfunc *fn = &g->fns[f];
    need(o);
    xput_name(o, "fl=", g->file_ids, &g->next_file_id, fn->file, g->files[fn->file]);
    xput_name(o, "fn=", g->fn_ids, &g->next_fn_id, f, fn->name);
    put_u(o, line);
    putc_(o, ' ');
    put_u(o, self_time);
    putc_(o, ' ');
    put_u(o, self_mem);
    putc_(o, '\n');
    for (size_t i = 0; i < fr->n; i++) {
        const xcall *c = &fr->calls[i];
        const xfunc *cf = &g->fns[c->callee];
        need(o);
        xput_name(o, "cfl=", g->file_ids, &g->next_file_id, cf->file, g->files[cf->file]);
        xput_name(o, "cfn=", g->fn_ids, &g->next_fn_id, c->callee, cf->name);
        PUT(o, "calls=1 0 0\n");
        put_u(o, c->line);
        putc_(o, ' ');
        put_u(o, c->time);
        putc_(o, ' ');
        put_u(o, c->mem);
        putc_(o, '\n');
    }
    putc_(o, '\n');
}

/* Runs function f (its callees first, as they return first) and writes its block; gives its
 * inclusive time and memory. */
static void xinvoke(xgen *g, uint32_t f, uint32_t depth, uint32_t call_line, uint64_t *time,
                    uint64_t *mem) {
    const xfunc *fn = &g->fns[f];
    xframe *fr = &g->frames[depth];
    rng *r = &g->r;
    fr->n = 0;
    uint64_t child_time = 0, child_mem = 0;
    if (depth < X_MAX_DEPTH) {
        for (uint32_t s = fn->site_begin; s < fn->site_begin + fn->nsites; s++) {
            const xsite *site = &g->sites[s];
            if (!chance(r, site->permille)) continue;
            uint32_t n = site->loop ? 1 + skewed(r, site->loop) : 1;
            for (uint32_t k = 0; k < n && g->budget > 0; k++) {
                g->budget--;
                uint64_t t, m;
                uint32_t callee = site->callee;
                if (callee == X_ANY_HANDLER) callee = X_FIXED + below(r, g->nuser - X_FIXED);
                xinvoke(g, callee, depth + 1, site->line, &t, &m);
                xframe_push(fr, (xcall){callee, site->line, t, m});
                child_time += t, child_mem += m;
            }
        }
    }
    uint64_t self_time =
        fn->internal ? 1 + below(r, fn->self_time) : fn->self_time / 2 + below(r, fn->self_time);
    uint64_t self_mem = below(r, 10) < (fn->internal ? 3u : 2u) ? 8 * (4 + skewed(r, 1024)) : 0;
    uint32_t line = fn->internal ? call_line : fn->line;
    xwrite_block(g, f, line, self_time, self_mem, fr);
    *time = self_time + child_time;
    *mem = self_mem + child_mem;
}

static void setup_xdebug(xgen *g, uint64_t size_mb) {
    rng r = {mix(SEED, 0x9d)};
    g->ninternal = (uint32_t)COUNT(php_internal);
    g->nuser = (uint32_t)(1500 + 6 * size_mb);
    g->nfns = g->nuser + g->ninternal;
    g->fns = xcalloc(g->nfns, sizeof *g->fns);
    g->fn_ids = xcalloc(g->nfns, sizeof *g->fn_ids);
    g->next_fn_id = 1;
    /* one file per class, plus php:internal (id 1) and the entry script */
    uint32_t nclasses = g->nuser / 7 + 1;
    g->nfiles = nclasses + 8;
    g->files = xcalloc(g->nfiles, sizeof *g->files);
    g->file_ids = xcalloc(g->nfiles, sizeof *g->file_ids);
    g->file_ids[0] = 1; /* php:internal */
    g->next_file_id = 2;
    char buf[1024];
    g->files[0] = "php:internal";
    g->files[1] = "/var/www/app/artisan";
    g->files[2] = "/var/www/app/vendor/autoload.php";
    g->files[3] = "/var/www/app/vendor/composer/ClassLoader.php";
    g->files[4] =
        "/var/www/app/vendor/laravel/framework/src/Illuminate/Foundation/Console/Kernel.php";
    g->files[5] = "/var/www/app/vendor/laravel/framework/src/Illuminate/Queue/Worker.php";
    uint32_t class_file0 = 6;
    const uint64_t nv = COUNT(php_vendors), nc = COUNT(php_classes), nm = COUNT(php_methods);
    for (uint32_t c = 0; c < nclasses; c++) {
        uint64_t p = (uint64_t)c * 2654435761u % (nv * nc);
        const char *vendor = php_vendors[p % nv];
        const char *cls = php_classes[p / nv];
        uint32_t gen = (uint32_t)(c / (nv * nc));
        char path[512];
        const char *root = strncmp(vendor, "App\\", 4) == 0 ? "/var/www/app/app/"
                           : strncmp(vendor, "Illuminate", 10) == 0
                               ? "/var/www/app/vendor/laravel/framework/src/Illuminate/"
                               : "/var/www/app/vendor/";
        const char *rel = strncmp(vendor, "App\\", 4) == 0           ? vendor + 4
                          : strncmp(vendor, "Illuminate\\", 11) == 0 ? vendor + 11
                                                                     : vendor;
        snprintf(path, sizeof path, "%s%s/%s%.0u.php", root, rel, cls, gen);
        for (char *s = path; *s; s++)
            if (*s == '\\') *s = '/';
        g->files[class_file0 + c] = keep(path);
    }
    g->nfiles = class_file0 + nclasses;

    static const char *const fixed_names[X_FIXED] = {
        "{main}", "require_once::/var/www/app/vendor/autoload.php",
        "Illuminate\\Foundation\\Console\\Kernel->handle", "Illuminate\\Queue\\Worker->daemon",
        "Illuminate\\Queue\\Worker->runNextJob"};
    static const uint32_t fixed_files[X_FIXED] = {1, 2, 4, 5, 5};
    static const uint32_t fixed_lines[X_FIXED] = {0, 1, 139, 140, 350};
    for (uint32_t f = 0; f < X_FIXED; f++) {
        g->fns[f].name = fixed_names[f];
        g->fns[f].file = fixed_files[f];
        g->fns[f].line = fixed_lines[f];
        g->fns[f].self_time = 400;
    }
    g->fns[X_MAIN].line = 0;
    g->fns[X_AUTOLOAD].line = 1;
    uint32_t user_end = g->nuser;
    for (uint32_t f = X_FIXED; f < user_end; f++) {
        xfunc *fn = &g->fns[f];
        uint32_t c = (f - X_FIXED) % nclasses, m = (f - X_FIXED) / nclasses;
        uint64_t p = (uint64_t)c * 2654435761u % (nv * nc);
        const char *vendor = php_vendors[p % nv];
        const char *cls = php_classes[p / nv];
        uint32_t gen = (uint32_t)(c / (nv * nc));
        const char *meth = php_methods[(m * 7 + c) % nm];
        uint32_t kind = (uint32_t)(mix(f, 3) % 20);
        if (kind == 0) {
            snprintf(buf, sizeof buf, "{closure:%s:%u-%u}", g->files[class_file0 + c], 40 + m * 13,
                     44 + m * 13);
        } else if (kind == 1) {
            snprintf(buf, sizeof buf, "%s\\%s%.0u::%s%s", vendor, cls, gen, meth,
                     m >= nm ? "V2" : "");
        } else {
            snprintf(buf, sizeof buf, "%s\\%s%.0u->%s%.0u", vendor, cls, gen, meth,
                     (uint32_t)(m / nm));
        }
        fn->name = keep(buf);
        fn->file = class_file0 + c;
        fn->line = 20 + m * 23 + below(&r, 10);
        fn->self_time = 20 + skewed(&r, 3000);
    }
    for (uint32_t i = 0; i < g->ninternal; i++) {
        xfunc *fn = &g->fns[user_end + i];
        snprintf(buf, sizeof buf, "php::%s", php_internal[i]);
        fn->name = keep(buf);
        fn->file = 0;
        fn->internal = 1;
        fn->self_time = 2 + skewed(&r, 120);
    }
    /* Call sites: user functions call internal ones and functions further down the stack. */
    size_t cap = (size_t)g->nfns * 8 + 64;
    g->sites = xcalloc(cap, sizeof *g->sites);
    uint32_t ns = 0;
#define SITE(from, to, ln, lp, pm)                                                                 \
    do {                                                                                           \
        g->sites[ns++] = (xsite){(ln), (to), (uint16_t)(lp), (uint16_t)(pm)};                      \
        g->fns[from].nsites++;                                                                     \
    } while (0)
    g->fns[X_MAIN].site_begin = ns;
    SITE(X_MAIN, X_AUTOLOAD, 18, 0, 1000);
    SITE(X_MAIN, X_KERNEL, 52, 0, 1000);
    g->fns[X_AUTOLOAD].site_begin = ns;
    for (uint32_t i = 0; i < 6; i++)
        SITE(X_AUTOLOAD, user_end + below(&r, g->ninternal), 7 + i, 0, 1000);
    g->fns[X_KERNEL].site_begin = ns;
    SITE(X_KERNEL, X_DAEMON, 198, 0, 1000);
    g->fns[X_DAEMON].site_begin = ns; /* the job loop is driven by the size, see gen_xdebug */
    g->fns[X_NEXT_JOB].site_begin = ns;
    SITE(X_NEXT_JOB, user_end + 9, 351, 0, 1000);
    SITE(X_NEXT_JOB, X_ANY_HANDLER, 360, 0, 1000); /* the job's own handler */
    SITE(X_NEXT_JOB, X_ANY_HANDLER, 364, 3, 700);  /* its listeners */
    for (uint32_t f = X_FIXED; f < user_end; f++) {
        xfunc *fn = &g->fns[f];
        fn->site_begin = ns;
        uint32_t n = below(&r, 8);
        uint32_t line = fn->line + 2;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k = below(&r, 100), to;
            if (k < 45) {
                to = user_end + skewed(&r, g->ninternal);
            } else if (k < 47) {
                to = f; /* recursion */
            } else {
                uint32_t span = user_end - f - 1;
                if (span == 0) {
                    to = user_end + below(&r, g->ninternal);
                } else {
                    if (span > 400) span = 400;
                    to = f + 1 + skewed(&r, span);
                }
            }
            uint32_t loop = below(&r, 100) < 18 ? 2 + skewed(&r, 24) : 0;
            uint32_t permille = to == f ? 300 : 400 + below(&r, 601);
            line += 1 + below(&r, 6);
            SITE(f, to, line, loop, permille);
        }
    }
#undef SITE
}

static void gen_xdebug(uint64_t size_mb, out *o) {
    xgen *g = xcalloc(1, sizeof *g);
    g->o = o;
    setup_xdebug(g, size_mb);
    g->r.s = mix(SEED, 0x10b);
    uint64_t target = size_mb * 1000000;
    need(o);
    PUT(o, "version: 1\ncreator: xdebug 3.2.2 (PHP 8.2.7)\ncmd: /var/www/app/artisan\n"
           "part: 1\npositions: line\n\nevents: Time_(10ns) Memory_(bytes)\n\n");

    uint64_t t, m, main_time = 0, main_mem = 0;
    xframe *top = &g->frames[X_MAX_DEPTH + 2];
    xframe *daemon = &g->frames[X_MAX_DEPTH + 1];
    top->n = 0;
    /* {main} -> autoload, Kernel->handle -> Worker->daemon -> Worker->runNextJob, job after
     * job until the file is big enough */
    g->budget = INT64_MAX;
    xinvoke(g, X_AUTOLOAD, 1, 18, &t, &m);
    xframe_push(top, (xcall){X_AUTOLOAD, 18, t, m});
    main_time += t, main_mem += m;
    daemon->n = 0;
    uint64_t daemon_time = 0, daemon_mem = 0;
    while (out_pos(o) < target) {
        g->budget = 200 + skewed(&g->r, 6000);
        xinvoke(g, X_NEXT_JOB, 4, 142, &t, &m);
        xframe_push(daemon, (xcall){X_NEXT_JOB, 142, t, m});
        daemon_time += t, daemon_mem += m;
        if (m > g->peak_mem) g->peak_mem = m;
    }
    uint64_t self = 300 + below(&g->r, 300);
    xwrite_block(g, X_DAEMON, g->fns[X_DAEMON].line, self, 0, daemon);
    daemon_time += self;
    xframe kernel = {NULL, 0, 0};
    xframe_push(&kernel, (xcall){X_DAEMON, 198, daemon_time, daemon_mem});
    self = 900 + below(&g->r, 300);
    xwrite_block(g, X_KERNEL, g->fns[X_KERNEL].line, self, 1024, &kernel);
    xframe_push(top, (xcall){X_KERNEL, 52, daemon_time + self, daemon_mem + 1024});
    main_time += daemon_time + self, main_mem += daemon_mem + 1024;
    self = 2000 + below(&g->r, 1000);
    xwrite_block(g, X_MAIN, g->fns[X_MAIN].line, self, 393216, top);
    main_time += self;
    need(o);
    PUT(o, "summary: ");
    put_u(o, main_time);
    putc_(o, ' ');
    put_u(o, 393216 + 2 * g->peak_mem + main_mem / 4096);
    PUT(o, "\n\n");
    free(kernel.calls);
}

/* ---- main --------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: gen instr|line13|single|xdebug SIZE_MB OUT\n");
        return 2;
    }
    char *end;
    unsigned long long size_mb = strtoull(argv[2], &end, 10);
    if (*end || size_mb == 0 || size_mb > 1000000) {
        fprintf(stderr, "gen: bad size '%s' (megabytes, 1 or more)\n", argv[2]);
        return 2;
    }
    const char *kind = argv[1];
    int which = strcmp(kind, "instr") == 0    ? 0
                : strcmp(kind, "line13") == 0 ? 1
                : strcmp(kind, "xdebug") == 0 ? 2
                : strcmp(kind, "single") == 0 ? 3
                                              : -1;
    if (which < 0) {
        fprintf(stderr, "gen: unknown kind '%s' (instr, line13, single or xdebug)\n", kind);
        return 2;
    }
    out o = {-1, malloc(OUT_BUF), 0, 0};
    if (!o.buf) die("malloc");
    o.fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o.fd < 0) die(argv[3]);
    if (which == 2) {
        gen_xdebug(size_mb, &o);
    } else {
        gen_callgrind(which == 1, which == 3, size_mb, &o);
    }
    out_flush(&o);
    if (close(o.fd) != 0) die(argv[3]);
    return 0;
}
