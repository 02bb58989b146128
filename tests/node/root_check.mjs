// tests/node/root_check.mjs - checks `rigkit retarget --root extract` results
// with three.js (GLTFLoader + AnimationMixer), independently of rigkit's
// own evaluation (docs/retarget.md, "Root motion").
//
//   node root_check.mjs LABEL TARGET.glb KEEP.glb EXTRACT.glb CLIP ROOT HIPS [LABEL ...]
//
// Groups of seven arguments: TARGET.glb the avatar as it was (its rest pose
// is the reference), KEEP.glb the result of `--root keep`, EXTRACT.glb the
// result of `--root extract` (both with clip CLIP), ROOT and HIPS the names
// of the root node and the hips node. Both clips are played at every key
// time of EXTRACT's clip (its frames). Up is +Y (glTF). h = the rest hips
// height above the lowest rest bone. At every frame:
//  - the hips' world position is KEEP's within 1e-6 h, their world rotation
//    within 1e-5 rad (the hips' motion is unchanged, only re-parented);
//  - the root's world position keeps its rest height (1e-6 h) and its world
//    rotation relative to rest is a turn about +Y only (tilt < 1e-5 rad);
//  - the root's horizontal displacement from rest is the KEEP hips' one
//    (1e-6 h): the root carries the travel;
//  - the root's yaw (the twist about +Y of its rotation relative to rest)
//    is the KEEP hips' yaw (same decomposition of their rotation relative
//    to rest) within 1e-5 rad: the root carries the facing.
// Also: EXTRACT's clip has position and quaternion tracks on ROOT, and the
// root travels at least 0.05 h (so the case is not trivial).
// Exit code 1 when a check fails, 2 on bad input.
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const POS_TOL = 1e-6;     // hips heights
const ROT_TOL = 1e-5;     // radians (float keys)

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 7 !== 0) {
	console.error('usage: node root_check.mjs LABEL TARGET.glb KEEP.glb EXTRACT.glb CLIP ROOT HIPS [...]');
	process.exit(2);
}

function parseGlb(file) {
	const bytes = fs.readFileSync(file);
	const loader = new GLTFLoader();
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	return new Promise((resolve, reject) => loader.parse(ab, '', resolve, reject));
}

function node(gltf, name, label) {
	const o = gltf.scene.getObjectByName(name);
	if (!o) throw new Error(`${label}: no node ${name}`);
	return o;
}

// Twist angle about +Y of unit quaternion q (swing-twist decomposition).
function yaw(q) {
	let { y, w } = q;
	if (w < 0) { y = -y; w = -w; }
	return 2 * Math.atan2(y, w);
}

function relative(world, rest) {
	return world.clone().multiply(rest.clone().invert());
}

// Angle between two rotations, well conditioned for small angles (three.js
// angleTo takes acos of a dot product).
function angleBetween(a, b) {
	const r = a.clone().invert().multiply(b);
	return 2 * Math.atan2(Math.hypot(r.x, r.y, r.z), Math.abs(r.w));
}

function wrap(a) {
	while (a > Math.PI) a -= 2 * Math.PI;
	while (a < -Math.PI) a += 2 * Math.PI;
	return a;
}

async function check(label, targetFile, keepFile, extractFile, clipName, rootName, hipsName) {
	const [target, keep, ext] = await Promise.all([parseGlb(targetFile), parseGlb(keepFile), parseGlb(extractFile)]);
	const fails = [];
	target.scene.updateMatrixWorld(true);
	// the root's rest: the target's node, or, for a root `rigkit retarget`
	// added above the hips, that node as EXTRACT stores it (identity below
	// the hips' old parent)
	ext.scene.updateMatrixWorld(true);
	const restRoot = target.scene.getObjectByName(rootName) || node(ext, rootName, label);
	const restHips = node(target, hipsName, label);
	const rootRestPos = restRoot.getWorldPosition(new THREE.Vector3());
	const rootRestQ = restRoot.getWorldQuaternion(new THREE.Quaternion());
	const hipsRestPos = restHips.getWorldPosition(new THREE.Vector3());
	const hipsRestQ = restHips.getWorldQuaternion(new THREE.Quaternion());
	let low = Infinity;
	target.scene.traverse((o) => { if (o.isBone) low = Math.min(low, o.getWorldPosition(new THREE.Vector3()).y); });
	const h = hipsRestPos.y - low;
	if (!(h > 0)) throw new Error(`${label}: no hips height`);

	const kc = keep.animations.find((a) => a.name === clipName);
	const xc = ext.animations.find((a) => a.name === clipName);
	if (!kc || !xc) throw new Error(`${label}: clip ${clipName} missing in a result`);
	const rootTracks = xc.tracks.filter((t) => t.name.startsWith(`${rootName}.`)).map((t) => t.name.split('.').pop());
	if (!rootTracks.includes('position') || !rootTracks.includes('quaternion'))
		fails.push(`extract clip has no position + quaternion tracks on ${rootName} (has: ${rootTracks.join(', ')})`);
	const times = Array.from(xc.tracks[0].times);
	const km = new THREE.AnimationMixer(keep.scene), xm = new THREE.AnimationMixer(ext.scene);
	km.clipAction(kc).play();
	xm.clipAction(xc).play();
	const kHips = node(keep, hipsName, label), xHips = node(ext, hipsName, label), xRoot = node(ext, rootName, label);
	const worst = { hips: 0, hipsRot: 0, vertical: 0, tilt: 0, travel: 0, yaw: 0, moved: 0 };
	for (const t of times) {
		km.setTime(t);
		xm.setTime(t);
		keep.scene.updateMatrixWorld(true);
		ext.scene.updateMatrixWorld(true);
		const kp = kHips.getWorldPosition(new THREE.Vector3()), xp = xHips.getWorldPosition(new THREE.Vector3());
		const kq = kHips.getWorldQuaternion(new THREE.Quaternion()), xq = xHips.getWorldQuaternion(new THREE.Quaternion());
		const rp = xRoot.getWorldPosition(new THREE.Vector3()), rq = xRoot.getWorldQuaternion(new THREE.Quaternion());
		worst.hips = Math.max(worst.hips, kp.distanceTo(xp) / h);
		worst.hipsRot = Math.max(worst.hipsRot, angleBetween(kq, xq));
		worst.vertical = Math.max(worst.vertical, Math.abs(rp.y - rootRestPos.y) / h);
		const rr = relative(rq, rootRestQ);
		worst.tilt = Math.max(worst.tilt, 2 * Math.asin(Math.min(1, Math.hypot(rr.x, rr.z))));
		const travel = new THREE.Vector3().subVectors(kp, hipsRestPos);
		const moved = new THREE.Vector3().subVectors(rp, rootRestPos);
		worst.travel = Math.max(worst.travel, Math.hypot(travel.x - moved.x, travel.z - moved.z) / h);
		worst.moved = Math.max(worst.moved, Math.hypot(moved.x, moved.z) / h);
		worst.yaw = Math.max(worst.yaw, Math.abs(wrap(yaw(rr) - yaw(relative(kq, hipsRestQ)))));
	}
	if (!(worst.hips <= POS_TOL)) fails.push(`hips world position off KEEP's by ${worst.hips.toExponential(2)} h`);
	if (!(worst.hipsRot <= ROT_TOL)) fails.push(`hips world rotation off KEEP's by ${worst.hipsRot.toExponential(2)} rad`);
	if (!(worst.vertical <= POS_TOL)) fails.push(`root moves vertically by ${worst.vertical.toExponential(2)} h`);
	if (!(worst.tilt <= ROT_TOL)) fails.push(`root tilts by ${worst.tilt.toExponential(2)} rad`);
	if (!(worst.travel <= POS_TOL)) fails.push(`root travel off the hips' by ${worst.travel.toExponential(2)} h`);
	if (!(worst.yaw <= ROT_TOL)) fails.push(`root yaw off the hips' by ${worst.yaw.toExponential(2)} rad`);
	if (!(worst.moved >= 0.05)) fails.push(`root travels only ${worst.moved.toExponential(2)} h`);
	const line = `${label}: ${times.length} frames, hips ${worst.hips.toExponential(1)} h / ${worst.hipsRot.toExponential(1)} rad, ` +
		`root vertical ${worst.vertical.toExponential(1)} h, tilt ${worst.tilt.toExponential(1)} rad, travel ${worst.travel.toExponential(1)} h ` +
		`(up to ${worst.moved.toFixed(3)} h), yaw ${worst.yaw.toExponential(1)} rad`;
	if (fails.length) {
		console.log(`FAIL ${line}`);
		for (const f of fails) console.log(`  ${f}`);
		return false;
	}
	console.log(`ok   ${line}`);
	return true;
}

let ok = true;
try {
	for (let i = 0; i < args.length; i += 7) ok = (await check(...args.slice(i, i + 7))) && ok;
} catch (e) {
	console.error(e.message);
	process.exit(2);
}
process.exit(ok ? 0 : 1);
