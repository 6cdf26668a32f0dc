-- bench/ccsource.lua: writes a C file for gcc's cc1 to compile under valgrind, so that the bench
-- has a real profile of a big program (bench/run.lua, the gcc profile).
--
--   lua5.4 bench/ccsource.lua FUNCTIONS OUT
--
-- The file needs no header (cc1 runs alone, with its own preprocessor) and holds FUNCTIONS
-- functions of a dozen kinds (integer loops with branches and switches, structs and pointers,
-- floating point, strings, bit tricks, function pointers, recursion, gotos, inline helpers),
-- each with its own constants and calling some of the ones before it, so that the compiler runs
-- much of its optimizer: the profile grows with the variety of the code more than with its
-- length. The same arguments always give the same bytes.

local nfunctions = tonumber(arg[1] or "")
local out_path = arg[2]
if not nfunctions or nfunctions < 1 or not out_path then
  io.stderr:write("usage: lua5.4 bench/ccsource.lua FUNCTIONS OUT\n")
  os.exit(2)
end

-- A small deterministic generator (an LCG on 31 bits, exact on every Lua).
local state = 12345
local function below(n)
  state = (state * 1103515245 + 12345) % 2147483648
  return state % n
end

local out = {}
local function put(fmt, ...)
  out[#out + 1] = fmt:format(...)
end

put([[
int printf(const char *, ...);
void *memcpy(void *, const void *, unsigned long);
unsigned long strlen(const char *);
double sqrt(double);

struct point { int x, y; double w; };
struct node { struct node *next; int key; long value; char tag[8]; };
typedef long (*op_fn)(long, long);

static inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline unsigned rotl(unsigned v, int k) { return (v << (k & 31)) | (v >> ((32 - k) & 31)); }
static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * b; }
static long op_xor(long a, long b) { return a ^ b; }
static op_fn ops[4] = { op_add, op_sub, op_mul, op_xor };
]])

-- Each kind writes the body of function `i` (signature `long fI(int *a, int n)`),
-- given a callee `j` (< i) or nil.
local kinds = {}

kinds[#kinds + 1] = function(i, j)
  put("  long s = %d;\n", i)
  put("  for (int k = 0; k < n; k++) {\n")
  put("    if (a[k] %% %d == 0) s += a[k] * %d; else s ^= a[k] << %d;\n", 2 + below(9), 1 + below(50), below(8))
  put("    switch (a[k] & 7) { case 0: s += %d; break; case 1: s -= k; break; case 3: s *= 3; break;\n", below(100))
  put("      case 5: s = s / 2 + %d; break; default: s ^= k * %d; }\n", below(64), 1 + below(9))
  put("  }\n")
  if j then put("  s += f%d(a, n - 1);\n", j) end
  put("  return s;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  struct point p[16];\n")
  put("  for (int k = 0; k < 16; k++) { p[k].x = a[k %% (n > 0 ? n : 1)] + %d; p[k].y = k * %d; p[k].w = k * %d.5; }\n",
    below(50), 1 + below(7), below(9))
  put("  long s = 0;\n")
  put("  for (int k = 1; k < 16; k++) {\n")
  put("    struct point *q = &p[k], *r = &p[k - 1];\n")
  put("    s += q->x * r->y - q->y * r->x + (long)(q->w * %d.25);\n", 1 + below(5))
  put("    if (q->x > r->x) { struct point t = *q; *q = *r; *r = t; }\n")
  put("  }\n")
  if j then put("  s += f%d(a, n / 2);\n", j) end
  put("  return s;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  double x = %d.0, y = 0.5;\n", 1 + below(20))
  put("  for (int k = 0; k < n; k++) {\n")
  put("    x = x * 0.%d + a[k] / (double)(k + 1);\n", 1 + below(98))
  put("    y += sqrt(x * x + %d.0) / (1.0 + y * 0.0%d);\n", below(10), 1 + below(9))
  put("    if (x > 1e6) x = x / 3.0;\n")
  put("  }\n")
  if j then put("  y += (double)f%d(a, n - 2);\n", j) end
  put("  return (long)(x + y);\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  char buf[64]; const char *src = \"%s\";\n", ("abcdefghij"):sub(1, 1 + below(10)) .. i)
  put("  unsigned long len = strlen(src);\n")
  put("  memcpy(buf, src, len + 1);\n")
  put("  long h = %d;\n", 5381 + below(1000))
  put("  for (unsigned long k = 0; k < len; k++) {\n")
  put("    if (buf[k] >= 'a' && buf[k] <= 'z') buf[k] = (char)(buf[k] - 32);\n")
  put("    h = h * 33 + buf[k];\n")
  put("  }\n")
  put("  for (int k = 0; k < n; k++) h += buf[k %% len] * a[k];\n")
  if j then put("  h ^= f%d(a, n - 3);\n", j) end
  put("  return h;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  unsigned v = %du;\n", 2166136261 % (100000 + below(900000)))
  put("  for (int k = 0; k < n; k++) {\n")
  put("    v = rotl(v ^ (unsigned)a[k], %d) * 16777619u;\n", 1 + below(30))
  put("    v += __builtin_popcount(v) << %d;\n", below(5))
  put("    if (v & 0x%x) v = ~v;\n", 1 + below(65535))
  put("  }\n")
  if j then put("  v += (unsigned)f%d(a, n - 1);\n", j) end
  put("  return (long)v;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  long s = %d;\n", below(1000))
  put("  for (int k = 0; k < n; k++) s = ops[(a[k] + %d) & 3](s, a[k] + k);\n", below(4))
  if j then put("  s = ops[%d](s, f%d(a, n - 1));\n", below(4), j) end
  put("  return s;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  if (n <= 1) return %d;\n", 1 + below(9))
  put("  if (a[0] %% %d == 0) return f%d(a + 1, n - 1) + %d;\n", 2 + below(5), i, below(9))
  if j then put("  return f%d(a, n - 1) * 2 + f%d(a + 1, n - 2);\n", i, j) end
  if not j then put("  return f%d(a, n - 1) * 2;\n", i) end
end

kinds[#kinds + 1] = function(i, j)
  put("  long s = 0; int k = 0;\n")
  put("again:\n")
  put("  if (k >= n) goto done;\n")
  put("  s += clamp(a[k] * %d, -%d, %d);\n", 1 + below(9), 100 + below(900), 100 + below(900))
  put("  if (s > %d) { s -= %d; k += 2; goto again; }\n", 1000 + below(9000), below(500))
  put("  k++;\n  goto again;\ndone:\n")
  if j then put("  s += f%d(a, n - 1);\n", j) end
  put("  return s;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  struct node nodes[%d]; struct node *head = 0;\n", 4 + below(12))
  put("  int m = (int)(sizeof nodes / sizeof nodes[0]);\n")
  put("  for (int k = 0; k < m; k++) {\n")
  put("    nodes[k].key = a[k %% (n > 0 ? n : 1)] ^ %d; nodes[k].value = k * %dL;\n", below(255), 1 + below(99))
  put("    nodes[k].tag[0] = (char)('a' + k %% 26); nodes[k].tag[1] = 0;\n")
  put("    struct node **pp = &head;\n")
  put("    while (*pp && (*pp)->key < nodes[k].key) pp = &(*pp)->next;\n")
  put("    nodes[k].next = *pp; *pp = &nodes[k];\n")
  put("  }\n")
  put("  long s = 0;\n")
  put("  for (struct node *p = head; p; p = p->next) s = s * 31 + p->key + p->value + p->tag[0];\n")
  if j then put("  s -= f%d(a, n - 1);\n", j) end
  put("  return s;\n")
end

kinds[#kinds + 1] = function(i, j)
  local m = 3 + below(6)
  put("  long mat[%d][%d], s = 0;\n", m, m)
  put("  for (int r = 0; r < %d; r++)\n    for (int c = 0; c < %d; c++) mat[r][c] = a[(r * %d + c) %% (n > 0 ? n : 1)] + r - c;\n",
    m, m, m)
  put("  for (int r = 0; r < %d; r++)\n    for (int c = 0; c < %d; c++)\n      for (int k = 0; k < %d; k++) s += mat[r][k] * mat[k][c];\n",
    m, m, m)
  if j then put("  s += f%d(a, n - 1) %% %d;\n", j, 2 + below(97)) end
  put("  return s;\n")
end

kinds[#kinds + 1] = function(i, j)
  put("  long s = 0;\n")
  put("  for (int k = 0; k < n; k++) {\n")
  put("    long v = a[k];\n")
  put("    s += v > %d ? v * v : v < -%d ? -v : v / %d;\n", below(100), below(100), 2 + below(7))
  put("    s = s %% 1000003 + (s >> %d);\n", 1 + below(12))
  put("  }\n")
  if j then put("  if (s & 1) s += f%d(a, n - 1); else s -= f%d(a, n - 2);\n", j, j) end
  put("  return s;\n")
end

for i = 0, nfunctions - 1 do
  local j = i > 0 and below(3) > 0 and (i - 1 - below(math.min(i, 20))) or nil
  put("long f%d(int *a, int n);\n", i)
  put("long f%d(int *a, int n) {\n", i)
  put("  if (n <= 0) return %d;\n", i % 17)
  kinds[below(#kinds) + 1](i, j)
  put("}\n\n")
end

put("int main(void) {\n  int a[64];\n  for (int i = 0; i < 64; i++) a[i] = i * 7 - 100;\n  long s = 0;\n")
for i = math.max(0, nfunctions - 16), nfunctions - 1 do put("  s += f%d(a, 12);\n", i) end
put("  printf(\"%%ld\\n\", s);\n  return 0;\n}\n")

local f = assert(io.open(out_path, "wb"))
f:write(table.concat(out))
assert(f:close())
