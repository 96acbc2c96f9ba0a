#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# without_hip_runtime.sh PLUGIN COMMAND [ARGS...]
#
# Runs COMMAND on a system where the HIP runtime is not installed: in a private mount namespace,
# the folder that holds libamdhip64 (as PLUGIN resolves it) is covered by an overlay in which the
# libamdhip64.so* files are deleted. Everything else in that folder stays visible, and the real
# system is untouched (the namespace, its tmpfs and the overlay vanish with COMMAND).
#
# Needs root (CI runs as root) and overlayfs. When the runtime cannot be hidden, prints one line
# saying why and exits 77, so the test skips itself instead of passing or failing for nothing.
set -eu

plugin=$1
shift

cannot() {
    echo "without_hip_runtime.sh: cannot hide the HIP runtime: $*"
    exit 77
}

library=$(ldd "$plugin" 2>/dev/null | awk '$1 ~ /^libamdhip64\.so/ { print $3; exit }')
[ -n "$library" ] && [ -e "$library" ] || cannot "$plugin does not resolve libamdhip64 (ldd)"
folder=$(cd "$(dirname "$library")" && pwd -P)
[ "$(id -u)" = 0 ] || cannot "not root (a mount namespace with an overlay needs root; CI runs as root)"
command -v unshare >/dev/null 2>&1 || cannot "unshare (util-linux) is not installed"
unshare --mount true 2>/dev/null || cannot "unshare --mount is not permitted here"

scratch=$(mktemp -d)
status=0
unshare --mount --propagation private -- sh -c '
    folder=$1 scratch=$2
    shift 2
    cannot() { echo "without_hip_runtime.sh: cannot hide the HIP runtime: $*"; exit 77; }
    mount -t tmpfs gpucore-hide "$scratch" 2>&1 || cannot "mount tmpfs failed"
    mkdir "$scratch/upper" "$scratch/work"
    mount -t overlay gpucore-hide -o "lowerdir=$folder,upperdir=$scratch/upper,workdir=$scratch/work" \
        "$folder" 2>&1 || cannot "overlay mount over $folder failed"
    rm -f "$folder"/libamdhip64.so*
    for file in "$folder"/libamdhip64.so*; do
        [ -e "$file" ] && cannot "$file is still visible"
    done
    exec "$@"
' sh "$folder" "$scratch" "$@" || status=$?
rmdir "$scratch" 2>/dev/null || true
exit "$status"
