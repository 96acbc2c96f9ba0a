// SPDX-License-Identifier: Apache-2.0
// GPUCORE_API marks what libgpucore exports. The library is built with hidden visibility by default
// (only the public API is part of the ABI), so every public non-template function and class carries
// this macro. Exception classes must be exported too: their type_info has to be unique across
// libgpucore and its users, or `catch (const gpucore::Error&)` would not match.
#pragma once

#if defined(_WIN32)
#if defined(GPUCORE_BUILDING_LIBRARY)
#define GPUCORE_API __declspec(dllexport)
#else
#define GPUCORE_API __declspec(dllimport)
#endif
#else
#define GPUCORE_API __attribute__((visibility("default")))
#endif
