#!/usr/bin/env bash
# bench/bench_batch.sh RIGKIT SHARED [RUNS] - `rigkit batch` throughput: the
# humanoid motions of SHARED/assets (ybot@kick.fbx, ybot.fbx, Xbot.glb,
# Soldier.glb: 13 clips) onto 2 avatars (readyplayer.me.glb and the sample
# avatar), per avatar and --per-clip, on 1 and 2 threads, beside the
# obvious alternative: one `rigkit retarget` process per (motion file,
# avatar). Wall time of the whole process (load, retarget, write, exit),
# median of RUNS (default 3); prints a markdown table (docs/batch.md).
set -euo pipefail
rigkit=$1
assets=$2/assets
runs=${3:-3}
motions=("$assets/ybot@kick.fbx" "$assets/ybot.fbx" "$assets/Xbot.glb" "$assets/Soldier.glb")
for f in "${motions[@]}" "$assets/readyplayer.me.glb"; do
	[ -f "$f" ] || { echo "bench_batch: $f missing" >&2; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rigkit" sample "$tmp/s" >/dev/null
avatars=("$assets/readyplayer.me.glb" "$tmp/s/avatar.glb")

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# time_runs NAME COMMAND... -> one table row (median and all runs, seconds)
time_runs() {
	local name=$1 t0 t1 times=()
	shift
	for ((r = 0; r < runs; r++)); do
		rm -rf "$tmp/out"
		mkdir -p "$tmp/out"
		t0=$(now)
		"$@" >/dev/null
		t1=$(now)
		times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
	done
	local files
	files=$(ls "$tmp/out" | wc -l)
	local m
	m=$(median "${times[@]}")
	printf '| %s | %d | %.3f | %.1f | %.0f | %s|\n' "$name" "$files" "$m" "$(awk -v f="$files" -v m="$m" 'BEGIN { print f / m }')" \
		"$(awk -v m="$m" 'BEGIN { print 26 / m }')" "$(printf '%.3f ' "${times[@]}")"
}

separate() { # one rigkit retarget per (motion file, avatar), one after the other
	local m a
	for a in "${avatars[@]}"; do
		for m in "${motions[@]}"; do
			local ma=${m##*/} aa=${a##*/}
			"$rigkit" retarget "$m" "$a" "$tmp/out/${aa%.*}__${ma%.*}.glb"
		done
	done
}

echo "| command (26 clips retargeted in each) | files written | wall s (median) | files/s | clips/s | runs, s |"
echo "|---|---:|---:|---:|---:|---|"
time_runs "\`rigkit retarget\` per (motion file, avatar), 8 processes" separate
for t in 1 2; do
	time_runs "\`batch --threads $t\` (2 outputs)" "$rigkit" batch --motions "${motions[@]}" --avatars "${avatars[@]}" \
		--out "$tmp/out" --threads "$t"
done
for t in 1 2; do
	time_runs "\`batch --per-clip --threads $t\` (26 outputs)" "$rigkit" batch --motions "${motions[@]}" \
		--avatars "${avatars[@]}" --out "$tmp/out" --per-clip --threads "$t"
done
