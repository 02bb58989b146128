/*
 * src/formats/fbx/fbx_deformers.c - skin deformers (clusters, bind matrices with
 * fallbacks, CSR weights) and blend shapes (7x BlendShape channels, 6100
 * Shape children) (see fbx_deformers.h).
 */
#include "formats/fbx/fbx_deformers.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deformers ---------------------------------------------------------------------------- */

static int rki_weight_cmp(const void *a, const void *b)
{
	const rk_skin_weight *x = (const rk_skin_weight *)a, *y = (const rk_skin_weight *)b;
	if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
	return x->joint < y->joint ? -1 : x->joint > y->joint;
}

/* A cluster matrix: 1 when read, 0 when absent or not 16 finite numbers
 * (warned; the caller falls back), -1 on a fatal error (err set). */
static int rki_fbx_cluster_matrix(rki_fbx_ctx *ctx, const rki_fbx_node *cluster, const char *name, rk_mat4 *out)
{
	const rki_fbx_node *n = rki_fbx_find_child(cluster, name);
	const double *v;
	size_t count;
	if (!n) return 0;
	if (!rki_fbx_array_f64(n, 0, &ctx->sc->tmp, &v, &count, ctx->sc->err)) {
		if (ctx->sc->err && (ctx->sc->err->code == RK_ERROR_OUT_OF_MEMORY || ctx->sc->err->code == RK_ERROR_LIMIT)) {
			rki_error_file(ctx->sc->err, ctx->filename);
			return -1;
		}
		rki_error_clear(ctx->sc->err);
		count = 0;
	}
	bool finite = count == 16;
	for (size_t i = 0; finite && i < 16; i++) finite = isfinite(v[i]);
	if (!finite) {
		rki_fbx_warn(ctx, n, "%s is not 16 finite numbers: derived from the bind pose instead", name);
		return 0;
	}
	memcpy(out->m, v, sizeof(out->m));
	return 1;
}

bool rki_fbx_build_skin_from_clusters(rki_fbx_ctx *ctx, const rki_fbx_cluster *clusters, size_t count,
	const rk_mesh *mesh, const rk_node *mesh_node, rk_skin_deformer *skin)
{
	size_t c1 = count ? count : 1;
	rk_skin_joint *joints = (rk_skin_joint *)rki_arena_array(ctx->sc->arena, c1, sizeof(rk_skin_joint));
	const int32_t **cidx = (const int32_t **)rki_arena_array(&ctx->sc->tmp, c1, sizeof(int32_t *));
	const double **cw = (const double **)rki_arena_array(&ctx->sc->tmp, c1, sizeof(double *));
	size_t *cn = (size_t *)rki_arena_array(&ctx->sc->tmp, c1, sizeof(size_t));
	uint32_t *begin = (uint32_t *)rki_arena_array(ctx->sc->arena, mesh->vertex_count + 1, sizeof(uint32_t));
	if (!joints || !cidx || !cw || !cn || !begin) return rki_fbx_oom(ctx);
	size_t total = 0;
	for (size_t j = 0; j < count; j++) {
		const rki_fbx_node *cnode = clusters[j].node;
		rk_skin_joint *jt = &joints[j];
		jt->node = clusters[j].bone;
		if (!jt->node) rki_fbx_warn(ctx, cnode, "cluster without a bone: its weights are ignored");
		const char *mode;
		size_t mode_len;
		/* FbxCluster link mode ("Mode"): exporters write none (Normalize). */
		if (rki_fbx_child_str(cnode, "Mode", &mode, &mode_len) && strcmp(mode, "Normalize") != 0)
			rki_fbx_warn(ctx, cnode, "cluster link mode '%s' is evaluated as Normalize (weights divided by their sum)",
				mode);
		/* Missing cluster matrices come from the bind pose, else from the
		 * static scene: TransformLink = bone world at bind, Transform =
		 * inv(TransformLink) * mesh world at bind. */
		rk_mat4 transform, link = rk_mat4_identity();
		int has_t = rki_fbx_cluster_matrix(ctx, cnode, "Transform", &transform);
		int has_l = rki_fbx_cluster_matrix(ctx, cnode, "TransformLink", &link);
		if (has_t < 0 || has_l < 0) return false;
		if (!has_l && jt->node) link = jt->node->has_bind_pose ? jt->node->bind_node_to_world : jt->node->node_to_world;
		if (!has_t) {
			rk_mat4 mesh_bind = rk_mat4_identity(), inv_link;
			if (mesh_node) mesh_bind = mesh_node->has_bind_pose ? mesh_node->bind_node_to_world : mesh_node->node_to_world;
			transform = rk_mat4_invert(link, &inv_link) ? rk_mat4_mul(inv_link, mesh_bind) : rk_mat4_identity();
		}
		jt->mesh_to_joint = transform;
		jt->joint_to_world_bind = link;
		jt->mesh_to_world_bind = rk_mat4_mul(link, transform);
		const rki_fbx_node *in = rki_fbx_find_child(cnode, "Indexes");
		const rki_fbx_node *wn = rki_fbx_find_child(cnode, "Weights");
		cidx[j] = NULL;
		cw[j] = NULL;
		cn[j] = 0;
		if (!in || !wn) continue;
		size_t ni, nw;
		if (!rki_fbx_array_i32(in, 0, &ctx->sc->tmp, &cidx[j], &ni, ctx->sc->err)
			|| !rki_fbx_array_f64(wn, 0, &ctx->sc->tmp, &cw[j], &nw, ctx->sc->err)) {
			return rki_fbx_dom_failed(ctx);
		}
		if (ni != nw) {
			rki_fbx_warn(ctx, wn, "cluster has %zu Indexes but %zu Weights: the extra entries are ignored", ni, nw);
			if (nw < ni) ni = nw;
		}
		cn[j] = ni;
		size_t bad = 0;
		for (size_t i = 0; i < ni; i++) {
			int32_t v = cidx[j][i];
			if (v < 0 || (size_t)v >= mesh->vertex_count || !isfinite(cw[j][i])) { bad++; continue; }
			if (!jt->node) continue;
			begin[v]++;
			total++;
		}
		if (bad) rki_fbx_warn(ctx, in, "cluster: %zu out-of-range vertex indices or non-finite weights ignored", bad);
	}
	if (total > UINT32_MAX - 1) {
		rki_fbx_error_at_node(ctx, NULL, RK_ERROR_LIMIT, "skin has %zu weights", total);
		return false;
	}
	/* CSR offsets, then fill, then sort each vertex's influences. */
	uint32_t acc = 0;
	for (size_t v = 0; v < mesh->vertex_count; v++) {
		uint32_t c = begin[v];
		begin[v] = acc;
		acc += c;
	}
	begin[mesh->vertex_count] = acc;
	rk_skin_weight *w = (rk_skin_weight *)rki_arena_array(ctx->sc->arena, total ? total : 1, sizeof(rk_skin_weight));
	uint32_t *fill = (uint32_t *)rki_arena_array(&ctx->sc->tmp, mesh->vertex_count + 1, sizeof(uint32_t));
	if (!w || !fill) return rki_fbx_oom(ctx);
	memcpy(fill, begin, (mesh->vertex_count + 1) * sizeof(uint32_t));
	for (size_t c = 0; c < count; c++) {
		if (!joints[c].node) continue;
		for (size_t i = 0; i < cn[c]; i++) {
			int32_t v = cidx[c][i];
			if (v < 0 || (size_t)v >= mesh->vertex_count || !isfinite(cw[c][i])) continue;
			w[fill[v]].joint = (uint32_t)c;
			w[fill[v]].weight = (float)cw[c][i];
			fill[v]++;
		}
	}
	size_t maxw = 0;
	for (size_t v = 0; v < mesh->vertex_count; v++) {
		size_t n = begin[v + 1] - begin[v];
		if (n > 1) qsort(w + begin[v], n, sizeof(rk_skin_weight), rki_weight_cmp);
		if (n > maxw) maxw = n;
	}
	skin->joint_count = count;
	skin->joints = joints;
	skin->vertex_count = mesh->vertex_count;
	skin->weight_begin = begin;
	skin->weight_count = total;
	skin->weights = w;
	skin->max_weights_per_vertex = maxw;
	/* Deepest common ancestor of the joints' parents as the skeleton root. */
	rk_node *anc = NULL;
	for (size_t c = 0; c < count; c++) {
		rk_node *n = joints[c].node;
		if (!n) continue;
		if (!anc) {
			anc = n->parent ? n->parent : n;
			continue;
		}
		while (anc->depth > n->depth && anc->parent) anc = anc->parent;
		for (;;) {
			const rk_node *p = n;
			while (p && p != anc) p = p->parent;
			if (p || !anc->parent) break;
			anc = anc->parent;
		}
	}
	skin->skeleton_root = anc;
	return true;
}

bool rki_fbx_build_skin(rki_fbx_ctx *ctx, rki_fbx_object *so, const rk_mesh *mesh, const rk_node *mesh_node, rk_skin_deformer *skin)
{
	skin->name = so->name;
	const char *st;
	size_t st_len;
	skin->method = RK_SKINNING_LINEAR;
	if (rki_fbx_child_str(so->node, "SkinningType", &st, &st_len) || (st = rki_fbx_obj_str(so, "SkinningType", NULL)) != NULL) {
		if (!strcmp(st, "DualQuaternion")) skin->method = RK_SKINNING_DUAL_QUATERNION;
		else if (!strcmp(st, "Blend")) skin->method = RK_SKINNING_BLENDED_DQ;
		else if (!strcmp(st, "Rigid")) skin->method = RK_SKINNING_RIGID;
	}
	size_t count = 0;
	for (uint32_t k = 0; k < so->children_count; k++)
		if (rki_fbx_child_of_kind(ctx, so, k, "Deformer", "Cluster")) count++;
	rki_fbx_cluster *cl = (rki_fbx_cluster *)rki_arena_array(&ctx->sc->tmp, count ? count : 1, sizeof(rki_fbx_cluster));
	if (!cl) return rki_fbx_oom(ctx);
	size_t j = 0;
	for (uint32_t k = 0; k < so->children_count; k++) {
		rki_fbx_object *co = rki_fbx_child_of_kind(ctx, so, k, "Deformer", "Cluster");
		if (!co) continue;
		cl[j].node = co->node;
		cl[j].bone = NULL;
		for (uint32_t b = 0; b < co->children_count; b++) {
			rki_fbx_object *bo = rki_fbx_child_of_kind(ctx, co, b, "Model", NULL);
			if (bo && bo->out) {
				cl[j].bone = (rk_node *)bo->out;
				break;
			}
		}
		j++;
	}
	if (!rki_fbx_build_skin_from_clusters(ctx, cl, j, mesh, mesh_node, skin)) return false;
	if (skin->method == RK_SKINNING_BLENDED_DQ) {
		float *dq = (float *)rki_arena_array(ctx->sc->arena, mesh->vertex_count ? mesh->vertex_count : 1, sizeof(float));
		if (!dq) return rki_fbx_oom(ctx);
		const rki_fbx_node *bi = rki_fbx_find_child(so->node, "Indexes");
		const rki_fbx_node *bw = rki_fbx_find_child(so->node, "BlendWeights");
		if (bi && bw) {
			const int32_t *ii;
			const double *ww;
			size_t ni, nw;
			if (!rki_fbx_array_i32(bi, 0, &ctx->sc->tmp, &ii, &ni, ctx->sc->err)
				|| !rki_fbx_array_f64(bw, 0, &ctx->sc->tmp, &ww, &nw, ctx->sc->err)) {
				return rki_fbx_dom_failed(ctx);
			}
			for (size_t i = 0; i < ni && i < nw; i++)
				if (ii[i] >= 0 && (size_t)ii[i] < mesh->vertex_count && isfinite(ww[i])) dq[ii[i]] = (float)ww[i];
		}
		skin->dq_weights = dq;
	}
	return true;
}

/* Reads a Shape (7x Geometry "Shape" object or 6100 Shape child) into bs:
 * Indexes, Vertices (offsets), optional Normals. *ni = indexes in the file,
 * *kept = offsets kept (in-range vertex indices). */
bool rki_fbx_read_shape(rki_fbx_ctx *ctx, const rki_fbx_node *sn, const char *name, const rk_mesh *mesh,
	rk_blend_shape *bs, size_t *ni_out, size_t *kept_out)
{
	bs->name = name;
	const rki_fbx_node *in = rki_fbx_find_child(sn, "Indexes");
	const rki_fbx_node *vn = rki_fbx_find_child(sn, "Vertices");
	const rki_fbx_node *nn = rki_fbx_find_child(sn, "Normals");
	const int32_t *ii = NULL;
	const double *vv = NULL, *nv = NULL;
	size_t ni = 0, nvv = 0, nnv = 0;
	if ((in && !rki_fbx_array_i32(in, 0, &ctx->sc->tmp, &ii, &ni, ctx->sc->err))
		|| (vn && !rki_fbx_array_f64(vn, 0, &ctx->sc->tmp, &vv, &nvv, ctx->sc->err))
		|| (nn && !rki_fbx_array_f64(nn, 0, &ctx->sc->tmp, &nv, &nnv, ctx->sc->err))) {
		return rki_fbx_dom_failed(ctx);
	}
	if (nvv / 3 < ni) {
		rki_fbx_warn(ctx, sn, "Shape has %zu Indexes but %zu vertex numbers: the extra indices are ignored", ni, nvv);
		ni = nvv / 3;
	}
	if (nv && nnv / 3 < ni) {
		rki_fbx_warn(ctx, sn, "Shape has fewer normals than Indexes: its normals are ignored");
		nv = NULL;
	}
	uint32_t *oi = (uint32_t *)rki_arena_array(ctx->sc->arena, ni ? ni : 1, sizeof(uint32_t));
	rk_vec3 *op = (rk_vec3 *)rki_arena_array(ctx->sc->arena, ni ? ni : 1, sizeof(rk_vec3));
	rk_vec3 *on = nv ? (rk_vec3 *)rki_arena_array(ctx->sc->arena, ni ? ni : 1, sizeof(rk_vec3)) : NULL;
	if (!oi || !op || (nv && !on)) return rki_fbx_oom(ctx);
	size_t kept = 0;
	for (size_t i = 0; i < ni; i++) {
		if (ii[i] < 0 || (size_t)ii[i] >= mesh->vertex_count) continue;
		oi[kept] = (uint32_t)ii[i];
		op[kept] = (rk_vec3){ vv[i * 3], vv[i * 3 + 1], vv[i * 3 + 2] };
		if (on) on[kept] = (rk_vec3){ nv[i * 3], nv[i * 3 + 1], nv[i * 3 + 2] };
		kept++;
	}
	if (kept != ni) rki_fbx_warn(ctx, in, "shape: %zu vertex indices out of range ignored", ni - kept);
	bs->offset_count = kept;
	bs->vertex_indices = oi;
	bs->position_offsets_f64 = op;
	bs->normal_offsets_f64 = on;
	*ni_out = ni;
	*kept_out = kept;
	return true;
}

/* 6100: Shape children of the geometry, one channel each (named like the
 * shape; the model's property of that name holds the percent weight). */
bool rki_fbx_build_v6_shapes(rki_fbx_ctx *ctx, const rki_fbx_object *o, rk_mesh *mesh, rk_blend_channel *out, size_t *out_count)
{
	for (size_t k = 0; k < o->node->child_count; k++) {
		const rki_fbx_node *sn = &o->node->children[k];
		const char *nm;
		size_t nl, ni, kept;
		if (strcmp(sn->name, "Shape") != 0) continue;
		if (!rki_fbx_prop_str(sn, 0, &nm, &nl)) nm = "", nl = 0;
		rk_blend_channel *c = &out[*out_count];
		rk_blend_shape *bs = (rk_blend_shape *)rki_arena_alloc(ctx->sc->arena, sizeof(rk_blend_shape));
		double *tw = (double *)rki_arena_alloc(ctx->sc->arena, sizeof(double));
		const char *name = rki_fbx_plain_name(ctx->sc->arena, nm, nl);
		if (!bs || !tw || !name) return rki_fbx_oom(ctx);
		if (!rki_fbx_read_shape(ctx, sn, name, mesh, bs, &ni, &kept)) return false;
		c->index = (uint32_t)*out_count;
		c->name = name;
		c->default_weight = rki_fbx_obj_f64(o, name, 0.0) / 100.0;
		*tw = 1.0;
		c->target_count = 1;
		c->targets = bs;
		c->target_weights = tw;
		(*out_count)++;
	}
	return true;
}

bool rki_fbx_build_blend(rki_fbx_ctx *ctx, rki_fbx_object *bo, rk_mesh *mesh, rk_blend_channel *out, size_t *out_count)
{
	for (uint32_t k = 0; k < bo->children_count; k++) {
		rki_fbx_object *ch = rki_fbx_child_of_kind(ctx, bo, k, "Deformer", "BlendShapeChannel");
		if (!ch) continue;
		rk_blend_channel *c = &out[*out_count];
		c->index = (uint32_t)*out_count;
		c->name = ch->name;
		double pct = rki_fbx_obj_f64(ch, "DeformPercent", 0.0);
		const rki_fbx_node *dp = rki_fbx_find_child(ch->node, "DeformPercent");
		if (dp && !rki_fbx_obj_prop(ch, "DeformPercent", &(size_t){ 0 })) rki_fbx_prop_f64(dp, 0, &pct);
		c->default_weight = pct / 100.0;
		size_t shapes = 0;
		for (uint32_t s = 0; s < ch->children_count; s++)
			if (rki_fbx_child_of_kind(ctx, ch, s, "Geometry", "Shape")) shapes++;
		rk_blend_shape *targets = (rk_blend_shape *)rki_arena_array(ctx->sc->arena, shapes ? shapes : 1, sizeof(rk_blend_shape));
		double *tw = (double *)rki_arena_array(ctx->sc->arena, shapes ? shapes : 1, sizeof(double));
		if (!targets || !tw) return rki_fbx_oom(ctx);
		const double *full = NULL;
		size_t full_count = 0;
		const rki_fbx_node *fw = rki_fbx_find_child(ch->node, "FullWeights");
		if (fw && !rki_fbx_array_f64(fw, 0, &ctx->sc->tmp, &full, &full_count, ctx->sc->err)) {
			return rki_fbx_dom_failed(ctx);
		}
		size_t t = 0;
		for (uint32_t s = 0; s < ch->children_count; s++) {
			rki_fbx_object *so = rki_fbx_child_of_kind(ctx, ch, s, "Geometry", "Shape");
			if (!so) continue;
			rk_blend_shape *bs = &targets[t];
			size_t ni = 0, kept = 0;
			if (!rki_fbx_read_shape(ctx, so->node, so->name, mesh, bs, &ni, &kept)) return false;
			tw[t] = t < full_count ? full[t] / 100.0 : (double)(t + 1) / (double)shapes;
			if (shapes == 1 && full_count > 1 && full_count == ni && kept == ni) {
				/* One target with one FullWeights value per offset: per-vertex
				 * weights (percent), not an in-between weight. */
				double *ow = (double *)rki_arena_array(ctx->sc->arena, ni, sizeof(double));
				if (!ow) return rki_fbx_oom(ctx);
				for (size_t i = 0; i < ni; i++) ow[i] = full[i] / 100.0;
				bs->offset_weights = ow;
				tw[t] = 1.0;
			}
			t++;
		}
		/* In-betweens are defined by their FullWeights: keep them ascending
		 * (exporters write them so; a file that does not is sorted, stably). */
		for (size_t a = 1; a < t; a++) {
			for (size_t b = a; b > 0 && tw[b - 1] > tw[b]; b--) {
				double w = tw[b];
				tw[b] = tw[b - 1];
				tw[b - 1] = w;
				rk_blend_shape sh = targets[b];
				targets[b] = targets[b - 1];
				targets[b - 1] = sh;
			}
		}
		c->target_count = t;
		c->targets = targets;
		c->target_weights = tw;
		ch->out = c;
		(*out_count)++;
	}
	return true;
}
