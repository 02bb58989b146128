// wasm/demo/demo.mjs - the page logic of wasm/demo/index.html.
//
// 1. rigkit (WebAssembly) loads the avatar and the motion files, or makes
//    its built-in sample characters (rk_demo_scene) when none are given.
// 2. rk.retargetClip() puts the clips chosen for the Idle and Walk slots on
//    the avatar, each named after its source clip (clip_names.mjs: a
//    retargeted kick stays "kick"), target.writeGlb() writes one GLB.
// 3. three.js loads that GLB (GLTFLoader.parse) and plays it with an
//    AnimationMixer; the toggle cross-fades Idle <-> Walk (seed 004's
//    failure 5: both clips share the avatar's rest and frame, so the blend
//    is continuous).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { loadRigkit } from './rigkit.mjs';
import { retargetedClipName } from './clip_names.mjs';

const CROSSFADE_SECONDS = 0.4;
const REST = '__rest__';
const $ = (id) => document.getElementById(id);

// ---- three.js view -----------------------------------------------------------
const view = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
view.prepend(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe3e9);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 2.0);
sun.position.set(2, 4, 3);
scene.add(sun);
const grid = new THREE.GridHelper(10, 20, 0x8892a0, 0xb8bfc9);
scene.add(grid);
const camera = new THREE.PerspectiveCamera(35, 1, 0.01, 100);
camera.position.set(1.6, 1.4, 3.6);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0.9, 0);
controls.update();

function resize() {
	const w = view.clientWidth, h = view.clientHeight;
	renderer.setSize(w, h, false);
	camera.aspect = w / Math.max(1, h);
	camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// actions: clip name -> AnimationAction; slots: 'Walk' / 'Idle' -> the clip
// name playing in that slot (absent: none); current: the slot playing.
let character = null, mixer = null, actions = {}, slots = {}, current = null;
const slotAction = (slot) => (slots[slot] !== undefined ? actions[slots[slot]] : undefined);
const clock = new THREE.Clock();
renderer.setAnimationLoop(() => {
	const dt = clock.getDelta();
	if (mixer) mixer.update(dt);
	controls.update();
	renderer.render(scene, camera);
});

// ---- page state ------------------------------------------------------------
let rk = null;
let avatarFile = null;          // File or null (= the sample avatar)
let motions = [];               // [{ label, bytes|null, clips: [names] }] ; bytes null = the sample source
let downloadUrl = null;

function status(text, isError = false) {
	const el = $('status');
	el.textContent = text;
	el.className = isError ? 'error' : '';
}

// Fills the Idle / Walk selects with every clip of every motion.
function fillClipSelects() {
	const idle = $('idleClip'), walk = $('walkClip');
	idle.innerHTML = '';
	walk.innerHTML = '';
	const add = (select, value, text) => {
		const o = document.createElement('option');
		o.value = value;
		o.textContent = text;
		select.append(o);
	};
	add(idle, REST, 'none: the avatar\'s rest pose');
	motions.forEach((m, i) => m.clips.forEach((c) => {
		add(idle, `${i}/${c}`, `${m.label}: ${c}`);
		add(walk, `${i}/${c}`, `${m.label}: ${c}`);
	}));
	const pick = (select, re, fallback) => {
		const o = [...select.options].find((x) => x.value !== REST && re.test(x.textContent));
		select.value = o ? o.value : fallback;
	};
	pick(idle, /idle/i, REST);
	pick(walk, /walk/i, walk.options[walk.options.length - 1]?.value ?? '');
}

async function readMotion(file) {
	const bytes = new Uint8Array(await file.arrayBuffer());
	const s = rk.load(bytes, file.name);
	try {
		const info = s.info();
		const clips = info.clips.filter((c) => c.tracks > 0).map((c) => c.name);
		const h = s.humanoid();
		if (!h.valid) throw new Error(`${file.name} is not a humanoid rig: ${h.error}`);
		if (clips.length === 0) throw new Error(`${file.name} has no animation clip`);
		return { label: file.name, bytes, clips, info: `${info.format}, ${clips.length} clip(s), ${h.mapped} humanoid bones` };
	} finally {
		s.free();
	}
}

// ---- retarget + show ---------------------------------------------------------
function openMotion(m) {
	return m.bytes ? rk.load(m.bytes, m.label) : rk.sample('source');
}

async function run() {
	$('run').disabled = true;
	status('retargeting...');
	await new Promise((r) => setTimeout(r, 0));   // let the status paint: the work below is synchronous
	const opened = [];
	try {
		const t0 = performance.now();
		const target = avatarFile ? rk.load(new Uint8Array(await avatarFile.arrayBuffer()), avatarFile.name) : rk.sample('avatar');
		opened.push(target);
		const h = target.humanoid();
		if (!h.valid) throw new Error(`the avatar is not a humanoid rig: ${h.error}`);
		const t1 = performance.now();
		const options = { root: $('rootMode').value, footIk: $('footIk').checked };
		const reports = [];
		const jobs = [['Walk', $('walkClip').value], ['Idle', $('idleClip').value]];
		const named = {}, taken = new Set();
		let t2 = 0;
		for (const [slot, choice] of jobs) {
			if (!choice || choice === REST) continue;
			const slash = choice.indexOf('/');
			const m = motions[Number(choice.slice(0, slash))];
			const clip = choice.slice(slash + 1);
			const name = retargetedClipName(clip, m.bytes ? m.label : null, taken);
			taken.add(name);
			named[slot] = name;
			const source = openMotion(m);
			opened.push(source);
			const a = performance.now();
			reports.push(rk.retargetClip(source, clip, target, { ...options, name }));
			t2 += performance.now() - a;
		}
		const t3 = performance.now();
		const glb = target.writeGlb();
		const t4 = performance.now();
		await show(glb, named);
		const lines = [
			`avatar: ${h.mapped} humanoid bones mapped`,
			...reports.map((r) => `${r.source_clip} -> ${r.clip}: ${r.mapped_bones} bones, ${r.frames} frames, `
				+ `max bone direction error ${(r.max_direction_error * 180 / Math.PI).toExponential(1)} deg`),
			`load ${(t1 - t0).toFixed(0)} ms, retarget ${t2.toFixed(0)} ms, GLB write ${(t4 - t3).toFixed(0)} ms `
				+ `(${(glb.length / 1024).toFixed(0)} KiB)`,
		];
		status(lines.join('\n'));
		if (downloadUrl) URL.revokeObjectURL(downloadUrl);
		downloadUrl = URL.createObjectURL(new Blob([glb], { type: 'model/gltf-binary' }));
		$('download').href = downloadUrl;
		$('download').hidden = false;
	} catch (e) {
		status(e.message ?? String(e), true);
		console.error(e);
	} finally {
		for (const s of opened) s.free();
		$('run').disabled = false;
	}
}

// Plays the GLB; named: slot ('Walk' / 'Idle') -> clip name in it.
function show(glb, named) {
	return new Promise((resolve, reject) => {
		const ab = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
		new GLTFLoader().parse(ab, '', (gltf) => {
			if (character) scene.remove(character);
			if (mixer) mixer.stopAllAction();
			character = gltf.scene;
			scene.add(character);
			mixer = new THREE.AnimationMixer(character);
			actions = {};
			for (const clip of gltf.animations) actions[clip.name] = mixer.clipAction(clip);
			slots = { ...named };
			frame(character);
			current = slotAction('Walk') ? 'Walk' : slotAction('Idle') ? 'Idle' : null;
			if (current) slotAction(current).play();
			updateToggle();
			resolve();
		}, reject);
	});
}

// Camera on the character's rest bounding box.
function frame(object) {
	const box = new THREE.Box3().setFromObject(object);
	if (box.isEmpty()) return;
	const size = box.getSize(new THREE.Vector3()), center = box.getCenter(new THREE.Vector3());
	const h = Math.max(size.y, 0.5);
	controls.target.copy(center);
	camera.position.set(center.x + h * 0.9, center.y + h * 0.25, center.z + h * 2.1);
	camera.near = h / 100;
	camera.far = h * 100;
	camera.updateProjectionMatrix();
	controls.update();
}

// Idle <-> Walk. A missing Idle clip means the rest pose: the walk fades out.
function toggle() {
	if (!mixer || !slotAction('Walk')) return;
	const next = current === 'Walk' ? 'Idle' : 'Walk';
	const from = current && slotAction(current), to = slotAction(next);
	if (to) {
		to.reset().setEffectiveWeight(1).play();
		if (from) from.crossFadeTo(to, CROSSFADE_SECONDS, false);
		else to.fadeIn(CROSSFADE_SECONDS);
	} else if (from) {
		from.fadeOut(CROSSFADE_SECONDS);
	}
	current = next;
	updateToggle();
}

function updateToggle() {
	const b = $('toggle');
	b.disabled = !slotAction('Walk');
	b.textContent = current === 'Walk' ? 'Idle  (space)' : 'Walk  (space)';
	const playing = current && slotAction(current) ? `${slots[current]} (${current} slot)` : `${current} slot: rest pose`;
	$('clipname').textContent = current ? `playing: ${playing}` : '';
}

// ---- wiring ------------------------------------------------------------------
$('toggle').addEventListener('click', toggle);
window.addEventListener('keydown', (e) => {
	if (e.code === 'Space' && e.target === document.body) {
		e.preventDefault();
		toggle();
	}
});
$('run').addEventListener('click', run);
$('avatarFile').addEventListener('change', (e) => {
	avatarFile = e.target.files[0] ?? null;
	$('avatarInfo').textContent = avatarFile ? `${avatarFile.name} (${(avatarFile.size / 1024).toFixed(0)} KiB)` : 'built-in sample avatar';
});
$('motionFiles').addEventListener('change', async (e) => {
	const files = [...e.target.files];
	if (files.length === 0) return;
	try {
		const loaded = [];
		for (const f of files) loaded.push(await readMotion(f));
		motions = loaded;
		$('motionInfo').textContent = loaded.map((m) => `${m.label}: ${m.info}`).join('\n');
		fillClipSelects();
		status('motion loaded: press Retarget');
	} catch (err) {
		status(err.message ?? String(err), true);
	}
});

// Files named in the URL instead of picked: ?avatar=URL&motion=URL[,URL...]
// (relative to the page; e.g. for links to hosted assets), &play=Idle starts
// with the Idle clip.
async function fetchFile(url) {
	const response = await fetch(url);
	if (!response.ok) throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
	return new File([await response.arrayBuffer()], decodeURIComponent(url.split('/').pop()));
}

try {
	rk = await loadRigkit();
	$('version').textContent = `rigkit ${rk.version}${rk.simd ? ' (WebAssembly SIMD)' : ' (no WebAssembly SIMD)'}`;
	const sample = rk.sample('source');
	motions = [{ label: 'sample', bytes: null, clips: sample.clips }];
	sample.free();
	const params = new URLSearchParams(window.location.search);
	if (params.get('avatar')) {
		avatarFile = await fetchFile(params.get('avatar'));
		$('avatarInfo').textContent = `${avatarFile.name} (${(avatarFile.size / 1024).toFixed(0)} KiB, from the URL)`;
	}
	if (params.get('motion')) {
		const loaded = [];
		for (const url of params.get('motion').split(',')) loaded.push(await readMotion(await fetchFile(url)));
		motions = loaded;
		$('motionInfo').textContent = loaded.map((m) => `${m.label}: ${m.info}`).join('\n');
	}
	fillClipSelects();
	$('run').disabled = false;
	await run();   // the built-in characters (or the URL's files): the page works with no picking
	if (params.get('play') === 'Idle' && current === 'Walk') toggle();
} catch (e) {
	status(`cannot start: ${e.message ?? e}`, true);
	console.error(e);
}
