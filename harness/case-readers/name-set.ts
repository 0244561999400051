/**
 * The names of a vector file's cases, for the duplicate-name check of every reader (vector-check.ts,
 * the packed readers, the native scanner's records): a hash set over the names' bytes.
 */
/**
 * The names of a file's cases and the line of each, for the duplicate check: an open-addressing
 * table of FNV-1a hashes, the names kept as bytes in one arena to compare on a hash match (names are
 * ASCII: letters, digits, _ . -). The packed readers look names up by their bytes in the file, the
 * general path by string; both hash the same char codes. About a quarter of the cost of a Map of a
 * million fresh strings, and no string per name.
 */
export class NameSet {
  private mask = (1 << 10) - 1;
  /** Entry p: table[2p] the hash, table[2p + 1] the name's number + 1 (0: empty); one cache line for both. */
  private table = new Int32Array(2 << 10);
  private arena = new Uint8Array(1 << 12);
  private used = 0;
  /** Name x: its bytes are srcs[srcOf[x]] (the arena where srcOf[x] < 0) at starts[x], lens[x] of them. */
  private starts = new Uint32Array(1 << 9);
  private lens = new Uint32Array(1 << 9);
  private srcOf = new Int32Array(1 << 9);
  /** Arrays that hold names the set refers to where they are (deferRef: a packed block's names). */
  private srcs: Uint8Array[] = [];
  private lastSrc: Uint8Array | undefined;
  private lastSrcIdx = -1;
  private lines = new Uint32Array(1 << 9);
  private count = 0;
  /** Where the last lookup that found nothing stopped, and for which hash. */
  private probeAt = -1;
  private probeHash = 0;
  private readonly scratch = new Uint8Array(256);

  /** Names recorded (deferred ones included, duplicates among them too until a flush finds them). */
  get size(): number {
    return this.count;
  }

  /** Makes room for `n` names without growing (an estimate from a file's size; cheaper than rehashing). */
  reserve(n: number): void {
    let cap = this.mask + 1;
    while (cap < 2 * n) cap *= 2;
    if (cap > this.mask + 1) this.grow(cap);
    // the per-name arrays too (they would double their way there, copying)
    let m = this.starts.length;
    while (m < n) m *= 2;
    if (m > this.starts.length) this.growNames(m);
  }

  /**
   * Names recorded by `defer` (the packed readers) and not yet in the table: numbers pend..count-1.
   * They are checked in batches (`flush`), in the order of their home slots, so that the probes walk
   * the table once from low to high instead of landing anywhere (a million random probes into a
   * table of 16 MB cost ~0.5 s of a million-case read). The first of equal names (by number, that is
   * file order) goes into the table; every later one is a duplicate (`dups`).
   */
  private pend = 0;
  private hashes = new Int32Array(1 << 9);
  private cols = new Uint32Array(1 << 9);
  private tags = new Int32Array(1 << 9);
  /** Duplicates the batches found: the later name's number, and the line of the first. */
  readonly dups: { readonly x: number; readonly firstLine: number }[] = [];

  /** Records the name u[s, e) (hash `h`) at `line` and `col` (its value's), to be checked by the next flush; `tag`: the caller's number for it. */
  defer(u: Uint8Array, s: number, e: number, h: number, line: number, col: number, tag: number): void {
    const x = this.append(u, s, e, line);
    this.hashes[x] = h;
    this.cols[x] = col;
    this.tags[x] = tag;
  }

  /**
   * Records the name src[s, e) where it is, without a copy (`src` must not change there: a packed
   * block's name bytes, written once); otherwise as `defer`.
   */
  deferRef(src: Uint8Array, s: number, e: number, h: number, line: number, col: number, tag: number): void {
    if (this.count === this.starts.length) this.growNames(this.count * 2);
    if (src !== this.lastSrc) {
      this.lastSrc = src;
      this.lastSrcIdx = this.srcs.push(src) - 1;
    }
    const x = this.count;
    this.starts[x] = s;
    this.lens[x] = e - s;
    this.srcOf[x] = this.lastSrcIdx;
    this.lines[x] = line;
    this.hashes[x] = h;
    this.cols[x] = col;
    this.tags[x] = tag;
    this.count = x + 1;
  }

  /** The array holding name x's bytes (at starts[x], lens[x] of them). */
  private src(x: number): Uint8Array {
    const i = this.srcOf[x]!;
    return i < 0 ? this.arena : this.srcs[i]!;
  }

  /** Checks the deferred names: each goes into the table, or (equal to one there or before it) into `dups`. */
  flush(): void {
    const from = this.pend;
    const to = this.count;
    if (from === to) return;
    this.pend = to;
    let inTable = this.inTable;
    let cap = this.mask + 1;
    while ((inTable + (to - from)) * 2 > cap - 1) cap *= 2;
    if (cap > this.mask + 1) this.grow(cap);
    const m = this.mask;
    const n = to - from;
    // (hash, number) pairs in order of the table region their home slot is in (regions of 512 slots,
    // 4 KB of table; a stable counting sort, one pass: equal names keep file order), so that the
    // loop below walks the table upwards, a page at a time
    let K = this.hashes.subarray(from, to);
    const X = new Int32Array(n);
    const bits = 32 - Math.clz32(m);
    const shift = bits > 9 ? 9 : bits;
    const buckets = 1 << (bits - shift);
    if (n > 64 && buckets > 1) {
      const K2 = new Int32Array(n);
      const cnt = new Int32Array(buckets + 1);
      for (let i = 0; i < n; i++) cnt[((K[i]! & m) >>> shift) + 1]!++;
      for (let d = 0; d < buckets; d++) cnt[d + 1]! += cnt[d]!;
      for (let i = 0; i < n; i++) {
        const h = K[i]!;
        const j = cnt[(h & m) >>> shift]!++;
        K2[j] = h;
        X[j] = from + i;
      }
      K = K2;
    } else for (let i = 0; i < n; i++) X[i] = from + i;
    const tb = this.table;
    for (let i = 0; i < n; i++) {
      const h = K[i]!;
      let p = h & m;
      let first = -1;
      for (; ; p = (p + 1) & m) {
        const y = tb[2 * p + 1]!;
        if (y === 0) break;
        if (tb[2 * p] !== h) continue;
        // a hash match (rare but for duplicates): compare the bytes
        const x = X[i]!;
        const len = this.lens[x]!;
        if (this.lens[y - 1] !== len) continue;
        const a = this.starts[x]!;
        const b = this.starts[y - 1]!;
        const A = this.src(x);
        const B = this.src(y - 1);
        let k = 0;
        while (k < len && B[b + k] === A[a + k]) k++;
        if (k === len) {
          first = y - 1;
          break;
        }
      }
      if (first >= 0) this.dups.push({ x: X[i]!, firstLine: this.lines[first]! });
      else {
        tb[2 * p] = h;
        tb[2 * p + 1] = X[i]! + 1;
        inTable++;
      }
    }
    this.inTable = inTable;
    this.probeAt = -1;
  }

  /** Name number x: its bytes as a string, its line, its value's column and its tag. */
  nameOf(x: number): string {
    const a = this.starts[x]!;
    const src = this.src(x);
    return Buffer.from(src.buffer, src.byteOffset + a, this.lens[x]!).toString('latin1');
  }
  lineOf(x: number): number {
    return this.lines[x]!;
  }
  colOf(x: number): number {
    return this.cols[x]!;
  }
  tagOf(x: number): number {
    return this.tags[x]!;
  }

  /** Names in the table (deferred ones not yet flushed are not). */
  private inTable = 0;

  /** The line of the name u[s, e) (its hash `h`, from nameHash), or undefined. */
  getBytes(u: Uint8Array, s: number, e: number, h: number): number | undefined {
    this.flush();
    const m = this.mask;
    const len = e - s;
    const tb = this.table;
    for (let p = h & m; ; p = (p + 1) & m) {
      const x = tb[2 * p + 1]!;
      if (x === 0) {
        this.probeAt = p;
        this.probeHash = h;
        return undefined;
      }
      if (tb[2 * p] !== h) continue;
      if (this.lens[x - 1] !== len) continue;
      const a = this.starts[x - 1]!;
      const A = this.src(x - 1);
      let k = 0;
      while (k < len && A[a + k] === u[s + k]) k++;
      if (k === len) return this.lines[x - 1];
    }
  }

  /** Records the name u[s, e) (hash `h`) at `line` unless it is there: then its line, else undefined. */
  addBytes(u: Uint8Array, s: number, e: number, h: number, line: number): number | undefined {
    const first = this.getBytes(u, s, e, h);
    if (first === undefined) this.setBytes(u, s, e, h, line);
    return first;
  }

  /** Records the name u[s, e) (not in the set; hash `h`) at `line`. */
  setBytes(u: Uint8Array, s: number, e: number, h: number, line: number): void {
    if (this.probeAt < 0 || this.probeHash !== h) {
      if (this.getBytes(u, s, e, h) !== undefined) return;
    }
    const at = this.probeAt;
    this.probeAt = -1;
    const x = this.append(u, s, e, line);
    this.hashes[x] = h;
    this.pend = this.count;
    this.table[2 * at] = h;
    this.table[2 * at + 1] = x + 1;
    this.inTable++;
    if (this.inTable * 2 > this.mask) this.grow();
  }

  /** Room for `n` names in the per-name arrays (a method of its own: no closure in append, which runs per name). */
  private growNames(n: number): void {
    const c = this.count;
    const u32 = (a: Uint32Array) => {
      const b = new Uint32Array(n);
      b.set(a.subarray(0, c));
      return b;
    };
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a.subarray(0, c));
      return b;
    };
    this.starts = u32(this.starts);
    this.lens = u32(this.lens);
    this.srcOf = i32(this.srcOf);
    this.lines = u32(this.lines);
    this.cols = u32(this.cols);
    this.hashes = i32(this.hashes);
    this.tags = i32(this.tags);
  }

  /** Appends the name u[s, e) at `line` to the arena (its number). */
  private append(u: Uint8Array, s: number, e: number, line: number): number {
    const len = e - s;
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(this.used + len, this.arena.length * 2));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    if (this.count === this.starts.length) this.growNames(this.count * 2);
    const ar = this.arena;
    const at = this.used;
    for (let k = 0; k < len; k++) ar[at + k] = u[s + k]!;
    const x = this.count;
    this.starts[x] = at;
    this.lens[x] = len;
    this.srcOf[x] = -1;
    this.lines[x] = line;
    this.used = at + len;
    this.count = x + 1;
    return x;
  }

  /** `name` as bytes in the scratch (names are ASCII; a longer one gets its own array). */
  private bytesOf(name: string): Uint8Array {
    const b = name.length <= this.scratch.length ? this.scratch : new Uint8Array(name.length);
    for (let i = 0; i < name.length; i++) b[i] = name.charCodeAt(i) & 0xff;
    return b;
  }

  /** The line of `name`, or undefined. */
  get(name: string): number | undefined {
    const b = this.bytesOf(name);
    return this.getBytes(b, 0, name.length, nameHash(b, 0, name.length));
  }

  /** Records `name` (not yet in the set) at `line`. */
  set(name: string, line: number): void {
    const b = this.bytesOf(name);
    this.setBytes(b, 0, name.length, nameHash(b, 0, name.length), line);
  }

  clear(): void {
    this.mask = (1 << 10) - 1;
    this.table = new Int32Array(2 << 10);
    this.used = 0;
    this.count = 0;
    this.srcs = [];
    this.lastSrc = undefined;
    this.lastSrcIdx = -1;
    this.pend = 0;
    this.inTable = 0;
    this.dups.length = 0;
    this.probeAt = -1;
  }

  private grow(cap = (this.mask + 1) * 2): void {
    const m = cap - 1;
    const old = this.table;
    const tb = new Int32Array(2 * cap);
    for (let p = 0; p <= this.mask; p++) {
      const x = old[2 * p + 1]!;
      if (!x) continue;
      const h = old[2 * p]!;
      let q = h & m;
      while (tb[2 * q + 1]) q = (q + 1) & m;
      tb[2 * q] = h;
      tb[2 * q + 1] = x;
    }
    this.table = tb;
    this.mask = m;
    this.probeAt = -1;
  }
}

/** FNV-1a over the bytes u[s, e), never 0 (the name set's hash). */
export function nameHash(u: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ u[i]!, 0x01000193);
  return h | 1;
}
