# SPDX-License-Identifier: Apache-2.0
# Buffer: allocation by shape and dtype, copies from and to NumPy (every dtype, bfloat16 through
# an independent rounding reference), views by slicing and reshape, fill, copies between buffers.
import numpy as np
import pytest

import gpucore
from conftest import DTYPES, bf16_bits, bf16_to_f32, output_buffer, random_host, sizes, to_buffer


@pytest.mark.parametrize("dtype", DTYPES)
def test_allocation_by_shape_and_dtype(device, dtype):
    for shape in [(), 0, 5, (3, 4), (2, 3, 5), (0, 7)]:
        buffer = gpucore.Buffer(shape, dtype, device)
        expected = shape if isinstance(shape, tuple) else (shape,)
        assert buffer.shape == expected
        assert buffer.size == int(np.prod(expected))
        assert buffer.dtype == getattr(gpucore, dtype) and str(buffer.dtype) == dtype
        assert buffer.itemsize == (2 if dtype in ("float16", "bfloat16") else 8 if dtype == "float64" else 4)
        assert buffer.nbytes == buffer.size * buffer.itemsize
        assert buffer.ndim == len(expected)
        assert buffer.device == device and buffer.owns_memory


def test_dtype_spellings(device):
    for spelling in ["float32", "f32", gpucore.float32, np.float32, np.dtype("float32")]:
        assert gpucore.Buffer(3, spelling, device).dtype == gpucore.float32
    assert gpucore.Buffer(3, "bf16", device).dtype == gpucore.bfloat16
    assert gpucore.bfloat16.itemsize == 2
    for unsupported in ["complex64", np.int64, np.dtype("bool"), float, object(), None, 3]:
        with pytest.raises(TypeError, match="gpucore has no dtype"):
            gpucore.Buffer(3, unsupported, device)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32", "float16"])
def test_numpy_round_trip(device, rng, dtype):
    for n in sizes(device):
        x, _ = random_host(rng, dtype, n)
        buffer = gpucore.Buffer.from_numpy(x, device)
        assert buffer.dtype == getattr(gpucore, dtype) and buffer.shape == (n,)
        back = buffer.to_numpy()
        assert back.dtype == x.dtype
        np.testing.assert_array_equal(back, x)
        assert not np.shares_memory(back, x)
    matrix, _ = random_host(rng, dtype, (17, 31))
    np.testing.assert_array_equal(gpucore.from_numpy(matrix, device).to_numpy(), matrix)


def test_bfloat16_from_float32_rounds_to_nearest_even(device, rng):
    x = rng.normal(0, 1000, 4099).astype(np.float32)
    # Ties and specials: exactly halfway between two bfloat16 values, both parities; inf; NaN.
    x[:6] = bf16_to_f32(np.array([0x3F80, 0x3F81, 0x7F7F, 0xC000, 0x0001, 0x8000], np.uint16))
    x[:4] += np.array([2.0**-8, 2.0**-8, 0, 0], np.float32) * np.abs(x[:4])
    x[6:9] = [np.inf, -np.inf, np.nan]
    buffer = gpucore.Buffer.from_numpy(x, device, gpucore.bfloat16)
    assert buffer.dtype == gpucore.bfloat16
    bits = buffer.to_numpy(dtype="uint16")
    expected = bf16_bits(x)
    np.testing.assert_array_equal(bits[~np.isnan(x)], expected[~np.isnan(x)])
    assert np.all(np.isnan(bf16_to_f32(bits[np.isnan(x)])))
    # Widening back to float32 is exact; uint16 bit patterns go in unchanged.
    np.testing.assert_array_equal(buffer.to_numpy()[~np.isnan(x)], bf16_to_f32(expected)[~np.isnan(x)])
    again = gpucore.Buffer.from_numpy(bits, device, gpucore.bfloat16)
    np.testing.assert_array_equal(again.to_numpy("uint16"), bits)


def test_float16_bit_patterns(device):
    bits = np.array([0x3C00, 0x7BFF, 0x0001, 0xFC00], np.uint16)
    buffer = gpucore.Buffer.from_numpy(bits, device, gpucore.float16)
    np.testing.assert_array_equal(buffer.to_numpy(), bits.view(np.float16))
    np.testing.assert_array_equal(buffer.to_numpy("uint16"), bits)


def test_from_numpy_refuses_what_it_cannot_take(device):
    with pytest.raises(gpucore.Error, match="not C-contiguous") as info:
        gpucore.Buffer.from_numpy(np.arange(20, dtype=np.float32)[::2], device)
    assert info.value.code == "invalid_argument" and info.value.operation == "Buffer.from_numpy"
    with pytest.raises(gpucore.Error, match="not C-contiguous"):
        gpucore.Buffer.from_numpy(np.ones((4, 5), np.float32).T, device)
    with pytest.raises(TypeError, match="no dtype"):
        gpucore.Buffer.from_numpy(np.arange(4, dtype=np.int64), device)
    with pytest.raises(gpucore.Error, match="cannot become"):
        gpucore.Buffer.from_numpy(np.arange(4, dtype=np.float64), device, gpucore.float32)
    with pytest.raises(TypeError):
        gpucore.Buffer.from_numpy([1.0, 2.0], device)
    with pytest.raises(gpucore.Error, match="gives arrays of"):
        gpucore.Buffer(3, "float32", device).to_numpy("float64")


def test_views_by_slicing_share_memory(device, rng):
    x, _ = random_host(rng, "float32", (10, 6))
    buffer = gpucore.Buffer.from_numpy(x, device)
    rows = buffer[2:7]
    assert rows.shape == (5, 6) and rows.data_ptr == buffer.data_ptr + 2 * 6 * 4
    np.testing.assert_array_equal(rows.to_numpy(), x[2:7])
    np.testing.assert_array_equal(buffer[-1].to_numpy(), x[-1])
    np.testing.assert_array_equal(buffer[3][1:4].to_numpy(), x[3][1:4])
    assert buffer[8:100].shape == (2, 6) and buffer[5:2].shape == (0, 6)
    flat = buffer.reshape(-1)
    assert flat.shape == (60,) and flat.data_ptr == buffer.data_ptr
    np.testing.assert_array_equal(flat[13:29].to_numpy(), x.reshape(-1)[13:29])
    assert buffer.reshape(3, 20).shape == (3, 20) and buffer.reshape((5, -1)).shape == (5, 12)
    # Writing through a view changes the buffer.
    rows[1].fill(7.0)
    expected = x.copy()
    expected[3] = 7.0
    np.testing.assert_array_equal(buffer.to_numpy(), expected)
    # A view keeps the memory alive after the buffer object is gone.
    view = gpucore.Buffer.from_numpy(x, device)[4]
    np.testing.assert_array_equal(view.to_numpy(), x[4])


def test_view_misuse(device):
    buffer = gpucore.Buffer((4, 5), "int32", device)
    with pytest.raises(gpucore.Error, match="step 1"):
        buffer[::2]
    with pytest.raises(IndexError):
        buffer[4]
    with pytest.raises(IndexError):
        buffer[-5]
    with pytest.raises(IndexError):
        buffer[1, 2]
    with pytest.raises(IndexError):
        gpucore.Buffer((), "int32", device)[0]
    with pytest.raises(TypeError):
        buffer["a"]
    with pytest.raises(gpucore.Error, match="cannot reshape"):
        buffer.reshape(3, 7)
    with pytest.raises(gpucore.Error, match="cannot reshape"):
        buffer.reshape(-1, 3)
    with pytest.raises(ValueError):
        buffer.reshape(-1, -1)
    assert len(buffer) == 4
    with pytest.raises(TypeError):
        len(gpucore.Buffer((), "int32", device))


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_and_copy_from(device, rng, dtype):
    value = 3 if dtype in ("int32", "uint32") else 2.5
    buffer = gpucore.Buffer(1001, dtype, device)
    buffer.fill(value)
    np.testing.assert_array_equal(buffer.to_numpy(), np.full(1001, value))
    stream = gpucore.Stream(device)
    buffer[10:20].fill(1, stream=stream)
    stream.synchronize()
    assert buffer.to_numpy()[9:21].tolist() == [value] + [1] * 10 + [value]
    x, _ = random_host(rng, dtype, 1001)
    source = to_buffer(x, dtype, device)
    target = output_buffer(1001, dtype, device)
    target.copy_from(source)
    np.testing.assert_array_equal(target.to_numpy(), source.to_numpy())
    target[500:].copy_from(source[:501], stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(target.to_numpy()[500:], source.to_numpy()[:501])


def test_fill_checks_values(device):
    with pytest.raises(ValueError, match="range"):
        gpucore.Buffer(3, "int32", device).fill(2**31)
    with pytest.raises(ValueError, match="range"):
        gpucore.Buffer(3, "uint32", device).fill(-1)
    with pytest.raises(TypeError):
        gpucore.Buffer(3, "int32", device).fill(1.5)
    with pytest.raises(TypeError):
        gpucore.Buffer(3, "float32", device).fill("1")


def test_copy_between_devices(rng):
    devices = gpucore.devices()
    if len(devices) < 2:
        pytest.skip("one device only: nothing to copy between")
    x, _ = random_host(rng, "float32", 4099)
    first = gpucore.Buffer.from_numpy(x, devices[0])
    second = gpucore.Buffer(4099, "float32", devices[-1])
    second.copy_from(first)
    np.testing.assert_array_equal(second.to_numpy(), x)


def test_numpy_asarray_copies(device):
    buffer = gpucore.Buffer.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 3), device)
    np.testing.assert_array_equal(np.asarray(buffer), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(buffer.__array__("float64", copy=True), np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match="by a copy"):
        buffer.__array__(copy=False)
    assert "shape=(2, 3)" in repr(buffer) and "int32" in repr(buffer)
