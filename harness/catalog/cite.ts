/**
 * Citations into the PTX ISA excerpts (../shared/ptx-spec in CI). Every rule row of the catalog carries
 * one, so a reader can go from a verdict to the sentence of the spec that decided it.
 */
import { FAMILY_DOCUMENTS } from './spec-documents.js';

/**
 * The excerpt files, keyed by file (or, for two sections of one file, by section). The excerpts the
 * families are written from are listed in spec-documents.ts (an excerpt can serve several families,
 * and a new family adds its own row there); this module adds the excerpts no family is written from,
 * which shared rules cite (half-precision min/max, the target directive). Kept as one table because
 * the citation test checks every citation's file and section against it.
 */
export const SPEC_FILES = {
  ...FAMILY_DOCUMENTS,
  halfMin: { file: '../ptx-isa-extra/half-min-max.md', section: '9.7.4.7', title: 'min (half precision)' },
  halfMax: { file: '../ptx-isa-extra/half-min-max.md', section: '9.7.4.8', title: 'max (half precision)' },
  /** Facts outside the excerpts (target directive, release notes); the row says where it was checked. */
  targets: { file: '(not in excerpts)', section: '5.1 / 13', title: 'PTX ISA .target directive and release notes' },
} as const;

export type SpecKey = keyof typeof SPEC_FILES;

/** Where in a section: the spec's own sub-heading ("Syntax", "Description", "PTX ISA Notes", ...). */
export type SpecPart =
  | 'Syntax'
  | 'Description'
  | 'Semantics'
  | 'Notes'
  | 'PTX ISA Notes'
  | 'Target ISA Notes'
  | 'Examples'
  | 'Valid combinations table'
  | 'Vector table'
  | 'Scalar table'
  | 'Release notes';

export interface Citation {
  /** The excerpt's file, relative to ptx-spec/ (../shared/ptx-spec in CI; the PTX ISA text is not kept in the repository, only the quote below). */
  readonly file: string;
  /** PTX ISA section number, e.g. "9.7.13.5". */
  readonly section: string;
  readonly part: SpecPart;
  /**
   * The sentence, grammar line or table row that carries the rule, verbatim (markdown, backticks and
   * spacing aside; " / " joins two quoted places, "..." marks an omission). A quote that starts
   * with "~ " is a paraphrase: a table column read across rows, or a rule the grammar implies.
   * tests/catalog/citations.test.ts holds every verbatim quote to the text.
   */
  readonly quote: string;
}

/** Builds a citation: `cite('atom.md', 'Description', '...')`. */
export function cite(key: SpecKey, part: SpecPart, quote: string): Citation {
  const f = SPEC_FILES[key];
  return { file: f.file, section: f.section, part, quote };
}

/** "PTX ISA 9.7.13.5 atom, Description" */
export function formatCitation(c: Citation): string {
  return `PTX ISA ${c.section} (${c.file}), ${c.part}: "${c.quote}"`;
}

/** Short form for tables and console lines. */
export function shortCitation(c: Citation): string {
  return `PTX ISA ${c.section} ${c.part}`;
}
