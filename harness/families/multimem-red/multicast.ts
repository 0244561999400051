/** multimem.red on the multicast executor: b reduced into every replica, each on its own. */
import type { MulticastFamily } from '../../backends/multicast/family.js';

export const redMulticast: MulticastFamily = {
  takesB: true,
  returns: false,
  line: (ptx, regs, addr) => `${ptx} [${addr}], ${regs};`,
  simulate(v, sw, slot) {
    for (let r = 0; r < slot.replicas; r++) for (let i = 0; i < slot.elements; i++) slot.setReplica(r, i, sw.apply(v, slot.replica(r, i), slot.b(i)));
  },
};
