/**
 * reports/findings/toolchains.txt says what every toolchain reproducer (check.sh) printed under
 * ptxas 13.0 and Debian's ptxas 11.8. This runs each line again under the toolchain of that release
 * where this machine has it (npm run setup:toolchain fetches 11.8) and compares the verdict word:
 * a finding that comes or goes with a toolchain fails here, in CI's CPU job.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ptxas118, ptxasOrReason } from '../helpers/ptxas.js';

const ROOT = join(import.meta.dirname, '..', '..');
const lines = readFileSync(join(ROOT, 'reports', 'findings', 'toolchains.txt'), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [folder, release, module, said] = l.split('\t');
    return { folder: folder!, release: release!.replace('release ', ''), module: module!, said: said! };
  });
const word = (s: string) => /^(NOT REPRODUCED|REPRODUCED|CANNOT CHECK)/.exec(s)?.[1];

describe('reports/findings/toolchains.txt, checked again under each toolchain here', async () => {
  const p = await ptxasOrReason();
  const byRelease = new Map<string, string>();
  if (typeof p !== 'string') byRelease.set(p.release, p.path);
  const p118 = ptxas118();
  if (p118) byRelease.set('11.8', p118);
  for (const release of [...new Set(lines.map((l) => l.release))]) {
    const ptxas = byRelease.get(release);
    it.skipIf(!ptxas)(
      `ptxas ${release}: every line says what it said when recorded${ptxas ? '' : ' (skipped: no such ptxas here; npm run setup:toolchain fetches 11.8)'}`,
      () => {
        const mine = lines.filter((l) => l.release === release);
        expect(mine.length).toBeGreaterThan(0);
        const got = mine.map((l) => {
          const r = spawnSync('sh', [join(ROOT, l.folder, 'check.sh'), l.module], { encoding: 'utf8', env: { ...process.env, PTXAS: ptxas } });
          rmSync(join(ROOT, l.folder, 'ptxas.log'), { force: true });
          return `${l.folder} ${l.module}: ${word(r.stdout.trim().split('\n').at(-1) ?? '') ?? r.stdout}`;
        });
        expect(got).toEqual(mine.map((l) => `${l.folder} ${l.module}: ${word(l.said)}`));
      },
      120_000,
    );
  }
  it('the file has lines for both toolchains, and a verdict word on each', () => {
    expect(new Set(lines.map((l) => l.release))).toEqual(new Set(['13.0', '11.8']));
    for (const l of lines) expect(word(l.said), `${l.folder} ${l.module}`).toBeDefined();
  });
});
