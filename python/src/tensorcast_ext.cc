// The extension module tensorcast._tensorcast: a thin layer between the Python package
// (python/tensorcast/, which checks and converts arguments and owns the user-facing API) and
// the C++ library. Every function takes byte buffers and ONNX type codes, checks
// that the buffers hold the bytes the call reads or writes, releases the GIL for the work
// and returns None (or a result) on success and a tuple (status code, message, elements
// written) on failure; the Python layer turns that tuple into the exception. Nothing here
// throws into Python for a library error, and no input can make it read or write outside
// the buffers it is given.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#if TENSORCAST_NUMPY2_API
// numpy's C API (>= 2.0, for StringDType), imported on first use only (NumpyStringApi).
#define PY_ARRAY_UNIQUE_SYMBOL tensorcast_ARRAY_API
#include <numpy/arrayobject.h>
#endif

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/check.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"
#include "tensorcast/tensorcast.h"
#include "tensorcast/version.h"

namespace nb = nanobind;

namespace {

using tensorcast::DataType;
using tensorcast::Status;
using tensorcast::StatusCode;

// A C-contiguous buffer of any object with the buffer protocol (numpy arrays of every
// dtype, ml_dtypes included: no format is requested, so none is refused), held for the
// duration of a call.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (held_) PyBuffer_Release(&view_);
  }
  // Acquires obj's bytes; false (and no Python error set) when obj has no C-contiguous
  // buffer, or no writable one when `writable`.
  bool Acquire(nb::handle obj, bool writable) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      return false;
    }
    held_ = true;
    return true;
  }
  void* data() const { return view_.buf; }
  size_t nbytes() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

nb::object Error(StatusCode code, std::string message, size_t written = 0) {
  return nb::make_tuple(static_cast<int>(code), std::move(message), written);
}

nb::object Result(const Status& s) {
  if (s.ok()) return nb::none();
  return Error(s.code(), s.message(), s.elements_written());
}

size_t Bytes(const Buffer& b) { return b.nbytes(); }

// The result of a buffer argument that Acquire refused: code -1, so that the Python layer
// can tell it from the library's errors (and retry with a contiguous copy).
nb::object Refused(const char* what, bool writable) {
  return nb::make_tuple(-1,
                        std::string(what) + (writable ? " must be a writable C-contiguous buffer"
                                                      : " must be a C-contiguous buffer"),
                        0);
}

// Checks that a buffer named `what` holds the storage of `count` elements of `type`.
Status CheckBuffer(const char* what, size_t have, DataType type, size_t count) {
  size_t need = 0;
  Status s = tensorcast::CheckedStorageBytes(type, count, &need);
  if (!s.ok()) return s;
  if (have < need) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(what) + " holds " + std::to_string(have) + " bytes, " +
                      std::to_string(count) + " elements of " + tensorcast::DataTypeName(type) +
                      " need " + std::to_string(need));
  }
  return Status();
}

// The library's rules (lib/check.h), with the extension's own for STRING, which has
// entry points of its own here.
Status CheckNumeric(const char* what, int32_t code) {
  const DataType type = static_cast<DataType>(code);
  if (!tensorcast::check::IsKnownType(type)) return tensorcast::check::UnknownTypeError(type, what);
  if (type == DataType::kString) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(what) + ": STRING needs the string entry points");
  }
  return Status();
}

// The package's thread pools. threads == 0: the default pool, of set_num_threads threads,
// else DefaultThreadCount() (the affinity mask and OMP_NUM_THREADS), re-read whenever
// OMP_NUM_THREADS changes (Ray sets it per task in a reused worker); 1: no runner; n > 1: a
// pool of n threads, kept for later calls. A call holds a reference to its pool, so a
// resize never pulls one away from a running call. Called with the GIL held.
struct Pools {
  std::mutex mu;
  size_t configured = 0;  // set_num_threads; 0: the default count
  bool default_known = false;
  std::string omp_num_threads;  // the value the default count was computed with
  size_t default_count = 1;
  std::shared_ptr<tensorcast::ThreadPool> default_pool;
  std::vector<std::shared_ptr<tensorcast::ThreadPool>> sized;
};

Pools& GetPools() {
  static Pools* pools = new Pools();  // never destroyed: threads may outlive static teardown
  return *pools;
}

// The size of the default pool; p.mu held.
size_t DefaultCountLocked(Pools& p) {
  if (p.configured) return p.configured;
  const char* env = std::getenv("OMP_NUM_THREADS");
  const std::string value = env ? env : "";
  if (!p.default_known || value != p.omp_num_threads) {
    p.omp_num_threads = value;
    p.default_count = tensorcast::DefaultThreadCount();
    p.default_known = true;
  }
  return p.default_count;
}

std::shared_ptr<tensorcast::ThreadPool> PoolFor(size_t threads) {
  if (threads == 1) return nullptr;
  Pools& p = GetPools();
  std::lock_guard<std::mutex> lock(p.mu);
  if (threads == 0) {
    const size_t n = DefaultCountLocked(p);
    if (n <= 1) return nullptr;
    if (!p.default_pool || p.default_pool->num_threads() != n) {
      p.default_pool = std::make_shared<tensorcast::ThreadPool>(n);
    }
    return p.default_pool;
  }
  for (const auto& pool : p.sized) {
    if (pool->num_threads() == threads) return pool;
  }
  p.sized.push_back(std::make_shared<tensorcast::ThreadPool>(threads));
  return p.sized.back();
}

size_t GetNumThreads() {
  Pools& p = GetPools();
  std::lock_guard<std::mutex> lock(p.mu);
  return DefaultCountLocked(p);
}

void SetNumThreads(size_t n) {
  if (n == 0) throw nb::value_error("set_num_threads: n must be at least 1");
  Pools& p = GetPools();
  std::lock_guard<std::mutex> lock(p.mu);
  p.configured = n;
}

// ---- Output blocks ---------------------------------------------------------------------
// The memory of large results (lib/tuning.h, kOutputCacheMinBytes): anonymous mappings with
// huge pages advised, returned to a bounded cache when the array that holds one is freed.
// Blocks are whole 2 MiB multiples. Thread-safe (arrays may die on any thread).
class BlockCache {
 public:
  static BlockCache& Get() {
    static BlockCache* cache = new BlockCache();  // never destroyed: arrays may outlive teardown
    return *cache;
  }
  // A block of at least `bytes`: a cached one of at most twice that size, else a new mapping
  // (null when the system refuses). *size receives the block's size.
  void* Take(size_t bytes, size_t* size) {
    const size_t want = RoundUp(bytes);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < free_.size(); ++i) {
        if (free_[i].second >= want && free_[i].second / 2 <= want) {
          const auto block = free_[i];
          free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
          held_ -= block.second;
          *size = block.second;
          return block.first;
        }
      }
    }
    void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    madvise(p, want, MADV_HUGEPAGE);
    *size = want;
    return p;
  }
  // Back into the cache (newest first), the oldest blocks unmapped past the limit; a block
  // larger than the limit is unmapped at once (it would flush every other block).
  void Give(void* p, size_t size) {
    std::vector<std::pair<void*, size_t>> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (size > limit_) {
        drop.push_back({p, size});
        p = nullptr;
      }
      if (p != nullptr) free_.insert(free_.begin(), {p, size});
      if (p != nullptr) held_ += size;
      TrimLocked(&drop);
    }
    for (const auto& b : drop) munmap(b.first, b.second);
  }
  // A new limit; blocks past it are unmapped now.
  void SetLimit(size_t limit) {
    std::vector<std::pair<void*, size_t>> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit_ = limit;
      TrimLocked(&drop);
    }
    for (const auto& b : drop) munmap(b.first, b.second);
  }
  // (bytes held, limit)
  std::pair<size_t, size_t> Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {held_, limit_};
  }

 private:
  void TrimLocked(std::vector<std::pair<void*, size_t>>* drop) {
    while (held_ > limit_ && !free_.empty()) {
      drop->push_back(free_.back());
      held_ -= free_.back().second;
      free_.pop_back();
    }
  }
  static size_t RoundUp(size_t bytes) {
    constexpr size_t kHuge = size_t{2} << 20;
    return (bytes + kHuge - 1) / kHuge * kHuge;
  }
  std::mutex mu_;
  std::vector<std::pair<void*, size_t>> free_;
  size_t held_ = 0;
  size_t limit_ = tensorcast::tuning::kOutputCacheBytes;
};

// A 1-D uint8 numpy array of `bytes` bytes in a cached block (the package views it as the
// result's dtype and shape), or None when `bytes` is below kOutputCacheMinBytes, the cache
// is disabled or no memory can be mapped: the caller then uses np.empty.
nb::object OutputBlock(size_t bytes) {
  if (bytes < tensorcast::tuning::kOutputCacheMinBytes || bytes > (size_t{1} << 48) ||
      BlockCache::Get().Stats().second == 0) {
    return nb::none();
  }
  size_t size = 0;
  void* p = BlockCache::Get().Take(bytes, &size);
  if (p == nullptr) return nb::none();
  auto owned = std::make_unique<std::pair<void*, size_t>>(p, size);
  nb::capsule owner;
  try {
    owner = nb::capsule(owned.get(), [](void* q) noexcept {
      auto* b = static_cast<std::pair<void*, size_t>*>(q);
      BlockCache::Get().Give(b->first, b->second);
      delete b;
    });
  } catch (...) {
    BlockCache::Get().Give(p, size);
    throw;
  }
  owned.release();  // the capsule's now
  const size_t shape[1] = {bytes};
  return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(p, 1, shape, owner).cast();
}

tensorcast::CastOptions Options(bool saturate, int round_mode,
                                const std::shared_ptr<tensorcast::ThreadPool>& pool) {
  tensorcast::CastOptions o;
  o.saturate = saturate;
  o.round_mode = static_cast<tensorcast::RoundMode>(round_mode);
  o.runner = pool ? pool->runner() : nullptr;
  return o;
}

// The statistics of a call into the caller's tensorcast.CastStats object (None: not
// requested): its attributes are set from `st` (the GIL held).
void StoreStats(nb::handle stats_obj, const tensorcast::CastStats& st) {
  stats_obj.attr("count") = nb::int_(st.count);
  stats_obj.attr("nan_count") = nb::int_(st.nan_count);
  stats_obj.attr("inf_count") = nb::int_(st.inf_count);
  stats_obj.attr("saturated") = nb::int_(st.saturated);
  stats_obj.attr("flushed") = nb::int_(st.flushed);
  stats_obj.attr("amax") = nb::float_(st.amax);
  stats_obj.attr("sum_squared_error") = nb::float_(st.sum_squared_error);
  stats_obj.attr("sum_squared_signal") = nb::float_(st.sum_squared_signal);
  stats_obj.attr("error_count") = nb::int_(st.error_count);
}

Status CheckRoundMode(int round_mode) {
  const auto mode = static_cast<tensorcast::RoundMode>(round_mode);
  if (!tensorcast::check::IsRoundMode(mode)) return tensorcast::check::RoundModeError(mode);
  return Status();
}

nb::object Cast(nb::handle src_obj, int32_t src_type, nb::handle dst_obj, int32_t dst_type,
                size_t count, bool saturate, int round_mode, size_t threads, nb::handle stats_obj) {
  Buffer src, dst;
  if (!src.Acquire(src_obj, false)) return Refused("the source", false);
  if (!dst.Acquire(dst_obj, true)) return Refused("the output", true);
  // The library's rule: no overlap, unless in place with one type. The Python layer then
  // writes through a temporary.
  {
    const auto* s0 = static_cast<const char*>(src.data());
    const auto* d0 = static_cast<const char*>(dst.data());
    const bool overlap = s0 < d0 + dst.nbytes() && d0 < s0 + src.nbytes();
    if (overlap && !(s0 == d0 && src_type == dst_type))
      return Refused("the output (it overlaps the source)", true);
  }
  Status s = CheckNumeric("source type", src_type);
  if (s.ok()) s = CheckNumeric("target type", dst_type);
  if (s.ok()) s = CheckRoundMode(round_mode);
  if (s.ok()) s = CheckBuffer("the source", Bytes(src), static_cast<DataType>(src_type), count);
  if (s.ok()) s = CheckBuffer("the output", Bytes(dst), static_cast<DataType>(dst_type), count);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  tensorcast::CastStats st;
  tensorcast::CastOptions options = Options(saturate, round_mode, pool);
  if (!stats_obj.is_none()) options.stats = &st;
  {
    nb::gil_scoped_release release;
    s = tensorcast::Cast(src.data(), static_cast<DataType>(src_type), dst.data(),
                         static_cast<DataType>(dst_type), count, options);
  }
  if (s.ok() && options.stats != nullptr) StoreStats(stats_obj, st);
  return Result(s);
}

// 6-bit codes between ml_dtypes' storage (one code per byte, in its low 6 bits; the high
// bits are ignored) and ONNX's packed layout (element i in bits [6i, 6i + 6) of the
// little-endian bit stream: four codes in three bytes, zero padding). The 4- and 2-bit
// types are packed by the library's Cast between UINT8 and UINT4 / UINT2; no 6-bit integer
// type exists to do the same for FLOAT6E2M3 and FLOAT6E3M2.
void Pack6(const uint8_t* codes, uint8_t* packed, size_t count) {
  size_t i = 0;
  for (; i + 4 <= count; i += 4, packed += 3) {
    const uint32_t w = (codes[i] & 0x3Fu) | (codes[i + 1] & 0x3Fu) << 6 |
                       (codes[i + 2] & 0x3Fu) << 12 | (codes[i + 3] & 0x3Fu) << 18;
    packed[0] = static_cast<uint8_t>(w);
    packed[1] = static_cast<uint8_t>(w >> 8);
    packed[2] = static_cast<uint8_t>(w >> 16);
  }
  if (i == count) return;
  uint32_t w = 0;
  for (size_t k = 0; i + k < count; ++k) w |= (codes[i + k] & 0x3Fu) << (6 * k);
  const size_t bytes = ((count - i) * 6 + 7) / 8;
  for (size_t k = 0; k < bytes; ++k) packed[k] = static_cast<uint8_t>(w >> (8 * k));
}

void Unpack6(const uint8_t* packed, uint8_t* codes, size_t count) {
  size_t i = 0;
  for (; i + 4 <= count; i += 4, packed += 3) {
    const uint32_t w = packed[0] | uint32_t{packed[1]} << 8 | uint32_t{packed[2]} << 16;
    codes[i] = w & 0x3F;
    codes[i + 1] = (w >> 6) & 0x3F;
    codes[i + 2] = (w >> 12) & 0x3F;
    codes[i + 3] = (w >> 18) & 0x3F;
  }
  if (i == count) return;
  uint32_t w = 0;
  const size_t bytes = ((count - i) * 6 + 7) / 8;
  for (size_t k = 0; k < bytes; ++k) w |= uint32_t{packed[k]} << (8 * k);
  for (size_t k = 0; i + k < count; ++k) codes[i + k] = (w >> (6 * k)) & 0x3F;
}

// One call of Pack6 or Unpack6, cut into tasks of kCodesPerTask codes (whole groups of four,
// so that every task starts on a byte of the packed side) for a pool's runner.
struct Codes6Job {
  static constexpr size_t kCodesPerTask = size_t{1} << 18;
  bool pack;
  const uint8_t* src;
  uint8_t* dst;
  size_t count;

  void RunTask(size_t task) const {
    const size_t begin = task * kCodesPerTask;
    const size_t n = std::min(kCodesPerTask, count - begin);
    if (pack) {
      Pack6(src + begin, dst + begin / 4 * 3, n);
    } else {
      Unpack6(src + begin / 4 * 3, dst + begin, n);
    }
  }
  static void Task(void* ctx, size_t task) { static_cast<const Codes6Job*>(ctx)->RunTask(task); }
};

nb::object Codes6(bool pack, nb::handle src_obj, nb::handle dst_obj, size_t count, size_t threads) {
  Buffer src, dst;
  if (!src.Acquire(src_obj, false)) return Refused("the source", false);
  if (!dst.Acquire(dst_obj, true)) return Refused("the output", true);
  size_t packed_bytes = 0;
  Status s = tensorcast::CheckedStorageBytes(DataType::kFloat6E2M3, count, &packed_bytes);
  auto check = [&](const char* what, size_t have, size_t need, const char* layout) {
    if (s.ok() && have < need) {
      s = Status(StatusCode::kInvalidArgument, std::string(what) + " holds " +
                                                   std::to_string(have) + " bytes, " +
                                                   std::to_string(count) + " " + layout +
                                                   " 6-bit codes need " + std::to_string(need));
    }
  };
  check("the source", Bytes(src), pack ? count : packed_bytes, pack ? "unpacked" : "packed");
  check("the output", Bytes(dst), pack ? packed_bytes : count, pack ? "packed" : "unpacked");
  if (!s.ok()) return Result(s);
  const auto* s0 = static_cast<const char*>(src.data());
  const auto* d0 = static_cast<const char*>(dst.data());
  if (count != 0 && s0 < d0 + dst.nbytes() && d0 < s0 + src.nbytes())
    return Refused("the output (it overlaps the source)", true);
  const Codes6Job job{pack, static_cast<const uint8_t*>(src.data()),
                      static_cast<uint8_t*>(dst.data()), count};
  const size_t tasks = (count + Codes6Job::kCodesPerTask - 1) / Codes6Job::kCodesPerTask;
  auto pool = tasks > 1 ? PoolFor(threads) : nullptr;
  {
    nb::gil_scoped_release release;
    const tensorcast::Runner* runner = pool ? pool->runner() : nullptr;
    if (runner == nullptr ||
        runner->run(runner->opaque, tasks, &Codes6Job::Task, const_cast<Codes6Job*>(&job)) != 0) {
      for (size_t t = 0; t < tasks; ++t) job.RunTask(t);
    }
  }
  return nb::none();
}

// The missing-value markers of object arrays: None, a float NaN (numpy's and pandas'
// missing value) and pandas.NA.
bool IsMissing(PyObject* item) {
  if (item == Py_None) return true;
  if (PyFloat_Check(item)) return std::isnan(PyFloat_AS_DOUBLE(item));
  const std::string_view name = Py_TYPE(item)->tp_name;
  return name == "NAType" || (name.size() > 7 && name.substr(name.size() - 7) == ".NAType");
}

// Texts of a Python list (str, or bytes holding UTF-8) -> Arrow layout (int64 offsets).
// Returns an error naming the element that is neither, or that is not valid Unicode;
// with `present` (errors="null": an Arrow validity bitmap), a text that is not valid
// Unicode and a missing value (IsMissing) are nulls (bit clear) instead.
Status GatherTexts(nb::handle list, std::vector<int64_t>* offsets, std::vector<char>* data,
                   std::vector<uint8_t>* present) {
  PyObject* obj = list.ptr();
  if (!PyList_Check(obj)) return Status(StatusCode::kInvalidArgument, "texts must be a list");
  const Py_ssize_t n = PyList_GET_SIZE(obj);
  offsets->resize(static_cast<size_t>(n) + 1);
  (*offsets)[0] = 0;
  if (present != nullptr) present->assign((static_cast<size_t>(n) + 7) / 8, 0xFF);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GET_ITEM(obj, i);
    const char* text = nullptr;
    Py_ssize_t size = 0;
    const auto null = [&] {
      (*present)[static_cast<size_t>(i) / 8] &= static_cast<uint8_t>(~(1u << (i % 8)));
    };
    if (present != nullptr && IsMissing(item)) {
      null();
    } else if (PyUnicode_Check(item)) {
      text = PyUnicode_AsUTF8AndSize(item, &size);
      if (text == nullptr) {
        PyErr_Clear();
        size = 0;
        if (present != nullptr) {
          null();
          (*offsets)[static_cast<size_t>(i) + 1] = static_cast<int64_t>(data->size());
          continue;
        }
        return Status(StatusCode::kParseError,
                      "element " + std::to_string(i) + " is not valid Unicode (a lone surrogate)",
                      static_cast<size_t>(i));
      }
    } else if (PyBytes_Check(item)) {
      text = PyBytes_AS_STRING(item);
      size = PyBytes_GET_SIZE(item);
    } else {
      return Status(
          StatusCode::kUnsupported,
          "element " + std::to_string(i) + " is " + Py_TYPE(item)->tp_name + ", not str or bytes",
          static_cast<size_t>(i));
    }
    data->insert(data->end(), text, text + size);
    (*offsets)[static_cast<size_t>(i) + 1] = static_cast<int64_t>(data->size());
  }
  return Status();
}

// The validity output of a cast that makes nulls of bad texts (errors="null"): None, or a
// writable buffer of at least ceil(count / 8) bytes. *bits stays null for None.
Status AcquireValidityOut(nb::handle obj, size_t count, Buffer* buffer, uint8_t** bits) {
  if (obj.is_none()) return Status();
  if (!buffer->Acquire(obj, true)) {
    return Status(StatusCode::kInvalidArgument, "validity_out must be a writable buffer or None");
  }
  if (buffer->nbytes() < count / 8 + (count % 8 != 0)) {
    return Status(StatusCode::kInvalidArgument, "validity_out is shorter than count bits");
  }
  *bits = static_cast<uint8_t*>(buffer->data());
  return Status();
}

// Arrow texts into `dst`: CastFromArrowStrings, or with `validity` (errors="null")
// TryCastFromArrowStrings writing the output validity there.
Status ParseArrow(const tensorcast::ArrowStrings& in, void* dst, int32_t dst_type, size_t count,
                  uint8_t* validity, const tensorcast::CastOptions& options) {
  if (validity == nullptr) {
    return tensorcast::CastFromArrowStrings(in, dst, static_cast<DataType>(dst_type), count,
                                            options);
  }
  tensorcast::TryCastNulls nulls;
  nulls.validity = validity;
  return tensorcast::TryCastFromArrowStrings(in, dst, static_cast<DataType>(dst_type), count,
                                             &nulls, options);
}

// Parses texts gathered into Arrow layout (int64 offsets) into `dst`.
Status CastGathered(const std::vector<int64_t>& offsets, const std::vector<char>& data,
                    const uint8_t* present, const Buffer& dst, int32_t dst_type, size_t count,
                    uint8_t* validity, const tensorcast::CastOptions& options) {
  tensorcast::ArrowStrings in;
  in.offsets = offsets.data();
  in.offset_width = 8;
  in.data = data.data();
  in.validity = present;
  return ParseArrow(in, dst.data(), dst_type, count, validity, options);
}

nb::object CastFromStrings(nb::handle texts, nb::handle dst_obj, int32_t dst_type, bool saturate,
                           int round_mode, size_t threads, nb::handle validity_obj) {
  Buffer dst, validity_buffer;
  uint8_t* validity = nullptr;
  if (!dst.Acquire(dst_obj, true)) return Refused("the output", true);
  Status s = CheckNumeric("target type", dst_type);
  if (s.ok()) s = CheckRoundMode(round_mode);
  std::vector<int64_t> offsets;
  std::vector<char> data;
  std::vector<uint8_t> present;
  if (s.ok()) s = GatherTexts(texts, &offsets, &data, validity_obj.is_none() ? nullptr : &present);
  const size_t count = offsets.empty() ? 0 : offsets.size() - 1;
  if (s.ok()) s = CheckBuffer("the output", Bytes(dst), static_cast<DataType>(dst_type), count);
  if (s.ok()) s = AcquireValidityOut(validity_obj, count, &validity_buffer, &validity);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  {
    nb::gil_scoped_release release;
    s = CastGathered(offsets, data, present.empty() ? nullptr : present.data(), dst, dst_type,
                     count, validity, Options(saturate, round_mode, pool));
  }
  return Result(s);
}

// Fixed-width numpy texts -> Arrow layout (int64 offsets). kind 'S': `width` bytes per
// element, trailing NUL bytes are padding; kind 'U': `width` UCS-4 code units per element
// (numpy's str_), trailing zeros are padding, converted to UTF-8. A code unit that is not a
// Unicode scalar value is an error naming the element. Trailing NULs are padding, as numpy
// reads them. With `present` (errors="null": an Arrow validity bitmap), such an element is
// a null (bit clear) instead.
Status GatherFixed(const Buffer& buf, char kind, size_t width, size_t count,
                   std::vector<int64_t>* offsets, std::vector<char>* data,
                   std::vector<uint8_t>* present) {
  const size_t unit = kind == 'U' ? 4 : 1;
  if (count != 0 && width != 0 &&
      (width > buf.nbytes() / unit || count > buf.nbytes() / (width * unit))) {
    return Status(StatusCode::kInvalidArgument, "the texts buffer is shorter than count * width");
  }
  offsets->resize(count + 1);
  (*offsets)[0] = 0;
  data->reserve(count * std::min<size_t>(width, 24));
  if (present != nullptr) present->assign((count + 7) / 8, 0xFF);
  const auto* base = static_cast<const unsigned char*>(buf.data());
  for (size_t i = 0; i < count; ++i) {
    const unsigned char* e = base + i * width * unit;
    if (kind == 'S') {
      size_t n = width;
      while (n > 0 && e[n - 1] == 0) --n;
      data->insert(data->end(), e, e + n);
    } else {
      size_t n = width;
      auto at = [e](size_t k) {
        uint32_t c;
        std::memcpy(&c, e + 4 * k, 4);
        return c;
      };
      while (n > 0 && at(n - 1) == 0) --n;
      for (size_t k = 0; k < n; ++k) {
        const uint32_t c = at(k);
        if (c < 0x80) {
          data->push_back(static_cast<char>(c));
        } else if (c < 0x800) {
          data->push_back(static_cast<char>(0xC0 | (c >> 6)));
          data->push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000 && (c < 0xD800 || c > 0xDFFF)) {
          data->push_back(static_cast<char>(0xE0 | (c >> 12)));
          data->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
          data->push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c >= 0x10000 && c < 0x110000) {
          data->push_back(static_cast<char>(0xF0 | (c >> 18)));
          data->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
          data->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
          data->push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (present != nullptr) {
          (*present)[i / 8] &= static_cast<uint8_t>(~(1u << (i % 8)));
          break;  // the element's bytes so far stay: a null's text is never read
        } else {
          return Status(StatusCode::kParseError,
                        "element " + std::to_string(i) + " holds code unit " + std::to_string(c) +
                            ", which is not a Unicode character",
                        i);
        }
      }
    }
    (*offsets)[i + 1] = static_cast<int64_t>(data->size());
  }
  return Status();
}

nb::object CastFromFixedStrings(nb::handle texts_obj, const std::string& kind, size_t width,
                                size_t count, nb::handle dst_obj, int32_t dst_type, bool saturate,
                                int round_mode, size_t threads, nb::handle validity_obj) {
  Buffer texts, dst, validity_buffer;
  uint8_t* validity = nullptr;
  if (!texts.Acquire(texts_obj, false)) return Refused("texts", false);
  if (!dst.Acquire(dst_obj, true)) return Refused("the output", true);
  Status s = CheckNumeric("target type", dst_type);
  if (s.ok()) s = CheckRoundMode(round_mode);
  if (s.ok() && kind != "S" && kind != "U")
    s = Status(StatusCode::kInvalidArgument, "kind must be 'S' or 'U'");
  if (s.ok()) s = CheckBuffer("the output", Bytes(dst), static_cast<DataType>(dst_type), count);
  if (s.ok()) s = AcquireValidityOut(validity_obj, count, &validity_buffer, &validity);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  {
    nb::gil_scoped_release release;
    std::vector<int64_t> offsets;
    std::vector<char> data;
    std::vector<uint8_t> present;
    try {
      s = GatherFixed(texts, kind[0], width, count, &offsets, &data,
                      validity == nullptr ? nullptr : &present);
    } catch (const std::bad_alloc&) {
      s = Status(StatusCode::kInternal, "out of memory for " + std::to_string(count) + " texts");
    }
    if (s.ok()) {
      s = CastGathered(offsets, data, present.empty() ? nullptr : present.data(), dst, dst_type,
                       count, validity, Options(saturate, round_mode, pool));
    }
  }
  return Result(s);
}

// Numbers -> numpy bytes_ of width 32 (no number's text is longer), NUL-padded.
// `count` numbers of `src_type` formatted in blocks (a multiple of 4 elements: whole bytes
// of packed 2-, 4- and 6-bit sources), each into a small Arrow buffer; text(i, p, len)
// takes element i's text and returns false to stop. The status of the formatting.
template <class Text>
Status FormatInBlocks(const void* src, int32_t src_type, size_t count,
                      const std::shared_ptr<tensorcast::ThreadPool>& pool, const Text& text) {
  const size_t block_size = std::min<size_t>(count, size_t{1} << 14);
  std::vector<int64_t> offsets(block_size + 1);
  std::vector<char> data(block_size * 33 + 1);  // no number's text is longer than 32 bytes
  const auto type = static_cast<DataType>(src_type);
  const size_t bits = static_cast<size_t>(tensorcast::BitWidth(type));
  Status s;
  for (size_t begin = 0; s.ok() && begin < count; begin += block_size) {
    const size_t n = std::min(block_size, count - begin);
    tensorcast::ArrowStringsOut block;
    block.offsets = offsets.data();
    block.offset_width = 8;
    block.data = data.data();
    block.data_capacity = data.size();
    s = tensorcast::CastToArrowStrings(static_cast<const char*>(src) + begin * bits / 8, type,
                                       &block, n, Options(true, 0, pool));
    for (size_t i = 0; s.ok() && i < n; ++i) {
      const auto at = static_cast<size_t>(offsets[i]);
      if (!text(begin + i, data.data() + at, static_cast<size_t>(offsets[i + 1]) - at)) {
        return s;
      }
    }
  }
  return s;
}

nb::object CastToFixedStrings(nb::handle src_obj, int32_t src_type, size_t count,
                              nb::handle out_obj, size_t threads) {
  constexpr size_t kWidth = 32;
  Buffer src, out;
  if (!src.Acquire(src_obj, false)) return Refused("the source", false);
  if (!out.Acquire(out_obj, true)) return Refused("the output", true);
  Status s = CheckNumeric("source type", src_type);
  if (s.ok()) s = CheckBuffer("the source", Bytes(src), static_cast<DataType>(src_type), count);
  if (s.ok() && out.nbytes() / kWidth < count) {
    s = Status(StatusCode::kInvalidArgument, "the output holds fewer than count texts of 32 bytes");
  }
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  {
    nb::gil_scoped_release release;
    auto* dst = static_cast<char*>(out.data());
    s = FormatInBlocks(src.data(), src_type, count, pool,
                       [&](size_t i, const char* text, size_t len) {
                         char* e = dst + i * kWidth;  // NUL-padded to the width
                         std::memcpy(e, text, len);
                         std::memset(e + len, 0, kWidth - len);
                         return true;
                       });
  }
  return Result(s);
}

// Reads offset `i` (in elements of `width` bytes) of an Arrow offsets buffer.
int64_t OffsetAt(const void* offsets, int width, size_t i) {
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, static_cast<const char*>(offsets) + i * 4, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, static_cast<const char*>(offsets) + i * 8, 8);
  return v;
}

nb::object CastFromArrowStrings(nb::handle offsets_obj, int offset_width, nb::handle data_obj,
                                nb::handle validity, int64_t offset, size_t count,
                                nb::handle dst_obj, int32_t dst_type, bool null_zero, bool saturate,
                                int round_mode, size_t threads, nb::handle validity_obj) {
  Buffer offsets, data, dst, validity_out_buffer;
  uint8_t* validity_out = nullptr;
  if (!offsets.Acquire(offsets_obj, false)) return Refused("offsets", false);
  if (!data.Acquire(data_obj, false)) return Refused("data", false);
  if (!dst.Acquire(dst_obj, true)) return Refused("the output", true);
  Status s = CheckNumeric("target type", dst_type);
  if (s.ok()) s = CheckRoundMode(round_mode);
  if (s.ok() && offset_width != 4 && offset_width != 8) {
    s = Status(StatusCode::kInvalidArgument, "offset_width must be 4 or 8");
  }
  if (s.ok() && offset < 0) s = Status(StatusCode::kInvalidArgument, "offset must be >= 0");
  const size_t first = static_cast<size_t>(offset);
  if (s.ok() && (count > (std::numeric_limits<size_t>::max() / 8) - first - 1 ||
                 Bytes(offsets) / static_cast<size_t>(offset_width) < first + count + 1)) {
    s = Status(StatusCode::kInvalidArgument,
               "the offsets buffer is shorter than offset + count + 1 entries");
  }
  // Offsets must be non-decreasing (the library checks every pair before it reads a text),
  // so the first and last ones bound every text.
  if (s.ok()) {
    const int64_t lo = OffsetAt(offsets.data(), offset_width, first);
    const int64_t hi = OffsetAt(offsets.data(), offset_width, first + count);
    if (lo < 0 || hi < lo || static_cast<uint64_t>(hi) > Bytes(data)) {
      s = Status(StatusCode::kInvalidArgument, "the offsets point outside the data buffer (" +
                                                   std::to_string(Bytes(data)) + " bytes)");
    }
  }
  const uint8_t* bits = nullptr;
  Buffer validity_buffer;
  if (s.ok() && !validity.is_none()) {
    if (!validity_buffer.Acquire(validity, false)) {
      s = Status(StatusCode::kInvalidArgument, "validity must be a buffer or None");
    } else if (Bytes(validity_buffer) < (first + count + 7) / 8) {
      s = Status(StatusCode::kInvalidArgument,
                 "the validity bitmap is shorter than offset + count bits");
    } else {
      bits = static_cast<const uint8_t*>(validity_buffer.data());
    }
  }
  if (s.ok()) s = CheckBuffer("the output", Bytes(dst), static_cast<DataType>(dst_type), count);
  if (s.ok()) s = AcquireValidityOut(validity_obj, count, &validity_out_buffer, &validity_out);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  {
    nb::gil_scoped_release release;
    tensorcast::ArrowStrings in;
    in.offsets = offsets.data();
    in.offset_width = offset_width;
    in.data = static_cast<const char*>(data.data());
    in.validity = bits;
    in.offset = offset;
    in.null_policy = null_zero ? tensorcast::NullPolicy::kZero : tensorcast::NullPolicy::kError;
    s = ParseArrow(in, dst.data(), dst_type, count, validity_out,
                   Options(saturate, round_mode, pool));
  }
  return Result(s);
}

// Sets to 0 each of the `count` elements of `itemsize` bytes in `values` whose bit in the
// Arrow validity bitmap (bits offset .. offset + count) is clear: the null slots of an Arrow
// result, as the package's rule has them. Returns None, or (code, message, 0).
nb::object ZeroNulls(nb::handle values_obj, size_t itemsize, nb::handle validity_obj,
                     int64_t offset, size_t count) {
  Buffer values, validity;
  if (!values.Acquire(values_obj, true)) return Refused("values", true);
  if (!validity.Acquire(validity_obj, false)) return Refused("validity", false);
  if (offset < 0 || itemsize == 0 || itemsize > 8 || count > values.nbytes() / itemsize ||
      static_cast<size_t>(offset) > validity.nbytes() * 8 ||
      count > validity.nbytes() * 8 - static_cast<size_t>(offset)) {
    return Error(StatusCode::kInvalidArgument, "zero_nulls: buffers shorter than count");
  }
  auto* v = static_cast<unsigned char*>(values.data());
  const auto* bits = static_cast<const uint8_t*>(validity.data());
  for (size_t i = 0; i < count; ++i) {
    const size_t b = static_cast<size_t>(offset) + i;
    if (((bits[b >> 3] >> (b & 7)) & 1) == 0) std::memset(v + i * itemsize, 0, itemsize);
  }
  return nb::none();
}

// Numbers -> Arrow layout into the caller's buffers. Returns the bytes of text written.
nb::object CastToArrowStrings(nb::handle src_obj, int32_t src_type, size_t count,
                              nb::handle offsets_obj, int offset_width, nb::handle data_obj,
                              size_t threads) {
  Buffer src, offsets, data;
  if (!src.Acquire(src_obj, false)) return Refused("the source", false);
  if (!offsets.Acquire(offsets_obj, true)) return Refused("offsets", true);
  if (!data.Acquire(data_obj, true)) return Refused("data", true);
  Status s = CheckNumeric("source type", src_type);
  if (s.ok()) s = CheckBuffer("the source", Bytes(src), static_cast<DataType>(src_type), count);
  if (s.ok() && offset_width != 4 && offset_width != 8) {
    s = Status(StatusCode::kInvalidArgument, "offset_width must be 4 or 8");
  }
  if (s.ok() && (count >= std::numeric_limits<size_t>::max() / 8 ||
                 Bytes(offsets) / static_cast<size_t>(offset_width) < count + 1)) {
    s = Status(StatusCode::kInvalidArgument,
               "the offsets buffer is shorter than count + 1 entries");
  }
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  tensorcast::ArrowStringsOut out;
  {
    nb::gil_scoped_release release;
    out.offsets = offsets.data();
    out.offset_width = offset_width;
    out.data = static_cast<char*>(data.data());
    out.data_capacity = Bytes(data);
    s = tensorcast::CastToArrowStrings(src.data(), static_cast<DataType>(src_type), &out, count,
                                       Options(true, 0, pool));
  }
  if (s.code() == StatusCode::kBufferTooSmall) {
    return nb::make_tuple(static_cast<int>(s.code()), s.message(), out.data_size);
  }
  if (!s.ok()) return Result(s);
  return nb::int_(out.data_size);
}

// ---- StringDType through numpy's C API ----------------------------------------------
// Whether numpy's C API for StringDType can be used: imported on the first call (the GIL
// held), never on numpy 1.x, where the import fails and the package keeps its other paths.
bool NumpyStringApi() {
#if TENSORCAST_NUMPY2_API
  static int state = -1;
  if (state < 0) {
    state = _import_array() < 0 ? 0 : 1;
    if (state == 0) PyErr_Clear();
  }
  return state == 1;
#else
  return false;
#endif
}

// The answer "use the package's other path" of the two functions below.
nb::object Fallback() { return nb::make_tuple(-1); }

// A 1-D StringDType array's texts, parsed into `dst` (as cast_from_arrow_strings) straight
// from numpy's packed strings. (-1,) when this path does not apply: no numpy 2 C API, not a
// 1-D StringDType array, or an element is missing (the dtype's NA: the other path gives it
// its rule). None, or (code, message, written).
nb::object StringDTypeParse(nb::handle x_obj, nb::handle dst_obj, int32_t dst_type, bool saturate,
                            int round_mode, size_t threads) {
#if TENSORCAST_NUMPY2_API
  if (!NumpyStringApi() || !PyArray_Check(x_obj.ptr())) return Fallback();
  auto* arr = reinterpret_cast<PyArrayObject*>(x_obj.ptr());
  PyArray_Descr* descr = PyArray_DESCR(arr);
  if (PyArray_NDIM(arr) != 1 || descr->type_num != NPY_VSTRING) return Fallback();
  const auto count = static_cast<size_t>(PyArray_DIM(arr, 0));
  const npy_intp stride = PyArray_STRIDE(arr, 0);
  const char* base = PyArray_BYTES(arr);
  Buffer dst;
  if (!dst.Acquire(dst_obj, true)) return Refused("the output", true);
  Status s = CheckNumeric("target type", dst_type);
  if (s.ok()) s = CheckRoundMode(round_mode);
  if (s.ok()) s = CheckBuffer("the output", Bytes(dst), static_cast<DataType>(dst_type), count);
  if (!s.ok()) return Result(s);
  std::vector<tensorcast::StringView> views;
  try {
    views.resize(count);
  } catch (const std::bad_alloc&) {
    return Error(StatusCode::kInternal, "out of memory for " + std::to_string(count) + " texts");
  }
  auto pool = PoolFor(threads);
  bool missing = false;
  {
    nb::gil_scoped_release release;
    // The allocator's lock is held while the loaded texts are read, and released before the
    // GIL is taken back.
    npy_string_allocator* allocator =
        NpyString_acquire_allocator(reinterpret_cast<PyArray_StringDTypeObject*>(descr));
    for (size_t i = 0; i < count; ++i) {
      npy_static_string text = {0, nullptr};
      const auto* packed = reinterpret_cast<const npy_packed_static_string*>(
          base + static_cast<npy_intp>(i) * stride);
      if (NpyString_load(allocator, packed, &text) != 0) {
        missing = true;
        break;
      }
      views[i] = tensorcast::StringView{text.buf, text.size};
    }
    if (!missing) {
      s = tensorcast::CastFromStringViews(views.data(), dst.data(), static_cast<DataType>(dst_type),
                                          count, Options(saturate, round_mode, pool));
    }
    NpyString_release_allocator(allocator);
  }
  if (missing) {
    PyErr_Clear();  // a load that failed (-1) may have set an error; the other path decides
    return Fallback();
  }
  return Result(s);
#else
  (void)x_obj, (void)dst_obj, (void)dst_type, (void)saturate, (void)round_mode, (void)threads;
  return Fallback();
#endif
}

// `count` numbers -> the texts of a new 1-D StringDType array `res` of `count` elements
// (np.empty's, all empty), written through numpy's C API. (-1,) when this path does not
// apply (no numpy 2 C API, res not such an array); None, or (code, message, written).
nb::object StringDTypeFormat(nb::handle src_obj, int32_t src_type, size_t count, nb::handle res_obj,
                             size_t threads) {
#if TENSORCAST_NUMPY2_API
  if (!NumpyStringApi() || !PyArray_Check(res_obj.ptr())) return Fallback();
  auto* arr = reinterpret_cast<PyArrayObject*>(res_obj.ptr());
  PyArray_Descr* descr = PyArray_DESCR(arr);
  if (PyArray_NDIM(arr) != 1 || descr->type_num != NPY_VSTRING ||
      static_cast<size_t>(PyArray_DIM(arr, 0)) != count || !PyArray_ISWRITEABLE(arr)) {
    return Fallback();
  }
  Buffer src;
  if (!src.Acquire(src_obj, false)) return Refused("the source", false);
  Status s = CheckNumeric("source type", src_type);
  if (s.ok()) s = CheckBuffer("the source", Bytes(src), static_cast<DataType>(src_type), count);
  if (!s.ok()) return Result(s);
  const npy_intp stride = PyArray_STRIDE(arr, 0);
  char* base = PyArray_BYTES(arr);
  auto pool = PoolFor(threads);
  bool pack_failed = false;
  {
    nb::gil_scoped_release release;
    // The texts packed into the array's strings, the allocator held.
    npy_string_allocator* allocator =
        NpyString_acquire_allocator(reinterpret_cast<PyArray_StringDTypeObject*>(descr));
    s = FormatInBlocks(
        src.data(), src_type, count, pool, [&](size_t i, const char* text, size_t len) {
          auto* packed =
              reinterpret_cast<npy_packed_static_string*>(base + static_cast<npy_intp>(i) * stride);
          pack_failed = NpyString_pack(allocator, packed, text, len) < 0;
          return !pack_failed;
        });
    NpyString_release_allocator(allocator);
  }
  if (pack_failed) {
    PyErr_Clear();
    return Error(StatusCode::kInternal, "numpy could not store a text (out of memory)");
  }
  return Result(s);
#else
  (void)src_obj, (void)src_type, (void)count, (void)res_obj, (void)threads;
  return Fallback();
#endif
}

nb::object SplitSizes(const std::vector<int64_t>& shape, int64_t axis, nb::handle split,
                      int64_t num_outputs) {
  tensorcast::SplitAttributes attrs;
  attrs.opset = 18;
  attrs.axis = axis;
  std::vector<int64_t> split_values;
  if (!split.is_none()) {
    if (!nb::try_cast(split, split_values)) {
      return Error(StatusCode::kInvalidArgument,
                   "split: the sizes must be a sequence of integers in the int64 range");
    }
    attrs.has_split = true;
    attrs.split = split_values.data();
    attrs.split_count = split_values.size();
    attrs.output_count = split_values.size();
  }
  if (num_outputs >= 0) {
    attrs.has_num_outputs = true;
    attrs.num_outputs = num_outputs;
    if (!attrs.has_split) attrs.output_count = static_cast<size_t>(num_outputs);
  }
  if (!attrs.has_split && !attrs.has_num_outputs) {
    return Error(StatusCode::kInvalidArgument, "split: give `split` (the sizes) or `num_outputs`");
  }
  if (attrs.output_count == 0) {
    return Error(StatusCode::kInvalidArgument, "split: at least one output is needed");
  }
  std::vector<int64_t> sizes(attrs.output_count);
  Status s = tensorcast::SplitSizes(attrs, shape.data(), shape.size(), sizes.data());
  if (!s.ok()) return Result(s);
  return nb::cast(sizes);
}

nb::object Split(nb::handle src_obj, int32_t type, const std::vector<int64_t>& shape, int64_t axis,
                 const std::vector<int64_t>& sizes, nb::handle outputs, size_t threads) {
  Buffer src;
  if (!src.Acquire(src_obj, false)) return Refused("the source", false);
  Status s = CheckNumeric("type", type);
  if (!s.ok()) return Result(s);
  const DataType t = static_cast<DataType>(type);
  const size_t rank = shape.size();
  if (rank == 0) return Error(StatusCode::kInvalidArgument, "split: the input has rank 0");
  if (axis < -static_cast<int64_t>(rank) || axis >= static_cast<int64_t>(rank)) {
    return Error(StatusCode::kInvalidArgument, "split: axis " + std::to_string(axis) +
                                                   " is outside [-" + std::to_string(rank) + ", " +
                                                   std::to_string(rank - 1) + "]");
  }
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
  // Elements of the source and of each output, overflow-checked (dimensions >= 0).
  auto elements = [&](int64_t axis_extent, size_t* n) -> bool {
    uint64_t total = 1;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t dim = d == a ? axis_extent : shape[d];
      if (dim < 0) return false;
      if (dim != 0 && total > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(dim))
        return false;
      total *= static_cast<uint64_t>(dim);
    }
    *n = static_cast<size_t>(total);
    return true;
  };
  size_t src_elements = 0;
  if (!elements(shape[a], &src_elements)) {
    return Error(StatusCode::kInvalidArgument, "split: a negative dimension or too many elements");
  }
  s = CheckBuffer("the source", Bytes(src), t, src_elements);
  if (!s.ok()) return Result(s);
  if (!nb::isinstance<nb::list>(outputs) || nb::len(outputs) != sizes.size()) {
    return Error(StatusCode::kInvalidArgument,
                 "split: outputs must be a list with one buffer per size");
  }
  std::vector<Buffer> buffers(sizes.size());
  std::vector<void*> pointers(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    size_t n = 0;
    if (!buffers[i].Acquire(outputs[i], true)) {
      return Error(StatusCode::kInvalidArgument,
                   "split: output " + std::to_string(i) + " is not a writable C-contiguous buffer");
    }
    if (sizes[i] < 0 || !elements(sizes[i], &n)) {
      return Error(StatusCode::kInvalidArgument,
                   "split: size " + std::to_string(i) + " is negative or too large");
    }
    s = CheckBuffer(("output " + std::to_string(i)).c_str(), Bytes(buffers[i]), t, n);
    if (!s.ok()) return Result(s);
    pointers[i] = buffers[i].data();
  }
  // No output may share a byte with the source or another output (the caller's out=).
  const auto overlap = [](const void* p, size_t n, const void* q, size_t m) {
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(q);
    return n != 0 && m != 0 && a < b + m && b < a + n;
  };
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t n = Bytes(buffers[i]);
    if (overlap(pointers[i], n, src.data(), Bytes(src))) {
      return Error(StatusCode::kInvalidArgument,
                   "split: out[" + std::to_string(i) + "] shares memory with x");
    }
    for (size_t j = 0; j < i; ++j) {
      if (overlap(pointers[i], n, pointers[j], Bytes(buffers[j]))) {
        return Error(StatusCode::kInvalidArgument, "split: out[" + std::to_string(i) +
                                                       "] shares memory with out[" +
                                                       std::to_string(j) + "]");
      }
    }
  }
  auto pool = PoolFor(threads);
  {
    nb::gil_scoped_release release;
    s = tensorcast::Split(src.data(), t, shape.data(), rank, axis, sizes.data(), sizes.size(),
                          pointers.data(), pool ? pool->runner() : nullptr);
  }
  return Result(s);
}

// numpy.empty, looked up when the module is imported (NB_MODULE) and kept.
nb::object& NumpyEmpty() {
  static nb::object* empty = new nb::object();
  return *empty;
}

// Split into new arrays: the sizes of SplitSizes, one numpy.empty(part shape, dtype) per
// part, then Split. For parts below the output cache's threshold (the package calls it
// then), in one call: a list of the parts, or (code, message, 0).
nb::object SplitNew(nb::handle src_obj, int32_t type, const std::vector<int64_t>& shape,
                    int64_t axis, nb::handle split, int64_t num_outputs, nb::handle dtype,
                    size_t threads) {
  nb::object sizes_obj = SplitSizes(shape, axis, split, num_outputs);
  if (nb::isinstance<nb::tuple>(sizes_obj)) return sizes_obj;
  const auto sizes = nb::cast<std::vector<int64_t>>(sizes_obj);
  const auto rank = static_cast<int64_t>(shape.size());
  if (rank == 0 || axis < -rank || axis >= rank) return SplitSizes(shape, axis, split, num_outputs);
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  nb::object empty = NumpyEmpty();
  nb::list parts;
  for (const int64_t size : sizes) {
    nb::list part_shape;
    for (size_t d = 0; d < shape.size(); ++d) part_shape.append(d == a ? size : shape[d]);
    parts.append(empty(nb::tuple(part_shape), dtype));
  }
  nb::object err = Split(src_obj, type, shape, axis, sizes, parts, threads);
  if (!err.is_none()) return err;
  return std::move(parts);
}

const char* KindName(tensorcast::TypeKind kind) {
  switch (kind) {
    case tensorcast::TypeKind::kFloat: return "float";
    case tensorcast::TypeKind::kSignedInt: return "signed_int";
    case tensorcast::TypeKind::kUnsignedInt: return "unsigned_int";
    case tensorcast::TypeKind::kBool: return "bool";
    case tensorcast::TypeKind::kString: return "string";
    case tensorcast::TypeKind::kComplex: return "complex";
    case tensorcast::TypeKind::kUndefined: break;
  }
  return "undefined";
}

const char* NanStyleName(tensorcast::NanStyle style) {
  switch (style) {
    case tensorcast::NanStyle::kIeee: return "ieee";
    case tensorcast::NanStyle::kFn: return "fn";
    case tensorcast::NanStyle::kFnuz: return "fnuz";
    case tensorcast::NanStyle::kE8M0: return "e8m0";
    case tensorcast::NanStyle::kNone: break;
  }
  return "none";
}

// The library's type facts table (lib/type_facts.h), one dict per code 0..kMaxDataTypeCode
// in code order, keyed by the column names of TypeFacts. kind and nan_style are lower-case
// names ("signed_int", "fnuz", ...); numpy_name is None for UNDEFINED.
nb::list TypeFactsRows() {
  nb::list rows;
  for (int32_t code = 0; code <= tensorcast::kMaxDataTypeCode; ++code) {
    const tensorcast::TypeFacts& f = tensorcast::Facts(static_cast<DataType>(code));
    nb::dict row;
    row["code"] = f.code;
    row["name"] = f.name;
    row["bits"] = f.bits;
    row["kind"] = KindName(f.kind);
    row["exponent_bits"] = f.exponent_bits;
    row["mantissa_bits"] = f.mantissa_bits;
    row["exponent_bias"] = f.exponent_bias;
    row["has_inf"] = f.has_inf;
    row["has_nan"] = f.has_nan;
    row["nan_style"] = NanStyleName(f.nan_style);
    row["packed"] = f.packed;
    row["cast_since"] = f.cast_since;
    row["numpy_name"] = f.numpy_name ? nb::object(nb::str(f.numpy_name)) : nb::none();
    rows.append(row);
  }
  return rows;
}

int ParseType(const std::string& text) {
  DataType t = DataType::kUndefined;
  if (!tensorcast::ParseDataType(text, &t).ok()) return 0;
  return static_cast<int>(t);
}

// --- QuantizeLinear / DequantizeLinear --------------------------------------------------------

// The node's attributes as the Python layer passes them (type codes 0: absent).
tensorcast::QuantizeAttributes QdqAttributes(int opset, int64_t axis, int64_t block_size,
                                             int32_t output_dtype, bool saturate,
                                             int32_t precision) {
  tensorcast::QuantizeAttributes a;
  a.opset = opset;
  a.axis = axis;
  a.block_size = block_size;
  a.output_dtype = static_cast<DataType>(output_dtype);
  a.saturate = saturate;
  a.precision = static_cast<DataType>(precision);
  return a;
}

// The element type of QuantizeLinear's y (zero_point_type 0: no zero point); the code, or
// (code, message, 0).
nb::object QuantizeOutputType(int opset, int64_t axis, int64_t block_size, int32_t output_dtype,
                              bool saturate, int32_t precision, int32_t zero_point_type) {
  DataType y = DataType::kUndefined;
  Status s = tensorcast::QuantizeLinearOutputType(
      QdqAttributes(opset, axis, block_size, output_dtype, saturate, precision),
      static_cast<DataType>(zero_point_type), &y);
  if (!s.ok()) return Result(s);
  return nb::int_(static_cast<int>(y));
}

// The element type of DequantizeLinear's y; the code, or (code, message, 0).
nb::object DequantizeOutputType(int opset, int64_t axis, int64_t block_size, int32_t output_dtype,
                                int32_t scale_type) {
  DataType y = DataType::kUndefined;
  Status s = tensorcast::DequantizeLinearOutputType(
      QdqAttributes(opset, axis, block_size, output_dtype, true, 0),
      static_cast<DataType>(scale_type), &y);
  if (!s.ok()) return Result(s);
  return nb::int_(static_cast<int>(y));
}

// One input tensor of a QDQ call: its buffer, type and shape, checked to hold the storage
// of its shape's elements (the library reads that many).
struct QdqInput {
  Buffer buffer;
  std::vector<int64_t> shape;
  tensorcast::TensorView view;

  Status Load(const char* what, nb::handle obj, int32_t type, const std::vector<int64_t>& dims) {
    if (!buffer.Acquire(obj, false)) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(what) + " must be a C-contiguous buffer");
    }
    Status s = CheckNumeric(what, type);
    if (!s.ok()) return s;
    shape = dims;
    size_t count = 0;
    s = ShapeCount(what, shape, &count);
    if (!s.ok()) return s;
    s = CheckBuffer(what, Bytes(buffer), static_cast<DataType>(type), count);
    if (!s.ok()) return s;
    view.data = buffer.data();
    view.type = static_cast<DataType>(type);
    view.shape = shape.empty() ? nullptr : shape.data();
    view.rank = shape.size();
    return Status();
  }

  // The elements of a shape: dimensions >= 0, the product within size_t.
  static Status ShapeCount(const char* what, const std::vector<int64_t>& dims, size_t* count) {
    size_t n = 1;
    for (int64_t d : dims) {
      if (d < 0 || __builtin_mul_overflow(n, static_cast<size_t>(d), &n)) {
        return Status(StatusCode::kInvalidArgument,
                      std::string(what) + ": a negative dimension or too many elements");
      }
    }
    *count = n;
    return Status();
  }
};

// QuantizeLinear (quantize) or DequantizeLinear into the caller's y buffer, which holds the
// storage of x's elements of y_type. zero_point None: absent. None, or (code, message, 0).
nb::object QuantizeDequantize(bool quantize, nb::handle x_obj, int32_t x_type,
                              const std::vector<int64_t>& x_shape, nb::handle scale_obj,
                              int32_t scale_type, const std::vector<int64_t>& scale_shape,
                              nb::handle zp_obj, int32_t zp_type,
                              const std::vector<int64_t>& zp_shape, nb::handle y_obj,
                              int32_t y_type, int opset, int64_t axis, int64_t block_size,
                              int32_t output_dtype, bool saturate, int32_t precision,
                              size_t threads) {
  QdqInput x, scale, zp;
  Status s = x.Load("x", x_obj, x_type, x_shape);
  if (s.ok()) s = scale.Load(quantize ? "y_scale" : "x_scale", scale_obj, scale_type, scale_shape);
  const bool has_zp = !zp_obj.is_none();
  if (s.ok() && has_zp) {
    s = zp.Load(quantize ? "y_zero_point" : "x_zero_point", zp_obj, zp_type, zp_shape);
  }
  Buffer y;
  if (s.ok() && !y.Acquire(y_obj, true)) return Refused("y", true);
  size_t count = 0;
  if (s.ok()) s = QdqInput::ShapeCount("x", x_shape, &count);
  if (s.ok()) s = CheckNumeric("y", y_type);
  if (s.ok()) s = CheckBuffer("y", Bytes(y), static_cast<DataType>(y_type), count);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  tensorcast::QuantizeAttributes a =
      QdqAttributes(opset, axis, block_size, output_dtype, saturate, precision);
  a.runner = pool ? pool->runner() : nullptr;
  {
    nb::gil_scoped_release release;
    const tensorcast::TensorView* z = has_zp ? &zp.view : nullptr;
    s = quantize ? tensorcast::QuantizeLinear(x.view, scale.view, z, y.data(),
                                              static_cast<DataType>(y_type), a)
                 : tensorcast::DequantizeLinear(x.view, scale.view, z, y.data(),
                                                static_cast<DataType>(y_type), a);
  }
  return Result(s);
}

// --- Block-scaled quantization: MX, NVFP4, absmax (tensorcast/block_scale.h) ----------------

// The calls of block-scaled quantization whose scales follow x's layout in blocks.
enum BlockOp : int {
  kQuantizeMxOp = 0,
  kDequantizeMxOp = 1,
  kQuantizeNvfp4Op = 2,
  kDequantizeNvfp4Op = 3,
};

// The library's block formats, one dict per format code from 1 up: code, name, element
// (the ONNX code of the codes' type), scale (the block scales' type) and block_size (the
// format's default).
nb::list BlockFormatRows() {
  nb::list rows;
  for (int32_t code = 1;; ++code) {
    const auto f = static_cast<tensorcast::BlockFormat>(code);
    const char* name = tensorcast::BlockFormatName(f);
    if (name == nullptr) break;
    nb::dict row;
    row["code"] = code;
    row["name"] = name;
    row["element"] = static_cast<int>(tensorcast::BlockFormatElementType(f));
    row["scale"] = static_cast<int>(tensorcast::BlockFormatScaleType(f));
    row["block_size"] = tensorcast::BlockFormatBlockSize(f);
    rows.append(row);
  }
  return rows;
}

tensorcast::BlockScaleOptions BlockOptions(int64_t axis, int64_t block_size, int32_t scale_rule,
                                           const tensorcast::Runner* runner) {
  tensorcast::BlockScaleOptions o;
  o.axis = axis;
  o.block_size = block_size;
  o.scale_rule = static_cast<tensorcast::ScaleRule>(scale_rule);
  o.runner = runner;
  return o;
}

// The call `op` on the tensor `x` (x of the quantizing calls, codes of the others) with no
// buffers: the library checks every argument before it reads or writes one, so this gives
// its own error for arguments that BlockScaleCount refused, under the call's name.
Status BlockCallWithoutBuffers(int op, tensorcast::TensorView x, int32_t format, int32_t y_type,
                               const tensorcast::BlockScaleOptions& o) {
  x.data = nullptr;
  const auto f = static_cast<tensorcast::BlockFormat>(format);
  const auto y = static_cast<DataType>(y_type);
  float g = 1.0f;
  switch (op) {
    case kQuantizeMxOp: return tensorcast::QuantizeMx(x, f, nullptr, nullptr, o);
    case kDequantizeMxOp: return tensorcast::DequantizeMx(x, nullptr, f, nullptr, y, o);
    case kQuantizeNvfp4Op: return tensorcast::QuantizeNvfp4(x, nullptr, nullptr, &g, false, o);
    case kDequantizeNvfp4Op: return tensorcast::DequantizeNvfp4(x, nullptr, 1.0f, nullptr, y, o);
    default: break;
  }
  return Status(StatusCode::kInvalidArgument, "block op " + std::to_string(op) + " is unknown");
}

// The block scales of x's shape: their shape (x's, dimension `axis` holding ceil(D /
// block_size) values) and their count (0 when x has no element, as BlockScaleCount says).
Status BlockScales(int op, const tensorcast::TensorView& x, int32_t format, int32_t y_type,
                   const tensorcast::BlockScaleOptions& o, std::vector<int64_t>* shape,
                   size_t* count) {
  const auto f = static_cast<tensorcast::BlockFormat>(format);
  Status s = tensorcast::BlockScaleCount(x.shape, x.rank, o, f, count);
  if (!s.ok()) {
    const Status own = BlockCallWithoutBuffers(op, x, format, y_type, o);
    return own.ok() ? s : own;
  }
  // BlockScaleCount accepted the axis (in [-rank, rank)) and the block size (>= 0).
  shape->assign(x.shape, x.shape + x.rank);
  const int64_t r = static_cast<int64_t>(x.rank);
  const size_t axis = static_cast<size_t>(o.axis < 0 ? o.axis + r : o.axis);
  const int64_t block = o.block_size == 0 ? tensorcast::BlockFormatBlockSize(f) : o.block_size;
  const int64_t dim = (*shape)[axis];
  (*shape)[axis] = dim / block + (dim % block != 0);
  return Status();
}

// The scales' shape of a block-scaled call (a list), or (code, message, 0).
nb::object BlockScaleShape(int op, int32_t x_type, const std::vector<int64_t>& x_shape,
                           int32_t format, int64_t axis, int64_t block_size, int32_t scale_rule,
                           int32_t y_type) {
  size_t n = 0;
  Status s = QdqInput::ShapeCount("x", x_shape, &n);
  if (!s.ok()) return Result(s);
  const tensorcast::TensorView x{nullptr, static_cast<DataType>(x_type),
                                 x_shape.empty() ? nullptr : x_shape.data(), x_shape.size()};
  std::vector<int64_t> shape;
  size_t count = 0;
  s = BlockScales(op, x, format, y_type, BlockOptions(axis, block_size, scale_rule, nullptr),
                  &shape, &count);
  if (!s.ok()) return Result(s);
  return nb::cast(shape);
}

// QuantizeMx (op kQuantizeMxOp) or QuantizeNvfp4 (kQuantizeNvfp4Op) of x into the caller's
// codes and scales buffers. NVFP4: `global_scale` is used when `global_scale_given`. None
// (MX) or the tensor scale as a float (NVFP4), or (code, message, 0).
nb::object QuantizeBlocks(int op, nb::handle x_obj, int32_t x_type,
                          const std::vector<int64_t>& x_shape, int32_t format, nb::handle codes_obj,
                          nb::handle scales_obj, int64_t axis, int64_t block_size,
                          int32_t scale_rule, float global_scale, bool global_scale_given,
                          size_t threads, nb::handle stats_obj) {
  QdqInput x;
  Status s = x.Load("x", x_obj, x_type, x_shape);
  if (!s.ok()) return Result(s);
  const auto f = static_cast<tensorcast::BlockFormat>(format);
  tensorcast::BlockScaleOptions o = BlockOptions(axis, block_size, scale_rule, nullptr);
  std::vector<int64_t> scale_shape;
  size_t count = 0;
  s = BlockScales(op, x.view, format, 0, o, &scale_shape, &count);
  if (!s.ok()) return Result(s);
  Buffer codes, scales;
  if (!codes.Acquire(codes_obj, true)) return Refused("codes", true);
  if (!scales.Acquire(scales_obj, true)) return Refused("scales", true);
  size_t elements = 0;
  s = QdqInput::ShapeCount("x", x_shape, &elements);
  // The codes: the storage of x's elements of the element type; the scales: one byte each.
  if (s.ok()) {
    s = CheckBuffer("codes", Bytes(codes), tensorcast::BlockFormatElementType(f), elements);
  }
  if (s.ok()) s = CheckBuffer("scales", Bytes(scales), DataType::kUint8, count);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  o.runner = pool ? pool->runner() : nullptr;
  tensorcast::CastStats st;
  if (!stats_obj.is_none()) o.stats = &st;
  float g = global_scale;
  {
    nb::gil_scoped_release release;
    if (op == kQuantizeNvfp4Op) {
      s = tensorcast::QuantizeNvfp4(x.view, codes.data(), scales.data(), &g, global_scale_given, o);
    } else {
      s = tensorcast::QuantizeMx(x.view, f, codes.data(), scales.data(), o);
    }
  }
  if (!s.ok()) return Result(s);
  if (o.stats != nullptr) StoreStats(stats_obj, st);
  if (op == kQuantizeNvfp4Op) return nb::float_(static_cast<double>(g));
  return nb::none();
}

// DequantizeMx (op kDequantizeMxOp) or DequantizeNvfp4 (kDequantizeNvfp4Op) of codes (the
// format's element type, packed) and the block scales into the caller's y buffer of y_type.
// None, or (code, message, 0).
nb::object DequantizeBlocks(int op, nb::handle codes_obj, int32_t codes_type,
                            const std::vector<int64_t>& codes_shape, nb::handle scales_obj,
                            int32_t format, float global_scale, nb::handle y_obj, int32_t y_type,
                            int64_t axis, int64_t block_size, size_t threads) {
  QdqInput codes;
  Status s = codes.Load("codes", codes_obj, codes_type, codes_shape);
  if (!s.ok()) return Result(s);
  tensorcast::BlockScaleOptions o = BlockOptions(axis, block_size, 0, nullptr);
  std::vector<int64_t> scale_shape;
  size_t count = 0;
  s = BlockScales(op, codes.view, format, y_type, o, &scale_shape, &count);
  if (!s.ok()) return Result(s);
  Buffer scales, y;
  if (!scales.Acquire(scales_obj, false)) return Refused("scales", false);
  if (!y.Acquire(y_obj, true)) return Refused("y", true);
  size_t elements = 0;
  s = QdqInput::ShapeCount("codes", codes_shape, &elements);
  if (s.ok()) s = CheckBuffer("scales", Bytes(scales), DataType::kUint8, count);
  if (s.ok()) s = CheckNumeric("y", y_type);
  if (s.ok()) s = CheckBuffer("y", Bytes(y), static_cast<DataType>(y_type), elements);
  if (!s.ok()) return Result(s);
  auto pool = PoolFor(threads);
  o.runner = pool ? pool->runner() : nullptr;
  const auto f = static_cast<tensorcast::BlockFormat>(format);
  {
    nb::gil_scoped_release release;
    if (op == kDequantizeNvfp4Op) {
      s = tensorcast::DequantizeNvfp4(codes.view, scales.data(), global_scale, y.data(),
                                      static_cast<DataType>(y_type), o);
    } else {
      s = tensorcast::DequantizeMx(codes.view, scales.data(), f, y.data(),
                                   static_cast<DataType>(y_type), o);
    }
  }
  return Result(s);
}

// The number of absmax scales of x: 1, or x.shape[axis] per channel. An axis the library
// refuses gives its own error (the call with no buffers, which checks before it touches one).
Status AbsmaxScaleCount(const tensorcast::TensorView& x, int32_t code_type,
                        const tensorcast::AbsmaxOptions& o, size_t* count) {
  *count = 1;
  if (!o.per_channel) return Status();
  const int64_t r = static_cast<int64_t>(x.rank);
  if (r == 0 || o.axis < -r || o.axis >= r) {
    tensorcast::TensorView none = x;
    none.data = nullptr;
    Status s =
        tensorcast::QuantizeAbsmax(none, static_cast<DataType>(code_type), nullptr, nullptr, o);
    if (s.ok()) s = Status(StatusCode::kInvalidArgument, "axis is outside x's rank");
    return s;
  }
  *count = static_cast<size_t>(x.shape[o.axis < 0 ? o.axis + r : o.axis]);
  return Status();
}

// The number of scales of QuantizeAbsmax (an int), or (code, message, 0).
nb::object AbsmaxScaleCountBinding(int32_t x_type, const std::vector<int64_t>& x_shape,
                                   int32_t code_type, bool per_channel, int64_t axis) {
  const tensorcast::TensorView x{nullptr, static_cast<DataType>(x_type),
                                 x_shape.empty() ? nullptr : x_shape.data(), x_shape.size()};
  tensorcast::AbsmaxOptions o;
  o.per_channel = per_channel;
  o.axis = axis;
  size_t count = 0;
  Status s = AbsmaxScaleCount(x, code_type, o, &count);
  if (!s.ok()) return Result(s);
  return nb::int_(count);
}

// QuantizeAbsmax of x into the caller's codes (INT8 or FLOAT8E4M3FN, one per element) and
// FLOAT scales. None, or (code, message, 0).
nb::object QuantizeAbsmaxBinding(nb::handle x_obj, int32_t x_type,
                                 const std::vector<int64_t>& x_shape, int32_t code_type,
                                 bool per_channel, int64_t axis, nb::handle codes_obj,
                                 nb::handle scales_obj, size_t threads, nb::handle stats_obj) {
  QdqInput x;
  Status s = x.Load("x", x_obj, x_type, x_shape);
  if (!s.ok()) return Result(s);
  tensorcast::AbsmaxOptions o;
  o.per_channel = per_channel;
  o.axis = axis;
  size_t count = 0;
  s = AbsmaxScaleCount(x.view, code_type, o, &count);
  if (!s.ok()) return Result(s);
  Buffer codes, scales;
  if (!codes.Acquire(codes_obj, true)) return Refused("codes", true);
  if (!scales.Acquire(scales_obj, true)) return Refused("scales", true);
  size_t elements = 0;
  s = QdqInput::ShapeCount("x", x_shape, &elements);
  if (s.ok()) s = CheckNumeric("codes", code_type);
  if (s.ok()) s = CheckBuffer("codes", Bytes(codes), static_cast<DataType>(code_type), elements);
  if (s.ok()) s = CheckBuffer("scales", Bytes(scales), DataType::kFloat, count);
  if (!s.ok()) return Result(s);
  // scales is a float buffer of the package's making (numpy float32), but a caller's
  // buffer need not be aligned: the library writes floats through the pointer.
  if (reinterpret_cast<uintptr_t>(scales.data()) % alignof(float) != 0) {
    return Refused("scales (aligned to 4 bytes)", true);
  }
  auto pool = PoolFor(threads);
  o.runner = pool ? pool->runner() : nullptr;
  tensorcast::CastStats st;
  if (!stats_obj.is_none()) o.stats = &st;
  {
    nb::gil_scoped_release release;
    s = tensorcast::QuantizeAbsmax(x.view, static_cast<DataType>(code_type), codes.data(),
                                   static_cast<float*>(scales.data()), o);
  }
  if (s.ok() && o.stats != nullptr) StoreStats(stats_obj, st);
  return Result(s);
}

}  // namespace

NB_MODULE(_tensorcast, m) {
  NumpyEmpty() = nb::module_::import_("numpy").attr("empty");
  m.doc() = "The C++ core of the tensorcast package (use the functions of `tensorcast` instead).";
  m.def("cast", &Cast, nb::arg("src"), nb::arg("src_type"), nb::arg("dst"), nb::arg("dst_type"),
        nb::arg("count"), nb::arg("saturate"), nb::arg("round_mode"), nb::arg("threads"),
        nb::arg("stats") = nb::none(),
        "Casts `count` elements between numeric buffers (statistics into `stats` unless None); "
        "None, or (code, message, written).");
  m.def(
      "pack6",
      [](nb::handle src, nb::handle dst, size_t count, size_t threads) {
        return Codes6(true, src, dst, count, threads);
      },
      nb::arg("src"), nb::arg("dst"), nb::arg("count"), nb::arg("threads"),
      "Packs `count` 6-bit codes (one per byte, low bits) into ONNX's layout; None, or (code, "
      "message, 0).");
  m.def(
      "unpack6",
      [](nb::handle src, nb::handle dst, size_t count, size_t threads) {
        return Codes6(false, src, dst, count, threads);
      },
      nb::arg("src"), nb::arg("dst"), nb::arg("count"), nb::arg("threads"),
      "Unpacks `count` 6-bit codes of ONNX's layout, one per byte; None, or (code, message, 0).");
  m.attr("OUTPUT_CACHE_MIN_BYTES") = tensorcast::tuning::kOutputCacheMinBytes;
  m.attr("OUTPUT_CACHE_BYTES") = tensorcast::tuning::kOutputCacheBytes;
  m.def("output_block", &OutputBlock, nb::arg("nbytes"),
        "A writable 1-D uint8 array of nbytes in a cached mapped block, or None (small, "
        "disabled, or no memory).");
  m.def(
      "set_output_cache", [](size_t max_bytes) { BlockCache::Get().SetLimit(max_bytes); },
      nb::arg("max_bytes"), "Sets the output cache's limit in bytes (0: no cache).");
  m.def(
      "output_cache_bytes", []() { return BlockCache::Get().Stats().first; },
      "The bytes the output cache holds now.");
  m.def("cast_from_strings", &CastFromStrings, nb::arg("texts"), nb::arg("dst"),
        nb::arg("dst_type"), nb::arg("saturate"), nb::arg("round_mode"), nb::arg("threads"),
        nb::arg("validity_out") = nb::none(),
        "Parses a list of str or bytes into a numeric buffer (with validity_out: bad texts "
        "become nulls, the output validity written there); None, or (code, message, written).");
  m.def("cast_from_arrow_strings", &CastFromArrowStrings, nb::arg("offsets"),
        nb::arg("offset_width"), nb::arg("data"), nb::arg("validity").none(), nb::arg("offset"),
        nb::arg("count"), nb::arg("dst"), nb::arg("dst_type"), nb::arg("null_zero"),
        nb::arg("saturate"), nb::arg("round_mode"), nb::arg("threads"),
        nb::arg("validity_out") = nb::none(),
        "Parses Arrow utf8 / large_utf8 buffers into a numeric buffer (with validity_out as "
        "cast_from_strings); None, or (code, message, written).");
  m.def("zero_nulls", &ZeroNulls, nb::arg("values"), nb::arg("itemsize"), nb::arg("validity"),
        nb::arg("offset"), nb::arg("count"),
        "Zeroes the elements whose Arrow validity bit is clear; None, or (code, message, 0).");
  m.def("cast_to_arrow_strings", &CastToArrowStrings, nb::arg("src"), nb::arg("src_type"),
        nb::arg("count"), nb::arg("offsets"), nb::arg("offset_width"), nb::arg("data"),
        nb::arg("threads"),
        "Formats numbers into Arrow offsets + data buffers; the bytes used, or (code, message, "
        "needed).");
  m.def("cast_from_fixed_strings", &CastFromFixedStrings, nb::arg("texts"), nb::arg("kind"),
        nb::arg("width"), nb::arg("count"), nb::arg("dst"), nb::arg("dst_type"),
        nb::arg("saturate"), nb::arg("round_mode"), nb::arg("threads"),
        nb::arg("validity_out") = nb::none(),
        "Parses numpy bytes_ ('S') or str_ ('U') texts of `width` units (with validity_out as "
        "cast_from_strings); None, or (code, message, written).");
  m.def("cast_to_fixed_strings", &CastToFixedStrings, nb::arg("src"), nb::arg("src_type"),
        nb::arg("count"), nb::arg("out"), nb::arg("threads"),
        "Formats numbers into a bytes_ buffer of 32 bytes per element; None, or (code, message, "
        "written).");
  m.def("split_sizes", &SplitSizes, nb::arg("shape"), nb::arg("axis"), nb::arg("split").none(),
        nb::arg("num_outputs"),
        "ONNX Split-18 sizes (num_outputs < 0: absent); a list, or (code, message, 0).");
  m.def("stringdtype_parse", &StringDTypeParse, nb::arg("x"), nb::arg("dst"), nb::arg("dst_type"),
        nb::arg("saturate"), nb::arg("round_mode"), nb::arg("threads"),
        "Parses a 1-D StringDType array through numpy's C API; None, (code, message, "
        "written), or (-1,): use another path.");
  m.def("stringdtype_format", &StringDTypeFormat, nb::arg("src"), nb::arg("src_type"),
        nb::arg("count"), nb::arg("res"), nb::arg("threads"),
        "Formats numbers into a new 1-D StringDType array through numpy's C API; None, "
        "(code, message, written), or (-1,): use another path.");
  m.def("split_new", &SplitNew, nb::arg("src"), nb::arg("type"), nb::arg("shape"), nb::arg("axis"),
        nb::arg("split").none(), nb::arg("num_outputs"), nb::arg("dtype"), nb::arg("threads"),
        "Split-18 sizes, new parts from numpy.empty and the split in one call; a list of the "
        "parts, or (code, message, 0).");
  m.def("split", &Split, nb::arg("src"), nb::arg("type"), nb::arg("shape"), nb::arg("axis"),
        nb::arg("sizes"), nb::arg("outputs"), nb::arg("threads"),
        "Splits a C-contiguous tensor into preallocated outputs; None, or (code, message, 0).");
  m.def("quantize_output_type", &QuantizeOutputType, nb::arg("opset"), nb::arg("axis"),
        nb::arg("block_size"), nb::arg("output_dtype"), nb::arg("saturate"), nb::arg("precision"),
        nb::arg("zero_point_type"),
        "The element type of QuantizeLinear's y (type codes 0: absent); the code, or (code, "
        "message, 0).");
  m.def("dequantize_output_type", &DequantizeOutputType, nb::arg("opset"), nb::arg("axis"),
        nb::arg("block_size"), nb::arg("output_dtype"), nb::arg("scale_type"),
        "The element type of DequantizeLinear's y (output_dtype 0: absent); the code, or (code, "
        "message, 0).");
  m.def(
      "quantize_linear",
      [](nb::handle x, int32_t x_type, const std::vector<int64_t>& x_shape, nb::handle scale,
         int32_t scale_type, const std::vector<int64_t>& scale_shape, nb::handle zero_point,
         int32_t zero_point_type, const std::vector<int64_t>& zero_point_shape, nb::handle y,
         int32_t y_type, int opset, int64_t axis, int64_t block_size, int32_t output_dtype,
         bool saturate, int32_t precision, size_t threads) {
        return QuantizeDequantize(true, x, x_type, x_shape, scale, scale_type, scale_shape,
                                  zero_point, zero_point_type, zero_point_shape, y, y_type, opset,
                                  axis, block_size, output_dtype, saturate, precision, threads);
      },
      nb::arg("x"), nb::arg("x_type"), nb::arg("x_shape"), nb::arg("scale"), nb::arg("scale_type"),
      nb::arg("scale_shape"), nb::arg("zero_point").none(), nb::arg("zero_point_type"),
      nb::arg("zero_point_shape"), nb::arg("y"), nb::arg("y_type"), nb::arg("opset"),
      nb::arg("axis"), nb::arg("block_size"), nb::arg("output_dtype"), nb::arg("saturate"),
      nb::arg("precision"), nb::arg("threads"),
      "QuantizeLinear of C-contiguous buffers (sub-byte types packed) into y; None, or (code, "
      "message, 0).");
  m.def(
      "dequantize_linear",
      [](nb::handle x, int32_t x_type, const std::vector<int64_t>& x_shape, nb::handle scale,
         int32_t scale_type, const std::vector<int64_t>& scale_shape, nb::handle zero_point,
         int32_t zero_point_type, const std::vector<int64_t>& zero_point_shape, nb::handle y,
         int32_t y_type, int opset, int64_t axis, int64_t block_size, int32_t output_dtype,
         size_t threads) {
        return QuantizeDequantize(false, x, x_type, x_shape, scale, scale_type, scale_shape,
                                  zero_point, zero_point_type, zero_point_shape, y, y_type, opset,
                                  axis, block_size, output_dtype, true, 0, threads);
      },
      nb::arg("x"), nb::arg("x_type"), nb::arg("x_shape"), nb::arg("scale"), nb::arg("scale_type"),
      nb::arg("scale_shape"), nb::arg("zero_point").none(), nb::arg("zero_point_type"),
      nb::arg("zero_point_shape"), nb::arg("y"), nb::arg("y_type"), nb::arg("opset"),
      nb::arg("axis"), nb::arg("block_size"), nb::arg("output_dtype"), nb::arg("threads"),
      "DequantizeLinear of C-contiguous buffers (sub-byte types packed) into y; None, or (code, "
      "message, 0).");
  m.def("block_formats", &BlockFormatRows,
        "The library's block formats, one dict per format code from 1 up (code, name, element, "
        "scale, block_size).");
  m.def("block_scale_shape", &BlockScaleShape, nb::arg("op"), nb::arg("x_type"), nb::arg("x_shape"),
        nb::arg("format"), nb::arg("axis"), nb::arg("block_size"), nb::arg("scale_rule"),
        nb::arg("y_type"),
        "The shape of the block scales of a block-scaled call (op 0 QuantizeMx, 1 DequantizeMx, "
        "2 QuantizeNvfp4, 3 DequantizeNvfp4); a list, or (code, message, 0).");
  m.def(
      "quantize_mx",
      [](nb::handle x, int32_t x_type, const std::vector<int64_t>& x_shape, int32_t format,
         nb::handle codes, nb::handle scales, int64_t axis, int64_t block_size, int32_t scale_rule,
         size_t threads, nb::handle stats) {
        return QuantizeBlocks(kQuantizeMxOp, x, x_type, x_shape, format, codes, scales, axis,
                              block_size, scale_rule, 0.0f, false, threads, stats);
      },
      nb::arg("x"), nb::arg("x_type"), nb::arg("x_shape"), nb::arg("format"), nb::arg("codes"),
      nb::arg("scales"), nb::arg("axis"), nb::arg("block_size"), nb::arg("scale_rule"),
      nb::arg("threads"), nb::arg("stats") = nb::none(),
      "QuantizeMx of a C-contiguous buffer into codes (packed) and FLOAT8E8M0 scales; None, or "
      "(code, message, 0).");
  m.def(
      "dequantize_mx",
      [](nb::handle codes, int32_t codes_type, const std::vector<int64_t>& codes_shape,
         nb::handle scales, int32_t format, nb::handle y, int32_t y_type, int64_t axis,
         int64_t block_size, size_t threads) {
        return DequantizeBlocks(kDequantizeMxOp, codes, codes_type, codes_shape, scales, format,
                                0.0f, y, y_type, axis, block_size, threads);
      },
      nb::arg("codes"), nb::arg("codes_type"), nb::arg("codes_shape"), nb::arg("scales"),
      nb::arg("format"), nb::arg("y"), nb::arg("y_type"), nb::arg("axis"), nb::arg("block_size"),
      nb::arg("threads"),
      "DequantizeMx of codes (packed) and FLOAT8E8M0 scales into y; None, or (code, message, "
      "0).");
  m.def(
      "quantize_nvfp4",
      [](nb::handle x, int32_t x_type, const std::vector<int64_t>& x_shape, nb::handle codes,
         nb::handle scales, int64_t axis, float global_scale, bool global_scale_given,
         size_t threads, nb::handle stats) {
        return QuantizeBlocks(kQuantizeNvfp4Op, x, x_type, x_shape,
                              static_cast<int32_t>(tensorcast::BlockFormat::kNvfp4), codes, scales,
                              axis, 0, 0, global_scale, global_scale_given, threads, stats);
      },
      nb::arg("x"), nb::arg("x_type"), nb::arg("x_shape"), nb::arg("codes"), nb::arg("scales"),
      nb::arg("axis"), nb::arg("global_scale"), nb::arg("global_scale_given"), nb::arg("threads"),
      nb::arg("stats") = nb::none(),
      "QuantizeNvfp4 into FLOAT4E2M1 codes (packed) and FLOAT8E4M3FN scales; the tensor scale "
      "(a float), or (code, message, 0).");
  m.def(
      "dequantize_nvfp4",
      [](nb::handle codes, int32_t codes_type, const std::vector<int64_t>& codes_shape,
         nb::handle scales, float global_scale, nb::handle y, int32_t y_type, int64_t axis,
         size_t threads) {
        return DequantizeBlocks(kDequantizeNvfp4Op, codes, codes_type, codes_shape, scales,
                                static_cast<int32_t>(tensorcast::BlockFormat::kNvfp4), global_scale,
                                y, y_type, axis, 0, threads);
      },
      nb::arg("codes"), nb::arg("codes_type"), nb::arg("codes_shape"), nb::arg("scales"),
      nb::arg("global_scale"), nb::arg("y"), nb::arg("y_type"), nb::arg("axis"), nb::arg("threads"),
      "DequantizeNvfp4 of FLOAT4E2M1 codes (packed), FLOAT8E4M3FN scales and the tensor scale "
      "into y; None, or (code, message, 0).");
  m.def("absmax_scale_count", &AbsmaxScaleCountBinding, nb::arg("x_type"), nb::arg("x_shape"),
        nb::arg("code_type"), nb::arg("per_channel"), nb::arg("axis"),
        "The number of scales of QuantizeAbsmax; an int, or (code, message, 0).");
  m.def("quantize_absmax", &QuantizeAbsmaxBinding, nb::arg("x"), nb::arg("x_type"),
        nb::arg("x_shape"), nb::arg("code_type"), nb::arg("per_channel"), nb::arg("axis"),
        nb::arg("codes"), nb::arg("scales"), nb::arg("threads"), nb::arg("stats") = nb::none(),
        "QuantizeAbsmax into codes (INT8 or FLOAT8E4M3FN) and FLOAT scales; None, or (code, "
        "message, 0).");
  m.def("type_facts", &TypeFactsRows,
        "The library's type facts, one dict per ONNX code from 0 (UNDEFINED) up, in code "
        "order.");
  m.def("parse_type", &ParseType, nb::arg("text"), "The ONNX code of a type name, or 0.");
  m.def(
      "type_name",
      [](int32_t code) {
        return std::string(tensorcast::DataTypeName(static_cast<DataType>(code)));
      },
      nb::arg("code"), "The ONNX name of a type code.");
  m.def("set_num_threads", &SetNumThreads, nb::arg("n"), "Sizes the package's default pool.");
  m.def("get_num_threads", &GetNumThreads, "The size of the package's default pool.");
  m.def(
      "active_target", []() { return std::string(tensorcast::ActiveTargetName()); },
      "The Highway target the kernels run on (e.g. AVX3_DL, NEON).");
  m.attr("VERSION") = TENSORCAST_VERSION_STRING;
}
