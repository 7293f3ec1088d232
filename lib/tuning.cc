// The run-time values of lib/tuning.h.
#include "lib/tuning.h"

#include <cstdlib>
#include <new>
#include <string>

#include "lib/check.h"
#include "tensorcast/cast.h"

namespace tensorcast {
namespace tuning {

PrefetchSetting ParsePrefetchBytes(const char* value) {
  if (value == nullptr) return {kPrefetchBytes, PrefetchSource::kDefault};
  size_t bytes = 0, digits = 0;
  for (const char* c = value; *c != '\0'; ++c, ++digits) {
    if (*c < '0' || *c > '9' || digits == 5) return {kPrefetchBytes, PrefetchSource::kMalformed};
    bytes = bytes * 10 + static_cast<size_t>(*c - '0');
  }
  if (digits == 0 || bytes > kMaxPrefetchBytes) {
    return {kPrefetchBytes, PrefetchSource::kMalformed};
  }
  return {bytes, PrefetchSource::kEnvironment};
}

const PrefetchSetting& PrefetchSettingInForce() {
  static const PrefetchSetting setting =
      ParsePrefetchBytes(std::getenv("TENSORCAST_PREFETCH_BYTES"));
  return setting;
}

}  // namespace tuning

Status DescribeTuning(TuningInfo* out) {
  if (out == nullptr) return check::NullOutputError("out");
  return check::Guarded("DescribeTuning", [&] {
    const tuning::PrefetchSetting& p = tuning::PrefetchSettingInForce();
    out->prefetch_bytes = p.bytes;
    switch (p.source) {
      case tuning::PrefetchSource::kDefault: out->prefetch_source = "default"; break;
      case tuning::PrefetchSource::kEnvironment:
        out->prefetch_source = "TENSORCAST_PREFETCH_BYTES";
        break;
      case tuning::PrefetchSource::kMalformed: {
        const char* v = std::getenv("TENSORCAST_PREFETCH_BYTES");
        out->prefetch_source = std::string("default; TENSORCAST_PREFETCH_BYTES '") +
                               (v != nullptr ? std::string(v).substr(0, 32) : std::string()) +
                               "' ignored: not a whole number of bytes from 0 to " +
                               std::to_string(tuning::kMaxPrefetchBytes);
        break;
      }
    }
    out->cast_stream_bytes = tuning::StreamBytes(tuning::kCastLoopStreamBytes);
    out->subbyte_stream_bytes = tuning::StreamBytes(tuning::kSubbyteStreamBytes);
    out->table_stream_bytes = tuning::StreamBytes(tuning::kTableStreamBytes);
    out->hub_stream_bytes = tuning::StreamBytes(tuning::kHubStreamBytes);
    out->split_stream_bytes = tuning::StreamBytes(tuning::kSplitStreamBytes);
    const cache_info::CacheSizes& c = cache_info::SystemCacheSizes();
    out->llc_bytes = c.llc_bytes;
    out->llc_shared_cpus = c.llc_shared_cpus;
    return Status();
  });
}

}  // namespace tensorcast
