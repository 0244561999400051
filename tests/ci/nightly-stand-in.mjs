// A stand-in for the GPU run in tests/ci/nightly.test.ts: `--backend gpu ... --report DIR` writes the
// report NIGHTLY_STAND_IN_REPORT (a .json.gz) to DIR/report.json with the observed bits of
// NIGHTLY_STAND_IN_FLIP (a result id), if set, changed, and exits NIGHTLY_STAND_IN_EXIT (default 1, as
// a run with known findings does); `diff ...` runs the real command.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const root = join(import.meta.dirname, '..', '..');
if (args[0] === 'diff') {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'harness', 'cli', 'main.ts'), ...args], { stdio: 'inherit' });
  process.exit(r.status ?? 3);
}
const dir = args[args.indexOf('--report') + 1];
const report = JSON.parse(gunzipSync(readFileSync(process.env.NIGHTLY_STAND_IN_REPORT)).toString('utf8'));
const flip = process.env.NIGHTLY_STAND_IN_FLIP;
if (flip) {
  const r = report.results.find((x) => x.id === flip);
  r.case.observed.memory[0] = r.case.observed.memory[0] === '0x00000000' ? '0x00000001' : '0x00000000';
}
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
process.exit(Number(process.env.NIGHTLY_STAND_IN_EXIT ?? 1));
