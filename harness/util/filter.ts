/**
 * `--filter PATTERN`: comma-separated alternatives; an alternative with `*` or `?` is a glob over
 * the whole entry id, one without is a substring of it.
 */

function alternatives(pattern: string): string[] {
  return pattern
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

const isGlob = (a: string) => /[*?]/.test(a);

export function compileFilter(pattern: string | undefined): (id: string) => boolean {
  if (!pattern) return () => true;
  const alts = alternatives(pattern);
  const tests = alts.map((a) => (isGlob(a) ? globMatcher(a) : (id: string) => id.includes(a)));
  if (tests.length === 1) return tests[0]!;
  return (id) => {
    for (let k = 0; k < tests.length; k++) if (tests[k]!(id)) return true;
    return false;
  };
}

/** The regular expression of a glob (`*` any run, `?` any one character): the definition globMatcher follows. */
export function globRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
}

/**
 * Whether an id matches the glob, as globRegExp's expression decides, without a regular expression:
 * the glob is its runs between `*`s, the first at the id's start, the last at its end, each other
 * at its leftmost place after the one before (the leftmost place leaves the most room for the rest,
 * so it finds a match wherever there is one). An expectations file's patterns are tested against
 * every result of a run; a `^.*a.*b.*$` expression backtracks over long ids.
 */
export function globMatcher(glob: string): (id: string) => boolean {
  const runs = glob.split('*');
  const head = runs[0]!;
  const tail = runs[runs.length - 1]!;
  const star = runs.length > 1;
  /** Whether run r lies at id[at..]. */
  const at = (id: string, r: string, p: number) => {
    if (p < 0 || p + r.length > id.length) return false;
    for (let k = 0; k < r.length; k++) if (r.charCodeAt(k) !== 63 && r.charCodeAt(k) !== id.charCodeAt(p + k)) return false;
    return true;
  };
  // the runs between the first and the last; one with a `?` is looked for where its longest piece
  // without one lies (`piece`, at `off` in the run), each such place tried whole
  const mid = runs
    .slice(1, -1)
    .filter((r) => r.length > 0)
    .map((r) => {
      const piece = r.split('?').reduce((a, b) => (b.length > a.length ? b : a), '');
      return { r, wild: r.includes('?'), piece, off: r.indexOf(piece) };
    });
  /** The leftmost place from p on where run m lies, or -1. */
  const find = (id: string, m: (typeof mid)[number], p: number) => {
    const { r, piece, off } = m;
    if (!m.wild) return id.indexOf(r, p);
    for (let q = p; q + r.length <= id.length; q++) {
      if (piece) {
        const i = id.indexOf(piece, q + off);
        if (i < 0) return -1;
        q = i - off;
        if (q + r.length > id.length) return -1;
      }
      if (at(id, r, q)) return q;
    }
    return -1;
  };
  return (id) => {
    if (!star) return id.length === glob.length && at(id, glob, 0);
    if (!at(id, head, 0)) return false;
    let p = head.length;
    for (const m of mid) {
      const q = find(id, m, p);
      if (q < 0) return false;
      p = q + m.r.length;
    }
    return id.length - tail.length >= p && at(id, tail, id.length - tail.length);
  };
}

/**
 * For pruning an enumeration: whether some id that starts with `prefix` could match the filter.
 * False only when none can: a glob whose literal head the prefix has left, or (given `rest`, the
 * words the id's remaining qualifiers can still spell) an alternative needing a whole word that
 * neither the prefix holds nor the rest can spell: a glob's words after its wildcard, a substring's
 * words between its first and last dot (it may come anywhere in the id, its first and last words
 * part of longer ones: `red.shared::cta.min.u32` needs shared::cta and min).
 */
export function compileFilterPrefix(pattern: string | undefined): (prefix: string, rest?: ReadonlySet<string>) => boolean {
  if (!pattern) return () => true;
  const alts = alternatives(pattern);
  if (!alts.length) return () => true;
  const tests = alts.map((a) => {
    const t = isGlob(a) ? globPrefixTest(a) : () => true;
    const words = isGlob(a) ? wordsAfterWildcard(a) : innerWords(a);
    // (atom.*.cas.b64 past an .add: cas cannot come)
    return (prefix: string, rest?: ReadonlySet<string>) => t(prefix) && (!rest || words.every((w) => rest.has(w) || `.${prefix}.`.includes(`.${w}.`)));
  });
  return (prefix, rest) => tests.some((t) => t(prefix, rest));
}

/**
 * The whole qualifier words every id holding the substring `sub` holds: its dot-separated words of
 * qualifier characters alone with a dot on each side inside it (or, on the right, a `(`/`@`/other
 * character that begins a suffix); its first word may end a longer word of the id, its last begin one.
 */
export function innerWords(sub: string): string[] {
  const cut = sub.search(/[^\w:.]/);
  const pieces = (cut < 0 ? sub : sub.slice(0, cut)).split('.');
  return pieces.slice(1, cut < 0 ? -1 : undefined).filter((w) => /^[\w:]+$/.test(w));
}

/**
 * The whole qualifier words a glob's ids must hold after its first wildcard: its dot-separated words
 * of qualifier characters alone, with a dot (or the glob's start or end, or a `(`/`@` that begins a
 * suffix) on each side; the part from the first other character on (a descriptor `(u32)`, `@ptx8.0`)
 * is left out, as are words touching a wildcard (`b64*` may be `b64x2`).
 */
export function wordsAfterWildcard(glob: string): string[] {
  const cut = glob.search(/[^\w:.*?]/);
  const g = cut < 0 ? glob : glob.slice(0, cut);
  const w = g.search(/[*?]/);
  if (w < 0) return [];
  const words: string[] = [];
  let at = 0;
  for (const word of g.split('.')) {
    if (at > w && /^[\w:]+$/.test(word)) words.push(word);
    at += word.length + 1;
  }
  return words;
}

/**
 * Runs the glob as an automaton over `prefix`; the prefix is viable while some state is alive. A
 * prefix within the glob's literal head (before its first `*` or `?`) is decided by comparing the
 * text: viable when it agrees with the head (an id of the head and the rest of the glob matches),
 * not when it differs (the enumeration asks this for every partial id it spells).
 */
function globPrefixTest(glob: string): (prefix: string) => boolean {
  const w = glob.search(/[*?]/);
  const head = w < 0 ? glob : glob.slice(0, w);
  return (prefix) => {
    const n = Math.min(prefix.length, head.length);
    if (!head.startsWith(n === prefix.length ? prefix : prefix.slice(0, n))) return false;
    if (prefix.length <= head.length) return true;
    return globStates(glob, prefix) !== undefined;
  };
}

/**
 * The glob as an automaton over `prefix`: the positions of the glob it can be at after reading it
 * (a `*` at position i may match nothing: i + 1 too), or undefined when none is alive.
 */
function globStates(glob: string, prefix: string): Set<number> | undefined {
  const n = glob.length;
  // the states as lists, a position marked with the step that added it (run per id prefix of a
  // report's results and per expectation: 126,000 times in a GPU run, where sets per character cost 0.1 s)
  const mark = new Int32Array(n + 1);
  let step = 1;
  // state i, and where the glob has '*' from i on (which may match nothing), the states after it
  const add = (to: number[], i: number) => {
    for (; mark[i] !== step; i++) {
      mark[i] = step;
      to.push(i);
      if (i >= n || glob[i] !== '*') return;
    }
  };
  let states: number[] = [];
  let next: number[] = [];
  add(states, 0);
  for (const ch of prefix) {
    step++;
    next.length = 0;
    for (const i of states) {
      if (i >= n) continue;
      const g = glob[i];
      if (g === '*') add(next, i);
      else if (g === '?' || g === ch) add(next, i + 1);
    }
    if (!next.length) return undefined;
    [states, next] = [next, states];
  }
  return new Set(states);
}

/** The characters of a case name (letters, digits, _ . -): what follows the last ':' of a case's id. */
const NAME_CHAR = /^[A-Za-z0-9_.-]*$/;

/**
 * For ids `<prefix><name>` whose name is made of name characters only (a vector file's case ids:
 * `<variant>/<file>:<name>`): whether some such name could complete a match of the filter after
 * `prefix`. False only when none can (each alternative, run as an automaton over the prefix, is
 * left only in states whose rest of the glob needs a character no name has), so a run testing the
 * same pattern against many ids of one prefix can skip them all (the expectations over a --keep all
 * run). A substring alternative counts as the glob `*a*`.
 */
export function compileFilterNameGate(pattern: string | undefined): (prefix: string) => boolean {
  if (!pattern) return () => true;
  const globs = alternatives(pattern).map((a) => (isGlob(a) ? a : `*${a}*`));
  const tests = globs.map((g) => {
    // completes[i]: the glob from position i on has only name characters, `*` and `?`
    const completes = Array.from({ length: g.length + 1 }, (_, i) => [...g.slice(i)].every((ch) => ch === '*' || ch === '?' || NAME_CHAR.test(ch)));
    return (prefix: string) => {
      const states = globStates(g, prefix);
      if (!states) return false;
      for (const i of states) if (completes[i]) return true;
      return false;
    };
  });
  return (prefix) => tests.some((t) => t(prefix));
}

/** Where the name of a case id begins (after its last ':'), or -1 when what follows is not a name. */
export function nameStart(id: string): number {
  const c = id.lastIndexOf(':');
  return c >= 0 && NAME_CHAR.test(id.slice(c + 1)) ? c + 1 : -1;
}

/** The words of an id or a filter: maximal runs of letters, digits, `_` and `:` (`shared::cta` is one). */
export function idWords(text: string): string[] {
  return text.match(/[A-Za-z0-9_:]+/g) ?? [];
}

/**
 * False only when no id made of the given words (a family's: familyWords in catalog/enumerate.ts) can
 * pass the filter: every word of an alternative's literal text (its runs between `*` and `?`; a
 * substring alternative whole) lies inside some word of any id it matches, so each must be a substring
 * of one of the family's words. Lets a run skip a family's whole walk (`--filter atom.global.add.f32`
 * never walks red's grammar).
 */
export function compileFilterWords(pattern: string | undefined): (familyWords: readonly string[]) => boolean {
  if (!pattern) return () => true;
  const alts = alternatives(pattern).map((a) => a.split(/[*?]/).flatMap(idWords));
  return (fw) => alts.some((words) => words.every((w) => fw.some((f) => f.includes(w))));
}

/**
 * compileFilterPrefix for one family, whose ids start with `head` and are made of `familyWords`: a
 * substring alternative that starts with the head, whose first word no other word of the family
 * holds, can match an id only at its start, so it prunes the walk as the glob `<alternative>*` does
 * (`atom.global.add.f32` walks only atom's `atom.global.add.f32...` subtree).
 */
export function compileFilterPrefixFor(pattern: string | undefined, head: string, familyWords: readonly string[]): (prefix: string) => boolean {
  if (!pattern) return () => true;
  const w0 = idWords(head)[0] ?? '';
  const anchored = w0 !== '' && familyWords.every((f) => f === w0 || !f.includes(w0));
  const tests = alternatives(pattern).map((a) => (isGlob(a) ? globPrefixTest(a) : anchored && a.startsWith(head) ? globPrefixTest(`${a}*`) : () => true));
  return (prefix) => tests.some((t) => t(prefix));
}
