#!/usr/bin/env bash
# tests/test_install.sh RIGKIT SHARED BUILD - rigkit as another project sees
# it (docs/packaging.md):
#   1. `cmake --install` into a temporary prefix: headers, CLI, libraries,
#      the CMake package and rigkit.pc; the public headers include no
#      third-party header;
#   2. pkg-config: examples/orbit.c built against the installed library
#      (static and shared) runs; `pkg-config --cflags` and `--libs --static`
#      name no cJSON (only rigkit's tests use it);
#   3. find_package(rigkit CONFIG REQUIRED): an outside CMake project links
#      rigkit::rigkit (static) and rigkit::rigkit_shared, and both programs
#      run; a version the package does not offer is refused;
#   4. add_subdirectory(<this tree> rigkit): an outside project with its own
#      target named "rigkit" builds only the library (no test_, bench_,
#      example_, fuzz_ or CLI target, no CTest file, no shared library,
#      installs nothing of rigkit), and its program linked with
#      rigkit::rigkit runs.
# Skipped (77) only when a tool it needs is missing, or in the sanitizer
# build (its library needs the sanitizer runtime).
set -u
build=${3:?build dir}
src=$(cd "$(dirname "$0")/.." && pwd)
for tool in cmake pkg-config cc make; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done
if grep -q '^RIGKIT_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: sanitizer build (its library needs the sanitizer runtime; the plain build tests installation)"
	exit 77
fi
. "$src/tests/cli_lib.sh"
jobs=$(nproc 2>/dev/null || echo 2)

# --- 1. cmake --install ----------------------------------------------------
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
libdir=$(dirname "$libdir")
export PKG_CONFIG_PATH=$libdir/pkgconfig
for f in include/rigkit/rigkit.h include/rigkit/base.h include/rigkit/scene.h include/rigkit/anim.h \
	"${libdir#"$prefix"/}/librigkit.a" "${libdir#"$prefix"/}/librigkit.so" \
	"${libdir#"$prefix"/}/cmake/rigkit/rigkitConfig.cmake" "${libdir#"$prefix"/}/cmake/rigkit/rigkitConfigVersion.cmake" \
	"${libdir#"$prefix"/}/cmake/rigkit/rigkitTargets.cmake"; do
	[ -f "$prefix/$f" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: $f not installed"; }
done
expect installed-cli 0 -- "$prefix/bin/rigkit" --version
# Every #include of an installed header is rigkit's own or the C library's.
if grep -h '^[[:space:]]*#[[:space:]]*include' "$prefix"/include/rigkit/*.h \
	| grep -vE '#[[:space:]]*include[[:space:]]+("rigkit/[a-z_]+\.h"|<(stdbool|stddef|stdint|stdio|limits|float)\.h>)'; then
	fail=$((fail + 1)); echo "FAIL: an installed header includes a third-party header (above)"
else
	pass=$((pass + 1))
fi

# --- 2. pkg-config ---------------------------------------------------------
static_libs=$(pkg-config --libs --static rigkit | sed 's/-lrigkit//')
expect orbit-static-build 0 -- cc -std=c11 -Wall -Wextra -Werror "$src/examples/orbit.c" $(pkg-config --cflags rigkit) \
	"$libdir/librigkit.a" $static_libs -o "$tmp/orbit_static"
expect orbit-static-run 0 -- "$tmp/orbit_static"
expect orbit-shared-build 0 -- cc -std=c11 "$src/examples/orbit.c" $(pkg-config --cflags --libs rigkit) -lm -o "$tmp/orbit_shared"
expect orbit-shared-run 0 -- env LD_LIBRARY_PATH="$libdir" "$tmp/orbit_shared"
for flags in "--cflags" "--libs --static"; do
	if pkg-config $flags rigkit | grep -qi cjson; then
		fail=$((fail + 1)); echo "FAIL: pkg-config $flags rigkit names cJSON: $(pkg-config $flags rigkit)"
	else
		pass=$((pass + 1))
	fi
done

# --- the outside program of 3 and 4 ----------------------------------------
# It reaches the FBX reader (libdeflate) and the mesh expansion
# (meshoptimizer), so a static link needs every dependency.
mkdir -p "$tmp/app"
cat >"$tmp/app/main.c" <<'EOF'
/* Written by tests/test_install.sh: an outside program using rigkit. */
#include <rigkit/rigkit.h>

#include <stdio.h>

int main(void)
{
	rk_error err;
	rk_scene *scene = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
	if (!scene) return 1;
	rk_mesh_expansion *gpu = rk_mesh_expansion_build(scene, NULL, &err);
	rk_scene *missing = rk_load_file("/nonexistent/rigkit-test-install.fbx", NULL, &err);
	int ok = gpu != NULL && gpu->vertex_count > 0 && missing == NULL;
	printf("rigkit %s: %zu nodes, %zu vertices\n", rk_version(), scene->nodes.count, gpu ? gpu->vertex_count : 0);
	rk_mesh_expansion_free(gpu);
	rk_scene_free(scene);
	return ok ? 0 : 1;
}
EOF
version=$("$prefix/bin/rigkit" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
run_app() { # run_app NAME PROGRAM: runs, prints the library's version
	expect "$1" 0 -- "$2"
	expect_text "$1-output" "$tmp/out" "^rigkit $version: [1-9][0-9]* nodes, [1-9][0-9]* vertices$"
}

# --- 3. find_package(rigkit CONFIG) ----------------------------------------
cat >"$tmp/app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(rigkit_outside_find LANGUAGES C)
find_package(rigkit 99.0 CONFIG QUIET)
if(rigkit_FOUND)
  message(FATAL_ERROR "find_package(rigkit 99.0) accepted version ${rigkit_VERSION}")
endif()
find_package(rigkit 0.1 CONFIG REQUIRED)
add_executable(app_static main.c)
target_link_libraries(app_static PRIVATE rigkit::rigkit)
add_executable(app_shared main.c)
target_link_libraries(app_shared PRIVATE rigkit::rigkit_shared)
EOF
expect find-configure 0 -- cmake -S "$tmp/app" -B "$tmp/find" -G "Unix Makefiles" -DCMAKE_PREFIX_PATH="$prefix"
expect find-build 0 -- cmake --build "$tmp/find" -j"$jobs"
run_app find-static "$tmp/find/app_static"
run_app find-shared "$tmp/find/app_shared"
if ldd "$tmp/find/app_static" 2>/dev/null | grep -q librigkit; then
	fail=$((fail + 1)); echo "FAIL: rigkit::rigkit is not the static library (app_static needs librigkit.so)"
else
	pass=$((pass + 1))
fi

# --- 4. add_subdirectory ---------------------------------------------------
mkdir -p "$tmp/sub"
cp "$tmp/app/main.c" "$tmp/sub/main.c"
cat >"$tmp/sub/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(rigkit_outside_sub LANGUAGES C)
add_subdirectory("$src" rigkit)
add_custom_target(rigkit COMMENT "the outside project's own target named rigkit")
add_executable(app main.c)
target_link_libraries(app PRIVATE rigkit::rigkit)
EOF
expect sub-configure 0 -- cmake -S "$tmp/sub" -B "$tmp/subb" -G "Unix Makefiles"
expect sub-build 0 -- cmake --build "$tmp/subb" -j"$jobs"
run_app sub-run "$tmp/subb/app"
cmake --build "$tmp/subb" --target help >"$tmp/targets.txt" 2>&1
expect_text sub-has-library "$tmp/targets.txt" '^\.\.\. rigkit_static$'
if grep -E '^\.\.\. (test_|bench_|peer_|example_|fuzz_|rigkit_cli)' "$tmp/targets.txt"; then
	fail=$((fail + 1)); echo "FAIL: add_subdirectory(rigkit) made the targets above"
else
	pass=$((pass + 1))
fi
if [ -n "$(find "$tmp/subb" -name CTestTestfile.cmake -o -name 'librigkit.so*' -o -name examples -type d)" ]; then
	fail=$((fail + 1)); echo "FAIL: add_subdirectory(rigkit) registered tests or built more than the static library:"
	find "$tmp/subb" -name CTestTestfile.cmake -o -name 'librigkit.so*' -o -name examples -type d | head -5
else
	pass=$((pass + 1))
fi
expect sub-install 0 -- cmake --install "$tmp/subb" --prefix "$tmp/subprefix"
if [ -n "$(find "$tmp/subprefix" -type f 2>/dev/null | grep -v '/app$')" ]; then
	fail=$((fail + 1)); echo "FAIL: installing the outside project installed rigkit files (RIGKIT_INSTALL is off there)"
else
	pass=$((pass + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
