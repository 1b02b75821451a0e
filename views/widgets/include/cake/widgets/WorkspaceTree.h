// The workspace dock's tree: a folder's .cake files; the file open in the editor is the
// tree's current, selected row whatever opened it (the tree, Examples, Open Recent) and stays
// so when an open is cancelled (B3).
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTreeView>

class QFileSystemModel;

namespace cake::widgets {

class WorkspaceTree : public QTreeView {
  Q_OBJECT
public:
  explicit WorkspaceTree(QWidget* parent = nullptr);

  /// Shows `dir`'s .cake files (and folders); the open file stays highlighted when inside.
  void setFolder(const QString& dir);
  QString folder() const { return m_folder; }
  /// Highlights the file open in the editor: its row becomes current and the only selected
  /// one, scrolled into view; nothing is highlighted for a file outside the folder or none.
  void setOpenFile(const QString& path);
  QString openFile() const { return m_open; }
  /// The file of the selected row ("" when none, or a folder).
  QString selectedFile() const;
  QFileSystemModel* fileModel() const { return m_model; }

Q_SIGNALS:
  /// A file was activated (Enter, double click): the owner opens it, or not, and then calls
  /// setOpenFile() with what is open.
  void fileActivated(const QString& path);

private:
  void highlight();
  QFileSystemModel* m_model;
  QString m_folder;
  QString m_open;
};

} // namespace cake::widgets
