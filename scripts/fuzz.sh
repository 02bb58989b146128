#!/usr/bin/env bash
# scripts/fuzz.sh TARGET SECONDS [SHARED] - build the fuzzers (make fuzz), make a
# seed corpus for TARGET from ../shared (never committed) and run it.
# Targets: fbx_binary, fbx_ascii, fbx_dom, gltf, retarget, triangulate, image_png, image_jpeg,
# image_webp (fuzz_image with the committed seeds of one decoder; Debian's
# uninstrumented decoders: scripts/fuzz-image.sh builds instrumented ones).
set -euo pipefail
target=$1
secs=${2:-600}
shared=${3:-${RIGKIT_SHARED_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared}}
cd "$(dirname "$0")/.."
make fuzz >/dev/null
corpus=fuzz/corpus-$target
mkdir -p "$corpus"
case "$target" in
fbx_binary|fbx_dom)
	for f in "$shared"/conformance/data/*binary*.fbx; do
		[ "$(stat -c %s "$f")" -lt 200000 ] && cp "$f" "$corpus/"
	done ;;
fbx_ascii)
	for f in "$shared"/conformance/data/*ascii*.fbx; do
		[ "$(stat -c %s "$f")" -lt 200000 ] && cp "$f" "$corpus/"
	done ;;
gltf)
	cp "$shared"/assets/Horse.glb "$shared"/assets/Flamingo.glb "$corpus/"
	# compressed input: hand-built meshopt / Draco / quantized / KTX2 seeds and the tools' fixtures
	[ -x build/test_gltf_compressed ] && RIGKIT_GLTF_SEED_DIR="$corpus" build/test_gltf_compressed >/dev/null 2>&1 || true
	cp tests/fixtures/rig_*.glb "$corpus/" ;;
retarget)
	# small humanoids: the sample characters (written here) and the Mixamo clip
	build/rigkit sample "$corpus/samples" >/dev/null 2>&1 || true
	mv "$corpus"/samples/*.glb "$corpus/" 2>/dev/null || true
	rm -rf "$corpus/samples"
	cp "$shared"/assets/ybot@kick.fbx "$corpus/" ;;
image_png|image_jpeg|image_webp)
	cp fuzz/seeds-"${target/_/-}"/* "$corpus/"
	exec build-fuzz/fuzz_image -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$corpus" ;;
triangulate)
	# random bytes are polygons: start from two small ones
	printf '\000\000\000\000\000\000\000\100\000\000\000\000\000\100\000\100\000\000\000\000\000\100\000\000\000' >"$corpus/square"
	head -c 6001 /dev/urandom >"$corpus/random1000" ;;
*) echo "unknown target $target" >&2; exit 1 ;;
esac
exec build-fuzz/fuzz_"$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$corpus"
