// SPDX-License-Identifier: Apache-2.0
// Kernel modules on every device that runs them (cpu, the CPU execution at 64- and 32-lane warps,
// cuda where present): each dialect feature against a host reference at awkward sizes, every
// launch misuse as a clear Error, and module files that must be refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <locale>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include <gpucore/gpucore.hpp>

namespace {

using gpucore::Buffer;
using gpucore::Device;
using gpucore::Dim3;
using gpucore::ErrorCode;
using gpucore::Module;

// The devices whose kind of module file this build made: cuda and hip load their own kind, the
// cpu backend and the CPU execution's test backends load the cpu kind.
std::vector<Device> module_devices() {
    const std::string built = GPUCORE_TEST_MODULE_KINDS;
    const auto made = [&](const char* kind) { return built.find(std::string(" ") + kind + " ") != std::string::npos; };
    std::vector<Device> out;
    for (const Device& d : gpucore::devices()) {
        const std::string backend = d.properties().backend;
        const bool gpu = backend == "cuda" || backend == "hip";
        const bool cpu_kind = backend == "cpu" || backend.rfind("test-wave", 0) == 0;
        if ((gpu && made(backend.c_str())) || (cpu_kind && made("cpu"))) out.push_back(d);
    }
    return out;
}

std::string device_name(const testing::TestParamInfo<Device>& info) {
    std::string name = info.param.to_string();
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

bool runs_on_cpu(const Device& d) { return d.properties().backend != "cuda" && d.properties().backend != "hip"; }

template <class F>
ErrorCode error_of(F&& f, std::string* what = nullptr) {
    try {
        f();
    } catch (const gpucore::Error& e) {
        if (what != nullptr) *what = e.what();
        return e.code();
    }
    ADD_FAILURE() << "no gpucore::Error";
    return ErrorCode::device_error;
}

class Modules : public testing::TestWithParam<Device> {
protected:
    Device device = GetParam();
    Module module = Module::load(device, "test_kernels");
    gpucore::Stream stream{device};
};

TEST_P(Modules, SaxpyAtAwkwardSizes) {
    std::mt19937 random(1);
    std::uniform_real_distribution<float> value(-4, 4);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{65},
                          std::size_t{4097}, std::size_t{1000003}}) {
        std::vector<float> x(n), y(n);
        for (auto& v : x) v = value(random);
        for (auto& v : y) v = value(random);
        Buffer<float> dx(device, std::max<std::size_t>(n, 1)), dy(device, std::max<std::size_t>(n, 1));
        if (n > 0) {
            dx.view(0, n).copy_from_host(x);
            dy.view(0, n).copy_from_host(y);
        }
        for (std::uint32_t block : {32u, 64u, 256u, 1024u}) {
            if (n > 0) dy.view(0, n).copy_from_host(y);
            const std::uint32_t blocks = static_cast<std::uint32_t>(std::min<std::size_t>(n / block + 1, 97));
            module.kernel("saxpy").launch(stream, {Dim3(blocks), Dim3(block)}, 0.5f, dx.view(0, std::max<std::size_t>(n, 1)),
                                          dy, n);
            stream.synchronize();
            const std::vector<float> out = dy.to_vector();
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 0.5f * x[i] + y[i]) << "n " << n << " block " << block << " i " << i;
        }
    }
}

// Launches of one kernel from several threads at once, each on its own stream and buffers: every
// launch runs, once (the launchers keep per-device facts and functions that threads share).
TEST_P(Modules, LaunchesFromManyThreadsAllRun) {
    constexpr int kThreads = 6, kLaunches = 40;
    const std::size_t n = 3001;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            try {
                gpucore::Stream own(device);
                Buffer<float> x(device, n), y(device, n);
                x.fill(static_cast<float>(t + 1));
                y.fill(0.0f);
                const auto saxpy = module.kernel("saxpy");
                for (int i = 0; i < kLaunches; ++i) {
                    saxpy.launch(own, {Dim3(static_cast<std::uint32_t>((n + 127) / 128)), Dim3(128)}, 2.0f, x, y, n);
                }
                own.synchronize();
                const float want = 2.0f * static_cast<float>(t + 1) * kLaunches; // exact: small integers
                for (const float v : y.to_vector()) {
                    if (v != want) {
                        failures[t] = "y holds " + std::to_string(v) + ", not " + std::to_string(want);
                        return;
                    }
                }
            } catch (const std::exception& e) {
                failures[t] = e.what();
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// The saxpy example's kernel: float4 pieces where a tile is whole and both arrays are 16-byte
// aligned, one float at a time where n cuts a tile or a view starts at an odd offset. Every size,
// offset, block and grid below must give a * x + y in the view and leave the rest of y untouched.
TEST_P(Modules, ExampleSaxpyAtAwkwardSizesAndOffsets) {
#if defined(GPUCORE_TEST_EXAMPLE_MODULE_DIR)
    ::setenv("GPUCORE_MODULE_PATH", GPUCORE_TEST_EXAMPLE_MODULE_DIR, 1);
    const gpucore::Kernel saxpy = Module::load(device, "saxpy").kernel("saxpy");
    ::unsetenv("GPUCORE_MODULE_PATH");
    std::mt19937 random(11);
    std::uniform_real_distribution<float> value(-4, 4);
    const float a = 1.75f;
    const std::size_t guard = 13;
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{2047}, std::size_t{2048},
                          std::size_t{2049}, std::size_t{100003}}) {
        for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}}) {
            const std::size_t total = offset + n + guard;
            std::vector<float> x(total), y(total);
            for (auto& v : x) v = value(random);
            for (auto& v : y) v = value(random);
            Buffer<float> dx(device, total), dy(device, total);
            dx.copy_from_host(x);
            for (std::uint32_t block : {32u, 64u, 256u, 1024u}) {
                const std::size_t tile = std::size_t{block} * 8;
                for (std::uint32_t blocks : {1u, static_cast<std::uint32_t>((n + tile - 1) / tile)}) {
                    dy.copy_from_host(y);
                    saxpy.launch(stream, {Dim3(blocks), Dim3(block)}, a, dx.view(offset, n), dy.view(offset, n), n);
                    const std::vector<float> out = dy.to_vector();
                    for (std::size_t i = 0; i < total; ++i) {
                        const bool inside = i >= offset && i < offset + n;
                        // One fused multiply-add (a GPU's) or a product and a sum: nothing else.
                        const bool right = inside ? out[i] == std::fma(a, x[i], y[i]) || out[i] == a * x[i] + y[i]
                                                  : out[i] == y[i];
                        ASSERT_TRUE(right) << "n " << n << " offset " << offset << " block " << block << " grid "
                                           << blocks << " i " << i << (inside ? "" : " (outside the view)");
                    }
                }
            }
        }
    }
#else
    GTEST_SKIP() << "the examples' modules are not built";
#endif
}

TEST_P(Modules, BarriersAtEveryBlockSize) {
    const std::size_t n = 5003;
    std::vector<std::int32_t> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::int32_t>(i * 7 + 3);
    Buffer<std::int32_t> din(device, n), dout(device, n);
    din.copy_from_host(in);
    for (std::uint32_t block : {1u, 2u, 7u, 32u, 63u, 64u, 100u, 256u, 513u, 1024u}) {
        dout.fill(-7);
        const auto blocks = static_cast<std::uint32_t>((n + block - 1) / block);
        module.kernel("reverse_blocks").launch(stream, {Dim3(blocks), Dim3(block)}, din, dout, n);
        const std::vector<std::int32_t> out = dout.to_vector();
        for (std::size_t first = 0; first < n; first += block) {
            const std::size_t count = std::min<std::size_t>(block, n - first);
            for (std::size_t t = 0; t < count; ++t) ASSERT_EQ(out[first + t], in[first + count - 1 - t]) << "block " << block;
        }
    }
}

TEST_P(Modules, WarpOperationsUseTheDevicesWidth) {
    const std::uint32_t block = 128, blocks = 3;
    Buffer<std::uint32_t> out(device, std::size_t{block} * blocks * 6);
    out.fill(0xFFFFFFFFu);
    module.kernel("warp_facts").launch(stream, {Dim3(blocks), Dim3(block)}, out);
    const std::vector<std::uint32_t> facts = out.to_vector();
    const std::uint32_t width = facts[0];
    ASSERT_TRUE(width == 32 || width == 64) << width;
    const std::string backend = device.properties().backend;
    if (backend == "test-wave64") {
        EXPECT_EQ(width, 64u);
    } else if (backend == "test-wave32" || backend == "cuda") {
        EXPECT_EQ(width, 32u);
    }
    std::uint64_t odd = 0;
    for (std::uint64_t l = 1; l < width; l += 2) odd |= std::uint64_t{1} << l;
    for (std::size_t t = 0; t < std::size_t{block} * blocks; ++t) {
        const std::uint32_t lane = static_cast<std::uint32_t>((t % block) % width);
        ASSERT_EQ(facts[t * 6], width);
        ASSERT_EQ(facts[t * 6 + 1], width * (width - 1) / 2) << t;
        ASSERT_EQ(facts[t * 6 + 2], static_cast<std::uint32_t>(odd)) << t;
        ASSERT_EQ(facts[t * 6 + 3], static_cast<std::uint32_t>(odd >> 32)) << t;
        ASSERT_EQ(facts[t * 6 + 4], 10u) << t;
        ASSERT_EQ(facts[t * 6 + 5], (lane == 0 ? 0u : lane - 1) + 1000u + 10000u) << t;
    }
}

// The rules of CUDA's hardware, written out: a mask or offset counts by its low log2(warp) bits;
// xor may read earlier segments, down and xor keep the lane's own value past the segment's end,
// up before its start, and shfl wraps into the segment.
TEST_P(Modules, ShufflesWithinSegmentsOfEveryWidth) {
    const std::uint32_t block = 192, blocks = 2;
    const std::size_t n = std::size_t{block} * blocks;
    std::mt19937 random(17);
    std::vector<std::uint32_t> in(n);
    for (auto& v : in) v = static_cast<std::uint32_t>(random());
    Buffer<std::uint32_t> din(device, n), dout(device, 4 * n);
    din.copy_from_host(in);
    // The kernels' warp width (the cpu backend runs them 32 lanes wide; its Device reports 1).
    Buffer<std::uint32_t> facts(device, 64 * 6);
    module.kernel("warp_facts").launch(stream, {Dim3(1), Dim3(64)}, facts);
    stream.synchronize();
    const auto warp = static_cast<std::int64_t>(facts.to_vector()[0]);
    ASSERT_TRUE(warp == 32 || warp == 64) << warp;
    const char* const kOperations[4] = {"shfl_xor", "shfl", "shfl_down", "shfl_up"};
    std::size_t mismatches = 0;
    for (std::int64_t width = 1; width <= warp; width *= 2) {
        for (std::int64_t operand : {std::int64_t{0}, std::int64_t{1}, width / 2, width - 1, width, 2 * width - 1,
                                     width + 1}) {
            dout.fill(0xDEADBEEFu);
            module.kernel("segmented_shuffles").launch(stream, {Dim3(blocks), Dim3(block)}, din, dout,
                                                       static_cast<std::int32_t>(width),
                                                       static_cast<std::int32_t>(operand));
            const std::vector<std::uint32_t> out = dout.to_vector();
            for (std::size_t i = 0; i < n; ++i) {
                const std::int64_t lane = static_cast<std::int64_t>((i % block) % static_cast<std::size_t>(warp));
                const std::size_t warp_base = i - static_cast<std::size_t>(lane);
                const std::int64_t first = lane / width * width, end = first + width;
                const std::int64_t low = operand & (warp - 1);
                const std::int64_t xor_source = (lane ^ low) < end ? (lane ^ low) : lane;
                const std::int64_t index_source = first + operand % width;
                const std::int64_t down_source = lane + low < end ? lane + low : lane;
                const std::int64_t up_source = lane - low >= first ? lane - low : lane;
                const std::int64_t sources[4] = {xor_source, index_source, down_source, up_source};
                for (int k = 0; k < 4; ++k) {
                    if (out[4 * i + k] == in[warp_base + static_cast<std::size_t>(sources[k])]) continue;
                    if (++mismatches <= 16) {
                        ADD_FAILURE() << kOperations[k] << " width " << width << " operand " << operand << " thread "
                                      << i << ": got " << out[4 * i + k] << ", lane "
                                      << std::find(in.begin() + static_cast<std::ptrdiff_t>(warp_base),
                                                   in.begin() + static_cast<std::ptrdiff_t>(warp_base) + warp,
                                                   out[4 * i + k]) - (in.begin() + static_cast<std::ptrdiff_t>(warp_base))
                                      << "'s value (expected lane " << sources[k] << ")";
                    }
                }
            }
        }
    }
}

TEST_P(Modules, AtomicsOfEveryWidth) {
    const std::size_t n = 100003;
    std::mt19937 random(3);
    std::vector<std::int32_t> in(n);
    for (auto& v : in) v = static_cast<std::int32_t>(random() % 2000001) - 1000000;
    Buffer<std::int32_t> din(device, n), min_max(device, 2);
    din.copy_from_host(in);
    min_max.copy_from_host(std::vector<std::int32_t>{INT32_MAX, INT32_MIN});
    Buffer<std::uint32_t> count(device, 1), scratch(device, 8);
    Buffer<float> sum(device, 1);
    count.fill(0u);
    scratch.fill(0u);
    sum.fill(0.0f);
    module.kernel("atomics").launch(stream, {Dim3(16), Dim3(128)}, din, n, count, min_max, sum, scratch);
    EXPECT_EQ(count.to_vector()[0], n);
    EXPECT_EQ(min_max.to_vector()[0], *std::min_element(in.begin(), in.end()));
    EXPECT_EQ(min_max.to_vector()[1], *std::max_element(in.begin(), in.end()));
    EXPECT_EQ(sum.to_vector()[0], static_cast<float>(n)); // n < 2^24: every partial sum is exact
    const auto s = scratch.to_vector();
    EXPECT_EQ(s[0], 0u);
    EXPECT_EQ(s[1], n);                                 // high word of n << 32
    EXPECT_EQ(s[2], static_cast<std::uint32_t>(n - 1)); // max index, low word
    EXPECT_EQ(s[3], 0u);
    const std::int64_t least = -static_cast<std::int64_t>(n - 1);
    EXPECT_EQ(s[4], static_cast<std::uint32_t>(static_cast<std::uint64_t>(least)));
    EXPECT_EQ(s[5], static_cast<std::uint32_t>(static_cast<std::uint64_t>(least) >> 32));
    EXPECT_EQ(s[6], 7u);
    EXPECT_EQ(s[7], 7u);
}

TEST_P(Modules, DynamicSharedMemoryAndHalfFloats) {
    const std::uint32_t count = 1000, blocks = 5;
    std::vector<std::int32_t> in(std::size_t{count} * blocks);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i * 31);
    Buffer<std::int32_t> din(device, in.size()), dout(device, in.size());
    din.copy_from_host(in);
    dout.fill(0);
    module.kernel("dynamic_rotate").launch(stream, {Dim3(blocks), Dim3(96), count * sizeof(std::int32_t)}, din, dout, count);
    const auto out = dout.to_vector();
    for (std::size_t b = 0; b < blocks; ++b) {
        for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(out[b * count + i], in[b * count + (i + 1) % count]);
    }

    const std::size_t n = 3001;
    std::vector<gpucore::half> a(n), bh(n);
    std::mt19937 random(9);
    std::uniform_real_distribution<float> value(-100, 100);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = gpucore::half(value(random));
        bh[i] = gpucore::half(value(random));
    }
    Buffer<gpucore::half> da(device, n), db(device, n), dc(device, n);
    da.copy_from_host(a);
    db.copy_from_host(bh);
    dc.fill(gpucore::half(std::nanf("")));
    module.kernel("add_half").launch(stream, {Dim3(static_cast<std::uint32_t>((n + 127) / 128)), Dim3(128)}, da, db, dc, n);
    const auto c = dc.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(c[i].bits(), gpucore::half(float(a[i]) + float(bh[i])).bits()) << i;
    }
}

TEST_P(Modules, MisuseIsAClearError) {
    const auto saxpy = module.kernel("saxpy");
    Buffer<float> x(device, 10), y(device, 10);
    Buffer<double> d(device, 10);
    const gpucore::LaunchConfig one{Dim3(1), Dim3(32)};
    const std::size_t n = 10;
    std::string what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0f, x, y); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("takes 4 argument(s), 3 given"), std::string::npos) << what;
    EXPECT_NE(what.find("saxpy"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, x, x, y, n); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("argument 1"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0f, d, y, n); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("buffer of f64"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0, x, y, n); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("double"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0f, x, y, -1); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("outside its range"), std::string::npos) << what;
    const gpucore::BufferView<const float> read_only = y.view(0, 10);
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0f, x, read_only, n); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("read-only"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, {Dim3(1), Dim3(2048)}, 1.0f, x, y, n); }, &what), ErrorCode::invalid_argument);
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, {Dim3(0), Dim3(32)}, 1.0f, x, y, n); }, &what), ErrorCode::invalid_argument);
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, {Dim3(1), Dim3(32), std::size_t{1} << 30}, 1.0f, x, y, n); }, &what),
              ErrorCode::invalid_argument);
    EXPECT_NE(what.find("shared memory"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { (void)module.kernel("no_such_kernel"); }, &what), ErrorCode::invalid_argument);
    EXPECT_NE(what.find("reverse_blocks"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { (void)Module::load(device, "no_such_module"); }, &what), ErrorCode::backend_unavailable);
    EXPECT_NE(what.find("no_such_module.gpucore-"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] { (void)Module::load(device, "../etc/passwd"); }, &what), ErrorCode::invalid_argument);
    // A buffer of another device.
    for (const Device& other : module_devices()) {
        if (other == device) continue;
        Buffer<float> elsewhere(other, 10);
        EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0f, elsewhere, y, n); }, &what), ErrorCode::invalid_argument);
        EXPECT_NE(what.find("is on " + other.to_string()), std::string::npos) << what;
        break;
    }
    // Nothing was enqueued by the refused launches.
    y.fill(2.0f);
    x.fill(1.0f);
    saxpy.launch(stream, {Dim3(1), Dim3(32)}, 3.0f, x, y, n);
    EXPECT_EQ(y.to_vector(), std::vector<float>(10, 5.0f));
}

TEST_P(Modules, ParametersDescribeTheKernel) {
    using Kind = gpucore::KernelParameter::Kind;
    const std::vector<gpucore::KernelParameter> saxpy = module.kernel("saxpy").parameters();
    ASSERT_EQ(saxpy.size(), 4u);
    EXPECT_EQ(saxpy[0].kind, Kind::scalar);
    EXPECT_EQ(saxpy[0].type, "f32");
    EXPECT_EQ(saxpy[0].size, sizeof(float));
    EXPECT_EQ(saxpy[1].kind, Kind::const_buffer);
    EXPECT_EQ(saxpy[1].type, "f32");
    EXPECT_EQ(saxpy[1].size, sizeof(void*));
    EXPECT_EQ(saxpy[2].kind, Kind::buffer);
    EXPECT_EQ(saxpy[2].type, "f32");
    EXPECT_EQ(saxpy[3].kind, Kind::scalar);
    EXPECT_EQ(saxpy[3].type, "u64");
    EXPECT_EQ(saxpy[3].size, sizeof(std::size_t));
    const auto rotate = module.kernel("dynamic_rotate").parameters();
    ASSERT_EQ(rotate.size(), 3u);
    EXPECT_EQ(rotate[0].type, "i32");
    EXPECT_EQ(rotate[2].type, "u32");
    EXPECT_EQ(rotate[2].size, 4u);
}

// The launch built at run time (KernelArgument) computes what the host does and what the typed
// launch does, and refuses what the typed launch refuses with the same error.
TEST_P(Modules, ArgumentsBuiltAtRunTime) {
    using gpucore::KernelArgument;
    const auto saxpy = module.kernel("saxpy");
    for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{100003}}) {
        std::vector<float> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = static_cast<float>(i % 17) - 8.25f;
            y[i] = static_cast<float>(i % 5) * 0.5f;
        }
        Buffer<float> dx(device, n), typed(device, n), erased(device, n);
        dx.copy_from_host(x);
        typed.copy_from_host(y);
        erased.copy_from_host(y);
        const gpucore::LaunchConfig shape{Dim3(static_cast<std::uint32_t>(std::min<std::size_t>(n / 64 + 1, 40))), Dim3(64)};
        saxpy.launch(stream, shape, 1.5f, dx, typed, n);
        // y as a range of any element type, as language bindings hold buffers.
        saxpy.launch(stream, shape,
                     {KernelArgument::scalar(1.5f), KernelArgument::buffer(dx.view(0, n)),
                      KernelArgument::buffer(gpucore::detail::MemoryRange(erased.allocation()), gpucore::DType::f32, true),
                      KernelArgument::scalar(static_cast<std::int64_t>(n))});
        const auto want = typed.to_vector();
        const auto got = erased.to_vector();
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(got[i], 1.5f * x[i] + y[i]) << "n " << n << " i " << i;
            ASSERT_EQ(got[i], want[i]) << "n " << n << " i " << i;
        }
    }

    Buffer<float> x(device, 10), y(device, 10);
    const gpucore::LaunchConfig one{Dim3(1), Dim3(32)};
    std::string typed_what, what;
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, 1.0, x, y, std::size_t{10}); }, &typed_what), ErrorCode::invalid_argument);
    EXPECT_EQ(error_of([&] {
                  saxpy.launch(stream, one, {KernelArgument::scalar(1.0), KernelArgument::buffer(x), KernelArgument::buffer(y),
                                             KernelArgument::scalar(std::size_t{10})});
              }, &what),
              ErrorCode::invalid_argument);
    EXPECT_EQ(what, typed_what);
    EXPECT_EQ(error_of([&] { saxpy.launch(stream, one, {KernelArgument::scalar(1.0f), KernelArgument::buffer(x)}); }, &what),
              ErrorCode::invalid_argument);
    EXPECT_NE(what.find("takes 4 argument(s), 2 given"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] {
                  saxpy.launch(stream, one, {KernelArgument::scalar(1.0f), KernelArgument::buffer(x),
                                             KernelArgument::buffer(gpucore::detail::MemoryRange(y.allocation()),
                                                                    gpucore::DType::f32, false),
                                             KernelArgument::scalar(std::size_t{10})});
              }, &what),
              ErrorCode::invalid_argument);
    EXPECT_NE(what.find("read-only"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] {
                  saxpy.launch(stream, one, {KernelArgument::scalar(1.0f), KernelArgument::buffer(x), KernelArgument::buffer(y),
                                             KernelArgument::scalar(std::int64_t{-1})});
              }, &what),
              ErrorCode::invalid_argument);
    EXPECT_NE(what.find("outside its range"), std::string::npos) << what;
    EXPECT_EQ(error_of([&] {
                  saxpy.launch(stream, one, {KernelArgument::scalar(1.0f), KernelArgument::buffer(x), KernelArgument::buffer(y),
                                             KernelArgument{}});
              }, &what),
              ErrorCode::invalid_argument);
    EXPECT_NE(what.find("argument 4"), std::string::npos) << what;
}

TEST_P(Modules, AFaultSurfacesAtTheNextSynchronize) {
    if (!runs_on_cpu(GetParam())) GTEST_SKIP() << "a divergent barrier hangs or faults a real GPU";
    Buffer<std::int32_t> out(device, 64);
    module.kernel("divergent_barrier").launch(stream, {Dim3(1), Dim3(64)}, out);
    std::string what;
    EXPECT_EQ(error_of([&] { stream.synchronize(); }, &what), ErrorCode::device_error);
    EXPECT_NE(what.find("divergent_barrier"), std::string::npos) << what;
    stream.synchronize(); // reported once
}

INSTANTIATE_TEST_SUITE_P(Devices, Modules, testing::ValuesIn(module_devices()), device_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Modules);

// Module files that must be refused, with their reason, without crashing.
// A number facet that reads every unsigned integer as 0: a library loaded into the same process
// (a Python extension, a framework) may install a global locale that parses differently.
struct ZeroingNumbers : std::num_get<char> {
    iter_type do_get(iter_type in, iter_type end, std::ios_base& stream, std::ios_base::iostate& state,
                     unsigned int& value) const override {
        in = std::num_get<char>::do_get(in, end, stream, state, value);
        value = 0;
        return in;
    }
};

TEST(ModuleFiles, ManifestsReadTheSameUnderAnyGlobalLocale) {
#if defined(GPUCORE_TEST_EXAMPLE_MODULE_DIR)
    const Device cpu = gpucore::select_device("cpu");
    ::setenv("GPUCORE_MODULE_PATH", GPUCORE_TEST_EXAMPLE_MODULE_DIR, 1);
    const std::locale saved = std::locale::global(std::locale(std::locale::classic(), new ZeroingNumbers));
    std::string what;
    bool loaded = false;
    try {
        const Module histogram = Module::load(cpu, "histogram"); // not loaded before in this process
        loaded = !histogram.kernel("histogram256").name().empty();
    } catch (const gpucore::Error& e) {
        what = e.what();
    }
    std::locale::global(saved);
    ::unsetenv("GPUCORE_MODULE_PATH");
    EXPECT_TRUE(loaded) << what;
#else
    GTEST_SKIP() << "the examples' cpu modules are not built";
#endif
}

class HostileModules : public testing::Test {
protected:
    void SetUp() override {
        // In the build tree: a private folder whose every parent passes the trust rule.
        folder = std::filesystem::path(GPUCORE_TEST_MODULE_DIR) / ("hostile-modules-" + std::to_string(::getpid()));
        std::filesystem::create_directories(folder);
        ::chmod(folder.c_str(), 0700);
        ::setenv("GPUCORE_MODULE_PATH", folder.c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("GPUCORE_MODULE_PATH");
        std::filesystem::remove_all(folder);
    }
    std::filesystem::path write(const std::string& name, const std::string& bytes, mode_t mode = 0644) {
        const auto path = folder / (name + ".gpucore-cpu.so");
        std::ofstream(path, std::ios::binary) << bytes;
        ::chmod(path.c_str(), mode);
        return path;
    }
    std::filesystem::path folder;
};

TEST_F(HostileModules, CorruptTruncatedAndUntrustedFilesAreRefusedWithTheirReason) {
    if (std::string(GPUCORE_TEST_MODULE_KINDS).find(" cpu ") == std::string::npos) {
        GTEST_SKIP() << "this build made no cpu module to corrupt (no Boost.Context)";
    }
    const Device cpu = gpucore::select_device("cpu");
    std::string real;
    {
        std::ifstream in(std::filesystem::path(GPUCORE_TEST_MODULE_DIR) / "test_kernels.gpucore-cpu.so", std::ios::binary);
        real.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(real.size(), 1000u);
    std::mt19937 random(4);
    std::string garbage(4096, '\0');
    for (auto& c : garbage) c = static_cast<char>(random());
    struct Case {
        std::string name, bytes;
        mode_t mode;
        std::string reason;
    };
    const std::vector<Case> cases = {
        {"garbage", garbage, 0644, "not an ELF file"},
        {"truncated", real.substr(0, real.size() / 3), 0644, "truncated"},
        {"renamed", real, 0644, "its manifest names module 'test_kernels'"},
        {"writable", real, 0666, "writable"},
    };
    for (const Case& c : cases) {
        write(c.name, c.bytes, c.mode);
        std::string what;
        EXPECT_EQ(error_of([&] { (void)Module::load(cpu, c.name); }, &what), ErrorCode::plugin_error) << c.name;
        EXPECT_NE(what.find(c.reason), std::string::npos) << c.name << ": " << what;
    }
}

} // namespace
