# SPDX-License-Identifier: Apache-2.0
# gpucore imported first, then another C++ extension, in a fresh interpreter: the process ends
# normally and the other library works. gpucore is then the one that brought the C++ runtime into
# the process, so whatever its shared objects export must not stand in for that runtime (the
# build-tree check of the exports is the ctest exports.gpucore_symbols_only). Each case skips,
# saying so, where the other library is absent (CI has neither).
import importlib.util
import os
import subprocess
import sys

import pytest

import gpucore

AFTER_GPUCORE = {
    "torch": "import torch; x = torch.arange(1000, dtype=torch.float32); assert x.sum().item() == 499500.0",
    "cupy": "import cupy",
}


@pytest.mark.parametrize("other", sorted(AFTER_GPUCORE))
def test_another_cpp_extension_imports_and_works_after_gpucore(other):
    if importlib.util.find_spec(other) is None:
        pytest.skip(f"{other} is not installed for this interpreter")
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(gpucore.__file__)))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, environment.get("PYTHONPATH")]))
    program = f"import gpucore; gpucore.devices(); {AFTER_GPUCORE[other]}; print('finished')"
    run = subprocess.run([sys.executable, "-c", program], env=environment, capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 0 and run.stdout.strip().endswith("finished"), (
        f"importing {other} after gpucore: exit {run.returncode}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
