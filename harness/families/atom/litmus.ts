/** atom in the litmus language (docs/litmus.md): one read-modify-write returning the old value (9.7.13.5). */
import type { LitmusFamily } from '../../registry/litmus-family.js';
import { atomicRmwLitmus } from '../shared/litmus.js';

export const atomLitmus: LitmusFamily = { family: 'atom', mnemonic: ['atom'], lower: atomicRmwLitmus('atom', false) };
