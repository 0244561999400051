// Written by `npm run conformance -- repro`: one single-thread case, its inputs and what the PTX ISA text allows.
#pragma once
#include "driver.h"
static const char* CASE_ID = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group(u32)/probe:cp.reduce.async.bulk.tensor.1d.global.shared__cta.add.bulk_group_u32_-wrap-around";
static const char* INSTRUCTION = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group(u32)";
static const char* KERNEL = "k0";
static const char* EDITION = "9.4";
static const char* OPERAND_NAME = "source";
static const char* RECORDED = "every lane allowed under PTX ISA 9.4 (verdict in the report: pass)";
enum { MODE = 0, WIDTH = 32, ELEMENTS = 4, RETURNS = 0, N_MEM_LANES = 4, N_RET_LANES = 0 };
static const unsigned char MEMORY[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00};
static const unsigned char B[16] = {0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00};
static const unsigned char C[16] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const Lane MEM_LANES[4] = {
  {0, 4, 0, 32, 0, 0, 0, 1, 0, "0x00000000"},
  {4, 4, 0, 32, 0, 0, 1, 1, 0, "0x80000000"},
  {8, 4, 0, 32, 0, 0, 2, 1, 0, "0x00000000"},
  {12, 4, 0, 32, 0, 0, 3, 1, 0, "0x00000000"}
};
static const uint64_t MEM_LANES_ALLOWED[4] = {0x0ull, 0x80000000ull, 0x0ull, 0x0ull};
static const Lane RET_LANES[1] = {
  {0, 0, 0, 0, 0, 0, 0, 0, 0, ""}
};
static const uint64_t RET_LANES_ALLOWED[1] = {0};
enum { GRID_X = 1, CLUSTER_X = 1, TENSOR_RANK = 1, TENSOR_DATA_TYPE = 2, N_SUB_LANES = 0 };
// the tiled tensor map (cuTensorMapEncodeTiled) over the memory: dims, byte strides (one fewer), box, element strides
static const unsigned long long TENSOR_DIMS[5] = {4, 0, 0, 0, 0};
static const unsigned long long TENSOR_STRIDES[5] = {0, 0, 0, 0, 0};
static const unsigned TENSOR_BOX[5] = {4, 0, 0, 0, 0};
static const unsigned TENSOR_ESTRIDES[5] = {1, 0, 0, 0, 0};
static const char* RECORDED_SUBNORMALS = "";
static const SubLane SUB_LANES[1] = {{0, 0, 0, 0, 0, 0}};
