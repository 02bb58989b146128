/*
 * src/export/fbx/fbx_write_internal.h - shared state of the FBX writer (not
 * public API; the behaviour is documented in include/rigkit/export.h, FBX
 * WRITER, and docs/fbx.md "## Writer").
 *
 * FILES AND CALL GRAPH (calls go down only)
 *
 *   fbx_write.c         orchestrator: entry points, header, settings,
 *     |                 documents, definitions, models, geometry, skins,
 *     |                 blend shapes, materials, textures, bind pose,
 *     |                 connections
 *     |-- fbx_write_anim.c  stacks, layers, curve nodes and curves
 *     |                     (original curves, sampler keys, quaternion
 *     |                     tracks -> continuous Euler curves)
 *     '-- fbx_write_dom.c   the element tree (rki_fw_elem) and its binary
 *                           (7400 / 7500, zlib arrays through libdeflate)
 *                           and ASCII encodings; errors and warnings
 */
#ifndef RIGKIT_FBX_WRITE_INTERNAL_H
#define RIGKIT_FBX_WRITE_INTERNAL_H

#include "core/internal.h"
#include "scene/scene_internal.h"
#include "rigkit/anim.h"
#include "rigkit/export.h"

#define RKI_FW_TICKS_PER_SECOND 46186158000.0

/* One property of an element. Types are FBX's codes: 'C' bool, 'Y' int16,
 * 'I' int32, 'L' int64, 'F' float, 'D' double, 'S' string, 'R' raw bytes,
 * 'i' 'l' 'f' 'd' 'b' arrays. 'N' is the writer's own: an object name
 * (binary "name\0\1Class", ASCII "Class::name"), stored as a string with
 * `klass` set. */
typedef struct rki_fw_prop {
	char type;
	const char *klass;            /* 'N' only */
	int64_t i;
	double d;
	const void *data;             /* 'S' 'R' 'N': bytes; arrays: elements */ 
	size_t count;                 /* 'S' 'R' 'N': bytes; arrays: elements */ 
	/* filled while encoding */
	const void *packed;           /* array payload as written (zlib or raw) */
	size_t packed_size;
	bool deflated;
} rki_fw_prop;

typedef struct rki_fw_elem rki_fw_elem;
struct rki_fw_elem {
	const char *name;
	rki_fw_prop *props;
	uint32_t prop_count, prop_cap;
	rki_fw_elem *first, *last, *next;
	uint64_t size;                /* encoded bytes, filled while encoding */
};

typedef struct rki_fw {
	const rk_scene *scene;
	rk_fbx_write_opts o;
	rk_error *err;
	rki_alloc alloc;
	rki_arena arena;              /* the element tree and temporaries */
	rki_fw_elem root;             /* top-level elements are its children */
	bool failed;
	size_t warnings;
	uint32_t version;             /* 7400 / 7500 */
	int64_t next_id;
	struct libdeflate_compressor *deflate;
	rk_fbx_write_stats st;
	rki_fw_elem *objects, *connections;
	size_t def_counts[16];        /* objects per Definitions type (rki_fw_def_*) */
	int64_t *model_id;            /* per scene node (0 for the root) */
	int64_t *geom_id;             /* per mesh */
	int64_t *material_id;         /* per material */
	int64_t **channel_id;         /* per mesh: per blend channel, BlendShapeChannel ids */
	bool *node_fbx;               /* per node: written with its own FBX properties */
	rk_rotation_order *node_order;/* per node: rotation order of its written Lcl Rotation */
} rki_fw;

/* Definitions types, in the order they are written. */
enum {
	RKI_FW_DEF_MODEL, RKI_FW_DEF_ATTRIBUTE, RKI_FW_DEF_GEOMETRY, RKI_FW_DEF_MATERIAL, RKI_FW_DEF_TEXTURE,
	RKI_FW_DEF_VIDEO, RKI_FW_DEF_DEFORMER, RKI_FW_DEF_POSE, RKI_FW_DEF_STACK, RKI_FW_DEF_LAYER,
	RKI_FW_DEF_CURVE_NODE, RKI_FW_DEF_CURVE, RKI_FW_DEF_COUNT
};

/* ---- fbx_write_dom.c ---------------------------------------------------- */

bool rki_fw_fail(rki_fw *w, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);
bool rki_fw_oom(rki_fw *w);
void rki_fw_warn(rki_fw *w, const char *fmt, ...) RKI_PRINTF(2, 3);
/* Temporary zeroed array from the writer's arena (NULL after rki_fw_oom). */
void *rki_fw_array(rki_fw *w, size_t count, size_t size);

/* New child element of `parent` (NULL = top level). NULL on failure (w->failed). */
rki_fw_elem *rki_fw_add(rki_fw *w, rki_fw_elem *parent, const char *name);
/* Property adders; all return `e` so calls chain, and tolerate e == NULL. */
rki_fw_elem *rki_fw_i16(rki_fw *w, rki_fw_elem *e, int v);
rki_fw_elem *rki_fw_bool(rki_fw *w, rki_fw_elem *e, bool v);
rki_fw_elem *rki_fw_i32(rki_fw *w, rki_fw_elem *e, int32_t v);
rki_fw_elem *rki_fw_i64(rki_fw *w, rki_fw_elem *e, int64_t v);
rki_fw_elem *rki_fw_f64(rki_fw *w, rki_fw_elem *e, double v);
rki_fw_elem *rki_fw_str(rki_fw *w, rki_fw_elem *e, const char *s);
rki_fw_elem *rki_fw_raw(rki_fw *w, rki_fw_elem *e, const void *data, size_t size);
rki_fw_elem *rki_fw_name(rki_fw *w, rki_fw_elem *e, const char *name, const char *klass);
/* Arrays: the writer keeps a copy (or returns storage to fill: *_alloc). */
int32_t *rki_fw_arr_i32(rki_fw *w, rki_fw_elem *e, size_t count);
int64_t *rki_fw_arr_i64(rki_fw *w, rki_fw_elem *e, size_t count);
float *rki_fw_arr_f32(rki_fw *w, rki_fw_elem *e, size_t count);
double *rki_fw_arr_f64(rki_fw *w, rki_fw_elem *e, size_t count);

/* Child `name` with one property of each value: convenience for the common
 * "Version: 100" lines. */
rki_fw_elem *rki_fw_child_i32(rki_fw *w, rki_fw_elem *parent, const char *name, int32_t v);
rki_fw_elem *rki_fw_child_i64(rki_fw *w, rki_fw_elem *parent, const char *name, int64_t v);
rki_fw_elem *rki_fw_child_f64(rki_fw *w, rki_fw_elem *parent, const char *name, double v);
rki_fw_elem *rki_fw_child_str(rki_fw *w, rki_fw_elem *parent, const char *name, const char *v);
/* Array child: name + one array property of `count` elements to fill. */
double *rki_fw_child_f64s(rki_fw *w, rki_fw_elem *parent, const char *name, size_t count);
int32_t *rki_fw_child_i32s(rki_fw *w, rki_fw_elem *parent, const char *name, size_t count);

/* Properties70 "P" entries: P: name, type, label, flags, values... */
rki_fw_elem *rki_fw_p(rki_fw *w, rki_fw_elem *props70, const char *name, const char *type, const char *label,
	const char *flags);
void rki_fw_p_int(rki_fw *w, rki_fw_elem *p70, const char *name, int32_t v);
void rki_fw_p_enum(rki_fw *w, rki_fw_elem *p70, const char *name, int32_t v);
void rki_fw_p_bool(rki_fw *w, rki_fw_elem *p70, const char *name, bool v);
void rki_fw_p_double(rki_fw *w, rki_fw_elem *p70, const char *name, double v);
void rki_fw_p_number(rki_fw *w, rki_fw_elem *p70, const char *name, double v, bool animatable);
void rki_fw_p_vec3(rki_fw *w, rki_fw_elem *p70, const char *name, const char *type, const char *label,
	const char *flags, rk_vec3 v);
void rki_fw_p_color(rki_fw *w, rki_fw_elem *p70, const char *name, rk_vec3 v);
void rki_fw_p_string(rki_fw *w, rki_fw_elem *p70, const char *name, const char *v);
void rki_fw_p_time(rki_fw *w, rki_fw_elem *p70, const char *name, int64_t ticks);

/* Connections */
void rki_fw_connect(rki_fw *w, int64_t child, int64_t parent);
void rki_fw_connect_prop(rki_fw *w, int64_t child, int64_t parent, const char *prop);

/* Seconds -> FBX ticks (rounded). */
int64_t rki_fw_ticks(double seconds);

/* Encodes the whole tree (w->root) as a binary or ASCII file into *out. */
bool rki_fw_encode(rki_fw *w, rki_buf *out);

/* ---- fbx_write_anim.c --------------------------------------------------- */

/* Every clip (opts.no_animation: none): stacks, layers, curve nodes, curves
 * and their connections to the models (w->model_id) and blend channels
 * (w->channel_id). */
bool rki_fw_write_animation(rki_fw *w);

/* Euler angles (degrees, `order`) of q closest to `prev` (has_prev false:
 * the principal ones): the two equivalent triples, each component moved by
 * whole turns towards prev, and at gimbal lock the split between the first
 * and last angle that keeps the first one continuous. */
rk_vec3 rki_fw_euler_near(rk_quat q, rk_rotation_order order, bool has_prev, rk_vec3 prev);

#endif
