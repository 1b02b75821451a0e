// Plain-text Cake IR editor with a line-number gutter and finding markers.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMap>
#include <QPlainTextEdit>

namespace cake::app {

class CodeEditor : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit CodeEditor(QWidget* parent = nullptr);

  /// Marks lines with findings (severity 0 blocking, 1 report, 2 hint) and underlines ranges.
  struct Mark {
    int line, column, endLine, endColumn, severity;
    QString message;
  };
  void setMarks(const QList<Mark>& marks);
  /// Moves the cursor to a 1-based position and centres it; `focus` also gives it the focus.
  void goTo(int line, int column, bool focus = true);

  int gutterWidth() const;
  void paintGutter(QPaintEvent* event);

protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* e) override;

private:
  void updateGutter(const QRect& rect, int dy);
  QWidget* m_gutter;
  QList<Mark> m_marks;
};

} // namespace cake::app
