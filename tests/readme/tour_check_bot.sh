#!/bin/bash
# The README's tour line for check-bot, run as written: from the folder holding this build as
# `build` (the README's layout), with the guide's first Python bot saved as ~/mybots/first.py
# (HOME a fresh folder).
#   tour_check_bot.sh REFEREE BUILD_DIR README SDK_README
set -euo pipefail
referee=$1 build=$2 readme=$3 guide=$4
line=$(grep -m1 '^\$R check-bot ' "$readme") || { echo "no check-bot line in $readme"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/mybots"
# The guide's block after "Save this as `~/mybots/first.py`".
awk '/Save this as `~\/mybots\/first.py`/{found=1} found&&/^```python/{inblock=1;next} inblock&&/^```/{exit} inblock' \
  "$guide" > "$work/home/mybots/first.py"
[ -s "$work/home/mybots/first.py" ] || { echo "no first.py block in $guide"; exit 1; }
if [ "$(basename "$build")" != build ]; then
  echo "the README's line names build/: this build is in $build"
  exit 77
fi
chmod o+x "$work" "$work/home" && chmod -R o+rX "$work/home"
cd "$(dirname "$build")"
echo "+ ${line%%#*}"
HOME="$work/home" R="$referee" bash -c "${line%%#*}"
