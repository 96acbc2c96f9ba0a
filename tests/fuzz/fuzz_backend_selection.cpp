// SPDX-License-Identifier: Apache-2.0
// Fuzz target: backend selections as GPU_BACKEND and select_device() take them ("auto", "cuda",
// "cpu:0", ...), through the public API against the real runtime (default_device() applies the
// same function to the variable's value). Every input must give a device or a gpucore::Error
// whose code is invalid_argument or backend_unavailable; a device returned must be the one its
// own name selects. Anything else (crash, sanitizer report, other exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "gpucore/gpucore.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const gpucore::Device device = gpucore::select_device(text);
        FUZZ_CHECK(device.valid(), "select_device('%s') returned a null device", text.c_str());
        const std::string name = device.to_string();
        FUZZ_CHECK(gpucore::select_device(name) == device, "'%s' does not select itself", name.c_str());
        FUZZ_CHECK(text.empty() || text == "auto" || text.rfind(device.backend_name(), 0) == 0,
                   "'%s' selected %s", text.c_str(), name.c_str());
    } catch (const gpucore::Error& e) {
        FUZZ_CHECK(e.code() == gpucore::ErrorCode::invalid_argument ||
                       e.code() == gpucore::ErrorCode::backend_unavailable,
                   "code %s for '%s'", gpucore::to_string(e.code()), text.c_str());
        FUZZ_CHECK(e.operation() == "select_device", "operation '%s'", e.operation().c_str());
        FUZZ_CHECK(!e.cause().empty(), "an error without a cause for '%s'", text.c_str());
    }
    return 0;
}
