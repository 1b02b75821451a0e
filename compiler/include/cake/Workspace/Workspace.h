// The workspace store: one SQLite database (WS/workspace.db) holding the revisions of the
// approved data overlay, the append-only, hash-chained audit log, proposals, evaluations, votes
// and gate acceptances. Qt-free; shared by the CLI and the workbench. See docs/workspace.md.
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cake/Support/DataFiles.h"
#include "cake/Workspace/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::ws {

namespace detail {
class Database;
class Statement;
} // namespace detail

/// What an overlay file defines; each kind is laid over one built-in data directory.
enum class FileKind { Primitive, Rule, Calibration, Target };
/// "primitive", "rule", "calibration", "target".
std::string_view toString(FileKind kind);
std::optional<FileKind> fileKindFromString(std::string_view text);
/// The built-in data directory the kind overlays: "primitives", "rules", "calibration",
/// "targets" (also the middle part of an overlay file's label, `ws:rev3/primitives/...`).
std::string_view dataDirectory(FileKind kind);

/// One file of a revision's overlay snapshot.
struct WorkspaceFile {
  FileKind kind = FileKind::Primitive;
  /// Relative to the kind's directory, '/'-separated ("elementwise/ew.gelu.json").
  std::string path;
  std::string content;
  /// Lower-case hex SHA-256 of `content`; computed by the store (ignored on input).
  std::string sha256;
};

/// An immutable revision of the approved overlay.
struct Revision {
  std::int64_t id = 0;
  std::optional<std::int64_t> parent; ///< the head it was installed on (none for the first)
  std::string createdAt;              ///< ISO-8601 UTC with milliseconds
  std::string actor;
  std::string reason;
  /// SHA-256 over the sorted (kind, path, file sha256) of its files: equal overlays, equal hash.
  std::string contentHash;
};

enum class ChangeKind { Added, Changed, Removed };
/// "added", "changed", "removed".
std::string_view toString(ChangeKind change);

/// How one file differs between two revisions.
struct FileChange {
  FileKind kind = FileKind::Primitive;
  std::string path;
  ChangeKind change = ChangeKind::Added;
  std::string oldSha256; ///< empty when added
  std::string newSha256; ///< empty when removed
};

/// One entry of the audit log.
struct AuditEntry {
  std::int64_t seq = 0; ///< 1, 2, 3, ... without gaps
  std::string time;     ///< ISO-8601 UTC with milliseconds
  std::string actor;
  std::string act;     ///< "workspace.init", "revision.install", "revision.revert", ...
  std::string subject; ///< what the act is about ("rev3", a proposal hash, a case id)
  std::string payload; ///< a JSON document, stored and hashed as given
  /// The revision this act created (install, revert, init), if any.
  std::optional<std::int64_t> createdRevision;
  std::string prevHash; ///< the previous entry's hash (64 zeros for the first)
  std::string hash;     ///< auditEntryHash(prevHash, entry)
};

/// The hash of an audit entry: SHA-256 over the previous hash and the entry's canonical form
/// (docs/workspace.md, "Audit chain").
std::string auditEntryHash(const AuditEntry& entry);

/// What verifyAudit found.
struct AuditReport {
  bool ok = false;
  std::int64_t entries = 0;
  /// The first entry that does not verify (a changed field, a broken link, a gap after a
  /// deleted entry); for a problem not tied to one entry, the seq after the last one.
  std::optional<std::int64_t> firstBadSeq;
  std::string message;
};

enum class OpenMode {
  CreateIfMissing, ///< create the directory and an empty workspace (revision 1) when absent
  MustExist,       ///< ws-not-found when WS/workspace.db does not exist
};

enum class ProposalState { New, Evaluated, ChangesRequested, Approved, Rejected, Stale };
/// "new", "evaluated", "changes-requested", "approved", "rejected", "stale".
std::string_view toString(ProposalState state);
std::optional<ProposalState> proposalStateFromString(std::string_view text);

/// A proposal as registered: identified by the hash of its exact content.
struct ProposalRecord {
  std::string hash;
  std::string path; ///< the folder it was read from (a later content at the same path supersedes)
  FileKind kind = FileKind::Primitive;
  std::string title;
  std::string author; ///< JSON object {kind, name, model?, run?}
  ProposalState state = ProposalState::New;
  std::string createdAt;
  std::string updatedAt;
};

/// One evaluation of a proposal's exact content against one revision.
struct Evaluation {
  std::int64_t id = 0;
  std::string proposal;
  std::int64_t revision = 0;
  std::string report; ///< JSON
  std::string createdAt;
};

enum class Decision { Approve, Reject, RequestChanges, Comment };
/// "approve", "reject", "request-changes", "comment".
std::string_view toString(Decision decision);
std::optional<Decision> decisionFromString(std::string_view text);

/// A reviewer's vote or comment on a proposal's exact content.
struct Vote {
  std::int64_t id = 0;
  std::string proposal;
  std::string reviewer;
  Decision decision = Decision::Comment;
  std::string comment;
  std::string createdAt;
};

/// An explicit acceptance of a changed gate case at a revision.
struct GateAcceptance {
  std::int64_t id = 0;
  std::string caseId;
  std::int64_t revision = 0;
  std::string actor;
  std::string comment;
  std::optional<std::string> proposal; ///< the proposal whose approval needed it, if any
  std::string createdAt;
};

/// A campaign as imported: its name (from campaign.json), the folder it was read from and
/// campaign.json as given (docs/campaigns.md).
struct CampaignRecord {
  std::string name;
  std::string folder;
  std::string spec; ///< JSON
  std::string createdAt;
  std::string updatedAt;
};

/// One imported candidate: its log entry and the compiler's assessment of its kernel.
struct CandidateRecord {
  std::string campaign;
  std::string id;
  std::int64_t seq = 0;  ///< import order within the campaign (set by the store)
  std::int64_t line = 0; ///< 1-based line of candidates.jsonl it was read from
  std::string entrySha256;          ///< of that line's bytes
  std::vector<std::string> parents; ///< ids; the first is the one it was derived from
  std::string kernel;               ///< relative path inside the campaign folder
  std::string kernelText;           ///< stored content-addressed (input of addCandidates only)
  std::string kernelSha256;
  std::string author; ///< JSON object {kind, name, model?, run?}
  std::string arm;    ///< empty when the candidate belongs to no arm
  std::string budget; ///< JSON object {tokens, wall_s}
  std::string timestamp;
  std::string rationale;
  std::string measurements = "[]"; ///< JSON array of measurement records
  // Assessment.
  bool accepted = false;
  std::vector<std::string> codes; ///< finding codes, sorted
  std::optional<double> predictedUs;
  std::string bottleneck;
  std::string loweringDigest; ///< PTX digest "sha256:...", or the lowering failure's code
  bool loweredOk = false;
  std::optional<double> measuredUs;
  std::string importedAt;
};

/// One stored run record (`cake run --workspace`): the record JSON verbatim plus the columns it
/// is selected by.
struct RunRow {
  std::int64_t id = 0;
  std::string kernel;
  std::string sourcePath; ///< the kernel file the run was built from
  std::string scheduleHash;
  std::string target;
  std::string device;   ///< device name ("NVIDIA H200"), or "cpu", or "none" (no run happened)
  std::string executor; ///< local, ssh://HOST, slurm[:PARTITION]
  std::string workload;
  std::optional<bool> correct;
  std::string record; ///< the run record (JSON, docs/runs.md)
  std::string createdAt;
};

/// One schema migration: applied in order, `PRAGMA user_version` counts those applied.
struct Migration {
  int version;
  std::string_view description;
  std::string_view sql;
};

/// An open workspace. Every act (a method that writes) is one `BEGIN IMMEDIATE … COMMIT`
/// transaction that also appends its audit entry; a failure rolls all of it back. Methods
/// return errors (Expected/Status), never throw. Not thread-safe: one object per thread;
/// several processes may share a workspace (SQLite locking, WAL, busy timeout).
class Workspace {
public:
  /// The database file inside the workspace directory.
  static constexpr std::string_view kDatabaseName = "workspace.db";

  /// Opens (or, with CreateIfMissing, creates) the workspace in directory `dir`: WAL,
  /// foreign keys on, a busy timeout, pending migrations applied. A newer schema is ws-too-new,
  /// a file that is not an SQLite database (or a damaged one) ws-corrupt, another application's
  /// database ws-not-a-workspace. A new workspace starts at revision 1 (an empty overlay).
  static Expected<Workspace> open(const std::string& dir, OpenMode mode = OpenMode::MustExist);

  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  ~Workspace();

  const std::string& directory() const { return m_dir; }
  /// The schema migrations, oldest first; the latest version is migrations().size().
  static std::span<const Migration> migrations();

  /// Runs `body` as one act: every act called inside joins its transaction, and an error
  /// returned by `body` (or by the commit) rolls everything back. An act nested inside another
  /// is a savepoint: when it fails, its own writes are undone even if `body` goes on.
  Status atomically(const std::function<Status()>& body);

  // --- Revisions of the approved overlay --------------------------------------------------

  Expected<std::int64_t> head();
  /// All revisions, oldest first.
  Expected<std::vector<Revision>> revisions();
  Expected<Revision> revision(std::int64_t id);
  /// The overlay snapshot of revision `id`, sorted by kind then path.
  Expected<std::vector<WorkspaceFile>> overlayFiles(std::int64_t id);
  /// How revision `id` differs from its parent (from an empty overlay for the first).
  Expected<std::vector<FileChange>> changes(std::int64_t id);
  /// Revision `id`'s files as the compiler's overlay, labelled `ws:rev<id>/<dir>/<path>`.
  Expected<DataOverlay> dataOverlay(std::int64_t id);

  /// Installs `files` as the complete overlay of a new revision on top of the head and moves the
  /// head to it, appending one audit entry (`auditAct`, subject "rev<N>", payload
  /// {"revision", "parent", "content_hash", "files", "details": auditPayload}). Paths must be
  /// relative, '/'-separated, without "." or ".." parts, end in ".json"; targets and
  /// calibrations lie directly in their directory; at most 4 MiB per file. Returns the new id.
  Expected<std::int64_t> installRevision(const std::vector<WorkspaceFile>& files,
                                         const std::string& actor, const std::string& reason,
                                         const std::string& auditAct = "revision.install",
                                         const std::string& auditPayload = "{}");
  /// A new revision with the overlay of revision `id` (ws-no-change when the head already has
  /// that content); audit act "revision.revert".
  Expected<std::int64_t> revert(std::int64_t id, const std::string& actor,
                                const std::string& comment);

  // --- Audit log -------------------------------------------------------------------------

  /// Appends one entry (joins the running act, or is an act of its own). `payload` must be a
  /// JSON document. Returns its seq.
  Expected<std::int64_t> appendAudit(const std::string& actor, const std::string& act,
                                     const std::string& subject, const std::string& payload,
                                     std::optional<std::int64_t> createdRevision = std::nullopt);
  Expected<std::vector<AuditEntry>> auditLog();
  /// Checks the chain (seq without gaps, each prev_hash the previous hash, each hash
  /// recomputed), the chain's head recorded with the last act, and that every revision was
  /// created by exactly one audit entry and its files still hash to its content hash.
  Expected<AuditReport> verifyAudit();

  // --- Proposals, evaluations, votes, gate acceptances --------------------------------------

  /// Registers a proposal's exact content (idempotent for a known hash). Registering new
  /// content at a path marks the earlier contents at that path that are not approved or
  /// rejected as stale. Audit act "proposal.submit".
  Expected<ProposalRecord> registerProposal(const ProposalRecord& proposal,
                                            const std::string& actor);
  /// nullopt when no proposal has that hash.
  Expected<std::optional<ProposalRecord>> proposal(const std::string& hash);
  /// All proposals (or those registered from `path`), oldest first.
  Expected<std::vector<ProposalRecord>> proposals(const std::string& path = {});
  /// Audit act "proposal.state".
  Status setProposalState(const std::string& hash, ProposalState state, const std::string& actor,
                          const std::string& comment);
  /// Records an evaluation report (JSON) of a proposal at a revision; audit act
  /// "proposal.evaluate". Returns its id.
  Expected<std::int64_t> addEvaluation(const std::string& hash, std::int64_t revision,
                                       const std::string& report, const std::string& actor);
  Expected<std::vector<Evaluation>> evaluations(const std::string& hash);
  /// Records a vote or comment; audit act "proposal.<decision>". Returns its id.
  Expected<std::int64_t> addVote(const std::string& hash, const std::string& reviewer,
                                 Decision decision, const std::string& comment);
  Expected<std::vector<Vote>> votes(const std::string& hash);
  /// Records the explicit acceptance of a changed gate case; audit act "gate.accept".
  Expected<std::int64_t> acceptGateCase(const std::string& caseId, std::int64_t revision,
                                        const std::string& actor, const std::string& comment,
                                        const std::optional<std::string>& proposal = {});
  /// All acceptances (or those at `revision`), oldest first.
  Expected<std::vector<GateAcceptance>> gateAcceptances(std::optional<std::int64_t> revision = {});

  // --- Campaigns and candidates ---------------------------------------------------------

  /// Records a campaign (name, folder, campaign.json) or, for a known name, its newer folder
  /// and spec; audit act "campaign.register" when anything changed.
  Status registerCampaign(const CampaignRecord& campaign, const std::string& actor);
  Expected<std::vector<CampaignRecord>> campaigns();
  /// nullopt when no campaign has that name.
  Expected<std::optional<CampaignRecord>> campaign(const std::string& name);
  /// Adds a batch of candidates of a registered campaign as one act with one audit entry
  /// ("campaign.import", subject the campaign, payload {"candidates": [ids]}). Parents must be
  /// known (earlier in the batch or stored); ids must be new. Returns the number added.
  Expected<std::int64_t> addCandidates(const std::string& campaign,
                                       const std::vector<CandidateRecord>& batch,
                                       const std::string& actor);
  /// A campaign's candidates in import order.
  Expected<std::vector<CandidateRecord>> candidates(const std::string& campaign);
  /// The stored kernel text with that SHA-256 (nullopt when none).
  Expected<std::optional<std::string>> blob(const std::string& sha256);

  // --- Run records ------------------------------------------------------------------------

  /// Stores a run record (`record` must be a JSON document); audit act "run.record" with the
  /// kernel as subject. Returns its id.
  Expected<std::int64_t> addRun(const RunRow& run, const std::string& actor);
  /// All runs (or those of `kernel`), oldest first.
  Expected<std::vector<RunRow>> runs(const std::string& kernel = {});

private:
  /// One attempt of open(); open() retries it while the file is busy.
  static Expected<Workspace> openOnce(const std::string& dir, OpenMode mode);
  Workspace();
  Status migrate(bool created);
  /// Begins an act: the transaction (true) or, inside a running act, a savepoint (false).
  Expected<bool> beginAct();
  /// Ends the act begun by beginAct: commit or release on success, roll back otherwise.
  Status endAct(bool began, Status result);
  template <class T> Expected<T> endAct(bool began, Expected<T> result);
  /// ws-unknown-proposal unless a proposal has that hash.
  Status requireProposal(const std::string& hash);
  /// The body of most record acts: runs the INSERT `sql` (its parameters bound by `bind`), then
  /// appends the audit entry whose payload `payload` builds from the new row's id. Call inside
  /// an act. Returns the row id.
  Expected<std::int64_t> insertAndAudit(std::string_view sql,
                                        const std::function<void(detail::Statement&)>& bind,
                                        const std::string& actor, const std::string& act,
                                        const std::string& subject,
                                        const std::function<std::string(std::int64_t)>& payload);

  std::unique_ptr<detail::Database> m_db;
  std::string m_dir;
  int m_actDepth = 0;
};

/// A UTC ISO-8601 time stamp with milliseconds ("2026-12-01T20:04:52.123Z").
std::string utcNow();

} // namespace cake::ws
