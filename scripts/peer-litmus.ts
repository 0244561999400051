/**
 * Judges the Dat3M peer suite and compares with PTXv7_5-expected.csv (used by the peer test and the
 * benchmark). The corpus is not in the repository: scripts/peer-corpus.mjs finds it (PTXCONF_PEERS,
 * ../shared in CI, or npm run setup:peers).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { judge, parseLitmus } from '../harness/memory-model/index.js';
import { registerAllFamilies } from '../harness/families/index.js';
import { locatePeers } from './peer-corpus.mjs';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

/** The corpus's folder, or exits 2 saying how to get it (for the scripts; tests use tests/helpers/third-party.ts). */
export function peerRootOrExit(): string {
  const found = locatePeers();
  if (found.root) return found.root;
  process.stderr.write(`error: ${found.reason}\n`);
  process.exit(2);
}

export function listLitmus(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...listLitmus(p));
    else if (e.endsWith('.litmus')) out.push(p);
  }
  return out;
}

export interface PeerRow {
  path: string;
  parsed: boolean;
  expected?: number;
  ours?: number;
  ms: number;
  error?: string;
}

export function runPeer(root: string): PeerRow[] {
  const expected = new Map<string, number>();
  for (const l of readFileSync(join(root, 'PTXv7_5-expected.csv'), 'utf8').split('\n')) {
    const [p, v] = l.trim().split(',');
    if (p && v) expected.set(p, Number(v));
  }
  return listLitmus(join(root, 'litmus')).map((f) => {
    const path = relative(root, f);
    const t0 = performance.now();
    const { test, problems } = parseLitmus(readFileSync(f, 'utf8'), path);
    if (!test)
      return {
        path,
        parsed: false,
        ms: performance.now() - t0,
        error: problems.map((p) => `${p.line}:${p.col} ${p.message}`).join('; '),
        ...(expected.has(path) ? { expected: expected.get(path)! } : {}),
      };
    try {
      const j = judge(test);
      return { path, parsed: true, ours: j.holds ? 1 : 0, ms: performance.now() - t0, ...(expected.has(path) ? { expected: expected.get(path)! } : {}) };
    } catch (e) {
      return { path, parsed: true, ms: performance.now() - t0, error: String(e), ...(expected.has(path) ? { expected: expected.get(path)! } : {}) };
    }
  });
}

if (process.argv[1]?.endsWith('peer-litmus.ts')) {
  const rows = runPeer(peerRootOrExit());
  let agree = 0,
    dis = 0;
  for (const r of rows) {
    if (r.error) console.log('ERROR', r.path, r.error);
    else if (r.expected !== undefined && r.expected !== r.ours) {
      dis++;
      console.log('DIFF', r.path, 'dat3m', r.expected, 'ours', r.ours, r.ms.toFixed(0) + 'ms');
    } else if (r.expected !== undefined) agree++;
  }
  const slow = [...rows]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((r) => `${r.path} ${r.ms.toFixed(0)}ms`);
  console.log(
    `parsed ${rows.filter((r) => r.parsed).length}/${rows.length}, agree ${agree}, disagree ${dis}, total ms ${rows.reduce((a, r) => a + r.ms, 0).toFixed(0)}`,
  );
  console.log(slow.join('\n'));
}
