# SPDX-License-Identifier: Apache-2.0
# gpucore_kernel_cpu (gpucore::kernel_cpu): the CPU execution of kernels written in gpucore's
# dialect, a static library (position-independent, hidden symbols) that every kernel module built
# for the CPU links, and the simt test plugins too: the block runner (direct calls, fibers from the
# first barrier or warp operation on) and the warp exchanges. Needs Boost.Context (Debian:
# libboost-context1.81-dev); without it no module is built for the CPU.
# Installed (component dev) with its own export set, gpucoreKernelCpuTargets.cmake: the package
# config loads it only where Boost.Context is found, so find_package(gpucore) never needs it.
find_package(Boost 1.81 QUIET COMPONENTS context)
if(NOT Boost_CONTEXT_FOUND AND NOT TARGET Boost::context)
  message(STATUS "gpucore: Boost.Context not found: kernel modules are not built for the CPU")
  return()
endif()
add_library(gpucore_kernel_cpu STATIC ${CMAKE_CURRENT_LIST_DIR}/simt_block.cpp)
add_library(gpucore::kernel_cpu ALIAS gpucore_kernel_cpu)
target_link_libraries(gpucore_kernel_cpu PUBLIC gpucore::plugin_sdk Boost::context Threads::Threads
                      PRIVATE $<BUILD_INTERFACE:gpucore_warnings>)
target_compile_features(gpucore_kernel_cpu PUBLIC cxx_std_17)
set_target_properties(gpucore_kernel_cpu PROPERTIES POSITION_INDEPENDENT_CODE ON
                      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON EXPORT_NAME kernel_cpu)
install(TARGETS gpucore_kernel_cpu EXPORT gpucoreKernelCpuTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT gpucoreKernelCpuTargets NAMESPACE gpucore:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpucore
        COMPONENT dev)
# A kernel reads its position (threadIdx, blockIdx...) from a thread_local of a dlopen'ed module:
# x86-64's default TLS model calls __tls_get_addr for each read; TLS descriptors (gnu2, the
# default on AArch64) resolve to a load when the loader found static TLS room, as it usually does.
# PUBLIC: the modules' own code reads it too; g++ only (clang before 19 lacks the option), decided
# by each consumer's compiler. Objects of either dialect link together.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  target_compile_options(gpucore_kernel_cpu PUBLIC
                         $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-mtls-dialect=gnu2>)
endif()
