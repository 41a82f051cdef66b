// Every environment variable wfod reads, in one table: its name, what it does and what holds
// when it is unset. The product reads the environment only through env_value() below (a unit
// test fails on any other getenv in kernels/, daemon/, config/, feeds/ or tools/), and
// docs/operations.md "Environment variables" lists every row (the same test checks).
// Most rows are test and benchmark switches; none is needed to run wfod.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <string_view>

namespace wfod {

enum class Env {
  credentials_directory,
  journal_stream,
  test_backend_fault,
  cpu_kernel,
  test_cuda_cc,
  cuda_fault,
  cuda_kernel,
  cuda_event_cap,
  cuda_force_chunks,
  cuda_stream_graph,
  cuda_stream_fused,
  cuda_blocks_exact,
  cuda_walk_generic,
  cuda_cscv_store,
  cuda_cscv_screen_rel,
  cuda_level_bits,
  cuda_signal_bits,
};

struct EnvKnob {
  Env id;
  std::string_view name;
  std::string_view meaning;
  std::string_view unset;  // what holds when the variable is not set
};

inline constexpr EnvKnob kEnvKnobs[] = {
    {Env::credentials_directory, "CREDENTIALS_DIRECTORY",
     "set by systemd (LoadCredential=): a relative [curve] key_file / clients_file is looked up "
     "there first, then beside the config file",
     "beside the config file only"},
    {Env::journal_stream, "JOURNAL_STREAM",
     "set by systemd: stderr's device:inode; when it names stderr, log lines go to the journal "
     "natively with their priority",
     "timestamped lines on stderr"},
    {Env::test_backend_fault, "WFOD_TEST_BACKEND_FAULT",
     "TEST ONLY, sweep:N: the Nth and every later optimisation fails as a device error would "
     "(the backend fallback's tests); read once at start, logged as a warning",
     "no injected fault"},
    {Env::cpu_kernel, "WFOD_CPU_KERNEL",
     "generic | avx2 | avx512: the cpu lane kernel and fast CSCV walk to use, if the CPU runs it "
     "(parity tests run each; results are bit-identical)",
     "the widest the CPU runs"},
    {Env::test_cuda_cc, "WFOD_TEST_CUDA_CC",
     "TEST ONLY, M.m: the compute capability the start-up device check uses instead of the "
     "device's, to see a refusal on a supported GPU",
     "the device's own"},
    {Env::cuda_fault, "WFOD_CUDA_FAULT",
     "TEST ONLY, alloc[:N] | kernel[:N]: the Nth and later cuda sweeps, evaluations and stream "
     "advances provoke a real CUDA error (an impossible allocation, an invalid launch)",
     "no injected fault"},
    {Env::cuda_kernel, "WFOD_CUDA_KERNEL",
     "plain: the cuda sweep's per-bar baseline evaluator; fused: its change-driven evaluator "
     "in one kernel instead of a decisions kernel and an accounting kernel (benchmarks, tests)",
     "the change-driven evaluator, split into decisions and accounting kernels"},
    {Env::cuda_event_cap, "WFOD_CUDA_EVENT_CAP",
     "N >= 1: change events the split sweep keeps per combo; a combo with more is evaluated "
     "whole by its accounting kernel (tests: a small N mixes both paths; same results)",
     "256"},
    {Env::cuda_force_chunks, "WFOD_CUDA_FORCE_CHUNKS",
     "N, a power of two <= the window: time chunks per combo of a cuda sweep (tests run both "
     "layouts; 1 = thread per combo)",
     "chosen from the grid and the device"},
    {Env::cuda_stream_graph, "WFOD_CUDA_STREAM_GRAPH",
     "0: cuda streams launch their kernels directly instead of replaying a captured graph",
     "captured graph"},
    {Env::cuda_stream_fused, "WFOD_CUDA_STREAM_FUSED",
     "1: cuda streams fuse the indicator roll into the window kernel (opt-in: measured slower, "
     "bench/RESULTS.md)",
     "separate roll"},
    {Env::cuda_blocks_exact, "WFOD_CUDA_BLOCKS_EXACT",
     "1: the cuda block summaries decide in float64 only, without the float32 screen (tests run "
     "both; same results)",
     "float32 screen, float64 where it is unsure"},
    {Env::cuda_walk_generic, "WFOD_CUDA_WALK_GENERIC",
     "1: the cuda CSCV walk uses its run-time tree shape for S = 16 too (tests run both; same "
     "results)",
     "the S = 16 shape fixed at compile time"},
    {Env::cuda_cscv_store, "WFOD_CUDA_CSCV_STORE",
     "0: the cuda CSCV's second pass walks the split tree again instead of reading the first "
     "pass's stored screens (tests run both; same counts)",
     "stored when they fit 80% of free device memory"},
    {Env::cuda_cscv_screen_rel, "WFOD_CUDA_CSCV_SCREEN_REL",
     "r: widens the cuda CSCV screens' band to r |y| so that exact decisions run often (tests; "
     "same results)",
     "the default band"},
    {Env::cuda_level_bits, "WFOD_CUDA_LEVEL_BITS",
     "0: the cuda sweep's bollinger and rsi_reversion decisions compare the float64 rows per "
     "combo instead of reading the per-(n, bar) decision-bit table (tests run both; same "
     "results)",
     "the table, when it fits 1 GiB and a quarter of the free device memory"},
    {Env::cuda_signal_bits, "WFOD_CUDA_SIGNAL_BITS",
     "0: the cuda sweep's ma_cross and channel_breakout signals and vol filter gates are decided "
     "per combo from the rows; all: their shared per-(key, bar) bit tables are built whenever "
     "they fit, however few combos share a key (tests run all three; same results)",
     "the tables where at least 16 combos share a key on average, or for any grid of so few "
     "combos that the sweep scores them all in the canonical order, and they "
     "fit 1 GiB and a quarter of the free device memory"},
};

// The table is indexed by Env: each row sits at its id's place.
consteval bool env_table_in_order() {
  for (size_t i = 0; i < std::size(kEnvKnobs); ++i)
    if (static_cast<size_t>(kEnvKnobs[i].id) != i) return false;
  return true;
}
static_assert(env_table_in_order(), "kEnvKnobs rows must be in Env order");

constexpr const char* env_name(Env e) { return kEnvKnobs[static_cast<size_t>(e)].name.data(); }

// The variable's value, nullptr when it is unset: the one getenv of the product.
inline const char* env_value(Env e) { return std::getenv(env_name(e)); }

}  // namespace wfod
