/**
 * The project's litmus corpus (cases/litmus/): every test parses, states its intent, and the model's
 * verdict agrees with it. A deliberately wrong intent is caught.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdictWord } from '../../harness/cli/litmus.js';
import { parseLitmus } from '../../harness/memory-model/extended.js';
import { intentOf } from '../../harness/memory-model/intent.js';
import { EDITIONS, type Edition, specEdition, withEdition } from '../../harness/catalog/editions.js';
import { judge } from '../../harness/memory-model/index.js';
import { ROOT } from '../helpers/cli.js';
import { intent as ruleIntent, MATRIX_DIR, matrixCases, matrixFiles } from '../../scripts/gen-litmus.js';

const DIR = join(ROOT, 'cases', 'litmus');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.litmus'))
  .sort();

/** The model's word and the intent's, for one file's text, judged against `edition` (default: the process's). */
function check(text: string, file: string, edition: Edition = specEdition()) {
  return withEdition(edition, () => {
    const p = parseLitmus(text, file);
    if (!p.test) throw new Error(p.problems.map((x) => `${x.file}:${x.line}:${x.col}: ${x.message}`).join('\n'));
    const intent = intentOf(p.test);
    if (!intent) throw new Error(`${file}: no "(* intent: allowed|forbidden because ..., section *)" comment for PTX ISA ${edition}`);
    return { intent, word: verdictWord(judge(p.test)) };
  });
}

/** The editions a file's intents are checked under: each edition where it states intents per edition, else the process's. */
const editionsOf = (text: string): readonly Edition[] => (/\(\*\s*intent\s+[-\d]/.test(text) ? EDITIONS : [specEdition()]);

describe('cases/litmus: the model agrees with every stated intent', () => {
  it('holds the shapes and topics of the corpus', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(40);
    for (const shape of ['MP', 'SB', 'LB', 'S', 'R', '2+2W', 'IRIW', 'WRC', 'ISA2', 'CoRR', 'CoWW', 'CoRW', 'CoWR'])
      expect(
        FILES.some((f) => f.startsWith(`${shape}+`)),
        shape,
      ).toBe(true);
    for (const topic of ['8.11.1', 'wait_group', 'mbarrier', 'fence.proxy.async', 'no-proxy-fence', 'RedAsync', 'Copy+', 'Multimem+arrival-counter', 'cluster'])
      expect(
        FILES.some((f) => f.includes(topic)),
        topic,
      ).toBe(true);
  });
  for (const f of FILES) {
    it(f, () => {
      const text = readFileSync(join(DIR, f), 'utf8');
      for (const e of editionsOf(text)) {
        const { intent, word } = check(text, `cases/litmus/${f}`, e);
        expect(intent.text).toMatch(/\b8\.\d+|9\.7\.\d+/); // cites a section
        expect(word, `${f} under PTX ISA ${e}: intent '${intent.text}'`).toBe(intent.verdict);
      }
    });
  }
  it('a deliberately wrong intent disagrees (the check can fail)', () => {
    const text = readFileSync(join(DIR, 'MP+red.relaxed+fence.acquire-8.11.1.litmus'), 'utf8').replace('(* intent: allowed', '(* intent: forbidden');
    const { intent, word } = check(text, 'wrong.litmus');
    expect(intent.verdict).toBe('forbidden');
    expect(word).toBe('allowed');
    expect(word).not.toBe(intent.verdict);
  });
  it('an intent per edition: the edition judged against picks it, and a wrong one is caught under its editions only', () => {
    const text = readFileSync(join(DIR, 'Bulk+default-scope+bulk-other-gpu.litmus'), 'utf8');
    expect(EDITIONS.map((e) => check(text, 'f', e).intent.verdict)).toEqual(['allowed', 'allowed', 'forbidden', 'forbidden']);
    expect(EDITIONS.map((e) => check(text, 'f', e).word)).toEqual(['allowed', 'allowed', 'forbidden', 'forbidden']);
    const wrong = text.replace('(* intent 9.3-9.4: forbidden', '(* intent 9.3-9.4: allowed');
    expect(
      EDITIONS.map((e) => {
        const c = check(wrong, 'f', e);
        return c.word === c.intent.verdict;
      }),
    ).toEqual([true, true, false, false]);
  });
  it('the cluster and 8.11.1 pairs differ only in what the text says decides them', () => {
    const w = (f: string) => check(readFileSync(join(DIR, f), 'utf8'), f).word;
    expect([
      w('MP+red.release.cluster+atom.acquire.cluster-same-cluster.litmus'),
      w('MP+red.release.cluster+atom.acquire.cluster-other-cluster.litmus'),
    ]).toEqual(['forbidden', 'allowed']);
    expect([w('MP+atom.relaxed+fence.acquire-8.11.1.litmus'), w('MP+red.relaxed+fence.acquire-8.11.1.litmus')]).toEqual(['forbidden', 'allowed']);
    expect([w('Bulk+generic-source+fence.proxy.async.litmus'), w('Bulk+generic-source-no-proxy-fence.litmus')]).toEqual(['forbidden', 'allowed']);
  });
});

/**
 * cases/litmus/matrix/: the generated MP matrix (scripts/gen-litmus.ts). The committed files are
 * exactly what the generator writes; each intent (a rule written from the text, not the model) agrees
 * with the model's verdict, except exactly the cases listed under "Disagreements in the generated
 * matrix" in docs/memory-model.md (a new disagreement fails, and so does a listed one that agrees).
 */
function listedDisagreements(): Set<string> {
  const doc = readFileSync(join(ROOT, 'docs', 'memory-model.md'), 'utf8');
  const at = doc.indexOf('## Disagreements in the generated matrix');
  if (at < 0) throw new Error('docs/memory-model.md has no "## Disagreements in the generated matrix" section');
  const section = doc.slice(at).split(/\n## /)[0]!;
  return new Set([...section.matchAll(/^\| `([^`]+\.litmus)` \|/gm)].map((m) => m[1]!));
}

describe('cases/litmus/matrix: the generated MP matrix', () => {
  const generated = matrixFiles();
  const committed = readdirSync(MATRIX_DIR)
    .filter((f) => f.endsWith('.litmus'))
    .sort();
  const listed = listedDisagreements();
  it('the committed files are exactly what npm run gen:litmus writes', () => {
    expect(committed).toEqual([...generated.keys()].sort());
    for (const f of committed) expect(readFileSync(join(MATRIX_DIR, f), 'utf8'), f).toBe(generated.get(f));
  });
  it('covers every op class, sem, scope, placement and flag memory, with both verdicts', () => {
    const cases = matrixCases();
    expect(cases.length).toBeLessThanOrEqual(300);
    for (const op of ['add', 'and', 'or', 'xor', 'min', 'max', 'exch', 'cas', 'inc'])
      expect(
        cases.some((c) => c.writer.instr === 'atom' && c.writer.op.op === op),
        `atom.${op}`,
      ).toBe(true);
    for (const op of ['add', 'and', 'or', 'xor', 'min', 'max', 'inc'])
      expect(
        cases.some((c) => c.writer.instr === 'red' && c.writer.op.op === op),
        `red.${op}`,
      ).toBe(true);
    for (const sem of ['relaxed', 'release', 'acq_rel'])
      for (const scope of ['cta', 'cluster', 'gpu', 'sys'])
        expect(
          cases.some((c) => c.writer.sem === sem && c.scope === scope),
          `${sem}.${scope}`,
        ).toBe(true);
    for (const pm of [
      'same-cta/global',
      'same-cta/shared',
      'same-cluster/global',
      'same-cluster/shared-writer',
      'same-cluster/shared-reader',
      'other-cluster/global',
    ])
      expect(
        cases.some((c) => `${c.placement}/${c.mem}` === pm),
        pm,
      ).toBe(true);
    const words = new Set(cases.map((c) => ruleIntent(c).verdict));
    expect([...words].sort()).toEqual(['allowed', 'forbidden']);
  });
  it('every listed disagreement is a generated file', () => {
    for (const f of listed) expect(generated.has(f), f).toBe(true);
  });
  for (const f of committed) {
    it(f, () => {
      const { intent, word } = check(readFileSync(join(MATRIX_DIR, f), 'utf8'), `cases/litmus/matrix/${f}`);
      if (listed.has(f)) expect(word, `${f} is listed as a disagreement but the model agrees with '${intent.text}'`).not.toBe(intent.verdict);
      else expect(word, `${f}: intent '${intent.text}'`).toBe(intent.verdict);
    });
  }
});
