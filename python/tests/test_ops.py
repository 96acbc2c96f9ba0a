# SPDX-License-Identifier: Apache-2.0
# The four operations against NumPy references on random inputs at awkward sizes, every dtype,
# blocking and on a stream, on whole buffers and on views; outputs poisoned before each run.
import functools

import numpy as np
import pytest

import gpucore
from conftest import DTYPES, bf16_round, output_buffer, random_host, sizes, to_buffer, is_simulated

FLOAT_EPS = {"float32": 2.0**-24, "float64": 2.0**-53, "float16": 2.0**-11, "bfloat16": 2.0**-8}


def read(buffer):
    """A buffer's values as float64 (floats) or int64 (integers)."""
    arr = buffer.to_numpy()
    return arr.astype(np.int64) if arr.dtype.kind in "iu" else arr.astype(np.float64)


def add_reference(dtype, x, y):
    if dtype == "int32":
        return ((x + y + 2**31) % 2**32) - 2**31
    if dtype == "uint32":
        return (x + y) % 2**32
    if dtype == "bfloat16":
        return bf16_round((x + y).astype(np.float32)).astype(np.float64)
    return (x.astype(dtype) + y.astype(dtype)).astype(np.float64)


def reduce_reference(dtype, op, values):
    """(expected value, absolute tolerance) for op over values (float64 or int64)."""
    if dtype in ("int32", "uint32"):
        ints = [int(v) for v in values]
        if op == "sum":
            total = sum(ints) % 2**32
        elif op == "prod":
            total = functools.reduce(lambda acc, v: (acc * v) % 2**32, ints, 1)
        else:
            return (min(ints) if op == "min" else max(ints)), 0
        if dtype == "int32" and total >= 2**31:
            total -= 2**32
        return total, 0
    if op in ("min", "max"):
        return (values.min() if op == "min" else values.max()), 0.0
    if op == "sum":
        expected = float(np.sum(values))
        # float and 16-bit types accumulate in float32 at least; the result is rounded to the dtype.
        accumulate = 2.0**-53 if dtype == "float64" else 2.0**-24
        tolerance = (len(values) * accumulate) * float(np.sum(np.abs(values))) + FLOAT_EPS[dtype] * abs(expected)
        return expected, tolerance + 1e-300
    expected = float(np.prod(values))
    return expected, 4 * len(values) * FLOAT_EPS[dtype] * abs(expected) + 1e-300


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("on_stream", [False, True], ids=["blocking", "stream"])
def test_vector_add(device, rng, dtype, on_stream):
    stream = gpucore.Stream(device) if on_stream else None
    for n in sizes(device):
        xa, a_values = random_host(rng, dtype, n)
        xb, b_values = random_host(rng, dtype, n)
        a, b = to_buffer(xa, dtype, device), to_buffer(xb, dtype, device)
        out = output_buffer(n, dtype, device)
        result = gpucore.vector_add(a, b, out, stream=stream)
        assert result is out
        if stream is not None:
            stream.synchronize()
        np.testing.assert_array_equal(read(out), add_reference(dtype, a_values, b_values), err_msg=f"n={n}")


@pytest.mark.parametrize("dtype", ["int32", "uint32"])
def test_vector_add_integers_wrap(device, dtype):
    top = 2**31 - 1 if dtype == "int32" else 2**32 - 1
    a = gpucore.Buffer.from_numpy(np.full(5, top, dtype=dtype), device)
    out = gpucore.vector_add(a, a)
    top_values = np.full(5, top, dtype=np.int64)
    expected = add_reference(dtype, top_values, top_values)
    assert expected[0] == (-2 if dtype == "int32" else 2**32 - 2)
    np.testing.assert_array_equal(read(out), expected)


def test_vector_add_allocates_and_runs_in_place(device, rng):
    xa, a_values = random_host(rng, "float32", 1000)
    a = gpucore.Buffer.from_numpy(xa, device)
    c = gpucore.vector_add(a, a)
    assert c.shape == a.shape and c.dtype == gpucore.float32 and c.device == device
    np.testing.assert_array_equal(c.to_numpy(), xa + xa)
    gpucore.vector_add(a, c, c)  # out may be an input
    np.testing.assert_array_equal(c.to_numpy(), xa + (xa + xa))


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose(device, rng, dtype):
    shapes = [(1, 1), (1, 37), (37, 1), (3, 5), (33, 65), (257, 129)]
    if not is_simulated(device):
        shapes.append((1001, 513))
    for rows, cols in shapes:
        x, _ = random_host(rng, dtype, (rows, cols))
        buffer = to_buffer(x, dtype, device)
        out = output_buffer((cols, rows), dtype, device)
        gpucore.transpose(buffer, out)
        np.testing.assert_array_equal(out.to_numpy(), x.T, err_msg=f"{rows}x{cols}")
        # 1-D operands with rows= and cols=, and an allocated output.
        flat = gpucore.transpose(buffer.reshape(-1), rows=rows, cols=cols)
        assert flat.shape == (cols, rows)
        np.testing.assert_array_equal(flat.to_numpy(), x.T)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "min", "max", "prod"])
def test_reduce(device, rng, dtype, op):
    stream = gpucore.Stream(device)
    for n in sizes(device):
        # prod of many floats over/underflows: values within 2/sqrt(n) of 1 keep it near 1.
        spread = min(0.1, 2.0 / np.sqrt(n))
        low, high = (1 - spread, 1 + spread) if op == "prod" and dtype not in ("int32", "uint32") else (None, None)
        if op == "prod" and dtype in ("int32", "uint32"):
            low, high = (-3, 4) if dtype == "int32" else (0, 4)
        x, values = random_host(rng, dtype, n, low, high)
        buffer = to_buffer(x, dtype, device)
        expected, tolerance = reduce_reference(dtype, op, values)
        value = gpucore.reduce(buffer, op)  # blocking, returns the value
        assert isinstance(value, int if dtype in ("int32", "uint32") else float)
        assert abs(value - expected) <= tolerance, f"n={n}: {value} vs {expected} (tolerance {tolerance})"
        out = output_buffer(1, dtype, device)
        assert gpucore.reduce(buffer, op, out, stream=stream) is out  # asynchronous
        stream.synchronize()
        assert abs(read(out)[0] - expected) <= tolerance, f"n={n} on a stream"


def test_reduce_float_min_max_propagate_nan(device):
    x = np.arange(100, dtype=np.float32)
    x[57] = np.nan
    buffer = gpucore.Buffer.from_numpy(x, device)
    assert np.isnan(gpucore.reduce(buffer, "min"))
    assert np.isnan(gpucore.reduce(buffer, gpucore.ReduceOp.max))


def test_reduce_empty_gives_identity(device):
    empty = gpucore.Buffer(0, gpucore.float32, device)
    assert gpucore.reduce(empty, "sum") == 0.0
    assert gpucore.reduce(empty, "prod") == 1.0
    assert gpucore.reduce(empty, "min") == float("inf")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduce_rows(device, rng, dtype, op):
    shapes = [(1, 1), (1, 1000), (7, 3), (33, 65), (100, 1), (5, 4099)]
    if not is_simulated(device):
        shapes.append((2, 65537))
    for rows, cols in shapes:
        x, values = random_host(rng, dtype, (rows, cols))
        buffer = to_buffer(x, dtype, device)
        out = output_buffer(rows, dtype, device)
        gpucore.reduce_rows(buffer, op, out)
        got = read(out)
        for r in range(rows):
            expected, tolerance = reduce_reference(dtype, op, values[r])
            assert abs(got[r] - expected) <= tolerance, f"{rows}x{cols} row {r}: {got[r]} vs {expected}"


def test_operations_on_views(device, rng):
    x, _ = random_host(rng, "float32", (40, 30))
    matrix = gpucore.Buffer.from_numpy(x, device)
    flat = matrix.reshape(-1)
    # A view at an odd offset: elements 7 .. 7 + 503.
    a, b = flat[7:510], flat[600:1103]
    out = output_buffer(503, "float32", device)
    gpucore.vector_add(a, b, out)
    np.testing.assert_array_equal(out.to_numpy(), x.reshape(-1)[7:510] + x.reshape(-1)[600:1103])
    # Rows 5..14 of the matrix as a 10 x 30 view.
    rows = matrix[5:15]
    np.testing.assert_array_equal(gpucore.transpose(rows).to_numpy(), x[5:15].T)
    sums = gpucore.reduce_rows(rows, "max")
    np.testing.assert_array_equal(sums.to_numpy(), x[5:15].max(axis=1))
    assert gpucore.reduce(matrix[3], "max") == x[3].max()


def test_streams_and_events_order_work(device, rng):
    n = 4099
    x, _ = random_host(rng, "float32", n)
    a = gpucore.Buffer.from_numpy(x, device)
    s1, s2 = gpucore.Stream(device), gpucore.Stream(device)
    b = output_buffer(n, "float32", device)
    c = output_buffer(n, "float32", device)
    done = gpucore.Event(device)
    gpucore.vector_add(a, a, b, stream=s1)      # b = 2x
    done.record(s1)
    s2.wait(done)
    gpucore.vector_add(b, a, c, stream=s2)      # c = 3x, after b
    s2.synchronize()
    np.testing.assert_array_equal(c.to_numpy(), x + x + x)
    # Only the event is asserted: a stream's query() may briefly read False after its work is done
    # (the core can enqueue markers of its own on a user's stream).
    assert done.query()
