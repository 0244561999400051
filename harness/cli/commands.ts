/**
 * The subcommands of `npm run conformance`, one row each: dispatch (run.ts), the top-level `--help`,
 * `X --help`, "did you mean" for a misspelt one, `--list`'s check (main.ts) and the docs' check
 * (tests/docs) all read this table. Adding a command is one row here and its module. Each module is
 * imported when its command runs (or its usage is asked for), so `--list` stays light.
 */
import type { Options } from './args.js';
import type { Io } from './io.js';
import type { RunHooks } from './matrix.js';
import { EDITIONS, type Edition, NEWEST_EDITION } from '../catalog/editions.js';
import { editDistance } from '../util/nearest.js';

/** What a command's run gets besides its arguments: the main run as a function, for commands that drive runs of their own. */
export interface CommandContext {
  readonly run: (opts: Options, command: readonly string[], io: Io, hooks?: RunHooks) => Promise<number>;
}

export interface Command {
  readonly name: string;
  /** One line for the top-level --help. */
  readonly summary: string;
  /** Its usage text (what `X --help` prints), from its module. */
  usage(): Promise<string>;
  /** Runs it on the arguments after its name; the exit code. */
  run(args: readonly string[], io: Io, ctx: CommandContext): Promise<number>;
  /**
   * It answers --help itself (litmus: `litmus --backend gpu --help` has a usage of its own); for the
   * others the dispatcher prints `usage()` on `--help` or `-h` and runs nothing.
   */
  readonly ownHelp?: boolean;
}

/** sweep and contend under each --ptxas (a toolchain matrix), as the main run. */
const underPtxas = (name: string, run: (args: readonly string[], io: Io) => Promise<number>) => async (args: readonly string[], io: Io) =>
  (await import('./gpu-command.js')).withPtxas(name, args, io, (a) => run(a, io));

export const COMMANDS: readonly Command[] = [
  {
    name: 'diff',
    summary: 'the results whose verdict or observed bits changed between two reports',
    usage: async () => (await import('./report-commands.js')).DIFF_USAGE,
    run: async (a, io) => (await import('./report-commands.js')).diffCommand(a, io),
  },
  {
    name: 'render',
    summary: 'judge a report again (another edition or expectations file), write its HTML and JUnit',
    usage: async () => (await import('./report-commands.js')).RENDER_USAGE,
    run: async (a, io) => (await import('./report-commands.js')).renderCommand(a, io),
  },
  {
    name: 'merge',
    summary: 'the reports of --shard 0/N .. N-1/N as the report of the whole run',
    usage: async () => (await import('./report-commands.js')).MERGE_USAGE,
    run: async (a, io) => (await import('./report-commands.js')).mergeCommand(a, io),
  },
  {
    name: 'export',
    summary: 'golden vectors of a gpu run (inputs, observed bits, SASS, verdicts)',
    usage: async () => (await import('./report-commands.js')).EXPORT_USAGE,
    run: async (a, io) => (await import('./report-commands.js')).exportCommand(a, io),
  },
  {
    name: 'sweep',
    summary: 'every 16-bit operand pair through an instruction on the GPU',
    usage: async () => (await import('./sweep.js')).SWEEP_USAGE,
    run: underPtxas('sweep', async (a, io) => (await import('./sweep.js')).sweepCommand(a, io)),
  },
  {
    name: 'contend',
    summary: 'atom/red under contention on the GPU, judged exactly',
    usage: async () => (await import('./contend.js')).CONTEND_USAGE,
    run: underPtxas('contend', async (a, io) => (await import('./contend.js')).contendCommand(a, io)),
  },
  {
    name: 'repro',
    summary: 'a standalone reproducer (PTX, C++ host, nvcc build) of a finding or a case',
    usage: async () => (await import('./repro.js')).REPRO_USAGE,
    run: async (a, io) => (await import('./repro.js')).reproCommand(a, io),
  },
  {
    name: 'litmus',
    summary: 'litmus tests judged by the chapter-8 memory model, or run on the GPU',
    usage: async () => (await import('./litmus.js')).LITMUS_USAGE,
    run: async (a, io) => (await import('./litmus.js')).litmusCommand(a, io),
    ownHelp: true,
  },
  {
    name: 'lens',
    summary: 'CUDA C++ atomics as users write them, compiled by nvcc and run under contention on the GPU',
    usage: async () => (await import('./lens.js')).LENS_USAGE,
    run: async (a, io) => (await import('./lens.js')).lensCommand(a, io),
  },
  {
    name: 'hostmem',
    summary: 'atom and red on host memory against CPU threads (mapped, registered, managed)',
    usage: async () => (await import('./hostmem.js')).HOSTMEM_USAGE,
    run: async (a, io) => (await import('./hostmem.js')).hostmemCommand(a, io),
  },
  {
    name: 'peer',
    summary: "atom and red on another GPU's memory (two GPUs, peer mappings, never multicast)",
    usage: async () => (await import('./peer.js')).PEER_USAGE,
    run: async (a, io, ctx) => (await import('./peer.js')).peerCommand(a, io, ctx.run),
  },
];

/**
 * The edition a command runs inside (`--spec-edition E` or `--spec-edition=E` among its arguments;
 * default the newest): run.ts runs every command in withEdition(commandEdition(args)). A value
 * that names no edition is left to the command's own parser, which says so.
 */
export function commandEdition(args: readonly string[]): Edition {
  let v: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--spec-edition') v = args[i + 1];
    else if (args[i]!.startsWith('--spec-edition=')) v = args[i]!.slice('--spec-edition='.length);
  }
  return (EDITIONS as readonly string[]).includes(v ?? '') ? (v as Edition) : NEWEST_EDITION;
}

/** The command named `name`, if any. */
export function findCommand(name: string | undefined): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** What to say of a first word that names no command: the nearest command(s), or all of them. */
export function unknownCommand(word: string): string {
  // within two edits (a swap of neighbours is one), nearest first
  const scored = COMMANDS.map((c) => ({ name: c.name, d: editDistance(word.toLowerCase(), c.name) })).filter(
    (x) => x.d <= Math.min(2, Math.max(1, word.length - 2)),
  );
  const best = Math.min(...scored.map((x) => x.d));
  const near = scored.filter((x) => x.d === best).map((x) => x.name);
  return near.length
    ? `unknown command '${word}'; did you mean ${near.map((n) => `'${n}'`).join(' or ')}?`
    : `unknown command '${word}'; the commands are ${COMMANDS.map((c) => c.name).join(', ')}; a run takes options only (--help)`;
}

/** Whether args ask for help (and the command does not answer it itself). */
export function asksHelp(c: Command, args: readonly string[]): boolean {
  return !c.ownHelp && (args.includes('--help') || args.includes('-h'));
}

/** The commands' part of the top-level --help: each name and summary. */
export function commandsHelp(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return ['commands (npm run conformance -- COMMAND --help for its options):', ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`)].join('\n');
}

/** The exit codes, as the top-level --help says them (harness/cli/main.ts). */
export const EXIT_CODES = `exit codes:
  0        every result passes, or is a known deviation, observed or skipped
  1        mismatches, compile-mismatches, errors or an unexpected pass
  2        a usage or input error (what, where and what to do are said; nothing is lost)
  3        an internal error (a partial report is written first)
  130/143  interrupted by SIGINT/SIGTERM (a partial report is written first)`;
