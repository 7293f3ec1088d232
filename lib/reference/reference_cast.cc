#include "lib/reference/reference_cast.h"
namespace tensorcast { namespace reference {
Status Cast(const void*, DataType, void*, DataType, size_t, const CastOptions&) {
  return Status(StatusCode::kInternal, "not implemented yet");
}
}}
