/** multimem.st on the multicast executor: b stored to every replica. */
import type { MulticastFamily } from '../../backends/multicast/family.js';

export const stMulticast: MulticastFamily = {
  takesB: true,
  returns: false,
  line: (ptx, regs, addr) => `${ptx} [${addr}], ${regs};`,
  simulate(_v, _sw, slot) {
    for (let r = 0; r < slot.replicas; r++) for (let i = 0; i < slot.elements; i++) slot.setReplica(r, i, slot.b(i));
  },
};
