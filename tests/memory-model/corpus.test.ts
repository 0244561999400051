/**
 * The project's litmus corpus (cases/litmus/): every test parses, states its intent, and the model's
 * verdict agrees with it (issue 25 deliverable 4). A deliberately wrong intent is caught.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdictWord } from '../../harness/cli/litmus.js';
import { intentOf, parseLitmus } from '../../harness/memory-model/extended.js';
import { judge } from '../../harness/memory-model/index.js';
import { ROOT } from '../helpers/cli.js';

const DIR = join(ROOT, 'cases', 'litmus');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.litmus')).sort();

/** The model's word and the intent's, for one file's text. */
function check(text: string, file: string) {
  const p = parseLitmus(text, file);
  if (!p.test) throw new Error(p.problems.map((x) => `${x.file}:${x.line}:${x.col}: ${x.message}`).join('\n'));
  const intent = intentOf(p.test);
  if (!intent) throw new Error(`${file}: no "(* intent: allowed|forbidden because ..., section *)" comment`);
  return { intent, word: verdictWord(judge(p.test)) };
}

describe('cases/litmus: the model agrees with every stated intent', () => {
  it('holds the shapes and topics issue 25 asks for', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(40);
    for (const shape of ['MP', 'SB', 'LB', 'S', 'R', '2+2W', 'IRIW', 'WRC', 'ISA2', 'CoRR', 'CoWW', 'CoRW', 'CoWR']) expect(FILES.some((f) => f.startsWith(`${shape}+`)), shape).toBe(true);
    for (const topic of ['8.11.1', 'wait_group', 'mbarrier', 'fence.proxy.async', 'no-proxy-fence', 'RedAsync', 'Multimem+arrival-counter', 'cluster']) expect(FILES.some((f) => f.includes(topic)), topic).toBe(true);
  });
  for (const f of FILES) {
    it(f, () => {
      const { intent, word } = check(readFileSync(join(DIR, f), 'utf8'), `cases/litmus/${f}`);
      expect(intent.text).toMatch(/\b8\.\d+|9\.7\.\d+/); // cites a section
      expect(word, `${f}: intent '${intent.text}'`).toBe(intent.verdict);
    });
  }
  it('a deliberately wrong intent disagrees (the check can fail)', () => {
    const text = readFileSync(join(DIR, 'MP+red.relaxed+fence.acquire-8.11.1.litmus'), 'utf8').replace('(* intent: allowed', '(* intent: forbidden');
    const { intent, word } = check(text, 'wrong.litmus');
    expect(intent.verdict).toBe('forbidden');
    expect(word).toBe('allowed');
    expect(word).not.toBe(intent.verdict);
  });
  it('the cluster and 8.11.1 pairs differ only in what the text says decides them', () => {
    const w = (f: string) => check(readFileSync(join(DIR, f), 'utf8'), f).word;
    expect([w('MP+red.release.cluster+atom.acquire.cluster-same-cluster.litmus'), w('MP+red.release.cluster+atom.acquire.cluster-other-cluster.litmus')]).toEqual(['forbidden', 'allowed']);
    expect([w('MP+atom.relaxed+fence.acquire-8.11.1.litmus'), w('MP+red.relaxed+fence.acquire-8.11.1.litmus')]).toEqual(['forbidden', 'allowed']);
    expect([w('Bulk+generic-source+fence.proxy.async.litmus'), w('Bulk+generic-source-no-proxy-fence.litmus')]).toEqual(['forbidden', 'allowed']);
  });
});
