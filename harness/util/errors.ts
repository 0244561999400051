/** A problem with how the harness was called or with its input: printed as is, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
