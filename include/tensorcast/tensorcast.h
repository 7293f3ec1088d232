// tensorcast/tensorcast.h: umbrella header of the tensorcast library.
#ifndef TENSORCAST_TENSORCAST_H_
#define TENSORCAST_TENSORCAST_H_

#include "tensorcast/cast.h"       // IWYU pragma: export
#include "tensorcast/data_type.h"  // IWYU pragma: export
#include "tensorcast/status.h"     // IWYU pragma: export
#include "tensorcast/split.h"      // IWYU pragma: export

#define TENSORCAST_VERSION_MAJOR 0
#define TENSORCAST_VERSION_MINOR 1
#define TENSORCAST_VERSION_PATCH 0

#endif  // TENSORCAST_TENSORCAST_H_
