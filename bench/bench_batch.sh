#!/usr/bin/env bash
# bench/bench_batch.sh RIGKIT SHARED [RUNS] - `rigkit batch` throughput: the
# humanoid motions of SHARED/assets (ybot@kick.fbx, ybot.fbx, Xbot.glb,
# Soldier.glb: 13 clips) onto 2 avatars (readyplayer.me.glb and the sample
# avatar), per avatar and --per-clip, on 1 and 2 threads, beside the
# obvious alternative: one `rigkit retarget` process per (motion file,
# avatar); then the --per-clip jobs as a manifest (--plan), run by one
# process and by 2 shard processes at once (--shard K/2, one thread each:
# what a job runner does). Wall time of the whole process (load, retarget,
# write, exit), median of RUNS (default 3); prints a markdown table
# (docs/batch.md) and the clips/s per core for sizing a cluster
# (docs/batch.md "Sizing"): clips retargeted and written per CPU-second of
# a one-thread process.
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

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# time_runs NAME COMMAND... -> one table row: wall time (median and all
# runs) and the CPU time (user + system of the command and its children,
# median), in seconds. On a shared machine the wall time grows with the
# load; the CPU time much less, so "clips per CPU-s" of a one-thread run is
# the per-core number (docs/batch.md "Sizing"). Sets last_median (wall) and
# last_cpu.
time_runs() {
	local name=$1 times=() cpus=() t
	shift
	for ((r = 0; r < runs; r++)); do
		rm -rf "$tmp/out"
		mkdir -p "$tmp/out"
		t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 )
		times+=("$(awk '{ printf "%.4f", $1 }' <<<"$t")")
		cpus+=("$(awk '{ printf "%.4f", $2 + $3 }' <<<"$t")")
	done
	local files m c
	files=$(ls "$tmp/out" | grep -cE '\.(glb|gltf)$')
	m=$(median "${times[@]}")
	c=$(median "${cpus[@]}")
	last_median=$m
	last_cpu=$c
	printf '| %s | %d | %.3f | %.1f | %.0f | %.3f | %.0f | %s|\n' "$name" "$files" "$m" \
		"$(awk -v f="$files" -v m="$m" 'BEGIN { print f / m }')" "$(awk -v m="$m" 'BEGIN { print 26 / m }')" "$c" \
		"$(awk -v c="$c" 'BEGIN { print 26 / c }')" "$(printf '%.3f ' "${times[@]}")"
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

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo
echo "| command (26 clips retargeted in each) | files written | wall s (median) | files/s | clips/s | CPU s (median) | clips per CPU-s | runs (wall), s |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
time_runs "\`rigkit retarget\` per (motion file, avatar), 8 processes" separate
for t in 1 2; do
	time_runs "\`batch --threads $t\` (2 outputs)" "$rigkit" batch --motions "${motions[@]}" --avatars "${avatars[@]}" \
		--out "$tmp/out" --threads "$t"
	[ "$t" = 1 ] && per_avatar_1=$last_cpu
done
for t in 1 2; do
	time_runs "\`batch --per-clip --threads $t\` (26 outputs)" "$rigkit" batch --motions "${motions[@]}" \
		--avatars "${avatars[@]}" --out "$tmp/out" --per-clip --threads "$t"
	[ "$t" = 1 ] && per_clip_1=$last_cpu
done
"$rigkit" batch --plan --motions "${motions[@]}" --avatars "${avatars[@]}" --out "$tmp/out" --per-clip -o "$tmp/jobs.jsonl" -q
time_runs "\`batch --manifest\` (the --per-clip plan), 1 process, \`--threads 1\`" "$rigkit" batch --manifest "$tmp/jobs.jsonl" \
	--threads 1 -q
manifest_1=$last_cpu
shards() { # the 2 shards at once, one thread each
	"$rigkit" batch --manifest "$tmp/jobs.jsonl" --shard 0/2 --threads 1 -q >/dev/null &
	local p=$!
	"$rigkit" batch --manifest "$tmp/jobs.jsonl" --shard 1/2 --threads 1 -q >/dev/null
	wait "$p"
}
time_runs "2 shard processes at once (\`--shard K/2 --threads 1\`)" shards
shards_2=$last_median
echo
awk -v p="$per_avatar_1" -v a="$per_clip_1" -v b="$manifest_1" -v c="$shards_2" -v n="$(nproc)" 'BEGIN {
	printf "clips/s per core (clips per CPU-second, one thread, 34 frames a clip): %.0f per-avatar outputs, %.0f --per-clip (folder form), %.0f --per-clip (manifest); 2 shards at once on %d CPUs: %.1f clips/s of wall time per shard\n",
		26 / p, 26 / a, 26 / b, n, 26 / c / 2 }'
