/** "Did you mean" suggestions: the candidates closest to a word by edit distance. */
export function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length]!;
}

/** The `n` candidates closest to `word`, nearest first (ties alphabetical). */
export function nearestWords(word: string, candidates: readonly string[], n = 3): string[] {
  return [...candidates]
    .map((c) => ({ c, d: levenshtein(word, c) }))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, n)
    .map((x) => x.c);
}

/** Edit distance counting a swap of two neighbouring characters as one edit (`mni` and `min`: 1). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

const bare = (s: string) => s.replace(/^\./, '');

/** Edits a typo of `word` may hold: one for every two characters, at least one. */
const typoReach = (word: string) => Math.max(1, Math.floor(bare(word).length / 2));

/** Whether `candidate` is within a typo's reach of `word` (a leading '.' ignored). */
export function withinReach(word: string, candidate: string): boolean {
  return editDistance(bare(word), bare(candidate)) <= typoReach(word);
}

/** Characters `a` and `b` share at the start. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * The `n` candidates nearest `word` when some are likelier than others: `tiers` lists groups of
 * candidates, likeliest first (a family's own qualifiers at the place of the typo, then its others,
 * then every qualifier). A leading '.' on either side is ignored (`.ad` and `add` are one edit
 * apart), and a swap of two neighbouring characters is one edit (`mni` and `min`). Candidates
 * within a typo's reach (an edit for every two characters, at least one) come first, by tier and
 * then by distance; ties go to the longer common prefix (`ad`: `add` before `and`), then
 * alphabetically; the others after them, nearest first.
 */
export function nearestRanked(word: string, tiers: readonly (readonly string[])[], n = 3): string[] {
  const w = bare(word);
  const reach = typoReach(w);
  const seen = new Set<string>();
  const scored: { c: string; far: number; tier: number; d: number; p: number }[] = [];
  tiers.forEach((cs, tier) => {
    for (const c of cs) {
      if (seen.has(c)) continue;
      seen.add(c);
      const d = editDistance(w, bare(c));
      scored.push({ c, far: d > reach ? 1 : 0, tier, d, p: commonPrefix(w, bare(c)) });
    }
  });
  return scored
    .sort((x, y) => x.far - y.far || (x.far ? x.d - y.d || x.tier - y.tier : x.tier - y.tier || x.d - y.d) || y.p - x.p || x.c.localeCompare(y.c))
    .slice(0, n)
    .map((x) => x.c);
}
