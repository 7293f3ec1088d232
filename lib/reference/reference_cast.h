// The scalar reference implementation of ONNX Cast: one function per rule of
// docs/semantics.md. It is the oracle every SIMD kernel is tested against, bit for
// bit. Written for clarity; no allocation per numeric element.
#ifndef TENSORCAST_LIB_REFERENCE_REFERENCE_CAST_H_
#define TENSORCAST_LIB_REFERENCE_REFERENCE_CAST_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/reference/string_codec.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace reference {

// Converts `count` elements. Preconditions (checked by the public Cast): both types
// castable, pointers non-null when count > 0, byte counts fit in size_t, no partial
// overlap. Returns kParseError for a bad string element (earlier elements written).
Status Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
            const CastOptions& options);

// Element i of a buffer of `bits`-wide elements (2, 4, 8, 16, 32, 64), as an unsigned code.
uint64_t LoadCode(const void* src, int bits, size_t i);

// Stores element i. Packed types: the first element of a byte overwrites the whole byte,
// so the padding bits of a partial last byte are zero (elements are stored in order).
void StoreCode(void* dst, int bits, size_t i, uint64_t code);

// The low `bits` bits of code as a two's complement integer.
int64_t SignExtend(uint64_t code, int bits);

// One STRING element into the code of the numeric `type` (low BitWidth(type) bits), by
// the rules above; false when the text is not a number. `scratch` holds its digits.
bool ParseText(std::string_view text, DataType type, const CastOptions& options, Decimal* scratch,
               uint64_t* code);

// numpy str() of the element `code` of the numeric `type` ("True" / "False" for BOOL).
std::string FormatText(DataType type, uint64_t code);

// `text` quoted for an error message: at most 64 bytes; control bytes, '"', '\\' and
// every byte that is not part of a valid UTF-8 character escaped as \xNN, so that the
// message is valid UTF-8 whatever the text; "..." after a cut.
std::string QuoteText(std::string_view text);

}  // namespace reference
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_REFERENCE_REFERENCE_CAST_H_
