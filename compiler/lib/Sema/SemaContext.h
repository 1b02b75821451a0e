// Shared state of the type checker, whose member functions are split by concern as Clang splits
// its Sema: declarations (SemaDecl), integer expressions (SemaExpr), operands and attributes
// (SemaOperand), statements and operations (SemaStmt). Private to the Sema library.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Sema/Interval.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Sema/Sema.h"
#include "cake/Support/Diagnostic.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cake::sema::detail {

using namespace ir;

__extension__ typedef __int128 I128;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

/// Result of checking an integer expression: ok=false when a finding was reported; `range`
/// empty when the value is not statically bounded.
struct IntResult {
  bool ok = true;
  std::optional<Interval> range;
};

/// What an identifier of a kernel names.
struct Symbol {
  DeclKind kind;
  const Decl* decl;
};

/// Schema of built-in declaration attributes.
enum class DAttr : std::uint8_t { Int, IntList, Range, Enum, Name, NameList };
struct DeclAttrSpec {
  std::string_view name;
  DAttr type;
  bool required;
  std::vector<std::string_view> values;
};

/// What is in scope at a statement: the roles executing it and the enclosing loops.
struct StmtCtx {
  std::vector<const RoleInfo*> roles;
  std::vector<std::size_t> loops; ///< indices into m_model.loops
  /// The same two lists as every operation of the block keeps them (shared, not copied).
  SharedList<std::string> roleNames;
  SharedList<std::size_t> loopList;
};

/// The context every part of the checker shares: its inputs, the model being built, the symbol
/// table, and the reporting helpers that attach notes at declarations.
struct SemaContext {
  SemaContext(const Module& module, const reg::Registry& registry, const target::TargetSet& targets,
              DiagnosticEngine& diags)
      : m_module(module), m_registry(registry), m_targets(targets), m_diags(diags),
        m_map(module.sourceMap) {}

  SourceRange R(NodeId id) const { return m_map.range(id); }
  Diagnostic* report(DiagId id, NodeId at, std::string message) {
    return m_diags.report(id, R(at), std::move(message));
  }
  Diagnostic* report(DiagId id, SourceRange at, std::string message) {
    return m_diags.report(id, at, std::move(message));
  }

  void noteDecl(Diagnostic* d, const Decl* decl, const std::string& what) {
    if (decl)
      addNote(d, R(decl->name.id ? decl->name.id : decl->id), what);
  }

  const Symbol* lookup(std::string_view name) const {
    auto it = m_symbols.find(std::string(name));
    return it == m_symbols.end() ? nullptr : &it->second;
  }

  std::vector<std::string> allNames() const {
    std::vector<std::string> out;
    for (const auto& [n, s] : m_symbols)
      out.push_back(n);
    return out;
  }

  /// Reports an undeclared name with the closest candidate as a fix, unless the name's own
  /// declaration failed to parse (that finding is already out).
  void undefined(NodeId at, const std::string& name, std::string_view what,
                 const std::vector<std::string>& candidates) {
    const auto& poisoned = m_module.poisonedNames;
    if (std::find(poisoned.begin(), poisoned.end(), name) != poisoned.end())
      return; // its declaration has a syntax error already reported
    Diagnostic* d =
        report(DiagId::SemUndefinedName, at, std::string(what) + " '" + name + "' is not declared");
    if (auto guess = closestMatch(name, candidates))
      setFix(d, "did you mean '" + *guess + "'?", R(at), *guess);
  }

  const Module& m_module;
  const reg::Registry& m_registry;
  const target::TargetSet& m_targets;
  DiagnosticEngine& m_diags;
  const SourceMap& m_map;
  KernelModel m_model;
  std::map<std::string, Symbol> m_symbols;
  std::map<std::string, std::int64_t> m_consts;
  std::set<std::string> m_failedConsts;
  /// Values the caller binds run-time scalar parameters to (a workload contract's).
  std::map<std::string, std::int64_t> m_scalarValues;
};

/// The type checker of one kernel. One object per check; `run` builds the model.
class Checker : private SemaContext {
public:
  using SemaContext::SemaContext;

  KernelModel run();
  /// Binds run-time scalar parameters by name before `run` (a workload contract's values).
  void bindScalars(const std::map<std::string, std::int64_t>& values) { m_scalarValues = values; }

private:
  // Sema.cpp: kernel header and names
  void checkKernelHeader(const Kernel& k);
  void collectNames(const Kernel& k);

  // SemaExpr.cpp: constants and integer expressions (interval bounds)
  /// Evaluates a constant integer expression (constants and literals only).
  /// `ctx` lets loop variables and builtins be recognised (and refused as not constant).
  std::optional<std::int64_t> constInt(const Expr& e, std::string_view what,
                                       const StmtCtx* ctx = nullptr);
  const LoopInfo* loopFor(const StmtCtx* ctx, std::string_view var) const;
  bool pipelineBound(const StmtCtx* ctx, std::string_view pipeline) const;
  std::int64_t maxRoleWarps(const StmtCtx* ctx) const;
  /// Checks an integer expression. With `constOnly`, anything but constants is an error.
  IntResult intExpr(const Expr& e, const StmtCtx* ctx, bool constOnly);
  IntResult nameValue(const Expr& e, const StmtCtx* ctx, bool constOnly);
  IntResult notConstant(const Expr& e);
  IntResult memberValue(const Expr& e, const StmtCtx* ctx, bool constOnly);
  IntResult binaryValue(const Expr& e, const StmtCtx* ctx, bool constOnly);
  static IntResult exact(std::int64_t v) { return {true, Interval{v, v}}; }
  static IntResult unbounded() { return {true, std::nullopt}; }

  // SemaDecl.cpp: declarations and the kernel's shape
  void checkConst(const Decl& d);
  const DeclAttrSpec* findSpec(const Decl& d, std::string_view name);
  /// Checks that attribute keys exist in the schema and required ones are present.
  void checkDeclAttributes(const Decl& d);
  std::optional<std::int64_t> declInt(const Decl& d, std::string_view key, std::int64_t min,
                                      std::int64_t max);
  std::optional<std::vector<std::int64_t>> declIntList(const Decl& d, std::string_view key);
  std::optional<std::pair<std::int64_t, std::int64_t>> declRange(const Decl& d,
                                                                 std::string_view key);
  std::optional<std::string> declEnum(const Decl& d, std::string_view key);
  /// A reference by name to another declaration of the expected kind(s).
  const Decl* declRef(const Expr& e, std::initializer_list<DeclKind> kinds, std::string_view what);
  std::vector<std::string> declRoleList(const Decl& d, std::string_view key);
  /// Element type and constant shape of a declaration's type.
  bool declType(const Decl& d, DType& dtype, std::vector<std::int64_t>& shape);
  void checkDecl(const Decl& d);
  void checkBuffer(const Decl& d, bool registered);
  /// `param NAME : i32 role=scalar range=[LO, HI]` (SemaScalar.cpp).
  void checkScalar(const Decl& d, bool registered);
  /// A run-time scalar parameter used where a constant is needed (SemaScalar.cpp).
  IntResult scalarValue(const Expr& e, const ScalarInfo& s, bool constOnly);
  void checkBarrier(const Decl& d, bool registered);
  void checkKernelShape(const Kernel& k);

  // SemaStmt.cpp: role blocks, loops and operations
  void checkTopLevel(const Stmt& s);
  void checkOn(const Stmt& s);
  void checkOnAttributes(const Stmt& s);
  void checkStmt(const Stmt& s, StmtCtx& ctx);
  void checkFor(const Stmt& s, StmtCtx& ctx);
  // SemaRuntimeLoop.cpp: loop ranges over tile coordinates (run-time trip counts)
  /// True when `range` (lo..hi) mentions a tile coordinate; then checks it as a run-time range
  /// and fills `loop` (false: the caller checks a constant range).
  bool checkRuntimeRange(const Expr& range, const StmtCtx& ctx, LoopInfo& loop, bool& ok);
  // SemaTileOwnership.cpp: per-role tile ownership (stride=, offset=, skip= on loops)
  /// Checks one of a loop's `stride=`, `offset=` or `skip=` attributes and records it in `loop`.
  void checkOwnershipAttribute(const Attribute& a, const StmtCtx& ctx, LoopInfo& loop);
  void checkOp(const Stmt& s, const StmtCtx& ctx);

  // SemaOperand.cpp: operands, subscripts, attributes and primitive constraints
  bool checkOperand(const Operand& o, const reg::OperandDef& def, OperandInfo& info,
                    const StmtCtx& ctx);
  /// Applies subscripts to a buffer: optional stage index, then one index per dimension.
  bool subscriptBuffer(const Operand& o, const BufferInfo& b, OperandInfo& info,
                       const StmtCtx& ctx);
  /// Checks an attribute value against its registry type; returns its static value.
  std::optional<reg::DefValue> attrValue(const Attribute& a, const reg::AttrDef& def,
                                         const StmtCtx& ctx);
  static reg::DefValue fromJson(const json::Value& v);
  bool checkOpAttributes(const Stmt& s, const reg::Primitive& prim, OpInfo& op, const StmtCtx& ctx);
  void checkConstraints(const Stmt& s, const reg::Primitive& prim, const OpInfo& op);
  static void collectOperands(const reg::DefExpr& e, std::vector<std::size_t>& out);
};

} // namespace cake::sema::detail
