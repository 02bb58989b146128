// tests/node/three_check.mjs - loads GLBs written by rigkit with three.js
// (GLTFLoader.parse in Node, textures replaced by empty ones: no image
// decoding) and compares what three.js computes with rigkit's own evaluation.
//
//   node three_check.mjs DIR
//
// DIR holds NAME.glb + NAME.expected.json pairs written by
// tests/test_gltf_write.c (test "export_interop"). Each expected.json has:
//   height, tolerance        scene extent (glTF units) and 1e-4 of it
//   approximate              approximations the writer announced (warnings)
//   nodes                    glTF node index of every rigkit node compared
//   static.positions         world position of each of those nodes, no animation
//   static.meshes            [{node, min, max}] world bounding box of each mesh node
//   clips[]                  {name, animation (glTF index), samples[{time, positions, meshes}]}
// For every clip, three.js' AnimationMixer plays the animation and is set to
// each sample time; node world positions (Object3D.getWorldPosition) and mesh
// bounding boxes (morph targets by morphTargetInfluences, then
// SkinnedMesh.applyBoneTransform, then matrixWorld) must match within the
// tolerance. Exit code 1 when anything differs, 2 on bad input.
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const dir = process.argv[2];
if (!dir) {
	console.error('usage: node three_check.mjs DIR');
	process.exit(2);
}

function parseGlb(bytes) {
	const loader = new GLTFLoader();
	// No image decoding in Node: every texture becomes an empty Texture.
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	return new Promise((resolve, reject) => loader.parse(ab, '', resolve, reject));
}

// Node objects by glTF node index (the loader's node cache: the objects in
// the scene, also when meshes are instanced and cloned).
function nodeObjects(gltf) {
	return gltf.parser.getDependencies('node');
}

// The three.js meshes that render glTF node `obj`'s own mesh (not its children's).
function primitiveMeshes(obj) {
	const out = [];
	// The node object is the mesh itself (one primitive), a Group of
	// primitive meshes, or (joints) a Bone with the mesh or Group as a child.
	// Child nodes are other entries of the node cache.
	if (obj.isMesh) return [obj];
	for (const c of obj.children) {
		if (nodeSet.has(c)) continue;
		if (c.isMesh) out.push(c);
		else for (const g of c.children) if (g.isMesh && !nodeSet.has(g)) out.push(g);
	}
	return out;
}

const v = new THREE.Vector3();
const d = new THREE.Vector3();
let nodeSet = new Set();

function meshBox(gltf, obj) {
	const box = new THREE.Box3();
	for (const m of primitiveMeshes(obj)) {
		const pos = m.geometry.attributes.position;
		const morph = m.geometry.morphAttributes.position;
		const inf = m.morphTargetInfluences;
		for (let i = 0; i < pos.count; i++) {
			v.fromBufferAttribute(pos, i);
			if (morph && inf) {
				for (let t = 0; t < morph.length; t++) {
					if (!inf[t]) continue;
					d.fromBufferAttribute(morph[t], i);
					if (m.geometry.morphTargetsRelative) v.addScaledVector(d, inf[t]);
					else v.lerp(d, inf[t]);
				}
			}
			if (m.isSkinnedMesh) m.applyBoneTransform(i, v);
			v.applyMatrix4(m.matrixWorld);
			box.expandByPoint(v);
		}
	}
	return box;
}

function compare(label, gltf, objs, exp, positions, meshes, report) {
	const tol = exp.tolerance;
	gltf.scene.updateMatrixWorld(true);
	let worst = 0, worstAt = '';
	exp.nodes.forEach((n, k) => {
		const o = objs[n];
		if (!o) {
			report.push(`${label}: glTF node ${n} not found in the three.js scene`);
			worst = Infinity;
			return;
		}
		o.getWorldPosition(v);
		const e = v.distanceTo(new THREE.Vector3(...positions[k]));
		if (e > worst) { worst = e; worstAt = o.name; }
	});
	let worstBox = 0, worstBoxAt = '';
	for (const m of meshes) {
		if (!objs[m.node]) {
			report.push(`${label}: glTF mesh node ${m.node} not found in the three.js scene`);
			worstBox = Infinity;
			continue;
		}
		const box = meshBox(gltf, objs[m.node]);
		const e = Math.max(box.min.distanceTo(new THREE.Vector3(...m.min)), box.max.distanceTo(new THREE.Vector3(...m.max)));
		if (e > worstBox) { worstBox = e; worstBoxAt = objs[m.node].name; }
	}
	if (worst > tol) report.push(`${label}: node ${worstAt} off by ${worst.toExponential(3)} (tolerance ${tol.toExponential(3)})`);
	if (worstBox > tol) report.push(`${label}: mesh ${worstBoxAt} bounding box off by ${worstBox.toExponential(3)} (tolerance ${tol.toExponential(3)})`);
	return Math.max(worst, worstBox);
}

const files = fs.readdirSync(dir).filter((f) => f.endsWith('.expected.json')).sort();
if (files.length === 0) {
	console.error(`no *.expected.json in ${dir}`);
	process.exit(2);
}
let failures = 0;
for (const f of files) {
	const exp = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
	const report = [];
	let gltf;
	try {
		gltf = await parseGlb(fs.readFileSync(path.join(dir, exp.glb)));
	} catch (e) {
		console.log(`${exp.glb}: three.js cannot load it: ${e && e.message ? e.message : e}`);
		failures++;
		continue;
	}
	const objs = await nodeObjects(gltf);
	nodeSet = new Set(objs);
	let worst = compare(`${exp.glb} static`, gltf, objs, exp, exp.static.positions, exp.static.meshes, report);
	const mixer = new THREE.AnimationMixer(gltf.scene);
	let samples = 0;
	for (const clip of exp.clips) {
		const anim = gltf.animations[clip.animation];
		if (!anim) {
			report.push(`${exp.glb}: animation ${clip.animation} (${clip.name}) missing`);
			continue;
		}
		const action = mixer.clipAction(anim);
		action.setLoop(THREE.LoopOnce, 1);
		action.clampWhenFinished = true;
		for (const s of clip.samples) {
			action.reset().play();
			mixer.setTime(s.time);
			worst = Math.max(worst, compare(`${exp.glb} ${clip.name} t=${s.time}`, gltf, objs, exp, s.positions, s.meshes, report));
			samples++;
		}
		action.stop();
		mixer.uncacheAction(anim);
	}
	// The writer announced a documented approximation (FBX shear, dual
	// quaternion skinning, in-between shapes, instanced skins): differences
	// are reported, not failed.
	const approx = exp.approximate && exp.approximate.length ? exp.approximate : null;
	const status = !report.length ? 'ok' : approx ? `approximate (${approx.join(', ')})` : 'FAIL';
	console.log(`${exp.glb}: ${status}, ${exp.clips.length} clips, ${samples} samples, ${exp.nodes.length} nodes, worst ${worst.toExponential(3)} (tolerance ${exp.tolerance.toExponential(3)}, height ${exp.height.toPrecision(4)})`);
	for (const r of report.slice(0, 10)) console.log(`  ${r}`);
	if (report.length > 10) console.log(`  ... ${report.length - 10} more`);
	if (report.length && !approx) failures++;
}
process.exit(failures ? 1 : 0);
