/**
 * The SASS mnemonics of a cubin's kernels, the evidence each gpu result carries. A run's SassReader
 * hands nvdisasm each distinct kernel machine code once, as a raw instruction binary (`nvdisasm -b
 * SM90`): a kernel's mnemonics are those of its bytes, and the default run's 18,002 kernels are 6,186
 * distinct codes. Where that cannot be done (no nvdisasm, an architecture its `-b` does not take, a
 * cubin this reader cannot take apart, PTXCONF_DISASSEMBLER naming cuobjdump) each cubin is
 * disassembled whole (sassByKernel). On an H200 host both ways gave the same mnemonics for all 18,002
 * kernels; nvdisasm spent 7-15 CPU-s on the distinct codes (in 1-16 calls) against 41 CPU-s on the
 * 32 cubins whole (reports/baselines/h200-sm_90-gpu-run/2026-11-29-session10/).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sha256Hex as sha } from '../../util/sha.js';

const execFileP = promisify(execFile);

/**
 * A tool (ptxas, the disassembler) at niceness 10 (PTXCONF_TOOL_NICE): below the run's workers, which
 * make and judge the cases of the modules already compiled. In cold H200 runs the workers spent 2.5-3.2
 * s making cases against 3.7-5.0 s with the tools at 0, the run's wall time the same within the hosts' spread.
 */
export function runTool(file: string, args: readonly string[], opts: { maxBuffer: number }): Promise<{ stdout: string; stderr: string }> {
  const p = execFileP(file, args, opts);
  const nice = Number(process.env.PTXCONF_TOOL_NICE ?? 10);
  if (nice && p.child.pid !== undefined) {
    try {
      setPriority(p.child.pid, nice);
    } catch {
      // the child has already gone
    }
  }
  return p;
}

/** A disassembly line's address and mnemonic, where its mnemonic is one that touches memory atomically (the evidence kept). */
function atomicLine(line: string): { at: number; mnemonic: string } | undefined {
  const m = /\/\*([0-9a-f]+)\*\/\s+(?:@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)/.exec(line);
  return m && /^(ATOM|RED|UBLKRED|SYNCS|UBLKCP|UTMA)/.test(m[2]!) ? { at: parseInt(m[1]!, 16), mnemonic: m[2]! } : undefined;
}

/**
 * The SASS mnemonics of a disassembly's lines that touch memory atomically, per kernel: cuobjdump's
 * (each kernel after its `Function : NAME` line) or nvdisasm's (after its `.text.NAME:` label).
 */
export function sassMnemonics(text: string): Record<string, string> {
  const out: Record<string, string[]> = {};
  let cur = '';
  for (const line of text.split('\n')) {
    const f = /Function : (\S+)/.exec(line) ?? /^\s*\.text\.([A-Za-z_$][\w$]*):\s*$/.exec(line);
    if (f) {
      cur = f[1]!;
      out[cur] ??= [];
      continue;
    }
    const a = cur ? atomicLine(line) : undefined;
    if (a && !out[cur]!.includes(a.mnemonic)) out[cur]!.push(a.mnemonic);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.join(' ')]));
}

/**
 * The mnemonics of each piece of a raw instruction binary's disassembly (`nvdisasm -b`): `pieces[i]`
 * holds bytes [start, end) of the binary; a line's address says whose it is. Undefined unless every
 * piece has a line (each is a kernel's code, of one instruction at least): a layout this parser does
 * not know, or a disassembly that stopped short.
 */
export function rawMnemonics(text: string, pieces: readonly { start: number; end: number }[]): string[] | undefined {
  const out = pieces.map((): string[] => []);
  const lined = new Uint8Array(pieces.length);
  let p = 0;
  for (const line of text.split('\n')) {
    const m = /\/\*([0-9a-f]+)\*\//.exec(line);
    if (!m) continue;
    const at = parseInt(m[1]!, 16);
    // addresses ascend; a piece is found from the last one (or from the start, should they not)
    if (at < pieces[p]!.start) p = 0;
    while (p < pieces.length - 1 && at >= pieces[p]!.end) p++;
    if (at < pieces[p]!.start || at >= pieces[p]!.end) continue;
    lined[p] = 1;
    const a = atomicLine(line);
    if (a && !out[p]!.includes(a.mnemonic)) out[p]!.push(a.mnemonic);
  }
  return lined.every((x) => x === 1) ? out.map((l) => l.join(' ')) : undefined;
}

/**
 * The disassemblers of whole cubins, in the order tried: `nvdisasm -c -ndf` (code only, no dataflow
 * analysis) and `cuobjdump -sass`. Each reads one cubin per call at about 0.4-0.5 s a cubin on an H200
 * host plus its kernels' share (a fat binary of several costs the sum), and nvdisasm so used took 20%
 * less CPU over the default run's 71 modules (50-55 against 60-70 CPU-s) for the same mnemonics in all
 * 18,002 kernels (reports/baselines/h200-sm_90-gpu-run/2026-11-29-session9/). PTXCONF_DISASSEMBLER names one.
 */
const DISASSEMBLERS: Record<string, (cubin: string) => readonly string[]> = {
  nvdisasm: (c) => ['-c', '-ndf', c],
  cuobjdump: (c) => ['-sass', c],
};

/** SASS mnemonics per kernel of a cubin, from the first disassembler found; {} where none is (no evidence, said in the results). */
export async function sassByKernel(cubin: string): Promise<Record<string, string>> {
  const named = process.env.PTXCONF_DISASSEMBLER;
  for (const tool of named ? [named] : Object.keys(DISASSEMBLERS)) {
    try {
      const { stdout } = await runTool(tool, DISASSEMBLERS[tool]?.(cubin) ?? ['-sass', cubin], { maxBuffer: 1 << 30 });
      const sass = sassMnemonics(stdout);
      if (Object.keys(sass).length) return sass; // else a layout this parser does not know: the next one
    } catch {
      // not this one
    }
  }
  return {};
}

/**
 * Each kernel's machine code in a cubin: the contents of its `.text.NAME` sections (ELF64, little
 * endian, as ptxas writes them). Undefined for anything else.
 */
export function kernelCode(elf: Buffer): Map<string, Buffer> | undefined {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) return undefined;
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const entsize = elf.readUInt16LE(0x3a);
  const count = elf.readUInt16LE(0x3c);
  const names = elf.readUInt16LE(0x3e);
  if (entsize < 64 || shoff + count * entsize > elf.length || names >= count) return undefined;
  const section = (i: number) => {
    const at = shoff + i * entsize;
    return {
      name: elf.readUInt32LE(at),
      type: elf.readUInt32LE(at + 4),
      offset: Number(elf.readBigUInt64LE(at + 0x18)),
      size: Number(elf.readBigUInt64LE(at + 0x20)),
    };
  };
  const strtab = section(names);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const s = section(i);
    const from = strtab.offset + s.name;
    const end = elf.indexOf(0, from);
    if (end < 0 || s.offset + s.size > elf.length) return undefined;
    const name = elf.toString('latin1', from, end);
    // PROGBITS only: the code, not a NOBITS section of the same name
    if (name.startsWith('.text.') && s.type === 1) out.set(name.slice(6), elf.subarray(s.offset, s.offset + s.size));
  }
  return out;
}

/** nvdisasm's name for an architecture's raw binaries (`-b`): sm_90 SM90, sm_90a SM90a; undefined for a name of another shape. */
export function rawBinaryArch(arch: string): string | undefined {
  const m = /^sm_(\d+)([a-z]?)$/.exec(arch);
  return m ? `SM${m[1]}${m[2]}` : undefined;
}

/**
 * A run's SASS: each cubin's kernels, each distinct machine code disassembled once in the run
 * (`nvdisasm -b`, the new codes of a cubin in one call), a code another cubin has in flight waited
 * for. Falls back to the whole cubin (sassByKernel) where that way fails, for this cubin and every
 * later one.
 */
export class SassReader {
  private readonly codes = new Map<string, Promise<string>>();
  private raw: boolean;
  private readonly arch: string | undefined;
  /** Kernel codes handed to the disassembler, and their bytes. */
  readonly stats = { codes: 0, bytes: 0, calls: 0 };

  constructor(arch: string) {
    this.arch = rawBinaryArch(arch);
    const named = process.env.PTXCONF_DISASSEMBLER;
    this.raw = this.arch !== undefined && (!named || named === 'nvdisasm');
  }

  /**
   * Reads a cubin's SASS in two steps: `started` resolves once this cubin's own disassembler call
   * has ended (so a caller running one tool per core may start the next), `sass` once every kernel's
   * mnemonics are known (some may come from another cubin's call still in flight).
   */
  read(cubin: string, bytes: Buffer): { started: Promise<void>; sass: Promise<Record<string, string>> } {
    const code = this.raw ? kernelCode(bytes) : undefined;
    if (!code?.size) {
      const whole = sassByKernel(cubin);
      return { started: whole.then(() => undefined), sass: whole };
    }
    const keys = new Map<string, string>();
    const fresh: { key: string; bytes: Buffer }[] = [];
    const seen = new Set<string>();
    for (const [name, b] of code) {
      const key = sha(b);
      keys.set(name, key);
      if (!this.codes.has(key) && !seen.has(key)) fresh.push({ key, bytes: b });
      seen.add(key);
    }
    const own = fresh.length ? this.disassemble(fresh) : Promise.resolve(undefined);
    fresh.forEach((f, i) =>
      this.codes.set(
        f.key,
        own.then((m) => m?.[i] ?? Promise.reject(new Error('raw disassembly failed'))),
      ),
    );
    const sass = (async () => {
      try {
        const entries = await Promise.all([...keys].map(async ([name, key]) => [name, await this.codes.get(key)!] as const));
        return Object.fromEntries(entries);
      } catch {
        // this way failed (here or in the call another cubin made): whole cubins from now on
        this.raw = false;
        return sassByKernel(cubin);
      }
    })();
    return { started: own.then(() => undefined), sass };
  }

  /** The mnemonics of each code, from one `nvdisasm -b` call over them all; undefined where that failed. */
  private async disassemble(codes: readonly { bytes: Buffer }[]): Promise<string[] | undefined> {
    const dir = mkdtempSync(join(tmpdir(), 'ptxconf-sass-'));
    try {
      const pieces: { start: number; end: number }[] = [];
      let at = 0;
      for (const c of codes) {
        pieces.push({ start: at, end: at + c.bytes.length });
        at += c.bytes.length;
      }
      writeFileSync(join(dir, 'code.bin'), Buffer.concat(codes.map((c) => c.bytes)));
      this.stats.calls++;
      this.stats.codes += codes.length;
      this.stats.bytes += at;
      const { stdout } = await runTool('nvdisasm', ['-b', this.arch!, join(dir, 'code.bin')], { maxBuffer: 1 << 30 });
      return rawMnemonics(stdout, pieces);
    } catch {
      return undefined;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
