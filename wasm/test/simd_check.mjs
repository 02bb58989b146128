// wasm/test/simd_check.mjs - the WebAssembly SIMD build against the
// non-SIMD build and against an independent float64 skinning in JavaScript
// (tests/test_wasm.sh).
//
//   node wasm/test/simd_check.mjs WASM_DIR [SKINNED_FILE... [--rig XBOT.glb]]
//
// WASM_DIR/rigkit_bench.{mjs,wasm} (built with -msimd128) and
// WASM_DIR/nosimd/rigkit_bench.{mjs,wasm} (bench/bench_wasm.c). Checks:
//  1. the SIMD module's RK_SKIN_PATH_AUTO and RK_SKIN_PATH_SIMD128 resolve to
//     "simd128"; the non-SIMD module's AUTO to "scalar" and SIMD128 is not
//     supported there;
//  2. skinning (linear normals, renormalised) of a synthetic 20,000-vertex
//     set and of every skinned mesh of each SKINNED_FILE, posed at its first
//     clip's start + 0.5 s: the SIMD module's simd128 path, its scalar path
//     and the non-SIMD module agree within float rounding (4 ulps of the
//     summed terms' magnitude; the paths are meant to be bit-identical and
//     the count of identical floats is printed), and each agrees with a
//     float64 linear blend skinning computed here from the job's own input
//     streams and palette (positions: 16 ulps of the terms' magnitude;
//     normals: 1e-5, where the unnormalised normal is not tiny);
//  3. runtime sampling + local-to-model (random access, the synthetic
//     65-joint rig and, with --rig, Xbot's walk): the model matrices of the
//     last frame agree between the modules within 1e-5 of the rig's size;
//  4. wasm/rigkit.mjs with { simd: true } and { simd: false } (the fallback
//     binary rigkit_wasm_nosimd.wasm) retargets the sample Walk to the same
//     GLB bytes.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
if (args.length < 1) {
	console.error('usage: node wasm/test/simd_check.mjs WASM_DIR [SKINNED_FILE...] [--rig XBOT.glb]');
	process.exit(2);
}
const dir = args[0];
const files = [];
let rigFile = null;
for (let i = 1; i < args.length; i++) {
	if (args[i] === '--rig') rigFile = args[++i];
	else files.push(args[i]);
}

async function loadBench(sub) {
	const wasmBinary = fs.readFileSync(path.resolve(dir, sub, 'rigkit_bench.wasm'));
	const create = (await import(pathToFileURL(path.resolve(dir, sub, 'rigkit_bench.mjs')).href)).default;
	return create({ wasmBinary });
}
const S = await loadBench('.');
const P = await loadBench('nosimd');

let failures = 0;
function check(ok, what) {
	if (!ok) {
		failures++;
		console.log(`FAIL: ${what}`);
	}
	return ok;
}

// 1. paths
const name = (m, p) => m.UTF8ToString(m._bw_skin_path_name(p));
const SIMD128 = 2; // RK_SKIN_PATH_SIMD128 == RK_SKIN_PATH_SSE2
check(name(S, 0) === 'simd128', `SIMD module: auto resolves to '${name(S, 0)}', expected 'simd128'`);
check(name(S, SIMD128) === 'simd128', `SIMD module: path 2 is '${name(S, SIMD128)}', expected 'simd128'`);
check(name(P, 0) === 'scalar', `non-SIMD module: auto resolves to '${name(P, 0)}', expected 'scalar'`);
check(name(P, SIMD128) === '', `non-SIMD module: path 2 should be unsupported, is '${name(P, SIMD128)}'`);
console.log(`paths: SIMD module auto = ${name(S, 0)}, non-SIMD module auto = ${name(P, 0)}`);

const ULP = 2 ** -23;
const f32 = (m, ptr, n) => m.HEAPF32.slice(ptr >> 2, (ptr >> 2) + n);

// float64 skinning of job i of handle h in module m, with per-component
// magnitudes of the summed terms: { pos, posMag, nrm, nrmLen }
function oracle(m, h, i) {
	const info = m._malloc(11 * 4);
	if (!m._bw_skin_job(h, i, info)) throw new Error('bw_skin_job failed');
	const [n, pp, ps, np, ns, jp, js, wp, ws, mp, jc] = m.HEAPU32.slice(info >> 2, (info >> 2) + 11);
	m._free(info);
	const dv = new DataView(m.HEAPU8.buffer);
	const pal = f32(m, mp, jc * 16);
	const pos = new Float64Array(n * 3), posMag = new Float64Array(n * 3);
	const nrm = new Float64Array(n * 3), nrmLen = new Float64Array(n);
	for (let v = 0; v < n; v++) {
		const p = [0, 1, 2].map((c) => dv.getFloat32(pp + v * ps + 4 * c, true));
		const q = [0, 1, 2].map((c) => dv.getFloat32(np + v * ns + 4 * c, true));
		const M = new Float64Array(16), A = new Float64Array(16);
		for (let k = 0; k < 4; k++) {
			let j = dv.getUint16(jp + v * js + 2 * k, true);
			if (j > jc - 1) j = jc - 1;
			const w = dv.getFloat32(wp + v * ws + 4 * k, true);
			for (let e = 0; e < 16; e++) {
				M[e] += w * pal[j * 16 + e];
				A[e] += Math.abs(w * pal[j * 16 + e]);
			}
		}
		let l = 0;
		for (let r = 0; r < 3; r++) {
			pos[v * 3 + r] = M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r];
			posMag[v * 3 + r] = A[r] * Math.abs(p[0]) + A[4 + r] * Math.abs(p[1]) + A[8 + r] * Math.abs(p[2]) + A[12 + r];
			nrm[v * 3 + r] = M[r] * q[0] + M[4 + r] * q[1] + M[8 + r] * q[2];
			l += nrm[v * 3 + r] ** 2;
		}
		l = Math.sqrt(l);
		nrmLen[v] = l;
		for (let r = 0; r < 3; r++) nrm[v * 3 + r] = l > 0 ? nrm[v * 3 + r] / l : 0;
	}
	return { n, pos, posMag, nrm, nrmLen };
}

function compareSkin(label, make) {
	const hs = make(S), hp = make(P);
	if (!check(hs && hp, `${label}: could not set up the skinning jobs`)) return;
	const runs = [
		['wasm SIMD simd128', S, hs, SIMD128],
		['wasm SIMD scalar path', S, hs, 1],
		['wasm no-SIMD scalar', P, hp, 0],
	];
	const outs = runs.map(([, m, h, p]) => {
		check(m._bw_skin_run(h, p, 1) === 1, `${label}: run failed`);
		const n = m._bw_skin_vertices(h) * 3;
		return { pos: f32(m, m._bw_skin_out_positions(h), n), nrm: f32(m, m._bw_skin_out_normals(h), n) };
	});
	const jobs = P._bw_skin_jobs(hp);
	const ref = { pos: [], posMag: [], nrm: [], nrmLen: [] };
	for (let i = 0; i < jobs; i++) {
		const o = oracle(P, hp, i);
		ref.pos.push(...o.pos);
		ref.posMag.push(...o.posMag);
		ref.nrm.push(...o.nrm);
		for (let v = 0; v < o.n; v++) ref.nrmLen.push(o.nrmLen[v], o.nrmLen[v], o.nrmLen[v]);
	}
	const nf = outs[2].pos.length;
	check(ref.pos.length === nf, `${label}: oracle covers ${ref.pos.length} floats, outputs ${nf}`);
	// SIMD vs the non-SIMD build's scalar kernel, then everything vs float64
	let same = 0, worstRel = 0, worstPos = 0, worstNrm = 0;
	for (let r = 0; r < 2; r++) {
		for (let i = 0; i < nf; i++) {
			for (const [a, b, mag] of [[outs[r].pos[i], outs[2].pos[i], ref.posMag[i]], [outs[r].nrm[i], outs[2].nrm[i], 1]]) {
				if (Object.is(a, b)) {
					if (r === 0) same++;
					continue;
				}
				const rel = Math.abs(a - b) / ((1 + mag) * ULP);
				worstRel = Math.max(worstRel, rel);
			}
		}
	}
	check(worstRel <= 4, `${label}: SIMD and non-SIMD differ by ${worstRel.toFixed(1)} ulps of the terms' magnitude`);
	for (let r = 0; r < 3; r++)
		for (let i = 0; i < nf; i++) {
			const ep = Math.abs(outs[r].pos[i] - ref.pos[i]) / ((1 + ref.posMag[i]) * ULP);
			worstPos = Math.max(worstPos, ep);
			if (ref.nrmLen[i] > 1e-3) worstNrm = Math.max(worstNrm, Math.abs(outs[r].nrm[i] - ref.nrm[i]));
		}
	check(worstPos <= 16, `${label}: positions ${worstPos.toFixed(1)} ulps of the terms' magnitude from float64`);
	check(worstNrm <= 1e-5, `${label}: normals ${worstNrm.toExponential(2)} from float64`);
	console.log(`${label}: ${nf / 3} vertices in ${jobs} job(s); SIMD vs no-SIMD: ${same} of ${2 * nf} floats bit-identical, ` +
		`worst ${worstRel.toFixed(1)} ulps; vs float64: positions ${worstPos.toFixed(2)} ulps, normals ${worstNrm.toExponential(2)}`);
	S._bw_skin_free(hs);
	P._bw_skin_free(hp);
}

function copyIn(m, bytes) {
	const p = m._malloc(bytes.length);
	m.HEAPU8.set(bytes, p);
	return p;
}

compareSkin('synthetic', (m) => m._bw_skin_synth(20000));
for (const f of files) {
	const bytes = fs.readFileSync(f);
	compareSkin(path.basename(f), (m) => {
		const p = copyIn(m, bytes);
		const h = m._bw_skin_scene(p, bytes.length, 0.5);
		m._free(p);
		return h;
	});
}

// 3. runtime sampling
function compareRt(label, make) {
	const hs = make(S), hp = make(P);
	if (!check(hs && hp, `${label}: could not set up the rig`)) return;
	check(S._bw_rt_run(hs, 1, 1) === 1 && P._bw_rt_run(hp, 1, 1) === 1, `${label}: sampling failed`);
	const nj = S._bw_rt_joints(hs);
	const a = f32(S, S._bw_rt_model(hs), nj * 16), b = f32(P, P._bw_rt_model(hp), nj * 16);
	let size = 0, d = 0;
	for (let j = 0; j < nj; j++) for (let c = 12; c < 15; c++) size = Math.max(size, Math.abs(b[j * 16 + c]));
	for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
	check(d <= 1e-5 * Math.max(1, size), `${label}: model matrices differ by ${d} (rig size ${size})`);
	console.log(`${label}: ${nj} joints, model matrices SIMD vs no-SIMD: max difference ${d.toExponential(2)} (rig size ${size.toFixed(3)})`);
	S._bw_rt_free(hs);
	P._bw_rt_free(hp);
}
compareRt('runtime synthetic', (m) => m._bw_rt_synth());
if (rigFile) {
	const bytes = fs.readFileSync(rigFile);
	compareRt(`runtime ${path.basename(rigFile)} walk`, (m) => {
		const str = (s) => {
			const n = m.lengthBytesUTF8(s) + 1, p = m._malloc(n);
			m.stringToUTF8(s, p, n);
			return p;
		};
		const p = copyIn(m, bytes), root = str('mixamorig:Hips'), clip = str('walk');
		const h = m._bw_rt_scene(p, bytes.length, root, clip);
		[p, root, clip].forEach((x) => m._free(x));
		return h;
	});
}

// 4. the JS API on both binaries (wasm/rigkit.mjs: SIMD, and the fallback
// an engine without SIMD gets): the sample Walk retargeted onto the sample
// avatar gives the same GLB bytes.
{
	const { loadRigkit } = await import(pathToFileURL(path.resolve(dir, 'rigkit.mjs')).href);
	const glbs = [];
	for (const simd of [true, false]) {
		const rk = await loadRigkit({ simd });
		check(rk.simd === simd, `loadRigkit({ simd: ${simd} }) loaded simd = ${rk.simd}`);
		const src = rk.sample('source'), dst = rk.sample('avatar');
		glbs.push(rk.retarget(src, 'Walk', dst, { root: 'in-place' }).glb);
		src.free();
		dst.free();
		rk.dispose();
	}
	const same = glbs[0].length === glbs[1].length && glbs[0].every((b, i) => b === glbs[1][i]);
	check(same, `rigkit.mjs: the SIMD and non-SIMD binaries give different GLBs (${glbs[0].length} / ${glbs[1].length} bytes)`);
	console.log(`rigkit.mjs: rigkit_wasm.wasm (SIMD) and rigkit_wasm_nosimd.wasm retarget the sample Walk to ${same ? 'identical' : 'DIFFERENT'} ${glbs[0].length}-byte GLBs`);
}

if (failures) {
	console.log(`FAILED: ${failures} check(s)`);
	process.exit(1);
}
console.log('PASSED: SIMD and non-SIMD modules agree, and both match float64 skinning');
