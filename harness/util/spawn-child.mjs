// Child side of spawn-pool.ts: runs commands on behalf of a parent whose large heap would make every
// fork slow. One message in, one message out. node's own spawn, not execa: thousands of ptxas calls
// that each live ~17 ms, where execa's per-call work was a few ms of CPU more.
import { spawn } from 'node:child_process';

process.on('message', (m) => {
  const out = [];
  const err = [];
  let timedOut = false;
  let spawnError;
  const c = spawn(m.file, m.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = m.timeout ? setTimeout(() => ((timedOut = true), c.kill('SIGTERM')), m.timeout) : undefined;
  c.stdout.on('data', (b) => out.push(b));
  c.stderr.on('data', (b) => err.push(b));
  c.on('error', (e) => (spawnError = e));
  c.on('close', (code, signal) => {
    if (timer) clearTimeout(timer);
    // as execa with reject: false gave it: the output without its last newline; a command that
    // could not start has no exit code and says why on stderr
    const text = (bufs) => Buffer.concat(bufs).toString('utf8').replace(/\r?\n$/, '');
    process.send({
      id: m.id,
      exitCode: spawnError ? null : code,
      signal: timedOut ? null : (signal ?? null),
      timedOut,
      stdout: text(out),
      stderr: spawnError ? `${spawnError.message}` : text(err),
    });
  });
});
