// The argument checks of every public entry point (Cast, Split, the Arrow and string-view
// functions, the introspection, the C API and the Python extension), and the one guard
// that keeps exceptions inside the library.
//
// Each rule is written once, as a predicate (inline, a few compares, no allocation) and the
// Status of its failure (out of line, built only when the predicate fails), so that a valid
// call pays for the compares alone. Each message has one wording, "<argument>: <what is
// wrong>", naming the argument as the caller spelled it ("source type", "src", "count").
#ifndef TENSORCAST_LIB_CHECK_H_
#define TENSORCAST_LIB_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "lib/type_facts.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"
#include "tensorcast/status.h"

namespace tensorcast {
namespace check {

// --- Element types ---------------------------------------------------------------------
// "NAME (code)", as every message names a type.
std::string TypeLabel(DataType type);

// The newest opset of CastLike (onnx 1.23).
inline constexpr int kCastLikeMaxOpset = 25;

// A type with a row in the type table: else kInvalidArgument "unknown data type code N".
inline bool IsKnownType(DataType type) { return IsValidDataType(type); }
Status UnknownTypeError(DataType type, const char* argument);

// A type Cast converts (STRING included, complex not): else the unknown-code error, or
// kUnsupported "NAME (N) is not supported by Cast".
inline bool IsCastType(DataType type) { return IsCastable(type); }
Status CastTypeError(DataType type, const char* argument);

// A type CastLike converts: a Cast type that CastLike's newest opset (25) lists, so not
// FLOAT6E2M3 / FLOAT6E3M2 (Cast-28 types): else as IsCastType, or kUnsupported "NAME (N)
// is a type of Cast from opset 28; CastLike (opsets 15-25) does not accept it".
inline bool IsCastLikeType(DataType type) {
  return IsCastable(type) && Facts(type).cast_since <= kCastLikeMaxOpset;
}
Status CastLikeTypeError(DataType type, const char* argument);

// CastLike's two types, named `src_argument` and `like_argument` in `function`'s messages:
// the CastLike error of the first Cast type that CastLike does not list, prefixed
// "<function>: "; OK otherwise (every other type error is left to Cast's checks).
Status CastLikeTypes(DataType src, DataType like, const char* function, const char* src_argument,
                     const char* like_argument);

// A type Cast converts other than STRING: else as IsCastType, or kUnsupported "NAME (N) is
// not a numeric type".
inline bool IsNumericCastType(DataType type) {
  return IsCastable(type) && type != DataType::kString;
}
Status NumericCastTypeError(DataType type, const char* argument);

// --- Options -----------------------------------------------------------------------------
// round_mode is one of the RoundMode values: else kInvalidArgument.
inline bool IsRoundMode(RoundMode mode) {
  return static_cast<unsigned>(mode) <= static_cast<unsigned>(RoundMode::kNearest);
}
Status RoundModeError(RoundMode mode);

// --- Buffers -----------------------------------------------------------------------------
// The storage of `count` elements of a known type, ceil(count * bits / 8) bytes
// (std::string objects for STRING), fits in size_t: *bytes receives it; else kOverflow.
inline bool FitsBytes(DataType type, size_t count, size_t* bytes) {
  const TypeFacts& f = Facts(type);
  if (f.packed) {  // ceil(count * bits / 8) without overflow: count / 8 * bits fits
    const size_t bits = static_cast<size_t>(f.bits);
    *bytes = count / 8 * bits + (count % 8 * bits + 7) / 8;
    return true;
  }
  const size_t per =
      f.kind == TypeKind::kString ? sizeof(std::string) : static_cast<size_t>(f.bits / 8);
  size_t product = 0;
  if (__builtin_mul_overflow(count, per, &product)) return false;  // *bytes untouched
  *bytes = product;
  return true;
}
Status BytesOverflowError(DataType type, size_t count);

// A buffer of `count` elements is not null unless count is 0: else kInvalidArgument
// "<argument> is null with N elements".
inline bool IsBuffer(const void* p, size_t count) { return p != nullptr || count == 0; }
Status NullBufferError(const char* argument, size_t count);

// An output argument is not null: else kInvalidArgument "<argument> is null".
Status NullOutputError(const char* argument);

// --- The guard ---------------------------------------------------------------------------
// Runs body() (returning a Status) and turns any exception into a kInternal Status:
// std::bad_alloc into "<what>: out of memory", anything else into "<what>: unexpected
// exception". Every public entry point runs its work inside it.
Status OutOfMemoryError(const char* what) noexcept;
Status UnexpectedExceptionError(const char* what) noexcept;

template <class Body>
Status Guarded(const char* what, const Body& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return OutOfMemoryError(what);
  } catch (...) {
    return UnexpectedExceptionError(what);
  }
}

}  // namespace check
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_CHECK_H_
