# tests/fbx2gltf_lib.sh - sourced by the FBX SDK oracle tests
# (test_fbx_oracle.sh, test_fbx_sdk_fixtures.sh): installs npm
# fbx2gltf@0.9.7 (FBX2glTF, built on the Autodesk FBX SDK) into BUILD/oracle
# once. Not a test itself (CMake runs tests/test_*.sh).

# rk_fbx2gltf BUILD: sets fbx2gltf_bin to the FBX2glTF binary, or exits 77
# (skip) when npm cannot install it or it does not run.
rk_fbx2gltf() {
	local oracle=$1/oracle
	mkdir -p "$oracle"
	fbx2gltf_bin=$oracle/node_modules/fbx2gltf/bin/Linux/FBX2glTF
	if [ ! -f "$fbx2gltf_bin" ]; then
		(cd "$oracle" && [ -f package.json ] || echo '{"private":true}' >package.json
		 timeout 300 npm install --no-audit --no-fund --silent fbx2gltf@0.9.7 >/dev/null 2>&1) \
			|| { echo "SKIP: npm install fbx2gltf failed (no registry access?)"; exit 77; }
	fi
	chmod +x "$fbx2gltf_bin" 2>/dev/null
	[ -x "$fbx2gltf_bin" ] || { echo "SKIP: FBX2glTF binary not executable"; exit 77; }
}
