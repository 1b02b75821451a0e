// `cake-run`: the runner process. Reads a run bundle, runs it on the GPU (the CUDA driver loaded
// at run time) or the CPU device, and writes the run record. Built and usable on machines
// without a driver: there it says so in the record and exits 3.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CpuDevice.h"

#include "cake/Run/Bundle.h"
#include "cake/Run/Executor.h"
#include "cake/Run/Runner.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* kUsage =
    "usage: cake-run BUNDLE_DIR [-o RECORD.json] [--format json|text] [--check-only]\n"
    "                [--device-ordinal N] [--seed N] [--max-samples N] [--max-seconds S]\n"
    "                [--delay S] [--shapes small|full] [--timer auto|events]\n"
    "Runs the kernel of a run bundle (made by `cake run`) and writes its run record.\n"
    "Exit codes: 0 correct, 1 incorrect or a run-time error, 2 usage or invalid bundle,\n"
    "3 no NVIDIA driver or device, 4 the device cannot run the bundle's target,\n"
    "6 ran without an oracle to check against. See docs/runs.md.\n"
    "--delay S waits S seconds before running (to test executors' timeout and cancel).\n"
    "--shapes: the CPU device's contract shapes (default small; a GPU run ignores it).\n"
    "--timer: auto (CUPTI activity records when libcupti loads, else CUDA events) or events.\n";

int usage(const std::string& message) {
  std::fprintf(stderr, "cake-run: %s\n%s", message.c_str(), kUsage);
  return cake::run::kExitUsage;
}

bool number(const std::string& text, double lo, double hi, double& out) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v) || v < lo || v > hi)
    return false;
  out = v;
  return true;
}

std::string summary(const cake::run::RunRecord& r) {
  std::string s = r.kernel + " (" + r.target + ")";
  if (r.device)
    s += " on " + r.device->name;
  if (!r.errors.empty()) {
    s += ": " + r.errors.front().code + ": " + r.errors.front().message;
    return s;
  }
  s += r.correct ? (*r.correct ? ": correct" : ": INCORRECT") : ": not checked (no oracle)";
  if (r.stats) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ", median %.3f us [q1 %.3f, q3 %.3f], n=%zu", r.stats->median,
                  r.stats->q1, r.stats->q3, r.stats->n);
    s += buf;
  }
  return s;
}

int runMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string bundleDir, output, format = "json";
  cake::run::RunnerOptions opt;
  double delay = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size())
        return false;
      into = args[++i];
      return true;
    };
    std::string v;
    double d = 0;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--version") {
      std::printf("cake-run %s (protocol %d, bundle %d)\n", CAKE_VERSION,
                  cake::run::kProtocolVersion, cake::run::kBundleVersion);
      return 0;
    } else if (a == "-o" || a == "--output") {
      if (!value(output))
        return usage(a + " needs a value");
    } else if (a == "--format") {
      if (!value(format) || (format != "json" && format != "text"))
        return usage("--format takes json or text");
    } else if (a == "--check-only") {
      opt.timing = false;
    } else if (a == "--device-ordinal") {
      if (!value(v) || !number(v, 0, 64, d) || d != std::floor(d))
        return usage("--device-ordinal takes an integer 0..64");
      opt.deviceOrdinal = static_cast<int>(d);
    } else if (a == "--seed") {
      if (!value(v) || !number(v, 0, 9e15, d) || d != std::floor(d))
        return usage("--seed takes a non-negative integer");
      opt.seed = static_cast<std::uint64_t>(d);
    } else if (a == "--max-samples") {
      if (!value(v) || !number(v, 1, 100000, d) || d != std::floor(d))
        return usage("--max-samples takes an integer 1..100000");
      opt.limits.maxSamples = static_cast<std::size_t>(d);
    } else if (a == "--max-seconds") {
      if (!value(v) || !number(v, 0.001, 3600, d))
        return usage("--max-seconds takes a number of seconds (0.001..3600)");
      opt.limits.maxSeconds = d;
    } else if (a == "--shapes") {
      if (!value(v) || (v != "small" && v != "full"))
        return usage("--shapes takes small or full");
      opt.cpuSmallShapes = v == "small";
    } else if (a == "--timer") {
      if (!value(v) || (v != "auto" && v != "events"))
        return usage("--timer takes auto or events");
      opt.cupti = v == "auto";
    } else if (a == "--delay") {
      if (!value(v) || !number(v, 0, 86400, delay))
        return usage("--delay takes a number of seconds (0..86400)");
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else if (bundleDir.empty()) {
      bundleDir = a;
    } else {
      return usage("give one bundle directory");
    }
  }
  if (bundleDir.empty())
    return usage("give a bundle directory");
  if (delay > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));

  std::string error;
  cake::run::RunRecord record;
  auto bundle = cake::run::readBundle(bundleDir, error);
  if (!bundle)
    record = cake::run::failureRecord(bundleDir, "", "bundle-invalid", error);
  else if (bundle->device == "gpu")
    record = cake::run::runOnGpu(*bundle, opt);
  else
    record = cake::run::runOnCpu(*bundle, opt);

  std::string json = cake::run::toJson(record) + "\n";
  if (!output.empty()) {
    std::ofstream f(output, std::ios::binary | std::ios::trunc);
    f << json;
    f.close();
    if (!f) {
      std::fprintf(stderr, "cake-run: cannot write the record to '%s'\n", output.c_str());
      return cake::run::kExitUsage;
    }
  }
  if (format == "json" && output.empty())
    std::fputs(json.c_str(), stdout);
  else if (format == "text")
    std::printf("%s\n", summary(record).c_str());
  if (!record.errors.empty())
    std::fprintf(stderr, "cake-run: %s\n", record.errors.front().message.c_str());
  return cake::run::exitCodeFor(record);
}

} // namespace

int main(int argc, char** argv) {
  try {
    cake::runner::installCpuDevice(argc > 0 ? argv[0] : "");
    cake::runner::installHostOracle(argc > 0 ? argv[0] : "");
    return runMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cake-run: internal error: %s\n", e.what());
    return cake::run::kExitUsage;
  }
}
