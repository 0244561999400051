// Written by `litmus --backend gpu` (ptx-reduction-conformance): the launches the GPU runner made for one litmus test.
#pragma once
static const char* TEST_NAME = "Copy+mbarrier+try_wait.acquire.cta";
static const char* TEST_FILE = "cases/litmus/Copy+mbarrier+try_wait.acquire.cta.litmus";
static const char* OUTCOME = "P0:p=1 P0:r1=7 (8.10.6 Causality)";
static const char* RECORDED = "61684 of 1081344 instances showed a forbidden outcome on NVIDIA H200";
static const char* STRESS_TEXT = "stress: 2 warp(s) x 64 iteration(s) on 64 lines, alignment off";
static const char* KEYS_TEXT = "P0:p  P0:r1";
#define CLUSTER_TEXT "1"
static const unsigned SEED = 1u;
enum { GRID = 264, BLOCK = 576, CLUSTER = 1, NI = 135168, ITERATIONS = 8, STRIDE = 1, SAMPLES = 64,
       N_LOCS = 3, SLOT_BYTES = 16, N_REG_WORDS = 2, N_WORDS = 2, N_ROWS = 6, SCRATCH_WORDS = 2048 };
// the locations' initial values, in the order of the module's memory (x, d, b)
static const uint32_t INIT[3] = {5u, 7u, 16u};
// the outcome table lt_count looks each instance up in (keys: P0:p, P0:r1; 2 word(s) a row, a 64-bit key low word first), each row as text, the model's verdict of each row
static const uint32_t TABLE[12] = {0u, 0u, 0u, 7u, 0u, 5u, 1u, 0u, 1u, 7u, 1u, 5u};
static const char* ROW_TEXT[6] = {"0  0", "0  7", "0  5", "1  0", "1  7", "1  5"};
static const unsigned char FORBIDDEN[6] = {1, 0, 0, 1, 1, 0};
static const char* WHY[6] = {"no candidate execution has it", "", "", "no candidate execution has it", "8.10.6 Causality", ""};
