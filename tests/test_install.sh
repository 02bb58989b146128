#!/usr/bin/env bash
# tests/test_install.sh RIGKIT SHARED BUILD - `cmake --install` into a
# temporary prefix, then build examples/orbit.c against the installed
# headers and library through pkg-config (static and shared) and run it.
set -u
build=${3:?build dir}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config missing"; exit 77; }
if grep -q '^RIGKIT_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: sanitizer build (its library needs the sanitizer runtime; the plain build tests installation)"
	exit 77
fi
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH=$libdir
pass=0 fail=0
for f in rigkit.h base.h scene.h anim.h; do
	[ -f "$tmp/prefix/include/rigkit/$f" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: include/rigkit/$f not installed"; }
done
[ -x "$tmp/prefix/bin/rigkit" ] && "$tmp/prefix/bin/rigkit" --version >/dev/null && pass=$((pass + 1)) \
	|| { fail=$((fail + 1)); echo "FAIL: installed rigkit CLI does not run"; }
static_libs=$(pkg-config --libs --static rigkit | sed 's/-lrigkit//')
if cc -std=c11 -Wall -Wextra -Werror "$src/examples/orbit.c" $(pkg-config --cflags rigkit) "$(dirname "$libdir")/librigkit.a" \
	$static_libs -o "$tmp/orbit_static" 2>"$tmp/cc.log" && "$tmp/orbit_static" >"$tmp/out.txt"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL: static build of examples/orbit.c via pkg-config"; head -5 "$tmp/cc.log"
fi
if cc -std=c11 "$src/examples/orbit.c" $(pkg-config --cflags --libs rigkit) -lm -o "$tmp/orbit_shared" 2>"$tmp/cc.log" \
	&& LD_LIBRARY_PATH="$(dirname "$libdir")" "$tmp/orbit_shared" >/dev/null; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL: shared build of examples/orbit.c via pkg-config"; head -5 "$tmp/cc.log"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
