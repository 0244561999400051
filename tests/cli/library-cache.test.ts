/**
 * The case library's selection cache (selectLibrary with a cacheDir, harness/cli/library-cases.ts,
 * on util/keyed-cache.ts): what a run reads back is the selection it would have made, case for case
 * and in order, judging alike (the directed files' cases alone too: the gpu run's); another seed, filter or shard is not read from another's file; a
 * file that does not decode, or a changed key, is selected again and rewritten.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectLibrary } from '../../harness/cli/library-cases.js';
import { runCaseOnReference } from '../../harness/backends/reference/cases.js';
import { registerAllFamilies } from '../../harness/families/index.js';
import { KeyedCache } from '../../harness/util/keyed-cache.js';
import { collectCases } from '../../harness/case-readers/sources.js';
import { compileFilter } from '../../harness/util/filter.js';
import { scratchFolders } from '../helpers/scratch.js';

registerAllFamilies();
const scratch = scratchFolders('library-cache-');
const turn = () => new Promise((r) => setTimeout(r, 10));
const plain = (x: unknown) => JSON.parse(JSON.stringify(x, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)));

describe('the case library kept between runs', () => {
  const opts = { seed: 7, filter: 'atom.global.add.*,multimem.ld_reduce.global.add.acc::f32.v2.f16' };

  it('reads back the selection it made: the same cases in the same order, judged alike', async () => {
    const dir = scratch();
    const fresh = await selectLibrary(opts);
    const first = await selectLibrary({ ...opts, cacheDir: dir });
    expect(existsSync(join(dir, 'cases'))).toBe(false); // kept after a turn, not before
    await turn();
    expect(readdirSync(join(dir, 'cases')).length).toBe(1);
    const again = await selectLibrary({ ...opts, cacheDir: dir });
    expect(again).not.toBe(first);
    expect(again.total).toBeGreaterThan(20);
    expect(plain(again)).toEqual(plain(fresh));
    expect(plain(again.cases.map((c) => runCaseOnReference(c)))).toEqual(plain(fresh.cases.map((c) => runCaseOnReference(c))));
  }, 60_000);

  it('keeps each seed, filter and shard apart, and selects again where the file does not read back', async () => {
    const dir = scratch();
    await selectLibrary({ ...opts, cacheDir: dir });
    await turn();
    for (const other of [
      { ...opts, seed: 8 },
      { ...opts, filter: 'atom.global.add.f32' },
      { ...opts, shard: { index: 1, count: 2 } },
    ]) {
      const want = await selectLibrary(other);
      const got = await selectLibrary({ ...other, cacheDir: dir });
      expect(plain(got)).toEqual(plain(want));
    }
    await turn();
    const files = readdirSync(join(dir, 'cases'));
    expect(files.length).toBe(4);
    // every file cut short: each selection made again, the same as before
    for (const f of files) writeFileSync(join(dir, 'cases', f), 'not a selection');
    const want = await selectLibrary(opts);
    expect(plain(await selectLibrary({ ...opts, cacheDir: dir }))).toEqual(plain(want));
  }, 60_000);

  it("the directed files' cases alone (the gpu run's) are what collectCases reads, and kept apart from the whole library", async () => {
    const dir = scratch();
    const want = await collectCases({ vectors: [], seed: opts.seed, directed: true, generated: false, keep: compileFilter(opts.filter) });
    const first = await selectLibrary({ ...opts, cacheDir: dir, directedOnly: true });
    await turn();
    const again = await selectLibrary({ ...opts, cacheDir: dir, directedOnly: true });
    expect(want.cases.length).toBeGreaterThan(10);
    expect(plain(first.cases)).toEqual(plain(want.cases));
    expect(plain(again.cases)).toEqual(plain(want.cases));
    const whole = await selectLibrary({ ...opts, cacheDir: dir });
    expect(whole.total).toBeGreaterThan(want.cases.length);
  }, 60_000);

  it('a file holding another key is not read (the key text is compared, not only the name)', () => {
    const dir = scratch();
    const c = new KeyedCache<number>('t', 1, 'v8', {
      encode: (key, v) => Buffer.from(JSON.stringify({ key, v })),
      decode: (d) => {
        const o = JSON.parse(d.toString()) as { key: string; v: number };
        return { key: o.key, value: o.v };
      },
    });
    c.write(dir, { a: 1 }, 41);
    expect(c.read(dir, { a: 1 })).toBe(41);
    expect(c.read(dir, { a: 2 })).toBeUndefined();
    const [f] = readdirSync(join(dir, 't'));
    writeFileSync(join(dir, 't', f!), JSON.stringify({ key: 'something else', v: 42 }));
    expect(c.read(dir, { a: 1 })).toBeUndefined();
  });
});
