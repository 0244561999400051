/**
 * The registry of instruction families. Adding a family: write its folder under harness/families/
 * (a FamilyDef with its tables and citations) and list it here.
 */
import type { FamilyDef, FamilyId } from '../catalog/types.js';
import { atom } from './atom/catalog.js';
import { cpReduceAsyncBulk } from './cp-reduce-async-bulk/catalog.js';
import { multimemCpReduceAsyncBulk } from './multimem-cp-reduce-async-bulk/catalog.js';
import { multimemLdReduce } from './multimem/ld_reduce.js';
import { multimemRed } from './multimem/red.js';
import { multimemSt } from './multimem/st.js';
import { red } from './red/catalog.js';

export const FAMILIES: readonly FamilyDef[] = [
  atom,
  red,
  multimemLdReduce,
  multimemSt,
  multimemRed,
  cpReduceAsyncBulk,
  multimemCpReduceAsyncBulk,
];

export function familyById(id: string): FamilyDef | undefined {
  return FAMILIES.find((f) => f.id === id);
}

export const FAMILY_IDS: readonly FamilyId[] = FAMILIES.map((f) => f.id);
