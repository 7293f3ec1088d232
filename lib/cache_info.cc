#include "lib/cache_info.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace tensorcast {
namespace cache_info {
namespace {

namespace fs = std::filesystem;

// Bounds on what is read: index directories per CPU, bytes per file, cache levels, CPU
// numbers (Linux allows at most 8192 CPUs) and cache sizes. Anything above them is taken
// as malformed.
constexpr int kMaxIndices = 16;
constexpr size_t kMaxFileBytes = 4096;
constexpr uint64_t kMaxLevel = 8;
constexpr uint64_t kMaxCpu = 65535;
constexpr uint64_t kMaxCacheBytes = std::min<uint64_t>(uint64_t{1} << 40, SIZE_MAX);

// The contents of a sysfs file without its trailing white space; false when it cannot be
// opened or read, or holds more than kMaxFileBytes bytes.
bool ReadSmallFile(const fs::path& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  char buffer[kMaxFileBytes + 1];
  in.read(buffer, sizeof(buffer));
  if (in.bad()) return false;
  size_t end = static_cast<size_t>(in.gcount());
  if (end > kMaxFileBytes) return false;
  while (end > 0 && (buffer[end - 1] == '\n' || buffer[end - 1] == ' ' || buffer[end - 1] == '\t' ||
                     buffer[end - 1] == '\r')) {
    --end;
  }
  text->assign(buffer, end);
  return true;
}

// The decimal number text[begin, end): false unless it is one or more digits and at most
// `max`.
bool ParseDecimal(const std::string& text, size_t begin, size_t end, uint64_t max,
                  uint64_t* value) {
  if (begin >= end) return false;
  uint64_t v = 0;
  for (size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (digit > max || v > (max - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *value = v;
  return true;
}

// A cache size: digits, optionally followed by K, M or G (binary multiples). False for
// 0 and for more than kMaxCacheBytes.
bool ParseSize(const std::string& text, size_t* bytes) {
  if (text.empty()) return false;
  uint64_t unit = 1;
  switch (text.back()) {
    case 'K': unit = uint64_t{1} << 10; break;
    case 'M': unit = uint64_t{1} << 20; break;
    case 'G': unit = uint64_t{1} << 30; break;
    default: break;
  }
  const size_t digits_end = unit == 1 ? text.size() : text.size() - 1;
  uint64_t count = 0;
  if (!ParseDecimal(text, 0, digits_end, kMaxCacheBytes / unit, &count) || count == 0) {
    return false;
  }
  *bytes = static_cast<size_t>(count * unit);
  return true;
}

// The number of CPUs in a list of CPU numbers and ranges, comma-separated, ascending and
// disjoint as the kernel writes them ("0-1", "0,2,4-7"). False when it is empty or
// malformed.
bool ParseCpuList(const std::string& text, unsigned* count) {
  if (text.empty()) return false;
  uint64_t total = 0;
  uint64_t next_min = 0;  // the lowest CPU number the next item may start at
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    const size_t dash = text.find('-', begin);
    uint64_t first = 0;
    uint64_t last = 0;
    if (dash < end) {
      if (!ParseDecimal(text, begin, dash, kMaxCpu, &first) ||
          !ParseDecimal(text, dash + 1, end, kMaxCpu, &last)) {
        return false;
      }
    } else {
      if (!ParseDecimal(text, begin, end, kMaxCpu, &first)) return false;
      last = first;
    }
    if (first < next_min || last < first) return false;
    total += last - first + 1;
    next_min = last + 1;
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  *count = static_cast<unsigned>(total);  // at most kMaxCpu + 1
  return true;
}

}  // namespace

CacheSizes ReadCacheSizes(const std::string& cpu_root) {
  CacheSizes sizes;
  if (cpu_root.empty()) return sizes;
  const fs::path cache_dir = fs::path(cpu_root) / "cpu0" / "cache";
  bool l1_is_data = false;
  fs::path llc_dir;
  std::string text;
  for (int i = 0; i < kMaxIndices; ++i) {
    const fs::path dir = cache_dir / ("index" + std::to_string(i));
    uint64_t level = 0;
    if (!ReadSmallFile(dir / "level", &text) ||
        !ParseDecimal(text, 0, text.size(), kMaxLevel, &level) || level == 0) {
      continue;
    }
    if (!ReadSmallFile(dir / "type", &text)) continue;
    const bool is_data = text == "Data";
    if (!is_data && text != "Unified") continue;
    size_t bytes = 0;
    if (!ReadSmallFile(dir / "size", &text) || !ParseSize(text, &bytes)) continue;

    if (level == 1 && (sizes.l1d_bytes == 0 || (is_data && !l1_is_data))) {
      sizes.l1d_bytes = bytes;
      l1_is_data = is_data;
    }
    if (level == 2 && sizes.l2_bytes == 0) sizes.l2_bytes = bytes;
    if (static_cast<int>(level) > sizes.llc_level) {
      sizes.llc_level = static_cast<int>(level);
      sizes.llc_bytes = bytes;
      llc_dir = dir;
    }
  }
  unsigned shared = 0;
  if (sizes.llc_level > 0 && ReadSmallFile(llc_dir / "shared_cpu_list", &text) &&
      ParseCpuList(text, &shared)) {
    sizes.llc_shared_cpus = shared;
  }
  return sizes;
}

size_t LlcPerCoreBytes(const CacheSizes& sizes) {
  return sizes.llc_bytes / std::max(1u, sizes.llc_shared_cpus);
}

const CacheSizes& SystemCacheSizes() {
  static const CacheSizes sizes = ReadCacheSizes(kDefaultCpuRoot);
  return sizes;
}

}  // namespace cache_info
}  // namespace tensorcast
