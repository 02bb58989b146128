/* src/render/render.c - preview rendering without a GPU (see rigkit/render.h):
 * options, pose and deformation, camera, triangle setup (triangulation,
 * clipping against the near plane and a guard band, projection). The
 * rasteriser is render_raster.c. */
#include "render_internal.h"

#include "rigkit/anim.h"
#include "rigkit/math.h"
#include "rigkit/mesh.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define RKI_RENDER_DEFAULT_FOV 30.0
#define RKI_RENDER_DEFAULT_MARGIN 0.05
#define RKI_RENDER_DEFAULT_AMBIENT 0.3
#define RKI_RENDER_DEFAULT_DIFFUSE 0.7
#define RKI_RENDER_DEFAULT_GREY 0.8f
#define RKI_RENDER_DEFAULT_MEMORY RKI_DEFAULT_MEMORY_LIMIT

static const uint8_t rki_render_default_background[4] = { 40, 44, 52, 255 };

static bool rki_render_fail(rk_error *err, rk_error_code code, const char *fmt, ...) RKI_PRINTF(3, 4);

static bool rki_render_fail(rk_error *err, rk_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(err, code, fmt, ap);
	va_end(ap);
	return false;
}

static bool rki_finite3(rk_vec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static double rki_len3(rk_vec3 v)
{
	return sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

static void rki_render_opts_resolve(rk_render_opts *out, const rk_render_opts *in);

size_t rk_render_size(const rk_render_opts *opts, uint32_t *width, uint32_t *height, rk_error *err)
{
	rk_render_opts o;
	rki_render_opts_resolve(&o, opts);
	uint32_t w = o.width, h = o.height;
	if (width) *width = 0;
	if (height) *height = 0;
	if (w == 0 || h == 0) {
		rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT,
			"rk_render: image size %u x %u (width and height are both 0 for the default %d x %d, or both >= 1)",
			(unsigned)w, (unsigned)h, RK_RENDER_DEFAULT_SIZE, RK_RENDER_DEFAULT_SIZE);
		return 0;
	}
	if (w > RK_RENDER_MAX_SIZE || h > RK_RENDER_MAX_SIZE) {
		rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: image size %u x %u exceeds %d x %d", (unsigned)w,
			(unsigned)h, RK_RENDER_MAX_SIZE, RK_RENDER_MAX_SIZE);
		return 0;
	}
	if (width) *width = w;
	if (height) *height = h;
	return (size_t)w * h * 4u;
}

/* Every rule of the options, one message each. */
/* Copies the caller's options (NULL = all defaults) and applies every
 * default of render.h in one place: memory_limit, image size, camera margin
 * and field of view, Lambert ambient/diffuse. Values the rules reject
 * (negative margin, NaN) are left for rki_render_check_opts to report. */
static void rki_render_opts_resolve(rk_render_opts *out, const rk_render_opts *in)
{
	if (in) *out = *in;
	else memset(out, 0, sizeof(*out));
	if (!out->memory_limit) out->memory_limit = RKI_RENDER_DEFAULT_MEMORY;
	if (out->width == 0 && out->height == 0) out->width = out->height = RK_RENDER_DEFAULT_SIZE;
	if (out->camera.margin == 0.0) out->camera.margin = RKI_RENDER_DEFAULT_MARGIN;
	if (out->camera.fov_deg == 0.0) out->camera.fov_deg = RKI_RENDER_DEFAULT_FOV;
	if (out->ambient == 0.0 && out->diffuse == 0.0) {
		out->ambient = RKI_RENDER_DEFAULT_AMBIENT;
		out->diffuse = RKI_RENDER_DEFAULT_DIFFUSE;
	}
}

static bool rki_render_check_opts(const rk_render_opts *o, rk_error *err)
{
	const rk_render_camera *c = &o->camera;
	const rk_error_code bad = RK_ERROR_INVALID_ARGUMENT;
	if (!isfinite(c->yaw_deg) || !isfinite(c->pitch_deg))
		return rki_render_fail(err, bad, "rk_render: camera yaw/pitch must be finite");
	if (!(c->margin >= 0.0 && c->margin <= 0.9))
		return rki_render_fail(err, bad, "rk_render: camera margin %g outside [0, 0.9]", c->margin);
	if (c->has_bounds) {
		if (!rki_finite3(c->bounds_min) || !rki_finite3(c->bounds_max) || c->bounds_min.x > c->bounds_max.x
			|| c->bounds_min.y > c->bounds_max.y || c->bounds_min.z > c->bounds_max.z)
			return rki_render_fail(err, bad, "rk_render: camera bounds must be finite with min <= max per axis");
	}
	if (c->look_at) {
		if (!rki_finite3(c->eye) || !rki_finite3(c->target) || !rki_finite3(c->up))
			return rki_render_fail(err, bad, "rk_render: camera eye/target/up must be finite");
		if (!(rki_len3(rk_vec3_sub(c->target, c->eye)) > 0.0))
			return rki_render_fail(err, bad, "rk_render: camera eye and target coincide");
	}
	if (!(c->fov_deg >= 0.0 && c->fov_deg <= 170.0))
		return rki_render_fail(err, bad, "rk_render: camera fov_deg %g outside (0, 170] (0 = 30)", c->fov_deg);
	if (!(c->ortho_height >= 0.0) || !isfinite(c->ortho_height))
		return rki_render_fail(err, bad, "rk_render: camera ortho_height %g must be >= 0 and finite", c->ortho_height);
	if (!(c->near >= 0.0) || !isfinite(c->near))
		return rki_render_fail(err, bad, "rk_render: camera near %g must be >= 0 and finite", c->near);
	if ((unsigned)o->shading > (unsigned)RK_SHADE_UNLIT)
		return rki_render_fail(err, bad, "rk_render: unknown shading %d", (int)o->shading);
	if (!rki_finite3(o->light_direction))
		return rki_render_fail(err, bad, "rk_render: light_direction must be finite");
	if (!(o->ambient >= 0.0) || !(o->diffuse >= 0.0) || !isfinite(o->ambient) || !isfinite(o->diffuse))
		return rki_render_fail(err, bad, "rk_render: ambient %g and diffuse %g must be finite and >= 0", o->ambient,
			o->diffuse);
	if (o->line_width > 64)
		return rki_render_fail(err, bad, "rk_render: line_width %u exceeds 64", (unsigned)o->line_width);
	if (o->supersample > 4)
		return rki_render_fail(err, bad, "rk_render: supersample %u outside 0..4", (unsigned)o->supersample);
	return true;
}

/* ---------------------------------------------------------------------------
 * Pose, deformation, bounds
 * ------------------------------------------------------------------------- */

typedef struct rki_pnode {
	const rk_node *node;
	size_t pos_at;                /* first entry in rki_posed.pos */
	size_t nrm_at;                /* first entry in rki_posed.nrm (valid when has_normals) */
	bool has_normals;
} rki_pnode;

typedef struct rki_posed {
	void *pose_mem;
	size_t pose_size;
	rk_pose pose;
	rk_vec3 *pos;
	size_t pos_count;
	rk_vec3 *nrm;
	size_t nrm_count;
	rki_pnode *nodes;
	size_t node_count;            /* nodes deformed */
	size_t node_cap;              /* entries allocated */
	rk_vec3 bmin, bmax;
} rki_posed;

static void rki_posed_free(rki_alloc *a, rki_posed *p)
{
	rki_free(a, p->pose_mem, p->pose_size);
	rki_free(a, p->pos, p->pos_count * sizeof(rk_vec3));
	rki_free(a, p->nrm, p->nrm_count * sizeof(rk_vec3));
	rki_free(a, p->nodes, p->node_cap * sizeof(rki_pnode));
	memset(p, 0, sizeof(*p));
}

static bool rki_render_oom(rki_alloc *a, rk_error *err, const char *what)
{
	if (a->limit_hit)
		return rki_render_fail(err, RK_ERROR_LIMIT, "rk_render: memory limit reached allocating %s", what);
	return rki_render_fail(err, RK_ERROR_OUT_OF_MEMORY, "rk_render: out of memory allocating %s", what);
}

static bool rki_node_drawn(const rk_node *n)
{
	const rk_mesh *m = n->mesh;
	return m && n->visible && m->vertex_count > 0 && (m->positions_f64 || m->positions_f32);
}

static void rki_bounds_add(rk_vec3 *mn, rk_vec3 *mx, rk_vec3 p, bool *any)
{
	if (!rki_finite3(p)) return;
	if (!*any) {
		*mn = *mx = p;
		*any = true;
		return;
	}
	if (p.x < mn->x) mn->x = p.x;
	if (p.y < mn->y) mn->y = p.y;
	if (p.z < mn->z) mn->z = p.z;
	if (p.x > mx->x) mx->x = p.x;
	if (p.y > mx->y) mx->y = p.y;
	if (p.z > mx->z) mx->z = p.z;
}

/* Poses the scene, deforms every drawn mesh node (normals when asked) and
 * computes the posed bounds. */
static bool rki_render_pose(const rk_scene *scene, const rk_anim_clip *clip, double time, bool no_extrapolation,
	bool normals, rki_alloc *a, rki_posed *p, rk_error *err)
{
	memset(p, 0, sizeof(*p));
	if (!scene) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: NULL scene");
	if (!isfinite(time)) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: time must be finite");
	p->pose_size = rk_pose_memory_size(scene);
	if (p->pose_size == 0)
		return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: the scene has no nodes (or too many)");
	p->pose_mem = rki_malloc(a, p->pose_size);
	if (!p->pose_mem) return rki_render_oom(a, err, "the pose");
	rk_pose_init(&p->pose, scene, p->pose_mem, p->pose_size);
	rk_pose_eval_job job = { 0 };
	job.scene = scene;
	job.clip = clip;
	job.time = time;
	job.no_extrapolation = no_extrapolation;
	job.pose = &p->pose;
	if (!rk_pose_eval_validate(&job, err)) return false;
	rk_pose_eval_run(&job);

	size_t nodes = 0, verts = 0, corners = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) {
		const rk_node *n = &scene->nodes.data[i];
		if (!rki_node_drawn(n)) continue;
		nodes++;
		if (!rki_add_size(verts, n->mesh->vertex_count, &verts))
			return rki_render_fail(err, RK_ERROR_LIMIT, "rk_render: vertex count overflows");
		if (normals && n->mesh->normals.exists && !rki_add_size(corners, n->mesh->index_count, &corners))
			return rki_render_fail(err, RK_ERROR_LIMIT, "rk_render: corner count overflows");
	}
	size_t bytes;
	if (nodes) {
		if (!rki_mul_size(nodes, sizeof(rki_pnode), &bytes) || !(p->nodes = (rki_pnode *)rki_malloc(a, bytes)))
			return rki_render_oom(a, err, "the node list");
		p->node_cap = nodes;
		if (!rki_mul_size(verts, sizeof(rk_vec3), &bytes) || !(p->pos = (rk_vec3 *)rki_malloc(a, bytes)))
			return rki_render_oom(a, err, "posed positions");
		p->pos_count = verts;
	}
	if (corners) {
		if (!rki_mul_size(corners, sizeof(rk_vec3), &bytes) || !(p->nrm = (rk_vec3 *)rki_malloc(a, bytes)))
			return rki_render_oom(a, err, "posed normals");
		p->nrm_count = corners;
	}
	bool any = false;
	size_t at_v = 0, at_n = 0, k = 0;
	for (size_t i = 0; i < scene->nodes.count; i++) {
		const rk_node *n = &scene->nodes.data[i];
		if (!rki_node_drawn(n)) continue;
		const rk_mesh *m = n->mesh;
		if (!rk_mesh_world_positions_eval(scene, n, &p->pose, p->pos + at_v)) continue;
		rki_pnode *pn = &p->nodes[k++];
		pn->node = n;
		pn->pos_at = at_v;
		pn->nrm_at = 0;
		pn->has_normals = false;
		for (size_t v = 0; v < m->vertex_count; v++) rki_bounds_add(&p->bmin, &p->bmax, p->pos[at_v + v], &any);
		at_v += m->vertex_count;
		if (normals && m->normals.exists) {
			pn->nrm_at = at_n;
			pn->has_normals = rk_mesh_world_normals_eval(scene, n, &p->pose, p->nrm + at_n);
			at_n += m->index_count;
		}
	}
	p->node_count = k;
	if (!any) {
		for (size_t i = 0; i < scene->nodes.count; i++)
			if (scene->nodes.data[i].kind == RK_NODE_JOINT)
				rki_bounds_add(&p->bmin, &p->bmax, rk_mat4_get_translation(p->pose.node_to_world[i]), &any);
	}
	if (!any) {
		for (size_t i = 0; i < scene->nodes.count; i++)
			rki_bounds_add(&p->bmin, &p->bmax, rk_mat4_get_translation(p->pose.node_to_world[i]), &any);
	}
	return true;
}

bool rk_render_bounds(const rk_scene *scene, const rk_anim_clip *clip, double time, const rk_render_opts *opts,
	rk_vec3 *out_min, rk_vec3 *out_max, rk_error *err)
{
	rki_error_clear(err);
	if (out_min) *out_min = (rk_vec3){ 0, 0, 0 };
	if (out_max) *out_max = (rk_vec3){ 0, 0, 0 };
	if (!out_min || !out_max) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render_bounds: NULL output");
	rk_render_opts o;
	rki_render_opts_resolve(&o, opts);
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, o.memory_limit, 0);
	rki_posed p;
	bool ok = rki_render_pose(scene, clip, time, o.no_extrapolation, false, &a, &p, err);
	if (ok) {
		*out_min = p.bmin;
		*out_max = p.bmax;
	}
	rki_posed_free(&a, &p);
	return ok;
}

/* ---------------------------------------------------------------------------
 * Camera
 * ------------------------------------------------------------------------- */

static rk_vec3 rki_axis_vec(rk_axis a)
{
	switch (a) {
	case RK_AXIS_POSITIVE_X: return (rk_vec3){ 1, 0, 0 };
	case RK_AXIS_NEGATIVE_X: return (rk_vec3){ -1, 0, 0 };
	case RK_AXIS_POSITIVE_Y: return (rk_vec3){ 0, 1, 0 };
	case RK_AXIS_NEGATIVE_Y: return (rk_vec3){ 0, -1, 0 };
	case RK_AXIS_POSITIVE_Z: return (rk_vec3){ 0, 0, 1 };
	case RK_AXIS_NEGATIVE_Z: return (rk_vec3){ 0, 0, -1 };
	default: return (rk_vec3){ 0, 0, 0 };
	}
}

static rk_vec3 rki_axpy(rk_vec3 a, double s, rk_vec3 b)
{
	return (rk_vec3){ a.x * s + b.x, a.y * s + b.y, a.z * s + b.z };
}

/* Scene up/front/right (see CAMERA) and the handedness sign. */
static void rki_scene_frame(const rk_scene *s, rk_vec3 *up, rk_vec3 *front, rk_vec3 *right, double *hand)
{
	rk_axes ax = s->settings.axes;
	*up = rki_axis_vec(ax.up);
	if (rki_len3(*up) == 0.0) *up = (rk_vec3){ 0, 1, 0 };
	*front = rki_axis_vec(ax.front);
	if (rki_len3(*front) == 0.0 || fabs(rk_vec3_dot(*front, *up)) > 0.5)
		*front = fabs(up->y) > 0.5 ? (rk_vec3){ 0, 0, 1 } : fabs(up->z) > 0.5 ? (rk_vec3){ 0, -1, 0 } : (rk_vec3){ 0, 0, 1 };
	rk_vec3 rh = rk_vec3_cross(*up, *front);
	*right = rki_axis_vec(ax.right);
	if (rki_len3(*right) == 0.0 || fabs(rk_vec3_dot(*right, *up)) > 0.5 || fabs(rk_vec3_dot(*right, *front)) > 0.5)
		*right = rh;
	*hand = rk_vec3_dot(*right, rh) < 0.0 ? -1.0 : 1.0;
}

static void rki_render_camera(rki_render *r, rk_vec3 bmin, rk_vec3 bmax)
{
	const rk_render_camera *c = &r->o.camera;
	rk_vec3 up, front, right;
	double hand;
	rki_scene_frame(r->scene, &up, &front, &right, &hand);
	if (c->has_bounds && !c->look_at) {
		bmin = c->bounds_min;
		bmax = c->bounds_max;
	}
	rk_vec3 centre = rk_vec3_scale(rk_vec3_add(bmin, bmax), 0.5);
	rk_vec3 half = rk_vec3_scale(rk_vec3_sub(bmax, bmin), 0.5);
	double hlen = rki_len3(half);
	if (!(hlen > 1e-9 * (1.0 + rki_len3(centre))) || !isfinite(hlen)) {
		half = (rk_vec3){ 0.5, 0.5, 0.5 };
		hlen = rki_len3(half);
	}
	double aspect = (double)r->width / (double)r->height;
	double fit = 1.0 - c->margin;   /* resolved: rki_render_opts_resolve */
	double fov = c->fov_deg;
	double t = tan(fov * RK_PI / 360.0);
	r->ortho = c->orthographic;
	double half_h = c->ortho_height * 0.5;
	rk_vec3 target;
	if (!c->look_at) {
		double yaw = c->yaw_deg * RK_PI / 180.0, pitch = c->pitch_deg * RK_PI / 180.0;
		double cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch);
		rk_vec3 d0 = rki_axpy(front, cy, rk_vec3_scale(right, sy));
		r->R = rk_vec3_normalize(rki_axpy(right, cy, rk_vec3_scale(front, -sy)));
		rk_vec3 d = rk_vec3_normalize(rki_axpy(d0, cp, rk_vec3_scale(up, sp)));
		r->U = rk_vec3_normalize(rki_axpy(up, cp, rk_vec3_scale(d0, -sp)));
		r->F = rk_vec3_scale(d, -1.0);
		double dist = 0.0, max_z = -DBL_MAX, ext = 0.0;
		for (int k = 0; k < 8; k++) {
			rk_vec3 q = { k & 1 ? half.x : -half.x, k & 2 ? half.y : -half.y, k & 4 ? half.z : -half.z };
			double x = fabs(rk_vec3_dot(q, r->R)), y = fabs(rk_vec3_dot(q, r->U)), z = rk_vec3_dot(q, d);
			if (z > max_z) max_z = z;
			double dx = x / (t * aspect * fit) + z, dy = y / (t * fit) + z;
			if (dx > dist) dist = dx;
			if (dy > dist) dist = dy;
			if (y > ext) ext = y;
			if (x / aspect > ext) ext = x / aspect;
		}
		if (r->ortho) {
			if (!(half_h > 0.0)) half_h = ext / fit;
			dist = 2.0 * hlen;
		} else if (dist < max_z + 1e-6 * hlen) {
			dist = max_z + 1e-6 * hlen;
		}
		target = centre;
		r->eye = rki_axpy(d, dist, centre);
	} else {
		r->eye = c->eye;
		target = c->target;
		r->F = rk_vec3_normalize(rk_vec3_sub(target, r->eye));
		rk_vec3 upv = rki_len3(c->up) > 0.0 ? rk_vec3_normalize(c->up) : up;
		rk_vec3 r0 = rk_vec3_cross(r->F, upv);
		if (rki_len3(r0) < 1e-9) r0 = rk_vec3_cross(r->F, front);
		if (rki_len3(r0) < 1e-9) r0 = rk_vec3_cross(r->F, right);
		r0 = rk_vec3_normalize(r0);
		r->U = rk_vec3_normalize(rk_vec3_cross(r0, r->F));
		r->R = rk_vec3_scale(r0, hand);
		if (r->ortho && !(half_h > 0.0)) {
			double ext = 0.0;
			for (int k = 0; k < 8; k++) {
				rk_vec3 q = { k & 1 ? half.x : -half.x, k & 2 ? half.y : -half.y, k & 4 ? half.z : -half.z };
				rk_vec3 e = rk_vec3_sub(rk_vec3_add(centre, q), r->eye);
				double x = fabs(rk_vec3_dot(e, r->R)), y = fabs(rk_vec3_dot(e, r->U));
				if (y > ext) ext = y;
				if (x / aspect > ext) ext = x / aspect;
			}
			half_h = ext > 0.0 ? ext / fit : 1.0;
		}
	}
	if (r->ortho) {
		r->proj_y = 1.0 / half_h;
		r->proj_x = 1.0 / (half_h * aspect);
	} else {
		r->proj_y = 1.0 / t;
		r->proj_x = 1.0 / (t * aspect);
	}
	if (c->near > 0.0) r->near = c->near;
	else r->near = r->ortho ? 0.0 : 1e-3 * (rki_len3(rk_vec3_sub(r->eye, centre)) + hlen);

	rk_vec3 L = r->o.light_direction;
	if (rki_len3(L) == 0.0)
		L = rki_axpy(r->R, -0.35, rki_axpy(r->U, 0.55, rk_vec3_scale(r->F, -0.75)));
	L = rk_vec3_normalize(L);
	r->light[0] = (float)L.x;
	r->light[1] = (float)L.y;
	r->light[2] = (float)L.z;

	rk_render_stats *st = &r->st;
	st->eye = r->eye;
	st->target = target;
	st->forward = r->F;
	st->right = r->R;
	st->up = r->U;
	st->orthographic = r->ortho;
	st->fov_deg = r->ortho ? 0.0 : fov;
	st->ortho_height = r->ortho ? 2.0 * half_h : 0.0;
	st->near = r->near;
}

bool rk_render_camera_eval(const rk_scene *scene, const rk_anim_clip *clip, double time, const rk_render_opts *opts,
	rk_render_stats *out, rk_error *err)
{
	rki_error_clear(err);
	if (!out) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render_camera_eval: NULL output");
	memset(out, 0, sizeof(*out));
	rk_render_opts o;
	rki_render_opts_resolve(&o, opts);
	uint32_t w, h;
	if (!rk_render_size(&o, &w, &h, err) || !rki_render_check_opts(&o, err)) return false;
	/* the context holds ~20 KiB of tables: on the heap, as in rk_render */
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, o.memory_limit, 0);
	rki_render *r = (rki_render *)rki_calloc(&a, 1, sizeof(rki_render));
	if (!r) return rki_render_oom(&a, err, "the render context");
	r->scene = scene;
	r->o = o;
	r->width = w;
	r->height = h;
	rki_posed p;
	bool ok = rki_render_pose(scene, clip, time, o.no_extrapolation, false, &a, &p, err);
	if (ok) {
		r->st.bounds_min = p.bmin;
		r->st.bounds_max = p.bmax;
		rki_render_camera(r, p.bmin, p.bmax);
		*out = r->st;
	}
	rki_posed_free(&a, &p);
	rki_free(&a, r, sizeof(rki_render));
	return ok;
}

/* ---------------------------------------------------------------------------
 * Materials
 * ------------------------------------------------------------------------- */

static float rki_unit(double v, float fallback)
{
	if (!isfinite(v)) return fallback;
	return v < 0.0 ? 0.0f : v > 1.0 ? 1.0f : (float)v;
}

static bool rki_render_materials(rki_render *r)
{
	const rk_scene *s = r->scene;
	size_t count = s->materials.count + 1, bytes;
	if (!rki_mul_size(count, sizeof(rki_rmat), &bytes) || !(r->mats = (rki_rmat *)rki_malloc(&r->alloc, bytes)))
		return rki_render_oom(&r->alloc, r->err, "materials");
	r->mat_count = count;
	if (s->textures.count) {
		if (!rki_mul_size(s->textures.count, sizeof(rki_rimage), &bytes)
			|| !(r->images = (rki_rimage *)rki_calloc(&r->alloc, s->textures.count, sizeof(rki_rimage))))
			return rki_render_oom(&r->alloc, r->err, "texture list");
	}
	for (size_t i = 0; i < count; i++) {
		rki_rmat *m = &r->mats[i];
		memset(m, 0, sizeof(*m));
		m->texture = -1;
		m->unlit = r->o.shading == RK_SHADE_UNLIT;
		if (i + 1 == count) {
			m->base[0] = m->base[1] = m->base[2] = RKI_RENDER_DEFAULT_GREY;
			m->base[3] = 1.0f;
			continue;
		}
		const rk_material *src = &s->materials.data[i];
		m->base[0] = rki_unit(src->base_color.x, 1.0f);
		m->base[1] = rki_unit(src->base_color.y, 1.0f);
		m->base[2] = rki_unit(src->base_color.z, 1.0f);
		m->base[3] = rki_unit(src->base_color.w, 1.0f);
		m->unlit = m->unlit || src->unlit;
		m->mask = src->alpha_mode == RK_ALPHA_MASK;
		m->cutoff = isfinite(src->alpha_cutoff) ? (float)src->alpha_cutoff : 0.5f;
		const rk_texture *tex = src->base_color_texture.texture;
		if (r->o.textures && tex && s->textures.count && tex >= s->textures.data
			&& tex < s->textures.data + s->textures.count) {
			m->texture = (int32_t)(tex - s->textures.data);
			m->ref = &src->base_color_texture;
		}
	}
	return true;
}

const rk_image *rki_render_texture(rki_render *r, const rki_rmat *m)
{
	if (m->texture < 0) return NULL;
	rki_rimage *img = &r->images[m->texture];
	if (img->state == 0) {
		const rk_texture *tex = &r->scene->textures.data[m->texture];
		rk_image_opts io = { 0 };
		io.allocator = r->o.allocator;
		rk_error e;
		if (rk_image_decode(tex, &io, &img->image, &e)) {
			img->state = 1;
			img->wrap_u = tex->wrap_u;
			img->wrap_v = tex->wrap_v;
			r->st.textures_decoded++;
		} else {
			img->state = 2;
			if (r->st.textures_failed++ == 0) rk_error_format(r->st.texture_error, sizeof(r->st.texture_error), &e);
			if (r->o.warning) {
				char msg[RK_ERROR_TEXT_MAX];
				rk_error_format(msg, sizeof(msg), &e);
				rki_warning_emitf(r->o.warning, r->o.warning_user, "%s", msg);
			}
		}
	}
	return img->state == 1 ? &img->image : NULL;
}

/* ---------------------------------------------------------------------------
 * Triangle setup
 * ------------------------------------------------------------------------- */

/* Clip-space vertex: X, Y, W, D (view depth), normal xyz, u, v, colour rgba. */
enum { RKI_CX, RKI_CY, RKI_CW, RKI_CD, RKI_CNX, RKI_CNY, RKI_CNZ, RKI_CU, RKI_CV, RKI_CR, RKI_CG, RKI_CB, RKI_CA,
	RKI_CN };
typedef struct rki_cvert {
	double a[RKI_CN];
	uint8_t edge;                 /* the edge from this vertex to the next is a wireframe edge */
} rki_cvert;

#define RKI_CLIP_PLANES 5
#define RKI_CLIP_MAX (3 + RKI_CLIP_PLANES + 1)

static double rki_plane(const rki_cvert *v, int k, double near)
{
	const double *a = v->a, g = RKI_RENDER_GUARD;
	switch (k) {
	case 0: return a[RKI_CD] - near;
	case 1: return g * a[RKI_CW] - a[RKI_CX];
	case 2: return g * a[RKI_CW] + a[RKI_CX];
	case 3: return g * a[RKI_CW] - a[RKI_CY];
	default: return g * a[RKI_CW] + a[RKI_CY];
	}
}

/* Projects one (possibly clipped) triangle and stores it. e[i] = wireframe
 * flag of the edge opposite vertex i. */
static bool rki_render_emit(rki_render *r, const rki_cvert *v0, const rki_cvert *v1, const rki_cvert *v2,
	const bool e[3], uint32_t material, const float facing[3])
{
	const rki_cvert *v[3] = { v0, v1, v2 };
	rki_rtri t;
	memset(&t, 0, sizeof(t));
	bool edge[3] = { e[0], e[1], e[2] };
	double sw = (double)r->sw, sh = (double)r->sh;
	for (int i = 0; i < 3; i++) {
		const double *a = v[i]->a;
		double iw = 1.0 / a[RKI_CW];
		double sx = (a[RKI_CX] * iw + 1.0) * 0.5 * sw, sy = (1.0 - a[RKI_CY] * iw) * 0.5 * sh;
		if (!isfinite(sx) || !isfinite(sy)) return true;
		t.x[i] = (int32_t)floor(sx * RKI_RENDER_SUBPIXEL + 0.5);
		t.y[i] = (int32_t)floor(sy * RKI_RENDER_SUBPIXEL + 0.5);
		t.key[i] = r->ortho ? (float)-a[RKI_CD] : (float)iw;
		t.invw[i] = r->ortho ? 1.0f : (float)iw;
		t.n[i][0] = (float)a[RKI_CNX];
		t.n[i][1] = (float)a[RKI_CNY];
		t.n[i][2] = (float)a[RKI_CNZ];
		t.uv[i][0] = (float)a[RKI_CU];
		t.uv[i][1] = (float)a[RKI_CV];
		for (int k = 0; k < 4; k++) t.col[i][k] = (float)a[RKI_CR + k];
	}
	int64_t area = (int64_t)(t.x[1] - t.x[0]) * (t.y[2] - t.y[0]) - (int64_t)(t.y[1] - t.y[0]) * (t.x[2] - t.x[0]);
	if (area == 0) return true;
	if (area < 0) {
		/* Swap vertices 1 and 2 (and the flags of the edges opposite them). */
		rki_rtri u = t;
		t.x[1] = u.x[2]; t.x[2] = u.x[1];
		t.y[1] = u.y[2]; t.y[2] = u.y[1];
		t.key[1] = u.key[2]; t.key[2] = u.key[1];
		t.invw[1] = u.invw[2]; t.invw[2] = u.invw[1];
		memcpy(t.n[1], u.n[2], sizeof(t.n[1]));
		memcpy(t.n[2], u.n[1], sizeof(t.n[2]));
		memcpy(t.uv[1], u.uv[2], sizeof(t.uv[1]));
		memcpy(t.uv[2], u.uv[1], sizeof(t.uv[2]));
		memcpy(t.col[1], u.col[2], sizeof(t.col[1]));
		memcpy(t.col[2], u.col[1], sizeof(t.col[2]));
		bool b = edge[1];
		edge[1] = edge[2];
		edge[2] = b;
	}
	/* Samples i with centre (i + 0.5) * 256 inside [min, max]. */
	int32_t xmin = t.x[0], xmax = t.x[0], ymin = t.y[0], ymax = t.y[0];
	for (int i = 1; i < 3; i++) {
		if (t.x[i] < xmin) xmin = t.x[i];
		if (t.x[i] > xmax) xmax = t.x[i];
		if (t.y[i] < ymin) ymin = t.y[i];
		if (t.y[i] > ymax) ymax = t.y[i];
	}
	const int32_t half = RKI_RENDER_SUBPIXEL / 2;
	int64_t bx0 = -((-(int64_t)(xmin - half)) >> RKI_RENDER_SUBPIXEL_BITS); /* ceil */
	int64_t by0 = -((-(int64_t)(ymin - half)) >> RKI_RENDER_SUBPIXEL_BITS);
	int64_t bx1 = ((int64_t)(xmax - half)) >> RKI_RENDER_SUBPIXEL_BITS;  /* floor */
	int64_t by1 = ((int64_t)(ymax - half)) >> RKI_RENDER_SUBPIXEL_BITS;
	if (bx0 < 0) bx0 = 0;
	if (by0 < 0) by0 = 0;
	if (bx1 > (int64_t)r->sw - 1) bx1 = (int64_t)r->sw - 1;
	if (by1 > (int64_t)r->sh - 1) by1 = (int64_t)r->sh - 1;
	if (bx0 > bx1 || by0 > by1) return true;
	t.bx0 = (int32_t)bx0;
	t.by0 = (int32_t)by0;
	t.bx1 = (int32_t)bx1;
	t.by1 = (int32_t)by1;
	for (int i = 0; i < 3 && r->o.wireframe; i++) {
		if (!edge[i]) continue;
		int a = (i + 1) % 3, b = (i + 2) % 3;
		double dx = (double)t.x[b] - t.x[a], dy = (double)t.y[b] - t.y[a];
		double len = sqrt(dx * dx + dy * dy);
		if (len > 0.0) t.wire[i] = (float)(1.0 / (len * RKI_RENDER_SUBPIXEL));
	}
	t.material = material;
	memcpy(t.facing, facing, sizeof(t.facing));
	if (!rki_buf_push(&r->tris, &t, sizeof(t))) return rki_render_oom(&r->alloc, r->err, "triangles");
	r->st.triangles_rasterized++;
	return true;
}

/* Inline vector helpers for the per-triangle path (math.h's are out of line). */
static inline rk_vec3 rki_sub(rk_vec3 a, rk_vec3 b)
{
	return (rk_vec3){ a.x - b.x, a.y - b.y, a.z - b.z };
}
static inline double rki_dot(rk_vec3 a, rk_vec3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline rk_vec3 rki_cross(rk_vec3 a, rk_vec3 b)
{
	return (rk_vec3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}
static inline rk_vec3 rki_scale(rk_vec3 a, double s)
{
	return (rk_vec3){ a.x * s, a.y * s, a.z * s };
}

typedef struct rki_corner {
	rk_vec3 p, n;
	double u, v;
	rk_vec4 col;
} rki_corner;

/* Culls, clips and emits one world-space triangle. e[i]: wireframe flag of
 * the edge opposite corner i. */
static bool rki_render_triangle(rki_render *r, const rki_corner c[3], bool has_normals, const bool e[3],
	uint32_t material, bool mirrored)
{
	rk_vec3 g = rki_cross(rki_sub(c[1].p, c[0].p), rki_sub(c[2].p, c[0].p));
	double glen = sqrt(rki_dot(g, g));
	if (!(glen > 0.0) || !isfinite(glen)) return true;
	rk_vec3 to_eye = r->ortho ? rki_scale(r->F, -1.0) : rki_sub(r->eye, c[0].p);
	double side = rki_dot(g, to_eye);
	if (r->o.cull_back_faces) {
		bool front = side > 0.0;
		if (mirrored) front = !front;
		if (!front) return true;
	}
	rk_vec3 gn = rki_scale(g, 1.0 / glen);
	rk_vec3 f = side < 0.0 ? rki_scale(gn, -1.0) : gn;
	float facing[3] = { (float)f.x, (float)f.y, (float)f.z };

	rki_cvert in[RKI_CLIP_MAX], out[RKI_CLIP_MAX];
	unsigned all_out = 0x1f, any_out = 0;
	for (int i = 0; i < 3; i++) {
		rk_vec3 d = rki_sub(c[i].p, r->eye);
		double x = rki_dot(d, r->R), y = rki_dot(d, r->U), depth = rki_dot(d, r->F);
		double *a = in[i].a;
		a[RKI_CX] = x * r->proj_x;
		a[RKI_CY] = y * r->proj_y;
		a[RKI_CW] = r->ortho ? 1.0 : depth;
		a[RKI_CD] = depth;
		rk_vec3 n = has_normals ? c[i].n : gn;
		a[RKI_CNX] = n.x;
		a[RKI_CNY] = n.y;
		a[RKI_CNZ] = n.z;
		a[RKI_CU] = c[i].u;
		a[RKI_CV] = c[i].v;
		a[RKI_CR] = c[i].col.x;
		a[RKI_CG] = c[i].col.y;
		a[RKI_CB] = c[i].col.z;
		a[RKI_CA] = c[i].col.w;
		for (int k = 0; k < RKI_CN; k++)
			if (!isfinite(a[k])) return true;
		/* edge from corner i to corner i + 1 is opposite corner i + 2 */
		in[i].edge = e[(i + 2) % 3];
		unsigned outc = 0;
		for (int k = 0; k < RKI_CLIP_PLANES; k++)
			if (rki_plane(&in[i], k, r->near) < 0.0) outc |= 1u << k;
		all_out &= outc;
		any_out |= outc;
	}
	if (all_out) return true;
	if (!any_out) return rki_render_emit(r, &in[0], &in[1], &in[2], e, material, facing);

	/* Sutherland-Hodgman against each plane a vertex is outside of. */
	rki_cvert *src = in, *dst = out;
	int count = 3;
	for (int k = 0; k < RKI_CLIP_PLANES && count >= 3; k++) {
		if (!(any_out & (1u << k))) continue;
		int n = 0;
		for (int i = 0; i < count; i++) {
			const rki_cvert *s = &src[(i + count - 1) % count], *q = &src[i];
			double ds = rki_plane(s, k, r->near), dq = rki_plane(q, k, r->near);
			bool s_in = ds >= 0.0, q_in = dq >= 0.0;
			if (s_in && q_in) {
				dst[n++] = *q;
			} else if (s_in != q_in) {
				double tt = ds / (ds - dq);
				rki_cvert m;
				for (int j = 0; j < RKI_CN; j++) m.a[j] = s->a[j] + tt * (q->a[j] - s->a[j]);
				/* entering: I -> q lies on s -> q; leaving: I -> next lies on the plane */
				m.edge = q_in ? s->edge : 0;
				dst[n++] = m;
				if (q_in) dst[n++] = *q;
			}
		}
		rki_cvert *tmp = src;
		src = dst;
		dst = tmp;
		count = n;
	}
	for (int i = 1; i + 1 < count; i++) {
		/* fan (0, i, i + 1): opposite 0 = i -> i+1, opposite i = (i+1) -> 0, opposite i+1 = 0 -> i */
		bool fe[3] = { src[i].edge != 0, i + 2 == count && src[i + 1].edge, i == 1 && src[0].edge };
		if (!rki_render_emit(r, &src[0], &src[i], &src[i + 1], fe, material, facing)) return false;
	}
	return true;
}

static uint32_t rki_material_index(const rki_render *r, const rk_material *mat)
{
	const rk_material_list *l = &r->scene->materials;
	if (mat && l->count && mat >= l->data && mat < l->data + l->count) return (uint32_t)(mat - l->data);
	return (uint32_t)(r->mat_count - 1);
}

/* Texture coordinate of corner c in set `set`, the material's texture
 * transform applied, V flipped for bottom-left origins. */
static void rki_corner_uv(const rki_render *r, const rk_mesh *m, int32_t set, const rki_rmat *mat, size_t c,
	double *u, double *v)
{
	*u = *v = 0.0;
	if (set < 0 || mat->texture < 0) return;
	const rk_attrib_vec2 *a = &m->uv_sets.data[set].uv;
	if (!a->exists || (!a->values_f64 && !a->values_f32)) return;
	size_t idx = a->indices ? a->indices[c] : c;
	if (idx >= a->value_count) return;
	rk_vec2 uv = rk_attrib_vec2_value(a, idx);
	double x = uv.x, y = uv.y;
	const rk_texture_ref *ref = mat->ref;
	if (ref && ref->has_transform) {
		double sx = x * ref->scale.x, sy = y * ref->scale.y;
		double cr = cos(ref->rotation), sr = sin(ref->rotation);
		x = cr * sx + sr * sy + ref->offset.x;
		y = -sr * sx + cr * sy + ref->offset.y;
	}
	rk_file_format f = r->scene->settings.format;
	if (f != RK_FORMAT_GLTF && f != RK_FORMAT_GLB) y = 1.0 - y;
	*u = x;
	*v = y;
}

static bool rki_adjacent(uint32_t a, uint32_t b, uint32_t n)
{
	return (a + 1) % n == b || (b + 1) % n == a;
}

static bool rki_render_node(rki_render *r, const rki_posed *p, const rki_pnode *pn, uint32_t *tri_idx, void *scratch,
	size_t scratch_size)
{
	const rk_node *node = pn->node;
	const rk_mesh *m = node->mesh;
	const rk_material_ref_list slots = rk_node_material_slots(node);
	bool mirrored = node->skin ? rk_mat4_determinant3(p->pose.node_to_parent[0]) < 0.0
	                           : rk_mat4_determinant3(p->pose.geometry_to_world[node->index]) < 0.0;
	/* Per slot: material index and UV set; the last entry is for faces
	 * without a (valid) slot. */
	size_t ns = slots.count + 1, bytes;
	if (!rki_mul_size(ns, sizeof(int32_t) * 2, &bytes)) return rki_render_oom(&r->alloc, r->err, "material slots");
	int32_t *slot = (int32_t *)rki_malloc(&r->alloc, bytes);
	if (!slot) return rki_render_oom(&r->alloc, r->err, "material slots");
	for (size_t s = 0; s < ns; s++) {
		const rk_material *mat = s < slots.count ? slots.data[s] : NULL;
		slot[2 * s] = (int32_t)rki_material_index(r, mat);
		slot[2 * s + 1] = rk_node_material_uv_set(node, mat);
	}
	const rk_vec3 *pos = p->pos + pn->pos_at;
	const rk_vec3 *nrm = pn->has_normals ? p->nrm + pn->nrm_at : NULL;
	/* glTF COLOR_0 multiplies the base colour (the glTF spec's rule; FBX
	 * vertex colours often hold other data and are not used). */
	rk_file_format fmt = r->scene->settings.format;
	const rk_attrib_vec4 *colors = (fmt == RK_FORMAT_GLTF || fmt == RK_FORMAT_GLB) && m->colors.count
		&& m->colors.data[0].exists && (m->colors.data[0].values_f64 || m->colors.data[0].values_f32) ? &m->colors.data[0] : NULL;
	/* rest positions as doubles for triangulation (glTF meshes hold floats) */
	const rk_vec3 *rest = m->positions_f64;
	rk_vec3 *rest64 = NULL;
	size_t rest_bytes = 0;
	if (!rest) {
		if (!rki_mul_size(m->vertex_count, sizeof(rk_vec3), &rest_bytes) || !(rest64 = (rk_vec3 *)rki_malloc(&r->alloc, rest_bytes))) {
			rki_free(&r->alloc, slot, bytes);
			return rki_render_oom(&r->alloc, r->err, "rest positions");
		}
		for (size_t v = 0; v < m->vertex_count; v++) rest64[v] = rk_mesh_position(m, v);
		rest = rest64;
	}
	bool ok = true;
	r->st.mesh_nodes++;
	for (size_t f = 0; f < m->face_count && ok; f++) {
		const rk_face *face = &m->faces[f];
		uint32_t n = face->index_count;
		if (n < 3 || face->index_begin > m->index_count || n > m->index_count - face->index_begin) {
			r->st.skipped_faces++;
			continue;
		}
		const uint32_t *vi = m->vertex_indices + face->index_begin;
		uint32_t flags = 0;
		size_t tris = rk_polygon_triangulate(tri_idx, rest, m->vertex_count, vi, n, scratch, scratch_size, &flags);
		if (tris == 0 || (flags & RK_TRIANGULATE_INVALID)) {
			r->st.skipped_faces++;
			continue;
		}
		size_t s = rk_node_face_slot(node, f);
		if (s == RK_NO_SLOT) s = slots.count;  /* out of range: the default material */
		uint32_t mi = (uint32_t)slot[2 * s];
		int32_t set = slot[2 * s + 1];
		rki_rmat *mat = &r->mats[mi];
		if (mat->texture >= 0 && !rki_render_texture(r, mat)) mat->texture = -1;
		r->st.triangles += tris;
		for (size_t t = 0; t < tris && ok; t++) {
			const uint32_t *k = tri_idx + 3 * t;
			rki_corner c[3];
			for (int j = 0; j < 3; j++) {
				size_t corner = face->index_begin + k[j];
				c[j].p = pos[m->vertex_indices[corner]];
				c[j].n = nrm ? nrm[corner] : (rk_vec3){ 0, 0, 0 };
				rki_corner_uv(r, m, set, mat, corner, &c[j].u, &c[j].v);
				c[j].col = (rk_vec4){ 1, 1, 1, 1 };
				if (colors) {
					size_t ci = colors->indices ? colors->indices[corner] : corner;
					if (ci < colors->value_count) {
						rk_vec4 v = rk_attrib_vec4_value(colors, ci);
						c[j].col = (rk_vec4){ rki_unit(v.x, 1.0f), rki_unit(v.y, 1.0f), rki_unit(v.z, 1.0f),
							rki_unit(v.w, 1.0f) };
					}
				}
			}
			bool e[3] = { rki_adjacent(k[1], k[2], n), rki_adjacent(k[2], k[0], n), rki_adjacent(k[0], k[1], n) };
			ok = rki_render_triangle(r, c, nrm != NULL, e, mi, mirrored);
		}
	}
	if (rest64) rki_free(&r->alloc, rest64, rest_bytes);
	rki_free(&r->alloc, slot, bytes);
	return ok;
}

static bool rki_render_triangles(rki_render *r, const rki_posed *p)
{
	size_t max_corners = 3;
	for (size_t i = 0; i < p->node_count; i++) {
		const rk_mesh *m = p->nodes[i].node->mesh;
		for (size_t f = 0; f < m->face_count; f++)
			if (m->faces[f].index_count > max_corners && m->faces[f].index_count <= m->index_count)
				max_corners = m->faces[f].index_count;
	}
	size_t idx_bytes, scratch_size = rk_polygon_triangulate_scratch_size(max_corners);
	if (scratch_size == SIZE_MAX || !rki_mul_size(max_corners - 2, 3 * sizeof(uint32_t), &idx_bytes))
		return rki_render_fail(r->err, RK_ERROR_LIMIT, "rk_render: a face has too many corners");
	/* Reserve the usual case (every triangle kept, none split by clipping)
	 * so the list is not copied while it grows; capped, it grows beyond. */
	size_t expect = 0, reserve;
	for (size_t i = 0; i < p->node_count; i++) {
		const rk_mesh *m = p->nodes[i].node->mesh;
		if (!rki_add_size(expect, m->triangle_count_hint, &expect)) expect = SIZE_MAX;
	}
	if (expect > ((size_t)1 << 22)) expect = (size_t)1 << 22;
	if (rki_mul_size(expect, sizeof(rki_rtri), &reserve) && reserve && !rki_buf_reserve(&r->tris, reserve))
		return rki_render_oom(&r->alloc, r->err, "triangles");
	uint32_t *idx = (uint32_t *)rki_malloc(&r->alloc, idx_bytes);
	void *scratch = scratch_size ? rki_malloc(&r->alloc, scratch_size) : NULL;
	bool ok = idx && (scratch || !scratch_size);
	if (!ok) rki_render_oom(&r->alloc, r->err, "triangulation scratch");
	for (size_t i = 0; i < p->node_count && ok; i++) ok = rki_render_node(r, p, &p->nodes[i], idx, scratch, scratch_size);
	rki_free(&r->alloc, idx, idx_bytes);
	rki_free(&r->alloc, scratch, scratch_size);
	return ok;
}

/* ---------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------- */

static void rki_render_tables(rki_render *r)
{
	for (int i = 0; i < 256; i++) {
		double c = i / 255.0;
		r->srgb_to_linear[i] = (float)(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
	}
	for (int i = 0; i <= RKI_RENDER_SRGB_LUT; i++) {
		double l = (double)i / RKI_RENDER_SRGB_LUT;
		double e = r->o.linear_output ? l : l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
		r->linear_to_srgb[i] = (float)(e * 255.0);
	}
	const uint8_t *bg = r->o.has_background ? r->o.background : rki_render_default_background;
	for (int k = 0; k < 3; k++) r->bg_lin[k] = r->o.linear_output ? bg[k] / 255.0f : r->srgb_to_linear[bg[k]];
	r->bg_alpha = bg[3] / 255.0f;
	memcpy(r->bg_bytes, bg, 4);
}

bool rk_render(const rk_scene *scene, const rk_anim_clip *clip, double time, const rk_render_opts *opts,
	unsigned char *rgba, size_t stride, rk_error *err)
{
	rki_error_clear(err);
	rk_render_opts o;
	rki_render_opts_resolve(&o, opts);
	uint32_t w, h;
	if (!rk_render_size(&o, &w, &h, err)) return false;
	if (!scene) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: NULL scene");
	if (!rgba) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: NULL output buffer");
	if (stride == 0) stride = (size_t)w * 4u;
	if (stride < (size_t)w * 4u)
		return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: stride %zu < width * 4 = %zu", stride,
			(size_t)w * 4u);
	if (!isfinite(time)) return rki_render_fail(err, RK_ERROR_INVALID_ARGUMENT, "rk_render: time must be finite");
	if (!rki_render_check_opts(&o, err)) return false;

	/* ~20 KiB of tables: on the heap rather than the caller's stack. */
	rki_alloc a;
	rki_alloc_init(&a, &o.allocator, o.memory_limit, 0);
	rki_render *r = (rki_render *)rki_calloc(&a, 1, sizeof(rki_render));
	if (!r) return rki_render_oom(&a, err, "the render context");
	r->alloc = a;
	r->scene = scene;
	r->o = o;
	r->err = err;
	r->width = w;
	r->height = h;
	r->ss = o.supersample > 1 ? o.supersample : 1;
	r->sw = w * r->ss;
	r->sh = h * r->ss;
	r->ambient = (float)o.ambient;
	r->diffuse = (float)o.diffuse;
	uint32_t lw = o.line_width ? o.line_width : ((w < h ? w : h) / 256 > 1 ? (w < h ? w : h) / 256 : 1);
	r->o.line_width = lw;
	r->wire_half = 0.5f * (float)lw * (float)r->ss;
	rki_render_tables(r);
	rki_buf_init(&r->tris, &r->alloc);

	rki_posed p;
	bool ok = rki_render_pose(scene, clip, time, o.no_extrapolation, true, &r->alloc, &p, err);
	if (ok) {
		r->st.bounds_min = p.bmin;
		r->st.bounds_max = p.bmax;
		rki_render_camera(r, p.bmin, p.bmax);
		ok = rki_render_materials(r) && rki_render_triangles(r, &p);
	}
	if (ok) ok = rki_render_raster(r, rgba, stride);
	if (ok && o.skeleton) rki_render_skeleton(r, p.pose.node_to_world, rgba, stride);
	if (ok && o.stats) *o.stats = r->st;

	rki_posed_free(&r->alloc, &p);
	rki_buf_free(&r->tris);
	if (r->images) {
		for (size_t i = 0; i < scene->textures.count; i++) rk_image_free(&r->images[i].image);
		rki_free(&r->alloc, r->images, scene->textures.count * sizeof(rki_rimage));
	}
	rki_free(&r->alloc, r->mats, r->mat_count * sizeof(rki_rmat));
	a = r->alloc;
	rki_free(&a, r, sizeof(rki_render));
	return ok;
}
