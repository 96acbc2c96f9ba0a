# SPDX-License-Identifier: Apache-2.0
# Random argument types and values thrown at every function and method of the module: each call
# either works or raises gpucore.Error, TypeError, ValueError, IndexError (integer indexing, as
# NumPy) or BufferError (DLPack's export refusals); anything else (or a crash of the interpreter,
# which fails the ctest test) is a bug. GPUCORE_TEST_SEED reproduces a run.
import gc
import random

import numpy as np
import pytest

import gpucore
from conftest import SEED, is_simulated

ALLOWED = (gpucore.Error, TypeError, ValueError, IndexError, BufferError)


def value_pool(device):
    cpu = gpucore.select_device("cpu")
    buffers = [
        gpucore.Buffer(7, "float32", device),
        gpucore.Buffer((3, 5), "int32", device),
        gpucore.Buffer(0, "float64", device),
        gpucore.Buffer((), "uint32", device),
        gpucore.Buffer(33, "float16", device),
        gpucore.Buffer((4, 4), "bfloat16", device),
        gpucore.Buffer(9, "float32", cpu),
    ]
    for b in buffers:
        b.fill(1)
    buffers.append(buffers[0][2:5])
    buffers.append(buffers[1][1])
    strided = np.arange(12, dtype=np.float32)[::2]
    return [
        None, True, 0, 1, 3, 7, -1, -(2**63), 2**62, 2**64 + 5, 0.5, float("nan"), float("inf"), 1j,
        "", "cpu", "cpu:0", "cuda:3", "float32", "bf16", "sum", "max", "device", "x" * 300, b"bytes",
        [], [1, 2], (), (2, 3), (-1,), (2**62, 2**62), (1.5,), {}, {"a": 1}, object(), len, gpucore,
        np.zeros(5, np.float32), np.zeros((2, 3), np.int32), strided, np.zeros(3, np.int64),
        np.zeros(3, np.complex64), np.float32(2), np.array(3.0), np.zeros((0, 4), np.float16),
        gpucore.float32, gpucore.bfloat16, gpucore.ReduceOp.min, gpucore.MemoryKind.managed,
        gpucore.MemoryKind.pinned_host, device, cpu, gpucore.Stream(device), gpucore.Stream(cpu),
        gpucore.Event(device), *buffers,
    ]


def targets(pool):
    functions = [
        gpucore.Buffer, gpucore.Buffer.from_numpy, gpucore.Stream, gpucore.Event, gpucore.vector_add,
        gpucore.transpose, gpucore.reduce, gpucore.reduce_rows, gpucore.from_dlpack, gpucore.select_device,
        gpucore.memory_info, gpucore.elapsed_ms, gpucore.empty, gpucore.zeros, gpucore.from_numpy,
        gpucore.Module.load,  # not Kernel.launch: a kernel's own indexing (n past a buffer) is unchecked
    ]
    methods = ["fill", "copy_from", "to_numpy", "reshape", "__getitem__", "__dlpack__", "__dlpack_device__",
               "__len__", "synchronize", "query", "wait", "record", "memory_info", "__array__"]
    bound = [getattr(obj, name) for obj in pool for name in methods if hasattr(obj, name)
             and isinstance(obj, (gpucore.Buffer, gpucore.Stream, gpucore.Event, gpucore.Device))]
    return functions + bound


KEYWORDS = ["stream", "out", "rows", "cols", "dtype", "device", "kind", "copy", "max_version", "dl_device", "op"]


def test_random_arguments_raise_only_clear_exceptions(device):
    generator = random.Random(SEED)
    pool = value_pool(device)
    calls = targets(pool)
    iterations = 600 if is_simulated(device) else 4000
    outcomes = {"ok": 0, "raised": 0}
    for i in range(iterations):
        target = generator.choice(calls)
        args = [generator.choice(pool) for _ in range(generator.randrange(0, 5))]
        kwargs = {k: generator.choice(pool) for k in generator.sample(KEYWORDS, generator.randrange(0, 3))}
        try:
            target(*args, **kwargs)
            outcomes["ok"] += 1
        except ALLOWED:
            outcomes["raised"] += 1
        except Exception as error:  # noqa: BLE001: any other type is the failure reported here
            pytest.fail(f"call {i} (seed {SEED}): {target!r}(*{args!r}, **{kwargs!r}) raised "
                        f"{type(error).__name__}: {error}")
    gc.collect()
    # Both outcomes occur: the fuzzing reached past the argument checks.
    assert outcomes["ok"] > 0 and outcomes["raised"] > 0, outcomes
    # The module still works.
    a = gpucore.Buffer.from_numpy(np.arange(10, dtype=np.float32), device)
    assert gpucore.reduce(gpucore.vector_add(a, a), "sum") == 90.0
