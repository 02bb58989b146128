/*
 * rigkit/transform.h - the FBX node transform chain as pure functions
 * (docs/api.md).
 *
 * OVERVIEW
 *   An FBX node's local transform is built from many properties. Writing
 *   column-vector matrices (rightmost applied first):
 *
 *     node_to_parent = Tadj( Spre * Radj_pre * Tadj_pre *
 *                            T * Roff * Rp * Rpre * R * inv(Rpost) * inv(Rp) *
 *                            Soff * Sp * S * inv(Sp) *
 *                            Spost * Radj_post )
 *
 *   T = Lcl Translation, R = Lcl Rotation in RotationOrder, S = Lcl Scaling,
 *   Roff/Rp = RotationOffset/RotationPivot, Soff/Sp = ScalingOffset/
 *   ScalingPivot (all translations), Rpre/Rpost = PreRotation/PostRotation
 *   (Euler XYZ). When RotationActive is false, PreRotation, PostRotation and
 *   RotationOrder are ignored (R uses XYZ): FBX files omit RotationActive
 *   when it equals the template default, so readers must resolve it first.
 *
 *   The adjust terms are rigkit's own (identity unless a load option asks
 *   for them): Spre/Spost uniform scales, Radj_pre/Radj_post rotations,
 *   Tadj_pre a translation, and Tadj(...) multiplies only the resulting
 *   translation column by translation_scale. Unit and axis conversion at the
 *   root uses adjust_pre_rotation/adjust_pre_scale; conversion by modifying
 *   geometry uses adjust_pre_rotation/adjust_translation_scale.
 *
 *     geometry_to_node = Tg * Rg * Sg   (GeometricTranslation/Rotation(XYZ)/Scaling)
 *
 *   moves only the node's own content (mesh, ...), never its children:
 *     geometry_to_world = node_to_world * geometry_to_node.
 *
 * INHERIT MODES (how node_to_world follows the parent; see rk_world_transform_compose)
 *   RK_INHERIT_NORMAL (FBX InheritType 1, RSrs):
 *     node_to_world = parent.node_to_world * node_to_parent
 *   RK_INHERIT_COMPONENTWISE_SCALE (FBX 0, RrSs): rotation is inherited, the
 *     parent's scale multiplies the child's scale per axis (no shear):
 *     t = decompose(node_to_parent); t.translation *= parent.inherit_scale;
 *     t.scale *= parent.inherit_scale;
 *     node_to_world = parent.unscaled_node_to_world * TRS(t)
 *   RK_INHERIT_IGNORE_PARENT_SCALE (FBX 2, Rrs, Maya "segment scale
 *     compensate"): the parent's own local scale is undone between the
 *     child's translation t and the rest of its chain, so the translation
 *     is still scaled by the parent but the child's rotation and scale are
 *     not (ancestors above the parent still apply):
 *     node_to_world = parent.node_to_world * T(t) * inv(S_parent_local)
 *                     * (node_to_parent without its translation)
 *   Here `inherit_scale` is the node's world scale per axis and
 *   `unscaled_node_to_world` its world rotation and translation without scale.
 *
 * All functions are pure, thread safe and allocation free.
 */
#ifndef RIGKIT_TRANSFORM_H
#define RIGKIT_TRANSFORM_H

#include "rigkit/math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rk_inherit_mode {
	RK_INHERIT_NORMAL = 0,               /* FBX InheritType 1 (eInheritRSrs), glTF */
	RK_INHERIT_COMPONENTWISE_SCALE = 1,  /* FBX InheritType 0 (eInheritRrSs) */
	RK_INHERIT_IGNORE_PARENT_SCALE = 2   /* FBX InheritType 2 (eInheritRrs) */
} rk_inherit_mode;

/* Maps FBX's "InheritType" property value to rk_inherit_mode (unknown -> NORMAL). */
rk_inherit_mode rk_inherit_mode_from_fbx(int64_t inherit_type);

/* Every transform property of an FBX node, as stored (units of the parent
 * space, angles in degrees). rk_transform_props_default() gives identity. */
typedef struct rk_transform_props {
	rk_vec3 translation;          /* "Lcl Translation", default 0 */
	rk_vec3 rotation;             /* "Lcl Rotation" degrees in rotation_order, default 0 */
	rk_vec3 scaling;              /* "Lcl Scaling", default 1 */
	rk_rotation_order rotation_order; /* "RotationOrder", default XYZ */
	rk_vec3 rotation_offset;      /* "RotationOffset", default 0 */
	rk_vec3 rotation_pivot;       /* "RotationPivot", default 0 */
	rk_vec3 scaling_offset;       /* "ScalingOffset", default 0 */
	rk_vec3 scaling_pivot;        /* "ScalingPivot", default 0 */
	rk_vec3 pre_rotation;         /* "PreRotation" degrees XYZ, default 0 */
	rk_vec3 post_rotation;        /* "PostRotation" degrees XYZ, default 0 (applied inverted) */
	bool rotation_active;         /* "RotationActive", template default usually false */
	rk_inherit_mode inherit_mode; /* from "InheritType", default NORMAL */
	rk_vec3 geometric_translation;/* "GeometricTranslation", default 0 */
	rk_vec3 geometric_rotation;   /* "GeometricRotation" degrees XYZ, default 0 */
	rk_vec3 geometric_scaling;    /* "GeometricScaling", default 1 */
} rk_transform_props;

/* FBX transform limits (FbxNode TranslationMin/Max, RotationMin/Max,
 * ScalingMin/Max with their per-axis enable flags TranslationMinX ...; the
 * translation ones count when TranslationActive is set, the rotation ones
 * when RotationActive, the scaling ones when ScalingActive). Bit 0/1/2 of a
 * mask enables the X/Y/Z bound. The FBX SDK clamps the evaluated Lcl
 * Translation / Lcl Rotation (degrees, per Euler component) / Lcl Scaling
 * values to them; so do the FBX reader (static values, scene.h rk_node.limits)
 * and anim.h, with rk_transform_limits_apply(). */
typedef struct rk_transform_limits {
	rk_vec3 translation_min, translation_max;
	rk_vec3 rotation_min, rotation_max;
	rk_vec3 scaling_min, scaling_max;
	uint8_t translation_min_mask, translation_max_mask;
	uint8_t rotation_min_mask, rotation_max_mask;
	uint8_t scaling_min_mask, scaling_max_mask;
} rk_transform_limits;

/* Clamps p->translation, p->rotation and p->scaling to the enabled bounds
 * of l (a reader enables only the bounds whose ...Active flag is set). */
void rk_transform_limits_apply(const rk_transform_limits *l, rk_transform_props *p);

/* rigkit-added corrections around the chain (see OVERVIEW). */
typedef struct rk_adjust_transform {
	rk_vec3 pre_translation;      /* default 0 */
	rk_quat pre_rotation;         /* default identity */
	double pre_scale;             /* default 1 */
	rk_quat post_rotation;        /* default identity */
	double post_scale;            /* default 1 */
	double translation_scale;     /* default 1 */
} rk_adjust_transform;

/* World-space state of a node that children need (see INHERIT MODES). */
typedef struct rk_world_transform {
	rk_mat4 node_to_world;
	rk_mat4 unscaled_node_to_world;  /* node_to_world without scale (rotation + translation) */
	rk_vec3 inherit_scale;           /* world scale per axis passed to componentwise children */
} rk_world_transform;

rk_transform_props rk_transform_props_default(void);
rk_adjust_transform rk_adjust_transform_identity(void);
bool rk_adjust_transform_is_identity(const rk_adjust_transform *adj);

/* Rotation from Lcl Rotation alone, honouring rotation_active/rotation_order. */
rk_quat rk_fbx_lcl_rotation(const rk_transform_props *p);
/* Full local rotation Rpre * R * inv(Rpost) (rotation_active honoured). */
rk_quat rk_fbx_local_rotation(const rk_transform_props *p);
/* The chain above. adj may be NULL (identity). */
rk_mat4 rk_fbx_node_to_parent(const rk_transform_props *p, const rk_adjust_transform *adj);
/* Tg * Rg * Sg. */
rk_mat4 rk_fbx_geometry_to_node(const rk_transform_props *p);
/* The adjust terms around any local matrix m (a glTF node's T * R * S):
 * Tadj(Spre * Radj_pre * Tadj_pre * m * Spost * Radj_post), see OVERVIEW.
 * adj may be NULL (returns m). */
rk_mat4 rk_adjust_transform_apply(rk_mat4 m, const rk_adjust_transform *adj);

/* World state of a node from its parent's (NULL for a root) and its own
 * node_to_parent. parent_local_scale is the parent's own Lcl Scaling (used by
 * RK_INHERIT_IGNORE_PARENT_SCALE; ignored otherwise). */
rk_world_transform rk_world_transform_compose(const rk_world_transform *parent, rk_vec3 parent_local_scale,
	rk_mat4 node_to_parent, rk_inherit_mode mode);

#ifdef __cplusplus
}
#endif
#endif
