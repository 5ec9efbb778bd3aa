#!/usr/bin/env python3
"""No C++ function of the product grows past 80 lines, so a function doing two jobs is cut into
named steps before it is hard to read: fails, naming each function over the cap ("FILE:LINE:
N lines"). The files: C++ under referee/, sdk/ and sample_bots/ (node_modules left out; tests
and benchmarks are not held to it).

The code is clang-formatted, so a function is found by its shape: a line ending in "{" whose
last few lines hold a signature's ")" (not a control statement, a type, a namespace or a
lambda), up to the first "}" or "};" alone on a line at the same indentation. Lambdas and
blocks inside a function count towards it.
  function_length.py SOURCE_DIR"""
import os
import re
import sys

CAP = 80
ROOTS = ("referee", "sdk", "sample_bots")
SUFFIXES = (".cpp", ".cc", ".h", ".hpp")
NOT_A_FUNCTION = re.compile(
    r"\s*(if|for|while|switch|else|do|catch|try|return|namespace|class|struct|enum|union|"
    r"extern|case|default)\b")
LAMBDA = re.compile(r"\]\s*(\(.*\))?\s*(mutable\s*)?(->\s*\S+\s*)?\{$")


def opens_function(lines, i):
    text = lines[i].rstrip()
    if not text.endswith("{") or NOT_A_FUNCTION.match(text):
        return False
    if text.lstrip().startswith(("#", "//", "[", "{")) or LAMBDA.search(text):
        return False
    if "=" in text.split("(")[0]:  # an initialiser: `auto x = [&] {`, `T t = {`
        return False
    return ")" in " ".join(lines[max(0, i - 4):i + 1])


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    start = None
    indent = 0
    for i, line in enumerate(lines):
        if start is None:
            if opens_function(lines, i):
                start, indent = i, len(line) - len(line.lstrip())
        elif line.strip() in ("}", "};") and len(line) - len(line.lstrip()) == indent:
            yield start + 1, i - start + 1
            start = None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: function_length.py SOURCE_DIR")
    root = sys.argv[1]
    over = []
    for top in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d != "node_modules")
            for name in sorted(files):
                if name.endswith(SUFFIXES):
                    path = os.path.join(folder, name)
                    for line, length in functions(path):
                        if length > CAP:
                            over.append(f"{os.path.relpath(path, root)}:{line}: {length} lines, "
                                        f"over the cap of {CAP}; cut it into named steps")
    for o in over:
        print(o)
    if over:
        print(f"function_length: functions over {CAP} lines "
              "(the cap and why: tests/code_length/function_length.py)")
        sys.exit(1)
    print(f"function_length: every function within {CAP} lines")


if __name__ == "__main__":
    main()
