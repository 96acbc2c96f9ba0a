# SPDX-License-Identifier: Apache-2.0
# Every gpucore::Error arrives as gpucore.Error with its parts; each misuse is a clear exception.
import numpy as np
import pytest

import gpucore


def test_error_carries_the_cpp_error_parts(device):
    a = gpucore.Buffer(10, "float32", device)
    c = gpucore.Buffer(9, "float32", device)
    with pytest.raises(gpucore.Error) as info:
        gpucore.vector_add(a, a, c)
    error = info.value
    assert isinstance(error, RuntimeError)
    assert error.code == "invalid_argument" and error.operation == "vector_add"
    assert error.backend == device.backend and error.device == device.index
    assert str(error).startswith(f"vector_add on {device}: ") and str(error).endswith("[invalid_argument]")
    assert error.cause and error.cause in str(error)


def test_wrong_dtype(device):
    a = gpucore.Buffer(10, "float32", device)
    b = gpucore.Buffer(10, "int32", device)
    with pytest.raises(gpucore.Error, match="dtypes differ"):
        gpucore.vector_add(a, b)
    with pytest.raises(gpucore.Error, match="dtypes differ"):
        gpucore.reduce(a, "sum", gpucore.Buffer(1, "float64", device))
    with pytest.raises(gpucore.Error, match="dtypes differ"):
        a.copy_from(b)


def test_shape_mismatch(device):
    a = gpucore.Buffer((2, 3), "float32", device)
    with pytest.raises(gpucore.Error, match="shapes differ"):
        gpucore.vector_add(a, gpucore.Buffer((3, 2), "float32", device))
    with pytest.raises(gpucore.Error, match="transpose of"):
        gpucore.transpose(a, gpucore.Buffer((2, 3), "float32", device))
    with pytest.raises(gpucore.Error, match="2-D"):
        gpucore.transpose(gpucore.Buffer(6, "float32", device))
    with pytest.raises(gpucore.Error, match="both rows and cols"):
        gpucore.reduce_rows(a, rows=2)
    with pytest.raises(gpucore.Error) as info:
        gpucore.reduce_rows(a, "sum", gpucore.Buffer(3, "float32", device))
    assert info.value.code == "invalid_argument" and info.value.operation == "reduce_rows"
    with pytest.raises(gpucore.Error):
        gpucore.transpose(a, rows=4, cols=4)


def test_buffer_of_another_device():
    devices = gpucore.devices()
    if len(devices) < 2:
        pytest.skip("one device only")
    a = gpucore.Buffer(16, "float32", devices[0])
    b = gpucore.Buffer(16, "float32", devices[1])
    with pytest.raises(gpucore.Error) as info:
        gpucore.vector_add(a, b)
    assert info.value.code == "invalid_argument"
    assert str(devices[1]) in str(info.value) or str(devices[0]) in str(info.value)


def test_aliasing_is_refused(device):
    x = gpucore.Buffer(100, "float32", device)
    with pytest.raises(gpucore.Error, match="overlap"):
        gpucore.vector_add(x[0:50], x[10:60], x[5:55])
    with pytest.raises(gpucore.Error, match="overlap"):
        gpucore.reduce(x, "sum", x[3:4])


def test_bad_arguments_are_type_and_value_errors(device):
    a = gpucore.Buffer(4, "float32", device)
    with pytest.raises(TypeError):
        gpucore.vector_add(a, np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        gpucore.vector_add(a, a, stream="stream")
    with pytest.raises(ValueError, match="unknown reduce op"):
        gpucore.reduce(a, "mean")
    with pytest.raises(TypeError):
        gpucore.reduce(a, 3)
    with pytest.raises(ValueError, match="negative"):
        gpucore.Buffer(-1, "float32", device)
    with pytest.raises(TypeError):
        gpucore.Buffer("4", "float32", device)
    with pytest.raises(ValueError, match="memory kind"):
        gpucore.Buffer(4, "float32", device, kind="gpu")
    with pytest.raises(TypeError, match="device"):
        gpucore.Buffer(4, "float32", 3)


def test_out_of_memory_is_an_error(device):
    with pytest.raises(gpucore.Error) as info:
        gpucore.Buffer((1 << 62,), "float32", device)
    assert info.value.code in ("out_of_memory", "invalid_argument")
    with pytest.raises(gpucore.Error, match="overflow"):
        gpucore.Buffer((1 << 40, 1 << 40), "float32", device)
