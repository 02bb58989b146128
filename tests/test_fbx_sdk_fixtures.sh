#!/usr/bin/env bash
# tests/test_fbx_sdk_fixtures.sh RIGKIT SHARED BUILD - the FBX feature
# fixtures of tests/fixtures/fbx/ (docs/fbx.md, Reader), evaluated by rigkit,
# against the Autodesk FBX SDK's evaluation of the same files: FBX2glTF (npm
# fbx2gltf 0.9.7, built on the SDK) bakes each ASCII fixture into a GLB at
# 30 fps, which rigkit reads back; tests/fbx_sdk_compare.py compares world
# positions of every node and every mesh vertex at every 30 fps key within
# 1e-6 of the scene size. Each fixture is also checked as binary FBX 7400
# and 7500 (written by make_features.py --binary-out) against the same GLB,
# and the 'c'-array / unknown-type-code binaries against their ASCII source's.
# Skips (exit 77) without python3, npm or registry access.
set -u
rigkit=$1
build=${3:-/tmp}          # $2 (../shared) is not needed: the fixtures are committed
src=$(cd "$(dirname "$0")/.." && pwd)
fx=$src/tests/fixtures/fbx
cmp=$src/tests/fbx_sdk_compare.py
if ! command -v python3 >/dev/null; then echo "SKIP: python3 missing"; exit 77; fi
if ! command -v npm >/dev/null; then echo "SKIP: npm missing (the FBX SDK comes as npm fbx2gltf)"; exit 77; fi
# shellcheck source=tests/fbx2gltf_lib.sh
. "$(dirname "$0")/fbx2gltf_lib.sh"
fbx2gltf_install "$build"
bin=$FBX2GLTF
oracle=$build/oracle

work=$build/fbx_sdk_fixtures
mkdir -p "$work/bin"
python3 "$fx/make_features.py" --check || { echo "FAIL: fixtures are stale (run make_features.py)"; exit 1; }
python3 "$fx/make_features.py" --binary-out "$work/bin" || { echo "FAIL: binary copies"; exit 1; }

pass=0
fail=0
check() { # name file glb [compare options]
	local name=$1 file=$2 glb=$3
	shift 3
	if python3 "$cmp" "$rigkit" "$file" "$glb" "$work" "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
for f in "$fx"/*.fbx; do
	name=$(basename "$f" .fbx)
	head -c 20 "$f" | grep -q '^; FBX' || continue   # the ASCII sources only
	glb=$work/$name
	if ! "$bin" -b --anim-framerate bake30 -i "$f" -o "$glb" >"$work/$name.log" 2>&1; then
		echo "FAIL $name: FBX2glTF failed (see $work/$name.log)"
		fail=$((fail + 1))
		continue
	fi
	opts=()
	case $name in
	# FBX2glTF does not support inherit types 0 and 2 (it warns): only type 1
	# is compared; 0 and 2 are checked against Maya by the conformance corpus.
	inherit) opts=(--skip-nodes Inherit0 --skip-nodes Inherit2) ;;
	# FBX2glTF bakes only the keyed range: the rule is applied outside it.
	extrapolation) opts=(--extrapolation) ;;
	esac
	check "$name" "$f" "$glb.glb" "${opts[@]}"
	for v in 7400 7500; do check "$name" "$work/bin/${name}_$v.fbx" "$glb.glb" "${opts[@]}"; done
	if [ "$name" = transformed_skin ]; then
		"$rigkit" info --json "$f" | grep -q "cluster link mode 'Total1' is evaluated as Normalize" \
			&& pass=$((pass + 1)) || { echo "FAIL transformed_skin: no warning for the Total1 link mode"; fail=$((fail + 1)); }
	fi
	if [ "$name" = ctype ]; then
		for b in ctype_zlib_7400 ctype_raw_7500 unknown_type_7400; do check "$name" "$fx/$b.fbx" "$glb.glb"; done
		# the 'c' polygon indices read right: 6 quads, no warning
		for b in ctype_zlib_7400 ctype_raw_7500; do
			"$rigkit" info --json "$fx/$b.fbx" | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["meshes"][0]
sys.exit(0 if not d["warnings"] and m["faces"] == 6 and m["vertices"] == 8 else 1)' \
				&& pass=$((pass + 1)) || { echo "FAIL $b: type c arrays misread"; fail=$((fail + 1)); }
		done
		"$rigkit" info --json "$fx/unknown_type_7400.fbx" | grep -q 'unknown type code 0x7a' \
			&& pass=$((pass + 1)) || { echo "FAIL unknown_type_7400: no warning for the unknown type code"; fail=$((fail + 1)); }
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
