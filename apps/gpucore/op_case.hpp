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
        : spec_(spec) {
        require_fits(device, spec, sets);
        const InputDistribution dist = input_distribution(spec);
        const std::size_t n = spec.input_elements();
        host_a_.resize(n);
        random_fill(host_a_.data(), n, seed, dist);
        if (spec.op == OpKind::vector_add) {
            host_b_.resize(n);
            random_fill(host_b_.data(), n, seed ^ 0xB0B0B0B0B0B0B0B0ull, dist);
        }
        sets_.reserve(sets);
        for (std::size_t s = 0; s < sets; ++s) {
            Set set;
            set.a = Buffer<T>(device, n);
            if (spec.op == OpKind::vector_add) set.b = Buffer<T>(device, n);
            set.out = Buffer<T>(device, spec.output_elements());
            if (s == 0) {
                set.a.copy_from_host(host_a_);
                if (set.b.valid()) set.b.copy_from_host(host_b_);
            } else { // device copies: cheaper than uploading again
                set.a.copy_from(sets_[0].a);
                if (set.b.valid()) set.b.copy_from(sets_[0].b);
            }
            set.out.fill(T{});
            sets_.push_back(std::move(set));
        }
    }

    std::size_t sets() const noexcept { return sets_.size(); }
    const CaseSpec& spec() const noexcept { return spec_; }
    // Bytes allocated on the device by all sets.
    double footprint_bytes() const noexcept {
        double bytes = 0;
        for (const Set& s : sets_)
            bytes += static_cast<double>(s.a.bytes() + s.b.bytes() + s.out.bytes());
        return bytes;
    }

    // Enqueues the op on the buffers of set `set`.
    void enqueue(Stream& stream, std::size_t set) {
        Set& s = sets_[set];
        switch (spec_.op) {
        case OpKind::vector_add: vector_add(stream, s.a, s.b, s.out); break;
        case OpKind::transpose: transpose(stream, s.a, s.out, spec_.rows, spec_.cols); break;
        case OpKind::reduce: reduce(stream, s.a, s.out, spec_.reduce_op); break;
        case OpKind::reduce_rows:
            reduce_rows(stream, s.a, s.out, spec_.rows, spec_.cols, spec_.reduce_op);
            break;
        }
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
        switch (spec_.op) {
        case OpKind::vector_add:
            return verify_vector_add(host_a_.data(), host_b_.data(), out.data(), out.size());
        case OpKind::transpose:
            return verify_transpose(host_a_.data(), out.data(), spec_.rows, spec_.cols);
        case OpKind::reduce:
            return verify_reduce(host_a_.data(), host_a_.size(), out.at(0), spec_.reduce_op);
        case OpKind::reduce_rows:
            return verify_reduce_rows(host_a_.data(), spec_.rows, spec_.cols, out.data(),
                                      spec_.reduce_op);
        }
        return {};
    }

    // The buffers of set `set` (a: first or only input, b: second input of vector_add).
    const Buffer<T>& a(std::size_t set) const { return sets_[set].a; }
    const Buffer<T>& b(std::size_t set) const { return sets_[set].b; }
    Buffer<T>& out(std::size_t set) { return sets_[set].out; }

private:
    static void require_fits(const Device& device, const CaseSpec& spec, std::size_t sets) {
        const double in = static_cast<double>(spec.input_elements()) * sizeof(T);
        const double out = static_cast<double>(spec.output_elements()) * sizeof(T);
        const double inputs = spec.op == OpKind::vector_add ? 2 * in : in;
        // Device: every set's buffers. Host: the inputs kept for the reference, and the output
        // copied back for verification.
        require_memory(device, spec.name(), static_cast<double>(sets) * (inputs + out), inputs + out);
    }

    struct Set {
        Buffer<T> a, b, out; // b stays null except for vector_add
    };
    CaseSpec spec_;
    std::vector<T> host_a_, host_b_;
    std::vector<Set> sets_;
};

} // namespace gpucore::cli
