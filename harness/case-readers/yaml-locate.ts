/**
 * Where a problem is, by the `yaml` package: a path (`['operands', 'b', 0]`) walked through a parsed
 * node to the offending value (or key), and its line and column. The one way the readers locate a
 * problem: YAML items and documents (vector-yaml.ts) and JSON lines (vector-jsonl.ts; JSON is YAML
 * 1.2's flow subset, so a line JSON.parse accepted parses to the same tree with offsets).
 */
import { type Document, LineCounter, type Node, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Located, Locator, Path } from './vector-check.js';

export const YAML_OPTS = { prettyErrors: false, uniqueKeys: true } as const;

function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** A yaml node as a plain value (what the checks read); aliases resolve, to a bounded depth. */
export function plainOf(n: unknown, doc: Document | undefined, depth = 0): unknown {
  if (n === null || n === undefined || depth > 64) return null;
  if (isScalar(n)) {
    // a plain hex scalar (`0x0000abcd`, which YAML's core schema reads as an integer) stays the hex
    // text as written: an element's digits say its width (docs/vector-files.md)
    if (n.format === 'HEX' && n.type === 'PLAIN' && n.tag === undefined && typeof n.source === 'string') return n.source;
    return n.value;
  }
  if (isSeq(n)) return n.items.map((x) => plainOf(x, doc, depth + 1));
  if (isMap(n)) {
    const o: Record<string, unknown> = {};
    for (const p of n.items) setKey(o, isScalar(p.key) ? String(p.key.value) : '?', plainOf(p.value, doc, depth + 1));
    return o;
  }
  if (isAlias(n) && doc) return plainOf(n.resolve(doc), doc, depth + 1);
  return null;
}

/** Where a path leads in a yaml node (the deepest node that exists on the way; of repeated keys, the last). */
function nodeAt(root: unknown, path: Path, asKey: boolean): Node | undefined {
  let cur = root as Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(cur) && typeof seg === 'string') {
      let pair: (typeof cur.items)[number] | undefined;
      for (const p of cur.items) if ((isScalar(p.key) ? String(p.key.value) : '?') === seg) pair = p;
      if (!pair) break;
      if ((i === path.length - 1 && asKey) || pair.value === null || pair.value === undefined) return pair.key as Node;
      cur = pair.value as Node;
    } else if (isSeq(cur) && typeof seg === 'number' && seg < cur.items.length) {
      cur = cur.items[seg] as Node;
    } else break;
  }
  return cur;
}

function locatedIn(node: Node | undefined, lc: LineCounter, baseLine: number): Located {
  const off = node?.range?.[0] ?? 0;
  const p = lc.linePos(off);
  const quoted = isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE');
  return { line: baseLine + p.line - 1, col: p.col, quoted };
}

/** Locates within one parsed yaml node (a case item or a file root). */
export class NodeLocator implements Locator {
  constructor(
    public node: unknown,
    public lc: LineCounter,
    public baseLine: number,
  ) {}
  locate(path: Path, asKey: boolean): Located {
    return locatedIn(nodeAt(this.node, path, asKey), this.lc, this.baseLine);
  }
}

/**
 * Locates within a piece of text read some other way (a packed item, a JSON line): parses the piece
 * with the yaml package only when a problem asks. `item`: the piece is one list item (`- ...`).
 */
export class TextLocator implements Locator {
  text = '';
  baseLine = 1;
  constructor(private readonly item: boolean) {}
  locate(path: Path, asKey: boolean): Located {
    const lc = new LineCounter();
    const doc = parseDocument(this.text, { ...YAML_OPTS, uniqueKeys: false, lineCounter: lc });
    const root = doc.contents;
    const node = this.item && isSeq(root) ? root.items[0] : root;
    return locatedIn(nodeAt(node, path, asKey), lc, this.baseLine);
  }
}
