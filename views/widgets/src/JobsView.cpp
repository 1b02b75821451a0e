// Jobs panel: a table over JobsModel with a progress delegate and a Cancel button.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/JobsView.h"

#include "cake/widgets/ElidedLabel.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace cake::widgets {

namespace {

/// A progress bar: busy (indeterminate) while running, full when finished, empty when the job
/// was cancelled, failed or superseded.
class ProgressDelegate : public QStyledItemDelegate {
public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override {
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 3, -2, -3);
    bar.palette = option.palette;
    bar.state = option.state | QStyle::State_Horizontal;
    int p = index.data(views::JobsModel::ProgressRole).toInt();
    // An indeterminate bar has no animation in a delegate: draw it half full, labelled.
    bar.minimum = 0;
    bar.maximum = 100;
    bar.progress = p == -1 ? 50 : p == -2 ? 0 : p; // -2: ended without finishing (empty)
    bar.text = index.data().toString();
    bar.textVisible = true;
    QApplication::style()->drawControl(QStyle::CE_ProgressBar, &bar, painter);
  }
};

} // namespace

JobsView::JobsView(views::JobsModel* model, views::CompileSession* session, QWidget* parent)
    : QWidget(parent), m_model(model), m_session(session), m_table(new QTableView(this)),
      m_cancel(new QPushButton(tr("Cancel job"), this)) {
  setObjectName(QStringLiteral("jobsView"));
  m_table->setObjectName(QStringLiteral("jobsTable"));
  m_table->setModel(model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  m_table->setItemDelegateForColumn(views::JobsModel::ProgressColumn,
                                    new ProgressDelegate(m_table));
  m_table->setColumnWidth(views::JobsModel::IdColumn, 50);
  m_table->setColumnWidth(views::JobsModel::KindColumn, 60);
  m_table->setColumnWidth(views::JobsModel::StateColumn, 90);
  m_table->setColumnWidth(views::JobsModel::ProgressColumn, 90);
  m_table->setColumnWidth(views::JobsModel::ElapsedColumn, 80);
  m_cancel->setObjectName(QStringLiteral("cancelJobButton"));
  auto* bar = new QHBoxLayout;
  auto* note = new ElidedLabel(this); // narrow docks: elided, never wider than the view
  note->setText(tr("Background jobs (newest last); superseded and cancelled results are dropped."));
  bar->addWidget(note, 1);
  bar->addWidget(m_cancel);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_table, 1);
  connect(m_cancel, &QPushButton::clicked, this, &JobsView::cancelCurrent);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &JobsView::updateButton);
  connect(model, &QAbstractItemModel::dataChanged, this, &JobsView::updateButton);
  connect(model, &QAbstractItemModel::rowsInserted, this, [this] { m_table->scrollToBottom(); });
  updateButton();
}

bool JobsView::cancelCurrent() {
  int row = m_table->currentIndex().row();
  bool done = row >= 0 && m_session->cancelJob(m_model->jobId(row));
  updateButton();
  return done;
}

void JobsView::updateButton() {
  int row = m_table->currentIndex().row();
  m_cancel->setEnabled(row >= 0 &&
                       m_model->index(row, 0).data(views::JobsModel::ActiveRole).toBool());
}

} // namespace cake::widgets
