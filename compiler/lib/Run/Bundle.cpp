// Reading and validating run bundles; compute capabilities of targets and cubin images.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Bundle.h"

#include "RunJson.h"
#include "cake/Support/Sha256.h"
#include "cake/Support/StringUtil.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

namespace cake::run {

using namespace detail;

namespace {

/// The largest file a bundle may hold: a cubin of the corpus is well under 1 MiB.
constexpr std::size_t kMaxFileBytes = 64u << 20;
constexpr std::int64_t kMaxElements = std::int64_t(1) << 36;

bool ints(const json::Value* v, std::vector<std::int64_t>& out, std::int64_t lo) {
  if (!v || !v->isArray())
    return false;
  for (const json::Value& e : v->elements) {
    if (!e.isNumber() || !e.integer || *e.integer < lo)
      return false;
    out.push_back(*e.integer);
  }
  return true;
}

/// A plain file name inside the bundle: no directory part, nothing hidden.
bool plainName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos && name[0] != '.';
}

} // namespace

std::int64_t dtypeBytes(const std::string& dtype) {
  static const std::map<std::string, std::int64_t> sizes = {
      {"f64", 8},  {"f32", 4}, {"tf32", 4}, {"i32", 4},     {"u32", 4},     {"bf16", 2},
      {"f16", 2},  {"i16", 2}, {"u16", 2},  {"fp8e4m3", 1}, {"fp8e5m2", 1}, {"e4m3", 1},
      {"e5m2", 1}, {"i8", 1},  {"u8", 1},   {"i64", 8},     {"u64", 8},
      // the IR's spelling of the 8-bit floats (what `cake run` writes into a bundle)
      {"f8e4m3", 1}, {"f8e5m2", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::int64_t BundleBuffer::bytes() const {
  std::int64_t n = dtypeBytes(dtype);
  for (std::int64_t d : shape)
    n *= d;
  return n;
}

const BundleBuffer* Bundle::buffer(const std::string& name) const {
  for (const BundleBuffer& b : buffers)
    if (b.name == name)
      return &b;
  return nullptr;
}

std::optional<Bundle> readBundle(const std::string& dirIn, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dirIn, ec)) {
    error = "bundle '" + dirIn + "' is not a directory";
    return std::nullopt;
  }
  Bundle b;
  b.dir = dirIn;
  auto path = [&](const std::string& name) { return (fs::path(dirIn) / name).string(); };
  std::string readError;
  auto manifestText = readFile(path("manifest.json"), readError, kMaxFileBytes);
  if (!manifestText) {
    error = "bundle '" + dirIn + "': cannot read manifest.json: " + readError;
    return std::nullopt;
  }
  auto m = parseJson(*manifestText, path("manifest.json"), error);
  if (!m)
    return std::nullopt;
  auto bad = [&](const std::string& why) {
    error = path("manifest.json") + ": " + why;
    return std::nullopt;
  };
  if (!m->isObject() || str(*m, "format").value_or("") != "cake-run-bundle")
    return bad("not a cake run bundle (\"format\": \"cake-run-bundle\" expected)");
  if (integer(*m, "version").value_or(0) != kBundleVersion)
    return bad("bundle version " + std::to_string(integer(*m, "version").value_or(0)) +
               " is not supported (this runner reads version " + std::to_string(kBundleVersion) +
               ")");
  auto need = [&](const char* key, std::string& into) {
    auto v = str(*m, key);
    if (!v || v->empty())
      return false;
    into = *v;
    return true;
  };
  std::string metadataName, workloadName;
  if (!need("kernel", b.kernel) || !need("target", b.target) || !need("device", b.device) ||
      !need("image", b.image) || !need("image_kind", b.imageKind) ||
      !need("metadata", metadataName) || !need("workload", workloadName))
    return bad("\"kernel\", \"target\", \"device\", \"image\", \"image_kind\", \"metadata\" and "
               "\"workload\" are required strings");
  if (b.device != "gpu" && b.device != "cpu")
    return bad("\"device\" must be \"gpu\" or \"cpu\", found '" + b.device + "'");
  if (b.imageKind != "cubin" && b.imageKind != "ptx" && b.imageKind != "none")
    return bad("\"image_kind\" must be cubin, ptx or none, found '" + b.imageKind + "'");
  if (!parseTarget(b.target))
    return bad("unknown target '" + b.target + "'");
  b.scheduleHash = str(*m, "schedule_hash").value_or("");
  b.compilerRevision = str(*m, "compiler_revision").value_or("");
  b.source = str(*m, "source").value_or("");
  b.workloadId = str(*m, "workload_id").value_or("");
  b.predictedUs = num(*m, "predicted_us");
  b.rooflineUs = num(*m, "roofline_us");
  for (const auto& v : {b.predictedUs, b.rooflineUs})
    if (v && !(*v > 0 && *v < 1e9))
      return bad("\"predicted_us\" and \"roofline_us\" must be positive microseconds");

  // Every file named is present and has the recorded hash: a half-copied bundle (scp cut off)
  // or one edited after it was built is refused before anything runs.
  const json::Value* files = m->get("files");
  if (!files || !files->isObject())
    return bad("\"files\" (name -> sha256) is required");
  std::map<std::string, std::string> contents;
  for (const json::Member& f : files->members) {
    if (!plainName(f.key) || !f.value.isString())
      return bad("\"files\": '" + f.key + "' is not a plain file name with a sha256 string");
    auto text = readFile(path(f.key), readError, kMaxFileBytes);
    if (!text)
      return bad("file '" + f.key + "' of the bundle cannot be read: " + readError);
    if (sha256Hex(*text) != f.value.string)
      return bad("file '" + f.key + "' does not match its recorded SHA-256 (changed or cut off)");
    contents[f.key] = std::move(*text);
  }
  for (const std::string* name : {&b.image, &metadataName, &workloadName, &b.source}) {
    if (name->empty() || (name == &b.image && b.imageKind == "none"))
      continue;
    if (!contents.count(*name))
      return bad("'" + *name + "' is named but not listed in \"files\"");
  }
  if (b.device == "gpu" && b.imageKind == "none")
    return bad("a GPU bundle needs a kernel image (cubin or ptx)");
  b.workloadText = contents[workloadName];

  auto workload = parseJson(b.workloadText, path(workloadName), error);
  if (!workload)
    return std::nullopt;
  if (const json::Value* tol = workload->get("tolerance"); tol && tol->isObject()) {
    b.rtol = num(*tol, "rtol").value_or(0);
    b.atol = num(*tol, "atol").value_or(0);
  }
  if (!(b.rtol >= 0 && b.atol >= 0))
    return bad("the workload's tolerances must be non-negative");

  const json::Value* buffers = m->get("buffers");
  if (!buffers || !buffers->isArray() || buffers->elements.empty())
    return bad("\"buffers\" must list the kernel's global tensors");
  for (const json::Value& v : buffers->elements) {
    BundleBuffer buf;
    buf.name = str(v, "name").value_or("");
    buf.dtype = str(v, "dtype").value_or("");
    buf.role = str(v, "role").value_or("");
    buf.align = integer(v, "align").value_or(0);
    if (buf.name.empty() || dtypeBytes(buf.dtype) == 0 || !ints(v.get("shape"), buf.shape, 1) ||
        buf.shape.empty())
      return bad("buffer '" + buf.name + "': needs a name, a known dtype and a positive shape");
    if (buf.role != "input" && buf.role != "output" && buf.role != "state")
      return bad("buffer '" + buf.name + "': role must be input, output or state");
    std::int64_t elements = 1;
    for (std::int64_t d : buf.shape) {
      if (d > kMaxElements / elements)
        return bad("buffer '" + buf.name + "' is too large");
      elements *= d;
    }
    if (b.buffer(buf.name))
      return bad("buffer '" + buf.name + "' is listed twice");
    b.buffers.push_back(std::move(buf));
  }

  auto metaText = contents[metadataName];
  auto meta = parseJson(metaText, path(metadataName), error);
  if (!meta)
    return std::nullopt;
  const json::Value* md = meta->get("metadata");
  if (!md || !md->isObject())
    return bad("'" + metadataName + "' is not `cake lower --emit metadata` output");
  if (str(*md, "kernel").value_or("") != b.kernel || str(*md, "target").value_or("") != b.target)
    return bad("the metadata is for kernel '" + str(*md, "kernel").value_or("") + "' (" +
               str(*md, "target").value_or("") + "), the manifest names '" + b.kernel + "' (" +
               b.target + ")");
  const json::Value* grid = md->get("grid");
  const json::Value* smem = md->get("smem");
  auto threads = integer(*md, "threads");
  if (!grid || !grid->isObject() || !smem || !smem->isObject() || !threads || *threads < 1 ||
      *threads > 1024)
    return bad("the metadata lacks threads (1..1024), grid or smem");
  b.launch.threads = *threads;
  b.launch.tileCount = integer(*grid, "tile_count").value_or(0);
  b.launch.persistent = str(*grid, "schedule").value_or("") == "persistent";
  b.launch.smemBytes = integer(*smem, "total").value_or(-1);
  if (b.launch.tileCount < 1 || b.launch.tileCount > (std::int64_t(1) << 31) - 1 ||
      b.launch.smemBytes < 0)
    return bad("the metadata's tile count or shared-memory total is out of range");
  if (const json::Value* tms = md->get("tensor_maps"); tms && tms->isArray()) {
    for (const json::Value& v : tms->elements) {
      BundleTensorMap t;
      t.name = str(v, "name").value_or("");
      t.source = str(v, "source").value_or("");
      t.dtype = str(v, "dtype").value_or("");
      t.swizzle = str(v, "swizzle").value_or("none");
      if (t.name.empty() || !b.buffer(t.source) || !ints(v.get("global_dims"), t.globalDims, 1) ||
          !ints(v.get("global_strides_bytes"), t.globalStrides, 1) ||
          !ints(v.get("box"), t.box, 1) || t.globalDims.empty() || t.globalDims.size() > 5 ||
          t.box.size() != t.globalDims.size() || t.globalStrides.size() + 1 != t.globalDims.size())
        return bad("tensor map '" + t.name + "' of the metadata is malformed or names no buffer");
      b.tensorMaps.push_back(std::move(t));
    }
  }

  const json::Value* launch = m->get("launch");
  if (launch && launch->isObject()) {
    std::vector<std::int64_t> cluster;
    if (launch->get("cluster")) {
      if (!ints(launch->get("cluster"), cluster, 1) || cluster.size() != 3)
        return bad("\"launch.cluster\" must be three positive integers");
      std::copy(cluster.begin(), cluster.end(), b.launch.cluster);
    }
    b.launch.pdl = boolean(*launch, "pdl").value_or(false);
  }
  if (b.launch.tileCount % (b.launch.cluster[0] * b.launch.cluster[1] * b.launch.cluster[2]))
    return bad("the grid is not a multiple of the cluster size");

  const json::Value* params = m->get("params");
  if (!params || !params->isArray())
    return bad("\"params\" must list the kernel's parameters in signature order");
  for (const json::Value& v : params->elements) {
    BundleParam p;
    p.name = str(v, "name").value_or("");
    std::string kind = str(v, "kind").value_or("");
    if (kind == "global") {
      if (!b.buffer(p.name))
        return bad("parameter '" + p.name + "' names no buffer");
    } else if (kind == "tensor_map") {
      p.kind = BundleParam::Kind::TensorMap;
      if (std::none_of(b.tensorMaps.begin(), b.tensorMaps.end(),
                       [&](const BundleTensorMap& t) { return t.name == p.name; }))
        return bad("parameter '" + p.name + "' names no tensor map of the metadata");
    } else if (kind == "scalar") {
      p.kind = BundleParam::Kind::Scalar;
      const json::Value* value = v.get("value");
      if (!value || !value->isNumber() || value->number != double(std::int32_t(value->number)))
        return bad("parameter '" + p.name + "': a scalar needs an i32 \"value\"");
      p.value = std::int32_t(value->number);
    } else {
      return bad("parameter '" + p.name + "': kind must be global, tensor_map or scalar");
    }
    b.params.push_back(std::move(p));
  }

  // The cubin must be what the manifest says it is.
  if (b.imageKind == "cubin") {
    auto cap = cubinTarget(contents[b.image], error);
    if (!cap) {
      error = path(b.image) + ": " + error;
      return std::nullopt;
    }
    Capability want = *parseTarget(b.target);
    if (cap->major != want.major || cap->minor != want.minor)
      return bad("the cubin is built for sm_" + std::to_string(cap->major * 10 + cap->minor) +
                 ", the manifest says " + b.target);
  }
  return b;
}

std::optional<Capability> parseTarget(const std::string& target) {
  if (target.rfind("sm_", 0) != 0 || target.size() < 5)
    return std::nullopt;
  std::string digits = target.substr(3);
  Capability c;
  if (digits.back() == 'a') {
    c.archSpecific = true;
    digits.pop_back();
  }
  if (digits.size() < 2 || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return std::nullopt;
  int n = std::stoi(digits);
  c.major = n / 10;
  c.minor = n % 10;
  return c;
}

std::optional<Capability> cubinTarget(const std::string& bytes, std::string& error) {
  // ELF64 little-endian with e_machine EM_CUDA (190).
  if (bytes.size() < 64 ||
      std::memcmp(bytes.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      bytes[4] != 2 || bytes[5] != 1) {
    error = "not a 64-bit little-endian ELF file (a cubin was expected)";
    return std::nullopt;
  }
  auto u16 = [&](std::size_t at) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[at])) |
           static_cast<unsigned>(static_cast<unsigned char>(bytes[at + 1])) << 8;
  };
  if (u16(18) != 190) {
    error = "ELF machine " + std::to_string(u16(18)) + " is not EM_CUDA (190)";
    return std::nullopt;
  }
  std::uint32_t flags = 0;
  for (int i = 0; i < 4; ++i)
    flags |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[48 + i])) << (8 * i);
  auto abi = static_cast<unsigned char>(bytes[8]);
  // ABI version 8 (CUDA 12.8+) keeps the SM number in bits 8..15 of e_flags, older ones in
  // bits 0..7 (checked against ptxas 13 for sm_80, sm_86, sm_90, sm_100, sm_120).
  unsigned sm = abi >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
  if (sm < 10) {
    error = "the cubin's ELF flags name no SM version";
    return std::nullopt;
  }
  Capability c{static_cast<int>(sm / 10), static_cast<int>(sm % 10), false};
  // The "a" variant is not in e_flags; ptxas records its command line ("-arch sm_90a").
  std::string marker = "-arch sm_" + std::to_string(sm) + "a";
  c.archSpecific = bytes.find(marker) != std::string::npos;
  return c;
}

std::optional<std::string> cannotRun(const Capability& t, int major, int minor, bool isPtx) {
  std::string name = "sm_" + std::to_string(t.major * 10 + t.minor) + (t.archSpecific ? "a" : "");
  std::string dev = "sm_" + std::to_string(major * 10 + minor);
  if (t.archSpecific && (major != t.major || minor != t.minor))
    return name + " code runs only on compute capability " + std::to_string(t.major) + "." +
           std::to_string(t.minor) + " devices; this device is " + dev + " (" +
           std::to_string(major) + "." + std::to_string(minor) + ")";
  if (major < t.major || (major == t.major && minor < t.minor))
    return name + " code needs compute capability " + std::to_string(t.major) + "." +
           std::to_string(t.minor) + " or newer; this device is " + dev;
  if (!isPtx && major != t.major)
    return "an " + name + " cubin runs only on devices of major version " +
           std::to_string(t.major) + "; this device is " + dev + " (rebuild for it, or ship PTX)";
  return std::nullopt;
}

} // namespace cake::run
