/**
 * `npm run accept-baseline -- REPORT [--to DIR]`: makes a run's report the accepted baseline that the nightly
 * GPU job compares against (`diff --fail-on regressions`): written compressed to
 * reports/accepted/<arch>-<backend>.json.gz, to be committed through a pull request so the change
 * is reviewed. REPORT is a report.json (or its folder, or .json.gz): typically the nightly job's
 * artifact (gh run download RUN_ID -n nightly-gpu-report). Refused: a partial report, a shard's
 * report (merge the shards first). Prints what changes against the baseline it replaces.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { UsageError } from '../harness/util/errors.js';
import { diffReports, formatDiff, regressions } from '../harness/report/diff.js';
import { reportText } from '../harness/report/json.js';
import { loadReport } from '../harness/report/load.js';
import { registerAllFamilies } from '../harness/families/index.js';

registerAllFamilies(); // a program of its own: the core asks harness/registry/ for the families

async function main(argv: string[]): Promise<number> {
  const at = argv.indexOf('--to');
  const toDir = at >= 0 ? argv[at + 1] : undefined;
  if (at >= 0 && !toDir) throw new UsageError('--to needs a folder');
  const args = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  if (args.length !== 1)
    throw new UsageError(
      'accept-baseline takes one report: npm run accept-baseline -- reports/out/<time>/report.json (or its folder) [--to DIR, default reports/accepted]',
    );
  let file = args[0]!;
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'report.json');
  const report = await loadReport(file);
  if (report.partial) throw new UsageError(`${file}: a partial report (${report.partialReason ?? 'stopped early'}); accept only a whole run`);
  if (report.shard)
    throw new UsageError(
      `${file}: shard ${report.shard.index}/${report.shard.count} of a run; merge the shards (npm run conformance -- merge ...) and accept the merged report`,
    );
  const dir = toDir ?? join(import.meta.dirname, '..', 'reports', 'accepted');
  const to = join(dir, `${report.arch}-${report.backend.name}.json.gz`);
  if (existsSync(to)) {
    const old = await loadReport(to);
    const d = diffReports(old, report);
    for (const l of formatDiff(d, old, report, 20)) console.log(l);
    console.log(`of which regressions (what the nightly job fails on): ${regressions(d).length}`);
  } else console.log(`no accepted baseline for ${report.arch} ${report.backend.name} yet`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(to, gzipSync(reportText(report)));
  const rel = relative(process.cwd(), to);
  console.log(
    `\naccepted: ${rel} (${(statSync(to).size / 1e6).toFixed(2)} MB; run of ${report.startedAt} on ${report.machine.hostname}, ${report.toolchain.gpu?.device ? JSON.stringify(report.toolchain.gpu.device).slice(0, 80) : report.backend.name})`,
  );
  console.log(
    `commit it in a pull request:  git add ${rel} && git commit -m "Accept the ${report.arch} ${report.backend.name} baseline of ${report.startedAt.slice(0, 10)}"`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (c) => (process.exitCode = c),
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exitCode = 2;
    } else throw e;
  },
);
