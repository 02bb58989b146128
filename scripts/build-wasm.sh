#!/usr/bin/env bash
# scripts/build-wasm.sh [--no-demo] [BUILD_DIR] - the WebAssembly build of
# rigkit (docs/wasm.md): the library + wasm/rigkit_wasm.c compiled with
# Debian's emscripten into BUILD_DIR (default build-wasm/):
#
#   BUILD_DIR/rigkit_wasm.mjs, rigkit_wasm.wasm   emscripten module (ES6),
#                                                 WebAssembly SIMD (-msimd128)
#   BUILD_DIR/rigkit_wasm_nosimd.wasm             the same without SIMD (the
#                                                 fallback rigkit.mjs picks on
#                                                 engines without SIMD)
#   BUILD_DIR/rigkit_bench.{mjs,wasm}, BUILD_DIR/nosimd/rigkit_bench.{mjs,wasm}
#                                                 bench/bench_wasm.c, SIMD and
#                                                 not (bench/bench_wasm.mjs)
#   BUILD_DIR/rigkit.mjs                          the JS API (wasm/rigkit.mjs)
#   BUILD_DIR/demo/                               the browser demo, three.js
#                                                 vendored from node_modules
#                                                 (skipped with --no-demo)
#
# Third-party code, no emscripten "ports" (they download at build time):
#  - stb: the header-only Debian headers (/usr/include/stb), as natively.
#  - libdeflate and meshoptimizer: compiled from the Debian *source* packages
#    of exactly the versions the native build links (libdeflate-dev,
#    libmeshoptimizer-dev), fetched with `apt-get source` from the mirrors
#    the machine's apt already uses. The system's apt configuration is not
#    touched: the deb-src lists live in BUILD_DIR/deps/apt (a private apt
#    state directory). `apt-get source` unpacks with dpkg-source, which checks
#    the files against the signed Sources index and applies Debian's patches.
#    So the WASM module runs the same inflate and the same vertex
#    deduplication as the native library, with no library change and no
#    host-provided decompressor (docs/wasm.md, "Dependencies").
#
# Exit codes: 0 built; 2 emscripten missing (install with
# `bash scripts/install-deps.sh wasm`); 3 the Debian sources could not be
# fetched; 4 the npm packages of the demo could not be installed; 1 other
# failures (compile errors...).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEMO=1
BUILD=""
for a in "$@"; do
	case "$a" in
	--no-demo) DEMO=0 ;;
	-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "build-wasm.sh: unknown option '$a'" >&2; exit 1 ;;
	*) BUILD=$a ;;
	esac
done
BUILD=${BUILD:-$ROOT/build-wasm}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if ! command -v emcc >/dev/null 2>&1 || ! command -v emcmake >/dev/null 2>&1; then
	echo "build-wasm.sh: emcc not found (install: bash scripts/install-deps.sh wasm)" >&2
	exit 2
fi
# Debian's emscripten runs its JS tools (acorn-optimizer) with the `node` on
# PATH and needs Debian's node-acorn from /usr/share/nodejs; a node that is
# not Debian's (NodeSource builds) does not search there.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
DEPS=$BUILD/deps
mkdir -p "$DEPS"

# ---------------------------------------------------------------------------
# Debian sources of libdeflate and meshoptimizer
# ---------------------------------------------------------------------------
APT_DIR=$DEPS/apt
APT_OPTS=(
	-o "Dir::Etc::SourceList=$APT_DIR/sources.list"
	-o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
	-o "Dir::State::Lists=$APT_DIR/lists"
	-o "Dir::Cache=$APT_DIR/cache"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=$(id -un)"
	-o "Acquire::Retries=1"
)
apt_ready=0
apt_prepare() {
	[ $apt_ready -eq 1 ] && return 0
	command -v apt-get >/dev/null 2>&1 || { echo "build-wasm.sh: apt-get is needed to fetch the Debian sources" >&2; return 1; }
	command -v dpkg-source >/dev/null 2>&1 || { echo "build-wasm.sh: dpkg-source is missing (bash scripts/install-deps.sh wasm)" >&2; return 1; }
	rm -rf "$APT_DIR"
	mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
	# The machine's own entries, as deb-src: the same mirrors and keys.
	: >"$APT_DIR/sources.list"
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$APT_DIR/sources.list"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$APT_DIR/sources.list.d/$(basename "$f")"
	done
	# Entries without source indexes (third-party repositories) may fail; what
	# matters is that the Debian packages are found below.
	apt-get "${APT_OPTS[@]}" -q update >"$APT_DIR/update.log" 2>&1 || true
	apt_ready=1
}

# fetch_source SOURCE_PACKAGE DEV_PACKAGE: unpacked sources in $DEPS/SOURCE_PACKAGE,
# of the version of DEV_PACKAGE that is installed (any version otherwise).
fetch_source() {
	local src=$1 dev=$2 ver want
	ver=$(dpkg-query -W -f='${Version}' "$dev" 2>/dev/null || true)
	want=${ver:-any}
	if [ -d "$DEPS/$src" ] && [ "$(cat "$DEPS/$src.version" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	apt_prepare || return 1
	echo "fetching the Debian source package $src${ver:+ $ver} (apt-get source)"
	rm -rf "${DEPS:?}/${src:?}" "$DEPS/$src.version" "$DEPS/tmp"
	mkdir -p "$DEPS/tmp"
	if ! (cd "$DEPS/tmp" && apt-get "${APT_OPTS[@]}" -q source "$src${ver:+=$ver}" >"$DEPS/$src.log" 2>&1); then
		# The mirror may have moved on to a newer revision than the installed
		# -dev package: take its version rather than fail (said loudly).
		if [ -n "$ver" ] && (cd "$DEPS/tmp" && apt-get "${APT_OPTS[@]}" -q source "$src" >"$DEPS/$src.log" 2>&1); then
			echo "build-wasm.sh: WARNING: $src $ver is not on the mirror; using its current version (native and WASM may differ)" >&2
		else
			cat "$DEPS/$src.log" >&2
			echo "build-wasm.sh: apt-get source $src${ver:+=$ver} failed (is the Debian mirror reachable? see $APT_DIR/update.log)" >&2
			return 1
		fi
	fi
	local dir
	dir=$(find "$DEPS/tmp" -mindepth 1 -maxdepth 1 -type d -name "$src-*" | head -n 1)
	[ -n "$dir" ] || { echo "build-wasm.sh: apt-get source $src left no source folder" >&2; return 1; }
	mv "$dir" "$DEPS/$src"
	rm -rf "$DEPS/tmp"
	echo "$want" >"$DEPS/$src.version"
}

fetch_source libdeflate libdeflate-dev || exit 3
fetch_source meshoptimizer libmeshoptimizer-dev || exit 3

# stb from its Debian headers: the sysroot of emcc does not search
# /usr/include (glibc's headers must not mix with emscripten's libc), so only
# the stb folder is made visible.
[ -f /usr/include/stb/stb_image.h ] || { echo "build-wasm.sh: /usr/include/stb missing (apt-get install libstb-dev)" >&2; exit 1; }
mkdir -p "$DEPS/include"
ln -sfn /usr/include/stb "$DEPS/include/stb"

# ---------------------------------------------------------------------------
# Compile and link (wasm/CMakeLists.txt)
# ---------------------------------------------------------------------------
# Twice: with WebAssembly SIMD (-msimd128) in BUILD, without in BUILD/nosimd.
# The loader (rigkit_wasm.mjs) of both is the same file, so the non-SIMD
# binary sits beside the SIMD one as rigkit_wasm_nosimd.wasm and
# wasm/rigkit.mjs picks it on engines without SIMD.
wasm_configure_build() { # DIR SIMD(ON|OFF)
	emcmake cmake -S "$ROOT/wasm" -B "$1" -DCMAKE_BUILD_TYPE=Release -DRIGKIT_WASM_SIMD="$2" \
		-DRIGKIT_WASM_DEPS="$DEPS" >"$1/configure.log" 2>&1 || { cat "$1/configure.log" >&2; return 1; }
	cmake --build "$1" -j"$JOBS"
}
mkdir -p "$BUILD/nosimd"
wasm_configure_build "$BUILD" ON || exit 1
wasm_configure_build "$BUILD/nosimd" OFF || exit 1
if ! cmp -s "$BUILD/rigkit_wasm.mjs" "$BUILD/nosimd/rigkit_wasm.mjs"; then
	echo "build-wasm.sh: the SIMD and non-SIMD loaders differ (rigkit_wasm.mjs): the fallback needs one loader" >&2
	exit 1
fi
cp "$BUILD/nosimd/rigkit_wasm.wasm" "$BUILD/rigkit_wasm_nosimd.wasm"
cp "$ROOT/wasm/rigkit.mjs" "$BUILD/rigkit.mjs"
echo "built $BUILD/rigkit_wasm.wasm ($(wc -c <"$BUILD/rigkit_wasm.wasm") bytes, SIMD), rigkit_wasm_nosimd.wasm ($(wc -c <"$BUILD/rigkit_wasm_nosimd.wasm") bytes), rigkit_wasm.mjs, rigkit.mjs; rigkit_bench.{mjs,wasm} in $BUILD and $BUILD/nosimd"

[ $DEMO -eq 1 ] || exit 0

# ---------------------------------------------------------------------------
# Demo: wasm/demo + three.js from npm (wasm/package.json, package-lock.json)
# ---------------------------------------------------------------------------
command -v npm >/dev/null 2>&1 || { echo "build-wasm.sh: npm is needed for the demo's three.js (or use --no-demo)" >&2; exit 4; }
NPM_DIR=$BUILD/npm
mkdir -p "$NPM_DIR"
cp "$ROOT/wasm/package.json" "$ROOT/wasm/package-lock.json" "$NPM_DIR/"
if [ ! -d "$NPM_DIR/node_modules/three" ] || ! cmp -s "$NPM_DIR/package-lock.json" "$NPM_DIR/.installed-lock.json"; then
	echo "installing the demo's node packages into $NPM_DIR (npm ci)"
	(cd "$NPM_DIR" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error) || exit 4
	cp "$NPM_DIR/package-lock.json" "$NPM_DIR/.installed-lock.json"
fi
OUT=$BUILD/demo
THREE=$NPM_DIR/node_modules/three
rm -rf "$OUT"
mkdir -p "$OUT/vendor/three/build" "$OUT/vendor/three/examples/jsm"
cp "$ROOT"/wasm/demo/* "$OUT/"
cp "$BUILD/rigkit_wasm.mjs" "$BUILD/rigkit_wasm.wasm" "$BUILD/rigkit_wasm_nosimd.wasm" "$BUILD/rigkit.mjs" "$OUT/"
cp "$THREE/LICENSE" "$OUT/vendor/three/"
cp "$THREE/build/three.module.js" "$OUT/vendor/three/build/"
# The add-ons the demo imports and what they import in turn.
for f in loaders/GLTFLoader.js controls/OrbitControls.js utils/BufferGeometryUtils.js; do
	mkdir -p "$OUT/vendor/three/examples/jsm/$(dirname "$f")"
	cp "$THREE/examples/jsm/$f" "$OUT/vendor/three/examples/jsm/$f"
done
echo "demo in $OUT: serve it with  python3 -m http.server -d $OUT 8000  and open http://localhost:8000/"
