// SPDX-License-Identifier: Apache-2.0
// The helper library FIXTURE_NEEDS_DEP links; the tests keep it off the loader's search path.
extern "C" __attribute__((visibility("default"))) int gpucore_fixture_dependency_value(void) { return 42; }
