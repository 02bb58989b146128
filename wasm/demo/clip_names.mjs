// wasm/demo/clip_names.mjs - what the browser demo names a retargeted clip.
//
// A retargeted clip is named after the clip it came from (a kick stays a
// kick, whichever slot - Walk or Idle - plays it). Exporters often give
// every clip the same meaningless name - Mixamo FBX files all hold
// "mixamo.com" (Blender re-exports "Armature|mixamo.com|Layer0"), others
// "Take 001" or "Default Take" -; then the motion file's name is used,
// after the "@" of Mixamo's "character@motion.fbx" convention
// ("ybot@kick.fbx" -> "kick"). Names already taken in the same GLB get a
// " 2", " 3", ... suffix, so the two slots never share one.
// Pure functions, no DOM: wasm/test/clip_names_check.mjs runs them in node.

const GENERIC = [/mixamo\.com/i, /^take\s*0*\d*$/i, /^default\s*take$/i, /^(animation|anim|clip|action)?\s*0*\d*$/i];

// True for names that say nothing about the motion ("", "mixamo.com", "Take 001", ...).
export function isGenericClipName(name) {
	const n = String(name ?? '').trim();
	return GENERIC.some((re) => re.test(n));
}

// The motion named by a file: "dir/ybot@kick.fbx" -> "kick", "Walking.glb" -> "Walking".
export function motionNameFromFile(label) {
	let base = String(label ?? '').split(/[\\/]/).pop();
	const dot = base.lastIndexOf('.');
	if (dot > 0) base = base.slice(0, dot);
	const at = base.lastIndexOf('@');
	if (at >= 0 && at + 1 < base.length) base = base.slice(at + 1);
	return base.trim();
}

// The name of the clip retargeted from `sourceClip` of the file `fileLabel`
// (null for the built-in sample), unique against the Set `taken` (not
// modified).
export function retargetedClipName(sourceClip, fileLabel, taken = new Set()) {
	let name = String(sourceClip ?? '').trim();
	if (isGenericClipName(name) && fileLabel) {
		const fromFile = motionNameFromFile(fileLabel);
		if (fromFile) name = fromFile;
	}
	if (!name) name = 'clip';
	let unique = name;
	for (let k = 2; taken.has(unique); k++) unique = `${name} ${k}`;
	return unique;
}
