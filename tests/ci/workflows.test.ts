/**
 * The CI workflows lint clean (action-validator from npm, run by
 * scripts/lint-workflows.mjs), the linter rejects a broken workflow, and the workflows do what
 * docs/ci-and-sharding.md says: pull requests install from the lockfile, run `.ci/run` (which calls exactly
 * `npm test`), run the main job as a 3-shard matrix merged into one uploaded report; the nightly
 * job runs on a GPU-labelled self-hosted runner and fails only on `diff --fail-on regressions`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..', '..');
const lint = (files: string[] = []) => spawnSync(process.execPath, [join(root, 'scripts', 'lint-workflows.mjs'), ...files], { encoding: 'utf8' });
const wf = (name: string) => parse(readFileSync(join(root, '.github', 'workflows', name), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'ptxconf-wf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CI workflows', () => {
  it('every workflow lints clean', () => {
    const r = lint();
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/2 of 2 workflow file\(s\) lint clean/);
  }, 60_000);

  it('the linter rejects a broken one (a misspelt key, a job without runs-on)', () => {
    const broken = readFileSync(join(root, '.github', 'workflows', 'pull-request.yml'), 'utf8').replace('runs-on: ubuntu-24.04', 'runs_on: ubuntu-24.04');
    const f = join(dir, 'broken.yml');
    writeFileSync(f, broken);
    const r = lint([f]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/FAIL .*broken\.yml[\s\S]*runs_on/);
  }, 60_000);

  it('pull requests: lockfile install, .ci/run (exactly npm test), sharded main job merged and uploaded', () => {
    // npm ci, then (the documented set-up step) the browser for the HTML report's test, then exactly npm test
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(
      /^npm ci --no-audit --no-fund\n(?:npm run setup:browser\n)?(?:npm run setup:toolchain\n)?(?:npm run setup:peers [^\n]*\n)?npm test\n$/m,
    );
    const pr = wf('pull-request.yml');
    expect(Object.keys(pr.on)).toEqual(expect.arrayContaining(['pull_request']));
    const steps = (job: string) => pr.jobs[job].steps.map((s: { run?: string; uses?: string }) => s.run ?? s.uses).join('\n');
    expect(steps('test')).toMatch(/bash \.ci\/run/);
    expect(pr.jobs.conformance.strategy.matrix.shard).toEqual([0, 1, 2]);
    expect(steps('conformance')).toMatch(/npm ci[\s\S]*npm run conformance -- --backend ptxas --shard \$\{\{ matrix\.shard \}\}\/3/);
    expect(steps('conformance')).toMatch(/actions\/upload-artifact/);
    expect(pr.jobs.merge.needs).toBe('conformance');
    expect(steps('merge')).toMatch(/npm run conformance -- merge shards\/\*\/report\.json/);
    expect(steps('merge')).toMatch(/actions\/upload-artifact/);
  });

  it('nightly: a GPU-labelled self-hosted runner, reports uploaded, failing only on regressions against the accepted baseline', () => {
    const n = wf('nightly-gpu.yml');
    expect(n.on.schedule?.[0]?.cron).toBeTruthy();
    const job = n.jobs.gpu;
    expect(job['runs-on']).toEqual(expect.arrayContaining(['self-hosted', 'gpu']));
    const steps = job.steps.map((s: { run?: string; uses?: string }) => s.run ?? s.uses).join('\n');
    // the steps are one script (.ci/nightly-gpu, run on a GPU host from the bundle too: tests/ci/nightly.test.ts)
    expect(steps).toMatch(/^bash \.ci\/nightly-gpu$/m);
    const script = readFileSync(join(root, '.ci', 'nightly-gpu'), 'utf8');
    expect(script).toMatch(/--backend gpu --arch "\$arch" --report "\$out"/);
    expect(script).toMatch(/diff "\$base" "\$out\/report\.json" --fail-on regressions/);
    expect(script).toMatch(/reports\/accepted\/\$arch-gpu\.json\.gz/);
    expect(job.env.ARCH).toMatch(/sm_90/);
    expect(job.steps.at(-1).uses).toMatch(/actions\/upload-artifact/);
    expect(job.steps.at(-1).if).toBe('always()');
  });

  it('nightly runs npm run test:long; every job that runs ptxas keeps the verdict cache, keyed on the ptxas version', () => {
    const n = wf('nightly-gpu.yml');
    const long = n.jobs['long-tests'];
    expect(long.steps.map((s: { run?: string }) => s.run ?? '').join('\n')).toMatch(/^npm run test:long$/m);
    const pr = wf('pull-request.yml');
    for (const [id, job] of [
      ['test', pr.jobs.test],
      ['conformance', pr.jobs.conformance],
      ['long-tests', long],
    ] as const) {
      const cache = job.steps.find(
        (s: { uses?: string; with?: { path?: string } }) => /^actions\/cache@/.test(s.uses ?? '') && /ptxas-verdicts/.test(s.with?.path ?? ''),
      );
      expect(cache, id).toBeDefined();
      expect(cache.with.key, id).toMatch(/\$\{\{ steps\.ptxas\.outputs\.version \}\}/);
      const at = (re: RegExp) => job.steps.findIndex((s: { run?: string; uses?: string }) => re.test(s.run ?? s.uses ?? ''));
      expect(at(/ptxas --version/), id).toBeGreaterThan(at(/GITHUB_PATH/));
      expect(at(/^actions\/cache@/), id).toBeLessThan(at(/\.ci\/run|npm run conformance|npm run test:long/));
    }
  });
});

describe("the browser for the HTML report's test", () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  it('comes from a documented set-up step, npm run setup:browser, not from inside npm test', () => {
    expect(pkg.scripts.pretest).toBeUndefined();
    expect(pkg.scripts.posttest).toBeUndefined();
    expect(pkg.scripts.test).not.toMatch(/ensure-browser|apt-get/);
    expect(pkg.scripts['setup:browser']).toBe('node scripts/ensure-browser.mjs');
  });
  it('CI provides it: .ci/run runs the set-up step between npm ci and npm test; every workflow job that runs npm test gets it', () => {
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(
      /^npm ci --no-audit --no-fund\nnpm run setup:browser\n(?:npm run setup:toolchain\n)?(?:npm run setup:peers [^\n]*\n)?npm test\n$/m,
    );
    for (const name of ['pull-request.yml', 'nightly-gpu.yml']) {
      const w = wf(name);
      for (const [id, job] of Object.entries<{ env?: Record<string, string>; steps: { run?: string }[] }>(w.jobs)) {
        const runs = job.steps.map((s) => s.run ?? '');
        const test = runs.findIndex((r) => /\bnpm test\b|\.ci\/run/.test(r));
        if (test < 0) continue;
        // through .ci/run, or a set-up step before npm test
        const setup = runs.findIndex((r) => /npm run setup:browser|\.ci\/run/.test(r));
        expect([name, id, setup >= 0 && setup <= test]).toEqual([name, id, true]);
      }
    }
  });
  it('the script finds the browser CHROMIUM_PATH names, says so and installs nothing', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-browser.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, CHROMIUM_PATH: process.execPath },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`headless Chromium at ${process.execPath}`);
  });
  it("the HTML test's skip reason names the set-up step", () => {
    expect(readFileSync(join(root, 'tests', 'report', 'html.test.ts'), 'utf8')).toMatch(/\[skip\] HTML browser tests: [^\n]*npm run setup:browser/);
  });
});

describe("the second toolchain of the CPU job, Debian's ptxas 11.8", () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  it('comes from a documented set-up step that .ci/run runs before npm test, not from inside npm test', () => {
    expect(pkg.scripts['setup:toolchain']).toBe('node scripts/ensure-toolchain.mjs');
    expect(pkg.scripts.test).not.toMatch(/ensure-toolchain|apt-get/);
    expect(readFileSync(join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm run setup:toolchain\n(?:npm run setup:peers [^\n]*\n)?npm test\n$/m);
  });
  it('the script finds the ptxas PTXAS_118 names, says so and installs nothing', () => {
    const fake = join(mkdtempSync(join(tmpdir(), 'tc-')), 'ptxas');
    writeFileSync(fake, '#!/bin/sh\necho "Cuda compilation tools, release 11.8, V11.8.89"\n');
    chmodSync(fake, 0o755);
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-toolchain.mjs')], { encoding: 'utf8', env: { ...process.env, PTXAS_118: fake } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`ptxas 11.8 at ${fake} (release 11.8, V11.8.89)`);
  });
});

describe('accepting a baseline (npm run accept-baseline)', () => {
  const accept = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'accept-baseline.ts'), ...args], { encoding: 'utf8', cwd: root });
  it('writes <arch>-<backend>.json.gz that diff reads, says what changed against the one it replaces; refuses partial and shard reports', async () => {
    const { sampleReport } = await import('../helpers/sample-report.js');
    const { writeJsonReportSync } = await import('../../harness/report/json.js');
    const { loadReport } = await import('../../harness/report/load.js');
    const to = join(dir, 'accepted');
    const run1 = writeJsonReportSync(join(dir, 'run1'), sampleReport());
    const r1 = accept([run1, '--to', to]);
    expect(r1.status, r1.stderr).toBe(0);
    expect(r1.stdout).toMatch(/no accepted baseline for sm_90 gpu yet[\s\S]*accepted: .*sm_90-gpu\.json\.gz/);
    expect((await loadReport(join(to, 'sm_90-gpu.json.gz'))).results).toEqual(sampleReport().results);
    // a second run with one more failing result: the diff names it as a regression
    const base = sampleReport();
    const worse = { ...base, results: base.results.map((r) => (r.id === 'atom.global.add.u32/gen:4' ? { ...r, verdict: 'mismatch' as const } : r)) };
    const r2 = accept([writeJsonReportSync(join(dir, 'run2'), worse), '--to', to]);
    expect(r2.status).toBe(0);
    expect(r2.stdout).toMatch(/of which regressions \(what the nightly job fails on\): 1/);
    const partial = accept([writeJsonReportSync(join(dir, 'run3'), { ...base, partial: true, partialReason: 'interrupted by SIGINT' }), '--to', to]);
    expect([partial.status, partial.stderr]).toEqual([2, expect.stringMatching(/a partial report \(interrupted by SIGINT\); accept only a whole run/)]);
    const shard = accept([writeJsonReportSync(join(dir, 'run4'), { ...base, shard: { index: 1, count: 3, keepPasses: 1000 } }), '--to', to]);
    expect([shard.status, shard.stderr]).toEqual([2, expect.stringMatching(/shard 1\/3 of a run; merge the shards/)]);
  }, 60_000);
});

describe('the sharding examples of docs/ci-and-sharding.md', () => {
  const readme = readFileSync(join(root, 'docs', 'ci-and-sharding.md'), 'utf8');
  it('the GitHub Actions matrix lints clean as a workflow; Slurm and Kubernetes use the 0-based index', () => {
    const m = /GitHub Actions matrix[^\n]*\n\n```yaml\n([\s\S]*?)```/.exec(readme);
    expect(m).not.toBeNull();
    const f = join(dir, 'readme-matrix.yml');
    writeFileSync(f, `name: readme example\non: workflow_dispatch\n${m![1]}`);
    const r = lint([f]);
    expect(r.status, r.stdout).toBe(0);
    expect(m![1]).toMatch(/--shard \$\{\{ matrix\.shard \}\}\/3/);
    expect(readme).toMatch(/#SBATCH --array=0-2[\s\S]*--shard "\$SLURM_ARRAY_TASK_ID\/\$SLURM_ARRAY_TASK_COUNT"/);
    expect(readme).toMatch(/completionMode: Indexed[\s\S]*--shard \$JOB_COMPLETION_INDEX\/3/);
  }, 60_000);
});
