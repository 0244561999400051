/**
 * Bits as the project writes them: `0x` and lowercase hex digits, padded to the width of the format
 * (`bits` / 4 digits, rounded up; 0: no padding). The one definition every report, reproducer and
 * judge uses.
 */
export function hexBits(bits: number, v: bigint | number): string {
  return `0x${hexDigits(bits, v)}`;
}

/** The same without `0x`. */
export function hexDigits(bits: number, v: bigint | number): string {
  return v.toString(16).padStart(Math.ceil(bits / 4), '0');
}
