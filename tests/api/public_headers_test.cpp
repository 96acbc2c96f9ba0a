// SPDX-License-Identifier: Apache-2.0
// The public API stays apart from the plugin contract: a user's #include <gpucore/gpucore.hpp>
// does not bring in gpucore/plugin.h (its slots, handles and status codes), yet the API's dtypes are
// the contract's, value for value. This file must include gpucore/gpucore.hpp first, with nothing
// before it, so that the include-guard check below sees only what the public header pulls in.
#include "gpucore/gpucore.hpp"

#ifdef GPUCORE_PLUGIN_H
#error "gpucore/gpucore.hpp includes the plugin contract gpucore/plugin.h; the public API must not"
#endif
#ifndef GPUCORE_DTYPE_H
#error "gpucore/gpucore.hpp no longer takes its dtypes from gpucore/dtype.h"
#endif

#include <type_traits>

#include <gtest/gtest.h>

#include "gpucore/plugin.h"

namespace gpucore::test {
namespace {

// Every public DType has the contract's id, the one a plugin receives.
#define GPUCORE_SAME_VALUE_(ID, value, name, ctype, bytes, minor)                                  \
    static_assert(static_cast<int>(DType::name) == static_cast<int>(GPUCORE_DTYPE_##ID),            \
                  "DType::" #name " differs from the contract's GPUCORE_DTYPE_" #ID);                \
    static_assert(static_cast<int>(GPUCORE_DTYPE_##ID) == (value), "GPUCORE_DTYPE_" #ID " moved");
GPUCORE_DTYPE_LIST(GPUCORE_SAME_VALUE_)
#undef GPUCORE_SAME_VALUE_

// The released ids never move: plugins built against any 1.x header pass these numbers.
static_assert(GPUCORE_DTYPE_F32 == 0 && GPUCORE_DTYPE_F64 == 1 && GPUCORE_DTYPE_I32 == 2 &&
                  GPUCORE_DTYPE_U32 == 3 && GPUCORE_DTYPE_F16 == 4 && GPUCORE_DTYPE_BF16 == 5,
              "a released dtype id changed");
static_assert(sizeof(gpucore_dtype) == 4, "gpucore_dtype is a 32-bit enum in the contract");
static_assert(std::is_same_v<decltype(GPUCORE_DTYPE_F32), gpucore_dtype>,
              "plugin.h and dtype.h name the same gpucore_dtype");

TEST(PublicHeaders, DtypeNamesMatchTheContractList) {
    std::size_t count = 0;
#define GPUCORE_CHECK_NAME_(ID, value, name, ctype, bytes, minor)                   \
    EXPECT_STREQ(to_string(static_cast<DType>(GPUCORE_DTYPE_##ID)), #name);         \
    EXPECT_EQ(size_of(static_cast<DType>(GPUCORE_DTYPE_##ID)), std::size_t{bytes}); \
    ++count;
    GPUCORE_DTYPE_LIST(GPUCORE_CHECK_NAME_)
#undef GPUCORE_CHECK_NAME_
    EXPECT_EQ(count, std::size(all_dtypes));
}

} // namespace
} // namespace gpucore::test
