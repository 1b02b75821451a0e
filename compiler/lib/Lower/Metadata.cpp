// Derivation of the mechanical kernel metadata (roles, shared-memory table, barriers, TMEM,
// tensor maps) and its JSON form.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Lower/Metadata.h"

#include "cake/IR/Printer.h"
#include "cake/Support/Sha256.h"

#include <algorithm>
#include <map>

namespace cake::lower {

namespace {

std::int64_t alignUp(std::int64_t v, std::int64_t a) {
  return (v + a - 1) / a * a;
}

std::int64_t nextPow2AtLeast32(std::int64_t v) {
  std::int64_t p = 32;
  while (p < v)
    p *= 2;
  return p;
}

} // namespace

std::uint64_t wgmmaDescriptorBits(const std::string& swizzle, std::int64_t lbo, std::int64_t sbo) {
  // PTX ISA "Matrix Descriptor Format": 14-bit (x & 0x3FFFF) >> 4 encodings of LBO (16..29)
  // and SBO (32..45), base offset 0 (atoms start on their repeat boundary), swizzle mode in
  // bits 62..63: 1 = 128B, 2 = 64B, 3 = 32B, 0 = none.
  std::uint64_t mode = swizzle == "128B" ? 1 : swizzle == "64B" ? 2 : swizzle == "32B" ? 3 : 0;
  std::uint64_t d = 0;
  d |= (std::uint64_t((lbo & 0x3FFFF) >> 4) & 0x3FFF) << 16;
  d |= (std::uint64_t((sbo & 0x3FFFF) >> 4) & 0x3FFF) << 32;
  d |= mode << 62;
  return d;
}

std::uint64_t tcgen05DescriptorBits(const std::string& swizzle, std::int64_t lbo,
                                    std::int64_t sbo) {
  // PTX ISA "tcgen05 shared memory descriptor": LBO 16..29, SBO 32..45, the fixed value 0b001 in
  // bits 46..48, base offset 0, relative LBO mode (bit 52 = 0), swizzle in 61..63: 2 = 128B,
  // 4 = 64B, 6 = 32B, 0 = none.
  std::uint64_t mode = swizzle == "128B" ? 2 : swizzle == "64B" ? 4 : swizzle == "32B" ? 6 : 0;
  std::uint64_t d = 0;
  d |= (std::uint64_t((lbo & 0x3FFFF) >> 4) & 0x3FFF) << 16;
  d |= (std::uint64_t((sbo & 0x3FFFF) >> 4) & 0x3FFF) << 32;
  d |= std::uint64_t(1) << 46;
  d |= mode << 61;
  return d;
}

std::uint32_t tcgen05InstrDescriptor(ir::DType d, ir::DType a, ir::DType b, std::int64_t m,
                                     std::int64_t n, bool aMnMajor, bool bMnMajor) {
  // PTX ISA "Instruction descriptor" for .kind::f16 / .kind::tf32 / .kind::f8f6f4: D type in
  // bits 4..5 (F16 = 0, F32 = 1), A and B types in 7..9 and 10..12 (kind::f16: F16 = 0,
  // BF16 = 1; kind::tf32: TF32 = 2; kind::f8f6f4: E4M3 = 0, E5M2 = 1), transpose (MN-major)
  // bits 15 and 16, N >> 3 in 17..22, M >> 4 in 24..28; dense, no negation, no saturation.
  auto ab = [](ir::DType t) -> std::uint32_t {
    if (t == ir::DType::BF16 || t == ir::DType::F8E5M2)
      return 1;
    if (t == ir::DType::TF32)
      return 2;
    return 0;
  };
  std::uint32_t desc = 0;
  desc |= (d == ir::DType::F32 ? 1u : 0u) << 4;
  desc |= ab(a) << 7;
  desc |= ab(b) << 10;
  desc |= (aMnMajor ? 1u : 0u) << 15;
  desc |= (bMnMajor ? 1u : 0u) << 16;
  desc |= (std::uint32_t(n >> 3) & 0x3F) << 17;
  desc |= (std::uint32_t(m >> 4) & 0x1F) << 24;
  return desc;
}

Metadata derive(const ir::Module& module, const sema::KernelModel& m) {
  Metadata md;
  md.kernel = m.name;
  md.target = m.targetName;
  md.scheduleHash = sha256Hex(ir::print(module)).substr(0, 16);
  md.warps = m.warpsPerCta();
  md.threads = m.threadsPerCta();
  const target::Target* t = m.target;
  if (m.grid) {
    md.tiles = m.grid->tiles;
    md.tileCount = m.grid->tileCount();
    md.persistent = m.grid->persistent;
    md.pdl = m.grid->pdl;
    md.rasterN = m.grid->rasterN;
    md.swizzle = m.grid->swizzle;
    std::int64_t sms = t ? static_cast<std::int64_t>(t->machineValue("sm_count")) : 1;
    md.ctas = md.persistent ? std::max<std::int64_t>(1, std::min(md.tileCount, sms)) : md.tileCount;
    // A persistent grid of whole clusters (the launcher rounds down the same way).
    std::int64_t cluster = 1;
    for (std::int64_t c : m.grid->cluster)
      cluster *= std::max<std::int64_t>(c, 1);
    if (md.persistent && cluster > 1)
      md.ctas = std::max(cluster, md.ctas / cluster * cluster);
  }

  // Registers: with setmaxnreg budgets the CTA launches with an even share (multiple of 8) of
  // the register file, the same figure the verifier's resource analysis uses.
  bool budgets = std::any_of(m.roles.begin(), m.roles.end(),
                             [](const sema::RoleInfo& r) { return r.registers.has_value(); });
  std::int64_t perSm = t ? t->limit("registers_per_sm") : 65536;
  std::int64_t maxPerThread = t ? t->limit("registers_per_thread") : 255;
  if (budgets && md.threads > 0)
    md.launchRegisters = std::min<std::int64_t>((perSm / md.threads) / 8 * 8, maxPerThread / 8 * 8);

  bool elect = t && t->hasFeature("elect.sync");
  for (const sema::RoleInfo& r : m.roles) {
    RoleDispatch rd;
    rd.name = r.name;
    rd.warpBegin = r.warpBegin;
    rd.warpEnd = r.warpEnd;
    rd.threadBegin = r.warpBegin * 32;
    rd.threadEnd = r.warpEnd * 32;
    if (r.registers) {
      rd.registers = *r.registers;
      rd.setmaxnreg = rd.registers < md.launchRegisters   ? "dec"
                      : rd.registers > md.launchRegisters ? "inc"
                                                          : "";
    }
    rd.elected = elect ? "elect.sync" : "lane 0";
    rd.electedWarp = r.warpBegin;
    md.roles.push_back(rd);
  }

  // Shared memory: buffers at their declared offsets, then the derived objects in the order
  // the verifier accounts for them (8 bytes per mbarrier element, 8 bytes for TMEM bases).
  for (const sema::BufferInfo& b : m.buffers) {
    if (b.space != ir::Space::Smem || b.offset < 0)
      continue;
    SmemEntry e;
    e.name = b.name;
    e.kind = "buffer";
    e.offset = b.offset;
    e.bytes = b.totalBytes();
    e.swizzle = b.swizzle;
    e.dtype = std::string(ir::toString(b.dtype));
    e.shape = b.shape;
    md.smem.push_back(e);
    if (b.stages > 1)
      for (std::int64_t s = 0; s < b.stages; ++s) {
        SmemEntry st = e;
        st.kind = "stage";
        st.stage = s;
        st.offset = b.offset + s * b.stageBytes();
        st.bytes = b.stageBytes();
        md.smem.push_back(st);
      }
  }
  md.smemBuffers = m.smemBytes();
  std::int64_t cursor = alignUp(md.smemBuffers, 8);

  std::map<std::string, std::int64_t> expectTx;
  for (const sema::OpInfo& op : m.ops) {
    const std::string& name = op.primitive->name;
    if (name != "mbarrier.arrive_expect_tx" && name != "mbarrier.expect_tx")
      continue;
    auto idx = op.primitive->attributeIndex("bytes");
    if (!idx || *idx >= op.attributes.size() || op.operands.empty())
      continue;
    const reg::DefValue& v = op.attributes[*idx];
    if (v.kind == reg::DefValue::Kind::Int)
      expectTx[m.barriers[op.operands[0].entityIndex].name] += v.i;
  }

  std::int64_t namedId = 1; // 0 is the CTA barrier (bar.sync 0)
  for (const sema::BarrierInfo& b : m.barriers) {
    BarrierGroup g;
    g.name = b.name;
    g.named = b.named;
    g.elements = b.size;
    g.pipeline = b.pipeline;
    if (b.named) {
      g.hardwareId = namedId++;
      std::int64_t threads = 0;
      for (const std::string& rn : b.roles)
        if (const sema::RoleInfo* r = m.role(rn))
          threads += r->threads();
        else if (rn == "all")
          threads = md.threads;
      g.initCount = threads;
      g.consumers = b.roles;
      g.phaseTracking = "bar.sync " + std::to_string(g.hardwareId) + ", " +
                        std::to_string(threads) + " (no phase state)";
    } else {
      g.offset = cursor;
      cursor += 8 * b.size;
      g.initCount = b.count;
      g.producers = b.producers;
      g.consumers = b.consumers;
      if (auto it = expectTx.find(b.name); it != expectTx.end())
        g.expectTxBytes = it->second;
      if (const sema::PipelineInfo* p = m.pipeline(b.pipeline)) {
        std::string s = std::to_string(p->stages);
        g.phaseTracking = p->name + ": element = i % " + s + ", parity = (i / " + s +
                          ") & 1, i = iterations of the loops bound to " + p->name +
                          " in the waiting role";
      } else {
        g.phaseTracking = "single barrier: the wait's parity expression";
      }
      for (std::int64_t s = 0; s < b.size; ++s) {
        SmemEntry e;
        e.name = b.name;
        e.kind = "mbarrier";
        e.offset = g.offset + 8 * s;
        e.bytes = 8;
        e.stage = b.size > 1 ? s : -1;
        md.smem.push_back(e);
      }
    }
    md.barriers.push_back(g);
  }

  bool anyTmem = false;
  for (const sema::BufferInfo& b : m.buffers) {
    if (b.space != ir::Space::Tmem)
      continue;
    anyTmem = true;
    TmemAllocation a;
    a.name = b.name;
    a.colBegin = b.colBegin;
    a.colEnd = b.colEnd;
    a.lanes = b.shape.empty() ? 128 : b.shape[0];
    a.allocColumns = nextPow2AtLeast32(b.colEnd - b.colBegin);
    md.tmem.push_back(a);
  }
  if (anyTmem) {
    md.tmemBaseOffset = cursor;
    SmemEntry e;
    e.name = "tmem_base";
    e.kind = "tmem_base";
    e.offset = cursor;
    // One 32-bit word per buffer, in 8-byte units (sema::KernelModel::derivedSmemBytes).
    e.bytes = 8 * ((static_cast<std::int64_t>(md.tmem.size()) + 1) / 2);
    md.smem.push_back(e);
    cursor += e.bytes;
  }
  md.smemTotal = cursor;

  for (const sema::PipelineInfo& p : m.pipelines)
    md.pipelines.emplace_back(p.name, p.stages);

  for (const sema::TensorMapInfo& tm : m.tensorMaps) {
    TensorMapInfo info;
    info.name = tm.name;
    info.source = tm.source;
    info.dtype = std::string(ir::toString(tm.dtype));
    info.swizzle = tm.swizzle;
    std::int64_t elemBytes = (ir::info(tm.dtype).bits + 7) / 8;
    if (const sema::BufferInfo* src = m.buffer(tm.source)) {
      std::int64_t stride = elemBytes;
      for (std::size_t i = src->shape.size(); i-- > 0;) {
        info.globalDims.push_back(src->shape[i]);
        if (i + 1 < src->shape.size())
          info.globalStrides.push_back(stride);
        stride *= src->shape[i];
      }
    }
    info.boxBytes = elemBytes;
    for (std::size_t i = tm.box.size(); i-- > 0;) {
      info.box.push_back(tm.box[i]);
      info.boxBytes *= tm.box[i];
    }
    md.tensorMaps.push_back(info);
  }
  return md;
}

void writeJson(json::Writer& w, const Metadata& md) {
  auto ints = [&](const std::vector<std::int64_t>& v) {
    w.beginArray();
    for (std::int64_t x : v)
      w.value(x);
    w.endArray();
  };
  auto strings = [&](const std::vector<std::string>& v) {
    w.beginArray();
    for (const std::string& x : v)
      w.value(x);
    w.endArray();
  };
  w.beginObject();
  w.key("kernel").value(md.kernel);
  w.key("target").value(md.target);
  w.key("schedule_hash").value(md.scheduleHash);
  w.key("threads").value(md.threads);
  w.key("warps").value(md.warps);
  w.key("grid").beginObject();
  w.key("tiles");
  ints(md.tiles);
  w.key("tile_count").value(md.tileCount);
  w.key("schedule").value(md.persistent ? "persistent" : "static");
  w.key("pdl").value(md.pdl);
  w.key("ctas").value(md.ctas);
  // The tile order the kernel computes from its linear tile id (docs/ir.md, "Tile schedulers").
  w.key("raster").value(md.rasterN ? "n" : "m");
  w.key("swizzle").value(md.swizzle);
  w.endObject();
  w.key("launch_registers").value(md.launchRegisters);
  w.key("roles").beginArray();
  for (const RoleDispatch& r : md.roles) {
    w.beginObject();
    w.key("name").value(r.name);
    w.key("warps");
    ints({r.warpBegin, r.warpEnd});
    w.key("threads");
    ints({r.threadBegin, r.threadEnd});
    w.key("registers").value(r.registers);
    w.key("setmaxnreg").value(r.setmaxnreg);
    w.key("elected").value(r.elected);
    w.key("elected_warp").value(r.electedWarp);
    w.endObject();
  }
  w.endArray();
  w.key("smem").beginObject();
  w.key("buffers_end").value(md.smemBuffers);
  w.key("total").value(md.smemTotal);
  w.key("entries").beginArray();
  for (const SmemEntry& e : md.smem) {
    w.beginObject();
    w.key("name").value(e.name);
    w.key("kind").value(e.kind);
    w.key("offset").value(e.offset);
    w.key("bytes").value(e.bytes);
    if (e.stage >= 0)
      w.key("stage").value(e.stage);
    if (e.kind == "buffer" || e.kind == "stage") {
      w.key("dtype").value(e.dtype);
      w.key("shape");
      ints(e.shape);
      w.key("swizzle").value(e.swizzle);
    }
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.key("barriers").beginArray();
  for (const BarrierGroup& b : md.barriers) {
    w.beginObject();
    w.key("name").value(b.name);
    w.key("kind").value(b.named ? "named" : "mbarrier");
    if (b.named) {
      w.key("id").value(b.hardwareId);
      w.key("threads").value(b.initCount);
      w.key("roles");
      strings(b.consumers);
    } else {
      w.key("offset").value(b.offset);
      w.key("elements").value(b.elements);
      w.key("init_count").value(b.initCount);
      w.key("expect_tx_bytes").value(b.expectTxBytes);
      w.key("pipeline").value(b.pipeline);
      w.key("producers");
      strings(b.producers);
      w.key("consumers");
      strings(b.consumers);
    }
    w.key("phase_tracking").value(b.phaseTracking);
    w.endObject();
  }
  w.endArray();
  w.key("pipelines").beginArray();
  for (const auto& [name, stages] : md.pipelines)
    w.beginObject().key("name").value(name).key("stages").value(stages).endObject();
  w.endArray();
  w.key("tmem").beginObject();
  w.key("base_slot_offset").value(md.tmemBaseOffset);
  w.key("allocations").beginArray();
  for (const TmemAllocation& a : md.tmem) {
    w.beginObject();
    w.key("name").value(a.name);
    w.key("columns");
    ints({a.colBegin, a.colEnd});
    w.key("lanes").value(a.lanes);
    w.key("alloc_columns").value(a.allocColumns);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.key("tensor_maps").beginArray();
  for (const TensorMapInfo& tm : md.tensorMaps) {
    w.beginObject();
    w.key("name").value(tm.name);
    w.key("source").value(tm.source);
    w.key("dtype").value(tm.dtype);
    w.key("global_dims");
    ints(tm.globalDims);
    w.key("global_strides_bytes");
    ints(tm.globalStrides);
    w.key("box");
    ints(tm.box);
    w.key("box_bytes").value(tm.boxBytes);
    w.key("swizzle").value(tm.swizzle);
    w.endObject();
  }
  w.endArray();
  w.key("descriptors").beginArray();
  for (const DescriptorInfo& d : md.descriptors) {
    auto hex = [](std::uint64_t v) {
      static const char* digits = "0123456789abcdef";
      std::string s;
      for (int i = 15; i >= 0; --i)
        s += digits[(v >> (i * 4)) & 0xF];
      return "0x" + s;
    };
    w.beginObject();
    w.key("line").value(d.line);
    w.key("op").value(d.op);
    w.key("operand").value(d.operand);
    w.key("buffer").value(d.buffer);
    w.key("major").value(d.major);
    w.key("swizzle").value(d.swizzle);
    w.key("lbo_bytes").value(d.lbo);
    w.key("sbo_bytes").value(d.sbo);
    w.key("fixed_bits").value(hex(d.encodedFixed));
    w.key("k_step_bytes").value(d.kStepBytes);
    w.key("instructions").value(d.instructions);
    w.key("instruction").value(d.instruction);
    if (d.instrDescriptor)
      w.key("instr_descriptor").value(hex(d.instrDescriptor));
    w.endObject();
  }
  w.endArray();
  w.key("fragments").beginArray();
  for (const FragmentInfo& f : md.fragments) {
    w.beginObject();
    w.key("name").value(f.name);
    w.key("scope").value(f.scope);
    w.key("layout").value(f.layout);
    w.key("elements_per_thread").value(f.elementsPerThread);
    w.key("registers_per_thread").value(f.registersPerThread);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

} // namespace cake::lower
