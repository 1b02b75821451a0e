// Cost-model benchmarks over every positive corpus kernel (corpus/*/*.cake):
//  - CostKernel/<kernel>: what `cake cost` does after loading the data — check (parse, type
//    check, verify) plus the estimate with its what-if hints (re-checked variants); budget 5 ms;
//  - Estimate/<kernel>: the estimate with hints on an already checked kernel;
//  - Predict/<kernel>: one parameter evaluation of a prepared kernel (the calibration fit's
//    inner loop).
// The compiler (targets, primitives, rules) is loaded once, outside every timing loop.
//   cake-bench-cost [benchmark flags...]
// SPDX-License-Identifier: GPL-3.0-or-later
#include "BenchUtil.h"
#include "cake/Cost/CostModel.h"
#include "cake/Support/StringUtil.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace {

using cake::bench::compiler;

struct Kernel {
  std::string name, path, text;
};

std::vector<Kernel> corpusKernels() {
  namespace fs = std::filesystem;
  std::vector<Kernel> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(CAKE_CORPUS_DIR, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() != ".cake")
      continue;
    std::string rel = fs::relative(it->path(), CAKE_CORPUS_DIR).generic_string();
    if (rel.rfind("negative/", 0) == 0 || rel.rfind("proposals/", 0) == 0 ||
        rel.rfind("campaigns/", 0) == 0)
      continue;
    std::string error;
    auto text = cake::readFile(it->path().string(), error);
    if (text)
      out.push_back({rel, it->path().string(), *text});
  }
  std::sort(out.begin(), out.end(),
            [](const Kernel& a, const Kernel& b) { return a.name < b.name; });
  return out;
}

void costKernel(benchmark::State& state, const Kernel& k) {
  for (auto _ : state) {
    cake::driver::CheckResult r = compiler().check(k.path, k.text);
    cake::cost::Estimate e = cake::cost::estimate(compiler(), r);
    benchmark::DoNotOptimize(e.predictedUs);
  }
}

void estimateOnly(benchmark::State& state, const Kernel& k) {
  cake::driver::CheckResult r = compiler().check(k.path, k.text);
  if (!r.accepted) {
    state.SkipWithError("kernel refused");
    return;
  }
  std::size_t hints = 0;
  for (auto _ : state) {
    cake::cost::Estimate e = cake::cost::estimate(compiler(), r);
    hints = e.hints.size();
    benchmark::DoNotOptimize(e.predictedUs);
  }
  state.counters["hints"] = double(hints);
  state.counters["trace_events"] = double(r.verification.trace.size());
}

void predictOnly(benchmark::State& state, const Kernel& k) {
  cake::driver::CheckResult r = compiler().check(k.path, k.text);
  std::string error;
  cake::cost::PreparedPtr p = cake::cost::prepare(r, error);
  if (!p) {
    state.SkipWithError(error.c_str());
    return;
  }
  cake::cost::Params params;
  for (auto _ : state)
    benchmark::DoNotOptimize(cake::cost::predictUs(*p, params));
}

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  if (!compiler().ok()) {
    std::fprintf(stderr, "cake-bench-cost: the compiler data does not load cleanly\n");
    return 1;
  }
  static const std::vector<Kernel> kernels = corpusKernels();
  for (const Kernel& k : kernels)
    benchmark::RegisterBenchmark(("CostKernel/" + k.name).c_str(), costKernel, k)
        ->Unit(benchmark::kMillisecond);
  for (const Kernel& k : kernels)
    benchmark::RegisterBenchmark(("Estimate/" + k.name).c_str(), estimateOnly, k)
        ->Unit(benchmark::kMillisecond);
  for (const Kernel& k : kernels)
    benchmark::RegisterBenchmark(("Predict/" + k.name).c_str(), predictOnly, k)
        ->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
