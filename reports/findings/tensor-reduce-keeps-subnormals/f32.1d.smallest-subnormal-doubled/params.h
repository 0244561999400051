// Written by `npm run conformance -- repro`: one single-thread case, its inputs and what the PTX ISA text allows.
#pragma once
#include "driver.h"
static const char* CASE_ID = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group(f32)/probe:cp.reduce.async.bulk.tensor.1d.global.shared__cta.add.bulk_group_f32_-smallest-subnormal-doubled";
static const char* INSTRUCTION = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group(f32)";
static const char* KERNEL = "k0";
static const char* EDITION = "9.4";
static const char* OPERAND_NAME = "source";
static const char* RECORDED = "every lane allowed under PTX ISA 9.4 (verdict in the report: observed)";
enum { MODE = 0, WIDTH = 32, ELEMENTS = 4, RETURNS = 0, N_MEM_LANES = 4, N_RET_LANES = 0 };
static const unsigned char MEMORY[16] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0x7f, 0x00, 0x00, 0x00, 0x80, 0x00, 0xff, 0xff, 0x7f, 0x7f};
static const unsigned char B[16] = {0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x80, 0xff, 0xff, 0x7f, 0x7f};
static const unsigned char C[16] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const Lane MEM_LANES[4] = {
  {0, 4, 0, 32, 8, 23, 0, 2, 0, "0x00000002 or 0x00000000"},
  {4, 4, 0, 32, 8, 23, 2, 2, 0, "0x00800000 or 0x00000000"},
  {8, 4, 0, 32, 8, 23, 4, 2, 0, "0x007fffff or 0x00800000"},
  {12, 4, 0, 32, 8, 23, 6, 1, 0, "0x7f800000"}
};
static const uint64_t MEM_LANES_ALLOWED[7] = {0x2ull, 0x0ull, 0x800000ull, 0x0ull, 0x7fffffull, 0x800000ull, 0x7f800000ull};
static const Lane RET_LANES[1] = {
  {0, 0, 0, 0, 0, 0, 0, 0, 0, ""}
};
static const uint64_t RET_LANES_ALLOWED[1] = {0};
enum { GRID_X = 1, CLUSTER_X = 1, TENSOR_RANK = 1, TENSOR_DATA_TYPE = 7, N_SUB_LANES = 3 };
// the tiled tensor map (cuTensorMapEncodeTiled) over the memory: dims, byte strides (one fewer), box, element strides
static const unsigned long long TENSOR_DIMS[5] = {4, 0, 0, 0, 0};
static const unsigned long long TENSOR_STRIDES[5] = {0, 0, 0, 0, 0};
static const unsigned TENSOR_BOX[5] = {4, 0, 0, 0, 0};
static const unsigned TENSOR_ESTRIDES[5] = {1, 0, 0, 0, 0};
static const char* RECORDED_SUBNORMALS = "kept";
static const SubLane SUB_LANES[3] = {
  {0, 4, 0, 32, 0x2ull, 0x0ull},
  {4, 4, 0, 32, 0x800000ull, 0x0ull},
  {8, 4, 0, 32, 0x7fffffull, 0x800000ull}
};
