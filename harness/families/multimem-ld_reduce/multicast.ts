/** multimem.ld_reduce on the multicast executor: the reduction over the replicas, returned to the issuing thread. */
import type { MulticastFamily } from '../../backends/multicast/family.js';

export const ldReduceMulticast: MulticastFamily = {
  takesB: false,
  returns: true,
  line: (ptx, regs, addr) => `${ptx} ${regs}, [${addr}];`,
  simulate(v, sw, slot) {
    for (let i = 0; i < slot.elements; i++) {
      slot.setOut(
        i,
        sw.reduce(
          v,
          Array.from({ length: slot.replicas }, (_, r) => slot.replica(r, i)),
        ),
      );
    }
  },
};
