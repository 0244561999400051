/**
 * Reading a report back (for `diff` and `render`): .json or .json.gz, checked to be a run report;
 * catalog judgements and rule trails written once (version 4; version 3: trails only) put back on
 * each result; a version-2 report is read as it is;
 * a version-1 report (before findings and expectations; the recorded baselines) is brought to the
 * current version by running its results through the comparator's last pass.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { judgeRun } from '../compare/judge-run.js';
import { UsageError } from '../util/errors.js';
import { REPORT_SCHEMA_ID, REPORT_VERSION, type RunReport, inlineDetails, inlineJudgements } from './json.js';
import { type RuleDetail, countResults } from './types.js';

export async function loadReport(file: string): Promise<RunReport> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (e) {
    throw new UsageError(
      `${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)}); give the path of a report.json (or .json.gz) that a run wrote`,
    );
  }
  let doc: Partial<RunReport> & { version?: number };
  try {
    const text = file.endsWith('.gz') || (buf[0] === 0x1f && buf[1] === 0x8b) ? gunzipSync(buf).toString('utf8') : buf.toString('utf8');
    doc = JSON.parse(text) as typeof doc;
  } catch (e) {
    const pos = /position (\d+)/.exec(String(e))?.[1];
    throw new UsageError(
      `${file}${pos ? ` (byte ${pos})` : ''}: not JSON: ${e instanceof Error ? e.message : String(e)}; a report that a run left partial is still whole JSON, so this file is something else or truncated`,
    );
  }
  if (doc.schema !== REPORT_SCHEMA_ID || !Array.isArray(doc.results)) {
    throw new UsageError(`${file}: not a run report (schema '${String(doc.schema)}'); expected '${REPORT_SCHEMA_ID}' with a results list`);
  }
  const version = doc.version as number;
  if (version === REPORT_VERSION || version === 3) {
    const { details, judgements, ...rest } = doc as RunReport & { details?: RuleDetail[][]; judgements?: Parameters<typeof inlineJudgements>[0] };
    try {
      const results = version === 3 ? inlineDetails(details, rest.results, file) : inlineJudgements(judgements, details, rest.results, file);
      return { ...rest, version: REPORT_VERSION, results };
    } catch (e) {
      throw new UsageError(`${(e as Error).message}; the file was changed or cut after the run wrote it`);
    }
  }
  if (version === 2) return { ...(doc as RunReport), version: REPORT_VERSION };
  if (version !== 1) throw new UsageError(`${file}: report version ${version} is not one this harness reads (1 to ${REPORT_VERSION})`);
  const judged = judgeRun(doc.results);
  return {
    ...(doc as RunReport),
    version: REPORT_VERSION,
    results: judged.results,
    findings: judged.findings,
    expectations: { file: null, outcomes: [] },
    counts: countResults(judged.results),
  };
}
