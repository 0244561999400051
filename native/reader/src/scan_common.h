// What the vector-file scanners in C++ share (jsonl_scan.cc, yaml_scan.cc; module.cc makes the
// addon): the record layout, byte tables, small compares and the instruction-spelling table. The
// record layout is harness/case-readers/native-scan.ts's R_ constants; module.cc's `layout`
// string is checked against them when the addon loads.
#pragma once
#include <napi.h>
#include <cstdint>
#include <cstring>

namespace scan {

// A record: R_HEAD words, then three for each list element (digits, low word, high word), lists in order.
//   R_NL       the offset where the next line (JSON lines) or item (YAML) starts
//   R_NAME_AT, R_NAME_END, R_HASH, R_COL: the name's bytes, its hash (FNV-1a, low bit set), the
//              column (from 1) of its value; R_NAME_AT -1 where there is none
//   R_INSTR    the instruction's entry in the spelling table, or -1
//   R_SPACE    0 none, 1 global, 2 shared, 3 another string
//   R_FLAGS    1 operands: given, 2 expect: given
//   R_LIST + L list L (0 memory, 1 b, 2 c, 3 expect memory, 4 expect returned): >= 0 where given
//   R_CNT + L  its element count; R_POS + L: where its first element's triple is, from the record's start
//   R_LEN      the record's length in words
//   R_LINES    lines the item spans (YAML; 1 for a JSON line); R_NAMELINE: the line of its name:, from its first (0)
constexpr int R_NL = 0, R_NAME_AT = 1, R_NAME_END = 2, R_HASH = 3, R_COL = 4, R_INSTR = 5, R_SPACE = 6, R_FLAGS = 7, R_LIST = 8, R_CNT = 13, R_POS = 18, R_LEN = 23,
              R_LINES = 24, R_NAMELINE = 25, R_HEAD = 26;
constexpr int MAX_ELEMS = 16;
constexpr int REC_MAX = R_HEAD + 3 * 5 * MAX_ELEMS;
constexpr int TBL_N = 64, TBL_W = 128, SLOTS = 128;

struct Tables {
  int8_t hex[256];
  uint8_t nameByte[256];
  Tables() {
    for (int c = 0; c < 256; c++) {
      hex[c] = -1;
      nameByte[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    }
    for (int d = 0; d < 10; d++) hex['0' + d] = int8_t(d);
    for (int d = 0; d < 6; d++) hex['a' + d] = hex['A' + d] = int8_t(10 + d);
  }
};
inline const Tables& tables() {
  static const Tables t;
  return t;
}

// exactly K (4 or 8) hex digits at b[s, s + K), as a 32-bit value; false on a non-digit
template <int K>
inline bool hexAt(const int8_t* HEX, const uint8_t* b, int64_t s, uint32_t& v) {
  int bad = 0;
  uint32_t x = 0;
#pragma GCC unroll 8
  for (int i = 0; i < K; i++) {
    const int d = HEX[b[s + i]];
    bad |= d;
    x = (x << 4) | uint32_t(d & 15);
  }
  v = x;
  return bad >= 0;
}

// Whether the N - 1 bytes at a are those of k (a string literal): eight, four, then one at a time
template <int N>
inline bool same(const uint8_t* a, const char (&k)[N]) {
  int i = 0;
  for (; i + 8 <= N - 1; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, k + i, 8);
    if (x != y) return false;
  }
  if (i + 4 <= N - 1) {
    uint32_t x, y;
    std::memcpy(&x, a + i, 4);
    std::memcpy(&y, k + i, 4);
    if (x != y) return false;
    i += 4;
  }
  for (; i < N - 1; i++)
    if (a[i] != uint8_t(k[i])) return false;
  return true;
}

// Whether a[0, n) and b[0, n) are equal (n small: eight bytes at a time, then one)
inline bool equal(const uint8_t* a, const uint8_t* b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return false;
  }
  for (; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

// A file's instruction spellings: tbl (TBL_N entries of TBL_W bytes) and tix ([0] the count,
// [1 + i] entry i's length, then a hash index of SLOTS slots -> entry + 1), both the caller's (one
// file): the record gives an instruction as its entry's number, and the caller makes each new
// entry's string once. find: the entry of the n bytes at s, added if new; -1 when the table is full
// or the spelling longer than an entry. The 8 bytes from s must be readable.
struct Spellings {
  uint8_t* tbl;
  int32_t* tix;
  // add false: -1 for a spelling not in the table (nothing added)
  int find(const uint8_t* s, int n, bool add = true) {
    if (n > TBL_W) return -1;
    uint64_t a, z;
    std::memcpy(&a, s, 8);
    if (n < 8) a &= (uint64_t(1) << (8 * n)) - 1;
    if (n >= 8) std::memcpy(&z, s + n - 8, 8);
    else z = a;
    const uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (z * 0xC2B2AE3D27D4EB4Full) ^ uint64_t(n);
    int32_t* slots = tix + 1 + TBL_N;
    for (uint32_t k = uint32_t(h >> 57) & (SLOTS - 1);; k = (k + 1) & (SLOTS - 1)) {
      const int32_t x = slots[k];
      if (x == 0) {
        if (!add) return -1;
        const int id = tix[0];
        if (id >= TBL_N) return -1;
        std::memcpy(tbl + id * TBL_W, s, size_t(n));
        tix[1 + id] = n;
        slots[k] = id + 1;
        tix[0] = id + 1;
        return id;
      }
      if (x < 0 || x > tix[0]) return -1;  // not a slot a scanner wrote (the tables are the caller's)
      if (tix[x] == n && equal(tbl + (x - 1) * TBL_W, s, n)) return x - 1;
    }
  }
};

// An empty record at r (nothing found yet); its elements go from r + R_HEAD
inline void resetRecord(int32_t* r) {
  r[R_NAME_AT] = r[R_NAME_END] = -1;
  r[R_HASH] = 0;
  r[R_COL] = 1;
  r[R_INSTR] = -1;
  r[R_SPACE] = 0;
  r[R_FLAGS] = 0;
  for (int i = 0; i < 5; i++) {
    r[R_LIST + i] = -1;
    r[R_CNT + i] = 0;
    r[R_POS + i] = R_HEAD;
  }
  r[R_LINES] = 1;
  r[R_NAMELINE] = 0;
}

Napi::Value ScanJsonl(const Napi::CallbackInfo& info);
Napi::Value ScanYaml(const Napi::CallbackInfo& info);

}  // namespace scan
