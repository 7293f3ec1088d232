// tensorcast/tensorcast.h: umbrella header of the tensorcast library.
#ifndef TENSORCAST_TENSORCAST_H_
#define TENSORCAST_TENSORCAST_H_

#include "tensorcast/block_scale.h"    // IWYU pragma: export
#include "tensorcast/cast.h"           // IWYU pragma: export
#include "tensorcast/cast_options.h"   // IWYU pragma: export
#include "tensorcast/data_type.h"      // IWYU pragma: export
#include "tensorcast/introspection.h"  // IWYU pragma: export
#include "tensorcast/quantize.h"       // IWYU pragma: export
#include "tensorcast/runner.h"         // IWYU pragma: export
#include "tensorcast/split.h"          // IWYU pragma: export
#include "tensorcast/status.h"         // IWYU pragma: export
#include "tensorcast/strings.h"        // IWYU pragma: export
#include "tensorcast/version.h"        // IWYU pragma: export (generated from the project() version)

#endif  // TENSORCAST_TENSORCAST_H_
