// The workspace store's run records (migration 3): `cake run --workspace` appends one row per
// run, with an audit entry, and the Runs views and calibration read them back.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "WorkspaceInternal.h"
#include "cake/Support/Json.h"
#include "cake/Support/SourceManager.h"
#include "cake/Workspace/Workspace.h"

namespace cake::ws {

using detail::Statement;

Expected<std::int64_t> Workspace::addRun(const RunRow& run, const std::string& actor) {
  if (Status s = detail::checkName(actor, "the actor"); !s)
    return s.error();
  if (Status s = detail::checkName(run.kernel, "the kernel name"); !s)
    return s.error();
  {
    // The record is stored verbatim and must be readable as JSON later.
    SourceManager sources;
    FileId f = sources.addBuffer("record", run.record);
    DiagnosticEngine diags;
    auto doc = json::parse(sources.text(f), f, diags);
    if (!doc || !doc->isObject())
      return Error{ErrorCode::InvalidArgument, "the run record is not a JSON object"};
  }
  auto began = beginAct();
  if (!began)
    return began.error();
  auto body = [&]() -> Expected<std::int64_t> {
    auto ins = m_db->prepare(
        "INSERT INTO runs(kernel, source_path, schedule_hash, target, device, executor, workload, "
        "correct, record, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
    if (!ins)
      return ins.error();
    ins->bind(1, run.kernel).bind(2, run.sourcePath).bind(3, run.scheduleHash).bind(4, run.target);
    ins->bind(5, run.device).bind(6, run.executor).bind(7, run.workload);
    ins->bind(8, run.correct ? std::optional<std::int64_t>(*run.correct ? 1 : 0) : std::nullopt);
    ins->bind(9, run.record).bind(10, utcNow());
    if (Status s = ins->run(); !s)
      return s.error();
    auto id = m_db->queryInteger("SELECT last_insert_rowid()");
    if (!id)
      return id.error();
    json::Writer payload(false);
    payload.beginObject().key("run").value(*id).key("device").value(run.device);
    payload.key("executor").value(run.executor).key("schedule_hash").value(run.scheduleHash);
    payload.key("correct");
    if (run.correct)
      payload.value(*run.correct);
    else
      payload.null();
    payload.endObject();
    if (auto seq = appendAudit(actor, "run.record", run.kernel, payload.str()); !seq)
      return seq.error();
    return *id;
  };
  return endAct(*began, body());
}

Expected<std::vector<RunRow>> Workspace::runs(const std::string& kernel) {
  auto stmt =
      m_db->prepare("SELECT id, kernel, source_path, schedule_hash, target, device, "
                    "executor, workload, correct, record, created_at FROM runs" +
                    std::string(kernel.empty() ? "" : " WHERE kernel = ?1") + " ORDER BY id");
  if (stmt && !kernel.empty())
    stmt->bind(1, kernel);
  return detail::readAll<RunRow>(stmt, [](const Statement& s) {
    RunRow r;
    r.id = s.integer(0);
    r.kernel = s.text(1);
    r.sourcePath = s.text(2);
    r.scheduleHash = s.text(3);
    r.target = s.text(4);
    r.device = s.text(5);
    r.executor = s.text(6);
    r.workload = s.text(7);
    if (!s.isNull(8))
      r.correct = s.integer(8) != 0;
    r.record = s.text(9);
    r.createdAt = s.text(10);
    return r;
  });
}

} // namespace cake::ws
