/**
 * Where a command writes: the process's stdout and stderr (stdio.ts) or a test's capture. A module
 * of its own so that every command module can name it without importing the entry (main.ts), which
 * loads them.
 */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
  /** The terminal's width, where there is one. */
  columns?: number;
  /** True once stdout's reader has gone away (EPIPE): what must not be lost goes to `err` instead. */
  outGone?: () => boolean;
}
