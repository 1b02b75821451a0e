// The sides of a kernel diff (check, cost, PTX through the LLVM path), line diffs through dtl,
// and the text and JSON forms of `cake diff`.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Diff/Diff.h"

#include "cake/Lower/Lowering.h"
#include "cake/LowerLLVM/LlvmBackend.h"

#include <dtl/dtl.hpp>

#include <cstdio>
#include <string_view>

namespace cake::diff {

namespace {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string showQuantity(const Quantity& q, int digits, const char* unit) {
  auto one = [&](const std::optional<double>& v) { return v ? fixed(*v, digits) + unit : "-"; };
  std::string s = one(q.before) + " -> " + one(q.after);
  if (q.before && q.after) {
    double delta = *q.after - *q.before;
    s += " (" + std::string(delta >= 0 ? "+" : "") + fixed(delta, digits) + unit;
    if (*q.before != 0)
      s += ", " + std::string(delta >= 0 ? "+" : "") + fixed(100.0 * delta / *q.before, 1) + "%";
    s += ")";
  }
  return s;
}

void writeQuantity(json::Writer& w, const Quantity& q) {
  w.beginObject().key("before");
  q.before ? w.value(*q.before) : w.null();
  w.key("after");
  q.after ? w.value(*q.after) : w.null();
  w.key("delta");
  q.before&& q.after ? w.value(*q.after - *q.before) : w.null();
  w.endObject();
}

void writeLineDiff(json::Writer& w, const LineDiff& d, bool withLines) {
  w.beginObject();
  w.key("added").value(d.added).key("removed").value(d.removed);
  w.key("common").value(d.common).key("hunks").value(d.hunks);
  if (withLines) {
    w.key("lines").beginArray();
    for (const LineDiff::Line& l : d.lines) {
      if (l.op == LineDiff::Op::Common)
        continue;
      w.beginObject().key("op").value(l.op == LineDiff::Op::Added ? "+" : "-");
      w.key("line").value(l.op == LineDiff::Op::Added ? l.after : l.before);
      w.key("text").value(l.text).endObject();
    }
    w.endArray();
  }
  w.endObject();
}

void writeItems(json::Writer& w, const std::vector<ItemChange>& items) {
  w.beginArray();
  for (const ItemChange& c : items) {
    w.beginObject().key("change").value(changeKindName(c.kind)).key("key").value(c.key);
    w.key("summary").value(c.summary);
    w.key("line_before").value(c.lineBefore).key("line_after").value(c.lineAfter);
    if (c.kind == ChangeKind::Changed) {
      w.key("fields").beginArray();
      for (const FieldChange& f : c.fields)
        w.beginObject()
            .key("field")
            .value(f.field)
            .key("before")
            .value(f.before)
            .key("after")
            .value(f.after)
            .endObject();
      w.endArray();
    }
    w.endObject();
  }
  w.endArray();
}

void renderItems(std::string& out, const std::vector<ItemChange>& items) {
  for (const ItemChange& c : items) {
    char mark = c.kind == ChangeKind::Added ? '+' : c.kind == ChangeKind::Removed ? '-' : '~';
    std::string where = c.kind == ChangeKind::Added     ? "line " + std::to_string(c.lineAfter)
                        : c.kind == ChangeKind::Removed ? "line " + std::to_string(c.lineBefore)
                                                        : "line " + std::to_string(c.lineBefore) +
                                                              " -> " + std::to_string(c.lineAfter);
    out += std::string("  ") + mark + " " + c.key + " (" + where + "): " + c.summary + "\n";
    for (const FieldChange& f : c.fields)
      out += "      " + f.field + ": " + (f.before.empty() ? "(none)" : f.before) + " -> " +
             (f.after.empty() ? "(none)" : f.after) + "\n";
  }
}

} // namespace

LineDiff diffLines(const std::string& before, const std::string& after) {
  std::vector<std::string> a = splitLines(before), b = splitLines(after);
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  // Bounded memory on very different large texts (thousands of PTX lines): dtl then restarts
  // from a coordinate limit, giving a valid, possibly longer, edit script.
  if (a.size() + b.size() > 20000)
    d.onHuge();
  d.compose();
  LineDiff out;
  bool inHunk = false;
  for (const auto& [text, info] : d.getSes().getSequence()) {
    LineDiff::Line l;
    l.text = text;
    switch (info.type) {
    case dtl::SES_ADD:
      l.op = LineDiff::Op::Added;
      l.after = int(info.afterIdx);
      ++out.added;
      break;
    case dtl::SES_DELETE:
      l.op = LineDiff::Op::Removed;
      l.before = int(info.beforeIdx);
      ++out.removed;
      break;
    default:
      l.op = LineDiff::Op::Common;
      l.before = int(info.beforeIdx);
      l.after = int(info.afterIdx);
      ++out.common;
      break;
    }
    bool change = l.op != LineDiff::Op::Common;
    out.hunks += change && !inHunk;
    inHunk = change;
    out.lines.push_back(std::move(l));
  }
  return out;
}

Assessment assess(const driver::Compiler& compiler, std::string path, std::string text,
                  const AssessOptions& options) {
  Assessment s;
  s.path = path;
  s.check = compiler.check(std::move(path), std::move(text));
  const sema::KernelModel& m = s.check.model;
  if (m.target) {
    s.smemBytes = m.smemBytes() + m.derivedSmemBytes();
    for (const sema::RoleInfo& r : m.roles)
      if (r.registers)
        s.roleRegisters[r.name] = *r.registers;
    for (const sema::PipelineInfo& p : m.pipelines)
      s.pipelineStages[p.name] = p.stages;
  }
  if (!s.check.accepted) {
    s.costError = "the kernel has blocking findings";
  } else {
    cost::Options co;
    co.hints = options.hints;
    s.estimate = cost::estimate(compiler, s.check, co);
    if (!s.estimate->ok)
      s.costError = s.estimate->error;
  }
  s.ptxAsked = options.ptx;
  if (!options.ptx)
    return s;
  if (!s.check.accepted) {
    s.ptxUnavailable = "refused kernel (blocking findings)";
    return s;
  }
  lower::LoweredKernel lk = lower::lowerKernel(s.check.module, s.check.model, compiler.registry(),
                                               *s.check.sources, s.path);
  if (!lk.ok) {
    s.ptxUnavailable = "lowering failed";
    for (const Diagnostic& d : lk.findings)
      if (d.severity == Severity::Blocking) {
        s.ptxUnavailable += ": " + d.code;
        break;
      }
    return s;
  }
  if (!lower::llvmSupportsTarget(lk.program.target)) {
    s.ptxUnavailable = "target " + lk.program.target + " has no LLVM lowering path";
    return s;
  }
  lower::LlvmOptions lo;
  // `.loc` lines carry source line numbers: every edit above an operation would change them.
  lo.debugInfo = false;
  lower::LlvmResult res = lower::emitLlvm(lk.program, lo);
  if (!res.ok)
    s.ptxUnavailable = "LLVM path failed: " + res.error;
  else
    s.ptx = std::move(res.ptx);
  return s;
}

void writeJson(json::Writer& w, const KernelDiff& d) {
  w.beginObject();
  w.key("before").beginObject().key("path").value(d.pathBefore).key("target").value(d.targetBefore);
  w.key("accepted").value(d.acceptedBefore).endObject();
  w.key("after").beginObject().key("path").value(d.pathAfter).key("target").value(d.targetAfter);
  w.key("accepted").value(d.acceptedAfter).endObject();
  w.key("different").value(d.different());
  w.key("declarations");
  writeItems(w, d.decls);
  w.key("operations");
  writeItems(w, d.ops);
  w.key("findings").beginArray();
  for (const FindingChange& f : d.findings)
    w.beginObject()
        .key("change")
        .value(f.appeared ? "appeared" : "disappeared")
        .key("code")
        .value(f.code)
        .key("anchor")
        .value(f.anchor)
        .key("severity")
        .value(f.severity)
        .key("line")
        .value(f.line)
        .key("message")
        .value(f.message)
        .endObject();
  w.endArray();
  w.key("predicted_us");
  writeQuantity(w, d.predictedUs);
  w.key("bottleneck").beginObject().key("before").value(d.bottleneckBefore);
  w.key("after").value(d.bottleneckAfter).endObject();
  w.key("smem_bytes");
  writeQuantity(w, d.smemBytes);
  w.key("registers").beginObject();
  for (const auto& [role, q] : d.registers) {
    w.key(role);
    writeQuantity(w, q);
  }
  w.endObject().key("stages").beginObject();
  for (const auto& [pipe, q] : d.stages) {
    w.key(pipe);
    writeQuantity(w, q);
  }
  w.endObject();
  w.key("ir");
  writeLineDiff(w, d.ir, false);
  w.key("ptx");
  if (d.ptx)
    writeLineDiff(w, *d.ptx, false);
  else
    w.beginObject().key("unavailable").value(d.ptxNote).endObject();
  w.endObject();
}

std::string renderText(const KernelDiff& d) {
  std::string out = "--- " + d.pathBefore + " (" + d.targetBefore + ", " +
                    (d.acceptedBefore ? "accepted" : "refused") + ")\n+++ " + d.pathAfter + " (" +
                    d.targetAfter + ", " + (d.acceptedAfter ? "accepted" : "refused") + ")\n";
  out += "declarations: " + std::to_string(d.decls.size()) + " change(s)\n";
  renderItems(out, d.decls);
  out += "operations: " + std::to_string(d.ops.size()) + " change(s)\n";
  renderItems(out, d.ops);
  std::size_t appeared = 0;
  for (const FindingChange& f : d.findings)
    appeared += f.appeared;
  out += "findings: " + std::to_string(appeared) + " appeared, " +
         std::to_string(d.findings.size() - appeared) + " disappeared\n";
  for (const FindingChange& f : d.findings)
    out += std::string("  ") + (f.appeared ? "+ " : "- ") + f.code + " at " + f.anchor + " (line " +
           std::to_string(f.line) + ", " + f.severity + "): " + f.message + "\n";
  out += "predicted: " + showQuantity(d.predictedUs, 2, " us") + "\n";
  if (!d.bottleneckBefore.empty() || !d.bottleneckAfter.empty())
    out += "bottleneck: " + (d.bottleneckBefore.empty() ? "-" : d.bottleneckBefore) + " -> " +
           (d.bottleneckAfter.empty() ? "-" : d.bottleneckAfter) + "\n";
  out += "shared memory: " + showQuantity(d.smemBytes, 0, " B") + "\n";
  for (const auto& [role, q] : d.registers)
    if (q.differs())
      out += "registers " + role + ": " + showQuantity(q, 0, "") + "\n";
  for (const auto& [pipe, q] : d.stages)
    if (q.differs())
      out += "stages " + pipe + ": " + showQuantity(q, 0, "") + "\n";
  out += "ir lines: +" + std::to_string(d.ir.added) + " -" + std::to_string(d.ir.removed) + " in " +
         std::to_string(d.ir.hunks) + " hunk(s)\n";
  if (d.ptx)
    out += "ptx lines: +" + std::to_string(d.ptx->added) + " -" + std::to_string(d.ptx->removed) +
           " in " + std::to_string(d.ptx->hunks) + " hunk(s) (LLVM path, no debug lines)\n";
  else if (!d.ptxNote.empty())
    out += "ptx: not compared (" + d.ptxNote + ")\n";
  out += d.different() ? "result: different\n" : "result: no semantic difference\n";
  return out;
}

} // namespace cake::diff
