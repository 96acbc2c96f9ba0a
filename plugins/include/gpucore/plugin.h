/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpucore plugin contract (C ABI).
 *
 * A backend is a shared object that exports ONE function, GPUCORE_PLUGIN_ENTRY_NAME
 * ("gpucore_plugin_entry_v<ABI major>"), returning a table of function pointers. Only C types cross
 * the boundary: opaque handles, fixed-size structs, status codes and a message buffer. No C++ class,
 * std type or exception crosses it, so a plugin built by another compiler or release loads, or is
 * refused with a clear reason.
 *
 * Versioning:
 *  - The ABI major is part of the entry symbol's name, so the core can read it from the file's
 *    symbol table (boost::dll::library_info) and refuse a mismatch BEFORE dlopen runs any code.
 *  - The table starts with abi_major, abi_minor and struct_size. A minor bump only appends slots
 *    (and enum values); a released slot never moves or changes its signature or meaning. So a
 *    plugin built against any 1.x header keeps loading in every later 1.y core.
 *  - The core accepts a table whose struct_size covers the ABI 1.0 table (up to and including
 *    reduce_rows). It never reads or calls a slot beyond the struct_size the plugin reported.
 *  - Required slots (a NULL one makes the core skip the plugin): lifecycle, devices, memory,
 *    streams, events, copy and fill. Optional slots: every operation and every slot added after
 *    1.0. An optional slot left NULL, or lying beyond struct_size, makes the core answer the
 *    caller with a not_supported error naming the backend and the operation.
 *  - Enum values added by a minor version (e.g. the dtypes F16, BF16 of 1.1) are never passed to a
 *    plugin that reports an older abi_minor: the core answers not_supported itself.
 *  - What each minor adds: 1.0 the table up to reduce_rows; 1.1 memory_info and the dtypes F16, BF16;
 *    1.2 stream_native_handle, pointer_device and copy_peer; 1.3 enqueue_host_task (kernel
 *    modules built for the CPU run through it).
 *
 * Conventions for every slot that returns gpucore_status:
 *  - GPUCORE_OK on success. On failure, a non-OK code and a NUL-terminated, human-readable cause in
 *    msg->text (the core adds the operation, backend and device names; the plugin says why, e.g.
 *    "cudaMalloc(&p, 1073741824): out of memory").
 *  - A slot must never throw, call exit/abort, or let a C++ exception escape: catch at the boundary.
 *  - `msg` is never NULL; the plugin may leave it untouched on success.
 *  - Device indices are the plugin's own, 0 .. device_count-1. The core validates them before any
 *    call, and validates lengths, overflow and buffer sizes, so plugins may trust their arguments.
 *  - Pointers in copy, fill and the operations: to a plugin of ABI 1.2 or later, the core may pass
 *    any address inside an allocation (a view of part of a buffer) or inside memory the plugin's
 *    pointer_device accepted (memory the user wrapped); such addresses are aligned to the element
 *    size only, so wide loads and stores must check alignment. Ranges the core passes never
 *    overlap except where a slot says so (vector_add: c equal to a or b). To a plugin of ABI 1.0
 *    or 1.1 the core passes only addresses that allocate returned.
 *  - Asynchronous slots (copy, fill, ops) enqueue on `stream` and may return before the work ends.
 *    Errors raised while the work runs surface at the next synchronizing call on that stream.
 *
 * Thread safety: every slot may be called concurrently from several threads, on different or the
 * same stream. Work enqueued on one stream runs in the order it was enqueued.
 */
#ifndef GPUCORE_PLUGIN_H
#define GPUCORE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "gpucore/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUCORE_PLUGIN_ABI_MAJOR 1
#define GPUCORE_PLUGIN_ABI_MINOR 3

/* The entry symbol carries the ABI major: "gpucore_plugin_entry_v1". */
#define GPUCORE_PLUGIN_ENTRY_PREFIX "gpucore_plugin_entry_v"
#define GPUCORE_PLUGIN_STRINGIFY_(x) #x
#define GPUCORE_PLUGIN_STRINGIFY(x) GPUCORE_PLUGIN_STRINGIFY_(x)
#define GPUCORE_PLUGIN_ENTRY_NAME \
    GPUCORE_PLUGIN_ENTRY_PREFIX GPUCORE_PLUGIN_STRINGIFY(GPUCORE_PLUGIN_ABI_MAJOR)
#define GPUCORE_PLUGIN_ENTRY gpucore_plugin_entry_v1

/* Exported with default visibility even when the plugin is built with -fvisibility=hidden. */
#if defined(_WIN32)
#define GPUCORE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define GPUCORE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

typedef enum gpucore_status {
    GPUCORE_OK = 0,
    GPUCORE_ERROR_INVALID_ARGUMENT = 1,
    GPUCORE_ERROR_OUT_OF_MEMORY = 2,
    GPUCORE_ERROR_BACKEND_UNAVAILABLE = 3, /* runtime/driver missing or no usable device */
    GPUCORE_ERROR_PLUGIN = 4,              /* the plugin itself failed (bug, bad state) */
    GPUCORE_ERROR_DEVICE = 5,              /* the device failed (kernel fault, sticky error) */
    GPUCORE_ERROR_NOT_SUPPORTED = 6,
    /* Never returned. Makes every 32-bit value a valid gpucore_status in C++, so the core can read
     * a status outside the list above (from a buggy or newer plugin) without undefined behaviour;
     * it turns such a value into a plugin error. */
    GPUCORE_STATUS_FORCE_32BIT_ = 0x7FFFFFFF
} gpucore_status;

/* The element types (GPUCORE_DTYPE_LIST, gpucore_dtype) live in gpucore/dtype.h, included above:
 * the public C++ API expands the same list without including this contract. */

typedef enum gpucore_reduce_op {
    GPUCORE_REDUCE_SUM = 0,
    GPUCORE_REDUCE_MIN = 1,
    GPUCORE_REDUCE_MAX = 2,
    GPUCORE_REDUCE_PROD = 3
} gpucore_reduce_op;

typedef enum gpucore_memory_kind {
    GPUCORE_MEMORY_DEVICE = 0,      /* device memory, not host-accessible in general */
    GPUCORE_MEMORY_PINNED_HOST = 1, /* page-locked host memory, host-accessible */
    GPUCORE_MEMORY_MANAGED = 2      /* unified memory, host- and device-accessible */
} gpucore_memory_kind;

typedef enum gpucore_copy_kind {
    GPUCORE_COPY_HOST_TO_DEVICE = 0, /* src is ordinary (pageable or pinned) host memory */
    GPUCORE_COPY_DEVICE_TO_HOST = 1, /* dst is ordinary host memory */
    GPUCORE_COPY_DEVICE_TO_DEVICE = 2 /* both are allocations of this plugin, same device */
} gpucore_copy_kind;

typedef enum gpucore_log_level {
    GPUCORE_LOG_TRACE = 0,
    GPUCORE_LOG_DEBUG = 1,
    GPUCORE_LOG_INFO = 2,
    GPUCORE_LOG_WARN = 3,
    GPUCORE_LOG_ERROR = 4,
    GPUCORE_LOG_OFF = 6
} gpucore_log_level;

#define GPUCORE_MESSAGE_CAPACITY 1024
typedef struct gpucore_message {
    char text[GPUCORE_MESSAGE_CAPACITY];
} gpucore_message;

/* Opaque handles, created and interpreted only by the plugin that made them. */
typedef struct gpucore_stream_impl* gpucore_stream;
typedef struct gpucore_event_impl* gpucore_event;

typedef struct gpucore_device_properties {
    uint32_t struct_size;          /* set by the core: sizeof(gpucore_device_properties) */
    char name[256];                /* "NVIDIA H100 80GB HBM3" */
    char vendor[64];               /* "NVIDIA", "AMD", "CPU vendor string" */
    char architecture[64];         /* "sm_90", "gfx90a", "x86_64" */
    uint64_t total_memory_bytes;
    uint32_t compute_units;        /* SMs, CUs, or CPU hardware threads */
    uint32_t warp_size;            /* SIMD width of one warp/wavefront; 1 for scalar CPU lanes */
    uint64_t l2_cache_bytes;       /* 0 when unknown */
    double peak_memory_bandwidth_gbps; /* theoretical peak in GB/s (1e9 B/s); 0 when unknown */
    uint32_t supports_pinned_host; /* 0 or 1 */
    uint32_t supports_managed;     /* 0 or 1 */
} gpucore_device_properties;

/* What the core hands the plugin at init. */
typedef void (*gpucore_log_fn)(void* user, gpucore_log_level level, const char* text);
typedef struct gpucore_host_services {
    uint32_t struct_size;      /* sizeof(gpucore_host_services) as the core knows it */
    gpucore_log_fn log;        /* thread-safe; routes to the core's spdlog logger */
    void* log_user;            /* pass back as the first argument of log */
    gpucore_log_level log_level; /* messages below this level are dropped: skip formatting them */
} gpucore_host_services;

/* What a host task receives (ABI 1.3): a way to spread work over the backend's worker threads,
 * and the warp width kernels run with on the device. */
typedef void (*gpucore_parallel_body_fn)(void* user, uint64_t index);
typedef struct gpucore_host_parallel {
    uint32_t struct_size; /* sizeof(gpucore_host_parallel) as the backend knows it */
    /* Calls body(user, i) for every i in [0, count) on the backend's worker threads and returns
     * when every call has returned. Called from the task only. */
    void (*parallel_for)(void* context, uint64_t count, gpucore_parallel_body_fn body, void* user);
    void* context;
    uint32_t warp_size;
} gpucore_host_parallel;
/* A host task: runs on the host in stream order; a non-OK status (with its cause in msg->text)
 * is a failure of the stream's queued work. */
typedef gpucore_status (*gpucore_host_task_fn)(void* user, const gpucore_host_parallel* parallel,
                                               gpucore_message* msg);
typedef void (*gpucore_release_fn)(void* user);

typedef struct gpucore_plugin_api {
    /* ---- header: never moves ------------------------------------------------------------- */
    uint32_t abi_major;   /* GPUCORE_PLUGIN_ABI_MAJOR the plugin was built with */
    uint32_t abi_minor;   /* GPUCORE_PLUGIN_ABI_MINOR the plugin was built with */
    uint32_t struct_size; /* sizeof(gpucore_plugin_api) the plugin was built with */
    const char* name;     /* backend name users select with GPU_BACKEND: "cuda", "hip", "mybackend".
                             Lowercase [a-z0-9_-]; static storage. */
    const char* version;  /* free-form, static storage, e.g. "gpucore-cuda 0.1 (CUDA runtime 13000)" */

    /* ---- lifetime ------------------------------------------------------------------------ */
    /* Called once, before any other slot. A failure marks the backend unusable with msg as
     * the reason; nothing else is called afterwards except shutdown. */
    gpucore_status (*init)(const gpucore_host_services* host, gpucore_message* msg);
    /* Called at most once at process end (may never be called). Frees what init made. */
    void (*shutdown)(void);

    /* ---- devices --------------------------------------------------------------------------- */
    /* Number of usable devices. A plugin whose runtime works but finds no device returns
     * GPUCORE_OK with *count = 0 and the reason in msg->text ("cudaGetDeviceCount: no CUDA-capable
     * device is detected"): the core shows that reason when the user asks for this backend. */
    gpucore_status (*device_count)(int* count, gpucore_message* msg);
    /* Fills *props (the core set props->struct_size; write no further than that). */
    gpucore_status (*device_properties)(int device, gpucore_device_properties* props,
                                        gpucore_message* msg);

    /* ---- memory ---------------------------------------------------------------------------- */
    /* Allocates `bytes` (> 0) of `kind` on `device`, aligned to at least 256 bytes.
     * GPUCORE_ERROR_OUT_OF_MEMORY when it does not fit; GPUCORE_ERROR_NOT_SUPPORTED for a kind the
     * device cannot provide. Blocking. */
    gpucore_status (*allocate)(int device, gpucore_memory_kind kind, size_t bytes, void** ptr,
                               gpucore_message* msg);
    /* Frees an allocation made by allocate. Waits for no stream: the core synchronizes first. */
    gpucore_status (*deallocate)(int device, gpucore_memory_kind kind, void* ptr,
                                 gpucore_message* msg);

    /* ---- streams and events ----------------------------------------------------------------- */
    gpucore_status (*stream_create)(int device, gpucore_stream* stream, gpucore_message* msg);
    /* Waits for the stream's pending work, then destroys it. */
    gpucore_status (*stream_destroy)(gpucore_stream stream, gpucore_message* msg);
    /* Blocks until all work enqueued so far has finished; reports an error raised by that work. */
    gpucore_status (*stream_synchronize)(gpucore_stream stream, gpucore_message* msg);
    /* *done = 1 when all work enqueued so far has finished, else 0. Never blocks. */
    gpucore_status (*stream_query)(gpucore_stream stream, int* done, gpucore_message* msg);
    /* Work enqueued on `stream` after this call waits until `event`'s most recent record (as of
     * this call) has completed. An event never recorded imposes no wait. */
    gpucore_status (*stream_wait_event)(gpucore_stream stream, gpucore_event event,
                                        gpucore_message* msg);

    gpucore_status (*event_create)(int device, gpucore_event* event, gpucore_message* msg);
    gpucore_status (*event_destroy)(gpucore_event event, gpucore_message* msg);
    /* Captures the stream's work so far; the event completes when that work has finished, and
     * takes a timestamp then. Re-recording replaces the previous capture. */
    gpucore_status (*event_record)(gpucore_event event, gpucore_stream stream,
                                   gpucore_message* msg);
    gpucore_status (*event_synchronize)(gpucore_event event, gpucore_message* msg);
    gpucore_status (*event_query)(gpucore_event event, int* done, gpucore_message* msg);
    /* Milliseconds between two completed records (end - start). Error if either has not
     * completed or was never recorded. */
    gpucore_status (*event_elapsed_ms)(gpucore_event start, gpucore_event end, double* ms,
                                       gpucore_message* msg);

    /* ---- data movement (asynchronous on `stream`) ----------------------------------------------- */
    /* Copies `bytes` (may be 0). Host memory in a copy may be pageable: the plugin stages it as
     * needed; the caller keeps host memory alive and unchanged until the stream passes the copy. */
    gpucore_status (*copy)(void* dst, const void* src, size_t bytes, gpucore_copy_kind kind,
                           gpucore_stream stream, gpucore_message* msg);
    /* Writes `count` copies of the `element_size`-byte (1, 2, 4 or 8) pattern at `value` to `dst`.
     * `value` is read before the call returns. */
    gpucore_status (*fill)(void* dst, const void* value, size_t element_size, size_t count,
                           gpucore_stream stream, gpucore_message* msg);

    /* ---- operations (asynchronous on `stream`; all pointers are this device's allocations) ---- */
    /* c[i] = a[i] + b[i] for i < n. Integers wrap (two's complement / unsigned). c may alias a/b. */
    gpucore_status (*vector_add)(gpucore_dtype dtype, const void* a, const void* b, void* c,
                                 size_t n, gpucore_stream stream, gpucore_message* msg);
    /* out (cols x rows, row-major) = transpose of in (rows x cols, row-major). No aliasing. */
    gpucore_status (*transpose)(gpucore_dtype dtype, const void* in, void* out, size_t rows,
                                size_t cols, gpucore_stream stream, gpucore_message* msg);
    /* out[0] = op over in[0..n). n == 0 gives the identity (0, +inf/max, -inf/lowest, 1).
     * Integer sum/prod wrap as unsigned arithmetic does. Float min/max: NaN inputs propagate
     * (a NaN anywhere gives NaN). Float sums are accumulated in a tree, never one long serial
     * chain. `out` is device memory of at least one element. Scratch is the plugin's business. */
    gpucore_status (*reduce)(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t n,
                             void* out, gpucore_stream stream, gpucore_message* msg);
    /* out[r] = op over in[r*cols .. r*cols+cols) for r < rows. cols == 0 gives identities. */
    gpucore_status (*reduce_rows)(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                                  size_t rows, size_t cols, void* out, gpucore_stream stream,
                                  gpucore_message* msg);

    /* ---- ABI 1.1 (optional: may be NULL; absent from tables of 1.0 plugins) ------------------ */
    /* Free and total bytes of `device`'s memory as the vendor runtime reports them now (the CPU
     * backend: available and total physical memory). Blocking, cheap. */
    gpucore_status (*memory_info)(int device, uint64_t* free_bytes, uint64_t* total_bytes,
                                  gpucore_message* msg);

    /* ---- ABI 1.2 (optional: may be NULL; absent from tables of 1.0 and 1.1 plugins) ---------- */
    /* The vendor runtime's own handle of `stream` (cudaStream_t, hipStream_t), as void*, so the
     * caller can enqueue its own kernels and library calls on it. The handle stays valid while the
     * gpucore stream lives. A backend without vendor streams may return any documented value. */
    gpucore_status (*stream_native_handle)(gpucore_stream stream, void** handle,
                                           gpucore_message* msg);
    /* Which of this plugin's devices owns the memory at `ptr`, and its kind. An error
     * (GPUCORE_ERROR_INVALID_ARGUMENT) when `ptr` is not memory that this plugin's devices can
     * use in copies and operations. Blocking, cheap; does not wait for queued work. */
    gpucore_status (*pointer_device)(const void* ptr, int* device, gpucore_memory_kind* kind,
                                     gpucore_message* msg);
    /* Copies `bytes` (may be 0) from `src` on `src_device` to `dst` on `dst_device`, two devices
     * of this plugin (they may be the same), asynchronously on `stream`, a stream of either
     * device. Peer-to-peer where the devices can reach each other, staged by the plugin
     * otherwise. The core orders the copy after the source's queued work before calling, with
     * stream_wait_event on `stream` and events recorded on the other device's streams: a plugin
     * that implements copy_peer accepts there an event of any of its devices (as CUDA and HIP do). */
    gpucore_status (*copy_peer)(void* dst, int dst_device, const void* src, int src_device,
                                size_t bytes, gpucore_stream stream, gpucore_message* msg);

    /* ---- ABI 1.3 (optional: may be NULL; absent from tables of older plugins) ----------------- */
    /* Queues task(user, parallel, msg) on `stream`, behind the work enqueued so far; it runs on
     * the host once that work has finished, and later work waits for it. A backend fills this
     * slot when its devices run kernel modules built for the CPU (their memory is host memory).
     * release(user) is called exactly once: after the task ran, or before this slot returns an
     * error (then the task never runs). */
    gpucore_status (*enqueue_host_task)(gpucore_stream stream, gpucore_host_task_fn task, void* user,
                                        gpucore_release_fn release, gpucore_message* msg);
} gpucore_plugin_api;

/* The entry point. Returns the plugin's static table, or NULL with the reason in msg->text when
 * the plugin cannot serve at all (the core skips it and shows that reason). Must be cheap and must
 * not touch the vendor runtime: init does that. */
typedef const gpucore_plugin_api* (*gpucore_plugin_entry_fn)(gpucore_message* msg);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUCORE_PLUGIN_H */
