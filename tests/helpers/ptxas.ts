/** Finds ptxas for tests that need it, or says why they are skipped. */
import { type Ptxas, ToolchainError, probePtxas } from '../../harness/backends/ptxas/toolchain.js';

let found: Ptxas | string | undefined;

export async function ptxasOrReason(): Promise<Ptxas | string> {
  if (found !== undefined) return found;
  try {
    found = await probePtxas();
  } catch (e) {
    if (!(e instanceof ToolchainError)) throw e;
    found = e.message;
  }
  if (typeof found === 'string') console.warn(`[skip] ptxas tests skipped: ${found}`);
  return found;
}
