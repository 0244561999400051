/** atom on one GPU: the shared atom/red kernel; the old value comes back in d unless d is the bit bucket `_`. */
import { rmwGpu } from '../shared/rmw-gpu.js';

export const atomGpu = rmwGpu((e) => (e.q.d ?? '') !== '_');
