/*
 * src/formats/fbx/fbx_load.c - FBX scene reader: DOM -> neutral scene.
 *
 * The orchestrator: rki_fbx_load() parses the document (fbx_dom.h) and runs
 * the passes in order: header and GlobalSettings, object index and
 * connections, nodes, bind poses, then the content (textures, materials,
 * meshes with their skins and blend shapes, node links) or the legacy
 * layout instead, then animation. The passes live in the helper files of
 * the call graph in fbx_internal.h; none of them calls back into this file.
 *
 * Features and restrictions: include/rigkit/load.h, FBX IMPORTER.
 */
#include "formats/fbx/fbx_anim.h"
#include "formats/fbx/fbx_attrs.h"
#include "formats/fbx/fbx_deformers.h"
#include "formats/fbx/fbx_geometry.h"
#include "formats/fbx/fbx_legacy.h"
#include "formats/fbx/fbx_materials.h"
#include "formats/fbx/fbx_nodes.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <libdeflate.h>
#include <math.h>
#include <string.h>

/* ---- settings ------------------------------------------------------------------------ */

static rk_axis rki_fbx_axis(int64_t axis, int64_t sign)
{
	if (axis < 0 || axis > 2) return RK_AXIS_UNKNOWN;
	return (rk_axis)(1 + axis * 2 + (sign < 0 ? 1 : 0));
}

static double rki_fbx_frame_rate(int64_t mode, double custom)
{
	switch (mode) {
	case 1: return 120.0;
	case 2: return 100.0;
	case 3: return 60.0;
	case 4: return 50.0;
	case 5: return 48.0;
	case 6: case 7: return 30.0;
	case 8: case 9: return 30000.0 / 1001.0;
	case 10: return 25.0;
	case 11: return 24.0;
	case 12: return 1000.0;
	case 13: return 24000.0 / 1001.0;
	case 14: return custom > 0.0 ? custom : 24.0;
	case 15: return 96.0;
	case 16: return 72.0;
	case 17: return 60000.0 / 1001.0;
	case 18: return 120000.0 / 1001.0;
	default: return 24.0;
	}
}

static void rki_fbx_read_settings(rki_fbx_ctx *ctx)
{
	rk_scene_settings *st = &ctx->sc->scene->settings;
	const rki_fbx_node *gs = rki_fbx_find_child(&ctx->doc.root, "GlobalSettings");
	if (!gs && ctx->objects_node) gs = rki_fbx_find_child(ctx->objects_node, "GlobalSettings");
	rki_fbx_object o;
	memset(&o, 0, sizeof(o));
	if (gs) {
		o.node = gs;
		o.props = rki_fbx_find_child(gs, "Properties70");
		if (!o.props) {
			o.props = rki_fbx_find_child(gs, "Properties60");
			o.props60 = o.props != NULL;
		}
	}
	st->unit_meters = 0.01;
	st->axes = (rk_axes){ RK_AXIS_UNKNOWN, RK_AXIS_UNKNOWN, RK_AXIS_UNKNOWN };
	st->frame_rate = 24.0;
	if (!o.props) return;
	size_t vi;
	if (rki_fbx_obj_prop(&o, "UpAxis", &vi)) {
		rk_axes a;
		a.up = rki_fbx_axis(rki_fbx_obj_i64(&o, "UpAxis", 1), rki_fbx_obj_i64(&o, "UpAxisSign", 1));
		a.front = rki_fbx_axis(rki_fbx_obj_i64(&o, "FrontAxis", 2), rki_fbx_obj_i64(&o, "FrontAxisSign", 1));
		a.right = rki_fbx_axis(rki_fbx_obj_i64(&o, "CoordAxis", 0), rki_fbx_obj_i64(&o, "CoordAxisSign", 1));
		if (rk_axes_valid(a)) st->axes = a;
		else rki_fbx_warn(ctx, gs, "GlobalSettings axes are not three distinct axes: ignored");
	}
	double usf = rki_fbx_obj_f64(&o, "UnitScaleFactor", 1.0);
	if (usf > 0.0 && isfinite(usf)) st->unit_meters = usf * 0.01;
	else rki_fbx_warn(ctx, gs, "UnitScaleFactor %g is not a positive number: using centimetres", usf);
	st->frame_rate = rki_fbx_frame_rate(rki_fbx_obj_i64(&o, "TimeMode", 0), rki_fbx_obj_f64(&o, "CustomFrameRate", 0.0));
}

/* The first Model using a geometry object (6100: the model itself). */
static rk_node *rki_fbx_geometry_node(rki_fbx_ctx *ctx, const rki_fbx_object *g)
{
	if (ctx->v6) return rki_fbx_is_model(g) ? (rk_node *)g->out : NULL;
	for (uint32_t k = 0; k < g->parents_count; k++) {
		uint32_t p = ctx->conns[g->parents_begin + k].other;
		if (p != RKI_FBX_ROOT_OBJECT && rki_fbx_is_model(&ctx->objects[p]) && ctx->objects[p].out) return (rk_node *)ctx->objects[p].out;
	}
	return NULL;
}

/* ---- assembly ---------------------------------------------------------------------------------- */

static bool rki_fbx_build_content(rki_fbx_ctx *ctx)
{
	rk_scene *s = ctx->sc->scene;
	size_t nmesh = 0, nskin = 0, nmat = 0, ntex = 0;
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (rki_fbx_is_geometry_mesh(ctx, o)) nmesh++;
		else if (!strcmp(o->element, "Deformer") && !strcmp(o->sub_class, "Skin")) nskin++;
		else if (!strcmp(o->element, "Material")) nmat++;
		else if (!strcmp(o->element, "Texture")) ntex++;
		else if (!strcmp(o->element, "Geometry") && strcmp(o->sub_class, "Shape") != 0 && strcmp(o->sub_class, "Mesh") != 0)
			rki_fbx_warn(ctx, o->node, "geometry type '%s' is not loaded (only polygon meshes)", o->sub_class);
	}
	if (ctx->sc->opts.ignore_geometry) nmesh = nskin = 0;
	s->meshes.data = (rk_mesh *)rki_arena_array(ctx->sc->arena, nmesh ? nmesh : 1, sizeof(rk_mesh));
	s->skins.data = (rk_skin_deformer *)rki_arena_array(ctx->sc->arena, nskin ? nskin : 1, sizeof(rk_skin_deformer));
	s->materials.data = (rk_material *)rki_arena_array(ctx->sc->arena, nmat ? nmat : 1, sizeof(rk_material));
	s->textures.data = (rk_texture *)rki_arena_array(ctx->sc->arena, ntex ? ntex : 1, sizeof(rk_texture));
	if (!s->meshes.data || !s->skins.data || !s->materials.data || !s->textures.data) return rki_fbx_oom(ctx);

	/* Textures, then materials (which reference textures). */
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (strcmp(o->element, "Texture") != 0) continue;
		rk_texture *t = &s->textures.data[s->textures.count];
		t->index = (uint32_t)s->textures.count++;
		if (!rki_fbx_build_texture(ctx, o, t)) return false;
		o->out = t;
	}
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (strcmp(o->element, "Material") != 0) continue;
		rk_material *m = &s->materials.data[s->materials.count];
		m->index = (uint32_t)s->materials.count++;
		if (!rki_fbx_build_material(ctx, o, m)) return false;
		o->out = m;
	}
	/* Per-node material slots: materials connected to the model, in order. */
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (!rki_fbx_is_model(o) || !o->out) continue;
		rk_node *nd = (rk_node *)o->out;
		size_t n = 0;
		for (uint32_t k = 0; k < o->children_count; k++)
			if (rki_fbx_child_of_kind(ctx, o, k, "Material", NULL)) n++;
		if (!n) continue;
		nd->materials.data = (rk_material **)rki_arena_array(ctx->sc->arena, n, sizeof(rk_material *));
		if (!nd->materials.data) return rki_fbx_oom(ctx);
		for (uint32_t k = 0; k < o->children_count; k++) {
			rki_fbx_object *mo = rki_fbx_child_of_kind(ctx, o, k, "Material", NULL);
			if (mo && mo->out) nd->materials.data[nd->materials.count++] = (rk_material *)mo->out;
		}
	}
	if (ctx->sc->opts.ignore_geometry) return true;

	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (!rki_fbx_is_geometry_mesh(ctx, o)) continue;
		rk_mesh *m = &s->meshes.data[s->meshes.count];
		m->index = (uint32_t)s->meshes.count++;
		if (!rki_fbx_build_mesh(ctx, o, m)) return false;
		/* Deformers attached to this geometry. */
		size_t nsk = 0, nch = 0;
		for (uint32_t k = 0; k < o->children_count; k++) {
			rki_fbx_object *d = rki_fbx_child_of_kind(ctx, o, k, "Deformer", NULL);
			if (!d) continue;
			if (!strcmp(d->sub_class, "Skin")) nsk++;
			else if (!strcmp(d->sub_class, "BlendShape")) {
				for (uint32_t c = 0; c < d->children_count; c++)
					if (rki_fbx_child_of_kind(ctx, d, c, "Deformer", "BlendShapeChannel")) nch++;
			}
		}
		if (ctx->v6)
			for (size_t k = 0; k < o->node->child_count; k++)
				if (!strcmp(o->node->children[k].name, "Shape")) nch++;
		if (nsk) {
			m->skins = (rk_skin_deformer **)rki_arena_array(ctx->sc->arena, nsk, sizeof(rk_skin_deformer *));
			if (!m->skins) return rki_fbx_oom(ctx);
		}
		rk_blend_channel *chans = nch ? (rk_blend_channel *)rki_arena_array(ctx->sc->arena, nch, sizeof(rk_blend_channel)) : NULL;
		if (nch && !chans) return rki_fbx_oom(ctx);
		size_t made = 0;
		for (uint32_t k = 0; k < o->children_count; k++) {
			rki_fbx_object *d = rki_fbx_child_of_kind(ctx, o, k, "Deformer", NULL);
			if (!d) continue;
			if (!strcmp(d->sub_class, "Skin") && s->skins.count < nskin) {
				rk_skin_deformer *sk = d->out ? (rk_skin_deformer *)d->out : &s->skins.data[s->skins.count];
				if (!d->out) {
					sk->index = (uint32_t)s->skins.count++;
					if (!rki_fbx_build_skin(ctx, d, m, rki_fbx_geometry_node(ctx, o), sk)) return false;
					d->out = sk;
				}
				m->skins[m->skin_count++] = sk;
			} else if (!strcmp(d->sub_class, "BlendShape")) {
				if (!rki_fbx_build_blend(ctx, d, m, chans, &made)) return false;
			}
		}
		if (ctx->v6 && !rki_fbx_build_v6_shapes(ctx, o, m, chans, &made)) return false;
		m->blend_channels.data = chans;
		m->blend_channels.count = made;
		o->geom_out = m;
	}
	/* Link nodes to meshes. */
	for (size_t i = 0; i < ctx->object_count; i++) {
		rki_fbx_object *o = &ctx->objects[i];
		if (!rki_fbx_is_model(o) || o->node_index == UINT32_MAX) continue;
		rk_node *nd = &s->nodes.data[o->node_index];
		rk_mesh *mesh = NULL;
		if (ctx->v6) {
			mesh = (rk_mesh *)o->geom_out; /* 6100: the model holds its own geometry */
		} else {
			for (uint32_t k = 0; k < o->children_count && !mesh; k++) {
				rki_fbx_object *g = rki_fbx_child_of_kind(ctx, o, k, "Geometry", "Mesh");
				if (g && g->geom_out) mesh = (rk_mesh *)g->geom_out;
			}
		}
		if (!mesh) continue;
		nd->mesh = mesh;
		nd->kind = RK_NODE_MESH;
		if (mesh->skin_count > 0) nd->skin = mesh->skins[0];
		if (mesh->skin_count > 1) rki_fbx_warn(ctx, o->node, "mesh has %zu skin deformers: only the first is used", mesh->skin_count);
		if (mesh->blend_channels.count) {
			double *w = (double *)rki_arena_array(ctx->sc->arena, mesh->blend_channels.count, sizeof(double));
			if (!w) return rki_fbx_oom(ctx);
			for (size_t c = 0; c < mesh->blend_channels.count; c++) w[c] = mesh->blend_channels.data[c].default_weight;
			nd->blend_weights = w;
		}
	}
	for (size_t i = 0; i < s->skins.count; i++) {
		for (size_t j = 0; j < s->skins.data[i].joint_count; j++) {
			rk_node *jn = (rk_node *)s->skins.data[i].joints[j].node;
			if (jn && jn->kind == RK_NODE_NULL) jn->kind = RK_NODE_JOINT;
		}
	}
	return true;
}

static const char *rki_fbx_creator(rki_fbx_ctx *ctx)
{
	const char *s;
	size_t len;
	if (rki_fbx_child_str(&ctx->doc.root, "Creator", &s, &len)) return rki_arena_strndup(ctx->sc->arena, s, len);
	const rki_fbx_node *h = rki_fbx_find_child(&ctx->doc.root, "FBXHeaderExtension");
	if (h && rki_fbx_child_str(h, "Creator", &s, &len)) return rki_arena_strndup(ctx->sc->arena, s, len);
	return "";
}

/* Arrays of meshes, skins and blend shapes, at most 3 levels below Objects
 * (Objects/Geometry/LayerElementNormal/Normals): decoded ahead on threads. */
/* The objects holding them: 7x Geometry (meshes, shapes) and Deformer
 * (clusters); 5000-6100 Models (their geometry) and Deformers. Others (e.g.
 * a Mixamo clip's thousands of AnimationCurve records) are skipped unread:
 * an array outside these is still decoded when read, on the reading thread. */
static const char *const rki_fbx_mesh_objects[] = { "Geometry", "Deformer", "Model" };

static const char *const rki_fbx_mesh_arrays[] = {
	"Vertices", "PolygonVertexIndex", "Normals", "NormalsIndex", "NormalIndex", "UV", "UVIndex", "Colors",
	"ColorIndex", "Tangents", "TangentsIndex", "TangentIndex", "Binormals", "BinormalsIndex", "BinormalIndex",
	"Materials", "Indexes", "Weights", "BlendWeights", "FullWeights", "Transform", "TransformLink"
};

const char *const *rki_fbx_mesh_array_names(size_t *count)
{
	*count = sizeof(rki_fbx_mesh_arrays) / sizeof(rki_fbx_mesh_arrays[0]);
	return rki_fbx_mesh_arrays;
}

rk_scene *rki_fbx_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err)
{
	rki_scene_ctx sc;
	if (!rki_scene_begin(&sc, opts, filename, size, err)) return NULL;
	sc.files = files;
	rki_fbx_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.sc = &sc;
	ctx.filename = filename;
	rki_fbx_parse_opts popts;
	memset(&popts, 0, sizeof(popts));
	popts.limits.max_depth = sc.opts.max_depth < 64 ? sc.opts.max_depth : 64;
	popts.limits.max_array_elems = sc.opts.max_elements;
	popts.lazy_arrays = true;   /* arrays are decoded when used (fbx_dom.h, LAZY ARRAYS) */
	/* The arrays meshes and skins read are decoded on helper threads (one per
	 * core) straight from the bytes, while the tree is parsed and objects,
	 * nodes and bind poses are built (binary files; ASCII arrays are parsed). */
	rki_fbx_decode_batch *arrays = sc.opts.ignore_geometry ? NULL : rki_fbx_decode_prescan(data, size, "Objects",
		rki_fbx_mesh_objects, sizeof(rki_fbx_mesh_objects) / sizeof(rki_fbx_mesh_objects[0]), rki_fbx_mesh_arrays, sizeof(rki_fbx_mesh_arrays) / sizeof(rki_fbx_mesh_arrays[0]), 3, sc.opts.threads, &popts.limits, sc.arena,
		sc.alloc);
	popts.batch = arrays;
	struct libdeflate_decompressor *inflater = NULL;   /* shared by arrays decoded on access */
	popts.inflater = &inflater;
	/* One block for the document and the scene (core/internal.h,
	 * rki_arena_reserve): they take 1.9x-4.9x the file's size on the shared
	 * assets and the ten largest conformance files. Loads measured with
	 * bench_load: ybot@kick.fbx 0.70 -> 0.39 ms, kenney 1.33 -> 0.75 ms,
	 * ybot.fbx 4.0 -> 3.4 ms (page faults per load 1040 -> 23). A smaller
	 * block that overflows costs more than it saves (3x: ybot.fbx 5.4 ms). */
	if (size <= (SIZE_MAX - 262144) / 6) rki_arena_reserve(sc.arena, size * 6 + 262144);
	if (!rki_fbx_parse_ex(&ctx.doc, data, size, sc.arena, sc.alloc, &popts, err)) {
		rki_fbx_decode_finish(arrays);
		if (inflater) libdeflate_free_decompressor(inflater);
		rki_error_file(err, filename);
		rki_scene_abort(&sc);
		return NULL;
	}
	rk_scene *s = sc.scene;
	s->settings.format = RK_FORMAT_FBX;
	s->settings.fbx_version = ctx.doc.version;
	s->settings.ascii = ctx.doc.ascii;
	if (ctx.doc.skipped_props)
		rki_scene_warn(&sc, ctx.doc.skipped_offset, "",
			"%zu binary propert%s of unknown type code 0x%02x (first here) skipped with the rest of %s node's "
			"property list", ctx.doc.skipped_props, ctx.doc.skipped_props == 1 ? "y" : "ies",
			(unsigned)(unsigned char)ctx.doc.skipped_type, ctx.doc.skipped_props == 1 ? "its" : "each");
	ctx.v6 = ctx.doc.version < 7000;
	s->settings.creator = rki_fbx_creator(&ctx);
	bool ok = s->settings.creator != NULL;
	if (!ok) rki_fbx_oom(&ctx);
	if (ok) {
		ok = rki_fbx_index_objects(&ctx) && rki_fbx_index_connections(&ctx);
	}
	if (ok) {
		rki_fbx_read_settings(&ctx);
		s->settings.original_axes = s->settings.axes;
		s->settings.original_unit_meters = s->settings.unit_meters;
		ctx.frame_rate = s->settings.frame_rate;
		ok = rki_fbx_build_nodes(&ctx);
		if (ok) {
			/* Static matrices (file space) for bind-pose fallbacks; recomputed by finish. */
			rki_scene_update_matrices(s);
			ok = rki_fbx_read_bind_poses(&ctx);
		}
		if (ok && !rki_fbx_is_legacy(&ctx)) ok = rki_fbx_build_attributes(&ctx);
	}
	/* Meshes and skins read the batch's arrays as they go: each is waited for
	 * (or decoded here) when first read, while the helpers decode the rest. */
	if (ok) ok = rki_fbx_is_legacy(&ctx) ? rki_fbx_build_legacy(&ctx) : rki_fbx_build_content(&ctx);
	if (ok && !sc.opts.ignore_animation) ok = rki_fbx_read_animation(&ctx);
	rki_fbx_decode_finish(arrays);  /* on every path: joins the decoding threads */
	if (inflater) libdeflate_free_decompressor(inflater);
	if (!ok) {
		if (err && err->code == RK_OK) rki_scene_oom(&sc);
		rki_error_file(err, filename);
		rki_scene_abort(&sc);
		return NULL;
	}
	return rki_scene_finish(&sc);
}

bool rki_fbx_probe(const void *data, size_t size)
{
	return rki_fbx_is_fbx(data, size);
}
