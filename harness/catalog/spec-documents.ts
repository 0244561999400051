/**
 * The PTX ISA excerpts the families are written from (../shared/ptx-spec in CI; the repository keeps only the quotes),
 * keyed by file: `cite('atom.md', 'Description', '...')`. One excerpt can serve several families
 * (9.7.9.14 holds multimem.ld_reduce, multimem.st and multimem.red), so the table is shared by the
 * families rather than split among them. A family written from a new excerpt adds its row here;
 * cite.ts adds the excerpts no family owns (half-precision min/max, targets). In the core (not in
 * harness/families/), because cite() checks its keys against this table while the families' catalogs
 * load, and the core's own rules cite atom.md.
 */
export interface SpecDocument {
  /** The excerpt's file name (under ../shared/ptx-spec in CI). */
  readonly file: string;
  /** PTX ISA section number. */
  readonly section: string;
  /** The section's title as the directed library's files cite it ("PTX ISA <section> <title>"). */
  readonly title: string;
  /** How the file writes the section number, where not as `section` (checked by tests/catalog/citations.test.ts). */
  readonly writtenAs?: string;
}

export const FAMILY_DOCUMENTS = {
  'atom.md': { file: 'atom.md', section: '9.7.13.5', title: 'atom' },
  'red.md': { file: 'red.md', section: '9.7.13.6', title: 'red' },
  'multimem-ld_reduce-st-red.md': {
    file: 'multimem-ld_reduce-st-red.md',
    section: '9.7.9.14',
    title: 'multimem.ld_reduce, multimem.st, multimem.red',
  },
  'multimem-cp-reduce-async-bulk.md': {
    file: 'multimem-cp-reduce-async-bulk.md',
    section: '9.7.9.27',
    title: 'multimem.cp.reduce.async.bulk',
  },
  'cp-reduce-async-bulk.md': { file: 'cp-reduce-async-bulk.md', section: '9.7.9.25.4.2', title: 'cp.reduce.async.bulk' },
  // PTX ISA 9.2-9.4 (../shared/ptx-spec-newer in CI): what the newer editions changed
  'editions/atom': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.15.5', title: 'atom (PTX ISA 9.4)' },
  'editions/red': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.15.6', title: 'red (PTX ISA 9.4)', writtenAs: '9.7.15.5/6/7' },
  'editions/atom-9.3': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.14.5', title: 'atom (PTX ISA 9.3)' },
  'editions/red-9.3': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.14.6', title: 'red (PTX ISA 9.3)', writtenAs: '9.7.14.5/6/7' },
  'editions/bulk-9.3': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.9.26.4', title: 'cp.reduce.async.bulk (PTX ISA 9.3)' },
  'editions/multimem-bulk-9.3': {
    file: '../ptx-spec-newer/editions-9.2-9.4.md',
    section: '9.7.9.26.4.5',
    title: 'multimem.cp.reduce.async.bulk (PTX ISA 9.3)',
  },
  'editions/bulk': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.10.28.4', title: 'cp.reduce.async.bulk (PTX ISA 9.4)' },
  'editions/multimem-bulk': { file: '../ptx-spec-newer/editions-9.2-9.4.md', section: '9.7.10.28.4.5', title: 'multimem.cp.reduce.async.bulk (PTX ISA 9.4)' },
  // families written from the newest text only (their 9.1 wording, where it differs, is quoted in the same file)
  'editions/red-async': { file: '../ptx-spec-newer/red-async.md', section: '9.7.15.7', title: 'red.async (PTX ISA 9.4)' },
  'editions/tensor': { file: '../ptx-spec-newer/cp-reduce-async-bulk-tensor.md', section: '9.7.10.28.5.4', title: 'cp.reduce.async.bulk.tensor (PTX ISA 9.4)' },
  // the older wording those two files quote, under the section number of the edition it is from
  'editions/tensor-9.2': {
    file: '../ptx-spec-newer/cp-reduce-async-bulk-tensor.md',
    section: '9.7.9.25.5.3',
    title: 'cp.reduce.async.bulk.tensor (PTX ISA 9.0-9.2)',
  },
  'editions/tensor-9.3': {
    file: '../ptx-spec-newer/cp-reduce-async-bulk-tensor.md',
    section: '9.7.9.26.5.3',
    title: 'cp.reduce.async.bulk.tensor (PTX ISA 9.3)',
  },
  'editions/red-async-9.1': { file: '../ptx-spec-newer/red-async.md', section: '9.7.13.7', title: 'red.async (PTX ISA 9.1-9.2)' },
} as const satisfies Record<string, SpecDocument>;
