#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs an MPI example with 2 ranks on this machine: run_mpi_example.sh <mpiexec> <program> [args...]
# --oversubscribe: CI machines may have fewer cores than ranks; --allow-run-as-root only where we
# are root (CI containers), as OpenMPI refuses root otherwise.
set -euo pipefail
mpiexec=$1
shift
flags=(--oversubscribe -np 2)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
# Containers often forbid the cross-process memory attach of the shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
exec "$mpiexec" "${flags[@]}" "$@"
