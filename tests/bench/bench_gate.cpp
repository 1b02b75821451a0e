// The corpus gate over the bundled manifest (check, cost, metadata/PTX/CUDA digests of every
// case; no ptxas), with 1 and 2 workers: the target is <= 2 s on 2 cores. Wall-clock time is
// the figure (UseRealTime); process CPU time is reported beside it. The compiler is loaded once
// outside the timing; the first (cold) run, which initialises the NVPTX target, is a counter.
//   cake-bench-gate [benchmark flags...]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "BenchUtil.h"
#include "cake/Gate/Gate.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>

namespace {

using cake::bench::compiler;
using cake::bench::manifest;

double coldSeconds = -1;

void BM_Gate(benchmark::State& state) {
  cake::gate::GateOptions options;
  options.jobs = static_cast<unsigned>(state.range(0));
  if (coldSeconds < 0) {
    auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(cake::gate::runGate(compiler(), *manifest(), options));
    coldSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::size_t cases = 0, mismatched = 0;
  for (auto _ : state) {
    cake::gate::GateReport r = cake::gate::runGate(compiler(), *manifest(), options);
    cases = r.cases.size();
    mismatched = r.mismatched();
  }
  state.counters["cases"] = double(cases);
  state.counters["mismatched"] = double(mismatched);
  state.counters["cold_run_s"] = coldSeconds;
}

} // namespace

BENCHMARK(BM_Gate)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Iterations(3);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  if (!compiler().ok() || !manifest()) {
    std::fprintf(stderr, "cake-bench-gate: the compiler data or the corpus manifest does not "
                         "load cleanly\n");
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
