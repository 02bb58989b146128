// tests/vrm/vrm_check.mjs - VRM and VRM Animation files checked with
// @pixiv/three-vrm and @pixiv/three-vrm-animation on three.js in node (no
// WebGL: nothing is rendered, textures are empty), independently of rigkit.
//
//   node vrm_check.mjs summary FILE.vrm
//       prints what three-vrm loaded as JSON: meta version and name, the
//       humanoid (VRM 1.0 bone -> raw bone node name as in the file),
//       expression names, spring joint node names, node constraint count,
//       MToon material count. Exit 1 when three-vrm finds no VRM.
//   node vrm_check.mjs play AVATAR.vrm ANIM.vrma EXPECTED.json MAP.json
//       plays ANIM on AVATAR (createVRMAnimationClip + AnimationMixer, then
//       vrm.humanoid.update()) at each time of EXPECTED (`rigkit pose --json`
//       of the same retarget written as GLB: world positions by node name)
//       and compares, for every humanoid bone with a mapped humanoid child,
//       the direction bone -> child with rigkit's (MAP: bone -> node name):
//       the largest angle must be below 1e-4 rad; and the hips position
//       within 1e-4 of the hips height. Exit 1 when a check fails.
//   node vrm_check.mjs play AVATAR.vrm ANIM.vrma EXPECTED.json MAP.json PAIRS
//       the same for another character's motion: only the bone pairs PAIRS
//       ("leftUpperArm:leftLowerArm,..."), no hips check (the proportions
//       differ).
//   node vrm_check.mjs morphs AVATAR.vrm ANIM.vrma OUT.glb TIMES
//       plays ANIM on AVATAR with three-vrm-animation, then
//       vrm.expressionManager.update() (three-vrm's own expression rule),
//       and plays OUT.glb's first animation (rigkit's retarget of ANIM onto
//       AVATAR) with plain three.js, at each of TIMES ("0,0.1,..."): every
//       morphTargetInfluences entry of every mesh must agree within 1e-6.
//       OUT.vrma instead: played on AVATAR with three-vrm-animation too
//       (a VRMA rigkit wrote must move the face as the original does).
//   node vrm_check.mjs morphs AVATAR.vrm ANIM.vrma OUT.glb TIMES lookexpr
//       an avatar with an expression look-at: vrm.lookAt.update() (three-vrm's
//       expression applier) before the expression manager, then the weights
//   node vrm_check.mjs morphs AVATAR.vrm ANIM.vrma OUT.glb TIMES eyes
//       also the look-at: vrm.lookAt.update() (three-vrm's bone applier)
//       vs OUT's eye bones, world rotations within 1e-6 rad.
//       Exit 1 when a check fails or no expression moved a morph target.
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMHumanBoneParentMap } from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin, createVRMAnimationClip } from '@pixiv/three-vrm-animation';

const ANGLE_TOL = 1e-4;
const HIPS_TOL = 1e-4;

function parse(file, plugins) {
	const bytes = fs.readFileSync(file);
	const loader = new GLTFLoader();
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	for (const p of plugins) loader.register(p);
	const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	return new Promise((resolve, reject) => loader.parse(ab, '', resolve, reject));
}

// The file's own node names (three.js sanitises names; the map has the file's).
function fileNodeNames(file) {
	const b = fs.readFileSync(file);
	const n = b.readUInt32LE(12);
	const doc = JSON.parse(b.subarray(20, 20 + n).toString('utf8'));
	return { doc, names: (doc.nodes || []).map((x) => x.name ?? '') };
}

async function loadVrm(file) {
	const gltf = await parse(file, [(parser) => new VRMLoaderPlugin(parser)]);
	const vrm = gltf.userData.vrm;
	if (!vrm) throw new Error(`${file}: three-vrm found no VRM`);
	return { gltf, vrm };
}

async function summary(file) {
	const { gltf, vrm } = await loadVrm(file);
	const { names } = fileNodeNames(file);
	const nodeName = new Map();
	const nodes = await gltf.parser.getDependencies('node');
	nodes.forEach((o, i) => nodeName.set(o, names[i]));
	const humanoid = {};
	for (const bone of Object.keys(VRMHumanBoneParentMap)) {
		const raw = vrm.humanoid.getRawBoneNode(bone);
		if (raw) humanoid[bone] = nodeName.get(raw) ?? `?${raw.name}`;
	}
	const expressions = vrm.expressionManager ? vrm.expressionManager.expressions.map((e) => e.expressionName).sort() : [];
	const springs = vrm.springBoneManager ? [...vrm.springBoneManager.joints].map((j) => nodeName.get(j.bone)).sort() : [];
	const constraints = vrm.nodeConstraintManager ? vrm.nodeConstraintManager.constraints.size : 0;
	let mtoon = 0;
	vrm.scene.traverse((o) => {
		const mats = o.material ? (Array.isArray(o.material) ? o.material : [o.material]) : [];
		for (const m of mats) if (m.isMToonMaterial) mtoon++;
	});
	const meta = vrm.meta || {};
	process.stdout.write(JSON.stringify({
		metaVersion: meta.metaVersion, name: meta.name ?? meta.title ?? null, humanoid, expressions, springs, constraints, mtoon,
	}, null, 1) + '\n');
}

async function play(avatarFile, animFile, expectedFile, mapFile, only) {
	const { vrm } = await loadVrm(avatarFile);
	const anim = await parse(animFile, [(parser) => new VRMAnimationLoaderPlugin(parser)]);
	const vrmAnimation = anim.userData.vrmAnimations && anim.userData.vrmAnimations[0];
	if (!vrmAnimation) throw new Error(`${animFile}: three-vrm-animation found no VRM Animation`);
	const clip = createVRMAnimationClip(vrmAnimation, vrm);
	const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
	const map = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
	const mixer = new THREE.AnimationMixer(vrm.scene);
	const action = mixer.clipAction(clip);
	action.setLoop(THREE.LoopOnce, 1); // the clip end is sampled too: no wrap to its start
	action.clampWhenFinished = true;
	action.play();
	const bones = Object.keys(map).filter((b) => vrm.humanoid.getRawBoneNode(b));
	// humanoid child -> parent pairs among the mapped bones
	const pairs = [];
	for (const b of bones) {
		let p = VRMHumanBoneParentMap[b];
		while (p && !map[p]) p = VRMHumanBoneParentMap[p];
		if (p) pairs.push([p, b]);
	}
	if (only) {
		pairs.length = 0;
		for (const pc of only.split(',')) pairs.push(pc.split(':'));
	}
	const t0 = expected.samples[0].time;
	let hipsHeight = null, worst = 0, worstWhere = '', worstHips = 0, checked = 0;
	const w = new THREE.Vector3();
	const pos = (b) => vrm.humanoid.getRawBoneNode(b).getWorldPosition(w).clone();
	for (const sample of expected.samples) {
		mixer.setTime(sample.time - t0);
		vrm.humanoid.update();
		vrm.scene.updateMatrixWorld(true);
		const exp = (b) => {
			const e = sample.nodes[map[b]];
			if (!e) throw new Error(`${expectedFile}: no node '${map[b]}' at t=${sample.time}`);
			return new THREE.Vector3(...e.position);
		};
		if (hipsHeight === null) {
			const feet = ['leftFoot', 'rightFoot'].filter((b) => map[b]).map((b) => exp(b).y);
			hipsHeight = Math.max(exp('hips').y - Math.min(...feet), 1e-6);
		}
		for (const [p, c] of pairs) {
			const a = pos(c).sub(pos(p)), e = exp(c).sub(exp(p));
			if (a.length() < 1e-9 || e.length() < 1e-9) continue;
			const ang = a.angleTo(e);
			checked++;
			if (ang > worst) {
				worst = ang;
				worstWhere = `${p}->${c} at t=${sample.time}`;
			}
		}
		if (!only) worstHips = Math.max(worstHips, pos('hips').distanceTo(exp('hips')) / hipsHeight);
	}
	const ok = worst < ANGLE_TOL && worstHips < HIPS_TOL && checked > 0;
	console.log(`${ok ? 'ok  ' : 'FAIL'} ${animFile} on ${avatarFile}: ${expected.samples.length} times x ${pairs.length} bones, `
		+ `max direction error ${worst.toExponential(2)} rad (${worstWhere}), hips ${worstHips.toExponential(2)} hips heights`);
	return ok;
}

// Every mesh's morph influences, by the mesh's name.
function influences(root) {
	const out = new Map();
	root.traverse((o) => {
		if (o.isMesh && o.morphTargetInfluences) out.set(o.name, o.morphTargetInfluences.slice());
	});
	return out;
}

async function morphs(avatarFile, animFile, outFile, timeList, eyes) {
	const { vrm } = await loadVrm(avatarFile);
	const anim = await parse(animFile, [(parser) => new VRMAnimationLoaderPlugin(parser)]);
	const vrmAnimation = anim.userData.vrmAnimations && anim.userData.vrmAnimations[0];
	if (!vrmAnimation) throw new Error(`${animFile}: three-vrm-animation found no VRM Animation`);
	const mixer = new THREE.AnimationMixer(vrm.scene);
	const action = mixer.clipAction(createVRMAnimationClip(vrmAnimation, vrm));
	action.setLoop(THREE.LoopOnce, 1);
	action.clampWhenFinished = true;
	action.play();
	// OUT.vrma: played with three-vrm-animation on a second copy of the avatar
	let outScene, outClip, outVrm = null;
	if (outFile.endsWith('.vrma')) {
		outVrm = (await loadVrm(avatarFile)).vrm;
		const o = await parse(outFile, [(parser) => new VRMAnimationLoaderPlugin(parser)]);
		if (!o.userData.vrmAnimations || !o.userData.vrmAnimations[0]) throw new Error(`${outFile}: no VRM Animation`);
		outScene = outVrm.scene;
		outClip = createVRMAnimationClip(o.userData.vrmAnimations[0], outVrm);
	} else {
		const out = await parse(outFile, []);
		if (!out.animations.length) throw new Error(`${outFile}: no animation`);
		outScene = out.scene;
		outClip = out.animations[0];
	}
	const mixer2 = new THREE.AnimationMixer(outScene);
	const action2 = mixer2.clipAction(outClip);
	action2.setLoop(THREE.LoopOnce, 1);
	action2.clampWhenFinished = true;
	action2.play();
	let worst = 0, where = '', checked = 0, moved = 0, eyeWorst = 0, eyeWhere = '', eyeChecked = 0;
	const lookExpr = eyes === 'lookexpr';
	if (lookExpr) eyes = undefined;
	for (const t of timeList.split(',').map(Number)) {
		mixer.setTime(t);
		if (lookExpr) {
			// an expression look-at: three-vrm's VRM.update() order (the look-at
			// sets the look expressions, then the expression manager applies)
			vrm.humanoid.update();
			vrm.lookAt.update(0);
		}
		vrm.expressionManager.update();
		mixer2.setTime(t);
		if (outVrm) outVrm.expressionManager.update();
		if (eyes) {
			// look-at: three-vrm's bone applier vs rigkit's eye keys (raw eye world rotations)
			vrm.humanoid.update();
			vrm.lookAt.update(0);
			vrm.scene.updateMatrixWorld(true);
			outScene.updateMatrixWorld(true);
			for (const b of ['leftEye', 'rightEye']) {
				const raw = vrm.humanoid.getRawBoneNode(b);
				const other = outScene.getObjectByName(raw.name);
				if (!other) throw new Error(`${outFile}: no node '${raw.name}'`);
				// the angle of qa^-1 qb by atan2 (angleTo's acos of a dot near 1 is off by ~1e-6 rad
				// for float keys, unit only to ~1e-8)
				const qa = raw.getWorldQuaternion(new THREE.Quaternion()).normalize();
				const d = qa.invert().multiply(other.getWorldQuaternion(new THREE.Quaternion()).normalize());
				const ang = 2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w));
				eyeChecked++;
				if (ang > eyeWorst) {
					eyeWorst = ang;
					eyeWhere = `${b} at t=${t}`;
				}
			}
		}
		const a = influences(vrm.scene), b = influences(outScene);
		for (const [name, wa] of a) {
			const wb = b.get(name);
			if (!wb || wb.length !== wa.length) throw new Error(`${outFile}: no mesh '${name}' with ${wa.length} morph targets`);
			for (let k = 0; k < wa.length; k++) {
				const d = Math.abs(wa[k] - wb[k]);
				checked++;
				if (wa[k] > 1e-3) moved++;
				if (d > worst) {
					worst = d;
					where = `${name}[${k}] at t=${t}: three-vrm ${wa[k]}, rigkit ${wb[k]}`;
				}
			}
		}
	}
	const ok = worst < 1e-6 && checked > 0 && moved > 0 && (!eyes || (eyeChecked > 0 && eyeWorst < 1e-6));
	console.log(`${ok ? 'ok  ' : 'FAIL'} ${animFile} expressions on ${avatarFile}: ${checked} morph weights, `
		+ `${moved} non-zero, largest difference ${worst.toExponential(2)}${where ? ` (${where})` : ''}`
		+ (eyes ? `; look-at: ${eyeChecked} eye rotations, largest angle ${eyeWorst.toExponential(2)} rad (${eyeWhere})` : ''));
	return ok;
}

const [cmd, ...rest] = process.argv.slice(2);
try {
	if (cmd === 'summary' && rest.length === 1) {
		await summary(rest[0]);
	} else if (cmd === 'morphs' && (rest.length === 4 || rest.length === 5)) {
		if (!(await morphs(...rest))) process.exit(1);
	} else if (cmd === 'play' && (rest.length === 4 || rest.length === 5)) {
		if (!(await play(...rest))) process.exit(1);
	} else {
		console.error('usage: node vrm_check.mjs summary FILE.vrm | play AVATAR.vrm ANIM.vrma EXPECTED.json MAP.json');
		process.exit(2);
	}
} catch (e) {
	console.error(`FAIL: ${e.message}`);
	process.exit(1);
}
