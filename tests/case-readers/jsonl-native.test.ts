/**
 * The native JSON-lines scanner (native/reader/src/jsonl_scan.cc, harness/case-readers/native-scan.ts)
 * is a speed-up of scanPackedLine, never a second reader: for every line it takes, its record is
 * the fields scanPackedLine leaves for the same line, and files read with it and without it give the
 * same cases, problems and packed blocks. Skipped, with the reason printed, where it is not built.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type NativeScan, R_NL, Spellings, nativeScan, nativeScanStatus, recordFields, useNativeScan } from '../../harness/case-readers/native-scan.js';
import { unpackAll } from '../../harness/case-readers/packed.js';
import { MAX_ELEMS, newPackFields } from '../../harness/case-readers/pack-fields.js';
import { JSONL_SLACK, JsonlScanner } from '../../harness/case-readers/vector-jsonl.js';
import { JsonlLineScanner } from '../../harness/case-readers/jsonl-pack-scan.js';

const lineScan = new JsonlLineScanner();
const scanPackedLine = (u: Uint8Array, s: number, e: number, last: boolean) => lineScan.scan(u, s, e, last);
const scannedFields = () => lineScan.PF;
import { loadVectorText } from '../../harness/case-readers/vectors.js';

const nat = nativeScan();
const why = nativeScanStatus();
if (!nat) console.log(`tests/case-readers/jsonl-native.test.ts: skipped: the native JSON-lines scanner is ${why}`);

afterEach(() => useNativeScan(true));

/** The line in a buffer of its own with JSONL_SLACK zero bytes after it. */
const bytesOf = (line: string) => {
  const b = Buffer.from(line, 'utf8');
  const u = Buffer.alloc(b.length + JSONL_SLACK);
  b.copy(u);
  return { u, n: b.length };
};

/** The fields of a PackFields that a scan sets (the element offsets f.els aside: a record's elements are all read as hex). */
function view(f: ReturnType<typeof newPackFields>) {
  const lists = [f.memory, f.b, f.c, f.expMemory, f.expReturned];
  return {
    name: f.nameAt >= 0 ? [f.nameAt, f.nameEnd, f.nameHash, f.nameCol, f.nameChecked] : null,
    instruction: f.instruction,
    space: f.space,
    operands: f.operands,
    expect: f.expect,
    lists,
    elems: lists.map((at, L) =>
      at < 0 ? null : Array.from({ length: f.cnt[L]! }, (_, k) => Array.from(f.pre.subarray((L * MAX_ELEMS + k) * 3, (L * MAX_ELEMS + k) * 3 + 3))),
    ),
  };
}

/** Native and scanPackedLine on one line: whether the native scanner took it (and then, that the two agree). */
function compareLine(scan: NativeScan, line: string, last: boolean): { native: boolean; js: boolean } {
  const { u, n } = bytesOf(line);
  const rec = new Int32Array(1 << 12);
  const sp = new Spellings();
  const k = scan.scan(u, 0, n, n, last, rec, sp.tbl, sp.tix);
  const nl = scanPackedLine(u, 0, n, last);
  if (k === 0) return { native: false, js: nl >= 0 };
  expect(k).toBe(1);
  expect(nl).toBe(rec[R_NL]);
  sp.sync();
  const spellings = sp.strings;
  const js = view(scannedFields());
  const mine = view(recordFields(rec, 0, u, spellings, newPackFields()));
  expect(mine).toEqual(js);
  return { native: true, js: true };
}

const HEX = '0123456789abcdefABCDEF';
const hexArb = (digits: number) => fc.array(fc.constantFrom(...HEX), { minLength: digits, maxLength: digits }).map((d) => `"0x${d.join('')}"`);
const wsArb = fc.constantFrom('', ' ', '  ', '\t', ' \t');
const listArb = (digits: fc.Arbitrary<number>) =>
  fc.tuple(digits, fc.integer({ min: 1, max: 3 })).chain(([d, n]) => fc.array(hexArb(d), { minLength: n, maxLength: n }));
const digitsArb = fc.oneof({ arbitrary: fc.constantFrom(4, 8, 16), weight: 12 }, { arbitrary: fc.constantFrom(2, 7, 32), weight: 1 });

/** A line of the common shape, its keys in any order, any spacing, some fields odd. */
const lineArb = fc
  .record({
    name: fc.oneof({ arbitrary: fc.constantFrom('a', 'case-12', 'x.y-z_1'), weight: 6 }, { arbitrary: fc.constantFrom('bad name', 'é', '', 'q"'), weight: 1 }),
    instr: fc.constantFrom(
      'atom.global.add.f32',
      'red.global.add.u32',
      'atom.global.cas.b32',
      'atom.global.add.noftz.f16',
      'atom.global.add.v4.f32',
      'atom.global.cas.b64',
      'nope.f32',
      'tab\\t',
      '',
    ),
    mem: listArb(digitsArb),
    b: fc.option(listArb(digitsArb)),
    c: fc.option(listArb(digitsArb)),
    innerDup: fc.constantFrom(false, false, false, false, false, true),
    expect: fc.option(fc.record({ memory: fc.option(listArb(digitsArb)), returned: fc.option(listArb(digitsArb)) })),
    space: fc.option(fc.constantFrom('global', 'shared', 'local', 'glob\\u0061l')),
    order: fc.integer({ min: 0, max: 719 }),
    ws: fc.array(wsArb, { minLength: 40, maxLength: 40 }),
    end: fc.constantFrom('', '\r', ' ', '\t\r', '', '\r', ' x', '}'),
    dup: fc.constantFrom(false, false, false, false, false, false, false, true),
  })
  .map((r) => {
    let w = 0;
    const sp = () => r.ws[w++ % r.ws.length]!;
    const list = (l: string[]) => `[${sp()}${l.join(`${sp()},${sp()}`)}${sp()}]`;
    const map = (m: [string, string[] | null][]) =>
      `{${sp()}${m
        .filter(([, v]) => v)
        .map(([k, v]) => `"${k}"${sp()}:${sp()}${list(v!)}`)
        .join(`${sp()},${sp()}`)}${sp()}}`;
    const fields = [
      `"name"${sp()}:${sp()}"${r.name}"`,
      `"instruction"${sp()}:${sp()}"${r.instr}"`,
      `"memory"${sp()}:${sp()}${list(r.mem)}`,
      `"operands"${sp()}:${sp()}${map([['b', r.b], ['c', r.c], ...(r.innerDup ? ([['b', r.mem]] as [string, string[]][]) : [])])}`,
      ...(r.expect
        ? [
            `"expect"${sp()}:${sp()}${map([
              ['memory', r.expect.memory],
              ['returned', r.expect.returned],
            ])}`,
          ]
        : []),
      ...(r.space ? [`"space"${sp()}:${sp()}"${r.space}"`] : []),
    ];
    // one of the orders of the fields (a permutation by its number), a key twice sometimes
    const rest = [...fields];
    const out: string[] = [];
    for (let o = r.order; rest.length; o = Math.floor(o / (rest.length + 1))) out.push(rest.splice(o % rest.length, 1)[0]!);
    if (r.dup) out.push(out[0]!);
    return `${sp()}{${sp()}${out.join(`${sp()},${sp()}`)}${sp()}}${r.end}`;
  });

/** A line changed at one byte: one deleted, replaced or put in. */
const mutatedArb = fc
  .tuple(lineArb, fc.nat(), fc.constantFrom('del', 'set', 'ins'), fc.constantFrom(...'"\\{}[],: \t\r0xXaz\u0000\u00e9'.split('')))
  .map(([l, at, how, c]) => {
    const i = at % (l.length + 1);
    return how === 'del' ? l.slice(0, i) + l.slice(i + 1) : how === 'set' ? l.slice(0, i) + c + l.slice(i + 1) : l.slice(0, i) + c + l.slice(i);
  });

describe.skipIf(!nat)('the native JSON-lines scanner', () => {
  it('fast-check: every line it takes, scanPackedLine takes with the same fields and end; it takes every line of fast elements scanPackedLine takes (seed 28)', () => {
    let took = 0;
    let jsOnly = 0;
    fc.assert(
      fc.property(lineArb, fc.boolean(), (line, last) => {
        const r = compareLine(nat!, last ? line : `${line}\n`, last);
        if (r.native) took++;
        // scanPackedLine took it and the native scanner did not: only for elements other than 4, 8 or 16 hex digits
        if (r.js && !r.native) {
          jsOnly++;
          expect(line).toMatch(/"0x([0-9a-fA-F]{2}|[0-9a-fA-F]{7}|[0-9a-fA-F]{32})"/);
        }
      }),
      { numRuns: 3000, seed: 28 },
    );
    expect(took).toBeGreaterThan(500);
    expect(jsOnly).toBeGreaterThan(0);
  });

  it('fast-check: lines changed at one byte: whatever it takes, scanPackedLine takes the same way (seed 29)', () => {
    let took = 0;
    fc.assert(
      fc.property(mutatedArb, fc.boolean(), (line, last) => {
        if (compareLine(nat!, last ? line : `${line}\n`, last).native) took++;
      }),
      { numRuns: 3000, seed: 29 },
    );
    expect(took).toBeGreaterThan(50);
  });

  it('files read with it and without it: the same cases, problems and packed count, whole and in pieces', () => {
    const spell = (i: number) => `atom.global.add.${['f32', 'u32', 's32', 'u64', 'f64'][i % 5]}`;
    const lines: string[] = ['{"cite": "t"}'];
    for (let i = 0; i < 400; i++) {
      const instr = i % 97 === 5 ? 'atom.global.cas.b32' : spell(i);
      const d = /64/.test(instr) ? 16 : 8;
      const h = (x: number) =>
        `"0x${(x >>> 0)
          .toString(16)
          .padStart(8, '0')
          .repeat(d / 8)}"`;
      let l = `{"name": "n${i % 390}", "instruction": "${instr}", "memory": [${h(i * 2654435761)}], "operands": {"b": [${h(i)}]${instr.includes('cas') ? `, "c": [${h(i + 1)}]` : ''}}}`;
      if (i % 11 === 0) l = l.replace('}}', '}, "expect": {"memory": [' + h(i + 7) + ']' + (i % 22 === 0 ? ', "returned": [' + h(i + 9) + ']' : '') + '}}');
      if (i % 13 === 0) l = l.replace('{"name"', '{"space": "shared", "name"');
      if (i % 17 === 0) l = l.replace('"memory": [', '"memory": ["0x1", ');
      if (i % 19 === 0) l += '\r';
      // cas lines whose c is not one element of the width, and lines with an inner key twice
      if (i === 5) l = l.replace(/"c": \[([^\]]*)\]/, '"c": [$1, $1]');
      if (i === 102) l = l.replace(/"c": \["0x/, '"c": ["0x00000000');
      if (i % 23 === 0) l = l.replace('"b": [', '"b": ["0x00000001"], "b": [');
      lines.push(l);
    }
    // more spellings than the native table holds (64), and a line longer than a native line (4096 bytes)
    for (let i = 0; i < 70; i++)
      lines.push(
        `{"name": "s${i}", "instruction": "atom.global.add.u32${' '.repeat(0)}", "memory": ["0x00000001"], "operands": {"b": ["0x00000002"]}, "space": "x${i}"}`,
      );
    for (let i = 0; i < 70; i++)
      lines.push(`{"name": "t${i}", "instruction": "red.global.add.u32.z${i}", "memory": ["0x00000001"], "operands": {"b": ["0x00000002"]}}`);
    lines.push(`{"name": "long", "instruction": "atom.global.add.u32", "memory": ["0x00000001"],${' '.repeat(5000)}"operands": {"b": ["0x00000002"]}}`);
    const text = `${lines.join('\n')}\n`;
    const on = loadVectorText('t.jsonl', text, 't.jsonl');
    useNativeScan(false);
    const off = loadVectorText('t.jsonl', text, 't.jsonl');
    useNativeScan(true);
    expect(on.problems.length).toBeGreaterThan(20);
    expect(on.problems).toEqual(off.problems);
    expect(on.cases).toEqual(off.cases);
    expect(on.packed).toBe(off.packed);
    // it read most of them, and the packed blocks are the same, word for word
    const whole = (pieces: number) => {
      const s = new JsonlScanner('t.jsonl', 't.jsonl');
      const u = Buffer.from(text);
      const out = [];
      for (let p = 0; p < u.length; p += pieces) out.push(...s.pushBytes(u.subarray(p, Math.min(u.length, p + pieces)), p + pieces >= u.length));
      return { s, out };
    };
    const a = whole(1 << 20);
    expect(a.s.nativeItems).toBeGreaterThan(300);
    for (const size of [1, 7, 100, 4099]) {
      const b = whole(size);
      expect(b.out.flatMap((x) => unpackAll(x))).toEqual(a.out.flatMap((x) => unpackAll(x)));
      expect(b.s.ctx.problems).toEqual(a.s.ctx.problems);
    }
    useNativeScan(false);
    const c = whole(1 << 20);
    expect(c.s.nativeItems).toBe(0);
    expect(c.out.map((x) => ('data' in x ? x.data() : x))).toEqual(a.out.map((x) => ('data' in x ? x.data() : x)));
  });
});
