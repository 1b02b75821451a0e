// The verifier's driver: unroll the roles, run every analysis, collect their data.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Verify/Verifier.h"

#include "Analyses.h"

namespace cake::verify {

std::uint32_t Trace::intern(std::string_view text) {
  auto it = m_index.find(text);
  if (it != m_index.end())
    return it->second;
  std::uint32_t index = add(std::string(text));
  m_index.emplace(std::string(text), index);
  return index;
}

std::uint32_t Trace::add(std::string text) {
  m_texts.push_back(std::move(text));
  return static_cast<std::uint32_t>(m_texts.size() - 1);
}

std::string_view toString(TraceEvent::Kind kind) {
  switch (kind) {
  case TraceEvent::Kind::Issue:
    return "issue";
  case TraceEvent::Kind::Arrive:
    return "arrive";
  case TraceEvent::Kind::ExpectTx:
    return "expect_tx";
  case TraceEvent::Kind::CompleteTx:
    return "complete_tx";
  case TraceEvent::Kind::Commit:
    return "commit";
  case TraceEvent::Kind::Wait:
    return "wait";
  case TraceEvent::Kind::Sync:
    return "sync";
  case TraceEvent::Kind::PhaseDone:
    return "phase_done";
  }
  return "?";
}

VerifyResult verify(const ir::Module& module, const sema::KernelModel& model,
                    const reg::Registry& registry, const RuleSet& rules, DiagnosticEngine& diags,
                    const VerifyOptions& options) {
  VerifyResult result;
  if (!module.kernel)
    return result;
  result.ran = true;
  detail::Reporter reporter(rules, diags, module.sourceMap);
  detail::Program program = detail::unroll(module, model, options.maxSteps, options.tileCap);
  result.ctas = program.ctas;
  result.tilesPerCta = program.tilesPerCta;
  result.tilesAnalysed = program.tilesAnalysed;
  result.boundReached = program.boundReached;
  detail::Context ctx{module, model, registry, rules, reporter, program, result, {}};
  detail::checkCoverage(ctx);
  detail::checkRequirements(ctx);
  detail::checkResources(ctx);
  detail::checkPatterns(ctx);
  detail::checkMmaDescriptors(ctx);
  detail::checkUsage(ctx);
  detail::checkTmemLanes(ctx);
  detail::checkInstanceWrites(ctx);
  if (program.boundReached) {
    reporter.report(VerifyId::AnalysisBound, module.sourceMap.range(module.kernel->name.id),
                    "analysis bound reached: the roles' programs unroll to more than " +
                        std::to_string(options.maxSteps) +
                        " operation executions; protocol totals are not judged, only the "
                        "executions analysed");
  } else {
    detail::checkProtocol(ctx);
  }
  detail::simulate(ctx);
  detail::checkCluster(ctx);
  detail::checkAsync(ctx);
  detail::checkPerformance(ctx);
  ctx.attachConsequences();
  result.analyses = {"coverage",         "resources", "layout",           "usage",
                     "barrier-protocol", "hazards",   "async-completion", "bank-conflicts",
                     "coalescing"};
  return result;
}

} // namespace cake::verify
