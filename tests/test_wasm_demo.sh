#!/usr/bin/env bash
# tests/test_wasm_demo.sh RIGKIT SHARED BUILD - the browser demo's page logic
# without a browser or emscripten (docs/wasm.md): the names it gives
# retargeted clips (wasm/test/clip_names_check.mjs under node: a retargeted
# kick is "kick", never the slot's "Walk"), and every demo module parses.
# Skips (77) without node 18+.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v node >/dev/null 2>&1 || { echo "SKIPPED: node is not installed"; exit 77; }
major=$(node -e 'process.stdout.write(String(process.versions.node.split(".")[0]))' 2>/dev/null || echo 0)
[ "$major" -ge 18 ] || { echo "SKIPPED: node $major is older than 18"; exit 77; }
fail=0
node "$root/wasm/test/clip_names_check.mjs" || fail=1
for f in "$root"/wasm/demo/*.mjs "$root"/wasm/rigkit.mjs; do
	node --check "$f" || { echo "FAIL: $f does not parse"; fail=1; }
done
# the page names each clip with retargetedClipName, not after its slot
if ! grep -q "retargetClip(source, clip, target, { ...options, name })" "$root/wasm/demo/demo.mjs" ||
	! grep -q "const name = retargetedClipName(" "$root/wasm/demo/demo.mjs"; then
	echo "FAIL: demo.mjs does not name retargeted clips with retargetedClipName"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "test_wasm_demo: passed"
exit "$fail"
