/**
 * `--filter PATTERN`: comma-separated alternatives; an alternative with `*` or `?` is a glob over
 * the whole entry id, one without is a substring of it.
 */
export function compileFilter(pattern: string | undefined): (id: string) => boolean {
  if (!pattern) return () => true;
  const alts = pattern.split(',').map((p) => p.trim()).filter(Boolean);
  const tests = alts.map((a) => {
    if (!/[*?]/.test(a)) return (id: string) => id.includes(a);
    const re = new RegExp(`^${a.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    return (id: string) => re.test(id);
  });
  return (id) => tests.some((t) => t(id));
}
