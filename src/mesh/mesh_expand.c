/*
 * src/mesh/mesh_expand.c - rk_mesh_expand_job: one mesh node -> interleaved
 * GPU vertices, uint32 triangle indices and per-material parts in caller
 * buffers. See rigkit/mesh.h (WHAT ONE MESH NODE BECOMES) for the contract.
 *
 * Passes over the faces (f = face, n = its corner count, "slot" = output
 * vertex before deduplication = one per corner of a face with n >= 3):
 *   1. parts: material slot -> part id, triangles per part, part ranges
 *   2. triangulate every face into its part's index range (slot numbers);
 *      generated normals from rk_mesh_smooth_normals (mesh_normals.c)
 *   3. write one vertex per slot
 *   4. deduplicate / optimise with meshoptimizer, add base_vertex
 * Scratch memory is carved by rki_mesh_layout(), shared by the size query
 * and the run so both always agree.
 */
#include "mesh_internal.h"
#include "rigkit/math.h"

#include <meshoptimizer.h>

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Format
 * ------------------------------------------------------------------------- */

rk_vertex_format rk_mesh_vertex_format(const rk_mesh_opts *opts)
{
	rk_mesh_opts def = { 0 };
	if (!opts) opts = &def;
	rk_vertex_format f;
	f.position_offset = 0;
	f.normal_offset = 12;
	f.uv_offset = 24;
	f.weight_format = opts->weight_format == RK_WEIGHTS_UNORM16 ? RK_WEIGHTS_UNORM16 : RK_WEIGHTS_FLOAT;
	uint32_t off = 32;
	if (opts->no_skin_attributes) {
		f.joints_offset = RK_ATTRIBUTE_ABSENT;
		f.weights_offset = RK_ATTRIBUTE_ABSENT;
	} else {
		f.joints_offset = off;
		off += 8;
		f.weights_offset = off;
		off += f.weight_format == RK_WEIGHTS_UNORM16 ? 8 : 16;
	}
	if (opts->tangents) {
		f.tangent_offset = off;
		off += 16;
	} else {
		f.tangent_offset = RK_ATTRIBUTE_ABSENT;
	}
	f.stride = off;
	return f;
}

_Static_assert(sizeof(rk_gpu_vertex) == 56, "rk_gpu_vertex must be tightly packed");
_Static_assert(offsetof(rk_gpu_vertex, normal) == 12, "normal offset");
_Static_assert(offsetof(rk_gpu_vertex, uv) == 24, "uv offset");
_Static_assert(offsetof(rk_gpu_vertex, joints) == 32, "joints offset");
_Static_assert(offsetof(rk_gpu_vertex, weights) == 40, "weights offset");

double rk_mesh_radius(rk_vec3 bmin, rk_vec3 bmax)
{
	double r = fmax(bmax.x - bmin.x, fmax(bmax.y - bmin.y, bmax.z - bmin.z)) * 0.5;
	if (!(r >= 1e-3) || !isfinite(r)) r = 1.0;
	return r;
}

/* ---------------------------------------------------------------------------
 * Sizes and scratch layout
 * ------------------------------------------------------------------------- */

typedef struct rki_part_info {
	rk_material *material;
	uint32_t slot;      /* first slot, UINT32_MAX for out-of-range only */
	uint32_t triangles;
	uint32_t cursor;    /* next index to write */
	uint32_t out;       /* output part number, UINT32_MAX if empty */
	int32_t uv_set;
	uint32_t pad_;
} rki_part_info;

typedef struct rki_slot_pair { uintptr_t material; uint32_t slot; uint32_t pad_; } rki_slot_pair;

typedef struct rki_mesh_layout {
	size_t slot_part, pairs, parts, tri_local, tri_scratch, normal_acc, influences, unindexed, remap, pos64;
	size_t tri_scratch_size, skin_bytes;
	size_t total;
} rki_mesh_layout;

static const rk_mesh_opts rki_default_opts;

static bool rki_mesh_skinned(const rk_node *node, const rk_mesh_opts *opts)
{
	return node->skin != NULL && !opts->no_skin_attributes;
}

static bool rki_mesh_generates_normals(const rk_mesh *mesh, const rk_mesh_opts *opts)
{
	return opts->generate_normals || !mesh->normals.exists;
}

/* Adds an aligned region of count * size bytes; false on overflow. */
static bool rki_region(size_t *total, size_t *offset, size_t count, size_t size)
{
	size_t bytes, t = (*total + 15u) & ~(size_t)15u;
	if (t < *total || !rki_mul_size(count, size, &bytes) || !rki_add_size(t, bytes, total)) return false;
	*offset = t;
	return true;
}

static bool rki_mesh_layout_compute(const rk_node *node, const rk_mesh_opts *opts, const rk_mesh_expand_sizes *s,
	rki_mesh_layout *l)
{
	const rk_mesh *mesh = node->mesh;
	rk_vertex_format fmt = rk_mesh_vertex_format(opts);
	size_t slots = rk_node_material_slots(node).count;
	size_t maxn = s->max_polygon_corners;
	memset(l, 0, sizeof(*l));
	l->tri_scratch_size = rk_polygon_triangulate_scratch_size(maxn);
	if (l->tri_scratch_size == SIZE_MAX) return false;
	l->skin_bytes = fmt.joints_offset == RK_ATTRIBUTE_ABSENT ? 0 : fmt.stride - fmt.joints_offset - (fmt.tangent_offset == RK_ATTRIBUTE_ABSENT ? 0 : 16);
	size_t t = 0;
	bool ok = rki_region(&t, &l->slot_part, slots ? slots : 1, sizeof(uint32_t))
		&& rki_region(&t, &l->pairs, slots ? slots : 1, sizeof(rki_slot_pair))
		&& rki_region(&t, &l->parts, s->max_parts, sizeof(rki_part_info))
		&& rki_region(&t, &l->tri_local, maxn >= 3 ? maxn - 2 : 1, 3 * sizeof(uint32_t))
		&& rki_region(&t, &l->tri_scratch, l->tri_scratch_size, 1)
		&& rki_region(&t, &l->normal_acc, rki_mesh_generates_normals(mesh, opts) ? mesh->vertex_count : 0, sizeof(rk_vec3))
		&& rki_region(&t, &l->influences, rki_mesh_skinned(node, opts) ? mesh->vertex_count : 0, l->skin_bytes)
		&& rki_region(&t, &l->unindexed, (!opts->no_dedup || opts->optimize) ? s->max_vertices : 0, fmt.stride)
		&& rki_region(&t, &l->remap, !opts->no_dedup ? s->max_vertices : 0, sizeof(uint32_t))
		/* float positions (glTF) widened once for triangulation and normals */
		&& rki_region(&t, &l->pos64, mesh->positions_f64 ? 0 : mesh->vertex_count, sizeof(rk_vec3))
		&& rki_add_size(t, 16, &t);  /* slack to align the caller's pointer */
	l->total = t;
	return ok;
}

bool rk_mesh_expand_bound(const rk_node *node, const rk_mesh_opts *opts, rk_mesh_expand_sizes *out, rk_error *err)
{
	if (!opts) opts = &rki_default_opts;
	if (out) memset(out, 0, sizeof(*out));
	if (!node || !node->mesh || !out) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_mesh_expand_bound: %s", !out ? "out is NULL" : !node ? "node is NULL" : "node has no mesh");
		return false;
	}
	const rk_mesh *mesh = node->mesh;
	if (mesh->face_count > 0 && !mesh->faces) {
		rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": faces is NULL with face_count %zu", mesh->name ? mesh->name : "", mesh->face_count);
		return false;
	}
	size_t corners = 0, tris = 0, maxn = 0;
	for (size_t f = 0; f < mesh->face_count; f++) {
		size_t n = mesh->faces[f].index_count;
		if (n < 3) continue;
		corners += n;  /* n < 2^32, face_count bounded by memory: no overflow before the check */
		tris += n - 2;
		if (n > maxn) maxn = n;
		if (corners > UINT32_MAX || tris > UINT32_MAX / 3) {
			rki_error_set(err, RK_ERROR_LIMIT, "mesh \"%s\": more than 2^32 - 1 corners or indices", mesh->name ? mesh->name : "");
			return false;
		}
	}
	size_t slots = rk_node_material_slots(node).count;
	if (slots >= UINT32_MAX) {
		rki_error_set(err, RK_ERROR_LIMIT, "mesh \"%s\": too many material slots", mesh->name ? mesh->name : "");
		return false;
	}
	out->max_vertices = corners;
	out->index_count = tris * 3;
	out->max_parts = slots + 1;
	out->max_polygon_corners = maxn;
	rki_mesh_layout l;
	if (!rki_mesh_layout_compute(node, opts, out, &l)) {
		rki_error_set(err, RK_ERROR_LIMIT, "mesh \"%s\": scratch size overflows", mesh->name ? mesh->name : "");
		return false;
	}
	out->scratch_size = l.total;
	return true;
}

/* ---------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------- */

static const char *rki_mname(const rk_mesh *m) { return m->name ? m->name : ""; }

/* The value table of an attribute, whichever precision holds it. */
static const void *rki_values(const void *f64, const float *f32)
{
	return f64 ? f64 : (const void *)f32;
}

static bool rki_check_attrib(const rk_mesh *mesh, const char *what, bool exists, const void *values, size_t value_count,
	const uint32_t *indices, rk_error *err)
{
	if (!exists) return true;
	if (!values && value_count > 0) {
		rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": %s values are NULL", rki_mname(mesh), what);
		return false;
	}
	for (size_t f = 0; f < mesh->face_count; f++) {
		const rk_face *fc = &mesh->faces[f];
		if (fc->index_count < 3) continue;
		for (size_t c = fc->index_begin; c < (size_t)fc->index_begin + fc->index_count; c++) {
			size_t vi = indices ? indices[c] : c;
			if (vi >= value_count) {
				rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": %s index %zu of corner %zu is out of range (%zu values)",
					rki_mname(mesh), what, vi, c, value_count);
				return false;
			}
		}
	}
	return true;
}

bool rk_mesh_expand_validate(const rk_mesh_expand_job *job, rk_error *err)
{
	if (!job) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh expand job is NULL");
		return false;
	}
	const rk_mesh_opts *opts = job->opts ? job->opts : &rki_default_opts;
	if ((unsigned)opts->weight_format > RK_WEIGHTS_UNORM16 || (unsigned)opts->joint_indices > RK_JOINTS_NODE
		|| (unsigned)opts->unweighted > RK_UNWEIGHTED_BIND_JOINT) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_mesh_opts: unknown weight_format, joint_indices or unweighted value");
		return false;
	}
	if (!job->output) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh expand job: output is NULL");
		return false;
	}
	rk_mesh_expand_sizes s;
	if (!rk_mesh_expand_bound(job->node, opts, &s, err)) return false;
	const rk_node *node = job->node;
	const rk_mesh *mesh = node->mesh;
	if (job->vertex_capacity < s.max_vertices || (s.max_vertices && !job->vertices)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh \"%s\": vertex buffer holds %zu vertices, %zu needed",
			rki_mname(mesh), job->vertices ? job->vertex_capacity : 0, s.max_vertices);
		return false;
	}
	if (job->index_capacity < s.index_count || (s.index_count && !job->indices)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh \"%s\": index buffer holds %zu indices, %zu needed",
			rki_mname(mesh), job->indices ? job->index_capacity : 0, s.index_count);
		return false;
	}
	if (job->part_capacity < s.max_parts || !job->parts) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh \"%s\": part buffer holds %zu parts, %zu needed",
			rki_mname(mesh), job->parts ? job->part_capacity : 0, s.max_parts);
		return false;
	}
	if (job->scratch_size < s.scratch_size || !job->scratch) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh \"%s\": scratch holds %zu bytes, %zu needed",
			rki_mname(mesh), job->scratch ? job->scratch_size : 0, s.scratch_size);
		return false;
	}
	if ((uintptr_t)job->vertices % 4u != 0) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "mesh \"%s\": vertex buffer is not 4-byte aligned", rki_mname(mesh));
		return false;
	}
	if ((size_t)job->base_vertex + s.max_vertices > UINT32_MAX) {
		rki_error_set(err, RK_ERROR_LIMIT, "mesh \"%s\": base_vertex %u + %zu vertices exceeds uint32 indices",
			rki_mname(mesh), job->base_vertex, s.max_vertices);
		return false;
	}

	/* Mesh data. */
	const rk_material_ref_list slots = rk_node_material_slots(node);
	if (slots.count && !slots.data) {
		rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": material slot list is NULL", rki_mname(mesh));
		return false;
	}
	if (mesh->vertex_count && !mesh->positions_f64 && !mesh->positions_f32) {
		rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": positions are NULL", rki_mname(mesh));
		return false;
	}
	if (mesh->index_count && !mesh->vertex_indices) {
		rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": vertex_indices are NULL", rki_mname(mesh));
		return false;
	}
	for (size_t f = 0; f < mesh->face_count; f++) {
		const rk_face *fc = &mesh->faces[f];
		if ((uint64_t)fc->index_begin + fc->index_count > mesh->index_count) {
			rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": face %zu spans corners %u..%llu beyond index_count %zu",
				rki_mname(mesh), f, fc->index_begin, (unsigned long long)fc->index_begin + fc->index_count, mesh->index_count);
			return false;
		}
	}
	if (!rki_check_attrib(mesh, "vertex", true, rki_values(mesh->positions_f64, mesh->positions_f32), mesh->vertex_count,
		mesh->vertex_indices, err)) return false;
	if (!rki_mesh_generates_normals(mesh, opts)
		&& !rki_check_attrib(mesh, "normal", true, rki_values(mesh->normals.values_f64, mesh->normals.values_f32), mesh->normals.value_count, mesh->normals.indices, err))
		return false;
	if (mesh->uv_sets.count && !mesh->uv_sets.data) {
		rki_error_set(err, RK_ERROR_CORRUPT, "mesh \"%s\": uv_sets list is NULL", rki_mname(mesh));
		return false;
	}
	for (size_t u = 0; u < mesh->uv_sets.count; u++) {
		const rk_uv_set *set = &mesh->uv_sets.data[u];
		if (!rki_check_attrib(mesh, "uv", set->uv.exists, rki_values(set->uv.values_f64, set->uv.values_f32), set->uv.value_count, set->uv.indices, err)) return false;
		if (opts->tangents) {
			if (!rki_check_attrib(mesh, "tangent", set->tangent.exists, rki_values(set->tangent.values_f64, set->tangent.values_f32), set->tangent.value_count,
				set->tangent.indices, err)) return false;
			if (!rki_check_attrib(mesh, "bitangent", set->bitangent.exists, rki_values(set->bitangent.values_f64, set->bitangent.values_f32), set->bitangent.value_count,
				set->bitangent.indices, err)) return false;
		}
	}
	if (rki_mesh_skinned(node, opts)) {
		const rk_skin_deformer *sk = node->skin;
		if ((sk->joint_count && !sk->joints) || (sk->vertex_count && !sk->weight_begin) || (sk->weight_count && !sk->weights)) {
			rki_error_set(err, RK_ERROR_CORRUPT, "skin \"%s\": joints, weight_begin or weights is NULL", sk->name ? sk->name : "");
			return false;
		}
		if (sk->vertex_count) {
			for (size_t v = 0; v < sk->vertex_count; v++) {
				if (sk->weight_begin[v] > sk->weight_begin[v + 1]) {
					rki_error_set(err, RK_ERROR_CORRUPT, "skin \"%s\": weight_begin decreases at vertex %zu", sk->name ? sk->name : "", v);
					return false;
				}
			}
			if (sk->weight_begin[sk->vertex_count] > sk->weight_count) {
				rki_error_set(err, RK_ERROR_CORRUPT, "skin \"%s\": weight_begin ends at %u beyond weight_count %zu",
					sk->name ? sk->name : "", sk->weight_begin[sk->vertex_count], sk->weight_count);
				return false;
			}
		}
		if (opts->joint_indices == RK_JOINTS_SKIN && sk->joint_count > 65536) {
			rki_error_set(err, RK_ERROR_LIMIT, "skin \"%s\": %zu joints do not fit uint16 joint indices", sk->name ? sk->name : "", sk->joint_count);
			return false;
		}
		if (opts->joint_indices == RK_JOINTS_NODE) {
			for (size_t j = 0; j < sk->joint_count; j++) {
				if (sk->joints[j].node && sk->joints[j].node->index > 65535) {
					rki_error_set(err, RK_ERROR_LIMIT, "skin \"%s\": joint node index %u does not fit uint16", sk->name ? sk->name : "",
						sk->joints[j].node->index);
					return false;
				}
			}
		}
	}
	return true;
}

/* ---------------------------------------------------------------------------
 * Run
 * ------------------------------------------------------------------------- */

static inline bool rki_pair_less(const rki_slot_pair *a, const rki_slot_pair *b)
{
	return a->material != b->material ? a->material < b->material : a->slot < b->slot;
}

static void rki_pair_sift(rki_slot_pair *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n) return;
		if (child + 1 < n && rki_pair_less(&v[child], &v[child + 1])) child++;
		if (!rki_pair_less(&v[root], &v[child])) return;
		rki_slot_pair t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

/* In-place heapsort by (material, slot): no allocation (qsort may allocate). */
static void rki_pair_sort(rki_slot_pair *v, size_t n)
{
	if (n < 2) return;
	for (size_t i = n / 2; i-- > 0;) rki_pair_sift(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		rki_slot_pair t = v[0];
		v[0] = v[end];
		v[end] = t;
		rki_pair_sift(v, 0, end);
	}
}

/* Part of face f: its slot's part, or the NULL-material part for an
 * out-of-range face (scene.h MATERIAL SLOTS). */
static inline uint32_t rki_face_part(const rk_node *node, size_t f, const uint32_t *slot_part, uint32_t null_part)
{
	uint32_t s = rk_node_face_slot(node, f);
	return s == RK_NO_SLOT ? null_part : slot_part[s];
}

/* Top-4 influences of one vertex, written in the output byte format. */
typedef struct rki_infl { uint32_t joint; double weight; } rki_infl;

static void rki_vertex_influences(const rk_skin_deformer *sk, const rk_mesh_opts *opts, size_t v, unsigned char *dst, rk_mesh_stats *st)
{
	rki_infl top[4];
	int kept = 0;
	size_t usable = 0;
	if (v < sk->vertex_count) {
		for (uint32_t w = sk->weight_begin[v]; w < sk->weight_begin[v + 1]; w++) {
			rk_skin_weight sw = sk->weights[w];
			double wt = sw.weight;
			uint32_t joint = sw.joint;
			if (joint >= sk->joint_count || !(wt > 0.0) || !isfinite(wt)) { st->dropped_weights++; continue; }
			if (opts->joint_indices == RK_JOINTS_NODE) {
				if (!sk->joints[joint].node) { st->dropped_weights++; continue; }
				joint = sk->joints[joint].node->index;
			}
			usable++;
			/* insertion into the descending top-4 (ties: smaller joint first) */
			int pos = kept;
			while (pos > 0 && (top[pos - 1].weight < wt || (top[pos - 1].weight == wt && top[pos - 1].joint > joint))) pos--;
			if (pos >= 4) continue;
			int last = kept < 4 ? kept : 3;
			for (int k = last; k > pos; k--) top[k] = top[k - 1];
			top[pos] = (rki_infl){ joint, wt };
			if (kept < 4) kept++;
		}
	}
	if (usable > 4) st->truncated_influences++;
	double sum = 0.0;
	for (int k = 0; k < kept; k++) sum += top[k].weight;
	uint16_t joints[4] = { 0, 0, 0, 0 };
	double w[4] = { 0, 0, 0, 0 };
	if (kept == 0 || !(sum > 0.0) || !isfinite(sum)) {
		st->unweighted_vertices++;
		if (opts->unweighted == RK_UNWEIGHTED_BIND_JOINT) {
			joints[0] = opts->unweighted_joint;
			w[0] = 1.0;
		}
	} else {
		for (int k = 0; k < kept; k++) {
			joints[k] = (uint16_t)top[k].joint;
			w[k] = top[k].weight / sum;
		}
	}
	memcpy(dst, joints, 8);
	if (opts->weight_format == RK_WEIGHTS_UNORM16) {
		uint16_t q[4];
		long total = 0;
		for (int k = 0; k < 4; k++) {
			q[k] = (uint16_t)lround(w[k] * 65535.0);
			total += q[k];
		}
		if (w[0] > 0.0) q[0] = (uint16_t)((long)q[0] + (65535 - total));
		memcpy(dst + 8, q, 8);
	} else {
		float f[4] = { (float)w[0], (float)w[1], (float)w[2], (float)w[3] };
		memcpy(dst + 8, f, 16);
	}
}

static inline rk_vec3 rki_attrib3(const rk_attrib_vec3 *a, size_t c)
{
	return rk_attrib_vec3_value(a, a->indices ? a->indices[c] : c);
}

static inline rk_vec2 rki_attrib2(const rk_attrib_vec2 *a, size_t c)
{
	return rk_attrib_vec2_value(a, a->indices ? a->indices[c] : c);
}


static inline void rki_mul3(const double m[9], rk_vec3 v, double out[3])
{
	out[0] = m[0] * v.x + m[3] * v.y + m[6] * v.z;
	out[1] = m[1] * v.x + m[4] * v.y + m[7] * v.z;
	out[2] = m[2] * v.x + m[5] * v.y + m[8] * v.z;
}

static inline void rki_store_unit(float *dst, const double v[3])
{
	double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	if (len > 0.0 && isfinite(len)) {
		dst[0] = (float)(v[0] / len);
		dst[1] = (float)(v[1] / len);
		dst[2] = (float)(v[2] / len);
	} else {
		dst[0] = dst[1] = dst[2] = 0.0f;
	}
}

bool rk_mesh_expand_run(const rk_mesh_expand_job *job)
{
	if (!rk_mesh_expand_validate(job, NULL)) return false;
	const rk_mesh_opts *opts = job->opts ? job->opts : &rki_default_opts;
	const rk_node *node = job->node;
	const rk_mesh *mesh = node->mesh;
	rk_mesh_expand_output *out = job->output;
	rk_mesh_expand_sizes s;
	if (!rk_mesh_expand_bound(node, opts, &s, NULL)) return false; /* validate succeeded: cannot fail */
	rki_mesh_layout l;
	rki_mesh_layout_compute(node, opts, &s, &l);

	rk_vertex_format fmt = rk_mesh_vertex_format(opts);
	const size_t stride = fmt.stride;
	unsigned char *scr = (unsigned char *)(((uintptr_t)job->scratch + 15u) & ~(uintptr_t)15u);
	uint32_t *slot_part = (uint32_t *)(scr + l.slot_part);
	rki_slot_pair *pairs = (rki_slot_pair *)(scr + l.pairs);
	rki_part_info *pinfo = (rki_part_info *)(scr + l.parts);
	uint32_t *tri_local = (uint32_t *)(scr + l.tri_local);
	void *tri_scratch = scr + l.tri_scratch;
	rk_vec3 *nacc = (rk_vec3 *)(scr + l.normal_acc);
	unsigned char *infl = scr + l.influences;
	unsigned char *unindexed = scr + l.unindexed;
	uint32_t *remap = (uint32_t *)(scr + l.remap);
	const rk_vec3 *pos = mesh->positions_f64;
	if (!pos) {
		rk_vec3 *p64 = (rk_vec3 *)(scr + l.pos64);
		for (size_t v = 0; v < mesh->vertex_count; v++) p64[v] = rk_mesh_position(mesh, v);
		pos = p64;
	}

	rk_mesh_stats st;
	memset(&st, 0, sizeof(st));
	out->vertex_count = out->index_count = out->part_count = 0;
	out->format = fmt;
	out->skinned = rki_mesh_skinned(node, opts);
	out->world_space = opts->world_space && node->skin == NULL;
	out->bounds_min = out->bounds_max = (rk_vec3){ 0, 0, 0 };

	/* Position matrix P and normal matrix Nm = sign(det) * cofactor(P). */
	rk_mat4 P = opts->no_geometry_transform ? rk_mat4_identity() : node->geometry_to_node;
	if (out->world_space) P = rk_mat4_mul(node->node_to_world, P);
	double det = rk_mat4_determinant3(P);
	const bool reverse = opts->mirror != (det < 0.0);
	out->reversed_winding = reverse;
	double A[9], Nm[9];
	for (int c = 0; c < 3; c++)
		for (int r = 0; r < 3; r++) A[c * 3 + r] = P.m[c * 4 + r];
	{
		/* cofactor C[r][c], stored column-major in Nm[c * 3 + r] */
#define a_(r, c) A[(c) * 3 + (r)]
		double C[3][3];
		C[0][0] = a_(1, 1) * a_(2, 2) - a_(1, 2) * a_(2, 1);
		C[0][1] = a_(1, 2) * a_(2, 0) - a_(1, 0) * a_(2, 2);
		C[0][2] = a_(1, 0) * a_(2, 1) - a_(1, 1) * a_(2, 0);
		C[1][0] = a_(0, 2) * a_(2, 1) - a_(0, 1) * a_(2, 2);
		C[1][1] = a_(0, 0) * a_(2, 2) - a_(0, 2) * a_(2, 0);
		C[1][2] = a_(0, 1) * a_(2, 0) - a_(0, 0) * a_(2, 1);
		C[2][0] = a_(0, 1) * a_(1, 2) - a_(0, 2) * a_(1, 1);
		C[2][1] = a_(0, 2) * a_(1, 0) - a_(0, 0) * a_(1, 2);
		C[2][2] = a_(0, 0) * a_(1, 1) - a_(0, 1) * a_(1, 0);
#undef a_
		double sgn = det < 0.0 ? -1.0 : 1.0;
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) Nm[c * 3 + r] = sgn * C[r][c];
	}
	const double T[3] = { P.m[12], P.m[13], P.m[14] };

	/* ---- 1. parts ---- */
	const rk_material_ref_list slots = rk_node_material_slots(node);
	const size_t S = slots.count;
	size_t pair_count = 0;
	for (size_t k = 0; k < S; k++) {
		if (slots.data[k]) pairs[pair_count++] = (rki_slot_pair){ (uintptr_t)slots.data[k], (uint32_t)k, 0 };
		slot_part[k] = (uint32_t)k;
	}
	rki_pair_sort(pairs, pair_count);
	for (size_t k = 0; k < pair_count; k++) {
		size_t first = k;
		while (k + 1 < pair_count && pairs[k + 1].material == pairs[first].material) slot_part[pairs[++k].slot] = pairs[first].slot;
	}
	uint32_t part_ids = 0, null_part = UINT32_MAX;
	for (size_t k = 0; k < S; k++) {
		uint32_t rep = slot_part[k];
		if (!slots.data[k]) {
			if (null_part == UINT32_MAX) {
				null_part = part_ids++;
				pinfo[null_part] = (rki_part_info){ NULL, (uint32_t)k, 0, 0, 0, 0, 0 };
			}
			slot_part[k] = null_part;
		} else if (rep == k) {
			pinfo[part_ids] = (rki_part_info){ slots.data[k], (uint32_t)k, 0, 0, 0, 0, 0 };
			slot_part[k] = part_ids++;
		} else {
			slot_part[k] = slot_part[rep];
		}
	}
	if (null_part == UINT32_MAX) {
		null_part = part_ids++;
		pinfo[null_part] = (rki_part_info){ NULL, UINT32_MAX, 0, 0, 0, 0, 0 };
	}
	/* scene.h MATERIAL SLOTS: an out-of-range face has no material */
#define RKI_FACE_PART(f) rki_face_part(node, f, slot_part, null_part)
	for (size_t f = 0; f < mesh->face_count; f++) {
		uint32_t n = mesh->faces[f].index_count;
		st.polygons++;
		if (S > 0 && rk_node_face_slot(node, f) == RK_NO_SLOT) st.invalid_material_slots++;
		if (n < 3) { st.skipped_polygons++; continue; }
		pinfo[RKI_FACE_PART(f)].triangles += n - 2;
	}
	uint32_t out_parts = 0, start = 0;
	for (uint32_t p = 0; p < part_ids; p++) {
		rki_part_info *pi = &pinfo[p];
		pi->out = UINT32_MAX;
		if (!pi->triangles) continue;
		pi->out = out_parts++;
		pi->cursor = start;
		pi->uv_set = rk_node_material_uv_set(node, pi->material);
		rk_mesh_part *op = &job->parts[pi->out];
		op->material = pi->material;
		op->start_index = start;
		op->index_count = pi->triangles * 3;
		op->material_slot = pi->slot;
		op->uv_set = pi->uv_set;
		start += pi->triangles * 3;
	}

	/* ---- 2. triangulate; generated normals (rk_mesh_smooth_normals) ---- */
	const bool gen_normals = rki_mesh_generates_normals(mesh, opts);
	if (gen_normals)
		rk_mesh_smooth_normals(nacc, pos, mesh->vertex_count, mesh->vertex_indices, mesh->index_count,
			mesh->faces, mesh->face_count);
	const uint32_t *vidx = mesh->vertex_indices;
	uint32_t slot_base = 0;
	for (size_t f = 0; f < mesh->face_count; f++) {
		const rk_face *fc = &mesh->faces[f];
		uint32_t n = fc->index_count;
		if (n < 3) continue;
		const uint32_t *cidx = vidx + fc->index_begin;
		uint32_t tflags = 0;
		size_t nt = rk_polygon_triangulate(tri_local, pos, mesh->vertex_count, cidx, n, tri_scratch, l.tri_scratch_size, &tflags);
		if (nt != n - 2u) return false; /* validate checked the indices and scratch: cannot happen */
		if (tflags & RK_TRIANGULATE_FALLBACK) st.fallback_polygons++;
		if (tflags & RK_TRIANGULATE_DEGENERATE) st.degenerate_polygons++;
		rki_part_info *pi = &pinfo[RKI_FACE_PART(f)];
		uint32_t *dst = job->indices + pi->cursor;
		pi->cursor += (uint32_t)nt * 3;
		for (size_t t = 0; t < nt; t++) {
			uint32_t a = tri_local[t * 3], b = tri_local[t * 3 + 1], c = tri_local[t * 3 + 2];
			dst[t * 3] = slot_base + a;
			dst[t * 3 + 1] = slot_base + (reverse ? c : b);
			dst[t * 3 + 2] = slot_base + (reverse ? b : c);
		}
		st.triangles += nt;
		slot_base += n;
	}

	/* ---- 3. vertices ---- */
	if (out->skinned) {
		for (size_t v = 0; v < mesh->vertex_count; v++)
			rki_vertex_influences(node->skin, opts, v, infl + v * l.skin_bytes, &st);
	}
	const bool staged = !opts->no_dedup || opts->optimize;
	unsigned char *vout = staged ? unindexed : (unsigned char *)job->vertices;
	float bmin[3] = { INFINITY, INFINITY, INFINITY }, bmax[3] = { -INFINITY, -INFINITY, -INFINITY };
	bool any_tangents = false;
	uint32_t slot = 0;
	const uint32_t joff = fmt.joints_offset, toff = fmt.tangent_offset;
	const size_t skin_bytes = l.skin_bytes;
	for (size_t f = 0; f < mesh->face_count; f++) {
		const rk_face *fc = &mesh->faces[f];
		uint32_t n = fc->index_count;
		if (n < 3) continue;
		const rki_part_info *pi = &pinfo[RKI_FACE_PART(f)];
		const rk_uv_set *uvs = pi->uv_set >= 0 ? &mesh->uv_sets.data[pi->uv_set] : NULL;
		const bool has_tan = opts->tangents && uvs && uvs->tangent.exists;
		if (has_tan) any_tangents = true;
		bool have_face_normal = false;
		rk_vec3 face_normal = { 0, 0, 0 };
		for (uint32_t k = 0; k < n; k++) {
			size_t c = (size_t)fc->index_begin + k;
			uint32_t vi = vidx[c];
			unsigned char *dst = vout + (size_t)slot * stride;
			rk_vec3 p = pos[vi];
			float fp[3] = {
				(float)(A[0] * p.x + A[3] * p.y + A[6] * p.z + T[0]),
				(float)(A[1] * p.x + A[4] * p.y + A[7] * p.z + T[1]),
				(float)(A[2] * p.x + A[5] * p.y + A[8] * p.z + T[2]),
			};
			for (int d = 0; d < 3; d++) {
				if (fp[d] < bmin[d]) bmin[d] = fp[d];
				if (fp[d] > bmax[d]) bmax[d] = fp[d];
			}
			memcpy(dst, fp, 12);

			rk_vec3 nrm;
			if (gen_normals) {
				nrm = nacc[vi];
				if (!(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z > 0.0)) {
					if (!have_face_normal) { face_normal = rki_polygon_area_vector(pos, vidx + fc->index_begin, n); have_face_normal = true; }
					nrm = face_normal;
				}
			} else {
				nrm = rki_attrib3(&mesh->normals, c);
			}
			double tn[3];
			rki_mul3(Nm, nrm, tn);
			float fn[3];
			rki_store_unit(fn, tn);
			memcpy(dst + 12, fn, 12);

			float fuv[2] = { 0.0f, 0.0f };
			if (uvs) {
				rk_vec2 uv = rki_attrib2(&uvs->uv, c);
				fuv[0] = (float)uv.x;
				fuv[1] = (float)(opts->flip_v ? 1.0 - uv.y : uv.y);
			}
			memcpy(dst + 24, fuv, 8);

			if (joff != RK_ATTRIBUTE_ABSENT) {
				/* 24 (float weights) or 16 (unorm16) bytes: constant-size copies */
				if (skin_bytes == 24) {
					if (out->skinned) memcpy(dst + joff, infl + (size_t)vi * 24, 24);
					else memset(dst + joff, 0, 24);
				} else {
					if (out->skinned) memcpy(dst + joff, infl + (size_t)vi * 16, 16);
					else memset(dst + joff, 0, 16);
				}
			}
			if (toff != RK_ATTRIBUTE_ABSENT) {
				float ft[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
				if (has_tan) {
					double tt[3], tb[3] = { 0, 0, 0 };
					rki_mul3(A, rki_attrib3(&uvs->tangent, c), tt);
					if (uvs->bitangent.exists) rki_mul3(A, rki_attrib3(&uvs->bitangent, c), tb);
					rki_store_unit(ft, tt);
					rk_vec3 n3 = { tn[0], tn[1], tn[2] }, t3 = { tt[0], tt[1], tt[2] }, b3 = { tb[0], tb[1], tb[2] };
					ft[3] = rk_vec3_dot(rk_vec3_cross(n3, t3), b3) < 0.0 ? -1.0f : 1.0f;
				}
				memcpy(dst + toff, ft, 16);
			}
			slot++;
		}
	}
	st.corners = slot;
	st.generated_normal_meshes = gen_normals ? 1 : 0;
	st.tangent_meshes = any_tangents ? 1 : 0;

	/* ---- 4. deduplicate, optimise, offset ---- */
	const size_t index_count = s.index_count;
	size_t vcount = slot;
	unsigned char *final_vertices = (unsigned char *)job->vertices;
	bool in_output = !staged;
	if (vcount > 0 && !opts->no_dedup) {
		vcount = meshopt_generateVertexRemap(remap, job->indices, index_count, unindexed, slot, stride);
		meshopt_remapIndexBuffer(job->indices, job->indices, index_count, remap);
		meshopt_remapVertexBuffer(final_vertices, unindexed, slot, stride, remap);
		in_output = true;
	}
	if (vcount > 0 && opts->optimize) {
		for (uint32_t p = 0; p < out_parts; p++) {
			rk_mesh_part *op = &job->parts[p];
			meshopt_optimizeVertexCache(job->indices + op->start_index, job->indices + op->start_index, op->index_count, vcount);
		}
		if (in_output) {
			vcount = meshopt_optimizeVertexFetch(unindexed, job->indices, index_count, final_vertices, vcount, stride);
			memcpy(final_vertices, unindexed, vcount * stride);
		} else {
			vcount = meshopt_optimizeVertexFetch(final_vertices, job->indices, index_count, unindexed, vcount, stride);
		}
		in_output = true;
	}
	if (!in_output && vcount > 0) memcpy(final_vertices, unindexed, vcount * stride);
	if (job->base_vertex) {
		uint32_t base = job->base_vertex;
		uint32_t *restrict ix = job->indices;
		for (size_t i = 0; i < index_count; i++) ix[i] += base;
	}
#undef RKI_FACE_PART

	out->vertex_count = vcount;
	out->index_count = index_count;
	out->part_count = out_parts;
	if (vcount > 0) {
		out->bounds_min = (rk_vec3){ bmin[0], bmin[1], bmin[2] };
		out->bounds_max = (rk_vec3){ bmax[0], bmax[1], bmax[2] };
	}
	out->stats = st;
	return true;
}
