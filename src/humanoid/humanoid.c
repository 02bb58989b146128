/*
 * src/humanoid/humanoid.c - humanoid bone maps: VRM 1.0 bone names and
 * parents, validation, and detection from node names and the hierarchy.
 *
 * rk_humanoid_detect FEATURES
 *   - Name normalisation, in this order:
 *       1. everything up to the last ':' or '|' goes ("mixamorig:Hips",
 *          "Armature|Hips", "Character1:Ctrl:Hips" -> "Hips");
 *       2. one known rig prefix goes (case-insensitive):
 *            "mixamorig" plus optional digits, without a colon
 *                ("mixamorigHips", "mixamorig1Spine": three.js strips the
 *                colons of Mixamo names when it loads them)
 *            "Bip01 ", "Bip001 ", "Bip01_" ... (3ds Max Biped: "Bip" +
 *                digits + a separator; the bare "Bip01" root stays)
 *            "J_Bip_C_", "J_Bip_L_", "J_Bip_R_", "J_Adj_?_" (VRoid / VRM;
 *                the letter gives the side)
 *            "DEF-", "ORG-", "MCH-" (Blender Rigify; '_' accepted for '-')
 *            "CC_Base_" (Reallusion Character Creator)
 *            "Character" + digits + "_" (Maya HumanIK: "Character1_LeftUpLeg";
 *                the names that follow are Mixamo's, which derive from it)
 *       3. a Blender duplicate suffix, '.' and three digits at the very end,
 *          goes ("Hips.001", "UpperArm.L.001" -> "Hips", "UpperArm.L"),
 *          except after a DEF-/ORG-/MCH- prefix (Rigify's ".001" are limb
 *          segments and spine numbers);
 *       4. the rest is compared case-insensitively with the separators
 *          ' ', '_', '-', '.' (and any other punctuation) ignored.
 *   - Side markers: "Left"/"Right" at the start or the end ("LeftArm",
 *     "Left_Arm", "EyeLeft"), or "L"/"R" as a separate token at the start or
 *     the end ("L_UpperArm", "upperarm_l", "UpperArm.L", "Bip01 L UpperArm",
 *     "thumb_01_l"), or the VRoid prefix letter, or a single letter glued to
 *     the start of the name:
 *       lower-case "l"/"r" followed by an upper-case letter (Daz / Poser:
 *         "lShldrBend", "rForearmBend", "lThigh", "lIndex1");
 *       lower-case "l"/"r" followed by a lower-case letter (Poser BVH:
 *         "lshldr", "rthigh") only when the whole name matches nothing, the
 *         rest is a sided bone name and the scene holds the twin with the
 *         other letter ("rshldr");
 *       upper-case "L"/"R" followed by an upper-case letter only when the
 *         whole name matches nothing and the rest is a sided bone name
 *         ("LUpperArm", "RThigh", "LHand"; "LEG", "LHipJoint", "LThumb"
 *         and "Leg" stay unmapped, "RIGHTFOOT" is read as a whole).
 *   - Synonyms (after normalisation, separators removed; the side-less
 *     bones only match names without a side, the others only names with one):
 *       hips        hips, pelvis, hip; else the nearest common ancestor of the
 *                   two upper legs (how a "Root" that is the pelvis is found;
 *                   a plain "Root" above a Hips/Pelvis is never taken). With
 *                   Daz's hip -> pelvis -> thighs (and Character Creator's
 *                   Hip -> Pelvis) both carry the legs, the shallower "hip"
 *                   wins and "pelvis" stays unmapped.
 *       spine       spine, spine01 (Unreal), abdomen, waist (Character
 *                   Creator), abdomenlower (Daz)
 *       chest       spine1 (Mixamo), spine02 (Unreal), chest, abdomen2 (Daz
 *                   Genesis 2), abdomenupper (Daz Genesis 3/8)
 *       upperChest  spine2 (Mixamo), spine03 (Unreal), upperchest, chestlower
 *                   (Daz: what the spine chain below gives a Genesis 3/8
 *                   body; its chestUpper is the 4th chain joint, unmapped)
 *       neck        neck, neck01 (Unreal), necktwist01 (Character Creator),
 *                   necklower, neckupper (Daz: the lower one is shallower
 *                   and wins; neckUpper is the neck only when alone)
 *       head        head
 *       jaw         jaw, jawroot, lowerjaw (Daz)
 *       eyes        eye, faceeye (VRoid J_Adj_L_FaceEye)
 *       shoulder    shoulder, clavicle, collar, collarbone
 *       upperArm    arm (Mixamo "LeftArm"), upperarm, uparm, shldr,
 *                   shldrbend (Daz)
 *       lowerArm    forearm, lowerarm, elbow, forearmbend (Daz), lowarm
 *                   (Biovision BVH "LeftLowArm")
 *       hand        hand, wrist
 *       upperLeg    upleg (Mixamo), upperleg, thigh, hip (with a side),
 *                   thighbend (Daz)
 *       lowerLeg    leg (Mixamo "LeftLeg"), lowerleg, calf, shin, knee,
 *                   lowleg (Biovision BVH "LeftLowLeg")
 *       foot        foot, ankle
 *       toes        toebase, toes, toe, toe0 (Biped), ball (Unreal)
 *       fingers     [hand][f]FINGER + 1/2/3 or 01/02/03 or a VRM segment word,
 *                   FINGER = thumb, index, middle, mid, ring, pinky or little:
 *                   Mixamo "LeftHandIndex1..3", Unreal "index_01_l..03",
 *                   VRoid "J_Bip_L_Little1", Rigify "f_index.01.L",
 *                   Unity/VRM "LeftIndexProximal", Daz "lThumb1", "lMid1".
 *                   Segments 1, 2, 3 are thumb metacarpal, proximal, distal
 *                   and finger proximal, intermediate, distal. "...4" end joints are not mapped.
 *                   3ds Max Biped "Finger<f>[<k>]": f 0..4 = thumb..pinky,
 *                   k none/1/2 = segments 1/2/3.
 *       Rigify      with a DEF-/ORG-/MCH- prefix only: "spine" is the hips,
 *                   "spine.004" the neck and "spine.006" the head (the
 *                   numbering of Rigify's human metarig).
 *     Helpers that match nothing and stay unmapped: Daz's Twist joints
 *     ("lShldrTwist", "lForearmTwist", "lThighTwist", children of the Bend
 *     joints), "lCarpal1..4", "lMetatarsals", "lPectoral"; CMU BVH's
 *     "LHipJoint"/"RHipJoint", "Neck1", "LeftFingerBase" and the single thumb
 *     joint "LThumb" (one joint for the whole thumb: no VRM segment fits).
 *     CMU's "LowerBack" bends the lower back and is the first spine-chain
 *     joint: Hips -> LowerBack -> Spine -> Spine1 -> Neck gives spine =
 *     LowerBack, chest = Spine, upperChest = Spine1; "LeftHandIndex1" is
 *     the index proximal.
 *   - The spine by structure: once hips and the neck (or the head when there
 *     is no neck) are known, the nodes strictly between them on the neck's
 *     ancestry are the spine chain. 1 node -> spine; 2 -> spine, chest; 3 or
 *     more -> spine, chest, upperChest (the first three from the hips, the
 *     rest stay unmapped). The chain is cut after the deepest node that is
 *     an ancestor of the shoulders (or upper arms) so that they stay below
 *     the mapped chest. Names of spine nodes are only used when there is no
 *     neck and no head.
 *   - A head from the hierarchy: with a neck and no joint named head, a
 *     BVH End Site that is the neck's only child is the head (Poser's
 *     exports end the neck there); it follows the neck rigidly.
 *   - Hierarchy: a node is a candidate for bone b only if it is below the
 *     node already chosen for b's nearest mapped humanoid ancestor (the left
 *     hand must be below the left lower arm). Bones are resolved parents
 *     first. Among candidates: RK_NODE_JOINT nodes and skin joints before
 *     other nodes, then nodes with a candidate of one of b's humanoid
 *     children below them, then names without a Blender duplicate suffix
 *     ("Hips" before "Hips.001"), then the shallower, then the first in node
 *     order. A node is never used for two bones. Nodes carrying a mesh (and
 *     cameras, lights, the synthetic root) are never mapped.
 *   - The hierarchy before names (rki_hm_fix_limbs): once eyes, jaw, legs
 *     and arms are picked by name, each limb (hips -> upperLeg -> lowerLeg
 *     -> foot -> toes; spine top -> shoulder -> upperArm -> lowerArm ->
 *     hand) whose required slots are not all mapped, or not each below the
 *     previous, is mapped by its chain: the path from the anchor to the
 *     shallowest candidate of the limb's last named slot, slots given in
 *     order by a best alignment (+10 a joint whose name says the slot, -5
 *     one whose name says another bone, -1 per joint skipped between two
 *     slots; every required slot filled, else the limb stays as it was).
 *     "Calf_L" directly below the hips, then "Shin_L", is upperLeg, lowerLeg;
 *     Biovision's "LeftShoulder" -> "LeftElbow" -> "LeftWrist" gives
 *     upperArm = LeftShoulder. Fingers are picked after, below the hands.
 *   - Side from the position: limb names without any side marker ("Thigh",
 *     "Hand") become candidates, for an incomplete limb, of the side their
 *     position relative to its anchor gives along the scene's right axis
 *     (a character faces the front axis, so its left is the file's right
 *     axis; +X when unknown).
 *   - rk_humanoid_detect_explained tells for each bone why (declared, name,
 *     hierarchy), with a line of text.
 *
 * rk_humanoid_detect RESTRICTIONS
 *   - One humanoid per scene: with two characters, the shallowest matching
 *     one wins bone by bone, which may mix them (validation then fails).
 *   - At most RKI_HM_MAX_CANDIDATES nodes per bone are considered (the
 *     shallowest ones).
 *   - Names are only matched as a whole: "LeftArmTwist" and
 *     "upperarm_twist_01_l" match nothing. Names longer than 63 characters
 *     (after the prefix) match nothing.
 *   - Only one duplicate suffix of exactly three digits goes: "Hips.01",
 *     "Hips.0001", "Hips_001" and "Hips.001.001" match nothing.
 *     A Rigify metarig without DEF-/ORG-/MCH- prefixes reads "spine.001" ...
 *     "spine.006" as duplicates of "spine" (the spine bone).
 *   - A single side letter glued before a lower-case letter ("Lshin",
 *     "Rarm") is not a side. HumanIK's own extra joints (e.g.
 *     "LeftInHandIndex", "Spine3".."Spine9" beyond the structural chain) stay
 *     unmapped; BVH names beyond the synonyms above (and the chain rules)
 *     are not recognised.
 *   - The hierarchy rules look at limbs only; the spine chain is structural
 *     already, and a head or neck named like something else is not found.
 *   - Side from the position assumes the character faces the file's front
 *     axis (a VRM 0.x avatar facing -Z with unsided names gets its sides
 *     swapped); limb lengths are not used.
 *   - VRM 0.x thumb names are read with their VRM 1.0 meaning
 *     ("ThumbProximal" is thumbProximal; VRM 0.x meant the metacarpal).
 *   - When there is no neck, the chain to the head includes any unnamed
 *     neck joint (it may become upperChest).
 *   - Rigify spine numbering is recognised only with a DEF-/ORG-/MCH- prefix;
 *     the metarig's own "spine.004" is not.
 */
#include "rigkit/humanoid.h"

#include "core/internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- bone names and parents ------------------------------------------------- */

static const char *const rki_hm_names[RK_HUMANOID_BONE_COUNT] = {
	"hips", "spine", "chest", "upperChest", "neck", "head", "leftEye", "rightEye", "jaw",
	"leftUpperLeg", "leftLowerLeg", "leftFoot", "leftToes",
	"rightUpperLeg", "rightLowerLeg", "rightFoot", "rightToes",
	"leftShoulder", "leftUpperArm", "leftLowerArm", "leftHand",
	"rightShoulder", "rightUpperArm", "rightLowerArm", "rightHand",
	"leftThumbMetacarpal", "leftThumbProximal", "leftThumbDistal",
	"leftIndexProximal", "leftIndexIntermediate", "leftIndexDistal",
	"leftMiddleProximal", "leftMiddleIntermediate", "leftMiddleDistal",
	"leftRingProximal", "leftRingIntermediate", "leftRingDistal",
	"leftLittleProximal", "leftLittleIntermediate", "leftLittleDistal",
	"rightThumbMetacarpal", "rightThumbProximal", "rightThumbDistal",
	"rightIndexProximal", "rightIndexIntermediate", "rightIndexDistal",
	"rightMiddleProximal", "rightMiddleIntermediate", "rightMiddleDistal",
	"rightRingProximal", "rightRingIntermediate", "rightRingDistal",
	"rightLittleProximal", "rightLittleIntermediate", "rightLittleDistal",
};

#define RKI_HM_FINGER_BLOCK(hand, base) \
	[base + 0] = hand, [base + 1] = base + 0, [base + 2] = base + 1, \
	[base + 3] = hand, [base + 4] = base + 3, [base + 5] = base + 4, \
	[base + 6] = hand, [base + 7] = base + 6, [base + 8] = base + 7, \
	[base + 9] = hand, [base + 10] = base + 9, [base + 11] = base + 10, \
	[base + 12] = hand, [base + 13] = base + 12, [base + 14] = base + 13

static const int8_t rki_hm_parents[RK_HUMANOID_BONE_COUNT] = {
	[RK_HUMANOID_HIPS] = -1,
	[RK_HUMANOID_SPINE] = RK_HUMANOID_HIPS,
	[RK_HUMANOID_CHEST] = RK_HUMANOID_SPINE,
	[RK_HUMANOID_UPPER_CHEST] = RK_HUMANOID_CHEST,
	[RK_HUMANOID_NECK] = RK_HUMANOID_UPPER_CHEST,
	[RK_HUMANOID_HEAD] = RK_HUMANOID_NECK,
	[RK_HUMANOID_LEFT_EYE] = RK_HUMANOID_HEAD,
	[RK_HUMANOID_RIGHT_EYE] = RK_HUMANOID_HEAD,
	[RK_HUMANOID_JAW] = RK_HUMANOID_HEAD,
	[RK_HUMANOID_LEFT_UPPER_LEG] = RK_HUMANOID_HIPS,
	[RK_HUMANOID_LEFT_LOWER_LEG] = RK_HUMANOID_LEFT_UPPER_LEG,
	[RK_HUMANOID_LEFT_FOOT] = RK_HUMANOID_LEFT_LOWER_LEG,
	[RK_HUMANOID_LEFT_TOES] = RK_HUMANOID_LEFT_FOOT,
	[RK_HUMANOID_RIGHT_UPPER_LEG] = RK_HUMANOID_HIPS,
	[RK_HUMANOID_RIGHT_LOWER_LEG] = RK_HUMANOID_RIGHT_UPPER_LEG,
	[RK_HUMANOID_RIGHT_FOOT] = RK_HUMANOID_RIGHT_LOWER_LEG,
	[RK_HUMANOID_RIGHT_TOES] = RK_HUMANOID_RIGHT_FOOT,
	[RK_HUMANOID_LEFT_SHOULDER] = RK_HUMANOID_UPPER_CHEST,
	[RK_HUMANOID_LEFT_UPPER_ARM] = RK_HUMANOID_LEFT_SHOULDER,
	[RK_HUMANOID_LEFT_LOWER_ARM] = RK_HUMANOID_LEFT_UPPER_ARM,
	[RK_HUMANOID_LEFT_HAND] = RK_HUMANOID_LEFT_LOWER_ARM,
	[RK_HUMANOID_RIGHT_SHOULDER] = RK_HUMANOID_UPPER_CHEST,
	[RK_HUMANOID_RIGHT_UPPER_ARM] = RK_HUMANOID_RIGHT_SHOULDER,
	[RK_HUMANOID_RIGHT_LOWER_ARM] = RK_HUMANOID_RIGHT_UPPER_ARM,
	[RK_HUMANOID_RIGHT_HAND] = RK_HUMANOID_RIGHT_LOWER_ARM,
	RKI_HM_FINGER_BLOCK(RK_HUMANOID_LEFT_HAND, RK_HUMANOID_LEFT_THUMB_METACARPAL),
	RKI_HM_FINGER_BLOCK(RK_HUMANOID_RIGHT_HAND, RK_HUMANOID_RIGHT_THUMB_METACARPAL),
};

static bool rki_hm_bone_ok(int bone)
{
	return bone >= 0 && bone < RK_HUMANOID_BONE_COUNT;
}

const char *rk_humanoid_bone_name(rk_humanoid_bone bone)
{
	return rki_hm_bone_ok((int)bone) ? rki_hm_names[bone] : "";
}

static char rki_hm_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool rki_hm_equal_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (rki_hm_lower(*a) != rki_hm_lower(*b)) return false;
	return *a == *b;
}

bool rk_humanoid_bone_parse(const char *name, rk_humanoid_bone *out)
{
	if (!name) return false;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (rki_hm_equal_nocase(name, rki_hm_names[b])) {
			if (out) *out = (rk_humanoid_bone)b;
			return true;
		}
	}
	return false;
}

int rk_humanoid_bone_parent(rk_humanoid_bone bone)
{
	return rki_hm_bone_ok((int)bone) ? rki_hm_parents[bone] : -1;
}

bool rk_humanoid_bone_required(rk_humanoid_bone bone)
{
	switch (bone) {
	case RK_HUMANOID_HIPS: case RK_HUMANOID_SPINE: case RK_HUMANOID_HEAD:
	case RK_HUMANOID_LEFT_UPPER_ARM: case RK_HUMANOID_LEFT_LOWER_ARM: case RK_HUMANOID_LEFT_HAND:
	case RK_HUMANOID_RIGHT_UPPER_ARM: case RK_HUMANOID_RIGHT_LOWER_ARM: case RK_HUMANOID_RIGHT_HAND:
	case RK_HUMANOID_LEFT_UPPER_LEG: case RK_HUMANOID_LEFT_LOWER_LEG: case RK_HUMANOID_LEFT_FOOT:
	case RK_HUMANOID_RIGHT_UPPER_LEG: case RK_HUMANOID_RIGHT_LOWER_LEG: case RK_HUMANOID_RIGHT_FOOT:
		return true;
	default:
		return false;
	}
}

int rk_humanoid_parent(const rk_humanoid *humanoid, rk_humanoid_bone bone)
{
	if (!humanoid || !rki_hm_bone_ok((int)bone)) return -1;
	int p = rki_hm_parents[bone];
	while (p >= 0 && !humanoid->bones[p]) p = rki_hm_parents[p];
	return p;
}

/* ---- hierarchy helpers ----------------------------------------------------------- */

/* true when n is a strict descendant of a. */
static bool rki_hm_below(const rk_node *n, const rk_node *a)
{
	if (!n || !a || n == a) return false;
	while (n && n->depth > a->depth) n = n->parent;
	return n == a;
}

static bool rki_hm_in_scene(const rk_scene *scene, const rk_node *n)
{
	if (!scene->nodes.data || scene->nodes.count == 0) return false;
	uintptr_t base = (uintptr_t)scene->nodes.data, p = (uintptr_t)n;
	if (p < base) return false;
	uintptr_t offset = p - base;
	return offset % sizeof(rk_node) == 0 && offset / sizeof(rk_node) < scene->nodes.count;
}

/* ---- set, validate ------------------------------------------------------------------ */

bool rk_humanoid_set(rk_humanoid *humanoid, const rk_scene *scene, rk_humanoid_bone bone, const char *node_name,
	rk_error *err)
{
	if (!humanoid || !scene) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_humanoid_set: humanoid and scene are required");
		return false;
	}
	if (!rki_hm_bone_ok((int)bone)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_humanoid_set: %d is not a humanoid bone", (int)bone);
		return false;
	}
	if (!node_name || !node_name[0]) {
		humanoid->bones[bone] = NULL;
		rki_error_clear(err);
		return true;
	}
	const rk_node *n = rk_scene_find_node(scene, node_name);
	if (!n) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "no node named \"%s\" for humanoid bone %s", node_name,
			rki_hm_names[bone]);
		return false;
	}
	humanoid->bones[bone] = n;
	rki_error_clear(err);
	return true;
}

bool rk_humanoid_validate(const rk_humanoid *humanoid, const rk_scene *scene, rk_error *err)
{
	if (!humanoid || !scene) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_humanoid_validate: humanoid and scene are required");
		return false;
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *n = humanoid->bones[b];
		if (n && !rki_hm_in_scene(scene, n)) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "humanoid bone %s: the node is not a node of this scene",
				rki_hm_names[b]);
			return false;
		}
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *n = humanoid->bones[b];
		if (!n) continue;
		for (int c = b + 1; c < RK_HUMANOID_BONE_COUNT; c++) {
			if (humanoid->bones[c] == n) {
				rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "node \"%s\" is used for two humanoid bones, %s and %s",
					n->name ? n->name : "", rki_hm_names[b], rki_hm_names[c]);
				return false;
			}
		}
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!humanoid->bones[b] && rk_humanoid_bone_required((rk_humanoid_bone)b)) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "required humanoid bone %s is not mapped", rki_hm_names[b]);
			return false;
		}
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *n = humanoid->bones[b];
		int p = rk_humanoid_parent(humanoid, (rk_humanoid_bone)b);
		if (!n || p < 0) continue;
		const rk_node *pn = humanoid->bones[p];
		if (!rki_hm_below(n, pn)) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT,
				"humanoid bone %s (node \"%s\") is not below %s (node \"%s\")", rki_hm_names[b],
				n->name ? n->name : "", rki_hm_names[p], pn->name ? pn->name : "");
			return false;
		}
	}
	rki_error_clear(err);
	return true;
}

/* ---- name classification ------------------------------------------------------------ */

enum { RKI_HM_SIDE_NONE = 0, RKI_HM_SIDE_LEFT, RKI_HM_SIDE_RIGHT };

#define RKI_HM_NAME_MAX 64
#define RKI_HM_MAX_TOKENS 16

/* Case-insensitive prefix test; returns the length of `prefix` or 0. */
static size_t rki_hm_prefix(const char *s, const char *prefix)
{
	size_t i = 0;
	for (; prefix[i]; i++)
		if (rki_hm_lower(s[i]) != prefix[i]) return 0;
	return i;
}

static bool rki_hm_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool rki_hm_is_alnum(char c)
{
	return rki_hm_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool rki_hm_starts(const char *s, const char *prefix)
{
	/* strncmp(s, prefix, strlen(prefix)) == 0, in one pass */
	size_t i = 0;
	while (prefix[i] && s[i] == prefix[i]) i++;
	return !prefix[i];
}

static bool rki_hm_ends(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static int rki_hm_side_word(const char *s, size_t len)
{
	if ((len == 1 && s[0] == 'l') || (len == 4 && memcmp(s, "left", 4) == 0)) return RKI_HM_SIDE_LEFT;
	if ((len == 1 && s[0] == 'r') || (len == 5 && memcmp(s, "right", 5) == 0)) return RKI_HM_SIDE_RIGHT;
	return RKI_HM_SIDE_NONE;
}

typedef struct rki_hm_name {
	char core[RKI_HM_NAME_MAX];  /* lower-case alphanumerics, prefix and side removed */
	char last_number[8];         /* the last token when it is all digits ("004"), else "" */
	char stem[RKI_HM_NAME_MAX];  /* core without that last number token */
	int side;
	bool rigify;                 /* had a DEF-/ORG-/MCH- prefix */
	bool duplicate;              /* a Blender ".001" suffix was dropped */
	bool upper_glue;             /* starts "L"/"R" + an upper-case letter ("LUpperArm") */
} rki_hm_name;

static bool rki_hm_is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/* Strips prefixes, finds the side and builds the comparison key. With
 * upper_glue, a leading "L"/"R" followed by an upper-case letter is read as
 * the side. False when nothing is left or the name is too long. */
static bool rki_hm_normalize(const char *name, bool upper_glue, rki_hm_name *out)
{
	memset(out, 0, sizeof(*out));
	if (!name) return false;
	const char *s = name;
	for (const char *p = name; *p; p++)
		if (*p == ':' || *p == '|') s = p + 1;

	size_t k;
	if ((k = rki_hm_prefix(s, "mixamorig")) != 0) {
		const char *t = s + k;
		while (rki_hm_is_digit(*t)) t++;
		if (*t) s = t;
	} else if ((k = rki_hm_prefix(s, "bip")) != 0 && rki_hm_is_digit(s[k])) {
		const char *t = s + k;
		while (rki_hm_is_digit(*t)) t++;
		if (*t == ' ' || *t == '_' || *t == '-') s = t + 1;
	} else if ((k = rki_hm_prefix(s, "j_bip_")) != 0 || (k = rki_hm_prefix(s, "j_adj_")) != 0) {
		char c = rki_hm_lower(s[k]);
		if ((c == 'c' || c == 'l' || c == 'r') && s[k + 1] == '_') {
			out->side = c == 'l' ? RKI_HM_SIDE_LEFT : c == 'r' ? RKI_HM_SIDE_RIGHT : RKI_HM_SIDE_NONE;
			s += k + 2;
		}
	} else if ((k = rki_hm_prefix(s, "def")) != 0 || (k = rki_hm_prefix(s, "org")) != 0 ||
		(k = rki_hm_prefix(s, "mch")) != 0) {
		if (s[k] == '-' || s[k] == '_') {
			s += k + 1;
			out->rigify = true;
		}
	} else if ((k = rki_hm_prefix(s, "cc_base_")) != 0) {
		s += k;
	} else if ((k = rki_hm_prefix(s, "character")) != 0 && rki_hm_is_digit(s[k])) {
		/* Maya HumanIK: "Character1_LeftUpLeg" (Mixamo's names come from it) */
		const char *t = s + k;
		while (rki_hm_is_digit(*t)) t++;
		if (*t == '_' && t[1]) s = t + 1;
	}

	/* a side letter glued to the name: "lShldrBend" (Daz), and with
	 * upper_glue "LUpperArm" (the caller checks that the rest is a bone) */
	if (out->side == RKI_HM_SIDE_NONE && rki_hm_is_upper(s[0] ? s[1] : '\0')) {
		if (s[0] == 'l' || s[0] == 'r') {
			out->side = s[0] == 'l' ? RKI_HM_SIDE_LEFT : RKI_HM_SIDE_RIGHT;
			s++;
		} else if (s[0] == 'L' || s[0] == 'R') {
			out->upper_glue = true;
			if (upper_glue) {
				out->side = s[0] == 'L' ? RKI_HM_SIDE_LEFT : RKI_HM_SIDE_RIGHT;
				s++;
			}
		}
	}

	/* a Blender duplicate suffix: "Hips.001" (Rigify's ".001" are segments) */
	size_t slen = strlen(s);
	if (!out->rigify && slen > 4 && s[slen - 4] == '.' && rki_hm_is_digit(s[slen - 3]) &&
		rki_hm_is_digit(s[slen - 2]) && rki_hm_is_digit(s[slen - 1])) {
		slen -= 4;
		out->duplicate = true;
	}

	/* tokens of lower-case alphanumerics */
	char buf[RKI_HM_NAME_MAX];
	size_t tok_begin[RKI_HM_MAX_TOKENS], tok_len[RKI_HM_MAX_TOKENS];
	size_t ntok = 0, len = 0;
	bool in_token = false;
	for (const char *p = s; p < s + slen; p++) {
		if (!rki_hm_is_alnum(*p)) {
			in_token = false;
			continue;
		}
		if (len + 1 >= sizeof(buf)) return false;
		if (!in_token) {
			if (ntok == RKI_HM_MAX_TOKENS) return false;
			tok_begin[ntok] = len;
			tok_len[ntok] = 0;
			ntok++;
			in_token = true;
		}
		buf[len++] = rki_hm_lower(*p);
		tok_len[ntok - 1]++;
	}
	if (ntok == 0) return false;

	size_t first = 0, end = ntok;
	if (out->side == RKI_HM_SIDE_NONE && ntok > 1) {
		int side = rki_hm_side_word(buf + tok_begin[0], tok_len[0]);
		if (side) {
			out->side = side;
			first = 1;
		} else if ((side = rki_hm_side_word(buf + tok_begin[ntok - 1], tok_len[ntok - 1])) != 0) {
			out->side = side;
			end = ntok - 1;
		}
	}
	/* the remaining tokens, concatenated; remember a trailing number token */
	size_t n = 0;
	for (size_t t = first; t < end; t++) {
		bool number = true;
		for (size_t i = 0; i < tok_len[t]; i++)
			if (!rki_hm_is_digit(buf[tok_begin[t] + i])) number = false;
		if (t == end - 1 && t > first && number && tok_len[t] < sizeof(out->last_number)) {
			memcpy(out->last_number, buf + tok_begin[t], tok_len[t]);
			out->last_number[tok_len[t]] = '\0';
			memcpy(out->stem, out->core, n);
			out->stem[n] = '\0';
		}
		memcpy(out->core + n, buf + tok_begin[t], tok_len[t]);
		n += tok_len[t];
	}
	out->core[n] = '\0';
	if (!out->last_number[0]) memcpy(out->stem, out->core, n + 1);

	/* "LeftArm", "EyeLeft": a side word glued to the name */
	if (out->side == RKI_HM_SIDE_NONE) {
		static const struct { const char *word; int side; } glued[] = {
			{ "left", RKI_HM_SIDE_LEFT }, { "right", RKI_HM_SIDE_RIGHT },
		};
		for (size_t g = 0; g < sizeof(glued) / sizeof(glued[0]) && !out->side; g++) {
			size_t w = strlen(glued[g].word);
			if (n <= w) continue;
			if (rki_hm_starts(out->core, glued[g].word)) {
				memmove(out->core, out->core + w, n - w + 1);
				out->side = glued[g].side;
			} else if (rki_hm_ends(out->core, n, glued[g].word)) {
				out->core[n - w] = '\0';
				out->side = glued[g].side;
			}
			if (out->side) {
				n = strlen(out->core);
				out->last_number[0] = '\0';
				memcpy(out->stem, out->core, n + 1);
			}
		}
	}
	return n > 0;
}

/* The right-side twin of a left-side bone. */
static int rki_hm_mirror(int left_bone)
{
	if (left_bone == RK_HUMANOID_LEFT_EYE) return RK_HUMANOID_RIGHT_EYE;
	if (left_bone >= RK_HUMANOID_LEFT_UPPER_LEG && left_bone <= RK_HUMANOID_LEFT_TOES)
		return left_bone + (RK_HUMANOID_RIGHT_UPPER_LEG - RK_HUMANOID_LEFT_UPPER_LEG);
	if (left_bone >= RK_HUMANOID_LEFT_SHOULDER && left_bone <= RK_HUMANOID_LEFT_HAND)
		return left_bone + (RK_HUMANOID_RIGHT_SHOULDER - RK_HUMANOID_LEFT_SHOULDER);
	if (left_bone >= RK_HUMANOID_LEFT_THUMB_METACARPAL && left_bone <= RK_HUMANOID_LEFT_LITTLE_DISTAL)
		return left_bone + (RK_HUMANOID_RIGHT_THUMB_METACARPAL - RK_HUMANOID_LEFT_THUMB_METACARPAL);
	return -1;
}

/* Left-side finger bone named by `core`, or -1. */
static int rki_hm_finger(const char *core)
{
	static const struct { const char *word; int finger; } fingers[] = {
		{ "thumb", 0 }, { "index", 1 }, { "middle", 2 }, { "mid", 2 }, { "ring", 3 }, { "pinky", 4 },
		{ "little", 4 },
	};
	const char *s = core;
	if (rki_hm_starts(s, "hand")) s += 4;
	int finger = -1, segment = -1;
	if (rki_hm_starts(s, "finger")) {
		/* 3ds Max Biped: Finger<f>[<k>] */
		s += 6;
		if (s[0] < '0' || s[0] > '4') return -1;
		finger = s[0] - '0';
		if (!s[1]) segment = 0;
		else if ((s[1] == '1' || s[1] == '2') && !s[2]) segment = s[1] - '0';
		else return -1;
	} else {
		for (int pass = 0; pass < 2 && finger < 0; pass++) {
			if (pass == 1) {
				if (s[0] != 'f') break;
				s++;   /* Rigify "f_index" */
			}
			for (size_t f = 0; f < sizeof(fingers) / sizeof(fingers[0]); f++) {
				if (rki_hm_starts(s, fingers[f].word)) {
					finger = fingers[f].finger;
					s += strlen(fingers[f].word);
					break;
				}
			}
		}
		if (finger < 0) return -1;
		if (s[0] == '0' && s[1]) s++;
		if ((s[0] == '1' || s[0] == '2' || s[0] == '3') && !s[1]) segment = s[0] - '1';
		else if (finger == 0 && strcmp(s, "metacarpal") == 0) segment = 0;
		else if (strcmp(s, "proximal") == 0) segment = finger == 0 ? 1 : 0;
		else if (finger != 0 && strcmp(s, "intermediate") == 0) segment = 1;
		else if (strcmp(s, "distal") == 0) segment = 2;
		else return -1;
	}
	return RK_HUMANOID_LEFT_THUMB_METACARPAL + finger * 3 + segment;
}

typedef struct rki_hm_synonym {
	const char *core;
	int8_t bone;     /* the left bone for sided synonyms */
	bool sided;
} rki_hm_synonym;

static const rki_hm_synonym rki_hm_synonyms[] = {
	{ "hips", RK_HUMANOID_HIPS, false }, { "pelvis", RK_HUMANOID_HIPS, false }, { "hip", RK_HUMANOID_HIPS, false },
	{ "spine", RK_HUMANOID_SPINE, false }, { "spine01", RK_HUMANOID_SPINE, false },
	{ "abdomen", RK_HUMANOID_SPINE, false }, { "waist", RK_HUMANOID_SPINE, false },
	{ "abdomenlower", RK_HUMANOID_SPINE, false },
	{ "spine1", RK_HUMANOID_CHEST, false }, { "spine02", RK_HUMANOID_CHEST, false },
	{ "chest", RK_HUMANOID_CHEST, false }, { "abdomen2", RK_HUMANOID_CHEST, false },
	{ "abdomenupper", RK_HUMANOID_CHEST, false },
	{ "spine2", RK_HUMANOID_UPPER_CHEST, false }, { "spine03", RK_HUMANOID_UPPER_CHEST, false },
	{ "upperchest", RK_HUMANOID_UPPER_CHEST, false }, { "chestlower", RK_HUMANOID_UPPER_CHEST, false },
	{ "neck", RK_HUMANOID_NECK, false }, { "neck01", RK_HUMANOID_NECK, false },
	{ "necktwist01", RK_HUMANOID_NECK, false }, { "necklower", RK_HUMANOID_NECK, false },
	{ "neckupper", RK_HUMANOID_NECK, false },
	{ "head", RK_HUMANOID_HEAD, false },
	{ "jaw", RK_HUMANOID_JAW, false }, { "jawroot", RK_HUMANOID_JAW, false },
	{ "lowerjaw", RK_HUMANOID_JAW, false },
	{ "eye", RK_HUMANOID_LEFT_EYE, true }, { "faceeye", RK_HUMANOID_LEFT_EYE, true },
	{ "shoulder", RK_HUMANOID_LEFT_SHOULDER, true }, { "clavicle", RK_HUMANOID_LEFT_SHOULDER, true },
	{ "collar", RK_HUMANOID_LEFT_SHOULDER, true }, { "collarbone", RK_HUMANOID_LEFT_SHOULDER, true },
	{ "arm", RK_HUMANOID_LEFT_UPPER_ARM, true }, { "upperarm", RK_HUMANOID_LEFT_UPPER_ARM, true },
	{ "uparm", RK_HUMANOID_LEFT_UPPER_ARM, true }, { "shldr", RK_HUMANOID_LEFT_UPPER_ARM, true },
	{ "shldrbend", RK_HUMANOID_LEFT_UPPER_ARM, true },
	{ "forearm", RK_HUMANOID_LEFT_LOWER_ARM, true }, { "lowerarm", RK_HUMANOID_LEFT_LOWER_ARM, true },
	{ "elbow", RK_HUMANOID_LEFT_LOWER_ARM, true }, { "forearmbend", RK_HUMANOID_LEFT_LOWER_ARM, true },
	{ "lowarm", RK_HUMANOID_LEFT_LOWER_ARM, true },
	{ "hand", RK_HUMANOID_LEFT_HAND, true }, { "wrist", RK_HUMANOID_LEFT_HAND, true },
	{ "upleg", RK_HUMANOID_LEFT_UPPER_LEG, true }, { "upperleg", RK_HUMANOID_LEFT_UPPER_LEG, true },
	{ "thigh", RK_HUMANOID_LEFT_UPPER_LEG, true }, { "hip", RK_HUMANOID_LEFT_UPPER_LEG, true },
	{ "thighbend", RK_HUMANOID_LEFT_UPPER_LEG, true },
	{ "leg", RK_HUMANOID_LEFT_LOWER_LEG, true }, { "lowerleg", RK_HUMANOID_LEFT_LOWER_LEG, true },
	{ "calf", RK_HUMANOID_LEFT_LOWER_LEG, true }, { "shin", RK_HUMANOID_LEFT_LOWER_LEG, true },
	{ "knee", RK_HUMANOID_LEFT_LOWER_LEG, true }, { "lowleg", RK_HUMANOID_LEFT_LOWER_LEG, true },
	{ "foot", RK_HUMANOID_LEFT_FOOT, true }, { "ankle", RK_HUMANOID_LEFT_FOOT, true },
	{ "toebase", RK_HUMANOID_LEFT_TOES, true }, { "toes", RK_HUMANOID_LEFT_TOES, true },
	{ "toe", RK_HUMANOID_LEFT_TOES, true }, { "toe0", RK_HUMANOID_LEFT_TOES, true },
	{ "ball", RK_HUMANOID_LEFT_TOES, true },
};

/* The humanoid bone a normalised name designates, or -1. */
static int rki_hm_classify_name(const rki_hm_name *nm)
{
	if (nm->rigify && nm->side == RKI_HM_SIDE_NONE && strcmp(nm->stem, "spine") == 0) {
		if (!nm->last_number[0]) return RK_HUMANOID_HIPS;
		if (strcmp(nm->last_number, "004") == 0) return RK_HUMANOID_NECK;
		if (strcmp(nm->last_number, "006") == 0) return RK_HUMANOID_HEAD;
		return -1;   /* spine.001..003 come from the chain, .005 is a neck segment */
	}
	if (nm->side != RKI_HM_SIDE_NONE) {
		int f = rki_hm_finger(nm->core);
		if (f >= 0) return nm->side == RKI_HM_SIDE_LEFT ? f : rki_hm_mirror(f);
	}
	for (size_t i = 0; i < sizeof(rki_hm_synonyms) / sizeof(rki_hm_synonyms[0]); i++) {
		const rki_hm_synonym *syn = &rki_hm_synonyms[i];
		if (syn->sided != (nm->side != RKI_HM_SIDE_NONE) || syn->core[0] != nm->core[0] ||
			strcmp(syn->core, nm->core) != 0)
			continue;
		if (!syn->sided || nm->side == RKI_HM_SIDE_LEFT) return syn->bone;
		return rki_hm_mirror(syn->bone);
	}
	return -1;
}

/* rki_hm_classify's reading of `name` already normalised (nm, without
 * upper_glue). */
static int rki_hm_classify_parsed(const char *name, const rki_hm_name *nm)
{
	int bone = rki_hm_classify_name(nm);
	if (bone < 0 && nm->upper_glue) {
		rki_hm_name glued;
		if (rki_hm_normalize(name, true, &glued)) bone = rki_hm_classify_name(&glued);
	}
	return bone;
}

/* The humanoid bone a node name designates, or -1; *duplicate tells whether
 * the name carried a Blender ".001" suffix. A leading "L"/"R" glued to an
 * upper-case letter is a side only when the whole name matches nothing and
 * the rest is a sided bone ("LUpperArm", "RThigh"; not "LEG", "LHipJoint"). */
static int rki_hm_classify(const char *name, bool *duplicate)
{
	rki_hm_name nm;
	*duplicate = false;
	if (!rki_hm_normalize(name, false, &nm)) return -1;
	*duplicate = nm.duplicate;
	return rki_hm_classify_parsed(name, &nm);
}

/* The humanoid bone of a name whose side is a lower-case "l"/"r" glued to a
 * lower-case rest ("lshldr", "rthigh": Poser's BVH exports), or -1. Taken
 * only when the whole name matches nothing, the rest is a sided bone name,
 * and the scene holds the twin with the other letter ("rshldr"): without the
 * twin, "leg", "lowerarm" or "rib" would not be read this way anyway, and
 * with it a one-off name starting with l/r cannot be misread. */
static int rki_hm_classify_lower_glue(const rk_scene *scene, const rk_node *node)
{
	const char *name = node->name;
	if (!name) return -1;
	const char *s = name;
	for (const char *p = name; *p; p++)
		if (*p == ':' || *p == '|') s = p + 1;
	if ((s[0] != 'l' && s[0] != 'r') || s[1] < 'a' || s[1] > 'z') return -1;
	size_t len = strlen(name);
	if (len >= RKI_HM_NAME_MAX) return -1;
	char twin[RKI_HM_NAME_MAX];
	memcpy(twin, name, len + 1);
	twin[s - name] = s[0] == 'l' ? 'r' : 'l';
	bool found = false;
	for (size_t i = 0; i < scene->nodes.count && !found; i++) {
		const rk_node *n = &scene->nodes.data[i];
		found = n != node && n->name && strcmp(n->name, twin) == 0;
	}
	if (!found) return -1;
	rki_hm_name nm;
	if (!rki_hm_normalize(s + 1, false, &nm) || nm.side != RKI_HM_SIDE_NONE) return -1;
	nm.side = s[0] == 'l' ? RKI_HM_SIDE_LEFT : RKI_HM_SIDE_RIGHT;
	return rki_hm_classify_name(&nm);
}

/* The left bone a name designates when it has no side marker although the
 * bone needs one ("Thigh", "Shin", "UpperArm", "Hand"), or -1; nm is the
 * name normalised without upper_glue. */
static int rki_hm_classify_unsided(const rki_hm_name *nm)
{
	if (nm->side != RKI_HM_SIDE_NONE || nm->rigify) return -1;
	for (size_t i = 0; i < sizeof(rki_hm_synonyms) / sizeof(rki_hm_synonyms[0]); i++) {
		const rki_hm_synonym *syn = &rki_hm_synonyms[i];
		if (syn->sided && strcmp(syn->core, nm->core) == 0) return syn->bone;
	}
	return -1;
}

/* ---- detection ----------------------------------------------------------------------- */

#define RKI_HM_MAX_CANDIDATES 8
#define RKI_HM_MAX_CHAIN 64
#define RKI_HM_MAX_UNSIDED 32

typedef struct rki_hm_detect {
	const rk_scene *scene;
	rk_humanoid *out;
	const rk_node *cand[RK_HUMANOID_BONE_COUNT][RKI_HM_MAX_CANDIDATES];
	bool cand_duplicate[RK_HUMANOID_BONE_COUNT][RKI_HM_MAX_CANDIDATES];   /* "Hips.001" */
	uint8_t cand_count[RK_HUMANOID_BONE_COUNT];
	rk_humanoid_explanation *why;    /* NULL when not asked */
	/* limb joints named without a side ("Thigh"): their side comes from
	 * their position when a limb is incomplete (rki_hm_fix_limbs) */
	const rk_node *unsided[RKI_HM_MAX_UNSIDED];
	int8_t unsided_bone[RKI_HM_MAX_UNSIDED];   /* the left bone the name says */
	bool unsided_used[RKI_HM_MAX_UNSIDED];     /* promoted to a candidate */
	size_t unsided_count;
} rki_hm_detect;

#if defined(__GNUC__) || defined(__clang__)
static void rki_hm_explain(rki_hm_detect *d, int bone, rk_humanoid_reason reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#endif

/* Records why `bone` got its node (no-op when nobody asked). */
static void rki_hm_explain(rki_hm_detect *d, int bone, rk_humanoid_reason reason, const char *fmt, ...)
{
	if (!d->why) return;
	d->why->reason[bone] = reason;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->why->text[bone], sizeof(d->why->text[bone]), fmt, ap);
	va_end(ap);
}

static const char *rki_hm_node_name(const rk_node *n)
{
	return n && n->name ? n->name : "";
}

static bool rki_hm_mappable(const rk_node *n)
{
	if (!n->parent || n->mesh) return false;
	return n->kind == RK_NODE_NULL || n->kind == RK_NODE_JOINT || n->kind == RK_NODE_OTHER;
}

static bool rki_hm_joint_like(const rk_scene *scene, const rk_node *n)
{
	if (n->kind == RK_NODE_JOINT) return true;
	for (size_t s = 0; s < scene->skins.count; s++) {
		const rk_skin_deformer *skin = &scene->skins.data[s];
		for (size_t j = 0; j < skin->joint_count; j++)
			if (skin->joints[j].node == n) return true;
	}
	return false;
}

static bool rki_hm_used(const rk_humanoid *h, const rk_node *n)
{
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (h->bones[b] == n) return true;
	return false;
}

static void rki_hm_add_candidate(rki_hm_detect *d, int bone, const rk_node *n, bool duplicate)
{
	uint8_t *count = &d->cand_count[bone];
	if (*count < RKI_HM_MAX_CANDIDATES) {
		d->cand_duplicate[bone][*count] = duplicate;
		d->cand[bone][(*count)++] = n;
		return;
	}
	/* full: keep the shallowest */
	int deepest = 0;
	for (int i = 1; i < RKI_HM_MAX_CANDIDATES; i++)
		if (d->cand[bone][i]->depth > d->cand[bone][deepest]->depth) deepest = i;
	if (n->depth < d->cand[bone][deepest]->depth) {
		d->cand[bone][deepest] = n;
		d->cand_duplicate[bone][deepest] = duplicate;
	}
}

/* Some candidate of a humanoid child bone of `bone` lies below n. */
static bool rki_hm_supported(const rki_hm_detect *d, int bone, const rk_node *n)
{
	for (int c = bone + 1; c < RK_HUMANOID_BONE_COUNT; c++) {
		if (rki_hm_parents[c] != bone) continue;
		for (int i = 0; i < d->cand_count[c]; i++)
			if (rki_hm_below(d->cand[c][i], n)) return true;
	}
	return false;
}

/* The best unused candidate for `bone` below `anchor` (NULL: anywhere). */
static const rk_node *rki_hm_pick(const rki_hm_detect *d, int bone, const rk_node *anchor)
{
	const rk_node *best = NULL;
	bool best_joint = false, best_support = false, best_plain = false;
	int viable = 0;
	bool fits[RKI_HM_MAX_CANDIDATES];   /* unused and below the anchor: tested once */
	for (int i = 0; i < d->cand_count[bone]; i++) {
		fits[i] = !rki_hm_used(d->out, d->cand[bone][i]) && (!anchor || rki_hm_below(d->cand[bone][i], anchor));
		viable += fits[i];
	}
	for (int i = 0; i < d->cand_count[bone]; i++) {
		const rk_node *n = d->cand[bone][i];
		if (!fits[i]) continue;
		bool joint = rki_hm_joint_like(d->scene, n);
		bool support = viable > 1 && rki_hm_supported(d, bone, n);
		bool plain = !d->cand_duplicate[bone][i];
		bool better;
		if (!best) better = true;
		else if (joint != best_joint) better = joint;
		else if (support != best_support) better = support;
		else if (plain != best_plain) better = plain;
		else if (n->depth != best->depth) better = n->depth < best->depth;
		else better = n->index < best->index;
		if (better) {
			best = n;
			best_joint = joint;
			best_support = support;
			best_plain = plain;
		}
	}
	return best;
}

static const rk_node *rki_hm_pick_bone(const rki_hm_detect *d, int bone)
{
	int p = rk_humanoid_parent(d->out, (rk_humanoid_bone)bone);
	return rki_hm_pick(d, bone, p >= 0 ? d->out->bones[p] : NULL);
}

static const rk_node *rki_hm_common_ancestor(const rk_node *a, const rk_node *b)
{
	if (!a || !b) return NULL;
	while (a->depth > b->depth) a = a->parent;
	while (b->depth > a->depth) b = b->parent;
	while (a && b && a != b) {
		a = a->parent;
		b = b->parent;
	}
	return a == b ? a : NULL;
}

/* spine / chest / upperChest from the nodes between hips and top. */
static void rki_hm_spine_chain(rki_hm_detect *d, const rk_node *hips, const rk_node *top)
{
	const rk_node *path[RKI_HM_MAX_CHAIN];
	size_t path_count = 0;
	for (const rk_node *n = top->parent; n && n != hips; n = n->parent) {
		size_t pos = n->depth - hips->depth - 1;
		if (pos < RKI_HM_MAX_CHAIN && pos + 1 > path_count) path_count = pos + 1;
		if (pos < RKI_HM_MAX_CHAIN) path[pos] = n;
	}
	/* mappable nodes only, from the hips up */
	const rk_node *chain[RKI_HM_MAX_CHAIN];
	size_t count = 0;
	for (size_t i = 0; i < path_count; i++)
		if (rki_hm_mappable(path[i])) chain[count++] = path[i];
	if (count == 0) return;

	/* cut after the deepest chain node the arms hang from */
	size_t keep = count;
	for (int side = 0; side < 2; side++) {
		int shoulder = side ? RK_HUMANOID_RIGHT_SHOULDER : RK_HUMANOID_LEFT_SHOULDER;
		const rk_node *arm = rki_hm_pick(d, shoulder, hips);
		if (!arm) arm = rki_hm_pick(d, shoulder + 1, hips);
		if (!arm) continue;
		size_t branch = count;
		for (size_t i = count; i-- > 0;) {
			if (rki_hm_below(arm, chain[i])) {
				branch = i;
				break;
			}
		}
		if (branch + 1 < keep) keep = branch + 1;
	}
	static const int bones[3] = { RK_HUMANOID_SPINE, RK_HUMANOID_CHEST, RK_HUMANOID_UPPER_CHEST };
	static const char *const nth[3] = { "1st", "2nd", "3rd" };
	for (size_t i = 0; i < keep && i < 3; i++) {
		d->out->bones[bones[i]] = chain[i];
		bool dup;
		int says = rki_hm_classify(chain[i]->name, &dup);
		rki_hm_explain(d, bones[i], RK_HUMANOID_REASON_HIERARCHY,
			"%s of the %zu joint(s) between hips \"%s\" and %s \"%s\" (name \"%s\" says %s)", nth[i], keep,
			rki_hm_node_name(hips), d->out->bones[RK_HUMANOID_NECK] ? "neck" : "head", rki_hm_node_name(top),
			rki_hm_node_name(chain[i]), says >= 0 ? rki_hm_names[says] : "nothing");
	}
}

/* A humanoid the file declares (scene->hints, scheme "humanoid"): true when
 * it names a valid humanoid, which then wins over name matching. */
static bool rki_hm_declared(const rk_scene *scene, rk_humanoid *out)
{
	bool any = false;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < scene->hints.count; i++) {
		const rk_declared_hint *h = &scene->hints.data[i];
		rk_humanoid_bone bone;
		if (!h->scheme || strcmp(h->scheme, "humanoid") != 0 || !h->key || !h->node) continue;
		if (!rk_humanoid_bone_parse(h->key, &bone)) continue;
		out->bones[bone] = h->node;
		any = true;
	}
	if (any && rk_humanoid_validate(out, scene, NULL)) return true;
	memset(out, 0, sizeof(*out));
	return false;
}

/* ---- limbs: the hierarchy before names ----------------------------------------------- */

/* A limb's slots from its root down, left side; `required` has bit k set for
 * slot k. Legs hang from the hips, arms from the top of the spine chain. */
typedef struct rki_hm_limb {
	int slots[4];
	unsigned required;
	const char *what;
} rki_hm_limb;

static const rki_hm_limb rki_hm_limbs[2] = {
	{ { RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG, RK_HUMANOID_LEFT_FOOT, RK_HUMANOID_LEFT_TOES }, 0x7u,
		"leg" },
	{ { RK_HUMANOID_LEFT_SHOULDER, RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM, RK_HUMANOID_LEFT_HAND }, 0xEu,
		"arm" },
};

#define RKI_HM_LIMB_MATCH 10      /* a slot on a node whose name says that slot */
#define RKI_HM_LIMB_CONTRADICT 5  /* a slot on a node whose name says another bone */
#define RKI_HM_LIMB_GAP 1         /* each unassigned joint between two slots (helpers) */

/* The limb's slots, mirrored for the right side. */
static void rki_hm_limb_slots(const rki_hm_limb *limb, int side, int out[4])
{
	for (int k = 0; k < 4; k++) out[k] = side ? rki_hm_mirror(limb->slots[k]) : limb->slots[k];
}

/* Every required slot mapped, each mapped slot below the previous one (the
 * anchor for the first). */
static bool rki_hm_limb_ok(const rk_humanoid *h, const int slots[4], unsigned required, const rk_node *anchor)
{
	const rk_node *above = anchor;
	for (int k = 0; k < 4; k++) {
		const rk_node *n = h->bones[slots[k]];
		if (!n) {
			if (required & (1u << k)) return false;
			continue;
		}
		if (above && !rki_hm_below(n, above)) return false;
		above = n;
	}
	return true;
}

static bool rki_hm_used_outside(const rk_humanoid *h, const rk_node *n, const int slots[4])
{
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (h->bones[b] != n) continue;
		bool inside = false;
		for (int k = 0; k < 4; k++) inside |= slots[k] == b;
		if (!inside) return true;
	}
	return false;
}

/* n was promoted from the side-less names to a candidate for `bone`. */
static bool rki_hm_promoted(const rki_hm_detect *d, const rk_node *n, int bone)
{
	for (size_t u = 0; u < d->unsided_count; u++) {
		if (d->unsided[u] != n || !d->unsided_used[u]) continue;
		int b = d->unsided_bone[u];
		if (b == bone || rki_hm_mirror(b) == bone) return true;
	}
	return false;
}

static rk_vec3 rki_hm_axis_vector(rk_axis a)
{
	rk_vec3 v = { 0, 0, 0 };
	if (a < RK_AXIS_POSITIVE_X || a > RK_AXIS_NEGATIVE_Z) return (rk_vec3){ 1, 0, 0 };
	int k = (int)(a - RK_AXIS_POSITIVE_X);
	double sign = (k % 2) ? -1.0 : 1.0;
	if (k / 2 == 0) v.x = sign;
	else if (k / 2 == 1) v.y = sign;
	else v.z = sign;
	return v;
}

/* Side-less names of this limb below the anchor become candidates of the
 * side their position gives: a character faces the file's front axis, so
 * its left is the file's right axis (+X when unknown: glTF, Mixamo, VRM 1.0
 * and Blender characters). Returns how many were added. */
static int rki_hm_promote_unsided(rki_hm_detect *d, const rki_hm_limb *limb, int side, const rk_node *anchor)
{
	rk_vec3 left = rki_hm_axis_vector(d->scene->settings.axes.right);
	rk_vec3 at = rk_mat4_get_translation(anchor->node_to_world);
	int added = 0;
	for (size_t u = 0; u < d->unsided_count; u++) {
		const rk_node *n = d->unsided[u];
		int k = -1;
		for (int s = 0; s < 4; s++)
			if (limb->slots[s] == d->unsided_bone[u]) k = s;
		if (k < 0 || d->unsided_used[u] || !rki_hm_below(n, anchor) || rki_hm_used(d->out, n)) continue;
		double x = rk_vec3_dot(rk_vec3_sub(rk_mat4_get_translation(n->node_to_world), at), left);
		if (x == 0.0 || (x < 0.0) != (side == 1)) continue;
		int bone = side ? rki_hm_mirror(limb->slots[k]) : limb->slots[k];
		rki_hm_add_candidate(d, bone, n, false);
		d->unsided_used[u] = true;
		added++;
	}
	return added;
}

/* Maps the limb by its chain: the path from the anchor down to the deepest
 * slot's named candidate, slots given to joints in order (an alignment that
 * scores name agreement, penalises names that say another bone and joints
 * skipped between slots, and needs every required slot). Applied only when
 * it maps every required slot. */
static void rki_hm_limb_resolve(rki_hm_detect *d, const rki_hm_limb *limb, int side, const rk_node *anchor)
{
	int slots[4];
	rki_hm_limb_slots(limb, side, slots);
	/* the chain's end: the candidate of the last slot that has one, the shallowest */
	const rk_node *end = NULL;
	for (int k = 3; k >= 0 && !end; k--) {
		int b = slots[k];
		for (int i = 0; i < d->cand_count[b]; i++) {
			const rk_node *n = d->cand[b][i];
			if (!rki_hm_below(n, anchor) || rki_hm_used_outside(d->out, n, slots)) continue;
			if (!end || n->depth < end->depth) end = n;
		}
	}
	if (!end) return;
	const rk_node *path[RKI_HM_MAX_CHAIN];
	int cls[RKI_HM_MAX_CHAIN];   /* slot its name says, 4 = another bone, -1 = nothing */
	/* end is strictly below anchor (rki_hm_below), so the path has exactly
	 * the depth difference in nodes */
	if (end->depth <= anchor->depth || end->depth - anchor->depth > RKI_HM_MAX_CHAIN) return;
	size_t m = end->depth - anchor->depth;
	size_t i = m;
	for (const rk_node *n = end; n && n != anchor && i > 0; n = n->parent) path[--i] = n;
	if (i != 0) return;
	for (i = 0; i < m; i++) {
		bool dup;
		int b = rki_hm_mappable(path[i]) && !rki_hm_used_outside(d->out, path[i], slots) ? rki_hm_classify(path[i]->name,
			&dup) : -2;
		cls[i] = b == -2 ? -2 : b < 0 ? -1 : 4;
		for (int k = 0; k < 4; k++)
			if (b == slots[k] || (b == -1 && rki_hm_promoted(d, path[i], slots[k]))) cls[i] = k;
	}
	/* best[k][j]: slots 0..k-1 placed, the last at position j - 1 (j = 0: none yet) */
	enum { RKI_NONE = -1000000 };
	int best[5][RKI_HM_MAX_CHAIN + 1], from[5][RKI_HM_MAX_CHAIN + 1];
	for (int k = 0; k <= 4; k++)
		for (size_t j = 0; j <= m; j++) best[k][j] = RKI_NONE, from[k][j] = -1;
	best[0][0] = 0;
	for (int k = 0; k < 4; k++) {
		for (size_t j = 0; j <= m; j++) {
			if (best[k][j] == RKI_NONE) continue;
			if (!(limb->required & (1u << k)) && best[k][j] > best[k + 1][j]) {
				best[k + 1][j] = best[k][j];
				from[k + 1][j] = (int)j;   /* skipped: same position */
			}
			for (size_t p = j; p < m; p++) {
				if (cls[p] == -2) continue;   /* not mappable, or another limb's */
				int v = best[k][j] + (cls[p] == k ? RKI_HM_LIMB_MATCH : cls[p] >= 0 ? -RKI_HM_LIMB_CONTRADICT : 0);
				if (j > 0) v -= (int)(p - (j - 1) - 1) * RKI_HM_LIMB_GAP;
				if (v > best[k + 1][p + 1]) {
					best[k + 1][p + 1] = v;
					from[k + 1][p + 1] = (int)j;
				}
			}
		}
	}
	size_t bj = 0;
	for (size_t j = 0; j <= m; j++)
		if (best[4][j] > best[4][bj]) bj = j;
	if (best[4][bj] == RKI_NONE) return;
	int pos[4];
	for (int k = 4, j = (int)bj; k > 0; k--) {
		int f = from[k][j];
		pos[k - 1] = f == j ? -1 : j - 1;
		j = f;
	}
	for (int k = 0; k < 4; k++)
		if ((limb->required & (1u << k)) && pos[k] < 0) return;
	for (int k = 0; k < 4; k++) {
		d->out->bones[slots[k]] = pos[k] >= 0 ? path[pos[k]] : NULL;
		if (pos[k] < 0) continue;
		const rk_node *n = path[pos[k]];
		if (cls[pos[k]] == k && rki_hm_promoted(d, n, slots[k])) {
			rki_hm_explain(d, slots[k], RK_HUMANOID_REASON_NAME,
				"name \"%s\" says %s without a side; %s by its position (the %s side of \"%s\")", rki_hm_node_name(n),
				rki_hm_names[limb->slots[k]] + 4, side ? "right" : "left", side ? "right" : "left", rki_hm_node_name(anchor));
		} else if (cls[pos[k]] == k) {
			rki_hm_explain(d, slots[k], RK_HUMANOID_REASON_NAME, "name \"%s\" says %s; in the %s chain below \"%s\"",
				rki_hm_node_name(n), rki_hm_names[slots[k]], limb->what, rki_hm_node_name(anchor));
		} else {
			bool dup;
			int b = rki_hm_classify(n->name, &dup);
			rki_hm_explain(d, slots[k], RK_HUMANOID_REASON_HIERARCHY,
				"joint %d of the %s chain below \"%s\" (name \"%s\" says %s; the hierarchy wins)", pos[k] + 1, limb->what,
				rki_hm_node_name(anchor), rki_hm_node_name(n), b >= 0 ? rki_hm_names[b] : "nothing");
		}
	}
}

/* Each limb whose name matches are incomplete or out of order is mapped by
 * its chain instead (rki_hm_limb_resolve). */
static void rki_hm_fix_limbs(rki_hm_detect *d)
{
	for (int l = 0; l < 2; l++) {
		for (int side = 0; side < 2; side++) {
			int slots[4];
			rki_hm_limb_slots(&rki_hm_limbs[l], side, slots);
			const rk_node *anchor = NULL;
			if (l == 0) {
				anchor = d->out->bones[RK_HUMANOID_HIPS];
			} else {
				int p = rk_humanoid_parent(d->out, (rk_humanoid_bone)slots[0]);
				anchor = p >= 0 ? d->out->bones[p] : NULL;
			}
			if (!anchor || rki_hm_limb_ok(d->out, slots, rki_hm_limbs[l].required, anchor)) continue;
			rki_hm_promote_unsided(d, &rki_hm_limbs[l], side, anchor);
			rki_hm_limb_resolve(d, &rki_hm_limbs[l], side, anchor);
		}
	}
}

static bool rki_hm_detect_run(const rk_scene *scene, rk_humanoid *out, rk_humanoid_explanation *why, rk_error *err);

bool rk_humanoid_detect(const rk_scene *scene, rk_humanoid *out, rk_error *err)
{
	return rki_hm_detect_run(scene, out, NULL, err);
}

bool rk_humanoid_detect_explained(const rk_scene *scene, rk_humanoid *out, rk_humanoid_explanation *why,
	rk_error *err)
{
	return rki_hm_detect_run(scene, out, why, err);
}

const char *rk_humanoid_reason_name(rk_humanoid_reason reason)
{
	switch (reason) {
	case RK_HUMANOID_REASON_DECLARED: return "declared";
	case RK_HUMANOID_REASON_NAME: return "name";
	case RK_HUMANOID_REASON_HIERARCHY: return "hierarchy";
	case RK_HUMANOID_REASON_MAP: return "map";
	default: return "";
	}
}

static bool rki_hm_detect_run(const rk_scene *scene, rk_humanoid *out, rk_humanoid_explanation *why, rk_error *err)
{
	if (out) memset(out, 0, sizeof(*out));
	if (why) memset(why, 0, sizeof(*why));
	if (!scene || !out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_humanoid_detect: scene and out are required");
		return false;
	}
	if (scene->hints.count && rki_hm_declared(scene, out)) {
		for (size_t i = 0; why && i < scene->hints.count; i++) {
			const rk_declared_hint *h = &scene->hints.data[i];
			rk_humanoid_bone bone;
			if (!h->scheme || strcmp(h->scheme, "humanoid") != 0 || !h->key || !rk_humanoid_bone_parse(h->key, &bone)) continue;
			if (out->bones[bone] != h->node) continue;
			why->reason[bone] = RK_HUMANOID_REASON_DECLARED;
			snprintf(why->text[bone], sizeof(why->text[bone]), "declared by the file (%s)", h->origin ? h->origin : "hints");
		}
		rki_error_clear(err);
		return true;
	}
	rki_hm_detect d;
	memset(&d, 0, sizeof(d));
	d.scene = scene;
	d.out = out;
	d.why = why;
	for (size_t i = 0; i < scene->nodes.count; i++) {
		const rk_node *n = &scene->nodes.data[i];
		if (!rki_hm_mappable(n)) continue;
		/* the name parsed once, for the sided and the side-less readings */
		rki_hm_name nm;
		bool parsed = rki_hm_normalize(n->name, false, &nm);
		bool duplicate = parsed && nm.duplicate;
		int bone = parsed ? rki_hm_classify_parsed(n->name, &nm) : -1;
		if (bone < 0) bone = rki_hm_classify_lower_glue(scene, n);
		if (bone >= 0) {
			rki_hm_add_candidate(&d, bone, n, duplicate);
		} else if (d.unsided_count < RKI_HM_MAX_UNSIDED && parsed && (bone = rki_hm_classify_unsided(&nm)) >= 0) {
			d.unsided[d.unsided_count] = n;
			d.unsided_bone[d.unsided_count++] = (int8_t)bone;
		}
	}

	/* hips: by name, else where the legs meet */
	const rk_node *hips = rki_hm_pick(&d, RK_HUMANOID_HIPS, NULL);
	if (!hips) {
		const rk_node *l = rki_hm_pick(&d, RK_HUMANOID_LEFT_UPPER_LEG, NULL), *r = rki_hm_pick(&d, RK_HUMANOID_RIGHT_UPPER_LEG, NULL);
		const rk_node *a = rki_hm_common_ancestor(l, r);
		if (a && rki_hm_mappable(a)) {
			hips = a;
			rki_hm_explain(&d, RK_HUMANOID_HIPS, RK_HUMANOID_REASON_HIERARCHY, "where the upper legs \"%s\" and \"%s\" meet",
				rki_hm_node_name(l), rki_hm_node_name(r));
		}
	}
	out->bones[RK_HUMANOID_HIPS] = hips;

	/* neck and head, then the spine between them and the hips */
	out->bones[RK_HUMANOID_NECK] = rki_hm_pick_bone(&d, RK_HUMANOID_NECK);
	out->bones[RK_HUMANOID_HEAD] = rki_hm_pick_bone(&d, RK_HUMANOID_HEAD);
	if (!out->bones[RK_HUMANOID_HEAD] && out->bones[RK_HUMANOID_NECK]) {
		/* a BVH neck that ends in an End Site (Poser's exports have no
		 * head joint): the End Site is where the head is, following the
		 * neck rigidly */
		const rk_node *neck = out->bones[RK_HUMANOID_NECK], *end = NULL;
		if (neck->children.count == 1 && neck->children.data[0]->attribute_type &&
			strcmp(neck->children.data[0]->attribute_type, "End Site") == 0)
			end = neck->children.data[0];
		if (end && rki_hm_mappable(end)) {
			out->bones[RK_HUMANOID_HEAD] = end;
			rki_hm_explain(&d, RK_HUMANOID_HEAD, RK_HUMANOID_REASON_HIERARCHY,
				"the neck \"%s\" has no head joint and ends in this End Site", rki_hm_node_name(neck));
		}
	}
	const rk_node *top = out->bones[RK_HUMANOID_NECK] ? out->bones[RK_HUMANOID_NECK] : out->bones[RK_HUMANOID_HEAD];
	if (hips && top) {
		rki_hm_spine_chain(&d, hips, top);
	} else {
		for (int b = RK_HUMANOID_SPINE; b <= RK_HUMANOID_UPPER_CHEST; b++) out->bones[b] = rki_hm_pick_bone(&d, b);
	}

	/* eyes, jaw, legs and arms by name, parents first; then the hierarchy
	 * checks each limb; fingers last, below the hands so found */
	for (int b = RK_HUMANOID_LEFT_EYE; b < RK_HUMANOID_LEFT_THUMB_METACARPAL; b++) out->bones[b] = rki_hm_pick_bone(&d, b);
	rki_hm_fix_limbs(&d);
	for (int b = RK_HUMANOID_LEFT_THUMB_METACARPAL; b < RK_HUMANOID_BONE_COUNT; b++) out->bones[b] = rki_hm_pick_bone(&d, b);

	for (int b = 0; why && b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!out->bones[b]) {
			why->reason[b] = RK_HUMANOID_REASON_NONE;
			why->text[b][0] = '\0';
			continue;
		}
		if (why->reason[b] != RK_HUMANOID_REASON_NONE) continue;
		int p = rk_humanoid_parent(out, (rk_humanoid_bone)b);
		if (p >= 0)
			rki_hm_explain(&d, b, RK_HUMANOID_REASON_NAME, "name \"%s\" says %s; below %s \"%s\"",
				rki_hm_node_name(out->bones[b]), rki_hm_names[b], rki_hm_names[p], rki_hm_node_name(out->bones[p]));
		else
			rki_hm_explain(&d, b, RK_HUMANOID_REASON_NAME, "name \"%s\" says %s", rki_hm_node_name(out->bones[b]),
				rki_hm_names[b]);
	}

	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!out->bones[b] && rk_humanoid_bone_required((rk_humanoid_bone)b)) {
			rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "no node found for humanoid bone %s", rki_hm_names[b]);
			return false;
		}
	}
	return rk_humanoid_validate(out, scene, err);
}
