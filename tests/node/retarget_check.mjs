// tests/node/retarget_check.mjs - checks `rigkit retarget` results with
// three.js (GLTFLoader + AnimationMixer), independently of rigkit's own
// evaluation.
//
//   node retarget_check.mjs LABEL SOURCE.glb SOURCE_CLIP TARGET.glb RESULT.glb RESULT_CLIP [LABEL ...]
//
// SOURCE may also be a .bvh file, read with three.js BVHLoader (its one
// clip takes the name SOURCE_CLIP). RIGKIT_ANGLE_TOL (radians) overrides
// the bone direction tolerance.
//
// Groups of six arguments, one per case: SOURCE.glb holds the clip that was
// retargeted (an FBX source converted with `rigkit convert` first: three.js
// does not load FBX reliably), TARGET.glb is the original target character
// (its rest pose is the reference), RESULT.glb is what `rigkit retarget`
// wrote (the target with the new clip RESULT_CLIP).
//
// Character frame of each skeleton, from its rest pose (include/rigkit/
// retarget.h, CHARACTER FRAME): up = +Y (both files are glTF: Y-up), left =
// LeftUpLeg - RightUpLeg made horizontal, forward = left x up; hips height =
// rest hips y minus the lowest rest foot/toe joint y. Nothing about facing
// or units is hard-coded (Soldier.glb faces -Z, readyplayer.me +Z; Mixamo
// files are in cm under a 0.01 node, others in m).
//
// Both clips are played with AnimationMixer at every key time of RESULT_CLIP
// (which rigkit bakes at the source's frame rate) and at the midpoints
// between keys (a baked local rotation is the source's conjugated by
// constant rotations, so slerp between keys keeps the rule). At each time,
// with bone world positions from Object3D.getWorldPosition:
//  - direction: for each bone pair (LeftArm -> LeftForeArm, Spine -> Spine1,
//    ...), the angle between the source's and the result's bone direction,
//    each in its own character frame, must be < 1e-3 rad;
//  - hips: the result's hips displacement from the target's rest hips must be
//    the source's (from the source's rest, in character frame axes) times
//    target hips height / source hips height, within 1e-3 target hips heights.
// Also checked: the result's static pose is the target's rest (1e-5 hips
// heights) and the result clip has 20+ keys.
// Bones are found by name: three.js strips ':' on load ("mixamorig:LeftArm"
// -> "mixamorigLeftArm"), so a leading "mixamorig" is removed first.
// Exit code 1 when a check fails, 2 on bad input.
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';

const ANGLE_TOL = Number(process.env.RIGKIT_ANGLE_TOL) || 1e-3;   // radians
const HIPS_TOL = 1e-3;    // target hips heights
const REST_TOL = 1e-5;    // target hips heights
const MIN_KEYS = 20;

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 6 !== 0) {
	console.error('usage: node retarget_check.mjs LABEL SOURCE.glb SOURCE_CLIP TARGET.glb RESULT.glb RESULT_CLIP [...]');
	process.exit(2);
}

// A BVH source as a glTF-like { scene, animations }. The rest pose is
// rigkit's (docs/bvh.md): a root with OFFSET 0 rests at its first frame's
// position (BVHLoader leaves it at the origin, the feet below the floor).
function parseBvh(file, clipName) {
	const loaded = new BVHLoader().parse(fs.readFileSync(file, 'utf8'));
	const scene = new THREE.Group();
	const root = loaded.skeleton.bones[0];
	const track = loaded.clip.tracks.find((t) => t.name === `${root.name}.position`);
	if (track && root.position.lengthSq() === 0) root.position.fromArray(track.values, 0);
	scene.add(root);
	loaded.clip.name = clipName;
	return Promise.resolve({ scene, animations: [loaded.clip] });
}

function parseGlb(file) {
	const bytes = fs.readFileSync(file);
	const loader = new GLTFLoader();
	// No image decoding in Node: every texture becomes an empty Texture.
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	return new Promise((resolve, reject) => loader.parse(ab, '', resolve, reject));
}

// Bone pairs (parent joint -> the child joint its humanoid bone points to).
// `required` pairs must exist in every skeleton; finger pairs are compared
// when both skeletons have them.
const SIDES = ['Left', 'Right'];
const REQUIRED_PAIRS = [
	['Hips', 'Spine'], ['Spine', 'Spine1'], ['Spine1', 'Spine2'], ['Spine2', 'Neck'], ['Neck', 'Head'],
];
const FINGER_PAIRS = [];
for (const s of SIDES) {
	REQUIRED_PAIRS.push(
		[`${s}Shoulder`, `${s}Arm`], [`${s}Arm`, `${s}ForeArm`], [`${s}ForeArm`, `${s}Hand`],
		[`${s}UpLeg`, `${s}Leg`], [`${s}Leg`, `${s}Foot`], [`${s}Foot`, `${s}ToeBase`]);
	for (const f of ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'])
		FINGER_PAIRS.push([`${s}Hand${f}1`, `${s}Hand${f}2`], [`${s}Hand${f}2`, `${s}Hand${f}3`]);
}
const FEET = ['LeftFoot', 'RightFoot', 'LeftToeBase', 'RightToeBase'];

// name (without "mixamorig") -> Object3D; bones win over other nodes.
function boneMap(gltf) {
	const map = new Map();
	gltf.scene.traverse((o) => {
		if (!o.name) return;
		const key = o.name.replace(/^mixamorig[:_]?/, '');
		const prev = map.get(key);
		if (!prev || (!prev.isBone && o.isBone)) map.set(key, o);
	});
	return map;
}

function worldPos(map, name) {
	const o = map.get(name);
	return o ? o.getWorldPosition(new THREE.Vector3()) : null;
}

// Character frame from the current (rest) pose: unit axes in world space,
// hips rest position and hips height (world units).
function charFrame(label, map) {
	for (const n of ['Hips', 'Head', 'LeftUpLeg', 'RightUpLeg'])
		if (!map.has(n)) throw new Error(`${label}: no bone ${n}`);
	const up = new THREE.Vector3(0, 1, 0);
	const hips = worldPos(map, 'Hips');
	const head = worldPos(map, 'Head');
	const lul = worldPos(map, 'LeftUpLeg'), rul = worldPos(map, 'RightUpLeg');
	const bodyUp = head.clone().sub(lul.clone().add(rul).multiplyScalar(0.5)).normalize();
	if (bodyUp.angleTo(up) > THREE.MathUtils.degToRad(30))
		throw new Error(`${label}: rest skeleton is not upright (+Y): upper legs -> head ${bodyUp.toArray()}`);
	const left = lul.clone().sub(rul);
	left.addScaledVector(up, -left.dot(up));
	if (left.length() < 1e-6) throw new Error(`${label}: left and right upper legs coincide`);
	left.normalize();
	const forward = left.clone().cross(up);
	let low = Infinity;
	for (const n of FEET) {
		const p = worldPos(map, n);
		if (p) low = Math.min(low, p.y);
	}
	const height = hips.y - low;
	if (!(height > 0)) throw new Error(`${label}: rest feet not below the hips`);
	return { left, up, forward, hips, height };
}

// World vector -> character frame components (left, up, forward).
function toChar(f, v) {
	return new THREE.Vector3(v.dot(f.left), v.dot(f.up), v.dot(f.forward));
}
// Character frame components -> world vector.
function fromChar(f, c) {
	return new THREE.Vector3().addScaledVector(f.left, c.x).addScaledVector(f.up, c.y).addScaledVector(f.forward, c.z);
}

function angleBetween(a, b) {
	return Math.atan2(a.clone().cross(b).length(), a.dot(b));
}

function findClip(gltf, name, label) {
	// The last one of that name: rigkit appends the new clip after the target's own.
	const clips = gltf.animations.filter((c) => c.name === name);
	if (!clips.length)
		throw new Error(`${label}: no animation '${name}' (has: ${gltf.animations.map((c) => c.name).join(', ') || 'none'})`);
	return clips[clips.length - 1];
}

function fmtDir(f, v) {
	return toChar(f, v).toArray().map((x) => x.toFixed(3)).join(',');
}

let failures = 0;
for (let i = 0; i < args.length; i += 6) {
	const [label, srcFile, srcClipName, tgtFile, resFile, resClipName] = args.slice(i, i + 6);
	const report = [];
	try {
		const srcLoad = srcFile.toLowerCase().endsWith('.bvh') ? parseBvh(srcFile, srcClipName) : parseGlb(srcFile);
		const [src, tgt, res] = await Promise.all([srcLoad, parseGlb(tgtFile), parseGlb(resFile)]);
		for (const g of [src, tgt, res]) g.scene.updateMatrixWorld(true);
		const sMap = boneMap(src), tMap = boneMap(tgt), rMap = boneMap(res);
		const fs_ = charFrame(`${label} source ${path.basename(srcFile)}`, sMap);
		const ft = charFrame(`${label} target ${path.basename(tgtFile)}`, tMap);

		// The result's static pose is the target's rest.
		let restErr = 0, restAt = '';
		for (const [name, o] of tMap) {
			if (!o.isBone && !FEET.includes(name) && name !== 'Hips') continue;
			const p = worldPos(rMap, name);
			if (!p) { report.push(`result lacks the target's node ${name}`); continue; }
			const e = p.distanceTo(o.getWorldPosition(new THREE.Vector3())) / ft.height;
			if (e > restErr) { restErr = e; restAt = name; }
		}
		if (restErr > REST_TOL) report.push(`result rest pose differs from the target's: ${restAt} off by ${restErr.toExponential(3)} hips heights`);

		const pairs = [];
		for (const p of REQUIRED_PAIRS) {
			for (const [m, who] of [[sMap, 'source'], [rMap, 'result']])
				for (const n of p) if (!m.has(n)) throw new Error(`${who} has no bone ${n}`);
			pairs.push(p);
		}
		let fingerPairs = 0;
		for (const p of FINGER_PAIRS)
			if (p.every((n) => sMap.has(n) && rMap.has(n))) { pairs.push(p); fingerPairs++; }

		const srcClip = findClip(src, srcClipName, 'source');
		const resClip = findClip(res, resClipName, 'result');
		const keyTimes = [...resClip.tracks[0].times];
		for (const tr of resClip.tracks)
			if (tr.times.length !== keyTimes.length) report.push(`track ${tr.name}: ${tr.times.length} keys, not ${keyTimes.length}`);
		if (keyTimes.length < MIN_KEYS) report.push(`only ${keyTimes.length} keys (need ${MIN_KEYS}+)`);
		const hipsTrack = resClip.tracks.find((tr) => tr.name.endsWith('.position') && tr.name.replace(/^mixamorig/, '').startsWith('Hips.'));
		if (!hipsTrack) report.push('the result clip has no hips translation track');

		const sMixer = new THREE.AnimationMixer(src.scene), rMixer = new THREE.AnimationMixer(res.scene);
		const sAction = sMixer.clipAction(srcClip), rAction = rMixer.clipAction(resClip);
		for (const a of [sAction, rAction]) {
			a.setLoop(THREE.LoopOnce, 1);
			a.clampWhenFinished = true;
		}

		const evalAt = (t) => {
			for (const [m, a] of [[sMixer, sAction], [rMixer, rAction]]) {
				a.reset().play();
				m.setTime(t);
			}
			src.scene.updateMatrixWorld(true);
			res.scene.updateMatrixWorld(true);
			let worstAngle = 0, angleAt = '';
			for (const [a, b] of pairs) {
				const ds = worldPos(sMap, b).sub(worldPos(sMap, a)).normalize();
				const dr = worldPos(rMap, b).sub(worldPos(rMap, a)).normalize();
				const e = angleBetween(toChar(fs_, ds), toChar(ft, dr));
				if (!(e <= worstAngle)) { worstAngle = e; angleAt = `${a}->${b} (source ${fmtDir(fs_, ds)}, result ${fmtDir(ft, dr)})`; }
			}
			const sDisp = toChar(fs_, worldPos(sMap, 'Hips').sub(fs_.hips));
			const want = fromChar(ft, sDisp.multiplyScalar(ft.height / fs_.height));
			const got = worldPos(rMap, 'Hips').sub(ft.hips);
			const hipsErr = got.distanceTo(want) / ft.height;
			return { worstAngle, angleAt, hipsErr, travel: got.length() / ft.height };
		};

		// Every key time of the result and every midpoint between keys.
		const times = [];
		keyTimes.forEach((t, k) => {
			if (k > 0) times.push(0.5 * (keyTimes[k - 1] + t));
			times.push(t);
		});
		let worstAngle = 0, worstHips = 0, maxTravel = 0, angleAt = '', hipsAt = 0;
		for (const t of times) {
			const r = evalAt(t);
			maxTravel = Math.max(maxTravel, r.travel);
			if (!(r.worstAngle <= worstAngle)) { worstAngle = r.worstAngle; angleAt = `t=${t.toFixed(4)} ${r.angleAt}`; }
			if (!(r.hipsErr <= worstHips)) { worstHips = r.hipsErr; hipsAt = t; }
		}
		if (!(worstAngle < ANGLE_TOL)) report.push(`bone direction off by ${worstAngle.toExponential(3)} rad (tolerance ${ANGLE_TOL}) at ${angleAt}`);
		if (!(worstHips < HIPS_TOL)) report.push(`hips displacement off by ${worstHips.toExponential(3)} hips heights (tolerance ${HIPS_TOL}) at t=${hipsAt.toFixed(4)}`);
		const sFacing = fs_.forward.toArray().map((x) => x.toFixed(2)).join(',');
		const tFacing = ft.forward.toArray().map((x) => x.toFixed(2)).join(',');
		console.log(`${label}: ${report.length ? 'FAIL' : 'ok'}: '${srcClipName}' -> '${resClipName}', ${keyTimes.length} keys, `
			+ `${pairs.length} bone pairs (${fingerPairs} finger), hips height ${fs_.height.toPrecision(4)} -> ${ft.height.toPrecision(4)}, `
			+ `facing (${sFacing}) -> (${tFacing}), hips travel up to ${maxTravel.toPrecision(3)} hips heights; `
			+ `${times.length} times: worst angle ${worstAngle.toExponential(2)} rad, worst hips error ${worstHips.toExponential(2)} hips heights`);
	} catch (e) {
		report.push(e && e.message ? e.message : String(e));
		console.log(`${label}: FAIL`);
	}
	for (const r of report) console.log(`  ${r}`);
	if (report.length) failures++;
}
process.exit(failures ? 1 : 0);
