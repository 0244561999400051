/**
 * The SASS of several cubins from one cuobjdump (backends/gpu/cache.ts, sassOfCubins): the cubins go
 * into one fat binary and its images' SASS comes back in the order given, each cubin's to its own
 * module; where fatbinary fails, or the images do not come back one for one, each cubin is read on
 * its own. With stand-ins for fatbinary (beside the ptxas given) and cuobjdump (first on PATH) whose
 * output names each cubin's bytes, so that a cubin given another's SASS shows.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sassByKernel, sassOfCubins, sassOfDump } from '../../harness/backends/gpu/cache.js';

const scratch = mkdtempSync(join(tmpdir(), 'ptxconf-sass-groups-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// cuobjdump -sass FILE: a plain file's first word is its tag; a stand-in fat binary lists its images
const CUOBJDUMP = `#!/bin/sh
[ -n "$FAKE_LOG" ] && echo "call $2" >> "$FAKE_LOG"
one() { printf '\\t\\tFunction : k0\\n        /*0000*/                   ATOM.E.%s R0, [R2.64] ;\\n        /*0010*/                   EXIT ;\\n' "$(head -c 16 "$1")"; }
if [ "$(head -n 1 "$2")" = FAKEFAT ]; then
  n=0
  tail -n +2 "$2" | while read -r f; do
    n=$((n + 1))
    [ -n "$FAKE_DROP" ] && [ "$n" = "$FAKE_DROP" ] && continue
    printf 'Fatbin elf code:\\n================\\narch = sm_90\\n'; one "$f"
  done
else one "$2"; fi
`;
// fatbinary --64 --create=OUT --image3=kind=elf,sm=..,file=F ...: OUT lists the images
const FATBINARY = `#!/bin/sh
[ -n "$FAKE_FATBINARY_FAILS" ] && exit 1
out=; files=
for a in "$@"; do case "$a" in --create=*) out="\${a#--create=}";; --image3=*) files="$files \${a##*file=}";; esac; done
{ echo FAKEFAT; for f in $files; do echo "$f"; done; } > "$out"
`;

const bin = join(scratch, 'bin');
const toolchain = join(scratch, 'toolchain');
mkdirSync(bin);
mkdirSync(toolchain);
writeFileSync(join(bin, 'cuobjdump'), CUOBJDUMP);
writeFileSync(join(toolchain, 'fatbinary'), FATBINARY);
chmodSync(join(bin, 'cuobjdump'), 0o755);
chmodSync(join(toolchain, 'fatbinary'), 0o755);
const ptxasPath = join(toolchain, 'ptxas'); // only its folder is read

async function withTools<T>(env: Record<string, string>, f: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, { PATH: `${bin}:${process.env.PATH}`, ...env });
  try {
    return await f();
  } finally {
    process.env = saved;
  }
}

const cubins = ['ALPHA', 'BRAVO', 'CHARLIE', 'DELTA'].map((tag) => {
  const f = join(scratch, `${tag.toLowerCase()}.cubin`);
  writeFileSync(f, tag);
  return f;
});
const want = ['ALPHA', 'BRAVO', 'CHARLIE', 'DELTA'].map((tag) => ({ k0: `ATOM.E.${tag}` }));

describe('SASS of several cubins', () => {
  it("reads a dump's images in order, and a cubin's dump as one image", () => {
    const image = (m: string) =>
      `\t\tFunction : k1\n        /*0000*/                   @P0 RED.E.ADD.F32 [R2.64], R5 ;\n        /*0010*/                   ${m} R0, [R2.64] ;\n`;
    expect(sassOfDump(`Fatbin elf code:\n${image('ATOM.E.ADD')}\nFatbin elf code:\n${image('ATOMS.ADD')}`)).toEqual([
      { k1: 'RED.E.ADD.F32 ATOM.E.ADD' },
      { k1: 'RED.E.ADD.F32 ATOMS.ADD' },
    ]);
    expect(sassOfDump(image('ATOM.E.ADD'))).toEqual([{ k1: 'RED.E.ADD.F32 ATOM.E.ADD' }]);
  });

  it('gives each cubin its own SASS from one cuobjdump call', async () => {
    const log = join(scratch, 'one.log');
    const got = await withTools({ FAKE_LOG: log }, () => sassOfCubins(cubins, 'sm_90', ptxasPath));
    expect(got).toEqual(want);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(await withTools({}, () => Promise.all(cubins.map((c) => sassByKernel(c))))).toEqual(want);
  });

  it('reads each cubin on its own where fatbinary fails, or an image is missing from the dump', async () => {
    expect(await withTools({ FAKE_FATBINARY_FAILS: '1' }, () => sassOfCubins(cubins, 'sm_90', ptxasPath))).toEqual(want);
    expect(await withTools({ FAKE_DROP: '2' }, () => sassOfCubins(cubins, 'sm_90', ptxasPath))).toEqual(want);
  });
});
