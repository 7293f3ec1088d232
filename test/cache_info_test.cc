// ReadCacheSizes (lib/cache_info.h) on fake sysfs trees written into a temporary directory:
// the expected sizes are those of the files written here. Then the real machine's tree,
// which must give a last-level cache wherever the kernel reports one.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "lib/cache_info.h"

namespace tensorcast {
namespace cache_info {
namespace {

namespace fs = std::filesystem;

constexpr size_t kKiB = size_t{1} << 10;
constexpr size_t kMiB = size_t{1} << 20;

// One cache/indexN directory: the contents of its files, nullptr for a missing file.
struct FakeIndex {
  const char* level;
  const char* type;
  const char* size;
  const char* shared_cpu_list;
};

// A directory under the system's temporary directory, unique to this test, removed with
// everything in it when the object goes away. Files are written as sysfs shows them, with
// a trailing newline.
class FakeCpuRoot {
 public:
  FakeCpuRoot() {
    const std::string test_name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::random_device rng;
    for (int attempt = 0; attempt < 100 && root_.empty(); ++attempt) {
      const fs::path candidate = fs::temp_directory_path() / ("tensorcast_cache_info_" + test_name +
                                                              "_" + std::to_string(rng()));
      if (fs::create_directory(candidate)) root_ = candidate;
    }
    EXPECT_FALSE(root_.empty()) << "no temporary directory";
  }
  ~FakeCpuRoot() {
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }
  FakeCpuRoot(const FakeCpuRoot&) = delete;
  FakeCpuRoot& operator=(const FakeCpuRoot&) = delete;

  std::string path() const { return root_.string(); }

  // Writes <root>/cpu0/cache/index<index>/<name>, replacing an older file.
  void WriteFile(int index, const std::string& name, const std::string& contents) {
    ASSERT_FALSE(root_.empty());
    const fs::path dir = root_ / "cpu0" / "cache" / ("index" + std::to_string(index));
    fs::create_directories(dir);
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out << contents << '\n';
    ASSERT_TRUE(out.good()) << (dir / name);
  }

  void WriteIndex(int index, const FakeIndex& entry) {
    const std::pair<const char*, const char*> files[] = {
        {"level", entry.level},
        {"type", entry.type},
        {"size", entry.size},
        {"shared_cpu_list", entry.shared_cpu_list}};
    for (const auto& [name, contents] : files) {
      if (contents != nullptr) WriteFile(index, name, contents);
    }
  }

  // index0, index1, ... in order.
  void WriteIndices(const std::vector<FakeIndex>& entries) {
    for (size_t i = 0; i < entries.size(); ++i) WriteIndex(static_cast<int>(i), entries[i]);
  }

 private:
  fs::path root_;
};

void ExpectAllZeros(const CacheSizes& sizes) {
  EXPECT_EQ(sizes.l1d_bytes, 0u);
  EXPECT_EQ(sizes.l2_bytes, 0u);
  EXPECT_EQ(sizes.llc_bytes, 0u);
  EXPECT_EQ(sizes.llc_shared_cpus, 0u);
  EXPECT_EQ(sizes.llc_level, 0);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 0u);
}

// A cloud VM on an Intel server CPU: two vCPUs that share a 480 MiB L3.
TEST(CacheInfo, IntelVmLikeTree) {
  FakeCpuRoot root;
  root.WriteIndices({{"1", "Data", "48K", "0"},
                     {"1", "Instruction", "32K", "0"},
                     {"2", "Unified", "2048K", "0"},
                     {"3", "Unified", "491520K", "0-1"}});
  const CacheSizes sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.l1d_bytes, 48 * kKiB);
  EXPECT_EQ(sizes.l2_bytes, 2 * kMiB);
  EXPECT_EQ(sizes.llc_bytes, 480 * kMiB);
  EXPECT_EQ(sizes.llc_shared_cpus, 2u);
  EXPECT_EQ(sizes.llc_level, 3);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 240 * kMiB);
}

// An AMD Zen CPU's view from a two-CPU slice of one CCX.
TEST(CacheInfo, AmdLikeTree) {
  FakeCpuRoot root;
  root.WriteIndices({{"1", "Data", "32K", "0"},
                     {"1", "Instruction", "32K", "0"},
                     {"2", "Unified", "512K", "0"},
                     {"3", "Unified", "32768K", "0-1"}});
  const CacheSizes sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.l1d_bytes, 32 * kKiB);
  EXPECT_EQ(sizes.l2_bytes, 512 * kKiB);
  EXPECT_EQ(sizes.llc_bytes, 32 * kMiB);
  EXPECT_EQ(sizes.llc_shared_cpus, 2u);
  EXPECT_EQ(sizes.llc_level, 3);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 16 * kMiB);
}

TEST(CacheInfo, CpuListsWithSinglesAndRanges) {
  FakeCpuRoot root;
  root.WriteIndices({{"1", "Data", "32K", "0"}, {"2", "Unified", "1M", "0,2,4-7"}});
  CacheSizes sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.llc_level, 2);
  EXPECT_EQ(sizes.llc_bytes, 1 * kMiB);
  EXPECT_EQ(sizes.llc_shared_cpus, 6u);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 1 * kMiB / 6);

  const struct {
    const char* list;
    unsigned cpus;
  } cases[] = {
      {"0", 1},
      {"5", 1},
      {"0-255", 256},
      {"0-3,8-11", 8},
      {"1,3,5,7", 4},
      {"0-65535", 65536},
      // Malformed: the count is 0 and the cache is still reported.
      {"", 0},
      {"a", 0},
      {"0-", 0},
      {"-1", 0},
      {"3-1", 0},
      {"0,,1", 0},
      {"0,", 0},
      {"2,1", 0},
      {"0-3,3", 0},
      {"0-1-2", 0},
      {" 0", 0},
      {"0 1", 0},
      {"65536", 0},
      {"0-99999999999999999999", 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("shared_cpu_list \"") + c.list + "\"");
    root.WriteFile(1, "shared_cpu_list", c.list);
    sizes = ReadCacheSizes(root.path());
    EXPECT_EQ(sizes.llc_shared_cpus, c.cpus);
    EXPECT_EQ(sizes.llc_bytes, 1 * kMiB);
    EXPECT_EQ(LlcPerCoreBytes(sizes), 1 * kMiB / (c.cpus == 0 ? 1 : c.cpus));
  }
}

TEST(CacheInfo, MissingTreeGivesZeros) {
  ExpectAllZeros(ReadCacheSizes(""));
  FakeCpuRoot root;
  ExpectAllZeros(ReadCacheSizes(root.path() + "/no_such_directory"));
  // The root exists, without cpu0.
  ExpectAllZeros(ReadCacheSizes(root.path()));
  // cpu0/cache exists, without index directories.
  fs::create_directories(fs::path(root.path()) / "cpu0" / "cache");
  ExpectAllZeros(ReadCacheSizes(root.path()));
  // A regular file where the root should be.
  const fs::path file = fs::path(root.path()) / "file";
  std::ofstream(file) << "1\n";
  ExpectAllZeros(ReadCacheSizes(file.string()));
}

TEST(CacheInfo, MalformedEntriesAreSkipped) {
  FakeCpuRoot root;
  root.WriteIndices({
      {"1", "Data", "abc", "0"},                    // size not a number
      {"1", "Unified", "", "0"},                    // empty size
      {"4", "Unified", "99999999999999999K", "0"},  // overflows
      {"4", "Unified", "1025G", "0"},               // above 1 TiB
      {"4", "Unified", "0", "0"},                   // empty cache
      {"4", "Unified", "32KB", "0"},                // unknown suffix
      {"4", "Unified", "-1K", "0"},                 // sign
      {"4", "Unified", nullptr, "0"},               // no size file
      {"x", "Unified", "64M", "0"},                 // level not a number
      {"0", "Unified", "64M", "0"},                 // level 0
      {"9", "Unified", "64M", "0"},                 // level above 8
      {nullptr, "Unified", "64M", "0"},             // no level file
      {"4", "Instruction", "64M", "0"},             // not a data cache
      {"4", "unified", "64M", "0"},                 // unknown type
      {"4", nullptr, "64M", "0"},                   // no type file
      {"2", "Unified", "1M", nullptr},              // valid, no shared_cpu_list
  });
  const CacheSizes sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.l1d_bytes, 0u);
  EXPECT_EQ(sizes.l2_bytes, 1 * kMiB);
  EXPECT_EQ(sizes.llc_bytes, 1 * kMiB);
  EXPECT_EQ(sizes.llc_level, 2);
  EXPECT_EQ(sizes.llc_shared_cpus, 0u);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 1 * kMiB);
}

TEST(CacheInfo, SizeFormats) {
  const struct {
    const char* size;
    size_t bytes;
  } cases[] = {
      {"65536", 64 * kKiB},
      {"32K", 32 * kKiB},
      {"1M", 1 * kMiB},
      {"480M", 480 * kMiB},
      {"1G", size_t{1} << 30},
      {"1024G", size_t{1} << 40},
      {"0032K", 32 * kKiB},
      {"1073741824K", size_t{1} << 40},
      {"1073741825K", 0},
      {"1099511627777", 0},
      {"K", 0},
      {"1.5M", 0},
      {"1 M", 0},
      {"1T", 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("size \"") + c.size + "\"");
    FakeCpuRoot root;
    root.WriteIndex(0, {"3", "Unified", c.size, "0"});
    const CacheSizes sizes = ReadCacheSizes(root.path());
    EXPECT_EQ(sizes.llc_bytes, c.bytes);
    EXPECT_EQ(sizes.llc_level, c.bytes == 0 ? 0 : 3);
  }
}

TEST(CacheInfo, SelectionRules) {
  FakeCpuRoot root;
  // A level-1 Unified cache stands in for the Data one only until a Data one appears; the
  // highest level is the last-level cache even when it comes first; index16 and above are
  // not read; gaps in the numbering are skipped.
  root.WriteIndex(0, {"3", "Unified", "8M", "0-7"});
  root.WriteIndex(1, {"1", "Unified", "16K", "0"});
  root.WriteIndex(2, {"2", "Data", "256K", "0-1"});
  root.WriteIndex(3, {"2", "Unified", "512K", "0-1"});
  root.WriteIndex(5, {"1", "Data", "48K", "0"});
  root.WriteIndex(6, {"3", "Unified", "16M", "0-15"});
  root.WriteIndex(16, {"4", "Unified", "128M", "0-31"});
  CacheSizes sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.l1d_bytes, 48 * kKiB);
  EXPECT_EQ(sizes.l2_bytes, 256 * kKiB);
  EXPECT_EQ(sizes.llc_bytes, 8 * kMiB);
  EXPECT_EQ(sizes.llc_shared_cpus, 8u);
  EXPECT_EQ(sizes.llc_level, 3);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 1 * kMiB);

  // index15 is the last one read.
  root.WriteIndex(15, {"4", "Unified", "64M", "0-31"});
  sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.llc_bytes, 64 * kMiB);
  EXPECT_EQ(sizes.llc_shared_cpus, 32u);
  EXPECT_EQ(sizes.llc_level, 4);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 2 * kMiB);
}

TEST(CacheInfo, OnlyL1) {
  FakeCpuRoot root;
  root.WriteIndices({{"1", "Data", "32K", "0"}, {"1", "Instruction", "32K", "0"}});
  const CacheSizes sizes = ReadCacheSizes(root.path());
  EXPECT_EQ(sizes.l1d_bytes, 32 * kKiB);
  EXPECT_EQ(sizes.l2_bytes, 0u);
  EXPECT_EQ(sizes.llc_bytes, 32 * kKiB);
  EXPECT_EQ(sizes.llc_shared_cpus, 1u);
  EXPECT_EQ(sizes.llc_level, 1);
  EXPECT_EQ(LlcPerCoreBytes(sizes), 32 * kKiB);
}

TEST(CacheInfo, LlcPerCoreBytes) {
  CacheSizes sizes;
  EXPECT_EQ(LlcPerCoreBytes(sizes), 0u);
  sizes.llc_shared_cpus = 4;
  EXPECT_EQ(LlcPerCoreBytes(sizes), 0u);
  sizes.llc_bytes = 30 * kMiB;
  EXPECT_EQ(LlcPerCoreBytes(sizes), 30 * kMiB / 4);
  sizes.llc_shared_cpus = 0;
  EXPECT_EQ(LlcPerCoreBytes(sizes), 30 * kMiB);
}

// The machine running the test. Where the kernel reports a Data or Unified cache with a
// level and a size for cpu0, there is a last-level cache; without sysfs (another OS, /sys masked)
// everything is zero.
TEST(CacheInfo, RealMachineTree) {
  const CacheSizes sizes = ReadCacheSizes("/sys/devices/system/cpu");
  const CacheSizes& system = SystemCacheSizes();
  EXPECT_EQ(&system, &SystemCacheSizes());
  EXPECT_EQ(system.l1d_bytes, sizes.l1d_bytes);
  EXPECT_EQ(system.l2_bytes, sizes.l2_bytes);
  EXPECT_EQ(system.llc_bytes, sizes.llc_bytes);
  EXPECT_EQ(system.llc_shared_cpus, sizes.llc_shared_cpus);
  EXPECT_EQ(system.llc_level, sizes.llc_level);

  std::error_code ec;
  const fs::path cache_dir = "/sys/devices/system/cpu/cpu0/cache";
  if (!fs::is_directory("/sys/devices/system/cpu", ec)) {
    ExpectAllZeros(sizes);
    return;
  }
  bool reports_a_data_cache = false;
  for (int i = 0; i < 16; ++i) {
    const fs::path dir = cache_dir / ("index" + std::to_string(i));
    std::string level;
    std::string type;
    std::string size;
    std::ifstream(dir / "level") >> level;
    std::ifstream(dir / "type") >> type;
    std::ifstream(dir / "size") >> size;
    if (level.size() == 1 && level[0] >= '1' && level[0] <= '8' &&
        (type == "Data" || type == "Unified") && !size.empty() && size[0] >= '1' &&
        size[0] <= '9') {
      reports_a_data_cache = true;
    }
  }
  SCOPED_TRACE("l1d " + std::to_string(sizes.l1d_bytes) + ", l2 " + std::to_string(sizes.l2_bytes) +
               ", llc " + std::to_string(sizes.llc_bytes) + " at level " +
               std::to_string(sizes.llc_level) + " shared by " +
               std::to_string(sizes.llc_shared_cpus));
  if (reports_a_data_cache) {
    EXPECT_GT(sizes.llc_bytes, 0u);
    EXPECT_GE(sizes.llc_level, 1);
    if (sizes.l2_bytes > 0) {
      EXPECT_GE(sizes.llc_level, 2);
    }
    EXPECT_GT(LlcPerCoreBytes(sizes), 0u);
  } else {
    EXPECT_EQ(sizes.llc_bytes, 0u);
    EXPECT_EQ(sizes.llc_level, 0);
  }
}

}  // namespace
}  // namespace cache_info
}  // namespace tensorcast
