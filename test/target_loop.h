// test::TargetLoop, the one way a test runs its checks on every Highway target: it forces
// tensorcast's dispatch to each target under test in turn. A test computes its expected
// output once (the reference is the slow part, especially under qemu) and compares every
// target's output against it.
//
// Targets under test: every compiled target this CPU supports
// (hwy::SupportedAndGeneratedTargets(): best first, SCALAR last), or, when the
// environment variable TENSORCAST_TEST_TARGETS is set (e.g. "SVE2_128,SVE,SCALAR"),
// exactly those, in that order; a test fails if one of them is not compiled or not
// supported on this CPU. The aarch64 ctest entries set it (test/CMakeLists.txt).
//
// Every failure inside a loop names the target ("on target AVX2" in the trace). Each test
// that used a TargetLoop prints, when it ends,
//   [ TARGETS  ] Suite.Test/Param: SVE2_128 SVE2 SVE NEON SCALAR
// listing the targets its checks completed on; test/run_on_target.sh --targets checks
// these lines, so an aarch64 entry fails unless its intended targets really ran.
#ifndef TENSORCAST_TEST_TARGET_LOOP_H_
#define TENSORCAST_TEST_TARGET_LOOP_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "tensorcast/cast.h"

namespace tensorcast {
namespace test {

// The targets under test (see above); on a bad TENSORCAST_TEST_TARGETS, sets *error
// and returns the targets named so far.
inline std::vector<int64_t> TargetsUnderTest(std::string* error) {
  hwy::SetSupportedTargetsForTest(0);  // no mock: what this CPU really supports
  const std::vector<int64_t> available = hwy::SupportedAndGeneratedTargets();
  const char* env = std::getenv("TENSORCAST_TEST_TARGETS");
  if (env == nullptr || *env == '\0') return available;
  std::vector<int64_t> chosen;
  std::stringstream names(env);
  std::string name;
  while (std::getline(names, name, ',')) {
    if (name.empty()) continue;
    bool found = false;
    for (int64_t t : available) {
      if (name == hwy::TargetName(t)) {
        chosen.push_back(t);
        found = true;
        break;
      }
    }
    if (!found) {
      std::string have;
      for (int64_t t : available) have += std::string(" ") + hwy::TargetName(t);
      *error = "TENSORCAST_TEST_TARGETS names " + name +
               ", which is not compiled or not supported on this CPU (available:" + have + ")";
      return chosen;
    }
  }
  if (chosen.empty()) *error = "TENSORCAST_TEST_TARGETS names no target";
  return chosen;
}

// One per test: Run(body) calls body() once per target under test with Highway's
// dispatch forced to that target (hwy::SetSupportedTargetsForTest), after checking that
// tensorcast dispatches there too; a test may call Run several times. The destructor
// restores normal dispatch and prints the [ TARGETS  ] line: a target counts as completed
// when every Run call of the test finished its body on it.
class TargetLoop {
 public:
  TargetLoop() {
    std::string error;
    targets_ = TargetsUnderTest(&error);
    if (!error.empty()) {
      ADD_FAILURE() << error;
      targets_.clear();
    }
    completed_.assign(targets_.size(), true);
  }
  TargetLoop(const TargetLoop&) = delete;
  TargetLoop& operator=(const TargetLoop&) = delete;

  ~TargetLoop() {
    hwy::SetSupportedTargetsForTest(0);
    // A skipped test ran nothing and claims nothing; any other test reports, even when
    // it never called Run (an empty list, which run_on_target.sh rejects).
    if (::testing::Test::IsSkipped()) return;
    std::string line;
    for (size_t i = 0; i < targets_.size() && ran_; ++i) {
      if (completed_[i]) line += std::string(" ") + hwy::TargetName(targets_[i]);
    }
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[ TARGETS  ] %s.%s:%s\n", info ? info->test_suite_name() : "?",
                info ? info->name() : "?", line.c_str());
    std::fflush(stdout);
  }

  // False when the selection is bad or a check failed fatally (the caller returns).
  template <class Body>
  bool Run(const Body& body) {
    if (targets_.empty()) return false;
    ran_ = true;
    for (size_t i = 0; i < targets_.size(); ++i) {
      hwy::SetSupportedTargetsForTest(targets_[i]);
      const char* name = hwy::TargetName(targets_[i]);
      // The library and the test binary share libhwy's chosen target.
      if (std::string(ActiveTargetName()) != name) {
        ADD_FAILURE() << "forced Highway target " << name << ", but tensorcast dispatches to "
                      << ActiveTargetName();
        MarkIncompleteFrom(i);
        return false;
      }
      current_ = name;
      {
        SCOPED_TRACE(std::string("on target ") + name);
        body();
      }
      current_ = nullptr;
      if (::testing::Test::HasFatalFailure()) {
        MarkIncompleteFrom(i);
        return false;
      }
    }
    return true;
  }

  // The target the current body runs on (inside Run), else nullptr.
  const char* target() const { return current_; }
  size_t size() const { return targets_.size(); }

 private:
  void MarkIncompleteFrom(size_t i) {
    for (; i < completed_.size(); ++i) completed_[i] = false;
  }

  std::vector<int64_t> targets_;
  std::vector<bool> completed_;
  bool ran_ = false;
  const char* current_ = nullptr;
};

}  // namespace test
}  // namespace tensorcast

#endif  // TENSORCAST_TEST_TARGET_LOOP_H_
