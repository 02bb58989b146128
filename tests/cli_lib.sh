# tests/cli_lib.sh - sourced by the CLI script tests (tests/test_*cli*.sh):
# a temporary folder $tmp (removed on exit), the pass/fail counters and
# expect / expect_text. Not a test itself (CMake runs tests/test_*.sh only).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

expect() { # expect NAME WANT_EXIT -- command...
	local name=$1 want=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: exit $got, expected $want"
		sed 's/^/  stderr: /' "$tmp/err" | head -5
	fi
}

expect_text() { # expect_text NAME FILE PATTERN
	if grep -qE -- "$3" "$2"; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $1: '$3' not in $2:"; head -5 "$2" | sed 's/^/  /'
	fi
}
