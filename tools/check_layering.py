#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that every #include of the tree follows the arrows of docs/architecture.md.

The tree is split into rooms (folders); each room may include its own files and those of the
rooms listed for it in RULES, some only through named files. An include is resolved as the
compiler would find it: beside the including file first, then in the project's include folders
(SEARCH_ROOTS); an include that resolves to no file of the tree (a system, toolkit or generated
header) is not an arrow. The public API must also not reach the plugin contract through any
chain of includes (FORBIDDEN_REACH).

Usage: check_layering.py [--root DIR] [--arrows]
  --root DIR  the source tree (default: this script's parent's parent)
  --arrows    print the room -> room arrows found, with their counts, and exit 0
Exit status: 0 when every include follows the rules, 1 otherwise (each violation on one line).
"""
import argparse
import collections
import os
import re
import sys

# (room, folder), the most specific folder first: a file belongs to the first folder it is under.
ROOMS = [
    ("tests", "backends/cpu/tests"),
    ("tests", "backends/simt/tests"),
    ("public API", "core/include"),
    ("runtime", "core/src"),
    ("plugin SDK", "plugins/include"),
    ("template plugin", "plugins/template"),
    ("cpu backend", "backends/cpu"),
    ("gpu backend", "backends/gpu"),
    ("gpu backend", "backends/cuda"),
    ("gpu backend", "backends/hip"),
    ("simt", "backends/simt"),
    ("reference", "reference"),
    ("cli", "apps/gpucore"),
    ("kernel modules", "apps/examples/kernels"),
    ("examples", "apps/examples"),
    ("python", "python"),
    ("benchmarks", "benchmarks"),
    ("tests", "tests"),
]

# Where a quoted or angled include is looked for after the including file's folder, in this order
# (the include folders the project's targets use).
SEARCH_ROOTS = [
    "core/include",
    "plugins/include",
    "core/src",
    "backends/cpu",
    "backends/gpu",
    "backends/simt",
    "apps/gpucore",
    "benchmarks",
    "reference/include",
]

# What each room may include besides itself: a room name, or (room, {files}) for only those files
# of it (paths relative to the tree). A room that is not listed may include anything (tests).
RULES = {
    "public API": [("plugin SDK", {"plugins/include/gpucore/dtype.h",
                                   "plugins/include/gpucore/element_types.hpp",
                                   "plugins/include/gpucore/float16.hpp"})],
    "plugin SDK": [],
    "template plugin": ["plugin SDK"],
    "runtime": ["public API", "plugin SDK", ("cpu backend", {"backends/cpu/cpu_backend.h"})],
    "cpu backend": ["plugin SDK"],
    "gpu backend": ["plugin SDK", ("simt", {"backends/simt/simt_runtime.hpp"})],
    "simt": ["plugin SDK"],
    "reference": ["public API", ("plugin SDK", {"plugins/include/gpucore/dtype.h",
                                                 "plugins/include/gpucore/element_types.hpp",
                                                 "plugins/include/gpucore/float16.hpp",
                                                 "plugins/include/gpucore/reduce_rules.hpp"})],
    "cli": ["public API", "plugin SDK", "reference"],
    "kernel modules": ["plugin SDK"],
    "examples": ["public API", "plugin SDK"],
    "python": ["public API", "plugin SDK"],
    "benchmarks": ["public API", "plugin SDK", "gpu backend", "kernel modules", "reference"],
}

# Files that no chain of includes from a room may reach: a user's #include <gpucore/gpucore.hpp>
# does not bring in the plugin contract.
FORBIDDEN_REACH = {
    "public API": {"plugins/include/gpucore/plugin.h"},
}

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".hip", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def room_of(path):
    for room, folder in ROOMS:
        if path == folder or path.startswith(folder + "/"):
            return room
    return None


def source_files(root):
    for _, folder in ROOMS:
        top = os.path.join(root, folder)
        for current, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(current, name), root).replace(os.sep, "/")


def resolve(root, including, target):
    """The tree-relative path `target` names from `including`, or None outside the tree."""
    candidates = [os.path.join(os.path.dirname(including), target)]
    candidates += [os.path.join(folder, target) for folder in SEARCH_ROOTS]
    for candidate in candidates:
        path = os.path.normpath(candidate).replace(os.sep, "/")
        if not path.startswith("../") and os.path.isfile(os.path.join(root, path)):
            return path
    return None


def include_edges(root):
    """(file, line number, included file) for every include that resolves inside the tree."""
    seen = set()
    for path in source_files(root):
        if path in seen:
            continue
        seen.add(path)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                match = INCLUDE.match(line)
                if match:
                    target = resolve(root, path, match.group(1))
                    if target is not None:
                        yield path, number, target


def allowed(source_room, target_room, target):
    if source_room == target_room or source_room not in RULES:
        return True
    for rule in RULES[source_room]:
        if rule == target_room:
            return True
        if isinstance(rule, tuple) and rule[0] == target_room and target in rule[1]:
            return True
    return False


def describe(room):
    parts = []
    for rule in RULES[room]:
        parts.append(rule if isinstance(rule, str) else rule[0] + " (only " + ", ".join(sorted(rule[1])) + ")")
    return ", ".join(parts) if parts else "nothing outside itself"


def violations(root):
    edges = list(include_edges(root))
    found = []
    for path, number, target in edges:
        source_room, target_room = room_of(path), room_of(target)
        if source_room is None or target_room is None or allowed(source_room, target_room, target):
            continue
        found.append(f"{path}:{number}: includes {target} ({target_room}); the {source_room} "
                     f"may include {describe(source_room)}")
    graph = collections.defaultdict(list)
    for path, number, target in edges:
        graph[path].append((number, target))
    for room, forbidden in FORBIDDEN_REACH.items():
        for start in sorted(p for p in graph if room_of(p) == room):
            chain = reach(graph, start, forbidden)
            if chain:
                found.append(f"{start}: reaches {chain[-1]} through " + " -> ".join(chain) +
                             f"; nothing the {room} includes may")
    return found


def reach(graph, start, forbidden):
    """The include chain from `start` to a file of `forbidden`, or None."""
    previous = {start: None}
    queue = collections.deque([start])
    while queue:
        current = queue.popleft()
        if current in forbidden:
            chain = []
            while current is not None:
                chain.append(current)
                current = previous[current]
            return chain[::-1]
        for _, target in graph.get(current, []):
            if target not in previous:
                previous[target] = current
                queue.append(target)
    return None


def arrows(root):
    counts = collections.Counter()
    for path, _, target in include_edges(root):
        source_room, target_room = room_of(path), room_of(target)
        if source_room and target_room and source_room != target_room:
            counts[(source_room, target_room)] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--arrows", action="store_true")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.root, "core", "src")):
        print(f"check_layering: {args.root} is not a gpucore source tree (no core/src)", file=sys.stderr)
        return 2
    if args.arrows:
        for (source_room, target_room), count in sorted(arrows(args.root).items()):
            print(f"{source_room} -> {target_room}: {count}")
        return 0
    found = violations(args.root)
    for line in found:
        print(line)
    if found:
        print(f"check_layering: {len(found)} include(s) against the arrows of docs/architecture.md",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
