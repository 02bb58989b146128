#!/usr/bin/env bash
# tests/test_layers.sh RIGKIT SHARED BUILD - the layer rules
# (docs/architecture.md) hold on the sources, and breaking them is caught:
#   1. tools/check_layers.py passes on the tree;
#   2. on a copy of the tree with one forbidden include added per case (a
#      format reaching another format, a format reaching anim, the runtime
#      reaching a format, the CLI reaching an internal header), the checker
#      fails and names the file;
#   3. the build's staged include folders refuse the same include: compiling
#      a format file against its layer's folder with an added
#      #include "rigkit/anim.h" fails (BUILD/layers must exist).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${3:-}
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

if python3 "$src/tools/check_layers.py" "$src" >"$tmp/out" 2>&1; then ok; else bad "tree: $(cat "$tmp/out")"; fi

inject() { # inject NAME FILE LINE: copy the tree, add LINE after FILE's first #include, expect a failure naming FILE
	local name=$1 file=$2 line=$3 copy=$tmp/$1
	mkdir -p "$copy"
	cp -r "$src/src" "$src/include" "$src/tools" "$src/CMakeLists.txt" "$copy/"
	[ -d "$src/wasm" ] && mkdir -p "$copy/wasm" && cp "$src"/wasm/*.[ch] "$copy/wasm/"
	python3 - "$copy/$file" "$line" <<'PY'
import sys, re
p, line = sys.argv[1], sys.argv[2]
s = open(p).read()
m = re.search(r'^#include[^\n]*\n', s, re.M)
s = s[:m.end()] + line + '\n' + s[m.end():]
open(p, 'w').write(s)
PY
	if python3 "$copy/tools/check_layers.py" "$copy" >"$tmp/$name.out" 2>&1; then
		bad "$name: the checker accepted $line in $file"
	elif grep -q "$file" "$tmp/$name.out"; then ok
	else bad "$name: the checker failed without naming $file: $(head -3 "$tmp/$name.out")"; fi
}
inject fmt-to-fmt src/formats/fbx/fbx_anim.c '#include "formats/gltf/gltf_internal.h"'
inject fmt-to-anim src/formats/gltf/gltf_node.c '#include "rigkit/anim.h"'
inject runtime-to-fmt src/runtime/runtime_blend.c '#include "formats/fbx/fbx.h"'
inject scene-to-load src/scene/scene.c '#include "rigkit/load.h"'
inject export-to-fmt src/export/gltf/gltf_write.c '#include "formats/gltf/gltf.h"'
inject cli-internal tools/rigkit/main.c '#include "core/internal.h"'
inject cli-symbol tools/rigkit/main.c 'int rk_cli_helper(void) { return 0; }'
inject umbrella src/anim/anim_eval.c '#include "rigkit/rigkit.h"'
# the GPU viewer (tools/view) is a top layer too: public headers only, no rk_ symbols
if [ -d "$src/tools/view" ]; then
	inject view-internal tools/view/view_model.c '#include "mesh/mesh_internal.h"'
	inject view-symbol tools/view/view_gl.c 'int rk_view_helper(void) { return 0; }'
fi

# The compiler refuses it too: the fmt_gltf layer's staged include folder
# has no rigkit/anim.h.
if [ -n "$build" ] && [ -d "$build/layers/fmt_gltf" ]; then
	cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
	cc=${cc:-cc}
	printf '#include "formats/gltf/gltf_internal.h"\n#include "rigkit/anim.h"\n' >"$tmp/forbidden.c"
	if "$cc" -std=c11 -fsyntax-only -I"$build/layers/fmt_gltf" "$tmp/forbidden.c" 2>"$tmp/cc.err"; then
		bad "compile: a format file could include rigkit/anim.h"
	elif grep -q 'rigkit/anim.h' "$tmp/cc.err"; then ok
	else bad "compile: failed for another reason: $(head -3 "$tmp/cc.err")"; fi
	printf '#include "formats/gltf/gltf_internal.h"\n#include "rigkit/scene.h"\n' >"$tmp/allowed.c"
	if "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -fsyntax-only -I"$build/layers/fmt_gltf" "$tmp/allowed.c" 2>"$tmp/cc2.err"; then ok
	else bad "compile: an allowed include failed: $(head -3 "$tmp/cc2.err")"; fi
else
	echo "note: no BUILD/layers folder given; compile check skipped"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
