/** A catalog entry for the stand-in ptxas (tests/fixtures/fake-ptxas.sh): its instruction line is `ptx`, which holds the stand-in's word (REJECT_ME, CRASH_HERE, ...). */
import type { CatalogEntry } from '../../harness/catalog/enumerate.js';

export function stubEntry(id: string, ptx: string): CatalogEntry {
  return {
    id,
    family: 'red',
    ptx,
    q: { type: 'b32' },
    effective: {},
    kind: 'variant',
    status: 'valid',
    operands: ['a'],
    violations: [],
    ambiguities: [],
    permits: [],
    requirements: [],
    minPtx: '9.0',
    expect: 'accept',
    reason: 'test',
  };
}
