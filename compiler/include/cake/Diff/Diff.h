// The semantic diff of two kernels: declarations and operations aligned by identity (role,
// primitive, position, operands), findings keyed by code and the item they sit on, deltas of
// the cost model's prediction and of resources, and line diffs (dtl) of the IR and the PTX.
// Shared by `cake diff` and the workbench's baseline and Compare view (docs/cli.md).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Cost/CostModel.h"
#include "cake/Driver/Compiler.h"
#include "cake/Support/Json.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::diff {

/// One kernel as the diff sees it: checked, costed when accepted, lowered to PTX when asked.
struct Assessment {
  std::string path;
  driver::CheckResult check;
  std::optional<cost::Estimate> estimate; ///< accepted kernels only
  std::string costError;                  ///< why there is no prediction
  /// PTX of the LLVM path without debug lines (`.loc` would shift with every edit); empty when
  /// not asked for or unavailable (`ptxUnavailable` says why).
  std::string ptx;
  std::string ptxUnavailable;
  bool ptxAsked = false;
  /// Shared memory a launch requests (buffers plus barrier words), per-role `regs=` and
  /// pipeline stages; empty when the kernel did not type-check.
  std::optional<std::int64_t> smemBytes;
  std::map<std::string, std::int64_t> roleRegisters;
  std::map<std::string, std::int64_t> pipelineStages;
};

struct AssessOptions {
  bool ptx = true;    ///< lower accepted kernels through the LLVM path
  bool hints = false; ///< let the cost model search what-if variants (slower)
};

/// Checks `text` (named `path`), costs it when accepted and lowers it when asked.
Assessment assess(const driver::Compiler& compiler, std::string path, std::string text,
                  const AssessOptions& options = {});

/// One attribute, operand or property that differs between the two sides of an item.
struct FieldChange {
  std::string field;         ///< "operand 1", "attr stages", "type", "loops", ...
  std::string before, after; ///< canonical text; empty when absent on that side
};

enum class ChangeKind { Added, Removed, Changed };
const char* changeKindName(ChangeKind kind);

/// A declaration or operation present on one side only, or on both with different fields.
struct ItemChange {
  ChangeKind kind = ChangeKind::Changed;
  std::string key;                   ///< identity, e.g. "smem a_s" or "producer/tma.load#0"
  std::string summary;               ///< canonical text of the statement (the newer side when both)
  int lineBefore = 0, lineAfter = 0; ///< 1-based; 0 on the side it is absent from
  /// The statement or declaration in each side's syntax tree (0 where absent): views map
  /// them to operations and graph nodes.
  ir::NodeId nodeBefore = 0, nodeAfter = 0;
  std::vector<FieldChange> fields; ///< Changed only
};

/// A finding present on one side only, keyed by code and the item it is attached to.
struct FindingChange {
  bool appeared = false; ///< in the newer kernel only (else: disappeared)
  std::string code;
  std::string anchor; ///< key of the item it sits on, or "kernel"
  std::string severity;
  std::string message;
  int line = 0; ///< in the file where it exists
};

/// One side of a numeric comparison (absent: no value on that side).
struct Quantity {
  std::optional<double> before, after;
  bool differs() const;
};

/// A line diff summary (dtl's shortest edit script).
struct LineDiff {
  enum class Op : std::uint8_t { Common, Added, Removed };
  struct Line {
    Op op = Op::Common;
    int before = 0, after = 0; ///< 1-based line numbers (0 on the side it is absent from)
    std::string text;
  };
  std::vector<Line> lines; ///< the whole edit script in order
  int added = 0, removed = 0, common = 0;
  /// Maximal runs of non-common lines.
  int hunks = 0;
};

/// Line diff of two texts through dtl (the edit distance bounded for huge inputs).
LineDiff diffLines(const std::string& before, const std::string& after);

struct KernelDiff {
  std::string pathBefore, pathAfter;
  std::string targetBefore, targetAfter;
  bool acceptedBefore = false, acceptedAfter = false;
  std::vector<ItemChange> decls;
  std::vector<ItemChange> ops; ///< operations and loops
  /// Every operation or loop present on both sides (changed or not): (before, after) nodes.
  std::vector<std::pair<ir::NodeId, ir::NodeId>> matchedOps;
  std::vector<FindingChange> findings;
  Quantity predictedUs;
  std::string bottleneckBefore, bottleneckAfter; ///< "tensor-bound (tensor)"
  Quantity smemBytes;
  std::map<std::string, Quantity> registers; ///< per role
  std::map<std::string, Quantity> stages;    ///< per pipeline
  LineDiff ir;                               ///< the two source texts
  std::optional<LineDiff> ptx;               ///< present when both sides have PTX
  std::string ptxNote;                       ///< why there is no PTX diff
  /// Any semantic difference (items, findings, prediction, resources, PTX); whitespace,
  /// comment and line-position changes alone are none.
  bool different() const;
};

/// Compares two assessments. Items are aligned by identity, never by line number, so an edit
/// that shifts lines changes nothing but the lines it touches.
KernelDiff compare(const Assessment& before, const Assessment& after);

/// `cake diff --format json`.
void writeJson(json::Writer& w, const KernelDiff& d);
/// `cake diff` text: one line per change, then the deltas and summaries.
std::string renderText(const KernelDiff& d);

} // namespace cake::diff
