#!/usr/bin/env bash
# scripts/bench.sh BUILD_DIR - runs the benchmarks side by side with their
# peers in one run and prints markdown tables (copied into docs/benchmarks.md).
set -euo pipefail
build=${1:-build}
shared=${RIGKIT_SHARED_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
runs=${BENCH_RUNS:-9}
if [ ! -d "$shared/assets" ]; then
	echo "bench: $shared/assets not found: nothing to measure (set RIGKIT_SHARED_DIR)" >&2
	exit 1
fi
files=("$shared"/assets/*.fbx)
# The ten largest conformance FBX files.
if [ -d "$shared/conformance/data" ]; then
	while IFS= read -r f; do files+=("$f"); done < <(ls -S "$shared"/conformance/data/*.fbx | head -10)
fi
glbs=("$shared"/assets/*.glb)

echo "# rigkit benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, median of $runs runs)"
echo
rounds=${BENCH_ROUNDS:-5}
echo "## Load time: rigkit vs Assimp (same run)"
echo
echo "Each file: $rounds rounds, each one rigkit process and one Assimp process of"
echo "$runs loads; the table gives the median of the round medians (a round in"
echo "which another job held the second core does not decide the row)."
echo
echo "| file | size | rigkit ms | rigkit MB/s | assimp ms | speed-up | rigkit rounds ms |"
echo "|---|---:|---:|---:|---:|---:|---|"
for f in "${files[@]}" "${glbs[@]}"; do
	rt_list=""
	pt_list=""
	bytes=0
	for ((round = 0; round < rounds; round++)); do
		r=$("$build"/bench_load -n "$runs" "$f" 2>/dev/null || true)
		p=""
		[ -x "$build"/peer_assimp_load ] && p=$("$build"/peer_assimp_load -n "$runs" "$f" 2>/dev/null || true)
		read -r _ _ bytes rt _ <<<"${r:-x x 0 nan nan}"
		read -r _ _ _ pt _ <<<"${p:-x x 0 nan nan}"
		rt_list="$rt_list $rt"
		pt_list="$pt_list $pt"
	done
	python3 - "$f" "$bytes" "$rt_list" "$pt_list" <<'PY'
import math, os, statistics, sys
f, b, rts, pts = sys.argv[1:]
def med(xs):
    v = [float(x) for x in xs.split() if x != "nan"]
    return statistics.median(v) if v else math.nan
rt, pt = med(rts), med(pts)
def ms(x): return "n/a" if math.isnan(x) else "%.2f" % (x * 1e3)
sp = "n/a" if math.isnan(rt) or math.isnan(pt) or rt == 0 else "%.1f×" % (pt / rt)
mb = "n/a" if math.isnan(rt) or rt == 0 else "%.1f" % (int(b) / rt / 1e6)
rounds = " ".join(ms(float(x)) for x in rts.split())
print("| %s | %.0f KB | %s | %s | %s | %s | %s |" % (os.path.basename(f), int(b) / 1024, ms(rt), mb, ms(pt), sp, rounds))
PY
done

if [ -x "$build"/bench_json ]; then
	echo
	echo "## glTF JSON: libcjson vs rigkit's reader (src/gltf/gltf_json_parse.c), same bytes"
	echo
	echo "| file | JSON | cJSON parse+delete ms | rigkit ms | ratio |"
	echo "|---|---:|---:|---:|---:|"
	for f in "${glbs[@]}"; do
		r=$("$build"/bench_json -n 31 "$f" 2>/dev/null || true)
		read -r _ _ bytes ct rt <<<"${r:-x x 0 nan nan}"
		python3 -c 'import os,sys; f,b,c,r=sys.argv[1:]
try: print("| %s | %s B | %.3f | %.3f | %.1f× |" % (os.path.basename(f), b, float(c)*1e3, float(r)*1e3, float(c)/float(r)))
except (ValueError, ZeroDivisionError): print("| %s | n/a | n/a | n/a | n/a |" % os.path.basename(f))' "$f" "$bytes" "$ct" "$rt"
	done
fi

echo
echo "## GLB write time (rk_write_gltf_memory, in memory)"
echo
echo "| input | GLB size | write ms | MB/s |"
echo "|---|---:|---:|---:|"
for f in "$shared"/assets/*.fbx "${glbs[@]}"; do
	r=$("$build"/bench_write -n "$runs" "$f" 2>/dev/null || true)
	read -r _ _ bytes wt wmb <<<"${r:-x x 0 nan nan}"
	python3 -c 'import os,sys; f,b,t,m=sys.argv[1:]; print("| %s | %.0f KB | %s | %s |" % (os.path.basename(f), int(b)/1024, ("%.2f" % (float(t)*1e3)) if t!="nan" else "n/a", m))' "$f" "$bytes" "$wt" "$wmb"
done
for b in bench_mesh bench_runtime bench_skin; do
	if [ -x "$build/$b" ]; then
		echo
		echo "## $b"
		echo
		echo '```'
		case "$b" in
		bench_mesh) "$build/$b" "$shared/assets/ybot.fbx" || true ;;
		*) "$build/$b" || true ;;
		esac
		echo '```'
	fi
done
