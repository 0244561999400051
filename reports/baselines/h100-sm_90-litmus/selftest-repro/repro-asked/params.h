// Written by `litmus --backend gpu` (ptx-reduction-conformance): the launches the GPU runner made for one litmus test.
#pragma once
static const char* TEST_NAME = "MP+atom.release+atom.acquire.gpu";
static const char* TEST_FILE = "cases/litmus/MP+atom.release+atom.acquire.gpu.litmus";
static const char* OUTCOME = "P1:r0=1 P1:r1=0 (8.10.6 Causality)";
static const char* RECORDED = "650 of 1013760 instances showed a forbidden outcome on NVIDIA H100 80GB HBM3";
static const char* STRESS_TEXT = "stress: 2 warp(s) x 64 iteration(s) on 64 lines, alignment off; the self-test's planted fault (thread 0's instructions reversed, 2 us apart)";
static const char* KEYS_TEXT = "P1:r0  P1:r1";
#define CLUSTER_TEXT "1"
static const unsigned SEED = 1u;
enum { GRID = 264, BLOCK = 576, CLUSTER = 1, NI = 67584, ITERATIONS = 15, STRIDE = 1, SAMPLES = 64,
       N_LOCS = 2, N_REGS = 2, N_KEYS = 2, N_ROWS = 4, SCRATCH_WORDS = 2048 };
// the locations' initial values, in the order of the module's memory (x, flag)
static const uint32_t INIT[2] = {0u, 0u};
// the outcome table lt_count looks each instance up in (keys: P1:r0, P1:r1), the model's verdict of each row
static const uint32_t TABLE[8] = {0u, 0u, 0u, 1u, 1u, 0u, 1u, 1u};
static const unsigned char FORBIDDEN[4] = {0, 0, 1, 0};
static const char* WHY[4] = {"", "", "8.10.6 Causality", ""};
