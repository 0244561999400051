// Child side of spawn-pool.ts: runs commands with execa on behalf of a parent whose large heap
// would make every fork slow. One message in, one message out.
import { execa } from 'execa';

process.on('message', async (m) => {
  const r = await execa(m.file, m.args, { reject: false, timeout: m.timeout, stdin: 'ignore' });
  process.send({
    id: m.id,
    exitCode: r.exitCode ?? null,
    signal: r.signal ?? null,
    timedOut: Boolean(r.timedOut),
    stdout: r.stdout,
    stderr: r.stderr,
  });
});
