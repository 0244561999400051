/** multimem.red on the multicast executor: b reduced into every replica, each on its own. */
import { type MulticastFamily, reduceIntoEachReplica } from '../../backends/multicast/family.js';

export const redMulticast: MulticastFamily = {
  takesB: true,
  returns: false,
  line: (ptx, regs, addr) => `${ptx} [${addr}], ${regs};`,
  simulate: reduceIntoEachReplica,
};
