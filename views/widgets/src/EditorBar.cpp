// The editor bars' shared frame: labelled field, close button, Esc / Enter handling.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/widgets/EditorBar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QToolButton>

namespace cake::widgets {

EditorBar::EditorBar(QPlainTextEdit* editor, const QString& objectName, const QString& label,
                     const QString& fieldName, QWidget* parent)
    : QWidget(parent), m_textEditor(editor), m_field(new QLineEdit(this)),
      m_layout(new QHBoxLayout(this)) {
  setObjectName(objectName);
  m_layout->setContentsMargins(4, 2, 4, 2);
  auto* buddy = new QLabel(label, this);
  buddy->setBuddy(m_field);
  m_field->setObjectName(fieldName);
  m_field->installEventFilter(this);
  m_layout->addWidget(buddy);
  m_layout->addWidget(m_field, 1);
  hide();
}

QToolButton* EditorBar::addCloseButton(const QString& objectName) {
  auto* button = new QToolButton(this);
  button->setObjectName(objectName);
  button->setText(QStringLiteral("✕"));
  button->setAutoRaise(true);
  button->setToolTip(tr("Close (Esc)"));
  m_layout->addWidget(button);
  connect(button, &QToolButton::clicked, this, [this] { close(); });
  return button;
}

void EditorBar::showAndFocus() {
  show();
  m_field->setFocus(Qt::ShortcutFocusReason);
  m_field->selectAll();
}

void EditorBar::close() {
  hide();
  m_textEditor->setFocus(Qt::OtherFocusReason);
  Q_EMIT closed();
}

bool EditorBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_field && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Escape) {
      close();
      return true;
    }
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      enterPressed(key->modifiers());
      return true;
    }
  }
  // Esc also closes while the field is focused in a shortcut context (ShortcutOverride first).
  if (watched == m_field && event->type() == QEvent::ShortcutOverride &&
      static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
    event->accept();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace cake::widgets
