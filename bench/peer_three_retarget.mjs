// bench/peer_three_retarget.mjs - the peer of bench/bench_retarget.c: three.js's
// own retargeting, SkeletonUtils.retargetClip, timed in node.
//
//   node peer_three_retarget.mjs [-n RUNS] [-w WARMUP] SOURCE.glb CLIP TARGET.glb FRAMES [...]
//
// Groups of four arguments. SOURCE.glb holds the clip (an FBX source is
// converted with `rigkit convert` first: three.js has no reliable FBX
// loader), CLIP names it ("" = the first), TARGET.glb is the character to
// animate, FRAMES the key count wanted (rigkit's, from bench_retarget; 0 =
// retargetClip's default rate). Run from a folder next to node_modules with
// three installed (scripts/bench.sh copies it next to the install of
// tests/node/package.json: ESM resolves packages from the script's folder).
//
// Both files are loaded once with GLTFLoader (images not decoded). The call
// timed is what a web developer writes:
//
//   SkeletonUtils.retargetClip(targetSkinnedMesh, source, clip,
//     { names, hip, fps })
//
//  - targetSkinnedMesh: the target's SkinnedMesh with the most bones (ties:
//    the most vertices);
//  - source: a THREE.Skeleton of the source's hips node and every node
//    below it (retargetClip wraps it in a SkeletonHelper and plays the clip
//    on it with an AnimationMixer). Not the source's SkinnedMesh: the mixer
//    finds nodes through skeleton.bones, and a skin's joints need not
//    include every animated node (Xbot.glb's walk animates finger tips that
//    are not joints: three.js then logs a warning per track on every call),
//    and ybot@kick.fbx is animation only, without a skin;
//  - names: target bone name -> source bone name, by equal names once a
//    leading "mixamorig" is removed (three.js strips ':' from node names:
//    "mixamorig:Hips" -> "mixamorigHips"), built once, outside the timing;
//  - hip: the source's hips bone name (so a hips position track is made);
//  - fps: FRAMES / clip.duration, so the result has FRAMES keys per track,
//    as rigkit's (retargetClip makes round(duration * fps) keys spread over
//    the duration).
// WARMUP untimed calls (default 10), then the median of RUNS (default 9) of the
// process's CPU time (process.cpuUsage; the first call: performance.now()). Prints one line per group:
//   three-retarget SOURCE CLIP TARGET FRAMES TRACKS MEDIAN_S FIRST_S
// (TRACKS = tracks of the returned clip, FIRST_S = the first, cold call,
// before any warm-up: the JIT has not compiled retargetClip yet).
// Exit code 1 when a group fails, 2 on bad arguments.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/examples/jsm/utils/SkeletonUtils.js';

let runs = 9, warmup = 10;
const args = process.argv.slice(2);
while (args.length && (args[0] === '-n' || args[0] === '-w')) {
	const v = parseInt(args[1], 10);
	if (args[0] === '-n') runs = v; else warmup = v;
	args.splice(0, 2);
}
if (!(runs >= 1 && runs <= 1000) || !(warmup >= 0 && warmup <= 1000) || args.length === 0 || args.length % 4 !== 0) {
	console.error('usage: node peer_three_retarget.mjs [-n RUNS] [-w WARMUP] SOURCE.glb CLIP TARGET.glb FRAMES [...]');
	process.exit(2);
}

function parseGlb(file) {
	const bytes = fs.readFileSync(file);
	const loader = new GLTFLoader();
	// No image decoding in node: every texture becomes an empty Texture.
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	return new Promise((resolve, reject) => loader.parse(ab, '', resolve, reject));
}

const strip = (name) => name.replace(/^mixamorig[:_]?/, '');

function biggestSkinnedMesh(gltf) {
	let best = null;
	gltf.scene.traverse((o) => {
		if (!o.isSkinnedMesh) return;
		const n = o.skeleton.bones.length, v = o.geometry.attributes.position.count;
		if (!best || n > best.skeleton.bones.length || (n === best.skeleton.bones.length && v > best.geometry.attributes.position.count))
			best = o;
	});
	return best;
}

// The hips node and everything below it as a Skeleton.
function skeletonFromHips(gltf, label) {
	let hips = null;
	gltf.scene.traverse((o) => { if (!hips && strip(o.name) === 'Hips') hips = o; });
	if (!hips) throw new Error(`${label}: no Hips node`);
	const bones = [];
	hips.traverse((o) => bones.push(o));
	gltf.scene.updateMatrixWorld(true);
	return new THREE.Skeleton(bones);
}

function median(v) {
	const s = [...v].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
}

let failures = 0;
for (let i = 0; i < args.length; i += 4) {
	const [srcFile, clipName, tgtFile, framesArg] = args.slice(i, i + 4);
	const frames = parseInt(framesArg, 10) || 0;
	try {
		const [src, tgt] = await Promise.all([parseGlb(srcFile), parseGlb(tgtFile)]);
		src.scene.updateMatrixWorld(true);
		tgt.scene.updateMatrixWorld(true);
		const target = biggestSkinnedMesh(tgt);
		if (!target) throw new Error(`${path.basename(tgtFile)}: no skinned mesh to retarget onto`);
		const source = skeletonFromHips(src, path.basename(srcFile));
		const sourceBones = source.bones;
		const clip = clipName ? src.animations.find((c) => c.name === clipName) : src.animations[0];
		if (!clip) throw new Error(`${path.basename(srcFile)}: no animation '${clipName}'`);

		const byName = new Map(sourceBones.map((b) => [strip(b.name), b.name]));
		const names = {};
		for (const b of target.skeleton.bones) {
			const s = byName.get(strip(b.name));
			if (s !== undefined) names[b.name] = s;
		}
		const hip = byName.get('Hips');
		if (!hip) throw new Error(`${path.basename(srcFile)}: no Hips bone`);
		const fps = frames > 0 ? frames / clip.duration : undefined;

		const call = () => SkeletonUtils.retargetClip(target, source, clip, { names, hip, fps });
		let t0 = performance.now();
		const result = call();
		const first = performance.now() - t0;
		const keys = result.tracks.length ? result.tracks[0].times.length : 0;
		if (frames > 0 && keys !== frames) throw new Error(`retargetClip made ${keys} keys per track, not ${frames}`);
		for (let w = 0; w < warmup; w++) call();
		const t = [];
		for (let r = 0; r < runs; r++) {
			// CPU time of the process (user + system, ms), as bench_retarget
			// takes CPU time: wall time follows the other jobs on a shared machine
			const c0 = process.cpuUsage();
			call();
			const c = process.cpuUsage(c0);
			t.push((c.user + c.system) / 1e3);
		}
		console.log(`three-retarget ${srcFile} ${clipName || '-'} ${tgtFile} ${keys} ${result.tracks.length} `
			+ `${(median(t) / 1e3).toFixed(6)} ${(first / 1e3).toFixed(6)}`);
	} catch (e) {
		console.error(`peer_three_retarget: ${srcFile} -> ${tgtFile}: ${e && e.message ? e.message : e}`);
		failures++;
	}
}
process.exit(failures ? 1 : 0);
