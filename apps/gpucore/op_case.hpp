// SPDX-License-Identifier: Apache-2.0
// OpCase<T>: one CaseSpec made real on a device: seeded random inputs (kept on the host for the
// reference), `sets` identical copies of the buffers to rotate through so that repeated runs do
// not find their inputs in cache, and the calls that enqueue, poison and verify the op.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "case_spec.hpp"
#include "gpucore/gpucore.hpp"
#include "memory_check.hpp"
#include "operation.hpp"
#include "random_fill.hpp"
#include "verify.hpp"

namespace gpucore::cli {

// The value outputs are filled with before a verified run: NaN for floats (never a correct
// result here, inputs hold no NaN), an unlikely pattern for integers.
template <class T>
T poison_value() noexcept {
    if constexpr (gpucore::is_float_element_v<T>) return std::numeric_limits<T>::quiet_NaN();
    else return static_cast<T>(0x5EEDBAD5u);
}

template <class T>
class OpCase {
public:
    // Allocates `sets` (>= 1) copies of the buffers on `device` and uploads the same random
    // inputs into each. Throws gpucore::Error (e.g. out_of_memory).
    // Checks first that the buffers and the host copies fit (ResourceError otherwise).
    OpCase(const Device& device, const CaseSpec& spec, std::size_t sets, std::uint64_t seed)
        : spec_(spec), calls_(spec.op->calls_for<T>()) {
        require_fits(device, spec, sets);
        const InputDistribution dist = input_distribution(spec);
        const std::size_t n = spec.input_elements();
        host_in_.resize(spec.op->inputs);
        for (std::size_t k = 0; k < host_in_.size(); ++k) {
            host_in_[k].resize(n);
            random_fill(host_in_[k].data(), n, input_seed(seed, k), dist);
        }
        sets_.reserve(sets);
        for (std::size_t s = 0; s < sets; ++s) {
            Set set;
            for (std::size_t k = 0; k < host_in_.size(); ++k) {
                set.in.emplace_back(device, n);
                if (s == 0) set.in[k].copy_from_host(host_in_[k]);
                else set.in[k].copy_from(sets_[0].in[k]); // device copies: cheaper than uploading again
            }
            set.out = Buffer<T>(device, spec.output_elements());
            set.out.fill(T{});
            sets_.push_back(std::move(set));
        }
    }

    std::size_t sets() const noexcept { return sets_.size(); }
    const CaseSpec& spec() const noexcept { return spec_; }
    // Bytes allocated on the device by all sets.
    double footprint_bytes() const noexcept {
        double bytes = 0;
        for (const Set& s : sets_) {
            for (const Buffer<T>& in : s.in) bytes += static_cast<double>(in.bytes());
            bytes += static_cast<double>(s.out.bytes());
        }
        return bytes;
    }

    // Enqueues the op on the buffers of set `set`.
    void enqueue(Stream& stream, std::size_t set) {
        Set& s = sets_[set];
        calls_.enqueue(stream, spec_, s.in, s.out);
    }

    // Enqueues a fill of set `set`'s output with poison_value<T>().
    void poison_output(Stream& stream, std::size_t set) {
        sets_[set].out.fill_async(stream, poison_value<T>());
    }

    // Copies set `set`'s output to the host on `stream`, waits, and compares it with the
    // double-precision reference of the host inputs.
    Verification verify(Stream& stream, std::size_t set) const {
        const Set& s = sets_[set];
        std::vector<T> out(s.out.size());
        s.out.copy_to_host_async(stream, out.data(), out.size());
        stream.synchronize();
        return calls_.verify(spec_, host_in_, out);
    }

    // The buffers of set `set`: input k (0: the first or only one) and the output.
    const Buffer<T>& in(std::size_t set, std::size_t k) const { return sets_[set].in[k]; }
    Buffer<T>& out(std::size_t set) { return sets_[set].out; }

private:
    static void require_fits(const Device& device, const CaseSpec& spec, std::size_t sets) {
        const double in = static_cast<double>(spec.input_elements()) * sizeof(T);
        const double out = static_cast<double>(spec.output_elements()) * sizeof(T);
        const double inputs = static_cast<double>(spec.op->inputs) * in;
        // Device: every set's buffers. Host: the inputs kept for the reference, and the output
        // copied back for verification.
        require_memory(device, spec.name(), static_cast<double>(sets) * (inputs + out), inputs + out);
    }

    // Input k's random stream: the case's seed for the first input, a fixed mix of it for others.
    static std::uint64_t input_seed(std::uint64_t seed, std::size_t k) noexcept {
        return k == 0 ? seed : seed ^ (0xB0B0B0B0B0B0B0B0ull * k);
    }

    struct Set {
        std::vector<Buffer<T>> in; // one per input of the op
        Buffer<T> out;
    };
    CaseSpec spec_;
    const OperationCalls<T>& calls_;
    std::vector<std::vector<T>> host_in_; // the inputs, kept on the host for the reference
    std::vector<Set> sets_;
};

} // namespace gpucore::cli
