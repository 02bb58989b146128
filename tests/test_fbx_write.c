/* tests/test_fbx_write.c - the FBX writer (src/export/fbx): rigkit reads back
 * what it writes (nodes, world matrices, meshes, skins, blend shapes,
 * materials, textures, clips; FBX curve keys exactly: same ticks, same
 * float values, interpolation and slopes), binary 7400 / 7500 and ASCII,
 * on the demo characters, the committed fixtures and the shared assets; a
 * gimbal-critical quaternion clip evaluates within 1e-5 rad of its
 * quaternions at 1 kHz after the Euler conversion; randomized scenes (FBX
 * transform chains with every property, random curves and quaternion
 * tracks) round trip; bad arguments and unwritable outputs fail cleanly.
 * The FBX SDK, Blender and Assimp read the same files in
 * tests/test_fbx_write_oracle.sh, test_fbx_write_blender.sh and
 * test_fbx_write_assimp.c. */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/demo.h>
#include <rigkit/export.h>
#include <rigkit/load.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURES RK_SOURCE_DIR "/tests/fixtures/"
#define TICKS 46186158000.0

static rk_scene *write_read(const rk_scene *s, const rk_fbx_write_opts *o, rk_error *err, size_t *size_out)
{
	void *data = NULL;
	size_t size = 0;
	if (!rk_fbx_write_memory(s, o, &data, &size, err)) return NULL;
	rk_load_opts lo = { 0 };
	lo.filename = "written.fbx";
	rk_scene *b = rk_load_memory(data, size, &lo, err);
	if (size_out) *size_out = size;
	rk_fbx_memory_free(data);
	return b;
}

/* Largest |translation| of any node's world matrix: the scene's scale. */
static double scene_size(const rk_scene *s)
{
	double m = 1e-9;
	for (size_t i = 0; i < s->nodes.count; i++) {
		rk_vec3 t = rk_mat4_get_translation(s->nodes.data[i].node_to_world);
		double l = rk_vec3_length(t);
		if (l > m) m = l;
	}
	return m;
}

/* Max difference of every node's world matrix at time t of clip (a) and clip b. */
static double pose_diff(const rk_scene *a, const rk_anim_clip *ca, const rk_scene *b, const rk_anim_clip *cb, double t)
{
	size_t na = rk_pose_memory_size(a), nb = rk_pose_memory_size(b);
	void *ma = malloc(na), *mb = malloc(nb);
	rk_pose pa, pb;
	double worst = INFINITY;
	if (ma && mb && rk_pose_init(&pa, a, ma, na) && rk_pose_init(&pb, b, mb, nb)) {
		rk_pose_eval_job ja = { .scene = a, .clip = ca, .time = t, .pose = &pa };
		rk_pose_eval_job jb = { .scene = b, .clip = cb, .time = t, .pose = &pb };
		if (rk_pose_eval_run(&ja) && rk_pose_eval_run(&jb)) {
			worst = 0.0;
			for (size_t i = 1; i < a->nodes.count; i++) {
				const rk_node *n = rk_scene_find_node(b, a->nodes.data[i].name);
				if (!n) return INFINITY;
				double d = rk_mat4_max_diff(pa.node_to_world[i], pb.node_to_world[n->index]);
				if (d > worst) worst = d;
			}
		}
	}
	free(ma);
	free(mb);
	return worst;
}

static const rk_anim_track *find_track(const rk_anim_layer *l, const char *node, const char *prop, rk_anim_target target)
{
	for (size_t i = 0; i < l->track_count; i++) {
		const rk_anim_track *t = &l->tracks[i];
		if (strcmp(t->node->name, node)) continue;
		if (t->property && prop && t->property[0] && !strcmp(t->property, prop)) return t;
		if (t->target == target && target != RK_TARGET_FBX_PROPERTY) return t;
	}
	return NULL;
}

/* Curves of FBX tracks: same ticks, float values, interpolation, slopes. */
static void check_curves_exact(rk_test_state *rk_t_, const rk_anim_clip *ca, const rk_anim_clip *cb)
{
	RK_REQUIRE(ca->layer_count == cb->layer_count);
	size_t compared = 0;
	for (size_t l = 0; l < ca->layer_count; l++)
		for (size_t i = 0; i < ca->layers[l].track_count; i++) {
			const rk_anim_track *ta = &ca->layers[l].tracks[i];
			if (!(ta->curves[0] || ta->curves[1] || ta->curves[2])) continue;
			const rk_anim_track *tb = find_track(&cb->layers[l], ta->node->name, ta->property, ta->target);
			RK_REQUIRE(tb != NULL);
			for (int k = 0; k < 4; k++) {
				const rk_anim_curve *a = ta->curves[k], *b = tb->curves[k];
				RK_REQUIRE((a == NULL) == (b == NULL));
				if (!a) continue;
				RK_REQUIRE(a->key_count == b->key_count);
				for (size_t j = 0; j < a->key_count; j++) {
					RK_CHECK(llround(a->times[j] * TICKS) == llround(b->times[j] * TICKS));
					RK_CHECK((float)a->values[j] == (float)b->values[j]);
					RK_CHECK(rk_curve_interp(a, j) == rk_curve_interp(b, j));
					if (rk_curve_interp(a, j) == RK_INTERP_CUBIC) {
						RK_CHECK((float)rk_curve_right_slope(a, j) == (float)rk_curve_right_slope(b, j));
						if (j + 1 < a->key_count)
							RK_CHECK((float)rk_curve_left_slope(a, j + 1) == (float)rk_curve_left_slope(b, j + 1));
						RK_CHECK_NEAR(rk_curve_right_weight(a, j), rk_curve_right_weight(b, j), 0.6 / 9999.0);
					}
				}
				compared++;
			}
		}
	(void)compared;
}

/* Everything the writer promises to keep. */
static void check_same(rk_test_state *rk_t_, const rk_scene *a, const rk_scene *b)
{
	double size = scene_size(a);
	RK_CHECK_INT(b->nodes.count, a->nodes.count);
	for (size_t i = 1; i < a->nodes.count && i < b->nodes.count; i++) {
		const rk_node *na = &a->nodes.data[i], *nb = &b->nodes.data[i];
		RK_CHECK_STR(nb->name, na->name);
		RK_CHECK_STR(nb->parent->name, na->parent->name);
		RK_CHECK(rk_mat4_max_diff(na->node_to_world, nb->node_to_world) <= 1e-9 * size + 1e-12);
		RK_CHECK(rk_mat4_max_diff(na->geometry_to_node, nb->geometry_to_node) <= 1e-9 * size + 1e-12);
		RK_CHECK((na->mesh == NULL) == (nb->mesh == NULL));
		RK_CHECK((na->skin == NULL) == (nb->skin == NULL));
		if (na->kind == RK_NODE_JOINT) RK_CHECK(nb->kind == RK_NODE_JOINT);
		rk_material_ref_list sa = rk_node_material_slots(na), sb = rk_node_material_slots(nb);
		if (na->mesh) {
			RK_CHECK_INT(sb.count, sa.count);
			for (size_t k = 0; k < sa.count && k < sb.count; k++)
				if (sa.data[k] && sb.data[k]) RK_CHECK_STR(sb.data[k]->name, sa.data[k]->name);
		}
		if (na->mesh && nb->mesh) {
			const rk_mesh *ma = na->mesh, *mb = nb->mesh;
			RK_CHECK_INT(mb->vertex_count, ma->vertex_count);
			RK_CHECK_INT(mb->index_count, ma->index_count);
			RK_CHECK_INT(mb->face_count, ma->face_count);
			if (mb->vertex_count != ma->vertex_count || mb->index_count != ma->index_count) continue;
			for (size_t v = 0; v < ma->vertex_count; v++) {
				RK_CHECK_NEAR(rk_mesh_position(mb, v).x, rk_mesh_position(ma, v).x, 1e-6);
				RK_CHECK_NEAR(rk_mesh_position(mb, v).y, rk_mesh_position(ma, v).y, 1e-6);
				RK_CHECK_NEAR(rk_mesh_position(mb, v).z, rk_mesh_position(ma, v).z, 1e-6);
			}
			for (size_t c = 0; c < ma->index_count; c++) RK_CHECK(ma->vertex_indices[c] == mb->vertex_indices[c]);
			RK_CHECK(ma->normals.exists == mb->normals.exists);
			if (ma->normals.exists && mb->normals.exists)
				for (size_t c = 0; c < ma->index_count; c++) {
					rk_vec3 x = rk_attrib_vec3_value(&ma->normals, ma->normals.indices[c]), y = rk_attrib_vec3_value(&mb->normals, mb->normals.indices[c]);
					RK_CHECK(fabs(x.x - y.x) + fabs(x.y - y.y) + fabs(x.z - y.z) < 1e-12);
				}
			RK_CHECK_INT(mb->uv_sets.count, ma->uv_sets.count);
			for (size_t u = 0; u < ma->uv_sets.count && u < mb->uv_sets.count; u++) {
				const rk_attrib_vec2 *x = &ma->uv_sets.data[u].uv, *y = &mb->uv_sets.data[u].uv;
				RK_CHECK_STR(mb->uv_sets.data[u].name, ma->uv_sets.data[u].name);
				if (u == 0) {
					RK_CHECK(ma->uv_sets.data[0].tangent.exists == mb->uv_sets.data[0].tangent.exists);
					const rk_attrib_vec3 *ta = &ma->uv_sets.data[0].tangent, *tb = &mb->uv_sets.data[0].tangent;
					for (size_t c = 0; c < ma->index_count && ta->exists && tb->exists; c++) {
						rk_vec3 p = rk_attrib_vec3_corner(ta, c), q = rk_attrib_vec3_corner(tb, c);
						RK_CHECK(p.x == q.x && p.y == q.y && p.z == q.z);
					}
				}
				for (size_t c = 0; c < ma->index_count && x->exists && y->exists; c++) {
					rk_vec2 p = rk_attrib_vec2_corner(x, c), q = rk_attrib_vec2_corner(y, c);
					RK_CHECK(p.x == q.x && p.y == q.y);
				}
			}
			RK_CHECK_INT(mb->colors.count, ma->colors.count);
			for (size_t f = 0; f < ma->face_count; f++)
				RK_CHECK(rk_node_face_slot(na, f) == rk_node_face_slot(nb, f));
			RK_CHECK_INT(mb->blend_channels.count, ma->blend_channels.count);
			for (size_t ch = 0; ch < ma->blend_channels.count && ch < mb->blend_channels.count; ch++) {
				const rk_blend_channel *x = &ma->blend_channels.data[ch], *y = &mb->blend_channels.data[ch];
				RK_CHECK_STR(y->name, x->name);
				RK_CHECK_INT(y->target_count, x->target_count);
				RK_CHECK_NEAR(y->default_weight, na->blend_weights ? na->blend_weights[ch] : x->default_weight, 1e-12);
				for (size_t t = 0; t < x->target_count && t < y->target_count; t++) {
					RK_CHECK_INT(y->targets[t].offset_count, x->targets[t].offset_count);
					for (size_t k = 0; k < x->targets[t].offset_count && k < y->targets[t].offset_count; k++) {
						RK_CHECK(y->targets[t].vertex_indices[k] == x->targets[t].vertex_indices[k]);
						RK_CHECK_NEAR(rk_blend_shape_position_offset(&y->targets[t], k).x, rk_blend_shape_position_offset(&x->targets[t], k).x, 1e-6);
						RK_CHECK_NEAR(rk_blend_shape_position_offset(&y->targets[t], k).y, rk_blend_shape_position_offset(&x->targets[t], k).y, 1e-6);
					}
				}
			}
		}
		if (na->skin && nb->skin) {
			const rk_skin_deformer *x = na->skin, *y = nb->skin;
			RK_CHECK_INT(y->joint_count, x->joint_count);
			RK_CHECK_INT(y->vertex_count, x->vertex_count);
			RK_CHECK(y->method == x->method);
			for (size_t j = 0; j < x->joint_count && j < y->joint_count; j++) {
				if (x->joints[j].node && y->joints[j].node) RK_CHECK_STR(y->joints[j].node->name, x->joints[j].node->name);
				RK_CHECK(rk_mat4_max_diff(x->joints[j].mesh_to_joint, y->joints[j].mesh_to_joint) <= 1e-12 * size + 1e-12);
			}
			for (size_t v = 0; v < x->vertex_count && v < y->vertex_count; v++) {
				RK_CHECK(y->weight_begin[v + 1] - y->weight_begin[v] == x->weight_begin[v + 1] - x->weight_begin[v]);
				/* the same joint weights (order may differ among equal weights) */
				double wa = 0, wb = 0;
				for (uint32_t k = x->weight_begin[v]; k < x->weight_begin[v + 1]; k++) wa += x->weights[k].weight * (x->weights[k].joint + 1);
				for (uint32_t k = y->weight_begin[v]; k < y->weight_begin[v + 1]; k++) wb += y->weights[k].weight * (y->weights[k].joint + 1);
				RK_CHECK_NEAR(wb, wa, 1e-9 * (wa > 1 ? wa : 1));
			}
		}
	}
	RK_CHECK_INT(b->materials.count, a->materials.count);
	for (size_t i = 0; i < a->materials.count && i < b->materials.count; i++) {
		const rk_material *x = &a->materials.data[i], *y = &b->materials.data[i];
		RK_CHECK_STR(y->name, x->name);
		RK_CHECK_NEAR(y->base_color.x, x->base_color.x, 1e-12);
		RK_CHECK_NEAR(y->base_color.w, x->base_color.w, 1e-12);
		RK_CHECK_NEAR(y->emissive.y, x->emissive.y, 1e-12);
		RK_CHECK((y->base_color_texture.texture == NULL) == (x->base_color_texture.texture == NULL));
	}
	RK_CHECK_INT(b->textures.count, a->textures.count);
	for (size_t i = 0; i < a->textures.count && i < b->textures.count; i++) {
		const rk_texture *x = &a->textures.data[i], *y = &b->textures.data[i];
		RK_CHECK_STR(y->name, x->name);
		RK_CHECK_INT(y->content_size, x->content_size);
		if (x->content && y->content && x->content_size == y->content_size) RK_CHECK(!memcmp(x->content, y->content, x->content_size));
	}
	RK_CHECK_INT(b->clips.count, a->clips.count);
	for (size_t c = 0; c < a->clips.count && c < b->clips.count; c++) {
		const rk_anim_clip *ca = &a->clips.data[c], *cb = &b->clips.data[c];
		RK_CHECK_STR(cb->name, ca->name);
		RK_CHECK_NEAR(cb->time_begin, ca->time_begin, 1e-10);
		RK_CHECK_NEAR(cb->time_end, ca->time_end, 1e-10);
		if (a->settings.format == RK_FORMAT_FBX) check_curves_exact(rk_t_, ca, cb);
		double dur = ca->time_end - ca->time_begin, worst = 0.0;
		for (int k = 0; k <= 24; k++) {
			double d = pose_diff(a, ca, b, cb, ca->time_begin + dur * k / 24.0 + (k % 3) * 1e-3);
			if (d > worst) worst = d;
		}
		/* float key values: 1e-6 of the scene's size; rotations 1e-5 rad */
		if (!(worst <= 2e-5 * size)) fprintf(stderr, "clip %s: pose differs by %g (size %g)\n", ca->name, worst, size);
		RK_CHECK(worst <= 2e-5 * size);
	}
}

static void round_trip(rk_test_state *rk_t_, const rk_scene *s, const char *what)
{
	rk_error err;
	const rk_fbx_write_opts variants[3] = { { 0 }, { .version = 7500, .no_compression = true }, { .ascii = true } };
	for (int v = 0; v < 3; v++) {
		size_t size = 0;
		rk_fbx_write_stats st;
		rk_fbx_write_opts o = variants[v];
		o.stats = &st;
		if (v == 2 && s->textures.count) continue;   /* ASCII references textures only */
		rk_scene *b = write_read(s, &o, &err, &size);
		if (!b) fprintf(stderr, "%s variant %d: %s\n", what, v, err.message);
		RK_REQUIRE(b != NULL);
		RK_CHECK(b->settings.format == RK_FORMAT_FBX);
		RK_CHECK_INT(b->settings.fbx_version, v == 1 ? 7500 : 7400);
		RK_CHECK(b->settings.ascii == (v == 2));
		RK_CHECK_INT(st.size, size);
		RK_CHECK_INT(b->warnings.count, 0);
		check_same(rk_t_, s, b);
		rk_scene_free(b);
	}
}

RK_TEST(demo_characters)
{
	rk_error err;
	for (int k = 0; k < RK_DEMO_KIND_COUNT_; k++) {
		rk_scene *s = rk_demo_scene((rk_demo_kind)k, NULL, &err);
		RK_REQUIRE(s != NULL);
		round_trip(rk_t_, s, "demo");
		rk_scene_free(s);
	}
}

RK_TEST(fixtures)
{
	static const char *const files[] = { "rig_7400.fbx", "rig_ascii.fbx", "rig.glb", "rig.gltf", "humanoid_bind.glb" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024];
		snprintf(path, sizeof(path), FIXTURES "%s", files[i]);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		RK_REQUIRE(s != NULL);
		round_trip(rk_t_, s, files[i]);
		rk_scene_free(s);
	}
}

RK_TEST(shared_assets)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found");
	static const char *const files[] = { "ybot.fbx", "ybot@kick.fbx", "Xbot.glb", "Soldier.glb", "Flamingo.glb" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/assets/%s", shared, files[i]);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		RK_REQUIRE(s != NULL);
		rk_scene *b = write_read(s, NULL, &err, NULL);
		RK_REQUIRE(b != NULL);
		check_same(rk_t_, s, b);
		rk_scene_free(b);
		rk_scene_free(s);
	}
}

/* ---- gimbal-critical rotations ------------------------------------------------- */

/* A clip of `keys` LINEAR quaternion keys on node n: the middle angle of
 * `order` sweeps through +90 and -90 degrees (key exactly at the lock), the
 * others turn several times around. */
static void gimbal_clip(rk_anim_track *tr, rk_anim_layer *layer, rk_anim_clip *clip, rk_node *n, rk_rotation_order order,
	double *times, double *values, size_t keys)
{
	for (size_t i = 0; i < keys; i++) {
		double u = (double)i / (double)(keys - 1);
		times[i] = u * 2.0;
		double mid = 180.0 * sin(u * RK_PI * 2.0) * (i % 7 == 3 ? 0.5 : 1.0);
		if (i == keys / 4) mid = 90.0;
		rk_vec3 e = { 0, 0, 0 };
		const char *ax = order == RK_ROTATION_XYZ ? "XYZ" : order == RK_ROTATION_ZXY ? "ZXY" : order == RK_ROTATION_YZX ? "YZX" : "XZY";
		double first = 400.0 * u, last = -250.0 * u + 30.0 * sin(9 * u);
		double *c[3];
		for (int k = 0; k < 3; k++) c[k] = ax[k] == 'X' ? &e.x : ax[k] == 'Y' ? &e.y : &e.z;
		*c[0] = first;
		*c[1] = mid;
		*c[2] = last;
		rk_quat q = rk_quat_from_euler_deg(e, order);
		if (i > 0) {
			double dot = q.x * values[(i - 1) * 4] + q.y * values[(i - 1) * 4 + 1] + q.z * values[(i - 1) * 4 + 2] + q.w * values[(i - 1) * 4 + 3];
			if (dot < 0) q = (rk_quat){ -q.x, -q.y, -q.z, -q.w };
		}
		values[i * 4] = q.x;
		values[i * 4 + 1] = q.y;
		values[i * 4 + 2] = q.z;
		values[i * 4 + 3] = q.w;
	}
	memset(tr, 0, sizeof(*tr));
	tr->node = n;
	tr->target = RK_TARGET_ROTATION_QUAT;
	tr->property = "";
	tr->key_count = keys;
	tr->times = times;
	tr->values_f64 = values;
	tr->components = 4;
	tr->interpolation = RK_INTERP_LINEAR;
	memset(layer, 0, sizeof(*layer));
	layer->name = "Base";
	layer->weight = 1.0;
	layer->track_count = 1;
	layer->tracks = tr;
	memset(clip, 0, sizeof(*clip));
	clip->name = "gimbal";
	clip->time_begin = 0.0;
	clip->time_end = 2.0;
	clip->layer_count = 1;
	clip->layers = layer;
}

static double quat_dist(rk_quat a, rk_quat b)
{
	rk_quat d = rk_quat_mul(rk_quat_conjugate(a), b);
	return 2.0 * atan2(sqrt(d.x * d.x + d.y * d.y + d.z * d.z), fabs(d.w));
}

RK_TEST(gimbal_euler)
{
	rk_error err;
	rk_scene *s = rk_load_file(FIXTURES "rig_7400.fbx", NULL, &err);
	RK_REQUIRE(s != NULL);
	rk_node *nodes = (rk_node *)malloc(s->nodes.count * sizeof(rk_node));
	RK_REQUIRE(nodes != NULL);
	static const rk_rotation_order orders[4] = { RK_ROTATION_XYZ, RK_ROTATION_ZXY, RK_ROTATION_YZX, RK_ROTATION_XZY };
	enum { KEYS = 61 };
	double times[KEYS], values[KEYS * 4];
	for (int oi = 0; oi < 4; oi++) {
		memcpy(nodes, s->nodes.data, s->nodes.count * sizeof(rk_node));
		rk_scene t = *s;
		t.nodes.data = nodes;
		rk_node *n = &nodes[s->nodes.count - 1];
		n->props.rotation_order = orders[oi];
		n->props.rotation_active = true;
		n->props.pre_rotation = (rk_vec3){ 10, 20, 30 };
		rk_anim_track tr;
		rk_anim_layer layer;
		rk_anim_clip clip;
		gimbal_clip(&tr, &layer, &clip, n, orders[oi], times, values, KEYS);
		t.clips = (rk_clip_list){ &clip, 1 };
		rk_fbx_write_stats st;
		rk_fbx_write_opts o = { .stats = &st };
		rk_scene *b = write_read(&t, &o, &err, NULL);
		RK_REQUIRE(b != NULL);
		RK_REQUIRE(b->clips.count == 1);
		/* the file for the FBX SDK (tests/test_fbx_write_oracle.sh) */
		char path[1024];
		snprintf(path, sizeof(path), "%s/fbx_write_gimbal_%d.fbx", RK_BINARY_DIR, (int)orders[oi]);
		RK_CHECK(rk_fbx_write(&t, path, NULL, &err));
		const rk_node *bn = rk_scene_find_node(b, n->name);
		RK_REQUIRE(bn && bn->props.rotation_order == orders[oi]);
		const rk_anim_track *bt = find_track(&b->clips.data[0].layers[0], n->name, "Lcl Rotation", RK_TARGET_ROTATION_EULER);
		RK_REQUIRE(bt != NULL);
		double worst = 0.0, worst_t = 0.0;
		for (int k = 0; k <= 2000; k++) {
			double time = k / 1000.0;
			double v[4];
			rk_anim_track_eval(&tr, time, false, v, 4);
			rk_quat want = rk_quat_normalize((rk_quat){ v[0], v[1], v[2], v[3] });
			double e[4];
			rk_anim_track_eval(bt, time, false, e, 4);
			rk_quat got = rk_quat_from_euler_deg((rk_vec3){ e[0], e[1], e[2] }, orders[oi]);
			double d = quat_dist(want, got);
			if (d > worst) {
				worst = d;
				worst_t = time;
			}
		}
		if (worst > 1e-5) fprintf(stderr, "order %d: %g rad at t = %g (%zu keys)\n", (int)orders[oi], worst, worst_t, st.euler_key_count);
		RK_CHECK(worst <= 1e-5);
		fprintf(stderr, "order %d: %zu Euler keys, worst %.3g rad at %g s (checked %.3g, %zu lock crossings)\n",
			(int)orders[oi], st.euler_key_count, worst, worst_t, st.max_euler_error, st.euler_jump_count);
		RK_CHECK(st.max_euler_error <= 4e-6);
		rk_scene_free(b);
	}
	free(nodes);
	rk_scene_free(s);
}

/* ---- randomized scenes ----------------------------------------------------------- */

static uint64_t rng_state;
static double rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double rnd_in(double a, double b) { return a + (b - a) * rnd(); }
static rk_vec3 rnd_vec(double r) { return (rk_vec3){ rnd_in(-r, r), rnd_in(-r, r), rnd_in(-r, r) }; }

RK_TEST(randomized_round_trip)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s != NULL);
	size_t nn = s->nodes.count;
	rk_node *nodes = (rk_node *)malloc(nn * sizeof(rk_node));
	enum { KEYS = 12, TRACKS = 8 };
	rk_anim_curve curves[TRACKS][3];
	double kt[TRACKS][3][KEYS], kv[TRACKS][3][KEYS], rs[TRACKS][3][KEYS], ls[TRACKS][3][KEYS], rw[TRACKS][3][KEYS];
	rk_interp ki[TRACKS][3][KEYS];
	double qt[KEYS], qv[KEYS * 4];
	rk_anim_track tracks[TRACKS + 1];
	RK_REQUIRE(nodes != NULL);
	for (int iter = 0; iter < 40; iter++) {
		rng_state = 0x9e3779b97f4a7c15ull * (uint64_t)(iter + 1);
		memcpy(nodes, s->nodes.data, nn * sizeof(rk_node));
		for (size_t i = 1; i < nn; i++) nodes[i].parent = &nodes[s->nodes.data[i].parent->index];
		for (size_t i = 1; i < nn; i++) {
			rk_node *n = &nodes[i];
			rk_transform_props *p = &n->props;
			n->has_fbx_props = true;
			*p = rk_transform_props_default();
			p->translation = rnd_vec(50);
			p->rotation = rnd_vec(180);
			p->scaling = (rk_vec3){ rnd_in(0.5, 2), rnd_in(0.5, 2), rnd_in(0.5, 2) };
			p->rotation_order = (rk_rotation_order)(rng_state >> 40) % 6;
			p->rotation_active = rnd() < 0.8;
			if (rnd() < 0.5) {
				p->rotation_offset = rnd_vec(5);
				p->rotation_pivot = rnd_vec(5);
				p->scaling_offset = rnd_vec(5);
				p->scaling_pivot = rnd_vec(5);
				p->pre_rotation = rnd_vec(90);
				p->post_rotation = rnd_vec(90);
			}
			p->inherit_mode = (rk_inherit_mode)((rng_state >> 33) % 3);
			if (rnd() < 0.2) p->geometric_translation = rnd_vec(3);
		}
		rk_scene t = *s;
		t.nodes.data = nodes;
		t.settings.format = RK_FORMAT_FBX;   /* curve keys are compared exactly */
		size_t nt = 0;
		for (int k = 0; k < TRACKS; k++) {
			rk_anim_track *tr = &tracks[nt++];
			memset(tr, 0, sizeof(*tr));
			tr->node = &nodes[2 + (size_t)k * 5 % (nn - 3)];   /* distinct nodes */
			tr->target = k % 3 == 0 ? RK_TARGET_TRANSLATION : k % 3 == 1 ? RK_TARGET_ROTATION_EULER : RK_TARGET_SCALE;
			tr->property = k % 3 == 0 ? "Lcl Translation" : k % 3 == 1 ? "Lcl Rotation" : "Lcl Scaling";
			for (int c = 0; c < 3; c++) {
				double tt = 0.0;
				for (int j = 0; j < KEYS; j++) {
					tt += rnd_in(0.01, 0.2);
					kt[k][c][j] = (double)llround(tt * TICKS) / TICKS;
					kv[k][c][j] = (float)(k % 3 == 2 ? rnd_in(0.5, 2) : rnd_in(-100, 100));
					ki[k][c][j] = (rk_interp)((rng_state >> 20) % 4);
					rs[k][c][j] = (float)rnd_in(-50, 50);
					ls[k][c][j] = (float)rnd_in(-50, 50);
					rw[k][c][j] = rnd() < 0.5 ? 1.0 / 3.0 : round(rnd_in(0.05, 0.6) * 9999.0) / 9999.0;
				}
				rk_anim_curve *cv = &curves[k][c];
				memset(cv, 0, sizeof(*cv));
				cv->key_count = KEYS;
				cv->times = kt[k][c];
				cv->values = kv[k][c];
				cv->interp = ki[k][c];
				cv->right_slope = rs[k][c];
				cv->left_slope = ls[k][c];
				cv->right_weight = rw[k][c];
				cv->left_weight = rw[k][c];
				cv->pre_repeat_count = cv->post_repeat_count = -1;
				tr->curves[c] = cv;
			}
		}
		/* one quaternion track */
		{
			rk_anim_track *tr = &tracks[nt++];
			memset(tr, 0, sizeof(*tr));
			for (int j = 0; j < KEYS; j++) {
				qt[j] = j * 0.1;
				rk_quat q = rk_quat_normalize((rk_quat){ rnd_in(-1, 1), rnd_in(-1, 1), rnd_in(-1, 1), rnd_in(-1, 1) });
				memcpy(&qv[j * 4], &q, sizeof(q));
			}
			tr->node = &nodes[nn - 3];
			tr->target = RK_TARGET_ROTATION_QUAT;
			tr->property = "";
			tr->key_count = KEYS;
			tr->times = qt;
			tr->values_f64 = qv;
			tr->components = 4;
			tr->interpolation = RK_INTERP_LINEAR;
		}
		rk_anim_layer layer = { .name = "L", .weight = 1.0, .track_count = nt, .tracks = tracks };
		rk_anim_clip clip = { .name = "random", .time_begin = 0.0, .time_end = 2.5, .layer_count = 1, .layers = &layer };
		t.clips = (rk_clip_list){ &clip, 1 };
		rk_scene *b = write_read(&t, NULL, &err, NULL);
		if (!b) fprintf(stderr, "iteration %d: %s\n", iter, err.message);
		RK_REQUIRE(b != NULL);
		RK_REQUIRE(b->clips.count == 1);
		check_curves_exact(rk_t_, &clip, &b->clips.data[0]);
		double worst = 0.0;
		for (int k = 0; k < 40; k++) {
			double d = pose_diff(&t, &clip, b, &b->clips.data[0], rnd_in(-0.2, 2.7));
			if (d > worst) worst = d;
		}
		/* world matrices of chains with scales up to 2 and translations up to 50 */
		if (!(worst <= 1e-3)) fprintf(stderr, "iteration %d: pose differs by %g\n", iter, worst);
		RK_CHECK(worst <= 1e-3);
		rk_scene_free(b);
	}
	free(nodes);
	rk_scene_free(s);
}

/* A load conversion (held by the synthetic root) becomes a "RootNode" model;
 * the read-back world matrices and settings are the converted scene's. */
RK_TEST(load_conversion_root)
{
	rk_error err;
	rk_load_opts lo = { 0 };
	lo.target_axes = RK_AXES_RIGHT_HANDED_Z_UP;
	lo.target_unit_meters = 0.01;
	rk_scene *s = rk_load_file(FIXTURES "rig.glb", &lo, &err);
	RK_REQUIRE(s != NULL);
	rk_scene *b = write_read(s, NULL, &err, NULL);
	RK_REQUIRE(b != NULL);
	RK_CHECK_INT(b->nodes.count, s->nodes.count + 1);
	RK_CHECK(rk_scene_find_node(b, "RootNode") != NULL);
	RK_CHECK(rk_axes_equal(b->settings.axes, RK_AXES_RIGHT_HANDED_Z_UP));
	RK_CHECK_NEAR(b->settings.unit_meters, 0.01, 1e-15);
	double size = scene_size(s);
	for (size_t i = 1; i < s->nodes.count; i++) {
		const rk_node *n = rk_scene_find_node(b, s->nodes.data[i].name);
		RK_REQUIRE(n != NULL);
		RK_CHECK(rk_mat4_max_diff(n->node_to_world, s->nodes.data[i].node_to_world) <= 1e-9 * size);
	}
	const rk_anim_clip *cb = &b->clips.data[0];
	for (int k = 0; k <= 10; k++) {
		double t = s->clips.data[0].time_begin + (s->clips.data[0].time_end - s->clips.data[0].time_begin) * k / 10.0;
		RK_CHECK(pose_diff(s, &s->clips.data[0], b, cb, t) <= 1e-6 * size);
	}
	rk_scene_free(b);
	rk_scene_free(s);
}

/* ---- structure, errors ------------------------------------------------------------ */

RK_TEST(binary_layout)
{
	rk_error err;
	rk_scene *s = rk_load_file(FIXTURES "rig.glb", NULL, &err);
	RK_REQUIRE(s != NULL);
	for (int v = 0; v < 2; v++) {
		void *data;
		size_t size;
		rk_fbx_write_opts o = { .version = v ? 7500 : 7400 };
		RK_REQUIRE(rk_fbx_write_memory(s, &o, &data, &size, &err));
		const unsigned char *p = (const unsigned char *)data;
		RK_CHECK(size > 200 && !memcmp(p, "Kaydara FBX Binary  \0\x1a\0", 23));
		uint32_t ver = (uint32_t)p[23] | (uint32_t)p[24] << 8 | (uint32_t)p[25] << 16 | (uint32_t)p[26] << 24;
		RK_CHECK_INT(ver, v ? 7500 : 7400);
		static const unsigned char magic[16] = { 0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
			0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b };
		RK_CHECK(!memcmp(p + size - 16, magic, 16));
		/* the footer's version, 136 bytes before the end */
		const unsigned char *fv = p + size - 16 - 120 - 4;
		RK_CHECK_INT((uint32_t)fv[0] | (uint32_t)fv[1] << 8, v ? 7500 : 7400);
		rk_fbx_memory_free(data);
	}
	rk_scene_free(s);
}

RK_TEST(bad_arguments_and_outputs)
{
	rk_error err;
	rk_scene *s = rk_load_file(FIXTURES "rig.glb", NULL, &err);
	RK_REQUIRE(s != NULL);
	void *data = (void *)1;
	size_t size = 1;
	RK_CHECK(!rk_fbx_write_memory(NULL, NULL, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(data == NULL && size == 0);
	RK_CHECK(!rk_fbx_write(s, NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_fbx_write_memory(s, &(rk_fbx_write_opts){ .version = 7300 }, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "7300") != NULL);
	RK_CHECK(!rk_fbx_write_memory(s, &(rk_fbx_write_opts){ .version = 7500, .ascii = true }, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_fbx_write_memory(s, &(rk_fbx_write_opts){ .memory_limit = 4096 }, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	/* atomic: an unwritable destination fails and leaves nothing behind */
	RK_CHECK(!rk_fbx_write(s, "/nonexistent-rigkit-dir/out.fbx", NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_OUTPUT);
	char path[1024];
	snprintf(path, sizeof(path), "%s/test_fbx_write_out.fbx", RK_BINARY_DIR);
	unlink(path);
	RK_CHECK(rk_fbx_write(s, path, NULL, &err));
	rk_scene *b = rk_load_file(path, NULL, &err);
	RK_CHECK(b != NULL);
	rk_scene_free(b);
	unlink(path);
	/* what FBX cannot hold is named in a warning */
	rk_scene t = *s;
	rk_node *nodes = (rk_node *)malloc(s->nodes.count * sizeof(rk_node));
	RK_REQUIRE(nodes != NULL);
	memcpy(nodes, s->nodes.data, s->nodes.count * sizeof(rk_node));
	nodes[1].kind = RK_NODE_CAMERA;
	t.nodes.data = nodes;
	rk_fbx_write_stats st;
	RK_CHECK(rk_fbx_write_memory(&t, &(rk_fbx_write_opts){ .stats = &st }, &data, &size, &err));
	RK_CHECK(st.warning_count >= 1);
	rk_fbx_memory_free(data);
	free(nodes);
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(demo_characters),
	RK_TEST_ENTRY(fixtures),
	RK_TEST_ENTRY(shared_assets),
	RK_TEST_ENTRY(gimbal_euler),
	RK_TEST_ENTRY(randomized_round_trip),
	RK_TEST_ENTRY(load_conversion_root),
	RK_TEST_ENTRY(binary_layout),
	RK_TEST_ENTRY(bad_arguments_and_outputs))
