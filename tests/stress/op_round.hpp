// SPDX-License-Identifier: Apache-2.0
// One round of every operation for one element type, enqueued asynchronously on two streams of a
// device and checked exactly afterwards. The concurrency tests run many rounds from many threads.
//
// A round enqueues: a vector_add; a transpose; a reduce and a reduce_rows for every reduce op; a
// vector_add over a buffer shared read-only by all threads; and a producer/consumer pair across
// the two streams joined by an event. Inputs are uploaded and outputs downloaded asynchronously on
// the same streams, outputs are poisoned on the device and on the host first, and nothing is
// checked before both streams are synchronized: every result depends on the streams keeping
// order, the event dependency holding and no other thread's work touching this round's memory.
#pragma once

#include <cstddef>
#include <deque>
#include <list>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exact_values.hpp"
#include "stress_support.hpp"

namespace gpucore::stress {

// Lengths around warp, block and parallel-threshold boundaries; 65537 f32 elements are past the
// CPU backend's threshold for using its OpenMP team.
inline constexpr std::size_t round_lengths[] = {0, 1, 31, 33, 1023, 4097, 65537};
struct Shape {
    std::size_t rows, cols;
};
inline constexpr Shape round_shapes[] = {{1, 1}, {1, 37}, {37, 1}, {31, 33}, {64, 64}, {129, 67}, {300, 301}};

template <class T>
class OpRound {
public:
    OpRound(const Device& device, std::uint64_t seed) : device_(device), rng_(seed) {}

    // `shared` holds `shared_host` and is only read, by every thread at once.
    void enqueue(Stream& first, Stream& second, Event& handoff, const Buffer<T>& shared,
                 const std::vector<T>& shared_host) {
        enqueue_vector_add(first);
        enqueue_transpose(second);
        int k = 0;
        for (ReduceOp op : all_reduce_ops) {
            enqueue_reduce(++k % 2 ? first : second, op);
            enqueue_reduce_rows(k % 2 ? second : first, op);
        }
        enqueue_shared_read(second, shared, shared_host);
        enqueue_handoff(first, second, handoff);
    }

    // Call after both streams were synchronized. Adds one message per wrong result to `log`.
    void verify(FailureLog& log, const std::string& who) const {
        for (const Pending& p : pending_) {
            const long long at = first_mismatch(p.got, p.want);
            if (at >= 0) {
                const auto i = static_cast<std::size_t>(at);
                log.add(who + " " + to_string(dtype_of<T>()) + " " + p.what + ": element " +
                        std::to_string(at) + " is " + std::to_string(p.got[i]) + ", want " +
                        std::to_string(p.want[i]));
            }
        }
    }

private:
    struct Pending {
        std::string what;
        // deques: elements never move, so references and pending asynchronous copies stay valid
        std::deque<std::vector<T>> inputs; // host memory the uploads read until synchronize
        std::deque<Buffer<T>> buffers;     // device memory the work uses until synchronize
        std::vector<T> got;                 // filled by the asynchronous download
        std::vector<T> want;
    };

    std::size_t pick_length() {
        std::uniform_int_distribution<std::size_t> pick(0, std::size(round_lengths) - 1);
        return round_lengths[pick(rng_)];
    }
    Shape pick_shape() {
        std::uniform_int_distribution<std::size_t> pick(0, std::size(round_shapes) - 1);
        return round_shapes[pick(rng_)];
    }

    Pending& add(std::string what) {
        pending_.emplace_back();
        pending_.back().what = std::move(what);
        return pending_.back();
    }

    Buffer<T>& upload(Pending& p, Stream& stream, std::vector<T> host) {
        p.inputs.push_back(std::move(host));
        const std::vector<T>& kept = p.inputs.back();
        p.buffers.emplace_back(device_, kept.size());
        p.buffers.back().copy_from_host_async(stream, kept.data(), kept.size());
        return p.buffers.back();
    }

    Buffer<T>& poisoned_output(Pending& p, Stream& stream, std::size_t n) {
        p.buffers.emplace_back(device_, n);
        p.buffers.back().fill_async(stream, poison<T>());
        p.got.assign(n, poison<T>());
        return p.buffers.back();
    }

    void download(Pending& p, Stream& stream, const Buffer<T>& out) {
        out.copy_to_host_async(stream, p.got.data(), p.got.size());
    }

    void enqueue_vector_add(Stream& stream) {
        const std::size_t n = pick_length();
        Pending& p = add("vector_add n=" + std::to_string(n));
        Buffer<T>& a = upload(p, stream, exact_inputs<T>(rng_, n, ReduceOp::max));
        Buffer<T>& b = upload(p, stream, exact_inputs<T>(rng_, n, ReduceOp::min));
        Buffer<T>& c = poisoned_output(p, stream, n);
        vector_add(stream, a, b, c);
        download(p, stream, c);
        p.want = reference::vector_add(p.inputs[0], p.inputs[1]);
    }

    void enqueue_transpose(Stream& stream) {
        const Shape s = pick_shape();
        Pending& p = add("transpose " + std::to_string(s.rows) + "x" + std::to_string(s.cols));
        Buffer<T>& in = upload(p, stream, exact_inputs<T>(rng_, s.rows * s.cols, ReduceOp::max));
        Buffer<T>& out = poisoned_output(p, stream, s.rows * s.cols);
        transpose(stream, in, out, s.rows, s.cols);
        download(p, stream, out);
        p.want = reference::transpose(p.inputs[0], s.rows, s.cols);
    }

    void enqueue_reduce(Stream& stream, ReduceOp op) {
        const std::size_t n = pick_length();
        Pending& p = add(std::string("reduce ") + to_string(op) + " n=" + std::to_string(n));
        Buffer<T>& in = upload(p, stream, exact_inputs<T>(rng_, n, op));
        Buffer<T>& out = poisoned_output(p, stream, 1);
        reduce(stream, in, out, op);
        download(p, stream, out);
        p.want = {exact_reduce(p.inputs[0].data(), n, op)};
    }

    void enqueue_reduce_rows(Stream& stream, ReduceOp op) {
        const Shape s = pick_shape();
        Pending& p = add(std::string("reduce_rows ") + to_string(op) + " " + std::to_string(s.rows) + "x" +
                         std::to_string(s.cols));
        Buffer<T>& in = upload(p, stream, exact_inputs<T>(rng_, s.rows * s.cols, op));
        Buffer<T>& out = poisoned_output(p, stream, s.rows);
        reduce_rows(stream, in, out, s.rows, s.cols, op);
        download(p, stream, out);
        p.want = exact_reduce_rows(p.inputs[0], s.rows, s.cols, op);
    }

    void enqueue_shared_read(Stream& stream, const Buffer<T>& shared, const std::vector<T>& shared_host) {
        Pending& p = add("vector_add of the shared buffer n=" + std::to_string(shared.size()));
        Buffer<T>& twice = poisoned_output(p, stream, shared.size());
        vector_add(stream, shared, shared, twice);
        download(p, stream, twice);
        p.want = reference::vector_add(shared_host, shared_host);
    }

    // c = a + b on `producer`; the event; reduce sum of c on `consumer` after waiting for it.
    void enqueue_handoff(Stream& producer, Stream& consumer, Event& handoff) {
        const std::size_t n = 4097;
        Pending& p = add("producer/consumer across streams n=" + std::to_string(n));
        Buffer<T>& a = upload(p, producer, exact_inputs<T>(rng_, n, ReduceOp::sum));
        Buffer<T>& b = upload(p, producer, exact_inputs<T>(rng_, n, ReduceOp::sum));
        p.buffers.emplace_back(device_, n);
        Buffer<T>& c = p.buffers.back();
        c.fill_async(producer, poison<T>());
        vector_add(producer, a, b, c);
        handoff.record(producer);
        consumer.wait(handoff);
        Buffer<T>& total = poisoned_output(p, consumer, 1);
        reduce(consumer, c, total, ReduceOp::sum);
        download(p, consumer, total);
        const std::vector<T> sum = reference::vector_add(p.inputs[0], p.inputs[1]);
        p.want = {exact_reduce(sum.data(), n, ReduceOp::sum)};
    }

    Device device_;
    std::mt19937_64 rng_;
    std::list<Pending> pending_; // a list: Pending objects never move once enqueued
};

} // namespace gpucore::stress
