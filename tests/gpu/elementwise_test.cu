// SPDX-License-Identifier: Apache-2.0
// vector_add and fill through their launchers: awkward lengths, views that start off 16-byte
// alignment (equally: packed path with a scalar head; unequally: scalar path), integer wrap, and
// every element checked (outputs poisoned first, the element after the end must stay poisoned).
#include "gpu_test_support.cuh"

namespace gpu_test {
namespace {

template <class T>
class VectorAdd : public GpuTest {
protected:
    void check(std::size_t n, std::size_t off_a, std::size_t off_b, std::size_t off_c) {
        SCOPED_TRACE("n " + std::to_string(n) + ", offsets " + std::to_string(off_a) + "/" +
                     std::to_string(off_b) + "/" + std::to_string(off_c));
        const std::vector<T> a = random_values<T>(n), b = random_values<T>(n);
        DeviceArray<T> da(n, 8), db(n, 8), dc(n, 8);
        ASSERT_TRUE(da.ok() && db.ok() && dc.ok());
        da.upload(a, off_a);
        db.upload(b, off_b);
        dc.poison();
        const std::vector<T> poisoned = dc.download(n + 1, off_c);
        gpucore::gpu::launch_vector_add(dtype_of<T>(), da.data(off_a), db.data(off_b),
                                        dc.data(off_c), n, ctx_);
        sync();
        const std::vector<T> got = dc.download(n + 1, off_c);
        for (std::size_t i = 0; i < n; ++i) {
            T want;
            if constexpr (std::is_integral_v<T>) {
                want = static_cast<T>(static_cast<std::uint32_t>(a[i]) + static_cast<std::uint32_t>(b[i]));
            } else {
                want = static_cast<T>(a[i] + b[i]);
            }
            ASSERT_EQ(0, std::memcmp(&got[i], &want, sizeof(T))) << "c[" << i << "]";
        }
        EXPECT_EQ(0, std::memcmp(&got[n], &poisoned[n], sizeof(T))) << "wrote past the end";
    }
};

using Types = testing::Types<float, double, std::int32_t, std::uint32_t, gpucore::half,
                               gpucore::bfloat16>;
TYPED_TEST_SUITE(VectorAdd, Types);

TYPED_TEST(VectorAdd, AwkwardLengthsAndAlignments) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4},
                          std::size_t{5}, std::size_t{1023}, std::size_t{4097},
                          std::size_t{(1 << 20) + 3}}) {
        this->check(n, 0, 0, 0);
        this->check(n, 1, 1, 1); // packed, with a scalar head
        this->check(n, 3, 3, 3);
        this->check(n, 0, 1, 2); // scalar path
        this->check(n, 7, 7, 7); // a 1-element head for every element size
        this->check(n, 2, 2, 6); // 2-byte elements: 4 and 12 bytes off, the scalar path
    }
}

TYPED_TEST(VectorAdd, LargeGridStride) {
    this->check((std::size_t{1} << 26) + 5, 0, 0, 0);
}

class Fill : public GpuTest {
protected:
    template <class Word>
    void check(std::size_t count, std::size_t offset) {
        SCOPED_TRACE(std::to_string(sizeof(Word)) + "-byte words, count " + std::to_string(count) +
                     ", offset " + std::to_string(offset));
        Word value;
        std::memset(&value, 0, sizeof value);
        const std::uint64_t pattern = 0x0123456789ABCDEFull;
        std::memcpy(&value, &pattern, sizeof(Word));
        DeviceArray<Word> dst(count, 4);
        ASSERT_TRUE(dst.ok());
        dst.poison();
        const std::vector<Word> poisoned = dst.download(count + 1, offset);
        gpucore::gpu::launch_fill(dst.data(offset), &value, sizeof(Word), count, ctx_);
        sync();
        const std::vector<Word> got = dst.download(count + 1, offset);
        for (std::size_t i = 0; i < count; ++i) {
            ASSERT_EQ(0, std::memcmp(&got[i], &value, sizeof(Word))) << "dst[" << i << "]";
        }
        EXPECT_EQ(0, std::memcmp(&got[count], &poisoned[count], sizeof(Word)));
    }
    template <class Word>
    void check_all() {
        for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4099},
                                  std::size_t{(1 << 20) + 1}}) {
            for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
                check<Word>(count, offset);
            }
        }
    }
};

TEST_F(Fill, EveryElementSizeLengthAndOffset) {
    check_all<std::uint8_t>();
    check_all<std::uint16_t>();
    check_all<std::uint32_t>();
    check_all<std::uint64_t>();
}

} // namespace
} // namespace gpu_test
