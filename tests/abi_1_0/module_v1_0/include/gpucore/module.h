/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpucore kernel-module contract (C ABI).
 *
 * A kernel module is a shared object built by gpucore_add_kernel_module() from kernels written in
 * gpucore's kernel dialect (gpucore/kernel.hpp): one file per kind of backend, all from the same
 * source ("NAME.gpucore-cuda.so", "NAME.gpucore-hip.so", "NAME.gpucore-cpu.so"). It exports ONE
 * function, GPUCORE_MODULE_ENTRY_NAME ("gpucore_module_entry_v<ABI major>"), returning a table
 * that describes the module's kernels (names and parameter lists, generated from the source by
 * GPUCORE_MODULE_KERNEL) and one launch function.
 *
 * Before any code of the file runs, the core reads two things from it without loading it: the
 * exported entry symbol (its ABI major) and the manifest, a NUL-terminated text in the ELF section
 * GPUCORE_MODULE_MANIFEST_SECTION:
 *     gpucore-module 1
 *     name saxpy
 *     kind cuda
 *     targets sm_80 compute_80 sm_90
 * A module whose kind does not match the device's backend, or whose targets do not include code
 * the device can run, is refused with a typed error that lists what the module has: the file is
 * never dlopen'ed, so no vendor runtime gets to register (and reject) its device code.
 *
 * Versioning is that of plugin.h: the major is part of the entry symbol's name; the table starts
 * with abi_major, abi_minor and struct_size; a minor bump only appends members; the core reads
 * nothing beyond the struct_size the module reported. ABI 1.0 is the table below.
 *
 * Conventions: the entry point and launch never throw, call exit/abort, or let a C++ exception
 * escape; launch reports failure by its status and a NUL-terminated cause in msg->text.
 */
#ifndef GPUCORE_MODULE_H
#define GPUCORE_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "gpucore/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUCORE_MODULE_ABI_MAJOR 1
#define GPUCORE_MODULE_ABI_MINOR 0

#define GPUCORE_MODULE_ENTRY_PREFIX "gpucore_module_entry_v"
#define GPUCORE_MODULE_ENTRY_NAME \
    GPUCORE_MODULE_ENTRY_PREFIX GPUCORE_PLUGIN_STRINGIFY(GPUCORE_MODULE_ABI_MAJOR)
#define GPUCORE_MODULE_ENTRY gpucore_module_entry_v1

/* The ELF section that holds the manifest text (read before the file is loaded). */
#define GPUCORE_MODULE_MANIFEST_SECTION ".gpucore_module"
/* The longest manifest the core reads. */
#define GPUCORE_MODULE_MANIFEST_CAPACITY 4096

/* What one kernel parameter is. Buffers are passed as device pointers; scalars by value. */
typedef enum gpucore_param_kind {
    GPUCORE_PARAM_SCALAR = 0,        /* a value of `dtype` (or raw bytes when dtype is RAW) */
    GPUCORE_PARAM_BUFFER = 1,        /* a pointer to elements of `dtype` that the kernel may write */
    GPUCORE_PARAM_CONST_BUFFER = 2,  /* a pointer to const elements of `dtype` (read only) */
    GPUCORE_PARAM_KIND_FORCE_32BIT_ = 0x7FFFFFFF
} gpucore_param_kind;

/* Element types of parameters: the plugin dtypes, plus the integer and raw kinds that only kernel
 * parameters have. */
typedef enum gpucore_param_type {
    GPUCORE_PARAM_F32 = 0,
    GPUCORE_PARAM_F64 = 1,
    GPUCORE_PARAM_I32 = 2,
    GPUCORE_PARAM_U32 = 3,
    GPUCORE_PARAM_F16 = 4,
    GPUCORE_PARAM_BF16 = 5,
    GPUCORE_PARAM_I64 = 6,
    GPUCORE_PARAM_U64 = 7,  /* also size_t */
    GPUCORE_PARAM_I8 = 8,
    GPUCORE_PARAM_U8 = 9,
    GPUCORE_PARAM_I16 = 10,
    GPUCORE_PARAM_U16 = 11,
    GPUCORE_PARAM_RAW = 12, /* any other trivially copyable type: checked by size only */
    GPUCORE_PARAM_TYPE_FORCE_32BIT_ = 0x7FFFFFFF
} gpucore_param_type;

typedef struct gpucore_kernel_param {
    gpucore_param_kind kind;
    gpucore_param_type type; /* the scalar's type, or the buffer's element type */
    uint32_t size;           /* bytes of the parameter as passed (a pointer's size for buffers) */
    uint32_t element_size;   /* bytes of one element (buffers) or of the value (scalars) */
} gpucore_kernel_param;

typedef struct gpucore_kernel_info {
    const char* name;                    /* as written in the source; static storage */
    uint32_t param_count;
    const gpucore_kernel_param* params;  /* param_count entries; static storage */
    uint32_t max_threads_per_block;      /* the most threads one block of this kernel may have
                                            (launch bounds, registers); 0 = the device's limit */
} gpucore_kernel_info;

/* A launch's shape. */
typedef struct gpucore_launch_config {
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shared_bytes; /* dynamic shared memory per block */
} gpucore_launch_config;

/* Where a launch runs. For cuda and hip modules, `native_stream` is the vendor stream
 * (cudaStream_t, hipStream_t) and `device` the vendor ordinal; for cpu modules, `parallel` is set
 * and the call runs the whole grid before it returns (the backend calls it in stream order). */
typedef struct gpucore_launch_target {
    int device;
    void* native_stream;
    const gpucore_host_parallel* parallel;
} gpucore_launch_target;

typedef struct gpucore_module_api {
    /* ---- header: never moves ------------------------------------------------------------- */
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t struct_size;
    const char* name;    /* the module's name, as in its manifest */
    const char* kind;    /* "cuda", "hip" or "cpu", as in its manifest */
    uint32_t kernel_count;
    const gpucore_kernel_info* kernels;
    /* Launches kernels[kernel] with `args` (param_count pointers, each to a value of the
     * parameter's size, read before the call returns: the kernelParams convention of
     * cuLaunchKernel). The core has checked the arguments, the shape and the limits. cuda/hip:
     * enqueues on target->native_stream; cpu: runs the grid. */
    gpucore_status (*launch)(uint32_t kernel, const gpucore_launch_config* config,
                             const gpucore_launch_target* target, void* const* args,
                             gpucore_message* msg);
} gpucore_module_api;

typedef const gpucore_module_api* (*gpucore_module_entry_fn)(gpucore_message* msg);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUCORE_MODULE_H */
