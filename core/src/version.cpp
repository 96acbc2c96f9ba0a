// SPDX-License-Identifier: Apache-2.0
// The release of this libgpucore, from the version header generated at its build.
#include "gpucore/version.hpp"

namespace gpucore {

Version version() noexcept {
    return Version{GPUCORE_VERSION_MAJOR, GPUCORE_VERSION_MINOR, GPUCORE_VERSION_PATCH,
                   GPUCORE_VERSION_STRING};
}

} // namespace gpucore
