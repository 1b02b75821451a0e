// Running ptxas / nvcc / NVRTC and judging their resource reports against the IR.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Lower/Toolchain.h"

#include "cake/Lower/CudaEmitter.h"
#include "cake/Lower/Lowering.h"
#include "cake/Verify/BarrierPlan.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <poll.h>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cake::lower {

namespace fs = std::filesystem;

std::optional<std::string> findCudaTool(const std::string& name, const std::string& cudaHome) {
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p, ec);
  };
  if (!cudaHome.empty()) {
    if (fs::path p = fs::path(cudaHome) / "bin" / name; executable(p))
      return p.string();
    return std::nullopt;
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    if (fs::path p = fs::path(home) / "bin" / name; executable(p))
      return p.string();
  if (fs::path p = fs::path("/usr/local/cuda/bin") / name; executable(p))
    return p.string();
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty())
        if (fs::path p = fs::path(dir) / name; executable(p))
          return p.string();
  }
  return std::nullopt;
}

ToolRun runTool(const std::vector<std::string>& argv, double timeoutSeconds,
                const std::atomic<bool>* cancel) {
  ToolRun run;
  if (argv.empty())
    return run;
  // posix_spawn (a vfork-style clone in glibc) rather than fork: no copy of this process's
  // page tables and no copy-on-write faults afterwards, which would tax an in-process compile
  // that runs next to the tool (and skew `cake lower --benchmark`).
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return run;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills the tool and everything it started.
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  int spawned = ::posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return run;
  }
  ::close(fds[1]);
  run.started = true;
  char buf[4096];
  bool open = true;
  int status = 0;
  bool exited = false;
  struct rusage usage {};
  while (true) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool cancelled = cancel && cancel->load();
    if (cancelled || elapsed > timeoutSeconds) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      run.cancelled = cancelled;
      run.timedOut = !cancelled;
      break;
    }
    if (open) {
      pollfd p{fds[0], POLLIN, 0};
      int r = ::poll(&p, 1, 100);
      if (r > 0) {
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) {
          if (run.output.size() < (8u << 20))
            run.output.append(buf, static_cast<std::size_t>(n));
          continue;
        }
        open = false; // EOF (or error): the child closed its end
      }
    } else {
      ::usleep(1000); // output closed: the tool is exiting
    }
    pid_t w = ::wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) {
      exited = true;
      break;
    }
  }
  if (!exited)
    ::wait4(pid, &status, 0, &usage);
  run.cpuSeconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                   static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  // Drain what is left.
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    run.output.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!run.timedOut && !run.cancelled)
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

PtxasReport parsePtxasOutput(const std::string& output) {
  PtxasReport rep;
  static const std::regex compiling(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::stringstream ss(output);
  std::string line;
  PtxasEntry* cur = nullptr;
  while (std::getline(ss, line)) {
    std::smatch m;
    if (std::regex_search(line, m, compiling)) {
      rep.entries.push_back({});
      cur = &rep.entries.back();
      cur->name = m[1];
      cur->target = m[2];
      continue;
    }
    if (line.find("warning") != std::string::npos) {
      rep.warnings.push_back(line);
      continue;
    }
    if (line.find("error") != std::string::npos && line.find("ptxas info") == std::string::npos) {
      rep.errors.push_back(line);
      continue;
    }
    if (!cur)
      continue;
    if (std::regex_search(line, m, frame)) {
      cur->stackFrame = std::stoll(m[1]);
      cur->spillStores = std::stoll(m[2]);
      cur->spillLoads = std::stoll(m[3]);
      continue;
    }
    if (std::regex_search(line, m, used)) {
      cur->registers = std::stoll(m[1]);
      if (std::regex_search(line, m, barriers))
        cur->barriers = std::stoll(m[1]);
      if (std::regex_search(line, m, smem))
        cur->smemBytes = std::stoll(m[1]);
      if (std::regex_search(line, m, cmem))
        cur->cmemBytes = std::stoll(m[1]);
    }
  }
  return rep;
}

namespace {

std::string tempDir(const EvidenceContext& ctx) {
  if (!ctx.workDir.empty())
    return ctx.workDir;
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

/// A private temporary directory removed when the object dies.
class TempDir {
public:
  explicit TempDir(const std::string& base) {
    std::string templ = base + "/cake-lower-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      m_path = buf.data();
  }
  ~TempDir() {
    if (!m_path.empty()) {
      std::error_code ec;
      fs::remove_all(m_path, ec);
    }
  }
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
};

bool writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

Diagnostic missing(const EvidenceContext& ctx, const std::string& tool) {
  std::string where = ctx.cudaHome.empty()
                          ? "looked in $CUDA_HOME/bin, /usr/local/cuda/bin and PATH"
                          : "looked in " + ctx.cudaHome + " only";
  return makeFinding(LowerId::ToolchainMissing, evidenceKernelRange(ctx),
                     tool + " was not found (" + where +
                         "); install the CUDA toolkit or set CUDA_HOME");
}

void failed(Evidence& ev, const EvidenceContext& ctx, const std::string& tool, const ToolRun& r) {
  std::string first;
  std::stringstream ss(r.output);
  std::string line;
  int n = 0;
  while (std::getline(ss, line) && n < 6)
    if (!line.empty() && line.find("ptxas info") == std::string::npos) {
      first += (n ? "; " : "") + line;
      ++n;
    }
  std::string msg = r.cancelled  ? tool + " was stopped: its job was cancelled"
                    : r.timedOut ? tool + " did not finish within the time limit"
                                 : tool + " rejected the emitted code (exit " +
                                       std::to_string(r.exitCode) + "): " + first;
  ev.findings.push_back(makeFinding(LowerId::ToolchainError, evidenceKernelRange(ctx), msg));
}

std::string arch(const std::string& target) {
  return target;
}

} // namespace

SourceRange evidenceKernelRange(const EvidenceContext& ctx) {
  if (!ctx.module || !ctx.module->kernel)
    return {};
  const ir::Kernel& k = *ctx.module->kernel;
  if (const ir::Attribute* a = k.attribute("target"))
    return ctx.module->sourceMap.range(a->id);
  return ctx.module->sourceMap.range(k.name.id);
}

void judgeResources(Evidence& ev, const EvidenceContext& ctx) {
  if (!ctx.metadata)
    return;
  const Metadata& md = *ctx.metadata;
  SourceRange at = evidenceKernelRange(ctx);
  auto roleNotes = [&](Diagnostic& d) {
    if (!ctx.model || !ctx.module)
      return;
    for (const sema::RoleInfo& r : ctx.model->roles)
      if (r.decl && r.registers)
        d.notes.push_back({ctx.module->sourceMap.range(r.decl->id),
                           "role '" + r.name + "' budgets " + std::to_string(*r.registers) +
                               " registers per thread (setmaxnreg)"});
  };
  std::int64_t expectedBarriers = 1;
  for (const BarrierGroup& b : md.barriers)
    if (b.named)
      expectedBarriers = std::max(expectedBarriers, b.hardwareId + 1);
  // The same plan lowering allocated ids from: role barriers and the per-warpgroup barriers
  // of releases after generic accesses.
  if (ctx.model && ctx.module)
    expectedBarriers =
        std::max(expectedBarriers, verify::planBarriers(*ctx.module, *ctx.model).count);
  std::int64_t limit =
      ctx.model && ctx.model->target ? ctx.model->target->limit("smem_per_cta_bytes") : 0;
  for (const PtxasEntry& e : ev.report.entries) {
    if (e.name != md.kernel)
      continue;
    if (md.launchRegisters > 0 && e.registers > md.launchRegisters) {
      Diagnostic d = makeFinding(
          LowerId::PtxasRegisters, at,
          "ptxas needs " + std::to_string(e.registers) + " registers per thread at entry, but " +
              "the role budgets launch the CTA of " + std::to_string(md.threads) +
              " threads with " + std::to_string(md.launchRegisters));
      roleNotes(d);
      ev.findings.push_back(d);
    } else if (md.launchRegisters == 0 && e.registers * md.threads > 65536) {
      ev.findings.push_back(
          makeFinding(LowerId::PtxasRegisters, at,
                      "ptxas needs " + std::to_string(e.registers) + " registers per thread; " +
                          std::to_string(md.threads) + " threads need " +
                          std::to_string(e.registers * md.threads) +
                          " of the 65536-register file: the CTA cannot be launched"));
    }
    if (e.spillStores || e.spillLoads) {
      Diagnostic d = makeFinding(LowerId::PtxasSpill, at,
                                 "ptxas spills: " + std::to_string(e.spillStores) +
                                     " bytes of spill stores and " + std::to_string(e.spillLoads) +
                                     " bytes of spill loads (" + std::to_string(e.stackFrame) +
                                     " bytes of stack frame) with " + std::to_string(e.registers) +
                                     " registers per thread");
      roleNotes(d);
      ev.findings.push_back(d);
    }
    if (e.smemBytes > 0) {
      std::string over = limit && e.smemBytes + md.smemTotal > limit
                             ? "; with the derived " + std::to_string(md.smemTotal) +
                                   " bytes it exceeds the target's " + std::to_string(limit)
                             : "";
      ev.findings.push_back(
          makeFinding(LowerId::PtxasSmem, at,
                      "the compiled kernel has " + std::to_string(e.smemBytes) +
                          " bytes of static shared memory that the derived table (" +
                          std::to_string(md.smemTotal) +
                          " bytes of dynamic shared memory) does not hold" + over));
    }
    if (e.barriers > expectedBarriers)
      ev.findings.push_back(makeFinding(
          LowerId::PtxasBarriers, at,
          "the compiled kernel uses " + std::to_string(e.barriers) +
              " hardware barriers, but the IR accounts for " + std::to_string(expectedBarriers) +
              " (the CTA barrier, declared nbarriers, role-wide reductions and the syncs before "
              "releases after generic accesses)"));
  }
  for (const std::string& w : ev.report.warnings)
    if (w.find("setmaxnreg") != std::string::npos || w.find("Setmaxnreg") != std::string::npos) {
      Diagnostic d = makeFinding(LowerId::PtxasRegisters, at,
                                 "ptxas did not apply the role register budgets: " + w);
      roleNotes(d);
      ev.findings.push_back(d);
    }
}

void judgeRoleBudget(Evidence& ev, const EvidenceContext& ctx, const std::string& role,
                     const PtxasReport& roleReport) {
  if (!ctx.model || !ctx.module || !ctx.metadata)
    return;
  const sema::RoleInfo* r = ctx.model->role(role);
  if (!r || !r->registers || roleReport.entries.empty())
    return;
  std::int64_t need = 0, spills = 0;
  for (const PtxasEntry& e : roleReport.entries) {
    need = std::max(need, e.registers);
    spills += e.spillStores + e.spillLoads;
  }
  SourceRange at = ctx.module->sourceMap.range(r->decl->id);
  if (const ir::Attribute* a = r->decl->attribute("regs"))
    at = ctx.module->sourceMap.range(a->id);
  if (need > *r->registers) {
    Diagnostic d = makeFinding(
        LowerId::PtxasRegisters, at,
        "role '" + r->name + "' budgets " + std::to_string(*r->registers) +
            " registers per thread, but ptxas needs " + std::to_string(need) +
            " for the role's code alone" +
            (spills ? " (and spills " + std::to_string(spills) + " bytes)" : std::string()));
    d.notes.push_back({evidenceKernelRange(ctx),
                       "the kernel launches with " + std::to_string(ctx.metadata->launchRegisters) +
                           " registers per thread; setmaxnreg then moves them "
                           "between the roles"});
    ev.findings.push_back(d);
  }
}

/// Runs the CUDA tool `name` on `input`, written as `inName` into `dir`; `args(tool, input
/// path, dir)` builds the command line. Fills the run facts of `ev` (tool, log, times); true when
/// the tool ran and succeeded, otherwise the reason is a finding in `ev`.
template <typename Args>
bool runCudaTool(Evidence& ev, const EvidenceContext& ctx, const std::string& name,
                 const std::string& label, const TempDir& dir, const std::string& inName,
                 const std::string& input, Args&& args) {
  auto tool = findCudaTool(name, ctx.cudaHome);
  if (!tool) {
    ev.findings.push_back(missing(ctx, name));
    return false;
  }
  std::string in = dir.path() + "/" + inName;
  if (dir.path().empty() || !writeText(in, input)) {
    ev.findings.push_back(makeFinding(LowerId::ToolchainError, evidenceKernelRange(ctx),
                                      "cannot write the input of " + name +
                                          " to a temporary directory under '" + tempDir(ctx) +
                                          "'"));
    return false;
  }
  ev.tool = label;
  ToolRun r = runTool(args(*tool, in, dir.path()), ctx.timeoutSeconds, ctx.cancel);
  ev.ran = r.started && !r.timedOut && !r.cancelled;
  ev.log = r.output;
  ev.seconds = r.seconds;
  ev.cpuSeconds = r.cpuSeconds;
  ev.ok = ev.ran && r.exitCode == 0;
  if (!ev.ok)
    failed(ev, ctx, name, r);
  return ev.ok;
}

std::vector<RoleNeed> judgeRoleBudgets(
    Evidence& ev, const EvidenceContext& ctx, const Program& program, const Metadata& md,
    const std::function<Evidence(const Program& role, const EvidenceContext& quiet)>& compile) {
  std::vector<RoleNeed> needs;
  if (md.launchRegisters <= 0)
    return needs;
  EvidenceContext quiet = ctx;
  quiet.metadata = nullptr; // the variant is evidence, not a kernel to judge
  for (const RoleDispatch& rd : md.roles) {
    if (!rd.registers || (ctx.cancel && ctx.cancel->load()))
      continue;
    RoleNeed n{rd.name, rd.registers, -1};
    Evidence rev = compile(isolateRole(program, rd.name, rd.threadEnd - rd.threadBegin), quiet);
    if (rev.ok) {
      judgeRoleBudget(ev, ctx, rd.name, rev.report);
      for (const PtxasEntry& e : rev.report.entries)
        n.need = std::max(n.need, e.registers);
    }
    needs.push_back(n);
  }
  return needs;
}

Evidence ptxasEvidence(const std::string& ptx, const std::string& target,
                       const EvidenceContext& ctx, const std::string& cubinPath) {
  Evidence ev;
  std::string out;
  auto args = [&](const std::string& tool, const std::string& in, const std::string& dir) {
    out = cubinPath.empty() ? dir + "/kernel.cubin" : cubinPath;
    return std::vector<std::string>{tool, "-arch=" + arch(target), "-v", in, "-o", out};
  };
  TempDir dir(tempDir(ctx));
  bool ok =
      runCudaTool(ev, ctx, "ptxas", "ptxas -arch=" + target + " -v", dir, "kernel.ptx", ptx, args);
  ev.report = parsePtxasOutput(ev.log);
  if (ok) {
    ev.cubinPath = cubinPath;
    judgeResources(ev, ctx);
  }
  return ev;
}

Evidence nvccEvidence(const std::string& cuda, const std::string& target,
                      const EvidenceContext& ctx, const std::string& cubinPath) {
  Evidence ev;
  std::string num = target.substr(3), out;
  auto args = [&](const std::string& tool, const std::string& in, const std::string& dir) {
    out = cubinPath.empty() ? dir + "/kernel.cubin" : cubinPath;
    std::vector<std::string> argv{
        tool,      "-cubin", "-gencode",   "arch=compute_" + num + ",code=sm_" + num,
        "-Xptxas", "-v",     "-std=c++17", in,
        "-o",      out};
    if (ctx.lineInfo)
      argv.insert(argv.begin() + 1, "-lineinfo");
    return argv;
  };
  TempDir dir(tempDir(ctx));
  std::string label = std::string("nvcc -cubin ") + (ctx.lineInfo ? "-lineinfo " : "") +
                      nvccGencode(target) + " -Xptxas -v";
  bool ok = runCudaTool(ev, ctx, "nvcc", label, dir, "kernel.cu", cuda, args);
  ev.report = parsePtxasOutput(ev.log);
  if (ok) {
    ev.cubinPath = cubinPath;
    judgeResources(ev, ctx);
  }
  return ev;
}

Evidence nvccPtx(const std::string& cuda, const std::string& target, const EvidenceContext& ctx,
                 std::string& ptx) {
  Evidence ev;
  std::string num = target.substr(3), out;
  auto args = [&](const std::string& tool, const std::string& in, const std::string& dir) {
    out = dir + "/kernel.ptx";
    return std::vector<std::string>{tool, "-ptx", "-arch=compute_" + num, "-std=c++17", in,
                                    "-o", out};
  };
  TempDir dir(tempDir(ctx));
  if (!runCudaTool(ev, ctx, "nvcc", "nvcc -ptx -arch=compute_" + num, dir, "kernel.cu", cuda, args))
    return ev;
  std::ifstream f(out, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  ptx = ss.str();
  return ev;
}

// ---------------------------------------------------------------------------- NVRTC

namespace {

// The subset of the NVRTC C API used here (nvrtc.h is not needed at build time: the library is
// loaded at run time so the compiler builds and runs without CUDA).
using nvrtcProgram = struct _nvrtcProgram*;
using CreateFn = int (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                         const char* const*);
using CompileFn = int (*)(nvrtcProgram, int, const char* const*);
using SizeFn = int (*)(nvrtcProgram, std::size_t*);
using GetFn = int (*)(nvrtcProgram, char*);
using DestroyFn = int (*)(nvrtcProgram*);

struct Nvrtc {
  void* handle = nullptr;
  CreateFn create = nullptr;
  CompileFn compile = nullptr;
  SizeFn logSize = nullptr;
  GetFn log = nullptr;
  SizeFn cubinSize = nullptr;
  GetFn cubin = nullptr;
  DestroyFn destroy = nullptr;
  bool ok() const { return create && compile && logSize && log && cubinSize && cubin && destroy; }
};

Nvrtc loadNvrtc(const std::vector<std::string>& candidates) {
  Nvrtc n;
  for (const std::string& c : candidates)
    if ((n.handle = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!n.handle)
    return n;
  n.create = reinterpret_cast<CreateFn>(::dlsym(n.handle, "nvrtcCreateProgram"));
  n.compile = reinterpret_cast<CompileFn>(::dlsym(n.handle, "nvrtcCompileProgram"));
  n.logSize = reinterpret_cast<SizeFn>(::dlsym(n.handle, "nvrtcGetProgramLogSize"));
  n.log = reinterpret_cast<GetFn>(::dlsym(n.handle, "nvrtcGetProgramLog"));
  n.cubinSize = reinterpret_cast<SizeFn>(::dlsym(n.handle, "nvrtcGetCUBINSize"));
  n.cubin = reinterpret_cast<GetFn>(::dlsym(n.handle, "nvrtcGetCUBIN"));
  n.destroy = reinterpret_cast<DestroyFn>(::dlsym(n.handle, "nvrtcDestroyProgram"));
  return n;
}

const Nvrtc& nvrtc(const std::string& cudaHome) {
  // Loaded once per toolkit root; dlopen/dlsym are thread-safe and each table is immutable.
  static std::mutex mutex;
  static std::map<std::string, Nvrtc> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded.find(cudaHome); it != loaded.end())
    return it->second;
  std::vector<std::string> candidates;
  if (!cudaHome.empty()) {
    candidates.push_back(cudaHome + "/lib64/libnvrtc.so");
  } else {
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
      candidates.push_back(std::string(home) + "/lib64/libnvrtc.so");
    candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
    candidates.push_back("libnvrtc.so");
    candidates.push_back("libnvrtc.so.13");
    candidates.push_back("libnvrtc.so.12");
  }
  return loaded.emplace(cudaHome, loadNvrtc(candidates)).first->second;
}

} // namespace

Evidence nvrtcEvidence(const std::string& cuda, const std::string& target,
                       const EvidenceContext& ctx, const std::string& cubinPath) {
  Evidence ev;
  const Nvrtc& n = nvrtc(ctx.cudaHome);
  if (!n.ok()) {
    ev.findings.push_back(missing(ctx, "NVRTC (libnvrtc.so)"));
    return ev;
  }
  ev.tool = "NVRTC --gpu-architecture=" + target + " --ptxas-options=-v";
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  if (n.create(&prog, cuda.c_str(), "kernel.cu", 0, nullptr, nullptr) != 0) {
    ev.findings.push_back(makeFinding(LowerId::ToolchainError, evidenceKernelRange(ctx),
                                      "NVRTC could not create a program"));
    return ev;
  }
  std::string archOpt = "--gpu-architecture=" + target;
  const char* opts[] = {archOpt.c_str(), "--ptxas-options=-v", "-std=c++17"};
  int rc = n.compile(prog, 3, opts);
  std::size_t size = 0;
  n.logSize(prog, &size);
  std::string log(size, '\0');
  if (size)
    n.log(prog, log.data());
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  ev.log = log;
  ev.ran = true;
  ev.ok = rc == 0;
  if (ev.ok && !cubinPath.empty()) {
    std::size_t cs = 0;
    n.cubinSize(prog, &cs);
    std::string bin(cs, '\0');
    if (cs && n.cubin(prog, bin.data()) == 0)
      writeText(cubinPath, bin);
    ev.cubinPath = cubinPath;
  }
  n.destroy(&prog);
  ev.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ev.report = parsePtxasOutput(log);
  if (!ev.ok) {
    ToolRun r;
    r.exitCode = rc;
    r.output = log;
    failed(ev, ctx, "NVRTC", r);
  } else {
    judgeResources(ev, ctx);
  }
  return ev;
}

} // namespace cake::lower
