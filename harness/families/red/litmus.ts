/** red in the litmus language (docs/litmus.md): a reduction, whose read forms no acquire pattern (8.11.1). */
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { atomicRmwLitmus } from '../shared/litmus.js';

export const redLitmus: LitmusFamily = { family: 'red', mnemonic: ['red'], lower: atomicRmwLitmus('red', true) };
