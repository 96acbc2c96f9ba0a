#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check_layering.py passes on the tree and fails on each kind of wrong arrow.

Each case copies the tree's sources into a temporary folder, adds one include that goes the wrong
way, and expects the check to fail naming that file and line; the unchanged copy must pass, so a
failure is the added include's and nothing else's.

Usage: layering_test.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = None
CHECK = None

# (what goes wrong, file that gets the include, the include line); the check must name the file
# and line, except where marked REACH: there the chain from the public API to plugin.h is named.
BAD_INCLUDES = [
    ("runtime reaches into the gpu backend", "core/src/ops.cpp", '#include "gpu_vendor.hpp"'),
    ("runtime reaches into the cpu backend past its entry", "core/src/buffer.cpp", '#include "cpu_kernels.hpp"'),
    ("cpu backend includes the runtime", "backends/cpu/cpu_reduce.cpp", '#include "backend.hpp"'),
    ("gpu backend includes the runtime", "backends/gpu/slots_streams.cpp", '#include "runtime.hpp"'),
    ("gpu backend includes the public API", "backends/gpu/launch.hpp", '#include "gpucore/buffer.hpp"'),
    ("plugin SDK includes the public API", "plugins/include/gpucore/plugin_support.hpp",
     '#include "gpucore/device.hpp"'),
    ("plugin SDK includes the runtime", "plugins/include/gpucore/reduce_rules.hpp", '#include "logging.hpp"'),
    ("cli includes the runtime", "apps/gpucore/main.cpp", '#include "runtime.hpp"'),
    ("example includes the runtime", "apps/examples/vector_add.cpp", '#include "backend.hpp"'),
    ("cli includes the gpu backend", "apps/gpucore/verify.hpp", '#include "tuning_policy.hpp"'),
    ("reference library includes the cli", "reference/include/gpucore_reference/verify.hpp",
     '#include "case_spec.hpp"'),
    ("reference library includes the plugin contract", "reference/include/gpucore_reference/tolerance.hpp",
     '#include "gpucore/plugin.h"'),
    ("simt includes the runtime", "backends/simt/simt_grid.cpp", '#include "access.hpp"'),
    ("template plugin includes the cpu backend", "plugins/template/template_plugin.cpp",
     '#include "cpu_kernels.hpp"'),
    ("public API includes the plugin contract", "core/include/gpucore/stream.hpp", '#include "gpucore/plugin.h"'),
    # Allowed arrow, forbidden destination: element_types.hpp is the public API's, plugin.h is not.
    ("REACH: public API reaches the contract through the SDK", "plugins/include/gpucore/element_types.hpp",
     '#include "gpucore/plugin.h"'),
]


def run_check(root):
    result = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def copy_sources(destination):
    for top in ("core", "plugins", "backends", "apps", "python", "benchmarks", "reference", "tests"):
        shutil.copytree(os.path.join(SOURCE_DIR, top), os.path.join(destination, top),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.png", "*.json"))


def add_include(root, path, line):
    """Adds `line` after the file's first include (so no header guard hides it); its line number."""
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        lines = f.readlines()
    at = next(i for i, text in enumerate(lines) if text.lstrip().startswith("#include")) + 1
    lines.insert(at, line + "\n")
    with open(full, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return at + 1


class Layering(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="gpucore-layering-")
        cls.pristine = os.path.join(cls.scratch, "pristine")
        copy_sources(cls.pristine)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def test_the_tree_follows_the_arrows(self):
        code, output = run_check(SOURCE_DIR)
        self.assertEqual(code, 0, output)
        self.assertEqual(output.strip(), "")

    def test_the_copy_follows_the_arrows(self):
        code, output = run_check(self.pristine)
        self.assertEqual(code, 0, output)

    def test_each_wrong_arrow_fails(self):
        for what, path, line in BAD_INCLUDES:
            with self.subTest(what):
                root = os.path.join(self.scratch, "case")
                shutil.rmtree(root, ignore_errors=True)
                shutil.copytree(self.pristine, root)
                number = add_include(root, path, line)
                code, output = run_check(root)
                self.assertEqual(code, 1, f"{what}: {path} with {line} passed\n{output}")
                if what.startswith("REACH:"):
                    self.assertIn("reaches plugins/include/gpucore/plugin.h through", output)
                else:
                    self.assertIn(f"{path}:{number}: includes", output)

    def test_an_unknown_root_is_refused(self):
        code, output = run_check(os.path.join(self.scratch, "no-such-tree"))
        self.assertEqual(code, 2, output)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    SOURCE_DIR = os.path.abspath(sys.argv[1])
    CHECK = os.path.join(SOURCE_DIR, "tools", "check_layering.py")
    unittest.main(argv=[sys.argv[0], "-v"])
