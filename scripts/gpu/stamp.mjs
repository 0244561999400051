// Prefixes each line of stdin with the seconds since START (milliseconds since the epoch), for the
// stage profile of a run from its own log lines (scripts/gpu/default-run-bench.sh).
import { createInterface } from 'node:readline';

const start = Number(process.env.START ?? Date.now());
for await (const line of createInterface({ input: process.stdin })) process.stdout.write(`${((Date.now() - start) / 1000).toFixed(2).padStart(6)} ${line}\n`);
