# SPDX-License-Identifier: Apache-2.0
# Zero-copy exchange with PyTorch and CuPy on CUDA devices, and the DLPack stream handshake.
# Every test skips, saying why, where torch/CuPy, a CUDA GPU or gpucore's cuda backend is absent
# (CI); on a GPU machine: see README "Python" for the command (torch and CuPy from a venv).
import gc

import numpy as np
import pytest

import gpucore


def cuda_device():
    found = [d for d in gpucore.devices() if d.backend == "cuda"]
    if not found:
        pytest.skip("gpucore has no cuda device here")
    return found[0]


@pytest.fixture
def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    device = cuda_device()
    return torch, device, torch.device("cuda", device.index)


@pytest.fixture
def cupy_cuda():
    cupy = pytest.importorskip("cupy")
    device = cuda_device()
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001: any CUDA failure means no usable GPU for CuPy
        pytest.skip(f"CuPy cannot use CUDA: {error}")
    return cupy, device


def test_torch_tensor_to_gpucore_is_zero_copy(torch_cuda):
    torch, device, where = torch_cuda
    for dtype in (torch.float32, torch.float64, torch.int32, torch.float16, torch.bfloat16):
        tensor = torch.arange(4099, device=where).to(dtype)
        buffer = gpucore.from_dlpack(tensor)
        assert buffer.data_ptr == tensor.data_ptr() and buffer.device == device and not buffer.owns_memory
        assert buffer.shape == (4099,)
        assert gpucore.reduce(buffer, "max") == float(tensor.max().item())
    # gpucore writes into torch's memory.
    tensor = torch.zeros(1000, device=where)
    ones = gpucore.Buffer.from_numpy(np.ones(1000, np.float32), device)
    gpucore.vector_add(ones, ones, gpucore.from_dlpack(tensor))
    assert torch.equal(tensor, torch.full((1000,), 2.0, device=where))


def test_gpucore_buffer_to_torch_is_zero_copy(torch_cuda):
    torch, device, where = torch_cuda
    x = np.arange(65537, dtype=np.float32)
    buffer = gpucore.Buffer.from_numpy(x, device)
    tensor = torch.from_dlpack(buffer)
    assert tensor.data_ptr() == buffer.data_ptr and tensor.device == where
    assert torch.equal(tensor.cpu(), torch.from_numpy(x))
    bf = torch.from_dlpack(gpucore.Buffer.from_numpy(np.array([1.5, -2.0], np.float32), device, gpucore.bfloat16))
    assert bf.dtype == torch.bfloat16 and bf.cpu().tolist() == [1.5, -2.0]
    view = torch.from_dlpack(buffer.reshape(-1)[1000:2000])
    assert view.data_ptr() == buffer.data_ptr + 4000


def test_lifetimes_across_the_exchange(torch_cuda):
    torch, device, where = torch_cuda
    tensor = torch.arange(1 << 20, device=where, dtype=torch.float32)
    buffer = gpucore.from_dlpack(tensor)
    del tensor
    gc.collect()
    torch.cuda.empty_cache()
    junk = torch.full((1 << 22,), -1.0, device=where)  # would land in freed memory
    assert gpucore.reduce(buffer, "max") == float((1 << 20) - 1)
    del junk
    source = gpucore.Buffer.from_numpy(np.arange(4096, dtype=np.float32), device)
    exported = torch.from_dlpack(source)
    del source
    gc.collect()
    assert exported.max().item() == 4095.0


def test_torch_producer_stream_handshake(torch_cuda):
    torch, device, where = torch_cuda
    n = 1 << 24
    side = torch.cuda.Stream(device=where)
    with torch.cuda.stream(side):
        tensor = torch.empty(n, device=where)
        torch.cuda._sleep(50_000_000)      # keeps the side stream busy: the fill lands late
        tensor.fill_(3.0)
        # torch's current stream is `side`: __dlpack__ makes gpucore's stream wait for it.
        buffer = gpucore.from_dlpack(tensor)
    assert gpucore.reduce(buffer, "min") == 3.0
    # With a gpucore stream given, the work on it is ordered after torch's, without a host wait.
    stream = gpucore.Stream(device)
    with torch.cuda.stream(side):
        other = torch.empty(n, device=where)
        torch.cuda._sleep(50_000_000)
        other.fill_(5.0)
        imported = gpucore.from_dlpack(other, stream=stream)
    out = gpucore.Buffer(1, "float32", device)
    gpucore.reduce(imported, "min", out, stream=stream)
    stream.synchronize()
    assert out.to_numpy()[0] == 5.0


def test_gpucore_producer_stream_handshake(torch_cuda):
    torch, device, where = torch_cuda
    n = 1 << 24
    ones = gpucore.Buffer.from_numpy(np.ones(n, np.float32), device)
    out = gpucore.Buffer(n, "float32", device)
    out.fill(0.0)
    stream = gpucore.Stream(device)
    for _ in range(50):                          # queued, not waited for
        gpucore.vector_add(ones, out, out, stream=stream)
    tensor = torch.from_dlpack(out)              # torch passes its stream; gpucore's work comes first
    assert tensor.min().item() == 50.0 and tensor.max().item() == 50.0


def test_torch_refusals(torch_cuda):
    torch, device, where = torch_cuda
    with pytest.raises(gpucore.Error, match="not C-contiguous"):
        gpucore.from_dlpack(torch.zeros((64, 32), device=where).t())
    with pytest.raises((gpucore.Error, BufferError, RuntimeError)):
        gpucore.from_dlpack(torch.zeros(4, dtype=torch.int64, device=where))


def test_cupy_exchange_is_zero_copy(cupy_cuda):
    cupy, device = cupy_cuda
    with cupy.cuda.Device(device.index):
        array = cupy.arange(4099, dtype=cupy.float32)
        buffer = gpucore.from_dlpack(array)
        assert buffer.data_ptr == array.data.ptr
        assert gpucore.reduce(buffer, "sum") == pytest.approx(float(array.sum()))
        source = gpucore.Buffer.from_numpy(np.arange(1000, dtype=np.int32), device)
        back = cupy.from_dlpack(source)
        assert back.data.ptr == source.data_ptr
        assert int(back.sum()) == 999 * 1000 // 2


def test_cupy_stream_handshake(cupy_cuda):
    cupy, device = cupy_cuda
    with cupy.cuda.Device(device.index):
        side = cupy.cuda.Stream(non_blocking=True)
        with side:
            array = cupy.zeros(1 << 24, dtype=cupy.float32)
            for _ in range(20):
                array += 1.0
            buffer = gpucore.from_dlpack(array)   # gpucore's stream waits for `side`
        assert gpucore.reduce(buffer, "min") == 20.0
