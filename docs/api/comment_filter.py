#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Doxygen input filter: shows the public headers' ordinary comments to Doxygen as documentation.

The headers document every declaration in the project's plain style (`// ...` above or beside a
C++ declaration, `/* ... */` in the C contract). This filter rewrites, for Doxygen only:
  - the comment at the top of a file into the file's description (@file),
  - a comment above a declaration into its documentation (`//` -> `///`, `/*` -> `/**`),
  - a comment beside a declaration, and the comment lines that continue it, into a member
    description (`///<`, `/**<`).
Section rulers (`/* ---- memory ---- */`) and the SPDX licence line stay plain comments. The line count is kept, so
Doxygen's warnings point at the real lines.
Usage: comment_filter.py FILE (Doxygen's FILTER_PATTERNS); writes the filtered text to stdout.
"""
import re
import sys


def code_part(line):
    """Index where a comment starts outside string and character literals, or -1."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith("//", i) or line.startswith("/*", i):
            return i
        i += 1
    return -1


def escape(text):
    """Comment prose may hold <name> placeholders and Buffer<T>: not HTML for Doxygen."""
    return text.replace("<", "\\<")


def doc(line, at, marker, width):
    """`line` with the comment opener of `width` characters at `at` replaced by `marker`."""
    return line[:at] + marker + escape(line[at + width:])


RULER = re.compile(r"^\s*/\*\s*-{3,}")


def filter_lines(lines):
    out = []
    at_top = True           # still inside the comment that opens the file
    top_seen = False
    drop_next_blank = False  # the @file line added above is paid for by one blank line
    trailing_column = None   # column of a beside-the-code `//` comment being continued
    in_block = False
    doc_block = False        # the block comment being continued is documentation
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if "SPDX-License-Identifier" in line and not in_block:
            out.append(line)  # the licence line is not part of any documentation
            continue
        if in_block:
            out.append(escape(line) if doc_block else line)
            if "*/" in line:
                in_block = False
            continue
        if at_top:
            if stripped.startswith("//") and not stripped.startswith("///"):
                if not top_seen:
                    out.append("/// @file\n")
                    drop_next_blank = True
                    top_seen = True
                out.append(doc(line, indent, "///", 2))
                continue
            if stripped.startswith("/*") and not top_seen:
                top_seen = True
                at_top = False
                out.append(doc(line, indent, "/** @file", 2))
                in_block = "*/" not in line
                doc_block = True
                continue
            at_top = False
        if drop_next_blank and stripped == "":
            drop_next_blank = False
            continue
        if stripped.startswith("//"):
            if trailing_column is not None and indent >= trailing_column and not stripped.startswith("///"):
                out.append(doc(line, indent, "///<", 2))
                continue
            trailing_column = None
            if not stripped.startswith("///") and not stripped.startswith("//!"):
                line = doc(line, indent, "///", 2)
            out.append(line)
            continue
        trailing_column = None
        if stripped.startswith("/*"):
            doc_block = not RULER.match(line)
            if doc_block and not stripped.startswith("/**") and not stripped.startswith("/*!"):
                line = doc(line, indent, "/**", 2)
            out.append(line)
            in_block = "*/" not in line[line.index("/*") + 2:]
            continue
        start = code_part(line)
        if start > 0 and line[:start].strip() and not line[:start].strip().startswith("}"):
            if line.startswith("//", start) and not line.startswith("///", start):
                line = doc(line, start, "///<", 2)
                trailing_column = start
            elif line.startswith("/*", start) and not line.startswith("/**", start):
                line = doc(line, start, "/**<", 2)
                in_block = "*/" not in line[start + 4:]
                doc_block = True
        out.append(line)
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.readlines()
    sys.stdout.write("".join(filter_lines(lines)))


if __name__ == "__main__":
    main()
