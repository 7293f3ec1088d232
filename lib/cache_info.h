// The data cache sizes of the CPU, as Linux reports them for cpu0 in sysfs
// (<cpu_root>/cpu0/cache/index*/). Internal: not part of the public API.
//
// Reading never throws and never prints: an entry whose files are missing or malformed is
// skipped, and a machine without the tree (another OS, a container that masks /sys) gets
// all zeros, which callers treat as "unknown".
#ifndef TENSORCAST_LIB_CACHE_INFO_H_
#define TENSORCAST_LIB_CACHE_INFO_H_

#include <cstddef>
#include <string>

namespace tensorcast {
namespace cache_info {

// Where Linux exports the CPUs' cache trees.
inline constexpr char kDefaultCpuRoot[] = "/sys/devices/system/cpu";

// Sizes in bytes; 0 means not reported.
struct CacheSizes {
  // The level-1 Data cache (a level-1 Unified cache if there is no Data one).
  size_t l1d_bytes = 0;
  // The level-2 Data or Unified cache of cpu0. Usually private to its core; on some CPUs it
  // is shared by a cluster of cores.
  size_t l2_bytes = 0;
  // The highest-level Data or Unified cache of cpu0 (the last-level cache, whatever its
  // level), the number of CPUs in its shared_cpu_list (logical CPUs: SMT siblings each
  // count; 0 when the list is missing or malformed) and its level (0 when none).
  size_t llc_bytes = 0;
  unsigned llc_shared_cpus = 0;
  int llc_level = 0;
};

// Reads <cpu_root>/cpu0/cache/index0 ... index15, each with the files level (1 to 8),
// type (Data, Instruction or Unified), size (a decimal number of bytes, or of KiB, MiB or
// GiB with the suffix K, M or G; at most 1 TiB) and shared_cpu_list (ascending, disjoint
// CPU numbers and ranges, "0-1" or "0,2,4-7"). Instruction caches and entries whose level,
// type or size is missing or malformed are skipped. When several entries qualify for one
// field, the one with the lowest index wins. A missing tree gives all zeros.
CacheSizes ReadCacheSizes(const std::string& cpu_root);

// The last-level cache's bytes per CPU that shares it: llc_bytes / max(1, llc_shared_cpus);
// 0 when llc_bytes is unknown.
size_t LlcPerCoreBytes(const CacheSizes& sizes);

// ReadCacheSizes(kDefaultCpuRoot), read on the first call (thread-safe) and kept for the
// life of the process.
const CacheSizes& SystemCacheSizes();

}  // namespace cache_info
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_CACHE_INFO_H_
