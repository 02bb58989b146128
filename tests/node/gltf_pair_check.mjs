// tests/node/gltf_pair_check.mjs - compares two glTF/GLB files with three.js:
// clip time axes, node poses and (optionally) skinned vertex positions, the
// second file decoded with three.js' own MeshoptDecoder when it uses
// EXT_meshopt_compression (three/examples/jsm/libs/meshopt_decoder.module.js).
//
//   node gltf_pair_check.mjs A.glb B.glb [--shift S] [--tol REL] [--vertices]
//        [--clip NAME]... [--prefix P] [--first T] [--last T] [--times-only]
//        [--bytes-ratio MAX]
//
// For every clip of A (by name; --clip restricts them) B must have a clip of
// that name (P + the name with --prefix) whose first key time (the earliest input of its samplers) is A's
// + S and whose last key time is A's + S (within 1e-6 s), and at 41 times t
// spread over A's key range (plus every key time of A's first sampler) the
// world position of every node named in both (three.js AnimationMixer at t
// in A, at t + S in B; Object3D.getWorldPosition) must agree within REL x
// the extent of A's static node positions (default 1e-6). With --vertices,
// every skinned or plain mesh named in both is compared vertex by vertex
// (morph targets, SkinnedMesh.applyBoneTransform, matrixWorld), in the
// static pose (also with each of the first 16 morph targets fully on) and
// at those times, and their normals (static, as stored)
// within 0.01 rad (int8 rounding: sqrt(3) x 0.5 / 127 = 0.0068). --first T / --last T: A's first / last
// key must be at T. --times-only: only the time axes are compared (files
// with different skeletons).
// --bytes-ratio MAX: B's file size must be at most MAX x A's.
// Prints the worst errors; exit 1 on a mismatch, 2 on bad input.
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';

const args = process.argv.slice(2);
const files = [];
let shift = 0, tol = 1e-6, vertices = false, first = null, last = null, bytesRatio = null, prefix = '', timesOnly = false;
const only = [];
for (let i = 0; i < args.length; i++) {
	const a = args[i];
	if (a === '--shift') shift = Number(args[++i]);
	else if (a === '--tol') tol = Number(args[++i]);
	else if (a === '--vertices') vertices = true;
	else if (a === '--clip') only.push(args[++i]);
	else if (a === '--first') first = Number(args[++i]);
	else if (a === '--last') last = Number(args[++i]);
	else if (a === '--prefix') prefix = args[++i];
	else if (a === '--times-only') timesOnly = true;
	else if (a === '--bytes-ratio') bytesRatio = Number(args[++i]);
	else files.push(a);
}
if (files.length !== 2 || !Number.isFinite(shift) || !(tol > 0)) {
	console.error('usage: node gltf_pair_check.mjs A.glb B.glb [--shift S] [--tol REL] [--vertices] [--clip NAME]... [--first T] [--bytes-ratio MAX]');
	process.exit(2);
}

async function load(file) {
	const bytes = fs.readFileSync(file);
	const loader = new GLTFLoader();
	loader.setMeshoptDecoder(MeshoptDecoder);
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	const gltf = await new Promise((resolve, reject) => loader.parse(ab, '', resolve, reject));
	const nodes = await gltf.parser.getDependencies('node');
	const byName = new Map();
	for (const o of nodes) if (o.name && !byName.has(o.name)) byName.set(o.name, o);
	const meshes = new Map();
	gltf.scene.traverse((o) => {
		if (o.isMesh && o.name && !meshes.has(o.name)) meshes.set(o.name, o);
	});
	return { gltf, byName, meshes, size: bytes.length, mixer: new THREE.AnimationMixer(gltf.scene) };
}

function keyRange(clip) {
	let lo = Infinity, hi = -Infinity;
	for (const t of clip.tracks) {
		if (!t.times.length) continue;
		lo = Math.min(lo, t.times[0]);
		hi = Math.max(hi, t.times[t.times.length - 1]);
	}
	return [lo, hi];
}

const v = new THREE.Vector3(), w = new THREE.Vector3(), d = new THREE.Vector3();

function vertexAt(m, i, out) {
	out.fromBufferAttribute(m.geometry.attributes.position, i);
	const morph = m.geometry.morphAttributes.position, inf = m.morphTargetInfluences;
	if (morph && inf) {
		for (let t = 0; t < morph.length; t++) {
			if (!inf[t]) continue;
			d.fromBufferAttribute(morph[t], i);
			if (m.geometry.morphTargetsRelative) out.addScaledVector(d, inf[t]);
			else out.lerp(d, inf[t]);
		}
	}
	if (m.isSkinnedMesh) m.applyBoneTransform(i, out);
	return out.applyMatrix4(m.matrixWorld);
}

let A, B;
try {
	A = await load(files[0]);
	B = await load(files[1]);
} catch (e) {
	console.log(`cannot load: ${e && e.message ? e.message : e}`);
	process.exit(1);
}
const problems = [];
// scene extent: A's static node positions (and vertices with --vertices)
A.gltf.scene.updateMatrixWorld(true);
const box = new THREE.Box3();
for (const o of A.byName.values()) box.expandByPoint(o.getWorldPosition(v));
if (vertices) for (const m of A.meshes.values()) box.expandByObject(m);
const extent = Math.max(box.getSize(v).length(), 1e-12);
const limit = tol * extent;
const shared = [...A.byName.keys()].filter((n) => B.byName.has(n));
const sharedMeshes = [...A.meshes.keys()].filter((n) => B.meshes.has(n));
if (!shared.length && !timesOnly) problems.push('no node name in common');

let morphsChecked = 0;
let worstNode = 0, worstNodeAt = '', worstVert = 0, worstVertAt = '', worstNormal = 0, worstNormalAt = '';
function comparePose(label) {
	A.gltf.scene.updateMatrixWorld(true);
	B.gltf.scene.updateMatrixWorld(true);
	for (const n of shared) {
		const e = A.byName.get(n).getWorldPosition(v).distanceTo(B.byName.get(n).getWorldPosition(w));
		if (e > worstNode) { worstNode = e; worstNodeAt = `${label} node ${n}`; }
	}
	if (!vertices) return;
	for (const n of sharedMeshes) {
		const ma = A.meshes.get(n), mb = B.meshes.get(n);
		const ca = ma.geometry.attributes.position.count, cb = mb.geometry.attributes.position.count;
		if (ca !== cb) {
			problems.push(`${label} mesh ${n}: ${ca} vs ${cb} vertices`);
			continue;
		}
		for (let i = 0; i < ca; i++) {
			const e = vertexAt(ma, i, v).distanceTo(vertexAt(mb, i, w));
			if (e > worstVert) { worstVert = e; worstVertAt = `${label} mesh ${n} vertex ${i}`; }
		}
		// every morph target fully on, one at a time (static pose only)
		const ta = ma.geometry.morphAttributes.position, ia = ma.morphTargetInfluences, ib = mb.morphTargetInfluences;
		if (label === 'static' && ta && ia && ib && ia.length === ib.length) {
			const saved = [ia.slice(), ib.slice()];
			for (let t = 0; t < Math.min(ta.length, 16); t++) {
				ia.fill(0); ib.fill(0); ia[t] = 1; ib[t] = 1;
				for (let i = 0; i < ca; i++) {
					const e = vertexAt(ma, i, v).distanceTo(vertexAt(mb, i, w));
					if (e > worstVert) { worstVert = e; worstVertAt = `${label} mesh ${n} morph target ${t} vertex ${i}`; }
				}
			}
			saved[0].forEach((x, k) => { ia[k] = x; });
			saved[1].forEach((x, k) => { ib[k] = x; });
			morphsChecked += Math.min(ta.length, 16);
		}
		const na = ma.geometry.attributes.normal, nb = mb.geometry.attributes.normal;
		if (label === 'static' && na && nb) {
			for (let i = 0; i < ca; i++) {
				v.fromBufferAttribute(na, i).normalize();
				w.fromBufferAttribute(nb, i).normalize();
				const e = v.angleTo(w);
				if (e > worstNormal) { worstNormal = e; worstNormalAt = `mesh ${n} normal ${i}`; }
			}
		} else if (label === 'static' && !!na !== !!nb) problems.push(`mesh ${n}: normals in one file only`);
	}
}

if (!timesOnly) comparePose('static');
let clipsChecked = 0;
for (const ca of A.gltf.animations) {
	if (only.length && !only.includes(ca.name)) continue;
	const cb = B.gltf.animations.find((c) => c.name === prefix + ca.name);
	if (!cb) {
		problems.push(`clip ${ca.name}: missing in ${files[1]}`);
		continue;
	}
	const [a0, a1] = keyRange(ca), [b0, b1] = keyRange(cb);
	if (first !== null && Math.abs(a0 - first) > 1e-6) problems.push(`clip ${ca.name}: ${files[0]} starts at ${a0}, expected ${first}`);
	if (last !== null && Math.abs(a1 - last) > 1e-6) problems.push(`clip ${ca.name}: ${files[0]} ends at ${a1}, expected ${last}`);
	if (Math.abs(b0 - (a0 + shift)) > 1e-6 || Math.abs(b1 - (a1 + shift)) > 1e-6)
		problems.push(`clip ${ca.name}: keys ${a0}..${a1} s became ${b0}..${b1} s (expected ${a0 + shift}..${a1 + shift})`);
	if (timesOnly) { clipsChecked++; continue; }
	const times = new Set();
	for (let k = 0; k <= 40; k++) times.add(a0 + (a1 - a0) * k / 40);
	if (ca.tracks.length) for (const t of ca.tracks[0].times) times.add(t);
	const xa = A.mixer.clipAction(ca), xb = B.mixer.clipAction(cb);
	for (const x of [xa, xb]) { x.setLoop(THREE.LoopOnce, 1); x.clampWhenFinished = true; }
	for (const t of times) {
		xa.reset().play();
		xb.reset().play();
		A.mixer.setTime(t);
		B.mixer.setTime(t + shift);
		comparePose(`${ca.name} t=${t.toFixed(4)}`);
	}
	xa.stop(); xb.stop();
	A.mixer.uncacheAction(ca); B.mixer.uncacheAction(cb);
	clipsChecked++;
}
if (!clipsChecked && !only.length && A.gltf.animations.length) problems.push('no clip compared');
if (only.length && clipsChecked !== only.length) problems.push(`only ${clipsChecked} of the ${only.length} clips named were found`);
if (worstNode > limit) problems.push(`${worstNodeAt}: off by ${worstNode.toExponential(3)} (limit ${limit.toExponential(3)})`);
if (worstNormal > 0.01) problems.push(`${worstNormalAt}: ${worstNormal.toExponential(3)} rad apart (limit 0.01)`);
if (worstVert > limit) problems.push(`${worstVertAt}: off by ${worstVert.toExponential(3)} (limit ${limit.toExponential(3)})`);
const ratio = B.size / A.size;
if (bytesRatio !== null && !(ratio <= bytesRatio)) problems.push(`${files[1]} is ${(100 * ratio).toFixed(1)}% of ${files[0]} (at most ${(100 * bytesRatio).toFixed(1)}%)`);
console.log(`${files[0]} vs ${files[1]}: ${clipsChecked} clips, ${shared.length} nodes${vertices ? `, ${sharedMeshes.length} meshes` : ''}, ` +
	`worst node ${(worstNode / extent).toExponential(2)}${vertices ? `, worst vertex ${(worstVert / extent).toExponential(2)}` : ''} of the extent ${extent.toPrecision(4)}, ` +
	`${vertices ? `worst normal ${worstNormal.toExponential(2)} rad, ${morphsChecked} morph targets, ` : ''}` +
	`size ${(100 * ratio).toFixed(1)}%${problems.length ? ' FAIL' : ' ok'}`);
for (const p of problems.slice(0, 12)) console.log(`  ${p}`);
process.exit(problems.length ? 1 : 0);
