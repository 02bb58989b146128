#!/usr/bin/env bash
# tests/test_contacts_cli.sh RIGKIT SHARED BUILD - the contact solve of
# `rigkit retarget` (rigkit/retarget.h, CONTACT SOLVE), checked on world
# joint positions printed by `rigkit pose` (the evaluator, not the solve's
# own measures) against what the source clips are known to do:
#   - the sample Walk (rigkit/demo.h): each foot's ball (ToeBase) stays put
#     from heel strike to toe-off (left 0-0.6 s, right 0.5-1.1 s, flat until
#     0.35 s after the strike); on the sample avatar and on the stress
#     avatars of bench/make_contact_avatars.py (long / short legs, big /
#     small feet, A-pose, bulky) the ball stays put too (within 0.2 % of the
#     target's hips height) and sits at its rest height (within 0.5 %), and
#     no foot joint goes below its rest height by more than 0.5 %;
#     `--contacts off` (the rule alone) does not manage that on the big feet;
#   - the hands clip (bench/make_contact_avatars.py): wrists 6 cm apart at
#     1.0, 1.5 and 2.0 s and 5 cm outside / 3 cm below the hip joints from
#     3.0 s; with --hand-contacts the target's wrist distance and
#     wrist-to-hip-joint offset (in hips heights) equal the source's within
#     1 % of the hips height on an A-pose avatar with 20 % longer arms, on
#     a bulky one and on one with 10 % shorter arms (the hips reached with
#     the shoulders turned); a goal out of reach (30 % shorter arms on the
#     hips) is a warning and counted in --json;
#   - the push-up clip (hands on the floor): the target's wrists at the
#     source's height above the target's floor (within 0.5 %), not sliding
#     (0.02 hips heights/s), where the rule puts them through it or above;
#   - the sole from the mesh (mesh_feet.glb): --json's target_sole equals the
#     foot boxes' geometry; with the shared Xbot walk the boxes' corners stay
#     on the floor (not with the joints' sole);
#   - a BVH capture whose feet go below its rest floor: contacts found and kept.
set -u
rigkit=$1
build=${3:-.}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli_lib.sh"   # $tmp, counters, expect, expect_text

command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed (avatar generator, JSON checks)"; exit 77; }
python3 "$here/../bench/make_contact_avatars.py" "$tmp/av" || { echo "FAIL: make_contact_avatars.py"; exit 1; }
"$rigkit" sample "$tmp/s" >/dev/null || { echo "FAIL: rigkit sample"; exit 1; }

pose() { # pose FILE OUT.json [times]: world positions of every node
	local f=$1 out=$2
	shift 2
	"$rigkit" pose "$f" --json "$@" >"$out"
}

check() { # check NAME PYTHON-FILE ARGS...: the script exits 0 when it holds
	local name=$1
	shift
	if python3 "$@" >"$tmp/check.out" 2>&1; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL $name"; sed 's/^/  /' "$tmp/check.out" | head -8
	fi
}

cat >"$tmp/feet.py" <<'EOF'
import json, math, sys
rest, res, mode = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
r = rest['samples'][0]['nodes']
def p(n, name):
    v = n[name]['position']
    return v
def find(n, suffix):
    for k in n:
        if k.split(':')[-1] == suffix:
            return k
    raise SystemExit('no node ' + suffix)
names = {s: find(r, s) for s in ('Hips', 'LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase')}
floor = min(p(r, names[s])[1] for s in ('LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase'))
hh = p(r, names['Hips'])[1] - floor
samples = res['samples']
def at(t0, t1, joint):
    return [p(s['nodes'], names[joint]) for s in samples if t0 - 1e-6 <= s['time'] <= t1 + 1e-6]
worst_spread = worst_height = worst_below = 0.0
for side, (t0, t1) in (('Left', (0.05, 0.55)), ('Right', (0.55, 0.95))):
    balls = at(t0, t1, side + 'ToeBase')
    rest_y = p(r, names[side + 'ToeBase'])[1]
    for b in balls:
        worst_spread = max(worst_spread, math.dist((b[0], b[2]), (balls[0][0], balls[0][2])) / hh)
        worst_height = max(worst_height, abs(b[1] - rest_y) / hh)
for s in samples:
    for j in ('LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase'):
        worst_below = max(worst_below, (p(r, names[j])[1] - p(s['nodes'], names[j])[1]) / hh)
print('planted ball moves %.5f, off its rest height %.5f, a foot joint below rest %.5f hips heights' % (
    worst_spread, worst_height, worst_below))
ok = worst_spread < 0.002 and worst_height < 0.005 and worst_below < 0.005
sys.exit(0 if ok == (mode == 'holds') else 1)
EOF

times=()
for k in $(seq 0 30); do times+=(--time "$(python3 -c "print($k / 30)")"); done

for t in "$tmp/s/avatar.glb" "$tmp/av/long_legs.glb" "$tmp/av/short_legs.glb" "$tmp/av/big_feet.glb" \
	"$tmp/av/small_feet.glb" "$tmp/av/a_pose.glb" "$tmp/av/bulky.glb"; do
	n=$(basename "$t" .glb)
	expect "walk-$n" 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$t" "$tmp/$n.glb" --clip Walk --drop-target-clips
	pose "$t" "$tmp/$n.rest.json"
	pose "$tmp/$n.glb" "$tmp/$n.json" "${times[@]}"
	check "walk-$n-feet-planted" "$tmp/feet.py" "$tmp/$n.rest.json" "$tmp/$n.json" holds
done
# the rule alone leaves the big feet sliding or through the floor (so the check can fail)
expect walk-big-feet-off 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/av/big_feet.glb" "$tmp/bf0.glb" --clip Walk \
	--drop-target-clips --contacts off
pose "$tmp/bf0.glb" "$tmp/bf0.json" "${times[@]}"
check walk-big-feet-off-fails "$tmp/feet.py" "$tmp/big_feet.rest.json" "$tmp/bf0.json" fails

# --root in-place: the planted feet move back with the treadmill, not forward with the source
expect walk-in-place 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/ip.glb" --clip Walk \
	--drop-target-clips --root in-place --json
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clips'][0]['contacts']; sys.exit(c['unreached_goals'] != 0)" \
	"$tmp/out" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL walk-in-place-reached"; }

# JSON report: the source's contact runs and the solve's counts
expect walk-json 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/j.glb" --clip Walk --json
check walk-json-contacts - "$tmp/out" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))['clips'][0]['contacts']
assert c['mode'] == 'on' and c['unreached_goals'] == 0, c
runs = c['source']['leftToes']
# the left ball is down from heel strike (0 s) to toe-off (0.6 s), with hysteresis
assert any(a <= 0.05 and 0.5 <= b <= 0.7 for a, b in runs), runs
assert all(not (a <= 0.8 <= b) for a, b in runs), runs          # swing
assert c['source']['handsTogether'] == [] and 'leftFoot' in c['solved_bones'] or 'leftUpperLeg' in c['solved_bones'], c
EOF
expect walk-json-off 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/j0.glb" --clip Walk --json \
	--contacts off
expect_text walk-json-off-mode "$tmp/out" '"mode": "off"'
expect bad-contacts 1 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/s/avatar.glb" "$tmp/x.glb" --contacts maybe

# hands
cat >"$tmp/hands.py" <<'EOF'
import json, math, sys
srest, sres, trest, tres = (json.load(open(a)) for a in sys.argv[1:5])
def hips_height(n):
    return n['Hips']['position'][1] - min(n[j]['position'][1] for j in ('LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase'))
hs, ht = hips_height(srest['samples'][0]['nodes']), hips_height(trest['samples'][0]['nodes'])
worst = 0.0
for s, t in zip(sres['samples'], tres['samples']):
    a, b = s['nodes'], t['nodes']
    def v(n, x, y, h):
        return [(n[x]['position'][i] - n[y]['position'][i]) / h for i in range(3)]
    if s['time'] < 2.5:     # the claps: the wrists' offset from each other
        e = math.dist(v(a, 'LeftHand', 'RightHand', hs), v(b, 'LeftHand', 'RightHand', ht))
    else:                   # on the hips: each wrist from its hip joint
        e = max(math.dist(v(a, side + 'Hand', side + 'UpLeg', hs), v(b, side + 'Hand', side + 'UpLeg', ht))
                for side in ('Left', 'Right'))
    worst = max(worst, e)
print('hand contact error %.5f hips heights' % worst)
sys.exit(0 if (worst < 0.01) == (sys.argv[5] == 'holds') else 1)
EOF
htimes=(--time 1.0 --time 1.5 --time 2.0 --time 3.0 --time 3.5 --time 4.0)
pose "$tmp/av/hands.glb" "$tmp/hands.src.json" "${htimes[@]}"
pose "$tmp/av/base.glb" "$tmp/hands.srest.json"
for n in a_pose bulky short_arms; do
	expect "hands-$n" 0 -- "$rigkit" retarget "$tmp/av/hands.glb" "$tmp/av/$n.glb" "$tmp/h_$n.glb" --hand-contacts --drop-target-clips
	pose "$tmp/av/$n.glb" "$tmp/h_$n.rest.json"
	pose "$tmp/h_$n.glb" "$tmp/h_$n.json" "${htimes[@]}"
	check "hands-$n-kept" "$tmp/hands.py" "$tmp/hands.srest.json" "$tmp/hands.src.json" "$tmp/h_$n.rest.json" "$tmp/h_$n.json" holds
done
expect hands-a_pose-without 0 -- "$rigkit" retarget "$tmp/av/hands.glb" "$tmp/av/a_pose.glb" "$tmp/h0.glb" --drop-target-clips
pose "$tmp/h0.glb" "$tmp/h0.json" "${htimes[@]}"
check hands-a_pose-without-fails "$tmp/hands.py" "$tmp/hands.srest.json" "$tmp/hands.src.json" "$tmp/h_a_pose.rest.json" \
	"$tmp/h0.json" fails
# the short arms reach the hips with the shoulders turned: reached, the shoulders among the solved bones
expect hands-short-arms-json 0 -- "$rigkit" retarget "$tmp/av/hands.glb" "$tmp/av/short_arms.glb" "$tmp/hs.glb" \
	--hand-contacts --drop-target-clips --json
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clips'][0]['contacts']; sys.exit(not (c['unreached_goals'] == 0 and 'leftShoulder' in c['solved_bones'] and 'rightShoulder' in c['solved_bones']))" \
	"$tmp/out" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL hands-short-arms-json-reached"; }
# out of reach (30 % shorter arms on the hips, more than the shoulder's turn makes up): reported, not hidden
expect hands-tiny-arms 0 -- "$rigkit" retarget "$tmp/av/hands.glb" "$tmp/av/tiny_arms.glb" "$tmp/ht.glb" --hand-contacts \
	--drop-target-clips
expect_text hands-tiny-arms-warning "$tmp/err" "warning: contact solve: the leftHand's goal is out of reach"
expect hands-tiny-arms-json 0 -- "$rigkit" retarget "$tmp/av/hands.glb" "$tmp/av/tiny_arms.glb" "$tmp/ht.glb" \
	--hand-contacts --drop-target-clips --json
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clips'][0]['contacts']; sys.exit(not (c['unreached_goals'] > 0 and c['max_contact_miss'] > 0.01))" \
	"$tmp/out" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL hands-tiny-arms-json-unreached"; }

# hands on the floor (the push-up clip: wrists 1.5 cm above the floor, still):
# the target's wrists at the source's height above the target's floor, not
# sliding, from the rule's A-pose (arms 20 % longer, through the floor), short
# legs (through it) and short arms (above it); the rule alone fails the check
cat >"$tmp/hands_floor.py" <<'EOF'
import json, math, sys
srest, sres, trest, tres = (json.load(open(a)) for a in sys.argv[1:5])
def nodes(d):
    return d['samples'][0]['nodes']
def key(n, s):
    return [x for x in n if x.split(':')[-1] == s][0]
def floor_hh(n):   # the floor and hips height of the character frame (docs/retarget.md)
    fl = min(n[key(n, j)]['position'][1] for j in ('LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase'))
    return fl, n[key(n, 'Hips')]['position'][1] - fl
fs, hs = floor_hh(nodes(srest))
ft, ht = floor_hh(nodes(trest))
below = height = slide = 0.0
for side in ('LeftHand', 'RightHand'):
    prev = None
    for s, t in zip(sres['samples'], tres['samples']):
        a, b = s['nodes'][key(s['nodes'], side)]['position'], t['nodes'][key(t['nodes'], side)]['position']
        ea, eb = (a[1] - fs) / hs, (b[1] - ft) / ht
        below, height = max(below, -eb), max(height, abs(eb - ea))
        if prev:
            slide = max(slide, math.dist((b[0], b[2]), (prev[0][0], prev[0][2])) / ht / (t['time'] - prev[1]))
        prev = (b, t['time'])
print('hands on the floor: %.5f below it, %.5f off the source height, slide %.5f hips heights/s' % (below, height, slide))
ok = below < 0.005 and height < 0.005 and slide < 0.02
sys.exit(0 if ok == (sys.argv[5] == 'holds') else 1)
EOF
ptimes=()
for k in $(seq 0 90); do ptimes+=(--time "$(python3 -c "print($k / 30)")"); done
pose "$tmp/av/pushup.glb" "$tmp/pu.src.json" "${ptimes[@]}"
for n in a_pose short_legs short_arms; do
	expect "pushup-$n" 0 -- "$rigkit" retarget "$tmp/av/pushup.glb" "$tmp/av/$n.glb" "$tmp/pu_$n.glb" --drop-target-clips --json
	python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clips'][0]['contacts']; sys.exit(not (c['source']['leftHand'] == [[0, 3]] and c['unreached_goals'] == 0 and 'leftUpperArm' in c['solved_bones']))" \
		"$tmp/out" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL pushup-$n-json"; }
	pose "$tmp/av/$n.glb" "$tmp/pu_$n.rest.json"
	pose "$tmp/pu_$n.glb" "$tmp/pu_$n.json" "${ptimes[@]}"
	check "pushup-$n-hands-on-floor" "$tmp/hands_floor.py" "$tmp/hands.srest.json" "$tmp/pu.src.json" "$tmp/pu_$n.rest.json" \
		"$tmp/pu_$n.json" holds
done
expect pushup-a_pose-off 0 -- "$rigkit" retarget "$tmp/av/pushup.glb" "$tmp/av/a_pose.glb" "$tmp/pu0.glb" --drop-target-clips \
	--contacts off
pose "$tmp/pu0.glb" "$tmp/pu0.json" "${ptimes[@]}"
check pushup-a_pose-off-fails "$tmp/hands_floor.py" "$tmp/hands.srest.json" "$tmp/pu.src.json" "$tmp/pu_a_pose.rest.json" \
	"$tmp/pu0.json" fails

# the sole from the mesh (mesh_feet.glb: foot boxes from 6 cm behind the ankle
# to 3 cm beyond the toe tip, bottom 1 cm below the lowest joint; hips height
# 0.97 m above that joint): --json reports what was measured, by hand from the
# boxes: 16 foot vertices, ankle 0.08 m above the sole, heel 0.06 m behind
# it, toe 0.23 m in front (hips heights); without the mesh the joints: ankle
# 0.07 above the lowest joint, heel under the ankle, toe tip 0.20 in front
expect mesh-sole-json 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/av/mesh_feet.glb" "$tmp/mf.glb" --clip Walk \
	--drop-target-clips --json
cp "$tmp/out" "$tmp/mf.out"
expect joint-sole-json 0 -- "$rigkit" retarget "$tmp/s/source.glb" "$tmp/av/mesh_feet_joints.glb" "$tmp/mfj.glb" --clip Walk \
	--drop-target-clips --json
check mesh-sole-measured - "$tmp/mf.out" "$tmp/out" <<'EOF'
import json, sys
m, j = (json.load(open(a))['clips'][0]['contacts']['target_sole'] for a in sys.argv[1:3])
hh = 0.97
for side in ('left', 'right'):
    a, b = m[side], j[side]
    assert a['from'] == 'mesh' and a['mesh_vertices'] == 16, a
    for k, v in (('ankle_height', 0.08), ('heel', 0.06), ('toe', 0.23)):
        assert abs(a[k] - v / hh) < 1e-6, (side, k, a[k], v / hh)
    assert b['from'] == 'joints' and b['mesh_vertices'] == 0, b
    for k, v in (('ankle_height', 0.07), ('heel', 0.0), ('toe', 0.20)):
        assert abs(b[k] - v / hh) < 1e-6, (side, k, b[k], v / hh)
EOF
# ... and used: the Xbot walk (its toes bend while down) onto the same
# skeleton keeps the mesh's heel and toe corners (marker nodes at the boxes'
# bottom corners) on the floor with the mesh, not with the joints' sole
xbot=${2:-$here/../../shared}/assets/Xbot.glb
if [ -f "$xbot" ]; then
	cat >"$tmp/marks.py" <<'EOF'
import json, sys
rest, res, mode = json.load(open(sys.argv[1]))['samples'][0]['nodes'], json.load(open(sys.argv[2]))['samples'], sys.argv[3]
def key(n, s):
    return [x for x in n if x.split(':')[-1] == s][0]
hh = rest[key(rest, 'Hips')]['position'][1] - min(rest[key(rest, j)]['position'][1] for j in ('LeftFoot', 'LeftToeBase'))
below = 0.0
for m in ('LeftHeelMark', 'RightHeelMark', 'LeftToeMark', 'RightToeMark'):
    for s in res:
        below = max(below, (rest[key(rest, m)]['position'][1] - s['nodes'][key(s['nodes'], m)]['position'][1]) / hh)
print('mesh sole corners at most %.5f hips heights below the floor' % below)
sys.exit(0 if (below < 0.005) == (mode == 'holds') else 1)
EOF
	xtimes=()
	for k in $(seq 0 32); do xtimes+=(--time "$(python3 -c "print($k / 30)")"); done
	pose "$tmp/av/mesh_feet.glb" "$tmp/mf.rest.json"
	for n in mesh_feet mesh_feet_joints; do
		expect "xbot-walk-$n" 0 -- "$rigkit" retarget "$xbot" "$tmp/av/$n.glb" "$tmp/x_$n.glb" --clip walk --drop-target-clips
		pose "$tmp/x_$n.glb" "$tmp/x_$n.json" "${xtimes[@]}"
	done
	check xbot-walk-mesh-sole "$tmp/marks.py" "$tmp/mf.rest.json" "$tmp/x_mesh_feet.json" holds
	check xbot-walk-joint-sole-fails "$tmp/marks.py" "$tmp/mf.rest.json" "$tmp/x_mesh_feet_joints.json" fails
else
	echo "SKIP the mesh sole on the Xbot walk: no $xbot"
fi

# rigkit compare prints the contact measures
expect compare-contacts 0 -- "$rigkit" compare "$tmp/s/source.glb" "$tmp/big_feet.glb" --clip-a Walk --json
check compare-contacts-json - "$tmp/out" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))['contacts']
assert c['a_contact_frames'] > 20 and c['agreement'] >= 0.98, c
assert c['floor_penetration_hips'] < 0.005 and c['foot_slide_hips_per_s'] < 0.02, c
EOF
expect compare-contacts-text 0 -- "$rigkit" compare "$tmp/s/source.glb" "$tmp/bf0.glb" --clip-a Walk
expect_text compare-contacts-line "$tmp/out" '^contacts \(a = source\): [0-9]+ foot/toe contact frames in a'

# a capture whose feet go below its rest floor (the CMU-style BVH fixture):
# the floor is found from the clip, contacts are found and kept
cmu=$here/fixtures/bvh/cmu_walk.bvh
expect bvh-walk 0 -- "$rigkit" retarget "$cmu" "$tmp/av/big_feet.glb" "$tmp/bvh.glb" --drop-target-clips
expect bvh-compare 0 -- "$rigkit" compare "$cmu" "$tmp/bvh.glb" --json
check bvh-contacts-kept - "$tmp/out" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))['contacts']
assert c['a_contact_frames'] > 0 and c['agreement'] >= 0.98, c
assert c['floor_penetration_hips'] < 0.005 and c['foot_slide_hips_per_s'] < 0.02, c
EOF2

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
