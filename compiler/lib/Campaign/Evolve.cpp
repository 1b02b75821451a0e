// `cake evolve`: a seeded, offline search over one-decision schedule edits. Children are
// proposed a generation at a time, assessed in parallel (verifier, cost model) and admitted in
// a fixed order, so a seed always gives the same candidates and lineage whatever the threads.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Campaign/Evolve.h"

#include "cake/Campaign/Campaign.h"
#include "cake/Cost/CostModel.h"
#include "cake/IR/Printer.h"
#include "cake/Support/Json.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/SourceManager.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <tuple>

namespace cake::campaign {

namespace fs = std::filesystem;

namespace {

/// SplitMix64: a tiny generator whose sequence is fixed by its definition (std::
/// distributions are not portable across standard libraries).
class Rng {
public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }

private:
  std::uint64_t m_state;
};

/// One candidate of the search.
struct Node {
  std::string id;
  std::string parent;
  std::string text; ///< canonical
  std::string rationale;
  bool accepted = false;
  std::optional<double> us;
  std::string bottleneck;
  std::int64_t residentCtas = 0;
  std::int64_t stages = 0;  ///< all pipelines' stages together
  std::int64_t smemKiB = 0; ///< shared memory, in steps of 32 KiB
  bool expanded = false;
  std::vector<ScheduleEdit> edits; ///< untried edits (filled on first expansion)
  std::size_t hinted = 0;          ///< untried edits at the front that a cost-model hint names
};

/// A proposed child before assessment.
struct Proposal {
  std::size_t parent = 0;
  ScheduleEdit edit;
  std::size_t island = 0;
  Node node;
};

void assess(const driver::Compiler& compiler, const std::string& name, Node& n) {
  driver::CheckResult r = compiler.check(name, n.text);
  if (!r.module.syntaxErrors && r.module.kernel) {
    // The canonical printer's form: what `cake fmt` would write.
    std::string canon = ir::print(r.module);
    if (canon != n.text) {
      n.text = std::move(canon);
      r = compiler.check(name, n.text);
    }
  }
  n.accepted = r.accepted;
  if (!r.accepted)
    return;
  for (const sema::PipelineInfo& p : r.model.pipelines)
    n.stages += p.stages;
  n.smemKiB = r.model.smemBytes() / (32 << 10) * 32;
  cost::Options o;
  o.hints = false;
  cost::Estimate e = cost::estimate(compiler, r, o);
  if (!e.ok)
    return;
  n.us = e.predictedUs;
  n.bottleneck = e.bottleneck;
  n.residentCtas = e.launch.concurrent;
}

void expand(const driver::Compiler& compiler, const std::string& name, bool hints, Node& n) {
  if (n.expanded)
    return;
  n.expanded = true;
  driver::CheckResult r = compiler.check(name, n.text);
  if (!r.accepted)
    return;
  n.edits = scheduleEdits(r);
  if (!hints)
    return;
  // The edits the cost model's hints name go first: the search tries what the model predicts
  // to help before it samples the rest.
  cost::Estimate e = cost::estimate(compiler, r);
  for (const cost::Hint& h : e.hints) {
    auto it = std::find_if(
        n.edits.begin() + static_cast<long>(n.hinted), n.edits.end(),
        [&](const ScheduleEdit& x) { return x.decision == h.decision && x.to == h.to; });
    if (it == n.edits.end())
      continue;
    char note[64];
    std::snprintf(note, sizeof note, "cost-model hint: -%.0f%% predicted", h.gain * 100.0);
    it->note = note;
    std::rotate(n.edits.begin() + static_cast<long>(n.hinted), it, it + 1);
    ++n.hinted;
  }
}

bool better(const Node& a, const Node& b) {
  return a.us && (!b.us || *a.us < *b.us);
}

std::string compactJson(const std::string& text) {
  SourceManager sources;
  FileId f = sources.addBuffer("workload", text);
  DiagnosticEngine diags(1);
  auto v = json::parse(sources.text(f), f, diags);
  if (!v)
    return {};
  json::Writer w(false);
  w.value(*v);
  return w.take();
}

} // namespace

std::optional<Strategy> strategyFromString(const std::string& text) {
  if (text == "islands")
    return Strategy::Islands;
  if (text == "map-elites")
    return Strategy::MapElites;
  return std::nullopt;
}

const char* toString(Strategy s) {
  return s == Strategy::Islands ? "islands" : "map-elites";
}

EvolveResult evolve(const driver::Compiler& compiler, const std::string& kernelPath,
                    const std::string& out, const EvolveOptions& options) {
  EvolveResult result;
  result.arm = options.arm;
  auto fail = [&](std::string why) {
    result.error = std::move(why);
    return result;
  };
  std::string why;
  auto rootText = readFile(kernelPath, why, kMaxKernelBytes);
  if (!rootText)
    return fail("cannot read '" + kernelPath + "': " + why);
  const std::string label = "root.cake";
  Node root;
  root.id = "root";
  root.text = std::move(*rootText);
  assess(compiler, label, root);
  if (!root.accepted)
    return fail("'" + kernelPath +
                "' is refused by the verifier; the search starts from an "
                "accepted kernel (see `cake check`)");

  // The folder: new, or an existing campaign of the same root gaining an arm.
  std::error_code ec;
  fs::path dir(out);
  fs::path specPath = dir / kSpecFile, logPath = dir / kLogFile;
  fs::create_directories(dir / "kernels", ec);
  if (ec)
    return fail("cannot create '" + (dir / "kernels").string() + "': " + ec.message());
  json::Writer spec;
  bool fresh = !fs::exists(specPath, ec);
  std::vector<LogError> specErrors;
  if (fresh) {
    if (options.campaign.empty())
      return fail("a new campaign needs a name");
    spec.beginObject().key("name").value(options.campaign);
    spec.key("kernel").value("kernels/root.cake");
    spec.key("workload");
    std::string workload = options.workload.empty() ? "" : compactJson(options.workload);
    if (workload.empty())
      spec.null();
    else
      spec.raw(workload);
    spec.key("target").value(compiler.check(label, root.text).module.kernel->target());
    spec.key("arms").beginArray();
  } else {
    auto existing = readFile((dir / "kernels/root.cake").string(), why, kMaxKernelBytes);
    if (!existing || *existing != root.text)
      return fail("'" + out + "' holds a campaign of another root kernel (kernels/root.cake)");
    std::string text = readFile(specPath.string(), why, kMaxSpecBytes).value_or("");
    SourceManager sources;
    FileId f = sources.addBuffer(specPath.string(), text);
    DiagnosticEngine diags(1);
    auto v = json::parse(sources.text(f), f, diags);
    if (!v || !v->isObject() || !v->get("name") || !v->get("name")->isString())
      return fail("'" + specPath.string() + "' is not a campaign.json");
    spec.beginObject();
    for (const json::Member& m : v->members) {
      if (m.key == "arms")
        continue;
      spec.key(m.key).value(m.value);
    }
    spec.key("arms").beginArray();
    if (const json::Value* arms = v->get("arms"); arms && arms->isArray())
      for (const json::Value& a : arms->elements) {
        if (const json::Value* n = a.get("name"); n && n->isString() && n->string == options.arm)
          return fail("campaign '" + v->get("name")->string + "' already has an arm named '" +
                      options.arm + "'");
        spec.value(a);
      }
  }
  result.campaign = fresh ? options.campaign : std::string();
  spec.beginObject()
      .key("name")
      .value(options.arm)
      .key("strategy")
      .value(toString(options.strategy));
  spec.key("seed").value(static_cast<std::uint64_t>(options.seed));
  spec.key("budget").value(static_cast<std::uint64_t>(options.budget));
  spec.key("hints").value(options.hints).endObject();
  spec.endArray().endObject();
  std::string specText = spec.take() + "\n";
  {
    SourceManager sources;
    FileId f = sources.addBuffer("spec", specText);
    DiagnosticEngine diags(1);
    result.campaign = json::parse(sources.text(f), f, diags)->get("name")->string;
  }

  {
    std::ofstream f(specPath, std::ios::binary | std::ios::trunc);
    f << specText;
    if (!f.flush())
      return fail("cannot write '" + specPath.string() + "'");
  }
  std::ofstream log(logPath, std::ios::app | std::ios::binary);
  if (!log)
    return fail("cannot append to '" + logPath.string() + "'");
  auto writeKernel = [&](const Node& n) {
    std::ofstream k(dir / "kernels" / (n.id + ".cake"), std::ios::binary | std::ios::trunc);
    k << n.text;
    return bool(k.flush());
  };
  auto writeLine = [&](const Node& n) {
    json::Writer w(false);
    w.beginObject().key("id").value(n.id).key("parents").beginArray();
    if (!n.parent.empty())
      w.value(n.parent);
    w.endArray();
    w.key("kernel").value("kernels/" + n.id + ".cake");
    w.key("author").beginObject().key("kind").value(n.parent.empty() ? "human" : "search");
    w.key("name").value(n.parent.empty() ? "baseline" : "cake evolve");
    if (!n.parent.empty())
      w.key("run").value(options.arm + "/" + toString(options.strategy) +
                         "/seed=" + std::to_string(options.seed));
    w.endObject();
    if (!n.parent.empty())
      w.key("arm").value(options.arm);
    // A search spends no tokens; its wall time per candidate is not logged so the log stays
    // byte-identical for a seed (docs/campaigns.md).
    w.key("budget").beginObject().key("tokens").value(0).key("wall_s").value(0).endObject();
    w.key("timestamp").value(options.timestamp);
    w.key("rationale").value(n.rationale);
    w.endObject();
    log << w.take() << '\n';
    return bool(log.flush());
  };
  if (fresh) {
    root.rationale =
        "the kernel the search starts from (" + fs::path(kernelPath).filename().string() + ")";
    if (!writeKernel(root) || !writeLine(root))
      return fail("cannot write the campaign folder '" + out + "'");
  }

  // The search.
  // Arms of one seed still search differently: the arm's name enters the seed.
  Rng rng(options.seed ^ std::stoull(sha256Hex(options.arm).substr(0, 15), nullptr, 16));
  std::vector<Node> nodes{root};
  std::set<std::string> seen{sha256Hex(root.text)};
  constexpr std::size_t kIslands = 4, kIslandSize = 6, kMigrateEvery = 4;
  std::vector<std::vector<std::size_t>> islands(kIslands, std::vector<std::size_t>{0});
  // MAP-Elites cells: what kind of kernel (bottleneck, residency, pipeline depth, shared memory
  // in 32 KiB steps) — the best of each kind is kept, whatever its rank overall.
  using Cell = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>;
  auto cellOf = [](const Node& n) {
    return Cell{n.bottleneck, n.residentCtas, n.stages, n.smemKiB};
  };
  std::map<Cell, std::size_t> archive{{cellOf(root), 0}};
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::size_t written = 0, generation = 0, barren = 0;
  auto hasEdits = [&](std::size_t i) {
    expand(compiler, label, options.hints, nodes[i]);
    return !nodes[i].edits.empty();
  };
  auto pickParent = [&](std::size_t island) -> std::size_t {
    std::size_t pick = 0;
    if (options.strategy == Strategy::MapElites) {
      // Uniform over the archive's cells: every kind of kernel found stays a parent.
      auto it = archive.begin();
      std::advance(it, static_cast<long>(rng.below(archive.size())));
      pick = it->second;
    } else {
      // Tournament of two within the island.
      const auto& pop = islands[island];
      std::size_t a = pop[rng.below(pop.size())], b = pop[rng.below(pop.size())];
      pick = better(nodes[b], nodes[a]) ? b : a;
    }
    if (hasEdits(pick))
      return pick;
    // The pick has no untried edit left: the best accepted kernel that has one (the search
    // goes on from the front instead of stalling).
    std::optional<std::size_t> fallback;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].accepted && nodes[i].us && (!fallback || better(nodes[i], nodes[*fallback])) &&
          hasEdits(i))
        fallback = i;
    return fallback.value_or(pick);
  };
  while (written < options.budget && barren < 50) {
    std::vector<Proposal> batch;
    std::size_t want = std::min<std::size_t>(2 * kIslands, options.budget - written);
    for (std::size_t attempt = 0; batch.size() < want && attempt < 8 * want; ++attempt) {
      std::size_t island = batch.size() % kIslands;
      std::size_t p = pickParent(island);
      auto& edits = nodes[p].edits;
      if (edits.empty())
        continue;
      std::size_t e = 0;
      if (nodes[p].hinted > 0)
        --nodes[p].hinted; // a hinted edit first (at the front)
      else
        e = rng.below(edits.size());
      ScheduleEdit edit = std::move(edits[e]);
      edits.erase(edits.begin() + static_cast<long>(e));
      if (!seen.insert(sha256Hex(edit.text)).second)
        continue; // another path reached this kernel already
      Proposal pr;
      pr.parent = p;
      pr.island = island;
      pr.node.text = edit.text;
      pr.node.parent = nodes[p].id;
      pr.node.rationale = edit.rationale();
      pr.edit = std::move(edit);
      batch.push_back(std::move(pr));
    }
    if (batch.empty()) {
      ++barren;
      continue;
    }
    barren = 0;
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < batch.size();) {
        try {
          assess(compiler, label, batch[i].node);
        } catch (const std::exception&) {
          batch[i].node.accepted = false; // an internal error refuses the child
        }
      }
    };
    std::vector<std::thread> workers;
    for (unsigned k = 1; k < std::min<std::size_t>(jobs, batch.size()); ++k)
      workers.emplace_back(work);
    work();
    for (std::thread& t : workers)
      t.join();
    // Admission in proposal order: deterministic whatever finished first.
    for (Proposal& pr : batch) {
      char id[64];
      std::snprintf(id, sizeof id, "%s-%04zu", options.arm.c_str(), written + 1);
      pr.node.id = id;
      nodes.push_back(std::move(pr.node));
      std::size_t idx = nodes.size() - 1;
      const Node& n = nodes[idx];
      if (!writeKernel(n) || !writeLine(n))
        return fail("cannot write the campaign folder '" + out + "'");
      ++written;
      if (!n.accepted || !n.us)
        continue;
      ++result.accepted;
      auto& pop = islands[pr.island];
      pop.push_back(idx);
      std::stable_sort(pop.begin(), pop.end(),
                       [&](std::size_t a, std::size_t b) { return better(nodes[a], nodes[b]); });
      if (pop.size() > kIslandSize)
        pop.pop_back();
      auto key = cellOf(n);
      if (auto it = archive.find(key); it == archive.end() || better(n, nodes[it->second]))
        archive[key] = idx;
    }
    if (++generation % kMigrateEvery == 0)
      // Ring migration: each island's best joins the next one.
      for (std::size_t i = 0; i < kIslands; ++i) {
        auto& to = islands[(i + 1) % kIslands];
        std::size_t best = islands[i].front();
        if (std::find(to.begin(), to.end(), best) != to.end())
          continue;
        to.push_back(best);
        std::stable_sort(to.begin(), to.end(),
                         [&](std::size_t a, std::size_t b) { return better(nodes[a], nodes[b]); });
        if (to.size() > kIslandSize)
          to.pop_back();
      }
  }
  log.close();
  result.candidates = written;
  const Node* best = nullptr;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].accepted && nodes[i].us && (!best || better(nodes[i], *best)))
      best = &nodes[i];
  if (best) {
    result.bestId = best->id;
    result.bestUs = best->us;
  }
  result.ok = true;
  return result;
}

} // namespace cake::campaign
