// The findings panel in a narrow dock beside the editor: at 1024x640 with the dock 360 px wide
// the window keeps its size, the filters wrap onto more rows, the columns before the message are
// capped (their text elides), the explanation moves below the list and wraps. The FlowLayout
// behind the wrapping filter bar: rows per width, expanding items, no overlaps.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "../views/ViewsTestUtil.h"
#include "cake/views/FindingsModel.h"
#include "cake/views/SelectionModel.h"
#include "cake/widgets/CodeEditor.h"
#include "cake/widgets/FindingsPanel.h"
#include "cake/widgets/FlowLayout.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QMainWindow>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeView>
#include <QtTest>

using namespace cake;

namespace {

const char* kMixed = "negative/accumulator-overwrite.cake"; // 4 blocking, 2 reports, 1 hint

/// A widget that wants exactly `hint`.
class Box : public QWidget {
public:
  explicit Box(QSize hint) : m_hint(hint) {}
  QSize sizeHint() const override { return m_hint; }

private:
  QSize m_hint;
};

} // namespace

class TestFindingsNarrow : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void flowLayout_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("rows");
    // Four 100 px boxes and an expanding one of 150 px, 6 px apart, no margins.
    QTest::newRow("one row") << 600 << 1;
    QTest::newRow("exactly one row") << 4 * 100 + 150 + 4 * 6 << 1;
    QTest::newRow("one pixel less") << 4 * 100 + 150 + 4 * 6 - 1 << 2;
    QTest::newRow("two per row") << 206 << 3;
    QTest::newRow("one per row") << 205 << 5;
  }
  void flowLayout() {
    QFETCH(int, width);
    QFETCH(int, rows);
    QWidget host;
    auto* flow = new widgets::FlowLayout(&host, 6, 2);
    flow->setContentsMargins(0, 0, 0, 0);
    QList<QWidget*> items;
    for (int i = 0; i < 4; ++i) {
      auto* b = new Box(QSize(100, 20));
      b->setFixedSize(100, 20);
      flow->addWidget(b);
      items << b;
    }
    auto* field = new Box(QSize(150, 20));
    field->setMinimumSize(150, 20);
    field->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    flow->addWidget(field);
    items << field;
    QCOMPARE(flow->rowCount(width), rows);
    QCOMPARE(flow->heightForWidth(width), rows * 20 + (rows - 1) * 2);
    QCOMPARE(flow->minimumSize(), QSize(150, 20));
    flow->setGeometry(QRect(0, 0, width, flow->heightForWidth(width)));
    for (int i = 0; i < items.size(); ++i) {
      QVERIFY2(items[i]->geometry().right() < width, qPrintable(QString::number(i)));
      for (int j = i + 1; j < items.size(); ++j)
        QVERIFY(!items[i]->geometry().intersects(items[j]->geometry()));
    }
    // The expanding field takes the spare width of its row: it ends at the right edge.
    QCOMPARE(field->geometry().right(), width - 1);
  }

  void besideTheEditorAt1024x640() {
    views::SelectionModel sel;
    QMainWindow window;
    auto* editor = new widgets::CodeEditor;
    window.setCentralWidget(editor);
    auto* panel = new widgets::FindingsPanel(&sel);
    panel->setCompiler(test::compiler());
    auto* dock = new QDockWidget(QStringLiteral("Findings"), &window);
    dock->setWidget(panel);
    window.addDockWidget(Qt::RightDockWidgetArea, dock);
    auto snap = test::corpusSnapshot(kMixed);
    editor->setPlainText(snap->text);
    sel.setSnapshot(snap);
    panel->setSnapshot(snap);
    // The panel can be as narrow as a dock beside the editor (it was 587 px at the least).
    QVERIFY2(panel->minimumSizeHint().width() <= 360,
             qPrintable(QString::number(panel->minimumSizeHint().width())));
    window.resize(1024, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.resizeDocks({dock}, {360}, Qt::Horizontal);
    QTRY_COMPARE(dock->width(), 360);
    QCOMPARE(window.size(), QSize(1024, 640));
    QVERIFY(window.minimumSizeHint().width() <= 1024);
    QVERIFY(editor->width() >= 1024 - 360 - 20);
    // The filters wrap: every one of them inside the panel, none on top of another.
    auto* search = panel->findChild<QLineEdit*>("findingsSearch");
    QVERIFY(search->geometry().right() < panel->width());
    auto* copy = panel->findChild<QWidget*>("copyButton");
    QVERIFY(copy->geometry().right() < panel->width());
    QVERIFY(copy->geometry().top() > panel->findChild<QWidget*>("showBlocking")->geometry().top());
    // The explanation moved below the list.
    auto* detail = panel->findChild<QTextBrowser*>("findingDetail");
    auto* split = qobject_cast<QSplitter*>(detail->parentWidget());
    QCOMPARE(split->orientation(), Qt::Vertical);
    QVERIFY(detail->geometry().top() > panel->view()->geometry().bottom());
    QVERIFY(panel->view()->height() >= 4 * panel->view()->fontMetrics().height());
    // The columns before the message are capped: the message column starts inside the list.
    QTreeView* view = panel->view();
    const int message = view->header()->sectionPosition(views::FindingsModel::MessageColumn);
    QVERIFY2(message <= view->viewport()->width() * 2 / 3 + 4,
             qPrintable(QString::number(message)));
    // Severity and line keep their contents' width: never elided.
    for (int c :
         {int(views::FindingsModel::SeverityColumn), int(views::FindingsModel::LocationColumn)}) {
      const int before = view->columnWidth(c);
      view->resizeColumnToContents(c);
      QCOMPARE(view->columnWidth(c), before);
    }
    // Explain wraps in the narrow pane: no horizontal scrolling.
    QVERIFY(panel->selectFinding(0));
    QVERIFY(!panel->explainCurrent().isEmpty());
    QCoreApplication::processEvents();
    QCOMPARE(detail->horizontalScrollBar()->maximum(), 0);
    const QByteArray shotDir = qgetenv("CAKE_SHOT_DIR");
    if (!shotDir.isEmpty())
      window.grab().save(QString::fromLocal8Bit(shotDir) + "/findings-beside-1024x640.png");
    // Wide again (the dock at the bottom): side by side as before.
    window.addDockWidget(Qt::BottomDockWidgetArea, dock);
    window.resizeDocks({dock}, {250}, Qt::Vertical);
    QTRY_COMPARE(split->orientation(), Qt::Horizontal);
  }
};

QTEST_MAIN(TestFindingsNarrow)
#include "tst_findingsnarrow.moc"
