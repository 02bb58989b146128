#!/usr/bin/env bash
# bench/bench_view.sh RIGKIT SHARED [FRAMES] - frame time of `rigkit view`'s
# interactive loop measured offscreen (`rigkit view FILE --bench N`): per
# frame the runtime samples the clip, the palette is built, every skinned
# mesh is skinned on the CPU (rk_skin_run_range on the model's threads) straight into its mapped
# GL vertex buffer, every part is drawn and glFinish waits for the GPU.
# Files: Xbot.glb and ybot.fbx of SHARED/assets plus the built-in sample
# character; 512 x 512, lit; skinning on 1 thread and on every CPU. Runs
# under xvfb-run when no display is set (Mesa llvmpipe: the software
# driver). Prints a markdown table (docs/benchmarks.md, docs/view.md).
set -euo pipefail
rigkit=$1
assets=$2/assets
frames=${3:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rigkit" sample "$tmp" >/dev/null
files=("$tmp/source.glb")
for f in Xbot.glb ybot.fbx; do [ -f "$assets/$f" ] && files+=("$assets/$f"); done
wrap=()
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then wrap=(xvfb-run -a); fi
if ! "${wrap[@]}" "$rigkit" view "$tmp/source.glb" --bench 2 >/dev/null 2>"$tmp/err"; then
	echo "bench_view: rigkit view cannot run here: $(cat "$tmp/err")" >&2
	exit 77
fi
renderer=$("${wrap[@]}" "$rigkit" view "$tmp/source.glb" --bench 2 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["renderer"])')
echo "GPU: $renderer; $frames frames each, 512 x 512, medians (p90) in ms"
echo
echo "| file | vertices | triangles | skin threads | frame (sample + skin + upload + draw + finish) | of which skin + upload |"
echo "|---|---:|---:|---:|---:|---:|"
for f in "${files[@]}"; do
	for t in 1 0; do
		"${wrap[@]}" "$rigkit" view "$f" --bench "$frames" --threads "$t" --json >"$tmp/r.json"
		python3 - "$f" "$t" "$tmp/r.json" <<'PY'
import json, os, sys
f, t, path = sys.argv[1:4]
r = json.load(open(path))
name = os.path.basename(f) if 'assets' in f else 'sample source.glb'
threads = 'all (%d)' % os.cpu_count() if t == '0' else t
print('| %s | %d | %d | %s | %.2f (%.2f) | %.2f |' % (name, r['vertices'], r['triangles'], threads,
      r['frame_ms_median'], r['frame_ms_p90'], r['skin_upload_ms_median']))
PY
	done
done
