/**
 * Writes acceptance-test modules: one kernel, one instruction line per catalog entry, registers of
 * the widths the entry's operand shape asks for. The line number of each instruction is kept so
 * that ptxas's per-line diagnostics can be given back to their entries.
 */
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType, isElementType, vectorLength } from '../../catalog/elements.js';
import type { OperandKind } from '../../catalog/types.js';

export interface TestModule {
  readonly text: string;
  /** 1-based line number -> index into the entries the module was built from. */
  readonly lineToEntry: ReadonlyMap<number, number>;
  /** 1-based line number of a marker -> index of the entry it follows. */
  readonly markerToEntry: ReadonlyMap<number, number>;
}

/** Register widths declared for the whole kernel; .b128 needs PTX ISA 8.3, so it is declared per line. */
const WIDTHS = [8, 16, 32, 64] as const;
const MAX_LANES = 8;
/**
 * Entries per kernel. ptxas's optimiser costs more than linearly in the length of a kernel: 3000
 * atomics took 0.73 s as one sm_100a kernel and 0.16 s as 30 kernels of 100.
 */
const KERNEL_ENTRIES = 100;

/** Register width of one element of the entry's type (32 when the type is omitted or unknown). */
export function dataWidth(type: string): number {
  return type !== '' && isElementType(type) ? elementType(type).bits : 32;
}

function lanes(vec: string): number {
  try {
    return vectorLength(vec);
  } catch {
    return 1;
  }
}

const regsMemo = new Map<number, string>();
function regs(width: number, n: number): string {
  const key = width * 64 + n;
  let text = regsMemo.get(key);
  if (text === undefined) {
    const names = Array.from({ length: n }, (_, i) => (width === 128 ? `%q${i}` : `%r${width}_${i}`));
    regsMemo.set(key, (text = n === 1 ? names[0]! : `{${names.join(', ')}}`));
  }
  return text;
}

/** The operand list of an entry, as ptxas will read it. */
export function operandText(e: CatalogEntry): string {
  const w = dataWidth(e.q.type ?? '');
  const n = Math.min(lanes(e.q.vec ?? ''), MAX_LANES);
  const parts: string[] = [];
  for (const k of e.operands as OperandKind[]) {
    switch (k) {
      case 'd':
        parts.push((e.q.d ?? '') === '_' ? '_' : regs(w, n));
        break;
      case 'b':
      case 'c':
        parts.push(regs(w, n));
        break;
      case 'a':
      case 'dstMem':
      case 'srcMem':
        parts.push('[%ad]');
        break;
      case 'mbar':
        parts.push('[%mb]');
        break;
      case 'tensor': {
        // the tensor map's generic address, override operands where spelled, one .s32 coordinate per dimension
        const dims = Number((e.q.dim ?? '1d').replace('d', '')) || 1;
        const over = [(e.q.override_addr ?? '') !== '' ? '%mb' : '', (e.q.override_attr ?? '') !== '' ? '{%r8_0}, {%r8_1}' : ''].filter(Boolean);
        parts.push(`[${['%ad', ...over, `{${Array.from({ length: dims }, (_, i) => `%r32_${i}`).join(', ')}}`].join(', ')}]`);
        break;
      }
      case 'size':
        parts.push('%sz');
        break;
      case 'policy':
        if ((e.q.hint ?? '') !== '') parts.push('%pol');
        break;
    }
  }
  return parts.join(', ');
}

/**
 * The instruction line of an entry (without indentation). An entry with 128-bit operands gets a
 * block of its own that declares them, so that a PTX ISA version without .b128 registers is an
 * error on this entry's line rather than on the kernel's.
 */
export function instructionText(e: CatalogEntry): string {
  const ins = `${e.ptx} ${operandText(e)};`;
  return dataWidth(e.q.type ?? '') === 128 ? `{ .reg .b128 %q<${MAX_LANES}>; ${ins} }` : ins;
}

/**
 * A line that is always an error ("Arguments mismatch for instruction 'mov'") and never a fatal one.
 * Placed after every entry in a first pass, it shows how far ptxas got when it crashes: the entry
 * after the last marker it reported is the one it crashed on.
 */
export const MARKER_LINE = 'mov.u16 %r32_0, 0;';

/**
 * A module holding one line per entry, for `target` in PTX ISA `ptx`; with `markers`, each entry
 * line is followed by MARKER_LINE.
 */
export function buildModule(entries: readonly CatalogEntry[], target: string, ptx: string, markers = false): TestModule {
  const lines = [`.version ${ptx}`, `.target ${target}`, '.address_size 64'];
  const lineToEntry = new Map<number, number>();
  const markerToEntry = new Map<number, number>();
  const kernel = (n: number) => [
    '',
    `.visible .entry conformance_accept_${n}(.param .u64 p)`,
    '{',
    ...WIDTHS.map((w) => `  .reg .b${w} %r${w}_<${MAX_LANES}>;`),
    '  .reg .b64 %ad, %mb, %pol;',
    '  .reg .b32 %sz;',
    '  ld.param.u64 %ad, [p];',
    '  add.u64 %mb, %ad, 128;',
    '  mov.b64 %pol, 0;',
    '  mov.b32 %sz, 16;',
  ];
  if (!entries.length) lines.push(...kernel(0), '  ret;', '}');
  entries.forEach((e, i) => {
    if (i % KERNEL_ENTRIES === 0) lines.push(...kernel(i / KERNEL_ENTRIES));
    lines.push(`  ${instructionText(e)}`);
    lineToEntry.set(lines.length, i);
    if (markers) {
      lines.push(`  ${MARKER_LINE}`);
      markerToEntry.set(lines.length, i);
    }
    if (i % KERNEL_ENTRIES === KERNEL_ENTRIES - 1 || i === entries.length - 1) lines.push('  ret;', '}');
  });
  lines.push('');
  return { text: lines.join('\n'), lineToEntry, markerToEntry };
}
