/**
 * cp.reduce.async.bulk.tensor on one GPU: one tensor map per launch over the launch's destination
 * slots (encoded by the executor, element type from the variant's descriptor slot; see
 * tensorMapGeometry and encodeTensorMap in backends/gpu/family.ts), read by the kernel from global
 * memory through the `pc` parameter. Thread i stages its case's 16-byte source in its own
 * 128-byte-aligned shared slot, fences the async proxy, reduces it into the box at tensorCoords(i)
 * and waits for its bulk async-group.
 *
 * Tile mode (omitted or .tile): a tiled map (cuTensorMapEncodeTiled), box {E, 1, ...}.
 *
 * .im2col_no_offs (3d-5d): an im2col map (cuTensorMapEncodeIm2col) over the same memory read as an
 * NWC / NHWC / NDHWC tensor (5.5.4 im2col mode: "3D | NWC", "4D | NHWC", "5D | NDHWC"): C = the E
 * elements of a slot, W, H, D of 2 each, N the rest; Channels-per-Pixel E, Pixels-per-Column 1, the
 * bounding box the whole DHW extent. The coordinates are the tile form's, (0, w, h, d, n): "Across N
 * and C dimensions: specify the starting offsets along the dimension, similar to the tiled mode.
 * Across DHW dimensions: specify the location of the convolution filter base in the tensor space"
 * (5.5.4.1 Bounding Box), and .im2col_no_offs adds no im2col offsets ("im2colInfo is not
 * applicable", 9.7.10.28.5.3). So the box of case i is the one pixel (w, h, d, n) of slot i, its
 * channels 0..E-1 ("Pixels-per-Column specifies the number of elements to be accessed in the NDHW
 * space. Channels-per-Pixel specifies the number of elements to access across the C dimension."):
 * im2col.ts computes which elements an im2col box covers, and tests hold that to slot i.
 * .im2col_no_offs::w (sm_107f) needs cuTensorMapEncodeIm2colWide, which this executor does not build.
 */
import { BLOCK, CASE_INDEX, type GpuFamily, KERNEL_PARAMS, type KernelShape, SLOT } from '../../backends/gpu/family.js';
import { TENSOR_MAP_TYPE } from '../../backends/gpu/driver.js';
import type { CatalogEntry } from '../../catalog/enumerate.js';
import { elementType } from '../../catalog/elements.js';

/** The CUtensorMapDataType of each element type the table names (.b32/.b64 as unsigned maps). */
export const TENSOR_MAP_DATA_TYPE: Readonly<Record<string, number>> = {
  u32: TENSOR_MAP_TYPE.UINT32,
  b32: TENSOR_MAP_TYPE.UINT32,
  s32: TENSOR_MAP_TYPE.INT32,
  u64: TENSOR_MAP_TYPE.UINT64,
  b64: TENSOR_MAP_TYPE.UINT64,
  s64: TENSOR_MAP_TYPE.INT64,
  f32: TENSOR_MAP_TYPE.FLOAT32,
  f16: TENSOR_MAP_TYPE.FLOAT16,
  bf16: TENSOR_MAP_TYPE.BFLOAT16,
};

/** Shared-memory source slot per thread: 128 bytes apart (the box is 16 bytes). */
const SRC_SLOT = 128;

const rankOf = (e: CatalogEntry) => Number((e.q.dim ?? '1d').replace('d', ''));

function kernel(name: string, e: CatalogEntry, k: KernelShape): string {
  const rank = rankOf(e);
  const hint = (e.q.hint ?? '') !== '';
  // coordinates of case i (%s3): rank 1: i * E; else (0, bit 0, ..., bit d-3, i >> (d-2))
  const coords: string[] = [];
  const lines: string[] = [];
  if (rank === 1) {
    lines.push(`  mul.lo.u32 %c0, %s3, ${k.elements};`);
    coords.push('%c0');
  } else {
    lines.push('  mov.u32 %c0, 0;');
    coords.push('%c0');
    for (let d = 1; d <= rank - 2; d++) {
      lines.push(`  shr.u32 %c${d}, %s3, ${d - 1};`, `  and.b32 %c${d}, %c${d}, 1;`);
      coords.push(`%c${d}`);
    }
    lines.push(`  shr.u32 %c${rank - 1}, %s3, ${rank - 2};`);
    coords.push(`%c${rank - 1}`);
  }
  return [
    `.visible .entry ${name}${KERNEL_PARAMS}`,
    '{',
    `  .shared .align 128 .b8 ssrc[${BLOCK * SRC_SLOT}];`,
    '  .reg .b64 %a<12>, %pol;',
    '  .reg .b32 %s<8>, %c<5>;',
    '  .reg .pred %p;',
    '  ld.param.u64 %a1, [pb];',
    '  ld.param.u64 %a2, [pc];',
    '  ld.param.u64 %a4, [pn];',
    ...CASE_INDEX,
    '  add.u64 %a8, %a1, %a6;',
    '  mov.u32 %s4, ssrc;',
    `  mad.lo.u32 %s4, %s2, ${SRC_SLOT}, %s4;`,
    '  ld.global.v2.b64 {%a9, %a10}, [%a8];',
    '  st.shared.v2.b64 [%s4], {%a9, %a10};',
    ...lines,
    ...(hint ? ['  createpolicy.fractional.L2::evict_last.b64 %pol, 1.0;'] : []),
    '  fence.proxy.async.shared::cta;',
    `  ${e.ptx} [%a2, {${coords.join(', ')}}], [%s4]${hint ? ', %pol' : ''};`,
    '  cp.async.bulk.commit_group;',
    '  cp.async.bulk.wait_group 0;',
    'DONE:',
    '  ret;',
    '}',
  ].join('\n');
}

export const tensorGpu: GpuFamily = {
  unsupported: (e) => {
    const mode = e.q.load_mode ?? '';
    if (mode !== '' && mode !== 'tile' && mode !== 'im2col_no_offs')
      return `the gpu executor builds tiled (cuTensorMapEncodeTiled) and im2col (cuTensorMapEncodeIm2col) tensor maps; .${mode} needs cuTensorMapEncodeIm2colWide`;
    if (mode === 'im2col_no_offs' && (rankOf(e) < 3 || rankOf(e) > 5))
      return `an im2col tensor map is 3D-5D (5.5.4 im2col mode: "Im2col mode supports the following tensor dimensions : 3D, 4D and 5D"), not .${e.q.dim}`;
    if ((e.q.override_addr ?? '') !== '' || (e.q.override_attr ?? '') !== '') return 'the gpu executor does not pass override operands';
    if (TENSOR_MAP_DATA_TYPE[e.q.type ?? ''] === undefined) return `no tensor map element type for .${e.q.type}`;
    return undefined;
  },
  shape: (e): KernelShape => {
    const width = elementType(e.q.type ?? '').bits;
    const im2col = e.q.load_mode === 'im2col_no_offs';
    return {
      width,
      elements: (SLOT * 8) / width,
      returns: false,
      clustered: false,
      generic: false,
      tensorMap: { dataType: TENSOR_MAP_DATA_TYPE[e.q.type ?? '']!, rank: rankOf(e), ...(im2col ? { im2col } : {}) },
    };
  },
  kernel: (name, e, k) => kernel(name, e, k),
  caseUnfit: (c, k) => {
    const n = c.memory?.length ?? 0;
    if (n !== k.elements || (c.source?.length ?? 0) !== n) {
      return `the gpu executor reduces one 16-byte box per case (${k.elements} elements of ${k.width} bits); this case has ${n} destination and ${c.source?.length ?? 0} source elements`;
    }
    return undefined;
  },
};
