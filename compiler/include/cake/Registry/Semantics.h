// The semantic form of a template primitive ("semantics" in its file): an elementwise expression
// the CPU interpreter evaluates per element, checked at registry load (docs/primitives.md, "CPU
// semantics"). A fixed grammar and function set: nothing in a data file is executed as code.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/SourceManager.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::json {
struct Value;
}

namespace cake::reg {

struct Primitive;

/// One node of an elementwise expression.
struct SemExpr {
  enum class Kind : std::uint8_t { Number, Operand, Attribute, Call, Binary };
  Kind kind = Kind::Number;
  double number = 0.0;   ///< Number
  std::size_t index = 0; ///< Operand / Attribute: index into the primitive's operands / attributes
  std::string fn;        ///< Call: the function; Binary: "+", "-", "*" or "/"
  std::vector<SemExpr> args;
  SourceRange range;
};

/// A validated "semantics" section: `dst = EXPR` applied to every element.
struct SemanticsDef {
  std::size_t dst = 0; ///< the written buffer operand
  SemExpr expr;
  std::vector<std::size_t> reads; ///< buffer operands the expression reads, in first-use order
  std::string text;               ///< the "elementwise" string, as written
  /// Every operation's result is rounded to this type ("dtype"; default f32); the store then
  /// rounds to the destination's type as every write does.
  ir::DType dtype = ir::DType::F32;
  SourceRange range;
};

/// The functions an elementwise expression may call, with their argument counts.
const std::vector<std::pair<std::string_view, std::size_t>>& semanticFunctions();

/// Reads `v` (the "semantics" object of primitive `prim`, whose operands and attributes are
/// already read) from file text `fileText`. Reports located def-* findings and returns nullopt
/// on any problem.
std::optional<SemanticsDef> readSemantics(const json::Value& v, const Primitive& prim,
                                          std::string_view fileText, DiagnosticEngine& diags);

/// Evaluates `e` for one element: `operand(i)` gives operand i's element value, `attribute(i)`
/// attribute i's value, `round` rounds every intermediate result (the section's dtype).
double evaluateSemantics(const SemExpr& e, const std::function<double(std::size_t)>& operand,
                         const std::function<double(std::size_t)>& attribute,
                         const std::function<double(double)>& round);

/// The expression as text (names resolved against `prim`), for `cake primitives`.
std::string printSemantics(const SemanticsDef& s, const Primitive& prim);

} // namespace cake::reg
