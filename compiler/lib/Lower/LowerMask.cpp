// Lowering of the attention score mask (ew.mask): every element's query row and key column
// from the fragment layout, one compare and one select of -inf per element.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"

#include <limits>

namespace cake::lower::detail {

using namespace ex;

void Lowerer::opMask(const sema::OpInfo& op, const ir::Stmt& s) {
  auto dst = view(s.operands[0], op.operands[0]);
  if (!dst)
    return;
  const sema::BufferInfo& buf = m_model.buffers[dst->buffer];
  if (buf.shape.size() != 2 || dst->dtype != ir::DType::F32 ||
      dst->elements != m_layouts[dst->buffer].elements) {
    unsupported("ew.mask lowers whole f32 [rows, cols] tiles");
    return;
  }
  auto attrExpr = [&](std::string_view name) -> ExprRef {
    if (const ir::Attribute* a = s.attribute(name); a && a->value)
      return lowerExpr(*a->value);
    return i32(0);
  };
  ExprRef rowBase = attrExpr("row");
  ExprRef colBase = attrExpr("col");
  ExprRef limit = attrExpr("seqlen");
  bool causal = boolAttr(op, "causal", false);
  ExprRef lane = var(m_p, m_role.lane);
  ExprRef warp = var(m_p, m_role.warp);
  // Row and column of element e of the thread's fragment (docs/lowering.md, fragment layouts).
  std::function<std::pair<ExprRef, ExprRef>(ExprRef)> place;
  switch (dst->layout.kind) {
  case Layout::WgmmaAcc:
    // m64nNk16 accumulator: warp w of the warpgroup holds rows 16w..16w+15; lane l holds row
    // l/4 (+8 for the second pair) and columns 2(l%4), 2(l%4)+1 of every 8-column group.
    place = [&](ExprRef e) {
      ExprRef r = add(add(mul(bin(Op::And, warp, i32(3)), i32(16)), bin(Op::Shr, lane, i32(2))),
                      mul(bin(Op::And, bin(Op::Shr, e, i32(1)), i32(1)), i32(8)));
      ExprRef c =
          add(add(mul(bin(Op::Shr, e, i32(2)), i32(8)), mul(bin(Op::And, lane, i32(3)), i32(2))),
              bin(Op::And, e, i32(1)));
      return std::pair{r, c};
    };
    break;
  case Layout::Thread:
    place = [&](ExprRef e) {
      return std::pair{bin(Op::Div, e, i32(buf.shape[1])), bin(Op::Rem, e, i32(buf.shape[1]))};
    };
    break;
  default:
    unsupported("ew.mask lowers wgmma accumulators and per-thread tiles");
    return;
  }
  const float ninf = -std::numeric_limits<float>::infinity();
  repeat("i", dst->elements, [&](ExprRef e) {
    auto [r, c] = place(e);
    ExprRef key = add(colBase, c);
    ExprRef masked = bin(Op::Ge, key, limit);
    if (causal)
      masked = bin(Op::Or, masked, bin(Op::Gt, key, add(rowBase, r)));
    writeElems(*dst, e, {select(masked, f32(ninf), readElem(*dst, e))});
  });
}

} // namespace cake::lower::detail
