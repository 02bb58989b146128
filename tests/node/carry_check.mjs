// tests/node/carry_check.mjs - glTF-Validator and three.js checks of what
// `rigkit convert` carries (tests/test_gltf_carry.sh).
//
//   node carry_check.mjs validate FILE...    0 validator errors in each file;
//                                            external .bin / image URIs are
//                                            read from the file's folder
//   node carry_check.mjs three IN OUT...     three.js GLTFLoader loads IN and
//                                            each OUT; what it builds from them
//                                            (cameras, lights, node names,
//                                            skins, physical material values)
//                                            must be the same
//
// Textures become empty three.js Textures (no image decoding in Node). Exit
// code 1 when a check fails, 2 on bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const require = createRequire(import.meta.url);
// three.js' FileLoader (data: URI buffers of .gltf files) reports progress
// with the browser's ProgressEvent, which Node lacks.
if (typeof globalThis.ProgressEvent === 'undefined') {
	globalThis.ProgressEvent = class extends Event {
		constructor(type, init = {}) {
			super(type);
			Object.assign(this, init);
		}
	};
}
const [mode, ...files] = process.argv.slice(2);
if (!mode || files.length === 0) {
	console.error('usage: node carry_check.mjs validate FILE... | three IN OUT...');
	process.exit(2);
}

async function validate(file) {
	const validator = require('gltf-validator');
	const dir = path.dirname(file);
	const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
		uri: path.basename(file),
		maxIssues: 0,
		externalResourceFunction: (uri) => {
			const p = path.join(dir, decodeURIComponent(uri));
			if (path.dirname(path.resolve(p)) !== path.resolve(dir)) return Promise.reject(new Error(`${uri} leaves the folder`));
			return Promise.resolve(new Uint8Array(fs.readFileSync(p)));
		},
	});
	const errors = report.issues.messages.filter((m) => m.severity === 0);
	console.log(`${path.basename(file)}: ${report.issues.numErrors} errors, ${report.issues.numWarnings} warnings`);
	for (const e of errors) console.log(`  error ${e.code} ${e.pointer || ''}: ${e.message}`);
	return errors.length === 0;
}

function parse(file) {
	const loader = new GLTFLoader();
	loader.register(() => ({ name: 'rigkit_no_images', loadTexture: () => Promise.resolve(new THREE.Texture()) }));
	const bytes = fs.readFileSync(file);
	const data = bytes.subarray(0, 4).toString('latin1') === 'glTF'
		? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
		: bytes.toString('utf8');
	return new Promise((resolve, reject) => loader.parse(data, '', resolve, reject));
}

const r6 = (x) => (typeof x === 'number' ? Math.round(x * 1e6) / 1e6 : x);

// What three.js made of a file, as plain data.
function summary(gltf) {
	gltf.scene.updateMatrixWorld(true);
	const out = { cameras: [], lights: [], nodes: [], skins: 0, materials: [] };
	for (const c of gltf.cameras) {
		const w = new THREE.Vector3(), d = new THREE.Vector3();
		c.getWorldPosition(w);
		c.getWorldDirection(d);
		const s = { type: c.type, name: c.name, position: w.toArray().map(r6), direction: d.toArray().map(r6), near: r6(c.near), far: r6(c.far) };
		if (c.isPerspectiveCamera) Object.assign(s, { fov: r6(c.fov), aspect: r6(c.aspect) });
		else Object.assign(s, { left: r6(c.left), right: r6(c.right), top: r6(c.top), bottom: r6(c.bottom) });
		out.cameras.push(s);
	}
	gltf.scene.traverse((o) => {
		if (!o.isLight) return;
		const w = new THREE.Vector3();
		o.getWorldPosition(w);
		const s = { type: o.type, name: o.name, color: o.color.toArray().map(r6), intensity: r6(o.intensity), position: w.toArray().map(r6) };
		if (o.isPointLight || o.isSpotLight) Object.assign(s, { distance: r6(o.distance), decay: r6(o.decay) });
		if (o.isSpotLight) Object.assign(s, { angle: r6(o.angle), penumbra: r6(o.penumbra) });
		if (o.target) {
			const t = new THREE.Vector3();
			o.target.getWorldPosition(t);
			s.target = t.toArray().map(r6);
		}
		out.lights.push(s);
	});
	return gltf.parser.getDependencies('node').then((nodes) => {
		out.nodes = nodes.map((n) => n.name);
		return gltf.parser.getDependencies('skin');
	}).then((skins) => {
		out.skins = skins.length;
		return gltf.parser.getDependencies('material');
	}).then((mats) => {
		for (const m of mats) {
			const s = { name: m.name, type: m.type, aoMap: !!m.aoMap, aoMapIntensity: r6(m.aoMapIntensity), normalMap: !!m.normalMap };
			if (m.normalScale) s.normalScale = m.normalScale.toArray().map(r6);
			for (const k of ['ior', 'clearcoat', 'clearcoatRoughness', 'sheen', 'sheenRoughness', 'transmission', 'thickness',
				'attenuationDistance', 'specularIntensity', 'emissiveIntensity', 'metalness', 'roughness', 'alphaTest']) {
				if (k in m) s[k] = r6(m[k]);
			}
			for (const k of ['specularColor', 'sheenColor', 'attenuationColor', 'emissive', 'color'])
				if (m[k]) s[k] = m[k].toArray().map(r6);
			for (const k of ['clearcoatMap', 'clearcoatNormalMap', 'specularIntensityMap', 'sheenRoughnessMap', 'map', 'emissiveMap'])
				if (k in m) s[k] = !!m[k];
			if (m.map) s.mapOffset = m.map.offset.toArray().map(r6);
			out.materials.push(s);
		}
		return out;
	});
}

let ok = true;
if (mode === 'validate') {
	for (const f of files) if (!(await validate(f))) ok = false;
} else if (mode === 'three') {
	const [input, ...outputs] = files;
	const want = JSON.stringify(await summary(await parse(input)), null, 1);
	console.log(`${path.basename(input)}: three.js summary ${want.replace(/\s+/g, ' ').slice(0, 400)}...`);
	for (const f of outputs) {
		let got;
		try {
			got = JSON.stringify(await summary(await parse(f)), null, 1);
		} catch (e) {
			console.log(`${path.basename(f)}: three.js failed to load it: ${e}`);
			ok = false;
			continue;
		}
		if (got === want) {
			console.log(`${path.basename(f)}: three.js builds the same cameras, lights, nodes, skins and materials`);
		} else {
			ok = false;
			const a = want.split('\n'), b = got.split('\n');
			console.log(`${path.basename(f)}: three.js summary differs from the input's:`);
			for (let i = 0; i < Math.max(a.length, b.length); i++)
				if (a[i] !== b[i]) console.log(`  line ${i}: input ${a[i]} | output ${b[i]}`);
		}
	}
} else {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
process.exit(ok ? 0 : 1);
