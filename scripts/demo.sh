#!/usr/bin/env bash
# scripts/demo.sh RIGKIT - what `make demo` runs (upgraded as features land).
set -euo pipefail
rigkit=${1:-build/rigkit}
echo "\$ rigkit --version"
"$rigkit" --version
echo
echo "\$ rigkit --help"
"$rigkit" --help
echo
echo "# A joint with a 30 degree PreRotation about Z, rotated 90 degrees about Y in ZYX order,"
echo "# about a rotation pivot at (0,1,0): where does the point (1,0,0) go?"
echo "\$ rigkit transform --translation 0,10,0 --rotation 0,90,0 --order zyx --pre-rotation 0,0,30 --rotation-active --rotation-pivot 0,1,0 --point 1,0,0"
"$rigkit" transform --translation 0,10,0 --rotation 0,90,0 --order zyx --pre-rotation 0,0,30 \
	--rotation-active --rotation-pivot 0,1,0 --point 1,0,0
