// Run-time trip counts: every role that advances a pipeline does so equally often on every
// tile. A producer loop `0..(t.x + 1) * BQ / BKV` against a consumer loop `0..S / BKV` fills
// one ring phase the consumer waits for forever (or leaves phases never waited): the classic
// causal-attention deadlock, reported at the loop whose bound disagrees.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Analyses.h"

#include "cake/IR/Printer.h"
#include "cake/Sema/RuntimeBound.h"

#include <map>

namespace cake::verify::detail {

namespace {
constexpr std::int64_t kMaxTiles = std::int64_t(1) << 16; ///< tiles compared exactly

std::string coordText(const std::vector<std::int64_t>& c) {
  std::string out = "(";
  for (std::size_t i = 0; i < c.size(); ++i)
    out += (i ? ", " : "") + std::to_string(c[i]);
  return out + ")";
}

/// The tiles compared: all of them up to kMaxTiles, else an even sample plus the ends.
std::vector<std::int64_t> tilesToCompare(std::int64_t tiles) {
  std::vector<std::int64_t> out;
  std::int64_t step = tiles <= kMaxTiles ? 1 : (tiles + kMaxTiles - 1) / kMaxTiles;
  for (std::int64_t t = 0; t < tiles; t += step)
    out.push_back(t);
  if (out.back() != tiles - 1)
    out.push_back(tiles - 1);
  return out;
}
} // namespace

namespace {
void checkTripCountsAt(Context& ctx, std::span<const std::int64_t> binding);
} // namespace

void checkTripCounts(Context& ctx) {
  const sema::KernelModel& m = ctx.model;
  if (!m.grid || !sema::hasRuntimeBounds(m))
    return;
  // The bound values first; then every sampled value of the scalar parameters' launch
  // contracts (docs/ir.md), each finding naming the value that exposed it.
  std::size_t before = ctx.brokenBarriers.size();
  checkTripCountsAt(ctx, {});
  const std::vector<std::int64_t> bound = m.scalarValues();
  for (const std::vector<std::int64_t>& binding : sema::scalarSamples(m)) {
    if (ctx.brokenBarriers.size() != before)
      break; // one story per ring: the first value that breaks it
    std::string text;
    SourceRange decl;
    for (std::size_t k = 0; k < binding.size(); ++k)
      if (binding[k] != bound[k]) {
        text += (text.empty() ? "" : ", ") + m.scalars[k].name + " = " +
                std::to_string(binding[k]);
        decl = ctx.reporter.range(m.scalars[k].decl->name.id);
      }
    ctx.reporter.setBinding(text, decl);
    checkTripCountsAt(ctx, binding);
    ctx.reporter.setBinding({}, {});
  }
}

namespace {
void checkTripCountsAt(Context& ctx, std::span<const std::int64_t> binding) {
  const sema::KernelModel& m = ctx.model;
  // Per loop: the roles that execute it and its enclosing loops (from the ops inside it).
  struct LoopUse {
    std::set<std::string> roles;
    std::vector<std::size_t> outer;
    bool seen = false;
  };
  std::vector<LoopUse> uses(m.loops.size());
  for (const sema::OpInfo& op : m.ops)
    for (std::size_t i = 0; i < op.loops.size(); ++i) {
      LoopUse& u = uses[op.loops[i]];
      for (const std::string& r : op.roles)
        u.roles.insert(r);
      if (!u.seen)
        u.outer.assign(op.loops.begin(), op.loops.begin() + std::ptrdiff_t(i));
      u.seen = true;
    }
  for (const sema::PipelineInfo& p : m.pipelines) {
    // The loops bound to p, by role; only pipelines with a run-time loop are judged here
    // (constant trip counts are the simulation's).
    std::map<std::string, std::vector<std::size_t>> byRole;
    bool runtime = false;
    for (std::size_t l = 0; l < m.loops.size(); ++l) {
      if (m.loops[l].pipeline != p.name || m.loops[l].overTiles)
        continue;
      runtime |= m.loops[l].runtime;
      for (const std::string& r : uses[l].roles)
        byRole[r].push_back(l);
    }
    if (!runtime || byRole.size() < 2)
      continue;
    // Per role, its advances of p on every tile (compiled bounds, once per loop) for grids up
    // to kMaxTiles; larger grids evaluate the sampled tiles one by one.
    std::int64_t tiles = m.grid->tileCount();
    bool exact = tiles <= kMaxTiles;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> totals;
    if (exact) {
      for (const auto& [role, loops] : byRole) {
        std::vector<std::int64_t> sum(std::size_t(tiles), 0);
        for (std::size_t l : loops) {
          std::vector<std::int64_t> k = sema::tripCounts(m.loops[l], m, kMaxTiles, binding);
          for (std::size_t o : uses[l].outer)
            if (!m.loops[o].overTiles) {
              std::vector<std::int64_t> ko = sema::tripCounts(m.loops[o], m, kMaxTiles, binding);
              for (std::size_t t = 0; t < k.size() && t < ko.size(); ++t)
                k[t] *= ko[t];
            }
          for (std::size_t t = 0; t < k.size(); ++t)
            sum[t] += k[t];
        }
        totals.emplace_back(role, std::move(sum));
      }
    }
    for (std::int64_t t : tilesToCompare(tiles)) {
      std::vector<std::pair<std::string, std::int64_t>> counts;
      if (exact) {
        bool same = true;
        for (const auto& rt : totals)
          same &= rt.second[std::size_t(t)] == totals.front().second[std::size_t(t)];
        if (same)
          continue;
        for (const auto& rt : totals)
          counts.emplace_back(rt.first, rt.second[std::size_t(t)]);
      } else {
        std::vector<std::int64_t> c = sema::tileCoords(*m.grid, t);
        auto trips = [&](std::size_t l) -> std::int64_t {
          auto r = sema::loopRange(m.loops[l], m, c, binding);
          return r ? r->second - r->first : 0;
        };
        for (const auto& [role, loops] : byRole) {
          std::int64_t n = 0;
          for (std::size_t l : loops) {
            std::int64_t k = trips(l);
            for (std::size_t o : uses[l].outer)
              if (!m.loops[o].overTiles)
                k *= trips(o);
            n += k;
          }
          counts.emplace_back(role, n);
        }
      }
      std::vector<std::int64_t> c = sema::tileCoords(*m.grid, t);
      // The odd role out: the first whose count differs from the most common one (with two
      // roles, the second); reported at its loop, with a note at a loop of the others.
      std::map<std::int64_t, int> votes;
      for (const auto& rc : counts)
        ++votes[rc.second];
      if (votes.size() < 2)
        continue;
      std::int64_t common = counts.front().second;
      for (const auto& [value, n] : votes)
        if (n > votes[common])
          common = value;
      std::size_t odd = 0, even = 0;
      for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i].second != common) {
          odd = i;
          break;
        }
      if (odd == 0 && counts.size() == 2)
        odd = 1;
      even = odd == 0 ? 1 : 0;
      for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i].second != counts[odd].second) {
          even = i;
          break;
        }
      const std::string& atRole = counts[odd].first;
      const std::string& otherRole = counts[even].first;
      auto pick = [&](const std::string& role) {
        for (std::size_t l : byRole[role])
          if (m.loops[l].runtime)
            return l;
        return byRole[role].front();
      };
      std::size_t at = pick(atRole), other = pick(otherRole);
      const ir::Expr& range = *m.loops[at].stmt->block().loopRange;
      const ir::Expr& otherRange = *m.loops[other].stmt->block().loopRange;
      Diagnostic* d = ctx.reporter.report(
          VerifyId::TripCountMismatch, ctx.reporter.range(range.id),
          "role '" + atRole + "' advances pipeline '" + p.name + "' " +
              std::to_string(counts[odd].second) + " times at tile " + coordText(c) + " (loop " +
              ir::print(range) + ") but role '" + otherRole + "' " +
              std::to_string(counts[even].second) + " times (loop " + ir::print(otherRange) +
              "): the roles of a ring must run the same trip count on every tile, or the "
              "longer side waits for a phase the other never completes");
      if (d)
        addNote(d, ctx.reporter.range(otherRange.id),
                "'" + otherRole + "' advances '" + p.name + "' here");
      for (std::size_t b2 = 0; b2 < m.barriers.size(); ++b2)
        if (m.barriers[b2].pipeline == p.name)
          ctx.brokenBarriers.insert(b2);
      break;
    }
  }
}

} // namespace

} // namespace cake::verify::detail

namespace cake::verify::detail {

void checkMasks(Context& ctx) {
  for (const RoleStream& stream : ctx.program.roles)
    for (const Step& s : stream.steps) {
      const sema::OpInfo& op = ctx.op(s);
      if (op.primitive->name != "ew.mask")
        continue;
      std::optional<std::int64_t> col, seqlen;
      for (std::size_t i = 0; i < op.primitive->attributes.size() && i < s.attributes.size(); ++i) {
        const reg::DefValue& v = s.attributes[i];
        if (v.kind != reg::DefValue::Kind::Int)
          continue;
        if (op.primitive->attributes[i].name == "col")
          col = v.i;
        else if (op.primitive->attributes[i].name == "seqlen")
          seqlen = v.i;
      }
      if (!col || !seqlen || *col < *seqlen)
        continue;
      std::int64_t cols = op.operands.empty() || op.operands[0].facts.shape.empty()
                              ? 1
                              : op.operands[0].facts.shape.back();
      Diagnostic* d = ctx.reporter.report(
          VerifyId::MaskPastSequenceEnd, ctx.opRange(op),
          "'" + ctx.model.roles[s.role].name + "' masks keys " + std::to_string(*col) + ".." +
              std::to_string(*col + cols) + " (" + ctx.context(s) +
              "), a block that starts at or past the sequence end seqlen=" +
              std::to_string(*seqlen) +
              ": its keys and values were read past the end of the sequence (the key loop "
              "runs past the last block)");
      if (!d)
        continue;
      // The loop whose range took the block past the end.
      for (std::size_t k = s.loopValues.size(); k-- > 0;) {
        const auto& [loop, value] = s.loopValues[k];
        const sema::LoopInfo& l = ctx.model.loops[loop];
        if (l.overTiles)
          continue;
        addNote(d, ctx.reporter.range(l.stmt->block().loopRange->id),
                "the range of loop '" + l.var + "' reaches " + l.var + " = " +
                    std::to_string(value) + " here");
        break;
      }
      setFix(d, "end the key loop at the last block that starts inside the sequence "
                "(ceil(seqlen / BKV), and for causal tiles min of that and the diagonal)");
    }
}

} // namespace cake::verify::detail
