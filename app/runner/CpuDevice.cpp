// The CPU device of `cake-run`: a CPU bundle's kernel executed by the semantic interpreter (the
// one behind `cake run --device cpu`, docs/workloads.md) on its workload contract's inputs and
// judged against the contract's reference operator, so a CPU run goes through the same
// executors (local, SSH, Slurm) and comes back as the same run record as a GPU run. Also the
// GPU path's host oracle: the same binding of contract and kernel, evaluated for the GPU's inputs.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CpuDevice.h"

#include "cake/Driver/Compiler.h"
#include "cake/Interp/Run.h"
#include "cake/Run/Runner.h"
#include "cake/Support/StringUtil.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

namespace cake::runner {

namespace {

namespace fs = std::filesystem;

/// The runner's options (samples, seed of the GPU protocol's inputs) do not apply: the CPU run
/// draws the contract's own inputs, so its verdict is the one `cake run --device cpu` gives;
/// only the shapes (small or full, `--shapes`) are taken from them.
run::RunRecord runBundleOnCpu(const std::string& exe, const run::Bundle& b,
                              const run::RunnerOptions& options) {
  run::RunRecord r = run::recordFor(b);
  r.deviceKind = "cpu";
  r.device = run::DeviceInfo{"cpu (cake interpreter)", {}, {}, {}, {}, {}};
  fs::path dir(b.dir);
  std::string error;
  std::optional<std::string> kernelText;
  if (!b.source.empty())
    kernelText = readFile((dir / b.source).string(), error, 64u << 20);
  if (!kernelText) {
    r.errors.push_back({"bundle-invalid", "a CPU bundle needs its kernel source (kernel.cake)"});
    return r;
  }
  fs::path workload = dir / "workload.json";
  std::error_code ec;
  if (!fs::is_regular_file(workload, ec)) {
    r.errors.push_back({"bundle-invalid", "a CPU bundle needs its workload contract "
                                          "(workload.json)"});
    return r;
  }
  auto compiler = driver::Compiler::load(driver::defaultDataPaths(exe));
  bool loadFailed = !compiler;
  if (compiler)
    for (const Diagnostic& d : compiler->loadDiagnostics())
      loadFailed |= d.severity == Severity::Blocking;
  if (loadFailed) {
    r.errors.push_back({"cpu-run-failed", "the runner's compiler data did not load"});
    return r;
  }
  if (!b.compilerRevision.empty() && b.compilerRevision != compiler->revision())
    r.warnings.push_back("the bundle was built by compiler revision " + b.compilerRevision +
                         "; this runner's is " + compiler->revision());
  interp::RunOptions ro;
  ro.smallShapes = options.cpuSmallShapes;
  interp::RunResult res =
      interp::runOnCpu(*compiler, (dir / b.source).string(), *kernelText, workload.string(), ro);
  if (!res.ran) {
    std::string why = res.findings.empty() ? std::string("the interpreter did not run the kernel")
                                           : res.findings.front().message;
    r.errors.push_back({"cpu-not-runnable", why});
    return r;
  }
  r.correct = res.correct;
  for (const interp::OutputVerdict& o : res.outputs) {
    if (!o.firstMismatch)
      continue;
    const interp::Mismatch& m = *o.firstMismatch;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s: %lld mismatches; first at flat index %lld: expected %g, got %g",
                  o.name.c_str(), static_cast<long long>(o.mismatches),
                  static_cast<long long>(m.flatIndex), m.expected, m.got);
    std::string w = buf;
    if (m.writtenBy.known)
      w += ", written by line " + std::to_string(m.writtenBy.line) + ":" +
           std::to_string(m.writtenBy.column) + " (" + m.writtenBy.op + ", role " +
           m.writtenBy.role + ")";
    r.warnings.push_back(w);
  }
  if (!res.correct && r.warnings.empty())
    r.warnings.push_back("the interleavings disagree: the result depends on timing");
  if (!res.correct)
    r.errors.push_back({"incorrect", "the CPU run does not match the reference operator"});
  r.warnings.push_back(std::string("CPU device: ") + (options.cpuSmallShapes ? "small" : "full") +
                       " shapes, " + std::to_string(res.interleavings) + " interleavings in " +
                       std::to_string(res.wallSeconds) +
                       " s; no timing (the interpreter says nothing about GPU speed)");
  return r;
}

} // namespace

void installHostOracle(const std::string& executable) {
  run::setHostOracle([executable](const run::Bundle& b,
                                  std::map<std::string, std::vector<double>>& inputs,
                                  std::string& error) -> std::optional<ref::Expected> {
    fs::path dir(b.dir);
    std::optional<std::string> kernelText;
    if (!b.source.empty())
      kernelText = readFile((dir / b.source).string(), error, 64u << 20);
    if (!kernelText) {
      error = "the bundle has no kernel source (kernel.cake) to bind the contract to";
      return std::nullopt;
    }
    fs::path workload = dir / "workload.json";
    auto compiler = driver::Compiler::load(driver::defaultDataPaths(executable));
    if (!compiler) {
      error = "the runner's compiler data did not load";
      return std::nullopt;
    }
    return interp::hostReference(*compiler, (dir / b.source).string(), *kernelText,
                                 workload.string(), inputs, error);
  });
}

void installCpuDevice(const std::string& executable) {
  run::setCpuDevice([executable](const run::Bundle& b, const run::RunnerOptions& options) {
    return runBundleOnCpu(executable, b, options);
  });
}

} // namespace cake::runner
