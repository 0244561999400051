// Written by `npm run conformance -- repro`: one cell (or a sub-range of it) of an exhaustive sweep, the launch and the model's results (expected.bin).
#pragma once
#include <cstdint>
static const char* CELL_ID = "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32/sweep-b=0x00000001:cell=0x0000";
static const char* INSTRUCTION = "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32";
static const char* KERNEL = "s_1f31ed6e";
static const char* EDITION = "9.1";
static const char* RECORDED = "the cell's 65536 pairs: 65536 mismatching, 0 NaN results where the model allows any NaN; this folder holds 4096 of them (pairs 0x00000000-0x00000fff), with 10 mismatching pair(s) the report kept whole";
#include "driver.h"
// DOMAIN 0: every 16-bit a x every 16-bit b (p -> a = p>>24<<8 | p>>8&0xff, b = (p>>16&0xff)<<8 | p&0xff); 1: 32-bit x against VAL (MODE bit 1: VAL is the memory)
enum { DOMAIN = 1, LANE_BITS = 32, EXP_BITS = 8, FRAC_BITS = 23, LANES = 4, PAIRS = 4096, THREADS = 1024, BLOCK_X = 256, GRID_X = 4, CLUSTER_X = 1, MODE = 0, SELFTEST = 0, RETURNS = 0 };
static const uint32_t FIRST = 0x0u;  // the first pair's index
static const uint32_t VAL = 0x1u;  // cas's swap value (16-bit pairs) or the value x is swept against (32-bit)
