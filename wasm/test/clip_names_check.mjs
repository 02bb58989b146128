// wasm/test/clip_names_check.mjs - node checks of wasm/demo/clip_names.mjs,
// the browser demo's names for retargeted clips (tests/test_wasm_demo.sh).
// Expectations written by hand from the rules in clip_names.mjs.
import assert from 'node:assert/strict';
import { isGenericClipName, motionNameFromFile, retargetedClipName } from '../demo/clip_names.mjs';

const cases = [
	// [source clip, motion file (null = built-in sample), taken, expected]
	['Walk', null, [], 'Walk'],                                  // the sample source's clips keep their names
	['Idle', null, ['Walk'], 'Idle'],
	['mixamo.com', 'ybot@kick.fbx', [], 'kick'],                 // a Mixamo FBX: the motion from the file name
	['mixamo.com', 'ybot@kick.fbx', ['Walk'], 'kick'],           // whichever slot it plays in: never "Walk"
	['Armature|mixamo.com|Layer0', 'downloads/Y Bot@Samba Dancing.fbx', [], 'Samba Dancing'],
	['Take 001', 'C:\\mocap\\run_fast.fbx', [], 'run_fast'],
	['Default Take', 'jump.glb', [], 'jump'],
	['mixamo.com', 'Walking.fbx', [], 'Walking'],
	['walk', 'Xbot.glb', [], 'walk'],                            // a real clip name wins over the file
	['Walk', 'Soldier.glb', ['Walk'], 'Walk 2'],                 // both slots on the same clip
	['Walk', 'Soldier.glb', ['Walk', 'Walk 2'], 'Walk 3'],
	['mixamo.com', 'ybot@kick.fbx', ['kick'], 'kick 2'],
	['', 'a@.fbx', [], 'a@'],                                    // nothing after '@': the base name as is
	['', null, [], 'clip'],
	['  Run  ', 'x.fbx', [], 'Run'],
];
for (const [clip, file, taken, want] of cases) {
	const got = retargetedClipName(clip, file, new Set(taken));
	assert.equal(got, want, `retargetedClipName(${JSON.stringify(clip)}, ${JSON.stringify(file)}, [${taken}])`);
}
// taken is not modified
const taken = new Set(['Walk']);
retargetedClipName('Walk', null, taken);
assert.deepEqual([...taken], ['Walk']);

for (const n of ['', 'mixamo.com', 'Take 001', 'take1', 'Default Take', 'Animation', 'Clip 3', 'Armature|mixamo.com|Layer0'])
	assert.ok(isGenericClipName(n), `'${n}' is generic`);
for (const n of ['Walk', 'kick', 'Take off', 'idle_2', 'agree'])
	assert.ok(!isGenericClipName(n), `'${n}' is not generic`);
assert.equal(motionNameFromFile('ybot@kick.fbx'), 'kick');
assert.equal(motionNameFromFile('/a/b/Walking.glb'), 'Walking');
assert.equal(motionNameFromFile('noext'), 'noext');
console.log(`clip_names: ${cases.length} names and ${13 + 3} helper checks passed`);
