// Written by `npm run conformance -- repro`: one single-thread case, its inputs and what the PTX ISA text allows.
#pragma once
#include "driver.h"
static const char* CASE_ID = "atom.global.add.f32/probe:atom.global.add.f32-smallest-subnormal-doubled";
static const char* INSTRUCTION = "atom.global.add.f32";
static const char* KERNEL = "k0";
static const char* EDITION = "9.4";
static const char* OPERAND_NAME = "b";
static const char* RECORDED = "every lane allowed under PTX ISA 9.4 (verdict in the report: pass)";
enum { MODE = 0, WIDTH = 32, ELEMENTS = 1, RETURNS = 1, N_MEM_LANES = 1, N_RET_LANES = 1 };
static const unsigned char MEMORY[16] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const unsigned char B[16] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const unsigned char C[16] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
static const Lane MEM_LANES[1] = {
  {0, 4, 0, 32, 8, 23, 0, 1, 0, "0x00000000"}
};
static const uint64_t MEM_LANES_ALLOWED[1] = {0x0ull};
static const Lane RET_LANES[1] = {
  {0, 4, 0, 32, 8, 23, 0, 1, 0, "0x00000001"}
};
static const uint64_t RET_LANES_ALLOWED[1] = {0x1ull};
