// The GPU path of the runner: the CUDA driver API loaded at run time (dlopen "libcuda.so.1",
// entry points through cuGetProcAddress), tensor maps and launch configuration from the
// bundle's lowering metadata, NaN-filled outputs, cuBLAS (also loaded at run time) as the GEMM
// oracle and baseline, NVML for clocks, and the timing protocol of docs/runs.md. The CUDA
// headers are used for types only; nothing links against a CUDA library.
// SPDX-License-Identifier: GPL-3.0-or-later
#include "cake/Run/Runner.h"
#include "CuptiTimer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#ifdef CAKE_HAVE_CUDA_H
#include <cublas_api.h>
#include <cuda.h>
#endif

namespace cake::run {

namespace {

/// dlopen that never throws; nullptr with the loader's message.
void* openLibrary(const std::vector<std::string>& names, std::string& error) {
  for (const std::string& n : names) {
    if (void* h = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))
      return h;
    const char* e = ::dlerror();
    error = e ? e : n + ": cannot be loaded";
  }
  return nullptr;
}

} // namespace

#ifndef CAKE_HAVE_CUDA_H

RunRecord runOnGpu(const Bundle& bundle, const RunnerOptions& options) {
  RunRecord r = recordFor(bundle);
  std::string error;
  void* h = openLibrary({options.libcuda}, error);
  if (!h) {
    r.errors.push_back(
        {"no-driver", "no NVIDIA driver (" + options.libcuda + " not found): " + error});
    return r;
  }
  ::dlclose(h);
  r.errors.push_back({"runner-without-cuda", "this cake-run was built without the CUDA headers "
                                             "(cuda.h); rebuild it with the CUDA toolkit present"});
  return r;
}

#else

namespace {

// The driver entry points the runner uses, resolved by cuGetProcAddress for CUDA 12.0
// semantics. `decltype(&::f)` takes the signature from cuda.h (whose macros name the versioned
// symbols); the string is the base name cuGetProcAddress expects.
#define CAKE_CU_FUNCTIONS(X)                                                                       \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuGetErrorString)                                                                              \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceGetPCIBusId)                                                                           \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease)                                                                     \
  X(cuCtxSetCurrent)                                                                               \
  X(cuModuleLoadDataEx)                                                                            \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuFuncSetAttribute)                                                                            \
  X(cuMemAlloc)                                                                                    \
  X(cuMemFree)                                                                                     \
  X(cuMemcpyHtoDAsync)                                                                             \
  X(cuMemcpyDtoH)                                                                                  \
  X(cuMemsetD32Async)                                                                              \
  X(cuStreamCreate)                                                                                \
  X(cuStreamDestroy)                                                                               \
  X(cuStreamSynchronize)                                                                           \
  X(cuEventCreate)                                                                                 \
  X(cuEventDestroy)                                                                                \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventElapsedTime)                                                                            \
  X(cuLaunchKernelEx)                                                                              \
  X(cuTensorMapEncodeTiled)

struct Driver {
#define X(f) decltype(&::f) f = nullptr;
  CAKE_CU_FUNCTIONS(X)
#undef X
  bool load(void* lib, std::string& error) {
    using GetProc =
        CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
    auto getProc = reinterpret_cast<GetProc>(::dlsym(lib, "cuGetProcAddress_v2"));
    if (!getProc) {
      error = "the driver has no cuGetProcAddress_v2 (a CUDA 12.0 or newer driver is needed)";
      return false;
    }
#define X(f)                                                                                       \
  {                                                                                                \
    CUdriverProcAddressQueryResult q{};                                                            \
    if (getProc(#f, reinterpret_cast<void**>(&this->f), 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) != \
            CUDA_SUCCESS ||                                                                        \
        !this->f) {                                                                                \
      error = std::string("the driver lacks ") + #f;                                               \
      return false;                                                                                \
    }                                                                                              \
  }
    CAKE_CU_FUNCTIONS(X)
#undef X
    return true;
  }
};

/// cuBLAS, loaded at run time: the GEMM oracle and baseline.
struct Cublas {
  using Create = cublasStatus_t (*)(cublasHandle_t*);
  using Destroy = cublasStatus_t (*)(cublasHandle_t);
  using SetStream = cublasStatus_t (*)(cublasHandle_t, CUstream);
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
  void* lib = nullptr;
  Create create = nullptr;
  Destroy destroy = nullptr;
  SetStream setStream = nullptr;
  GemmEx gemmEx = nullptr;
  cublasHandle_t handle = nullptr;
  std::string error;

  bool load(CUstream stream) {
    lib = openLibrary({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, error);
    if (!lib)
      return false;
    create = reinterpret_cast<Create>(::dlsym(lib, "cublasCreate_v2"));
    destroy = reinterpret_cast<Destroy>(::dlsym(lib, "cublasDestroy_v2"));
    setStream = reinterpret_cast<SetStream>(::dlsym(lib, "cublasSetStream_v2"));
    gemmEx = reinterpret_cast<GemmEx>(::dlsym(lib, "cublasGemmEx"));
    if (!create || !destroy || !setStream || !gemmEx) {
      error = "libcublas lacks cublasCreate_v2/cublasGemmEx";
      return false;
    }
    if (create(&handle) != CUBLAS_STATUS_SUCCESS) {
      error = "cublasCreate failed";
      handle = nullptr;
      return false;
    }
    setStream(handle, stream);
    return true;
  }
  ~Cublas() {
    if (handle)
      destroy(handle);
    if (lib)
      ::dlclose(lib);
  }
};

/// NVML, loaded at run time: the SM clock of each sample and the default clock.
struct Nvml {
  using Init = int (*)();
  using ByPci = int (*)(const char*, void**);
  using Clock = int (*)(void*, int, unsigned*);
  static constexpr int kSm = 1, kMem = 2; // nvmlClockType_t
  void* lib = nullptr;
  void* device = nullptr;
  Clock clockInfo = nullptr, defaultClock = nullptr;
  int (*shutdown)() = nullptr;
  int (*driverVersion)(char*, unsigned) = nullptr;

  bool load(const std::string& pciBusId) {
    std::string e;
    lib = openLibrary({"libnvidia-ml.so.1"}, e);
    if (!lib)
      return false;
    auto init = reinterpret_cast<Init>(::dlsym(lib, "nvmlInit_v2"));
    auto byPci = reinterpret_cast<ByPci>(::dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clockInfo = reinterpret_cast<Clock>(::dlsym(lib, "nvmlDeviceGetClockInfo"));
    defaultClock = reinterpret_cast<Clock>(::dlsym(lib, "nvmlDeviceGetDefaultApplicationsClock"));
    shutdown = reinterpret_cast<int (*)()>(::dlsym(lib, "nvmlShutdown"));
    driverVersion =
        reinterpret_cast<int (*)(char*, unsigned)>(::dlsym(lib, "nvmlSystemGetDriverVersion"));
    if (!init || !byPci || !clockInfo || init() != 0)
      return false;
    return byPci(pciBusId.c_str(), &device) == 0;
  }
  std::optional<double> clock(int type) const {
    unsigned mhz = 0;
    if (device && clockInfo && clockInfo(device, type, &mhz) == 0)
      return mhz;
    return std::nullopt;
  }
  std::optional<std::string> driver() const {
    char buf[96] = {};
    if (device && driverVersion && driverVersion(buf, sizeof buf) == 0)
      return std::string(buf);
    return std::nullopt;
  }
  std::optional<double> defaultSm() const {
    unsigned mhz = 0;
    if (device && defaultClock && defaultClock(device, kSm, &mhz) == 0 && mhz > 0)
      return mhz;
    return std::nullopt;
  }
  ~Nvml() {
    if (device && shutdown)
      shutdown();
    if (lib)
      ::dlclose(lib);
  }
};

CUtensorMapDataType tensorMapType(const std::string& dtype) {
  if (dtype == "f32")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  if (dtype == "tf32")
    return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
  if (dtype == "f16")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if (dtype == "bf16")
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (dtype == "f64")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  if (dtype == "i32")
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  if (dtype == "u32")
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  return CU_TENSOR_MAP_DATA_TYPE_UINT8; // 8-bit types (fp8, i8) move as bytes
}

CUtensorMapSwizzle swizzleOf(const std::string& s) {
  if (s == "128B")
    return CU_TENSOR_MAP_SWIZZLE_128B;
  if (s == "64B")
    return CU_TENSOR_MAP_SWIZZLE_64B;
  if (s == "32B")
    return CU_TENSOR_MAP_SWIZZLE_32B;
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

std::optional<cudaDataType> blasType(const std::string& dtype) {
  if (dtype == "bf16")
    return CUDA_R_16BF;
  if (dtype == "f16")
    return CUDA_R_16F;
  if (dtype == "f32")
    return CUDA_R_32F;
  // fp8 GEMMs need cuBLASLt (cublasGemmEx has no fp8): no oracle for them yet.
  return std::nullopt;
}

/// One run on one device. Every CUDA call goes through `ok()`, which records the first failing
/// call as a "cuda-error"; after a failure nothing else is launched.
class GpuRun {
public:
  GpuRun(const Bundle& b, const RunnerOptions& o, RunRecord& r) : m_b(b), m_o(o), m_r(r) {}
  ~GpuRun() { release(); }

  void run(void* lib);

private:
  bool ok(CUresult rc, const char* call) {
    if (rc == CUDA_SUCCESS)
      return true;
    const char* s = nullptr;
    if (m_cu.cuGetErrorString)
      m_cu.cuGetErrorString(rc, &s);
    if (!m_failed)
      m_r.errors.push_back({"cuda-error", std::string(call) + " failed: " +
                                              (s ? s : "error " + std::to_string(rc))});
    m_failed = true;
    return false;
  }
  bool setup();
  bool upload(std::uint64_t seed);
  bool fillOutputsNaN();
  bool launch();
  bool download(std::vector<std::string>& outputs);
  bool check(const char* when);
  bool gemmReference(CUdeviceptr out, cudaDataType outType);
  std::vector<double> timeLoop(const std::function<bool()>& call, std::size_t& dropped,
                               std::string& stop);
  void release();

  const Bundle& m_b;
  const RunnerOptions& m_o;
  RunRecord& m_r;
  Driver m_cu;
  bool m_failed = false;
  CUdevice m_dev = 0;
  CUcontext m_ctx = nullptr;
  bool m_ctxRetained = false;
  CUmodule m_module = nullptr;
  CUfunction m_fn = nullptr;
  CUstream m_stream = nullptr;
  CUevent m_start = nullptr, m_stop = nullptr;
  int m_sms = 0, m_l2 = 0;
  std::vector<CUdeviceptr> m_buf;  ///< per bundle buffer
  std::vector<std::string> m_host; ///< current input bytes per buffer (inputs/state)
  CUdeviceptr m_flush = 0, m_ref = 0, m_baselineOut = 0;
  std::vector<CUtensorMap> m_maps;
  std::optional<GemmContract> m_gemm;
  Cublas m_blas;
  bool m_haveBlas = false;
  Nvml m_nvml;
  bool m_haveNvml = false;
  bool m_useHostOracle = false;
  detail::CuptiTimer m_cupti; ///< the primary timer when libcupti loads
  std::optional<ref::Expected> m_expected; ///< the host oracle's verdict data for the inputs
  std::vector<double> m_clocks;
};

void GpuRun::release() {
  if (!m_ctxRetained)
    return;
  m_cu.cuCtxSetCurrent(m_ctx);
  for (CUdeviceptr p : m_buf)
    if (p)
      m_cu.cuMemFree(p);
  for (CUdeviceptr p : {m_flush, m_ref, m_baselineOut})
    if (p)
      m_cu.cuMemFree(p);
  if (m_start)
    m_cu.cuEventDestroy(m_start);
  if (m_stop)
    m_cu.cuEventDestroy(m_stop);
  if (m_stream)
    m_cu.cuStreamDestroy(m_stream);
  if (m_module)
    m_cu.cuModuleUnload(m_module);
  m_cu.cuDevicePrimaryCtxRelease(m_dev);
  m_ctxRetained = false;
}

bool GpuRun::setup() {
  if (!ok(m_cu.cuDevicePrimaryCtxRetain(&m_ctx, m_dev), "cuDevicePrimaryCtxRetain"))
    return false;
  m_ctxRetained = true;
  if (!ok(m_cu.cuCtxSetCurrent(m_ctx), "cuCtxSetCurrent"))
    return false;
  // The image: a cubin as is, PTX JIT-compiled by the driver (with its log on failure).
  std::string image;
  {
    std::FILE* f = std::fopen((m_b.dir + "/" + m_b.image).c_str(), "rb");
    if (!f) {
      m_r.errors.push_back({"bundle-invalid", "cannot read " + m_b.image});
      return m_failed = true, false;
    }
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      image.append(buf, n);
    std::fclose(f);
  }
  char log[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log))};
  CUresult rc = m_cu.cuModuleLoadDataEx(&m_module, image.c_str(), 2, opts, vals);
  if (rc != CUDA_SUCCESS) {
    ok(rc, "cuModuleLoadDataEx");
    if (log[0])
      m_r.errors.back().message += std::string(" (JIT log: ") + log + ")";
    return false;
  }
  if (!ok(m_cu.cuModuleGetFunction(&m_fn, m_module, m_b.kernel.c_str()), "cuModuleGetFunction"))
    return false;
  if (!ok(m_cu.cuFuncSetAttribute(m_fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  static_cast<int>(m_b.launch.smemBytes)),
          "cuFuncSetAttribute(max dynamic shared memory)"))
    return false;
  if (!ok(m_cu.cuStreamCreate(&m_stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !ok(m_cu.cuEventCreate(&m_start, CU_EVENT_DEFAULT), "cuEventCreate") ||
      !ok(m_cu.cuEventCreate(&m_stop, CU_EVENT_DEFAULT), "cuEventCreate"))
    return false;
  m_buf.assign(m_b.buffers.size(), 0);
  m_host.assign(m_b.buffers.size(), {});
  for (std::size_t i = 0; i < m_b.buffers.size(); ++i)
    if (!ok(m_cu.cuMemAlloc(&m_buf[i], static_cast<std::size_t>(m_b.buffers[i].bytes())),
            "cuMemAlloc"))
      return false;
  // L2 flush: write twice the L2 size before every sample.
  if (m_l2 > 0 && !ok(m_cu.cuMemAlloc(&m_flush, static_cast<std::size_t>(m_l2) * 2), "cuMemAlloc"))
    return false;
  // Tensor maps from the lowering metadata, encoded on the device addresses.
  m_maps.resize(m_b.tensorMaps.size());
  for (std::size_t t = 0; t < m_b.tensorMaps.size(); ++t) {
    const BundleTensorMap& tm = m_b.tensorMaps[t];
    std::size_t src = 0;
    while (m_b.buffers[src].name != tm.source)
      ++src;
    std::vector<cuuint64_t> dims(tm.globalDims.begin(), tm.globalDims.end());
    std::vector<cuuint64_t> strides(tm.globalStrides.begin(), tm.globalStrides.end());
    std::vector<cuuint32_t> box(tm.box.begin(), tm.box.end());
    std::vector<cuuint32_t> elementStrides(tm.box.size(), 1);
    if (!ok(m_cu.cuTensorMapEncodeTiled(
                &m_maps[t], tensorMapType(tm.dtype), static_cast<cuuint32_t>(dims.size()),
                reinterpret_cast<void*>(m_buf[src]), dims.data(),
                strides.empty() ? nullptr : strides.data(), box.data(), elementStrides.data(),
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzleOf(tm.swizzle),
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            ("cuTensorMapEncodeTiled(" + tm.name + ")").c_str()))
      return false;
  }
  return true;
}

bool GpuRun::upload(std::uint64_t seed) {
  std::map<std::string, std::vector<double>> values;
  for (std::size_t i = 0; i < m_b.buffers.size(); ++i) {
    const BundleBuffer& buf = m_b.buffers[i];
    if (buf.role == "output")
      continue;
    std::size_t count = static_cast<std::size_t>(buf.bytes() / dtypeBytes(buf.dtype));
    std::vector<double> v = generateInputs(count, seed + i * 7919);
    if (!encode(v, buf.dtype, m_host[i])) {
      m_r.errors.push_back({"unsupported-dtype", "cannot generate inputs of dtype " + buf.dtype});
      return m_failed = true, false;
    }
    values[buf.name] = std::move(v);
  }
  // The host oracle for these inputs (workloads cuBLAS does not check); it may recompute the
  // inputs the contract derives (a centroid norm) or fixes.
  m_expected.reset();
  if (m_useHostOracle) {
    std::string error;
    m_expected = hostOracle()(m_b, values, error);
    if (!m_expected) {
      m_r.errors.push_back({"oracle-failed", "the host reference cannot judge this bundle: " + error});
      return m_failed = true, false;
    }
    if (!m_expected->skipped.empty()) {
      // Too large to evaluate on the host: the written-elements check only, said once.
      m_r.warnings.push_back("no host reference: " + m_expected->skipped +
                             "; only checked that every output element is written");
      m_useHostOracle = false;
      m_expected.reset();
    } else {
      for (std::size_t i = 0; i < m_b.buffers.size(); ++i)
        if (m_b.buffers[i].role != "output")
          encode(values[m_b.buffers[i].name], m_b.buffers[i].dtype, m_host[i]);
    }
  }
  for (std::size_t i = 0; i < m_b.buffers.size(); ++i)
    if (m_b.buffers[i].role != "output" &&
        !ok(m_cu.cuMemcpyHtoDAsync(m_buf[i], m_host[i].data(), m_host[i].size(), m_stream),
            "cuMemcpyHtoDAsync"))
      return false;
  return true;
}

bool GpuRun::fillOutputsNaN() {
  for (std::size_t i = 0; i < m_b.buffers.size(); ++i) {
    const BundleBuffer& buf = m_b.buffers[i];
    if (buf.role != "output")
      continue;
    std::size_t count = static_cast<std::size_t>(buf.bytes() / dtypeBytes(buf.dtype));
    std::string bytes;
    encode(std::vector<double>(count, std::numeric_limits<double>::quiet_NaN()), buf.dtype, bytes);
    // Pageable source: the call returns once `bytes` is staged, so it may go out of scope.
    if (!ok(m_cu.cuMemcpyHtoDAsync(m_buf[i], bytes.data(), bytes.size(), m_stream),
            "cuMemcpyHtoDAsync(NaN fill)"))
      return false;
  }
  return true;
}

bool GpuRun::launch() {
  std::vector<void*> args;
  for (const BundleParam& p : m_b.params) {
    if (p.kind == BundleParam::Kind::Global) {
      std::size_t i = 0;
      while (m_b.buffers[i].name != p.name)
        ++i;
      args.push_back(&m_buf[i]);
    } else if (p.kind == BundleParam::Kind::Scalar) {
      args.push_back(const_cast<std::int32_t*>(&p.value)); // by value: cuLaunch copies it
    } else {
      std::size_t t = 0;
      while (m_b.tensorMaps[t].name != p.name)
        ++t;
      args.push_back(&m_maps[t]);
    }
  }
  const Launch& l = m_b.launch;
  std::int64_t clusterSize = l.cluster[0] * l.cluster[1] * l.cluster[2];
  std::int64_t grid = l.tileCount;
  if (l.persistent) // one CTA per SM at most, whole clusters
    grid = std::max<std::int64_t>(clusterSize, std::min<std::int64_t>(l.tileCount, m_sms) /
                                                   clusterSize * clusterSize);
  CUlaunchAttribute attrs[2];
  unsigned n = 0;
  if (clusterSize > 1) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = static_cast<unsigned>(l.cluster[0]);
    attrs[n].value.clusterDim.y = static_cast<unsigned>(l.cluster[1]);
    attrs[n].value.clusterDim.z = static_cast<unsigned>(l.cluster[2]);
    ++n;
  }
  if (l.pdl) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[n].value.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  CUlaunchConfig cfg{};
  cfg.gridDimX = static_cast<unsigned>(grid);
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = static_cast<unsigned>(l.threads);
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = static_cast<unsigned>(l.smemBytes);
  cfg.hStream = m_stream;
  cfg.attrs = n ? attrs : nullptr;
  cfg.numAttrs = n;
  return ok(m_cu.cuLaunchKernelEx(&cfg, m_fn, args.data(), nullptr), "cuLaunchKernelEx");
}

bool GpuRun::download(std::vector<std::string>& outputs) {
  outputs.assign(m_b.buffers.size(), {});
  if (!ok(m_cu.cuStreamSynchronize(m_stream), "kernel execution (cuStreamSynchronize)"))
    return false;
  for (std::size_t i = 0; i < m_b.buffers.size(); ++i) {
    if (m_b.buffers[i].role == "input")
      continue;
    outputs[i].resize(static_cast<std::size_t>(m_b.buffers[i].bytes()));
    if (!ok(m_cu.cuMemcpyDtoH(outputs[i].data(), m_buf[i], outputs[i].size()), "cuMemcpyDtoH"))
      return false;
  }
  return true;
}

bool GpuRun::gemmReference(CUdeviceptr out, cudaDataType outType) {
  const GemmContract& g = *m_gemm;
  auto idx = [&](const std::string& name) {
    std::size_t i = 0;
    while (m_b.buffers[i].name != name)
      ++i;
    return i;
  };
  cudaDataType ab = *blasType(m_b.buffers[idx(g.a)].dtype);
  float alpha = 1, beta = 0;
  // Row-major C (M x N) is column-major C^T (N x M) = B' x A^T, where A (M x K row-major) is
  // A^T column-major with ld K, and B' is B^T: N x K row-major read transposed (ld K), or
  // K x N row-major = N x K column-major as it is (ld N).
  cublasStatus_t s = m_blas.gemmEx(
      m_blas.handle, g.bKN ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(g.n),
      static_cast<int>(g.m), static_cast<int>(g.k), &alpha,
      reinterpret_cast<const void*>(m_buf[idx(g.b)]), ab, static_cast<int>(g.bKN ? g.n : g.k),
      reinterpret_cast<const void*>(m_buf[idx(g.a)]), ab, static_cast<int>(g.k), &beta,
      reinterpret_cast<void*>(out), outType, static_cast<int>(g.n), CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) {
    m_r.errors.push_back(
        {"oracle-failed", "cublasGemmEx failed (status " + std::to_string(s) + ")"});
    m_failed = true;
    return false;
  }
  return true;
}

bool GpuRun::check(const char* when) {
  std::vector<std::string> outs;
  if (!download(outs))
    return false;
  if (m_expected) {
    // The host oracle: every output against the contract's reference operator.
    for (const ref::ExpectedOutput& e : m_expected->outputs) {
      const BundleBuffer* buf = m_b.buffer(e.name);
      if (!buf)
        continue;
      std::size_t i = static_cast<std::size_t>(buf - m_b.buffers.data());
      std::vector<double> got;
      decode(outs[i], buf->dtype, got);
      CheckResult cr = checkExpected(got, e, *m_expected);
      if (!cr.ok()) {
        char msg[320];
        std::snprintf(msg, sizeof msg,
                      "%s: %zu of %zu elements of %s outside rtol %g / atol %g (%zu NaN; first "
                      "at flat index %zu: %g, host reference %g; max abs error %g)",
                      when, cr.failed, cr.checked, e.name.c_str(), e.spec.rtol, e.spec.atol,
                      cr.nans, cr.firstBad, cr.firstBad < got.size() ? got[cr.firstBad] : 0.0,
                      cr.firstBad < e.values.size() ? e.values[cr.firstBad] : 0.0, cr.maxAbsError);
        m_r.errors.push_back({"incorrect", msg});
        return false;
      }
    }
    return true;
  }
  if (!m_gemm || !m_haveBlas) {
    // Without an oracle the only check is that every output element was written.
    for (std::size_t i = 0; i < m_b.buffers.size(); ++i) {
      if (m_b.buffers[i].role != "output")
        continue;
      std::vector<double> v;
      decode(outs[i], m_b.buffers[i].dtype, v);
      auto nans = std::count_if(v.begin(), v.end(), [](double x) { return std::isnan(x); });
      if (nans) {
        m_r.errors.push_back({"incorrect", std::string(when) + ": " + std::to_string(nans) +
                                               " element(s) of " + m_b.buffers[i].name +
                                               " were never written (still NaN)"});
        return false;
      }
    }
    return true;
  }
  const GemmContract& g = *m_gemm;
  std::size_t c = 0;
  while (m_b.buffers[c].name != g.c)
    ++c;
  std::size_t count = static_cast<std::size_t>(g.m * g.n);
  if (!m_ref && !ok(m_cu.cuMemAlloc(&m_ref, count * 4), "cuMemAlloc(reference)"))
    return false;
  if (!gemmReference(m_ref, CUDA_R_32F))
    return false;
  std::string refBytes(count * 4, '\0');
  if (!ok(m_cu.cuStreamSynchronize(m_stream), "cuBLAS reference") ||
      !ok(m_cu.cuMemcpyDtoH(refBytes.data(), m_ref, refBytes.size()), "cuMemcpyDtoH(reference)"))
    return false;
  std::vector<double> out, ref;
  decode(outs[c], m_b.buffers[c].dtype, out);
  decode(refBytes, "f32", ref);
  CheckResult cr = checkClose(out, ref, m_b.rtol, m_b.atol);
  if (!cr.ok()) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s: %zu of %zu elements of %s outside rtol %g / atol %g (%zu NaN; first at "
                  "[%zu, %zu]: %g, cuBLAS %g; max abs error %g)",
                  when, cr.failed, cr.checked, g.c.c_str(), m_b.rtol, m_b.atol, cr.nans,
                  cr.firstBad / static_cast<std::size_t>(g.n),
                  cr.firstBad % static_cast<std::size_t>(g.n), out[cr.firstBad], ref[cr.firstBad],
                  cr.maxAbsError);
    m_r.errors.push_back({"incorrect", buf});
    return false;
  }
  return true;
}

std::vector<double> GpuRun::timeLoop(const std::function<bool()>& call, std::size_t& dropped,
                                     std::string& stop) {
  using Clock = std::chrono::steady_clock;
  const ProtocolLimits& lim = m_o.limits;
  auto defaultClock = m_haveNvml ? m_nvml.defaultSm() : std::nullopt;
  // Warm-up: at least 25 ms and 3 launches.
  auto w0 = Clock::now();
  std::size_t launches = 0;
  while (!warmupDone(lim, launches, std::chrono::duration<double>(Clock::now() - w0).count())) {
    if (!call() || !ok(m_cu.cuStreamSynchronize(m_stream), "warm-up"))
      return {};
    ++launches;
  }
  std::vector<double> samples;
  auto t0 = Clock::now();
  while (true) {
    // Inputs refreshed in place and L2 flushed before every sample (not timed).
    for (std::size_t i = 0; i < m_b.buffers.size(); ++i)
      if (!m_host[i].empty() &&
          !ok(m_cu.cuMemcpyHtoDAsync(m_buf[i], m_host[i].data(), m_host[i].size(), m_stream),
              "refresh"))
        return {};
    if (m_flush && !ok(m_cu.cuMemsetD32Async(m_flush, 0x5a5a5a5a,
                                             static_cast<std::size_t>(m_l2) * 2 / 4, m_stream),
                       "L2 flush"))
      return {};
    float ms = 0;
    if (m_cupti.active() && !ok(m_cu.cuStreamSynchronize(m_stream), "cuStreamSynchronize"))
      return {};
    if (m_cupti.active()) {
      // Only the call's kernels complete inside the window (the refresh and the flush are
      // copies and memsets): the records' span is the sample.
      std::string error;
      m_cupti.take(error); // the refresh and flush of this sample, and nothing else
      if (!call() || !ok(m_cu.cuStreamSynchronize(m_stream), "cuStreamSynchronize"))
        return {};
      error.clear();
      auto us = m_cupti.take(error);
      if (!us) {
        m_r.errors.push_back({"timing-failed", "CUPTI: " + error});
        m_failed = true;
        return {};
      }
      ms = static_cast<float>(*us / 1000.0);
    } else if (!ok(m_cu.cuEventRecord(m_start, m_stream), "cuEventRecord") || !call() ||
               !ok(m_cu.cuEventRecord(m_stop, m_stream), "cuEventRecord") ||
               !ok(m_cu.cuEventSynchronize(m_stop), "cuEventSynchronize") ||
               !ok(m_cu.cuEventElapsedTime(&ms, m_start, m_stop), "cuEventElapsedTime")) {
      return {};
    }
    auto clock = m_haveNvml ? m_nvml.clock(Nvml::kSm) : std::nullopt;
    if (clockAccepted(lim, clock, defaultClock)) {
      samples.push_back(static_cast<double>(ms) * 1000.0);
      if (clock)
        m_clocks.push_back(*clock);
    } else {
      ++dropped;
    }
    StopReason why =
        shouldStop(lim, samples, std::chrono::duration<double>(Clock::now() - t0).count());
    if (why != StopReason::Continue) {
      stop = toString(why);
      return samples;
    }
    // Dropped samples count toward the hard limits too (a throttled device cannot loop forever).
    if (samples.size() + dropped >= lim.maxSamples * 2) {
      stop = "max-samples";
      return samples;
    }
  }
}

void GpuRun::run(void* lib) {
  std::string err;
  if (!m_cu.load(lib, err)) {
    m_r.errors.push_back({"no-driver", "the NVIDIA driver cannot be used: " + err});
    return;
  }
  CUresult rc = m_cu.cuInit(0);
  if (rc != CUDA_SUCCESS) {
    const char* s = nullptr;
    m_cu.cuGetErrorString(rc, &s);
    m_r.errors.push_back({"no-device", std::string("cuInit failed: ") + (s ? s : "?")});
    return;
  }
  int count = 0;
  if (m_cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count <= m_o.deviceOrdinal) {
    m_r.errors.push_back({"no-device", "no CUDA device " + std::to_string(m_o.deviceOrdinal) +
                                           " (" + std::to_string(count) + " present)"});
    return;
  }
  if (!ok(m_cu.cuDeviceGet(&m_dev, m_o.deviceOrdinal), "cuDeviceGet"))
    return;
  char name[256] = {};
  int major = 0, minor = 0, version = 0;
  m_cu.cuDeviceGetName(name, sizeof name, m_dev);
  m_cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, m_dev);
  m_cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, m_dev);
  m_cu.cuDeviceGetAttribute(&m_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, m_dev);
  m_cu.cuDeviceGetAttribute(&m_l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, m_dev);
  m_cu.cuDriverGetVersion(&version);
  DeviceInfo dev;
  dev.name = name;
  dev.sm = "sm_" + std::to_string(major * 10 + minor);
  dev.driver = std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  char pci[64] = {};
  if (m_cu.cuDeviceGetPCIBusId(pci, sizeof pci, m_dev) == CUDA_SUCCESS)
    m_haveNvml = m_nvml.load(pci);
  if (m_haveNvml) {
    dev.defaultClockMHz = m_nvml.defaultSm();
    dev.memClockMHz = m_nvml.clock(Nvml::kMem);
    if (auto v = m_nvml.driver())
      dev.driver = *v + " (CUDA " + *dev.driver + ")";
  } else {
    m_r.warnings.push_back("NVML (libnvidia-ml.so.1) not available: clocks are not reported and "
                           "no sample is dropped for a low clock");
  }
  m_r.device = dev;

  // Refuse an image the device cannot run before loading it (the driver's own error,
  // CUDA_ERROR_NO_BINARY_FOR_GPU, does not say why).
  Capability cap = *parseTarget(m_b.target);
  if (auto why = cannotRun(cap, major, minor, m_b.imageKind == "ptx")) {
    m_r.errors.push_back({"target-mismatch", "refused: " + *why});
    return;
  }
  if (!setup())
    return;
  m_gemm = gemmContract(m_b);
  if (m_gemm && blasType(m_b.buffer(m_gemm->a)->dtype)) {
    m_haveBlas = m_blas.load(m_stream);
    if (!m_haveBlas)
      m_r.warnings.push_back("cuBLAS not available (" + m_blas.error +
                             "): no baseline for this GEMM");
  }
  // Anything cuBLAS does not check is judged by the contract's reference on the host.
  m_useHostOracle = !(m_gemm && m_haveBlas) && static_cast<bool>(hostOracle());
  if (!(m_gemm && m_haveBlas) && !m_useHostOracle)
    m_r.warnings.push_back("no oracle for workload '" + m_b.workloadId +
                           "' (this runner has no host reference): only checked that every "
                           "output element is written");

  // 1. The checked launch: NaN-filled outputs, seeded inputs.
  if (!upload(m_o.seed) || !fillOutputsNaN() || !launch() || !check("checked launch"))
    return;
  // 2. Timing.
  if (m_o.timing) {
    std::size_t dropped = 0;
    std::string cuptiError = "disabled (--timer events)";
    if (m_o.cupti)
      m_cupti.start(m_o.libcupti.empty() ? detail::defaultCuptiLibraries() : m_o.libcupti,
                    cuptiError);
    m_r.samplesUs = timeLoop([&] { return launch(); }, dropped, m_r.stopReason);
    if (m_failed)
      return;
    if (m_cupti.active()) {
      m_r.timer = "cupti";
    } else {
      m_r.timer = "cuda-events";
      m_r.warnings.push_back("timed with CUDA events (the documented fallback): CUPTI " +
                             cuptiError);
    }
    if (dropped)
      m_r.warnings.push_back(std::to_string(dropped) +
                             " sample(s) dropped: SM clock below 75% of the default");
    if (!m_clocks.empty()) {
      double sum = 0;
      for (double c : m_clocks)
        sum += c;
      m_r.device->smClockMHz = sum / static_cast<double>(m_clocks.size());
    }
    m_r.stats = summarize(m_r.samplesUs);
    // 3. The cuBLAS baseline under the same protocol (output in C's dtype).
    if (m_gemm && m_haveBlas) {
      const BundleBuffer* C = m_b.buffer(m_gemm->c);
      if (auto ct = blasType(C->dtype);
          ct && ok(m_cu.cuMemAlloc(&m_baselineOut, static_cast<std::size_t>(C->bytes())),
                   "cuMemAlloc(baseline)")) {
        std::size_t bd = 0;
        std::string bstop;
        auto bs = timeLoop([&] { return gemmReference(m_baselineOut, *ct); }, bd, bstop);
        if (m_failed)
          return;
        m_r.baseline = Baseline{"cublasGemmEx " + m_b.buffer(m_gemm->a)->dtype + " -> " + C->dtype +
                                    " (f32 compute)",
                                summarize(bs).median};
      }
    }
    if (auto s = suspicion(m_r.stats->median, m_b.rooflineUs,
                           m_r.baseline ? m_r.baseline->medianUs : std::nullopt))
      m_r.warnings.push_back("suspicious: " + *s);
    // 4. After timing: NaN-fill, redraw inputs, replay the timed call and check again (a
    // kernel that caches or replays results fails here).
    if (!upload(m_o.seed + 1000003) || !fillOutputsNaN() || !launch() ||
        !check("replay with redrawn inputs"))
      return;
  }
  // 5. Determinism: the same inputs twice give the same bits.
  std::vector<std::string> first, second;
  if (!fillOutputsNaN() || !launch() || !download(first) || !fillOutputsNaN() || !launch() ||
      !download(second))
    return;
  for (std::size_t i = 0; i < m_b.buffers.size(); ++i)
    if (m_b.buffers[i].role == "output" && first[i] != second[i]) {
      m_r.errors.push_back({"nondeterministic", "two launches on the same inputs wrote different "
                                                "bits to " +
                                                    m_b.buffers[i].name});
      return;
    }
  m_r.correct = (m_gemm && m_haveBlas) || m_useHostOracle ? std::optional<bool>(true)
                                                           : std::nullopt;
}

} // namespace

RunRecord runOnGpu(const Bundle& bundle, const RunnerOptions& options) {
  RunRecord r = recordFor(bundle);
  std::string error;
  void* lib = openLibrary({options.libcuda}, error);
  if (!lib) {
    r.errors.push_back(
        {"no-driver", "no NVIDIA driver (" + options.libcuda + " not found): " + error});
    return r;
  }
  {
    GpuRun run(bundle, options, r);
    run.run(lib);
  }
  if (!r.errors.empty())
    r.correct = r.hasError("incorrect") || r.hasError("nondeterministic")
                    ? std::optional<bool>(false)
                    : std::nullopt;
  // The driver library stays loaded: unloading libcuda while its threads run is unsafe.
  return r;
}

#endif // CAKE_HAVE_CUDA_H

} // namespace cake::run
