// The YAML packed scanner in C++ (issue 28): a speed-up of harness/case-readers/vector-yaml.ts's
// packScan as YamlScanner.packRun calls it, never a second reader. From a list item's first line
// on, it reads items of the packed shape one after another (each to the line that starts the next
// item), and writes for each the fields packScan leaves in PackFields, with its lines, as a record
// (scan_common.h); at the first item it does not take it stops, and the TypeScript reader reads that
// item as it always has (packScan, then the fast and general paths). It takes a subset of what
// packScan takes: every list element `"0x"`, `'0x'` or a plain `0x` and 4, 8 or 16 hex digits
// (read here, as the JSON-lines scanner reads its elements), 64 instruction spellings a file. For an
// item it takes, its record equals packScan's fields: tests/case-readers/yaml-native.test.ts
// checks both on the same items, and files read with it and without it.
//
// The functions below are packScan's, one for one, and keep its names. Like packScan they read the
// bytes in place: the data u[0, n) is followed by at least SLACK zero bytes (YamlScanner.sbuf; the
// call checks them), and every loop stops at a zero byte, as packScan's do at the array's end.
//
// scanYaml(u, s, n, last, indent, rec, tbl, tix) -> number of records
//   u       Uint8Array: the data u[0, n), then SLACK zero bytes; an item starts at s
//   last    whether u[n] is the file's end (an item that reaches n ends there; else it may go on)
//   indent  the list's indentation: an item's first line is `indent` spaces, '-', ' '
//   rec     Int32Array: the records; tbl, tix: the file's instruction spellings (scan_common.h)
#include "scan_common.h"

namespace scan {
namespace {

constexpr int SLACK = 64;
constexpr int SP = ' ', NL = '\n', CR = '\r';
// R_INSTR of an item whose spelling is not in the table yet (ScanYaml adds it when it takes the item)
constexpr int NEW_SPELLING = -2;

inline bool isKeyByte(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9'); }
inline bool isAlnum(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
inline bool isPlainByte(int c) { return isAlnum(c) || c == '_' || c == '.' || c == '-' || c == '(' || c == ')'; }
inline bool isLetter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isDigit(int c) { return c >= '0' && c <= '9'; }

// Whether u[s, s + n) is exactly the literal k
template <int N>
inline bool is(const uint8_t* u, int64_t s, int64_t n, const char (&k)[N]) {
  return n == N - 1 && same(u + s, k);
}

// One item being read (packScan's state: LN, KEY, nameLineStart; PF is the record)
struct Item {
  const uint8_t* u;
  int64_t e;  // the data's end, n
  Spellings& T;
  int32_t* r;    // the record
  int32_t* pre;  // where the next element's triple goes
  int LN = 0;
  int KEY = 0;
  int64_t nameLineStart = 0;
  // the instruction's bytes, where R_INSTR is NEW_SPELLING
  int64_t instrAt = 0;
  int instrLen = 0;
  const int8_t* HEX = tables().hex;
  const uint8_t* NAME_BYTE = tables().nameByte;

  // keyAt: the key at u[p] (plain [A-Za-z0-9_]+, or the same in double or single quotes) followed
  // by ':', as one of the keys of `inner` (0 a case, 1 operands, 2 expect) in KEY; the offset after
  // the ':', or -1 (packScan's plainKey, plainOperand and plainExpect are this one's fast paths)
  int64_t keyAt(int64_t p, int inner) {
    const int q = u[p];
    int64_t s = p, i;
    if (q == '"' || q == '\'') {
      s = p + 1;
      i = s;
      while (isKeyByte(u[i])) i++;
      if (u[i] != q) return -1;
      p = i + 1;
    } else {
      i = p;
      while (isKeyByte(u[i])) i++;
      p = i;
    }
    if (u[p] != ':') return -1;
    const int64_t n = i - s;
    KEY = 0;
    if (inner == 0) {
      if (is(u, s, n, "name")) KEY = 1;
      else if (is(u, s, n, "instruction")) KEY = 2;
      else if (is(u, s, n, "space")) KEY = 3;
      else if (is(u, s, n, "memory")) KEY = 4;
      else if (is(u, s, n, "operands")) KEY = 5;
      else if (is(u, s, n, "expect")) KEY = 6;
    } else if (inner == 1) {
      if (n == 1) KEY = u[s] == 'b' ? 11 : u[s] == 'c' ? 12 : 0;
    } else if (is(u, s, n, "memory")) KEY = 13;
    else if (is(u, s, n, "returned")) KEY = 14;
    return KEY ? p + 1 : -1;
  }

  // After a value at u[p]: spaces, an optional comment (' #...'), the line's end. The next line's start (LN counts the line), or -1
  int64_t endLine(int64_t p) {
    const int64_t s = p;
    while (u[p] == SP) p++;
    if (p >= e) {
      LN++;
      return e;
    }
    const int c = u[p];
    if (c == '#') {
      if (p == s) return -1;
      return skipRest(p);
    }
    if (c == CR) {
      if (u[p + 1] != NL) return -1;
      p++;
    } else if (c != NL) return -1;
    LN++;
    return p + 1;
  }

  // Whether the line whose first non-space byte is at u[p] holds nothing (blank, or a comment)
  bool emptyAt(int64_t p) const {
    if (p >= e) return true;
    const int c = u[p];
    return c == NL || c == '#' || (c == CR && u[p + 1] == NL);
  }

  // The start of the line after u[p] (e when there is none); LN counts the line
  int64_t skipRest(int64_t p) {
    const void* f = p < e ? std::memchr(u + p, NL, size_t(e - p)) : nullptr;
    LN++;
    return f ? static_cast<const uint8_t*>(f) - u + 1 : e;
  }

  // The end of an element token at u[p]: "double-quoted" (no escape), 'single-quoted' (no ''), or plain letters and digits; or -1
  int64_t tokenEnd(int64_t p) const {
    const int q = u[p];
    if (q == '"') {
      for (int64_t i = p + 1;; i++) {
        const int c = u[i];
        if (c == '"') return i + 1;
        if (c == '\\' || c < 32) return -1;
      }
    }
    if (q == '\'') {
      for (int64_t i = p + 1;; i++) {
        const int c = u[i];
        if (c == '\'') return u[i + 1] == '\'' ? -1 : i + 1;
        if (c < 32) return -1;
      }
    }
    int64_t i = p;
    while (isAlnum(u[i])) i++;
    return i > p ? i : -1;
  }

  // Element k of list L, the token u[s, t): read as hex (digits, low word, high word); false past
  // MAX_ELEMS (packScan's element) or when it is not "0x", '0x' or 0x and 4, 8 or 16 hex digits
  // (packScan takes it; the TypeScript reader then reads the item)
  bool element(int L, int k, int64_t s, int64_t t) {
    if (k >= MAX_ELEMS) return false;
    if (k == 0) r[R_POS + L] = int32_t(pre - r);
    const int q = u[s];
    const int64_t d = q == '"' || q == '\'' ? s + 1 : s;
    const int64_t digits = (q == '"' || q == '\'' ? t - 1 : t) - d - 2;
    if (u[d] != '0' || u[d + 1] != 'x') return false;
    uint32_t lo = 0, hi = 0;
    if (digits == 4) {
      if (!hexAt<4>(HEX, u, d + 2, lo)) return false;
    } else if (digits == 8) {
      if (!hexAt<8>(HEX, u, d + 2, lo)) return false;
    } else if (digits == 16) {
      if (!hexAt<8>(HEX, u, d + 2, hi) || !hexAt<8>(HEX, u, d + 10, lo)) return false;
    } else
      return false;
    pre[0] = int32_t(digits);
    pre[1] = int32_t(lo);
    pre[2] = int32_t(hi);
    pre += 3;
    return true;
  }

  // The flow list `[ a, b ]` at u[p] ('['), its elements recorded as list L; the offset after ']', or -1
  int64_t flowList(int64_t p, int L) {
    p++;
    while (u[p] == SP) p++;
    for (int k = 0;;) {
      const int64_t t = tokenEnd(p);
      if (t < 0 || !element(L, k, p, t)) return -1;
      k++;
      p = t;
      while (u[p] == SP) p++;
      const int c = u[p];
      if (c == ']') {
        r[R_CNT + L] = k;
        return p + 1;
      }
      if (c != ',') return -1;
      p++;
      while (u[p] == SP) p++;
    }
  }

  // A block sequence from the line at u[p]: `- element` lines at one column, at least `col`, blank
  // and comment lines between; recorded as list L. The start of the first line after it, or -1
  int64_t blockSeq(int64_t p, int64_t col, int L) {
    int64_t at = -1;
    int k = 0;
    while (p < e) {
      const int64_t ls = p;
      while (u[p] == SP) p++;
      if (emptyAt(p)) {
        p = skipRest(p);
        continue;
      }
      const int64_t ind = p - ls;
      if (at < 0) {
        if (ind < col || u[p] != '-') return -1;
        at = ind;
      } else if (ind < at || (ind == at && u[p] != '-')) {
        p = ls;
        break;
      } else if (ind != at)
        return -1;
      if (u[p + 1] != SP) return -1;
      p += 2;
      while (u[p] == SP) p++;
      const int64_t t = tokenEnd(p);
      if (t < 0 || !element(L, k, p, t)) return -1;
      k++;
      p = endLine(t);
      if (p < 0) return -1;
    }
    if (k == 0) return -1;
    r[R_CNT + L] = k;
    return p;
  }

  // Marks list L (1..4) present; false when it already is (a duplicate key)
  bool markList(int L) {
    if (r[R_LIST + L] >= 0) return false;
    r[R_LIST + L] = 0;
    return true;
  }

  // The flow map `{ b: [..], c: [..] }` (inner 1) or `{ memory: [..], returned: [..] }` (inner 2) at u[p] ('{'); the offset after '}', or -1
  int64_t flowMap(int64_t p, int inner) {
    p++;
    while (u[p] == SP) p++;
    for (;;) {
      const int64_t a = keyAt(p, inner);
      if (a < 0 || u[a] != SP) return -1;
      const int L = KEY - 10;
      int64_t q = a;
      while (u[q] == SP) q++;
      if (u[q] != '[' || !markList(L)) return -1;
      p = flowList(q, L);
      if (p < 0) return -1;
      while (u[p] == SP) p++;
      const int c = u[p];
      if (c == '}') return p + 1;
      if (c != ',') return -1;
      p++;
      while (u[p] == SP) p++;
    }
  }

  // A block map from the line at u[p] (after its key's line, the key at column keyCol): key lines
  // at one column past keyCol, each with a flow list on its line or a block sequence under it. The
  // start of the first line after it, or -1
  int64_t blockMap(int64_t p, int64_t keyCol, int inner) {
    int64_t col = -1;
    int n = 0;
    while (p < e) {
      const int64_t ls = p;
      while (u[p] == SP) p++;
      if (emptyAt(p)) {
        p = skipRest(p);
        continue;
      }
      const int64_t ind = p - ls;
      if (ind <= keyCol) {
        p = ls;
        break;
      }
      if (col < 0) col = ind;
      else if (ind != col)
        return -1;
      const int64_t a = keyAt(p, inner);
      if (a < 0) return -1;
      const int L = KEY - 10;
      if (!markList(L)) return -1;
      int64_t q = a;
      while (u[q] == SP) q++;
      if (q > a && u[q] == '[') {
        const int64_t t = flowList(q, L);
        if (t < 0) return -1;
        p = endLine(t);
      } else {
        const int64_t nx = endLine(a);
        if (nx < 0) return -1;
        p = blockSeq(nx, col, L);
      }
      if (p < 0) return -1;
      n++;
    }
    return n > 0 ? p : -1;
  }

  // The end of a scalar value at u[p] (quoted as tokenEnd takes it, or plain: bytes of isPlainByte,
  // and ':' not followed by a space or the line's end, as in `atom.shared::cta.add.u32`), or -1
  int64_t scalarEnd(int64_t p) const {
    const int q = u[p];
    if (q == '"' || q == '\'') return tokenEnd(p);
    int64_t i = p;
    for (;;) {
      const int c = u[i];
      if (isPlainByte(c))
        i++;
      else if (c == ':' && i > p) {
        int64_t j = i + 1;
        while (u[j] == ':') j++;
        if (!isPlainByte(u[j])) break;
        i = j;
      } else
        break;
    }
    return i > p ? i : -1;
  }

  // Whether the plain scalar u[s, e) is a string as written under YAML's core schema (not null, a boolean or a number)
  bool plainIsString(int64_t s, int64_t end) const {
    const int c0 = u[s];
    if (isLetter(c0)) {
      const int64_t n = end - s;
      if (n != 4 && n != 5) return true;
      return !(is(u, s, n, "null") || is(u, s, n, "Null") || is(u, s, n, "NULL") || is(u, s, n, "true") || is(u, s, n, "True") || is(u, s, n, "TRUE") || is(u, s, n, "false") ||
               is(u, s, n, "False") || is(u, s, n, "FALSE"));
    }
    if (c0 == '_') return true;
    if (!isDigit(c0) || u[s + 1] == 'x' || u[s + 1] == 'o') return false;
    for (int64_t i = s + 1; i < end; i++) {
      const int c = u[i];
      if (!(isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return true;
    }
    return false;
  }

  // A scalar of key 1-3 at u[s, t) (as scalarEnd found it) into the record; false when it does not pack
  bool scalarValue(int key, int64_t s, int64_t t) {
    const int q = u[s];
    const bool quoted = q == '"' || q == '\'';
    if (!quoted && !plainIsString(s, t)) return false;
    const int64_t qs = quoted ? s + 1 : s;
    const int64_t qe = quoted ? t - 1 : t;
    if (key == 1) {
      if (r[R_NAME_AT] >= 0 || qe <= qs) return false;
      uint32_t h = 0x811c9dc5u;
      for (int64_t i = qs; i < qe; i++) {
        const uint8_t c = u[i];
        if (!NAME_BYTE[c]) return false;
        h = (h ^ c) * 0x01000193u;
      }
      r[R_NAME_AT] = int32_t(qs);
      r[R_NAME_END] = int32_t(qe);
      r[R_HASH] = int32_t(h | 1);
      r[R_COL] = int32_t(s - nameLineStart + 1);
      return true;
    }
    if (key == 2) {
      // a spelling not yet in the table is added when the item is taken (an item cut off at the
      // data's end, not taken, must not add the part of its spelling read so far)
      if (r[R_INSTR] != -1 || qe <= qs || qe - qs > TBL_W) return false;
      const int id = T.find(u + qs, int(qe - qs), false);
      r[R_INSTR] = id >= 0 ? id : NEW_SPELLING;
      instrAt = qs;
      instrLen = int(qe - qs);
      return true;
    }
    if (r[R_SPACE] != 0) return false;
    r[R_SPACE] = is(u, qs, qe - qs, "global") ? 1 : is(u, qs, qe - qs, "shared") ? 2 : 3;
    return true;
  }

  // packScan with findEnd: the item from u[s] (first line `indent` spaces and '- ') into the
  // record, to the next line that starts an item or to e when `last`; its end in *end
  bool packScan(int64_t s, int64_t indent, bool last, int64_t* end) {
    resetRecord(r);
    pre = r + R_HEAD;
    LN = 0;
    int nameLine = 0;
    int64_t p = s + indent + 1;
    if (u[p] != SP) return false;
    while (u[p] == SP) p++;
    const int64_t keyCol = p - s;
    for (;;) {
      const int64_t a = keyAt(p, 0);
      if (a < 0) return false;
      const int key = KEY;
      if (key == 1) {
        nameLine = LN;
        nameLineStart = p - keyCol;
      }
      int64_t v = a;
      while (u[v] == SP) v++;
      const int c = u[v];
      const bool eol = v >= e || c == NL || c == CR;
      if (v == a && !eol) return false;  // `key:value` is one plain scalar in YAML
      if (eol || c == '#') {
        // nothing on the key's line: a block value under it
        const int64_t nx = endLine(a);
        if (nx < 0) return false;
        if (key == 4) {
          if (r[R_LIST] >= 0) return false;
          r[R_LIST] = 0;
          p = blockSeq(nx, keyCol, 0);
        } else if (key == 5 || key == 6) {
          const int flag = key == 5 ? 1 : 2;
          if (r[R_FLAGS] & flag) return false;
          r[R_FLAGS] |= flag;
          p = blockMap(nx, keyCol, key - 4);
        } else
          return false;
        if (p < 0) return false;
      } else {
        int64_t t;
        if (key == 4) {
          if (r[R_LIST] >= 0 || c != '[') return false;
          r[R_LIST] = 0;
          t = flowList(v, 0);
        } else if (key == 5 || key == 6) {
          const int flag = key == 5 ? 1 : 2;
          if (c != '{' || (r[R_FLAGS] & flag)) return false;
          r[R_FLAGS] |= flag;
          t = flowMap(v, key - 4);
        } else {
          t = scalarEnd(v);
          if (t < 0 || !scalarValue(key, v, t)) return false;
        }
        if (t < 0) return false;
        p = endLine(t);
        if (p < 0) return false;
      }
      // the next key's line (blank and comment lines skipped), or the item's end
      for (;;) {
        if (p >= e) {
          if (!last) return false;
          *end = e;
          r[R_LINES] = LN;
          r[R_NAMELINE] = nameLine;
          return r[R_NAME_AT] >= 0;
        }
        const int64_t ls = p;
        while (u[p] == SP) p++;
        if (!emptyAt(p)) {
          if (p - ls == keyCol) break;
          if (p - ls == indent && u[p] == '-' && u[p + 1] == SP) {
            *end = ls;
            r[R_LINES] = LN;
            r[R_NAMELINE] = nameLine;
            return r[R_NAME_AT] >= 0;
          }
          return false;
        }
        p = skipRest(p);
      }
    }
  }
};

}  // namespace

Napi::Value ScanYaml(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 8 || !info[0].IsTypedArray() || !info[5].IsTypedArray() || !info[6].IsTypedArray() || !info[7].IsTypedArray()) {
    Napi::TypeError::New(env, "scanYaml(u, s, n, last, indent, rec, tbl, tix)").ThrowAsJavaScriptException();
    return env.Null();
  }
  auto u = info[0].As<Napi::Uint8Array>();
  const int64_t s = info[1].As<Napi::Number>().Int64Value();
  const int64_t n = info[2].As<Napi::Number>().Int64Value();
  const bool last = info[3].ToBoolean().Value();
  const int64_t indent = info[4].As<Napi::Number>().Int64Value();
  auto rec = info[5].As<Napi::Int32Array>();
  auto tbl = info[6].As<Napi::Uint8Array>();
  auto tix = info[7].As<Napi::Int32Array>();
  if (n < 0 || size_t(n) + SLACK > u.ElementLength() || n > INT32_MAX || s < 0 || s > n || indent < 0 || tbl.ElementLength() < size_t(TBL_N * TBL_W) ||
      tix.ElementLength() < size_t(1 + TBL_N + SLOTS) || tix[0] < 0 || tix[0] > TBL_N) {
    Napi::RangeError::New(env, "scanYaml: bad offsets or tables").ThrowAsJavaScriptException();
    return env.Null();
  }
  const uint8_t* const u0 = u.Data();
  for (int i = 0; i < SLACK; i++)
    if (u0[n + i] != 0) {
      Napi::RangeError::New(env, "scanYaml: the data must be followed by 64 zero bytes").ThrowAsJavaScriptException();
      return env.Null();
    }
  Spellings T{tbl.Data(), tix.Data()};
  int32_t* const r0 = rec.Data();
  const size_t cap = rec.ElementLength();
  size_t w = 0;
  int count = 0;
  for (int64_t p = s; p < n && w + REC_MAX <= cap; count++) {
    // the item's first line: `indent` spaces, '-', ' ' (YamlScanner.packRun's test)
    int64_t i = p;
    while (i < p + indent && u0[i] == SP) i++;
    if (i != p + indent || u0[i] != '-' || u0[i + 1] != SP) break;
    Item it{u0, n, T, r0 + w, nullptr};
    int64_t end = 0;
    if (!it.packScan(p, indent, last, &end)) break;
    if (it.r[R_INSTR] == NEW_SPELLING && (it.r[R_INSTR] = T.find(u0 + it.instrAt, it.instrLen)) < 0) break;
    it.r[R_NL] = int32_t(end);
    it.r[R_LEN] = int32_t(it.pre - it.r);
    w += size_t(it.pre - it.r);
    p = end;
  }
  return Napi::Number::New(env, count);
}

}  // namespace scan
