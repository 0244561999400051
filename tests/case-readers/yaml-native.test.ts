/**
 * The native YAML scanner (native/reader/src/yaml_scan.cc, harness/case-readers/native-scan.ts) is
 * a speed-up of vector-yaml.ts's packScan as YamlScanner.packRun calls it, never a second reader:
 * for every list item it takes, its record is the fields, end and lines packScan finds for the same
 * item; it takes every item packScan takes whose elements are "0x", '0x' or 0x and 4, 8 or 16 hex
 * digits; and files read with it and without it give the same cases, problems and packed blocks.
 * Skipped, with the reason printed, where it is not built.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  R_LINES,
  R_NAMELINE,
  R_NL,
  Spellings,
  YAML_SLACK,
  nativeScan,
  nativeScanStatus,
  recordFields,
  useNativeScan,
} from '../../harness/case-readers/native-scan.js';
import { unpackAll } from '../../harness/case-readers/packed.js';
import { MAX_ELEMS, type PackFields, newPackFields } from '../../harness/case-readers/pack-fields.js';
import { loadVectorText } from '../../harness/case-readers/vectors.js';
import { YamlScanner, packScanRun } from '../../harness/case-readers/vector-yaml.js';
import { SPELLINGS, SPELLING_HEAD, spell, spelledCase } from '../../scripts/vector-spellings.js';

const nat = nativeScan();
const why = nativeScanStatus();
if (!nat) console.log(`tests/case-readers/yaml-native.test.ts: skipped: the native YAML scanner is ${why}`);

afterEach(() => useNativeScan(true));

/** The text in a buffer of its own with YAML_SLACK zero bytes after it. */
const bytesOf = (text: string) => {
  const b = Buffer.from(text, 'utf8');
  const u = Buffer.alloc(b.length + YAML_SLACK);
  b.copy(u);
  return { u, n: b.length };
};

/** An element token as packItem reads it: its hex digits as (count, low 8 digits, the 8 before), or null when it is not of the fast kinds. */
function tokenValue(u: Uint8Array, s: number, e: number): number[] | null {
  let t = Buffer.from(u.subarray(s, e)).toString('latin1');
  if (/^(["']).*\1$/.test(t)) t = t.slice(1, -1);
  const m = /^0x([0-9a-fA-F]{4}|[0-9a-fA-F]{8}|[0-9a-fA-F]{16})$/.exec(t);
  if (!m) return null;
  const d = m[1]!;
  return [d.length, Number.parseInt(d.slice(-8), 16) | 0, d.length === 16 ? Number.parseInt(d.slice(0, 8), 16) | 0 : 0];
}

/** The fields of a PackFields that a scan sets, elements as values (native: f.pre; packScan: its tokens, null where not fast). */
function view(f: PackFields, fromTokens: boolean) {
  const lists = [f.memory, f.b, f.c, f.expMemory, f.expReturned];
  return {
    name: f.nameAt >= 0 ? [f.nameAt, f.nameEnd, f.nameHash, f.nameCol, f.nameChecked] : null,
    instruction: f.instruction,
    space: f.space,
    operands: f.operands,
    expect: f.expect,
    lists,
    elems: lists.map((at, L) =>
      at < 0
        ? null
        : Array.from({ length: f.cnt[L]! }, (_, k) => {
            const i = L * MAX_ELEMS + k;
            return fromTokens ? tokenValue(f.src, f.els[2 * i]!, f.els[2 * i + 1]!) : Array.from(f.pre.subarray(3 * i, 3 * i + 3));
          }),
    ),
  };
}

const allFast = (v: ReturnType<typeof view>) => v.elems.every((l) => l === null || l.every((x) => x !== null));

/** Native and packScan on the item at the text's start: whether each took it (and where the native scanner did, that the two agree). */
function compareItem(scan: NonNullable<typeof nat>, text: string, indent: number, last: boolean): { native: boolean; js: boolean; fast: boolean } {
  const { u, n } = bytesOf(text);
  const rec = new Int32Array(1 << 12);
  const sp = new Spellings();
  const k = scan.scanYaml(u, 0, n, last, indent, rec, sp.tbl, sp.tix);
  const js = packScanRun(u, 0, n, indent, last);
  const jsView = js ? view(js.f, true) : undefined;
  const fast = jsView !== undefined && allFast(jsView) && Buffer.byteLength(jsView.instruction ?? '') <= 128;
  if (k === 0) return { native: false, js: js !== undefined, fast };
  expect(js).toBeDefined();
  expect([rec[R_NL], rec[R_LINES], rec[R_NAMELINE]]).toEqual([js!.end, js!.lines, js!.nameLine]);
  sp.sync();
  expect(view(recordFields(rec, 0, u, sp.strings, newPackFields()), false)).toEqual(jsView);
  return { native: true, js: true, fast };
}

const HEX = '0123456789abcdefABCDEF';
const digitsArb = fc.oneof({ arbitrary: fc.constantFrom(4, 8, 16), weight: 40 }, { arbitrary: fc.constantFrom(2, 7, 32), weight: 1 });
/** An element token: "0x..", '0x..' or plain 0x.., now and then something else. */
const tokenArb = fc.oneof(
  {
    arbitrary: fc
      .tuple(digitsArb, fc.constantFrom('"', "'", '', ''), fc.array(fc.constantFrom(...HEX), { minLength: 32, maxLength: 32 }))
      .map(([d, q, h]) => `${q}0x${h.slice(0, d).join('')}${q}`),
    weight: 60,
  },
  { arbitrary: fc.constantFrom('12', '"0x12\\"', "'0x1234''", '0X1234', '"0xg234"', "'0x12345678", 'null', '"0x1234" #c', '[0x1234]', '0x1234:'), weight: 1 },
);
/** Mostly the usual, now and then (1 in `odd` + 1) something else. */
const mostly = <T>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>, odd = 30) => fc.oneof({ arbitrary: usual, weight: odd }, { arbitrary: rare, weight: 1 });
const wsArb = mostly(fc.constantFrom('', ' '), fc.constantFrom('  ', '   '), 6);
const keyArb = (k: string) => mostly(fc.constantFrom(k, k, k, k, k, k, `"${k}"`, `'${k}'`), fc.constantFrom(`${k}x`, `"${k}'`, `${k} `), 100);
const scalarArb = (vals: string[], odd: string[]) =>
  mostly(
    fc.constantFrom(...vals).chain((v) => fc.constantFrom(v, v, `"${v}"`, `'${v}'`)),
    fc.constantFrom(...odd),
    12,
  );
const nameArb = scalarArb(
  ['a', 'case-12', 'x.y-z_1', '_n'],
  ['null', 'True', '123', '1e5', '0x12', '0o17', '1_0', '"a b"', "''", '"é"', 'a:b', 'a: b', '"q\\"x"'],
);
const instrArb = scalarArb(
  [
    'atom.global.add.u32',
    'red.global.add.u32',
    'atom.global.cas.b32',
    'atom.global.add.noftz.f16',
    'atom.global.add.v4.f32',
    'atom.global.cas.b64',
    'atom.shared::cta.add.u32',
    'nope.f32',
  ],
  ['FALSE', '12.5', '"tab\\t"', "''", `${'x'.repeat(130)}`, 'atom.global.add.u32:', 'atom.global.add.u32 :x'],
);
const spaceArb = scalarArb(['global', 'shared', 'local'], ['Null', '"glob"']);
const listArb = mostly(fc.array(tokenArb, { minLength: 1, maxLength: 1 }), fc.array(tokenArb, { minLength: 2, maxLength: 17 }), 4);

/** One list item of the packed shape (its keys in any order, each in one of its spellings), some fields odd, and what follows it. */
const itemArb = fc
  .record({
    indent: fc.constantFrom(0, 2, 4),
    extra: fc.constantFrom(0, 0, 0, 1),
    keys: fc.record({
      name: keyArb('name'),
      instruction: keyArb('instruction'),
      memory: keyArb('memory'),
      operands: keyArb('operands'),
      expect: keyArb('expect'),
      space: keyArb('space'),
      b: keyArb('b'),
      c: keyArb('c'),
      m: keyArb('memory'),
      r: keyArb('returned'),
    }),
    name: nameArb,
    instr: instrArb,
    mem: listArb,
    b: fc.option(listArb, { freq: 6 }),
    c: fc.option(listArb),
    expect: fc.option(fc.record({ memory: fc.option(listArb, { freq: 4 }), returned: fc.option(listArb) })),
    space: fc.option(spaceArb, { freq: 2 }),
    order: fc.integer({ min: 0, max: 719 }),
    // per value: 0 flow on the key's line, 1 block under it; per list in a block: 0 flow, 1 block sequence
    forms: fc.array(fc.nat(9), { minLength: 40, maxLength: 40 }),
    // where the item breaks a layout rule (no space after ':' or '-', a key one column off)
    odd: fc.array(mostly(fc.constant(false), fc.constant(true), 200), { minLength: 40, maxLength: 40 }),
    ws: fc.array(wsArb, { minLength: 40, maxLength: 40 }),
    ends: fc.array(mostly(fc.constantFrom('', '', '', '', '', ' # c', ' ', '  # x: [y]'), fc.constantFrom('#c', '\r', '\t'), 100), {
      minLength: 40,
      maxLength: 40,
    }),
    between: fc.array(
      mostly(fc.constantFrom('', '', '', '', '', '', '', '\n', '   # note\n', '      \n', '#x\n'), fc.constantFrom('\r\n', ' x\n', '\t\n'), 100),
      { minLength: 40, maxLength: 40 },
    ),
    dup: fc.constantFrom(false, false, false, false, false, false, false, true),
    next: mostly(fc.constantFrom('', '- name: next\n', '- name: next\n', '- name: next\n'), fc.constantFrom('- \n', 'top: 1\n', '  - name: other\n', '\n'), 8),
    nl: fc.constantFrom('\n', '\n', '\n', '\r\n'),
  })
  .map((r) => {
    let w = 0;
    let f = 0;
    let e = 0;
    let bt = 0;
    let od = 0;
    const odd = () => r.odd[od++ % r.odd.length]!;
    const sp = () => r.ws[w++ % r.ws.length]!;
    const form = () => r.forms[f++ % r.forms.length]!;
    const end = () => r.ends[e++ % r.ends.length]! + r.nl;
    const between = () => r.between[bt++ % r.between.length]!;
    const keyCol = r.indent + 2 + r.extra;
    const pad = (n: number) => ' '.repeat(Math.max(0, n));
    const flowList = (l: string[]) => `[${sp()}${l.join(`,${sp()}`)}${sp()}]`;
    /** A list as the value of a key at column col: on the key's line, or a block sequence under it (at the key's column, or past it). */
    const listValue = (l: string[], col: number) => {
      if (form() < 7) return ` ${sp()}${flowList(l)}${end()}`;
      const at = col + (odd() ? -1 : [0, 2, 2, 1][form() % 4]!);
      return `${end()}${l.map((t) => `${between()}${pad(at)}-${odd() ? '' : ' '}${sp()}${t}${end()}`).join('')}`;
    };
    const mapValue = (m: [string, string[] | null][], col: number) => {
      const kept = m.filter(([, v]) => v);
      if (form() < 5) return ` ${sp()}{${sp()}${kept.map(([k, v]) => `${k}:${odd() ? '' : ' '}${sp()}${flowList(v!)}`).join(`,${sp()}`)}${sp()}}${end()}`;
      const at = col + [2, 2, 1, 3, 2][form() % 5]!;
      return `${end()}${kept.map(([k, v], i) => `${between()}${pad(at + (odd() && i > 0 ? 1 : 0))}${k}:${listValue(v!, at)}`).join('')}`;
    };
    const K = r.keys;
    const fields = [
      `${K.name}:${odd() ? '' : ' '}${sp()}${r.name}${end()}`,
      `${K.instruction}: ${sp()}${r.instr}${end()}`,
      `${K.memory}:${listValue(r.mem, keyCol)}`,
      `${K.operands}:${mapValue(
        [
          [K.b, r.b],
          [K.c, r.c],
        ],
        keyCol,
      )}`,
      ...(r.expect
        ? [
            `${K.expect}:${mapValue(
              [
                [K.m, r.expect.memory],
                [K.r, r.expect.returned],
              ],
              keyCol,
            )}`,
          ]
        : []),
      ...(r.space ? [`${K.space}: ${r.space}${end()}`] : []),
    ];
    const rest = [...fields];
    const out: string[] = [];
    for (let o = r.order; rest.length; o = Math.floor(o / (rest.length + 1))) out.push(rest.splice(o % rest.length, 1)[0]!);
    if (r.dup) out.push(out[out.length - 1]!);
    const body = out.map((x, i) => (i === 0 ? x : `${between()}${pad(keyCol + (odd() && i === 2 ? 1 : 0))}${x}`)).join('');
    return { text: `${pad(r.indent)}-${pad(1 + r.extra)}${body}${between()}${r.next ? pad(r.indent) + r.next : ''}`, indent: r.indent };
  });

/** An item changed at one byte: one deleted, replaced or put in. */
const mutatedArb = fc
  .tuple(itemArb, fc.nat(), fc.constantFrom('del', 'set', 'ins'), fc.constantFrom(...'"\'{}[],:- #\t\r\n0xXaz\u0000\u00e9'.split('')))
  .map(([it, at, how, c]) => {
    const l = it.text;
    const i = at % (l.length + 1);
    return {
      indent: it.indent,
      text: how === 'del' ? l.slice(0, i) + l.slice(i + 1) : how === 'set' ? l.slice(0, i) + c + l.slice(i + 1) : l.slice(0, i) + c + l.slice(i),
    };
  });

describe.skipIf(!nat)('the native YAML scanner', () => {
  it('fast-check: every item it takes, packScan takes with the same fields, end and lines; it takes every item of fast elements packScan takes (seed 30)', () => {
    let took = 0;
    let jsOnly = 0;
    fc.assert(
      fc.property(itemArb, fc.boolean(), (item, last) => {
        const r = compareItem(nat!, item.text, item.indent, last);
        if (r.native) took++;
        // packScan took it and the native scanner did not: only for an element other than 4, 8 or 16 hex digits, or a spelling longer than its table's entries
        if (r.js && !r.native) {
          jsOnly++;
          expect(r.fast, item.text).toBe(false);
        }
      }),
      { numRuns: 4000, seed: 30 },
    );
    expect(took).toBeGreaterThan(1000);
    expect(jsOnly).toBeGreaterThan(0);
  });

  it('fast-check: items changed at one byte: whatever it takes, packScan takes the same way (seed 31)', () => {
    let took = 0;
    fc.assert(
      fc.property(mutatedArb, fc.boolean(), (item, last) => {
        const r = compareItem(nat!, item.text, item.indent, last);
        if (r.native) took++;
        if (r.js && !r.native) expect(r.fast, item.text).toBe(false);
      }),
      { numRuns: 4000, seed: 31 },
    );
    expect(took).toBeGreaterThan(200);
  });

  it('wants the data followed by zero bytes', () => {
    const { u, n } = bytesOf('  - name: a\n    instruction: red.global.add.u32\n');
    const sp = new Spellings();
    expect(nat!.scanYaml(u, 0, n, true, 2, new Int32Array(4096), sp.tbl, sp.tix)).toBe(1);
    u[n + 63] = 32;
    expect(() => nat!.scanYaml(u, 0, n, true, 2, new Int32Array(4096), sp.tbl, sp.tix)).toThrow(/zero bytes/);
    expect(() => nat!.scanYaml(u, 0, n + 1, true, 2, new Int32Array(4096), sp.tbl, sp.tix)).toThrow(/bad offsets/);
  });

  it('a file whose header gives the instruction: the same cases and problems with it and without it', () => {
    const h = (x: number) => `"0x${(x & 0xffff).toString(16).padStart(4, '0')}"`;
    let text = '# TestFloat-style\ninstruction: atom.global.add.noftz.f16\ncite: "t"\ncases:\n';
    for (let i = 0; i < 300; i++) {
      const own = i % 50 === 7 ? '    instruction: atom.global.add.u32\n' : i % 50 === 9 ? '    instruction: red.global.add.noftz.f16\n' : '';
      text += `  - name: f${i}\n${own}    memory: [${h(i * 40503)}]\n    operands:\n      b: [${h(i * 7919)}]\n    expect:\n      memory: [${h(i)}]\n${i % 3 ? `      returned: [${h(i * 40503)}]\n` : ''}`;
    }
    const on = loadVectorText('h.yaml', text, 'h.yaml');
    useNativeScan(false);
    const off = loadVectorText('h.yaml', text, 'h.yaml');
    useNativeScan(true);
    expect(on.cases.length).toBeGreaterThan(250);
    expect(on.problems.length).toBeGreaterThan(5);
    expect(on.problems).toEqual(off.problems);
    expect(on.cases).toEqual(off.cases);
    expect(on.packed).toBe(off.packed);
  });

  it('a list indented 1,500 columns: read by it, the same cases as without it', () => {
    const pad = ' '.repeat(1500);
    let text = 'cite: "t"\ncases:\n';
    for (let i = 0; i < 40; i++)
      text += `${pad}- name: d${i}\n${pad}  instruction: red.global.add.u32\n${pad}  memory: ["0x0000000${i % 10}"]\n${pad}  operands: { b: ["0x00000002"] }\n`;
    const s = new YamlScanner('d.yaml', 'd.yaml', false, text.length);
    const on = s.push(text, true).flatMap((b) => unpackAll(b));
    expect(s.nativeItems).toBe(39); // the first item is read where the list starts (YamlScanner.begin), the others by packRun
    useNativeScan(false);
    const off = loadVectorText('d.yaml', text, 'd.yaml');
    expect(on).toEqual(off.cases);
    expect(s.ctx.problems).toEqual([]);
  });

  it('files read with it and without it: the same cases, problems and packed blocks, whole and in pieces', () => {
    const items: string[] = [];
    for (let i = 0; i < 700; i++) items.push(spell(spelledCase(i, 97), SPELLINGS[i % SPELLINGS.length]!));
    // items packItem does not take or that have problems: a cas without c, a name twice, returned on
    // red, a local space, elements of another width, an unknown instruction; and more spellings than the
    // native table holds (64), one longer than its entries (128 bytes), and a block scalar the scanners leave
    items[3] = items[3]!.replace(/^ {6}c:.*\n(?: {6,}- .*\n)?/m, '');
    items[9] = items[9]!.replace('name: case-9', 'name: case-8');
    items[21] = items[21]!.replace('instruction: red.global.add.u32', 'instruction: red.global.add.u32\n    space: local');
    items[30] = items[30]!.replace(/0x([0-9a-f]{8})/, '0x$1$1');
    items[44] = items[44]!.replace('atom.global.add.u32', 'atom.global.add.q32');
    for (let i = 0; i < 70; i++)
      items.push(`  - name: s${i}\n    instruction: red.global.add.u32.z${i}\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n`);
    items.push(`  - name: long\n    instruction: atom.global.add.${'u'.repeat(140)}32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n`);
    items.push('  - name: folded\n    instruction: >\n      red.global.add.u32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n');
    // expect: lists packItem does not take (two elements, another width): the general path reports them
    for (const [n, e] of [
      ['exp-two', 'memory: ["0x00000003", "0x00000003"]'],
      ['exp-wide', 'memory: ["0x0000000000000003"]'],
      ['ret-two', 'returned: ["0x00000001", "0x00000001"]'],
      ['ret-wide', 'memory: ["0x00000003"], returned: ["0x0001"]'],
    ])
      items.push(
        `  - name: ${n}\n    instruction: atom.global.add.u32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n    expect: { ${e} }\n`,
      );
    items.push(
      '  - name: returned-on-red\n    instruction: red.global.add.u32\n    memory: ["0x00000001"]\n    operands: { b: ["0x00000002"] }\n    expect: { returned: ["0x00000001"] }\n',
    );
    const text = SPELLING_HEAD + items.join('');
    const on = loadVectorText('t.yaml', text, 't.yaml');
    useNativeScan(false);
    const off = loadVectorText('t.yaml', text, 't.yaml');
    useNativeScan(true);
    expect(on.problems.length).toBeGreaterThan(70);
    expect(on.problems).toEqual(off.problems);
    expect(on.cases).toEqual(off.cases);
    expect(on.packed).toBe(off.packed);
    const read = (pieces: number, native: boolean) => {
      useNativeScan(native);
      const s = new YamlScanner('t.yaml', 't.yaml', false, text.length);
      useNativeScan(true);
      const u = Buffer.from(text);
      const out = [];
      for (let p = 0; p < u.length; p += pieces) out.push(...s.pushBytes(u.subarray(p, Math.min(u.length, p + pieces)), p + pieces >= u.length));
      return { s, out };
    };
    // piece by piece, the same with it and without it (the cases a piece completes depend on where the pieces end, not on the scanner)
    for (const size of [1 << 20, 4099, 100, 7, 1]) {
      const a = read(size, true);
      const c = read(size, false);
      if (size === 1 << 20) expect(a.s.nativeItems).toBeGreaterThan(600);
      if (size === 4099) expect(a.s.nativeItems).toBeGreaterThan(300);
      expect(c.s.nativeItems).toBe(0);
      expect(a.out.map((x) => ('data' in x ? x.data() : x))).toEqual(c.out.map((x) => ('data' in x ? x.data() : x)));
      expect(a.s.ctx.problems).toEqual(c.s.ctx.problems);
      expect([a.s.items, a.s.packedItems]).toEqual([c.s.items, c.s.packedItems]);
    }
  });
});
