#!/usr/bin/env bash
# tests/test_bvh_cli.sh RIGKIT SHARED BUILD - BVH through the CLI: `info` of
# a fixture (format, frame rate, clip), --source-unit-meters, `convert` to
# .bvh (file, stdout with --format bvh, --json counts, --rotation-order,
# --clip), an unknown output extension is a usage error (never silently
# GLB), `retarget ... OUT.bvh` (needs --clip when the source has several),
# one walk under the Mixamo, CMU and Bandai Namco naming schemes retargets
# to the same result,
# and bad BVH files fail with exit 2 naming the file and the line.
set -u
rigkit=$1
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"   # $tmp, counters, expect, expect_text
fix="$(dirname "${BASH_SOURCE[0]}")/fixtures/bvh"

expect info 0 -- "$rigkit" info "$fix/orders.bvh"
expect_text info-format "$tmp/out" '^format: +bvh'
expect_text info-rate "$tmp/out" '^frame rate: +25 fps'
expect_text info-clip "$tmp/out" 'orders: 0 \.\. 0\.44 s'
expect_text info-unit "$tmp/out" '^unit: +0\.01 m'
expect inches 0 -- "$rigkit" info "$fix/orders.bvh" --source-unit-meters 0.0254
expect_text inches-unit "$tmp/out" '^unit: +0\.0254 m'

expect convert 0 -- "$rigkit" convert "$fix/six_channels.bvh" "$tmp/six.bvh" --json
expect_text convert-json "$tmp/out" '"translated_joints": 3'
expect_text convert-json-frames "$tmp/out" '"frames": 15'
expect_text convert-file "$tmp/six.bvh" '^HIERARCHY$'
expect reread 0 -- "$rigkit" info "$tmp/six.bvh"
expect_text reread-rate "$tmp/out" '^frame rate: +120 fps'
expect stdout 0 -- "$rigkit" convert "$fix/orders.bvh" - --format bvh --rotation-order XYZ
expect_text stdout-order "$tmp/out" 'CHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation'
expect bad-order 2 -- "$rigkit" convert "$fix/orders.bvh" "$tmp/o.bvh" --rotation-order XXY
expect_text bad-order-msg "$tmp/err" "rotation order 'XXY'"
expect unknown-ext 1 -- "$rigkit" convert "$fix/orders.bvh" "$tmp/o.xyz"
expect_text unknown-ext-msg "$tmp/err" "unsupported output format '.xyz' \(supported: .glb, .gltf, .obj, .bvh, .vrma, .vrm, .fbx\)"
[ -e "$tmp/o.xyz" ] && { fail=$((fail + 1)); echo "FAIL unknown-ext: a file was written"; }
expect no-clip 2 -- "$rigkit" convert "$fix/orders.bvh" "$tmp/o.bvh" --clip nope
expect_text no-clip-msg "$tmp/err" "nope"

"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }
expect convert-walk 0 -- "$rigkit" convert "$tmp/s/source.glb" "$tmp/walk.bvh" --clip Walk --fps 60 --json
expect_text convert-walk-frames "$tmp/out" '"frames": 61'
expect_text convert-walk-ends "$tmp/out" '"end_sites": 3'
expect retarget-two-clips 1 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/r.bvh"
expect_text retarget-two-clips-msg "$tmp/err" 'holds one clip.*--clip'
expect retarget 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/r.bvh" --clip Walk
expect_text retarget-file "$tmp/r.bvh" '^Frames: 31$'
expect retarget-from-bvh 0 -- "$rigkit" retarget "$fix/mixamo_walk.bvh" "$tmp/s/avatar.glb" "$tmp/r.glb"
expect_text retarget-from-bvh-report "$tmp/out" "'mixamo_walk' -> 'mixamo_walk': 22 bones, 31 frames"

# One walk under three naming schemes (Mixamo, CMU, Bandai Namco: other
# joints, the travel on joint_Root above the hips) retargets identically.
if command -v python3 >/dev/null; then
	for sc in mixamo cmu bandai; do
		expect "retarget-$sc" 0 -- "$rigkit" retarget "$fix/${sc}_walk.bvh" "$tmp/s/avatar.glb" "$tmp/$sc.glb" --name walk
		"$rigkit" pose "$tmp/$sc.glb" --clip walk --joints --json --samples 31 >"$tmp/$sc.json" 2>/dev/null
	done
	if python3 - "$tmp/mixamo.json" "$tmp/cmu.json" "$tmp/bandai.json" <<'PY'
import json, sys
docs = [json.load(open(p))["samples"] for p in sys.argv[1:]]
worst = max(sum((a - b) ** 2 for a, b in zip(v["position"], o[f]["nodes"][n]["position"])) ** 0.5
            for o in docs[1:] for f, s in enumerate(docs[0]) for n, v in s["nodes"].items())
sys.exit(0 if worst < 1e-9 else 1)
PY
	then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL schemes: the three walks retarget differently"; fi
fi

printf 'HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation\n}\n' >"$tmp/bad.bvh"
expect bad-channels 2 -- "$rigkit" info "$tmp/bad.bvh"
expect_text bad-channels-msg "$tmp/err" "bad\.bvh: CHANNELS 2 of joint 'A': expected channel name 2 of 2 .*got '\}' \(at byte [0-9]+, line 6\)"
{ cat "$fix/subsets.bvh" | head -n -1; echo "1 2 x 4"; } >"$tmp/nan.bvh"
expect bad-value 2 -- "$rigkit" pose "$tmp/nan.bvh"
expect_text bad-value-msg "$tmp/err" "nan\.bvh: .*expected a number, got '(x|1|2|4)'.*line"
sed 's/^Frames: 9$/Frames: 10000000/' "$fix/subsets.bvh" >"$tmp/claim.bvh"
expect claimed-frames 2 -- "$rigkit" info "$tmp/claim.bvh" --json
expect_text claimed-frames-json "$tmp/out" '"code": "truncated'
expect_text claimed-frames-line "$tmp/out" '"line": 41'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
