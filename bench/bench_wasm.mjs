// bench/bench_wasm.mjs - WebAssembly SIMD (-msimd128) against the non-SIMD
// build, under node, with the native numbers of the same C code beside.
//
//   node --no-liftoff bench/bench_wasm.mjs [-n RUNS] [--vertices N] [--native BIN] WASM_DIR [AVATAR.glb [XBOT.glb]]
//
// (--no-liftoff, as scripts/bench.sh runs it: V8's optimising tier only,
// the steady state of hot code; with node's default dynamic tiering a
// function runs baseline code until it has used its budget, and rows mix
// tiers - the avatar's scalar rows measured 2-3x slow that way.)
//
// WASM_DIR is a scripts/build-wasm.sh folder: WASM_DIR/rigkit_bench.mjs
// (SIMD) and WASM_DIR/nosimd/rigkit_bench.mjs, both bench/bench_wasm.c.
// BIN: the native build of the same file (build/bench_wasm), run with the
// same arguments; its rows print beside (n/a without it).
//
// Workloads (bench/bench_wasm.c): skinning N vertices (default 1M), 64
// joints, 4 influences, positions + normals (renormalised), separate packed
// streams; every skinned mesh of AVATAR (20 passes a sample); runtime
// sampling of the synthetic 65-joint rig (bench/bench_synth_rig.h) and of
// XBOT's "walk" on its Hips skeleton, 600 frames x 10 a sample, the modes of
// bench_runtime.c. Rows:
//   wasm SIMD           the SIMD module, RK_SKIN_PATH_AUTO (= simd128)
//   wasm SIMD, scalar   the SIMD module asking for RK_SKIN_PATH_SCALAR (the
//                       scalar kernel, compiled with -msimd128)
//   wasm no SIMD        the module built without -msimd128 (scalar)
// The variants of one workload are sampled round-robin, the order reversed
// every other run, after 3 untimed warm-up calls each (V8 tiers a wasm
// function up between calls, not inside one); a sample is the process's
// CPU time (process.cpuUsage, user + system) of one call; the median of
// RUNS samples (default 9) is reported. Skinning outputs of the variants
// are compared (max |difference|, expected 0: the paths are bit-identical).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

let runs = 9, vertices = 1000000, native = null;
const pos = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '-n') runs = Number(argv[++i]);
	else if (argv[i] === '--vertices') vertices = Number(argv[++i]);
	else if (argv[i] === '--native') native = argv[++i];
	else if (argv[i].startsWith('-')) {
		console.error(`bench_wasm.mjs: unknown option ${argv[i]}`);
		process.exit(2);
	} else pos.push(argv[i]);
}
if (pos.length < 1 || !(runs >= 1) || !(vertices >= 1)) {
	console.error('usage: node bench/bench_wasm.mjs [-n RUNS] [--vertices N] [--native BIN] WASM_DIR [AVATAR.glb [XBOT.glb]]');
	process.exit(2);
}
const [dir, avatarFile, xbotFile] = pos;

async function loadBench(sub) {
	const js = path.resolve(dir, sub, 'rigkit_bench.mjs');
	const wasmBinary = fs.readFileSync(path.resolve(dir, sub, 'rigkit_bench.wasm'));
	const create = (await import(pathToFileURL(js).href)).default;
	return create({ wasmBinary });
}
const simd = await loadBench('.');
const plain = await loadBench('nosimd');

function copyIn(m, bytes) {
	const p = m._malloc(bytes.length);
	m.HEAPU8.set(bytes, p);
	return p;
}
function cstr(m, s) {
	const n = m.lengthBytesUTF8(s) + 1, p = m._malloc(n);
	m.stringToUTF8(s, p, n);
	return p;
}
const cpuNow = () => {
	const u = process.cpuUsage();
	return (u.user + u.system) * 1e-6;
};
const median = (v) => {
	const s = [...v].sort((a, b) => a - b), n = s.length;
	return n % 2 ? s[(n - 1) >> 1] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
};

// variants: [{ name, call() }]; returns seconds per rep, medians.
function timeInterleaved(variants, reps) {
	for (const v of variants) for (let w = 0; w < 3; w++) v.call(1);
	const t = variants.map(() => []);
	for (let r = 0; r < runs; r++) {
		const order = variants.map((_, i) => i);
		if (r % 2) order.reverse();
		for (const i of order) {
			const t0 = cpuNow();
			if (!variants[i].call(reps)) throw new Error(`${variants[i].name} failed`);
			t[i].push((cpuNow() - t0) / reps);
		}
	}
	return t.map(median);
}

// native rows: key "skin synthetic scalar" -> seconds
const nat = new Map();
let natNote = 'n/a (no --native)';
if (native) {
	const args = ['-n', String(runs), '--vertices', String(vertices)];
	if (avatarFile) args.push(avatarFile);
	if (avatarFile && xbotFile) args.push(xbotFile);
	try {
		const out = execFileSync(native, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
		for (const line of out.split('\n')) {
			const f = line.trim().split(/\s+/);
			if (f.length >= 4) nat.set(f.slice(0, 3).join(' '), f[3]);
		}
		natNote = `${path.basename(native)} (auto = ${nat.get('skin synthetic auto_is') ?? '?'})`;
	} catch (e) {
		natNote = `n/a (${native} failed: ${e.message.split('\n')[0]})`;
	}
}
const natSec = (k) => (nat.has(k) ? Number(nat.get(k)) : NaN);
const ms = (s) => (Number.isFinite(s) ? (s * 1e3).toFixed(3) : 'n/a');

console.log(`bench_wasm.mjs: node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`node flags: ${process.execArgv.join(' ') || '(none)'}; median of ${runs} interleaved samples (process CPU time); SIMD module's skinning path: ${simd.UTF8ToString(simd._bw_skin_path_name(0))}, non-SIMD: ${plain.UTF8ToString(plain._bw_skin_path_name(0))}; native: ${natNote}`);
console.log('');

// --- skinning ---------------------------------------------------------------
function maxDiff(ma, ha, mb, hb) {
	const n = ma._bw_skin_vertices(ha) * 3;
	let d = 0;
	for (const [fa, fb] of [[ma._bw_skin_out_positions(ha), mb._bw_skin_out_positions(hb)],
		[ma._bw_skin_out_normals(ha), mb._bw_skin_out_normals(hb)]]) {
		const a = ma.HEAPF32.subarray(fa >> 2, (fa >> 2) + n), b = mb.HEAPF32.subarray(fb >> 2, (fb >> 2) + n);
		for (let i = 0; i < n; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
	}
	return d;
}

const skinRows = [];
function benchSkin(label, key, make, reps) {
	const hs = make(simd), hp = make(plain);
	if (!hs || !hp) {
		skinRows.push(`| ${label} | n/a | | | | | | | |`);
		return;
	}
	const nv = simd._bw_skin_vertices(hs);
	const t = timeInterleaved([
		{ name: 'simd', call: (r) => simd._bw_skin_run(hs, 0, r) },
		{ name: 'simd-scalar', call: (r) => simd._bw_skin_run(hs, 1, r) },
		{ name: 'nosimd', call: (r) => plain._bw_skin_run(hp, 0, r) },
	], reps);
	simd._bw_skin_run(hs, 0, 1);
	plain._bw_skin_run(hp, 0, 1);
	const d = maxDiff(simd, hs, plain, hp);
	const nsc = natSec(`skin ${key} scalar`), nss = natSec(`skin ${key} sse2`), nsa = natSec(`skin ${key} auto`);
	skinRows.push(`| ${label} | ${nv} | ${ms(t[0])} | ${ms(t[1])} | ${ms(t[2])} | ${(t[2] / t[0]).toFixed(2)}x | ${ms(nsc)} | ${ms(nss)} | ${ms(nsa)} | ${d.toExponential(1)} |`);
	simd._bw_skin_free(hs);
	plain._bw_skin_free(hp);
}
benchSkin(`synthetic, 64 joints`, 'synthetic', (m) => m._bw_skin_synth(vertices), 1);
if (avatarFile) {
	const bytes = fs.readFileSync(avatarFile);
	benchSkin(`${path.basename(avatarFile)}, every skinned mesh`, 'avatar', (m) => {
		const p = copyIn(m, bytes);
		const h = m._bw_skin_scene(p, bytes.length, 0.5);
		m._free(p);
		return h;
	}, 20);
}
console.log('### Skinning, 4 influences, positions + normals, ms per pass');
console.log('');
console.log('| workload | vertices | wasm SIMD | wasm SIMD, scalar path | wasm no SIMD | SIMD speed-up | native scalar | native sse2 | native auto | max \\|SIMD - no SIMD\\| |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of skinRows) console.log(r);

// --- runtime sampling -------------------------------------------------------
const MODES = ['playback', 'random', 'playback_sample', 'random_sample', 'model'];
const MODE_NAMES = ['playback: sample (cursors) + local-to-model', 'random access: sample (binary search) + local-to-model',
	'playback: sample only', 'random access: sample only', 'local-to-model only'];
const rtRows = [];
function benchRt(label, key, make) {
	const hs = make(simd), hp = make(plain);
	if (!hs || !hp) {
		rtRows.push(`| ${label} | n/a | | | | |`);
		return;
	}
	const per = simd._bw_rt_joints(hs) * simd._bw_rt_frames();
	for (let mode = 0; mode < MODES.length; mode++) {
		const t = timeInterleaved([
			{ name: 'simd', call: (r) => simd._bw_rt_run(hs, mode, r) },
			{ name: 'nosimd', call: (r) => plain._bw_rt_run(hp, mode, r) },
		], 10);
		const mj = (s) => (Number.isFinite(s) ? (per / s / 1e6).toFixed(1) : 'n/a');
		const n = natSec(`rt ${key} ${MODES[mode]}`);
		rtRows.push(`| ${label} | ${MODE_NAMES[mode]} | ${mj(t[0])} | ${mj(t[1])} | ${(t[1] / t[0]).toFixed(2)}x | ${mj(n)} | ${Number.isFinite(n) ? (n / t[0]).toFixed(2) : 'n/a'} |`);
	}
	simd._bw_rt_free(hs);
	plain._bw_rt_free(hp);
}
benchRt('synthetic 65 joints', 'synthetic', (m) => m._bw_rt_synth());
if (xbotFile) {
	const bytes = fs.readFileSync(xbotFile);
	benchRt(`${path.basename(xbotFile)} walk`, 'xbot_walk', (m) => {
		const p = copyIn(m, bytes), root = cstr(m, 'mixamorig:Hips'), clip = cstr(m, 'walk');
		const h = m._bw_rt_scene(p, bytes.length, root, clip);
		m._free(p);
		m._free(root);
		m._free(clip);
		return h;
	});
}
console.log('');
console.log('### Runtime sampling, 600 frames a rep, M joints/s (joints x frames / CPU s)');
console.log('');
console.log('| rig | mode | wasm SIMD | wasm no SIMD | SIMD speed-up | native | wasm SIMD speed / native |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const r of rtRows) console.log(r);
