/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpucore element types (C): the one dtype list shared by the plugin contract (gpucore/plugin.h
 * includes this header) and the public C++ API (gpucore/types.hpp expands it), so that a user of
 * the C++ API does not see the contract's slots.
 *
 * Part of the plugin contract: the ids and names below never change; a minor version only appends
 * dtypes (the last column says which minor added each one).
 */
#ifndef GPUCORE_DTYPE_H
#define GPUCORE_DTYPE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The element types, ONE list from which every dtype dispatch in gpucore derives (the enum below,
 * the C++ DType and gpucore::visit, the backends' and tools' switches):
 *   X(ID, id value, name, C storage type, bytes per element, ABI minor that added it)
 * A plugin may expand it for its own dispatch; it must still check the minor of each dtype it
 * handles, as a newer header lists dtypes its code may not implement.
 * F16 is IEEE 754 binary16 and BF16 is bfloat16 (the upper half of a binary32), both stored as
 * 16-bit patterns (uint16_t in C). Operations on them compute in float: vector_add rounds
 * float(a) + float(b) to the type; reductions accumulate in float and round the result once (round
 * to nearest even); float min/max rules (NaN propagates) apply. */
#define GPUCORE_DTYPE_LIST(X)         \
    X(F32, 0, f32, float, 4, 0)      \
    X(F64, 1, f64, double, 8, 0)     \
    X(I32, 2, i32, int32_t, 4, 0)    \
    X(U32, 3, u32, uint32_t, 4, 0)   \
    X(F16, 4, f16, uint16_t, 2, 1)   \
    X(BF16, 5, bf16, uint16_t, 2, 1)

#define GPUCORE_DTYPE_ENUMERATOR_(ID, value, name, ctype, bytes, minor) GPUCORE_DTYPE_##ID = value,
typedef enum gpucore_dtype {
    GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_ENUMERATOR_)
    /* Never passed. Makes every 32-bit value a valid gpucore_dtype in C++, so a plugin can read an
     * id outside the list (from a newer or buggy caller) without undefined behaviour and refuse it. */
    GPUCORE_DTYPE_FORCE_32BIT_ = 0x7FFFFFFF
} gpucore_dtype;
#undef GPUCORE_DTYPE_ENUMERATOR_

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUCORE_DTYPE_H */
