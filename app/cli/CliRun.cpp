// `cake run`: builds a run bundle of an accepted kernel (cubin through the LLVM path and ptxas
// for sm_80/sm_90a, through the CUDA export and nvcc for sm_100a; lowering metadata; workload
// contract), hands it to an executor (local, ssh://HOST, slurm[:PARTITION]) that runs `cake-run`
// there, and prints the record. Optionally stores it in the workspace and a measurements file.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSupport.h"

#include "cake/Cost/CostModel.h"
#include "cake/Driver/Manifest.h"
#include "cake/Driver/Output.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Lower/Toolchain.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Reference/Workload.h"
#include "cake/Run/Bundle.h"
#include "cake/Run/Executor.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/StringUtil.h"
#include "cake/Workspace/Workspace.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <unistd.h>


namespace cake::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_cancel{false};

} // namespace

/// The workload contract of `kernelPath`: --workload, else the corpus manifest case whose
/// kernel is that file.
std::string findWorkload(const std::string& argv0, const Args& a, const std::string& kernelPath,
                         std::string& id, std::string& error) {
  if (a.options.count("--workload")) {
    id = fs::path(a.get("--workload")).stem().string();
    return a.get("--workload");
  }
  return driver::findCaseWorkload(a.get("--corpus", driver::defaultCorpusDir(argv0)), kernelPath,
                                  id, error);
}

verify::VerifyOptions workloadScalars(const std::string& workloadPath,
                                      std::vector<std::pair<std::string, std::int64_t>>* values) {
  verify::VerifyOptions o;
  if (workloadPath.empty())
    return o;
  SourceManager sources;
  DiagnosticEngine diags;
  if (auto w = ref::loadWorkload(workloadPath, sources, diags))
    for (const ref::ConstValue& c : w->scalars) {
      o.scalarValues[c.name] = c.value;
      if (values)
        values->emplace_back(c.name, c.value);
    }
  return o;
}

namespace {

extern "C" void onSignal(int) {
  g_cancel.store(true);
}

std::string defaultRunner(const std::string& argv0) {
  if (const char* env = std::getenv("CAKE_RUNNER"); env && *env)
    return env;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    self = fs::absolute(argv0, ec);
  return (self.parent_path() / "cake-run").string();
}

void writeJsonFile(const fs::path& path, const std::string& text, json::Writer& files, bool& ok,
                   std::string& error) {
  if (!ok)
    return;
  if (!writeFile(path.string(), text, error)) {
    ok = false;
    return;
  }
  files.key(path.filename().string()).value(sha256Hex(text));
}

void printRecord(const run::RunRecord& r, const std::string& format) {
  if (format == "json") {
    std::cout << run::toJson(r) << "\n";
    return;
  }
  std::printf("%s (%s, %s device) via %s\n", r.kernel.c_str(), r.target.c_str(),
              r.deviceKind.c_str(), r.executor.c_str());
  if (r.device)
    std::printf("device: %s (%s, driver %s)\n", r.device->name.c_str(),
                r.device->sm.value_or("?").c_str(), r.device->driver.value_or("?").c_str());
  for (const run::RunError& e : r.errors)
    std::printf("error[%s]: %s\n", e.code.c_str(), e.message.c_str());
  for (const std::string& w : r.warnings)
    std::printf("warning: %s\n", w.c_str());
  std::printf("correct: %s\n", !r.correct ? "not checked" : *r.correct ? "yes" : "NO");
  if (r.stats)
    std::printf("median %.3f us (q1 %.3f, q3 %.3f, min %.3f, n=%zu, %s, stop: %s)\n",
                r.stats->median, r.stats->q1, r.stats->q3, r.stats->min, r.stats->n,
                r.timer.c_str(), r.stopReason.c_str());
  if (r.baseline && r.baseline->medianUs)
    std::printf("baseline %s: median %.3f us\n", r.baseline->name.c_str(), *r.baseline->medianUs);
}

} // namespace

/// Builds the bundle of `kernelPath` in `dir`: 0, or the exit code (1 findings or no image, 2
/// usage or I/O) with the reason printed.
static int buildBundle(const std::string& argv0, const Args& a, const std::string& kernelPath,
                       const std::string& device, const std::string& format, const fs::path& dir) {
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  std::string error;
  auto text = readFile(kernelPath, error, 64u << 20);
  if (!text) {
    std::fprintf(stderr, "cake run: cannot read '%s': %s\n", kernelPath.c_str(), error.c_str());
    return 2;
  }
  driver::CheckResult r = compiler->check(kernelPath, *text);
  if (!r.accepted) {
    for (const Diagnostic& d : r.diagnostics)
      if (d.severity == Severity::Blocking)
        std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
    std::fprintf(stderr, "cake run: '%s' has blocking findings; it is not run\n",
                 kernelPath.c_str());
    return 1;
  }
  std::string workloadId;
  std::string workloadPath = findWorkload(argv0, a, kernelPath, workloadId, error);
  if (workloadPath.empty()) {
    std::fprintf(stderr, "cake run: %s\n", error.c_str());
    return 2;
  }
  auto workload = readFile(workloadPath, error, 1u << 20);
  if (!workload) {
    std::fprintf(stderr, "cake run: cannot read the workload '%s': %s\n", workloadPath.c_str(),
                 error.c_str());
    return 2;
  }
  if (!r.model.scalars.empty()) {
    // Run-time scalar parameters take the contract's values (the bundle passes them).
    r = compiler->check(kernelPath, *text, workloadScalars(workloadPath, nullptr));
    if (!r.accepted) {
      for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Blocking)
          std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
      std::fprintf(stderr, "cake run: '%s' is refused with the contract's scalar values\n",
                   kernelPath.c_str());
      return 1;
    }
  }
  lower::LoweredKernel lk =
      lower::lowerKernel(r.module, r.model, compiler->registry(), *r.sources, kernelPath);
  if (!lk.ok) {
    for (const Diagnostic& d : lk.findings)
      std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
    std::fprintf(stderr, "cake run: lowering cannot emit '%s'\n", kernelPath.c_str());
    return 1;
  }
  const std::string& target = lk.program.target;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "cake run: cannot create '%s': %s\n", dir.c_str(), ec.message().c_str());
    return 2;
  }

  // The kernel image (GPU bundles): cubin through ptxas (LLVM path) or nvcc (CUDA export).
  std::string imageName = "none", imageKind = "none";
  json::Writer files(true);
  files.beginObject();
  if (device == "gpu") {
    lower::EvidenceContext ctx;
    ctx.module = &r.module;
    ctx.model = &r.model;
    ctx.metadata = &lk.metadata;
    ctx.cudaHome = a.get("--cuda-home");
    std::string cubin = (dir / "kernel.cubin").string();
    lower::Evidence ev;
    if (lower::llvmSupportsTarget(target)) {
      lower::LlvmOptions lo;
      lo.wantPtx = true;
      lower::LlvmResult res = lower::emitLlvm(lk.program, lo);
      if (!res.ok) {
        std::fprintf(stderr, "cake run: LLVM path: %s\n", res.error.c_str());
        return 1;
      }
      ev = lower::ptxasEvidence(res.ptx, target, ctx, cubin);
    } else {
      lower::Provenance prov{kernelPath, driver::Compiler::version(), compiler->revision()};
      ev = lower::nvccEvidence(lower::emitCuda(lk.program, lk.metadata, prov), target, ctx, cubin);
    }
    if (!ev.ok) {
      for (const Diagnostic& d : ev.findings)
        std::fputs(driver::renderText(d, *r.sources).c_str(), stderr);
      std::fprintf(stderr, "cake run: no cubin for %s (%s): %s\n", target.c_str(),
                   ev.tool.empty() ? "toolchain not found" : ev.tool.c_str(), ev.log.c_str());
      return 1;
    }
    auto bytes = readFile(cubin, error, 256u << 20);
    if (!bytes) {
      std::fprintf(stderr, "cake run: %s\n", error.c_str());
      return 1;
    }
    files.key("kernel.cubin").value(sha256Hex(*bytes));
    imageName = "kernel.cubin";
    imageKind = "cubin";
  }
  bool ok = true;
  json::Writer md;
  md.beginObject();
  md.key("compiler_revision").value(compiler->revision());
  md.key("path").value(kernelPath);
  md.key("metadata");
  lower::writeJson(md, lk.metadata);
  md.endObject();
  writeJsonFile(dir / "metadata.json", md.str() + "\n", files, ok, error);
  writeJsonFile(dir / "workload.json", *workload, files, ok, error);
  writeJsonFile(dir / "kernel.cake", *text, files, ok, error);
  files.endObject();

  json::Writer m;
  m.beginObject();
  m.key("format").value("cake-run-bundle");
  m.key("version").value(run::kBundleVersion);
  m.key("kernel").value(lk.program.name);
  m.key("target").value(target);
  m.key("device").value(device);
  m.key("schedule_hash").value(lk.metadata.scheduleHash);
  m.key("compiler_revision").value(compiler->revision());
  m.key("image").value(imageName);
  m.key("image_kind").value(imageKind);
  m.key("metadata").value("metadata.json");
  m.key("workload").value("workload.json");
  m.key("workload_id").value(workloadId);
  m.key("source").value("kernel.cake");
  // The cost model's prediction and the roofline bound (time at peak FLOP rate or peak HBM
  // bandwidth, whichever is longer) for the suspicion check and predicted-vs-measured views.
  cost::Options co;
  co.hints = false;
  cost::Estimate est = cost::estimate(*compiler, r, co);
  if (est.ok && est.predictedUs > 0) {
    m.key("predicted_us").value(est.predictedUs);
    const cost::Roofline& rf = est.roofline;
    double roof = std::max(rf.peakTflops > 0 ? rf.flops / (rf.peakTflops * 1e6) : 0.0,
                           rf.peakHbmGbps > 0 ? rf.hbmBytes / (rf.peakHbmGbps * 1e3) : 0.0);
    if (roof > 0)
      m.key("roofline_us").value(roof);
  }
  m.key("buffers").beginArray();
  for (const sema::BufferInfo& b : r.model.buffers) {
    if (b.kind != ir::DeclKind::Param)
      continue;
    m.beginObject();
    m.key("name").value(b.name);
    m.key("dtype").value(std::string(ir::toString(b.dtype)));
    m.key("shape").beginArray();
    for (std::int64_t d : b.shape)
      m.value(d);
    m.endArray();
    m.key("role").value(b.paramRole);
    m.key("align").value(b.align);
    m.endObject();
  }
  m.endArray();
  m.key("params").beginArray();
  for (const lower::Param& p : lk.program.params) {
    m.beginObject();
    m.key("name").value(p.name);
    m.key("kind").value(p.kind == lower::Param::Kind::TensorMap ? "tensor_map"
                        : p.kind == lower::Param::Kind::Scalar  ? "scalar"
                                                                 : "global");
    if (const sema::ScalarInfo* sc = r.model.scalar(p.name); sc && p.kind == lower::Param::Kind::Scalar)
      m.key("value").value(sc->value); // the workload contract's value (docs/runs.md)
    m.endObject();
  }
  m.endArray();
  m.key("launch").beginObject();
  m.key("cluster").beginArray();
  for (int i = 0; i < 3; ++i)
    m.value(r.model.grid && i < static_cast<int>(r.model.grid->cluster.size())
                ? r.model.grid->cluster[static_cast<std::size_t>(i)]
                : std::int64_t{1});
  m.endArray();
  m.key("pdl").value(r.model.grid && r.model.grid->pdl);
  m.endObject();
  m.key("files").raw(files.str());
  m.endObject();
  if (ok && !writeFile((dir / "manifest.json").string(), m.str() + "\n", error))
    ok = false;
  if (!ok) {
    std::fprintf(stderr, "cake run: cannot write the bundle: %s\n", error.c_str());
    return 2;
  }
  // The runner will refuse what it cannot read: check here too, so a bug in the writer is
  // caught before a remote queue is involved.
  if (!run::readBundle(dir.string(), error)) {
    std::fprintf(stderr, "cake run: internal error: the bundle does not validate: %s\n",
                 error.c_str());
    return 2;
  }
  return 0;
}

/// The value of option `name` in the raw arguments ("" when absent).
static std::string rawOption(const std::vector<std::string>& all, const std::string& name) {
  for (std::size_t i = 1; i + 1 < all.size(); ++i)
    if (all[i] == name)
      return all[i + 1];
  return {};
}

int cmdRun(const std::string& argv0, const std::vector<std::string>& all) {
  // `--device cpu` on the local executor is the in-process CPU interpreter (CliRunCpu.cpp, its
  // own options); a CPU bundle for a remote executor goes through `cake-run` there, whose CPU
  // device is the same interpreter (app/runner/CpuDevice.cpp).
  // A bundle asked for (--bundle, --bundle-only) is built here in every case.
  // A run to be stored (--workspace, --measurements) goes through `cake-run` as well, so that
  // it has a run record like every other run.
  bool bundleAsked = std::find(all.begin(), all.end(), "--bundle") != all.end() ||
                     std::find(all.begin(), all.end(), "--bundle-only") != all.end() ||
                     !rawOption(all, "--workspace").empty() ||
                     !rawOption(all, "--measurements").empty();
  if (rawOption(all, "--device") == "cpu" && !bundleAsked &&
      (rawOption(all, "--executor").empty() || rawOption(all, "--executor") == "local"))
    return cmdRunCpu(argv0, all);
  Args a = parseArgs(all, 1,
                     {"--device", "--executor", "--timeout", "--format", "--workload", "--bundle",
                      "--runner", "--ssh-config", "--shared-dir", "--remote-tmp", "--workspace",
                      "--measurements", "--actor", "--corpus", "--cuda-home", "--registry",
                      "--targets", "--rules", "--shapes"},
                     {"--bundle-only", "--keep", "--help"});
  if (!a.error.empty())
    return usageError("run", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("run", format, {"text", "json"}, code))
    return code;
  std::string device = a.get("--device", "gpu");
  if (device != "gpu" && device != "cpu")
    return usageError("run", "--device takes gpu or cpu");
  // The CPU device's contract shapes; a GPU run always runs the kernel's own (full) shapes.
  std::string shapes = a.get("--shapes", device == "cpu" ? "small" : "full");
  if (shapes != "small" && shapes != "full")
    return usageError("run", "--shapes takes small or full");
  if (device == "gpu" && shapes != "full")
    return usageError("run", "--shapes small is for the CPU device; a GPU run uses the kernel's "
                             "own shapes");
  double timeout = 600;
  std::string bad;
  if (!realOption(a, "--timeout", 0.1, 7 * 86400, timeout, bad))
    return usageError("run", bad);
  if (a.positional.size() != 1)
    return usageError("run", "give exactly one kernel file");
  const std::string kernelPath = a.positional[0];
  std::string executorSpec = a.get("--executor", "local");
  run::ExecutorOptions eo;
  eo.sshConfig =
      a.get("--ssh-config", std::getenv("CAKE_SSH_CONFIG") ? std::getenv("CAKE_SSH_CONFIG") : "");
  eo.sharedDir =
      a.get("--shared-dir",
            std::getenv("CAKE_SLURM_SHARED_DIR") ? std::getenv("CAKE_SLURM_SHARED_DIR") : "");
  eo.remoteTmp = a.get("--remote-tmp", "/tmp");
  eo.keepFiles = a.has("--keep");
  std::string error;
  auto executor = run::makeExecutor(executorSpec, eo, error);
  if (!executor)
    return usageError("run", error);

  // Ctrl-C or a kill cancels the run: the executor kills the runner (locally, over ssh, or
  // with scancel) before `cake run` exits. Installed before the bundle is built, so that a
  // cancel at any point still ends with a stored "cancelled" record (the executor sees the flag).
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  // The bundle: in --bundle DIR (kept), or a temporary directory removed afterwards.
  fs::path dir;
  bool temporary = !a.options.count("--bundle");
  if (temporary) {
    std::string tmpl = (fs::temp_directory_path() / "cake-bundle-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
      std::fprintf(stderr, "cake run: cannot make a temporary directory\n");
      return 2;
    }
    dir = tmpl;
  } else {
    dir = a.get("--bundle");
  }
  struct Cleanup {
    fs::path dir;
    bool on;
    ~Cleanup() {
      std::error_code ec;
      if (on)
        fs::remove_all(dir, ec);
    }
  } cleanup{dir, temporary && !a.has("--keep")};

  if (int built = buildBundle(argv0, a, kernelPath, device, format, dir); built != 0)
    return built;
  if (a.has("--bundle-only")) {
    std::printf("%s\n", dir.c_str());
    return 0;
  }

  run::ExecRequest req;
  req.bundleDir = dir.string();
  req.runner = a.get("--runner", defaultRunner(argv0));
  req.timeoutSeconds = timeout;
  req.cancel = &g_cancel;
  req.gpu = device == "gpu";
  if (device == "cpu")
    req.runnerArgs = {"--shapes", shapes};
  req.jobName = "cake-run";
  run::ExecResult res = executor->run(req);
  run::RunRecord record;
  if (res.record) {
    record = *res.record;
  } else {
    std::string codeName = res.timedOut    ? "timeout"
                           : res.cancelled ? "cancelled"
                                           : "executor-failed";
    record = run::failureRecord(dir.string(), executor->name(), codeName, res.error);
  }
  if (res.requeues > 0)
    record.warnings.push_back("Slurm requeued the job " + std::to_string(res.requeues) +
                              " time(s) after it had started (node failure or scontrol "
                              "requeue); this record is the last attempt's");
  record.executor = executor->name() +
                    (res.jobId.empty() || executorSpec == "local" ? "" : " (" + res.jobId + ")");
  if (!res.log.empty() && format == "text")
    std::fputs(res.log.c_str(), stderr);
  printRecord(record, format);

  if (a.options.count("--workspace")) {
    auto ws = ws::Workspace::open(a.get("--workspace"), ws::OpenMode::MustExist);
    if (!ws) {
      printWorkspaceError(ws.error(), "text");
      return 2;
    }
    ws::RunRow row;
    row.kernel = record.kernel.empty() ? fs::path(kernelPath).stem().string() : record.kernel;
    // Absolute, so that the workbench (another working directory) finds the kernel again.
    std::error_code pathError;
    row.sourcePath = fs::absolute(kernelPath, pathError).lexically_normal().string();
    row.scheduleHash = record.scheduleHash;
    row.target = record.target;
    row.device = record.device ? record.device->name : device == "cpu" ? "cpu" : "none";
    row.executor = executor->name();
    row.workload = record.workload;
    row.correct = record.correct;
    row.record = run::toJson(record);
    const char* user = std::getenv("USER");
    auto id = ws->addRun(row, a.get("--actor", user && *user ? user : "cake"));
    if (!id) {
      printWorkspaceError(id.error(), "text");
      return 2;
    }
  }
  if (a.options.count("--measurements")) {
    std::string path = a.get("--measurements");
    std::string existing;
    std::error_code ec;
    if (fs::exists(path, ec)) {
      auto t = readFile(path, error, 16u << 20);
      if (!t) {
        std::fprintf(stderr, "cake run: %s\n", error.c_str());
        return 2;
      }
      existing = *t;
    }
    fs::path base = fs::absolute(path, ec).parent_path();
    std::string rel = fs::relative(fs::absolute(kernelPath, ec), base, ec).string();
    auto updated = run::addMeasurement(existing, rel, record, error);
    if (!updated)
      std::fprintf(stderr, "cake run: not added to %s: %s\n", path.c_str(), error.c_str());
    else if (!writeFile(path, *updated, error)) {
      std::fprintf(stderr, "cake run: %s\n", error.c_str());
      return 2;
    }
  }
  return run::exitCodeFor(record);
}

} // namespace cake::cli

namespace cake::cli {

int cmdRuns(const std::string& argv0, const std::vector<std::string>& all) {
  (void)argv0;
  Args a = parseArgs(all, 1, {"--workspace", "--format", "--kernel"}, {"--help"});
  if (!a.error.empty())
    return usageError("runs", a.error);
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("runs", format, {"text", "json"}, code))
    return code;
  if (!a.options.count("--workspace") || !a.positional.empty())
    return usageError("runs", "give --workspace WS (and optionally --kernel NAME)");
  auto ws = ws::Workspace::open(a.get("--workspace"), ws::OpenMode::MustExist);
  if (!ws) {
    printWorkspaceError(ws.error(), format);
    return 2;
  }
  auto rows = ws->runs(a.get("--kernel"));
  if (!rows) {
    printWorkspaceError(rows.error(), format);
    return 2;
  }
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("runs").beginArray();
    for (const ws::RunRow& r : *rows) {
      w.beginObject();
      w.key("id").value(r.id);
      w.key("kernel").value(r.kernel);
      w.key("source_path").value(r.sourcePath);
      w.key("created_at").value(r.createdAt);
      w.key("record").raw(r.record);
      w.endObject();
    }
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
    return 0;
  }
  for (const ws::RunRow& r : *rows) {
    std::string error, median = "-";
    auto rec = run::parseRecord(r.record, error);
    if (rec && rec->stats) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.3f us", rec->stats->median);
      median = buf;
    }
    std::string status = !rec || !rec->errors.empty() ? (rec ? rec->errors.front().code : "?")
                         : !r.correct                 ? "unchecked"
                         : *r.correct                 ? "correct"
                                                      : "INCORRECT";
    std::printf("run %lld  %s  %s  %s on %s via %s  %s  %s\n", static_cast<long long>(r.id),
                r.createdAt.c_str(), r.kernel.c_str(), r.target.c_str(), r.device.c_str(),
                r.executor.c_str(), status.c_str(), median.c_str());
  }
  return 0;
}

} // namespace cake::cli
