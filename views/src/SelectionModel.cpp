// The shared selection: resolves lines, events and findings to operations and buffers.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/views/SelectionModel.h"

namespace cake::views {

SelectionModel::SelectionModel(QObject* parent) : QObject(parent) {
  qRegisterMetaType<Selection>();
  qRegisterMetaType<SelectionOrigin>();
}

const ViewData* SelectionModel::data() const {
  return m_snapshot && m_snapshot->views ? m_snapshot->views.get() : nullptr;
}

void SelectionModel::setSnapshot(const CheckSnapshotPtr& snapshot) {
  // The selected op's line, to find the same statement in the new snapshot.
  SourceSpan before = sourceOf(m_current);
  m_snapshot = snapshot;
  if (m_current.isEmpty())
    return;
  const ViewData* d = data();
  Selection next;
  if (d && before.valid()) {
    if (m_current.op >= 0) {
      next.op = d->opAtLine.value(before.line, -1);
      if (next.op >= 0) {
        next.role = d->ops[next.op].roles.contains(m_current.role) ? m_current.role : -1;
        next.buffer = d->ops[next.op].smemBuffers.value(0, -1);
      }
    } else if (m_current.buffer >= 0) {
      next.buffer = d->bufferAtLine.value(before.line, -1);
    }
  }
  if (next == m_current)
    return;
  m_current = next;
  Q_EMIT selectionChanged(m_current, SelectionOrigin::Program);
}

void SelectionModel::select(const Selection& selection, SelectionOrigin origin) {
  if (selection == m_current)
    return;
  m_current = selection;
  Q_EMIT selectionChanged(m_current, origin);
}

void SelectionModel::selectOp(int op, int role, SelectionOrigin origin) {
  const ViewData* d = data();
  Selection s;
  if (d && op >= 0 && op < d->ops.size()) {
    s.op = op;
    s.role = d->ops[op].roles.contains(role) ? role : -1;
    s.buffer = d->ops[op].smemBuffers.value(0, -1);
  }
  select(s, origin);
}

void SelectionModel::selectLine(int line, SelectionOrigin origin) {
  const ViewData* d = data();
  if (!d) {
    select({}, origin);
    return;
  }
  int op = d->opAtLine.value(line, -1);
  if (op >= 0) {
    // Keep the role when the op is already selected (the editor cannot tell roles apart).
    selectOp(op, m_current.op == op ? m_current.role : -1, origin);
    return;
  }
  int buffer = d->bufferAtLine.value(line, -1);
  if (buffer >= 0) {
    selectBuffer(buffer, origin);
    return;
  }
  select({}, origin);
}

void SelectionModel::selectBuffer(int buffer, SelectionOrigin origin) {
  const ViewData* d = data();
  Selection s;
  if (d && buffer >= 0 && buffer < d->bufferNames.size())
    s.buffer = buffer;
  select(s, origin);
}

void SelectionModel::selectEvent(int event, SelectionOrigin origin) {
  if (!m_snapshot || event < 0 ||
      std::size_t(event) >= m_snapshot->result.verification.trace.size()) {
    select({}, origin);
    return;
  }
  const verify::TraceEvent& e = m_snapshot->result.verification.trace[std::size_t(event)];
  const ViewData* d = data();
  Selection s;
  s.op = int(e.op);
  s.role = int(e.role);
  s.event = event;
  if (d && s.op < d->ops.size())
    s.buffer = d->ops[s.op].smemBuffers.value(0, -1);
  select(s, origin);
}

void SelectionModel::selectFinding(int finding, SelectionOrigin origin) {
  const ViewData* d = data();
  if (!d || finding < 0 || finding >= d->findingOp.size()) {
    select({}, origin);
    return;
  }
  Selection s;
  s.finding = finding;
  s.op = d->findingOp[finding];
  if (s.op >= 0)
    s.buffer = d->ops[s.op].smemBuffers.value(0, -1);
  else
    s.buffer = d->findingBuffer[finding];
  select(s, origin);
}

void SelectionModel::clear(SelectionOrigin origin) { select({}, origin); }

SourceSpan SelectionModel::sourceOf(const Selection& s) const {
  const ViewData* d = data();
  if (!d)
    return {};
  if (s.op >= 0 && s.op < d->ops.size())
    return d->ops[s.op].span;
  if (s.buffer >= 0 && s.buffer < d->bufferSpans.size())
    return d->bufferSpans[s.buffer];
  return {};
}

} // namespace cake::views
