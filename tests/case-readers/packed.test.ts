/**
 * The packed readers (harness/case-readers/packed.ts) are a speed-up of the vector loaders, never a second
 * reading: whatever text they see, the cases and problems must be exactly those of the general path
 * (JSON.parse / the fast YAML item parser / the yaml package, then vector-check.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedCases, SLOT_WORDS, packVariant, unpack, unpackAll } from '../../harness/case-readers/packed.js';
import { JsonlScanner } from '../../harness/case-readers/vector-jsonl.js';
import { YamlScanner } from '../../harness/case-readers/vector-yaml.js';
import { useNativeScan } from '../../harness/case-readers/native-scan.js';
import { SPELLINGS, SPELLING_HEAD, spell, spelledCase } from '../../scripts/vector-spellings.js';
import { JsonlLineScanner } from '../../harness/case-readers/jsonl-pack-scan.js';

const scanPackedLine = (u: Uint8Array, s: number, e: number, last: boolean) => new JsonlLineScanner().scan(u, s, e, last);
import { loadVectorText } from '../../harness/case-readers/vectors.js';
import { variantInfo } from '../../harness/case-readers/vector-check.js';
import { NameSet, nameHash } from '../../harness/case-readers/name-set.js';

const LIB = join(import.meta.dirname, '..', '..', 'cases', 'vectors');

/** Instructions of the library's atom and red files (every packable shape: int, float, half, f64, cas, b128, vectors). */
const INSTRUCTIONS = [
  ...new Set(
    readdirSync(LIB)
      .filter((f) => /^(atom|red)-/.test(f))
      .flatMap((f) => [...readFileSync(join(LIB, f), 'utf8').matchAll(/instruction: (\S+)/g)].map((m) => m[1]!)),
  ),
].sort();

function digitsOf(instr: string): { digits: number; lanes: number; cas: boolean } {
  const info = variantInfo(instr);
  return { digits: info.fmt!.bits / 4, lanes: info.lanes!, cas: info.variant!.q.op === 'cas' };
}

/** One item's fields, some mangled: what a user might write, right or wrong. */
const itemArb = fc
  .record({
    instr: fc.constantFrom(...INSTRUCTIONS),
    name: fc.oneof(fc.constantFrom('a', 'b', 'x.y-z_1', 'true', 'null', 'True', '9lives', 'bad name', 'a:b', 'dup'), fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/)),
    seed: fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 24, maxLength: 24 }),
    hex: fc.array(fc.tuple(fc.boolean(), fc.boolean(), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 1 }),
    expect: fc.constantFrom('none', 'memory', 'returned', 'both', 'empty'),
    space: fc.constantFrom(undefined, 'global', 'shared', 'local'),
    extraC: fc.boolean(),
    dropB: fc.boolean(),
    mangle: fc.constantFrom('none', 'none', 'none', 'digits', 'lanes', 'unknown-key', 'dup-key', 'spacing', 'quoted-instr', 'comment', 'tab', 'noinstr'),
    order: fc.integer({ min: 0, max: 5 }),
    // YAML only: maps in flow or block style, lists in flow style or as block sequences (indented
    // past their key or at its column), hex double-, single-quoted or plain
    maps: fc.constantFrom('flow', 'block'),
    lists: fc.constantFrom('flow', 'flow', 'seq', 'compact'),
    quote: fc.constantFrom('"', "'", ''),
  })
  .map((r) => r);

type Item = typeof itemArb extends fc.Arbitrary<infer T> ? T : never;

/** The item as an ordered list of [key, value] with values as JSON-ish structures of hex strings. */
function fieldsOf(it: Item): [string, unknown][] {
  const { digits, lanes, cas } = digitsOf(it.instr);
  let s = 0;
  const h = () => {
    const x = it.seed[s++ % it.seed.length]!;
    let v = '';
    while (v.length < digits) v += ((x * 2654435761 + v.length * 40503) >>> 0).toString(16).padStart(8, '0');
    return `0x${v.slice(0, digits)}`;
  };
  const list = (n = lanes) => Array.from({ length: n }, h);
  const f: [string, unknown][] = [['name', it.name]];
  if (it.mangle !== 'noinstr') f.push(['instruction', it.instr]);
  let mem = list();
  if (it.mangle === 'digits') mem = [`${mem[0]!}0`, ...mem.slice(1)];
  if (it.mangle === 'lanes') mem = [...mem, h()];
  f.push(['memory', mem]);
  const ops: Record<string, unknown> = {};
  if (!it.dropB) ops.b = list();
  if (cas || it.extraC) ops.c = list();
  f.push(['operands', ops]);
  if (it.expect !== 'none') {
    const e: Record<string, unknown> = {};
    if (it.expect === 'memory' || it.expect === 'both') e.memory = list();
    if (it.expect === 'returned' || it.expect === 'both') e.returned = list();
    f.push(['expect', e]);
  }
  if (it.space) f.push(['space', it.space]);
  if (it.mangle === 'unknown-key') f.push(['memroy', list()]);
  // a rotation of the key order
  const k = it.order % f.length;
  return [...f.slice(k), ...f.slice(0, k)];
}

const flowY = (v: unknown, sp: string): string =>
  Array.isArray(v)
    ? `[${v.map((x) => `"${x}"`).join(`,${sp}`)}]`
    : `{${sp}${Object.entries(v as object)
        .map(([k, x]) => `${k}: ${flowY(x, sp)}`)
        .join(`,${sp}`)}${sp}}`;

function yamlItem(it: Item): string {
  const f = fieldsOf(it);
  const sp = it.mangle === 'spacing' ? '  ' : ' ';
  const q = (x: unknown) => `${it.quote}${String(x)}${it.quote}`;
  // a list as the value of a key at column `col` (the text after 'key:')
  const list = (v: unknown[], col: number): string =>
    it.lists === 'flow' ? ` [${v.map(q).join(`,${sp}`)}]` : v.map((x) => `\n${' '.repeat(it.lists === 'seq' ? col + 2 : col)}- ${q(x)}`).join('');
  const lines = f.map(([k, v]) => {
    if (typeof v === 'string') return `${k}: ${k === 'instruction' && it.mangle === 'quoted-instr' ? `"${v}"` : v}`;
    if (Array.isArray(v)) return `${k}:${list(v, 4)}`;
    const inner = Object.entries(v as object);
    if (it.maps === 'flow' || inner.length === 0)
      return `${k}: {${sp}${inner.map(([ik, x]) => `${ik}: [${(x as unknown[]).map(q).join(`,${sp}`)}]`).join(`,${sp}`)}${sp}}`;
    return `${k}:${inner.map(([ik, x]) => `\n      ${ik}:${list(x as unknown[], 6)}`).join('')}`;
  });
  if (it.mangle === 'dup-key') lines.push(lines[0]!);
  if (it.mangle === 'comment') lines[lines.length - 1] += ' # note';
  if (it.mangle === 'tab') lines[0] = lines[0]!.replace(': ', ':\t');
  return `  - ${lines.join('\n    ')}\n`;
}

function jsonItem(it: Item): string {
  const f = fieldsOf(it);
  const sp = it.mangle === 'spacing' ? '' : ' ';
  const parts = f.map(([k, v]) => `"${k}":${sp}${JSON.stringify(v).replace(/,/g, `,${sp}`)}`);
  if (it.mangle === 'dup-key') parts.push(parts[0]!);
  if (it.mangle === 'tab') parts[0] = parts[0]!.replace(':', ':\t');
  return `{${parts.join(`,${sp}`)}}\n`;
}

function same(file: string, text: string): number {
  const packed = loadVectorText(file, text, file);
  const general = loadVectorText(file, text, file, { packed: false });
  expect(packed.problems).toEqual(general.problems);
  expect(packed.cases).toEqual(general.cases);
  // the same objects as JSON too (key order shows in reports)
  expect(JSON.stringify(packed.cases, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).toEqual(
    JSON.stringify(general.cases, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
  );
  expect(general.packed).toBe(0);
  return packed.packed;
}

describe('the packed readers read exactly what the general path reads', () => {
  it('the library has packable instructions of every width', () => {
    const bits = new Set(INSTRUCTIONS.map((i) => digitsOf(i).digits * 4));
    expect([...bits].sort((a, b) => a - b)).toEqual([16, 32, 64, 128]);
  });

  it('fast-check: YAML files of good and mangled items (seed 2026)', () => {
    let packedTotal = 0;
    fc.assert(
      fc.property(fc.array(itemArb, { minLength: 1, maxLength: 12 }), fc.boolean(), fc.boolean(), (items, header, crlf) => {
        let text = `${header ? 'instruction: atom.global.add.u32\n' : ''}cite: "t"\ncases:\n${items.map(yamlItem).join('')}`;
        if (crlf) text = text.replace(/\n/g, '\r\n');
        packedTotal += same('t.yaml', text);
      }),
      { numRuns: 500, seed: 2026 },
    );
    expect(packedTotal).toBeGreaterThan(100);
  });

  it('fast-check: JSON-lines files of good and mangled lines (seed 2027)', () => {
    let packedTotal = 0;
    fc.assert(
      fc.property(fc.array(itemArb, { minLength: 1, maxLength: 12 }), fc.boolean(), fc.boolean(), (items, header, crlf) => {
        let text = `${header ? '{"instruction": "atom.global.add.u32", "cite": "t"}\n' : ''}${items.map(jsonItem).join('')}`;
        if (crlf) text = text.replace(/\n/g, '\r\n');
        packedTotal += same('t.jsonl', text);
      }),
      { numRuns: 500, seed: 2027 },
    );
    expect(packedTotal).toBeGreaterThan(100);
  });

  it('JSON lists spelled with tabs, no spaces, escapes, or too many elements: packed where they can be, the general path cases and problems either way', () => {
    const L = (mem: string, b = '["0x00000002"]') => `{"name": "n${++n}", "instruction": "atom.global.add.u32", "memory": ${mem}, "operands": {"b": ${b}}}`;
    let n = 0;
    const good = [L('["0x00000001"]'), L('[\t"0x00000001"\t]'), L('[ "0x00000001" ]', '[\t "0x00000002" \t]'), L('["0x00000001"]', '["0x0000000a"]')];
    const v4 = `{"name": "v${++n}", "instruction": "atom.global.add.v4.f32", "memory": ["0x00000001",\t"0x00000002" ,"0x00000003", "0x00000004"], "operands": {"b": ["0x3f800000","0x3f800000","0x3f800000","0x3f800000"]}}`;
    const general = [
      L('["0x0000000\\u0031"]'), // an escape: JSON.parse reads it (the general path)
      L(`[${Array.from({ length: 17 }, () => '"0x00000001"').join(', ')}]`), // 17 elements: more than a list packs
      L('["0x00000001",]'), // not JSON
      L('["0x00000001" "0x00000002"]'),
      L('["0x0000001"]'), // 7 digits
      L('[0x00000001]'),
      // a list of two where the instruction takes one (memory or b), or of two 16-bit elements
      L('["0x00000001", "0x00000002"]'),
      L('["0x00000001"]', '["0x00000002", "0x00000003"]'),
      `{"name": "h${++n}", "instruction": "atom.global.add.noftz.f16", "memory": ["0x3c00"], "operands": {"b": ["0x3c00", "0x3c00"]}}`,
      `{"name": "h${++n}", "instruction": "atom.global.add.noftz.f16", "memory": ["0x3c00", "0x3c00"], "operands": {"b": ["0x3c00"]}}`,
    ];
    const text = `${[...good, v4, ...general].join('\n')}\n`;
    expect(same('t.jsonl', text)).toBe(good.length + 1);
    expect(loadVectorText('t.jsonl', text, 't.jsonl').problems.length).toBe(general.length - 1);
  });

  it('JSON lines read in pieces of any size (each packed line finds its own end): the cases and problems of a whole read', () => {
    const L = (k: number, tail = '') =>
      `{"name": "p${k}", "instruction": "atom.global.add.u32", "memory": ["0x0000000${k % 10}"], "operands": {"b": ["0x00000002"]}}${tail}`;
    const lines = [
      L(0),
      L(1, ' '),
      L(2, '\t \r'),
      '',
      L(3, '\r'),
      '   ',
      L(4, ' \r '),
      '{"name": "bad", "memory": ["0x1"]}',
      L(5),
      L(1),
      L(6, '}'),
      L(7, ' x'),
      L(8, '\r'),
    ];
    for (const end of ['', '\n', '\r\n', ' ', '\r']) {
      const text = lines.join('\n') + end;
      const whole = loadVectorText('t.jsonl', text, 't.jsonl');
      expect(whole.cases.length).toBeGreaterThan(6);
      expect(whole.problems.length).toBeGreaterThan(2); // the bad line, the duplicate p1, the extra '}', ' x'
      expect(same('t.jsonl', text)).toBe(whole.packed);
      for (const size of [1, 2, 3, 7, 50, 129, 1000]) {
        const s = new JsonlScanner('t.jsonl', 't.jsonl');
        const u = Buffer.from(text);
        const got = [];
        for (let i = 0; i < u.length || i === 0; i += size)
          got.push(...s.pushBytes(u.subarray(i, Math.min(u.length, i + size)), i + size >= u.length).flatMap((b) => unpackAll(b)));
        expect(got).toEqual(whole.cases);
        expect(s.ctx.problems).toEqual(whole.problems);
        expect(s.packedItems).toBe(whole.packed);
      }
    }
  });

  it('YAML whose last item is cut at every byte (the packed scanner meets the end of the data there): what the general path reads', () => {
    const item = (k: number) =>
      `  - name: c${k}\n    instruction: atom.global.cas.b32\n    memory: ["0x0000000${k}"]\n    operands:\n      b: ['0x00000001']\n      c:\n        - 0x00000002   # c\n    expect: { memory: [0x00000003], returned: ["0x0000000${k}"] }\n`;
    const head = 'cite: "t"\ncases:\n';
    const full = head + item(1) + item(2);
    let packed = 0;
    for (let cut = head.length + item(1).length + 1; cut <= full.length; cut++) packed += same('t.yaml', full.slice(0, cut));
    expect(packed).toBeGreaterThan(full.length - head.length - item(1).length); // the first item packed every time, the cut one when whole
  });

  it('a JSON line cut short at the end of the read is not completed by what lies past the end of a reused buffer', () => {
    const line = '{"name": "a", "memory": ["0x00000001"], "operands": {"b": ["0x00000002"]}, "instruction": "atom.global.add.u32"}';
    for (const cut of [line.length - 1, line.length - 3, line.length - 25, 40]) {
      const u = Buffer.from(`${line}\n`); // the stale bytes: the rest of the same line
      const s = new JsonlScanner('t.jsonl', 't.jsonl');
      s.lines(u, cut, true);
      const cases = s.take(true).flatMap((b) => unpackAll(b));
      expect(cases).toEqual([]);
      expect(s.ctx.problems.length).toBe(1); // the line as read: not JSON
      expect(s.ctx.problems[0]!.message).toMatch(/^JSON: /);
    }
    // a line whose '\r' is the last byte of the data, not the file's last: its '\n' (here a stale byte
    // past the data's end) is yet to come, so the line is not read yet; with the next bytes it is
    for (const tail of ['\r', ' \r', '']) {
      const u = Buffer.from(`${line}${tail}\n${line}`);
      const n = line.length + tail.length;
      const s = new JsonlScanner('t.jsonl', 't.jsonl');
      expect(s.lines(u, n, false)).toBe(0);
      expect(s.take(false).flatMap((b) => unpackAll(b))).toEqual([]);
      expect(s.lines(u, n + 1, true)).toBe(n + 1);
      expect(s.take(true).flatMap((b) => unpackAll(b)).length).toBe(1);
      expect(s.ctx.problems).toEqual([]);
    }
    // the scanner itself, given a line whose '\r' is the data's last byte (a stale '\n' past it): not
    // the line's end unless the data is the file's last; a '\n' within the data is
    const u = Buffer.from(`${line}\r\n`);
    expect(scanPackedLine(u, 0, line.length + 1, false)).toBe(-1);
    expect(scanPackedLine(u, 0, line.length + 1, true)).toBe(line.length + 1);
    expect(scanPackedLine(u, 0, line.length + 2, false)).toBe(line.length + 1);
    expect(scanPackedLine(u, 0, line.length, false)).toBe(-1);
    expect(scanPackedLine(u, 0, line.length, true)).toBe(line.length);
    // the whole line, read the same way: a case
    const s = new JsonlScanner('t.jsonl', 't.jsonl');
    s.lines(Buffer.from(line), line.length, true);
    expect(s.take(true).flatMap((b) => unpackAll(b)).length).toBe(1);
    expect(s.packedItems).toBe(1);
  });

  it('every atom and red file of the library, and its JSON-lines mirror', () => {
    for (const f of readdirSync(LIB).filter((x) => /^(atom|red)-/.test(x))) {
      const text = readFileSync(join(LIB, f), 'utf8');
      const n = same(f, text);
      expect(n).toBeGreaterThan(10);
      const cases = loadVectorText(f, text, f).cases;
      const H = (bits: number, xs: readonly bigint[]) => xs.map((x) => `0x${x.toString(16).padStart(bits / 4, '0')}`);
      const lines = cases.map((c) => {
        const bits = variantInfo(c.variant.ptx).fmt!.bits;
        const o: Record<string, unknown> = {
          name: c.origin.kind === 'vectors' ? c.origin.name : '',
          instruction: c.variant.ptx,
          memory: H(bits, c.input.memory!),
          operands: { b: H(bits, c.input.b!), ...(c.input.c ? { c: H(bits, c.input.c) } : {}) },
        };
        if (c.expect)
          o.expect = {
            ...(c.expect.memory ? { memory: H(bits, c.expect.memory) } : {}),
            ...(c.expect.returned ? { returned: H(bits, c.expect.returned) } : {}),
          };
        if (c.input.space) o.space = c.input.space;
        return JSON.stringify(o);
      });
      const jn = same(`${f}.jsonl`, `${lines.join('\n')}\n`);
      expect(jn).toBe(cases.length);
    }
  });
});

describe('packed blocks', () => {
  it('unpack gives the elements back little-endian, lane 0 low, for every width', () => {
    const text = [
      'cases:',
      '  - name: h',
      '    instruction: atom.global.add.noftz.f16',
      '    memory: ["0x1234"]',
      '    operands: { b: ["0xabcd"] }',
      '  - name: d',
      '    instruction: atom.global.add.u64',
      '    memory: ["0x0123456789abcdef"]',
      '    operands: { b: ["0xfedcba9876543210"] }',
      '    expect: { memory: ["0x1111111111111111"], returned: ["0x0123456789abcdef"] }',
    ].join('\n');
    const r = loadVectorText('w.yaml', text, 'w.yaml');
    expect(r.packed).toBe(2);
    expect(r.cases[0]!.input.memory).toEqual([0x1234n]);
    expect(r.cases[1]!.input.b).toEqual([0xfedcba9876543210n]);
    expect(r.cases[1]!.expect).toEqual({ memory: [0x1111111111111111n], returned: [0x0123456789abcdefn] });
  });
  it('filter keeps slots, names, lines and bits together', () => {
    const info = variantInfo('atom.global.add.u32');
    const v = packVariant(info.variant!, info.fmt!, info.lanes!)!;
    const p = new PackedCases('f.yaml', 'cite');
    for (let i = 0; i < 5; i++) {
      p.clearNext();
      p.mem[p.n * SLOT_WORDS] = i;
      p.b[p.n * SLOT_WORDS] = 10 + i;
      p.commit(v, Buffer.from(`n${i}`), 0, 2, 100 + i, 0);
    }
    const q = p.filter((i) => i % 2 === 1);
    expect(q.n).toBe(2);
    expect([unpack(q, 0).id, unpack(q, 1).input.b]).toEqual(['atom.global.add.u32/f.yaml:n1', [13n]]);
    expect(unpack(q, 1).origin).toEqual({ kind: 'vectors', file: 'f.yaml', line: 103, name: 'n3' });
    expect(unpack(q, 1).cite).toBe('cite');
  });
});

describe('the name set (duplicate check)', () => {
  it('finds every name it holds, by string and by bytes, through growth; nothing else', () => {
    const set = new NameSet();
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      const name = `case-${i}`;
      expect(set.get(name)).toBeUndefined();
      set.set(name, i + 1);
    }
    expect(set.size).toBe(n);
    const buf = Buffer.from(Array.from({ length: n }, (_, i) => `case-${i}`).join('|'));
    let at = 0;
    for (let i = 0; i < n; i++) {
      const e = buf.indexOf(124, at) < 0 ? buf.length : buf.indexOf(124, at);
      expect(set.getBytes(buf, at, e, nameHash(buf, at, e))).toBe(i + 1);
      expect(set.get(`case-${i}`)).toBe(i + 1);
      at = e + 1;
    }
    // near misses: one character more, less or changed
    for (const x of ['case-', 'case-1x', 'case-49999 ', 'Case-1', 'case-50000', 'case-0.']) expect(set.get(x)).toBeUndefined();
    set.clear();
    expect(set.get('case-1')).toBeUndefined();
    expect(set.size).toBe(0);
  });
  it('deferred names (copied or referred to) checked in batches (sorted by table region): exactly the duplicates a Map finds, the first of equal names kept', () => {
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (const [reserve, batches] of [
      [0, [10, 70, 3000]],
      [200_000, [150_000, 40_000]],
      [1000, [65, 64, 5000, 1]],
    ] as const) {
      const set = new NameSet();
      if (reserve) set.reserve(reserve);
      const seen = new Map<string, number>();
      const want: { x: number; firstLine: number }[] = [];
      let x = 0;
      for (const size of batches) {
        const names = Array.from({ length: size }, () => `n${rnd() % (size * 2)}-${rnd() % 3}`);
        const buf = Buffer.from(names.join('|'));
        let at = 0;
        for (const name of names) {
          const e = at + name.length;
          // copied into the set's arena, or referred to where they are (a packed block's names)
          if (x % 3) set.deferRef(buf, at, e, nameHash(buf, at, e), x + 1, 1, x);
          else set.defer(buf, at, e, nameHash(buf, at, e), x + 1, 1, x);
          const first = seen.get(name);
          if (first === undefined) seen.set(name, x + 1);
          else want.push({ x, firstLine: first });
          at = e + 1;
          x++;
        }
        set.flush();
      }
      expect(want.length).toBeGreaterThan(10);
      expect([...set.dups].sort((a, b) => a.x - b.x)).toEqual(want);
      for (const [name, line] of seen) expect(set.get(name)).toBe(line);
      for (const d of set.dups.slice(0, 50)) expect(seen.get(set.nameOf(d.x))).toBe(d.firstLine);
    }
  });

  it('a name set from bytes is found by string and the reverse', () => {
    const set = new NameSet();
    const b = Buffer.from('xx-abc.d_9-yy');
    set.setBytes(b, 3, 10, nameHash(b, 3, 10), 7);
    expect(set.get('abc.d_9')).toBe(7);
    set.set('other', 9);
    const o = Buffer.from('other');
    expect(set.getBytes(o, 0, 5, nameHash(o, 0, 5))).toBe(9);
  });
});

describe('readers side by side', () => {
  it('two YAML readers fed in turn, a few bytes each (scanner state is per reader, the scan fields are used at once): each reads what it reads alone', () => {
    const file = (k: number, n: number) =>
      SPELLING_HEAD + Array.from({ length: n }, (_, i) => spell(spelledCase(i + 1000 * k, 13), SPELLINGS[(i + k) % SPELLINGS.length]!)).join('');
    const texts = [file(1, 300), file(2, 250)].map((t) => Buffer.from(t));
    for (const native of [false, true]) {
      useNativeScan(native);
      try {
        const alone = texts.map((u, k) => new YamlScanner(`f${k}.yaml`, `f${k}.yaml`, false, u.length).pushBytes(u, true).flatMap((b) => unpackAll(b)));
        expect(alone[0]!.length).toBe(300);
        expect(alone[1]!.length).toBe(250);
        for (const size of [7, 61, 999]) {
          const rs = texts.map((u, k) => new YamlScanner(`f${k}.yaml`, `f${k}.yaml`, false, u.length));
          const got: ReturnType<typeof unpackAll>[number][][] = [[], []];
          for (let i = 0; i < Math.max(texts[0]!.length, texts[1]!.length); i += size)
            for (let k = 0; k < 2; k++) {
              const u = texts[k]!;
              if (i < u.length)
                got[k]!.push(...rs[k]!.pushBytes(u.subarray(i, Math.min(u.length, i + size)), i + size >= u.length).flatMap((b) => unpackAll(b)));
            }
          expect(got).toEqual(alone);
          expect(rs[0]!.packedItems + rs[1]!.packedItems).toBeGreaterThan(400);
        }
      } finally {
        useNativeScan(true);
      }
    }
  });
});
