// wasm/test/wasm_check.mjs - node side of tests/test_wasm.sh: runs the
// WebAssembly build through wasm/rigkit.mjs and compares its results with
// the native CLI's. No npm packages needed.
//
//   node wasm_check.mjs retarget WASM_DIR OUT_DIR RUNS [SOURCE TARGET CLIP LABEL]...
//     Loads WASM_DIR/rigkit.mjs. For each case retargets CLIP of SOURCE onto
//     TARGET ("sample:source" / "sample:avatar" = rk_demo_scene in the
//     module, anything else a file path), writes OUT_DIR/LABEL.glb and checks
//     the bytes: a valid GLB header (magic, version 2, length, JSON chunk
//     first, BIN chunk), the clip among the JSON's animations with channels
//     and samplers, the report's max bone direction error < 1e-5 rad. Then
//     times RUNS repetitions of load + retarget + write (median) and prints
//     one line "timing LABEL load_ms retarget_write_ms total_ms" per case.
//
//   node wasm_check.mjs compare RESULT.glb NATIVE_POSE.json WASM_POSE.json
//     Both pose files are `rigkit pose --json --joints` of the same clip at
//     the same times, one of the native result, one of the WASM result
//     (the same target skeleton). For every joint whose parent is a joint
//     (hierarchy from RESULT.glb's JSON) the bone direction parent -> child
//     must agree within 1e-5 rad at every time; world rotations too (1e-5
//     rad) and joint positions (1e-5 of the skeleton's size: catches hips
//     travel, which directions do not see).
//
// Exit 1 when a check fails, 2 on bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const DIRECTION_TOL = 1e-5;   // radians
const ROTATION_TOL = 1e-5;    // radians
const POSITION_TOL = 1e-5;    // of the skeleton's size (largest joint distance at the first sample)
let failures = 0;

function fail(msg) {
	console.log(`FAIL: ${msg}`);
	failures++;
}

// GLB bytes -> { json, binLength } with every structural check of the container.
function parseGlb(bytes, label) {
	const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	if (bytes.length < 20) throw new Error(`${label}: ${bytes.length} bytes, too short for a GLB`);
	const magic = dv.getUint32(0, true), version = dv.getUint32(4, true), length = dv.getUint32(8, true);
	if (magic !== 0x46546c67) throw new Error(`${label}: magic 0x${magic.toString(16)} is not 'glTF'`);
	if (version !== 2) throw new Error(`${label}: GLB version ${version}, expected 2`);
	if (length !== bytes.length) throw new Error(`${label}: header length ${length} != ${bytes.length} bytes`);
	let off = 12, json = null, binLength = -1;
	while (off < length) {
		if (off + 8 > length) throw new Error(`${label}: chunk header past the end at ${off}`);
		const clen = dv.getUint32(off, true), ctype = dv.getUint32(off + 4, true);
		if (clen % 4 !== 0 || off + 8 + clen > length) throw new Error(`${label}: bad chunk length ${clen} at ${off}`);
		const body = bytes.subarray(off + 8, off + 8 + clen);
		if (ctype === 0x4e4f534a) {
			if (off !== 12) throw new Error(`${label}: the JSON chunk is not first`);
			json = JSON.parse(new TextDecoder().decode(body));
		} else if (ctype === 0x004e4942) {
			binLength = clen;
		}
		off += 8 + clen;
	}
	if (!json) throw new Error(`${label}: no JSON chunk`);
	if (!json.asset || json.asset.version !== '2.0') throw new Error(`${label}: asset.version is not "2.0"`);
	if (binLength < 0) throw new Error(`${label}: no BIN chunk`);
	if (json.buffers?.[0]?.byteLength > binLength) throw new Error(`${label}: buffer 0 is longer than the BIN chunk`);
	return { json, binLength };
}

function median(xs) {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function cmdRetarget(args) {
	const [wasmDir, outDir, runsText, ...rest] = args;
	if (!wasmDir || !outDir || !runsText || rest.length === 0 || rest.length % 4 !== 0) {
		console.error('usage: node wasm_check.mjs retarget WASM_DIR OUT_DIR RUNS [SOURCE TARGET CLIP LABEL]...');
		process.exit(2);
	}
	const runs = Math.max(1, Number(runsText) | 0);
	const t0 = performance.now();
	const { loadRigkit } = await import(pathToFileURL(path.resolve(wasmDir, 'rigkit.mjs')).href);
	const rk = await loadRigkit();
	console.log(`module: rigkit ${rk.version}, ${fs.statSync(path.join(wasmDir, rk.simd === false ? 'rigkit_wasm_nosimd.wasm' : 'rigkit_wasm.wasm')).size} bytes of wasm (SIMD: ${rk.simd}), `
		+ `instantiated in ${(performance.now() - t0).toFixed(1)} ms`);

	const open = (spec) => {
		if (spec.startsWith('sample:')) return rk.sample(spec.slice(7));
		return rk.load(fs.readFileSync(spec), path.basename(spec));
	};
	for (let c = 0; c < rest.length; c += 4) {
		const [src, tgt, clip, label] = rest.slice(c, c + 4);
		// One checked run, then the timed ones.
		let glb, report;
		{
			const s = open(src), t = open(tgt);
			try {
				const h = t.humanoid();
				if (!h.valid) fail(`${label}: target is not a humanoid: ${h.error}`);
				const r = rk.retarget(s, clip, t);
				glb = r.glb;
				report = r.reports[0];
			} finally {
				s.free();
				t.free();
			}
		}
		const file = path.join(outDir, `${label}.glb`);
		fs.writeFileSync(file, glb);
		try {
			const { json } = parseGlb(glb, label);
			const anim = (json.animations ?? []).find((a) => a.name === clip);
			if (!anim) fail(`${label}: no animation '${clip}' in the GLB (has: ${(json.animations ?? []).map((a) => a.name).join(', ')})`);
			else if (!(anim.channels?.length > 0) || !(anim.samplers?.length > 0)) fail(`${label}: animation '${clip}' has no channels`);
			else console.log(`${label}: ${glb.length} bytes, valid GLB, '${clip}' with ${anim.channels.length} channels; `
				+ `${report.mapped_bones} bones, ${report.frames} frames, max direction error ${report.max_direction_error.toExponential(2)} rad`);
			if (!(report.max_direction_error < DIRECTION_TOL)) fail(`${label}: report max_direction_error ${report.max_direction_error}`);
		} catch (e) {
			fail(e.message);
		}

		const load = [], work = [], write = [], total = [];
		for (let i = 0; i < runs; i++) {
			const a = performance.now();
			const s = open(src), t = open(tgt);
			const b = performance.now();
			rk.retargetClip(s, clip, t);
			const c = performance.now();
			t.writeGlb();
			const e = performance.now();
			s.free();
			t.free();
			load.push(b - a);
			work.push(c - b);
			write.push(e - c);
			total.push(e - a);
		}
		console.log(`timing ${label}: load ${median(load).toFixed(2)} ms, retarget ${median(work).toFixed(2)} ms, `
			+ `GLB write ${median(write).toFixed(2)} ms, total ${median(total).toFixed(2)} ms (medians of ${runs})`);
	}
	rk.dispose();
}

function cmdCompare(args) {
	const [glbFile, nativeFile, wasmFile] = args;
	if (!glbFile || !nativeFile || !wasmFile) {
		console.error('usage: node wasm_check.mjs compare RESULT.glb NATIVE_POSE.json WASM_POSE.json');
		process.exit(2);
	}
	const { json } = parseGlb(new Uint8Array(fs.readFileSync(glbFile)), glbFile);
	const parent = new Map();   // node name -> parent name
	for (const n of json.nodes ?? [])
		for (const c of n.children ?? []) parent.set(json.nodes[c].name, n.name);
	const a = JSON.parse(fs.readFileSync(nativeFile, 'utf8'));
	const b = JSON.parse(fs.readFileSync(wasmFile, 'utf8'));
	if (a.samples.length !== b.samples.length || a.samples.length === 0)
		throw new Error(`${a.samples.length} native samples vs ${b.samples.length} WASM samples`);
	const sub = (p, q) => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
	const norm = (v) => Math.hypot(v[0], v[1], v[2]);
	const angle = (u, v) => {
		const nu = norm(u), nv = norm(v);
		const cross = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
		return Math.atan2(norm(cross) / (nu * nv), (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (nu * nv));
	};
	// Angle of conj(p) * q (quaternions x, y, z, w), via atan2: no acos noise near 0.
	const quatAngle = (p, q) => {
		const [px, py, pz, pw] = p, [qx, qy, qz, qw] = q;
		const w = pw * qw + px * qx + py * qy + pz * qz;
		const x = pw * qx - px * qw - py * qz + pz * qy;
		const y = pw * qy + px * qz - py * qw - pz * qx;
		const z = pw * qz - px * qy + py * qx - pz * qw;
		return 2 * Math.atan2(Math.hypot(x, y, z), Math.abs(w));
	};
	// Skeleton size: the largest joint-to-joint distance of the first native sample.
	const first = Object.values(a.samples[0].nodes).map((n) => n.position);
	let extent = 0;
	for (const p of first) for (const q of first) extent = Math.max(extent, norm(sub(p, q)));
	if (!(extent > 0)) throw new Error('the native pose has no extent');
	let pairs = 0, worstDir = 0, worstRot = 0, worstPos = 0, worstWhere = '', worstRotWhere = '', worstPosWhere = '', times = 0;
	for (let s = 0; s < a.samples.length; s++) {
		const na = a.samples[s].nodes, nb = b.samples[s].nodes;
		if (Math.abs(a.samples[s].time - b.samples[s].time) > 1e-9) throw new Error(`sample ${s}: times differ`);
		times++;
		for (const [name, ja] of Object.entries(na)) {
			const jb = nb[name];
			if (!jb) { fail(`${name}: missing from the WASM result's pose`); continue; }
			const dp = norm(sub(ja.position, jb.position)) / extent;
			if (!(dp <= worstPos)) { worstPos = dp; worstPosWhere = `${name} at ${a.samples[s].time} s`; }
			const r = quatAngle(ja.rotation, jb.rotation);
			if (r > worstRot) { worstRot = r; worstRotWhere = `${name} at ${a.samples[s].time} s`; }
			const p = parent.get(name);
			if (!p || !na[p] || !nb[p]) continue;
			const da = sub(ja.position, na[p].position), db = sub(jb.position, nb[p].position);
			const len = norm(da);
			if (len < 1e-9) continue;   // a joint on top of its parent has no direction
			pairs++;
			const ang = angle(da, db);
			if (!(ang <= worstDir)) { worstDir = ang; worstWhere = `${p} -> ${name} at ${a.samples[s].time} s`; }
		}
	}
	console.log(`${path.basename(glbFile)}: ${times} times, ${pairs} bone directions: max ${worstDir.toExponential(2)} rad `
		+ `(${worstWhere || '-'}); world rotations: max ${worstRot.toExponential(2)} rad (${worstRotWhere || '-'}); `
		+ `positions: max ${worstPos.toExponential(2)} of the skeleton's size (${worstPosWhere || '-'})`);
	if (pairs === 0) fail('no bone pairs compared');
	if (!(worstDir < DIRECTION_TOL)) fail(`bone direction differs by ${worstDir} rad (${worstWhere}), limit ${DIRECTION_TOL}`);
	if (!(worstRot < ROTATION_TOL)) fail(`world rotation differs by ${worstRot} rad (${worstRotWhere}), limit ${ROTATION_TOL}`);
	if (!(worstPos < POSITION_TOL)) fail(`joint position differs by ${worstPos} of the skeleton's size (${worstPosWhere}), limit ${POSITION_TOL}`);
}

const [cmd, ...rest] = process.argv.slice(2);
try {
	if (cmd === 'retarget') await cmdRetarget(rest);
	else if (cmd === 'compare') cmdCompare(rest);
	else {
		console.error('usage: node wasm_check.mjs retarget|compare ...');
		process.exit(2);
	}
} catch (e) {
	fail(e.stack ?? String(e));
}
process.exit(failures ? 1 : 0);
