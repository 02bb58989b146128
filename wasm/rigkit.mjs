// wasm/rigkit.mjs - the JavaScript API of rigkit's WebAssembly build
// (docs/wasm.md). Works in browsers (ES module) and in node 18+.
//
//   import { loadRigkit } from './rigkit.mjs';
//   const rk = await loadRigkit();                  // fetches rigkit_wasm.wasm (SIMD) or
//                                                   // rigkit_wasm_nosimd.wasm next to this file
//   const walk = rk.load(fbxBytes, 'walk.fbx');    // Uint8Array / ArrayBuffer: FBX, GLB or .gltf
//   const avatar = rk.load(glbBytes, 'avatar.glb');
//   const { glb, reports } = rk.retarget(walk, 'mixamo.com', avatar, { root: 'in-place' });
//   // glb: Uint8Array, a GLB of the avatar with the new clip (play it with three.js)
//   walk.free(); avatar.free();
//
// Scenes live in the module's memory until free() is called (JS garbage
// collection does not free them). Every failure throws a RigkitError whose
// message is the library's ("walk.fbx: ... (at byte N, node A/B)") and whose
// `code` is the rk_error_code. Calls are synchronous; a long one (a large
// FBX) blocks the thread it runs on: use a Web Worker to keep a page
// responsive.
import createRigkitModule from './rigkit_wasm.mjs';

export const ROOT_MODES = Object.freeze({ keep: 0, 'in-place': 1, lock: 2 });
export const SAMPLE_KINDS = Object.freeze({ source: 0, avatar: 1 });
const FLAG_SKIP_FINGERS = 1;
const FLAG_FOOT_IK = 2;

export class RigkitError extends Error {
	constructor(message, code) {
		super(message);
		this.name = 'RigkitError';
		this.code = code;   // rk_error_code: 1 invalid argument, 3 unknown format, 5 truncated, 6 corrupt, ...
	}
}

const isNode = typeof process === 'object' && typeof process.versions === 'object' && !!process.versions.node;

// Whether this engine runs WebAssembly SIMD: validates a one-function module
// returning i32x4.splat(0) (type () -> v128).
export function simdSupported() {
	const probe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
		10, 8, 1, 6, 0, 65, 0, 253, 17, 11]);
	try {
		return typeof WebAssembly === 'object' && WebAssembly.validate(probe);
	} catch {
		return false;
	}
}

// Loads the module. options.wasmBinary (ArrayBuffer / Uint8Array) skips the
// fetch; options.wasmUrl overrides where the .wasm is (default: next to this
// file, rigkit_wasm.wasm — built with WebAssembly SIMD — or, when the engine
// has no SIMD or options.simd === false, rigkit_wasm_nosimd.wasm; both use
// the same loader rigkit_wasm.mjs). rk.simd tells which one was taken (null
// with wasmBinary / wasmUrl). The bytes are always handed to emscripten (its
// own loader in emscripten 3.1.6 mistakes node 18+'s fetch for a browser's).
export async function loadRigkit(options = {}) {
	let wasmBinary = options.wasmBinary;
	let simd = null;
	if (!wasmBinary) {
		if (!options.wasmUrl) simd = options.simd !== false && simdSupported();
		const url = options.wasmUrl ?? new URL(simd ? './rigkit_wasm.wasm' : './rigkit_wasm_nosimd.wasm', import.meta.url);
		if (isNode && (typeof url !== 'object' || url.protocol === 'file:')) {
			const fs = await import('node:fs/promises');
			wasmBinary = await fs.readFile(url);
		} else {
			const response = await fetch(url);
			if (!response.ok) throw new RigkitError(`cannot fetch ${url}: HTTP ${response.status}`, 2);
			wasmBinary = await response.arrayBuffer();
		}
	}
	const module = await createRigkitModule({ wasmBinary });
	const rk = new Rigkit(module);
	rk.simd = simd;
	return rk;
}

export class Rigkit {
	constructor(module) {
		this.module = module;
		this._st = module._rkw_status_create();
		if (!this._st) throw new RigkitError('out of memory', 8);
		this.version = module.UTF8ToString(module._rkw_version());
	}

	// --- plumbing ---------------------------------------------------------

	_check(ok) {
		if (ok) return ok;
		const m = this.module;
		throw new RigkitError(m.UTF8ToString(m._rkw_status_text(this._st)), m._rkw_status_code(this._st));
	}

	// Runs fn(ptr...) with each string copied into the module's memory (null stays 0).
	_withStrings(strings, fn) {
		const m = this.module;
		const ptrs = [];
		try {
			for (const s of strings) {
				if (s === null || s === undefined) { ptrs.push(0); continue; }
				const n = m.lengthBytesUTF8(String(s)) + 1;
				const p = m._malloc(n);
				if (!p) throw new RigkitError('out of memory', 8);
				ptrs.push(p);
				m.stringToUTF8(String(s), p, n);
			}
			return fn(...ptrs);
		} finally {
			for (const p of ptrs) if (p) m._free(p);
		}
	}

	// Takes a malloc'd C string: returns it parsed as JSON and frees it.
	_takeJson(ptr) {
		const m = this.module;
		try {
			return JSON.parse(m.UTF8ToString(ptr));
		} finally {
			m._rkw_free_bytes(ptr);
		}
	}

	// --- API ----------------------------------------------------------------

	// Loads FBX (binary/ASCII), GLB or glTF with embedded buffers; the format
	// is detected from the bytes. `name` is used in error messages.
	load(bytes, name = 'input') {
		const m = this.module;
		const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
		const p = m._malloc(Math.max(1, data.length));
		if (!p) throw new RigkitError(`out of memory for ${data.length} bytes of ${name}`, 8);
		try {
			m.HEAPU8.set(data, p);
			const scene = this._withStrings([name], (n) => m._rkw_load(p, data.length, n, this._st));
			return new Scene(this, this._check(scene), name);
		} finally {
			m._free(p);
		}
	}

	// A built-in sample character: 'source' (Mixamo-style, clips Idle and
	// Walk) or 'avatar' (Avaturn / Ready Player Me style, no clips).
	sample(kind) {
		const k = SAMPLE_KINDS[kind];
		if (k === undefined) throw new RigkitError(`unknown sample '${kind}' (source or avatar)`, 1);
		return new Scene(this, this._check(this.module._rkw_sample(k, this._st)), `sample ${kind}`);
	}

	// Retargets clip(s) of `source` onto `target` and returns the target as
	// GLB. clips: a name, an array of names (all in one GLB), or null for
	// the source's first clip with tracks. options:
	//   root: 'keep' (default) | 'in-place' | 'lock'
	//   fps: key rate, 0 = the source's
	//   name: name of the new clip (one clip only)
	//   skipFingers, footIk: booleans (rk_retarget_opts)
	// Returns { glb: Uint8Array, reports: [report per clip] } (report:
	// rkw_retarget_clip's JSON). The target scene keeps the new clips.
	retarget(source, clips, target, options = {}) {
		const names = clips === null || clips === undefined ? [null] : Array.isArray(clips) ? clips : [clips];
		if (names.length === 0) throw new RigkitError('retarget: no clip given', 1);
		if (options.name && names.length > 1) throw new RigkitError('retarget: options.name needs exactly one clip', 1);
		const reports = names.map((clip) => this.retargetClip(source, clip, target, options));
		return { glb: target.writeGlb(), reports };
	}

	// One clip, no GLB: adds clip `clip` of `source` (null = its first clip
	// with tracks) to `target` and returns the report { source_clip, clip,
	// begin, end, mapped_bones, frames, tracks, source_hips_height,
	// target_hips_height, max_direction_error (rad), max_foot_miss }. Options
	// as for retarget(). Several calls (clips of different sources) then one
	// target.writeGlb() give one GLB with all of them.
	retargetClip(source, clip, target, options = {}) {
		const m = this.module;
		const root = ROOT_MODES[options.root ?? 'keep'];
		if (root === undefined) throw new RigkitError(`retarget: root '${options.root}' (keep, in-place or lock)`, 1);
		const fps = Number(options.fps ?? 0);
		const flags = (options.skipFingers ? FLAG_SKIP_FINGERS : 0) | (options.footIk ? FLAG_FOOT_IK : 0);
		const json = this._withStrings([clip, options.name ?? null], (c, n) =>
			m._rkw_retarget_clip(target._handle(), source._handle(), c, root, fps, n, flags, this._st));
		return this._takeJson(this._check(json));
	}

	// Frees the status block; the module itself is released with the object.
	dispose() {
		if (this._st) this.module._rkw_status_destroy(this._st);
		this._st = 0;
	}
}

export class Scene {
	constructor(rigkit, ptr, name) {
		this.rigkit = rigkit;
		this.ptr = ptr;
		this.name = name;
	}

	_handle() {
		if (!this.ptr) throw new RigkitError('scene used after free()', 1);
		return this.ptr;
	}

	// { format, creator, axes, unit_meters, frame_rate, nodes, joints, meshes:
	//   [...], clips: [{name, begin, end, tracks}], warnings: [...], ... }
	info() {
		const rk = this.rigkit;
		return rk._takeJson(rk._check(rk.module._rkw_info_json(this._handle(), rk._st)));
	}

	// Clip names.
	get clips() {
		return this.info().clips.map((c) => c.name);
	}

	// { valid, error, mapped, bones: { hips: 'Hips', leftUpperArm: ..., ... } }
	humanoid() {
		const rk = this.rigkit;
		return rk._takeJson(rk._check(rk.module._rkw_humanoid_json(this._handle(), rk._st)));
	}

	// The scene as GLB bytes (glTF space, every clip).
	writeGlb() {
		const rk = this.rigkit;
		const m = rk.module;
		const sizePtr = m._malloc(4);
		if (!sizePtr) throw new RigkitError('out of memory', 8);
		try {
			const p = rk._check(m._rkw_write_glb(this._handle(), sizePtr, rk._st));
			const size = m.HEAPU32[sizePtr >> 2];
			const out = m.HEAPU8.slice(p, p + size);
			m._rkw_free_glb(p);
			return out;
		} finally {
			m._free(sizePtr);
		}
	}

	free() {
		if (this.ptr) this.rigkit.module._rkw_free(this.ptr);
		this.ptr = 0;
	}
}
