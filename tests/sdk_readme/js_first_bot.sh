#!/usr/bin/env bash
# The guide's first JavaScript bot (the ```js first_js block of sdk/README.md), saved as the
# guide says and checked with `referee check-bot` through the build's launcher, its sandbox shown
# the kit's npm packages as the guide's match command shows them.
#   js_first_bot.sh REFEREE RUN_JS_BOT GUIDE NODE_MODULES
# Without node or the kit's npm packages the test says so and is skipped (exit 77), but not in
# CI (CI=true), where scripts/setup.sh installs them: there it fails.
set -euo pipefail
referee=$1 run_js=$2 guide=$3 modules=$4

missing=""
command -v node >/dev/null || missing="node is not installed"
[ -n "$missing" ] || [ -d "$modules/@grpc/grpc-js" ] || missing="the kit's npm packages are missing from $modules (run npm ci in sdk/js, as scripts/setup.sh does)"
[ -n "$missing" ] || [ -x "$run_js" ] || missing="$run_js was not built"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "js_first_bot: FAILED: $missing; CI must run this test" >&2
    exit 1
  fi
  echo "js_first_bot: SKIPPED: $missing"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-js-first.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"  # a referee run as root gives each sandboxed bot a user id of its own
awk '/^```js first_js$/{inblock=1;next} inblock&&/^```/{exit} inblock' "$guide" >"$tmp/first.js"
[ -s "$tmp/first.js" ] || { echo "js_first_bot: no \`\`\`js first_js block in $guide" >&2; exit 1; }
chmod 644 "$tmp/first.js"
"$referee" check-bot --decisions 30 --read-only "$modules" "$run_js" "$tmp/first.js"
