// The JSON-lines packed scanner in C++ (issue 28): a speed-up of harness/case-readers/vector-jsonl.ts's
// scanPackedLine, never a second reader. It reads the lines of the common shape that scanPackedLine
// reads, and writes for each line the fields scanPackedLine would leave in PackFields (a record,
// below); at the first line it does not take, it stops, and the TypeScript reader reads that line
// as it always has (scanPackedLine, then the general path). It takes a subset of what
// scanPackedLine takes (no list element other than "0x" and 4, 8 or 16 hex digits; at most 16
// elements a list, 64 instruction spellings a file), and for a line it takes, its record equals
// scanPackedLine's fields: tests/case-readers/jsonl-native.test.ts checks both on the same lines.
// Bytes at or past the data's end `n` read as 0 (scanPackedLine reads the buffer's slack there; a
// line either takes is one that ends before n, so neither's answer depends on them).
//
// scan(u, s, end, n, last, rec, tbl, tix) -> number of records
//   u    Uint8Array: the data is u[0, n); lines start at s, and none at or after `end`
//   last whether u[n] is the file's end (an unterminated last line then ends there)
//   rec  Int32Array: the records, one after another (layout: the R_ constants; a record is R_HEAD
//        words and three for each list element, lists in order)
//   tbl  Uint8Array(TBL_N * TBL_W): the instruction spellings met so far in this file, entry i at
//        i * TBL_W; tix Int32Array(1 + TBL_N + SLOTS): [0] the count, [1 + i] entry i's length,
//        then a hash index of slot -> entry + 1. Both belong to the caller's scanner (one file):
//        the record gives an instruction as its entry's number, and the caller makes each new
//        entry's string once.
#include "scan_common.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace scan {
namespace {

// A line being read: its bytes copied to `b` (b[0] is the line's first byte) with PAD zero bytes
// after its `len` (the '\n' and what follows are not copied): every read below stays within b
// without a bounds check (a zero byte ends every loop: it is no space, quote, name or hex byte),
// and 16-byte loads may start anywhere up to len. `at` is the line's offset in the data (records
// hold offsets in the data).
constexpr int PAD = 64;
constexpr int MAX_LINE = 4096;
struct Line {
  const uint8_t* b;
  int64_t len;
  int64_t at;
};

const int8_t* const HEX = tables().hex;
const uint8_t* const NAME_BYTE = tables().nameByte;

inline bool ws(int c) { return c == ' ' || c == '\t'; }

// The offset of the first byte from b[p] on that is a '"', a '\\' or below 32 (the zero padding
// stops it); scalar where there is no SSE2
inline int64_t stringStop(const uint8_t* b, int64_t p) {
#ifdef __SSE2__
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), c31 = _mm_set1_epi8(31);
  for (;; p += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + p));
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)), _mm_cmpeq_epi8(_mm_min_epu8(x, c31), x));
    const int m = _mm_movemask_epi8(stop);
    if (m) return p + __builtin_ctz(unsigned(m));
  }
#else
  for (;; p++) {
    const uint8_t d = b[p];
    if (d == '"' || d == '\\' || d < 32) return p;
  }
#endif
}

struct Out {
  int32_t* r;    // this record
  int32_t* pre;  // where the next element triple goes
};

// listAt: the list at p (line offsets); list `slot`'s elements as (digits, low word, high word);
// the offset after ']', or -1
int64_t listAt(const Line& L, int64_t p, int slot, Out& o) {
  const uint8_t* b = L.b;
  if (p < 0 || b[p] != '[') return -1;
  o.r[R_POS + slot] = int32_t(o.pre - o.r);
  p++;
  int c = b[p];
  while (ws(c)) c = b[++p];
  for (int k = 1;; k++) {
    if (c != '"' || k > MAX_ELEMS) return -1;
    // only "0x" and 4, 8 or 16 hex digits (scanPackedLine's fast elements); anything else: the caller's scanner
    if (b[p + 1] != '0' || b[p + 2] != 'x') return -1;
    const int dg = b[p + 7] == '"' ? 4 : b[p + 11] == '"' ? 8 : b[p + 19] == '"' ? 16 : 0;
    if (!dg || p + 3 + dg >= L.len) return -1;
    uint32_t lo = 0, hi = 0;
    if (dg == 4 ? !hexAt<4>(HEX, b, p + 3, lo) : !hexAt<8>(HEX, b, p + 3 + dg - 8, lo)) return -1;
    if (dg == 16 && !hexAt<8>(HEX, b, p + 3, hi)) return -1;
    o.pre[0] = dg;
    o.pre[1] = int32_t(lo);
    o.pre[2] = int32_t(hi);
    o.pre += 3;
    p = p + 4 + dg;  // after the closing quote
    c = b[p];
    while (ws(c)) c = b[++p];
    if (c == ']') {
      o.r[R_CNT + slot] = k;
      return p + 1;
    }
    if (c != ',') return -1;
    c = b[++p];
    while (ws(c)) c = b[++p];
  }
}

// Whether b[p] starts the key `"k"` (its first letter already matched): the key's letters and the closing quote
#define KEY_IS(b, p, k) same(b + p + 1, k "\"")

// innerMap: { "b": [..], "c": [..] } (operands) or { "memory": [..], "returned": [..] } (expect) at p
int64_t innerMap(const Line& L, int64_t p, bool expect, Out& o) {
  const uint8_t* b = L.b;
  if (p < 0 || b[p] != '{') return -1;
  int c = b[++p];
  while (ws(c)) c = b[++p];
  for (;;) {
    if (c != '"') return -1;
    int64_t at = -1;
    int slot = 0;
    const int k = b[p + 1];
    if (!expect) {
      if ((k == 'b' || k == 'c') && b[p + 2] == '"') {
        at = p + 3;
        slot = k == 'b' ? 1 : 2;
      }
    } else if (k == 'm' && KEY_IS(b, p, "memory")) {
      at = p + 8;
      slot = 3;
    } else if (k == 'r' && KEY_IS(b, p, "returned")) {
      at = p + 10;
      slot = 4;
    }
    if (at < 0) return -1;
    c = b[at];
    while (ws(c)) c = b[++at];
    if (c != ':') return -1;
    c = b[++at];
    while (ws(c)) c = b[++at];
    if (o.r[R_LIST + slot] >= 0) return -1;  // the key twice (setList)
    o.r[R_LIST + slot] = int32_t(L.at + at);
    p = listAt(L, at, slot, o);
    if (p < 0) return -1;
    c = b[p];
    while (ws(c)) c = b[++p];
    if (c == '}') return p + 1;
    if (c != ',') return -1;
    c = b[++p];
    while (ws(c)) c = b[++p];
  }
}

// One line (its bytes in L), as scanPackedLine reads it: whether it takes it, with its record at o.r
// (offsets in the data)
bool scanLine(const Line& L, Out& o, Spellings& T) {
  const uint8_t* b = L.b;
  int32_t* r = o.r;
  resetRecord(r);
  o.pre = r + R_HEAD;
  int64_t p = 0;
  int c = b[p];
  while (ws(c)) c = b[++p];
  if (c != '{') return false;
  c = b[++p];
  while (ws(c)) c = b[++p];
  for (;;) {
    if (c != '"') return false;
    // the key (its first letter picks it, its bytes are compared whole), then spaces, ':', spaces
    const int key = b[p + 1];
    int64_t v;
    switch (key) {
      case 'n':
        if (!KEY_IS(b, p, "name") || r[R_NAME_AT] >= 0) return false;
        v = p + 6;
        break;
      case 'i':
        if (!KEY_IS(b, p, "instruction") || r[R_INSTR] >= 0) return false;
        v = p + 13;
        break;
      case 'm':
        if (!KEY_IS(b, p, "memory") || r[R_LIST] >= 0) return false;
        v = p + 8;
        break;
      case 'o':
        if (!KEY_IS(b, p, "operands") || (r[R_FLAGS] & 1)) return false;
        v = p + 10;
        break;
      case 'e':
        if (!KEY_IS(b, p, "expect") || (r[R_FLAGS] & 2)) return false;
        v = p + 8;
        break;
      case 's':
        if (!KEY_IS(b, p, "space") || r[R_SPACE] != 0) return false;
        v = p + 7;
        break;
      default:
        return false;
    }
    c = b[v];
    while (ws(c)) c = b[++v];
    if (c != ':') return false;
    c = b[++v];
    while (ws(c)) c = b[++v];
    int64_t q = -1;
    switch (key) {
      case 'n': {
        // letters, digits, _ . - (at least one), hashed as nameHash does (FNV-1a, the low bit set)
        if (c != '"') return false;
        const int64_t i = stringStop(b, v + 1);
        if (b[i] != '"' || i == v + 1) return false;
        uint32_t h = 0x811c9dc5u;
        for (int64_t j = v + 1; j < i; j++) {
          const uint8_t d = b[j];
          if (!NAME_BYTE[d]) return false;
          h = (h ^ d) * 0x01000193u;
        }
        r[R_NAME_AT] = int32_t(L.at + v + 1);
        r[R_NAME_END] = int32_t(L.at + i);
        r[R_COL] = int32_t(v + 1);
        r[R_HASH] = int32_t(h | 1);
        q = i + 1;
        break;
      }
      case 'i': {
        // a string without escapes or control characters (stringEnd)
        if (c != '"') return false;
        const int64_t i = stringStop(b, v + 1);
        if (b[i] != '"') return false;
        const int id = T.find(b + v + 1, int(i - v - 1));
        if (id < 0) return false;
        r[R_INSTR] = id;
        q = i + 1;
        break;
      }
      case 'm':
        r[R_LIST] = int32_t(L.at + v);
        q = listAt(L, v, 0, o);
        break;
      case 'o':
        r[R_FLAGS] |= 1;
        q = innerMap(L, v, false, o);
        break;
      case 'e':
        r[R_FLAGS] |= 2;
        q = innerMap(L, v, true, o);
        break;
      default: {
        // space: "global" 1, "shared" 2, any other string 3
        if (c != '"') return false;
        const int64_t i = stringStop(b, v + 1);
        if (b[i] != '"') return false;
        const int64_t n = i - v - 1;
        r[R_SPACE] = n == 6 && std::memcmp(b + v + 1, "global", 6) == 0 ? 1 : n == 6 && std::memcmp(b + v + 1, "shared", 6) == 0 ? 2 : 3;
        q = i + 1;
      }
    }
    if (q < 0) return false;
    p = q;
    c = b[p];
    while (ws(c)) c = b[++p];
    if (c == '}') {
      // then spaces or tabs to the line's end (a '\r' may be its last byte)
      c = b[++p];
      while (ws(c)) c = b[++p];
      return p == L.len || (p + 1 == L.len && c == '\r');
    }
    if (c != ',') return false;
    c = b[++p];
    while (ws(c)) c = b[++p];
  }
}

}  // namespace

Napi::Value ScanJsonl(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 8 || !info[0].IsTypedArray() || !info[5].IsTypedArray() || !info[6].IsTypedArray() || !info[7].IsTypedArray()) {
    Napi::TypeError::New(env, "scan(u, s, end, n, last, rec, tbl, tix)").ThrowAsJavaScriptException();
    return env.Null();
  }
  auto u = info[0].As<Napi::Uint8Array>();
  const int64_t s = info[1].As<Napi::Number>().Int64Value();
  const int64_t end = info[2].As<Napi::Number>().Int64Value();
  const int64_t n = info[3].As<Napi::Number>().Int64Value();
  const bool last = info[4].ToBoolean().Value();
  auto rec = info[5].As<Napi::Int32Array>();
  auto tbl = info[6].As<Napi::Uint8Array>();
  auto tix = info[7].As<Napi::Int32Array>();
  if (n < 0 || size_t(n) > u.ElementLength() || n > INT32_MAX || s < 0 || end > n || tbl.ElementLength() < size_t(TBL_N * TBL_W) || tix.ElementLength() < size_t(1 + TBL_N + SLOTS) ||
      tix[0] < 0 || tix[0] > TBL_N) {
    Napi::RangeError::New(env, "scan: bad offsets or tables").ThrowAsJavaScriptException();
    return env.Null();
  }
  const uint8_t* const u0 = u.Data();
  Spellings T{tbl.Data(), tix.Data()};
  int32_t* const r0 = rec.Data();
  const size_t cap = rec.ElementLength();
  uint8_t buf[MAX_LINE + PAD];
  size_t w = 0;
  int count = 0;
  for (int64_t p = s; p < end && w + REC_MAX <= cap; count++) {
    // the line's end: its '\n', or the data's end where that is the file's
    const void* f = std::memchr(u0 + p, '\n', size_t(n - p));
    const int64_t nl = f ? static_cast<const uint8_t*>(f) - u0 : last ? n : -1;
    if (nl < 0 || nl - p > MAX_LINE) break;
    std::memcpy(buf, u0 + p, size_t(nl - p));
    std::memset(buf + (nl - p), 0, PAD);
    const Line L{buf, nl - p, p};
    Out o{r0 + w, nullptr};
    if (!scanLine(L, o, T)) break;
    o.r[R_NL] = int32_t(nl);
    o.r[R_LEN] = int32_t(o.pre - o.r);
    w += size_t(o.pre - o.r);
    p = nl + 1;
  }
  return Napi::Number::New(env, count);
}

}  // namespace scan
