// The one dtype list (GPUCORE_DTYPE_LIST in plugin.h) and what is derived from it: DType,
// all_dtypes, names, sizes, element types, visit; and an id outside the list is a clear error.
#include <cstring>
#include <set>
#include <string>

#include "api_test_support.hpp"

namespace gpucore::test {
namespace {

TEST(DtypeList, EveryDtypeHasANameASizeAndARoundTripElementType) {
    std::set<std::string> names;
    std::size_t count = 0;
    for (DType dtype : all_dtypes) {
        ++count;
        const std::string name = to_string(dtype);
        EXPECT_NE(name, "unknown_dtype");
        EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
        EXPECT_TRUE(is_known(dtype));
        const std::size_t bytes = visit(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
        EXPECT_EQ(size_of(dtype), bytes) << name;
        const DType back = visit(dtype, [](auto tag) { return dtype_of<typename decltype(tag)::type>(); });
        EXPECT_EQ(back, dtype) << name;
        // The contract's id is the DType's value.
        EXPECT_EQ(element_size(static_cast<gpucore_dtype>(static_cast<int>(dtype))), bytes) << name;
    }
#define COUNT_DTYPE_(ID, value, name, ctype, bytes, minor) +1
    EXPECT_EQ(count, std::size_t{0 GPUCORE_DTYPE_LIST(COUNT_DTYPE_)});
#undef COUNT_DTYPE_
    EXPECT_TRUE(names.count("f32") && names.count("f64") && names.count("i32") && names.count("u32"));
}

TEST(DtypeList, AnIdOutsideTheListIsNamedUnknownAndHasNoSize) {
    const auto bogus = static_cast<DType>(99);
    EXPECT_FALSE(is_known(bogus));
    EXPECT_STREQ(to_string(bogus), "unknown_dtype");
    EXPECT_EQ(size_of(bogus), 0u);
    EXPECT_EQ(element_size(static_cast<gpucore_dtype>(99)), 0u);
    EXPECT_FALSE(visit_dtype(static_cast<gpucore_dtype>(99), [](auto) { FAIL() << "called for an unknown id"; }));
    expect_error([&] { visit(bogus, [](auto) { return 0; }); }, ErrorCode::invalid_argument, "visit",
                 "unknown dtype 99");
}

TEST(DtypeList, AnOperationWithACastDtypeIsAnInvalidArgumentNotACrash) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> a(d, 16), b(d, 16), c(d, 16);
    const auto bogus = static_cast<DType>(-3);
    expect_error([&] { detail::vector_add(s, bogus, a.allocation(), b.allocation(), c.allocation(), 16, 16, 16); },
                 ErrorCode::invalid_argument, "vector_add", "unknown dtype -3");
    expect_error([&] { detail::transpose(s, bogus, a.allocation(), c.allocation(), 16, 16, 4, 4); },
                 ErrorCode::invalid_argument, "transpose", "unknown dtype -3");
    expect_error([&] { detail::reduce(s, bogus, ReduceOp::sum, a.allocation(), c.allocation(), 16, 16); },
                 ErrorCode::invalid_argument, "reduce", "unknown dtype -3");
    expect_error([&] { detail::reduce_rows(s, bogus, ReduceOp::sum, a.allocation(), c.allocation(), 16, 4, 4, 4); },
                 ErrorCode::invalid_argument, "reduce_rows", "unknown dtype -3");
    // Also with nothing to do: the dtype is checked first.
    Buffer<float> empty(d, 0);
    expect_error([&] { detail::vector_add(s, bogus, empty.allocation(), empty.allocation(), empty.allocation(), 0, 0, 0); },
                 ErrorCode::invalid_argument, "vector_add", "unknown dtype -3");
}

} // namespace
} // namespace gpucore::test
