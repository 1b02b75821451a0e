// The thread-level device program that lowering produces from a checked kernel: typed scalar
// variables and register arrays, structured control flow, scalar arithmetic and inline PTX.
// Both back ends consume it: the CUDA C++ emitter prints it, the LLVM back end builds an NVPTX
// module from it; tests/lower/backend_diff.py checks that the two agree (docs/lowering.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cake::lower {

/// Scalar types of the thread program. 16-bit elements live packed in U32 registers.
enum class Ty : std::uint8_t { Pred, I32, U32, I64, U64, F32 };
std::string_view toString(Ty ty);
bool isInteger(Ty ty);
unsigned bitWidth(Ty ty);

/// Operations of scalar expressions. Integer operations follow C semantics of their operand
/// type (signed division truncates toward zero, `Shr` is arithmetic on I32/I64 and logical on
/// U32/U64); comparisons yield Pred.
enum class Op : std::uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Shl,
  Shr,
  And,
  Or,
  Xor,
  Min,
  Max,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Neg,
  Not, ///< unary: arithmetic negation, bitwise/logical not
};
std::string_view toString(Op op);

/// Special values read from the hardware or the launch.
enum class Special : std::uint8_t {
  ThreadIdx, ///< %tid.x
  BlockIdx,  ///< %ctaid.x
  GridDim,   ///< %nctaid.x
  SmemBase,  ///< shared-space address of the dynamic shared-memory window (U32)
};

struct Expr;
using ExprRef = std::shared_ptr<const Expr>;

/// A side-effect-free scalar expression tree.
struct Expr {
  enum class Kind : std::uint8_t {
    Const,   ///< integer constant (`value`) of `ty`, optionally named (`name`: a derived constant)
    FConst,  ///< f32 constant (`fvalue`)
    Var,     ///< scalar variable or array element `var[index]`
    Param,   ///< kernel parameter `param`: a global pointer (U64) or a tensor map's address
    Special, ///< hardware value
    Unary,
    Binary,
    Select,  ///< args: cond, then, else
    Convert, ///< numeric conversion of args[0] to `ty` (int<->int, int<->float, f32<->f32)
    Bitcast, ///< same-width reinterpretation (U32 <-> F32)
    Call,    ///< pure function `name` of args (see findPureFunction)
  };
  Kind kind = Kind::Const;
  Ty ty = Ty::I32;
  std::int64_t value = 0;
  float fvalue = 0.0f;
  std::string name; ///< Const: symbolic name printed by the CUDA emitter; Call: function
  int var = -1;     ///< Var: variable index; Param: parameter index
  Special special = Special::ThreadIdx;
  Op op = Op::Add;
  std::vector<ExprRef> args; ///< Var: [index] for arrays
};

/// A variable declared in a block: scalar (`count == 0`) or a register array.
struct Var {
  std::string name;
  Ty ty = Ty::I32;
  int count = 0;
  /// Loop counters of For/Repeat are declared by their loop.
  bool loopVar = false;
};

/// Kernel parameter.
struct Param {
  /// Scalar: a run-time scalar parameter passed by value (`dtype` i32/u32/i64/u64; read as
  /// I32 by expressions).
  enum class Kind : std::uint8_t { GlobalPtr, TensorMap, Scalar };
  std::string name;
  Kind kind = Kind::GlobalPtr;
  ir::DType dtype = ir::DType::F32;
  bool readOnly = false;
};

/// One operand of an inline PTX statement. Outputs name a variable element; inputs an expression.
struct AsmOperand {
  /// 'r' (32-bit), 'l' (64-bit), 'f' (f32), 'n' (immediate, inputs only).
  char constraint = 'r';
  /// Outputs: '=' write-only, '+' read-write.
  char mode = '=';
  int var = -1;
  ExprRef index; ///< array element (constant after unrolling)
  ExprRef value; ///< inputs
};

struct Stmt;
using Block = std::vector<Stmt>;

/// A statement. `line`/`column` locate it in the `.cake` source (0: derived code).
struct Stmt {
  enum class Kind : std::uint8_t {
    Assign,  ///< var[index] = value
    Asm,     ///< inline PTX (`text` uses %0, %1, ... for operands: outputs first)
    Intrin,  ///< a hardware operation with a known NVVM intrinsic (`intrinsic`, `text` is its PTX)
    For,     ///< for (var = begin; var < end; var += step) body   (run-time loop)
    Repeat,  ///< compile-time unrolled: for var in 0..count
    If,      ///< if (cond) body else elseBody
    Scope,   ///< { declarations; body }
    Comment, ///< a line of explanation (CUDA only)
  };
  Kind kind = Kind::Comment;
  std::uint32_t line = 0, column = 0;

  // Assign
  int var = -1;
  ExprRef index;
  ExprRef value;

  // Asm / Intrin
  std::string text;
  std::vector<AsmOperand> outputs;
  std::vector<AsmOperand> inputs;
  bool memory = true; ///< clobbers memory (ordering against other memory operations)
  std::string intrinsic;

  // For / Repeat
  int loopVar = -1;
  ExprRef begin, end, step;
  int count = 0;

  // If
  ExprRef cond;

  // For / Repeat / If (then) / Scope
  Block body;
  Block elseBody;
  /// Scope: variables declared at its start.
  std::vector<int> decls;

  std::string comment;
};

/// A lowered kernel.
struct Program {
  std::string name;
  std::string target; ///< exact target, e.g. sm_90a
  std::string sourcePath;
  std::vector<Param> params;
  std::vector<Var> vars;
  Block body;
  std::int64_t threads = 0;   ///< CTA size (launch bounds)
  std::int64_t smemBytes = 0; ///< dynamic shared memory
  /// Registers per thread the kernel is launched with when roles re-budget with setmaxnreg
  /// (0: left to ptxas).
  std::int64_t launchRegisters = 0;
  /// CTAs per cluster along x, y, z (all 1 without clusters): PTX `.reqnctapercluster` and
  /// `.explicitcluster`, CUDA `__cluster_dims__`; the runner launches with the same dims.
  std::int64_t cluster[3] = {1, 1, 1};
  /// Named constants referenced by Const expressions (name, value), in emission order.
  std::vector<std::pair<std::string, std::int64_t>> constants;
};

/// A side-effect-free helper both emitters know: the CUDA emitter defines it as an inline-PTX
/// device function (or a CUDA intrinsic), the LLVM back end emits an NVVM intrinsic where LLVM
/// has one and the same PTX as inline assembly otherwise.
struct PureFunction {
  std::string_view name;
  std::string_view ptx; ///< %0 = result, %1.. = arguments
  Ty result;
  std::vector<Ty> args;
  std::string_view nvvmIntrinsic; ///< empty when LLVM 19 has none
};
const PureFunction* findPureFunction(std::string_view name);
const std::vector<PureFunction>& pureFunctions();

/// Removes assignments nobody reads (repeatedly) and declarations of unused variables, so the
/// emitted code carries no dead role builtins (tid, wg, ...).
void removeDeadCode(Program& program);

/// Structural equality of expressions.
bool sameExpr(const Expr& a, const Expr& b);
/// Merges adjacent `if` statements with the same condition (consecutive operations of one
/// elected thread become one guarded block).
void mergeGuards(Block& block);

/// The kernel with only one role's code (the other role branches and the setmaxnreg of the
/// role removed, launched with `threads` threads): ptxas then reports what that role needs on
/// its own, the evidence a register budget is judged against.
Program isolateRole(const Program& program, const std::string& role, std::int64_t threads);

/// A shared-memory buffer as addressing sees it.
struct SmemLayout {
  std::string name; ///< named constant of its offset (`SMEM_A_S`; `<name>_STAGE_BYTES`)
  std::int64_t offset = 0;
  std::int64_t stageBytes = 0;
  std::int64_t elemBytes = 1;
  std::vector<std::int64_t> shape;
  /// Swizzle<B, 4, 3> mask: 7 (128B), 3 (64B), 1 (32B), 0 (none).
  std::int64_t swizzleMask = 0;
  /// The expressions of `offset` and `stageBytes` (default: constants named after `name`).
  ExprRef offsetExpr, stageBytesExpr;
};
/// Byte offset (U32) of element `coord` of stage `stage` (null: unstaged) of a buffer, with the
/// buffer's swizzle applied to the whole offset as the TMA unit does. Where every row is at
/// most one swizzle span and rows, stages and the buffer start on span boundaries, the
/// row part and the column bytes are kept apart (same address, fewer operations; buffer and
/// stage offsets drop out of the XOR bits when they are multiples of the swizzle atom).
ExprRef swizzledSmemOffset(const SmemLayout& l, const ExprRef& stage,
                           const std::vector<ExprRef>& coord);

/// An integer expression as a sum of coefficients times atoms (variables, hardware values,
/// non-linear subexpressions) plus a constant, for splitting an address into a base register
/// and an immediate offset. Integer arithmetic follows C: signed overflow does not happen, so
/// a sign extension (I32 -> 64 bits) distributes over a signed sum; other widenings, and
/// everything that is not +, -, negation, or * / << by a constant, are atoms.
struct AffineTerm {
  std::string key; ///< canonical text of the atom (equal atoms share one term)
  const Expr* atom = nullptr;
  std::int64_t coeff = 0;
  bool sext = false; ///< the atom is sign-extended from 32 bits to the expression's width
};
struct AffineForm {
  std::vector<AffineTerm> terms;
  std::int64_t constant = 0;
};
/// Loop variables bound to compile-time values (unrolled loops), by variable index.
using BoundValues = std::function<std::optional<std::int64_t>(int var)>;
/// The affine form of `e` (nullopt when a coefficient grows beyond 2^40).
std::optional<AffineForm> affineForm(const Expr& e, const BoundValues& bound);
/// Canonical text of an expression: structurally equal expressions (with the same bound
/// values) have equal keys.
std::string exprKey(const Expr& e, const BoundValues& bound);

// ---- builders --------------------------------------------------------------------------------
namespace ex {
ExprRef i32(std::int64_t v);
ExprRef u32(std::int64_t v);
ExprRef u64(std::int64_t v);
ExprRef named(std::string name, std::int64_t v, Ty ty = Ty::I32);
ExprRef f32(float v);
ExprRef var(const Program& p, int v);
ExprRef elem(const Program& p, int v, ExprRef index);
ExprRef param(const Program& p, int index);
ExprRef special(Special s);
ExprRef bin(Op op, ExprRef a, ExprRef b);
ExprRef un(Op op, ExprRef a);
ExprRef select(ExprRef c, ExprRef a, ExprRef b);
ExprRef convert(ExprRef a, Ty to);
ExprRef bitcast(ExprRef a, Ty to);
ExprRef call(std::string_view fn, std::vector<ExprRef> args);
/// Division / remainder of a value known to be non-negative (lane, warp, thread and tile
/// indices): shifts and masks for powers of two.
ExprRef udiv(ExprRef a, std::int64_t d);
ExprRef umod(ExprRef a, std::int64_t d);
inline ExprRef add(ExprRef a, ExprRef b) {
  return bin(Op::Add, std::move(a), std::move(b));
}
inline ExprRef mul(ExprRef a, ExprRef b) {
  return bin(Op::Mul, std::move(a), std::move(b));
}
/// Constant value when the expression folds (no variables, no specials).
std::optional<std::int64_t> constantValue(const Expr& e);
/// The same with loop variables bound to compile-time values (unrolled loops).
std::optional<std::int64_t> constantValue(const Expr& e, const BoundValues& bound);
} // namespace ex

} // namespace cake::lower
