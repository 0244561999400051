/** red on one GPU: the shared atom/red kernel; red returns nothing. */
import { rmwGpu } from '../shared/rmw-gpu.js';

export const redGpu = rmwGpu(() => false);
