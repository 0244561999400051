/**
 * `--filter PATTERN`: comma-separated alternatives; an alternative with `*` or `?` is a glob over
 * the whole entry id, one without is a substring of it.
 */

function alternatives(pattern: string): string[] {
  return pattern.split(',').map((p) => p.trim()).filter(Boolean);
}

const isGlob = (a: string) => /[*?]/.test(a);

export function compileFilter(pattern: string | undefined): (id: string) => boolean {
  if (!pattern) return () => true;
  const alts = alternatives(pattern);
  const tests = alts.map((a) => {
    if (!isGlob(a)) return (id: string) => id.includes(a);
    const re = new RegExp(`^${a.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    return (id: string) => re.test(id);
  });
  return (id) => tests.some((t) => t(id));
}

/**
 * For pruning an enumeration: whether some id that starts with `prefix` could match the filter.
 * False only when none can (a glob whose literal head the prefix has left); always true for a
 * substring alternative, which may still come later in the id.
 */
export function compileFilterPrefix(pattern: string | undefined): (prefix: string) => boolean {
  if (!pattern) return () => true;
  const alts = alternatives(pattern);
  if (!alts.length || alts.some((a) => !isGlob(a))) return () => true;
  const tests = alts.map(globPrefixTest);
  return (prefix) => tests.some((t) => t(prefix));
}

/** Runs the glob as an automaton over `prefix`; the prefix is viable while some state is alive. */
function globPrefixTest(glob: string): (prefix: string) => boolean {
  const n = glob.length;
  // states: positions in the glob; a `*` at position i may match nothing (go to i + 1).
  const close = (s: Set<number>) => {
    for (const i of [...s]) for (let j = i; j < n && glob[j] === '*'; j++) s.add(j + 1);
    return s;
  };
  return (prefix) => {
    let states = close(new Set([0]));
    for (const ch of prefix) {
      const next = new Set<number>();
      for (const i of states) {
        if (i >= n) continue;
        const g = glob[i];
        if (g === '*') next.add(i);
        else if (g === '?' || g === ch) next.add(i + 1);
      }
      if (!next.size) return false;
      states = close(next);
    }
    return true;
  };
}
