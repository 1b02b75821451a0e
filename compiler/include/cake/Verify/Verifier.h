// The verifier: analyses that run after type checking on structurally valid kernels — barrier
// protocol (mbarrier phase model), asynchronous completion, memory hazards, resources, layout
// commitments, effect coverage, usage and performance reports. Findings are located and carry
// notes at the other party; the analyses also export their data (event trace, barrier and
// resource summaries) for the views and for `cake trace`.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Sema/KernelModel.h"
#include "cake/Verify/Rules.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cake::verify {

struct VerifyOptions {
  /// Run the analyses at all (false: stop after type checking, e.g. `cake check --stop-after
  /// sema`, or tests of the type checker alone).
  bool analyses = true;
  /// Upper bound on unrolled operation executions (all roles); beyond it the analyses stop
  /// with a ps-analysis-bound report.
  std::size_t maxSteps = 200000;
  /// Tile-loop iterations analysed per role (persistent kernels repeat the same protocol).
  std::int64_t tileCap = 3;
  /// Values of run-time scalar parameters by name (a workload contract's `scalars`): the
  /// binding type checking records and the first simulation uses (docs/ir.md). Unnamed
  /// scalars are bound to the end of their range.
  std::map<std::string, std::int64_t> scalarValues;
};

/// One event of the simulated execution (logical time; one lane per role).
/// Laid out in 80 bytes: a 50 MB kernel records millions of events. Its barrier name and its
/// context text are kept once in the Trace's string table (Trace::barrier, Trace::context).
struct TraceEvent {
  enum class Kind : std::uint8_t {
    Issue,      ///< an operation starts
    Arrive,     ///< mbarrier arrival(s)
    ExpectTx,   ///< transaction bytes announced
    CompleteTx, ///< transaction bytes delivered (TMA)
    Commit,     ///< tcgen05.commit arrival
    Wait,       ///< mbarrier wait satisfied (phase observed)
    Sync,       ///< CTA or named barrier passed
    PhaseDone,  ///< a barrier phase completed
  };
  Kind kind = Kind::Issue;
  std::uint32_t role = 0;
  std::uint32_t op = 0;          ///< index into KernelModel::ops
  std::uint32_t barrierText = 0; ///< Trace string: the barrier ("" for an Issue)
  std::uint32_t contextText = 0; ///< Trace string: loop values and pipeline counters
  std::uint64_t time = 0;
  std::uint64_t start = 0; ///< Wait/Sync: when the role started waiting
  std::int64_t element = -1;
  std::int64_t phase = -1;  ///< phase counted toward (arrivals) or observed (wait)
  std::int64_t parity = -1; ///< Wait
  std::int64_t amount = 0;  ///< arrivals or bytes
  /// Wait: the trace index of the PhaseDone event it observed (a flow arrow), or -1.
  std::int64_t cause = -1;
};

/// The events of the simulated execution in order, with the texts they refer to.
/// Events live in a deque: growing never copies them nor holds two copies at once, and a
/// reference to an event stays valid while later events are recorded.
class Trace {
public:
  using Events = std::deque<TraceEvent>;

  std::size_t size() const { return m_events.size(); }
  bool empty() const { return m_events.empty(); }
  const TraceEvent& operator[](std::size_t i) const { return m_events[i]; }
  TraceEvent& operator[](std::size_t i) { return m_events[i]; }
  const TraceEvent& back() const { return m_events.back(); }
  TraceEvent& back() { return m_events.back(); }
  Events::const_iterator begin() const { return m_events.begin(); }
  Events::const_iterator end() const { return m_events.end(); }
  TraceEvent& push_back(const TraceEvent& e) {
    m_events.push_back(e);
    return m_events.back();
  }

  /// The index of `text` in the string table (added once: for the few barrier names).
  std::uint32_t intern(std::string_view text);
  /// Adds `text` to the string table without looking for an equal one (the caller keeps the
  /// index of texts it reuses, e.g. one context per loop iteration).
  std::uint32_t add(std::string text);
  std::string_view text(std::uint32_t index) const {
    return index < m_texts.size() ? std::string_view(m_texts[index]) : std::string_view();
  }
  /// The barrier an event names ("cta", a named barrier, an mbarrier) or "".
  std::string_view barrier(const TraceEvent& e) const { return text(e.barrierText); }
  /// Pipeline counters and loop values at the event's step, e.g. "t=0 k=3 ring=3".
  std::string_view context(const TraceEvent& e) const { return text(e.contextText); }

private:
  Events m_events;
  std::vector<std::string> m_texts{std::string()}; ///< index 0: ""
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>> m_index{
      {std::string(), 0}};
};

std::string_view toString(TraceEvent::Kind kind);

/// The protocol of one barrier element as the analysis derived it.
struct BarrierSummary {
  std::string name;
  std::int64_t element = 0;
  std::int64_t count = 0;              ///< arrivals per phase (declared)
  std::int64_t phasesCompleted = 0;    ///< in the analysed execution
  std::int64_t arrivalsPerPhase = 0;   ///< observed in the first round (0 when none)
  std::int64_t expectTxPerPhase = 0;   ///< bytes announced per round
  std::int64_t deliveredTxPerPhase = 0; ///< bytes delivered by copies per round
  std::vector<std::string> producers;  ///< roles that signalled it
  std::vector<std::string> waiters;    ///< roles that waited on it
};

struct ResidencyBound {
  std::string resource; ///< threads, warps, smem, registers, ctas
  std::int64_t ctasPerSm = 0;
  std::string detail;
};

struct ResourceSummary {
  std::int64_t smemBuffers = 0;  ///< bytes up to the end of the last buffer
  std::int64_t smemBarriers = 0; ///< derived barrier storage (8 bytes per mbarrier element)
  std::int64_t smemTotal = 0;
  std::int64_t smemLimit = 0;
  std::int64_t tmemColumns = 0;
  std::int64_t threads = 0;
  std::int64_t launchRegisters = 0; ///< per thread at launch (0: decided by ptxas)
  std::vector<ResidencyBound> bounds;
  std::string binding;
  std::int64_t residency = 0;
};

/// One shared-memory access the performance analysis modelled for bank conflicts (see
/// cake/Verify/BankModel.h): the distinct phases of one (operation, operand), as unswizzled
/// absolute byte addresses (phases that repeat modulo 1024 bytes are kept once and counted).
struct SmemAccessPattern {
  std::size_t op = 0;      ///< index into KernelModel::ops
  std::size_t operand = 0; ///< operand index of the op
  std::size_t buffer = 0;  ///< index into KernelModel::buffers
  std::int64_t width = 16; ///< bytes per address
  std::string unit;        ///< "8x8 matrix", "phase of 8 threads x 16 B", ...
  std::vector<std::vector<std::int64_t>> phases;
  std::vector<std::int64_t> counts; ///< occurrences of each phase
  int degree = 1;                   ///< worst phase under the declared swizzle (N-way)
  std::size_t worstPhase = 0;
  std::int64_t wavefronts = 0;
};

/// Where a role stopped when the simulation found that no role can move (a deadlock): the
/// operation it is blocked at and, for an mbarrier wait, the element, the awaited parity and
/// the element's current phase; findings tell the same wait, iteration and parity.
struct BlockedRole {
  std::size_t role = 0;
  std::size_t op = 0;
  std::string barrier;       ///< mbarrier or named barrier name; "cta" for cta.sync
  std::int64_t element = -1; ///< mbarrier array element, -1 when not an array
  std::int64_t parity = -1;  ///< awaited parity of an mbarrier wait, -1 otherwise
  std::int64_t phase = -1;   ///< the element's current (incomplete) phase, -1 otherwise
  std::string context;       ///< loop values, "tile 0 k=3"
};

struct VerifyResult {
  /// False when type checking failed: no analysis ran.
  bool ran = false;
  std::vector<std::string> analyses; ///< analyses that ran
  std::int64_t ctas = 0;
  std::int64_t tilesPerCta = 0;
  std::int64_t tilesAnalysed = 0;
  bool boundReached = false;
  bool deadlock = false;
  /// Linear tiles (persistent grids: CTAs) simulated after the first because the kernel has
  /// run-time loop ranges (sema::representativeTiles).
  std::vector<std::int64_t> tilesSimulated;
  /// Values of the run-time scalar parameters (model.scalars order) simulated after the bound
  /// one (sema::scalarSamples).
  std::vector<std::vector<std::int64_t>> scalarBindingsSimulated;
  std::vector<BlockedRole> blocked; ///< filled when deadlock is set
  Trace trace;
  std::vector<BarrierSummary> barriers;
  ResourceSummary resources;
  /// Shared-memory access patterns of the bank-conflict model (for the layout view).
  std::vector<SmemAccessPattern> smemAccesses;
};

/// Runs every analysis on a kernel whose parse and type check reported no blocking finding.
VerifyResult verify(const ir::Module& module, const sema::KernelModel& model,
                    const reg::Registry& registry, const RuleSet& rules, DiagnosticEngine& diags,
                    const VerifyOptions& options = {});

} // namespace cake::verify
