// Lowering, sync family: issue guards, role and release barriers, and the register fence after
// a wait for asynchronous register writes. (Every sync primitive lowers from its template.)
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"

#include <algorithm>
#include <set>

namespace cake::lower::detail {

using namespace ex;

void Lowerer::issueGuard(reg::IssueScope scope, const std::function<void()>& body) {
  switch (scope) {
  case reg::IssueScope::Elected:
    ifThen(bin(Op::Ne, var(m_p, m_role.elected), u32(0)), body);
    return;
  default:
    body();
    return;
  }
}

void Lowerer::roleBarrier() {
  const std::int64_t threads = m_role.role->threads();
  auto it = m_barrierPlan.roleBarrier.find(m_role.role->name);
  const std::int64_t id = it == m_barrierPlan.roleBarrier.end() ? 0 : it->second;
  if (id == 0 || threads == m_md.threads) {
    asmStmt("bar.sync 0;", {}, {}, true, "llvm.nvvm.barrier0");
    return;
  }
  AsmOperand a, b;
  a.constraint = b.constraint = 'n';
  a.value = i32(id);
  b.value = i32(threads);
  asmStmt("bar.sync " + std::to_string(id) + ", " + std::to_string(threads) + ";", {}, {a, b}, true,
          "llvm.nvvm.barrier.sync.cnt");
}

void Lowerer::releaseSync(verify::ReleaseSync sync) {
  switch (sync) {
  case verify::ReleaseSync::None:
    return;
  case verify::ReleaseSync::Warp: {
    // The arriving lane's release then covers its warp's accesses (bar.warp.sync orders memory
    // among the participating lanes).
    AsmOperand mask;
    mask.constraint = 'n';
    mask.value = i32(-1);
    asmStmt("bar.warp.sync -1;", {}, {mask}, true, "llvm.nvvm.bar.warp.sync");
    return;
  }
  case verify::ReleaseSync::Warpgroup: {
    // Each warpgroup of the role has its own barrier: a shared id would let warps of two
    // warpgroups complete each other's 128 arrivals.
    auto it = m_barrierPlan.warpgroupBase.find(m_role.role->name);
    if (it == m_barrierPlan.warpgroupBase.end()) {
      unsupported("no warpgroup barrier was planned for this release");
      return;
    }
    // Literal ids (with a register id ptxas must assume all 16 barriers are in use), chosen
    // by a predicate inside one asm statement: control flow around the barrier would split the
    // block LLVM optimises (the Flash-KMeans argmin grew by 40% of its SASS that way).
    const std::int64_t groups = (m_role.role->warps() + 3) / 4;
    std::string text = "{\n.reg .pred cake_wg;\n";
    for (std::int64_t w = 0; w < groups; ++w)
      text += "setp.eq.s32 cake_wg, %0, " + std::to_string(w) + ";\n@cake_wg bar.sync " +
              std::to_string(it->second + w) + ", 128;\n";
    text += "}";
    AsmOperand wg;
    wg.value = var(m_p, m_role.wg);
    asmStmt(text, {}, {wg}, true);
    return;
  }
  case verify::ReleaseSync::Role:
    roleBarrier();
    return;
  }
}

void Lowerer::fenceAsyncRegisters(const std::string& group) {
  auto key = std::make_pair(group, m_role.index);
  auto cached = m_asyncRegisters.find(key);
  if (cached == m_asyncRegisters.end()) {
    // The register operands this role's operations write with completion through `group`
    // (their effects say so: wgmma.mma's acc, tcgen05.ld's dst).
    const std::string completion = "group:" + group;
    std::set<std::size_t> found;
    for (const sema::OpInfo& o : m_model.ops) {
      if (std::find(o.roles.begin(), o.roles.end(), m_role.role->name) == o.roles.end())
        continue;
      for (const reg::EffectDef& e : o.primitive->effects) {
        if (e.kind != reg::EffectKind::Write || e.completion != completion || !e.operandIndex)
          continue;
        std::size_t i = *e.operandIndex;
        if (i < o.operands.size() && o.operands[i].facts.present &&
            o.operands[i].entity == sema::EntityKind::Buffer &&
            m_model.buffers[o.operands[i].entityIndex].space == ir::Space::Reg)
          found.insert(o.operands[i].entityIndex);
      }
    }
    cached =
        m_asyncRegisters.emplace(key, std::vector<std::size_t>(found.begin(), found.end())).first;
  }
  for (std::size_t b : cached->second) {
    auto it = m_role.regVars.find(b);
    if (it == m_role.regVars.end())
      continue;
    const Var& v = m_p.vars[it->second];
    std::vector<AsmOperand> outs;
    for (int r = 0; r < v.count; ++r) {
      AsmOperand a;
      a.constraint = v.ty == Ty::F32 ? 'f' : 'r';
      a.mode = '+';
      a.var = it->second;
      a.index = i32(r);
      outs.push_back(a);
    }
    // The wait itself names the registers (no separate asm): they are "written" by it.
    Stmt* wait = nullptr;
    for (auto it = m_cur->rbegin(); it != m_cur->rend(); ++it)
      if (it->kind != Stmt::Kind::Comment) {
        if (it->kind == Stmt::Kind::Asm && it->inputs.empty() &&
            (it->text.find("wait_group") != std::string::npos ||
             it->text.find("wait::ld") != std::string::npos))
          wait = &*it;
        break;
      }
    if (wait) {
      for (AsmOperand& o : outs)
        wait->outputs.push_back(std::move(o));
      continue;
    }
    comment("registers of '" + m_model.buffers[b].name + "' are complete after the wait");
    asmStmt("", std::move(outs), {}, true);
  }
}

} // namespace cake::lower::detail
