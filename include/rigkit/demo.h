/*
 * rigkit/demo.h - built-in sample characters, generated from code.
 *
 * OVERVIEW
 *   rk_demo_scene() builds one of two small rigged humanoids as an ordinary
 *   rk_scene (scene.h), exactly as a loader would return it: free it with
 *   rk_scene_free(), evaluate it with the anim module, write it with
 *   rk_glb_write(). Nothing is read from disk; the same kind and options give
 *   the same scene bit for bit on every run and thread, so the characters can
 *   serve as demo data and as a retargeting source and target for tests,
 *   without shipping assets (docs/retarget.md).
 *
 *     rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
 *     rk_scene *dst = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
 *     rk_glb_write(src, "source.glb", NULL, &err);
 *     rk_scene_free(src);
 *
 * THE SKELETON (both kinds)
 *   67 joints with Mixamo's hierarchy, in this depth-first order:
 *     Hips
 *       Spine, Spine1, Spine2
 *         Neck, Head, {HeadTop_End, LeftEye, RightEye}
 *         LeftShoulder, LeftArm, LeftForeArm, LeftHand,
 *           LeftHandThumb1..4, LeftHandIndex1..4, LeftHandMiddle1..4,
 *           LeftHandRing1..4, LeftHandPinky1..4   (each chain 1 -> 2 -> 3 -> 4)
 *         RightShoulder ... (mirrored)
 *       LeftUpLeg, LeftLeg, LeftFoot, LeftToeBase, LeftToe_End
 *       RightUpLeg ... (mirrored)
 *   Node list: [0] the synthetic root, [1] "Armature" (RK_NODE_NULL), [2..68]
 *   the joints (RK_NODE_JOINT) in the order above, [69] "Body" (RK_NODE_MESH,
 *   a child of the root with an identity transform, so glTF viewers apply no
 *   parent transform to the skinned mesh). All nodes are glTF-style: node->local
 *   is authoritative, has_fbx_props is false, props mirror local (Euler XYZ).
 *   Both characters are left/right mirror images across the YZ plane, stand on
 *   y = 0 (soles less than 1 cm above it), face +Z, Y up. Settings: right-handed Y-up,
 *   unit_meters 1 (world space is metres), frame_rate 30, format
 *   RK_FORMAT_UNKNOWN, creator "rigkit sample".
 *
 * RK_DEMO_MIXAMO_SOURCE - what a Mixamo download looks like
 *   Joint names "mixamorig:" + the names above. About 1.79 m tall
 *   (HeadTop_End), hip joints at 0.93 m, T-pose: shoulders, arms, forearms and
 *   hands on one horizontal line along +X (left) / -X (right), fingers
 *   straight, thumbs forward. "Armature" has scale 0.01 (no rotation), so
 *   every joint translation is in centimetres (Hips at y = 100). Bone rolls
 *   imitate Mixamo: each joint's local +Y axis points down the bone to its
 *   first child (Hips/Spine* to the next spine joint, Spine2 to Neck, Head to
 *   HeadTop_End, Hand to HandMiddle1), local +Z as close to world +Z (front)
 *   as possible (world +Y when the bone is nearly parallel to Z); end joints
 *   and eyes keep their parent's orientation. The slightly curved spine and
 *   the rolls give non-identity local rest rotations almost everywhere, as in
 *   Mixamo rigs; every child sits on its parent's local +Y axis.
 *   Clips (glTF-style sampler tracks, LINEAR, keys every 1/30 s, one
 *   rotation track per joint, quaternions kept in one hemisphere per track):
 *     "Idle"  0..3 s: breathing - spine, chest, shoulders, neck and head
 *             gently move once per 3 s; a weight shift - the hips sway about
 *             1.2 cm sideways once per loop, 3-4 mm below rest (knees about
 *             12 degrees soft), the legs solved so the feet stay flat where
 *             they stand; arms lowered ~78 degrees, fingers relaxed. A Hips
 *             translation track carries the sway. Key 90 equals key 0
 *             (seamless loop).
 *     "Walk"  0..1 s: one gait cycle (left heel strike at 0, right at 0.5 s).
 *             A Hips translation track moves the root along +Z at a constant
 *             1.1 m/s (110 cm per cycle in Armature units) with a 2 cm lateral
 *             sway; the hips ride 3 cm below rest and bob 3 cm peak to peak
 *             twice per cycle (highest at each mid-stance). Each foot is on
 *             the ground for 60% of the cycle: flat from heel strike to
 *             heel-off (35%), then the heel rises to 40 degrees about the
 *             ball of the foot (the ToeBase joint, which stays put, the toes
 *             flat) until toe-off. The legs are solved by two-bone IK at every
 *             key so what is on the ground does not move in world space. The
 *             swing carries the foot 1.1 m forward, lifting the ankle up to
 *             12 cm early in the swing (the knee folds to ~70 degrees), the
 *             toes coming up to 12 degrees; its first 5% and last 10% have no
 *             travel and the foot is level before the last tenth, so nothing
 *             slides between keys either. Pelvis yaw/roll,
 *             counter-rotating chest, arms swinging opposite to the legs,
 *             elbows and fingers slightly bent. Measured like captured walks
 *             (tests/test_demo_walk.sh, docs/render.md): trunk within 3
 *             degrees of vertical, knee flexion of the planted leg ~22
 *             degrees (median). Key 30 equals key 0 except for the Hips
 *             forward translation (loops with root motion).
 *   The avatar has no clips.
 *
 * RK_DEMO_AVATAR - what an Avaturn / Ready Player Me avatar looks like
 *   Joint names without prefix ("Hips", "LeftHandThumb1", ...). About 1.70 m
 *   tall, shorter legs (hip joints at 0.80 m), longer arms, a bigger head.
 *   A-pose: the arm chains point 45 degrees down. Metres: "Armature" has an
 *   identity transform. Bone rolls differ from the source on purpose: every
 *   local rest rotation is the identity (all joint frames are aligned with
 *   the world axes and bones lie along their parent's axes), so source
 *   rotations cannot be copied joint for joint without a rest-pose correction
 *   - the rest-pose mismatch retargeting corrects (docs/retarget.md). (Real exports vary: the shared
 *   readyplayer.me.glb has Mixamo-like +Y-down-the-bone rolls with its own
 *   angles; identity rolls make the difference from the source maximal.)
 *
 * MESH, SKIN, MATERIAL (both kinds unless opts disable them)
 *   "Body": one mesh of 25 closed capsule-like parts (pelvis, belly, chest,
 *   neck, head, clavicles, arms, hands, 10 fingers, legs, feet), quads plus
 *   triangles at the poles, smooth per-vertex normals (one per position,
 *   exactly rk_mesh_smooth_normals() of the mesh: corner angle times polygon
 *   area weighting, rigkit/mesh.h SMOOTH NORMALS), one UV set "UVMap"
 *   (cylindrical per part, V origin bottom-left as for FBX/OBJ). One skin
 *   over the 67 joints: every vertex has 1 or 2 influences (at most 4) that
 *   sum to 1, blending smoothly between adjacent joints of its part's chain
 *   around each joint. The skin's inverse bind matrices are the inverse joint
 *   world matrices at rest. One material "Body" (pbrMetallicRoughness,
 *   metallic 0, roughness 0.8) whose base colour texture is a generated 64x64
 *   RGB checker PNG (8x8 pixel cells) embedded as texture content
 *   (image/png).
 *
 * MEMORY AND THREADS
 *   The scene lives in one arena like a loaded one (memory_limit,
 *   allocation_limit and the allocator apply). The PNG encoder (stb) uses
 *   malloc/free internally (a few tens of KiB, freed before return). No global state: any number of
 *   threads may call rk_demo_scene() at once.
 */
#ifndef RIGKIT_SAMPLE_H
#define RIGKIT_SAMPLE_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rk_demo_kind {
	RK_DEMO_MIXAMO_SOURCE = 0,   /* Mixamo-style T-pose character in cm, with Idle and Walk clips */
	RK_DEMO_AVATAR = 1,          /* Avaturn / Ready Player Me style A-pose avatar in metres, no clips */
	RK_DEMO_KIND_COUNT_
} rk_demo_kind;

/* Options. Zero-initialise; every zero field means its default. */
typedef struct rk_demo_opts {
	rk_allocator allocator;      /* zero = malloc/free */
	size_t memory_limit;         /* bytes for the scene and temporaries; 0 = 4 GiB (1.5 GiB with 32-bit size_t) */
	size_t allocation_limit;     /* number of allocations; 0 = unlimited */
	bool no_mesh;                /* default false; true: skeleton only (no mesh, skin, material, texture) */
	bool no_texture;             /* default false; true: the material has no texture (and the scene no textures) */
	bool no_animation;           /* default false; true: no clips */
	/* Source only (ignored for the avatar). Default false. true: "Armature"
	 * also rotates -90 degrees about X, as Blender writes Mixamo rigs (a
	 * Z-up armature under a Y-up scene): the Hips local rest rotation becomes
	 * about +90 degrees about X (quaternion ~(0.71, 0, 0, 0.71)) and the Hips
	 * translations (rest and Walk track) are expressed in that Z-up space.
	 * World-space rest and animated poses are identical to the default. */
	bool z_up_armature;
	/* Reporting (rk_warning_fn, scene.h), as rk_load_opts: every entry of
	 * the result's scene->warnings (the builder's own checks; none for the
	 * built-in characters today). NULL = scene->warnings only. */
	rk_warning_fn *warning;
	void *warning_user;
} rk_demo_opts;

/* Builds sample character `kind` (see OVERVIEW). opts may be NULL. Returns
 * NULL with err set on failure: RK_ERROR_INVALID_ARGUMENT for an unknown
 * kind, RK_ERROR_LIMIT / RK_ERROR_OUT_OF_MEMORY when memory_limit,
 * allocation_limit or the allocator stop it (nothing leaks). err may be NULL.
 * The caller frees the result with rk_scene_free(). Deterministic: equal
 * arguments give equal scenes (and equal rk_glb_write bytes). Thread safe. */
rk_scene *rk_demo_scene(rk_demo_kind kind, const rk_demo_opts *opts, rk_error *err);

/* "mixamo_source", "avatar", or "unknown". */
const char *rk_demo_kind_name(rk_demo_kind kind);

#ifdef __cplusplus
}
#endif
#endif
