/*
 * rigkit/retarget.h - humanoid bone maps, retargeting and numeric comparison.
 *
 * OVERVIEW
 *   For any humanoid to any humanoid: play a clip made for
 *   one skeleton (a Mixamo walk) on another (an Avaturn / Ready Player Me
 *   avatar) whatever their bone names, rest poses (T or A), bone rolls, axes
 *   (Y-up, Z-up armatures) and units (cm, m).
 *
 *     rk_humanoid           which scene node plays which humanoid bone
 *                           (rk_humanoid_detect: from the names of Mixamo,
 *                           Avaturn/RPM, VRM, Unreal, Unity, Blender/Rigify,
 *                           3ds Max Biped ... rigs, checked against the
 *                           hierarchy)
 *     rk_retarget()         source scene + clip -> a new clip on the target
 *                           scene (baked quaternion keys), written by the
 *                           glTF writer like any other clip
 *     rk_clip_compare()    how far two clips on two humanoids are from each
 *                           other, per bone, in numbers (rig-independent; docs/retarget.md)
 *
 * HUMANOID BONES
 *   rigkit/humanoid.h (bone set, detection, map files).
 *
 * REST POSE
 *   "Rest" below is the skeleton's rest pose of rigkit/rest.h
 *   (opts.rest): the stored node transforms, or, for an avatar saved in
 *   an animation pose whose skins hold the real rest, the bind pose. With a
 *   bind rest, the target's clip also holds constant tracks that give every
 *   node whose bind-pose local rotation, translation or scale differs from
 *   the stored one its bind-pose value (rotation: unmapped nodes;
 *   translation: nodes other than the hips; scale: any), so the clip plays
 *   on the bind skeleton.
 *
 * CHARACTER FRAME
 *   Retargeting and comparison work in each skeleton's character frame,
 *   found from its rest pose (node_to_world of the rest, i.e. with
 *   the load's axis/unit conversion and every parent transform, such as a
 *   Z-up "Armature" node, included): origin on the floor under the hips,
 *   up = the scene's up axis (settings.axes.up) when the direction from the
 *   midpoint of the upper legs to the head is within 30 degrees of it, else
 *   that direction,
 *   left = from the right upper leg to the left one (rightUpperArm to
 *   leftUpperArm when the legs coincide), forward = left x up... i.e. a
 *   right-handed frame with +X to the character's left, +Y up, +Z forward,
 *   scaled so that 1 unit = the skeleton's hips height above its lowest foot
 *   joint. Facing, up axis and units of the files therefore never matter.
 *   A mirrored world (a left-handed load conversion, a negative scale above
 *   the skeleton) is refused (RK_ERROR_INVALID_ARGUMENT): load such files
 *   without a handedness change.
 *
 * THE RETARGETING RULE (rk_retarget)
 *   For each frame t of the source clip (sampled at opts.fps) and each mapped
 *   bone b (source node s, target node d), with world rotations expressed in
 *   the character frames:
 *     Ws(t)  source world rotation of s at t,   Rs  its rest world rotation
 *     Rd     target rest world rotation of d
 *     A(b)   rest alignment: the shortest rotation taking the target's rest
 *            bone direction (d -> the node of b's first mapped humanoid child,
 *            e.g. upperArm -> lowerArm) onto the source's rest bone direction;
 *            bones without a mapped child use their humanoid parent's A
 *     Wd(t) = Ws(t) * Rs^-1 * A(b) * Rd
 *   and, when the source bone's direction at t is not the one its rotation
 *   gives (its child joint moved by a translation track), Wd(t) is swung by
 *   the shortest rotation between the two, so that
 *   every mapped bone points where the source's bone points (a T-pose
 *   source shows a T-pose on an A-pose target, not the target's A-pose), with
 *   the source's twist added to the target's own roll. Local rotations follow
 *   from the target's hierarchy (unmapped nodes between mapped ones keep their
 *   rest local transform, except twist joints: TWIST JOINTS). Bone lengths and non-hips translations stay the
 *   target's (no cm/m mix-up; docs/retarget.md). The hips translation is
 *   the source's, relative to its rest, in character-frame units (hips
 *   heights): a 0.9 m stride of a source whose hips are 0.97 m above its
 *   feet becomes 0.77 m on a target whose hips are 0.835 m above its feet.
 *   opts.root removes locomotion if asked, or moves it onto a root node
 *   (ROOT MOTION).
 *
 * CONTACT SOLVE (opts.contacts, default on; src/retarget/retarget_contact.c)
 *   After the rule (and foot_ik), frame by frame, in the target's character
 *   frame, with the source's CONTACTS (below; opts.contact_opts) found at
 *   the key times:
 *   - blend weight w per foot: 1 on frames where its ankle or toes touch
 *     the floor, falling to 0 (smoothstep) over blend_time before and
 *     after (shortened to half the gap between two contacts). Where w > 0 the
 *     foot's and toes' world rotations are slerped by w towards the
 *     source's rotation relative to rest, Ws Rs^-1 Rd (no rest alignment:
 *     the sole turns as the source's sole turns, so a foot flat on the
 *     source's floor is flat on the target's whatever the foot's shape).
 *   - the ankle's goal height puts the lowest of the foot's points (ankle,
 *     toes joint, toe tip = the toes' first child node when both rigs have
 *     one, heel = the point under the ankle at the height of the foot's
 *     lowest rest joint, turning with the foot: the sole the rest pose
 *     stands on; on a target with a skinned mesh, the heel and tip are the
 *     mesh's: the lowest height of the vertices whose largest weight is on
 *     the foot, the toes or a node below them, the heel at the rearmost (at
 *     most under the ankle) and the tip at the foremost of those within a
 *     third of the ankle's height above that, turning with the foot / toes;
 *     report.target_sole) as far above its rest height as the source's lowest point
 *     is above its own (hips heights); the goal's horizontal position pins a
 *     point: the toes joint while the source's toes touch, else the ankle,
 *     held where it was when that point's contact began (at the first
 *     contact frame: where the rule puts it, moved as the source's point
 *     moves until then), moving with the source's ground velocity (CONTACTS)
 *     and with the horizontal offset of the target's hips from the source's
 *     (root modes); before and after the contact the pinned point moves
 *     as the source's moves from the contact's first / last frame. Goal =
 *     lerp(the rule's ankle, that, w).
 *   - nothing below the floor: on every frame the ankle goal is raised so
 *     no foot point is below its rest height by more than the source's
 *     lowest point is below its own (none when the source's is above).
 *   - the hips are lowered (at most 0.25 hips heights; never with
 *     RK_RETARGET_ROOT_LOCK, which holds them) so each leg with w > 0
 *     reaches its blended goal (reach: 0.999 of the leg's length).
 *   - each leg whose goal differs from the rule's ankle is turned by the
 *     runtime's two-bone IK job (rk_two_bone_ik_job, swing mode, reach
 *     margin 1e-4), the knee bending on the side the rule bent it.
 *   - with opts.hand_contacts, each hand the source has on the body gets
 *     the goal: the point of the same body segment at the same fraction
 *     along it on the target, plus the source's offset from it (hips
 *     heights); hands touching each other: the midpoint of the target's
 *     hands plus / minus half the source's offset between them; blended in
 *     and out like the feet; arms solved like the legs (elbow side kept).
 *   - hands on the floor (always, with the feet): the wrist pinned like a
 *     foot's point, at the source wrist's height above its floor (hips
 *     heights); a hand on the floor takes precedence over its other contacts.
 *   - an arm goal out of the two-bone chain's reach turns the shoulder
 *     (clavicle) bone first, where the rig maps one: its upper-arm joint
 *     towards the goal by the least angle that brings the goal within reach
 *     (at most 30 degrees), that angle times the contact's weight.
 *   Every goal left further than 1e-4 hips heights away is counted
 *   (report.unreached_goals, max_contact_miss) and reported as one warning
 *   per limb and run of frames. Bones the solve never turned keep the
 *   rule's keys bit for bit (report.solved_bones lists the others); with
 *   RK_RETARGET_CONTACTS_OFF the output is the rule's, bit for bit.
 *
 * COMPARISON (rk_clip_compare)
 *   Both clips sampled at the same times (opts.fps from each clip's start);
 *   for each humanoid bone mapped in both: the angle between the two bones'
 *   directions (to their first mapped humanoid child) in the character frames,
 *   the angle between their world rotations relative to rest
 *   (Ws(t) * Rs^-1 in character frames), and the distance between the joint
 *   positions relative to the hips in hips heights. Maximum, mean and the
 *   time of the maximum per bone. Two animated clips also get the CONTACT
 *   MEASURES (below, rk_compare_contacts).
 *
 * THREADS, MEMORY
 *   No global state. rk_retarget MODIFIES the target scene (the one
 *   exception to "a loaded scene is read-only", scene.h): it appends the new
 *   clip to target->clips (clips.count grows by one; clips.data may move, so
 *   earlier rk_anim_clip pointers and rk_scene_find_clip results for the
 *   target become invalid) and allocates the clip's keys in the target
 *   scene's arena (scene->memory_used grows). Nothing else of the target
 *   changes. So no other thread may read or write the target scene during
 *   rk_retarget; the source scene is only read and may be shared.
 *   Temporaries come from opts.allocator within opts.memory_limit and are
 *   freed before returning (also on failure). rk_clip_compare only reads
 *   both scenes.
 */
#ifndef RIGKIT_RETARGET_H
#define RIGKIT_RETARGET_H

#include "rigkit/humanoid.h"
#include "rigkit/rest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Contacts found from a clip (src/retarget/contact_detect.c)
 *
 * CONTACTS
 *   Measured in the skeleton's character frame (hips height = 1, +Y up; the
 *   floor y = 0 is the height of the lowest foot joint at rest), at frame
 *   times t_k = k / fps from the clip's start (the last one exactly at its
 *   end). For each floor point p (the foot = ankle joint, the toes joint =
 *   ball of the foot, the hand joint):
 *     height  e_p(k) = y_p(k) - y_p(rest) for feet and toes (the joint's
 *             height above where it stands when the foot is flat on the
 *             floor, i.e. its rest height; when the clip's lowest foot
 *             point, ankle, toes, toe tip or heel as in CONTACT SOLVE, is
 *             more than on_height below its rest height, a capture whose
 *             floor is lower than its rest pose's, every rest height is
 *             lowered by that much); e_p(k) = y_p(k) for hands
 *     speed   v_p(k) = |(x_p(k+1) - x_p(k-1)) / (t_{k+1} - t_{k-1}) - g|, the
 *             horizontal part only (x, z; one-sided differences at the
 *             ends), hips heights per second, against the ground's
 *             velocity g: the horizontal velocity of the lowest foot point
 *             (the feet's and toes' lowest e_p) on the frames where that
 *             e_p < off_height, averaged; averaged again over the frames
 *             within max(0.5, |average| / 4), then max(0.1, |average| / 10)
 *             hips heights / s of the last average; 0 when under 0.05
 *             or averaged over fewer than 5 frames
 *             (0 for a clip with root motion, the treadmill
 *             speed of an in-place walk)
 *     on      when off and e < on_height and v < on_speed; off again when
 *             e > off_height or v > off_speed (hysteresis).
 *   Hands: the hands touch each other while the hand joints are closer than
 *   hand_on_distance (apart again past hand_off_distance); a hand touches
 *   the body while its joint is that close to a body segment (hips ->
 *   spine -> chest -> upperChest -> neck -> head, hips -> each upper leg ->
 *   each lower leg), reported as the segment's second bone.
 * ------------------------------------------------------------------------- */

typedef enum rk_contact_point {
	RK_CONTACT_LEFT_FOOT = 0,        /* humanoid leftFoot joint (the ankle) */
	RK_CONTACT_RIGHT_FOOT,
	RK_CONTACT_LEFT_TOES,            /* humanoid leftToes joint (ball of the foot) */
	RK_CONTACT_RIGHT_TOES,
	RK_CONTACT_LEFT_HAND,            /* humanoid leftHand joint (the wrist) */
	RK_CONTACT_RIGHT_HAND,
	RK_CONTACT_POINT_COUNT
} rk_contact_point;

/* Thresholds; zero fields = the defaults given (hips heights, seconds). */
typedef struct rk_contact_opts {
	double on_height;                /* 0 = 0.02 */
	double off_height;               /* 0 = 0.04 (at least on_height) */
	double on_speed;                 /* hips heights / s; 0 = 0.25 */
	double off_speed;                /* 0 = 0.5 (at least on_speed) */
	double hand_on_distance;         /* 0 = 0.12 */
	double hand_off_distance;        /* 0 = 0.15 (at least hand_on_distance) */
	double blend_time;               /* seconds the solve blends in before and out after a
	                                    contact; 0 = 0.15 */
} rk_contact_opts;

typedef struct rk_contact_frame {
	uint8_t floor;                   /* bit (1 << p), p an rk_contact_point: p touches the floor */
	bool hands_touch;                /* left and right hand touch each other */
	int8_t hand_body[2];             /* left / right hand: the body segment it touches, named by its
	                                    second bone (rk_humanoid_bone: spine for hips -> spine,
	                                    leftUpperLeg for hips -> leftUpperLeg, leftLowerLeg for the
	                                    left thigh ...), -1 none */
} rk_contact_frame;

typedef struct rk_contacts {
	size_t frames;
	double fps;                      /* frame rate of frame[] */
	double time_begin;               /* clip time of frame 0 */
	rk_contact_frame *frame;         /* frames entries (opts.allocator memory; rk_contacts_free) */
	double rest_height[RK_CONTACT_POINT_COUNT];   /* y_p(rest) (lowered to the clip's floor, see
	                                                 height), hips heights (0 for hands) */
	rk_vec3 ground_velocity;         /* g, character frame, hips heights / s */
	size_t contact_frames[RK_CONTACT_POINT_COUNT];
	size_t hand_pair_frames, hand_body_frames[2];
	rk_allocator allocator;          /* what frame[] came from */
} rk_contacts;

/* Finds CONTACTS of `clip` (a clip of `scene`, sampled at fps: 0 = the
 * scene's frame rate, 30 if unset) for humanoid `h` (NULL = detected) in
 * rest `rest`. opts NULL = defaults; allocator zero = malloc/free.
 * False with err on bad arguments (a clip not of the scene, thresholds not
 * finite or negative, a humanoid not valid, no feet), or memory; then out
 * holds nothing to free. Reads the scene only (thread safe on a const
 * scene). */
bool rk_contacts_detect(const rk_scene *scene, const rk_anim_clip *clip, const rk_humanoid *h, rk_rest_mode rest,
	double fps, const rk_contact_opts *opts, const rk_allocator *allocator, rk_contacts *out, rk_error *err);
void rk_contacts_free(rk_contacts *contacts);

/* "leftFoot", "rightFoot", "leftToes", "rightToes", "leftHand", "rightHand", or "unknown". */
const char *rk_contact_point_name(rk_contact_point p);

/* The sole of one target foot (CONTACT SOLVE), in target hips heights,
 * measured at rest: from the skinned mesh when the avatar has vertices
 * weighted to the foot or toes (mesh_vertices of them), else from the rest
 * joints (mesh_vertices 0: the sole at the lowest of the ankle, toes joint
 * and toe tip, the heel under the ankle). */
typedef struct rk_contact_sole {
	size_t mesh_vertices;
	double ankle_height;             /* the ankle joint above the sole */
	double heel;                     /* how far the sole reaches behind the ankle (along the facing) */
	double toe;                      /* how far it reaches in front of the ankle */
} rk_contact_sole;

typedef enum rk_retarget_contacts {
	RK_RETARGET_CONTACTS_FEET = 0,   /* the CONTACT SOLVE for feet and toes (default) */
	RK_RETARGET_CONTACTS_OFF         /* the retargeting rule alone */
} rk_retarget_contacts;

/* ---------------------------------------------------------------------------
 * Retargeting
 * ------------------------------------------------------------------------- */

typedef enum rk_retarget_root {
	RK_RETARGET_ROOT_KEEP = 0,       /* hips move as the source's, scaled by the hips heights */
	RK_RETARGET_ROOT_IN_PLACE,       /* horizontal travel removed (character frame X/Z held at the
	                                    first frame's), vertical bob kept */
	RK_RETARGET_ROOT_LOCK,           /* hips translation held at the target's rest (keeps a bobbing
	                                    source from sinking the target; docs/retarget.md) */
	RK_RETARGET_ROOT_EXTRACT         /* root motion for game engines (ROOT MOTION below): the hips'
	                                    horizontal travel and facing (yaw) on the target's root
	                                    node, the hips keep the rest of their motion */
} rk_retarget_root;

/* TWIST JOINTS (docs/retarget.md, "Twist joints")
 *   The target's twist joints (rk_humanoid_find_twists) get rotation tracks
 *   that spread a twist angle theta along their segment; every mapped bone
 *   keeps the world rotation the rule gives it, so no bone direction moves.
 *   Twist about an axis: the swing-twist decomposition q = swing * twist,
 *   twist = normalize(q.w, (q.xyz . a) a), theta = 2 atan2(q.xyz . a, q.w),
 *   unwrapped from frame to frame (no jump past +-180 degrees).
 *   Segment bone b -> child c, axis a = the rest direction from b's joint
 *   to c's, carried by b:
 *     child twist  theta = twist of (Wb^-1 Wc) (Rb^-1 Rc)^-1 about a: the
 *                  child's turn about the segment relative to rest (a hand's
 *                  pronation about the forearm). Taken by in-chain joints of
 *                  every segment and by leaf joints of lowerArm / lowerLeg.
 *     bone twist   theta = twist of (Wp^-1 Wb) (Rp^-1 Rb)^-1 about a (p the
 *                  parent node of b): the bone's own turn about its axis
 *                  (an upper arm's roll relative to the shoulder). Taken by
 *                  leaf joints of upperArm / upperLeg.
 *   A joint with share f (0..1) gets world rotation
 *     Wj = twist(axis_j, phi) * Wj0,   Wj0 = the joint following its parent
 *          at its rest local rotation (today's result),
 *     phi = f theta (child twist) or -(1 - f) theta (bone twist),
 *   axis_j = the direction from the joint to the next one on the chain
 *   (in-chain joints: so no joint below moves) or the segment axis (leaf
 *   joints). So with child twist a joint carries f of the child's twist
 *   relative to the bone and the child the rest; with bone twist a joint
 *   carries f of the bone's twist relative to its parent (the part near
 *   the shoulder is taken back). Default shares: the i-th of n joints of a
 *   segment (i = 1..n from the bone) gets i / (n + 1), an even split;
 *   opts.twist_weights sets them per node. */
typedef enum rk_retarget_twist {
	RK_RETARGET_TWIST_ON = 0,        /* distribute onto the target's twist joints (default) */
	RK_RETARGET_TWIST_OFF            /* twist joints keep their rest (no tracks: the rule alone) */
} rk_retarget_twist;

typedef struct rk_twist_weight {
	const char *node;                /* a twist joint of the target, by exact node name */
	double share;                    /* its share f of the twist, 0..1 */
} rk_twist_weight;

/* ROOT MOTION (opts.root = RK_RETARGET_ROOT_EXTRACT; docs/retarget.md, "Root motion")
 *   Root node: the target hips' parent node when that is not the scene's
 *   synthetic root (Unreal's "root" joint, an "Armature" node), else none
 *   (RK_ERROR_INVALID_ARGUMENT; rk_scene_insert_parent, scene.h, adds one,
 *   as rigkit retarget does). With the hips'
 *   world transform H(t) of RK_RETARGET_ROOT_KEEP, in the character frame:
 *     travel  d(t) = the hips' displacement from rest with its up component
 *             zeroed (x, z);
 *     yaw     psi(t) = twist angle about up (TWIST JOINTS) of the hips'
 *             world rotation relative to rest, unwrapped;
 *     root    world = translate(d(t)) * rotate about up through the root's
 *             rest origin by psi(t) * the root's rest world;
 *     hips    local = inverse(root world) * H(t) (the nodes between keep
 *             their rest), so the hips' world transform is exactly KEEP's.
 *   The root gets a rotation and a translation track; its vertical motion
 *   and tilt are zero. */

typedef struct rk_retarget_opts {
	const rk_humanoid *source_humanoid;  /* NULL = rk_humanoid_detect(source) */
	const rk_humanoid *target_humanoid;  /* NULL = rk_humanoid_detect(target) */
	double fps;                          /* key rate; 0 = the source scene's frame rate (30 if unset) */
	rk_retarget_root root;
	const char *name;                    /* the new clip's name; NULL = the source clip's */
	bool skip_fingers;                   /* leave finger bones at their rest pose */
	bool foot_ik;                        /* after the rule, turn each upper/lower leg (two-bone IK,
	                                        knee in its retargeted bend plane) so the foot joint sits
	                                        where the source's is relative to its hips, in hips
	                                        heights: feet planted in the source stay planted on a
	                                        target with other leg proportions. Default false. */
	rk_rest_mode rest;                   /* each skeleton's rest (rigkit/rest.h; both files): default
	                                        RK_REST_AUTO = the skins' bind pose where it gives the
	                                        skeleton another shape than the stored transforms. A
	                                        target taken in its bind pose gets constant tracks that
	                                        hold its bind-pose local transforms on the nodes where
	                                        they differ from the stored ones (see REST POSE). */
	rk_retarget_twist twist;             /* TWIST JOINTS; default on */
	const rk_twist_weight *twist_weights;   /* per-node shares; NULL = the even split. A name that is
	                                        not a twist joint of the target is a warning */
	size_t twist_weight_count;
	size_t max_frames;                   /* most keys per track; 0 = RK_DEFAULT_MAX_FRAMES (base.h).
	                                        A clip needing more (duration x fps + 1) is RK_ERROR_LIMIT
	                                        naming the source file and the clip. */

	/* Temporaries (pose buffers, per-node state), all freed before return;
	 * same meaning as in rk_load_opts. The new clip itself lives in the
	 * target scene's arena (the allocator and limits it was loaded with). */
	rk_allocator allocator;              /* zero = malloc/free */
	size_t memory_limit;                 /* bytes of temporaries; 0 = 4 GiB (1.5 GiB with 32-bit size_t);
	                                        exceeded: RK_ERROR_LIMIT */
	/* Reporting (rk_warning_fn, scene.h): humanoid bones mapped in only one
	 * of the two skeletons (they get no track), and every contact goal the
	 * CONTACT SOLVE could not reach (one warning per limb and run of frames).
	 * NULL = not reported. */
	rk_warning_fn *warning;
	void *warning_user;

	/* Contacts (CONTACT SOLVE below). */
	rk_retarget_contacts contacts;       /* default RK_RETARGET_CONTACTS_FEET; _OFF = the rule alone
	                                        (bit for bit the output without the solve) */
	bool hand_contacts;                  /* also keep the source's hand contacts (hand with hand, hand
	                                        with the body); default false */
	const rk_contact_opts *contact_opts; /* detection thresholds; NULL = defaults */
} rk_retarget_opts;

typedef struct rk_retarget_report {
	size_t mapped_bones;             /* humanoid bones mapped in both skeletons */
	size_t frames;                   /* keys per track */
	size_t tracks;                   /* tracks of the new clip */
	double source_hips_height;       /* scene units of each file (the character-frame unit) */
	double target_hips_height;
	double max_foot_miss;            /* foot_ik: largest distance left between a foot joint and its
	                                    goal (out of reach), in target hips heights; 0 otherwise */
	rk_rest_mode source_rest;        /* the rest each skeleton was taken in: RK_REST_BIND or
	                                    RK_REST_STORED (rigkit/rest.h) */
	rk_rest_mode target_rest;
	size_t rest_tracks;              /* of `tracks`: constant tracks holding the target's bind pose */
	size_t twist_tracks;             /* of `tracks`: rotation tracks of twist joints (TWIST JOINTS) */
	const rk_node *root_node;        /* RK_RETARGET_ROOT_EXTRACT: the node carrying the root motion */
	double root_travel;              /* extract: largest horizontal distance of the root from its
	                                    rest, in target hips heights */
	double max_direction_error;      /* radians: worst angle, over all frames and mapped bones
	                                    with a mapped child, between the target's and the source's
	                                    bone directions, measured on the result (0 up to rounding;
	                                    with foot_ik the upper and lower legs are not counted, nor
	                                    the bones the CONTACT SOLVE turned: solved_bones) */
	/* CONTACT SOLVE (zero with RK_RETARGET_CONTACTS_OFF) */
	size_t contact_frames[RK_CONTACT_POINT_COUNT];   /* source frames with each point on the floor */
	size_t hand_pair_frames;         /* source frames with the hands touching each other */
	size_t hand_body_frames[2];      /* source frames with the left / right hand on the body */
	bool solved_bones[RK_HUMANOID_BONE_COUNT];   /* bones the solve turned in some frame */
	size_t solved_frames;            /* frames where the solve changed something */
	size_t unreached_goals;          /* (limb, frame) goals left out of reach (each also a warning) */
	double max_contact_miss;         /* largest distance left to a goal, target hips heights */
	double max_hips_drop;            /* largest lowering of the hips so the legs reach, hips heights */
	rk_contact_sole target_sole[2];  /* the target's left / right sole the solve used */
} rk_retarget_report;

/* Retargets `clip` (a clip of `source`) onto `target`: adds one clip with a
 * rotation track (RK_TARGET_ROTATION_QUAT, LINEAR keys at opts->fps over
 * [clip->time_begin, clip->time_end]) for every mapped target bone and a
 * translation track for the target's hips, and returns it (an element of
 * target->clips). The new clip keeps the source clip's time axis: its
 * time_begin / time_end are the source clip's, key k is at time_begin +
 * k / fps (the last at time_end), and the target's pose at time t is the
 * retargeted source pose at the same t (docs/gltf.md, Timelines). FBX target nodes get their "Lcl Rotation" /
 * "Lcl Translation" as quaternion / translation tracks, so Pre/PostRotation
 * and pivots are honoured. opts and report may be NULL. NULL with err on
 * bad arguments, a humanoid that is not valid, or out of memory. */
rk_anim_clip *rk_retarget(rk_scene *target, const rk_scene *source, const rk_anim_clip *clip,
	const rk_retarget_opts *opts, rk_retarget_report *report, rk_error *err);

/* ---------------------------------------------------------------------------
 * Expressions (VRM Animation source -> VRM avatar; docs/vrm.md)
 *
 * EXPRESSIONS
 *   The source's expressions are VRMC_vrm_animation.expressions.preset /
 *   .custom {name: {node}} (a .vrma file): expression `name` has weight
 *   w(t) = the x translation of its node in the source clip (a node without
 *   a translation track is not animated). The target's are VRMC_vrm
 *   .expressions.preset / .custom {name: {morphTargetBinds [{node, index,
 *   weight (default 1)}], isBinary, overrideBlink/LookAt/Mouth}} (VRM 1.0;
 *   a preset key that is not a VRM 1.0 preset, or a custom key that is one,
 *   is ignored), else VRM 0.x VRM.blendShapeMaster.blendShapeGroups [{name,
 *   presetName, binds [{mesh, index, weight 0..100 (default 100)}],
 *   isBinary}] named by presetName translated to VRM 1.0 (joy happy, angry,
 *   sorrow sad, fun relaxed, a/i/u/e/o aa/ih/ou/ee/oh, blink, blink_l/_r
 *   blinkLeft/Right, lookup/down/left/right lookUp..., neutral; other or no
 *   presetName: name), a 0.x bind applying to every node showing that mesh,
 *   with weight / 100. Names match exactly. A bind to a node without a mesh
 *   or to a morph target the mesh lacks is ignored; the first expression of
 *   a name wins. At each key time of the clip (source time = source clip
 *   begin + key time), as three-vrm's VRMExpressionManager.update():
 *     w      = clamp(w(t), 0, 1)        (0 for an expression not animated)
 *     out    = isBinary ? (w > 0.5 ? 1 : 0) : w
 *     blink  = max(0, 1 - sum over expressions of amount(overrideBlink)),
 *              amount(block) = out > 0 ? 1 : 0, amount(blend) = out,
 *              amount(none) = 0; lookAt and mouth alike
 *     a      = out x (blink for blink/blinkLeft/blinkRight) x (lookAt for
 *              lookUp/Down/Left/Right) x (mouth for aa/ih/ou/ee/oh);
 *              isBinary and a < 1: a = 0
 *     weight of morph target (node, index) = sum over every bind to it of
 *              bind weight x a (not clamped: three-vrm does not clamp);
 *              morph targets no expression binds keep the node's static
 *              weight.
 *   Each mesh node some expression binds gets one RK_TARGET_MORPH_WEIGHTS
 *   track (all its morph targets, LINEAR, at the clip's key times; between
 *   keys the weights are interpolated, not recomputed).
 * ------------------------------------------------------------------------- */

/* LOOK-AT
 *   The source's look-at is VRMC_vrm_animation.lookAt.node's rotation track
 *   q(t). On a target declaring VRMC_vrm.lookAt.type "bone" (VRM 1.0), as
 *   three-vrm's VRMLookAtQuaternionProxy + VRMLookAtBoneApplier: yaw, pitch
 *   = q's Euler angles in degrees about Y then X (three.js order "YXZ");
 *   range map m(x) = outputScale x clamp(x / inputMaxValue, 0, 1) (defaults
 *   90 / 10, inputMaxValue at least 0.01); left eye pitch' = pitch < 0 ?
 *   -down(-pitch) : up(pitch), yaw' = yaw < 0 ? -inner(-yaw) : outer(yaw);
 *   the right eye swaps inner and outer; E = Ry(yaw') Rx(pitch'); the eye's
 *   local rotation = P^-1 E P x rest, P = the eye parent's rest world
 *   rotation, rest = the eye's rest local rotation. These keys replace
 *   those of the clip's rotation tracks of the eye bones (leftEye /
 *   rightEye mapped in both skeletons, glTF-style nodes). On a VRM 0.x
 *   target with firstPerson.lookAtTypeName "Bone" (or none), as three-vrm
 *   reads it: the four degree maps lookAtHorizontalInner/Outer,
 *   lookAtVerticalDown/Up give inputMaxValue = xRange (default 90) and
 *   outputScale = yRange (default 10), their curves are not applied (a
 *   warning unless linear), and the avatar faces -Z: E = Ry(yaw')
 *   Rx(-pitch'). On a target with an expression look-at (VRM 1.0
 *   lookAt.type "expression", 0.x lookAtTypeName "BlendShape"; default
 *   outputScale / yRange 1), as three-vrm's VRMLookAtExpressionApplier:
 *   pitch < 0 -> lookUp = up(-pitch), else lookDown = down(pitch); yaw < 0
 *   -> lookRight = outer(-yaw), else lookLeft = outer(yaw) (the outer map
 *   on both sides, as three-vrm); the other look expression 0. These
 *   weights replace any the source animates for those four (a warning) and
 *   then go through EXPRESSIONS (overrideLookAt, binds). A source look-at on
 *   a target without a VRM look-at is a warning: not retargeted. */

typedef struct rk_expression_report {
	size_t source_expressions;       /* expressions the source clip animates */
	size_t matched;                  /* of them, found on the target */
	size_t tracks;                   /* morph weight tracks added to the clip */
	size_t look_at_tracks;           /* eye bone rotation tracks set by LOOK-AT (bone look-at) */
	size_t look_at_expressions;      /* look expressions driven by LOOK-AT (expression look-at) */
} rk_expression_report;

/* True when `scene` declares VRM Animation expressions (a .vrma with
 * VRMC_vrm_animation.expressions). False for NULL. */
bool rk_scene_has_vrma_expressions(const rk_scene *scene);

/* Adds the EXPRESSIONS morph weight tracks (and applies LOOK-AT) to `clip`, a clip of `target`
 * made by rk_retarget from `source_clip` of `source` (its first track's key
 * times are sampled): the clip's first layer is replaced by a copy with the
 * new tracks appended (allocated in the target's arena). Does nothing
 * (true, report zero) when the source declares no VRMA expressions and no
 * look-at track, or none of them applies to the target. opts->target_humanoid
 * (NULL = detected) names the eyes. Each animated source expression the target
 * lacks is a warning naming it (opts->warning). opts: allocator,
 * memory_limit, warning are used (NULL = defaults). False with err on bad
 * arguments or memory. Same threading rule as rk_retarget. */
bool rk_retarget_expressions(rk_scene *target, rk_anim_clip *clip, const rk_scene *source,
	const rk_anim_clip *source_clip, const rk_retarget_opts *opts, rk_expression_report *report, rk_error *err);

/* ---------------------------------------------------------------------------
 * Character frame
 * ------------------------------------------------------------------------- */

typedef struct rk_character_frame {
	rk_rest_report rest;             /* the rest pose it was measured in (rigkit/rest.h) */
	double hips_height;              /* scene units: rest hips above the lowest foot joint along up
	                                    (the character-frame unit, report.*_hips_height) */
	rk_vec3 origin;                  /* world: on the floor under the rest hips */
	rk_vec3 left, up, forward;       /* world unit vectors of the character's +X, +Y, +Z */
} rk_character_frame;

/* The character frame (CHARACTER FRAME above) of `scene`'s skeleton in the
 * rest `rest` (RK_REST_AUTO: rest.h's choice), with humanoid `h` (NULL =
 * rk_humanoid_detect). False with err when the humanoid is not valid, the
 * rest pose is degenerate or memory runs out (temporaries: two matrices and
 * a byte per node, malloc). */
bool rk_character_frame_eval(const rk_scene *scene, const rk_humanoid *h, rk_rest_mode rest, rk_character_frame *out,
	rk_error *err);

/* Adds to `scene` a clip named `name` (NULL = "rest"), one key at time 0,
 * that poses the scene in its rest pose `rest` (rigkit/rest.h): a rotation,
 * translation and / or scale track for each node whose rest local transform
 * differs from the stored one; no tracks when the rest is the stored pose.
 * How `rigkit render --static` shows an avatar saved in an animation pose in
 * its bind pose. MODIFIES the scene as rk_retarget modifies its target
 * (THREADS, MEMORY). report may be NULL. NULL with err on a NULL scene, a
 * bad mode, or out of memory (temporaries: malloc). */
rk_anim_clip *rk_rest_clip_add(rk_scene *scene, rk_rest_mode rest, const char *name, rk_rest_report *report,
	rk_error *err);

/* ---------------------------------------------------------------------------
 * Comparison
 * ------------------------------------------------------------------------- */

typedef struct rk_compare_opts {
	const rk_humanoid *a_humanoid;   /* NULL = detect */
	const rk_humanoid *b_humanoid;
	double fps;                      /* sampling rate; 0 = 30 */
	double duration;                 /* seconds compared from each clip's start; 0 = the shorter clip */
	rk_rest_mode rest;               /* rest of both skeletons (rigkit/rest.h); default auto. A
	                                    static side (clip NULL) in the bind rest is compared in
	                                    that bind pose */
	rk_allocator allocator;          /* temporaries (two pose buffers); zero = malloc/free */
	size_t memory_limit;             /* bytes of temporaries; 0 = 4 GiB (1.5 GiB with 32-bit size_t);
	                                    exceeded: RK_ERROR_LIMIT */
	/* Reporting (rk_warning_fn, scene.h): humanoid bones mapped in only one
	 * of the two skeletons (not compared). NULL = not reported. */
	rk_warning_fn *warning;
	void *warning_user;
	const rk_contact_opts *contact_opts;   /* CONTACT MEASURES thresholds; NULL = defaults */
} rk_compare_opts;

/* CONTACT MEASURES (rk_compare_result.contacts): A is taken as the source,
 * B as its retargeted result. Contacts (CONTACTS) are found on both sides
 * at the compared frames, B's with A's ground velocity and in the space
 * that moves with B's hips' horizontal offset from A's (so a result made
 * with --root in-place is measured like one with keep). Heights are each
 * side's e_p (CONTACTS) in its own hips heights.
 *   floor_penetration   max over frames where A's foot or toes point p is on
 *                       the floor of max(0, -e_p) on B (its heel and toe
 *                       tip too, as in CONTACT SOLVE; the tip when both
 *                       sides have one); b_/a_floor_penetration_any: over every
 *                       frame (A's own is a reference: what B may copy)
 *   foot_slide          per foot, the contact point (the toes when A's toes
 *                       touch, else the ankle) at consecutive frames k-1, k
 *                       where A's same point touches at both: B's horizontal
 *                       speed, max (and mean) over them; hips heights / s
 *                       and m/s (B's hips height x unit_meters); a_foot_slide
 *                       is A's own
 *   agreement           of A's (foot, frame) floor contacts (the ankle or
 *                       the toes on the floor), the fraction where B's same
 *                       foot touches the floor too: its ankle or toes, or
 *                       its heel or toe tip within on_height of its rest
 *                       height and sliding slower than off_speed (longer
 *                       toes than A's raise the ball); 1 when A has none
 *   hand_contact_error  max over frames where A's hands touch each other or
 *                       the body of |(B hand - B partner) - (A hand - A
 *                       partner)|, partners the other hand or the nearest
 *                       point of the same body segment (same fraction
 *                       along it), hips heights (0 when none) */
typedef struct rk_compare_contacts {
	size_t a_contact_frames;         /* A's (foot, frame) floor contacts */
	size_t kept_frames;              /* of them, on the floor in B too */
	double agreement;
	double floor_penetration;
	double b_floor_penetration_any, a_floor_penetration_any;
	double foot_slide, mean_foot_slide, foot_slide_mps;
	double a_foot_slide;
	size_t hand_contact_frames;      /* A's frames with a hand contact */
	double hand_contact_error;
} rk_compare_contacts;

typedef struct rk_compare_bone {
	bool compared;                   /* mapped in both */
	double max_direction_angle, mean_direction_angle;   /* radians; 0 for bones without a mapped child */
	double max_rotation_angle, mean_rotation_angle;     /* radians, rotation relative to rest */
	double max_position_error, mean_position_error;     /* hips heights, joint position relative to hips */
	double worst_time;               /* seconds from the clips' start of the largest rotation angle */
} rk_compare_bone;

typedef struct rk_compare_result {
	size_t frames;
	size_t bones_compared;
	rk_compare_bone bones[RK_HUMANOID_BONE_COUNT];
	double max_direction_angle, max_rotation_angle, max_position_error;   /* over all bones */
	rk_rest_mode a_rest, b_rest;     /* the rest each skeleton was taken in: RK_REST_BIND or
	                                    RK_REST_STORED (rigkit/rest.h) */
	rk_compare_contacts contacts;    /* CONTACT MEASURES (both clips animated; zero otherwise) */
} rk_compare_result;

/* Compares clip a_clip of scene a with b_clip of b (either clip may be NULL:
 * the scene's static pose). false with err on bad arguments or humanoids
 * that are not valid. */
bool rk_clip_compare(const rk_scene *a, const rk_anim_clip *a_clip, const rk_scene *b, const rk_anim_clip *b_clip,
	const rk_compare_opts *opts, rk_compare_result *out, rk_error *err);

#ifdef __cplusplus
}
#endif

#endif
