// The table-lookup kernel of the route plan's "table" route (internal).
#ifndef TENSORCAST_LIB_DISPATCH_TABLE_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_TABLE_KERNELS_H_

#include <cstddef>
#include <cstdint>

namespace tensorcast {
namespace dispatch {

// out[i] = table[code i of src] for `count` elements of src_bits (8, 4 or 2) into codes of
// dst_bits (8, 4 or 2; the table's entries in the low dst_bits bits), or into dst_bits
// (16, 32 or 64) integers from 16-bit results: their low bytes at table[c], their high
// bytes at table[256 + c], sign- (sign_extend) or zero-extended to dst_bits. Targets of 16
// bits and more only where the active target's TablePlanes(src_bits) holds
// (lib/kernels/capabilities-inl.h; the route plan asks TargetFacts).
void TableLookup(const uint8_t* table, int src_bits, int dst_bits, bool sign_extend,
                 const void* src, void* dst, size_t count);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_TABLE_KERNELS_H_
