# SPDX-License-Identifier: Apache-2.0
# Devices and the runtime's view of the machine, as the C++ API gives them.
import os

import pytest

import gpucore


def test_default_device_follows_gpu_backend():
    device = gpucore.default_device()
    selection = os.environ.get("GPU_BACKEND", "auto")
    if selection not in ("", "auto"):
        assert str(device) == (selection if ":" in selection else selection + ":0")
    assert device in gpucore.devices()
    assert str(device) == f"{device.backend}:{device.index}"


def test_device_properties():
    for device in gpucore.devices():
        assert device.name and device.backend and device.index >= 0
        assert device.warp_size >= 1 and device.compute_units >= 1
        assert device.total_memory_bytes >= 0 and device.peak_memory_bandwidth_gbps >= 0
        assert isinstance(device.supports_pinned_host, bool) and isinstance(device.supports_managed, bool)
        assert isinstance(device.vendor, str) and isinstance(device.architecture, str)
        assert device == gpucore.select_device(str(device)) and hash(device) == hash(gpucore.select_device(str(device)))
        assert repr(device).startswith("gpucore.Device('")
    cpu = gpucore.select_device("cpu")
    assert cpu.backend == "cpu" and cpu.warp_size == 1
    info = cpu.memory_info()
    assert 0 < info["free_bytes"] <= info["total_bytes"]
    assert gpucore.memory_info("cpu") == pytest.approx(info, rel=0.5)


def test_backends_and_candidates():
    names = [b.name for b in gpucore.backends()]
    assert "cpu" in names
    for backend in gpucore.backends():
        assert backend.usable == (backend.device_count > 0 and backend.reason == "") or not backend.usable
    for candidate in gpucore.plugin_candidates():
        assert candidate.outcome in ("loaded", "skipped") and candidate.path


def test_selection_errors_say_why():
    with pytest.raises(gpucore.Error, match="no-such-backend") as info:
        gpucore.select_device("no-such-backend")
    assert "cpu" in str(info.value)  # the available backends are listed
    with pytest.raises(gpucore.Error):
        gpucore.select_device("cpu:7")
    with pytest.raises(TypeError):
        gpucore.select_device(3)


def test_version():
    assert gpucore.__version__.count(".") == 2
