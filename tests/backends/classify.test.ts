/**
 * The batch classifier, against a stand-in ptxas whose answers are known (tests/fixtures/
 * fake-ptxas.sh): rejections, warnings, fatal errors and crashes, in every position of a batch
 * and with batches of every size. Each entry must get exactly its own answer.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Acceptance, classifyWithPtxas, parseDiagnostics } from '../../harness/backends/ptxas/classify.js';
import type { CatalogEntry } from '../../harness/catalog/enumerate.js';
import { stubEntry } from '../helpers/stub-entry.js';

const FAKE = join(import.meta.dirname, '..', 'fixtures', 'fake-ptxas.sh');
type Kind = 'ok' | 'reject' | 'warn' | 'fatal' | 'crash';
const WORD: Record<Kind, string> = { ok: 'OK_LINE', reject: 'REJECT_ME', warn: 'WARN_ME', fatal: 'FATAL_HERE', crash: 'CRASH_HERE' };

const fakeEntry = (i: number, kind: Kind): CatalogEntry => stubEntry(`e${i}.${kind}`, `${WORD[kind]}.${i}`);

function check(kinds: Kind[], got: Acceptance[]) {
  kinds.forEach((k, i) => {
    const a = got[i]!;
    expect(a.line, `entry ${i}`).toContain(`${WORD[k]}.${i} `);
    if (k === 'ok') expect(a, `entry ${i}`).toMatchObject({ accepted: true, messages: [] });
    if (k === 'warn') expect(a, `entry ${i}`).toMatchObject({ accepted: true, messages: ['warning: something to note'] });
    if (k === 'reject') expect(a, `entry ${i}`).toMatchObject({ accepted: false, messages: ["error: Unknown modifier '.REJECT_ME'"] });
    if (k === 'fatal') expect(a.messages[0], `entry ${i}`).toMatch(/^fatal: Parsing error/);
    if (k === 'crash') expect(a, `entry ${i}`).toMatchObject({ accepted: false, crashed: 'SIGSEGV' });
    if (k !== 'crash') expect(a.crashed, `entry ${i}`).toBeUndefined();
  });
}

describe('classifier against a stand-in ptxas', () => {
  it('gives each entry of a mixed batch its own answer', async () => {
    const kinds: Kind[] = ['ok', 'reject', 'crash', 'ok', 'crash', 'crash', 'warn', 'fatal', 'ok', 'reject', 'crash'];
    const { results, stats } = await classifyWithPtxas(
      kinds.map((k, i) => fakeEntry(i, k)),
      { ptxasPath: FAKE, target: 'sm_90', ptx: '9.0' },
    );
    check(kinds, results);
    expect(stats.crashes).toBe(4);
  });

  it('holds for any mix, order and batch size (fast-check, seed printed on failure)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Kind>('ok', 'ok', 'ok', 'reject', 'warn', 'fatal', 'crash'), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 50 }),
        async (kinds, batchSize) => {
          const { results } = await classifyWithPtxas(
            kinds.map((k, i) => fakeEntry(i, k)),
            { ptxasPath: FAKE, target: 'sm_90', ptx: '9.0', batchSize, concurrency: 2 },
          );
          check(kinds, results);
        },
      ),
      { numRuns: 25, seed: 4242 },
    );
  });
});

describe('parseDiagnostics', () => {
  it('reads line, severity and message, and drops the closing abort line', () => {
    const d = parseDiagnostics(
      "ptxas /tmp/x/m0.ptx, line 12; error   : Operation .and requires .b32 or .b64 type for instruction 'atom'\n" +
        'ptxas /tmp/x/m0.ptx, line 13; warning : Vector Type not specified properly\n' +
        'ptxas fatal   : Ptx assembly aborted due to errors\n',
    );
    expect(d).toEqual([
      { line: 12, severity: 'error', message: "Operation .and requires .b32 or .b64 type for instruction 'atom'" },
      { line: 13, severity: 'warning', message: 'Vector Type not specified properly' },
    ]);
  });
});

describe("ptxas's three answers", () => {
  it('accept, accept with a warning or advisory (recorded with its text; observed where the catalog expects a plain accept), reject', async () => {
    const { verdictFor } = await import('../../harness/backends/ptxas/backend.js');
    const { parseInstruction } = await import('../../harness/catalog/parse.js');
    const { enumerateMatching } = await import('../../harness/catalog/enumerate.js');
    const { findTarget } = await import('../../harness/arch/targets.js');
    const e = enumerateMatching({ target: findTarget('sm_90')!, ptx: '9.0', kinds: ['variant'], keep: (id) => id === 'atom.global.add.f32' })[0]!;
    expect(parseInstruction(e.ptx).evaluation.status).toBe('valid');
    const line = 'atom.global.add.f32 %f32_0, [%ad], %f32_1;';
    const plain = verdictFor(e, { accepted: true, line, messages: [] }, '9.0');
    expect([plain.verdict, plain.ptxas?.answer]).toEqual(['pass', 'accept']);
    const advisory =
      "ptxas m.ptx, line 12; warning : Advisory: '.multicast::cluster' modifier on instruction 'cp.async.bulk' should be used on .target 'sm_90a' instead of .target 'sm_90'";
    const warned = verdictFor(e, { accepted: true, line, messages: [advisory] }, '9.0');
    expect([warned.verdict, warned.ptxas?.answer]).toEqual(['observed', 'accept-with-warning']);
    expect(warned.reason).toContain('Advisory:');
    const rejected = verdictFor(e, { accepted: false, line, messages: ["ptxas m.ptx, line 12; error : Unknown modifier '.x'"] }, '9.0');
    expect([rejected.verdict, rejected.ptxas?.answer]).toEqual(['compile-mismatch', 'reject']);
  });
});
