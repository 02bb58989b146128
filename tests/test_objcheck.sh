#!/usr/bin/env bash
# tests/test_objcheck.sh RIGKIT SHARED BUILD - the CLI end to end against the
# conformance corpus: runs the shared, independent checker
# ($SHARED/tools/objcheck.py), which calls `rigkit convert` once per manifest
# entry and compares the OBJ it writes with the reference OBJ (positions and
# UVs; it cannot check normals - tests/test_conformance.c does).
#
# Passes while objcheck's "passed" count is at least FLOOR. Raise FLOOR when
# the count goes up so that it never silently goes down again.
# Skips (exit 77) without the shared folder or python3.
set -u

# Measured 280 (of 296) when this test was added. The target is 296: every
# entry of the development set.
FLOOR=296

rigkit=${1:-}
shared=${2:-}
build=${3:-/tmp}

manifest=$shared/conformance/manifest.json
data=$shared/conformance/data
checker=$shared/tools/objcheck.py

if [ -z "$shared" ] || [ ! -f "$manifest" ] || [ ! -f "$checker" ]; then
	echo "test_objcheck: SKIPPED: shared folder with conformance/manifest.json and tools/objcheck.py not found ('$shared')"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "test_objcheck: SKIPPED: python3 not found"
	exit 77
fi
if [ -z "$rigkit" ] || [ ! -x "$rigkit" ]; then
	echo "test_objcheck: FAIL: rigkit executable '$rigkit' not found"
	exit 1
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# --noex-flag takes a value that starts with "--": pass it with '=' so
# argparse does not read it as an option of its own.
python3 "$checker" --manifest "$manifest" --data "$data" --rigkit "$rigkit" \
	--noex-flag=--no-extrapolation >"$out" 2>&1
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
	echo "test_objcheck: FAIL: objcheck.py exited with status $status"
	exit 1
fi

summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
if [ -z "$summary" ]; then
	echo "test_objcheck: FAIL: no 'N passed, M failed' line in objcheck output"
	exit 1
fi
passed=${summary%% passed*}
if [ -d "$build" ]; then
	printf '%s\n' "$summary" >"$build/objcheck_summary.txt" 2>/dev/null || true
fi

echo "test_objcheck: $summary (floor $FLOOR, target 296)"
if [ "$passed" -lt "$FLOOR" ]; then
	echo "test_objcheck: FAIL: $passed passed is below the floor of $FLOOR"
	exit 1
fi
if [ "$passed" -gt "$FLOOR" ]; then
	echo "test_objcheck: note: $passed > floor $FLOOR - raise FLOOR in tests/test_objcheck.sh"
fi
exit 0
