/*
 * rigkit/humanoid.h - which node of a scene plays which humanoid bone.
 *
 * OVERVIEW
 *   rk_humanoid maps the 55 bones of VRM 1.0's humanoid to scene nodes.
 *   Retargeting, comparison and the preview renderer read skeletons through
 *   it. Three sources fill it, in this order of authority:
 *     1. a map the file declares itself (scene->hints, scheme
 *        "humanoid": the glTF reader fills it from VRM 1.0 VRMC_vrm, VRM
 *        0.x VRM and VRMC_vrm_animation; docs/vrm.md), used by
 *        rk_humanoid_detect when it names a valid humanoid
 *        (rk_humanoid_check_declared reports where names disagree);
 *     2. detection from node names and the hierarchy (Mixamo with and
 *        without prefixes, Avaturn/RPM, VRM, Unreal, Unity, Blender/Rigify,
 *        3ds Max Biped, Daz Genesis, HumanIK, the BVH schemes of CMU,
 *        Biovision, Bandai Namco, LAFAN1, Truebones ...), where the
 *        hierarchy wins over names that contradict it (docs/humanoid.md);
 *     3. corrections from a map file (rk_humanoid_map_apply), one
 *        'bone = node name' line each.
 *
 * HUMANOID BONES
 *   The bone set and names of VRM 1.0's humanoid (which Unity's Mecanim
 *   shares): 55 bones. Required for a valid humanoid: hips, spine, head,
 *   left/right upperArm, lowerArm, hand, upperLeg, lowerLeg, foot. Every
 *   mapped bone's node must be a descendant of the node of its humanoid
 *   parent (rk_humanoid_parent(): the nearest mapped humanoid ancestor).
 *
 * THREAD SAFETY
 *   Pure functions of their arguments; no global state.
 */
#ifndef RIGKIT_HUMANOID_H
#define RIGKIT_HUMANOID_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rk_humanoid_bone {
	RK_HUMANOID_HIPS = 0,
	RK_HUMANOID_SPINE,
	RK_HUMANOID_CHEST,
	RK_HUMANOID_UPPER_CHEST,
	RK_HUMANOID_NECK,
	RK_HUMANOID_HEAD,
	RK_HUMANOID_LEFT_EYE,
	RK_HUMANOID_RIGHT_EYE,
	RK_HUMANOID_JAW,
	RK_HUMANOID_LEFT_UPPER_LEG,
	RK_HUMANOID_LEFT_LOWER_LEG,
	RK_HUMANOID_LEFT_FOOT,
	RK_HUMANOID_LEFT_TOES,
	RK_HUMANOID_RIGHT_UPPER_LEG,
	RK_HUMANOID_RIGHT_LOWER_LEG,
	RK_HUMANOID_RIGHT_FOOT,
	RK_HUMANOID_RIGHT_TOES,
	RK_HUMANOID_LEFT_SHOULDER,
	RK_HUMANOID_LEFT_UPPER_ARM,
	RK_HUMANOID_LEFT_LOWER_ARM,
	RK_HUMANOID_LEFT_HAND,
	RK_HUMANOID_RIGHT_SHOULDER,
	RK_HUMANOID_RIGHT_UPPER_ARM,
	RK_HUMANOID_RIGHT_LOWER_ARM,
	RK_HUMANOID_RIGHT_HAND,
	RK_HUMANOID_LEFT_THUMB_METACARPAL,
	RK_HUMANOID_LEFT_THUMB_PROXIMAL,
	RK_HUMANOID_LEFT_THUMB_DISTAL,
	RK_HUMANOID_LEFT_INDEX_PROXIMAL,
	RK_HUMANOID_LEFT_INDEX_INTERMEDIATE,
	RK_HUMANOID_LEFT_INDEX_DISTAL,
	RK_HUMANOID_LEFT_MIDDLE_PROXIMAL,
	RK_HUMANOID_LEFT_MIDDLE_INTERMEDIATE,
	RK_HUMANOID_LEFT_MIDDLE_DISTAL,
	RK_HUMANOID_LEFT_RING_PROXIMAL,
	RK_HUMANOID_LEFT_RING_INTERMEDIATE,
	RK_HUMANOID_LEFT_RING_DISTAL,
	RK_HUMANOID_LEFT_LITTLE_PROXIMAL,
	RK_HUMANOID_LEFT_LITTLE_INTERMEDIATE,
	RK_HUMANOID_LEFT_LITTLE_DISTAL,
	RK_HUMANOID_RIGHT_THUMB_METACARPAL,
	RK_HUMANOID_RIGHT_THUMB_PROXIMAL,
	RK_HUMANOID_RIGHT_THUMB_DISTAL,
	RK_HUMANOID_RIGHT_INDEX_PROXIMAL,
	RK_HUMANOID_RIGHT_INDEX_INTERMEDIATE,
	RK_HUMANOID_RIGHT_INDEX_DISTAL,
	RK_HUMANOID_RIGHT_MIDDLE_PROXIMAL,
	RK_HUMANOID_RIGHT_MIDDLE_INTERMEDIATE,
	RK_HUMANOID_RIGHT_MIDDLE_DISTAL,
	RK_HUMANOID_RIGHT_RING_PROXIMAL,
	RK_HUMANOID_RIGHT_RING_INTERMEDIATE,
	RK_HUMANOID_RIGHT_RING_DISTAL,
	RK_HUMANOID_RIGHT_LITTLE_PROXIMAL,
	RK_HUMANOID_RIGHT_LITTLE_INTERMEDIATE,
	RK_HUMANOID_RIGHT_LITTLE_DISTAL,
	RK_HUMANOID_BONE_COUNT
} rk_humanoid_bone;

/* VRM 1.0 name of a bone ("hips", "leftUpperArm", "rightLittleDistal"), or
 * "" for an invalid value. */
const char *rk_humanoid_bone_name(rk_humanoid_bone bone);
/* Parses a VRM 1.0 bone name (case-insensitive); false when unknown. */
bool rk_humanoid_bone_parse(const char *name, rk_humanoid_bone *out);
/* The humanoid parent in the full bone set (leftLowerArm -> leftUpperArm,
 * hips -> -1, leftUpperLeg -> hips, leftShoulder -> upperChest, ...). */
int rk_humanoid_bone_parent(rk_humanoid_bone bone);
/* true for the 15 bones a valid humanoid needs (see HUMANOID BONES). */
bool rk_humanoid_bone_required(rk_humanoid_bone bone);

typedef struct rk_humanoid {
	const rk_node *bones[RK_HUMANOID_BONE_COUNT];   /* NULL = not present */
} rk_humanoid;

/* Maps the scene's nodes to humanoid bones by name and hierarchy (see the
 * implementation's file comment for the naming schemes). Fills *out (absent
 * bones NULL) and returns true when the result is a valid humanoid; false
 * with err naming the first missing required bone (out still holds what was
 * found). */
bool rk_humanoid_detect(const rk_scene *scene, rk_humanoid *out, rk_error *err);

/* Why detection chose each bone (rk_humanoid_detect_explained). */
typedef enum rk_humanoid_reason {
	RK_HUMANOID_REASON_NONE = 0,     /* not mapped */
	RK_HUMANOID_REASON_DECLARED,     /* the file's declared humanoid (scene->hints) */
	RK_HUMANOID_REASON_NAME,         /* its name, checked against the hierarchy */
	RK_HUMANOID_REASON_HIERARCHY,    /* its place in the hierarchy: the spine chain between hips and
	                                    neck, the joint where the legs meet, or a limb slot whose node's
	                                    name says another bone or nothing (the hierarchy won) */
	RK_HUMANOID_REASON_MAP           /* a map file line (callers that apply one set it) */
} rk_humanoid_reason;

#define RK_HUMANOID_EXPLAIN_TEXT 160

typedef struct rk_humanoid_explanation {
	rk_humanoid_reason reason[RK_HUMANOID_BONE_COUNT];
	char text[RK_HUMANOID_BONE_COUNT][RK_HUMANOID_EXPLAIN_TEXT];  /* one line each, "" when unmapped */
} rk_humanoid_explanation;

/* "declared", "name", "hierarchy", "map", "" (none / invalid). */
const char *rk_humanoid_reason_name(rk_humanoid_reason reason);

/* rk_humanoid_detect, also telling in *why (may be NULL) for each bone why
 * its node was chosen. */
bool rk_humanoid_detect_explained(const rk_scene *scene, rk_humanoid *out, rk_humanoid_explanation *why,
	rk_error *err);

/* Checks the humanoid the file declares (scene->hints, scheme "humanoid",
 * e.g. VRM's humanoid extension) against name detection: one warning for
 * each declared key that is not a VRM 1.0 bone name, one when the declared
 * map is not a valid humanoid (rk_humanoid_detect then ignores it), and one
 * for each bone that both name the declaration and name detection (the
 * scene without its hints) find, but on different nodes. Warnings go to
 * `warning` (may be NULL: only counted; message only, byte_offset
 * UINT64_MAX, path ""). Returns how many there were; 0 when the scene
 * declares no humanoid. Reads the scene only; thread safe. */
size_t rk_humanoid_check_declared(const rk_scene *scene, rk_warning_fn *warning, void *user);

/* Maps `bone` to the node named `node_name` (exact match; NULL or "" clears
 * the bone). False with err when no node has that name. */
bool rk_humanoid_set(rk_humanoid *humanoid, const rk_scene *scene, rk_humanoid_bone bone, const char *node_name,
	rk_error *err);

/* Required bones present, nodes belong to `scene`, no node used twice, and
 * each mapped bone's node is a descendant of its nearest mapped humanoid
 * ancestor's node. */
bool rk_humanoid_validate(const rk_humanoid *humanoid, const rk_scene *scene, rk_error *err);

/* Nearest humanoid ancestor of `bone` that is mapped in `humanoid`, or -1. */
int rk_humanoid_parent(const rk_humanoid *humanoid, rk_humanoid_bone bone);

/* ---------------------------------------------------------------------------
 * Map files
 *
 * Text, one entry a line: 'leftUpperArm = Bone.012' maps a VRM 1.0 bone
 * name (case-insensitive) to the node of that exact name; 'bone =' with no
 * name unmaps it; '#' starts a comment; blank lines are ignored; spaces
 * around names are trimmed (docs/retarget.md shows an example).
 * ------------------------------------------------------------------------- */

/* Applies the map text `text` (`size` bytes, need not be NUL-terminated)
 * line by line to *humanoid: every line sets or clears one bone. `filename`
 * names the text in errors (may be NULL). False with err (RK_ERROR_PARSE,
 * location RK_LOCATION_LINE with the line number) at the first line that is
 * not 'bone = node', names no humanoid bone or names no node of `scene`;
 * the lines before it stay applied. Does not validate the result. */
bool rk_humanoid_map_apply(rk_humanoid *humanoid, const rk_scene *scene, const char *text, size_t size,
	const char *filename, rk_error *err);

/* As rk_humanoid_map_apply, reading the file at `path` (at most 16 MiB;
 * RK_ERROR_IO when it cannot be read). */
bool rk_humanoid_map_apply_file(rk_humanoid *humanoid, const rk_scene *scene, const char *path, rk_error *err);


/* ---------------------------------------------------------------------------
 * Twist joints (docs/retarget.md, "Twist joints")
 *
 * The four limb segments of each side, from a mapped bone to its mapped
 * child: upperArm -> lowerArm, lowerArm -> hand, upperLeg -> lowerLeg,
 * lowerLeg -> foot. A twist joint of a segment is a node that is no
 * humanoid bone, carries no mesh, camera or light, and either
 *   - lies on the node path strictly between the bone's node and the
 *     child's (in chain: Daz's lShldrTwist / lForearmTwist, Rigify's
 *     DEF-forearm.L.001; any name), or
 *   - is a child of the bone's node off that path, with no humanoid bone
 *     below it, whose name says twist or roll (a leaf twist joint: Unreal's
 *     upperarm_twist_01_l, lowerarm_twist_01_l, thigh_twist_01_l,
 *     calf_twist_01_l; Character Creator's CC_Base_L_ForearmTwist01;
 *     3ds Max's "Bip01 L ForeTwist"; HumanIK's LeftForeArmRoll): "twist"
 *     anywhere in any case, or "Roll", or "roll" at the start or after a
 *     separator (so "Controller" is not one).
 * A segment whose path holds another humanoid bone has none. At most
 * RK_HUMANOID_MAX_TWIST per segment (the first ones in the order below;
 * the others are counted in `ignored`). Order: by the projection of the
 * node's stored world position onto the segment (bone joint 0, child
 * joint 1), ties by node order.
 * ------------------------------------------------------------------------- */

#define RK_HUMANOID_MAX_TWIST 4
#define RK_HUMANOID_TWIST_SEGMENTS 8

typedef struct rk_humanoid_twist_segment {
	rk_humanoid_bone bone;                          /* leftUpperArm, leftLowerArm, ... */
	rk_humanoid_bone child;                         /* its mapped child: leftLowerArm, leftHand, ... */
	size_t count;                                   /* twist joints found (0 = none, or a bone unmapped) */
	const rk_node *joints[RK_HUMANOID_MAX_TWIST];   /* from the bone towards the child */
	bool in_chain[RK_HUMANOID_MAX_TWIST];           /* on the path bone -> child; else a leaf joint */
} rk_humanoid_twist_segment;

typedef struct rk_humanoid_twists {
	/* left upperArm, left lowerArm, right upperArm, right lowerArm, left
	 * upperLeg, left lowerLeg, right upperLeg, right lowerLeg */
	rk_humanoid_twist_segment segments[RK_HUMANOID_TWIST_SEGMENTS];
	size_t joint_count;                             /* over all segments */
	size_t ignored;                                 /* candidates past RK_HUMANOID_MAX_TWIST */
} rk_humanoid_twists;

/* Fills *out with the twist joints of `humanoid` (mapped in `scene`) and
 * returns out->joint_count; 0 with *out zeroed (bones and children set)
 * for NULL arguments. Reads the scene only; thread safe. */
size_t rk_humanoid_find_twists(const rk_scene *scene, const rk_humanoid *humanoid, rk_humanoid_twists *out);

#ifdef __cplusplus
}
#endif

#endif
