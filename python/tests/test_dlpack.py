# SPDX-License-Identifier: Apache-2.0
# DLPack with NumPy (and PyTorch on the CPU where it is installed): zero-copy both ways (the same
# address before and after), the producer's memory kept alive by the consumer, capsules consumed
# once, the DLTensor fields read back through ctypes, and every refusal a clear exception.
import ctypes
import gc
import sys

import numpy as np
import pytest

import gpucore

needs_cpu = pytest.mark.skipif(
    gpucore.default_device().backend != "cpu",
    reason="exchange with NumPy needs host memory: the device under test is not the cpu backend")


def cpu():
    return gpucore.select_device("cpu")


# ---- the DLPack structs, declared from the specification, to read capsules independently ----

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def read_capsule(capsule):
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return DLManagedTensor.from_address(get_pointer(capsule, b"dltensor")).dl_tensor


# ---- gpucore -> NumPy ----

@needs_cpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32", "float16"])
def test_numpy_from_buffer_is_zero_copy(dtype):
    buffer = gpucore.Buffer.from_numpy(np.arange(1001).astype(dtype), cpu())
    array = np.from_dlpack(buffer)
    assert array.ctypes.data == buffer.data_ptr
    assert array.dtype == np.dtype(dtype) and array.shape == (1001,)
    np.testing.assert_array_equal(array, np.arange(1001).astype(dtype))
    # The same memory: a gpucore write shows in the array.
    buffer.fill(5)
    assert (array == 5).all()


@needs_cpu
def test_numpy_sees_work_queued_before_export():
    n = 1 << 20
    a = gpucore.Buffer.from_numpy(np.ones(n, np.float32), cpu())
    out = gpucore.Buffer(n, "float32", cpu())
    out.fill(-1.0)
    stream = gpucore.Stream(cpu())
    for _ in range(8):
        gpucore.vector_add(a, a, out, stream=stream)  # asynchronous, not synchronized here
    array = np.from_dlpack(out)                       # __dlpack__ waits for the device's work
    assert (array == 2.0).all()


@needs_cpu
def test_producer_memory_outlives_the_buffer_object():
    buffer = gpucore.Buffer.from_numpy(np.arange(4099, dtype=np.float64), cpu())
    address = buffer.data_ptr
    array = np.from_dlpack(buffer[1:])
    del buffer
    gc.collect()
    junk = [gpucore.Buffer(4099, "float64", cpu()) for _ in range(8)]  # would reuse freed memory
    for j in junk:
        j.fill(-1.0)
    assert array.ctypes.data == address + 8
    np.testing.assert_array_equal(array, np.arange(1, 4099, dtype=np.float64))


@needs_cpu
def test_capsule_fields():
    buffer = gpucore.Buffer.from_numpy(np.zeros((3, 5), np.float32), cpu())
    view = buffer[1:]
    capsule = view.__dlpack__()
    tensor = read_capsule(capsule)
    assert tensor.data == buffer.data_ptr + 5 * 4 and tensor.byte_offset == 0
    assert (tensor.device.device_type, tensor.device.device_id) == (1, 0) == view.__dlpack_device__()
    assert tensor.ndim == 2 and [tensor.shape[i] for i in range(2)] == [2, 5]
    assert [tensor.strides[i] for i in range(2)] == [5, 1]
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (2, 32, 1)  # kDLFloat


@needs_cpu
def test_bfloat16_is_exchanged_as_kdlbfloat():
    buffer = gpucore.Buffer.from_numpy(np.array([1.0, -2.5], np.float32), cpu(), gpucore.bfloat16)
    tensor = read_capsule(buffer.__dlpack__())
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (4, 16, 1)  # kDLBfloat
    # gpucore takes its own bfloat16 capsule back, on the same memory.
    again = gpucore.from_dlpack(buffer.__dlpack__())
    assert again.dtype == gpucore.bfloat16 and again.data_ptr == buffer.data_ptr
    np.testing.assert_array_equal(again.to_numpy(), [1.0, -2.5])


@needs_cpu
def test_capsule_is_consumed_once():
    buffer = gpucore.Buffer.from_numpy(np.arange(4, dtype=np.int32), cpu())
    capsule = buffer.__dlpack__()
    first = gpucore.from_dlpack(capsule)
    assert first.data_ptr == buffer.data_ptr
    with pytest.raises(ValueError, match="consumed once"):
        gpucore.from_dlpack(capsule)
    del capsule, buffer
    gc.collect()
    np.testing.assert_array_equal(first.to_numpy(), [0, 1, 2, 3])
    # A capsule never consumed returns its memory when it is collected (no leak, no crash).
    for _ in range(100):
        gpucore.Buffer(1000, "float32", cpu()).__dlpack__()


@needs_cpu
def test_export_arguments():
    buffer = gpucore.Buffer(4, "float32", cpu())
    np.testing.assert_array_equal(np.from_dlpack(buffer), np.from_dlpack(buffer))
    buffer.__dlpack__(stream=None, max_version=(1, 0))    # an unversioned capsule for any max_version
    buffer.__dlpack__(stream=-1)                          # -1: no synchronization
    with pytest.raises(BufferError, match="stream must be None"):
        buffer.__dlpack__(stream=1)
    with pytest.raises(TypeError):
        buffer.__dlpack__(stream="default")
    with pytest.raises(BufferError, match="another device"):
        buffer.__dlpack__(dl_device=(2, 0))
    copy = np.from_dlpack(gpucore.from_dlpack(buffer.__dlpack__(copy=True)))
    assert copy.ctypes.data != buffer.data_ptr


# ---- NumPy -> gpucore ----

@needs_cpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32", "float16"])
def test_buffer_from_numpy_is_zero_copy(dtype):
    array = np.arange(4099).astype(dtype)
    buffer = gpucore.from_dlpack(array)
    assert buffer.data_ptr == array.ctypes.data and not buffer.owns_memory
    assert buffer.dtype == getattr(gpucore, dtype) and buffer.shape == (4099,)
    # gpucore works on NumPy's memory: the result lands in the array.
    out = np.zeros(4099, dtype)
    gpucore.vector_add(buffer, buffer, gpucore.from_dlpack(out))
    np.testing.assert_array_equal(out, array + array)


@needs_cpu
def test_numpy_memory_outlives_the_array_object():
    array = np.arange(65537, dtype=np.float32).reshape(1, -1)
    address = array.ctypes.data
    refs = sys.getrefcount(array)
    buffer = gpucore.from_dlpack(array)
    assert sys.getrefcount(array) > refs  # the capsule's owner keeps the array
    del array
    gc.collect()
    assert buffer.data_ptr == address
    assert gpucore.reduce(buffer, "max") == 65536.0
    view = buffer.reshape(-1)[100:200]
    del buffer
    gc.collect()
    np.testing.assert_array_equal(view.to_numpy(), np.arange(100, 200, dtype=np.float32))


@needs_cpu
def test_from_dlpack_refusals():
    with pytest.raises(gpucore.Error, match="not C-contiguous") as info:
        gpucore.from_dlpack(np.arange(20, dtype=np.float32)[::3])
    assert info.value.code == "invalid_argument" and info.value.operation == "from_dlpack"
    with pytest.raises(gpucore.Error, match="not C-contiguous"):
        gpucore.from_dlpack(np.ones((3, 4), np.int32).T)
    for dtype in [np.int64, np.complex64, np.int8, np.uint16]:
        with pytest.raises(gpucore.Error, match="no dtype"):
            gpucore.from_dlpack(np.zeros(3, dtype))
    readonly = np.zeros(3, np.float32)
    readonly.flags.writeable = False
    with pytest.raises(BufferError):
        gpucore.from_dlpack(readonly)       # NumPy refuses to export read-only arrays
    with pytest.raises(TypeError, match="__dlpack__"):
        gpucore.from_dlpack([1.0, 2.0])
    # Contiguous in memory though strided as NumPy states it: size-1 dimensions and empty arrays.
    assert gpucore.from_dlpack(np.zeros((3, 1, 4), np.float32)[:, :, :]).shape == (3, 1, 4)
    assert gpucore.from_dlpack(np.zeros((0, 5), np.float32)).size == 0
    assert gpucore.from_dlpack(np.array(2.5)).shape == ()


class ForeignDevice:
    """A producer on a device gpucore does not have (CUDA device 7, Vulkan)."""

    def __init__(self, device_type, device_id):
        self.device = (device_type, device_id)
        self.array = np.zeros(4, np.float32)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **kwargs):
        return self.array.__dlpack__()


def test_from_dlpack_refuses_devices_gpucore_lacks():
    with pytest.raises(gpucore.Error, match="does not have") as info:
        gpucore.from_dlpack(ForeignDevice(2, 7))
    assert info.value.code == "backend_unavailable"
    with pytest.raises(gpucore.Error, match="device type 7") as info:
        gpucore.from_dlpack(ForeignDevice(7, 0))
    assert info.value.code == "not_supported"


def test_export_from_a_backend_without_a_dlpack_device():
    device = gpucore.default_device()
    if device.backend in ("cpu", "cuda", "hip"):
        pytest.skip(f"{device.backend} memory has a DLPack device type")
    buffer = gpucore.Buffer(4, "float32", device)
    with pytest.raises(BufferError, match="no DLPack device type"):
        buffer.__dlpack_device__()
    with pytest.raises(BufferError, match="no DLPack device type"):
        buffer.__dlpack__()


def test_gpucore_buffer_round_trip_keeps_the_memory(device):
    buffer = gpucore.Buffer.from_numpy(np.arange(10, dtype=np.int32), device)
    again = gpucore.from_dlpack(buffer)
    assert again.data_ptr == buffer.data_ptr and again.device == device


# ---- PyTorch CPU tensors, where torch is installed ----

@needs_cpu
def test_torch_cpu_exchange():
    torch = pytest.importorskip("torch")
    tensor = torch.arange(1000, dtype=torch.float32)
    buffer = gpucore.from_dlpack(tensor)
    assert buffer.data_ptr == tensor.data_ptr()
    back = torch.from_dlpack(buffer)
    assert back.data_ptr() == buffer.data_ptr
    gpucore.vector_add(buffer, buffer, buffer)
    assert torch.equal(tensor, torch.arange(1000, dtype=torch.float32) * 2)
    bf = torch.from_dlpack(gpucore.Buffer.from_numpy(np.array([1.5, 2.0], np.float32), cpu(), gpucore.bfloat16))
    assert bf.dtype == torch.bfloat16 and bf.tolist() == [1.5, 2.0]


@needs_cpu
def test_consumer_releases_without_the_gil():
    """A consumer may call the deleter on any thread without the GIL (as a C++ library's tensor
    destructor does): the chain back to NumPy's array still runs correctly."""
    array = np.arange(4099, dtype=np.float32)
    buffer = gpucore.from_dlpack(array)
    capsule = buffer.__dlpack__()
    del buffer, array
    gc.collect()
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    set_name = ctypes.pythonapi.PyCapsule_SetName
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, b"dltensor")
    managed = DLManagedTensor.from_address(address)
    values = np.ctypeslib.as_array(ctypes.cast(managed.dl_tensor.data, ctypes.POINTER(ctypes.c_float)), (4099,))
    assert values[4098] == 4098.0
    assert set_name(capsule, b"used_dltensor") == 0  # this "consumer" owns the tensor now
    # A CFUNCTYPE call releases the GIL for its duration.
    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(managed.deleter)
    deleter(address)
    del capsule
    gc.collect()
