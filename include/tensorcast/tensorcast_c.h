/* tensorcast/tensorcast_c.h: the C API of tensorcast, a stable ABI for C and for FFI
 * users (Python ctypes, Rust, Go, ...). Plain C99; usable from C++ too.
 *
 * Library: the functions live in the shared library tensorcast_c (libtensorcast_c.so,
 * CMake target tensorcast::tensorcast_c, pkg-config module tensorcast_c). It is built
 * whatever BUILD_SHARED_LIBS says, contains the C++ library, and exports only the tc_
 * symbols, so it can be dlopen()ed on its own. The C++ library (tensorcast::tensorcast)
 * does not contain these functions: link tensorcast_c to use them.
 *
 *   #include <tensorcast/tensorcast_c.h>
 *   float src[2] = {1.0f, 448.0f};
 *   uint8_t dst[2];
 *   char msg[256];
 *   tc_error err = TC_ERROR_INIT(msg, sizeof msg);
 *   if (tc_cast(src, TC_TYPE_FLOAT, dst, TC_TYPE_FLOAT8E4M3FN, 2, 1, TC_ROUND_UP, &err) != TC_OK)
 *     fprintf(stderr, "%s: %s\n", tc_status_name(err.code), msg);
 *   // dst = {0x38, 0x7E}
 *
 * Conventions (every function):
 * - Element types are int32_t ONNX TensorProto.DataType codes (tc_data_type below; the
 *   same values as tensorcast::DataType). Numeric buffers hold the library's storage:
 *   little-endian, INT4/UINT4/FLOAT4E2M1 packed two per byte and INT2/UINT2 four per
 *   byte, element 0 in the low bits, zero padding in a last partial byte; BOOL is one
 *   byte (0 or 1) per element. tc_storage_bytes() gives the size of a buffer.
 * - STRING elements: see "Strings" below. No C++ type crosses this interface.
 * - Status: functions that can fail return a tc_status code (TC_OK = 0) as int; the
 *   codes are those of tensorcast::StatusCode plus the C-only TC_BUFFER_TOO_SMALL.
 * - Errors: every such function takes an optional `tc_error* err` (NULL: no details).
 *   It receives the code, the number of elements written before a bad string element
 *   (TC_PARSE_ERROR; 0 otherwise) and, when err->message is not NULL and
 *   err->message_capacity > 0, the message in the caller's buffer: cut to
 *   message_capacity - 1 bytes and always NUL-terminated ("" on success).
 *   err->message_length is the full length of the message, so a cut can be detected.
 * - Never throws, aborts or prints. Out of memory inside the library is TC_INTERNAL.
 *   Argument errors are detected before anything is written.
 * - Reentrant and thread-safe: no mutable global state other than caches built once, on
 *   first use, under a lock (the route plan of each Highway target, the list of compiled
 *   targets); callers own every buffer.
 * - Text arguments are (pointer, length) pairs; a length of TC_NUL_TERMINATED means
 *   the text is NUL-terminated.
 *
 * Strings (STRING = 8):
 * - Inputs are arrays of tc_string_view {data, size}: the bytes need not be
 *   NUL-terminated, data may be NULL when size is 0. The library only reads them during
 *   the call.
 * - tc_cast/tc_cast_like to STRING write into a caller-owned tc_string_arena (pass its
 *   address as `dst`): the text of element i is copied into arena->data, followed by a
 *   NUL byte, and arena->views[i] points at it (size without the NUL). arena->size
 *   receives the bytes used. When the arena is too small the call returns
 *   TC_BUFFER_TOO_SMALL, sets arena->size to the bytes required and writes nothing
 *   else: allocate that much and call again (capacity 0 with data NULL is a valid size
 *   query). The views point into the caller's arena; nothing has to be freed. No
 *   number's text is longer than 32 bytes: an arena of at least 33 bytes per element is
 *   filled in one pass, a smaller one is measured first (about 1.7x the time).
 * - tc_split of STRING copies the views themselves (16 bytes each on 64-bit systems):
 *   the outputs point into the same bytes as the source views, no text is copied, so
 *   the source bytes must outlive the outputs.
 *
 * Versioning: TENSORCAST_VERSION_MAJOR/MINOR/PATCH (tensorcast/version.h) are the
 * version of the headers, tc_version() that of the library loaded at run time. Within
 * one major version (while the major version is 0: one minor version) functions and
 * types may be added, but no existing signature, struct layout or constant changes.
 */
#ifndef TENSORCAST_TENSORCAST_C_H_
#define TENSORCAST_TENSORCAST_C_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorcast/version.h"

#if defined(_WIN32)
#if defined(TENSORCAST_C_BUILDING)
#define TC_API __declspec(dllexport)
#else
#define TC_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define TC_API __attribute__((visibility("default")))
#else
#define TC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ONNX TensorProto.DataType codes. Functions take them as int32_t. */
typedef enum tc_data_type {
  TC_TYPE_UNDEFINED = 0,
  TC_TYPE_FLOAT = 1,
  TC_TYPE_UINT8 = 2,
  TC_TYPE_INT8 = 3,
  TC_TYPE_UINT16 = 4,
  TC_TYPE_INT16 = 5,
  TC_TYPE_INT32 = 6,
  TC_TYPE_INT64 = 7,
  TC_TYPE_STRING = 8, /* tc_string_view elements (tc_string_arena as a Cast target) */
  TC_TYPE_BOOL = 9,   /* one byte per element, 0 or 1 */
  TC_TYPE_FLOAT16 = 10,
  TC_TYPE_DOUBLE = 11,
  TC_TYPE_UINT32 = 12,
  TC_TYPE_UINT64 = 13,
  TC_TYPE_COMPLEX64 = 14,  /* Split only: Cast does not accept complex types */
  TC_TYPE_COMPLEX128 = 15, /* Split only */
  TC_TYPE_BFLOAT16 = 16,
  TC_TYPE_FLOAT8E4M3FN = 17,
  TC_TYPE_FLOAT8E4M3FNUZ = 18,
  TC_TYPE_FLOAT8E5M2 = 19,
  TC_TYPE_FLOAT8E5M2FNUZ = 20,
  TC_TYPE_UINT4 = 21,      /* packed two per byte, element 2k in the low nibble */
  TC_TYPE_INT4 = 22,       /* packed two per byte, two's complement */
  TC_TYPE_FLOAT4E2M1 = 23, /* packed two per byte */
  TC_TYPE_FLOAT8E8M0 = 24,
  TC_TYPE_UINT2 = 25,      /* packed four per byte, element 0 in bits 0-1 */
  TC_TYPE_INT2 = 26,       /* packed four per byte, two's complement */
  TC_TYPE_FLOAT6E2M3 = 27, /* packed four in three bytes: element i in bits [6i, 6i + 6) */
  TC_TYPE_FLOAT6E3M2 = 28  /* packed four in three bytes */
} tc_data_type;

#define TC_MAX_TYPE_CODE 28

/* Status codes, returned as int: the values of tensorcast::StatusCode. */
typedef enum tc_status {
  TC_OK = 0,
  TC_INVALID_ARGUMENT = 1, /* null pointer, unknown type code, bad option, bad Split sizes */
  TC_UNSUPPORTED = 2,      /* a type or pair the operation does not accept (complex in Cast) */
  TC_PARSE_ERROR = 3,      /* a string element that is not a number; see elements_written */
  TC_OVERFLOW = 4,         /* a byte count that does not fit in size_t */
  TC_INTERNAL = 5,         /* out of memory, or a bug */
  TC_BUFFER_TOO_SMALL = 6  /* an output for texts too small: a tc_string_arena (see arena->size)
                              or Arrow data (see data_size) */
} tc_status;

/* Cast-24 `round_mode`, for FLOAT8E8M0 targets (ignored by other targets). */
typedef enum tc_round_mode {
  TC_ROUND_UP = 0,
  TC_ROUND_DOWN = 1,
  TC_ROUND_NEAREST = 2
} tc_round_mode;

/* Length argument meaning "the text is NUL-terminated". */
#define TC_NUL_TERMINATED ((size_t)-1)

/* Error details, owned by the caller. Set message/message_capacity (or use
 * TC_ERROR_INIT); the library fills in the rest on every call that takes it. */
typedef struct tc_error {
  int code;                /* out: the returned status */
  size_t elements_written; /* out: TC_PARSE_ERROR: elements converted before the bad one */
  size_t message_length;   /* out: length of the full message, without the NUL */
  char* message;           /* in: buffer for the message, or NULL */
  size_t message_capacity; /* in: bytes at message, NUL included */
} tc_error;

#define TC_ERROR_INIT(buffer, capacity) \
  { TC_OK, 0, 0, (buffer), (capacity) }

/* One string element: `size` bytes at `data` (no NUL needed; data may be NULL if size 0). */
typedef struct tc_string_view {
  const char* data;
  size_t size;
} tc_string_view;

/* Caller-owned output of a Cast to STRING (see "Strings" above). */
typedef struct tc_string_arena {
  char* data;            /* in: byte buffer (may be NULL when capacity is 0) */
  size_t capacity;       /* in: bytes at data */
  tc_string_view* views; /* in: array of `count` views, filled in on success */
  size_t size;           /* out: bytes used (TC_OK) or required (TC_BUFFER_TOO_SMALL) */
} tc_string_arena;

/* ---- Version ---------------------------------------------------------------- */

/* The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 -> 100). */
TC_API uint32_t tc_version(void);
/* "MAJOR.MINOR.PATCH", static storage. */
TC_API const char* tc_version_string(void);

/* ---- Cast / CastLike -------------------------------------------------------- */

/* ONNX Cast (Cast-28 semantics, see README.md): converts `count` elements of `src_type`
 * at `src` into `dst_type` at `dst`. saturate: non-zero = true (float8 targets).
 * round_mode: a tc_round_mode (FLOAT8E8M0 targets; validated for every target).
 * STRING: src is an array of `count` tc_string_view; dst is a tc_string_arena* whose
 * views array has `count` entries. Numeric src and dst must not overlap unless they
 * are the same pointer with the same type.
 * Errors: TC_INVALID_ARGUMENT (unknown type code, round_mode outside 0..2, src or dst
 * NULL with count > 0, a view with NULL data and size > 0, an arena with NULL views, or
 * NULL data and capacity > 0, overlapping buffers), TC_UNSUPPORTED (complex types),
 * TC_OVERFLOW (byte count), TC_PARSE_ERROR (a string that is not a number: elements
 * before it are written, err->elements_written says how many), TC_BUFFER_TOO_SMALL. */
TC_API int tc_cast(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
                   int saturate, int round_mode, tc_error* err);

/* ONNX CastLike: Cast to the element type of a second tensor, `like_type` (its values
 * and shape are not used). round_mode is honoured. Same buffers and errors as tc_cast;
 * TC_UNSUPPORTED for the FLOAT6 types (Cast-28; CastLike's newest opset is 25). */
TC_API int tc_cast_like(const void* src, int32_t src_type, void* dst, int32_t like_type,
                        size_t count, int saturate, int round_mode, tc_error* err);

/* ---- Parallel calls ---------------------------------------------------------- */

/* A task of a parallel call: task(task_ctx, index) for one index in [0, num_tasks). */
typedef void (*tc_task_fn)(void* task_ctx, size_t index);

/* A caller-supplied parallel-for. tensorcast cuts a large call into independent tasks
 * (chunks starting on cache lines and whole bytes of packed types) and hands them to
 * run(); calls below a size where threads do not pay (1 MiB of source + destination,
 * 4096 STRING elements) run on the calling thread without calling it. Results are the
 * same bits as on one thread. */
typedef struct tc_runner {
  void* opaque;
  /* Runs task(task_ctx, i) once for every i in [0, num_tasks), on any threads, in any
     order; returns when every task it started has finished; non-zero = it could not
     run them all (tensorcast then runs every task itself on the calling thread; tasks
     are idempotent, and the call succeeds). */
  int (*run)(void* opaque, size_t num_tasks, tc_task_fn task, void* task_ctx);
} tc_runner;

/* Statistics of a conversion, filled in on request (tensorcast/stats.h has the
 * definitions): each element's exact source value x against the exact value y its output
 * represents; sums in double, per chunk of 4096 elements in index order (the same bits for
 * any runner). */
typedef struct tc_cast_stats {
  uint64_t count;            /* elements */
  uint64_t nan_count;        /* NaN inputs */
  uint64_t inf_count;        /* +-Inf inputs */
  uint64_t saturated;        /* finite inputs outside the output's range */
  uint64_t flushed;          /* non-zero finite inputs whose output is zero */
  double amax;               /* the largest finite |x| */
  double sum_squared_error;  /* sum of (y - x)^2 over finite x with finite y */
  double sum_squared_signal; /* sum of x^2 over the same elements */
  uint64_t error_count;      /* those elements */
} tc_cast_stats;

/* Options of tc_cast_ex / tc_cast_like_ex. NULL means TC_OPTIONS_INIT. A smaller
 * struct_size (an older caller) takes the defaults for the fields it lacks; a larger one
 * is TC_INVALID_ARGUMENT. */
typedef struct tc_options {
  size_t struct_size; /* sizeof(tc_options), so the struct can grow */
  int saturate;
  int round_mode;
  const tc_runner* runner; /* NULL: run on the calling thread only */
  /* Non-NULL (numeric pairs; not in place): filled in with the conversion's statistics,
   * one more pass over the source and the output; NULL: nothing is computed. */
  tc_cast_stats* stats;
} tc_options;

#define TC_OPTIONS_INIT \
  { sizeof(tc_options), 1, TC_ROUND_UP, NULL, NULL }

/* tc_cast and tc_cast_like with options, a runner among them. With a runner, a
 * TC_PARSE_ERROR still names the first bad element in index order with every element
 * before it written; elements after it are unspecified (as on one thread). */
TC_API int tc_cast_ex(const void* src, int32_t src_type, void* dst, int32_t dst_type, size_t count,
                      const tc_options* options, tc_error* err);
TC_API int tc_cast_like_ex(const void* src, int32_t src_type, void* dst, int32_t like_type,
                           size_t count, const tc_options* options, tc_error* err);

/* ---- Arrow strings ----------------------------------------------------------- */

/* What a null element of an Arrow string array becomes in tc_cast_from_arrow_strings. */
typedef enum tc_null_policy {
  TC_NULL_ERROR = 0, /* TC_PARSE_ERROR naming the element (elements before it written) */
  TC_NULL_ZERO = 1   /* the all-zero code (0, 0.0, False; FLOAT8E8M0: code 0, 2^-127); the
                        caller keeps the validity bitmap */
} tc_null_policy;

/* Arrow utf8 (offset_width 4) / large_utf8 (offset_width 8). Element i is
   data[offsets[offset + i], offsets[offset + i + 1]); validity: Arrow bitmap, bit
   (offset + i) set = element i present; NULL = all present. Offsets must be >= 0 and
   non-decreasing (checked before anything is written: TC_INVALID_ARGUMENT naming the
   element). A smaller struct_size takes the defaults of TC_ARROW_STRINGS_INIT for the
   fields it lacks; a larger one is TC_INVALID_ARGUMENT. */
typedef struct tc_arrow_strings {
  size_t struct_size; /* sizeof(tc_arrow_strings), so the struct can grow */
  const void* offsets;
  int offset_width;
  const char* data;
  const uint8_t* validity;
  int64_t offset;  /* the Arrow array's offset (sliced arrays), in elements */
  int null_policy; /* TC_NULL_ERROR (0, default): a null is an error naming its index;
                      TC_NULL_ZERO: a null writes 0 (the caller keeps the bitmap) */
} tc_arrow_strings;

#define TC_ARROW_STRINGS_INIT \
  { sizeof(tc_arrow_strings), NULL, 4, NULL, NULL, 0, TC_NULL_ERROR }

/* Arrow strings -> `count` elements of the numeric dst_type at dst, with the rules of
 * tc_cast from STRING (options NULL: TC_OPTIONS_INIT). Zero-copy: the texts are read in
 * place. Errors as tc_cast_ex, and TC_PARSE_ERROR for a null under TC_NULL_ERROR. */
TC_API int tc_cast_from_arrow_strings(const tc_arrow_strings* src, void* dst, int32_t dst_type,
                                      size_t count, const tc_options* options, tc_error* err);

/* What tc_try_cast_from_arrow_strings writes besides the numbers. A struct_size other than
 * sizeof(tc_try_cast_nulls) is TC_INVALID_ARGUMENT. */
typedef struct tc_try_cast_nulls {
  size_t struct_size; /* sizeof(tc_try_cast_nulls) */
  uint8_t* validity;  /* in: ceil(count / 8) bytes, or NULL for the counts only; written from
                         bit 0 (LSB first, as Arrow): bit i set when element i is a number,
                         clear when it is null or not a number */
  size_t error_count; /* out: the texts that are not numbers (nulls not counted) */
  size_t first_error; /* out: the index of the first of them, SIZE_MAX if none */
} tc_try_cast_nulls;

#define TC_TRY_CAST_NULLS_INIT \
  { sizeof(tc_try_cast_nulls), NULL, 0, SIZE_MAX }

/* SQL's TRY_CAST: as tc_cast_from_arrow_strings, but each element that is null or not a
 * number is written as the all-zero code and cleared in nulls->validity, never an error
 * (src->null_policy is ignored: a null stays a null). The numbers are those
 * tc_cast_from_arrow_strings writes, the same for any runner. Argument errors as
 * tc_cast_from_arrow_strings, and nulls NULL: TC_INVALID_ARGUMENT. */
TC_API int tc_try_cast_from_arrow_strings(const tc_arrow_strings* src, void* dst, int32_t dst_type,
                                          size_t count, tc_try_cast_nulls* nulls,
                                          const tc_options* options, tc_error* err);

/* The output of tc_cast_to_arrow_strings: count + 1 offsets (the first is 0) and the
 * texts back to back in data. A struct_size other than sizeof(tc_arrow_strings_out) is
 * TC_INVALID_ARGUMENT. */
typedef struct tc_arrow_strings_out {
  size_t struct_size;   /* sizeof(tc_arrow_strings_out) */
  void* offsets;        /* in: count + 1 entries of offset_width bytes */
  int offset_width;     /* in: 4 (utf8) or 8 (large_utf8) */
  char* data;           /* in */
  size_t data_capacity; /* in */
  size_t data_size;     /* out: bytes used, or required (TC_BUFFER_TOO_SMALL) */
} tc_arrow_strings_out;

/* `count` elements of the numeric src_type -> Arrow strings (numpy str() spellings, as
 * tc_cast to STRING). Too small a data_capacity: TC_BUFFER_TOO_SMALL with data_size = the
 * bytes required and nothing else written (data NULL with capacity 0 is a size query).
 * offset_width 4 and more than INT32_MAX bytes of text: TC_OVERFLOW, never a wrapped
 * offset. */
TC_API int tc_cast_to_arrow_strings(const void* src, int32_t src_type, tc_arrow_strings_out* dst,
                                    size_t count, const tc_options* options, tc_error* err);

/* A thread pool that implements tc_runner: threads in total, the caller included; 0
 * means min(the CPUs of this process's affinity mask, OMP_NUM_THREADS when set). NULL
 * when out of memory. Threads start on first use; one call's tasks run at a time; a call
 * from inside one of the pool's tasks runs inline; after fork() the child's pool starts
 * new threads. Destroy it when no call uses it any more. */
typedef struct tc_thread_pool tc_thread_pool;
TC_API tc_thread_pool* tc_thread_pool_create(size_t num_threads);
TC_API void tc_thread_pool_destroy(tc_thread_pool* pool);
/* The pool's runner, valid until the pool is destroyed. */
TC_API const tc_runner* tc_thread_pool_runner(tc_thread_pool* pool);

/* Checks that Cast (cast_like = 0) or CastLike (non-zero) of `opset` accepts the pair:
 * TC_UNSUPPORTED for a type the opset lacks or an opset outside Cast 1-28 / CastLike
 * 15-25, TC_INVALID_ARGUMENT for an unknown type code. */
TC_API int tc_check_cast_opset(int opset, int32_t from_type, int32_t to_type, int cast_like,
                               tc_error* err);

/* ---- Split ------------------------------------------------------------------ */

/* ONNX Split: splits `src` (element type `type`, shape shape[0..rank)) along `axis`
 * (negative counts from the back) into `num_outputs` tensors whose extents along the
 * axis are sizes[0..num_outputs). outputs[i] is a caller-owned buffer of
 * tc_storage_bytes(type, elements of output i) bytes; packed outputs start at bit 0.
 * An output with zero elements is not touched (its pointer may be NULL). Every type
 * code 1..28 is accepted. STRING: src and outputs are tc_string_view arrays; the views
 * are copied, not the bytes they point to. Buffers must not overlap.
 * Errors (nothing is written): TC_INVALID_ARGUMENT for rank 0, NULL shape / sizes /
 * outputs, NULL src or outputs[i] for a non-empty tensor, a negative dimension, axis
 * outside [-rank, rank-1], num_outputs 0, a negative size, sizes not summing to the
 * axis length, an unknown type code; TC_OVERFLOW for counts beyond size_t. */
TC_API int tc_split(const void* src, int32_t type, const int64_t* shape, size_t rank, int64_t axis,
                    const int64_t* sizes, size_t num_outputs, void* const* outputs, tc_error* err);

/* tc_split with a runner (NULL: the calling thread): the copies of a split of at least
 * 1 MiB are cut into tasks. Same outputs and errors. */
TC_API int tc_split_ex(const void* src, int32_t type, const int64_t* shape, size_t rank,
                       int64_t axis, const int64_t* sizes, size_t num_outputs, void* const* outputs,
                       const tc_runner* runner, tc_error* err);

/* The attributes and inputs of a Split node that decide the output sizes (the C form
 * of tensorcast::SplitAttributes; start from TC_SPLIT_ATTRIBUTES_INIT). */
typedef struct tc_split_attributes {
  int opset;            /* model opset of the default domain (>= 1) */
  int64_t axis;         /* `axis` attribute (default 0) */
  int has_split;        /* non-zero: `split` (attribute or input) is present */
  const int64_t* split; /* its split_count values (read only when has_split) */
  size_t split_count;
  int has_num_outputs; /* non-zero: `num_outputs` attribute present (opset >= 18) */
  int64_t num_outputs;
  size_t output_count; /* outputs of the node (>= 1): entries written to sizes_out */
} tc_split_attributes;

#define TC_SPLIT_ATTRIBUTES_INIT \
  { 18, 0, 0, NULL, 0, 0, 0, 0 }

/* Writes the extent of each output along the axis to sizes_out[0..output_count) for an
 * input of shape shape[0..rank), by the rules of the Split version that `opset` runs
 * (1, 2, 11, 13, 18; the table in tensorcast/split.h). A TC_OK result can be passed to
 * tc_split with attrs->axis and attrs->output_count. Errors: TC_INVALID_ARGUMENT (bad
 * or inconsistent attributes, shape or axis, NULL pointers), TC_UNSUPPORTED (opset < 1).
 * Nothing is written on error. */
TC_API int tc_split_sizes(const tc_split_attributes* attrs, const int64_t* shape, size_t rank,
                          int64_t* sizes_out, tc_error* err);

/* The Split-18 `num_outputs` rule alone: `dim` (>= 0) into `num_outputs` (>= 1) parts of
 * ceil(dim / num_outputs), the last non-empty part takes the rest, later parts are empty
 * (7 into 3 -> 3,3,1; 5 into 4 -> 2,2,1,0). Writes sizes_out[0..num_outputs). */
TC_API int tc_split_sizes_from_num_outputs(int64_t dim, size_t num_outputs, int64_t* sizes_out,
                                           tc_error* err);

/* The Split version that `opset` runs: 1, 2, 11, 13 or 18; 0 when opset < 1. */
TC_API int tc_split_version(int opset);

/* ---- Types, names, sizes ---------------------------------------------------- */

/* The ONNX name of a type code ("FLOAT", "FLOAT8E4M3FN", "INT4", ...), static storage;
 * NULL for 0 (UNDEFINED) and unknown codes. */
TC_API const char* tc_type_name(int32_t type);

/* Parses a type name: the ONNX name in any case, "tensor(float8e4m3fn)", the numeric
 * code ("17") or the numpy spellings float16/float32/float64/bool_; surrounding ASCII
 * spaces are ignored. `length` bytes at `text`, or TC_NUL_TERMINATED. Writes *out only
 * on success. Errors: TC_INVALID_ARGUMENT (unknown name, "0", NULL out or text). */
TC_API int tc_parse_type(const char* text, size_t length, int32_t* out, tc_error* err);

/* Bits per element: 1..128 for numeric types and BOOL (8), 4 for INT4/UINT4/FLOAT4E2M1,
 * 2 for INT2/UINT2; 0 for STRING, 0 (UNDEFINED) and unknown codes. */
TC_API int tc_bit_width(int32_t type);

/* Bytes of a buffer of `count` elements: ceil(count * bits / 8) for numeric types,
 * count * sizeof(tc_string_view) for STRING (the view arrays of tc_split and of Cast
 * sources). Errors: TC_INVALID_ARGUMENT (unknown type code, NULL bytes),
 * TC_OVERFLOW (does not fit in size_t). */
TC_API int tc_storage_bytes(int32_t type, size_t count, size_t* bytes, tc_error* err);

/* Parses a `round_mode` attribute: "up", "down" or "nearest" (exact spelling) into a
 * tc_round_mode. Errors: TC_INVALID_ARGUMENT. */
TC_API int tc_parse_round_mode(const char* text, size_t length, int* out, tc_error* err);

/* "up", "down", "nearest"; NULL for a value outside 0..2. */
TC_API const char* tc_round_mode_name(int round_mode);

/* "OK", "INVALID_ARGUMENT", "UNSUPPORTED", "PARSE_ERROR", "OVERFLOW", "INTERNAL",
 * "BUFFER_TOO_SMALL"; NULL for an unknown code. */
TC_API const char* tc_status_name(int status);

/* The Highway target the bulk kernels dispatch to on this CPU ("AVX3", "NEON", ...). */
TC_API const char* tc_active_target(void);

/* ---- Targets and routes ----------------------------------------------------- */

/* How tc_cast serves a pair of element types (tensorcast::Route; the plan is decided
 * once per target). */
typedef enum tc_route {
  TC_ROUTE_KERNEL = 0, /* one SIMD kernel of the pair */
  TC_ROUTE_TABLE = 1,  /* table lookup: the result of each of the <= 256 source codes */
  TC_ROUTE_HUB = 2,    /* two steps through a cache-resident block: decoder, then encoder */
  TC_ROUTE_COPY = 3,   /* a byte copy (same type; INT4 <-> UINT4, INT2 <-> UINT2) */
  TC_ROUTE_STRINGS = 4 /* the exact scalar string codec (STRING on either side) */
} tc_route;

/* The route of one pair (tensorcast::RouteInfo). The texts are cut to fit their arrays
 * and always NUL-terminated. */
typedef struct tc_route_info {
  int route;              /* a tc_route: the route of large counts */
  int small_route;        /* a tc_route: the route of counts below small_below */
  size_t small_below;     /* 0: every count takes `route` */
  char detail[160];       /* the kernel, or the kernels, that `route` runs */
  char small_detail[160]; /* the same for small_route */
} tc_route_info;

/* The number of Highway targets compiled into the library that this CPU can run: >= 1
 * (0 only when the library runs out of memory listing them). */
TC_API size_t tc_compiled_target_count(void);

/* Their names, best first ("AVX3_DL", "AVX3", "AVX2", ..., "SCALAR"), static storage;
 * tc_active_target() is one of them. NULL when index >= tc_compiled_target_count(). */
TC_API const char* tc_compiled_target_name(size_t index);

/* "kernel", "table", "hub", "copy", "strings"; "invalid" for a value outside 0..4. Never
 * NULL. */
TC_API const char* tc_route_name(int route);

/* Describes the route that tc_cast takes from src_type to dst_type on `target`: a name
 * as tc_compiled_target_name() gives it (exact spelling), `target_length` bytes or
 * TC_NUL_TERMINATED; NULL or "" is the active target. Writes *out only on success.
 * tc_route_info.detail names kernels for people to read; its wording may change.
 * Errors: TC_INVALID_ARGUMENT (NULL out, unknown type code, NULL target with a length
 * other than 0 or TC_NUL_TERMINATED, a target that is not compiled in or that this CPU
 * cannot run), TC_UNSUPPORTED (complex types). */
TC_API int tc_describe_route(int32_t src_type, int32_t dst_type, const char* target,
                             size_t target_length, tc_route_info* out, tc_error* err);

/* ---- QuantizeLinear / DequantizeLinear (opsets 10-28) ------------------------- */

/* A dense row-major tensor that a call reads: `rank` dimensions at `shape` (NULL for a
 * scalar), elements at `data` (NULL allowed when empty), `type` an ONNX type code. */
typedef struct tc_tensor {
  const void* data;
  int32_t type;
  const int64_t* shape;
  size_t rank;
} tc_tensor;

/* The attributes of a QuantizeLinear / DequantizeLinear node and the runner
 * (tensorcast/quantize.h has the rules). NULL means TC_QUANTIZE_OPTIONS_INIT; a smaller
 * struct_size takes the defaults for the fields it lacks, a larger one is
 * TC_INVALID_ARGUMENT. A field the node's version does not have must keep its default. */
typedef struct tc_quantize_options {
  size_t struct_size;      /* sizeof(tc_quantize_options) */
  int opset;               /* 10..28 (default 28) */
  int64_t axis;            /* default 1 */
  int64_t block_size;      /* 0: per tensor or per axis */
  int32_t output_dtype;    /* 0: absent */
  int saturate;            /* QuantizeLinear, float8 outputs (default 1) */
  int32_t precision;       /* QuantizeLinear 23+: FLOAT, FLOAT16 or BFLOAT16; 0: absent */
  const tc_runner* runner; /* NULL: the calling thread only */
} tc_quantize_options;

#define TC_QUANTIZE_OPTIONS_INIT \
  { sizeof(tc_quantize_options), 28, 1, 0, 0, 1, 0, NULL }

/* y = saturate(round_half_even(x / scale) + zero_point). zero_point may be NULL (absent).
 * y holds the packed storage of x's element count in y_type, which must be the node's
 * output type (tc_quantize_linear_output_type). Errors, before anything is written:
 * TC_UNSUPPORTED (opset outside 10..28, a type the version does not list),
 * TC_INVALID_ARGUMENT (shapes, attributes, NULL or overlapping buffers, a nonzero float
 * zero point), TC_OVERFLOW. */
TC_API int tc_quantize_linear(const tc_tensor* x, const tc_tensor* scale,
                              const tc_tensor* zero_point, void* y, int32_t y_type,
                              const tc_quantize_options* options, tc_error* err);

/* y = (x - zero_point) * scale, rounded once to y_type (tc_dequantize_linear_output_type). */
TC_API int tc_dequantize_linear(const tc_tensor* x, const tc_tensor* scale,
                                const tc_tensor* zero_point, void* y, int32_t y_type,
                                const tc_quantize_options* options, tc_error* err);

/* The output type of QuantizeLinear given the zero point's type (0: none), and of
 * DequantizeLinear given the scale's type. */
TC_API int tc_quantize_linear_output_type(const tc_quantize_options* options,
                                          int32_t zero_point_type, int32_t* y_type, tc_error* err);
TC_API int tc_dequantize_linear_output_type(const tc_quantize_options* options, int32_t scale_type,
                                            int32_t* y_type, tc_error* err);

/* ---- Block-scaled quantization: MX, NVFP4, absmax (tensorcast/block_scale.h) ------ */

/* The formats (tensorcast::BlockFormat). */
#define TC_FORMAT_MXFP8_E4M3 1
#define TC_FORMAT_MXFP8_E5M2 2
#define TC_FORMAT_MXFP6_E2M3 3
#define TC_FORMAT_MXFP6_E3M2 4
#define TC_FORMAT_MXFP4 5
#define TC_FORMAT_NVFP4 6
/* MX scale rules (tensorcast::ScaleRule). */
#define TC_SCALE_FLOOR 0
#define TC_SCALE_RCEIL 1

/* NULL means TC_BLOCK_SCALE_OPTIONS_INIT; struct_size as tc_quantize_options. */
typedef struct tc_block_scale_options {
  size_t struct_size;      /* sizeof(tc_block_scale_options) */
  int64_t axis;            /* the blocks' axis, negative from the back (default -1) */
  int64_t block_size;      /* 0: the format's (32 MX, 16 NVFP4) */
  int32_t scale_rule;      /* TC_SCALE_FLOOR (default) or TC_SCALE_RCEIL; MX only */
  const tc_runner* runner; /* NULL: the calling thread only */
  tc_cast_stats* stats;    /* quantizers: non-NULL is filled in (one more pass) */
} tc_block_scale_options;

#define TC_BLOCK_SCALE_OPTIONS_INIT \
  { sizeof(tc_block_scale_options), -1, 0, TC_SCALE_FLOOR, NULL, NULL }

/* The format's name ("mxfp8_e4m3" .. "nvfp4"; NULL for another value), the element type
 * of its codes and the type of its block scales (0 for another value). */
TC_API const char* tc_block_format_name(int32_t format);
TC_API int32_t tc_block_format_element_type(int32_t format);
TC_API int32_t tc_block_format_scale_type(int32_t format);
/* The number of block scales of a tensor of that shape (x's shape, blocks of block_size
 * along axis). */
TC_API int tc_block_scale_count(const int64_t* shape, size_t rank, int32_t format,
                                const tc_block_scale_options* options, size_t* count,
                                tc_error* err);

/* MX: codes (packed, x's element count) and FLOAT8E8M0 scales (tc_block_scale_count).
 * x is FLOAT, FLOAT16 or BFLOAT16. */
TC_API int tc_quantize_mx(const tc_tensor* x, int32_t format, void* codes, void* scales,
                          const tc_block_scale_options* options, tc_error* err);
/* codes->type is the format's element type; y_type FLOAT, FLOAT16 or BFLOAT16. Exactly
 * DequantizeLinear-28(codes, scales, axis, block_size, output_dtype = y_type). */
TC_API int tc_dequantize_mx(const tc_tensor* codes, const void* scales, int32_t format, void* y,
                            int32_t y_type, const tc_block_scale_options* options, tc_error* err);
/* NVFP4: FLOAT4E2M1 codes, FLOAT8E4M3FN block scales; *global_scale is taken when
 * global_scale_given (positive, finite), else computed and stored. */
TC_API int tc_quantize_nvfp4(const tc_tensor* x, void* codes, void* scales, float* global_scale,
                             int global_scale_given, const tc_block_scale_options* options,
                             tc_error* err);
/* Exactly DequantizeLinear(codes, DequantizeLinear(scales, global_scale), block_size). */
TC_API int tc_dequantize_nvfp4(const tc_tensor* codes, const void* scales, float global_scale,
                               void* y, int32_t y_type, const tc_block_scale_options* options,
                               tc_error* err);
/* absmax: code_type INT8 or FLOAT8E4M3FN; scales: 1 FLOAT (per_channel 0) or
 * x->shape[axis] (per_channel 1); stats: NULL, or filled in. */
TC_API int tc_quantize_absmax(const tc_tensor* x, int32_t code_type, int per_channel, int64_t axis,
                              void* codes, float* scales, const tc_runner* runner,
                              tc_cast_stats* stats, tc_error* err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORCAST_TENSORCAST_C_H_ */
