# SPDX-License-Identifier: Apache-2.0
# The README's Python example runs as printed, on the device under test.
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## Python\n"):]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(example, "README.md (Python example)", "exec"), {})  # noqa: S102: our own README
