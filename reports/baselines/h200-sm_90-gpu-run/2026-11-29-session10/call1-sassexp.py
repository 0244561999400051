import subprocess, struct, hashlib, time, re, os, sys, resource, json
from concurrent.futures import ThreadPoolExecutor
OUT = os.environ.get('OUT', '/tmp/out')
W = '/tmp/x'
os.makedirs(W, exist_ok=True)
subprocess.run(['tar', 'xJf', os.path.join(os.path.dirname(__file__), 'mods.tar.xz'), '-C', W], check=True)
mods = sorted([f[:-4] for f in os.listdir(W) if f.endswith('.ptx')], key=lambda s: int(s[1:]))
log = open(os.path.join(OUT, 'sassexp.txt'), 'w')
def p(*a):
    s = ' '.join(str(x) for x in a); print(s); log.write(s + '\n'); log.flush()
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
def par(cmds, n=16):
    t = time.time(); c = cpu()
    with ThreadPoolExecutor(n) as ex:
        outs = list(ex.map(lambda a: subprocess.run(a, capture_output=True, text=True), cmds))
    return outs, time.time() - t, cpu() - c
outs, w, c = par([['ptxas', '-arch', 'sm_90', f'{W}/{m}.ptx', '-o', f'{W}/{m}.cubin'] for m in mods])
p('ptxas all', len(mods), f'wall {w:.2f} cpu {c:.1f}', [o.returncode for o in outs if o.returncode])
open(os.path.join(OUT, 'nvdisasm-help.txt'), 'w').write(subprocess.run(['nvdisasm', '--help'], capture_output=True, text=True).stdout)
MN = re.compile(r'/\*([0-9a-f]+)\*/\s+(?:@!?U?P\d+\s+)?([A-Z][A-Z0-9_.]*)')
KEEP = re.compile(r'^(ATOM|RED|UBLKRED|SYNCS|UBLKCP|UTMA)')
def elf_mn(text):
    out = {}; cur = ''
    for line in text.split('\n'):
        f = re.search(r'Function : (\S+)', line) or re.match(r'^\s*\.text\.([A-Za-z_$][\w$]*):\s*$', line)
        if f: cur = f.group(1); out.setdefault(cur, []); continue
        m = MN.search(line)
        if cur and m and KEEP.match(m.group(2)):
            if m.group(2) not in out[cur]: out[cur].append(m.group(2))
    return {k: ' '.join(v) for k, v in out.items()}
def texts(fn):
    d = open(fn, 'rb').read()
    shoff = struct.unpack_from('<Q', d, 0x28)[0]; shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    secs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    so = secs[shstrndx][4]
    name = lambda o: d[so + o:d.index(b'\0', so + o)].decode()
    return {name(s[0])[6:]: d[s[4]:s[4] + s[5]] for s in secs if name(s[0]).startswith('.text.')}
for args in (['-c', '-ndf'],):
    outs, w, c = par([['nvdisasm', *args, f'{W}/{m}.cubin'] for m in mods])
    p('elf', args, f'wall {w:.2f} cpu {c:.1f}', [o.returncode for o in outs if o.returncode])
elf = {}
for m, o in zip(mods, outs):
    for k, v in elf_mn(o.stdout).items(): elf[(m, k)] = v
p('elf kernels', len(elf))
open(os.path.join(OUT, 'elf-sample.txt'), 'w').write(outs[0].stdout[:20000])
T = {m: texts(f'{W}/{m}.cubin') for m in mods}
p('kernels with text', sum(len(t) for t in T.values()))
def raw_file(path, items):
    ranges = []; off = 0
    with open(path, 'wb') as f:
        for key, b in items:
            ranges.append((off, off + len(b), key)); f.write(b); off += len(b)
    return ranges
def raw_mn(text, ranges):
    out = {r[2]: [] for r in ranges}; starts = [r[0] for r in ranges]
    import bisect
    for line in text.split('\n'):
        m = MN.search(line)
        if not m: continue
        a = int(m.group(1), 16); i = bisect.bisect_right(starts, a) - 1
        if i < 0 or a >= ranges[i][1]: continue
        if KEEP.match(m.group(2)):
            l = out[ranges[i][2]]
            if m.group(2) not in l: l.append(m.group(2))
    return {k: ' '.join(v) for k, v in out.items()}
# raw, every kernel of each module
for args in (['-b', 'SM90'], ['-b', 'SM90', '-ndf']):
    rs = {m: raw_file(f'{W}/{m}.raw', [((m, k), b) for k, b in T[m].items()]) for m in mods}
    outs, w, c = par([['nvdisasm', *args, f'{W}/{m}.raw'] for m in mods])
    p('raw per module', args, f'wall {w:.2f} cpu {c:.1f}', [(o.returncode, o.stderr[:300]) for o in outs if o.returncode][:2])
    if args[-1] == 'SM90': open(os.path.join(OUT, 'raw-sample.txt'), 'w').write(outs[0].stdout[:20000])
    bad = 0; ex = []
    for m, o in zip(mods, outs):
        for k, v in raw_mn(o.stdout, rs[m]).items():
            if elf.get(k) != v: bad += 1; ex.append((k, elf.get(k), v))
    p('  mismatches vs elf', bad, ex[:5])
# unique texts across the run
u = {}
for m in mods:
    for k, b in T[m].items():
        u.setdefault(hashlib.sha256(b).digest(), (k, b))
uniq = list(u.values())
p('unique texts', len(uniq), sum(len(b) for _, b in uniq), 'bytes')
for n in (1, 4, 16, 32):
    chunks = [uniq[i::n] for i in range(n)]
    rs = [raw_file(f'{W}/u{n}-{i}.raw', ch) for i, ch in enumerate(chunks)]
    outs, w, c = par([['nvdisasm', '-b', 'SM90', '-ndf', f'{W}/u{n}-{i}.raw'] for i in range(n)])
    got = {}
    for o, r in zip(outs, rs): got.update(raw_mn(o.stdout, r))
    bad = 0
    for m in mods:
        for k, b in T[m].items():
            rep = u[hashlib.sha256(b).digest()][0]
            if got.get(rep) != elf.get((m, k)): bad += 1
    p('unique raw in', n, 'chunks', f'wall {w:.2f} cpu {c:.1f}', 'mismatches vs elf', bad, [(o.returncode, o.stderr[:200]) for o in outs if o.returncode][:1])
