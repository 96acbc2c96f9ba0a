# SPDX-License-Identifier: Apache-2.0
# Streams and events, and the GIL: blocking calls let other Python threads run while they wait.
import threading
import time

import numpy as np
import pytest

import gpucore
from conftest import is_simulated


def test_stream_and_event_basics(device):
    stream = gpucore.Stream(device)
    assert stream.device == device and "Stream" in repr(stream)
    assert stream.query()
    stream.synchronize()
    start, end = gpucore.Event(device), gpucore.Event(device)
    start.record(stream)
    buffer = gpucore.Buffer(1 << 16, "float32", device)
    buffer.fill(1.0, stream=stream)
    end.record(stream)
    end.synchronize()
    assert end.query() and gpucore.elapsed_ms(start, end) >= 0.0
    assert isinstance(stream.native_handle, int) and stream.native_handle != 0
    assert gpucore.Stream().device == gpucore.default_device()


def test_streams_of_other_devices_are_refused():
    devices = gpucore.devices()
    if len(devices) < 2:
        pytest.skip("one device only")
    a = gpucore.Buffer(8, "float32", devices[0])
    other = gpucore.Stream(devices[1])
    with pytest.raises(gpucore.Error) as info:
        gpucore.vector_add(a, a, stream=other)
    assert info.value.code == "invalid_argument"
    with pytest.raises(gpucore.Error):
        other.wait(gpucore.Event(devices[0]))


def run_while_waiting(wait, enqueue):
    """Counts how often the main thread runs Python while another thread is inside wait()."""
    enqueue()
    entered = threading.Event()
    errors = []

    def waiter():
        entered.set()
        try:
            wait()
        except Exception as error:  # reported by the assertion below
            errors.append(error)

    thread = threading.Thread(target=waiter)
    thread.start()
    entered.wait()
    count = 0
    while thread.is_alive():
        count += 1
    thread.join()
    assert not errors
    return count


def test_the_gil_is_released_while_waiting(device):
    n = 1 << 12 if is_simulated(device) else 1 << 22
    repeats = 4 if is_simulated(device) else 40
    a = gpucore.Buffer.from_numpy(np.ones(n, np.float32), device)
    c = gpucore.Buffer(n, "float32", device)
    stream = gpucore.Stream(device)

    def enqueue():
        for _ in range(repeats):
            gpucore.vector_add(a, a, c, stream=stream)

    started = time.perf_counter()
    count = run_while_waiting(stream.synchronize, enqueue)
    waited = time.perf_counter() - started
    # Holding the GIL in synchronize() would stop this thread for the whole wait (a count of a few);
    # a released GIL lets it loop thousands of times per millisecond waited.
    if waited > 0.02:
        assert count > 1000, f"{count} iterations in {waited:.3f} s"
    # The blocking forms release it too (reduce waits for the queued vector_adds first).
    started = time.perf_counter()
    count = run_while_waiting(lambda: gpucore.reduce(c, "sum"), enqueue)
    waited = time.perf_counter() - started
    if waited > 0.02:
        assert count > 1000, f"{count} iterations in {waited:.3f} s"


def test_blocking_calls_work_in_a_forked_child(device):
    import multiprocessing  # noqa: PLC0415

    a = gpucore.Buffer.from_numpy(np.arange(100, dtype=np.float32), gpucore.select_device("cpu"))
    assert gpucore.reduce(a, "sum") == 4950.0  # the parent's blocking stream exists now
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        assert pool.apply(child_sum) == 4950.0


def child_sum():
    # Objects from the parent are not usable after fork(): the child makes its own.
    b = gpucore.Buffer.from_numpy(np.arange(100, dtype=np.float32), gpucore.select_device("cpu"))
    return gpucore.reduce(b, "sum")
