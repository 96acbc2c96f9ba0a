// SPDX-License-Identifier: Apache-2.0
// The "template" backend: a complete, deliberately simple gpucore plugin to copy from.
//
// One device whose "device memory" is ordinary host memory, and plain loops for every operation.
// Work runs synchronously inside each call, which trivially satisfies the stream contract (work
// on a stream runs in enqueue order; it has finished when the call returns), so streams and events
// need no threads. A real backend enqueues instead; everything else here is the same.
//
// What every plugin must do, shown here:
//  - export ONE function, GPUCORE_PLUGIN_ENTRY, returning a static table (nothing else exported:
//    build with hidden visibility / the version script gpucore_add_plugin applies);
//  - never let a C++ exception or a crash cross the C boundary: every slot catches at the boundary
//    and reports a status plus a message;
//  - trust its arguments: the core has validated devices, lengths, overflow and buffer sizes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "gpucore/element_types.hpp"
#include "gpucore/plugin_support.hpp"
#include "gpucore/reduce_rules.hpp"
#include "gpucore/plugin.h"

namespace {

// The plugin SDK (gpucore/plugin_support.hpp) holds the boundary plumbing: guarded() runs a slot
// body and turns any C++ exception into a status and message; HostServices keeps what init got.
using gpucore::plugin::guarded;

gpucore::plugin::HostServices g_host; // what init received; log is optional to use

gpucore_status fail(gpucore_message* msg, gpucore_status status, const char* text) {
    gpucore::plugin::write_message(msg, text);
    return status;
}

// ---- the operations' loops, one instance per dtype (the first argument names the type) -----------

using gpucore::type_tag;

template <class T>
void add(type_tag<T>, const void* a, const void* b, void* c, size_t n) {
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    T* z = static_cast<T*>(c);
    for (size_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, std::int32_t>) {
            // Signed overflow is undefined in C++: add as unsigned, which wraps as documented.
            z[i] = static_cast<T>(static_cast<std::uint32_t>(x[i]) + static_cast<std::uint32_t>(y[i]));
        } else {
            z[i] = static_cast<T>(x[i] + y[i]);
        }
    }
}

template <class T>
void transpose_loop(type_tag<T>, const void* in, void* out, size_t rows, size_t cols) {
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
    }
}

template <class T>
T identity(gpucore_reduce_op op) {
    return gpucore::reduce_rules::identity<T>(op);
}

// One combine step of `op` (identities, combine and the NaN rule: gpucore/reduce_rules.hpp).
// Integer sums and products run in uint32_t: they wrap as the contract says, without UB.
template <class T>
T combine(gpucore_reduce_op op, T a, T b) {
    if (std::is_integral_v<T> && (op == GPUCORE_REDUCE_SUM || op == GPUCORE_REDUCE_PROD)) {
        std::uint32_t wrapped = 0;
        gpucore::reduce_rules::visit_op<std::uint32_t>(op, [&](auto rule) {
            wrapped = rule.combine(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
        });
        return static_cast<T>(wrapped);
    }
    T result = a;
    gpucore::reduce_rules::visit_op<T>(op, [&](auto rule) { result = rule.combine(a, b); });
    return result;
}

// Pairwise (tree) reduction: float sums keep O(log n) error growth instead of a serial chain's O(n).
// half and bfloat16 accumulate in float (gpucore::accumulator_t), as the contract says.
template <class T>
gpucore::accumulator_t<T> reduce_range(gpucore_reduce_op op, const T* data, size_t n) {
    using Acc = gpucore::accumulator_t<T>;
    if (n <= 16) {
        Acc acc = identity<Acc>(op);
        for (size_t i = 0; i < n; ++i) acc = combine(op, acc, static_cast<Acc>(data[i]));
        return acc;
    }
    const size_t middle = n / 2;
    return combine(op, reduce_range(op, data, middle), reduce_range(op, data + middle, n - middle));
}

template <class T>
void reduce_rows_loop(type_tag<T>, gpucore_reduce_op op, const void* in, size_t rows, size_t cols, void* out) {
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    for (size_t r = 0; r < rows; ++r) dst[r] = static_cast<T>(reduce_range(op, src + r * cols, cols));
}

// An operation's slot body: calls run(type_tag<T>{}) with T the element type of the runtime dtype,
// inside guarded() (gpucore::visit_dtype expands the contract's dtype list, so a dtype added to
// the contract reaches this code).
template <class Run>
gpucore_status dispatch(gpucore_dtype dtype, gpucore_message* msg, Run&& run) {
    return guarded(msg, [&] {
        const bool known = gpucore::visit_dtype(dtype, run);
        return known ? GPUCORE_OK : fail(msg, GPUCORE_ERROR_NOT_SUPPORTED, "template: unknown dtype");
    });
}

// ---- streams and events ---------------------------------------------------------------------------

// Work is done when its call returns, so a stream carries no state; an event only its timestamp.
struct Stream {};
struct Event {
    bool recorded = false;
    std::chrono::steady_clock::time_point when{};
};

Event* as_event(gpucore_event e) { return reinterpret_cast<Event*>(e); }

// ---- the slots --------------------------------------------------------------------------------------

gpucore_status tpl_init(const gpucore_host_services* host, gpucore_message*) {
    g_host.copy_from(host);
    g_host.log(GPUCORE_LOG_DEBUG, "template backend initialised (1 host device)");
    return GPUCORE_OK;
}

void tpl_shutdown(void) {}

gpucore_status tpl_device_count(int* count, gpucore_message*) {
    *count = 1;
    return GPUCORE_OK;
}

gpucore_status tpl_device_properties(int, gpucore_device_properties* props, gpucore_message*) {
    // Write only the fields this plugin knows; props->struct_size says how much the core reserved.
    std::snprintf(props->name, sizeof props->name, "%s", "template host device (plain loops)");
    std::snprintf(props->vendor, sizeof props->vendor, "%s", "gpucore");
    std::snprintf(props->architecture, sizeof props->architecture, "%s", "host");
    props->total_memory_bytes = 0; // unknown
    props->compute_units = 1;
    props->warp_size = 1;
    props->l2_cache_bytes = 0;
    props->peak_memory_bandwidth_gbps = 0;
    props->supports_pinned_host = 1; // all its memory is host memory
    props->supports_managed = 0;     // left out on purpose: shows the not_supported path
    return GPUCORE_OK;
}

gpucore_status tpl_allocate(int, gpucore_memory_kind kind, size_t bytes, void** ptr, gpucore_message* msg) {
    if (kind == GPUCORE_MEMORY_MANAGED) {
        return fail(msg, GPUCORE_ERROR_NOT_SUPPORTED, "template: managed memory is not supported");
    }
    constexpr size_t alignment = 256;
    if (bytes > std::numeric_limits<size_t>::max() - alignment) {
        return fail(msg, GPUCORE_ERROR_OUT_OF_MEMORY, "template: allocation size too large");
    }
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment; // aligned_alloc's rule
    void* p = std::aligned_alloc(alignment, rounded);
    if (p == nullptr) {
        char text[128];
        std::snprintf(text, sizeof text, "template: aligned_alloc(%zu) failed", rounded);
        return fail(msg, GPUCORE_ERROR_OUT_OF_MEMORY, text);
    }
    *ptr = p;
    return GPUCORE_OK;
}

gpucore_status tpl_deallocate(int, gpucore_memory_kind, void* ptr, gpucore_message*) {
    std::free(ptr);
    return GPUCORE_OK;
}

gpucore_status tpl_stream_create(int, gpucore_stream* stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        *stream = reinterpret_cast<gpucore_stream>(new Stream());
        return GPUCORE_OK;
    });
}

gpucore_status tpl_stream_destroy(gpucore_stream stream, gpucore_message*) {
    delete reinterpret_cast<Stream*>(stream);
    return GPUCORE_OK;
}

gpucore_status tpl_stream_synchronize(gpucore_stream, gpucore_message*) { return GPUCORE_OK; }

gpucore_status tpl_stream_query(gpucore_stream, int* done, gpucore_message*) {
    *done = 1;
    return GPUCORE_OK;
}

gpucore_status tpl_stream_wait_event(gpucore_stream, gpucore_event, gpucore_message*) {
    return GPUCORE_OK; // the recorded work has already finished
}

gpucore_status tpl_event_create(int, gpucore_event* event, gpucore_message* msg) {
    return guarded(msg, [&] {
        *event = reinterpret_cast<gpucore_event>(new Event());
        return GPUCORE_OK;
    });
}

gpucore_status tpl_event_destroy(gpucore_event event, gpucore_message*) {
    delete as_event(event);
    return GPUCORE_OK;
}

gpucore_status tpl_event_record(gpucore_event event, gpucore_stream, gpucore_message*) {
    as_event(event)->recorded = true;
    as_event(event)->when = std::chrono::steady_clock::now();
    return GPUCORE_OK;
}

gpucore_status tpl_event_synchronize(gpucore_event, gpucore_message*) { return GPUCORE_OK; }

gpucore_status tpl_event_query(gpucore_event, int* done, gpucore_message*) {
    *done = 1;
    return GPUCORE_OK;
}

gpucore_status tpl_event_elapsed_ms(gpucore_event start, gpucore_event end, double* ms, gpucore_message* msg) {
    if (!as_event(start)->recorded || !as_event(end)->recorded) {
        return fail(msg, GPUCORE_ERROR_INVALID_ARGUMENT, "template: event was never recorded");
    }
    *ms = std::chrono::duration<double, std::milli>(as_event(end)->when - as_event(start)->when).count();
    return GPUCORE_OK;
}

gpucore_status tpl_copy(void* dst, const void* src, size_t bytes, gpucore_copy_kind, gpucore_stream,
                        gpucore_message*) {
    if (bytes != 0) std::memmove(dst, src, bytes);
    return GPUCORE_OK;
}

gpucore_status tpl_fill(void* dst, const void* value, size_t element_size, size_t count, gpucore_stream,
                        gpucore_message*) {
    auto* out = static_cast<unsigned char*>(dst);
    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * element_size, value, element_size);
    return GPUCORE_OK;
}

gpucore_status tpl_vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, size_t n,
                              gpucore_stream, gpucore_message* msg) {
    return dispatch(dtype, msg, [&](auto type) { add(type, a, b, c, n); });
}

gpucore_status tpl_transpose(gpucore_dtype dtype, const void* in, void* out, size_t rows, size_t cols,
                             gpucore_stream, gpucore_message* msg) {
    return dispatch(dtype, msg, [&](auto type) { transpose_loop(type, in, out, rows, cols); });
}

gpucore_status tpl_reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t n, void* out,
                          gpucore_stream, gpucore_message* msg) {
    return dispatch(dtype, msg, [&](auto type) { reduce_rows_loop(type, op, in, 1, n, out); }); // one row
}

gpucore_status tpl_reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t rows,
                               size_t cols, void* out, gpucore_stream, gpucore_message* msg) {
    return dispatch(dtype, msg, [&](auto type) { reduce_rows_loop(type, op, in, rows, cols, out); });
}

// The table: static storage, filled in at compile time. Slots the list below does not reach (those
// of a newer header than this plugin was written for) are NULL: the core answers not_supported, so
// a newer header needs no edit here (the warning about them is silenced for this table only).
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
const gpucore_plugin_api g_table = {
    GPUCORE_PLUGIN_ABI_MAJOR,
    GPUCORE_PLUGIN_ABI_MINOR,
    sizeof(gpucore_plugin_api),
#ifdef GPUCORE_TEMPLATE_BACKEND_NAME
    GPUCORE_TEMPLATE_BACKEND_NAME, // the tests build a copy under another name
#else
    "template",
#endif
    "gpucore-template " GPUCORE_PLUGIN_VERSION_STRING " (host memory, plain loops)",
    tpl_init,
    tpl_shutdown,
    tpl_device_count,
    tpl_device_properties,
    tpl_allocate,
    tpl_deallocate,
    tpl_stream_create,
    tpl_stream_destroy,
    tpl_stream_synchronize,
    tpl_stream_query,
    tpl_stream_wait_event,
    tpl_event_create,
    tpl_event_destroy,
    tpl_event_record,
    tpl_event_synchronize,
    tpl_event_query,
    tpl_event_elapsed_ms,
    tpl_copy,
    tpl_fill,
    tpl_vector_add,
    tpl_transpose,
    tpl_reduce,
    tpl_reduce_rows,
    nullptr, // memory_info (ABI 1.1): optional slots may stay NULL; the core reports not_supported
    nullptr, // stream_native_handle (ABI 1.2)
    nullptr, // pointer_device (ABI 1.2)
    nullptr, // copy_peer (ABI 1.2): one device; copies to other backends are staged by the core
    nullptr, // enqueue_host_task (ABI 1.3): without it the backend runs no kernel modules
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

} // namespace

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* GPUCORE_PLUGIN_ENTRY(gpucore_message*) {
    return &g_table; // cheap, touches no runtime: init does the work
}
