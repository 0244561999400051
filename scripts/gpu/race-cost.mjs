// Why the gpu backend waits on its batches with one Promise.all: racing the set of in-flight batches
// again after each completion keeps a reaction per pending batch per race (O(n^2) for n batches).
// `node scripts/gpu/race-cost.mjs` prints the parent's CPU time both ways for 8,700 batches
// completing one at a time (the --generated 100000 run): race ~34 s, all ~0.2 s on the dev machine.
// parent-side cost of waiting on N in-flight batches: race a shrinking Set after each completion vs Promise.all once
for (const mode of ['race', 'all']) {
  const N = 8700;
  const set = new Set();
  const resolvers = [];
  for (let i = 0; i < N; i++) { let r; const p = new Promise((res) => (r = res)); resolvers.push(r); set.add(p); p.then(() => set.delete(p)); }
  let k = 0;
  const tick = setInterval(() => { if (k < N) resolvers[k++](); if (k >= N) clearInterval(tick); }, 0);
  const t0 = process.cpuUsage();
  const w0 = performance.now();
  if (mode === 'race') { while (set.size) await Promise.race(set); } else await Promise.all([...set]);
  const u = process.cpuUsage(t0);
  console.log(mode, 'wall', ((performance.now() - w0) / 1000).toFixed(2), 's, parent CPU', ((u.user + u.system) / 1e6).toFixed(2), 's');
}
