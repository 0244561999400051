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
