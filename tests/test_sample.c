/*
 * tests/test_sample.c - the built-in sample characters (rigkit/demo.h).
 *
 * Expectations come from the conventions the samples imitate, written here
 * independently of the generator: Mixamo's and Ready Player Me's joint names
 * and hierarchy (as found in Mixamo downloads and readyplayer.me.glb), T-pose
 * versus A-pose geometry, body proportions, and what a walk cycle must do
 * physically (planted stance feet, constant root speed, two hip bobs per
 * cycle, arms opposite to legs, a seamless loop). Poses are evaluated with
 * the anim module; files go through the glTF writer and reader and the CLI.
 */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/export.h>
#include <rigkit/rigkit.h>
#include <rigkit/demo.h>

#include <stb/stb_image.h>

#include <stdint.h>
#include <sys/wait.h>

#define PI 3.14159265358979323846

/* ---- the naming conventions -------------------------------------------------- */

/* Mixamo / RPM humanoid joints (without the "mixamorig:" prefix) and each
 * one's parent, in a depth-first order. */
static const char *const k_joints[][2] = {
	{ "Hips", NULL },
	{ "Spine", "Hips" }, { "Spine1", "Spine" }, { "Spine2", "Spine1" }, { "Neck", "Spine2" }, { "Head", "Neck" },
	{ "HeadTop_End", "Head" }, { "LeftEye", "Head" }, { "RightEye", "Head" },
	{ "LeftShoulder", "Spine2" }, { "LeftArm", "LeftShoulder" }, { "LeftForeArm", "LeftArm" }, { "LeftHand", "LeftForeArm" },
	{ "LeftHandThumb1", "LeftHand" }, { "LeftHandThumb2", "LeftHandThumb1" }, { "LeftHandThumb3", "LeftHandThumb2" }, { "LeftHandThumb4", "LeftHandThumb3" },
	{ "LeftHandIndex1", "LeftHand" }, { "LeftHandIndex2", "LeftHandIndex1" }, { "LeftHandIndex3", "LeftHandIndex2" }, { "LeftHandIndex4", "LeftHandIndex3" },
	{ "LeftHandMiddle1", "LeftHand" }, { "LeftHandMiddle2", "LeftHandMiddle1" }, { "LeftHandMiddle3", "LeftHandMiddle2" }, { "LeftHandMiddle4", "LeftHandMiddle3" },
	{ "LeftHandRing1", "LeftHand" }, { "LeftHandRing2", "LeftHandRing1" }, { "LeftHandRing3", "LeftHandRing2" }, { "LeftHandRing4", "LeftHandRing3" },
	{ "LeftHandPinky1", "LeftHand" }, { "LeftHandPinky2", "LeftHandPinky1" }, { "LeftHandPinky3", "LeftHandPinky2" }, { "LeftHandPinky4", "LeftHandPinky3" },
	{ "RightShoulder", "Spine2" }, { "RightArm", "RightShoulder" }, { "RightForeArm", "RightArm" }, { "RightHand", "RightForeArm" },
	{ "RightHandThumb1", "RightHand" }, { "RightHandThumb2", "RightHandThumb1" }, { "RightHandThumb3", "RightHandThumb2" }, { "RightHandThumb4", "RightHandThumb3" },
	{ "RightHandIndex1", "RightHand" }, { "RightHandIndex2", "RightHandIndex1" }, { "RightHandIndex3", "RightHandIndex2" }, { "RightHandIndex4", "RightHandIndex3" },
	{ "RightHandMiddle1", "RightHand" }, { "RightHandMiddle2", "RightHandMiddle1" }, { "RightHandMiddle3", "RightHandMiddle2" }, { "RightHandMiddle4", "RightHandMiddle3" },
	{ "RightHandRing1", "RightHand" }, { "RightHandRing2", "RightHandRing1" }, { "RightHandRing3", "RightHandRing2" }, { "RightHandRing4", "RightHandRing3" },
	{ "RightHandPinky1", "RightHand" }, { "RightHandPinky2", "RightHandPinky1" }, { "RightHandPinky3", "RightHandPinky2" }, { "RightHandPinky4", "RightHandPinky3" },
	{ "LeftUpLeg", "Hips" }, { "LeftLeg", "LeftUpLeg" }, { "LeftFoot", "LeftLeg" }, { "LeftToeBase", "LeftFoot" }, { "LeftToe_End", "LeftToeBase" },
	{ "RightUpLeg", "Hips" }, { "RightLeg", "RightUpLeg" }, { "RightFoot", "RightLeg" }, { "RightToeBase", "RightFoot" }, { "RightToe_End", "RightToeBase" },
};
#define JOINTS ((int)(sizeof(k_joints) / sizeof(k_joints[0])))

/* Mixamo rolls: the joint's local +Y points at this child. */
static const char *const k_y_child[][2] = {
	{ "Hips", "Spine" }, { "Spine", "Spine1" }, { "Spine1", "Spine2" }, { "Spine2", "Neck" }, { "Neck", "Head" },
	{ "Head", "HeadTop_End" }, { "LeftShoulder", "LeftArm" }, { "LeftArm", "LeftForeArm" }, { "LeftForeArm", "LeftHand" },
	{ "LeftHand", "LeftHandMiddle1" }, { "LeftHandIndex1", "LeftHandIndex2" }, { "LeftHandThumb2", "LeftHandThumb3" },
	{ "RightArm", "RightForeArm" }, { "RightHand", "RightHandMiddle1" }, { "LeftUpLeg", "LeftLeg" }, { "LeftLeg", "LeftFoot" },
	{ "LeftFoot", "LeftToeBase" }, { "LeftToeBase", "LeftToe_End" }, { "RightLeg", "RightFoot" },
};

/* ---- helpers ------------------------------------------------------------------- */

static const char *jname(rk_demo_kind kind, const char *base, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", kind == RK_DEMO_MIXAMO_SOURCE ? "mixamorig:" : "", base);
	return buf;
}

static rk_node *jnode(const rk_scene *s, rk_demo_kind kind, const char *base)
{
	char buf[128];
	return rk_scene_find_node(s, jname(kind, base, buf, sizeof(buf)));
}

static rk_vec3 wpos(const rk_node *n) { return rk_mat4_get_translation(n->node_to_world); }

static rk_vec3 rest(const rk_scene *s, rk_demo_kind kind, const char *base)
{
	rk_node *n = jnode(s, kind, base);
	return n ? wpos(n) : (rk_vec3){ NAN, NAN, NAN };
}

static double dist(rk_vec3 a, rk_vec3 b) { return rk_vec3_length(rk_vec3_sub(a, b)); }

/* Pose evaluation with the anim module. */
typedef struct evaluator {
	const rk_scene *scene;
	rk_pose pose;
	void *mem;
} evaluator;

static bool ev_init(evaluator *e, const rk_scene *s)
{
	e->scene = s;
	size_t bytes = rk_pose_memory_size(s);
	e->mem = malloc(bytes);
	return e->mem && rk_pose_init(&e->pose, s, e->mem, bytes);
}

static bool ev_at(evaluator *e, const rk_anim_clip *clip, double t)
{
	rk_pose_eval_job job = { 0 };
	job.scene = e->scene;
	job.clip = clip;
	job.time = t;
	job.pose = &e->pose;
	return rk_pose_eval_run(&job);
}

static rk_vec3 ev_pos(const evaluator *e, const rk_node *n) { return rk_mat4_get_translation(e->pose.node_to_world[n->index]); }

static void ev_free(evaluator *e) { free(e->mem); }

static double correlation(const double *a, const double *b, int n)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
	for (int i = 0; i < n; i++) { ma += a[i]; mb += b[i]; }
	ma /= n;
	mb /= n;
	for (int i = 0; i < n; i++) {
		sab += (a[i] - ma) * (b[i] - mb);
		saa += (a[i] - ma) * (a[i] - ma);
		sbb += (b[i] - mb) * (b[i] - mb);
	}
	return sab / sqrt(saa * sbb);
}

/* ---- tests ------------------------------------------------------------------------ */

RK_TEST(sample_bad_inputs)
{
	rk_error err = { 0 };
	RK_CHECK(rk_demo_scene((rk_demo_kind)7, NULL, &err) == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(rk_demo_scene((rk_demo_kind)-1, NULL, NULL) == NULL);
	RK_CHECK_STR(rk_demo_kind_name(RK_DEMO_MIXAMO_SOURCE), "mixamo_source");
	RK_CHECK_STR(rk_demo_kind_name(RK_DEMO_AVATAR), "avatar");
	RK_CHECK_STR(rk_demo_kind_name((rk_demo_kind)9), "unknown");
	rk_scene_free(NULL);
}

RK_TEST(sample_names_and_hierarchy)
{
	for (int k = 0; k < 2; k++) {
		rk_demo_kind kind = (rk_demo_kind)k;
		rk_error err = { 0 };
		rk_scene *s = rk_demo_scene(kind, NULL, &err);
		RK_REQUIRE(s);
		size_t joints = 0;
		for (size_t i = 0; i < s->nodes.count; i++) joints += s->nodes.data[i].kind == RK_NODE_JOINT;
		RK_CHECK_INT(joints, JOINTS);
		RK_CHECK_INT(s->nodes.data[0].kind, RK_NODE_ROOT);
		rk_node *arm = rk_scene_find_node(s, "Armature");
		RK_REQUIRE(arm);
		RK_CHECK(arm->parent == s->root);
		for (int j = 0; j < JOINTS; j++) {
			rk_node *n = jnode(s, kind, k_joints[j][0]);
			if (!n) {
				fprintf(stderr, "missing joint %s (kind %d)\n", k_joints[j][0], k);
				RK_CHECK(n != NULL);
				continue;
			}
			RK_CHECK_INT(n->kind, RK_NODE_JOINT);
			rk_node *p = k_joints[j][1] ? jnode(s, kind, k_joints[j][1]) : arm;
			RK_CHECK(n->parent == p);
		}
		/* every joint is one of the convention's names */
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (n->kind != RK_NODE_JOINT) continue;
			bool known = false;
			for (int j = 0; j < JOINTS && !known; j++) {
				char buf[128];
				known = strcmp(n->name, jname(kind, k_joints[j][0], buf, sizeof(buf))) == 0;
			}
			RK_CHECK(known);
			if (kind == RK_DEMO_AVATAR) RK_CHECK(strchr(n->name, ':') == NULL);
		}
		/* depth-first order, parents before children */
		for (size_t i = 1; i < s->nodes.count; i++) RK_CHECK(s->nodes.data[i].parent->index < i);
		RK_CHECK(s->meshes.count == 1 && s->skins.count == 1);
		RK_CHECK_INT(s->skins.data[0].joint_count, JOINTS);
		RK_CHECK_INT(s->clips.count, kind == RK_DEMO_MIXAMO_SOURCE ? 2 : 0);
		RK_CHECK(rk_axes_equal(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP));
		rk_scene_free(s);
	}
}

RK_TEST(sample_source_rest_pose)
{
	const rk_demo_kind K = RK_DEMO_MIXAMO_SOURCE;
	rk_scene *s = rk_demo_scene(K, NULL, NULL);
	RK_REQUIRE(s);
	/* centimetres under a 0.01 Armature scale */
	rk_node *arm = rk_scene_find_node(s, "Armature");
	RK_CHECK_NEAR(arm->local.scale.x, 0.01, 1e-12);
	RK_CHECK_NEAR(arm->local.scale.y, 0.01, 1e-12);
	rk_node *hips = jnode(s, K, "Hips");
	RK_CHECK(hips->local.translation.y > 80.0 && hips->local.translation.y < 120.0);
	/* T-pose: hands level with the shoulders, arms along +-X */
	const char *sides[2] = { "Left", "Right" };
	for (int side = 0; side < 2; side++) {
		char a[64], sh[64], h[64];
		snprintf(a, sizeof(a), "%sArm", sides[side]);
		snprintf(sh, sizeof(sh), "%sShoulder", sides[side]);
		snprintf(h, sizeof(h), "%sHand", sides[side]);
		rk_vec3 pa = rest(s, K, a), ps = rest(s, K, sh), ph = rest(s, K, h);
		RK_CHECK_NEAR(ph.y, pa.y, 0.01);
		RK_CHECK_NEAR(ph.y, ps.y, 0.01);
		double sign = side == 0 ? 1.0 : -1.0;
		RK_CHECK(sign * (ph.x - pa.x) > 0.4);
		RK_CHECK_NEAR(ph.z, pa.z, 0.01);
	}
	/* facing +Z: toes and eyes in front */
	RK_CHECK(rest(s, K, "LeftToe_End").z > rest(s, K, "LeftFoot").z + 0.1);
	RK_CHECK(rest(s, K, "LeftEye").z > rest(s, K, "Head").z + 0.03);
	RK_CHECK(rest(s, K, "LeftHand").x > 0.0); /* character's left is +X when it faces +Z */
	/* Mixamo rolls: local +Y points down the bone */
	for (size_t i = 0; i < sizeof(k_y_child) / sizeof(k_y_child[0]); i++) {
		rk_node *c = jnode(s, K, k_y_child[i][1]);
		RK_REQUIRE(c);
		rk_vec3 t = rk_vec3_normalize(c->local.translation);
		if (!(fabs(t.x) < 1e-9 && fabs(t.z) < 1e-9 && t.y > 0.999999)) {
			fprintf(stderr, "%s -> %s local translation (%g %g %g)\n", k_y_child[i][0], k_y_child[i][1], t.x, t.y, t.z);
			RK_CHECK(!"child not on +Y");
		}
	}
	/* non-identity rest rotations, as in Mixamo rigs (Hips included) */
	int rotated = 0;
	for (int j = 0; j < JOINTS; j++) {
		rk_node *n = jnode(s, K, k_joints[j][0]);
		if (rk_quat_angle_between(n->local.rotation, RK_QUAT_IDENTITY) > 1.0 * PI / 180.0) rotated++;
	}
	RK_CHECK(rotated >= 20);
	RK_CHECK(rk_quat_angle_between(hips->local.rotation, RK_QUAT_IDENTITY) > 1.0 * PI / 180.0);
	rk_scene_free(s);
}

RK_TEST(sample_avatar_rest_pose)
{
	const rk_demo_kind K = RK_DEMO_AVATAR;
	rk_scene *s = rk_demo_scene(K, NULL, NULL);
	RK_REQUIRE(s);
	rk_node *arm = rk_scene_find_node(s, "Armature");
	RK_CHECK_NEAR(arm->local.scale.x, 1.0, 1e-12);
	rk_node *hips = jnode(s, K, "Hips");
	RK_CHECK(hips->local.translation.y > 0.6 && hips->local.translation.y < 1.2); /* metres */
	const char *sides[2] = { "Left", "Right" };
	for (int side = 0; side < 2; side++) {
		char a[64], h[64];
		snprintf(a, sizeof(a), "%sArm", sides[side]);
		snprintf(h, sizeof(h), "%sHand", sides[side]);
		rk_vec3 d = rk_vec3_sub(rest(s, K, h), rest(s, K, a));
		double horiz = sqrt(d.x * d.x + d.z * d.z);
		double deg = atan2(-d.y, horiz) * 180.0 / PI;
		RK_CHECK(deg >= 35.0 && deg <= 55.0);
		RK_CHECK((side == 0 ? d.x : -d.x) > 0.3);
	}
	/* RPM-like rolls differ from Mixamo's: identity local rotations */
	for (int j = 0; j < JOINTS; j++) {
		rk_node *n = jnode(s, K, k_joints[j][0]);
		RK_CHECK(rk_quat_angle_between(n->local.rotation, RK_QUAT_IDENTITY) < 1e-9);
	}
	RK_CHECK(rest(s, K, "LeftToe_End").z > rest(s, K, "LeftFoot").z + 0.1);
	RK_CHECK(rest(s, K, "LeftEye").z > rest(s, K, "Head").z + 0.03);
	rk_scene_free(s);
}

typedef struct proportions { double height, leg, arm, head; } proportions;

static proportions measure(const rk_scene *s, rk_demo_kind k)
{
	proportions p;
	p.height = rest(s, k, "HeadTop_End").y;
	p.leg = rest(s, k, "LeftUpLeg").y; /* hip joint height above the floor */
	p.arm = dist(rest(s, k, "LeftArm"), rest(s, k, "LeftForeArm")) + dist(rest(s, k, "LeftForeArm"), rest(s, k, "LeftHand"));
	p.head = rest(s, k, "HeadTop_End").y - rest(s, k, "Head").y;
	return p;
}

RK_TEST(sample_proportions)
{
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, NULL);
	rk_scene *av = rk_demo_scene(RK_DEMO_AVATAR, NULL, NULL);
	RK_REQUIRE(src && av);
	proportions a = measure(src, RK_DEMO_MIXAMO_SOURCE), b = measure(av, RK_DEMO_AVATAR);
	RK_CHECK(a.height > 1.6 && a.height < 2.0);
	RK_CHECK(b.height > 1.5 && b.height < 1.9);
	RK_CHECK(b.leg / b.height < a.leg / a.height);
	RK_CHECK(b.arm / b.height > a.arm / a.height);
	RK_CHECK(b.head / b.height > a.head / a.height);
	/* both stand on the floor: lowest skinned vertex near y = 0 */
	rk_scene *both[2] = { src, av };
	for (int k = 0; k < 2; k++) {
		const rk_scene *s = both[k];
		rk_node *body = rk_scene_find_node(s, "Body");
		RK_REQUIRE(body && body->mesh);
		rk_vec3 *p = (rk_vec3 *)malloc(body->mesh->vertex_count * sizeof(rk_vec3));
		RK_REQUIRE(p);
		RK_CHECK(rk_mesh_world_positions_eval(s, body, NULL, p));
		double miny = 1e9;
		for (size_t v = 0; v < body->mesh->vertex_count; v++) miny = fmin(miny, p[v].y);
		RK_CHECK(miny > -0.01 && miny < 0.015);
		free(p);
	}
	rk_scene_free(src);
	rk_scene_free(av);
}

RK_TEST(sample_skin_weights)
{
	for (int k = 0; k < 2; k++) {
		rk_scene *s = rk_demo_scene((rk_demo_kind)k, NULL, NULL);
		RK_REQUIRE(s);
		const rk_skin_deformer *skin = &s->skins.data[0];
		const rk_mesh *mesh = &s->meshes.data[0];
		RK_CHECK_INT(skin->vertex_count, mesh->vertex_count);
		RK_CHECK_INT(skin->weight_begin[0], 0);
		RK_CHECK_INT(skin->weight_begin[skin->vertex_count], skin->weight_count);
		size_t multi = 0, bad = 0;
		for (size_t v = 0; v < skin->vertex_count; v++) {
			uint32_t b = skin->weight_begin[v], e = skin->weight_begin[v + 1];
			if (e <= b || e - b > 4) { bad++; continue; }
			double sum = 0;
			for (uint32_t i = b; i < e; i++) {
				if (skin->weights[i].joint >= skin->joint_count || !(skin->weights[i].weight > 0.0f)) bad++;
				if (i > b && skin->weights[i].weight > skin->weights[i - 1].weight) bad++;
				sum += skin->weights[i].weight;
			}
			if (fabs(sum - 1.0) > 1e-5) bad++;
			multi += e - b > 1;
		}
		RK_CHECK_INT(bad, 0);
		RK_CHECK(multi > skin->vertex_count / 10); /* weights blend between joints */
		RK_CHECK(skin->max_weights_per_vertex >= 2 && skin->max_weights_per_vertex <= 4);
		/* every skin joint is a scene joint; no weights on end joints */
		for (size_t j = 0; j < skin->joint_count; j++) RK_CHECK(skin->joints[j].node && skin->joints[j].node->kind == RK_NODE_JOINT);
		for (size_t i = 0; i < skin->weight_count; i++) {
			const char *n = skin->joints[skin->weights[i].joint].node->name;
			if (strstr(n, "_End") || strstr(n, "Eye")) bad++;
		}
		RK_CHECK_INT(bad, 0);
		rk_scene_free(s);
	}
}

/* Closed, consistently wound (every directed edge appears once and its
 * reverse once), positive volume (faces point out), joints inside. */
static int cmp_edge(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

RK_TEST(sample_mesh_closed_and_encloses_joints)
{
	for (int k = 0; k < 2; k++) {
		rk_scene *s = rk_demo_scene((rk_demo_kind)k, NULL, NULL);
		RK_REQUIRE(s);
		rk_node *body = rk_scene_find_node(s, "Body");
		RK_REQUIRE(body && body->mesh && body->skin);
		const rk_mesh *m = body->mesh;
		rk_vec3 *p = (rk_vec3 *)malloc(m->vertex_count * sizeof(rk_vec3));
		uint64_t *edges = (uint64_t *)malloc(m->index_count * sizeof(uint64_t));
		RK_REQUIRE(p && edges);
		RK_CHECK(rk_mesh_world_positions_eval(s, body, NULL, p));
		/* at rest, skinning reproduces the bind positions */
		double maxd = 0;
		for (size_t v = 0; v < m->vertex_count; v++) maxd = fmax(maxd, dist(p[v], rk_mesh_position(m, v)));
		RK_CHECK(maxd < 1e-9);
		rk_vec3 lo = { 1e9, 1e9, 1e9 }, hi = { -1e9, -1e9, -1e9 };
		for (size_t v = 0; v < m->vertex_count; v++) {
			lo = (rk_vec3){ fmin(lo.x, p[v].x), fmin(lo.y, p[v].y), fmin(lo.z, p[v].z) };
			hi = (rk_vec3){ fmax(hi.x, p[v].x), fmax(hi.y, p[v].y), fmax(hi.z, p[v].z) };
		}
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (n->kind != RK_NODE_JOINT) continue;
			rk_vec3 q = wpos(n);
			bool inside = q.x >= lo.x && q.x <= hi.x && q.y >= lo.y && q.y <= hi.y && q.z >= lo.z && q.z <= hi.z;
			if (!inside) fprintf(stderr, "joint %s outside the mesh bounds\n", n->name);
			RK_CHECK(inside);
		}
		size_t ne = 0;
		double volume = 0;
		for (size_t f = 0; f < m->face_count; f++) {
			rk_face fc = m->faces[f];
			for (uint32_t c = 0; c < fc.index_count; c++) {
				uint32_t a = m->vertex_indices[fc.index_begin + c];
				uint32_t b = m->vertex_indices[fc.index_begin + (c + 1) % fc.index_count];
				edges[ne++] = ((uint64_t)a << 32) | b;
			}
			rk_vec3 a = rk_mesh_position(m, m->vertex_indices[fc.index_begin]);
			for (uint32_t c = 1; c + 1 < fc.index_count; c++) {
				rk_vec3 b = rk_mesh_position(m, m->vertex_indices[fc.index_begin + c]);
				rk_vec3 d = rk_mesh_position(m, m->vertex_indices[fc.index_begin + c + 1]);
				volume += rk_vec3_dot(a, rk_vec3_cross(b, d)) / 6.0;
			}
		}
		qsort(edges, ne, sizeof(uint64_t), cmp_edge);
		size_t dup = 0, unmatched = 0;
		for (size_t i = 0; i < ne; i++) {
			if (i > 0 && edges[i] == edges[i - 1]) dup++;
			uint64_t rev = (edges[i] << 32) | (edges[i] >> 32);
			if (!bsearch(&rev, edges, ne, sizeof(uint64_t), cmp_edge)) unmatched++;
		}
		RK_CHECK_INT(dup, 0);
		RK_CHECK_INT(unmatched, 0);
		RK_CHECK(volume > 0.03 && volume < 0.2); /* m^3: a person is ~0.06-0.08 */
		/* normals point outwards: most agree with the face winding */
		RK_CHECK(m->normals.exists && m->uv_sets.count == 1 && m->uv_sets.data[0].uv.exists);
		free(p);
		free(edges);
		rk_scene_free(s);
	}
}

/* The one smooth-normal generator: the body's normals are exactly what
 * rk_mesh_smooth_normals gives for its positions and faces (the builder calls
 * the same core code), unit length, and on the outer side of every face
 * around the vertex (each part is convex). */
RK_TEST(sample_normals_from_the_shared_generator)
{
	for (int kind = 0; kind < RK_DEMO_KIND_COUNT_; kind++) {
		rk_scene *s = rk_demo_scene((rk_demo_kind)kind, NULL, NULL);
		RK_REQUIRE(s && s->meshes.count == 1);
		const rk_mesh *m = &s->meshes.data[0];
		RK_REQUIRE(m->normals.exists && m->normals.value_count == m->vertex_count
			&& m->normals.indices == m->vertex_indices);
		rk_vec3 *n = (rk_vec3 *)malloc(m->vertex_count * sizeof(rk_vec3));
		RK_REQUIRE(n);
		RK_CHECK_INT(rk_mesh_smooth_normals(n, m->positions_f64, m->vertex_count, m->vertex_indices, m->index_count,
			m->faces, m->face_count), 0);
		RK_CHECK(memcmp(n, m->normals.values_f64, m->vertex_count * sizeof(rk_vec3)) == 0);
		size_t not_unit = 0, inward = 0;
		for (size_t v = 0; v < m->vertex_count; v++)
			if (fabs(rk_vec3_length(rk_attrib_vec3_value(&m->normals, v)) - 1.0) > 1e-12) not_unit++;
		for (size_t f = 0; f < m->face_count; f++) {
			const rk_face *fc = &m->faces[f];
			const uint32_t *vi = m->vertex_indices + fc->index_begin;
			rk_vec3 p0 = rk_mesh_position(m, vi[0]);
			rk_vec3 area = rk_vec3_cross(rk_vec3_sub(rk_mesh_position(m, vi[1]), p0), rk_vec3_sub(rk_mesh_position(m, vi[2]), p0));
			for (uint32_t k = 0; k < fc->index_count; k++)
				if (!(rk_vec3_dot(area, rk_attrib_vec3_value(&m->normals, vi[k])) > 0.0)) inward++;
		}
		RK_CHECK_INT(not_unit, 0);
		RK_CHECK_INT(inward, 0);
		free(n);
		rk_scene_free(s);
	}
}

RK_TEST(sample_clip_layout)
{
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, NULL);
	RK_REQUIRE(s);
	const char *names[2] = { "Idle", "Walk" };
	const double ends[2] = { 3.0, 1.0 };
	for (int c = 0; c < 2; c++) {
		rk_anim_clip *clip = rk_scene_find_clip(s, names[c]);
		RK_REQUIRE(clip);
		RK_CHECK_NEAR(clip->time_begin, 0.0, 0.0);
		RK_CHECK_NEAR(clip->time_end, ends[c], 1e-12);
		RK_REQUIRE(clip->layer_count == 1);
		bool hips_t = false;
		size_t rot = 0;
		for (size_t i = 0; i < clip->layers[0].track_count; i++) {
			const rk_anim_track *t = &clip->layers[0].tracks[i];
			RK_CHECK_INT(t->interpolation, RK_INTERP_LINEAR);
			RK_CHECK_INT(t->key_count, (size_t)(ends[c] * 30.0 + 0.5) + 1);
			for (size_t k = 0; k < t->key_count; k++) RK_CHECK_NEAR(t->times[k], k / 30.0, 1e-12);
			if (t->target == RK_TARGET_ROTATION_QUAT) rot++;
			if (t->target == RK_TARGET_TRANSLATION) {
				RK_CHECK(strcmp(t->node->name, "mixamorig:Hips") == 0);
				hips_t = true;
			}
		}
		RK_CHECK(rot >= 40);
		RK_CHECK(hips_t); /* Walk: root motion; Idle: the weight shift */
		rk_pose_eval_job job = { 0 };
		evaluator e;
		RK_REQUIRE(ev_init(&e, s));
		job.scene = s;
		job.clip = clip;
		job.time = 0.5;
		job.pose = &e.pose;
		rk_error err = { 0 };
		RK_CHECK(rk_pose_eval_validate(&job, &err));
		ev_free(&e);
	}
	rk_scene_free(s);
}

/* Pose at t (loop check): every joint's local rotation and world position. */
static void check_loop(rk_test_state *rk_t_, const rk_scene *s, const rk_anim_clip *clip, double t1, double expect_travel)
{
	evaluator a, b;
	RK_REQUIRE(ev_init(&a, s) && ev_init(&b, s));
	RK_REQUIRE(ev_at(&a, clip, 0.0) && ev_at(&b, clip, t1));
	rk_node *hips = rk_scene_find_node(s, "mixamorig:Hips");
	rk_vec3 travel = rk_vec3_sub(ev_pos(&b, hips), ev_pos(&a, hips));
	RK_CHECK_NEAR(travel.x, 0.0, 1e-9);
	RK_CHECK_NEAR(travel.y, 0.0, 1e-9);
	if (expect_travel > 0) RK_CHECK(travel.z > expect_travel);
	else RK_CHECK_NEAR(travel.z, 0.0, 1e-9);
	double rmax = 0, pmax = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		if (s->nodes.data[i].kind != RK_NODE_JOINT) continue;
		rmax = fmax(rmax, rk_quat_angle_between(a.pose.local[i].rotation, b.pose.local[i].rotation));
		rk_vec3 pa = rk_mat4_get_translation(a.pose.node_to_world[i]);
		rk_vec3 pb = rk_vec3_sub(rk_mat4_get_translation(b.pose.node_to_world[i]), travel);
		pmax = fmax(pmax, dist(pa, pb));
	}
	RK_CHECK(rmax < 1e-6);
	RK_CHECK(pmax < 1e-6);
	ev_free(&a);
	ev_free(&b);
}

RK_TEST(sample_walk_cycle)
{
	const rk_demo_kind K = RK_DEMO_MIXAMO_SOURCE;
	rk_scene *s = rk_demo_scene(K, NULL, NULL);
	RK_REQUIRE(s);
	rk_anim_clip *walk = rk_scene_find_clip(s, "Walk");
	RK_REQUIRE(walk);
	double T = walk->time_end - walk->time_begin;
	RK_CHECK_NEAR(T, 1.0, 1e-12);
	enum { N = 120 };
	const double dt = T / 960.0;
	rk_node *hips = jnode(s, K, "Hips");
	rk_node *foot[2] = { jnode(s, K, "LeftFoot"), jnode(s, K, "RightFoot") };
	rk_node *toe[2] = { jnode(s, K, "LeftToeBase"), jnode(s, K, "RightToeBase") };
	rk_node *hand[2] = { jnode(s, K, "LeftHand"), jnode(s, K, "RightHand") };
	evaluator e;
	RK_REQUIRE(ev_init(&e, s));
	static double hy[N], hz[N], vroot[N], fy[2][N], ty[2][N], fspeed[2][N], tspeed[2][N], frel[2][N], hrel[2][N];
	for (int i = 0; i < N; i++) {
		double t = (i + 0.5) * T / N;
		rk_vec3 h0, h1, f0[2], f1[2], t0[2], t1[2];
		RK_REQUIRE(ev_at(&e, walk, t - dt));
		h0 = ev_pos(&e, hips);
		for (int k = 0; k < 2; k++) { f0[k] = ev_pos(&e, foot[k]); t0[k] = ev_pos(&e, toe[k]); }
		RK_REQUIRE(ev_at(&e, walk, t + dt));
		h1 = ev_pos(&e, hips);
		for (int k = 0; k < 2; k++) { f1[k] = ev_pos(&e, foot[k]); t1[k] = ev_pos(&e, toe[k]); }
		RK_REQUIRE(ev_at(&e, walk, t));
		rk_vec3 h = ev_pos(&e, hips);
		hy[i] = h.y;
		hz[i] = h.z;
		vroot[i] = (h1.z - h0.z) / (2 * dt);
		for (int k = 0; k < 2; k++) {
			rk_vec3 f = ev_pos(&e, foot[k]);
			fy[k][i] = f.y;
			ty[k][i] = ev_pos(&e, toe[k]).y;
			fspeed[k][i] = hypot(f1[k].x - f0[k].x, f1[k].z - f0[k].z) / (2 * dt);
			tspeed[k][i] = hypot(t1[k].x - t0[k].x, t1[k].z - t0[k].z) / (2 * dt);
			frel[k][i] = f.z - h.z;
			hrel[k][i] = ev_pos(&e, hand[k]).z - h.z;
		}
	}
	ev_free(&e);

	/* the root moves forward at a constant speed */
	double v = 0;
	for (int i = 0; i < N; i++) v += vroot[i];
	v /= N;
	RK_CHECK(v > 0.5 && v < 2.0);
	double vdev = 0;
	for (int i = 0; i < N; i++) vdev = fmax(vdev, fabs(vroot[i] - v));
	RK_CHECK(vdev < 0.01 * v);
	RK_CHECK(hz[N - 1] > hz[0]);

	/* (a) stance feet do not slide: each of ankle and toes is on the ground
	 * (within 1 mm of its lowest height for the ankle, whose heel starts to
	 * rise about the ball of the foot at heel-off; 3 mm for the toes) for
	 * one arc - the ankle from heel strike to heel-off (at least 30% of the
	 * cycle), the toes until toe-off (at least 45%) - during which it moves
	 * horizontally at < 5% of the root speed */
	for (int k = 0; k < 2; k++) {
		for (int part = 0; part < 2; part++) {
			const double *y = part ? ty[k] : fy[k], *sp = part ? tspeed[k] : fspeed[k];
			double miny = 1e9, maxy = -1e9;
			for (int i = 0; i < N; i++) { miny = fmin(miny, y[i]); maxy = fmax(maxy, y[i]); }
			RK_CHECK(maxy - miny > 0.04); /* the swing lifts the foot */
			int contact = 0, transitions = 0;
			double worst = 0;
			for (int i = 0; i < N; i++) {
				double band = part ? 0.003 : 0.001;
				bool c = y[i] <= miny + band, cp = y[(i + N - 1) % N] <= miny + band;
				transitions += c != cp;
				if (!c) continue;
				contact++;
				worst = fmax(worst, sp[i]);
			}
			RK_CHECK(contact >= (int)((part ? 0.45 : 0.30) * N));
			RK_CHECK(contact <= (int)(0.75 * N));
			RK_CHECK_INT(transitions, 2);
			if (!(worst < 0.05 * v))
				fprintf(stderr, "%s %s: stance speed %.4f m/s, root %.4f m/s\n", k ? "right" : "left", part ? "toes" : "ankle", worst, v);
			RK_CHECK(worst < 0.05 * v);
		}
	}
	/* double support and single support alternate: never both feet in the
	 * air (a foot is down while its heel or its toes are) */
	double m[2][2] = { { 1e9, 1e9 }, { 1e9, 1e9 } };
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < N; j++) { m[k][0] = fmin(m[k][0], fy[k][j]); m[k][1] = fmin(m[k][1], ty[k][j]); }
	for (int i = 0; i < N; i++) {
		bool down[2];
		for (int k = 0; k < 2; k++) down[k] = fy[k][i] <= m[k][0] + 0.003 || ty[k][i] <= m[k][1] + 0.003;
		RK_CHECK(down[0] || down[1]);
	}

	/* (b) hips bob with two periods per cycle */
	int maxima = 0;
	double ylo = 1e9, yhi = -1e9;
	for (int i = 0; i < N; i++) {
		double prev = hy[(i + N - 1) % N], next = hy[(i + 1) % N];
		if (hy[i] > prev && hy[i] >= next) maxima++;
		ylo = fmin(ylo, hy[i]);
		yhi = fmax(yhi, hy[i]);
	}
	RK_CHECK_INT(maxima, 2);
	RK_CHECK(yhi - ylo > 0.005 && yhi - ylo < 0.08);

	/* (d) arms swing opposite to the legs, legs opposite to each other */
	RK_CHECK(correlation(hrel[0], frel[0], N) < -0.8);
	RK_CHECK(correlation(hrel[1], frel[1], N) < -0.8);
	RK_CHECK(correlation(frel[0], frel[1], N) < -0.5); /* asymmetric sawtooths half a cycle apart */
	RK_CHECK(correlation(hrel[0], hrel[1], N) < -0.8);

	/* (c) seamless loop with root motion */
	check_loop(rk_t_, s, walk, walk->time_end, 0.5);
	rk_scene_free(s);
}

RK_TEST(sample_idle_cycle)
{
	const rk_demo_kind K = RK_DEMO_MIXAMO_SOURCE;
	rk_scene *s = rk_demo_scene(K, NULL, NULL);
	RK_REQUIRE(s);
	rk_anim_clip *idle = rk_scene_find_clip(s, "Idle");
	RK_REQUIRE(idle);
	check_loop(rk_t_, s, idle, idle->time_end, 0.0);
	/* breathing moves the chest and shoulders; the hips shift the weight
	 * by about a centimetre; the feet stay put */
	evaluator e;
	RK_REQUIRE(ev_init(&e, s));
	rk_node *chest = jnode(s, K, "Spine2"), *shoulder = jnode(s, K, "LeftShoulder"), *foot = jnode(s, K, "LeftFoot");
	rk_node *hips = jnode(s, K, "Hips"), *hand = jnode(s, K, "LeftHand");
	RK_REQUIRE(ev_at(&e, idle, 0.0));
	rk_quat chest0 = e.pose.local[chest->index].rotation;
	rk_vec3 foot0 = ev_pos(&e, foot), hips0 = ev_pos(&e, hips), sh0 = ev_pos(&e, shoulder);
	double chest_max = 0, foot_max = 0, hips_max = 0, sh_max = 0, hand_drop = 1e9;
	for (int i = 1; i <= 90; i++) {
		RK_REQUIRE(ev_at(&e, idle, i / 30.0));
		chest_max = fmax(chest_max, rk_quat_angle_between(chest0, e.pose.local[chest->index].rotation));
		foot_max = fmax(foot_max, dist(foot0, ev_pos(&e, foot)));
		hips_max = fmax(hips_max, dist(hips0, ev_pos(&e, hips)));
		sh_max = fmax(sh_max, dist(sh0, ev_pos(&e, shoulder)));
		hand_drop = fmin(hand_drop, ev_pos(&e, shoulder).y - ev_pos(&e, hand).y);
	}
	RK_CHECK(chest_max > 0.5 * PI / 180.0 && chest_max < 10.0 * PI / 180.0);
	RK_CHECK(sh_max > 0.002 && sh_max < 0.05);
	RK_CHECK(foot_max < 1e-9);
	RK_CHECK(hips_max > 0.005 && hips_max < 0.03);
	RK_CHECK(hand_drop > 0.3); /* arms hang down in the idle, not in T-pose */
	ev_free(&e);
	rk_scene_free(s);
}

RK_TEST(sample_z_up_armature)
{
	rk_demo_opts o = { 0 };
	o.z_up_armature = true;
	rk_scene *a = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, NULL);
	rk_scene *b = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &o, NULL);
	RK_REQUIRE(a && b);
	rk_node *hips = rk_scene_find_node(b, "mixamorig:Hips");
	/* Blender-style: Hips rest rotation is ~90 degrees about X */
	rk_quat q = hips->local.rotation;
	double angle = rk_quat_angle_between(q, RK_QUAT_IDENTITY) * 180.0 / PI;
	RK_CHECK(angle > 80.0 && angle < 100.0);
	RK_CHECK(fabs(q.x) > 0.65 && fabs(q.y) < 0.1 && fabs(q.z) < 0.1);
	RK_CHECK(hips->local.translation.z > 80.0); /* Z up inside the armature */
	/* same world pose at rest and in the walk */
	evaluator ea, eb;
	RK_REQUIRE(ev_init(&ea, a) && ev_init(&eb, b));
	double worst = 0;
	for (int i = 0; i <= 10; i++) {
		const rk_anim_clip *ca = i == 0 ? NULL : rk_scene_find_clip(a, "Walk"), *cb = i == 0 ? NULL : rk_scene_find_clip(b, "Walk");
		RK_REQUIRE(ev_at(&ea, ca, i * 0.1) && ev_at(&eb, cb, i * 0.1));
		for (size_t n = 0; n < a->nodes.count; n++)
			worst = fmax(worst, dist(rk_mat4_get_translation(ea.pose.node_to_world[n]), rk_mat4_get_translation(eb.pose.node_to_world[n])));
	}
	RK_CHECK(worst < 1e-9);
	ev_free(&ea);
	ev_free(&eb);
	rk_scene_free(a);
	rk_scene_free(b);
}

RK_TEST(sample_options)
{
	rk_demo_opts o = { 0 };
	o.no_mesh = true;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &o, NULL);
	RK_REQUIRE(s);
	RK_CHECK(s->meshes.count == 0 && s->skins.count == 0 && s->materials.count == 0 && s->textures.count == 0);
	RK_CHECK_INT(s->nodes.count, 2 + JOINTS);
	RK_CHECK_INT(s->clips.count, 2);
	rk_scene_free(s);
	o = (rk_demo_opts){ 0 };
	o.no_texture = true;
	o.no_animation = true;
	s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &o, NULL);
	RK_REQUIRE(s);
	RK_CHECK(s->textures.count == 0 && s->materials.count == 1 && s->clips.count == 0);
	RK_CHECK(s->materials.data[0].base_color_texture.texture == NULL);
	rk_scene_free(s);
}

RK_TEST(sample_texture_png)
{
	for (int k = 0; k < 2; k++) {
		rk_scene *s = rk_demo_scene((rk_demo_kind)k, NULL, NULL);
		RK_REQUIRE(s && s->textures.count == 1);
		const rk_texture *t = &s->textures.data[0];
		RK_CHECK(s->materials.data[0].base_color_texture.texture == t);
		RK_CHECK_STR(t->mime_type, "image/png");
		RK_REQUIRE(t->content && t->content_size > 8);
		RK_CHECK(memcmp(t->content, "\x89PNG\r\n\x1a\n", 8) == 0);
		int w = 0, h = 0, comp = 0;
		unsigned char *px = stbi_load_from_memory(t->content, (int)t->content_size, &w, &h, &comp, 3);
		RK_REQUIRE(px);
		RK_CHECK_INT(w, 64);
		RK_CHECK_INT(h, 64);
		/* a checker: 8-pixel cells alternate, diagonal cells match */
		const unsigned char *p00 = px, *p80 = px + 8 * 3, *p88 = px + (8 * 64 + 8) * 3, *p70 = px + 7 * 3;
		RK_CHECK(memcmp(p00, p80, 3) != 0);
		RK_CHECK(memcmp(p00, p88, 3) == 0);
		RK_CHECK(memcmp(p00, p70, 3) == 0);
		stbi_image_free(px);
		rk_scene_free(s);
	}
}

/* Counting allocator: fails after `budget` allocations, tracks live bytes. */
typedef struct counting { size_t live, count, budget; } counting;
static void *count_alloc(void *user, size_t size)
{
	counting *c = (counting *)user;
	if (c->budget && c->count >= c->budget) return NULL;
	void *p = malloc(size);
	if (p) { c->live += size; c->count++; }
	return p;
}
static void count_free(void *user, void *ptr, size_t size)
{
	counting *c = (counting *)user;
	if (ptr) c->live -= size;
	free(ptr);
}

RK_TEST(sample_allocation_failures)
{
	for (int k = 0; k < 2; k++) {
		counting c = { 0, 0, 0 };
		rk_demo_opts o = { 0 };
		o.allocator = (rk_allocator){ count_alloc, count_free, &c };
		rk_scene *s = rk_demo_scene((rk_demo_kind)k, &o, NULL);
		RK_REQUIRE(s);
		size_t needed = c.count;
		rk_scene_free(s);
		RK_CHECK_INT(c.live, 0);
		for (size_t budget = 1; budget < needed; budget++) {
			c = (counting){ 0, 0, budget };
			rk_error err = { 0 };
			s = rk_demo_scene((rk_demo_kind)k, &o, &err);
			RK_CHECK(s == NULL);
			RK_CHECK(err.code == RK_ERROR_OUT_OF_MEMORY || err.code == RK_ERROR_LIMIT);
			RK_CHECK_INT(c.live, 0);
			rk_scene_free(s);
		}
		/* a memory limit far too small fails cleanly */
		rk_demo_opts lim = { 0 };
		lim.memory_limit = 4096;
		rk_error err = { 0 };
		RK_CHECK(rk_demo_scene((rk_demo_kind)k, &lim, &err) == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	}
}

RK_TEST(sample_deterministic_glb)
{
	for (int k = 0; k < 2; k++) {
		void *d[2] = { NULL, NULL };
		size_t n[2] = { 0, 0 };
		for (int r = 0; r < 2; r++) {
			rk_error err = { 0 };
			rk_scene *s = rk_demo_scene((rk_demo_kind)k, NULL, &err);
			RK_REQUIRE(s);
			RK_CHECK(rk_gltf_write_memory(s, NULL, &d[r], &n[r], &err));
			rk_scene_free(s);
		}
		RK_CHECK(n[0] > 1000 && n[0] == n[1]);
		RK_CHECK(d[0] && d[1] && memcmp(d[0], d[1], n[0]) == 0);
		rk_gltf_memory_free(d[0]);
		rk_gltf_memory_free(d[1]);
	}
}

/* GLB round trip: the walk evaluated from the written file matches the
 * in-memory clip (float precision). */
RK_TEST(sample_glb_round_trip)
{
	rk_error err = { 0 };
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	void *data = NULL;
	size_t size = 0;
	RK_REQUIRE(rk_gltf_write_memory(s, NULL, &data, &size, &err));
	rk_scene *g = rk_load_memory(data, size, NULL, &err);
	RK_REQUIRE(g);
	RK_CHECK_INT(g->clips.count, 2);
	RK_CHECK_INT(g->skins.count, 1);
	RK_CHECK_INT(g->textures.count, 1);
	evaluator a, b;
	RK_REQUIRE(ev_init(&a, s) && ev_init(&b, g));
	const char *names[] = { "mixamorig:Hips", "mixamorig:LeftFoot", "mixamorig:RightHand", "mixamorig:Head", "mixamorig:LeftHandIndex4" };
	double worst = 0;
	for (int c = 0; c < 2; c++) {
		const rk_anim_clip *ca = rk_scene_find_clip(s, c ? "Walk" : "Idle"), *cb = rk_scene_find_clip(g, c ? "Walk" : "Idle");
		RK_REQUIRE(ca && cb);
		for (int i = 0; i <= 20; i++) {
			double t = ca->time_end * i / 20.0;
			RK_REQUIRE(ev_at(&a, ca, t) && ev_at(&b, cb, t));
			for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
				rk_node *na = rk_scene_find_node(s, names[j]), *nb = rk_scene_find_node(g, names[j]);
				RK_REQUIRE(na && nb);
				worst = fmax(worst, dist(ev_pos(&a, na), ev_pos(&b, nb)));
			}
		}
	}
	RK_CHECK(worst < 1e-4);
	ev_free(&a);
	ev_free(&b);
	rk_gltf_memory_free(data);
	rk_scene_free(g);
	rk_scene_free(s);
}

static size_t count_joints(const rk_scene *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nodes.count; i++) n += s->nodes.data[i].kind == RK_NODE_JOINT;
	return n;
}

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : (WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
}

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *p = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return p;
}

RK_TEST(sample_cli)
{
#if defined(RK_CLI_PATH) && defined(RK_BINARY_DIR)
	char dir[1024], cmd[4096], path[1200];
	snprintf(dir, sizeof(dir), "%s/sample_test_out/nested", RK_BINARY_DIR);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/sample_test_out'", RK_BINARY_DIR);
	RK_CHECK_INT(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' sample '%s' > /dev/null", RK_CLI_PATH, dir);
	RK_REQUIRE(run(cmd) == 0);
	const char *files[2] = { "source.glb", "avatar.glb" };
	unsigned char *first[2] = { NULL, NULL };
	size_t first_size[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
		rk_error err = { 0 };
		rk_scene *s = rk_load_file(path, NULL, &err);
		RK_REQUIRE(s);
		RK_CHECK_INT(s->settings.format, RK_FORMAT_GLB);
		RK_CHECK_INT(count_joints(s), JOINTS);
		RK_CHECK_INT(s->skins.count, 1);
		RK_CHECK_INT(s->clips.count, k == 0 ? 2 : 0);
		RK_CHECK(rk_scene_find_node(s, k == 0 ? "mixamorig:LeftHandPinky4" : "LeftHandPinky4") != NULL);
		rk_scene_free(s);
		first[k] = slurp(path, &first_size[k]);
	}
	/* a second run writes the same bytes */
	RK_REQUIRE(run(cmd) == 0);
	for (int k = 0; k < 2; k++) {
		size_t n = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
		unsigned char *again = slurp(path, &n);
		RK_CHECK(first[k] && again && n == first_size[k] && memcmp(first[k], again, n) == 0);
		free(again);
		free(first[k]);
	}
	/* usage errors and unwritable output */
	snprintf(cmd, sizeof(cmd), "'%s' sample 2> /dev/null", RK_CLI_PATH);
	RK_CHECK_INT(run(cmd), 1);
	snprintf(cmd, sizeof(cmd), "'%s' sample '%s' --bogus 2> /dev/null", RK_CLI_PATH, dir);
	RK_CHECK_INT(run(cmd), 1);
	snprintf(cmd, sizeof(cmd), "'%s' sample '%s/source.glb/x' 2> /dev/null", RK_CLI_PATH, dir);
	RK_CHECK_INT(run(cmd), 3);
	snprintf(cmd, sizeof(cmd), "'%s' sample --help > /dev/null", RK_CLI_PATH);
	RK_CHECK_INT(run(cmd), 0);
#else
	RK_SKIP("CLI path not configured");
#endif
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(sample_bad_inputs),
	RK_TEST_ENTRY(sample_names_and_hierarchy),
	RK_TEST_ENTRY(sample_source_rest_pose),
	RK_TEST_ENTRY(sample_avatar_rest_pose),
	RK_TEST_ENTRY(sample_proportions),
	RK_TEST_ENTRY(sample_skin_weights),
	RK_TEST_ENTRY(sample_mesh_closed_and_encloses_joints),
	RK_TEST_ENTRY(sample_normals_from_the_shared_generator),
	RK_TEST_ENTRY(sample_clip_layout),
	RK_TEST_ENTRY(sample_walk_cycle),
	RK_TEST_ENTRY(sample_idle_cycle),
	RK_TEST_ENTRY(sample_z_up_armature),
	RK_TEST_ENTRY(sample_options),
	RK_TEST_ENTRY(sample_texture_png),
	RK_TEST_ENTRY(sample_allocation_failures),
	RK_TEST_ENTRY(sample_deterministic_glb),
	RK_TEST_ENTRY(sample_glb_round_trip),
	RK_TEST_ENTRY(sample_cli))
