/**
 * Element types named by the `.type` qualifiers of the catalogued instructions: their width, their
 * lanes, and the register that holds one of them in an instruction operand. The numeric formats
 * (exponent bits, bias, NaN encodings) belong to the reference model; this table says only what the
 * catalog and the PTX emitter need.
 */

export type ElementClass = 'bits' | 'unsigned' | 'signed' | 'float';

export interface ElementType {
  /** The qualifier spelling without its dot. */
  readonly name: string;
  /** Bits of one element as stored in memory (a packed x2/x4 type counts all its lanes). */
  readonly bits: 8 | 16 | 32 | 64 | 128;
  readonly klass: ElementClass;
  /** Lanes packed into one element: 2 for f16x2, 4 for e4m3x4, else 1. */
  readonly lanes: 1 | 2 | 4;
  /** The scalar format of one lane. */
  readonly lane: string;
}

const row = (name: string, bits: ElementType['bits'], klass: ElementClass, lanes: ElementType['lanes'] = 1, lane = name): ElementType => ({
  name,
  bits,
  klass,
  lanes,
  lane,
});

/**
 * One row per element type. Register widths follow the PTX rule that a bit-size register
 * (`.bN`) can carry any type of the same size (PTX ISA 5.2.2 "Restricted Use of Sub-Word Sizes" and
 * the operand type rules of 6.4); fp8 scalars therefore travel in `.b8`, e4m3x2 in `.b16`.
 */
export const ELEMENT_TYPES: readonly ElementType[] = [
  row('b16', 16, 'bits'),
  row('b32', 32, 'bits'),
  row('b64', 64, 'bits'),
  row('b128', 128, 'bits'),
  row('u32', 32, 'unsigned'),
  row('u64', 64, 'unsigned'),
  row('s32', 32, 'signed'),
  row('s64', 64, 'signed'),
  row('f16', 16, 'float'),
  row('bf16', 16, 'float'),
  row('f32', 32, 'float'),
  row('f64', 64, 'float'),
  row('f16x2', 32, 'float', 2, 'f16'),
  row('bf16x2', 32, 'float', 2, 'bf16'),
  row('e4m3', 8, 'float'),
  row('e5m2', 8, 'float'),
  row('e4m3x2', 16, 'float', 2, 'e4m3'),
  row('e5m2x2', 16, 'float', 2, 'e5m2'),
  row('e4m3x4', 32, 'float', 4, 'e4m3'),
  row('e5m2x4', 32, 'float', 4, 'e5m2'),
];

const BY_NAME = new Map(ELEMENT_TYPES.map((t) => [t.name, t]));

/** The element type called `name`; throws for a name no row has (a catalog bug, not user input). */
export function elementType(name: string): ElementType {
  const t = BY_NAME.get(name);
  if (!t) throw new Error(`no element type '${name}' in harness/catalog/elements.ts`);
  return t;
}

export function isElementType(name: string): boolean {
  return BY_NAME.has(name);
}

/** Lanes of a `.vN` qualifier: '' -> 1. */
export function vectorLength(vec: string): number {
  if (vec === '') return 1;
  const m = /^v(\d+)$/.exec(vec);
  if (!m) throw new Error(`not a vector qualifier: '${vec}'`);
  return Number(m[1]);
}
