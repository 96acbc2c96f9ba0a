# SPDX-License-Identifier: Apache-2.0
# Your own kernels from Python: the test_kernels module (tests/modules/test_kernels.cu, built into
# the build's bin folder, which ctest puts on GPUCORE_MODULE_PATH) loaded for the device under
# test, its kernels against NumPy at awkward sizes, on whole buffers and views, and every misuse as
# a clear error that enqueues nothing.
import os

import numpy as np
import pytest

import gpucore
from conftest import is_simulated


def module_kind(device):
    return device.backend if device.backend in ("cuda", "hip") else "cpu"


def module_file(device):
    """The test module file on GPUCORE_MODULE_PATH for the device's kind, or None."""
    name = f"test_kernels.gpucore-{module_kind(device)}.so"
    for folder in filter(None, os.environ.get("GPUCORE_MODULE_PATH", "").split(":")):
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


@pytest.fixture
def module(device):
    if module_file(device) is None:
        pytest.skip(f"no test_kernels.gpucore-{module_kind(device)}.so on GPUCORE_MODULE_PATH "
                    f"({os.environ.get('GPUCORE_MODULE_PATH', 'unset')}): build the test_kernels target")
    return gpucore.Module.load(device, "test_kernels")


def saxpy_shape(n, device):
    """A grid-stride launch: fewer threads than elements for the large sizes."""
    block = 64 if is_simulated(device) else 256
    return min(n // block + 1, 64), block


def test_module_and_kernel_describe_themselves(module, device):
    assert module.name == "test_kernels"
    assert module.device == device
    assert module.kind == module_kind(device)
    assert os.path.samefile(module.file, module_file(device))
    assert {"saxpy", "dynamic_rotate", "reverse_blocks"} <= set(module.kernel_names)
    saxpy = module.kernel("saxpy")
    assert saxpy.name == "saxpy" and saxpy.module_name == "test_kernels"
    described = [(p.kind, p.type, p.size) for p in saxpy.parameters]
    pointer = np.dtype(np.intp).itemsize
    assert described == [("scalar", "float32", 4), ("const_buffer", "float32", pointer),
                         ("buffer", "float32", pointer), ("scalar", "uint64", 8)]
    rotate = module.kernel("dynamic_rotate").parameters
    assert [(p.kind, p.type) for p in rotate] == [("const_buffer", "int32"), ("buffer", "int32"), ("scalar", "uint32")]


@pytest.mark.parametrize("n", [1, 33, 1000003])
@pytest.mark.parametrize("on_stream", [False, True])
def test_saxpy_matches_numpy(module, device, rng, n, on_stream):
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, n).astype(np.float32)
    dx, dy = gpucore.Buffer.from_numpy(x, device), gpucore.Buffer.from_numpy(y, device)
    grid, block = saxpy_shape(n, device)
    # a = 0.5: a * x is exact, so a fused multiply-add and a separate one round alike.
    if on_stream:
        stream = gpucore.Stream(device)
        module.kernel("saxpy").launch((grid, 1), (block,), 0.5, dx, dy, n, stream=stream)
        stream.synchronize()
    else:
        module.kernel("saxpy").launch(grid, block, 0.5, dx, dy, n)
    np.testing.assert_array_equal(dy.to_numpy(), np.float32(0.5) * x + y)


def test_scalars_are_converted_to_the_parameters_type(module, device, rng):
    n = 1000
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, n).astype(np.float32)
    dx = gpucore.Buffer.from_numpy(x, device)
    saxpy = module.kernel("saxpy")
    # A Python float rounded once to float32; NumPy scalars; a NumPy integer for size_t.
    for a, count in [(1.0 / 3.0, n), (np.float32(-1.25), np.int64(n)), (np.float64(2.0), np.uint32(n))]:
        dy = gpucore.Buffer.from_numpy(y, device)
        saxpy.launch(4, 64, a, dx, dy, count)
        a32 = np.float32(a)
        separate = a32 * x + y
        fused = (np.float64(a32) * x.astype(np.float64) + y).astype(np.float32)
        got = dy.to_numpy()
        assert np.all((got == separate) | (got == fused)), a


def test_views_are_arguments(module, device, rng):
    n = 100
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, n).astype(np.float32)
    dx, dy = gpucore.Buffer.from_numpy(x, device), gpucore.Buffer.from_numpy(y, device)
    # saxpy on elements 10 .. 39 of y with elements 50 .. 79 of x: the rest of y untouched.
    module.kernel("saxpy").launch(1, 32, 0.5, dx[50:80], dy[10:40], 30)
    want = y.copy()
    want[10:40] = np.float32(0.5) * x[50:80] + y[10:40]
    np.testing.assert_array_equal(dy.to_numpy(), want)


def test_dynamic_shared_memory(module, device, rng):
    count, blocks = 1000, 5
    values = rng.integers(-2**31, 2**31, count * blocks, dtype=np.int64).astype(np.int32)
    din = gpucore.Buffer.from_numpy(values, device)
    dout = gpucore.Buffer.from_numpy(np.full(count * blocks, -7, dtype=np.int32), device)
    module.kernel("dynamic_rotate").launch(blocks, 96, din, dout, count, shared_bytes=count * 4)
    np.testing.assert_array_equal(dout.to_numpy(), np.roll(values.reshape(blocks, count), -1, axis=1).ravel())


def expect_error(code, *fragments):
    class Expect:
        def __enter__(self):
            return self

        def __exit__(self, kind, error, trace):
            assert kind is not None, "no error raised"
            assert issubclass(kind, gpucore.Error), f"{kind.__name__}: {error}"
            assert error.code == code, str(error)
            for fragment in fragments:
                assert fragment in str(error), str(error)
            return True
    return Expect()


def test_misuse_is_a_clear_error_and_enqueues_nothing(module, device):
    saxpy = module.kernel("saxpy")
    x = gpucore.Buffer.from_numpy(np.ones(10, dtype=np.float32), device)
    y = gpucore.Buffer.from_numpy(np.full(10, 2, dtype=np.float32), device)
    with expect_error("invalid_argument", "saxpy", "takes 4 argument(s), 3 given"):
        saxpy.launch(1, 32, 1.0, x, y)
    with expect_error("invalid_argument", "argument 2", "buffer of i32"):
        saxpy.launch(1, 32, 1.0, gpucore.Buffer(10, "int32", device), y, 10)
    with expect_error("invalid_argument", "argument 1", "buffer of f32"):
        module.kernel("reverse_blocks").launch(1, 32, x, gpucore.Buffer(10, "int32", device), 10)
    with expect_error("invalid_argument", "argument 4", "pass an integer"):
        saxpy.launch(1, 32, 1.0, x, y, 10.0)
    with expect_error("invalid_argument", "argument 1", "never converted implicitly"):
        saxpy.launch(1, 32, 1, x, y, 10)
    with expect_error("invalid_argument", "argument 4", "outside its range"):
        saxpy.launch(1, 32, 1.0, x, y, -1)
    with expect_error("invalid_argument", "argument 4", "outside every 64-bit range"):
        saxpy.launch(1, 32, 1.0, x, y, 2**64)
    with expect_error("invalid_argument", "argument 1", "is given a buffer"):
        saxpy.launch(1, 32, x, x, y, 10)
    with expect_error("invalid_argument", "argument 2", "is given a scalar"):
        saxpy.launch(1, 32, 1.0, 1.0, y, 10)
    with expect_error("invalid_argument", "at least 1"):
        saxpy.launch((1, 0), 32, 1.0, x, y, 10)
    with expect_error("invalid_argument", "shared memory"):
        saxpy.launch(1, 32, 1.0, x, y, 10, shared_bytes=2**30)
    for wrong in ["1.0", None, True, np.bool_(True), np.ones(10, dtype=np.float32)]:
        with pytest.raises(TypeError, match="argument 4"):
            saxpy.launch(1, 32, 1.0, x, y, wrong)
    for shape in ["1", 1.0, (1, 1, 1, 1), (), (1.0,)]:
        with pytest.raises(TypeError, match="grid"):
            saxpy.launch(shape, 32, 1.0, x, y, 10)
    with pytest.raises(ValueError, match="block"):
        saxpy.launch(1, -32, 1.0, x, y, 10)
    np.testing.assert_array_equal(y.to_numpy(), np.full(10, 2, dtype=np.float32))
    saxpy.launch(1, 32, 3.0, x, y, 10)
    np.testing.assert_array_equal(y.to_numpy(), np.full(10, 5, dtype=np.float32))


def test_unknown_kernel_lists_the_kernels(module):
    with expect_error("invalid_argument", "no kernel 'no_such_kernel'", "saxpy", "dynamic_rotate"):
        module.kernel("no_such_kernel")


def test_missing_module_names_the_files_looked_for(device, module):
    with expect_error("backend_unavailable", f"no_such_module.gpucore-{module_kind(device)}.so",
                      "GPUCORE_MODULE_PATH"):
        gpucore.Module.load(device, "no_such_module")
