/**
 * The same vector-file cases spelled five ordinary YAML ways (issue 28 deliverable 3), for
 * scripts/bench-vectors.ts and tests/case-readers/yaml-spellings.test.ts: every spelling of case i holds the
 * same instruction, name, inputs and expect:, so a reader must give the same cases and verdicts.
 * - flow: one `key: value` line per key, flow lists and maps (`operands: { b: ["0x.."] }`);
 * - block: TestFloat-converted style, `operands:` and `expect:` on their own lines, keys under them;
 * - comments: block, with comment lines and trailing comments;
 * - quoted: block, single-quoted hex and quoted keys in flow maps;
 * - order: flow, keys in another order (expect first, name last);
 * - plain: flow, plain (unquoted) hex (`memory: [0x0000abcd]`);
 * - seq: block, every list a block sequence (`memory:` then `- "0x.."` lines; indented past the
 *   key or at its column, plain, double- and single-quoted elements).
 * The cases are integer atom/red instructions whose outcome is one value, with `expect:` worked out
 * here; `wrongEvery` > 0 makes every wrongEvery-th expect wrong (a mismatch).
 */
export const SPELLINGS = ['flow', 'block', 'comments', 'quoted', 'order', 'plain', 'seq'] as const;
export type Spelling = (typeof SPELLINGS)[number];

export interface SpelledCase {
  name: string;
  instruction: string;
  memory: number;
  b: number;
  c?: number;
  expMemory: number;
  expReturned?: number;
}

const KINDS = ['atom.global.add.u32', 'red.global.add.u32', 'atom.global.cas.b32', 'atom.global.exch.b32', 'atom.global.and.b32'] as const;

/** Case i of a deterministic stream (seeded LCG). */
export function spelledCase(i: number, wrongEvery = 0): SpelledCase {
  let s = (Math.imul(i + 1, 2654435761) ^ 0x5bd1e995) >>> 0;
  const r = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  const instruction = KINDS[i % KINDS.length]!;
  const memory = r();
  let b = r();
  const c = instruction.includes('cas') ? r() : undefined;
  if (c !== undefined && i % 2 === 0) b = memory;
  let expMemory: number;
  if (instruction.includes('add')) expMemory = (memory + b) >>> 0;
  else if (instruction.includes('cas')) expMemory = memory === b ? c! : memory;
  else if (instruction.includes('exch')) expMemory = b;
  else expMemory = (memory & b) >>> 0;
  if (wrongEvery > 0 && i % wrongEvery === wrongEvery - 1) expMemory = (expMemory ^ 1) >>> 0;
  return { name: `case-${i}`, instruction, memory, b, c, expMemory, expReturned: instruction.startsWith('atom') ? memory : undefined };
}

const h = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;

export const SPELLING_HEAD = '# the same cases, five spellings\ncite: "vector-spellings"\ncases:\n';

/** Case x as one list item (lines ending in \n) in spelling `sp`. */
export function spell(x: SpelledCase, sp: Spelling): string {
  const q = (v: number) => (sp === 'quoted' ? `'${h(v)}'` : sp === 'plain' ? h(v) : `"${h(v)}"`);
  if (sp === 'seq') {
    let out = `  - name: ${x.name}\n    instruction: ${x.instruction}\n    memory:\n      - "${h(x.memory)}"\n    operands:\n      b:\n        - ${h(x.b)}\n`;
    if (x.c !== undefined) out += `      c:\n      - '${h(x.c)}'\n`;
    out += `    expect:\n      memory:\n      - "${h(x.expMemory)}"\n`;
    if (x.expReturned !== undefined) out += `      returned:\n        - ${h(x.expReturned)}\n`;
    return out;
  }
  if (sp === 'flow' || sp === 'order' || sp === 'plain') {
    const ops = `operands: { b: [${q(x.b)}]${x.c !== undefined ? `, c: [${q(x.c)}]` : ''} }`;
    const exp = `expect: { memory: [${q(x.expMemory)}]${x.expReturned !== undefined ? `, returned: [${q(x.expReturned)}]` : ''} }`;
    if (sp !== 'order') return `  - name: ${x.name}\n    instruction: ${x.instruction}\n    memory: [${q(x.memory)}]\n    ${ops}\n    ${exp}\n`;
    return `  - ${exp
      .replace('{ memory', '{ returned')
      .replace(/\{ returned: (\[[^\]]*\]), returned: (\[[^\]]*\]) \}/, '{ returned: $2, memory: $1 }')
      .replace(
        /\{ returned: (\[[^\]]*\]) \}/,
        '{ memory: $1 }',
      )}\n    ${ops}\n    memory: [${q(x.memory)}]\n    instruction: "${x.instruction}"\n    name: ${x.name}\n`;
  }
  const com = sp === 'comments';
  const t = (s: string) => (com ? `${s}   # ${s.trim().split(':')[0]}` : s);
  let out = `  - name: ${x.name}\n`;
  if (com) out += `    # ${x.instruction}, worked out by hand\n`;
  out += t(`    instruction: ${x.instruction}`) + '\n';
  out += t(`    memory: [${q(x.memory)}]`) + '\n';
  out += t('    operands:') + '\n';
  out += t(`      ${sp === 'quoted' ? '"b"' : 'b'}: [${q(x.b)}]`) + '\n';
  if (x.c !== undefined) out += t(`      c: [${q(x.c)}]`) + '\n';
  out += t('    expect:') + '\n';
  if (com) out += '      # the one outcome the model allows\n';
  out += t(`      memory: [${q(x.expMemory)}]`) + '\n';
  if (x.expReturned !== undefined) out += t(`      returned: [${q(x.expReturned)}]`) + '\n';
  if (com) out += '\n';
  return out;
}
