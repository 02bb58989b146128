// tests/node/bvh_check.mjs - checks rigkit's BVH reader and writer against
// three.js BVHLoader, which parses the file independently.
//
//   node bvh_check.mjs RIGKIT LABEL FILE.bvh MODE [LABEL FILE.bvh MODE ...]
//
// For every frame f of FILE.bvh (three.js time f * Frame Time), the world
// position of every joint is composed directly from BVHLoader's skeleton
// (bone offsets) and its clip (the position and quaternion keys of frame f,
// set on the bones, then Object3D.updateMatrixWorld), and compared with what
// `RIGKIT pose ... --joints --json` evaluates (anim.h, the exact reference):
//   MODE "self": rigkit reads FILE.bvh itself; every node, End Sites
//     included, is matched by its place in the hierarchy (three.js names
//     every End Site "ENDSITE"), the names of the others must agree.
//   MODE "source=REF@CLIP": FILE.bvh was written by rigkit from clip CLIP of
//     REF (FBX, glTF or BVH); REF is evaluated at time_begin + f * Frame
//     Time in centimetres, right-handed Y up (the writer's output space:
//     --unit-meters 0.01 --axes right_handed_y_up) and every joint of the
//     BVH except End Sites is matched by name.
// Tolerance: 1e-6 of the skeleton height (largest extent of the joints'
// rest positions in three.js), at every frame. Track values are kept as
// doubles (KeyframeTrack buffer types set to Float64Array before parsing).
// The same frames are also played with AnimationMixer.setTime (key times),
// which must agree with the direct composition (when the names bind).
// Exit code 1 when a check fails, 2 on bad input.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as THREE from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';

const REL_TOL = 1e-6;

// Keyframe tracks store Float32Array by default, which alone costs ~1e-7 of
// the skeleton's size; keep three.js's values in doubles, as parsed.
THREE.KeyframeTrack.prototype.TimeBufferType = Float64Array;
THREE.KeyframeTrack.prototype.ValueBufferType = Float64Array;

const args = process.argv.slice(2);
if (args.length < 4 || (args.length - 1) % 3 !== 0) {
	console.error('usage: node bvh_check.mjs RIGKIT LABEL FILE.bvh MODE [LABEL FILE.bvh MODE ...]');
	process.exit(2);
}
const rigkit = args[0];

function run(argv) {
	const r = spawnSync(rigkit, argv, { encoding: 'utf8', maxBuffer: 1 << 30 });
	if (r.status !== 0) throw new Error(`rigkit ${argv.slice(0, 3).join(' ')} ... failed (exit ${r.status}): ${r.stderr}`);
	return JSON.parse(r.stdout);
}

// rigkit's world positions: samples[f] = [[name, [x, y, z]], ...] in node order.
function rigkitPoses(file, clip, begin, times, convert) {
	const argv = ['pose', file, '--joints', '--json'];
	if (clip) argv.push('--clip', clip);
	if (convert) argv.push('--unit-meters', '0.01', '--axes', 'right_handed_y_up');
	for (const t of times) argv.push('--time', String(begin + t));
	const doc = run(argv);
	return doc.samples.map((s) => Object.entries(s.nodes).map(([n, v]) => [n, v.position]));
}

let failures = 0;
for (let i = 1; i < args.length; i += 3) {
	const [label, file, mode] = args.slice(i, i + 3);
	const report = [];
	try {
		const text = fs.readFileSync(file, 'utf8');
		const loaded = new BVHLoader().parse(text);
		const bones = loaded.skeleton.bones;
		const root = bones[0];
		root.updateMatrixWorld(true);
		const box = new THREE.Box3();
		for (const b of bones) box.expandByPoint(b.getWorldPosition(new THREE.Vector3()));
		const size = box.getSize(new THREE.Vector3());
		const height = Math.max(size.x, size.y, size.z);
		const tol = REL_TOL * height;
		const byName = new Map();
		for (const b of bones) if (b.name !== 'ENDSITE') byName.set(b.name, b);
		const tracks = loaded.clip.tracks;
		const frames = tracks.length ? tracks[0].times.length : 0;
		const times = frames ? [...tracks[0].times] : [];
		if (!frames) throw new Error('BVHLoader found no frames');

		let expected, matchByName;
		if (mode === 'self') {
			expected = rigkitPoses(file, null, 0, times, false);
			matchByName = false;
		} else if (mode.startsWith('source=')) {
			const at = mode.lastIndexOf('@');
			const ref = mode.slice(7, at), clip = mode.slice(at + 1);
			const info = run(['info', ref, '--json']);
			const c = info.clips.find((x) => x.name === clip);
			if (!c) throw new Error(`${ref} has no clip '${clip}'`);
			expected = rigkitPoses(ref, clip, c.time_begin, times, true);
			matchByName = true;
		} else {
			throw new Error(`unknown mode ${mode}`);
		}
		if (!matchByName && expected[0].length !== bones.length)
			throw new Error(`rigkit has ${expected[0].length} joints, three.js ${bones.length}`);

		// AnimationMixer binds tracks by name; names with characters three.js
		// reserves in track paths (':' of "mixamorig:Hips", '.', '/', '[', ']')
		// do not bind, so the mixer check is skipped for such files.
		const bindable = [...byName.keys()].every((n) => !/[:./[\]]/.test(n));
		const mixer = bindable ? new THREE.AnimationMixer(root) : null;
		const action = bindable ? mixer.clipAction(loaded.clip) : null;
		if (action) {
			action.setLoop(THREE.LoopOnce, 1);
			action.clampWhenFinished = true;
		}
		let worst = 0, worstAt = '', worstMixer = 0, compared = 0;
		for (let f = 0; f < frames; f++) {
			for (const tr of tracks) {
				const [name, prop] = tr.name.split('.');
				const b = byName.get(name);
				if (!b) continue;
				if (prop === 'position') b.position.fromArray(tr.values, 3 * f);
				else b.quaternion.fromArray(tr.values, 4 * f);
			}
			root.updateMatrixWorld(true);
			const direct = bones.map((b) => b.getWorldPosition(new THREE.Vector3()));
			if (action) {
				action.reset().play();
				mixer.setTime(times[f]);
				root.updateMatrixWorld(true);
				bones.forEach((b, k) => { worstMixer = Math.max(worstMixer, b.getWorldPosition(new THREE.Vector3()).distanceTo(direct[k])); });
			}

			const exp = expected[f];
			const expMap = new Map(exp);
			bones.forEach((b, k) => {
				let want;
				if (matchByName) {
					if (b.name === 'ENDSITE') return;
					want = expMap.get(b.name);
					if (!want) throw new Error(`rigkit has no joint '${b.name}'`);
				} else {
					const [n, p] = exp[k];
					if (b.name !== 'ENDSITE' && n !== b.name) throw new Error(`joint ${k}: rigkit '${n}', three.js '${b.name}'`);
					want = p;
				}
				const e = direct[k].distanceTo(new THREE.Vector3(...want));
				compared++;
				if (!(e <= worst)) { worst = e; worstAt = `frame ${f} joint ${b.name === 'ENDSITE' ? `#${k} (End Site)` : b.name}`; }
			});
		}
		if (!(worst <= tol)) report.push(`position off by ${worst.toExponential(3)} (${(worst / height).toExponential(3)} heights) at ${worstAt}`);
		if (!(worstMixer <= tol)) report.push(`AnimationMixer differs from the direct composition by ${worstMixer.toExponential(3)}`);
		console.log(`${label}: ${report.length ? 'FAIL' : 'ok'}: ${bones.length} joints, ${frames} frames, height ${height.toPrecision(4)}, `
			+ `${compared} positions, worst ${worst.toExponential(2)} = ${(worst / height).toExponential(2)} heights (tolerance ${REL_TOL})`
			+ (bindable ? '' : '; AnimationMixer skipped (joint names three.js cannot bind)'));
	} catch (e) {
		report.push(e && e.message ? e.message : String(e));
		console.log(`${label}: FAIL`);
	}
	for (const r of report) console.log(`  ${r}`);
	if (report.length) failures++;
}
process.exit(failures ? 1 : 0);
