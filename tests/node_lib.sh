# tests/node_lib.sh - sourced by the node oracle tests (test_gltf_interop.sh, test_root_threejs.sh,
# test_vrm_interop.sh; test_retarget_threejs.sh has its own variant that can
# share test_gltf_interop's install): node/npm checks and the pinned `npm ci`. Needs skip()
# and fail() from the caller. Not a test itself (CMake runs tests/test_*.sh).

# rk_node_require WHAT: skips (77) unless node 18+ and npm are installed.
rk_node_require() {
	command -v node >/dev/null 2>&1 || skip "node is not installed (needed for $1)"
	command -v npm >/dev/null 2>&1 || skip "npm is not installed (needed to install $1)"
	local major
	major=$(node -e 'process.stdout.write(String(process.versions.node.split(".")[0]))' 2>/dev/null || echo 0)
	[ "$major" -ge 18 ] 2>/dev/null || skip "node $(node --version 2>/dev/null) is too old (need 18 or newer)"
}

# rk_npm_ci PKG WHAT: `npm ci` in PKG (holding package.json + package-lock.json)
# unless its node_modules matches the lock file already; skips when the
# registry cannot be reached, fails when npm ci fails although it answers.
rk_npm_ci() {
	local pkg=$1 what=$2
	if [ -d "$pkg/node_modules" ] && cmp -s "$pkg/package-lock.json" "$pkg/.installed-lock.json"; then return 0; fi
	echo "installing node packages into $pkg (npm ci)"
	if ! (cd "$pkg" && timeout 600 npm ci --no-audit --no-fund --prefer-offline --fetch-retries=1 --fetch-retry-maxtimeout=15000 --loglevel=error); then
		if ! (cd "$pkg" && timeout 60 npm ping >/dev/null 2>&1); then
			skip "npm registry unreachable: cannot install $what"
		fi
		fail "npm ci failed although the registry answers (see above)"
	fi
	cp "$pkg/package-lock.json" "$pkg/.installed-lock.json"
}

# rk_npm_reuse PKG SHARED_PKG WHAT: links PKG/node_modules to SHARED_PKG's
# install when that one matches tests/node's lock file (PKG holds a copy of
# it), else rk_npm_ci PKG WHAT (a stale link removed first).
rk_npm_reuse() {
	local pkg=$1 shared=$2 what=$3
	if [ -d "$shared/node_modules" ] && cmp -s "$pkg/package-lock.json" "$shared/.installed-lock.json"; then
		[ -L "$pkg/node_modules" ] || rm -rf "$pkg/node_modules" "$pkg/.installed-lock.json"
		ln -sfn "$shared/node_modules" "$pkg/node_modules" || fail "cannot link $shared/node_modules"
		return 0
	fi
	[ -L "$pkg/node_modules" ] && rm -f "$pkg/node_modules" "$pkg/.installed-lock.json"
	rk_npm_ci "$pkg" "$what"
}
