// The CPU machine that executes a checked kernel: global, shared, tensor and register memory,
// one process per role of each CTA stepping through the role's statements, asynchronous
// operations completing at scheduler-chosen points, and the last writer of every output
// element. Private to cake_interp.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Kernel.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Support/Diagnostic.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cake::interp::detail {

/// Who executes one operation instance.
enum class Grain : std::uint8_t { Thread, Warp, Warpgroup, Role };
const char* toString(Grain g);

/// The last write of an output element.
struct Writer {
  const ir::Stmt* stmt = nullptr;
  std::size_t role = 0;
  Grain grain = Grain::Role;
  std::int64_t instance = 0;
  std::int64_t cta = 0;
  std::vector<std::int64_t> tile; ///< coordinates of the role's current tile (empty outside)
};

/// One operand as a box of its buffer: stage, start and extent per dimension.
struct View {
  sema::EntityKind entity = sema::EntityKind::Buffer;
  std::size_t index = 0; ///< buffer, tensor map or barrier
  std::int64_t stage = 0;
  std::vector<std::int64_t> start, size, dims; ///< dims: the buffer's (or box source's) shape
  std::vector<bool> kept;                     ///< dimension kept (slice or full)
  std::int64_t element = -1;                  ///< barrier element (-1: every element)
  std::int64_t count() const;
  /// Extents of the kept dimensions (the operand's logical shape).
  std::vector<std::int64_t> shape() const;
};

/// Process state of one role in one CTA.
struct Frame {
  const std::vector<ir::StmtPtr>* body = nullptr;
  std::size_t pc = 0;
  const ir::Stmt* loop = nullptr; ///< the for statement this frame iterates (null: top level)
  std::size_t loopIndex = 0;      ///< into model.loops
  std::int64_t value = 0, end = 0, step = 1;
};

struct RoleProc {
  std::size_t role = 0;
  std::vector<const ir::Stmt*> blocks; ///< the `on` blocks that name the role, in order
  std::size_t block = 0;
  std::vector<Frame> frames;
  std::map<std::string, std::int64_t, std::less<>> vars;
  std::map<std::string, std::vector<std::int64_t>, std::less<>> tiles;
  std::vector<std::int64_t> counters; ///< per pipeline
  std::vector<std::int64_t> currentTile;
  bool done = false;
  // Asynchronous groups: open (uncommitted) operations and committed groups, per kind.
  std::vector<std::vector<std::size_t>> cpGroups, wgGroups, bulkGroups;
  std::vector<std::size_t> cpOpen, wgOpen, bulkOpen;
  std::vector<std::size_t> tcIssued; ///< tcgen05.mma operations a later commit tracks
  /// Expansions in progress: the next step of each (a step that waits resumes there).
  std::map<const ir::Stmt*, std::size_t> expansionPos;
};

/// One step of an expansion as an operation of its own: the step's primitive over the outer
/// operation's operands (same source node, so findings and writers name the outer line).
struct ExpandedStep {
  ir::Stmt stmt;
  sema::OpInfo op;
};

/// An asynchronous operation issued and not yet complete.
struct AsyncOp {
  std::function<void()> complete;
  std::size_t role = 0;
  bool done = false;
  /// Operations of one queue complete in issue order (a role's wgmma or tcgen05.mma stream);
  /// 0: unordered (TMA copies, cp.async chunks).
  std::size_t queue = 0;
};

struct MbarrierState {
  std::int64_t phase = 0, pending = 0, tx = 0;
  bool initialised = false;
};

/// The on-chip state of one CTA of the cluster being run: what `Machine` keeps of the CTAs
/// that are not active (Machine::activate swaps it with the active CTA's members).
struct CtaState {
  std::int64_t cta = 0;
  std::vector<float> smem;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<float>> regs;
  std::map<std::size_t, std::vector<float>> tmem;
  std::vector<AsyncOp> async;
  std::vector<std::vector<MbarrierState>> mbarriers;
  std::map<std::size_t, std::vector<std::size_t>> namedArrived;
  std::vector<RoleProc> procs;
};

class Machine;
/// Who executes one instance of `op`: the finest register scope among the written operands
/// and the finest instance variable the subscripts name (MachineOps.cpp).
Grain opGrain(const Machine& m, const sema::OpInfo& op);

/// Runs one kernel over its grid for one interleaving.
class Machine {
public:
  Machine(const ir::Module& module, const sema::KernelModel& model, DiagnosticEngine& diags);

  /// Global tensors by buffer index (empty for non-param buffers); filled by the caller.
  std::vector<std::vector<float>> globals;
  /// Writer id of every element of every output param (0: never written).
  std::vector<std::vector<std::uint32_t>> writerOf;
  std::vector<Writer> writers{Writer{}};

  /// Executes every CTA; `seed` 0 completes asynchronous operations eagerly and runs roles in
  /// order, other seeds choose randomly. False after a blocking finding (no CPU semantics,
  /// deadlock, out-of-bounds access).
  bool run(std::uint64_t seed);
  /// Checked before every CTA: set, the run stops (returns false without a finding).
  const std::atomic<bool>* cancel = nullptr;
  /// Called after every CTA with (CTAs done, CTAs).
  std::function<void(std::int64_t, std::int64_t)> onCta;

  // Used by the operation semantics (MachineOps.cpp).
  const ir::Module& module;
  const sema::KernelModel& model;
  DiagnosticEngine& diags;
  bool failed = false;

  std::optional<std::int64_t> eval(const ir::Expr& e, const RoleProc& p, Grain g,
                                   std::int64_t instance) const;
  std::optional<View> view(const ir::Operand& o, const sema::OperandInfo& info,
                           const RoleProc& p, Grain g, std::int64_t instance);
  /// Element values of a view (register views of instance `inst` of their scope); tensor maps
  /// read their source param with out-of-bounds elements as 0 (TMA fill).
  std::vector<double> gather(const View& v, const RoleProc& p, std::int64_t regInstance,
                             const std::string& swizzleOverride = {});
  /// Writes values rounded to the buffer's dtype; out-of-bounds global elements are skipped.
  void scatter(const View& v, const RoleProc& p, std::int64_t regInstance,
               const std::vector<double>& values, const ir::Stmt& by, Grain g,
               std::int64_t instance, const std::string& swizzleOverride = {});
  /// Instances of `g` in role `r`.
  std::int64_t instances(std::size_t role, Grain g) const;
  /// The instance of register scope `scope` that contains instance `i` of grain `g`.
  std::int64_t regInstance(const std::string& scope, Grain g, std::int64_t i) const;
  Grain scopeGrain(const std::string& scope) const;
  void fail(DiagId id, const ir::Stmt& at, std::string message);
  reg::DefValue attribute(const sema::OpInfo& op, std::string_view name, const RoleProc& p) const;

  std::vector<MbarrierState>& barrier(std::size_t index) { return m_mbarriers[index]; }
  std::size_t issueAsync(RoleProc& p, std::function<void()> complete, std::size_t queue = 0);
  void completeAsync(std::size_t id);
  void arrive(std::size_t barrier, std::int64_t element, std::int64_t count, std::int64_t tx);

  /// The active CTA (its grid index); the other CTAs of its cluster are parked.
  std::int64_t cta = 0;
  /// CTAs per cluster (1 without clusters) and the active CTA's rank in its cluster.
  std::int64_t clusterSize() const { return m_clusterSize; }
  std::size_t rank() const { return m_rank; }
  /// Makes the CTA of rank `r` of the running cluster the active one: its shared memory,
  /// registers, barriers, roles and asynchronous operations become the members above.
  /// References to elements of `procs` and `async` stay valid (the containers are swapped).
  void activate(std::size_t r);
  /// Runs `fn` with rank `r` active, then reactivates the rank that was active.
  void withCta(std::size_t r, const std::function<void()>& fn);
  /// cluster.sync: generation, (CTA, role) arrivals in it, then per CTA x role the
  /// generation it waits in (+1; 0: not waiting).
  std::vector<std::size_t> clusterArrived;
  std::vector<AsyncOp> async;
  std::vector<RoleProc> procs;
  /// Generation barriers (cta.sync: key size_t(-1); bar.sync: the nbarrier): generation, roles
  /// arrived in it, then per role the generation it waits in (+1; 0: not waiting).
  std::map<std::size_t, std::vector<std::size_t>> namedArrived;

private:
  /// Executes the role's next operation; false when the role blocks (state unchanged).
  bool step(RoleProc& p);
  void startCta(std::int64_t cta);
  /// Starts every CTA of the cluster that begins at grid index `first` (rank 0 active).
  void startCluster(std::int64_t first);
  /// Runs the started cluster: every role of every CTA, asynchronous operations of all.
  bool runCluster(std::mt19937_64& rng, bool eager);
  void reportDeadlock();
  /// Exchanges the active CTA's members with `c`.
  void swapActive(CtaState& c);
  void enterLoop(RoleProc& p, const ir::Stmt& s);
  /// Moves the role's pipelines past one tile another role owns (the `skip=` loops of `body`,
  /// times `repeat`): ping-pong consumers (docs/ir.md, "Per-role tile ownership").
  void skipTile(RoleProc& p, const std::vector<ir::StmtPtr>& body, std::int64_t repeat);
  /// The role's tile coordinates of its CTA's tile `j` (in the grid's tile order).
  void setTile(RoleProc& p, const sema::LoopInfo& li, std::int64_t j);
  /// Executes one operation; false when it must wait.
  bool execute(RoleProc& p, const sema::OpInfo& op);
  bool executeSync(RoleProc& p, const sema::OpInfo& op, const std::string& name);
  /// Semantics from registry data (MachineData.cpp): a template primitive's semantic form,
  /// an expansion's steps one after the other.
  bool executeSemanticForm(RoleProc& p, const sema::OpInfo& op);
  bool executeExpansion(RoleProc& p, const sema::OpInfo& op);
  const sema::OpInfo* expansionStep(const sema::OpInfo& op, std::size_t step);
  std::vector<float>& regStorage(std::size_t role, std::size_t buffer);
  std::int64_t physicalSmem(const sema::BufferInfo& b, std::int64_t stage, std::int64_t linear,
                            const std::string& swizzle) const;

  std::map<std::pair<const ir::Stmt*, std::size_t>, std::unique_ptr<ExpandedStep>> m_expanded;
  /// The expansions being executed (outer operation, step), innermost last: named in findings.
  std::vector<std::pair<const sema::OpInfo*, std::size_t>> m_expanding;
  std::map<const ir::Stmt*, std::size_t> m_opIndex;
  std::map<const ir::Stmt*, std::size_t> m_loopIndex;
  std::map<std::string, std::int64_t, std::less<>> m_consts;
  std::vector<float> m_smem; ///< the CTA's shared memory: a value at each element's byte address
  std::map<std::pair<std::size_t, std::size_t>, std::vector<float>> m_regs;
  std::map<std::size_t, std::vector<float>> m_tmem;
  std::vector<std::vector<MbarrierState>> m_mbarriers;
  std::map<std::tuple<const ir::Stmt*, std::size_t, int, std::int64_t, std::int64_t,
                      std::vector<std::int64_t>>,
           std::uint32_t>
      m_writerIds;
  std::vector<CtaState> m_parked; ///< per rank; the active rank's entry is moved out
  std::size_t m_rank = 0;
  std::int64_t m_clusterSize = 1;
  std::int64_t m_ctas = 1;
  std::int64_t m_tileCount = 1;
  std::int64_t m_steps = 0;
};

} // namespace cake::interp::detail
