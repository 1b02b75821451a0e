// The jobs panel: every background job of the compile façade (check, cost, lower, ptxas) with
// kind, state, progress, elapsed time and log line; Cancel drops the selected job's result and
// kills its external tool.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/views/JobsModel.h"

#include <QWidget>

class QPushButton;
class QTableView;

namespace cake::widgets {

class JobsView : public QWidget {
  Q_OBJECT
public:
  /// Shows `model`; cancel requests go to `session`.
  JobsView(views::JobsModel* model, views::CompileSession* session, QWidget* parent = nullptr);
  QTableView* table() const { return m_table; }
  /// Cancels the job of the current row (what the Cancel button does).
  bool cancelCurrent();

private:
  void updateButton();
  views::JobsModel* m_model;
  views::CompileSession* m_session;
  QTableView* m_table;
  QPushButton* m_cancel;
};

} // namespace cake::widgets
