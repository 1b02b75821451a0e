// A primitive of Cake IR as declared by its data file under compiler/primitives/.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"
#include "cake/Registry/DefExpr.h"
#include "cake/Support/Json.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cake::reg {

/// What an operand refers to.
enum class OperandKind : std::uint8_t { Buffer, TensorMap, MBarrier, NBarrier };
std::string_view toString(OperandKind kind);

enum class Access : std::uint8_t { None, Read, Write, ReadWrite };
std::string_view toString(Access access);

/// Who executes one instance of an operation.
enum class IssueScope : std::uint8_t {
  Thread,    ///< every thread of the executing roles
  Warp,      ///< once per warp
  Warpgroup, ///< once per warpgroup (4 aligned warps)
  Role,      ///< all threads of the role cooperate on one instance
  Elected,   ///< one elected thread of the executing role
};
std::string_view toString(IssueScope scope);
std::optional<IssueScope> parseIssueScope(std::string_view text);

struct OperandDef {
  std::string name;
  OperandKind kind = OperandKind::Buffer;
  std::vector<ir::Space> spaces; ///< Buffer only; empty = any
  std::vector<ir::DType> dtypes; ///< empty = any
  std::optional<int> rank;
  Access access = Access::None;
  bool optional = false;
  /// mbarrier operands: the whole barrier array (every stage) rather than one element.
  bool wholeArray = false;
  std::string doc;
  SourceRange range;
};

enum class AttrType : std::uint8_t { Int, Float, Bool, Enum, DType, IntList, Expr, String };
std::string_view toString(AttrType type);

struct AttrDef {
  std::string name;
  AttrType type = AttrType::Int;
  bool required = false;
  std::optional<json::Value> defaultValue;
  std::vector<std::string> values; ///< Enum only
  std::optional<std::int64_t> min, max;
  std::string doc;
  SourceRange range;
};

struct ConstraintDef {
  DefExpr check;
  std::string text;    ///< as written, for docs
  std::string code;    ///< finding code when violated
  Family family = Family::ScheduleSemantics;
  std::string message; ///< shown when violated
  SourceRange range;
};

enum class EffectKind : std::uint8_t {
  Read,        ///< operand data read
  Write,       ///< operand data written
  Init,        ///< mbarrier initialised (count from its declaration)
  Arrive,      ///< mbarrier arrival(s)
  ExpectTx,    ///< mbarrier transaction bytes announced
  CompleteTx,  ///< mbarrier transaction bytes delivered by an async copy
  Wait,        ///< mbarrier phase wait (parity)
  Sync,        ///< named barrier / CTA barrier rendezvous
  Fence,       ///< memory or proxy fence
  CommitGroup, ///< closes an async group (cp.async, bulk, wgmma)
  WaitGroup,   ///< waits until at most N groups are pending
  Alloc,       ///< allocates tensor memory
  Dealloc,     ///< releases tensor memory
  Registers,   ///< changes the per-thread register budget
  Commit,      ///< tcgen05.commit: arrive on an mbarrier when prior async MMAs complete
};
std::string_view toString(EffectKind kind);

struct EffectDef {
  EffectKind kind = EffectKind::Read;
  std::string operand; ///< empty when the effect has no operand
  std::optional<std::size_t> operandIndex;
  std::string proxy;      ///< generic | async (Read/Write/Fence)
  std::string completion; ///< sync | group:<name> | barrier:<operand> (Read/Write)
  std::string group;      ///< CommitGroup/WaitGroup/Commit group name
  std::optional<DefExpr> bytes;   ///< Read/Write/ExpectTx/CompleteTx
  std::optional<DefExpr> count;   ///< Arrive (per issuing instance)
  std::optional<DefExpr> parity;  ///< Wait
  std::optional<DefExpr> pending; ///< WaitGroup
  std::optional<DefExpr> registers;
  std::string fenceScope; ///< Fence: cta | cluster | gpu
  /// Sync without an nbarrier operand: "cta" (every thread of the CTA) or "role" (the
  /// executing role's threads; lowering uses a named barrier sized to the role).
  std::string syncScope = "cta";
  /// Sync with `"mode": "arrive"` (bar.arrive): the issuing threads count towards the named
  /// barrier's thread count without waiting for it to complete (the producer side).
  bool syncArrive = false;
  SourceRange range;
};

struct CostDef {
  std::string cls;  ///< tensor | tma | global_memory | shared_memory | tmem | alu | sfu | sync | control
  std::string unit; ///< flop | byte | instr
  std::optional<DefExpr> work;
  std::vector<std::string> params; ///< target calibration parameters it uses
  std::string note;
};

struct HardwareDef {
  std::string ptx;    ///< the PTX instruction family relied on
  std::string minPtx; ///< minimum PTX ISA version
  std::vector<std::string> requires_; ///< target features needed
  std::string note;
};

/// How a hardware requirement of a primitive is accounted for (docs/ir.md, "Requirements").
enum class RequirementStatus : std::uint8_t {
  Checked,    ///< a rule (checked_by) reports every violation
  Guaranteed, ///< the language or lowering cannot produce a violation (guaranteed: why)
  Unchecked,  ///< a stated gap (unchecked: why); kernels relying on it get a coverage finding
};
std::string_view toString(RequirementStatus status);

/// One "must" the PTX ISA (or the CUDA driver API, for tensor maps) states for a primitive,
/// mapped to what enforces it.
struct RequirementDef {
  std::string id;   ///< unique within the primitive (lower-case words joined by '-')
  std::string kind; ///< alignment | limit | shape | state-space | proxy | ordering | ...
  std::string text; ///< the requirement, in words
  std::string ref;  ///< where the PTX ISA / driver API states it
  std::vector<std::string> checkedBy; ///< rule codes (Checked)
  std::vector<SourceRange> checkedByRanges;
  std::string reason; ///< why it holds (Guaranteed) or why it is not checked (Unchecked)
  /// Unchecked only: when an operation relies on the requirement (absent = every use).
  std::optional<DefExpr> when;
  std::string whenText;
  RequirementStatus status = RequirementStatus::Unchecked;
  SourceRange range;
};

struct Primitive;
struct SemanticsDef;

/// One `{slot}` of a lowering template.
struct TemplateSlot {
  std::string name;  ///< operand or attribute
  std::string facet; ///< addr, coords, desc, reg, ... (empty = the value itself)
  bool isOperand = false;
  std::size_t index = 0;
};

/// One token of a validated lowering template: literal PTX or a slot.
struct TemplatePiece {
  std::string text; ///< literal PTX, doubled braces already reduced to one (empty for a slot)
  int slot = -1;    ///< index into LoweringDef::templateSlots; -1 for literal text
};

/// How a primitive is lowered (docs/lowering.md, "Strategies").
enum class LoweringStrategy : std::uint8_t {
  Template,  ///< the "ptx" template, bound by typed slots (no compiler code per primitive)
  Expansion, ///< a sequence of other primitives over this one's operands and attributes
  Builtin,   ///< a C++ pattern of the lowering library's one table, named by "builtin"
};
std::string_view toString(LoweringStrategy strategy);

/// How often a template is instantiated per operation.
enum class TemplateRepeat : std::uint8_t {
  Instance, ///< once per operation instance
  Element,  ///< once per element of the register fragments a thread holds ({x.elem})
  Register, ///< once per 32-bit register of those fragments ({x.reg}; packed 16-bit pairs)
};
std::string_view toString(TemplateRepeat repeat);

/// One validated template: PTX lines, their typed slots and token form.
struct TemplateDef {
  std::vector<std::string> ptx; ///< PTX template lines, as written
  /// One entry per `{slot}` occurrence, in template order.
  std::vector<TemplateSlot> templateSlots;
  /// The template (lines joined by '\n') in the token form the loader validated: literal text
  /// that cannot leave its statement (InlinePtx.h) and typed slots. Lowering expands these and
  /// never parses the template text again.
  std::vector<TemplatePiece> pieces;
};

/// A template used instead of the main one when `when` holds for the operation's static
/// attributes (`bulk.wait_group read=true`).
struct TemplateVariant {
  DefExpr when;
  std::string whenText;
  TemplateDef body;
  SourceRange range;
};

/// A combination lowering refuses with a located hw-lowering-unsupported finding.
struct LoweringRefusal {
  DefExpr when;
  std::string whenText;
  std::string message;
  SourceRange range;
};

/// The NVVM intrinsic the LLVM path calls instead of the inline PTX (the CUDA path prints the
/// PTX): one of a fixed list, with immediate arguments bound like template slots.
struct IntrinsicDef {
  std::string name;
  std::vector<TemplateSlot> args;
};

/// One step of an expansion: primitive `primitive` applied to operands of the expanded
/// primitive (by index) with attributes that are literals or the expanded primitive's own.
struct ExpansionStep {
  std::string primitive;
  const Primitive* resolved = nullptr; ///< set when the registry has loaded every file
  std::vector<std::size_t> operands;   ///< indices into the expanded primitive's operands
  struct Attr {
    std::size_t index = 0;              ///< into the step primitive's attributes
    std::optional<std::size_t> fromAttr; ///< the expanded primitive's attribute, substituted
    std::optional<json::Value> literal;  ///< or a literal value
  };
  std::vector<Attr> attributes;
  /// As written, for the second validation pass once every primitive is loaded.
  std::vector<std::string> operandNames;
  std::vector<std::pair<std::string, json::Value>> attributesWritten;
  SourceRange range;
};

struct LoweringDef {
  LoweringStrategy strategy = LoweringStrategy::Template;
  std::string builtin; ///< Builtin: the pattern's name in the lowering table
  TemplateRepeat repeat = TemplateRepeat::Instance;
  std::vector<std::string> ptx; ///< PTX template lines, as written
  std::string note;
  /// One entry per `{slot}` occurrence, in template order.
  std::vector<TemplateSlot> templateSlots;
  /// The main template in token form (see TemplateDef::pieces).
  std::vector<TemplatePiece> pieces;
  std::vector<TemplateVariant> variants;
  std::vector<LoweringRefusal> refusals;
  std::optional<IntrinsicDef> intrinsic;
  std::vector<ExpansionStep> steps;
  SourceRange range;
  /// Kept for older readers: true for builtin patterns without a template.
  bool derived = false;
};

/// A C++ lowering pattern the registry may name ("builtin"), and why it needs C++.
struct BuiltinPattern {
  std::string_view name;
  std::string_view family;   ///< sync, tensor-core, memory, elementwise
  std::string_view operands; ///< operand kinds it indexes: b buffer, t tensormap, m/n barriers
  std::string_view why;      ///< why a template or an expansion cannot express it
  bool needsTemplate = true; ///< expands the primitive's "ptx" template (else generates code)
};
/// Every builtin lowering pattern; the lowering library's table implements exactly these
/// (tst_lower_patterns).
const std::vector<BuiltinPattern>& builtinPatterns();
/// NVVM intrinsics a template may name, with their number of immediate arguments.
const std::vector<std::pair<std::string_view, std::size_t>>& knownIntrinsics();
/// The value of an attribute's JSON default (or literal) as expressions see it.
DefValue defValueFromJson(const json::Value& v);

struct Primitive {
  std::string name;
  std::string category;
  std::string summary;
  std::vector<std::string> targets;
  IssueScope issue = IssueScope::Thread;
  /// Set when the op chooses its issue scope through an enum attribute ("issue": "attr:scope").
  std::optional<std::size_t> issueAttribute;
  bool implicit = false;
  std::string implicitHint;
  std::vector<OperandDef> operands;
  std::vector<AttrDef> attributes;
  std::vector<ConstraintDef> constraints;
  std::vector<EffectDef> effects;
  /// What the hardware demands of this primitive and what checks it (may be empty only in
  /// definitions outside the shipped registry; tests require it for every shipped primitive).
  std::vector<RequirementDef> requirements;
  HardwareDef hardware;
  CostDef cost;
  LoweringDef lowering;
  /// The semantic form the CPU interpreter evaluates ("semantics"; template primitives only,
  /// see cake/Registry/Semantics.h); null when the file has none.
  std::shared_ptr<const SemanticsDef> semantics;
  std::string path;
  FileId file = 0;
  SourceRange nameRange;

  const OperandDef* operand(std::string_view name) const;
  const AttrDef* attribute(std::string_view name) const;
  const RequirementDef* requirement(std::string_view id) const;
  std::optional<std::size_t> attributeIndex(std::string_view name) const;
  bool availableOn(std::string_view target) const;
  std::size_t requiredOperandCount() const;
};

} // namespace cake::reg
