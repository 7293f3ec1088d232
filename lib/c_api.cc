// The C API (include/tensorcast/tensorcast_c.h) over the public C++ API. Built into the
// shared library tensorcast_c only. Every entry point is noexcept and catches
// everything: no C++ exception and no C++ type crosses the boundary.
#include "tensorcast/tensorcast_c.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "lib/check.h"
#include "lib/type_facts.h"
#include "tensorcast/block_scale.h"
#include "tensorcast/cast.h"
#include "tensorcast/data_type.h"
#include "tensorcast/quantize.h"
#include "tensorcast/split.h"
#include "tensorcast/stats.h"
#include "tensorcast/status.h"
#include "tensorcast/strings.h"

namespace {

namespace check = tensorcast::check;
using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast::RoundMode;
using tensorcast::Route;
using tensorcast::Status;
using tensorcast::StatusCode;

// The C codes are the C++ enumerators.
static_assert(TC_OK == static_cast<int>(StatusCode::kOk));
static_assert(TC_INVALID_ARGUMENT == static_cast<int>(StatusCode::kInvalidArgument));
static_assert(TC_UNSUPPORTED == static_cast<int>(StatusCode::kUnsupported));
static_assert(TC_PARSE_ERROR == static_cast<int>(StatusCode::kParseError));
static_assert(TC_OVERFLOW == static_cast<int>(StatusCode::kOverflow));
static_assert(TC_INTERNAL == static_cast<int>(StatusCode::kInternal));
static_assert(TC_BUFFER_TOO_SMALL == static_cast<int>(StatusCode::kBufferTooSmall));
static_assert(TC_ROUND_UP == static_cast<int>(RoundMode::kUp));
static_assert(TC_ROUND_DOWN == static_cast<int>(RoundMode::kDown));
static_assert(TC_ROUND_NEAREST == static_cast<int>(RoundMode::kNearest));
static_assert(TC_ROUTE_KERNEL == static_cast<int>(Route::kKernel));
static_assert(TC_ROUTE_TABLE == static_cast<int>(Route::kTable));
static_assert(TC_ROUTE_HUB == static_cast<int>(Route::kHub));
static_assert(TC_ROUTE_COPY == static_cast<int>(Route::kCopy));
static_assert(TC_ROUTE_STRINGS == static_cast<int>(Route::kStrings));

// The TC_TYPE_ constants are the rows of the type table (lib/type_facts.h), as the
// enumerators of DataType are (data_type.cc): TC_TYPE_<NAME> is the code of the row
// named NAME, and every code of the table has one. The switch has no default, so
// -Wswitch reports a tc_data_type constant missing from it.
#define TENSORCAST_C_TYPE(NAME) \
  case TC_TYPE_##NAME: return #NAME;
constexpr std::string_view CTypeName(tc_data_type type) {
  switch (type) {
    TENSORCAST_C_TYPE(UNDEFINED)
    TENSORCAST_C_TYPE(FLOAT)
    TENSORCAST_C_TYPE(UINT8)
    TENSORCAST_C_TYPE(INT8)
    TENSORCAST_C_TYPE(UINT16)
    TENSORCAST_C_TYPE(INT16)
    TENSORCAST_C_TYPE(INT32)
    TENSORCAST_C_TYPE(INT64)
    TENSORCAST_C_TYPE(STRING)
    TENSORCAST_C_TYPE(BOOL)
    TENSORCAST_C_TYPE(FLOAT16)
    TENSORCAST_C_TYPE(DOUBLE)
    TENSORCAST_C_TYPE(UINT32)
    TENSORCAST_C_TYPE(UINT64)
    TENSORCAST_C_TYPE(COMPLEX64)
    TENSORCAST_C_TYPE(COMPLEX128)
    TENSORCAST_C_TYPE(BFLOAT16)
    TENSORCAST_C_TYPE(FLOAT8E4M3FN)
    TENSORCAST_C_TYPE(FLOAT8E4M3FNUZ)
    TENSORCAST_C_TYPE(FLOAT8E5M2)
    TENSORCAST_C_TYPE(FLOAT8E5M2FNUZ)
    TENSORCAST_C_TYPE(UINT4)
    TENSORCAST_C_TYPE(INT4)
    TENSORCAST_C_TYPE(FLOAT4E2M1)
    TENSORCAST_C_TYPE(FLOAT8E8M0)
    TENSORCAST_C_TYPE(UINT2)
    TENSORCAST_C_TYPE(INT2)
    TENSORCAST_C_TYPE(FLOAT6E2M3)
    TENSORCAST_C_TYPE(FLOAT6E3M2)
  }
  return std::string_view();
}
#undef TENSORCAST_C_TYPE

constexpr bool CTypesMatchTable() {
  for (int code = 0; code <= TC_MAX_TYPE_CODE; ++code) {
    if (CTypeName(static_cast<tc_data_type>(code)) !=
        tensorcast::Facts(static_cast<DataType>(code)).name) {
      return false;
    }
  }
  return true;
}
static_assert(TC_MAX_TYPE_CODE == tensorcast::kMaxDataTypeCode);
static_assert(CTypesMatchTable(), "tc_data_type (tensorcast_c.h) and the type table disagree");

// Split of STRING moves tc_string_view objects bit for bit: as the valid type whose
// elements have the same size (no byte of the text is touched).
constexpr DataType kViewType =
    sizeof(tc_string_view) == 16 ? DataType::kComplex128 : DataType::kUint64;
static_assert(sizeof(tc_string_view) == 16 || sizeof(tc_string_view) == 8);
// tc_string_view arrays are passed to the C++ API as StringView arrays.
static_assert(sizeof(tc_string_view) == sizeof(tensorcast::StringView) &&
                  offsetof(tc_string_view, data) == offsetof(tensorcast::StringView, data) &&
                  offsetof(tc_string_view, size) == offsetof(tensorcast::StringView, size),
              "tc_string_view and StringView must have the same layout");
static_assert(TC_NULL_ERROR == static_cast<int>(tensorcast::NullPolicy::kError) &&
              TC_NULL_ZERO == static_cast<int>(tensorcast::NullPolicy::kZero));

// Fills `err` (if any). `message` need not be NUL-terminated.
int Fill(tc_error* err, int code, const char* message, size_t length,
         size_t elements_written) noexcept {
  if (err == nullptr) return code;
  err->code = code;
  err->elements_written = elements_written;
  err->message_length = length;
  if (err->message != nullptr && err->message_capacity > 0) {
    const size_t n = length < err->message_capacity - 1 ? length : err->message_capacity - 1;
    if (n > 0) std::memcpy(err->message, message, n);
    err->message[n] = '\0';
  }
  return code;
}

int Fail(tc_error* err, int code, const char* message) noexcept {
  return Fill(err, code, message, std::strlen(message), 0);
}

int Report(const Status& s, tc_error* err) noexcept {
  return Fill(err, static_cast<int>(s.code()), s.message().data(), s.message().size(),
              s.elements_written());
}

// CastLike's types (check::CastLikeTypes): TC_UNSUPPORTED for the FLOAT6 types.
int CheckCastLikeTypes(int32_t src_type, int32_t like_type, tc_error* err) {
  const Status s = tensorcast::check::CastLikeTypes(static_cast<DataType>(src_type),
                                                    static_cast<DataType>(like_type),
                                                    "tc_cast_like", "src_type", "like_type");
  return s.ok() ? TC_OK : Report(s, err);
}

// Runs `body` (returning int), turning any exception into TC_INTERNAL.
template <class Body>
int Guard(tc_error* err, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(err, TC_INTERNAL, "out of memory");
  } catch (...) {
    return Fail(err, TC_INTERNAL, "unexpected exception");
  }
}

// (text, length) with TC_NUL_TERMINATED; false when text is null with a length.
bool TextView(const char* text, size_t length, std::string_view* out) {
  if (text == nullptr) {
    if (length != 0 && length != TC_NUL_TERMINATED) return false;
    *out = std::string_view();
    return true;
  }
  *out = length == TC_NUL_TERMINATED ? std::string_view(text) : std::string_view(text, length);
  return true;
}

// Copies `text` into `out`, cut to N - 1 bytes, NUL-terminated.
template <size_t N>
void CopyText(const std::string& text, char (&out)[N]) {
  const size_t n = text.size() < N - 1 ? text.size() : N - 1;
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

// The compiled targets, listed on first use (the list does not change while the
// process runs); nullptr when listing them ran out of memory.
const std::vector<std::string>* TargetList() noexcept {
  try {
    static const std::vector<std::string> names = tensorcast::CompiledTargetNames();
    return &names;
  } catch (...) {
    return nullptr;
  }
}

int DescribeRouteImpl(int32_t src_type, int32_t dst_type, const char* target, size_t target_length,
                      tc_route_info* out, tc_error* err) {
  if (out == nullptr) return Fail(err, TC_INVALID_ARGUMENT, "out is null");
  std::string_view name;
  if (!TextView(target, target_length, &name)) {
    return Report(Status(StatusCode::kInvalidArgument,
                         "target: null with length " + std::to_string(target_length)),
                  err);
  }
  tensorcast::RouteInfo info;
  const Status s = tensorcast::DescribeRoute(static_cast<DataType>(src_type),
                                             static_cast<DataType>(dst_type), name, &info);
  if (!s.ok()) return Report(s, err);
  out->route = static_cast<int>(info.route);
  out->small_route = static_cast<int>(info.small_route);
  out->small_below = info.small_below;
  CopyText(info.detail, out->detail);
  CopyText(info.small_detail, out->small_detail);
  return Fill(err, TC_OK, "", 0, 0);
}

// Cast where one side is STRING: tc_string_view arrays and the tc_string_arena are the C++
// API's StringView arrays and StringArena (tensorcast/strings.h). The checks here come
// first, with the C API's wording: the types and options (as tc_cast reports them), the
// byte count of the views, and the null pointers (dst named as the arena it must be).
int CastStrings(const void* src, DataType st, void* dst, DataType dt, size_t count,
                const CastOptions& options, tc_error* err) {
  // Types and options alone (count 0 validates them and touches nothing).
  Status s = tensorcast::Cast(nullptr, st, nullptr, dt, 0, options);
  if (!s.ok()) return Report(s, err);
  const bool to_string = dt == DataType::kString;
  if (count > SIZE_MAX / sizeof(tc_string_view)) {
    return Report(check::BytesOverflowError(DataType::kString, count), err);
  }
  if (!check::IsBuffer(src, count)) return Report(check::NullBufferError("src", count), err);
  if (!check::IsBuffer(dst, count)) {
    return Report(check::NullBufferError(to_string ? "dst (tc_string_arena*)" : "dst", count), err);
  }
  if (!to_string) {
    return Report(tensorcast::CastFromStringViews(static_cast<const tensorcast::StringView*>(src),
                                                  dst, dt, count, options),
                  err);
  }
  auto* arena = static_cast<tc_string_arena*>(dst);
  tensorcast::StringArena out;
  if (arena != nullptr) {
    out.data = arena->data;
    out.capacity = arena->capacity;
    out.views = reinterpret_cast<tensorcast::StringView*>(arena->views);
  }
  s = tensorcast::CastToStringArena(src, st, arena != nullptr ? &out : nullptr, count, options);
  if (arena != nullptr && (s.ok() || s.code() == StatusCode::kBufferTooSmall)) {
    arena->size = out.size;
  }
  return Report(s, err);
}

int CastWithOptions(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
                    const CastOptions& options, tc_error* err);

int CastImpl(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
             int saturate, int round_mode, tc_error* err) {
  CastOptions options;
  options.saturate = saturate != 0;
  // Any int is a value of the enum (fixed underlying type); Cast rejects those outside 0..2.
  options.round_mode = static_cast<RoundMode>(round_mode);
  return CastWithOptions(src, src_type, dst, dst_type, count, options, err);
}

// The caller's tc_runner as a tensorcast::Runner kept in *storage (NULL: no runner).
const tensorcast::Runner* ToRunner(const tc_runner* in, tensorcast::Runner* storage) {
  if (in == nullptr) return nullptr;
  storage->opaque = in->opaque;
  storage->run = in->run;
  return storage;
}

// A struct from a newer caller (struct_size larger than this library's): an argument
// error naming the argument and both sizes.
int StructTooLarge(const char* arg, const char* type, size_t size, size_t ours, tc_error* err) {
  const std::string m = std::string(arg) + "->struct_size " + std::to_string(size) +
                        " is larger than this library's " + type + " (" + std::to_string(ours) +
                        " bytes)";
  return Fill(err, TC_INVALID_ARGUMENT, m.data(), m.size(), 0);
}

// tc_cast_stats is CastStats field for field (static_asserts below).
tensorcast::CastStats* ToStats(tc_cast_stats* s) {
  return reinterpret_cast<tensorcast::CastStats*>(s);
}

// tc_options (NULL: the defaults; a smaller struct_size: defaults for the fields it
// lacks) into CastOptions; the runner is copied into *runner, which must outlive the call.
int ReadOptions(const tc_options* in, CastOptions* out, tensorcast::Runner* runner, tc_error* err) {
  *out = CastOptions();
  if (in == nullptr) return TC_OK;
  const size_t size = in->struct_size;
  if (size > sizeof(tc_options)) {
    return StructTooLarge("options", "tc_options", size, sizeof(tc_options), err);
  }
  const auto has = [size](size_t offset, size_t field) { return size >= offset + field; };
  if (has(offsetof(tc_options, saturate), sizeof(int))) out->saturate = in->saturate != 0;
  if (has(offsetof(tc_options, round_mode), sizeof(int))) {
    out->round_mode = static_cast<RoundMode>(in->round_mode);
  }
  if (has(offsetof(tc_options, runner), sizeof(const tc_runner*))) {
    out->runner = ToRunner(in->runner, runner);
  }
  if (has(offsetof(tc_options, stats), sizeof(tc_cast_stats*))) out->stats = ToStats(in->stats);
  return TC_OK;
}

int CastWithOptions(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
                    const CastOptions& options, tc_error* err) {
  const auto st = static_cast<DataType>(src_type);
  const auto dt = static_cast<DataType>(dst_type);
  if (st != DataType::kString && dt != DataType::kString) {
    return Report(tensorcast::Cast(src, st, dst, dt, count, options), err);
  }
  return CastStrings(src, st, dst, dt, count, options, err);
}

// A Split error; for STRING (split as views under a stand-in type), messages about byte
// counts name the stand-in type: say STRING instead.
int ReportSplit(const Status& s, DataType type, tc_error* err) {
  if (type != DataType::kString) return Report(s, err);
  std::string m = s.message();
  const std::string stand_in = tensorcast::DataTypeName(kViewType);
  for (size_t at = m.find(stand_in); at != std::string::npos; at = m.find(stand_in, at)) {
    m.replace(at, stand_in.size(), "STRING");
  }
  return Fill(err, static_cast<int>(s.code()), m.data(), m.size(), 0);
}

// tc_quantize_options into QuantizeAttributes (as ReadOptions).
int ReadQuantizeOptions(const tc_quantize_options* in, tensorcast::QuantizeAttributes* out,
                        tensorcast::Runner* runner, tc_error* err) {
  *out = tensorcast::QuantizeAttributes();
  if (in == nullptr) return TC_OK;
  const size_t size = in->struct_size;
  if (size > sizeof(tc_quantize_options)) {
    return StructTooLarge("options", "tc_quantize_options", size, sizeof(tc_quantize_options), err);
  }
  const auto has = [size](size_t offset, size_t field) { return size >= offset + field; };
  if (has(offsetof(tc_quantize_options, opset), sizeof(int))) out->opset = in->opset;
  if (has(offsetof(tc_quantize_options, axis), sizeof(int64_t))) out->axis = in->axis;
  if (has(offsetof(tc_quantize_options, block_size), sizeof(int64_t))) {
    out->block_size = in->block_size;
  }
  if (has(offsetof(tc_quantize_options, output_dtype), sizeof(int32_t))) {
    out->output_dtype = static_cast<DataType>(in->output_dtype);
  }
  if (has(offsetof(tc_quantize_options, saturate), sizeof(int))) out->saturate = in->saturate != 0;
  if (has(offsetof(tc_quantize_options, precision), sizeof(int32_t))) {
    out->precision = static_cast<DataType>(in->precision);
  }
  if (has(offsetof(tc_quantize_options, runner), sizeof(const tc_runner*))) {
    out->runner = ToRunner(in->runner, runner);
  }
  return TC_OK;
}

tensorcast::TensorView ToView(const tc_tensor& t) {
  tensorcast::TensorView v;
  v.data = t.data;
  v.type = static_cast<DataType>(t.type);
  v.shape = t.shape;
  v.rank = t.rank;
  return v;
}

using QdqFunction = Status (*)(const tensorcast::TensorView&, const tensorcast::TensorView&,
                               const tensorcast::TensorView*, void*, DataType,
                               const tensorcast::QuantizeAttributes&);

int QuantizeCall(QdqFunction f, const char* name, const tc_tensor* x, const tc_tensor* scale,
                 const tc_tensor* zero_point, void* y, int32_t y_type,
                 const tc_quantize_options* options, tc_error* err) {
  tensorcast::QuantizeAttributes attrs;
  tensorcast::Runner runner;
  const int code = ReadQuantizeOptions(options, &attrs, &runner, err);
  if (code != TC_OK) return code;
  if (x == nullptr || scale == nullptr) {
    const std::string m = std::string(name) + ": " + (x == nullptr ? "x" : "scale") + " is null";
    return Fill(err, TC_INVALID_ARGUMENT, m.data(), m.size(), 0);
  }
  tensorcast::TensorView zp;
  if (zero_point != nullptr) zp = ToView(*zero_point);
  return Report(f(ToView(*x), ToView(*scale), zero_point != nullptr ? &zp : nullptr, y,
                  static_cast<DataType>(y_type), attrs),
                err);
}

// tc_quantize_linear_output_type / tc_dequantize_linear_output_type: the output type that
// `f` gives for the options and the zero point's (or scale's) type.
using OutputTypeFunction = Status (*)(const tensorcast::QuantizeAttributes&, DataType, DataType*);

int OutputTypeCall(OutputTypeFunction f, const tc_quantize_options* options, int32_t type,
                   int32_t* y_type, tc_error* err) {
  tensorcast::QuantizeAttributes attrs;
  tensorcast::Runner runner;
  const int code = ReadQuantizeOptions(options, &attrs, &runner, err);
  if (code != TC_OK) return code;
  if (y_type == nullptr) return Report(check::NullOutputError("y_type"), err);
  DataType t = DataType::kUndefined;
  const Status s = f(attrs, static_cast<DataType>(type), &t);
  if (s.ok()) *y_type = static_cast<int32_t>(t);
  return Report(s, err);
}

// tc_block_scale_options into BlockScaleOptions (as ReadOptions).
int ReadBlockScaleOptions(const tc_block_scale_options* in, tensorcast::BlockScaleOptions* out,
                          tensorcast::Runner* runner, tc_error* err) {
  *out = tensorcast::BlockScaleOptions();
  if (in == nullptr) return TC_OK;
  const size_t size = in->struct_size;
  if (size > sizeof(tc_block_scale_options)) {
    return StructTooLarge("options", "tc_block_scale_options", size, sizeof(tc_block_scale_options),
                          err);
  }
  const auto has = [size](size_t offset, size_t field) { return size >= offset + field; };
  if (has(offsetof(tc_block_scale_options, axis), sizeof(int64_t))) out->axis = in->axis;
  if (has(offsetof(tc_block_scale_options, block_size), sizeof(int64_t))) {
    out->block_size = in->block_size;
  }
  if (has(offsetof(tc_block_scale_options, scale_rule), sizeof(int32_t))) {
    out->scale_rule = static_cast<tensorcast::ScaleRule>(in->scale_rule);
  }
  if (has(offsetof(tc_block_scale_options, runner), sizeof(const tc_runner*))) {
    out->runner = ToRunner(in->runner, runner);
  }
  if (has(offsetof(tc_block_scale_options, stats), sizeof(tc_cast_stats*))) {
    out->stats = ToStats(in->stats);
  }
  return TC_OK;
}

// A null tensor argument of a block-scale call.
int NullTensor(const char* fn, const char* argument, tc_error* err) {
  const std::string m = std::string(fn) + ": " + argument + " is null";
  return Fill(err, TC_INVALID_ARGUMENT, m.data(), m.size(), 0);
}

#define TC_SAME_OFFSET(field) \
  (offsetof(tensorcast::CastStats, field) == offsetof(tc_cast_stats, field))
static_assert(sizeof(tensorcast::CastStats) == sizeof(tc_cast_stats) && TC_SAME_OFFSET(count) &&
                  TC_SAME_OFFSET(nan_count) && TC_SAME_OFFSET(inf_count) &&
                  TC_SAME_OFFSET(saturated) && TC_SAME_OFFSET(flushed) && TC_SAME_OFFSET(amax) &&
                  TC_SAME_OFFSET(sum_squared_error) && TC_SAME_OFFSET(sum_squared_signal) &&
                  TC_SAME_OFFSET(error_count),
              "tc_cast_stats and tensorcast::CastStats must have the same layout");
#undef TC_SAME_OFFSET
static_assert(sizeof(tensorcast::Runner) == sizeof(tc_runner) &&
                  offsetof(tc_runner, run) == sizeof(void*),
              "tc_runner and tensorcast::Runner must have the same layout");

}  // namespace

extern "C" {

TC_API uint32_t tc_version(void) { return TENSORCAST_VERSION_NUMBER; }

TC_API const char* tc_version_string(void) { return TENSORCAST_VERSION_STRING; }

TC_API int tc_cast(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
                   int saturate, int round_mode, tc_error* err) {
  return Guard(err, [&] {
    return CastImpl(src, src_type, dst, dst_type, count, saturate, round_mode, err);
  });
}

TC_API int tc_cast_like(const void* src, int32_t src_type, void* dst, int32_t like_type,
                        size_t count, int saturate, int round_mode, tc_error* err) {
  // CastLike is Cast to like_type, for the types CastLike's opsets list.
  return Guard(err, [&] {
    const int code = CheckCastLikeTypes(src_type, like_type, err);
    if (code != TC_OK) return code;
    return CastImpl(src, src_type, dst, like_type, count, saturate, round_mode, err);
  });
}

TC_API int tc_cast_ex(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
                      const tc_options* options, tc_error* err) {
  return Guard(err, [&] {
    CastOptions o;
    tensorcast::Runner runner;
    const int code = ReadOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    return CastWithOptions(src, src_type, dst, dst_type, count, o, err);
  });
}

TC_API int tc_cast_like_ex(const void* src, int32_t src_type, void* dst, int32_t like_type,
                           size_t count, const tc_options* options, tc_error* err) {
  return Guard(err, [&] {
    const int code = CheckCastLikeTypes(src_type, like_type, err);
    if (code != TC_OK) return code;
    return tc_cast_ex(src, src_type, dst, like_type, count, options, err);
  });
}

TC_API tc_thread_pool* tc_thread_pool_create(size_t num_threads) {
  try {
    return reinterpret_cast<tc_thread_pool*>(new tensorcast::ThreadPool(num_threads));
  } catch (...) {
    return nullptr;
  }
}

TC_API void tc_thread_pool_destroy(tc_thread_pool* pool) {
  delete reinterpret_cast<tensorcast::ThreadPool*>(pool);
}

// Reads a tc_arrow_strings of any struct_size up to the current one.
static int ReadArrowStrings(const tc_arrow_strings* src, tensorcast::ArrowStrings* a,
                            tc_error* err) {
  if (src == nullptr) return Fail(err, TC_INVALID_ARGUMENT, "src (tc_arrow_strings*) is null");
  const size_t size = src->struct_size;
  if (size > sizeof(tc_arrow_strings)) {
    return StructTooLarge("src", "tc_arrow_strings", size, sizeof(tc_arrow_strings), err);
  }
  const auto has = [size](size_t offset, size_t field) { return size >= offset + field; };
  if (has(offsetof(tc_arrow_strings, offsets), sizeof(void*))) a->offsets = src->offsets;
  if (has(offsetof(tc_arrow_strings, offset_width), sizeof(int))) {
    a->offset_width = src->offset_width;
  }
  if (has(offsetof(tc_arrow_strings, data), sizeof(void*))) a->data = src->data;
  if (has(offsetof(tc_arrow_strings, validity), sizeof(void*))) a->validity = src->validity;
  if (has(offsetof(tc_arrow_strings, offset), sizeof(int64_t))) a->offset = src->offset;
  if (has(offsetof(tc_arrow_strings, null_policy), sizeof(int))) {
    a->null_policy = static_cast<tensorcast::NullPolicy>(src->null_policy);
  }
  return TC_OK;
}

TC_API int tc_cast_from_arrow_strings(const tc_arrow_strings* src, void* dst, int32_t dst_type,
                                      size_t count, const tc_options* options, tc_error* err) {
  return Guard(err, [&] {
    CastOptions o;
    tensorcast::Runner runner;
    int code = ReadOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    tensorcast::ArrowStrings a;
    code = ReadArrowStrings(src, &a, err);
    if (code != TC_OK) return code;
    return Report(
        tensorcast::CastFromArrowStrings(a, dst, static_cast<DataType>(dst_type), count, o), err);
  });
}

TC_API int tc_try_cast_from_arrow_strings(const tc_arrow_strings* src, void* dst, int32_t dst_type,
                                          size_t count, tc_try_cast_nulls* nulls,
                                          const tc_options* options, tc_error* err) {
  return Guard(err, [&] {
    CastOptions o;
    tensorcast::Runner runner;
    int code = ReadOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    tensorcast::ArrowStrings a;
    code = ReadArrowStrings(src, &a, err);
    if (code != TC_OK) return code;
    if (nulls == nullptr)
      return Fail(err, TC_INVALID_ARGUMENT, "nulls (tc_try_cast_nulls*) is null");
    if (nulls->struct_size != sizeof(tc_try_cast_nulls)) {
      const std::string m =
          "nulls->struct_size " + std::to_string(nulls->struct_size) +
          " (expected sizeof(tc_try_cast_nulls) = " + std::to_string(sizeof(tc_try_cast_nulls)) +
          ")";
      return Fail(err, TC_INVALID_ARGUMENT, m.c_str());
    }
    tensorcast::TryCastNulls n;
    n.validity = nulls->validity;
    const tensorcast::Status s =
        tensorcast::TryCastFromArrowStrings(a, dst, static_cast<DataType>(dst_type), count, &n, o);
    if (s.ok()) {
      nulls->error_count = n.error_count;
      nulls->first_error = n.first_error;
    }
    return Report(s, err);
  });
}

TC_API int tc_cast_to_arrow_strings(const void* src, int32_t src_type, tc_arrow_strings_out* dst,
                                    size_t count, const tc_options* options, tc_error* err) {
  return Guard(err, [&] {
    CastOptions o;
    tensorcast::Runner runner;
    const int code = ReadOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    if (dst == nullptr)
      return Fail(err, TC_INVALID_ARGUMENT, "dst (tc_arrow_strings_out*) is null");
    if (dst->struct_size != sizeof(tc_arrow_strings_out)) {
      const std::string m = "dst->struct_size " + std::to_string(dst->struct_size) +
                            " (expected sizeof(tc_arrow_strings_out) = " +
                            std::to_string(sizeof(tc_arrow_strings_out)) + ")";
      return Fill(err, TC_INVALID_ARGUMENT, m.data(), m.size(), 0);
    }
    tensorcast::ArrowStringsOut out;
    out.offsets = dst->offsets;
    out.offset_width = dst->offset_width;
    out.data = dst->data;
    out.data_capacity = dst->data_capacity;
    const Status s =
        tensorcast::CastToArrowStrings(src, static_cast<DataType>(src_type), &out, count, o);
    if (s.ok() || s.code() == StatusCode::kBufferTooSmall) dst->data_size = out.data_size;
    return Report(s, err);
  });
}

TC_API const tc_runner* tc_thread_pool_runner(tc_thread_pool* pool) {
  if (pool == nullptr) return nullptr;
  // tensorcast::Runner and tc_runner have the same members in the same order (checked
  // below), so the pool's Runner is its tc_runner.
  return reinterpret_cast<const tc_runner*>(
      reinterpret_cast<tensorcast::ThreadPool*>(pool)->runner());
}

TC_API int tc_check_cast_opset(int opset, int32_t from_type, int32_t to_type, int cast_like,
                               tc_error* err) {
  return Guard(err, [&] {
    return Report(tensorcast::CheckCastOpset(opset, static_cast<DataType>(from_type),
                                             static_cast<DataType>(to_type), cast_like != 0),
                  err);
  });
}

TC_API int tc_split(const void* src, int32_t type, const int64_t* shape, size_t rank, int64_t axis,
                    const int64_t* sizes, size_t num_outputs, void* const* outputs, tc_error* err) {
  return Guard(err, [&] {
    return tc_split_ex(src, type, shape, rank, axis, sizes, num_outputs, outputs, nullptr, err);
  });
}

TC_API int tc_split_ex(const void* src, int32_t type, const int64_t* shape, size_t rank,
                       int64_t axis, const int64_t* sizes, size_t num_outputs, void* const* outputs,
                       const tc_runner* runner, tc_error* err) {
  return Guard(err, [&] {
    tensorcast::Runner storage;
    const tensorcast::Runner* rp = ToRunner(runner, &storage);
    const auto t = static_cast<DataType>(type);
    const DataType as = t == DataType::kString ? kViewType : t;
    Status s = tensorcast::Split(src, as, shape, rank, axis, sizes, num_outputs, outputs, rp);
    if (s.ok()) return Fill(err, TC_OK, "", 0, 0);
    return ReportSplit(s, t, err);
  });
}

TC_API int tc_split_sizes(const tc_split_attributes* attrs, const int64_t* shape, size_t rank,
                          int64_t* sizes_out, tc_error* err) {
  return Guard(err, [&] {
    if (attrs == nullptr) return Fail(err, TC_INVALID_ARGUMENT, "attrs is null");
    tensorcast::SplitAttributes a;
    a.opset = attrs->opset;
    a.axis = attrs->axis;
    a.has_split = attrs->has_split != 0;
    a.split = attrs->split;
    a.split_count = attrs->split_count;
    a.has_num_outputs = attrs->has_num_outputs != 0;
    a.num_outputs = attrs->num_outputs;
    a.output_count = attrs->output_count;
    return Report(tensorcast::SplitSizes(a, shape, rank, sizes_out), err);
  });
}

TC_API int tc_split_sizes_from_num_outputs(int64_t dim, size_t num_outputs, int64_t* sizes_out,
                                           tc_error* err) {
  return Guard(err, [&] {
    return Report(tensorcast::SplitSizesFromNumOutputs(dim, num_outputs, sizes_out), err);
  });
}

TC_API int tc_split_version(int opset) { return tensorcast::SplitVersion(opset); }

TC_API const char* tc_type_name(int32_t type) {
  const auto t = static_cast<DataType>(type);
  return tensorcast::IsValidDataType(t) ? tensorcast::DataTypeName(t) : nullptr;
}

TC_API int tc_parse_type(const char* text, size_t length, int32_t* out, tc_error* err) {
  return Guard(err, [&] {
    std::string_view view;
    if (!TextView(text, length, &view)) return Fail(err, TC_INVALID_ARGUMENT, "text is null");
    if (out == nullptr) return Fail(err, TC_INVALID_ARGUMENT, "out is null");
    DataType t = DataType::kUndefined;
    Status s = tensorcast::ParseDataType(view, &t);
    if (s.ok()) *out = static_cast<int32_t>(t);
    return Report(s, err);
  });
}

TC_API int tc_bit_width(int32_t type) { return tensorcast::BitWidth(static_cast<DataType>(type)); }

TC_API int tc_storage_bytes(int32_t type, size_t count, size_t* bytes, tc_error* err) {
  return Guard(err, [&] {
    if (bytes == nullptr) return Fail(err, TC_INVALID_ARGUMENT, "bytes is null");
    if (type != TC_TYPE_STRING) {
      return Report(tensorcast::CheckedStorageBytes(static_cast<DataType>(type), count, bytes),
                    err);
    }
    size_t n = 0;
    if (__builtin_mul_overflow(count, sizeof(tc_string_view), &n)) {
      const std::string m = "byte count of " + std::to_string(count) +
                            " STRING elements (tc_string_view) overflows size_t";
      return Fill(err, TC_OVERFLOW, m.data(), m.size(), 0);
    }
    *bytes = n;
    return Fill(err, TC_OK, "", 0, 0);
  });
}

TC_API int tc_parse_round_mode(const char* text, size_t length, int* out, tc_error* err) {
  return Guard(err, [&] {
    std::string_view view;
    if (!TextView(text, length, &view)) return Fail(err, TC_INVALID_ARGUMENT, "text is null");
    if (out == nullptr) return Fail(err, TC_INVALID_ARGUMENT, "out is null");
    RoundMode mode = RoundMode::kUp;
    Status s = tensorcast::ParseRoundMode(view, &mode);
    if (s.ok()) *out = static_cast<int>(mode);
    return Report(s, err);
  });
}

TC_API const char* tc_round_mode_name(int round_mode) {
  if (round_mode < TC_ROUND_UP || round_mode > TC_ROUND_NEAREST) return nullptr;
  return tensorcast::RoundModeName(static_cast<RoundMode>(round_mode));
}

TC_API const char* tc_status_name(int status) {
  if (status == TC_BUFFER_TOO_SMALL) return "BUFFER_TOO_SMALL";
  if (status < TC_OK || status > TC_INTERNAL) return nullptr;
  return tensorcast::StatusCodeName(static_cast<StatusCode>(status));
}

TC_API const char* tc_active_target(void) { return tensorcast::ActiveTargetName(); }

TC_API size_t tc_compiled_target_count(void) {
  const std::vector<std::string>* targets = TargetList();
  return targets == nullptr ? 0 : targets->size();
}

TC_API const char* tc_compiled_target_name(size_t index) {
  const std::vector<std::string>* targets = TargetList();
  if (targets == nullptr || index >= targets->size()) return nullptr;
  return (*targets)[index].c_str();
}

TC_API const char* tc_route_name(int route) {
  if (route < TC_ROUTE_KERNEL || route > TC_ROUTE_STRINGS) return "invalid";
  return tensorcast::RouteName(static_cast<Route>(route));
}

TC_API int tc_describe_route(int32_t src_type, int32_t dst_type, const char* target,
                             size_t target_length, tc_route_info* out, tc_error* err) {
  return Guard(
      err, [&] { return DescribeRouteImpl(src_type, dst_type, target, target_length, out, err); });
}

TC_API int tc_quantize_linear(const tc_tensor* x, const tc_tensor* scale,
                              const tc_tensor* zero_point, void* y, int32_t y_type,
                              const tc_quantize_options* options, tc_error* err) {
  return Guard(err, [&] {
    return QuantizeCall(tensorcast::QuantizeLinear, "QuantizeLinear", x, scale, zero_point, y,
                        y_type, options, err);
  });
}

TC_API int tc_dequantize_linear(const tc_tensor* x, const tc_tensor* scale,
                                const tc_tensor* zero_point, void* y, int32_t y_type,
                                const tc_quantize_options* options, tc_error* err) {
  return Guard(err, [&] {
    return QuantizeCall(tensorcast::DequantizeLinear, "DequantizeLinear", x, scale, zero_point, y,
                        y_type, options, err);
  });
}

TC_API int tc_quantize_linear_output_type(const tc_quantize_options* options,
                                          int32_t zero_point_type, int32_t* y_type, tc_error* err) {
  return Guard(err, [&] {
    return OutputTypeCall(tensorcast::QuantizeLinearOutputType, options, zero_point_type, y_type,
                          err);
  });
}

TC_API int tc_dequantize_linear_output_type(const tc_quantize_options* options, int32_t scale_type,
                                            int32_t* y_type, tc_error* err) {
  return Guard(err, [&] {
    return OutputTypeCall(tensorcast::DequantizeLinearOutputType, options, scale_type, y_type, err);
  });
}

TC_API const char* tc_block_format_name(int32_t format) {
  return tensorcast::BlockFormatName(static_cast<tensorcast::BlockFormat>(format));
}

TC_API int32_t tc_block_format_element_type(int32_t format) {
  return static_cast<int32_t>(
      tensorcast::BlockFormatElementType(static_cast<tensorcast::BlockFormat>(format)));
}

TC_API int32_t tc_block_format_scale_type(int32_t format) {
  return static_cast<int32_t>(
      tensorcast::BlockFormatScaleType(static_cast<tensorcast::BlockFormat>(format)));
}

TC_API int tc_block_scale_count(const int64_t* shape, size_t rank, int32_t format,
                                const tc_block_scale_options* options, size_t* count,
                                tc_error* err) {
  return Guard(err, [&] {
    tensorcast::BlockScaleOptions o;
    tensorcast::Runner runner;
    const int code = ReadBlockScaleOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    return Report(tensorcast::BlockScaleCount(shape, rank, o,
                                              static_cast<tensorcast::BlockFormat>(format), count),
                  err);
  });
}

TC_API int tc_quantize_mx(const tc_tensor* x, int32_t format, void* codes, void* scales,
                          const tc_block_scale_options* options, tc_error* err) {
  return Guard(err, [&] {
    tensorcast::BlockScaleOptions o;
    tensorcast::Runner runner;
    const int code = ReadBlockScaleOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    if (x == nullptr) return NullTensor("QuantizeMx", "x", err);
    return Report(tensorcast::QuantizeMx(ToView(*x), static_cast<tensorcast::BlockFormat>(format),
                                         codes, scales, o),
                  err);
  });
}

TC_API int tc_dequantize_mx(const tc_tensor* codes, const void* scales, int32_t format, void* y,
                            int32_t y_type, const tc_block_scale_options* options, tc_error* err) {
  return Guard(err, [&] {
    tensorcast::BlockScaleOptions o;
    tensorcast::Runner runner;
    const int code = ReadBlockScaleOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    if (codes == nullptr) return NullTensor("DequantizeMx", "codes", err);
    return Report(tensorcast::DequantizeMx(ToView(*codes), scales,
                                           static_cast<tensorcast::BlockFormat>(format), y,
                                           static_cast<DataType>(y_type), o),
                  err);
  });
}

TC_API int tc_quantize_nvfp4(const tc_tensor* x, void* codes, void* scales, float* global_scale,
                             int global_scale_given, const tc_block_scale_options* options,
                             tc_error* err) {
  return Guard(err, [&] {
    tensorcast::BlockScaleOptions o;
    tensorcast::Runner runner;
    const int code = ReadBlockScaleOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    if (x == nullptr) return NullTensor("QuantizeNvfp4", "x", err);
    return Report(tensorcast::QuantizeNvfp4(ToView(*x), codes, scales, global_scale,
                                            global_scale_given != 0, o),
                  err);
  });
}

TC_API int tc_dequantize_nvfp4(const tc_tensor* codes, const void* scales, float global_scale,
                               void* y, int32_t y_type, const tc_block_scale_options* options,
                               tc_error* err) {
  return Guard(err, [&] {
    tensorcast::BlockScaleOptions o;
    tensorcast::Runner runner;
    const int code = ReadBlockScaleOptions(options, &o, &runner, err);
    if (code != TC_OK) return code;
    if (codes == nullptr) return NullTensor("DequantizeNvfp4", "codes", err);
    return Report(tensorcast::DequantizeNvfp4(ToView(*codes), scales, global_scale, y,
                                              static_cast<DataType>(y_type), o),
                  err);
  });
}

TC_API int tc_quantize_absmax(const tc_tensor* x, int32_t code_type, int per_channel, int64_t axis,
                              void* codes, float* scales, const tc_runner* runner,
                              tc_cast_stats* stats, tc_error* err) {
  return Guard(err, [&] {
    if (x == nullptr) return NullTensor("QuantizeAbsmax", "x", err);
    tensorcast::Runner r;
    tensorcast::AbsmaxOptions o;
    o.per_channel = per_channel != 0;
    o.axis = axis;
    o.runner = ToRunner(runner, &r);
    o.stats = ToStats(stats);
    return Report(
        tensorcast::QuantizeAbsmax(ToView(*x), static_cast<DataType>(code_type), codes, scales, o),
        err);
  });
}

}  // extern "C"
