#!/usr/bin/env bash
# scripts/install-deps.sh GROUP... - make sure the Debian packages a make
# target needs are installed. As root, missing packages are installed with
# apt-get; otherwise the exact command is printed and the script fails.
#
# Groups: build (library, CLI, tests), sanitize (clang + sanitizer runtimes),
# bench (Assimp as the speed peer), fuzz (clang + libFuzzer), wasm
# (emscripten; dpkg-dev unpacks the Debian sources scripts/build-wasm.sh compiles),
# format (clang-format for .clang-format: `git clang-format` on changed code),
# view (`rigkit view`: SDL2 + libepoxy to build it; Xvfb, xauth and Mesa's
# software OpenGL driver to test it headless, docs/view.md).
# oracles (Blender, whose BVH and FBX importers tests/test_bvh_blender.sh
# and tests/test_rest_blender.sh check against; `make test` installs it, the
# tests skip without it. node/npm for the three.js checks are
# not listed: machines often have them from elsewhere, and those tests skip
# without them too).
set -euo pipefail

pkgs_for() {
	case "$1" in
	build) echo "cmake make gcc pkg-config python3 libdeflate-dev libcjson-dev libstb-dev libmeshoptimizer-dev libpng-dev libjpeg62-turbo-dev libwebp-dev g++ libdraco-dev" ;;
	sanitize) echo "clang libclang-rt-14-dev" ;;
	bench) echo "g++ libassimp-dev assimp-utils" ;;
	fuzz) echo "clang libclang-rt-14-dev" ;;
	wasm) echo "emscripten dpkg-dev" ;;
	format) echo "clang-format" ;;
	view) echo "libsdl2-dev libepoxy-dev xvfb xauth libgl1-mesa-dri" ;;
	oracles) echo "blender" ;;
	*) echo "install-deps.sh: unknown group '$1'" >&2; exit 1 ;;
	esac
}

missing=()
for group in "$@"; do
	for p in $(pkgs_for "$group"); do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "rigkit needs these Debian packages: ${missing[*]}" >&2
	echo "install them with:  sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q "${missing[@]}"; then
	apt-get update -q
	apt-get install -y -q "${missing[@]}"
fi
