// `cake run --device cpu` (local): a kernel executed by the CPU interpreter on its workload contract's inputs and
// judged against the reference operator (docs/workloads.md). exit 0 correct, 1 incorrect or
// not runnable (findings), 2 usage.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Driver/Output.h"
#include "cake/Interp/Run.h"
#include "cake/Support/StringUtil.h"

#include <cstdio>
#include <iostream>

namespace cake::cli {

int cmdRunCpu(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1,
                     {"--workload", "--device", "--shapes", "--seed", "--format", "--interleavings",
                      "--max-memory-mib", "--registry", "--targets", "--rules", "--workspace"},
                     {"--help"});
  if (!a.error.empty())
    return usageError("run", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("run", format, {"text", "json"}, code))
    return code;
  if (a.positional.size() != 1)
    return usageError("run", "expected exactly one kernel file");
  if (a.get("--device", "cpu") != "cpu")
    return usageError("run", "--device must be 'cpu' (GPU runs are not available here)");
  std::string shapes = a.get("--shapes", "small");
  if (shapes != "small" && shapes != "full")
    return usageError("run", "--shapes must be 'small' or 'full'");
  interp::RunOptions options;
  options.smallShapes = shapes == "small";
  std::string error;
  long long seed = 0, interleavings = 3, maxMib = 0;
  if (!integerOption(a, "--seed", 0, (1ll << 62), seed, error) ||
      !integerOption(a, "--interleavings", 1, 64, interleavings, error) ||
      !integerOption(a, "--max-memory-mib", 1, 1ll << 30, maxMib, error))
    return usageError("run", error);
  if (a.options.count("--seed"))
    options.seed = static_cast<std::uint64_t>(seed);
  options.interleavings = static_cast<int>(interleavings);
  options.maxMemoryBytes = static_cast<std::uint64_t>(maxMib) << 20;
  const std::string& path = a.positional[0];
  std::string workloadId, lookupError;
  std::string workload = findWorkload(argv0, a, path, workloadId, lookupError);
  if (workload.empty())
    return usageError("run", "no workload contract: pass --workload FILE (the kernel is not a "
                             "case of the bundled corpus)");
  auto text = readFile(path, error, 64u << 20);
  if (!text) {
    std::fprintf(stderr, "cake run: cannot read '%s': %s\n", path.c_str(), error.c_str());
    return 2;
  }
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  interp::RunResult r = interp::runOnCpu(*compiler, path, *text, workload, options);
  if (format == "json") {
    std::cout << interp::toJson(r);
  } else {
    for (const Diagnostic& d : r.findings)
      std::fputs(driver::renderText(d, *r.kernel.sources).c_str(), stdout);
    std::fputs(interp::toText(r).c_str(), stdout);
  }
  return r.correct ? 0 : 1;
}

} // namespace cake::cli
