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
echo "## Load time: rigkit vs Assimp (same run)"
echo
echo "| file | size | rigkit ms | rigkit MB/s | assimp ms | speed-up |"
echo "|---|---:|---:|---:|---:|---:|"
for f in "${files[@]}" "${glbs[@]}"; do
	r=$("$build"/bench_load -n "$runs" "$f" 2>/dev/null || true)
	p=""
	[ -x "$build"/peer_assimp_load ] && p=$("$build"/peer_assimp_load -n "$runs" "$f" 2>/dev/null || true)
	read -r _ _ bytes rt rmb <<<"${r:-x x 0 nan nan}"
	read -r _ _ _ pt _ <<<"${p:-x x 0 nan nan}"
	python3 - "$f" "$bytes" "$rt" "$rmb" "$pt" <<'PY'
import os, sys
f, b, rt, rmb, pt = sys.argv[1:]
def ms(x):
    try: return "%.2f" % (float(x) * 1e3)
    except ValueError: return "n/a"
try: sp = "%.1f×" % (float(pt) / float(rt))
except (ValueError, ZeroDivisionError): sp = "n/a"
print("| %s | %.0f KB | %s | %s | %s | %s |" % (os.path.basename(f), int(b) / 1024, ms(rt), rmb, ms(pt), sp))
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
