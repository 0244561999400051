/**
 * Every test file runs with this (vitest.config.ts, setupFiles). Many tests here are long and
 * synchronous (whole-catalog enumerations, millions of reference vectors). Vitest runs one file's
 * tests back to back on promise microtasks only, so a file of synchronous tests holds its worker's
 * event loop for the whole file; the worker's reports to the main process then wait unanswered and
 * vitest 3 gives up after 60 s with "[vitest-worker]: Timeout calling onTaskUpdate", failing the
 * run although every test passed. Turning the event loop once after each test lets those replies in.
 */
import { afterEach } from 'vitest';

afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
