// Written by `npm run conformance -- repro`: one single-thread case, its inputs and what the PTX ISA text allows.
#pragma once
#include "driver.h"
static const char* CASE_ID = "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32/probe:cp.reduce.async.bulk.global.shared__cta.bulk_group.add.f32-normal-to-subnormal";
static const char* INSTRUCTION = "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32";
static const char* KERNEL = "k0";
static const char* EDITION = "9.1";
static const char* OPERAND_NAME = "source";
static const char* RECORDED = "1 lane(s) outside the allowed set under PTX ISA 9.1 (verdict in the report: known-deviation)";
enum { MODE = 0, WIDTH = 32, ELEMENTS = 4, RETURNS = 0, N_MEM_LANES = 4, N_RET_LANES = 0 };
static const unsigned char MEMORY[16] = {0x00, 0x00, 0x80, 0x00, 0xff, 0xff, 0x7f, 0x7f, 0xff, 0xff, 0x7f, 0xff, 0x00, 0x00, 0x80, 0x7f};
static const unsigned char B[16] = {0x01, 0x00, 0x00, 0x80, 0xff, 0xff, 0x7f, 0x7f, 0xff, 0xff, 0x7f, 0xff, 0x00, 0x00, 0x80, 0xff};
static const unsigned char C[16] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const Lane MEM_LANES[4] = {
  {0, 4, 0, 32, 8, 23, 0, 1, 0, "0x00800000"},
  {4, 4, 0, 32, 8, 23, 1, 1, 0, "0x7f800000"},
  {8, 4, 0, 32, 8, 23, 2, 1, 0, "0xff800000"},
  {12, 4, 0, 32, 8, 23, 3, 0, 1, "any NaN"}
};
static const uint64_t MEM_LANES_ALLOWED[3] = {0x800000ull, 0x7f800000ull, 0xff800000ull};
static const Lane RET_LANES[1] = {
  {0, 0, 0, 0, 0, 0, 0, 0, 0, ""}
};
static const uint64_t RET_LANES_ALLOWED[1] = {0};
