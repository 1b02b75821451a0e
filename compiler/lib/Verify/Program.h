// Concrete unrolling of each role's program into a stream of operation executions ("steps")
// with evaluated barrier elements, buffer footprints, attribute values and pipeline counters.
// Private to the verifier.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Registry/DefExpr.h"
#include "cake/Sema/KernelModel.h"
#include "cake/Support/SharedList.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <vector>

namespace cake::verify::detail {

/// Index ranges per dimension of a footprint: up to four inline, more on the heap. Every
/// access the simulation records copies its footprint (histories, pending groups, the
/// instance model); an inline box makes those copies free of allocation.
class Box {
public:
  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  void push_back(const sema::Interval& i) {
    if (m_size < kInline && m_heap.empty()) {
      m_inline[m_size++] = i;
      return;
    }
    if (m_heap.empty())
      m_heap.assign(m_inline.begin(), m_inline.end());
    m_heap.push_back(i);
    ++m_size;
  }
  const sema::Interval* begin() const { return m_heap.empty() ? m_inline.data() : m_heap.data(); }
  const sema::Interval* end() const { return begin() + m_size; }
  const sema::Interval& operator[](std::size_t i) const { return begin()[i]; }
  sema::Interval& operator[](std::size_t i) { return m_heap.empty() ? m_inline[i] : m_heap[i]; }

private:
  static constexpr std::size_t kInline = 4;
  std::array<sema::Interval, kInline> m_inline{};
  std::vector<sema::Interval> m_heap; ///< all of them, once there are more than kInline
  std::size_t m_size = 0;
};

/// The region of a buffer an access touches: stage range and per-dimension index range.
struct Footprint {
  std::size_t buffer = 0;
  sema::Interval stage{0, 0};
  Box box;
  bool overlaps(const Footprint& other) const;
  std::string describe(const sema::KernelModel& model) const;
};

struct StepOperand {
  bool present = false;
  sema::EntityKind entity = sema::EntityKind::Buffer;
  std::size_t entityIndex = 0;
  /// mbarrier element; -1 for "the whole array" (unsubscripted), -2 when not computable.
  std::int64_t element = -1;
  /// An element of a barrier bound to pipeline P (`pipeline=P`) named inside a loop over P:
  /// the slot this iteration uses (P.slot), which the ring convention says to index with;
  /// -1 elsewhere. An element that differs breaks the convention (a wait cycle it causes is
  /// reported there).
  std::int64_t ringSlot = -1;
  std::optional<Footprint> footprint;
  /// Tensor-memory lanes each warp of the role addresses (warp-issued tcgen05.ld/st: the
  /// first dimension evaluated with `warp` bound to each warp of the role); empty when not
  /// warp-issued or not statically known.
  std::vector<sema::Interval> warpLanes;
  /// Buffer operands whose subscript names an instance variable (`wg`, `warp`, `tid`,
  /// `lane`): the footprint of each warp of the role, with `warp` and `wg` bound to that warp
  /// and `tid` to its 32 threads; one per warpgroup when the subscript names only `wg`. Empty
  /// when it names none: every instance then addresses `footprint`.
  std::vector<Footprint> instanceFootprints;
  /// The footprint of role-relative warp `w` (`footprint` when no per-instance one exists).
  const Footprint* warpFootprint(std::size_t w) const {
    std::size_t i = instanceVars == kNamesWg ? w / 4 : w;
    return i < instanceFootprints.size() ? &instanceFootprints[i]
           : footprint                   ? &*footprint
                                         : nullptr;
  }
  /// Instance variables the subscript names: kNamesWg, kNamesWarp, kNamesThread (`tid` or
  /// `lane`: a warp's footprint then covers its 32 threads).
  unsigned instanceVars = 0;
  static constexpr unsigned kNamesWg = 1, kNamesWarp = 2, kNamesThread = 4;
};

/// One execution of one operation by one role.
struct Step {
  std::size_t op = 0;
  std::size_t role = 0;
  /// Identity of the innermost enclosing loop iteration (0: straight-line code of the role).
  std::uint64_t iteration = 0;
  std::vector<StepOperand> operands;
  /// Attribute values with run-time (expr) attributes evaluated for this execution; empty
  /// when the operation has no run-time attribute (its static values apply).
  CompactVector<reg::DefValue> attributes;
  /// (loop index, value) from the outermost enclosing loop inwards; tile loops give the tile.
  SharedList<std::pair<std::size_t, std::int64_t>> loopValues;
  /// Issuing instances per execution (threads, warps, warpgroups or 1).
  std::int64_t instances = 1;
  /// The pipeline of the innermost enclosing pipeline loop (-1: none) and the pass over its
  /// ring at this execution (counter / stages): the phase a barrier bound to that pipeline is
  /// in. Ping-pong roles skip passes, so the protocol numbers their visits by it.
  std::int32_t pipeline = -1;
  std::int64_t pass = -1;
};

struct RoleStream {
  std::size_t role = 0;
  std::vector<Step> steps;
};

struct Program {
  std::vector<RoleStream> roles;
  std::int64_t ctas = 1;          ///< CTAs launched (persistent: min(tiles, SMs))
  std::int64_t tilesPerCta = 1;   ///< tiles of the busiest CTA
  std::int64_t tilesAnalysed = 1; ///< tile-loop iterations unrolled per role
  bool boundReached = false;      ///< the step budget stopped the unrolling
  std::int64_t firstTile = 0;     ///< linear tile of the simulated CTA's first tile
  std::size_t totalSteps = 0;
};

/// Unrolls every role (tile loops capped at `tileCap` iterations, at most `maxSteps` steps in
/// all). Operations must have passed the type checker.
/// `firstTile` is the linear tile of the simulated CTA's first tile (static grids: the CTA's
/// only tile; persistent grids: the CTA index), so run-time loop ranges can be simulated at
/// representative tiles.
/// `scalars`: the value of each run-time scalar parameter (model.scalars order) for this
/// simulation; empty: the values the model was checked with.
Program unroll(const ir::Module& module, const sema::KernelModel& model, std::size_t maxSteps,
               std::int64_t tileCap, std::int64_t firstTile = 0,
               std::span<const std::int64_t> scalars = {});

/// The scope an operation is issued at: its primitive's, or the one its issue attribute
/// chooses (mbarrier.arrive scope=warpgroup).
reg::IssueScope issueScope(const sema::OpInfo& op, std::span<const reg::DefValue> attributes);

/// Issuing instances of `op` executed by `role` (by the primitive's issue scope).
std::int64_t issueInstances(const sema::OpInfo& op, const sema::RoleInfo& role,
                            std::span<const reg::DefValue> attributes);

/// Attribute and operand facts of one step, for evaluating effect quantities.
class StepContext : public reg::DefContext {
public:
  StepContext(const sema::OpInfo& op, const Step& step) : m_op(op), m_step(step) {}
  const reg::OperandFacts* operand(std::size_t index) const override {
    return index < m_op.operands.size() ? &m_op.operands[index].facts : nullptr;
  }
  reg::DefValue attribute(std::size_t index) const override {
    const auto& values = m_step.attributes.empty() ? m_op.attributes : m_step.attributes;
    return index < values.size() ? values[index] : reg::DefValue{};
  }

private:
  const sema::OpInfo& m_op;
  const Step& m_step;
};

/// Integer value of an effect quantity, or `fallback` when it is not statically known.
std::int64_t quantity(const std::optional<reg::DefExpr>& expr, const StepContext& ctx,
                      std::int64_t fallback);

} // namespace cake::verify::detail
