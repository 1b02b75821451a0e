// Expressions inside primitive definitions: constraints ("dim(acc,0) == dim(a,0)") and
// quantities ("bytes(dst)"), resolved against the primitive's operands and attributes at load
// time and evaluated against an operation's static facts.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::reg {

enum class DefFn : std::uint8_t {
  DType,          ///< dtype(x) → symbol
  Space,          ///< space(x) → symbol
  Rank,           ///< rank(x) → int
  Dim,            ///< dim(x, i) → int (negative i counts from the end)
  Elems,          ///< elems(x) → int
  Bytes,          ///< bytes(x) → int (elements × element bits / 8, rounded up)
  Bits,           ///< bits(x) → element bits
  Present,        ///< present(x) → bool (optional operands)
  Stages,         ///< stages(x) → int (1 when not staged)
  Swizzle,        ///< swizzle(x) → symbol (none, 32B, 64B, 128B)
  SwizzleBytes,   ///< swizzle_bytes(x) → 0, 32, 64 or 128
  Offset,         ///< offset(x) → byte offset of the underlying shared-memory buffer
  StageBytes,     ///< stage_bytes(x) → bytes of one stage of the underlying buffer
  RowBytes,       ///< row_bytes(x) → bytes of the innermost dimension of the operand
  BufferRowBytes, ///< buffer_row_bytes(x) → bytes of the underlying buffer's innermost dimension
  RowOffset,      ///< row_offset(x) → byte alignment of the operand's start within its buffer row
  BaseAlign, ///< base_align(x) → declared base alignment of a global tensor (align=), 0 if none
  MaxDim,    ///< max_dim(x) → largest dimension
  Min,
  Max,
  Pow2, ///< pow2(v) → bool
};

enum class DefOp : std::uint8_t {
  Add, Sub, Mul, Div, Mod, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Not, Neg, In,
};

/// A resolved definition expression.
struct DefExpr {
  enum class Kind : std::uint8_t { Int, Float, Symbol, OperandRef, AttrRef, Call, Unary, Binary, List };
  Kind kind = Kind::Int;
  std::int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text; ///< symbol spelling or referenced name
  std::size_t index = 0; ///< operand or attribute index
  DefFn fn = DefFn::DType;
  DefOp op = DefOp::Add;
  std::vector<DefExpr> args;
  SourceRange range;
};

/// A value produced by evaluation. Unknown marks a quantity that is not static (a run-time
/// attribute or an absent optional operand) — callers must treat it as "not decided".
struct DefValue {
  enum class Kind : std::uint8_t { Unknown, Int, Float, Bool, Symbol, List };
  Kind kind = Kind::Unknown;
  bool b = false; ///< next to kind: one padded word for both (operations keep many values)
  /// Int: i, Float: f (read only the one that matches kind; they share a word).
  union {
    std::int64_t i = 0;
    double f;
  };
  std::string sym;
  std::vector<DefValue> list;

  static DefValue integer(std::int64_t v) {
    DefValue d;
    d.kind = Kind::Int;
    d.i = v;
    return d;
  }
  static DefValue boolean(bool v) {
    DefValue d;
    d.kind = Kind::Bool;
    d.b = v;
    return d;
  }
  static DefValue symbol(std::string s) {
    DefValue d;
    d.kind = Kind::Symbol;
    d.sym = std::move(s);
    return d;
  }
  bool known() const { return kind != Kind::Unknown; }
  std::string str() const;
};

/// Static facts about one operand of an operation (after subscripts are applied).
struct OperandFacts {
  bool present = false;
  bool isBuffer = false;
  bool isTensorMap = false; ///< shape is the box, space global
  ir::Space space = ir::Space::Global;
  ir::DType dtype = ir::DType::F32;
  std::vector<std::int64_t> shape;
  std::int64_t stages = 1;
  /// "none", "32B", "64B" or "128B"; always a view of static storage (swizzleName()), so the
  /// facts of millions of operands do not each carry a string.
  std::string_view swizzle = "none";
  /// Shared-memory buffers: absolute byte offset of the buffer and bytes per stage
  /// (-1 / 0 when not applicable).
  std::int64_t baseOffset = -1;
  std::int64_t stageBytes = 0;
  /// Buffers: bytes of one row of the underlying buffer (its declared innermost dimension,
  /// before subscripts); 0 when not applicable.
  std::int64_t bufferRowBytes = 0;
  /// Buffers: where the operand starts inside that row, in bytes. Every possible start is a
  /// multiple of this value: the exact offset when it is constant (0 = the row's first byte),
  /// the gcd of its first value and its step when it varies, 1 when nothing is known.
  std::int64_t rowOffset = 0;
  /// Global buffers and tensor maps: the base alignment the param (the tensor map's source)
  /// declares with align=, the kernel's launch contract; 0 when not declared, -1 elsewhere.
  std::int64_t baseAlign = -1;
};

/// `name` as a view of static storage: the four swizzle modes are literals; any other name
/// (definitions may test for modes a target does not have) is kept once for the process.
std::string_view swizzleName(std::string_view name);


/// What an evaluation can see.
class DefContext {
public:
  virtual ~DefContext() = default;
  virtual const OperandFacts* operand(std::size_t index) const = 0;
  virtual DefValue attribute(std::size_t index) const = 0;
};

/// Names an expression may refer to.
struct DefScope {
  std::vector<std::string> operands;
  std::vector<std::string> attributes;
  /// Attributes whose values are run-time expressions (not allowed in constraints).
  std::vector<bool> attributeIsDynamic;
  /// Extra bare words accepted as symbols (enum values of the primitive's attributes).
  std::vector<std::string> symbols;
};

/// Parses `text`, which sits at byte `offset` of `file` inside `source` (the whole file text),
/// so findings point into the data file. Returns nullopt after reporting def-invalid-expression.
std::optional<DefExpr> parseDefExpr(std::string_view source, std::size_t offset,
                                    std::size_t length, FileId file, const DefScope& scope,
                                    DiagnosticEngine& diags, bool allowDynamic);

/// Parses the expression held by JSON string `value` of a data file, in place, so findings
/// point into the file. Escapes are refused (offsets would no longer match).
std::optional<DefExpr> parseDefExprString(std::string_view fileText, const json::Value& value,
                                          const DefScope& scope, DiagnosticEngine& diags,
                                          bool allowDynamic);

DefValue evaluate(const DefExpr& expr, const DefContext& ctx);
/// Prints a resolved expression (for docs and `cake primitives`).
std::string print(const DefExpr& expr);

/// Why a boolean expression is false, with the values it was decided on: every failed
/// comparison with the value of each side and of each call inside it
/// ("buffer_row_bytes(a) == swizzle_bytes(a) is false: buffer_row_bytes(a) = 256,
/// swizzle_bytes(a) = 128"), a conjunction by its failed parts, a disjunction by the
/// alternatives that came closest (most conjuncts held). Empty unless it evaluates to false.
std::string explainFalse(const DefExpr& expr, const DefContext& ctx);

/// "smem bf16[128, 64] swizzle 128B at byte 0", "tensor map bf16[128, 64] (box) swizzle none":
/// what a finding's note says about an operand; empty for operands that are not data (barriers).
std::string describe(const OperandFacts& facts);

} // namespace cake::reg
