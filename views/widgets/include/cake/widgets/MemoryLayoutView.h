// The memory layout view: the shared-memory byte map (buffers × stages, mbarrier storage, free
// space, overlaps, the target's per-CTA limit), TMEM columns on sm_100a, and for a selected
// buffer the element → bank grid under its swizzle with the bank load of an access the
// verifier models (or why it does not model it).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/BuffersModel.h"
#include "cake/views/MemoryMap.h"
#include "cake/views/SelectionModel.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace cake::widgets {

class ByteMapWidget;
class BankGridWidget;

class MemoryLayoutView : public QWidget {
  Q_OBJECT
public:
  explicit MemoryLayoutView(views::SelectionModel* selection, QWidget* parent = nullptr);

  void setSnapshot(const views::CheckSnapshotPtr& snapshot);
  /// The buffer whose banks are shown (index into KernelModel::buffers), or -1.
  int currentBuffer() const { return m_buffer; }
  /// The access shown: index into VerifyResult::smemAccesses, or -1 (none or not modelled).
  int currentAccess() const { return m_access; }
  /// The op whose access is shown (modelled or not), or -1.
  int currentOp() const { return m_op; }
  /// What the view says about the access (conflict degree, or why it is not modelled).
  QString accessNote() const;
  void showBuffer(int buffer, int preferredOp = -1);
  views::BuffersModel* buffersModel() const { return m_buffers; }

private:
  friend class ByteMapWidget;
  friend class BankGridWidget;
  void onSelectionChanged(const views::Selection& selection, views::SelectionOrigin origin);
  void fillAccesses(int preferredOp);
  void showAccess(int index);

  views::SelectionModel* m_selection;
  views::CheckSnapshotPtr m_snapshot;
  views::BuffersModel* m_buffers;
  ByteMapWidget* m_map;
  BankGridWidget* m_grid;
  QComboBox* m_bufferBox;
  QComboBox* m_accessBox;
  QLabel* m_note;
  int m_buffer = -1;
  int m_access = -1;
  int m_op = -1;
  bool m_updating = false;
};

} // namespace cake::widgets
