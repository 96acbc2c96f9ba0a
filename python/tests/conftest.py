# SPDX-License-Identifier: Apache-2.0
# Shared fixtures: the device under test (gpucore.default_device(), i.e. GPU_BACKEND: ctest runs
# these files once with GPU_BACKEND=cpu and once with GPU_BACKEND=test-wave64), a seeded random
# generator (GPUCORE_TEST_SEED reproduces a run; the seed is in the report header), independent
# NumPy references for the 16-bit float types, and poison values for outputs.
import os
import random
import zlib

import numpy as np
import pytest

import gpucore

SEED = int(os.environ.get("GPUCORE_TEST_SEED", random.SystemRandom().randrange(2**31)))

DTYPES = ["float32", "float64", "int32", "uint32", "float16", "bfloat16"]


def pytest_report_header(config):
    device = gpucore.default_device()
    return [f"gpucore {gpucore.__version__} device {device} ({device.name}); GPUCORE_TEST_SEED={SEED}"]


@pytest.fixture
def device():
    return gpucore.default_device()


@pytest.fixture
def rng(request):
    # One stream of numbers per test, reproducible from the seed and the test's name.
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])


def is_simulated(device):
    """The test-only simt backends run each GPU thread as a fiber: keep their sizes modest."""
    return device.backend.startswith("test-")


def sizes(device):
    """Awkward element counts: around powers of two, primes, a ragged tail."""
    base = [1, 2, 7, 31, 33, 255, 1000, 4099, 65537]
    return base if not is_simulated(device) else base[:-1]


# ---- bfloat16: an independent reference (round to nearest even on the float32 bit pattern) ----

def bf16_bits(values):
    """float32 array -> uint16 bfloat16 bit patterns, rounded to nearest even; NaN stays NaN."""
    x = np.ascontiguousarray(values, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    rounded[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
    return rounded


def bf16_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16_round(values):
    """float32 values rounded to the nearest bfloat16, as float32."""
    return bf16_to_f32(bf16_bits(values))


# ---- random inputs per dtype, as the host arrays from_numpy takes ----

def random_host(rng, dtype, shape, low=None, high=None):
    """(array for Buffer.from_numpy, float64/int64 values it holds exactly)."""
    if dtype in ("int32", "uint32"):
        lo = -1000 if dtype == "int32" else 0
        hi = 1000
        arr = rng.integers(lo if low is None else low, hi if high is None else high, size=shape).astype(dtype)
        return arr, arr.astype(np.int64)
    values = rng.uniform(-4.0 if low is None else low, 4.0 if high is None else high, size=shape)
    if dtype == "bfloat16":
        arr = bf16_round(values.astype(np.float32))
        return arr, arr.astype(np.float64)
    arr = values.astype(dtype)
    return arr, arr.astype(np.float64)


def to_buffer(arr, dtype, device):
    if dtype == "bfloat16":
        return gpucore.Buffer.from_numpy(arr, device, gpucore.bfloat16)
    return gpucore.Buffer.from_numpy(arr, device)


def poison(buffer):
    """Fills an output with a value no correct result has here, so an unwritten element shows."""
    name = str(buffer.dtype)
    if name == "int32":
        buffer.fill(-559038737)
    elif name == "uint32":
        buffer.fill(0xDEADBEEF)
    else:
        buffer.fill(float("nan"))
    return buffer


def output_buffer(shape, dtype, device):
    return poison(gpucore.Buffer(shape, dtype, device))
