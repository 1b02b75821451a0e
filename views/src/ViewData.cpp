// Derivation of the view data of a check result: operations, source spans, findings per
// operation and declaration, then the graph, memory map and timeline built on top of them.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/ViewData.h"
#include "cake/views/ClusterTimeline.h"
#include "cake/views/ViewPalette.h"

#include "cake/IR/Printer.h"

#include "cake/Driver/Compiler.h"
#include "cake/views/SymbolIndex.h"

#include <QElapsedTimer>

namespace cake::views {

namespace {

QString loopLabel(const sema::LoopInfo& l) {
  QString var = QString::fromStdString(l.var);
  QString label = l.overTiles ? QStringLiteral("for %1 in tiles").arg(var)
                  : l.runtime ? QStringLiteral("for %1 in %2..%3 (run-time, %4..%5 trips)")
                                    .arg(var, QString::fromStdString(ir::print(*l.beginExpr)),
                                         QString::fromStdString(ir::print(*l.endExpr)))
                                    .arg(l.minTrip)
                                    .arg(l.maxTrip)
                              : QStringLiteral("for %1 in %2..%3").arg(var).arg(l.begin).arg(l.end);
  if (!l.pipeline.empty())
    label += QStringLiteral(" pipeline=%1").arg(QString::fromStdString(l.pipeline));
  return label;
}

} // namespace

SourceSpan spanOf(const driver::CheckResult& r, SourceRange range) {
  SourceSpan s;
  if (!r.sources || !range.valid() || range.file != r.file || !r.sources->contains(range.file))
    return s;
  LineColumn b = r.sources->lineColumn(range.file, range.begin);
  LineColumn e = r.sources->lineColumn(range.file, range.end);
  s.line = int(b.line);
  s.column = int(b.column);
  s.endLine = int(e.line);
  s.endColumn = int(e.column);
  return s;
}

ViewDataPtr buildViewData(const driver::CheckResult& r) {
  QElapsedTimer timer;
  timer.start();
  auto data = std::make_shared<ViewData>();
  const sema::KernelModel& m = r.model;

  for (const sema::RoleInfo& role : m.roles) {
    data->roles << QString::fromStdString(role.name);
    QString detail = QStringLiteral("warps %1..%2").arg(role.warpBegin).arg(role.warpEnd);
    if (role.registers)
      detail += QStringLiteral(", %1 regs").arg(*role.registers);
    data->roleDetail << detail;
  }
  for (const sema::LoopInfo& l : m.loops)
    data->loopLabels << loopLabel(l);

  for (const sema::BufferInfo& b : m.buffers) {
    data->bufferNames << QString::fromStdString(b.name);
    SourceSpan span = b.decl ? spanOf(r, r.module.sourceMap.range(b.decl->id)) : SourceSpan{};
    data->bufferSpans << span;
    if (span.valid() && !data->bufferAtLine.contains(span.line))
      data->bufferAtLine.insert(span.line, int(data->bufferSpans.size()) - 1);
  }

  std::string_view text =
      r.sources && r.sources->contains(r.file) ? r.sources->text(r.file) : std::string_view{};
  data->ops.reserve(int(m.ops.size()));
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    const sema::OpInfo& op = m.ops[i];
    OpView v;
    v.name = op.primitive ? QString::fromStdString(op.primitive->name)
                          : (op.stmt ? QString::fromStdString(op.stmt->opName.name) : QString());
    if (op.stmt) {
      SourceRange range = r.module.sourceMap.range(op.stmt->id);
      v.span = spanOf(r, range);
      if (range.file == r.file && range.end <= text.size() && range.begin < range.end) {
        QString written =
            QString::fromUtf8(text.data() + range.begin, int(range.end - range.begin));
        QString name = QString::fromStdString(op.stmt->opName.name);
        if (written.startsWith(name))
          written = written.mid(name.size());
        v.operands = written.simplified();
      }
    }
    for (const std::string& roleName : op.roles)
      for (std::size_t k = 0; k < m.roles.size(); ++k)
        if (m.roles[k].name == roleName)
          v.roles << int(k);
    for (std::size_t l : op.loops)
      v.loops << int(l);
    for (const sema::OperandInfo& o : op.operands)
      if (o.facts.present && o.entity == sema::EntityKind::Buffer &&
          o.entityIndex < m.buffers.size() && m.buffers[o.entityIndex].space == ir::Space::Smem &&
          !v.smemBuffers.contains(int(o.entityIndex)))
        v.smemBuffers << int(o.entityIndex);
    if (v.span.valid() && !data->opAtLine.contains(v.span.line))
      data->opAtLine.insert(v.span.line, int(i));
    data->ops << std::move(v);
  }

  for (std::size_t d = 0; d < r.diagnostics.size(); ++d) {
    const Diagnostic& diag = r.diagnostics[d];
    SourceSpan span = spanOf(r, diag.range);
    int op = span.valid() ? data->opAtLine.value(span.line, -1) : -1;
    int buffer = span.valid() ? data->bufferAtLine.value(span.line, -1) : -1;
    data->findingOp << op;
    data->findingBuffer << buffer;
    if (op >= 0) {
      OpView& v = data->ops[op];
      v.findings << int(d);
      int s = int(diag.severity);
      if (v.severity < 0 || s < v.severity)
        v.severity = s;
    }
  }

  data->graph = buildGraphDescription(r, *data);
  data->memory = buildMemoryMap(r);
  data->timeline = buildTimelineData(r, *data);
  data->clusterTimeline = buildClusterTimeline(r);
  data->symbols = std::make_shared<const SymbolIndex>(buildSymbolIndex(r));
  data->buildMs = timer.elapsed();
  return data;
}

QColor severityColor(int severity) {
  return ViewPalette::light().severity(severity);
}

} // namespace cake::views
