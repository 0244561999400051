/**
 * The family registry (harness/registry/): handed in by the program, never imported by the core.
 * Before registration every lookup says what to do; registration checks its list; the derived
 * lists are the plugins' own rows.
 */
import { describe, expect, it, vi } from 'vitest';
import { PLUGINS } from '../../harness/families/index.js';
import { families, familyFpRules, familyIds, familyModelRules, familyPlugin, registerFamilies } from '../../harness/registry/index.js';

/** A fresh copy of the registry's modules, as a program has them before it registers anything. */
async function freshRegistry() {
  vi.resetModules();
  const index = await import('../../harness/registry/index.js');
  const gpu = await import('../../harness/registry/gpu.js');
  const multicast = await import('../../harness/registry/multicast.js');
  const litmus = await import('../../harness/registry/litmus.js');
  return { index, gpu, multicast, litmus };
}

describe('the family registry', () => {
  it('before registration, every lookup throws and names what to call', async () => {
    const r = await freshRegistry();
    expect(r.index.familiesRegistered()).toBe(false);
    const what = /no instruction family is registered.*registerAllFamilies\(\) of harness\/families\/index\.ts/;
    expect(() => r.index.families()).toThrow(what);
    expect(() => r.index.familyPlugin('atom')).toThrow(what);
    expect(() => r.index.familyFpRules()).toThrow(what);
    expect(() => r.gpu.gpuFamily('atom')).toThrow(what);
    expect(() => r.multicast.multicastFamilyIds()).toThrow(what);
    expect(() => r.litmus.litmusFamilyFor(['atom', 'add', 'u32'])).toThrow(what);
    // the catalog's parser asks when it parses, not while it loads
    const parse = await import('../../harness/catalog/parse.js');
    expect(() => parse.parseInstruction('atom.global.add.u32 d, [a], b;')).toThrow(what);
  });

  it('registers a list once per family, in its order, and refuses an empty list or a family twice', async () => {
    const r = await freshRegistry();
    expect(() => r.index.registerFamilies([])).toThrow(/empty/);
    expect(() => r.index.registerFamilies([PLUGINS[0]!, PLUGINS[0]!])).toThrow(/family 'atom' is listed twice/);
    expect(r.index.familiesRegistered()).toBe(false);
    r.index.registerFamilies([PLUGINS[1]!, PLUGINS[0]!]);
    expect(r.index.familyIds()).toEqual(['red', 'atom']);
    expect(() => r.index.familyPlugin('multimem.st')).toThrow(/unknown instruction family 'multimem.st': the registered families are red, atom/);
  });

  it('derives the rules from the registered plugins, each row once', () => {
    // registered by the tests' setup file, as the CLI entry does
    expect(families().map((f) => f.id)).toEqual(PLUGINS.map((p) => p.def.id));
    expect(familyIds()).toContain('cp.reduce.async.bulk.tensor');
    const rows = PLUGINS.flatMap((p) => p.rules);
    expect(familyFpRules().length).toBe(new Set(rows).size);
    expect(familyFpRules().length).toBeLessThan(rows.length); // atom and red share rows
    for (const r of familyModelRules()) expect(familyPlugin(r.family).modelRules).toContainEqual(expect.objectContaining({ rule: r.rule }));
    registerFamilies(PLUGINS); // the same list again changes nothing
    expect(families().length).toBe(PLUGINS.length);
  });
});
