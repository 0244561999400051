/** Writes the GPU module of every planned kernel (harness/backends/gpu/plan.ts) to the given path. */
import { writeFileSync } from 'node:fs';
import { gpuModule } from '../../harness/backends/gpu/emit.js';
import { gpuPlans } from '../../harness/backends/gpu/plan.js';

const { plans, skipped } = gpuPlans();
writeFileSync(process.argv[2]!, gpuModule(plans, 'sm_90', '9.0'));
console.log(`${plans.length} kernels written, ${skipped.length} variants skipped (${skipped[0]?.reason ?? ''})`);
