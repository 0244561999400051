/**
 * The ptxas backend: compile-only acceptance of every catalog entry for one target, turned into
 * verdicts by comparing with what the catalog expects.
 */
import { type Target, comparePtx, modulePtxFor } from '../../arch/targets.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import type { EntryResult, RuleDetail, Verdict } from '../../report/types.js';
import { type Acceptance, type ClassifyStats, classifyWithPtxas } from './classify.js';
import { buildModule, instructionText } from './module.js';
import type { Ptxas } from './toolchain.js';
import { VerdictCache, preloadVerdictFile, ptxasBinaryHash, verdictKey } from './verdict-cache.js';
import { runCommand } from '../../util/run-command.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Turns } from '../../util/turns.js';

export interface PtxasRun {
  readonly results: EntryResult[];
  readonly stats: ClassifyStats & {
    classified: number;
    skipped: number;
    classifyMs: number;
    /** Entries answered from the ptxas verdict cache (no ptxas call); absent without a cache. */
    cachedVerdicts?: number;
    /** Entries a crash the expectations name covers, answered from the entries ptxas was asked (not compiled on their own). */
    crashesFromExpectations?: number;
  };
  /** PTX ISA version of the modules (the toolchain's highest, capped by the target). */
  readonly modulePtx?: string;
}

/** The rules behind an entry's expectation, with their citations. */
export function ruleDetail(e: CatalogEntry): RuleDetail[] {
  const unmet = e.requirements.filter((r) => !r.targetMet).map((r) => ({ rule: r.rule, text: `${r.feature} needs ${r.targets}`, cite: r.cite }));
  if (e.violations.length) return [...e.violations.map((v) => ({ rule: v.rule, text: v.text, cite: v.cite })), ...unmet];
  if (unmet.length) return unmet;
  if (e.ambiguities.length) return e.ambiguities.map((a) => ({ rule: a.rule, text: a.text, cite: a.cite }));
  return e.permits.map((p) => ({ rule: p.rule, text: `allowed by ${p.rule}`, cite: p.cite }));
}

export function ruleIds(e: CatalogEntry): string[] {
  return [...new Set(ruleDetail(e).map((d) => d.rule))];
}

/** A result without a toolchain answer (skipped, or recorded by a backend that compiles nothing). */
export function resultWithout(e: CatalogEntry, modulePtx: string, verdict: Verdict, reason: string): EntryResult {
  return {
    id: e.id,
    family: e.family,
    kind: e.kind,
    ptx: e.ptx,
    modulePtx: e.modulePtx ?? modulePtx,
    catalog: { status: e.status, expect: e.expect, reason: e.reason, rules: ruleIds(e) },
    verdict,
    reason,
  };
}

/** Turns ptxas's answer into a verdict against the catalog's expectation. */
export function verdictFor(e: CatalogEntry, a: Acceptance, modulePtx: string): EntryResult {
  // an advisory or warning on an accepted line: ptxas's third answer
  const warned = a.accepted && !a.crashed ? a.messages.filter((m) => /\b(warning|advisory)\b/i.test(m)) : [];
  const answer = !a.accepted || a.crashed ? 'reject' : warned.length ? 'accept-with-warning' : 'accept';
  const said = a.accepted
    ? `ptxas accepts${warned.length ? ` with a warning: ${warned.join(' | ')}` : ''}`
    : `ptxas rejects: ${a.messages.filter((m) => !m.startsWith('warning')).join(' | ') || a.messages.join(' | ')}`;
  let verdict: Verdict;
  let reason: string;
  if (a.crashed) {
    verdict = 'error';
    reason = `ptxas crashed (${a.crashed}) on this line; the catalog expects ${e.expect} (${e.reason})`;
  } else if (e.expect === 'either') {
    verdict = 'observed';
    reason = `spec leaves it open (${e.reason}); ${said}`;
  } else if (warned.length && e.expect === 'accept') {
    // a third answer between accept and reject, which no text of these instructions decides: recorded
    verdict = 'observed';
    reason = `ptxas accepts with a warning, an answer the catalog does not expect (${e.reason}): ${warned.join(' | ')}`;
  } else if ((e.expect === 'accept') === a.accepted) {
    verdict = 'pass';
    reason = a.accepted ? 'ptxas accepts, as the catalog expects' : 'ptxas rejects, as the catalog expects';
  } else {
    verdict = 'compile-mismatch';
    reason = `catalog expects ${e.expect} (${e.reason}); ${said}`;
  }
  const base = resultWithout(e, modulePtx, verdict, reason);
  return {
    ...base,
    catalog: { ...base.catalog, ...(verdict === 'pass' ? {} : { detail: ruleDetail(e) }) },
    ptxas: { accepted: a.accepted, answer, ...(a.crashed ? { crashed: a.crashed } : {}), line: a.line, messages: a.messages },
  };
}

async function preflight(ptxas: Ptxas, target: string, ptx: string, cache?: { c: VerdictCache; hash: string }): Promise<string | undefined> {
  const text = buildModule([], target, ptx).text;
  const key = cache ? verdictKey(cache.hash, target, text) : '';
  const known = cache?.c.get(key);
  if (known && 'preflight' in known) return known.preflight ?? undefined;
  const why = await preflightCall(ptxas, target, text);
  cache?.c.put(key, { preflight: why ?? null });
  return why;
}

async function preflightCall(ptxas: Ptxas, target: string, text: string): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'ptxconf-pre-'));
  try {
    const f = join(dir, 'empty.ptx');
    await writeFile(f, text);
    const r = await runCommand(ptxas.path, ['-arch', target, f, '-o', `${f}.cubin`]);
    return r.exitCode === 0 ? undefined : (r.stderr || r.stdout).trim().split('\n')[0];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The PTX ISA version an entry needs, where this ptxas writes no such module (the entry is skipped), else undefined. */
function tooNew(e: CatalogEntry, ptxas: Ptxas): string | undefined {
  const need = e.modulePtx ?? e.minPtx;
  return comparePtx(need, ptxas.maxPtx) > 0 ? need : undefined;
}

/** The verdict key of an empty module of PTX ISA `v` (the template every entry's key starts from), once per process. */
const templates = new Map<string, string>();
function templateKey(hash: string, target: string, v: string): string {
  const k = `${hash}\0${target}\0${v}`;
  return templates.get(k) ?? templates.set(k, verdictKey(hash, target, buildModule([], target, v).text)).get(k)!;
}

/** An entry's verdict key under a template, worked out once per entry object. */
const entryKeys = new WeakMap<CatalogEntry, { t: string; k: string }>();
function entryKey(template: string, target: string, e: CatalogEntry): string {
  const m = entryKeys.get(e);
  if (m?.t === template) return m.k;
  const k = verdictKey(template, target, instructionText(e));
  entryKeys.set(e, { t: template, k });
  return k;
}

/**
 * What runPtxasBackend with this cache folder will look up first, done now: the verdict file read and
 * every entry's key worked out (the CPU run does it while its case child selects the cases, about
 * 1.5 s of a warm run that would otherwise wait).
 */
export function prepareVerdicts(entries: readonly CatalogEntry[], target: Target, ptxas: Ptxas, cacheDir: string): void {
  const modulePtx = modulePtxFor(target, ptxas.maxPtx);
  if (!modulePtx || !ptxas.targets.includes(target.name) || !entries.length) return;
  const hash = ptxasBinaryHash(ptxas.path, cacheDir);
  preloadVerdictFile(cacheDir, hash, target.name);
  const byVersion = new Map<string, string>();
  for (const e of entries) {
    if (tooNew(e, ptxas)) continue;
    const v = e.modulePtx ?? modulePtx;
    let t = byVersion.get(v);
    if (t === undefined) byVersion.set(v, (t = templateKey(hash, target.name, v)));
    entryKey(t, target.name, e);
  }
}

export async function runPtxasBackend(
  entries: readonly CatalogEntry[],
  target: Target,
  ptxas: Ptxas,
  onDecided?: (n: number) => void,
  /** Each entry's result as soon as it is decided (in decision order); the returned results are in entry order. */
  onResult?: (r: EntryResult) => void,
  /**
   * cacheDir: keep and reuse ptxas's answers in the verdict cache there (verdict-cache.ts).
   * knownCrashes: crashes an expectations file names ({@link KnownCrash}): each is asked of ptxas on a few
   * of the entries it covers, and where all of those crash, the others are answered from them.
   */
  opts: { readonly cacheDir?: string; readonly knownCrashes?: readonly KnownCrash[] } = {},
): Promise<PtxasRun> {
  const started = performance.now();
  const skipAll = (why: string): PtxasRun => ({
    results: entries.map((e) => resultWithout(e, e.modulePtx ?? target.minPtx, 'skipped', why)),
    stats: { ptxasCalls: 0, scanCalls: 0, confirmCalls: 0, crashes: 0, splits: 0, classified: 0, skipped: entries.length, classifyMs: 0 },
  });
  if (!ptxas.targets.includes(target.name)) {
    const renamed = target.renamedTo ? ` (renamed to ${target.renamedTo} in PTX ISA ${target.renamedIn})` : '';
    return skipAll(`ptxas ${ptxas.release} does not know ${target.name}${renamed}; it knows ${ptxas.targets.join(', ')}`);
  }
  const modulePtx = modulePtxFor(target, ptxas.maxPtx);
  if (!modulePtx) return skipAll(`${target.name} needs PTX ISA ${target.minPtx}; ptxas ${ptxas.release} supports up to ${ptxas.maxPtx}`);

  const results = new Array<EntryResult>(entries.length);
  const testable: number[] = [];
  entries.forEach((e, i) => {
    const need = tooNew(e, ptxas);
    if (need) {
      results[i] = resultWithout(e, modulePtx, 'skipped', `needs PTX ISA ${need}; ptxas ${ptxas.release} supports up to ${ptxas.maxPtx}`);
    } else testable.push(i);
  });

  const versions = [...new Set(testable.map((i) => entries[i]!.modulePtx ?? modulePtx))];
  const hash = opts.cacheDir && testable.length ? ptxasBinaryHash(ptxas.path, opts.cacheDir) : '';
  const cache = opts.cacheDir && hash ? { c: new VerdictCache(opts.cacheDir, hash, target.name), hash } : undefined;
  // each PTX ISA version's empty module at once (one after another they held the default run's first scan back about 0.4 s)
  const broken = new Map<string, string>();
  const whys = await Promise.all(versions.map((v) => preflight(ptxas, target.name, v, cache)));
  versions.forEach((v, i) => whys[i] && broken.set(v, whys[i]));
  const run: number[] = [];
  for (const i of testable) {
    const v = entries[i]!.modulePtx ?? modulePtx;
    const why = broken.get(v);
    if (why) results[i] = resultWithout(entries[i]!, modulePtx, 'skipped', `an empty ${target.name} module in PTX ISA ${v} does not compile: ${why}`);
    else run.push(i);
  }

  if (onResult) for (const r of results) if (r) onResult(r);
  // answers the verdict cache holds (the key: this entry's own one-entry module); the rest go to ptxas
  // the one-entry module is the template of its PTX ISA version (header, kernel, registers) with the
  // entry's line in it: keyed by both, the template hashed once per version rather than per entry
  const byVersion = new Map<string, string>();
  const templateOf = (v: string) => byVersion.get(v) ?? byVersion.set(v, templateKey(cache!.hash, target.name, v)).get(v)!;
  // (a run of tens of thousands of entries: the event loop gets a turn now and then, so that a signal stops it)
  const turns = new Turns();
  const keys: string[] = [];
  const ask: number[] = [];
  let cachedCrashes = 0;
  for (let k = 0; k < run.length; k++) {
    const i = run[k]!;
    if (!cache) {
      ask.push(k);
      continue;
    }
    const key = entryKey(templateOf(entries[i]!.modulePtx ?? modulePtx), target.name, entries[i]!);
    keys.push(key);
    const hit = cache.c.get(key);
    if (hit && 'accepted' in hit) {
      if (hit.crashed) cachedCrashes++;
      results[i] = verdictFor(entries[i]!, hit, modulePtx);
      onResult?.(results[i]!);
    } else ask.push(k);
    if ((k & 255) === 255 && turns.due()) await turns.turn();
  }
  if (cache && ask.length < run.length) onDecided?.(run.length - ask.length);
  // a crash an expectations file names: ptxas is asked on a few of the entries it covers (the first, the middle and the last)
  // rather than made to crash on each (a crash costs a ptxas call of its own); the others wait for their answers
  const held = heldByKnownCrashes(ask, (k) => entries[run[k]!]!.id, opts.knownCrashes ?? []);
  const heldSet = new Set(held.flatMap((g) => g.others));
  const asked = heldSet.size ? ask.filter((k) => !heldSet.has(k)) : ask;
  const sub = asked.map((k) => entries[run[k]!]!);
  const { results: acc, stats } = !sub.length
    ? { results: [], stats: { ptxasCalls: 0, scanCalls: 0, confirmCalls: 0, crashes: 0, splits: 0 } }
    : await classifyWithPtxas(sub, {
        ptxasPath: ptxas.path,
        target: target.name,
        ptx: modulePtx,
        ...(onDecided ? { onDecided } : {}),
        ...(onResult ? { onAcceptance: (j: number, a: Acceptance) => onResult(verdictFor(entries[run[asked[j]!]!]!, a, modulePtx)) } : {}),
      });
  const answerOf = new Map<number, Acceptance>();
  asked.forEach((k, j) => {
    answerOf.set(k, acc[j]!);
    results[run[k]!] = verdictFor(entries[run[k]!]!, acc[j]!, modulePtx);
    cache?.c.put(keys[k]!, acc[j]!);
  });
  // the held entries: answered from their representatives where every one crashed, else asked after all
  let inferred = 0;
  const again: number[] = [];
  for (const g of held) {
    const reps = g.representatives.map((k) => ({ k, a: answerOf.get(k) ?? results[run[k]!]?.ptxas }));
    const signal = reps.every((r) => r.a?.crashed) ? reps[0]!.a!.crashed! : undefined;
    if (!signal) {
      again.push(...g.others);
      continue;
    }
    const names = reps.map((r) => entries[run[r.k]!]!.id).join(', ');
    for (const k of g.others) {
      const e = entries[run[k]!]!;
      const a: Acceptance = {
        accepted: false,
        crashed: signal,
        line: instructionText(e),
        messages: [
          `not compiled on its own: expectation ${g.crash.id} names a ptxas crash on the entries it covers, and ptxas crashed (${signal}) on each of the ${reps.length} of them it was asked (${names}); the other ${g.others.length} were answered from those (a crash costs a ptxas call of its own)`,
        ],
      };
      results[run[k]!] = verdictFor(e, a, modulePtx);
      // kept in the verdict cache as any answer of this ptxas binary is (its hash keys the cache: another binary asks again)
      cache?.c.put(keys[k]!, a);
      onResult?.(results[run[k]!]!);
      inferred++;
    }
  }
  if (inferred) onDecided?.(inferred);
  // a representative that did not crash (a ptxas that no longer does): its group asked entry by entry
  const more = again.length
    ? await classifyWithPtxas(
        again.map((k) => entries[run[k]!]!),
        {
          ptxasPath: ptxas.path,
          target: target.name,
          ptx: modulePtx,
          ...(onDecided ? { onDecided } : {}),
          ...(onResult ? { onAcceptance: (j: number, a: Acceptance) => onResult(verdictFor(entries[run[again[j]!]!]!, a, modulePtx)) } : {}),
        },
      )
    : undefined;
  again.forEach((k, j) => {
    results[run[k]!] = verdictFor(entries[run[k]!]!, more!.results[j]!, modulePtx);
    cache?.c.put(keys[k]!, more!.results[j]!);
  });
  if (more) for (const f of ['ptxasCalls', 'scanCalls', 'confirmCalls', 'crashes', 'splits'] as const) stats[f] += more.stats[f];
  cache?.c.flush();
  return {
    results,
    modulePtx,
    stats: {
      ...stats,
      crashes: stats.crashes + cachedCrashes,
      ...(inferred ? { crashesFromExpectations: inferred } : {}),
      classified: run.length,
      skipped: entries.length - run.length,
      classifyMs: performance.now() - started,
      ...(cache ? { cachedVerdicts: run.length - ask.length } : {}),
    },
  };
}

/** A ptxas crash an expectations file names (verdict `error`, explained by the crash): its id and which entry ids it covers. */
export interface KnownCrash {
  readonly id: string;
  readonly covers: (entryId: string) => boolean;
}

/**
 * The entries (indices into `ask`) each known crash covers, split into the representatives ptxas is asked
 * (the first, the middle and the last) and the others, held for their answers; a crash covering three or
 * fewer entries holds none. An entry two crashes cover goes with the first.
 */
export function heldByKnownCrashes(
  ask: readonly number[],
  idOf: (k: number) => string,
  crashes: readonly KnownCrash[],
): { crash: KnownCrash; representatives: number[]; others: number[] }[] {
  const taken = new Set<number>();
  const out: { crash: KnownCrash; representatives: number[]; others: number[] }[] = [];
  for (const crash of crashes) {
    const members = ask.filter((k) => !taken.has(k) && crash.covers(idOf(k)));
    for (const k of members) taken.add(k);
    if (members.length <= 3) continue;
    const reps = [...new Set([members[0]!, members[members.length >> 1]!, members[members.length - 1]!])];
    out.push({ crash, representatives: reps, others: members.filter((k) => !reps.includes(k)) });
  }
  return out;
}
