// The lowering pass: walks each role's program (the concatenation of its role blocks) and
// emits the thread-level program. Private to cake_lower.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Lower/Lowering.h"
#include "cake/Verify/BarrierPlan.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace cake::lower::detail {

/// How a register tile's elements are distributed over the threads that hold it.
enum class Layout : std::uint8_t {
  Thread,     ///< every element in every thread (scope=thread)
  Replicated, ///< one value shared by the warp or the role, held by every thread
  WarpVector, ///< 1-D warp tile: lane l holds runs of R elements at (j * 32 + l) * R
  MmaAcc,     ///< mma.sync m16n8 accumulator tiles of a warp
  MmaA,       ///< mma.sync A operand (ldmatrix x4 per 16x16 block)
  MmaB,       ///< mma.sync B operand (N x K, ldmatrix x4 per 16 rows of N)
  WgmmaAcc,   ///< wgmma m64nN accumulator of a warpgroup
  WgmmaRow,   ///< one value per accumulator row (2 rows per thread)
  WgmmaCol,   ///< one value per accumulator column (N / 4 per thread)
  TmemRows,   ///< tcgen05.ld 32x32b: lane = row, every column of the row
  Unknown,
};
std::string_view toString(Layout layout);

struct TileLayout {
  Layout kind = Layout::Unknown;
  std::int64_t elements = 0;  ///< per thread
  std::int64_t registers = 0; ///< 32-bit registers per thread
  std::int64_t run = 1;       ///< WarpVector run length
  std::int64_t rows = 0, cols = 0;
};

/// A register tile, or a static slice of one, seen as a contiguous range of a thread's elements.
struct TileView {
  std::size_t buffer = 0;
  int var = -1;
  TileLayout layout; ///< of the view (rows/cols of the view)
  ExprRef offset;    ///< first element of the view within the thread's elements (even)
  ir::DType dtype = ir::DType::F32;
  std::int64_t elements = 0; ///< per thread
};

/// A buffer operand with its subscripts resolved to run-time expressions.
struct Slice {
  std::size_t buffer = 0;
  ExprRef stage; ///< null when unstaged
  std::vector<ExprRef> start;
  std::vector<std::int64_t> extent;
  std::vector<bool> kept;
  std::vector<std::int64_t> shape() const;
};

/// What a template slot renders to: literal text, or asm operands joined by ", ".
struct Binding {
  std::string literal;
  std::vector<AsmOperand> operands;
  bool output = false;
  bool dropQualifier = false; ///< an empty enum value: drop the dotted qualifier holding it
  bool braces = false;        ///< render the operands as a PTX vector `{%a, %b}`
  bool brackets = false;      ///< render the operand as an address `[%a]` (tcgen05.mma's TMEM A)
  bool dropArgument = false;  ///< an argument this instruction variant does not have
};

struct RoleState {
  const sema::RoleInfo* role = nullptr;
  std::size_t index = 0;
  int tid = -1, warp = -1, lane = -1, wg = -1, elected = -1;
  /// Cake loop variables: a run-time loop counter or an unrolled index expression.
  std::map<std::string, ExprRef> loopExprs;
  struct Tile {
    int linear = -1;
    std::vector<int> coords;
  };
  std::map<std::string, Tile> tiles;
  std::vector<int> slot, phase;       ///< per pipeline (model order)
  std::map<std::size_t, int> regVars; ///< reg buffer -> array var
  int temps = 0;
};

class Lowerer {
public:
  Lowerer(const ir::Module& module, const sema::KernelModel& model, const reg::Registry& registry,
          const SourceManager& sources, std::string sourcePath);
  LoweredKernel run();

  // ---- shared state (used by the strategies and the builtin patterns, Lower*.cpp) ----
  const ir::Module& m_module;
  const sema::KernelModel& m_model;
  const reg::Registry& m_registry;
  const SourceManager& m_sources;
  std::string m_sourcePath;
  int m_warpVar = -1, m_laneVar = -1, m_smemVar = -1;
  std::vector<int>* m_roleDecls = nullptr;
  Metadata m_md;
  Program m_p;
  std::vector<Diagnostic> m_findings;
  std::vector<TileLayout> m_layouts; ///< per buffer (reg buffers only)
  RoleState m_role;
  Block* m_cur = nullptr;
  std::vector<int>* m_scopeDecls = nullptr;
  std::uint32_t m_line = 0, m_column = 0;
  const ir::Stmt* m_stmt = nullptr;
  std::map<std::string, int> m_paramIndex;
  std::map<std::string, std::int64_t> m_namedConsts;
  /// Hardware barrier ids (role and warpgroup barriers) and the syncs before partial-scope
  /// releases, shared with the verifier's named-barrier count.
  verify::BarrierPlan m_barrierPlan;
  std::unordered_map<const ir::Stmt*, const sema::OpInfo*> m_opOf; ///< statement -> its op
  std::unordered_map<const ir::Stmt*, const sema::LoopInfo*> m_loopOf; ///< statement -> loop
  /// (async group, role) -> the register buffers that role's ops write through the group
  /// (fenceAsyncRegisters; computed once per key, not once per wait).
  std::map<std::pair<std::string, std::size_t>, std::vector<std::size_t>> m_asyncRegisters;

  // ---- infrastructure ----
  SourceRange range(ir::NodeId id) const;
  void unsupported(const std::string& message);
  int newVar(const std::string& name, Ty ty, int count = 0);
  int temp(Ty ty, const std::string& hint = "t");
  void append(Stmt s);
  void assign(int var, ExprRef index, ExprRef value);
  void assign(int var, ExprRef value) { assign(var, nullptr, std::move(value)); }
  void comment(std::string text);
  void asmStmt(std::string text, std::vector<AsmOperand> outputs, std::vector<AsmOperand> inputs,
               bool memory = true, std::string intrinsic = {});
  /// Emits `body` inside a new block of the given kind; returns the statement appended.
  Stmt& nest(Stmt s, const std::function<void()>& body);
  void ifThen(ExprRef cond, const std::function<void()>& body);
  /// Compile-time unrolled loop; `fn` receives the loop variable.
  void repeat(const std::string& name, std::int64_t count, const std::function<void(ExprRef)>& fn);
  ExprRef named(const std::string& name, std::int64_t value, Ty ty = Ty::I32);

  // ---- expressions ----
  ExprRef lowerExpr(const ir::Expr& e);
  std::optional<std::int64_t> staticValue(const ir::Expr& e) const;
  /// Largest power of two known to divide the expression (1 when unknown, capped at 2^20).
  std::int64_t knownMultiple(const ir::Expr& e) const;
  /// True when `e` cannot be negative (non-negative constants, scalar parameters whose range
  /// starts at 0 or above, builtins, tile coordinates, pipeline members, and +, *, /, cdiv,
  /// min, max, >>, & of such): cdiv then lowers to one division.
  bool nonNegative(const ir::Expr& e) const;

  // ---- operands ----
  Slice slice(const ir::Operand& o, const sema::OperandInfo& info);
  /// Byte offset (U32) of an element of a shared-memory slice, unswizzled, relative to the
  /// start of dynamic shared memory. `rel` has one coordinate per kept dimension.
  ExprRef smemOffset(const Slice& s, const std::vector<ExprRef>& rel);
  /// Byte offset (U32) of an element of a shared-memory slice with the buffer's swizzle
  /// applied (swizzledSmemOffset).
  ExprRef swizzledOffset(const Slice& s, const std::vector<ExprRef>& rel);
  ExprRef smemAddress(ExprRef offset);
  ExprRef globalAddress(const Slice& s, const std::vector<ExprRef>& rel);
  ExprRef barrierAddress(const ir::Operand& o, const sema::OperandInfo& info,
                         ExprRef element = nullptr);
  ExprRef tensorMapAddress(const sema::OperandInfo& info);
  std::optional<TileView> view(const ir::Operand& o, const sema::OperandInfo& info);
  /// Reads element `e` of a view as f32 (floats) or i32 (integers).
  ExprRef readElem(const TileView& v, ExprRef e, std::int64_t half = -1);
  /// Element access of the registers of a view: register index of element `e`.
  ExprRef regIndex(const TileView& v, ExprRef e);
  /// Stores computed values: for packed 16-bit views `values` holds the pair (even, odd).
  void writeElems(const TileView& v, ExprRef firstElement, const std::vector<ExprRef>& values);
  AsmOperand regOperand(const TileView& v, ExprRef reg, char mode) const;
  /// Register `r` of the view (counted from the view's first register).
  AsmOperand viewReg(const TileView& v, ExprRef r, char mode) const;
  /// A template binding of `count` consecutive registers of a view from register `first`
  /// (counted like viewReg); an output unless `mode` is 0.
  Binding viewRegs(const TileView& v, ExprRef first, std::int64_t count, char mode) const;
  /// A template binding of one input operand (an address or a value).
  static Binding single(ExprRef value, char constraint = 'r');
  ExprRef tmemBase(std::size_t buffer);

  // ---- templates ----
  void emitTemplate(const sema::OpInfo& op,
                    const std::function<std::optional<Binding>(const reg::TemplateSlot&)>& bind,
                    const std::string& prefix = {}, const std::string& suffix = {},
                    std::vector<AsmOperand> preOutputs = {},
                    const std::function<std::string(std::string)>& rewrite = {},
                    std::string intrinsic = {}, std::vector<AsmOperand> intrinsicArgs = {});
  std::optional<Binding> defaultBinding(const sema::OpInfo& op, const reg::TemplateSlot& slot);
  /// Emits the asm statements `body` produces as one asm statement (instructions in order,
  /// shared register operands named once): one MMA operation with several K steps becomes one
  /// block, which keeps fragments in place and the LLVM module small.
  void emitMerged(const std::function<void()>& body);

  // ---- structure ----
  void assignLayouts();
  void lowerRole(std::size_t roleIndex);
  void walk(const std::vector<ir::StmtPtr>& body);
  void lowerLoop(const ir::Stmt& s);
  void advancePipeline(const std::string& pipeline);
  /// Advances `pipeline` by `stages` (a constant) at once: slot and phase as after that many
  /// single advances (a ping-pong consumer skipping the other's stages).
  void advancePipelineBy(const std::string& pipeline, std::int64_t stages);
  /// Advances the pipelines of the `skip=` loops in `body` past `tiles` tiles the role does not
  /// own (docs/ir.md, "Per-role tile ownership").
  void skipTiles(const std::vector<ir::StmtPtr>& body, std::int64_t tiles);
  /// Assigns the tile coordinates of linear tile `linear` in the grid's order (raster, group
  /// swizzle): the thread-program form of sema::tileCoords.
  void assignTileCoords(const RoleState::Tile& tile, ExprRef linear);
  bool loopNeedsUnroll(const ir::Stmt& s) const;
  /// A constant loop of at most 4 operations in all (iterations x body): unrolled.
  bool smallLoop(const ir::Stmt& loop, const sema::LoopInfo& info) const;
  void lowerOp(const ir::Stmt& s);
  /// The barrier of the executing role's threads (bar.sync 0 for the whole CTA).
  void roleBarrier();
  /// The sync of the issuing scope in front of a release (BarrierPlan decides where).
  void releaseSync(verify::ReleaseSync sync);

  // ---- strategies (LowerStrategies.cpp) ----
  /// Lowers one operation by its primitive's declared strategy (template, expansion, builtin).
  void lowerOpInfo(const sema::OpInfo& op, const ir::Stmt& s);
  /// The template strategy: once per instance (per barrier element for a whole-array barrier),
  /// per fragment element or per fragment register.
  void lowerTemplate(const sema::OpInfo& op, const ir::Stmt& s);
  void lowerRepeatedTemplate(const sema::OpInfo& op, const ir::Stmt& s);
  /// The expansion strategy: each step lowered as an operation of its own primitive.
  void lowerExpansion(const sema::OpInfo& op, const ir::Stmt& s);
  /// Reports every refusal of the primitive's lowering that holds; true when one did.
  bool refused(const sema::OpInfo& op);
  /// The template lines in effect for this operation (the first variant whose `when` holds).
  struct TemplateRef {
    const std::vector<reg::TemplatePiece>* pieces = nullptr;
    const std::vector<reg::TemplateSlot>* slots = nullptr;
  };
  TemplateRef templateOf(const sema::OpInfo& op) const;

  // ---- builtin patterns (one file per family; the table is in LowerStrategies.cpp) ----
  void opWgmma(const sema::OpInfo& op, const ir::Stmt& s);
  void opMmaSync(const sema::OpInfo& op, const ir::Stmt& s);
  void opLdmatrix(const sema::OpInfo& op, const ir::Stmt& s);
  void opStmatrix(const sema::OpInfo& op, const ir::Stmt& s);
  void opCpAsync(const sema::OpInfo& op, const ir::Stmt& s);
  void opGlobalAccess(const sema::OpInfo& op, const ir::Stmt& s, bool load);
  void opLdShared(const sema::OpInfo& op, const ir::Stmt& s);
  void opStShared(const sema::OpInfo& op, const ir::Stmt& s);
  void opFill(const sema::OpInfo& op, const ir::Stmt& s);
  void opCast(const sema::OpInfo& op, const ir::Stmt& s);
  /// ew.unary (1 input), ew.binary (2), ew.fma (3).
  void opElementwise(const sema::OpInfo& op, const ir::Stmt& s, int inputs);
  void opSoftmaxRescale(const sema::OpInfo& op, const ir::Stmt& s);
  // LowerMask.cpp: the attention score mask (ew.mask)
  void opMask(const sema::OpInfo& op, const ir::Stmt& s);
  void opReduceWarp(const sema::OpInfo& op, const ir::Stmt& s);
  void opReduceCta(const sema::OpInfo& op, const ir::Stmt& s);
  void opArgReduce(const sema::OpInfo& op, const ir::Stmt& s, bool isMin);
  void opEpilogueStore(const sema::OpInfo& op, const ir::Stmt& s);
  /// tcgen05.alloc (alloc) and tcgen05.dealloc.
  void opTcgen05Tmem(const sema::OpInfo& op, const ir::Stmt& s, bool alloc);
  void opTcgen05Mma(const sema::OpInfo& op, const ir::Stmt& s);
  void opTcgen05Ld(const sema::OpInfo& op, const ir::Stmt& s);
  void opTcgen05St(const sema::OpInfo& op, const ir::Stmt& s);
  /// tcgen05.ld (frag = 0, load) / tcgen05.st (frag = 1): 32x32b copies of a warp's [32, C]
  /// fragment, split into power-of-two .num pieces.
  void tmemCopy(const sema::OpInfo& op, const ir::Stmt& s, std::size_t frag, bool load);

  // ---- helpers for ops ----
  const reg::DefValue& attr(const sema::OpInfo& op, std::string_view name) const;
  const ir::Attribute* attrSyntax(const ir::Stmt& s, std::string_view name) const;
  std::string enumAttr(const sema::OpInfo& op, std::string_view name) const;
  std::int64_t intAttr(const sema::OpInfo& op, std::string_view name, std::int64_t fallback) const;
  bool boolAttr(const sema::OpInfo& op, std::string_view name, bool fallback) const;
  double floatAttr(const sema::OpInfo& op, std::string_view name, double fallback) const;
  /// Runs `body` only in the threads that execute one instance of an issue scope.
  void issueGuard(reg::IssueScope scope, const std::function<void()>& body);
  ExprRef combine(const std::string& op, ExprRef a, ExprRef b, bool isFloat);
  ExprRef unaryFn(const std::string& fn, ExprRef x);
  /// Index of the broadcast partner element of element `e` of `dst`.
  std::optional<ExprRef> broadcastIndex(const TileView& dst, const TileView& b,
                                        const std::string& mode, ExprRef e);
  /// Row index (within the thread's row-vector elements) of element e of an accumulator view.
  std::optional<ExprRef> rowOf(const TileView& v, ExprRef e);
  void recordFragment(std::size_t buffer);
  /// After a wait for asynchronous register writes (wgmma.wait, tcgen05.wait_ld): an empty asm
  /// that reads and writes every register those operations target, so that no compiler moves
  /// a use of them above the wait.
  void fenceAsyncRegisters(const std::string& group);
};

/// A slot binder's key: operand `index` with `facet` (binders never match slot names).
inline bool isSlot(const reg::TemplateSlot& slot, std::size_t index, std::string_view facet) {
  return slot.isOperand && slot.index == index && slot.facet == facet;
}
/// Whether a slot is the primitive's attribute `name`.
inline bool isAttrSlot(const sema::OpInfo& op, const reg::TemplateSlot& slot,
                       std::string_view name) {
  auto i = op.primitive->attributeIndex(name);
  return !slot.isOperand && i && slot.index == *i;
}

/// A builtin lowering pattern: the C++ for one entry of reg::builtinPatterns().
using PatternFn = void (*)(Lowerer&, const sema::OpInfo&, const ir::Stmt&);
/// The one table pattern name -> pattern (tst_lower_patterns checks it against the registry's
/// list).
const std::vector<std::pair<std::string_view, PatternFn>>& loweringPatterns();

std::string ptxType(ir::DType t);
std::int64_t elemBytes(ir::DType t);
bool is16Bit(ir::DType t);

} // namespace cake::lower::detail
