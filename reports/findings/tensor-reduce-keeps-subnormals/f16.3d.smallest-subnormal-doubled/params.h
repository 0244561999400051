// Written by `npm run conformance -- repro`: one single-thread case, its inputs and what the PTX ISA text allows.
#pragma once
#include "driver.h"
static const char* CASE_ID = "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.bulk_group(f16)/probe:cp.reduce.async.bulk.tensor.3d.global.shared__cta.add.bulk_group_f16_-smallest-subnormal-doubled";
static const char* INSTRUCTION = "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.bulk_group(f16)";
static const char* KERNEL = "k0";
static const char* EDITION = "9.4";
static const char* OPERAND_NAME = "source";
static const char* RECORDED = "every lane allowed under PTX ISA 9.4 (verdict in the report: observed)";
enum { MODE = 0, WIDTH = 16, ELEMENTS = 8, RETURNS = 0, N_MEM_LANES = 8, N_RET_LANES = 0 };
static const unsigned char MEMORY[16] = {0x01, 0x00, 0xff, 0x03, 0x00, 0x04, 0xff, 0x7b, 0xff, 0xfb, 0x00, 0x7c, 0x00, 0x7c, 0x00, 0x7e};
static const unsigned char B[16] = {0x01, 0x00, 0x01, 0x00, 0x01, 0x80, 0xff, 0x7b, 0xff, 0xfb, 0x00, 0xfc, 0x00, 0x3c, 0x00, 0x3c};
static const unsigned char C[16] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const Lane MEM_LANES[8] = {
  {0, 2, 0, 16, 5, 10, 0, 2, 0, "0x0002 or 0x0000"},
  {2, 2, 0, 16, 5, 10, 2, 2, 0, "0x0400 or 0x0000"},
  {4, 2, 0, 16, 5, 10, 4, 2, 0, "0x03ff or 0x0400"},
  {6, 2, 0, 16, 5, 10, 6, 1, 0, "0x7c00"},
  {8, 2, 0, 16, 5, 10, 7, 1, 0, "0xfc00"},
  {10, 2, 0, 16, 5, 10, 8, 0, 1, "any NaN"},
  {12, 2, 0, 16, 5, 10, 8, 1, 0, "0x7c00"},
  {14, 2, 0, 16, 5, 10, 9, 0, 1, "any NaN"}
};
static const uint64_t MEM_LANES_ALLOWED[9] = {0x2ull, 0x0ull, 0x400ull, 0x0ull, 0x3ffull, 0x400ull, 0x7c00ull, 0xfc00ull, 0x7c00ull};
static const Lane RET_LANES[1] = {
  {0, 0, 0, 0, 0, 0, 0, 0, 0, ""}
};
static const uint64_t RET_LANES_ALLOWED[1] = {0};
enum { GRID_X = 1, CLUSTER_X = 1, TENSOR_RANK = 3, TENSOR_DATA_TYPE = 6, N_SUB_LANES = 3 };
// the tiled tensor map (cuTensorMapEncodeTiled) over the memory: dims, byte strides (one fewer), box, element strides
static const unsigned long long TENSOR_DIMS[5] = {8, 2, 1, 0, 0};
static const unsigned long long TENSOR_STRIDES[5] = {16, 32, 0, 0, 0};
static const unsigned TENSOR_BOX[5] = {8, 1, 1, 0, 0};
static const unsigned TENSOR_ESTRIDES[5] = {1, 1, 1, 0, 0};
static const char* RECORDED_SUBNORMALS = "kept";
static const SubLane SUB_LANES[3] = {
  {0, 2, 0, 16, 0x2ull, 0x0ull},
  {2, 2, 0, 16, 0x400ull, 0x0ull},
  {4, 2, 0, 16, 0x3ffull, 0x400ull}
};
