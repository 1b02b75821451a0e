// Workspace tree: a QFileSystemModel filtered to .cake files whose highlighted row follows the
// editor's file, also after the model loads a folder in the background.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/WorkspaceTree.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemModel>
#include <QItemSelectionModel>

namespace cake::widgets {

namespace {
QString canonical(const QString& path) {
  if (path.isEmpty())
    return {};
  QFileInfo info(path);
  QString c = info.canonicalFilePath();
  return c.isEmpty() ? info.absoluteFilePath() : c;
}
} // namespace

WorkspaceTree::WorkspaceTree(QWidget* parent)
    : QTreeView(parent), m_model(new QFileSystemModel(this)) {
  setObjectName(QStringLiteral("workspaceTree"));
  m_model->setNameFilters({QStringLiteral("*.cake")});
  m_model->setNameFilterDisables(false); // hide, not grey out, other files
  m_model->setFilter(QDir::AllDirs | QDir::Files | QDir::NoDotAndDotDot);
  setModel(m_model);
  for (int c = 1; c < m_model->columnCount(); ++c)
    hideColumn(c); // name only
  setHeaderHidden(true);
  connect(this, &QTreeView::activated, this, [this](const QModelIndex& index) {
    if (index.isValid() && !m_model->isDir(index))
      Q_EMIT fileActivated(m_model->filePath(index));
  });
  // The model fills folders in the background: the open file's row may appear only then.
  connect(m_model, &QFileSystemModel::directoryLoaded, this, [this] { highlight(); });
  // and its delayed sort moves rows after that: scroll to the open file's new place.
  connect(m_model, &QAbstractItemModel::layoutChanged, this, [this] { highlight(); });
}

void WorkspaceTree::setFolder(const QString& dir) {
  m_folder = canonical(dir);
  setRootIndex(m_model->setRootPath(m_folder));
  highlight();
}

void WorkspaceTree::setOpenFile(const QString& path) {
  m_open = canonical(path);
  highlight();
}

QString WorkspaceTree::selectedFile() const {
  const QModelIndexList rows = selectionModel()->selectedRows();
  if (rows.size() != 1 || m_model->isDir(rows.first()))
    return {};
  return canonical(m_model->filePath(rows.first()));
}

void WorkspaceTree::highlight() {
  bool inside =
      !m_open.isEmpty() && !m_folder.isEmpty() && m_open.startsWith(m_folder + QLatin1Char('/'));
  QModelIndex index = inside ? m_model->index(m_open) : QModelIndex();
  if (!index.isValid()) {
    // A file elsewhere (or none): no row may claim to be the open file.
    selectionModel()->clearSelection();
    selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
    return;
  }
  selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                               QItemSelectionModel::Rows);
  scrollTo(index);
}

} // namespace cake::widgets
