/**
 * The `--list` program of scripts/conformance.cjs: a bundle of its own (list.cjs, one CommonJS file of the
 * catalog's code), which answers a `--list` of the catalog and returns undefined for anything else
 * (a subcommand, --vectors, --help, a usage error), which the launcher then gives the whole CLI.
 * What it prints is main.ts's answer: the same list.ts.
 */
import { registerAllFamilies } from '../families/index.js';
import { answerList } from './list.js';
import { stdio } from './stdio.js';

export function runList(argv: readonly string[]): number | undefined {
  registerAllFamilies(); // as main() does first
  return answerList(argv, stdio) as number | undefined; // (no --vectors here: a number, or undefined)
}
