#!/usr/bin/env node
/**
 * `npm run lint:workflows [-- FILE...]`: every GitHub Actions workflow in .github/workflows/ (or the
 * files given) through action-validator (@action-validator/cli, installed from npm with the other
 * dev dependencies; schemas of GitHub's workflow syntax, run offline). Exit 1 on any problem, with
 * the validator's output for the file.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve('@action-validator/cli/package.json')), 'cli.mjs');
const dir = join(root, '.github', 'workflows');
const files = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f));
let bad = 0;
for (const f of files) {
  const r = spawnSync(process.execPath, [cli, f], { encoding: 'utf8' });
  if (r.status === 0) console.log(`ok    ${f}`);
  else {
    bad++;
    console.log(`FAIL  ${f}\n${(r.stdout + r.stderr).trim()}`);
  }
}
console.log(`${files.length - bad} of ${files.length} workflow file(s) lint clean`);
process.exitCode = bad ? 1 : 0;
