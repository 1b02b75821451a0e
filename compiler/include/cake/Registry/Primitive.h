// A primitive of Cake IR as declared by its data file under compiler/primitives/.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/IR/Types.h"
#include "cake/Registry/DefExpr.h"
#include "cake/Support/Json.h"

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

struct LoweringDef {
  std::vector<std::string> ptx; ///< PTX template lines, as written
  std::string note;
  /// One entry per `{slot}` occurrence, in template order.
  std::vector<TemplateSlot> templateSlots;
  /// The template (lines joined by '\n') in the token form the loader validated: literal text
  /// that cannot leave its statement (InlinePtx.h) and typed slots. Lowering expands these and
  /// never parses the template text again.
  std::vector<TemplatePiece> pieces;
  bool derived = false; ///< lowering is generated by the compiler (no template)
};

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
