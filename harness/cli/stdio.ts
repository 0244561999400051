/**
 * The process's stdout and stderr as the CLI's Io. When a stream's reader goes away (`| head -1`,
 * a closed terminal: EPIPE), the harness stops writing to it quietly instead of dying of an
 * unhandled 'error' event with a stack trace: `--list` ends with exit 0, as Unix tools piped into
 * `head` do for the reader; a run goes on to its end, writes its report and exits with its own
 * code, and says where the report is on stderr (`outGone`), since stdout can no longer say it.
 */
import type { Io } from './io.js';

type Stream = NodeJS.WriteStream;

/** Writes lines to `stream` until it fails (EPIPE or any other error), then drops them. */
function lineWriter(stream: Stream): { write: (s: string) => void; gone: () => boolean } {
  let gone = false;
  let watching = false;
  // a failed write marks the stream errored at once; its 'error' event comes on the next tick
  const failed = (): boolean => (gone ||= Boolean(stream.errored || stream.destroyed || stream.writableEnded));
  return {
    write: (s) => {
      if (gone) return;
      // the listener goes on at the first write (importing this module changes nothing)
      if (!watching) {
        watching = true;
        stream.on('error', () => (gone = true));
      }
      if (failed()) return;
      stream.write(`${s}\n`);
    },
    gone: () => gone || failed(),
  };
}

const out = lineWriter(process.stdout);
const err = lineWriter(process.stderr);

export const stdio: Io = {
  out: out.write,
  err: err.write,
  outGone: out.gone,
  isTTY: Boolean(process.stderr.isTTY),
  ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
};
