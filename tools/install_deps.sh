#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs gpucore's build and test dependencies from Debian 12's packages (run as root).
# The CUDA toolkit (nvcc) is optional and not installed here: the CUDA plugin is built when
# /usr/local/cuda/bin/nvcc exists. hipcc/libamdhip64-dev are Debian packages for the HIP plugin.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-dev            # Boost.DLL (1.74 lacks import_symbol)
  libboost-context1.81-dev    # Boost.Context: fibers of the test-only simt plugins (wave64/wave32)
  libspdlog-dev libfmt-dev    # logging
  libcli11-dev nlohmann-json3-dev  # the gpucore command
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libomp-dev                  # OpenMP for clang builds (g++ uses libgomp from build-essential)
  python3 python3-numpy       # numpy peers for the CPU benchmark; NumPy for the Python module
  python3-dev pybind11-dev libdlpack-dev python3-pytest  # the Python module (python/) and its tests
  doxygen                     # the API reference (`docs` target; its warnings fail CI)
  dpkg-dev                    # cpack -G DEB: dpkg-shlibdeps computes the packages' Depends
  libopenmpi-dev openmpi-bin  # examples/mpi_reduce and its 2-rank test
)
if [ "${GPUCORE_WITH_HIP:-1}" = 1 ]; then
  packages+=(hipcc libamdhip64-dev)  # HIP plugin (ROCm 5.2.3); no AMD GPU needed to build it
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"
