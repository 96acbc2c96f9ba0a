# SPDX-License-Identifier: Apache-2.0
"""gpucore: one API for NVIDIA, AMD and CPU devices, with the backend chosen at run time.

    import numpy as np, gpucore
    dev = gpucore.default_device()                  # GPU_BACKEND, or the first GPU, else cpu
    a = gpucore.Buffer.from_numpy(np.arange(5, dtype=np.float32), dev)
    c = gpucore.vector_add(a, a)                    # blocking; stream=... enqueues instead
    print(c.to_numpy(), gpucore.reduce(c, "sum"))

Zero-copy exchange through DLPack: numpy.from_dlpack(buffer) / torch.from_dlpack(buffer), and
gpucore.from_dlpack(array_or_tensor). Errors of the library are gpucore.Error.
"""
from ._gpucore import (  # noqa: F401
    __version__,
    Error,
    DType,
    float32,
    float64,
    int32,
    uint32,
    float16,
    bfloat16,
    ReduceOp,
    MemoryKind,
    Device,
    BackendInfo,
    PluginCandidate,
    devices,
    default_device,
    select_device,
    memory_info,
    backends,
    plugin_candidates,
    Stream,
    Event,
    elapsed_ms,
    Buffer,
    vector_add,
    transpose,
    reduce,
    reduce_rows,
    from_dlpack,
    Module,
    Kernel,
    KernelParameter,
)


def empty(shape, dtype=float32, device=None):
    """A new Buffer of shape and dtype on device (default: default_device()), not initialised."""
    return Buffer(shape, dtype, device)


def zeros(shape, dtype=float32, device=None):
    """A new Buffer of shape and dtype on device, every element 0."""
    buffer = Buffer(shape, dtype, device)
    buffer.fill(0)
    return buffer


def from_numpy(array, device=None, dtype=None):
    """A new Buffer on device holding a copy of a C-contiguous NumPy array (Buffer.from_numpy)."""
    return Buffer.from_numpy(array, device, dtype)


__all__ = [name for name in dir() if not name.startswith("_")]
