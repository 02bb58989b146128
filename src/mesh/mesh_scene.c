/*
 * src/mesh/mesh_scene.c - rk_mesh_expansion_build(): every mesh node of a scene in
 * one result block; rk_mesh_expansion_describe() for the CLI.
 *
 * Memory: one temporary block (worst-case vertices of all nodes, exact
 * indices, worst-case parts, the largest node's scratch) from which the jobs
 * run back to back, then one exact result block
 *   [rk_mesh_expansion][draws][parts][indices][vertices]
 * filled by copying; the temporary block is freed before returning.
 */
#include "rigkit/mesh.h"
#include "core/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void rki_stats_add(rk_mesh_stats *a, const rk_mesh_stats *b)
{
	a->polygons += b->polygons;
	a->triangles += b->triangles;
	a->skipped_polygons += b->skipped_polygons;
	a->fallback_polygons += b->fallback_polygons;
	a->degenerate_polygons += b->degenerate_polygons;
	a->invalid_material_slots += b->invalid_material_slots;
	a->corners += b->corners;
	a->unweighted_vertices += b->unweighted_vertices;
	a->truncated_influences += b->truncated_influences;
	a->dropped_weights += b->dropped_weights;
	a->generated_normal_meshes += b->generated_normal_meshes;
	a->tangent_meshes += b->tangent_meshes;
}

static size_t rki_align16(size_t x) { return (x + 15u) & ~(size_t)15u; }

static bool rki_node_in_scene(const rk_scene *scene, const rk_node *node)
{
	uintptr_t b = (uintptr_t)scene->nodes.data, p = (uintptr_t)node;
	if (!scene->nodes.data || p < b) return false;
	uintptr_t off = p - b;
	return off % sizeof(rk_node) == 0 && off / sizeof(rk_node) < scene->nodes.count;
}

static void rki_error_node(rk_error *err, const rk_node *node)
{
	if (!err) return;
	char msg[RK_ERROR_TEXT_MAX];
	if (snprintf(msg, sizeof(msg), "node \"%s\": %s", node->name ? node->name : "", err->message) < 0) return;
	rki_strlcpy(err->message, msg, sizeof(err->message));
}

rk_mesh_expansion *rk_mesh_expansion_build(const rk_scene *scene, const rk_mesh_opts *opts, rk_error *err)
{
	rk_mesh_opts def;
	memset(&def, 0, sizeof(def));
	if (!opts) opts = &def;
	if (!scene) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_mesh_expansion_build: scene is NULL");
		return NULL;
	}
	if (scene->nodes.count && !scene->nodes.data) {
		rki_error_set(err, RK_ERROR_CORRUPT, "rk_mesh_expansion_build: scene node list is NULL");
		return NULL;
	}
	if (opts->node && (!rki_node_in_scene(scene, opts->node) || !opts->node->mesh)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_mesh_expansion_build: opts.node is %s",
			opts->node->mesh ? "not a node of this scene" : "a node without a mesh");
		return NULL;
	}
	rk_vertex_format fmt = rk_mesh_vertex_format(opts);
	const size_t first = opts->node ? opts->node->index : 0;
	const size_t end = opts->node ? first + 1 : scene->nodes.count;

	/* Pass 1: sizes. */
	size_t draw_count = 0, max_vertices = 0, index_total = 0, part_max = 0, scratch_max = 0;
	for (size_t i = first; i < end; i++) {
		const rk_node *node = &scene->nodes.data[i];
		if (!node->mesh) continue;
		rk_mesh_expand_sizes s;
		if (!rk_mesh_expand_bound(node, opts, &s, err)) {
			rki_error_node(err, node);
			return NULL;
		}
		draw_count++;
		max_vertices += s.max_vertices;
		index_total += s.index_count;
		part_max += s.max_parts;
		if (s.scratch_size > scratch_max) scratch_max = s.scratch_size;
		if (max_vertices > UINT32_MAX || index_total > UINT32_MAX || part_max > UINT32_MAX) {
			rki_error_set(err, RK_ERROR_LIMIT, "the mesh nodes together exceed 2^32 - 1 vertices, indices or parts");
			return NULL;
		}
	}

	rki_alloc al;
	rki_alloc_init(&al, &opts->allocator, 0, 0);
	/* Temporary block: [vertices][indices][parts][draws][scratch]. Every
	 * count is below 2^32, so on 64-bit hosts none of the sums can overflow;
	 * the checks keep 32-bit hosts honest. */
	size_t off_v = 0, off_i, off_p, off_d, off_s, tmp_size, vbytes;
	bool size_ok = rki_mul_size(max_vertices, fmt.stride, &vbytes);
	off_i = rki_align16(vbytes);
	off_p = rki_align16(off_i + index_total * sizeof(uint32_t));
	off_d = rki_align16(off_p + part_max * sizeof(rk_mesh_part));
	off_s = rki_align16(off_d + draw_count * sizeof(rk_mesh_draw));
	size_ok = size_ok && rki_add_size(off_s, scratch_max, &tmp_size) && off_i >= vbytes && off_s >= off_i && tmp_size < SIZE_MAX / 2;
	if (!size_ok) {
		rki_error_set(err, RK_ERROR_LIMIT, "rk_mesh_expansion_build: temporary size overflows");
		return NULL;
	}
	unsigned char *tmp = (unsigned char *)rki_malloc(&al, tmp_size ? tmp_size : 16);
	if (!tmp) {
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_mesh_expansion_build: %zu temporary bytes", tmp_size);
		return NULL;
	}
	if (!tmp_size) tmp_size = 16;
	rk_mesh_draw *draws_tmp = (rk_mesh_draw *)(tmp + off_d);

	/* Pass 2: run the jobs back to back. */
	size_t vtotal = 0, itotal = 0, ptotal = 0, d = 0;
	rk_mesh_stats total;
	memset(&total, 0, sizeof(total));
	bool ok = true;
	for (size_t i = first; i < end && ok; i++) {
		const rk_node *node = &scene->nodes.data[i];
		if (!node->mesh) continue;
		rk_mesh_expand_sizes s;
		rk_mesh_expand_bound(node, opts, &s, NULL);
		rk_mesh_expand_job job;
		rk_mesh_expand_output out;
		memset(&job, 0, sizeof(job));
		job.node = node;
		job.opts = opts;
		job.base_vertex = (uint32_t)vtotal;
		job.vertices = tmp + off_v + vtotal * fmt.stride;
		job.vertex_capacity = s.max_vertices;
		job.indices = (uint32_t *)(tmp + off_i) + itotal;
		job.index_capacity = s.index_count;
		job.parts = (rk_mesh_part *)(tmp + off_p) + ptotal;
		job.part_capacity = s.max_parts;
		job.scratch = tmp + off_s;
		job.scratch_size = scratch_max;
		job.output = &out;
		if (!rk_mesh_expand_run(&job)) {
			rk_mesh_expand_validate(&job, err); /* why it failed */
			rki_error_node(err, node);
			ok = false;
			break;
		}
		for (size_t p = 0; p < out.part_count; p++) job.parts[p].start_index += (uint32_t)itotal;
		rk_mesh_draw *dr = &draws_tmp[d++];
		memset(dr, 0, sizeof(*dr));
		dr->node = node;
		dr->mesh = node->mesh;
		dr->skin = out.skinned ? node->skin : NULL;
		dr->first_vertex = (uint32_t)vtotal;
		dr->vertex_count = (uint32_t)out.vertex_count;
		dr->first_index = (uint32_t)itotal;
		dr->index_count = (uint32_t)out.index_count;
		dr->first_part = (uint32_t)ptotal;
		dr->part_count = (uint32_t)out.part_count;
		dr->world_space = out.world_space;
		dr->reversed_winding = out.reversed_winding;
		dr->bounds_min = out.bounds_min;
		dr->bounds_max = out.bounds_max;
		dr->stats = out.stats;
		rki_stats_add(&total, &out.stats);
		/* Vertices of this node are packed right after the previous node's
		 * actual count, so the next job's base follows vtotal. */
		vtotal += out.vertex_count;
		itotal += out.index_count;
		ptotal += out.part_count;
	}
	if (!ok) {
		rki_free(&al, tmp, tmp_size);
		return NULL;
	}

	/* Result block: [rk_mesh_expansion][draws][parts][indices][vertices],
	 * offsets 16-aligned relative to the block (which the allocator aligns
	 * like malloc). */
	size_t r_draws = rki_align16(sizeof(rk_mesh_expansion));
	size_t r_parts = rki_align16(r_draws + d * sizeof(rk_mesh_draw));
	size_t r_indices = rki_align16(r_parts + ptotal * sizeof(rk_mesh_part));
	size_t r_vertices = rki_align16(r_indices + itotal * sizeof(uint32_t));
	size_t r_size = r_vertices + vtotal * fmt.stride;
	unsigned char *base = (unsigned char *)rki_malloc(&al, r_size);
	if (!base) {
		rki_free(&al, tmp, tmp_size);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_mesh_expansion_build: %zu result bytes", r_size);
		return NULL;
	}
	rk_mesh_expansion *x = (rk_mesh_expansion *)base;
	memset(x, 0, sizeof(*x));
	x->format = fmt;
	x->draw_count = d;
	x->draws = (rk_mesh_draw *)(base + r_draws);
	x->part_count = ptotal;
	x->parts = (rk_mesh_part *)(base + r_parts);
	x->index_count = itotal;
	x->indices = (uint32_t *)(base + r_indices);
	x->vertex_count = vtotal;
	x->vertices = base + r_vertices;
	if (d) memcpy(x->draws, draws_tmp, d * sizeof(rk_mesh_draw));
	if (ptotal) memcpy(x->parts, tmp + off_p, ptotal * sizeof(rk_mesh_part));
	if (itotal) memcpy(x->indices, tmp + off_i, itotal * sizeof(uint32_t));
	if (vtotal) memcpy(x->vertices, tmp + off_v, vtotal * fmt.stride);
	x->stats = total;
	bool any = false;
	for (size_t k = 0; k < d; k++) {
		const rk_mesh_draw *dr = &x->draws[k];
		if (!dr->vertex_count) continue;
		if (!any) {
			x->bounds_min = dr->bounds_min;
			x->bounds_max = dr->bounds_max;
			any = true;
			continue;
		}
		x->bounds_min.x = dr->bounds_min.x < x->bounds_min.x ? dr->bounds_min.x : x->bounds_min.x;
		x->bounds_min.y = dr->bounds_min.y < x->bounds_min.y ? dr->bounds_min.y : x->bounds_min.y;
		x->bounds_min.z = dr->bounds_min.z < x->bounds_min.z ? dr->bounds_min.z : x->bounds_min.z;
		x->bounds_max.x = dr->bounds_max.x > x->bounds_max.x ? dr->bounds_max.x : x->bounds_max.x;
		x->bounds_max.y = dr->bounds_max.y > x->bounds_max.y ? dr->bounds_max.y : x->bounds_max.y;
		x->bounds_max.z = dr->bounds_max.z > x->bounds_max.z ? dr->bounds_max.z : x->bounds_max.z;
	}
	x->radius = rk_mesh_radius(x->bounds_min, x->bounds_max);
	x->memory_size = r_size;
	x->allocator_ = opts->allocator;
	rki_free(&al, tmp, tmp_size);
	rki_error_clear(err);
	return x;
}

void rk_mesh_expansion_free(rk_mesh_expansion *x)
{
	if (!x) return;
	rki_alloc al;
	rk_allocator user = x->allocator_;
	rki_alloc_init(&al, &user, 0, 0);
	rki_free(&al, x, x->memory_size);
}

/* ---------------------------------------------------------------------------
 * Describe
 * ------------------------------------------------------------------------- */

typedef struct rki_text { char *dst; size_t cap, len; } rki_text;

static void rki_text_add(rki_text *t, const char *fmt, ...) RKI_PRINTF(2, 3);
static void rki_text_add(rki_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *at = t->dst && t->len < t->cap ? t->dst + t->len : NULL;
	size_t room = at ? t->cap - t->len : 0;
	int n = vsnprintf(at, room, fmt, ap);
	va_end(ap);
	if (n > 0) t->len += (size_t)n;
}

size_t rk_mesh_expansion_describe(char *dst, size_t cap, const rk_mesh_expansion *x)
{
	rki_text t = { dst, cap, 0 };
	if (dst && cap) dst[0] = '\0';
	if (!x) return 0;
	for (size_t i = 0; i < x->draw_count; i++) {
		const rk_mesh_draw *d = &x->draws[i];
		rki_text_add(&t, "mesh \"%s\" node \"%s\": %u part%s, %u vertices, %u triangles",
			d->mesh && d->mesh->name ? d->mesh->name : "", d->node && d->node->name ? d->node->name : "",
			d->part_count, d->part_count == 1 ? "" : "s", d->vertex_count, d->index_count / 3);
		if (d->skin) rki_text_add(&t, ", skinned (%zu joints)", d->skin->joint_count);
		if (d->world_space) rki_text_add(&t, ", world space");
		rki_text_add(&t, "\n");
		for (uint32_t p = 0; p < d->part_count && d->first_part + p < x->part_count; p++) {
			const rk_mesh_part *pt = &x->parts[d->first_part + p];
			if (pt->material) rki_text_add(&t, "  part %u: material \"%s\"", p, pt->material->name ? pt->material->name : "");
			else rki_text_add(&t, "  part %u: material (none)", p);
			if (pt->material_slot == UINT32_MAX) rki_text_add(&t, " (slot -)");
			else rki_text_add(&t, " (slot %u)", pt->material_slot);
			rki_text_add(&t, ", uv set %d, %u triangles, indices %u..%u\n", pt->uv_set, pt->index_count / 3,
				pt->start_index, pt->start_index + pt->index_count - 1);
		}
	}
	rki_text_add(&t, "total: %zu mesh nodes, %zu parts, %zu vertices, %zu triangles, radius %g\n",
		x->draw_count, x->part_count, x->vertex_count, x->index_count / 3, x->radius);
	const rk_mesh_stats *s = &x->stats;
	if (s->fallback_polygons) rki_text_add(&t, "note: %zu polygons needed the ear-clipping fallback\n", s->fallback_polygons);
	if (s->degenerate_polygons) rki_text_add(&t, "note: %zu polygons have no area\n", s->degenerate_polygons);
	if (s->skipped_polygons) rki_text_add(&t, "note: %zu polygons with fewer than 3 corners skipped\n", s->skipped_polygons);
	if (s->invalid_material_slots) rki_text_add(&t, "note: %zu faces use an out-of-range material slot\n", s->invalid_material_slots);
	if (s->unweighted_vertices) rki_text_add(&t, "note: %zu skinned vertices have no weights\n", s->unweighted_vertices);
	if (s->truncated_influences) rki_text_add(&t, "note: %zu vertices had more than 4 influences\n", s->truncated_influences);
	if (s->dropped_weights) rki_text_add(&t, "note: %zu unusable weights dropped\n", s->dropped_weights);
	return t.len;
}
