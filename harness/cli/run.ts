/**
 * The whole of `npm run conformance` past `--help` and `--list` (main.ts answers those without
 * loading this module): a subcommand (commands.ts) or the main run. The main run reads the
 * expectations, prepares the report folder, starts the recorder, hands the executor the options
 * choose (run-backend.ts: reference, gpu, ptxas, multicast) a run context, and writes what came
 * back: results.jsonl as it goes, then report.json, report.html and junit.xml, and the summary.
 *
 * Exit codes: 0 when every result passes or is known, observed or skipped; 1 on mismatches,
 * compile-mismatches, errors or an unexpected pass; 2 on usage or input errors (nothing is run);
 * 130/143 when interrupted (a partial report is written first); 3 on an internal error (likewise).
 */
import { CATALOG_PTX_ISA, findTarget, modulePtxFor } from '../arch/targets.js';
import { selectEntries } from '../catalog/select.js';
import { prestartGpuWorkers } from '../backends/gpu/prestart.js';
import type { WorkerPool } from '../backends/gpu/pool.js';
import { NEWEST_EDITION, withEdition } from '../catalog/editions.js';
import { expectationsPath } from '../compare/expectations.js';
import { caseLines } from '../report/case-text.js';
import { prepareReportDir, pruneRuns, removeEmptyReportDirs } from '../report/dir.js';
import { KEEP_WHOLE, RunRecorder } from '../report/recorder.js';
import { VERDICTS, VERDICT_MEANING } from '../report/types.js';
import { UsageError } from '../util/errors.js';
import { type Options, USAGE, parseOptions } from './args.js';
import { EXIT_CODES, asksHelp, commandEdition, commandsHelp, findCommand, unknownCommand } from './commands.js';
import { readExpectations } from './expectations-file.js';
import type { Io } from './io.js';
import type { RunHooks } from './matrix.js';
import { runBackend } from './run-backend.js';
import { stdio } from './stdio.js';
import { exitCode, printSummary, printWritten } from './summary.js';

const defaultIo: Io = stdio;

/** Runs a command: a usage or input error is said in one line and exits 2 (never a stack trace); empty default report folders go. */
async function exit2OnUsageError(io: Io, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    removeEmptyReportDirs();
  }
}

export async function main(argv: readonly string[], io: Io = defaultIo, hooks: RunHooks = {}): Promise<number> {
  const command = findCommand(argv[0]);
  if (command) {
    return exit2OnUsageError(io, async () => {
      // judged against --spec-edition's edition: the command's run context (catalog/editions.ts)
      if (!asksHelp(command, argv.slice(1))) return withEdition(commandEdition(argv.slice(1)), () => command.run(argv.slice(1), io, { run: runWith }));
      io.out(await command.usage());
      return 0;
    });
  }
  // a first word that is neither a command nor an option: a misspelt command, said in two lines
  const word = argv[0];
  if (word !== undefined && !word.startsWith('-')) {
    io.err(`error: ${unknownCommand(word)}`);
    io.err('npm run conformance -- --help lists the commands and options');
    return 2;
  }
  let opts: Options;
  try {
    opts = parseOptions(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (opts.help) {
    io.out(USAGE);
    io.out(`\n${commandsHelp()}`);
    io.out(`\n${EXIT_CODES}`);
    io.out('\nverdicts:');
    for (const v of VERDICTS) io.out(`  ${v.padEnd(17)} ${VERDICT_MEANING[v]}`);
    return 0;
  }
  // --ptxas twice or more: the same run under each ptxas (matrix.ts), each a run of its own
  if (opts.ptxas.length > 1 && !hooks.matrix && !opts.list) {
    return exit2OnUsageError(io, async () => (await import('./matrix.js')).matrixCommand(argv, opts, io, main));
  }
  return runWith(opts, ['npm', 'run', 'conformance', '--', ...argv], io, hooks);
}

/**
 * One run of the options (under the ptxas --ptxas chose, or the one found): the report and its exit
 * code. `command`: what the report records as the command that ran it. Commands that drive runs of
 * their own (peer) call this with options they made.
 */
export function runWith(opts: Options, command: readonly string[], io: Io, hooks: RunHooks = {}): Promise<number> {
  // the run judged against --spec-edition: its context, seen by everything it awaits and starts (catalog/editions.ts)
  return withEdition(opts.specEdition, () => runIn(opts, command, io, hooks));
}

async function runIn(opts: Options, command: readonly string[], io: Io, hooks: RunHooks): Promise<number> {
  const target = findTarget(opts.arch)!;
  const started = new Date();
  let rec: RunRecorder | undefined;
  let pool: WorkerPool | undefined;
  // a signal: the results so far as a partial report under the run's keep rule, or, before the
  // first result, no report at all (the stream's header removed, a default folder too, and said)
  const onSignal = (sig: NodeJS.Signals) => {
    const n = rec?.recorded ?? 0;
    if (rec?.done) {
      // the run was writing its report: what it had not finished (report.json, the stream's compression) is done now
      rec.completeReport();
      io.err(`\n${sig}: stopped after the report was written.`);
    } else if (rec && n) {
      const w = rec.finishPartial(`interrupted by ${sig} after ${n} results`)!;
      const counted = n - w.report.results.length;
      io.err(
        `\n${sig}: stopped. A partial report of the ${n} results so far (${w.report.results.length} kept whole${counted ? `, ${counted} passes counted` : ''}):`,
      );
      printWritten(io, w);
    } else {
      rec?.discard();
      const gone = removeEmptyReportDirs();
      io.err(
        `\n${sig}: stopped before any result was recorded: no report written${gone.length ? `; the empty folder ${gone.join(', ')} removed` : opts.report !== undefined ? ` in ${opts.report}` : ''}.`,
      );
    }
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  try {
    if (opts.list) {
      const entries = selectEntries(opts, target, modulePtxFor(target, CATALOG_PTX_ISA) ?? CATALOG_PTX_ISA);
      for (const e of entries) io.out(`${e.id}\t${e.kind}\t${e.expect}${e.expect === 'accept' ? '' : `\t${e.reason}`}`);
      io.err(`${entries.length} entries for ${target.name}`);
      return 0;
    }
    // the default gpu run's workers and their CUDA contexts start now (closed below where the run does not take them)
    pool = hooks.matrix || hooks.memoryDevice !== undefined ? undefined : await prestartGpuWorkers(opts);
    const exFile = opts.expectations ?? expectationsPath(target.name);
    const expectations = await readExpectations(exFile, opts.expectations !== undefined, io);
    if (!expectations) return 2;
    for (const [from, to] of opts.filterRespelled ?? [])
      io.err(`--filter: '${from}' read as '${to}' (ids spell qualifiers in the grammar's order; ptxas accepts any order)`);
    io.err(
      `spec: judged against the PTX ISA ${opts.specEdition} text${opts.specEdition === NEWEST_EDITION ? ' (the newest the catalog has; --spec-edition picks another)' : ' (--spec-edition)'}`,
    );
    if (expectations.length) io.err(`expectations: ${expectations.length} known deviation(s) from ${exFile}`);
    const dir = prepareReportDir(opts.report, '', started, (l) => io.err(l), { overwrite: opts.overwrite });
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // keepPasses: the ptxas + reference run keeps the first --keep passes whole, which merge applies again to the whole run
    const out = await runBackend(
      opts,
      target,
      io,
      (keepPasses?: number) => {
        const shard = opts.shard ? { shard: { ...opts.shard, keepPasses: keepPasses !== undefined && Number.isFinite(keepPasses) ? keepPasses : null } } : {};
        rec = new RunRecorder(
          dir,
          {
            startedAt: started.toISOString(),
            command: [...command],
            arch: target.name,
            filter: opts.filter ?? null,
            seed: opts.seed,
            specEdition: opts.specEdition,
            ...shard,
          },
          expectations,
          expectations.length ? exFile : null,
        );
        // the keep rule a partial report applies: the run's (entries and library cases: --keep; vector files and gpu cases: --keep, else KEEP_WHOLE)
        rec.keepPasses = keepPasses ?? (opts.keepGiven ? opts.keepPasses : KEEP_WHOLE);
        io.err(`streaming results to ${rec.jsonl}`);
        return rec;
      },
      pool ? { ...hooks, gpuPool: pool } : hooks,
    );
    if (typeof out === 'number') return out;
    const w = await out.finishAsync();
    hooks.onReport?.(w.report);
    // --case: the case itself (inputs, bits, allowed results, verdict and why), not only its count
    if (opts.case !== undefined) for (const r of w.report.results) for (const l of caseLines(r, w.report.rules, w.report)) io.out(l);
    printSummary(io, w.report);
    printWritten(io, w);
    if (opts.report === undefined) {
      const gone = pruneRuns(opts.keepRuns);
      if (gone.runs.length)
        io.err(`removed the ${gone.runs.length} oldest report folder(s) in reports/out/ (keeping ${opts.keepRuns}; --keep-runs 0 keeps all)`);
      if (gone.empty.length) io.err(`removed ${gone.empty.length} empty report folder(s) in reports/out/ that earlier runs left`);
    }
    return exitCode(w.report);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      const w = rec?.finishPartial(`stopped by an input error: ${e.message}`);
      if (w) printWritten(io, w);
      return 2;
    }
    const w = rec?.finishPartial(`internal error: ${e instanceof Error ? e.message : String(e)}`);
    if (w) {
      io.err(`internal error; a partial report with the ${rec!.results.length} results so far:`);
      printWritten(io, w);
    }
    throw e;
  } finally {
    pool?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // a default folder the run wrote nothing into (exit 2, --plan-only) goes
    removeEmptyReportDirs();
  }
}
