/**
 * Enumerates the catalog for one target: every variant the grammar's forms generate that the rules
 * allow (valid or ambiguous), whether the target supports it, a systematic set of invalid neighbours
 * (one slot of a core variant changed to a value the rules forbid), and PTX ISA neighbours (a
 * supported variant written in the PTX ISA version just below the one that introduced a feature it
 * uses). Each entry carries what the toolchain is expected to do and the rules that say so.
 */
import { inEdition, specEdition } from './editions.js';
import { type Target, type TargetClause, clauseHolds, comparePtx, describeClause, previousPtx } from '../arch/targets.js';
import { families } from '../registry/index.js';
import type { Citation } from './cite.js';
import { type AmbiguityNote, type Status, type Violation, effectiveQualifiers, evaluate, matches, statusOf } from './evaluate.js';
import { SPELLINGS, SPELLING_TEXT, descriptorSuffix, spell, variantId } from './spelling.js';
import type { FamilyDef, FamilyId, OperandKind, Qualifiers, RequirementRow } from './types.js';
import { vocabulary } from './vocabulary.js';
import { drain, drainWithTurns } from '../util/turns.js';

export type EntryKind = 'variant' | 'neighbour' | 'isa-neighbour' | 'spelling';
export type Expectation = 'accept' | 'reject' | 'either';

export interface RequirementCheck {
  readonly rule: string;
  readonly feature: string;
  readonly ptx?: string;
  readonly targets?: string;
  /** Whether the target satisfies the requirement's target clauses (true when it names none). */
  readonly targetMet: boolean;
  readonly cite: Citation;
}

export interface CatalogEntry {
  readonly id: string;
  readonly family: FamilyId;
  /** The opcode with its qualifiers, canonical order. */
  readonly ptx: string;
  readonly q: Qualifiers;
  readonly effective: Record<string, string | null>;
  readonly kind: EntryKind;
  readonly status: Status;
  /** Operand kinds of the syntax form (for invalid neighbours: of the nearest form). */
  readonly operands: readonly OperandKind[];
  readonly form?: string;
  readonly violations: readonly Violation[];
  readonly ambiguities: readonly AmbiguityNote[];
  readonly permits: readonly { rule: string; cite: Citation }[];
  readonly requirements: readonly RequirementCheck[];
  /** Lowest PTX ISA version that can express this entry (the target's own minimum included). */
  readonly minPtx: string;
  /** For isa-neighbours: the PTX ISA version the module must be written in. */
  readonly modulePtx?: string;
  readonly expect: Expectation;
  /** Why the catalog expects what it does, in one line. */
  readonly reason: string;
  /** For neighbours: the id of the variant it was derived from. */
  readonly neighbourOf?: string;
}

export interface EnumerateOptions {
  readonly target: Target;
  /** PTX ISA version the target is judged under ("from PTX ISA 8.8" family clauses). */
  readonly ptx: string;
  readonly neighbours?: boolean;
  readonly isaNeighbours?: boolean;
  /** Spelling neighbours: representative variants with their qualifiers in another order, or one written twice. */
  readonly spellings?: boolean;
  readonly families?: readonly FamilyDef[];
}

function* product(fam: FamilyDef, choices: (s: string) => readonly string[]): Generator<Qualifiers> {
  const slots = fam.slots.map((s) => s.name);
  const lists = slots.map(choices);
  const idx = new Array<number>(slots.length).fill(0);
  if (lists.some((l) => l.length === 0)) return;
  for (;;) {
    const q: Record<string, string> = {};
    for (let i = 0; i < slots.length; i++) q[slots[i]!] = lists[i]![idx[i]!]!;
    yield q;
    let i = slots.length - 1;
    while (i >= 0 && ++idx[i]! === lists[i]!.length) idx[i--] = 0;
    if (i < 0) return;
  }
}

const maxPtx = (a: string, b: string) => (comparePtx(a, b) >= 0 ? a : b);

/** A requirement's target clauses in words, once per clause list (every entry it applies to says the same). */
const clauseTexts = new WeakMap<readonly TargetClause[], string>();
function targetsText(cs: readonly TargetClause[]): string {
  let t = clauseTexts.get(cs);
  if (t === undefined) clauseTexts.set(cs, (t = cs.map(describeClause).join(' | ')));
  return t;
}

/** One requirement's check for a target and PTX ISA version: the same object for every entry it applies to (read-only). */
const checks = new WeakMap<object, Map<string, RequirementCheck>>();
function requirementCheck(r: FamilyDef['requirements'][number], target: Target, ptx: string): RequirementCheck {
  let byTarget = checks.get(r);
  if (!byTarget) checks.set(r, (byTarget = new Map()));
  const key = `${target.name}|${ptx}`;
  let c = byTarget.get(key);
  if (!c) {
    c = Object.freeze({
      rule: r.id,
      feature: r.feature,
      ...(r.ptx ? { ptx: r.ptx } : {}),
      ...(r.targets ? { targets: targetsText(r.targets) } : {}),
      targetMet: !r.targets || r.targets.some((cl: TargetClause) => clauseHolds(cl, target, ptx)),
      cite: r.cite,
    });
    byTarget.set(key, c);
  }
  return c;
}

function checkRequirements(fam: FamilyDef, q: Qualifiers, target: Target, ptx: string): RequirementCheck[] {
  const out: RequirementCheck[] = [];
  const edition = specEdition();
  for (const r of fam.requirements) {
    if (!matches(r.when, q) || !inEdition(r.editions, edition)) continue;
    out.push(requirementCheck(r, target, ptx));
  }
  return out;
}

function minPtxOf(reqs: readonly RequirementCheck[], target: Target): string {
  return reqs.reduce((m, r) => (r.ptx ? maxPtx(m, r.ptx) : m), target.minPtx);
}

function makeEntry(
  fam: FamilyDef,
  q: Qualifiers,
  kind: EntryKind,
  opts: EnumerateOptions,
  extra: { neighbourOf?: string; modulePtx?: string } = {},
): CatalogEntry {
  const ev = evaluate(fam, q);
  const reqs = checkRequirements(fam, q, opts.target, extra.modulePtx ?? opts.ptx);
  const minPtx = minPtxOf(reqs, opts.target);
  const unmet = reqs.filter((r) => !r.targetMet);
  let expect: Expectation;
  let reason: string;
  let violations = ev.violations;
  if (ev.status === 'invalid') {
    expect = 'reject';
    reason = `invalid: ${ev.violations[0]!.rule}: ${ev.violations[0]!.text}`;
  } else if (unmet.length) {
    expect = 'reject';
    reason = `not supported on ${opts.target.name}: ${unmet.map((r) => `${r.feature} needs ${r.targets}`).join('; ')}`;
  } else if (extra.modulePtx && comparePtx(minPtx, extra.modulePtx) > 0) {
    const late = reqs.filter((r) => r.ptx && comparePtx(r.ptx, extra.modulePtx!) > 0);
    expect = 'reject';
    reason = `written in PTX ISA ${extra.modulePtx}: ${late.map((r) => `${r.feature} was introduced in PTX ISA ${r.ptx}`).join('; ')}`;
    violations = late.map((r) => ({
      rule: r.rule,
      text: `${r.feature} was introduced in PTX ISA ${r.ptx}; this module is PTX ISA ${extra.modulePtx}`,
      cite: r.cite,
    }));
  } else if (ev.status === 'ambiguous') {
    expect = 'either';
    reason = `ambiguous: ${ev.ambiguities.map((a) => a.rule).join(', ')}`;
  } else {
    expect = 'accept';
    reason = `valid (${ev.form!.id})`;
  }
  const form = ev.form ?? nearestForm(fam, q);
  // built key by key in this order (the optional ones only where set): no spread of a small object per entry
  const e: Record<string, unknown> = {
    id: variantId(fam, q, extra.modulePtx),
    family: fam.id,
    ptx: spell(fam, q),
    q,
    effective: effectiveQualifiers(fam, q),
    kind,
    status: kind === 'isa-neighbour' ? 'invalid' : ev.status,
    operands: form.operands,
  };
  if (ev.form) e.form = ev.form.id;
  e.violations = violations;
  e.ambiguities = ev.ambiguities;
  e.permits = ev.permits;
  e.requirements = reqs;
  e.minPtx = minPtx;
  if (extra.modulePtx) e.modulePtx = extra.modulePtx;
  e.expect = expect;
  e.reason = reason;
  if (extra.neighbourOf) e.neighbourOf = extra.neighbourOf;
  return e as unknown as CatalogEntry;
}

function nearestForm(fam: FamilyDef, q: Qualifiers) {
  let best = fam.forms[0]!;
  let bestScore = -1;
  for (const f of fam.forms) {
    const score = fam.slots.filter((s) => (f.slots[s.name] ?? ['']).includes(q[s.name] ?? '')).length;
    if (score > bestScore) [best, bestScore] = [f, score];
  }
  return best;
}

type PerEdition = WeakMap<FamilyDef, Map<string, readonly Qualifiers[]>>;
const variantsMemo: PerEdition = new WeakMap();

/** `make(fam)` once per family definition and edition, kept in `memo` (frozen). */
function perEdition(memo: PerEdition, fam: FamilyDef, make: (fam: FamilyDef) => Qualifiers[]): readonly Qualifiers[] {
  let byEdition = memo.get(fam);
  if (!byEdition) memo.set(fam, (byEdition = new Map()));
  let out = byEdition.get(specEdition());
  if (!out) byEdition.set(specEdition(), (out = Object.freeze(make(fam))));
  return out;
}

/**
 * The valid and ambiguous variants of a family, in grammar order, without duplicates; worked out once
 * per family definition and edition (a run asks for them from the catalog, the case library and the
 * vector-file checks).
 */
export function familyVariants(fam: FamilyDef): readonly Qualifiers[] {
  return perEdition(variantsMemo, fam, variantsOf);
}

function variantsOf(fam: FamilyDef): Qualifiers[] {
  const seen = new Set<string>();
  const out: Qualifiers[] = [];
  for (const form of fam.forms) {
    for (const q of product(fam, (s) => form.slots[s] ?? [''])) {
      const id = variantId(fam, q);
      if (seen.has(id)) continue;
      seen.add(id);
      if (statusOf(fam, q) !== 'invalid') out.push(q);
    }
  }
  return out;
}

/** Invalid neighbours: each core variant with one slot changed to another known value. */
export function familyNeighbours(
  fam: FamilyDef,
  variants: readonly Qualifiers[],
  only?: {
    keep: (id: string) => boolean;
    known: ReadonlySet<string>;
    /** False only when no id starting with the prefix can pass `keep` (MatchOptions.viable): a base's neighbours are spelled only while it holds. */
    viable?: (prefix: string) => boolean;
  },
): { q: Qualifiers; of: string }[] {
  const vocab = vocabulary();
  // `only`: `variants` are already the core ones, and `known` holds every variant id that passes `keep`
  const known = only?.known ?? new Set(variants.map((q) => variantId(fam, q)));
  const keep = only?.keep ?? (() => true);
  const viable = only?.viable;
  const seen = new Set<string>();
  const out: { q: Qualifiers; of: string }[] = [];
  const holders = fam.slots.filter((s) => s.descriptor);
  const core = only ? variants : variants.filter((q) => fam.fanout.every((s) => (q[s] ?? '') === '') && statusOf(fam, q) === 'valid');
  const spelled = new Set<string>();
  for (const base of core) {
    // one base per spelling where a slot is held outside the instruction (its neighbours differ only there)
    if (holders.length) {
      const sp = spell(fam, base);
      if (spelled.has(sp)) continue;
      spelled.add(sp);
    }
    // the spelled parts of the base, to spell a neighbour without building it (= variantId)
    const parts = fam.slots.map((s) => (s.operand || s.descriptor ? '' : (base[s.name] ?? '')));
    // the base's id and held suffix, worked out at its first neighbour spelled (a filter passes most bases by)
    let of: string | undefined;
    let held: string | undefined;
    // the id's text before slot si, the base's (a neighbour changes one slot: what comes before it is the base's)
    let before = fam.head;
    for (let si = 0; si < fam.slots.length; si++) {
      if (si > 0 && parts[si - 1] !== '') before += `.${parts[si - 1]}`;
      // no id that starts so passes: nor does a neighbour changing this slot or a later one
      if (viable && !viable(before)) break;
      const slot = fam.slots[si]!;
      // a value held outside the instruction (a tensor map's) is never seen by ptxas
      if (slot.descriptor) continue;
      const values = slot.operand ? slot.values : (vocab.get(slot.name) ?? slot.values);
      for (const v of values) {
        if (v === (base[slot.name] ?? '')) continue;
        if (viable && !slot.operand && v !== '' && !viable(`${before}.${v}`)) continue;
        let id = fam.head;
        for (let i = 0; i < parts.length; i++) {
          const p = i === si && !slot.operand ? v : parts[i]!;
          if (p !== '') id += `.${p}`;
        }
        if (((slot.name === 'd' ? v : base.d) ?? '') === '_') id += '(_)';
        id += held ??= descriptorSuffix(fam, base);
        if (known.has(id) || seen.has(id) || !keep(id)) continue;
        seen.add(id);
        const q = { ...base, [slot.name]: v };
        if (statusOf(fam, q) === 'invalid' && !(holders.length && validWithOtherHeld(fam, q, holders))) out.push({ q, of: (of ??= variantId(fam, base)) });
      }
    }
  }
  return out;
}

/**
 * Whether a spelling is valid with another value of a slot held outside the instruction (a tensor
 * map's element type): ptxas sees only the spelling, so such a neighbour is no rejection test.
 */
function validWithOtherHeld(fam: FamilyDef, q: Qualifiers, holders: readonly { name: string; values: readonly string[] }[]): boolean {
  return holders.some((h) => h.values.some((v) => v !== q[h.name] && statusOf(fam, { ...q, [h.name]: v }) !== 'invalid'));
}

/** The whole catalog for a target, as entries in a stable order. */
export function enumerateCatalog(opts: EnumerateOptions): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  for (const fam of opts.families ?? families()) {
    const variants = familyVariants(fam);
    const entries = variants.map((q) => makeEntry(fam, q, 'variant', opts));
    out.push(...entries);
    if (opts.neighbours !== false) {
      for (const n of familyNeighbours(fam, variants)) out.push(makeEntry(fam, n.q, 'neighbour', opts, { neighbourOf: n.of }));
    }
    if (opts.isaNeighbours !== false) out.push(...isaNeighbours(fam, entries, opts));
    if (opts.spellings !== false) out.push(...spellingNeighbours(fam, opts));
  }
  return out;
}

const basesMemo = new Map<string, CatalogEntry[]>();

/**
 * Per syntax form, the first core variant (register destination) with at least three qualifiers
 * spelled, valid and accepted; memoised per family, target, PTX ISA and edition (a filtered
 * selection asks for them whatever its filter).
 */
function spellingBases(fam: FamilyDef, opts: EnumerateOptions): CatalogEntry[] {
  const key = `${fam.id}|${opts.target.name}|${opts.ptx}|${specEdition()}`;
  const hit = basesMemo.get(key);
  if (hit) return hit;
  const out: CatalogEntry[] = [];
  basesMemo.set(key, out);
  const done = new Set<string>();
  for (const q of coreVariants(fam)) {
    // a register destination and three qualifiers first: the rules are evaluated only for such a variant
    if (
      (q.d ?? '') !== '' ||
      spell(fam, q)
        .slice(fam.head.length + 1)
        .split('.').length < 3
    )
      continue;
    const form = evaluate(fam, q).form?.id;
    if (!form || done.has(form)) continue;
    const entry = makeEntry(fam, q, 'variant', opts);
    if (entry.expect !== 'accept') continue;
    done.add(form);
    out.push(entry);
  }
  return out;
}

function spellingNeighbours(fam: FamilyDef, opts: EnumerateOptions, keep: (id: string) => boolean = () => true): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  for (const base of spellingBases(fam, opts)) {
    const qs = base.ptx.slice(fam.head.length + 1).split('.');
    const cite = fam.forms.find((f) => f.id === base.form)!.cite;
    for (const s of SPELLINGS) {
      const id = `${base.id}~${s.kind}`;
      if (!keep(id)) continue;
      const rule = `${fam.id}.spelling.${s.rule}`;
      out.push({
        ...base,
        id,
        ptx: `${fam.head}.${s.respell(qs).join('.')}`,
        kind: 'spelling',
        status: 'ambiguous',
        expect: 'either',
        reason: `ambiguous: ${rule} (${s.kind} qualifiers of ${base.id})`,
        ambiguities: [{ rule, text: SPELLING_TEXT[s.rule], cite }],
        neighbourOf: base.id,
      });
    }
  }
  return out;
}

export interface MatchOptions extends EnumerateOptions {
  /** Entry kinds to return (default all); `neighbours: false` / `isaNeighbours: false` also drop theirs. */
  readonly kinds?: readonly EntryKind[];
  /** Keeps an entry by its id (default all). */
  readonly keep?: (id: string) => boolean;
  /**
   * False only when no id that starts with the given text can pass `keep` (see compileFilterPrefix);
   * the walk over a family's grammar stops there; `rest`, where given: the words the id's remaining
   * qualifiers can still spell. Default: always true.
   */
  readonly viable?: (prefix: string, rest?: ReadonlySet<string>) => boolean;
  /** False only when no id of the family can pass `keep` (select.ts: its words cannot hold the filter): the family is skipped. */
  readonly mayHold?: (fam: FamilyDef) => boolean;
  /** A family's own `viable` (select.ts), where its head and words prune more than `viable` does. */
  readonly viableFor?: (fam: FamilyDef) => (prefix: string) => boolean;
}

/**
 * Walks the product of a form's value lists in the order `product` yields them (last slot
 * fastest), skipping every subtree whose spelled prefix is not viable. `visit` gets the variant id
 * and the assignment, which it must copy to keep.
 */
function walkForm(
  fam: FamilyDef,
  lists: readonly (readonly string[])[],
  viable: (prefix: string, rest?: ReadonlySet<string>) => boolean,
  visit: (id: string, q: Qualifiers) => void,
): void {
  if (lists.some((l) => l.length === 0)) return;
  const slots = fam.slots;
  const held = slots.some((s) => s.descriptor);
  const q: Record<string, string> = {};
  // the words the slots from i on can spell (viable's `rest`)
  const rest: Set<string>[] = [new Set()];
  for (let i = lists.length - 1; i >= 0; i--) rest.unshift(new Set([...rest[0]!, ...lists[i]!.flatMap((v) => v.split('.'))]));
  const rec = (i: number, prefix: string): void => {
    if (i === slots.length) {
      visit(`${q.d === '_' ? `${prefix}(_)` : prefix}${held ? descriptorSuffix(fam, q) : ''}`, q); // = variantId(fam, q)
      return;
    }
    const s = slots[i]!;
    for (const v of lists[i]!) {
      q[s.name] = v;
      if (s.operand || s.descriptor || v === '') rec(i + 1, prefix);
      else {
        const p = `${prefix}.${v}`;
        if (viable(p, rest[i + 1])) rec(i + 1, p);
      }
    }
  };
  if (viable(fam.head, rest[0])) rec(0, fam.head);
}

/** PTX ISA versions an isa-neighbour of the family (of `q`, if given) may be pinned to (a superset). */
function isaPinsOf(fam: FamilyDef, target: Target, q?: Qualifiers): string[] {
  const out = new Set<string>();
  for (const r of fam.requirements) {
    if (!r.ptx || comparePtx(r.ptx, target.minPtx) <= 0 || (q && !matches(r.when, q)) || !inEdition(r.editions, specEdition())) continue;
    const below = previousPtx(r.ptx);
    if (below && comparePtx(below, target.minPtx) >= 0) out.add(below);
  }
  return [...out];
}

/**
 * The entries of `enumerateCatalog(opts)` whose kind is in `kinds` and whose id passes `keep`, in
 * the same order, with the same content, at a cost that follows the selection: the grammar walk
 * is pruned by `viable`, a variant is evaluated only when it, its isa-neighbours or (for the
 * `known` check of neighbours) its id can be selected, and an invalid neighbour only when its id
 * passes. Only the core variants (fanout slots omitted) are walked in full, as neighbour bases.
 */
export function enumerateMatching(opts: MatchOptions): CatalogEntry[] {
  return drain(matchingSteps(opts));
}

/** enumerateMatching, giving the event loop a turn now and then (a run's selection: Ctrl-C stops it within moments). */
export function enumerateMatchingAsync(opts: MatchOptions): Promise<CatalogEntry[]> {
  return drainWithTurns(matchingSteps(opts));
}

/** enumerateMatching's work, in steps: it yields after each family's walk and every few entries made. */
function* matchingSteps(opts: MatchOptions): Generator<void, CatalogEntry[]> {
  const keep = opts.keep ?? (() => true);
  const viable = opts.viable ?? (() => true);
  const kinds = opts.kinds ?? ['variant', 'neighbour', 'isa-neighbour', 'spelling'];
  const wantS = kinds.includes('spelling') && opts.spellings !== false;
  const wantV = kinds.includes('variant');
  const wantN = kinds.includes('neighbour') && opts.neighbours !== false;
  const wantI = kinds.includes('isa-neighbour') && opts.isaNeighbours !== false;
  const out: CatalogEntry[] = [];
  for (const fam of opts.families ?? families()) {
    if (!viable(fam.head) || (opts.mayHold && !opts.mayHold(fam))) continue;
    const famViable = opts.viableFor?.(fam) ?? viable;
    const pins = wantI ? isaPinsOf(fam, opts.target) : [];
    // variants (as familyVariants: first of each id in grammar order, invalid ones dropped)
    const seen = new Set<string>();
    const known = new Set<string>();
    const picked: { q: Qualifiers; asVariant: boolean; forIsa: boolean }[] = [];
    for (const form of fam.forms) {
      walkForm(
        fam,
        fam.slots.map((s) => form.slots[s.name] ?? ['']),
        (p, rest) => viable(p, rest) && famViable(p),
        (id, tmp) => {
          if (seen.has(id)) return;
          seen.add(id);
          const kept = keep(id);
          const asVariant = wantV && kept;
          const mayIsa = pins.some((p) => keep(`${id}@ptx${p}`));
          if (!asVariant && !mayIsa && !(wantN && kept)) return;
          // the rules first (most of a product is invalid), the variant's own PTX ISA pins only for a valid one
          if (statusOf(fam, tmp) === 'invalid') return;
          const forIsa = mayIsa && isaPinsOf(fam, opts.target, tmp).some((p) => keep(`${id}@ptx${p}`));
          if (!asVariant && !forIsa && !(wantN && kept)) return;
          known.add(id);
          if (asVariant || forIsa) picked.push({ q: { ...tmp }, asVariant, forIsa });
        },
      );
    }
    yield;
    const entries: { q: Qualifiers; asVariant: boolean; forIsa: boolean; entry: CatalogEntry }[] = [];
    for (let k = 0; k < picked.length; k++) {
      const p = picked[k]!;
      entries.push({ ...p, entry: makeEntry(fam, p.q, 'variant', opts) });
      if ((k & 127) === 127) yield;
    }
    for (const e of entries) if (e.asVariant) out.push(e.entry);
    if (wantN) {
      let k = 0;
      const prune = opts.viable || opts.viableFor ? { viable: (p: string) => viable(p) && famViable(p) } : {};
      for (const n of familyNeighbours(fam, coreVariants(fam), { keep, known, ...prune })) {
        out.push(makeEntry(fam, n.q, 'neighbour', opts, { neighbourOf: n.of }));
        if ((++k & 127) === 0) yield;
      }
      yield;
    }
    if (wantI) {
      const isa = isaNeighbours(
        fam,
        entries.filter((e) => e.forIsa).map((e) => e.entry),
        opts,
      );
      for (const e of isa) if (keep(e.id)) out.push(e);
    }
    yield;
    if (wantS) out.push(...spellingNeighbours(fam, opts, keep));
    yield;
  }
  return out;
}

const coreMemo: PerEdition = new WeakMap();

/**
 * The core variants of a family (fanout slots omitted, valid), in familyVariants order, found by
 * walking only the forms' products with the fanout slots held at omitted; worked out once per family
 * definition and edition (a selection asks for them for the neighbours and again for the spelling bases).
 */
export function coreVariants(fam: FamilyDef): readonly Qualifiers[] {
  return perEdition(coreMemo, fam, (f) => validWithOmitted(f, f.fanout));
}

/**
 * The valid variants of a family (status `valid`, not ambiguous) with every slot of `omitted` left
 * out (''), in familyVariants order: the forms' products walked with those slots held at omitted,
 * a small part of the whole product. A variant id spells every slot, so the first product of an id
 * here is its first in the whole walk too.
 */
export function validWithOmitted(fam: FamilyDef, omitted: readonly string[]): Qualifiers[] {
  const seen = new Set<string>();
  const out: Qualifiers[] = [];
  for (const form of fam.forms) {
    const lists = fam.slots.map((s) => {
      const l = form.slots[s.name] ?? [''];
      return omitted.includes(s.name) ? l.filter((v) => v === '') : l;
    });
    walkForm(
      fam,
      lists,
      () => true,
      (id, tmp) => {
        if (seen.has(id)) return;
        seen.add(id);
        const q = { ...tmp };
        if (statusOf(fam, q) === 'valid') out.push(q);
      },
    );
  }
  return out;
}

function isaNeighbours(fam: FamilyDef, entries: readonly CatalogEntry[], opts: EnumerateOptions): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  // one per spelling where a slot is held outside the instruction: ptxas sees the spelling only
  const held = fam.slots.some((s) => s.descriptor);
  const spelled = new Set<string>();
  for (const e of entries) {
    if (e.expect !== 'accept') continue;
    if (held) {
      if (spelled.has(e.ptx)) continue;
      spelled.add(e.ptx);
    }
    const thresholds = new Set(e.requirements.map((r) => r.ptx).filter((p): p is string => !!p));
    for (const t of [...thresholds].sort(comparePtx)) {
      if (comparePtx(t, opts.target.minPtx) <= 0) continue;
      const below = previousPtx(t);
      if (!below || comparePtx(below, opts.target.minPtx) < 0) continue;
      out.push(makeEntry(fam, e.q, 'isa-neighbour', opts, { neighbourOf: e.id, modulePtx: below }));
    }
  }
  return out;
}

/** Requirement rows of a family that match `q` (exported for the reference model and reports). */
export function requirementsFor(fam: FamilyDef, q: Qualifiers): RequirementRow[] {
  return fam.requirements.filter((r) => matches(r.when, q) && inEdition(r.editions, specEdition()));
}
