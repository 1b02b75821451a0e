// `cake run --device cpu` at small shapes: every manifest case with an expect.run verdict (the
// whole corpus: target <= 30 s in all on 2 cores) and the 256^3 Ampere and Hopper GEMMs alone
// (target <= 1 s each). Wall-clock time is the figure (UseRealTime); the interpreter is
// single-threaded. Each case counts its interleavings and whether the verdict matched.
//   cake-bench-run [benchmark flags...]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "BenchUtil.h"
#include "cake/Driver/Manifest.h"
#include "cake/Interp/Run.h"
#include "cake/Support/StringUtil.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

namespace {

using cake::bench::compiler;
using cake::bench::manifest;

/// Runs every case with `expect.run` whose id contains `filter`; counts matched verdicts.
void runCases(benchmark::State& state, const std::string& filter) {
  const cake::driver::Manifest& m = *manifest();
  std::size_t cases = 0, matched = 0;
  for (auto _ : state) {
    cases = matched = 0;
    for (const cake::driver::CorpusCase& c : m.cases) {
      if (!c.runCorrect || c.id.find(filter) == std::string::npos)
        continue;
      std::string error;
      auto text = cake::readFile(m.kernelPath(c), error, 64u << 20);
      if (!text)
        continue;
      cake::interp::RunResult r = cake::interp::runOnCpu(
          compiler(), c.path, *text, (std::filesystem::path(m.baseDir) / c.workload).string());
      ++cases;
      matched += r.correct == *c.runCorrect;
    }
  }
  state.counters["cases"] = double(cases);
  state.counters["matched"] = double(matched);
}

void BM_RunCorpusSmall(benchmark::State& state) {
  runCases(state, "");
}
void BM_RunAmpereGemm256(benchmark::State& state) {
  runCases(state, "ampere_gemm_bf16");
}
void BM_RunHopperGemm256(benchmark::State& state) {
  runCases(state, "hopper_gemm_ws_bf16");
}

} // namespace

BENCHMARK(BM_RunCorpusSmall)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_RunAmpereGemm256)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_RunHopperGemm256)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

BENCHMARK_MAIN();
