// tests/node/validate.mjs - runs the Khronos glTF-Validator over glTF/GLB files.
//
//   node validate.mjs FILE.glb [FILE.gltf ...]
//
// Prints one line per file (error / warning / info / hint counts, warning
// codes) followed by every distinct error message. Exits 1 when any file
// has an error (warnings are reported, not fatal), 2 on bad usage or
// unreadable input.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

const files = process.argv.slice(2);
if (files.length === 0) {
	console.error('usage: node validate.mjs FILE.glb [...]');
	process.exit(2);
}

let failed = 0;
for (const file of files) {
	let bytes;
	try {
		bytes = new Uint8Array(fs.readFileSync(file));
	} catch (e) {
		console.error(`${file}: cannot read: ${e.message}`);
		process.exit(2);
	}
	let report;
	try {
		report = await validator.validateBytes(bytes, {
			uri: path.basename(file),
			maxIssues: 0,
			externalResourceFunction: (uri) => Promise.reject(new Error(`external resource ${uri} not expected`)),
		});
	} catch (e) {
		console.log(`${path.basename(file)}: validator rejected the file: ${e}`);
		failed++;
		continue;
	}
	const i = report.issues;
	const warnings = new Map();
	const errors = new Map();
	for (const m of i.messages) {
		if (m.severity === 1) warnings.set(m.code, (warnings.get(m.code) || 0) + 1);
		if (m.severity !== 0) continue;
		const key = `${m.code}: ${m.message}`;
		if (!errors.has(key)) errors.set(key, { n: 0, pointer: m.pointer });
		errors.get(key).n++;
	}
	const w = [...warnings].map(([code, n]) => `${code} x${n}`).join(', ');
	console.log(`${path.basename(file)}: ${i.numErrors} errors, ${i.numWarnings} warnings${w ? ` (${w})` : ''}, ${i.numInfos} infos, ${i.numHints} hints`);
	for (const [key, { n, pointer }] of errors) console.log(`  ERROR ${key} (${n}x, first at ${pointer ?? '?'})`);
	if (i.numErrors > 0) failed++;
}
process.exit(failed ? 1 : 0);
