/*
 * rigkit/rest.h - the rest pose of a skeleton: the pose its skins were
 * bound in, or the node transforms as stored.
 *
 * OVERVIEW
 *   A file stores each node's transform (the "stored pose", the static
 *   scene of scene.h) and, for each skin, the joints' inverse bind matrices
 *   (rk_skin_joint.mesh_to_joint): where the joints were when the mesh was
 *   bound. Usually the two agree. Some avatars are saved in an animation
 *   pose (the Godot mannequin's stored transforms are a crouch): the bind
 *   matrices then hold the real rest. Retargeting, comparison, `rigkit
 *   humanoid` and `rigkit render --static` take the skeleton's rest from
 *   rk_rest_pose_eval:
 *
 *     RK_REST_AUTO    (default) the bind pose when some skin's bind matrices
 *                     give the skeleton another shape than the stored
 *                     transforms (beyond the tolerances below), else the
 *                     stored pose: files that agree are read exactly as
 *                     before
 *     RK_REST_BIND    the bind pose wherever a skin gives one
 *     RK_REST_STORED  the stored transforms, always
 *
 * THE BIND POSE (what rk_rest_pose_eval computes)
 *   For a skin joint j: world_bind(j) = M * inverse(mesh_to_joint(j)),
 *   where M is where the skinned mesh sits at bind in the scene's world:
 *     glTF / GLB: the load conversion only (glTF ignores the skinned mesh
 *                 node's transform, so the inverse bind matrices are joint
 *                 worlds in the file's world space);
 *     FBX, demo:  the load conversion times mesh_to_world_bind (FBX:
 *                 TransformLink * Transform of the cluster), i.e.
 *                 world_bind(j) = conversion * TransformLink.
 *   (The load conversion: the synthetic root's node_to_world times the axis
 *   pre-rotation RK_CONVERT_MODIFY_GEOMETRY gives the root's children.)
 *   Every other node keeps its stored local transform (node_to_parent):
 *   nodes above the skeleton keep their stored world, joints that are in no
 *   skin (end sites, helpers, twist joints of another mesh) follow their
 *   parent's rest with their stored relation to it. A skin joint's rest
 *   local transform is inverse(rest world of its parent) * world_bind(j).
 *   Several skins: the first skin (scene order) binding a joint gives its
 *   bind matrix; another skin that binds it differently (beyond the
 *   tolerances) is counted in report.skin_conflicts and ignored for it.
 *   Joints whose mesh_to_joint is singular or not finite keep their stored
 *   transform, and so do FBX joints with an inherit mode other than normal
 *   whose parent scale (the one that mode treats apart) is not 1: their
 *   local transform is solved for normal inheritance. Worlds are composed
 *   with every node's inherit mode, as the evaluator does.
 *
 * WHEN "AUTO" TAKES THE BIND POSE
 *   For every skin joint whose parent chain up to another skin joint is
 *   known, the joint's world from its parent's rest and its stored local
 *   transform is compared with world_bind(j): the rotation angle and the
 *   distance between the two positions. Disagreement = some angle above
 *   angle_tolerance or some distance above distance_tolerance times the
 *   skeleton's extent (the diagonal of the bounding box of the bound joint
 *   positions). The placement of the topmost skin joints relative to the
 *   nodes above them is not compared: a skeleton moved, turned or scaled as
 *   a whole after binding keeps its stored pose.
 *
 * UNITS
 *   Everything is in the loaded scene's world (after rk_load_opts' axis and
 *   unit conversion); report distances are in scene units.
 *
 * THREAD SAFETY
 *   Pure function of its arguments; reads the scene only.
 */
#ifndef RIGKIT_REST_H
#define RIGKIT_REST_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rk_rest_mode {
	RK_REST_AUTO = 0,   /* bind where a skin disagrees with the stored pose, else stored */
	RK_REST_BIND,       /* the skins' bind pose */
	RK_REST_STORED      /* the node transforms as stored */
} rk_rest_mode;

/* "auto", "bind", "stored" ("" for an invalid value). */
const char *rk_rest_mode_name(rk_rest_mode mode);
/* Parses those names (case-sensitive); false when unknown. */
bool rk_rest_mode_parse(const char *name, rk_rest_mode *out);

typedef struct rk_rest_opts {
	rk_rest_mode mode;               /* default RK_REST_AUTO */
	double angle_tolerance;          /* radians; 0 = 1e-3 (0.057 degrees) */
	double distance_tolerance;       /* fraction of the skeleton's extent; 0 = 1e-4 */
	rk_allocator allocator;          /* one temporary block (4 matrices + 25 bytes per node); zero = malloc/free */
	size_t memory_limit;             /* bytes of temporaries; 0 = 4 GiB; exceeded: RK_ERROR_LIMIT */
} rk_rest_opts;

typedef struct rk_rest_report {
	rk_rest_mode used;               /* RK_REST_BIND or RK_REST_STORED (the fields below are
	                                    measured whatever the mode) */
	size_t skins_used;               /* skins that bound at least one joint */
	size_t joints_bound;             /* nodes whose rest comes from a bind matrix */
	size_t nodes_changed;            /* nodes whose rest node_to_parent differs from the stored one
	                                    (0 when used == RK_REST_STORED) */
	size_t skin_conflicts;           /* joints a later skin binds differently from the first */
	double max_angle;                /* radians: largest rotation between a joint's stored and bind
	                                    pose relative to its parent (see WHEN "AUTO" ...) */
	double max_distance;             /* scene units: the same for joint positions */
	double extent;                   /* scene units: the skeleton's extent used for distance_tolerance */
	const rk_node *worst_node;       /* the joint of max_angle (else of max_distance); NULL if none */
} rk_rest_report;

/* The rest pose of every node of `scene` (opts NULL = defaults):
 * node_to_world[i] and node_to_parent[i] for node index i, each array
 * scene->nodes.count long (either may be NULL). Node 0, the synthetic root,
 * keeps its stored matrices. report may be NULL. False with err on a NULL
 * scene, an unknown mode or out of memory (RK_ERROR_LIMIT past
 * memory_limit); the arrays are then unspecified. */
bool rk_rest_pose_eval(const rk_scene *scene, const rk_rest_opts *opts, rk_mat4 *node_to_world, rk_mat4 *node_to_parent,
	rk_rest_report *report, rk_error *err);

#ifdef __cplusplus
}
#endif

#endif
