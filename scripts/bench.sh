#!/usr/bin/env bash
# scripts/bench.sh BUILD_DIR - runs the benchmarks side by side with their
# peers in one run and prints markdown tables (copied into docs/benchmarks.md).
set -euo pipefail
build=${1:-build}
shared=${RIGKIT_SHARED_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
runs=${BENCH_RUNS:-9}

# Retargeting: bench_retarget beside bench/peer_three_retarget.mjs (three.js
# SkeletonUtils.retargetClip, the three of tests/node/package.json: the
# install of tests/test_gltf_interop.sh in $build when it is current, else
# `npm ci` into $build/bench_node). three.js n/a without node/npm; only the
# built-in samples without $shared/assets.
retarget_section() {
	local here tmp nd="" a="$shared/assets" lock p src clip dst sg dg r q
	here=$(cd "$(dirname "$0")/.." && pwd)
	lock="$here/tests/node/package-lock.json"
	echo
	echo "## Retargeting: rigkit vs three.js SkeletonUtils.retargetClip (same run)"
	echo
	[ -x "$build"/bench_retarget ] || { echo "(bench_retarget not built)"; return 0; }
	tmp=$(mktemp -d) || return 0
	if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
		nd="$build/bench_node"
		if [ -d "$build/gltf_interop/node/node_modules" ] && cmp -s "$lock" "$build/gltf_interop/node/.installed-lock.json"; then
			rm -rf "$nd/node_modules" "$nd/.installed-lock.json"
			mkdir -p "$nd" && ln -s "$(cd "$build/gltf_interop/node" && pwd)/node_modules" "$nd/node_modules" || nd=""
		elif [ ! -d "$nd/node_modules" ] || ! cmp -s "$lock" "$nd/.installed-lock.json"; then
			rm -rf "$nd/node_modules" "$nd/.installed-lock.json"
			if mkdir -p "$nd" && cp "$here/tests/node/package.json" "$lock" "$nd/" &&
				(cd "$nd" && timeout 600 npm ci --no-audit --no-fund --prefer-offline --loglevel=error >&2); then
				cp "$lock" "$nd/.installed-lock.json" || true
			else
				nd=""
			fi
		fi
		if [ -n "$nd" ] && ! cp "$here/bench/peer_three_retarget.mjs" "$nd/"; then nd=""; fi
	fi
	"$build"/rigkit sample "$tmp" >/dev/null 2>&1 || true
	local pairs=("sample|Walk|sample|$tmp/source.glb|$tmp/avatar.glb")
	if [ -f "$a/readyplayer.me.glb" ]; then
		# three.js gets the FBX source as the GLB `rigkit convert` writes
		"$build"/rigkit convert "$a/ybot@kick.fbx" "$tmp/ybot_kick.glb" >/dev/null 2>&1 || true
		pairs+=("$a/ybot@kick.fbx|mixamo.com|$a/readyplayer.me.glb|$tmp/ybot_kick.glb|$a/readyplayer.me.glb"
			"$a/Xbot.glb|walk|$a/readyplayer.me.glb|$a/Xbot.glb|$a/readyplayer.me.glb"
			"$a/Soldier.glb|Walk|$a/readyplayer.me.glb|$a/Soldier.glb|$a/readyplayer.me.glb")
		# long clips: Soldier's Walk repeated to 248 and 548 frames
		# (bench/bench_long_clip.c), the same GLB for both sides
		local nfr
		for nfr in 248 548; do
			if [ -x "$build"/bench_long_clip ] &&
				"$build"/bench_long_clip "$a/Soldier.glb" Walk "$nfr" 30 "$tmp/soldier_walk_$nfr.glb" >/dev/null 2>&1; then
				pairs+=("$tmp/soldier_walk_$nfr.glb|Walk|$a/readyplayer.me.glb|$tmp/soldier_walk_$nfr.glb|$a/readyplayer.me.glb")
			fi
		done
	fi
	echo "Medians of $runs runs after a warm-up (three.js: 10 untimed calls first);"
	echo "speed-up = three.js retargetClip / rigkit rk_retarget; ns per bone-frame ="
	echo "rk_retarget / (frames x bones). soldier_walk_N.glb: Soldier.glb's Walk"
	echo "repeated to N frames (bench/bench_long_clip.c)."
	echo
	echo "| pair | frames | bones | rigkit rk_retarget ms | rigkit ns per bone-frame | rigkit end-to-end ms | three.js retargetClip ms | three.js ns per bone-frame | speed-up | rigkit with report ms | three.js first call ms |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	local slope=""
	for p in "${pairs[@]}"; do
		IFS='|' read -r src clip dst sg dg <<<"$p"
		r=$("$build"/bench_retarget -n "$runs" "$src" "$clip" "$dst" 2>/dev/null || true)
		q=""
		if [ -n "$nd" ] && [ -n "$r" ]; then
			q=$(node "$nd/peer_three_retarget.mjs" -n "$runs" -w 10 "$sg" "$clip" "$dg" "$(awk '{print $(NF-6)}' <<<"$r")" 2>/dev/null || true)
		fi
		python3 - "$src" "$clip" "$dst" "$r" "$q" <<'PY'
import os, sys
src, clip, dst, r, q = sys.argv[1:]
name = lambda f, k: "sample " + k if f == "sample" else os.path.basename(f)
label = "%s '%s' → %s" % (name(src, "source"), clip, name(dst, "avatar"))
r, q = r.split()[-7:], q.split()[-4:]
ms = lambda x: "%.2f" % (float(x) * 1e3)
if len(r) < 7:
    print("| %s | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |" % label)
else:
    bf = float(r[0]) * float(r[1])
    three = ms(q[2]) if len(q) == 4 else "n/a"
    tns = "%.0f" % (float(q[2]) / bf * 1e9) if len(q) == 4 and bf else "n/a"
    sp = "%.1f×" % (float(q[2]) / float(r[3])) if len(q) == 4 else "n/a"
    print("| %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |" % (label, r[0], r[1], ms(r[3]),
          float(r[3]) / bf * 1e9 if bf else float("nan"), ms(r[4]), three, tns, sp, ms(r[5]),
          ms(q[3]) if len(q) == 4 else "n/a"))
PY
		case "$src" in *soldier_walk_*|*/Soldier.glb) slope="$slope ${r:+$(awk '{print $5, $8}' <<<"$r")}${q:+ $(awk '{print $7}' <<<"$q")}|" ;; esac
	done
	# the cost per frame as the clip grows: least squares over the Soldier Walk rows
	python3 - "$slope" <<'PY'
import sys
rows = [x.split() for x in sys.argv[1].split("|") if x.strip()]
def fit(pts):
    n = len(pts)
    if n < 2: return None
    mx = sum(p[0] for p in pts) / n; my = sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if not sxx: return None
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    return b, my - b * mx
rk = fit([(float(x[0]), float(x[1])) for x in rows if len(x) >= 2])
th = fit([(float(x[0]), float(x[2])) for x in rows if len(x) >= 3])
if rk:
    print()
    line = "Per frame as Soldier's Walk grows (32, 248, 548 frames, least squares): rigkit %.1f us per frame + %.0f us per call" % (rk[0] * 1e6, rk[1] * 1e6)
    if th: line += "; three.js %.1f us per frame + %.0f us per call" % (th[0] * 1e6, th[1] * 1e6)
    print(line + ".")
PY
	rm -rf "$tmp"
}

# WebAssembly SIMD against the non-SIMD build under node, the native build
# of the same C code beside (bench/bench_wasm.mjs, bench/bench_wasm.c). The
# module is built (incrementally) with scripts/build-wasm.sh --no-demo in
# RIGKIT_WASM_BUILD (default $build/wasm/build, the folder tests/test_wasm.sh
# uses). node --no-liftoff: V8's optimising tier only, the steady state a
# page reaches once its functions are hot (with dynamic tiering a function
# that is not hot yet runs baseline code and the medians mix tiers).
wasm_section() {
	local here wb a="$shared/assets" files=()
	here=$(cd "$(dirname "$0")/.." && pwd)
	wb=${RIGKIT_WASM_BUILD:-$build/wasm/build}
	echo
	echo "## WebAssembly: SIMD (-msimd128) vs no SIMD under node, native beside"
	echo
	if ! command -v emcc >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
		echo "(not run: emcc or node missing; bash scripts/install-deps.sh build wasm)"
		return 0
	fi
	if ! JOBS=${JOBS:-2} bash "$here/scripts/build-wasm.sh" --no-demo "$wb" >"$build/bench_wasm_build.log" 2>&1; then
		echo "(not run: scripts/build-wasm.sh failed, see $build/bench_wasm_build.log)"
		return 0
	fi
	[ -f "$a/readyplayer.me.glb" ] && files+=("$a/readyplayer.me.glb")
	[ -f "$a/readyplayer.me.glb" ] && [ -f "$a/Xbot.glb" ] && files+=("$a/Xbot.glb")
	local nat=()
	[ -x "$build/bench_wasm" ] && nat=(--native "$build/bench_wasm")
	echo "Command: node --no-liftoff bench/bench_wasm.mjs -n $runs ${nat[*]} $wb ${files[*]}"
	echo
	node --no-liftoff "$here/bench/bench_wasm.mjs" -n "$runs" "${nat[@]}" "$wb" "${files[@]}" ||
		echo "(bench_wasm.mjs failed)"
}

# FBX -> GLB conversion against `assimp export` (Debian assimp-utils), CPU
# time of the processes (children rusage), interleaved rounds of one each
# (5; 7 for the long clips). The long clips (issue 16: girl_dance length,
# 8 s on a ~66-joint skinned humanoid) are made by bench/make_long_fbx.sh.
fbx2glb_section() {
	command -v assimp >/dev/null 2>&1 || return 0
	local fbx_files long_dir f
	echo
	echo "## FBX → GLB: rigkit convert vs assimp export (CPU time, interleaved)"
	echo
	echo "| file | rigkit ms | rigkit GLB bytes | assimp ms | assimp GLB bytes | speed-up | assimp with huge pages ms | speed-up against it |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	fbx_files=("$shared"/assets/*.fbx)
	long_dir=$(mktemp -d)
	if [ -f "$shared/assets/Xbot.glb" ] && [ -x "$build"/bench_long_clip ] &&
		"$(dirname "$0")/../bench/make_long_fbx.sh" "$build" "$shared/assets" "$long_dir" >/dev/null 2>&1; then
		fbx_files+=("$long_dir"/xbot_walk_8s.fbx "$long_dir"/ybot_walk_8s.fbx)
	fi
	for f in "${fbx_files[@]}"; do
		python3 - "$build/rigkit" "$f" <<'PY'
import os, resource, statistics, subprocess, sys, tempfile
rk, f = sys.argv[1:]
d = tempfile.mkdtemp()
def run(cmd, out, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    ok = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode == 0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return (t if ok and os.path.exists(out) else None), (os.path.getsize(out) if os.path.exists(out) else 0)
# the CLI asks for transparent huge pages itself (tools/rigkit/memtune.c);
# the last columns give Assimp the same through glibc's tunable
thp = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.hugetlb=1")
a, b, c, sa, sb = [], [], [], 0, 0
for _ in range(7 if "_8s." in f else 5):
    t, sa = run([rk, "convert", f, d + "/r.glb"], d + "/r.glb"); a.append(t)
    t, sb = run(["assimp", "export", f, d + "/a.glb", "-fglb2"], d + "/a.glb"); b.append(t)
    t, _ = run(["assimp", "export", f, d + "/a.glb", "-fglb2"], d + "/a.glb", thp); c.append(t)
ms = lambda v: "n/a" if None in v else "%.1f" % (statistics.median(v) * 1e3)
sp = lambda v: "n/a" if None in a + v else "%.1f×" % (statistics.median(v) / statistics.median(a))
print("| %s | %s | %d | %s | %d | %s | %s | %s |" % (os.path.basename(f), ms(a), sa, ms(b), sb, sp(b), ms(c), sp(c)))
PY
	done
	rm -rf "$long_dir"
	echo
	echo "(ybot@kick.fbx is a 2 s clip without a mesh; *_walk_8s.fbx: bench/make_long_fbx.sh, Xbot's walk"
	echo "repeated to 8 s at 30 fps on Xbot (67 joints) and retargeted onto ybot.fbx (65 joints), both with their meshes.)"
}

# Peers that are not Debian packages (issue 16: ufbx, cgltf): compiled from
# checkouts made outside the repository, named by RIGKIT_PEER_UFBX (a folder
# with ufbx.c and ufbx.h) and RIGKIT_PEER_CGLTF (a folder with cgltf.h), into
# $build; without them their rows are left out.
peer_build() {
	local here
	here=$(cd "$(dirname "$0")/.." && pwd)
	if [ -n "${RIGKIT_PEER_UFBX:-}" ] && [ -f "$RIGKIT_PEER_UFBX/ufbx.c" ] && [ ! -x "$build"/peer_ufbx_load ]; then
		cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$here/bench" -DNDEBUG -I"$RIGKIT_PEER_UFBX" "$here/bench/peer_ufbx_load.c" \
			"$RIGKIT_PEER_UFBX/ufbx.c" -lm -o "$build"/peer_ufbx_load >&2 || rm -f "$build"/peer_ufbx_load
	fi
	if [ -n "${RIGKIT_PEER_CGLTF:-}" ] && [ -f "$RIGKIT_PEER_CGLTF/cgltf.h" ] && [ ! -x "$build"/peer_cgltf_load ]; then
		cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$here/bench" -DNDEBUG -I"$RIGKIT_PEER_CGLTF" "$here/bench/peer_cgltf_load.c" \
			-lm -o "$build"/peer_cgltf_load >&2 || rm -f "$build"/peer_cgltf_load
	fi
	if [ -n "${RIGKIT_PEER_OZZ:-}" ] && [ -d "$RIGKIT_PEER_OZZ/src/animation/runtime" ] && [ ! -x "$build"/peer_ozz_sampling ]; then
		local o="$RIGKIT_PEER_OZZ"
		c++ -O2 -DNDEBUG -std=c++17 -w -I"$here/bench" -I"$here/include" -I"$o/include" -I"$o/src" "$here/bench/peer_ozz_sampling.cc" \
			"$o"/src/base/*.cc "$o"/src/base/*/*.cc "$o"/src/animation/runtime/*.cc \
			"$o"/src/animation/offline/{raw_animation,raw_animation_utils,raw_skeleton,animation_builder,skeleton_builder}.cc \
			-o "$build"/peer_ozz_sampling >&2 2>/dev/null || rm -f "$build"/peer_ozz_sampling
	fi
	return 0
}
peer_build

# Playback sampling beside ozz-animation (RIGKIT_PEER_OZZ,
# bench/peer_ozz_sampling.cc: the same synthetic rig): BENCH_RUNTIME_ROUNDS
# (default 3) interleaved rounds of bench_runtime and the peer, the median
# of the rounds' medians per row.
runtime_peer_section() {
	[ -x "$build"/bench_runtime ] && [ -x "$build"/peer_ozz_sampling ] || return 0
	local r
	echo
	echo "## Playback sampling: rigkit vs ozz-animation, synthetic 65-joint rig (same run)"
	echo
	for ((r = 0; r < ${BENCH_RUNTIME_ROUNDS:-3}; r++)); do
		"$build"/bench_runtime 2>/dev/null | awk '/^synthetic/{on=1; next} /^[A-Za-z]/{on=0} on{print "rigkit", $0}' || true
		"$build"/peer_ozz_sampling 2>/dev/null | awk '/^ozz/{on=1; next} on{print "ozz", $0}' || true
	done | python3 -c '
import collections, re, statistics, sys
v = collections.defaultdict(list)
order = []
for l in sys.stdin:
    m = re.match(r"(\S+)\s+(.*?)\s+([0-9.]+) M joints/s", l)
    if not m: continue
    who, row, x = m.group(1), m.group(2), float(m.group(3))
    if row not in order: order.append(row)
    v[(who, row)].append(x)
print("| row | rigkit M joints/s | ozz M joints/s | rigkit / ozz |")
print("|---|---:|---:|---:|")
for row in order:
    a, b = v.get(("rigkit", row)), v.get(("ozz", row))
    if not a or not b: continue
    a, b = statistics.median(a), statistics.median(b)
    print("| %s | %.1f | %.1f | %.2f |" % (row, a, b, a / b))
'
	echo
	echo "(ozz has no context-free sampling: its random-access rows use its context, which resets on a backward seek;"
	echo "ozz stores keys quantised. Thread CPU time, ${BENCH_RUNTIME_ROUNDS:-3} interleaved rounds of 11 runs each.)"
}

# FBX per byte over the conformance corpus (issue 16): one thread
# (rk_load_opts.threads = 1), the process's CPU time, median of 5 loads per
# file and of BENCH_BYTE_ROUNDS (default 3) rounds over the corpus; the
# medians of the files' MB/s, binary and ASCII apart. With BENCH_BASE_BUILD
# (the build directory of another commit) its bench_load runs interleaved
# with this one, file by file, and gets its own rows; so does ufbx
# (bench/peer_ufbx_load.c, default options, one thread) with RIGKIT_PEER_UFBX,
# run with glibc told to keep freed memory (MALLOC_*_ environment): with
# glibc's defaults each ufbx load maps and faults in fresh pages, which on
# this VM made it 2.4x slower (kenney 7700 binary: 4.6 against 1.9 ms);
# bench_load keeps the defaults (the same settings did not speed it up).
fbx_byte_section() {
	[ -d "$shared/conformance/data" ] && [ -x "$build"/bench_load ] || return 0
	local base=${BENCH_BASE_BUILD:-} r f
	[ -n "$base" ] && [ ! -x "$base"/bench_load ] && base=""
	echo
	echo "## FBX load per byte: the conformance corpus, one thread, CPU time"
	echo
	for ((r = 0; r < ${BENCH_BYTE_ROUNDS:-3}; r++)); do
		for f in "$shared"/conformance/data/*.fbx; do
			[ -n "$base" ] && { "$base"/bench_load -n 5 -1 -c "$f" 2>/dev/null | sed 's/^rigkit /base /' || true; }
			"$build"/bench_load -n 5 -1 -c "$f" 2>/dev/null || true
			[ -x "$build"/peer_ufbx_load ] && { MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 \
				MALLOC_TOP_PAD_=67108864 "$build"/peer_ufbx_load -n 5 "$f" 2>/dev/null || true; }
		done
	done | python3 -c '
import collections, statistics, sys
t = collections.defaultdict(list)
size = {}
for l in sys.stdin:
    x = l.split()
    if len(x) < 5 or x[0] not in ("rigkit", "base", "ufbx"): continue
    t[(x[0], x[1])].append(float(x[3]))
    size[x[1]] = int(x[2])
print("| build | files | count | median MB/s | slowest file MB/s | all bytes / all time MB/s |")
print("|---|---|---:|---:|---:|---:|")
for who in ("base", "rigkit", "ufbx"):
    for kind in ("binary", "ascii"):
        fs = [f for (w, f) in t if w == who and kind in f.rsplit("/", 1)[-1]]
        if not fs: continue
        sec = {f: statistics.median(t[(who, f)]) for f in fs}
        mb = [size[f] / sec[f] / 1e6 for f in fs]
        agg = sum(size[f] for f in fs) / sum(sec.values()) / 1e6
        print("| %s | %s | %d | %.0f | %.0f | %.0f |" % ({"rigkit": "this", "base": "base", "ufbx": "ufbx (peer)"}[who], kind, len(fs),
            statistics.median(mb), min(mb), agg))
'
}

# zlib alone (issue 16): what a load of a binary FBX with compressed meshes
# must spend in libdeflate (bench_inflate), beside the whole one-thread load
# and Assimp, CPU time, medians of interleaved rounds.
inflate_section() {
	[ -x "$build"/bench_inflate ] && [ -x "$build"/bench_load ] || return 0
	local f r a b c list=()
	for f in "${files[@]}"; do
		case "$f" in *.fbx) "$build"/bench_inflate -n 3 "$f" 2>/dev/null | awk '$3 > 0 { exit 0 } { exit 1 }' && list+=("$f") ;; esac
	done
	[ ${#list[@]} -gt 0 ] || return 0
	echo
	echo "## FBX load: zlib alone against the whole load and Assimp (CPU time, one thread)"
	echo
	echo "| file | zlib arrays | decoded MB | inflate ms | rigkit load ms (one thread) | inflate share | assimp ms | assimp / 3 ms |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for f in "${list[@]}"; do
		for ((r = 0; r < ${BENCH_ROUNDS:-5}; r++)); do
			"$build"/bench_inflate -n 15 "$f" 2>/dev/null || true
			"$build"/bench_load -n 15 -1 -c "$f" 2>/dev/null || true
			[ -x "$build"/peer_assimp_load ] && { "$build"/peer_assimp_load -n 15 -c "$f" 2>/dev/null || true; }
		done | python3 -c '
import math, os, statistics, sys
inf, load, peer, n, mb = [], [], [], 0, 0.0
for l in sys.stdin:
    x = l.split()
    if x[0] == "inflate" and len(x) >= 7: inf.append(float(x[5])); n = int(x[2]); mb = int(x[4]) / 1e6
    elif x[0] == "rigkit" and len(x) >= 5: load.append(float(x[3]))
    elif x[0] == "assimp" and len(x) >= 5: peer.append(float(x[3]))
med = lambda v: statistics.median(v) if v else math.nan
i, ld, p = med(inf), med(load), med(peer)
ms = lambda v: "n/a" if math.isnan(v) else "%.2f" % (v * 1e3)
share = "n/a" if math.isnan(i) or math.isnan(ld) else "%.0f%%" % (100 * i / ld)
print("| %s | %d | %.2f | %s | %s | %s | %s | %s |" % (os.path.basename(sys.argv[1]), n, mb, ms(i), ms(ld), share, ms(p), ms(p / 3)))
' "$f"
	done
}

# Peak memory of a GLB load (issue 16): the most bytes the load holds
# through its allocator (bench_load -m) against the file's decoded accessor
# bytes and embedded images (bench/glb_accessor_bytes.py).
glb_memory_section() {
	local glbs=("$shared"/assets/*.glb) f pk rl cl
	[ -d "$shared/assets" ] || return 0
	if [ -x "$build"/bench_load ]; then
		echo
		echo "## GLB load peak memory against the decoded accessor bytes"
		echo
		echo "cgltf columns (with RIGKIT_PEER_CGLTF; bench/peer_cgltf_load.c): cgltf parses, loads the"
		echo "buffers, validates and unpacks every accessor to float / uint32; its peak counts its own"
		echo "allocations and the unpacked arrays. Load times: CPU time, median of $runs."
		echo
		echo "| file | accessor bytes | image bytes | peak bytes | peak / accessors | peak / (accessors + images) | cgltf peak bytes | rigkit / cgltf peak | rigkit load ms | cgltf load ms |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		for f in "${glbs[@]}"; do
			pk=$("$build"/bench_load -n 1 -m "$f" 2>/dev/null | awk '{print $6}')
			rl=$("$build"/bench_load -n "$runs" -c "$f" 2>/dev/null | awk '{print $4}')
			cl=""
			[ -x "$build"/peer_cgltf_load ] && cl=$("$build"/peer_cgltf_load -n "$runs" -m "$f" 2>/dev/null | awk '{print $4, $6}')
			python3 "$(dirname "$0")/../bench/glb_accessor_bytes.py" "$f" | python3 -c '
import os, sys
f, acc, img = sys.stdin.read().split()
pk = int(sys.argv[1] or 0)
rl = float(sys.argv[2]) if sys.argv[2] else None
c = sys.argv[3].split()
acc, img = int(acc), int(img)
cpk = int(c[1]) if len(c) == 2 else 0
print("| %s | %d | %d | %d | %.2f | %.2f | %s | %s | %s | %s |" % (os.path.basename(f), acc, img, pk, pk / acc if acc else 0,
    pk / (acc + img) if acc + img else 0, cpk or "n/a", "%.2f" % (pk / cpk) if cpk else "n/a",
    "%.2f" % (rl * 1e3) if rl else "n/a", "%.2f" % (float(c[0]) * 1e3) if c else "n/a"))
' "${pk:-0}" "${rl:-}" "${cl:-}"
		done
	fi
}

# BENCH_ONLY=runtime_peer: sampling beside ozz alone
if [ "${BENCH_ONLY:-}" = runtime_peer ]; then
	runtime_peer_section
	exit 0
fi
# BENCH_ONLY=glb_memory: the GLB peak memory section alone
if [ "${BENCH_ONLY:-}" = glb_memory ]; then
	glb_memory_section
	exit 0
fi
# BENCH_ONLY=fbx_per_byte: that section alone
if [ "${BENCH_ONLY:-}" = fbx_per_byte ]; then
	fbx_byte_section
	exit 0
fi
# BENCH_ONLY=inflate: the zlib-alone section alone
if [ "${BENCH_ONLY:-}" = inflate ]; then
	files=("$shared"/assets/*.fbx)
	[ -d "$shared/conformance/data" ] && while IFS= read -r f; do files+=("$f"); done < <(ls -S "$shared"/conformance/data/*.fbx | head -10)
	inflate_section
	exit 0
fi

# BENCH_ONLY=fbx2glb: the FBX -> GLB section alone
if [ "${BENCH_ONLY:-}" = fbx2glb ]; then
	fbx2glb_section
	exit 0
fi
# BENCH_ONLY=retarget: the retargeting section alone; BENCH_ONLY=wasm: the
# WebAssembly section alone
if [ "${BENCH_ONLY:-}" = retarget ]; then
	retarget_section
	exit 0
fi
if [ "${BENCH_ONLY:-}" = wasm ]; then
	wasm_section
	exit 0
fi
if [ ! -d "$shared/assets" ]; then
	echo "bench: $shared/assets not found: only the retargeting samples are measured (set RIGKIT_SHARED_DIR)" >&2
	retarget_section
	exit 0
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
echo "which another job held the second core does not decide the row). Times are"
echo "the processes' CPU time (every thread: rigkit's FBX array decoding helpers"
echo "count), which a shared machine's load does not stretch as it does wall time."
echo
echo "| file | size | rigkit ms | rigkit MB/s | assimp ms | speed-up | rigkit rounds ms |"
echo "|---|---:|---:|---:|---:|---:|---|"
for f in "${files[@]}" "${glbs[@]}"; do
	rt_list=""
	pt_list=""
	bytes=0
	for ((round = 0; round < rounds; round++)); do
		r=$("$build"/bench_load -n "$runs" -c "$f" 2>/dev/null || true)
		p=""
		[ -x "$build"/peer_assimp_load ] && p=$("$build"/peer_assimp_load -n "$runs" -c "$f" 2>/dev/null || true)
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

inflate_section

fbx_byte_section

glb_memory_section

fbx2glb_section

if [ -x "$build"/bench_json ]; then
	echo
	echo "## glTF JSON: libcjson vs rigkit's reader (src/formats/gltf/gltf_json_parse.c), same bytes"
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
echo "## GLB write time (rk_gltf_write_memory, in memory)"
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
runtime_peer_section
wasm_section
retarget_section

# Batch throughput and the clips/s per core that docs/batch.md sizes runner
# fleets with (bench/bench_batch.sh; needs $shared/assets).
echo
echo "## Batch: rigkit batch throughput, clips/s per core"
echo
bash "$(dirname "$0")/../bench/bench_batch.sh" "$build/rigkit" "$shared" "${BENCH_BATCH_RUNS:-5}" ||
	echo "(bench_batch.sh: not run; it needs $shared/assets)"
# GPU viewer (`rigkit view --bench`): the interactive loop's frame time on
# whatever GL driver is there (under xvfb-run when no display is set);
# skipped when rigkit was built without the viewer.
echo
echo "## GPU viewer frame time (rigkit view --bench)"
echo
bash "$(dirname "$0")/../bench/bench_view.sh" "$build/rigkit" "$shared" 300 || echo "(rigkit view unavailable here)"
