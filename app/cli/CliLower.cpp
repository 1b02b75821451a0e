// `cake lower`: deterministic lowering of an accepted kernel to derived metadata (JSON),
// LLVM IR / PTX through the in-process LLVM path, CUDA C++ with inline PTX, or a cubin with
// ptxas resource evidence judged against the IR.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "CliSass.h"
#include "CliSupport.h"

#include "cake/Driver/Output.h"
#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Lower/Toolchain.h"
#include "cake/LowerLLVM/LlvmBackend.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>

namespace cake::cli {

namespace {

bool writeOutput(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content;
    if (!content.empty() && content.back() != '\n')
      std::cout << "\n";
    return true;
  }
  std::string error;
  if (writeFile(path, content, error))
    return true;
  std::fprintf(stderr, "cake lower: %s\n", error.c_str());
  return false;
}

SourceRange targetRange(const ir::Module& m) {
  if (!m.kernel)
    return {};
  if (const ir::Attribute* a = m.kernel->attribute("target"))
    return m.sourceMap.range(a->id);
  return m.sourceMap.range(m.kernel->name.id);
}

void printFindings(const std::vector<Diagnostic>& diags, const SourceManager& sources, FILE* to) {
  for (const Diagnostic& d : diags)
    std::fputs(driver::renderText(d, sources).c_str(), to);
}

bool anyBlocking(const std::vector<Diagnostic>& diags) {
  return std::any_of(diags.begin(), diags.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Blocking; });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

int cmdLower(const std::string& argv0, const std::vector<std::string>& all) {
  Args a = parseArgs(all, 1,
                     {"--emit", "-o", "--output", "--via", "--cuda-compiler", "--format", "-O",
                      "--timeout", "--benchmark", "--cuda-home", "--registry", "--targets",
                      "--rules", "--workspace"},
                     {"--no-debug-info", "--help"});
  if (!a.error.empty())
    return usageError("lower", a.error);
  std::string emit = a.get("--emit");
  static const std::vector<std::string> emits = {"llvm",  "ptx",      "cuda",
                                                 "cubin", "metadata", "sass"};
  if (std::find(emits.begin(), emits.end(), emit) == emits.end())
    return usageError("lower", "--emit takes llvm, ptx, cuda, cubin, metadata or sass");
  std::string format = a.get("--format", "text");
  int code = 0;
  if (!checkFormat("lower", format, {"text", "json"}, code))
    return code;
  std::string out = a.get("-o", a.get("--output"));
  std::string via = a.get("--via", "llvm");
  if (via != "llvm" && via != "cuda")
    return usageError("lower", "--via takes llvm or cuda");
  // The CUDA path compiles in-process with NVRTC by default; nvcc is the alternative.
  std::string cudaCompiler = a.get("--cuda-compiler", "nvrtc");
  if (cudaCompiler != "nvcc" && cudaCompiler != "nvrtc")
    return usageError("lower", "--cuda-compiler takes nvcc or nvrtc");
  long long optLevel = 3;
  double timeout = 120;
  long long benchmark = 0;
  std::string bad;
  // Strict: "nan" or "inf" would disable the ptxas timeout, "3x" was read as 3.
  if (!integerOption(a, "-O", 0, 3, optLevel, bad) ||
      !realOption(a, "--timeout", 0.001, 86400, timeout, bad) ||
      !integerOption(a, "--benchmark", 0, 100, benchmark, bad))
    return usageError("lower", bad);
  if (a.positional.size() != 1)
    return usageError("lower", "give exactly one kernel file");
  auto compiler = loadCompiler(argv0, a, format);
  if (!compiler)
    return 2;
  const std::string& path = a.positional[0];
  std::string error;
  auto text = readFile(path, error, 64u << 20);
  if (!text) {
    std::fprintf(stderr, "cake: error: cannot read '%s': %s\n", path.c_str(), error.c_str());
    return 2;
  }
  driver::CheckResult r = compiler->check(path, *text);
  if (!r.accepted) {
    std::vector<Diagnostic> blocking;
    for (const Diagnostic& d : r.diagnostics)
      if (d.severity == Severity::Blocking)
        blocking.push_back(d);
    printFindings(blocking, *r.sources, stderr);
    std::fprintf(stderr, "cake lower: '%s' has blocking findings; it is not lowered\n",
                 path.c_str());
    return 1;
  }

  auto t0 = std::chrono::steady_clock::now();
  lower::LoweredKernel lk =
      lower::lowerKernel(r.module, r.model, compiler->registry(), *r.sources, path);
  double lowerSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!lk.ok) {
    printFindings(lk.findings, *r.sources, stderr);
    std::fprintf(stderr, "cake lower: lowering cannot emit '%s' (see above)\n", path.c_str());
    return 1;
  }
  const std::string& target = lk.program.target;
  lower::Provenance prov{path, driver::Compiler::version(), compiler->revision()};

  if (emit == "metadata") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").value(compiler->revision());
    w.key("path").value(path);
    w.key("metadata");
    lower::writeJson(w, lk.metadata);
    w.endObject();
    return writeOutput(out, w.str() + "\n") ? 0 : 2;
  }
  if (emit == "cuda")
    return writeOutput(out, lower::emitCuda(lk.program, lk.metadata, prov)) ? 0 : 2;

  lower::EvidenceContext ctx;
  ctx.module = &r.module;
  ctx.model = &r.model;
  ctx.metadata = &lk.metadata;
  ctx.timeoutSeconds = timeout;
  ctx.cudaHome = a.get("--cuda-home");

  // The LLVM path states what it cannot emit; it never falls back to another target or path.
  bool wantLlvm =
      emit == "llvm" || emit == "ptx" || ((emit == "cubin" || emit == "sass") && via == "llvm");
  if (wantLlvm && !lower::llvmSupportsTarget(target)) {
    Diagnostic d = lower::makeFinding(
        lower::LowerId::LoweringUnsupported, targetRange(r.module),
        "LLVM path: " + target + " is not available in LLVM " + lower::llvmVersion() +
            " (its NVPTX back end emits up to sm_90a); use the CUDA path (--emit cuda, or "
            "--emit cubin --via cuda)");
    printFindings({d}, *r.sources, stderr);
    return 1;
  }
  if (emit == "sass") {
    SassRequest q;
    q.check = &r;
    q.lowered = &lk;
    q.provenance = &prov;
    q.context = &ctx;
    q.targetRange = targetRange(r.module);
    q.path = path;
    q.revision = compiler->revision();
    q.format = format;
    q.output = out;
    q.viaCuda = via == "cuda";
    q.optLevel = static_cast<int>(optLevel);
    return emitSass(q);
  }

  lower::LlvmOptions lo;
  lo.optLevel = static_cast<int>(optLevel);
  lo.debugInfo = !a.has("--no-debug-info");
  lo.wantIr = emit == "llvm";
  lo.wantPtx = emit != "llvm";

  if (benchmark > 0) {
    // Time to PTX: the in-process LLVM path (lowering + module + O3 + codegen) against
    // `nvcc -ptx` on the exported CUDA, measured side by side in this run.
    if (!lower::llvmSupportsTarget(target)) {
      std::fprintf(stderr, "cake lower: --benchmark needs a target of the LLVM path\n");
      return 1;
    }
    std::string cuda = lower::emitCuda(lk.program, lk.metadata, prov);
    std::vector<double> llvmTimes, nvccTimes, lowerTimes, buildTimes, optTimes, codegenTimes;
    std::vector<double> llvmCpu, nvccCpu;
    auto threadCpu = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
    };
    std::size_t ptxBytes = 0, nvccPtxBytes = 0;
    // The LLVM path runs first, `benchmark` times in a row in this process (as in a compile
    // server or the workbench, where the path stays warm); its first, cold run is reported on
    // its own. Then nvcc, `benchmark` times.
    for (long long i = 0; i < benchmark; ++i) {
      auto s = std::chrono::steady_clock::now();
      double c0 = threadCpu();
      lower::LoweredKernel again =
          lower::lowerKernel(r.module, r.model, compiler->registry(), *r.sources, path);
      lowerTimes.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
      lower::LlvmResult res = lower::emitLlvm(again.program, lo);
      buildTimes.push_back(res.buildSeconds);
      optTimes.push_back(res.optSeconds);
      codegenTimes.push_back(res.codegenSeconds);
      llvmTimes.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
      llvmCpu.push_back(threadCpu() - c0);
      if (!res.ok) {
        std::fprintf(stderr, "cake lower: LLVM path failed: %s\n", res.error.c_str());
        return 1;
      }
      ptxBytes = res.ptx.size();
    }
    for (long long i = 0; i < benchmark; ++i) {
      std::string ptx;
      lower::Evidence ev = lower::nvccPtx(cuda, target, ctx, ptx);
      if (!ev.ok) {
        printFindings(ev.findings, *r.sources, stderr);
        return 1;
      }
      nvccTimes.push_back(ev.seconds);
      nvccCpu.push_back(ev.cpuSeconds);
      nvccPtxBytes = ptx.size();
    }
    double l = median(llvmTimes), n = median(nvccTimes);
    json::Writer w;
    w.beginObject();
    w.key("kernel").value(lk.program.name);
    w.key("target").value(target);
    w.key("runs").value(static_cast<std::int64_t>(benchmark));
    w.key("llvm_path_seconds_median").value(l);
    w.key("nvcc_ptx_seconds_median").value(n);
    w.key("speedup").value(l > 0 ? n / l : 0.0);
    w.key("llvm_path_first_run_seconds").value(llvmTimes.front());
    w.key("speedup_first_run").value(llvmTimes.front() > 0 ? n / llvmTimes.front() : 0.0);
    double lc = median(llvmCpu), nc = median(nvccCpu);
    w.key("llvm_path_cpu_seconds_median").value(lc);
    w.key("nvcc_ptx_cpu_seconds_median").value(nc);
    w.key("cpu_speedup").value(lc > 0 ? nc / lc : 0.0);
    w.key("llvm_path_breakdown_median").beginObject();
    w.key("lower").value(median(lowerTimes));
    w.key("module").value(median(buildTimes));
    w.key("o3").value(median(optTimes));
    w.key("codegen").value(median(codegenTimes));
    w.endObject();
    w.key("llvm_ptx_bytes").value(static_cast<std::uint64_t>(ptxBytes));
    w.key("nvcc_ptx_bytes").value(static_cast<std::uint64_t>(nvccPtxBytes));
    w.key("llvm_path_seconds").beginArray();
    for (double x : llvmTimes)
      w.value(x);
    w.endArray();
    w.key("nvcc_ptx_seconds").beginArray();
    for (double x : nvccTimes)
      w.value(x);
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
    return 0;
  }

  std::string ptx;
  if (wantLlvm) {
    lower::LlvmResult res = lower::emitLlvm(lk.program, lo);
    if (!res.ok) {
      Diagnostic d = lower::makeFinding(lower::LowerId::LoweringUnsupported, targetRange(r.module),
                                        "LLVM path: " + res.error);
      printFindings({d}, *r.sources, stderr);
      return 1;
    }
    if (emit == "llvm")
      return writeOutput(out, res.ir) ? 0 : 2;
    if (emit == "ptx")
      return writeOutput(out, res.ptx) ? 0 : 2;
    ptx = std::move(res.ptx);
  }

  // --emit cubin: ptxas (LLVM path) or nvcc / NVRTC (CUDA path) with resource evidence.
  std::string cubin = out == "-" ? std::string() : out;
  lower::Evidence ev;
  if (via == "llvm")
    ev = lower::ptxasEvidence(ptx, target, ctx, cubin);
  else if (cudaCompiler == "nvrtc")
    ev = lower::nvrtcEvidence(lower::emitCuda(lk.program, lk.metadata, prov), target, ctx, cubin);
  else
    ev = lower::nvccEvidence(lower::emitCuda(lk.program, lk.metadata, prov), target, ctx, cubin);
  // Register budgets: what ptxas needs for each budgeted role's code alone.
  std::vector<lower::RoleNeed> roleNeeds;
  if (ev.ok)
    roleNeeds = lower::judgeRoleBudgets(
        ev, ctx, lk.program, lk.metadata,
        [&](const lower::Program& variant, const lower::EvidenceContext& quiet) {
          if (via == "llvm") {
            lower::LlvmResult vr = lower::emitLlvm(variant, lo);
            return vr.ok ? lower::ptxasEvidence(vr.ptx, target, quiet) : lower::Evidence{};
          }
          std::string cuda = lower::emitCuda(variant, lk.metadata, prov);
          return cudaCompiler == "nvrtc" ? lower::nvrtcEvidence(cuda, target, quiet)
                                         : lower::nvccEvidence(cuda, target, quiet);
        });
  bool blocking = anyBlocking(ev.findings);
  if (format == "json") {
    json::Writer w;
    w.beginObject();
    w.key("compiler_revision").value(compiler->revision());
    w.key("path").value(path);
    w.key("kernel").value(lk.program.name);
    w.key("target").value(target);
    w.key("via").value(via == "llvm" ? "llvm" : cudaCompiler);
    w.key("tool").value(ev.tool);
    w.key("ok").value(ev.ok && !blocking);
    w.key("lower_seconds").value(lowerSeconds);
    w.key("tool_seconds").value(ev.seconds);
    w.key("cubin");
    if (ev.ok && !cubin.empty())
      w.value(cubin);
    else
      w.null();
    w.key("derived").beginObject();
    w.key("smem_bytes").value(lk.metadata.smemTotal);
    w.key("launch_registers").value(lk.metadata.launchRegisters);
    w.key("threads").value(lk.metadata.threads);
    w.endObject();
    w.key("entries").beginArray();
    writePtxasEntries(w, ev.report.entries);
    w.endArray();
    w.key("roles").beginArray();
    for (const lower::RoleNeed& n : roleNeeds) {
      if (n.need < 0)
        continue; // that role's compile failed: no evidence
      w.beginObject();
      w.key("name").value(n.role);
      w.key("budget").value(n.budget);
      w.key("ptxas_registers").value(n.need);
      w.endObject();
    }
    w.endArray();
    w.key("warnings").beginArray();
    for (const std::string& s : ev.report.warnings)
      w.value(s);
    w.endArray();
    w.key("findings").beginArray();
    for (const Diagnostic& d : ev.findings)
      driver::writeJson(w, d, *r.sources);
    w.endArray();
    w.endObject();
    std::cout << w.str() << "\n";
  } else {
    printFindings(ev.findings, *r.sources, stdout);
    for (const lower::PtxasEntry& e : ev.report.entries)
      std::printf("%s: %s (%s): %lld registers, %lld barriers, %lld bytes static smem + %lld "
                  "derived dynamic, %lld bytes spill stores, %lld bytes spill loads\n",
                  ev.tool.c_str(), e.name.c_str(), e.target.c_str(),
                  static_cast<long long>(e.registers), static_cast<long long>(e.barriers),
                  static_cast<long long>(e.smemBytes),
                  static_cast<long long>(lk.metadata.smemTotal),
                  static_cast<long long>(e.spillStores), static_cast<long long>(e.spillLoads));
    for (const lower::RoleNeed& n : roleNeeds)
      if (n.need >= 0)
        std::printf("role %s: budget %lld registers, ptxas needs %lld for the role's code alone\n",
                    n.role.c_str(), static_cast<long long>(n.budget),
                    static_cast<long long>(n.need));
    for (const std::string& s : ev.report.warnings)
      std::printf("%s\n", s.c_str());
    std::printf("%s: %s\n", path.c_str(),
                !ev.ok     ? "not compiled"
                : blocking ? "compiled, contradicts the IR"
                           : "compiled");
  }
  return ev.ok && !blocking ? 0 : 1;
}

} // namespace cake::cli
