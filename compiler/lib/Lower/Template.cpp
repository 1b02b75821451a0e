// Expansion of the registry's PTX lowering templates: every `{slot}` is bound to a typed value
// (an asm operand, a register list, an immediate or a PTX type name), so a template can only
// produce the instruction its definition states, never arbitrary text.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "Lowerer.h"

#include <charconv>
#include <cstring>
#include <map>
#include <tuple>

namespace cake::lower::detail {

using namespace ex;

namespace {

std::string hexFloat(double v) {
  float f = static_cast<float>(v);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  static const char* digits = "0123456789ABCDEF";
  std::string s = "0f";
  for (int i = 7; i >= 0; --i)
    s += digits[(bits >> (i * 4)) & 0xF];
  return s;
}

} // namespace

const reg::DefValue& Lowerer::attr(const sema::OpInfo& op, std::string_view name) const {
  static const reg::DefValue unknown{};
  auto i = op.primitive->attributeIndex(name);
  if (!i || *i >= op.attributes.size())
    return unknown;
  return op.attributes[*i];
}

const ir::Attribute* Lowerer::attrSyntax(const ir::Stmt& s, std::string_view name) const {
  return s.attribute(name);
}

std::string Lowerer::enumAttr(const sema::OpInfo& op, std::string_view name) const {
  const reg::DefValue& v = attr(op, name);
  return v.kind == reg::DefValue::Kind::Symbol ? v.sym : std::string();
}

std::int64_t Lowerer::intAttr(const sema::OpInfo& op, std::string_view name,
                              std::int64_t fallback) const {
  const reg::DefValue& v = attr(op, name);
  return v.kind == reg::DefValue::Kind::Int ? v.i : fallback;
}

bool Lowerer::boolAttr(const sema::OpInfo& op, std::string_view name, bool fallback) const {
  const reg::DefValue& v = attr(op, name);
  return v.kind == reg::DefValue::Kind::Bool ? v.b : fallback;
}

double Lowerer::floatAttr(const sema::OpInfo& op, std::string_view name, double fallback) const {
  const reg::DefValue& v = attr(op, name);
  if (v.kind == reg::DefValue::Kind::Float)
    return v.f;
  if (v.kind == reg::DefValue::Kind::Int)
    return static_cast<double>(v.i);
  return fallback;
}

std::optional<Binding> Lowerer::defaultBinding(const sema::OpInfo& op,
                                               const reg::TemplateSlot& slot) {
  const reg::Primitive& prim = *op.primitive;
  Binding b;
  auto input = [&](char c, ExprRef v) {
    AsmOperand a;
    a.constraint = c;
    a.value = std::move(v);
    b.operands.push_back(a);
  };
  if (!slot.isOperand) {
    const reg::AttrDef& def = prim.attributes[slot.index];
    const reg::DefValue v =
        slot.index < op.attributes.size() ? op.attributes[slot.index] : reg::DefValue{};
    if (def.type == reg::AttrType::Expr) {
      // A run-time attribute (e.g. a wait parity): evaluate its expression for this thread.
      const ir::Attribute* a = m_stmt ? m_stmt->attribute(def.name) : nullptr;
      if (a) {
        input('r', lowerExpr(*a->value));
        return b;
      }
      if (v.kind == reg::DefValue::Kind::Int) {
        b.literal = std::to_string(v.i);
        return b;
      }
      return std::nullopt;
    }
    switch (v.kind) {
    case reg::DefValue::Kind::Int:
      b.literal = std::to_string(v.i);
      return b;
    case reg::DefValue::Kind::Bool:
      b.literal = v.b ? "1" : "0";
      return b;
    case reg::DefValue::Kind::Float:
      b.literal = hexFloat(v.f);
      return b;
    case reg::DefValue::Kind::Symbol:
      if (slot.facet == "id") {
        // The ordinal of an enum value (e.g. the transpose immediate of wgmma: k = 0, mn = 1).
        for (std::size_t i = 0; i < def.values.size(); ++i)
          if (def.values[i] == v.sym)
            b.literal = std::to_string(i);
        return b;
      }
      if (def.type == reg::AttrType::DType) {
        if (auto t = ir::parseDType(v.sym))
          b.literal = ptxType(*t);
        return b;
      }
      if (v.sym == "default" || v.sym == "none") {
        b.dropQualifier = true;
        return b;
      }
      b.literal = v.sym;
      return b;
    default:
      return std::nullopt;
    }
  }
  // Operand slots.
  if (slot.index >= op.operands.size() || !m_stmt || slot.index >= m_stmt->operands.size())
    return std::nullopt;
  const sema::OperandInfo& info = op.operands[slot.index];
  const ir::Operand& o = m_stmt->operands[slot.index];
  const std::string& f = slot.facet;
  switch (info.entity) {
  case sema::EntityKind::MBarrier: {
    const sema::BarrierInfo& bar = m_model.barriers[info.entityIndex];
    if (f == "addr") {
      input('r', barrierAddress(o, info));
      return b;
    }
    if (f == "count") {
      b.literal = std::to_string(bar.count);
      return b;
    }
    if (f == "phase") {
      b.literal = "cake_state";
      return b;
    }
    return std::nullopt;
  }
  case sema::EntityKind::NBarrier: {
    for (const BarrierGroup& g : m_md.barriers)
      if (g.name == m_model.barriers[info.entityIndex].name) {
        if (f == "id") {
          b.literal = std::to_string(g.hardwareId);
          return b;
        }
        if (f == "count") {
          b.literal = std::to_string(g.initCount);
          return b;
        }
      }
    return std::nullopt;
  }
  case sema::EntityKind::TensorMap: {
    const sema::TensorMapInfo& tm = m_model.tensorMaps[info.entityIndex];
    if (f == "map") {
      input('l', tensorMapAddress(info));
      return b;
    }
    if (f == "rank") {
      b.literal = std::to_string(tm.box.size());
      return b;
    }
    if (f == "coords") {
      // Cake writes box origins in the tensor's dimension order; PTX wants the innermost first.
      for (std::size_t i = o.indices.size(); i-- > 0;)
        input('r', lowerExpr(*o.indices[i].start));
      return b;
    }
    if (f == "dtype") {
      b.literal = ptxType(tm.dtype);
      return b;
    }
    return std::nullopt;
  }
  case sema::EntityKind::Buffer:
    break;
  }
  const sema::BufferInfo& buf = m_model.buffers[info.entityIndex];
  if (f == "dtype") {
    b.literal = ptxType(buf.dtype);
    return b;
  }
  if (f == "rank") {
    b.literal = std::to_string(info.facts.shape.size());
    return b;
  }
  if (f == "bytes") {
    std::int64_t n = 1;
    for (std::int64_t d : info.facts.shape)
      n *= d;
    b.literal = std::to_string(n * elemBytes(buf.dtype));
    return b;
  }
  if (f == "cols") {
    std::int64_t cols = info.facts.shape.empty() ? 1 : info.facts.shape.back();
    if (buf.space == ir::Space::Tmem)
      cols = cols * ir::info(buf.dtype).bits / 32;
    b.literal = std::to_string(cols);
    return b;
  }
  if (f == "lanes") {
    b.literal = std::to_string(info.facts.shape.empty() ? 1 : info.facts.shape.front());
    return b;
  }
  if (f == "count") {
    // The instruction K of an MMA operand: 32 bytes of K per instruction.
    b.literal = std::to_string(256 / std::max(1u, ir::info(buf.dtype).bits));
    return b;
  }
  if (f == "addr") {
    Slice s = slice(o, info);
    if (buf.space == ir::Space::Smem) {
      std::vector<ExprRef> rel;
      input('r', smemAddress(smemOffset(s, rel)));
      return b;
    }
    if (buf.space == ir::Space::Global) {
      input('l', globalAddress(s, {}));
      return b;
    }
    if (buf.space == ir::Space::Tmem) {
      ExprRef base = tmemBase(info.entityIndex);
      ExprRef lane = s.start.empty() ? i32(0) : s.start[0];
      ExprRef col = s.start.size() > 1 ? s.start[1] : i32(0);
      // Columns are 32-bit cells: a 16-bit tile packs two elements per column.
      if (std::int64_t bits = ir::info(buf.dtype).bits; bits < 32)
        col = udiv(mul(col, i32(bits)), 32);
      input('r', add(base, convert(add(bin(Op::Shl, lane, i32(16)), col), Ty::U32)));
      return b;
    }
    return std::nullopt;
  }
  if (f == "regs" || f == "reg") {
    auto v = view(o, info);
    if (!v)
      return std::nullopt;
    reg::Access acc = prim.operands[slot.index].access;
    char mode = acc == reg::Access::Write ? '=' : acc == reg::Access::ReadWrite ? '+' : 0;
    b.output = mode != 0;
    std::int64_t n = f == "reg" ? 1 : v->layout.registers;
    for (std::int64_t r = 0; r < n; ++r)
      b.operands.push_back(regOperand(*v, regIndex(*v, i32(is16Bit(v->dtype) ? 2 * r : r)), mode));
    return b;
  }
  return std::nullopt;
}

void Lowerer::emitTemplate(
    const sema::OpInfo& op,
    const std::function<std::optional<Binding>(const reg::TemplateSlot&)>& bind,
    const std::string& prefix, const std::string& suffix, std::vector<AsmOperand> preOutputs,
    const std::function<std::string(std::string)>& rewrite, std::string intrinsic,
    std::vector<AsmOperand> intrinsicArgs) {
  const reg::Primitive& prim = *op.primitive;
  const TemplateRef tpl = templateOf(op);
  if (tpl.pieces->empty()) {
    unsupported("primitive '" + prim.name + "' has no PTX template (its lowering is derived)");
    return;
  }

  // Pass 1: bind each distinct slot once (a slot used twice names the same operands). The
  // template comes in the token form the registry validated: literal text and typed slots.
  struct Part {
    std::string text;
    int binding = -1;
  };
  std::vector<Part> parts;
  std::vector<std::string> slotKeys;
  std::vector<Binding> bindings;
  std::string lit;
  for (const reg::TemplatePiece& piece : *tpl.pieces) {
    if (piece.slot < 0 || static_cast<std::size_t>(piece.slot) >= tpl.slots->size()) {
      lit += piece.text;
      continue;
    }
    const reg::TemplateSlot& slot = (*tpl.slots)[static_cast<std::size_t>(piece.slot)];
    std::string key = slot.facet.empty() ? slot.name : slot.name + "." + slot.facet;
    int idx = -1;
    for (std::size_t k = 0; k < slotKeys.size(); ++k)
      if (slotKeys[k] == key)
        idx = static_cast<int>(k);
    if (idx < 0) {
      std::optional<Binding> bnd = bind(slot);
      if (!bnd) {
        unsupported("cannot bind template slot '{" + key + "}' of '" + prim.name +
                    "' for this operation");
        return;
      }
      slotKeys.push_back(key);
      bindings.push_back(std::move(*bnd));
      idx = static_cast<int>(bindings.size() - 1);
    }
    parts.push_back({lit, -1});
    lit.clear();
    parts.push_back({"", idx});
  }
  parts.push_back({lit, -1});

  // Pass 2: number the operands (outputs first, in order of appearance) and render.
  std::vector<AsmOperand> outputs = std::move(preOutputs), inputs;
  std::vector<std::vector<int>> numbers(bindings.size());
  for (std::size_t k = 0; k < bindings.size(); ++k)
    if (bindings[k].output)
      for (AsmOperand& a : bindings[k].operands) {
        numbers[k].push_back(static_cast<int>(outputs.size()));
        outputs.push_back(a);
      }
  std::size_t base = outputs.size();
  for (std::size_t k = 0; k < bindings.size(); ++k)
    if (!bindings[k].output)
      for (AsmOperand& a : bindings[k].operands) {
        if (a.constraint == 'n' && a.value) {
          numbers[k].push_back(-1);
          continue;
        }
        numbers[k].push_back(static_cast<int>(base + inputs.size()));
        inputs.push_back(a);
      }
  std::string text;
  for (const Part& p : parts) {
    if (p.binding < 0) {
      text += p.text;
      continue;
    }
    const Binding& bnd = bindings[p.binding];
    if (bnd.dropQualifier) {
      // `.L1::{cache}` with cache=default: drop the whole qualifier.
      std::size_t dot = text.rfind('.');
      if (dot != std::string::npos && text.find_first_of(" \t\n", dot) == std::string::npos)
        text.erase(dot);
      continue;
    }
    if (bnd.dropArgument) {
      if (text.size() >= 2 && text.compare(text.size() - 2, 2, ", ") == 0)
        text.erase(text.size() - 2);
      continue;
    }
    if (!bnd.operands.empty()) {
      if (bnd.braces)
        text += "{";
      if (bnd.brackets)
        text += "[";
      for (std::size_t j = 0; j < bnd.operands.size(); ++j) {
        if (j)
          text += ", ";
        int n = numbers[p.binding][j];
        if (n < 0) {
          auto v = constantValue(*bnd.operands[j].value);
          text += std::to_string(v.value_or(0));
        } else {
          text += "%" + std::to_string(n);
        }
      }
      if (bnd.braces)
        text += "}";
      if (bnd.brackets)
        text += "]";
      continue;
    }
    text += bnd.literal;
  }
  if (rewrite)
    text = rewrite(std::move(text));
  text = prefix + text + suffix;
  bool useIntrinsic = !intrinsic.empty();
  std::vector<AsmOperand> args = useIntrinsic ? std::move(intrinsicArgs) : std::move(inputs);
  asmStmt(std::move(text), std::move(outputs), std::move(args), true, std::move(intrinsic));
}

void Lowerer::emitMerged(const std::function<void()>& body) {
  Block parts;
  Block* saved = m_cur;
  m_cur = &parts;
  body();
  m_cur = saved;
  std::vector<const Stmt*> asms;
  for (const Stmt& s : parts)
    if (s.kind == Stmt::Kind::Asm)
      asms.push_back(&s);
    else if (s.kind != Stmt::Kind::Comment) {
      // Not a plain sequence of asm statements: keep them as they are.
      for (Stmt& p : parts)
        append(std::move(p));
      return;
    }
  if (asms.size() <= 1) {
    for (Stmt& p : parts)
      append(std::move(p));
    return;
  }
  // Outputs naming the same register element (the accumulator of consecutive MMAs) are one
  // operand: keyed by variable, constraint and constant index (a run-time index never
  // matches another).
  std::map<std::tuple<int, char, bool, std::int64_t>, int> outputIndex;
  Stmt merged;
  merged.kind = Stmt::Kind::Asm;
  merged.memory = false;
  std::vector<std::vector<int>> outMap(asms.size());
  for (std::size_t k = 0; k < asms.size(); ++k) {
    merged.memory |= asms[k]->memory;
    for (const AsmOperand& o : asms[k]->outputs) {
      std::optional<std::int64_t> index;
      if (o.index)
        index = constantValue(*o.index);
      bool keyed = !o.index || index;
      auto key = std::make_tuple(o.var, o.constraint, o.index != nullptr, index.value_or(0));
      int found = -1;
      if (keyed)
        if (auto it = outputIndex.find(key); it != outputIndex.end())
          found = it->second;
      if (found < 0) {
        if (keyed)
          outputIndex[key] = static_cast<int>(merged.outputs.size());
        found = static_cast<int>(merged.outputs.size());
        merged.outputs.push_back(o);
      } else if (o.mode == '+') {
        merged.outputs[static_cast<std::size_t>(found)].mode = '+';
      }
      outMap[k].push_back(found);
    }
  }
  // Inputs that name the same register element (an A fragment shared by several MMAs) or
  // the same expression are passed once.
  auto sameInput = [](const AsmOperand& a, const AsmOperand& b) {
    if (a.constraint != b.constraint || !a.value || !b.value)
      return false;
    if (a.value == b.value)
      return true;
    const Expr& x = *a.value;
    const Expr& y = *b.value;
    if (x.kind != Expr::Kind::Var || y.kind != Expr::Kind::Var || x.var != y.var ||
        x.args.size() != y.args.size())
      return false;
    if (x.args.empty())
      return true;
    auto i = constantValue(*x.args[0]), j = constantValue(*y.args[0]);
    return i && j && *i == *j;
  };
  std::size_t base = merged.outputs.size();
  std::vector<std::vector<std::size_t>> inMap(asms.size());
  for (std::size_t k = 0; k < asms.size(); ++k)
    for (const AsmOperand& in : asms[k]->inputs) {
      std::size_t found = merged.inputs.size();
      for (std::size_t j = 0; j < merged.inputs.size(); ++j)
        if (sameInput(merged.inputs[j], in)) {
          found = j;
          break;
        }
      if (found == merged.inputs.size())
        merged.inputs.push_back(in);
      inMap[k].push_back(found);
    }
  std::string& text = merged.text;
  for (std::size_t k = 0; k < asms.size(); ++k) {
    const Stmt& s = *asms[k];
    if (k)
      text += '\n';
    text.reserve(text.size() + s.text.size() + 16);
    for (std::size_t i = 0; i < s.text.size(); ++i) {
      char c = s.text[i];
      if (c == '%' && i + 1 < s.text.size() &&
          std::isdigit(static_cast<unsigned char>(s.text[i + 1]))) {
        std::size_t j = i + 1;
        std::size_t n = 0;
        while (j < s.text.size() && std::isdigit(static_cast<unsigned char>(s.text[j])))
          n = std::min<std::size_t>(n * 10 + static_cast<std::size_t>(s.text[j++] - '0'),
                                    std::size_t{1} << 30);
        if (n >= s.outputs.size() + s.inputs.size()) {
          // asmStmt refuses such text; never index past the operand maps.
          unsupported("inline PTX refers to operand %" + std::to_string(n) + " of " +
                      std::to_string(s.outputs.size() + s.inputs.size()));
          return;
        }
        std::size_t renumbered = n < s.outputs.size() ? static_cast<std::size_t>(outMap[k][n])
                                                      : base + inMap[k][n - s.outputs.size()];
        char num[24];
        auto [end, ec] = std::to_chars(num, num + sizeof num, renumbered);
        (void)ec;
        text += '%';
        text.append(num, end);
        i = j - 1;
        continue;
      }
      text += c;
    }
    if (!merged.line) {
      merged.line = s.line;
      merged.column = s.column;
    }
  }
  append(std::move(merged));
}

} // namespace cake::lower::detail
