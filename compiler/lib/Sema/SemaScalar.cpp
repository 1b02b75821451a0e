// Type checker, run-time scalar parameters: `param kv_len : i32 role=scalar range=[1, 32768]`,
// a value passed by value at launch whose range is the launch contract (docs/ir.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#include "SemaContext.h"

#include "cake/IR/Printer.h"

#include <limits>

namespace cake::sema::detail {

namespace {
constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
} // namespace

void Checker::checkScalar(const Decl& d, bool registered) {
  ScalarInfo s;
  s.name = d.name.name;
  s.decl = &d;
  bool ok = true;
  if (!d.type) {
    report(DiagId::SemScalarParam, d.id,
           "run-time scalar parameter '" + s.name + "' needs the type ': i32'");
    ok = false;
  } else {
    auto dt = parseDType(d.type->dtype.name);
    if (!dt || *dt != DType::I32) {
      report(DiagId::SemScalarParam, d.type->dtype.id,
             "run-time scalar parameter '" + s.name + "' is " + d.type->dtype.name +
                 "; scalar parameters are i32 (a kernel argument passed by value)");
      ok = false;
    }
    if (d.type->hasShape) {
      report(DiagId::SemScalarParam, d.type->id,
             "run-time scalar parameter '" + s.name +
                 "' is one value: write ': i32' without a shape");
      ok = false;
    }
  }
  if (const Attribute* a = d.attribute("align")) {
    report(DiagId::SemScalarParam, a->key.id,
           "align= is the base alignment of a tensor; scalar parameter '" + s.name +
               "' is passed by value");
    ok = false;
  }
  const Attribute* range = d.attribute("range");
  if (!range) {
    report(DiagId::SemScalarParam, d.id,
           "run-time scalar parameter '" + s.name +
               "' needs its launch contract range=[LO, HI] (inclusive): the verifier checks the "
               "kernel over that range");
    return;
  }
  if (range->value->kind != ExprKind::List || range->value->children.size() != 2) {
    report(DiagId::SemScalarParam, range->value->id,
           "range= of '" + s.name + "' is a list of two integers [LO, HI] (inclusive)");
    return;
  }
  std::int64_t ends[2] = {0, 0};
  for (std::size_t i = 0; i < 2; ++i) {
    const Expr& e = *range->value->children[i];
    auto v = constInt(e, i == 0 ? "the lower end of range=" : "the upper end of range=");
    if (!v)
      return;
    if (*v < kI32Min || *v > kI32Max) {
      report(DiagId::SemScalarParam, e.id,
             "range= of '" + s.name + "': " + std::to_string(*v) +
                 " is outside i32 (" + std::to_string(kI32Min) + ".." + std::to_string(kI32Max) +
                 ")");
      return;
    }
    ends[i] = *v;
  }
  if (ends[0] > ends[1]) {
    report(DiagId::SemScalarParam, range->value->id,
           "range= of '" + s.name + "' is reversed: [" + std::to_string(ends[0]) + ", " +
               std::to_string(ends[1]) + "]");
    return;
  }
  s.lo = ends[0];
  s.hi = ends[1];
  s.value = s.hi;
  if (auto it = m_scalarValues.find(s.name); it != m_scalarValues.end()) {
    if (it->second < s.lo || it->second > s.hi) {
      report(DiagId::SemScalarParam, range->value->id,
             "the value " + std::to_string(it->second) + " bound to '" + s.name +
                 "' (the workload contract's) is outside its launch contract range=[" +
                 std::to_string(s.lo) + ", " + std::to_string(s.hi) + "]");
      return;
    }
    s.value = it->second;
    s.valueFromCaller = true;
  }
  (void)ok; // a bad type was reported; the name still resolves (no follow-on findings)
  if (registered)
    m_model.scalars.push_back(std::move(s));
}

IntResult Checker::scalarValue(const Expr& e, const ScalarInfo& s, bool constOnly) {
  if (constOnly) {
    Diagnostic* d = report(DiagId::SemScalarParam, e.id,
                           "'" + s.name +
                               "' is a run-time scalar parameter; a compile-time constant is "
                               "needed here (shapes, constants, static attributes)");
    noteDecl(d, s.decl, "'" + s.name + "' declared here");
    return {false, std::nullopt};
  }
  return {true, Interval{s.lo, s.hi}};
}

} // namespace cake::sema::detail
