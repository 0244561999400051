/**
 * Which elements an im2col box covers (PTX ISA 5.5.4 im2col mode, with 5.5.4.1 and 5.5.4.2),
 * for the `.im2col_no_offs` forms of cp.reduce.async.bulk.tensor: the tensor is NWC, NHWC or NDHWC
 * ("3D | NWC", "4D | NHWC", "5D | NDHWC"), dims and coordinates innermost first (C, W, H, D, N).
 *
 * - "Across N and C dimensions: specify the starting offsets along the dimension, similar to the
 *   tiled mode": channels c0 .. c0 + Channels-per-Pixel - 1 of each pixel.
 * - "Across DHW dimensions: specify the location of the convolution filter base in the tensor space.
 *   The filter corner location must be within the bounding box."
 * - `.im2col_no_offs`: "im2colInfo is not applicable" (no offsets are added to the filter base).
 * - "Pixels-per-Column specifies the number of elements to be accessed in the NDHW space."
 *
 * The executor runs one pixel per column (Pixels-per-Column 1: the box is the filter-base pixel's
 * channels); for more pixels this walks W first, then H, D and N, inside the bounding box, which is
 * this module's reading of "number of elements to be accessed in the NDHW space" and is not checked
 * on hardware (the executor never asks for it).
 */

export interface Im2colMap {
  /** Tensor dims, innermost first: C, W[, H[, D]], N (rank 3-5). */
  readonly dims: readonly bigint[];
  /** Byte strides of dims 1.. (rank - 1 of them). */
  readonly strides: readonly bigint[];
  readonly elementBytes: number;
  /** Bounding-box corner offsets per DHW dimension, innermost (W) first: lower from the first pixel, upper from the last (cuTensorMapEncodeIm2col). */
  readonly lower: readonly number[];
  readonly upper: readonly number[];
  readonly channelsPerPixel: number;
  readonly pixelsPerColumn: number;
}

/**
 * Byte offsets (from the tensor's base) of the elements the box at `coords` (C, W, H, D, N order)
 * covers, in the order the box holds them (pixel by pixel, channels within a pixel); throws where
 * the text makes the access invalid (rank, a filter base outside the bounding box, a channel past C).
 */
export function im2colBoxOffsets(m: Im2colMap, coords: readonly number[]): number[] {
  const rank = m.dims.length;
  if (rank < 3 || rank > 5) throw new Error(`im2col mode supports 3D, 4D and 5D tensors (5.5.4), not ${rank}D`);
  if (coords.length !== rank || m.strides.length !== rank - 1 || m.lower.length !== rank - 2 || m.upper.length !== rank - 2)
    throw new Error('an im2col box needs a coordinate per dim, a stride per dim past C and a corner per DHW dim');
  const spatial = rank - 2;
  const lo = (k: number) => m.lower[k]!;
  const hi = (k: number) => Number(m.dims[k + 1]!) - 1 + m.upper[k]!;
  const pos = coords.slice(1, 1 + spatial);
  for (let k = 0; k < spatial; k++)
    if (pos[k]! < lo(k) || pos[k]! > hi(k))
      throw new Error(
        `the filter base ${pos.join(',')} is outside the bounding box in DHW dimension ${k} ([${lo(k)}, ${hi(k)}]): "The filter corner location must be within the bounding box."`,
      );
  let n = coords[rank - 1]!;
  const c0 = coords[0]!;
  if (c0 < 0 || c0 + m.channelsPerPixel > Number(m.dims[0]!)) throw new Error(`channels ${c0}..${c0 + m.channelsPerPixel - 1} are past C = ${m.dims[0]}`);
  const out: number[] = [];
  for (let p = 0; p < m.pixelsPerColumn; p++) {
    const base = pos.reduce((a, x, k) => a + x * Number(m.strides[k]!), 0) + n * Number(m.strides[rank - 2]!);
    for (let ch = 0; ch < m.channelsPerPixel; ch++) out.push(base + (c0 + ch) * m.elementBytes);
    // the next pixel: W first, then H, D, wrapping inside the bounding box, then the next image
    let k = 0;
    for (; k < spatial; k++) {
      if (pos[k]! < hi(k)) {
        pos[k]!++;
        break;
      }
      pos[k] = lo(k);
    }
    if (k === spatial) n++;
  }
  return out;
}
