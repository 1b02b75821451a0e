// `cake evolve` throughput: one search of 60 candidates from the Flash-KMeans assign kernel and
// from the Hopper GEMM (edits, verifier, cost model), then the import of the written campaign
// (check, cost and lowering digests again, store), on 1 and 2 threads. The figure is candidates
// assessed per minute of wall-clock time (counter `candidates_per_min`; target >= 100 on 2
// cores). The compiler is loaded once outside the timing.
//   cake-bench-campaign [benchmark flags...]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "BenchUtil.h"
#include "cake/Campaign/Campaign.h"
#include "cake/Campaign/Evolve.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

namespace {

using cake::bench::compiler;

void BM_EvolveAndImport(benchmark::State& state, const char* kernel) {
  namespace fs = std::filesystem;
  constexpr std::size_t kBudget = 60;
  std::size_t assessed = 0, round = 0;
  fs::path base = fs::temp_directory_path() / ("cake-bench-campaign-" + std::to_string(getpid()));
  auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    fs::path dir = base / std::to_string(round++);
    cake::campaign::EvolveOptions o;
    o.budget = kBudget;
    o.campaign = "bench";
    o.timestamp = "2026-12-01T00:00:00.000Z";
    o.jobs = static_cast<unsigned>(state.range(0));
    auto r = cake::campaign::evolve(compiler(), std::string(CAKE_CORPUS_DIR) + "/" + kernel,
                                    (dir / "camp").string(), o);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      break;
    }
    auto w = cake::ws::Workspace::open((dir / "ws").string(), cake::ws::OpenMode::CreateIfMissing);
    if (!w) {
      state.SkipWithError(w.error().text().c_str());
      break;
    }
    cake::campaign::ImportOptions io;
    io.jobs = o.jobs;
    auto imp = cake::campaign::importCampaign(compiler(), *w, (dir / "camp").string(), io);
    benchmark::DoNotOptimize(imp.imported);
    assessed += r.candidates;
  }
  std::error_code ec;
  fs::remove_all(base, ec);
  double minutes =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
  state.counters["candidates_per_min"] = static_cast<double>(assessed) / minutes;
}

} // namespace

BENCHMARK_CAPTURE(BM_EvolveAndImport, flash_kmeans, "flash_kmeans/assign.cake")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);
BENCHMARK_CAPTURE(BM_EvolveAndImport, hopper_gemm, "hopper_gemm/gemm_ws.cake")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

BENCHMARK_MAIN();
