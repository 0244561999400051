/**
 * A JSON form of a value in which equal parts are written once: every string, number, boolean and
 * null is an atom, every array and object a node numbered after its children, and equal nodes
 * (same keys, same children) share one number. What a value repeats (a citation in thousands of
 * catalog entries, one operand list per form) is stored, parsed and built once, and the value
 * decoded shares those parts.
 *
 * decode(encode(v)) is deep-equal to JSON.parse(JSON.stringify(v)) (keys holding undefined are left
 * out, as JSON does); tests/catalog/cache.test.ts holds it so.
 */

/** A value's word in its container: >= 0 a node, < 0 the atom at -word - 1. */
type Word = number;
type Atom = string | number | boolean | null;

export interface SharedJson {
  readonly atoms: Atom[];
  /** Objects' key lists. */
  readonly shapes: string[][];
  /** [0, ...words] an array, [shape + 1, ...words] an object; a node's words name earlier nodes only. */
  readonly nodes: number[][];
  readonly root: Word;
}

export function encodeShared(value: unknown): SharedJson {
  const atoms: Atom[] = [];
  const atomIds = new Map<Atom, Word>();
  const shapes: string[][] = [];
  const shapeIds = new Map<string, number>();
  const nodes: number[][] = [];
  const seen = new Map<object, Word>();
  const atom = (a: Atom): Word => {
    let w = atomIds.get(a);
    if (w === undefined) {
      atoms.push(a);
      atomIds.set(a, (w = -atoms.length));
    }
    return w;
  };
  // nodes by a hash of their words (a bucket holds the numbers of the nodes with that hash)
  const buckets = new Map<number, Word | Word[]>();
  const same = (a: readonly number[], b: readonly number[]) => {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  };
  const node = (n: number[]): Word => {
    let h = n.length;
    for (let i = 0; i < n.length; i++) h = (Math.imul(h, 31) + n[i]!) | 0;
    const b = buckets.get(h);
    if (b !== undefined) {
      if (typeof b === 'number') {
        if (same(nodes[b]!, n)) return b;
      } else for (const w of b) if (same(nodes[w]!, n)) return w;
    }
    nodes.push(n);
    const w = nodes.length - 1;
    if (b === undefined) buckets.set(h, w);
    else if (typeof b === 'number') buckets.set(h, [b, w]);
    else b.push(w);
    return w;
  };
  const enc = (v: unknown): Word => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return atom(v);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`encodeShared: ${v} has no JSON form`);
      return atom(v);
    }
    if (typeof v !== 'object') throw new Error(`encodeShared: a ${typeof v} has no JSON form`);
    const known = seen.get(v);
    if (known !== undefined) return known;
    let w: Word;
    if (Array.isArray(v)) {
      const n = new Array<number>(v.length + 1);
      n[0] = 0;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        n[i + 1] = x === undefined || typeof x === 'function' ? atom(null) : enc(x);
      }
      w = node(n);
    } else {
      // the keys JSON keeps (undefined and functions left out), in order, and their values' words
      const keys: string[] = [];
      const n: number[] = [0];
      for (const k of Object.keys(v)) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined || typeof x === 'function') continue;
        keys.push(k);
        n.push(enc(x));
      }
      const sk = keys.join('\0');
      let s = shapeIds.get(sk);
      if (s === undefined) {
        shapes.push(keys);
        shapeIds.set(sk, (s = shapes.length - 1));
      }
      n[0] = s + 1;
      w = node(n);
    }
    seen.set(v, w);
    return w;
  };
  const root = enc(value);
  return { atoms, shapes, nodes, root };
}

/** The value of encodeShared's output; throws on a malformed one (a word that names no earlier part). */
export function decodeShared(p: SharedJson): unknown {
  const { atoms, shapes, nodes } = p;
  const built: unknown[] = new Array(nodes.length);
  const get = (w: Word, limit: number): unknown => {
    if (w < 0) {
      if (-w - 1 >= atoms.length) throw new Error(`decodeShared: atom ${-w - 1} of ${atoms.length}`);
      return atoms[-w - 1];
    }
    if (w >= limit) throw new Error(`decodeShared: node ${w} used before it is made`);
    return built[w];
  };
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const tag = n[0]!;
    if (tag === 0) {
      const a = new Array(n.length - 1);
      for (let j = 1; j < n.length; j++) a[j - 1] = get(n[j]!, i);
      built[i] = a;
    } else {
      const keys = shapes[tag - 1];
      if (!keys || keys.length !== n.length - 1) throw new Error(`decodeShared: node ${i} does not fit its key list`);
      const o: Record<string, unknown> = {};
      for (let j = 0; j < keys.length; j++) o[keys[j]!] = get(n[j + 1]!, i);
      built[i] = o;
    }
  }
  return get(p.root, nodes.length);
}
