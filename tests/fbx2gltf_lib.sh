# tests/fbx2gltf_lib.sh - sourced by the FBX SDK oracle tests
# (tests/test_fbx_oracle.sh, tests/test_fbx_sdk_fixtures.sh,
# tests/test_fbx_write_oracle.sh).
#   fbx2gltf_install BUILD
# installs the npm package fbx2gltf@0.9.7 (FBX2glTF linked with the Autodesk
# FBX SDK) into BUILD/oracle once and sets FBX2GLTF to its binary; exits 77
# (CTest skip) without npm or python3, or when the registry cannot be reached.
fbx2gltf_install() {
	local oracle=$1/oracle
	if ! command -v npm >/dev/null || ! command -v python3 >/dev/null; then echo "SKIP: npm or python3 missing"; exit 77; fi
	mkdir -p "$oracle"
	FBX2GLTF=$oracle/node_modules/fbx2gltf/bin/Linux/FBX2glTF
	if [ ! -f "$FBX2GLTF" ]; then
		(cd "$oracle" && [ -f package.json ] || echo '{"private":true}' >package.json
		 timeout 300 npm install --no-audit --no-fund --silent fbx2gltf@0.9.7 >/dev/null 2>&1) \
			|| { echo "SKIP: npm install fbx2gltf failed (no registry access?)"; exit 77; }
	fi
	chmod +x "$FBX2GLTF" 2>/dev/null
	[ -x "$FBX2GLTF" ] || { echo "SKIP: FBX2glTF binary not executable"; exit 77; }
}
