// The NVIDIA toolchain as evidence: locating ptxas / nvcc / NVRTC, running them with a timeout,
// parsing ptxas resource usage per entry and turning contradictions with the IR (register
// budgets, spills, shared memory, barriers) into located findings. A missing tool is a finding,
// never a crash. No process-global state is changed: safe for concurrent background jobs.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Lower/Metadata.h"
#include "cake/Lower/ThreadProgram.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Support/Diagnostic.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cake::lower {

/// Looks for a CUDA tool in $CUDA_HOME/bin, /usr/local/cuda/bin, then PATH; with `cudaHome`
/// only in `cudaHome`/bin (an explicit toolkit, e.g. `cake lower --cuda-home DIR`).
std::optional<std::string> findCudaTool(const std::string& name, const std::string& cudaHome = {});

struct ToolRun {
  bool started = false;
  bool timedOut = false;
  bool cancelled = false; ///< killed because `cancel` was set
  int exitCode = -1;
  std::string output;      ///< stdout and stderr together
  double seconds = 0.0;    ///< wall clock
  double cpuSeconds = 0.0; ///< user + system time of the tool and the processes it waited for
};

/// Runs argv[0] (an absolute path) with a wall-clock limit; the child is killed on timeout, or
/// within about 100 ms of `cancel` becoming true (a superseded background job).
ToolRun runTool(const std::vector<std::string>& argv, double timeoutSeconds,
                const std::atomic<bool>* cancel = nullptr);

/// Resource usage of one entry as ptxas -v reports it.
struct PtxasEntry {
  std::string name;
  std::string target;
  std::int64_t registers = 0;
  std::int64_t barriers = 0;
  std::int64_t smemBytes = 0; ///< static shared memory
  std::int64_t cmemBytes = 0;
  std::int64_t stackFrame = 0;
  std::int64_t spillStores = 0, spillLoads = 0;
};

struct PtxasReport {
  std::vector<PtxasEntry> entries;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
};

/// Parses `ptxas -v` (also nvcc -Xptxas -v and NVRTC logs).
PtxasReport parsePtxasOutput(const std::string& output);

/// What the toolchain run produced.
struct Evidence {
  bool ran = false; ///< the tool ran to completion
  bool ok = false;  ///< it accepted the input
  std::string tool; ///< command line (for logs)
  std::string log;
  double seconds = 0.0;
  double cpuSeconds = 0.0;
  PtxasReport report;
  std::vector<Diagnostic> findings;
  std::string cubinPath;
};

/// Inputs to judge ptxas figures against the IR.
struct EvidenceContext {
  const ir::Module* module = nullptr;
  const sema::KernelModel* model = nullptr;
  const Metadata* metadata = nullptr;
  double timeoutSeconds = 120.0;
  std::string workDir;  ///< where temporary files go (default: $TMPDIR or /tmp)
  std::string cudaHome; ///< explicit CUDA toolkit root (default: search, see findCudaTool)
  const std::atomic<bool>* cancel = nullptr; ///< kills the tool when set (a superseded job)
  /// nvcc: keep the source line info in the cubin (`-lineinfo`, for SASS line links); ptxas
  /// keeps PTX `.loc` line info without a flag.
  bool lineInfo = false;
};

/// Where a toolchain finding about the whole kernel points: its `target=` attribute, else its
/// name (empty without a module).
SourceRange evidenceKernelRange(const EvidenceContext& ctx);

/// Assembles PTX with `ptxas -arch=<target> -v`; writes the cubin to `cubinPath` when given.
Evidence ptxasEvidence(const std::string& ptx, const std::string& target,
                       const EvidenceContext& ctx, const std::string& cubinPath = {});

/// Compiles CUDA C++ with nvcc (`-cubin` with the exact -gencode and -Xptxas -v) or, with
/// `syntaxOnly`, just checks that it compiles (`-c`).
Evidence nvccEvidence(const std::string& cuda, const std::string& target,
                      const EvidenceContext& ctx, const std::string& cubinPath = {});

/// Compiles CUDA C++ in-process with NVRTC (libnvrtc loaded at run time) to a cubin.
Evidence nvrtcEvidence(const std::string& cuda, const std::string& target,
                       const EvidenceContext& ctx, const std::string& cubinPath = {});

/// `nvcc -ptx` of CUDA C++ (the reference path of the speed comparison); returns the PTX.
Evidence nvccPtx(const std::string& cuda, const std::string& target, const EvidenceContext& ctx,
                 std::string& ptx);

/// Compares the report with the IR and adds findings (registers, spills, smem, barriers).
void judgeResources(Evidence& ev, const EvidenceContext& ctx);

/// Judges one role's register budget against what ptxas needs for that role's code alone
/// (`roleReport`, from compiling isolateRole()): a budget below the need is hw-ptxas-registers,
/// located at the role's `regs=` attribute.
void judgeRoleBudget(Evidence& ev, const EvidenceContext& ctx, const std::string& role,
                     const PtxasReport& roleReport);

/// What ptxas needs for one budgeted role's code alone.
struct RoleNeed {
  std::string role;
  std::int64_t budget = 0; ///< the role's `regs=`
  std::int64_t need = -1;  ///< registers; -1: the role's compile failed or was cancelled
};

/// The register budgets of a kernel that re-budgets with setmaxnreg: each budgeted role's code
/// alone (isolateRole) compiled by `compile` (handed a context that judges nothing), then
/// judgeRoleBudget into `ev`. Roles are skipped once ctx.cancel is set.
std::vector<RoleNeed> judgeRoleBudgets(
    Evidence& ev, const EvidenceContext& ctx, const Program& program, const Metadata& md,
    const std::function<Evidence(const Program& role, const EvidenceContext& quiet)>& compile);

} // namespace cake::lower
