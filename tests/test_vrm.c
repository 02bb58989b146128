/*
 * tests/test_vrm.c - VRM 1.0, VRM 0.x and VRM Animation reading (the declared
 * humanoid in scene->hints, kept extensions in scene->extensions), on the
 * committed fixtures of tests/fixtures/make_vrm.py. The expected map is the
 * script's own (vroid.map.json: VRM 1.0 bone -> node name, from its table of
 * VRoid names), not rigkit's.
 */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/demo.h>
#include <rigkit/export.h>
#include <rigkit/humanoid.h>
#include <rigkit/load.h>
#include <rigkit/retarget.h>
#include <rigkit/vrma.h>

#include <math.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_DIR RK_SOURCE_DIR "/tests/fixtures/"

static rk_scene *load_fixture(const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", FIXTURE_DIR, name);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) fprintf(stderr, "%s: %s\n", path, err.message);
	return s;
}

static unsigned char *read_fixture(const char *name, size_t *size)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", FIXTURE_DIR, name);
	return rk_test_read_file(path, size);
}

static cJSON *load_map_file(const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", FIXTURE_DIR, name);
	size_t size = 0;
	unsigned char *text = rk_test_read_file(path, &size);
	if (!text) return NULL;
	cJSON *j = cJSON_ParseWithLength((const char *)text, size);
	free(text);
	return j;
}


static size_t count_humanoid_hints(const rk_scene *s, const char *origin)
{
	size_t n = 0;
	for (size_t i = 0; i < s->hints.count; i++)
		if (strcmp(s->hints.data[i].scheme, "humanoid") == 0 && strcmp(s->hints.data[i].origin, origin) == 0) n++;
	return n;
}

/* Every bone of the map is detected on the declared node and nothing else. */
static void check_map(rk_test_state *rk_t_, const rk_scene *s, const cJSON *map)
{
	rk_humanoid h;
	rk_error err;
	RK_CHECK(rk_humanoid_detect(s, &h, &err));
	size_t expected = 0, mapped = 0;
	for (const cJSON *e = map->child; e; e = e->next) {
		rk_humanoid_bone b;
		RK_REQUIRE(rk_humanoid_bone_parse(e->string, &b));
		RK_REQUIRE(h.bones[b] != NULL);
		RK_CHECK_STR(h.bones[b]->name, e->valuestring);
		expected++;
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	RK_CHECK_INT(mapped, expected);
	RK_CHECK_INT(expected, 54); /* 55 VRM bones without jaw */
}

typedef struct warn_log {
	size_t count;
	char text[4096];
} warn_log;

static void log_warning(void *user, const rk_warning *w)
{
	warn_log *l = (warn_log *)user;
	size_t n = strlen(l->text);
	snprintf(l->text + n, sizeof(l->text) - n, "%s|%s\n", w->path, w->message);
	l->count++;
}

/* Loads `fixture` into *out: 54 humanoid hints from `origin`, no warning,
 * and the map of vroid.map.json detected. *out NULL when it did not load. */
static void load_declared_map(rk_test_state *rk_t_, const char *fixture, const char *origin, const char *map_file,
	rk_scene **out)
{
	cJSON *map = load_map_file(map_file);
	rk_scene *s = load_fixture(fixture);
	*out = s;
	if (!map || !s) cJSON_Delete(map);
	RK_REQUIRE(map && s);
	RK_CHECK_INT(count_humanoid_hints(s, origin), 54);
	RK_CHECK_INT(s->warnings.count, 0);
	check_map(rk_t_, s, map);
	cJSON_Delete(map);
}

static void load_declared(rk_test_state *rk_t_, const char *fixture, const char *origin, rk_scene **out)
{
	load_declared_map(rk_t_, fixture, origin, "vroid.map.json", out);
}

/* The case: VRM 0.x with Unity-style 0.x names, where
 * "LeftThumbProximal" is the metacarpal. Names alone map the thumbs one
 * segment off and miss the metacarpals (52 bones); the declared map gives
 * all 54, and the disagreement is reported once per hand. */
RK_TEST(vrm0_unity_names_thumbs)
{
	rk_scene *s;
	load_declared_map(rk_t_, "unity_vrm0.vrm", "VRM", "unity.map.json", &s);
	RK_REQUIRE(s);
	rk_scene names_only = *s;
	names_only.hints.count = 0;
	rk_humanoid h;
	RK_CHECK(rk_humanoid_detect(&names_only, &h, NULL));
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	RK_CHECK_INT(mapped, 52);
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_THUMB_METACARPAL] == NULL);
	RK_CHECK_STR(h.bones[RK_HUMANOID_LEFT_THUMB_PROXIMAL]->name, "LeftThumbProximal");
	warn_log log = { 0, "" };
	RK_CHECK_INT(rk_humanoid_check_declared(s, log_warning, &log), 2);
	RK_CHECK(strstr(log.text, "leftThumbProximal: VRM declares 'LeftThumbIntermediate', the names suggest 'LeftThumbProximal'") != NULL);
	rk_scene_free(s);
}

RK_TEST(vrm1_declared_humanoid)
{
	rk_scene *s;
	load_declared(rk_t_, "vroid_vrm1.vrm", "VRMC_vrm", &s);
	RK_REQUIRE(s);
	RK_CHECK_INT(rk_humanoid_check_declared(s, NULL, NULL), 0);
	/* kept: VRMC_vrm and VRMC_springBone at the top, VRMC_node_constraint on the hair node */
	RK_CHECK_INT(s->extensions.count, 3);
	const rk_node *head = rk_scene_find_node(s, "J_Bip_C_Head"), *hair = rk_scene_find_node(s, "J_Sec_Hair1_01");
	RK_REQUIRE(head && hair);
	for (size_t i = 0; i < s->extensions.count; i++) {
		const rk_extension *e = &s->extensions.data[i];
		if (strcmp(e->name, "VRMC_node_constraint") == 0) {
			RK_CHECK(e->owner == RK_EXT_OWNER_NODE && e->node == hair);
			const rk_ext_value *c = &e->value.items[1]; /* constraint */
			RK_CHECK_STR(c->key, "constraint");
			RK_CHECK(c->items[0].items[0].kind == RK_EXT_NODE && c->items[0].items[0].ref == head);
		} else if (strcmp(e->name, "VRMC_springBone") == 0) {
			const rk_ext_value *col = &e->value.items[1]; /* colliders */
			RK_CHECK_STR(col->key, "colliders");
			RK_CHECK(col->items[0].items[0].kind == RK_EXT_NODE && col->items[0].items[0].ref == head);
		} else {
			RK_CHECK_STR(e->name, "VRMC_vrm");
			RK_CHECK(e->owner == RK_EXT_OWNER_SCENE);
		}
	}
	rk_scene_free(s);
}

/* VRM 0.x: the humanBones array with 0.x thumb names, translated to 1.0. */
RK_TEST(vrm0_thumbs_translated)
{
	rk_scene *s;
	load_declared(rk_t_, "vroid_vrm0.vrm", "VRM", &s);
	RK_REQUIRE(s);
	bool metacarpal = false;
	for (size_t i = 0; i < s->hints.count; i++) {
		const rk_declared_hint *h = &s->hints.data[i];
		RK_CHECK(strcmp(h->key, "leftThumbIntermediate") != 0 && strcmp(h->key, "rightThumbIntermediate") != 0);
		if (strcmp(h->key, "leftThumbMetacarpal") == 0) {
			metacarpal = true;
			RK_CHECK_STR(h->node->name, "J_Bip_L_Thumb1");
		}
	}
	RK_CHECK(metacarpal);
	rk_scene_free(s);
}

/* Names that would map nothing: the declared map alone gives every bone. */
RK_TEST(declared_map_without_names)
{
	rk_scene *s = load_fixture("vroid_vrm1.vrm");
	RK_REQUIRE(s);
	/* rename every node: name detection then finds nothing */
	char (*names)[32] = calloc(s->nodes.count, sizeof(*names));
	RK_REQUIRE(names);
	for (size_t i = 1; i < s->nodes.count; i++) snprintf(names[i], sizeof(names[i]), "n%zu", i);
	const char **saved = calloc(s->nodes.count, sizeof(*saved));
	RK_REQUIRE(saved);
	for (size_t i = 1; i < s->nodes.count; i++) {
		saved[i] = s->nodes.data[i].name;
		s->nodes.data[i].name = names[i];
	}
	rk_humanoid h;
	RK_CHECK(rk_humanoid_detect(s, &h, NULL));
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	RK_CHECK_INT(mapped, 54);
	rk_scene copy = *s;
	copy.hints.count = 0;
	RK_CHECK(!rk_humanoid_detect(&copy, &h, NULL));
	for (size_t i = 1; i < s->nodes.count; i++) s->nodes.data[i].name = saved[i];
	free(saved);
	free(names);
	rk_scene_free(s);
}

/* VRM Animation: the humanoid of VRMC_vrm_animation and the clip. */
RK_TEST(vrma_humanoid_and_clip)
{
	rk_scene *s;
	load_declared(rk_t_, "vroid_walk.vrma", "VRMC_vrm_animation", &s);
	RK_REQUIRE(s);
	RK_REQUIRE(s->clips.count == 1);
	RK_CHECK_STR(s->clips.data[0].name, "walk");
	RK_CHECK_INT(s->clips.data[0].layers[0].track_count, 3);
	RK_CHECK_NEAR(s->clips.data[0].time_end, 1.0, 1e-9);
	rk_scene_free(s);
}

static bool has_warning(const rk_scene *s, const char *path, const char *part)
{
	for (size_t i = 0; i < s->warnings.count; i++)
		if (strcmp(s->warnings.data[i].path, path) == 0 && strstr(s->warnings.data[i].message, part)) return true;
	return false;
}

/* Hostile VRMC_vrm: warnings with JSON pointers, the rest loads. */
RK_TEST(vrm_bad_extension_warns)
{
	rk_scene *s = load_fixture("vroid_bad.vrm");
	RK_REQUIRE(s);
	const char *hb = "/extensions/VRMC_vrm/humanoid/humanBones/";
	char p[256];
	snprintf(p, sizeof(p), "%srightEye/node", hb);
	RK_CHECK(has_warning(s, p, "below 56, got 100000"));
	snprintf(p, sizeof(p), "%sleftEye/node", hb);
	RK_CHECK(has_warning(s, p, "names no node"));
	snprintf(p, sizeof(p), "%sleftToes", hb);
	RK_CHECK(has_warning(s, p, "expected a humanoid bone object"));
	snprintf(p, sizeof(p), "%sjaw/node", hb);
	RK_CHECK(has_warning(s, p, "declared for both 'head' and 'jaw'"));
	RK_CHECK(has_warning(s, "/extensions/VRMC_vrm/meta/thumbnailImage", "an image index"));
	RK_CHECK(has_warning(s, "/extensions/VRMC_vrm/expressions/preset/happy/morphTargetBinds/0/node", "got -4"));
	rk_humanoid h;
	rk_error err;
	RK_CHECK(rk_humanoid_detect(s, &h, &err));
	RK_CHECK_STR(h.bones[RK_HUMANOID_LEFT_THUMB_PROXIMAL]->name, "J_Bip_L_Thumb1"); /* the declaration wins */
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_THUMB_METACARPAL] == NULL);
	RK_CHECK(h.bones[RK_HUMANOID_JAW] == NULL && h.bones[RK_HUMANOID_LEFT_TOES] == NULL);
	warn_log log = { 0, "" };
	RK_CHECK_INT(rk_humanoid_check_declared(s, log_warning, &log), 3);
	RK_CHECK(strstr(log.text, "'notABone'") != NULL);
	RK_CHECK(strstr(log.text, "leftThumbProximal: VRMC_vrm declares 'J_Bip_L_Thumb1', the names suggest 'J_Bip_L_Thumb2'") != NULL);
	RK_CHECK(strstr(log.text, "leftThumbDistal: VRMC_vrm declares 'J_Bip_L_Thumb2', the names suggest 'J_Bip_L_Thumb3'") != NULL);
	rk_scene_free(s);
}

/* An invalid declared humanoid is ignored (names decide) and reported. */
RK_TEST(vrm_invalid_declaration_falls_back)
{
	rk_scene *s = load_fixture("vroid_vrm1.vrm");
	RK_REQUIRE(s);
	rk_declared_hint *hints = (rk_declared_hint *)s->hints.data;
	for (size_t i = 0; i < s->hints.count; i++)
		if (strcmp(hints[i].key, "head") == 0) hints[i].node = rk_scene_find_node(s, "J_Bip_L_Foot");
	rk_humanoid h;
	RK_CHECK(rk_humanoid_detect(s, &h, NULL));
	RK_CHECK_STR(h.bones[RK_HUMANOID_HEAD]->name, "J_Bip_C_Head");
	warn_log log = { 0, "" };
	RK_CHECK(rk_humanoid_check_declared(s, log_warning, &log) >= 1);
	RK_CHECK(strstr(log.text, "is not valid") != NULL);
	rk_scene_free(s);
}

/* Every prefix and many byte flips of each fixture: load fails cleanly or
 * succeeds; never crashes (ASan / UBSan in `make sanitize`). */
RK_TEST(vrm_truncated_and_flipped)
{
	static const char *const names[] = { "vroid_vrm1.vrm", "vroid_vrm0.vrm", "vroid_walk.vrma", "vroid_bad.vrm", "unity_vrm0.vrm" };
	for (size_t f = 0; f < 5; f++) {
		size_t size = 0;
		unsigned char *data = read_fixture(names[f], &size);
		RK_REQUIRE(data && size > 100);
		rk_load_opts o = { 0 };
		o.filename = names[f];
		for (size_t n = 0; n < size; n += (n < 64 ? 1 : 37)) {
			rk_scene *s = rk_load_memory(data, n, &o, NULL);
			rk_scene_free(s);
		}
		unsigned char *copy = malloc(size);
		RK_REQUIRE(copy);
		for (size_t i = 20; i < size; i += 13) {
			memcpy(copy, data, size);
			copy[i] = (unsigned char)(copy[i] ^ (i & 1 ? 0x04 : 0x31));
			rk_scene *s = rk_load_memory(copy, size, &o, NULL);
			if (s) {
				rk_humanoid h;
				rk_humanoid_detect(s, &h, NULL);
				rk_humanoid_check_declared(s, NULL, NULL);
			}
			rk_scene_free(s);
		}
		free(copy);
		free(data);
	}
}

RK_TEST(plain_gltf_declares_nothing)
{
	rk_scene *s = load_fixture("rig.glb");
	RK_REQUIRE(s);
	RK_CHECK_INT(s->hints.count, 0);
	RK_CHECK_INT(s->extensions.count, 0);
	RK_CHECK_INT(rk_humanoid_check_declared(s, NULL, NULL), 0);
	rk_scene_free(s);
}


/* ---- writing ------------------------------------------------------------------ */

static const rk_extension *find_ext(const rk_scene *s, const char *name)
{
	for (size_t i = 0; i < s->extensions.count; i++)
		if (strcmp(s->extensions.data[i].name, name) == 0) return &s->extensions.data[i];
	return NULL;
}

static rk_scene *write_and_load(rk_test_state *rk_t_, const rk_scene *s, const rk_gltf_write_opts *o)
{
	void *data = NULL;
	size_t size = 0;
	rk_error err;
	RK_CHECK(rk_gltf_write_memory(s, o, &data, &size, &err));
	if (!data) return NULL;
	rk_scene *back = rk_load_memory(data, size, NULL, &err);
	RK_CHECK(back != NULL);
	rk_gltf_memory_free(data);
	return back;
}

/* The glTF writer re-emits the kept extensions: read back, every declared
 * bone names the same node name, the spring collider and the node
 * constraint name the same nodes; with no_extensions nothing is kept. */
RK_TEST(vrm_write_keeps_extensions)
{
	static const char *const files[] = { "vroid_vrm1.vrm", "vroid_vrm0.vrm" };
	for (size_t f = 0; f < 2; f++) {
		rk_scene *s = load_fixture(files[f]);
		RK_REQUIRE(s);
		rk_scene *back = write_and_load(rk_t_, s, NULL);
		RK_REQUIRE(back);
		RK_CHECK_INT(back->warnings.count, 0);
		RK_CHECK_INT(back->extensions.count, s->extensions.count);
		RK_REQUIRE(back->hints.count == s->hints.count);
		for (size_t i = 0; i < s->hints.count; i++) {
			RK_CHECK_STR(back->hints.data[i].key, s->hints.data[i].key);
			RK_CHECK_STR(back->hints.data[i].node->name, s->hints.data[i].node->name);
			RK_CHECK_STR(back->hints.data[i].origin, s->hints.data[i].origin);
		}
		const rk_extension *c = find_ext(back, "VRMC_node_constraint");
		if (f == 0) {
			RK_REQUIRE(c);
			RK_CHECK_STR(c->node->name, "J_Sec_Hair1_01");
			RK_CHECK_STR(((const rk_node *)c->value.items[1].items[0].items[0].ref)->name, "J_Bip_C_Head");
		}
		rk_gltf_write_opts o = { 0 };
		o.no_extensions = true;
		rk_scene *plain = write_and_load(rk_t_, s, &o);
		RK_REQUIRE(plain);
		RK_CHECK_INT(plain->extensions.count, 0);
		RK_CHECK_INT(plain->hints.count, 0);
		rk_scene_free(plain);
		rk_scene_free(back);
		rk_scene_free(s);
	}
}

static void count_warning(void *user, const rk_warning *w)
{
	if (strstr(w->message, "not written")) (*(size_t *)user)++;
}

/* A reference to an element the writer does not write (the synthetic root)
 * is left out of its object with a warning. */
RK_TEST(vrm_write_drops_unwritten_reference)
{
	rk_scene *s = load_fixture("vroid_vrm1.vrm");
	RK_REQUIRE(s);
	const rk_extension *e = find_ext(s, "VRMC_springBone");
	RK_REQUIRE(e);
	rk_ext_value *collider_node = (rk_ext_value *)&e->value.items[1].items[0].items[0];
	RK_REQUIRE(collider_node->kind == RK_EXT_NODE);
	collider_node->ref = s->root;
	size_t dropped = 0;
	rk_gltf_write_opts o = { 0 };
	o.warning = count_warning;
	o.warning_user = &dropped;
	rk_scene *back = write_and_load(rk_t_, s, &o);
	RK_REQUIRE(back);
	RK_CHECK_INT(dropped, 1);
	const rk_extension *b = find_ext(back, "VRMC_springBone");
	RK_REQUIRE(b);
	const rk_ext_value *collider = &b->value.items[1].items[0];
	RK_CHECK_STR(collider->items[0].key, "shape"); /* "node" left out */
	rk_scene_free(back);
	rk_scene_free(s);
}

/* VRMA out of the VRMA fixture, read back: its humanoid, and at every time
 * the world rotations and hips positions of the fixture's keys (hand-made by
 * make_vrm.py: leftUpperArm about +Z by -1.2, -0.9, -1.2 rad; rightLowerLeg
 * about +X by 0, 0.6, 0; hips (0, 0.95, 0) -> (0, 0.97, 0.2) -> (0, 0.95, 0.4);
 * every rest rotation identity, so world = local). */
RK_TEST(vrma_write_round_trip)
{
	rk_scene *s = load_fixture("vroid_walk.vrma");
	RK_REQUIRE(s);
	rk_vrma_write_stats st = { 0 };
	rk_vrma_write_opts o = { 0 };
	o.fps = 10.0;
	o.stats = &st;
	void *data = NULL;
	size_t size = 0;
	rk_error err;
	RK_REQUIRE(rk_vrma_write_memory(s, &o, &data, &size, &err));
	RK_CHECK_INT(st.bone_count, 54);
	RK_CHECK_INT(st.frame_count, 11);
	RK_CHECK_INT(st.size, size);
	rk_scene *v = rk_load_memory(data, size, NULL, &err);
	rk_vrma_memory_free(data);
	RK_REQUIRE(v);
	RK_CHECK_INT(count_humanoid_hints(v, "VRMC_vrm_animation"), 54);
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(v, &h, &err));
	RK_REQUIRE(v->clips.count == 1);
	RK_CHECK_STR(v->clips.data[0].name, "walk");
	size_t bytes = rk_pose_memory_size(v);
	void *mem = malloc(bytes);
	rk_pose pose;
	RK_REQUIRE(mem && rk_pose_init(&pose, v, mem, bytes));
	static const double times[3] = { 0.0, 0.5, 1.0 }, arm[3] = { -1.2, -0.9, -1.2 }, leg[3] = { 0.0, 0.6, 0.0 };
	static const double hips_y[3] = { 0.95, 0.97, 0.95 }, hips_z[3] = { 0.0, 0.2, 0.4 };
	for (int k = 0; k < 3; k++) {
		rk_pose_eval_job job = { .scene = v, .clip = &v->clips.data[0], .time = times[k], .pose = &pose };
		RK_REQUIRE(rk_pose_eval_validate(&job, &err));
		rk_pose_eval_run(&job);
		rk_quat ra = rk_mat4_decompose(pose.node_to_world[h.bones[RK_HUMANOID_LEFT_UPPER_ARM]->index]).rotation;
		rk_quat rl = rk_mat4_decompose(pose.node_to_world[h.bones[RK_HUMANOID_RIGHT_LOWER_LEG]->index]).rotation;
		RK_CHECK(rk_quat_angle_between(ra, rk_quat_axis_angle((rk_vec3){ 0, 0, 1 }, arm[k])) < 1e-6);
		RK_CHECK(rk_quat_angle_between(rl, rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, leg[k])) < 1e-6);
		rk_vec3 hp = rk_mat4_get_translation(pose.node_to_world[h.bones[RK_HUMANOID_HIPS]->index]);
		RK_CHECK_NEAR(hp.x, 0.0, 1e-6);
		RK_CHECK_NEAR(hp.y, hips_y[k], 1e-6);
		RK_CHECK_NEAR(hp.z, hips_z[k], 1e-6);
	}
	free(mem);
	rk_scene_free(v);
	rk_scene_free(s);
}

/* Bad inputs are rejected with INVALID_ARGUMENT and write nothing. */
RK_TEST(vrma_write_bad_inputs)
{
	rk_scene *walk = load_fixture("vroid_walk.vrma"), *avatar = load_fixture("vroid_vrm1.vrm"), *rig = load_fixture("rig.glb");
	RK_REQUIRE(walk && avatar && rig);
	void *data = (void *)1;
	size_t size = 1;
	rk_error err;
	RK_CHECK(!rk_vrma_write_memory(NULL, NULL, &data, &size, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(data == NULL && size == 0);
	RK_CHECK(!rk_vrma_write_memory(avatar, NULL, &data, &size, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "no animation clip") != NULL);
	RK_CHECK(!rk_vrma_write_memory(rig, NULL, &data, &size, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	rk_vrma_write_opts o = { 0 };
	o.clip = &rig->clips.data[0];
	RK_CHECK(!rk_vrma_write_memory(walk, &o, &data, &size, &err) && strstr(err.message, "not a clip of this scene"));
	o.clip = NULL;
	o.fps = -3.0;
	RK_CHECK(!rk_vrma_write_memory(walk, &o, &data, &size, &err) && strstr(err.message, "fps"));
	o.fps = 0.0;
	rk_humanoid bad;
	memset(&bad, 0, sizeof(bad));
	o.humanoid = &bad;
	RK_CHECK(!rk_vrma_write_memory(walk, &o, &data, &size, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_vrma_write(walk, NULL, NULL, &err) && err.code == RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_vrma_write(walk, "/nonexistent-dir/x.vrma", NULL, &err) && err.code == RK_ERROR_OUTPUT);
	rk_scene_free(walk);
	rk_scene_free(avatar);
	rk_scene_free(rig);
}

/* World position of every node of s at time t (clip NULL: the static pose). */
static void eval_positions(rk_test_state *rk_t_, const rk_scene *s, const rk_anim_clip *clip, double t, rk_vec3 *out)
{
	size_t bytes = rk_pose_memory_size(s);
	void *mem = malloc(bytes);
	rk_pose pose;
	RK_REQUIRE(mem && rk_pose_init(&pose, s, mem, bytes));
	rk_pose_eval_job job = { .scene = s, .clip = clip, .time = t, .pose = &pose };
	RK_CHECK(rk_pose_eval_validate(&job, NULL) && rk_pose_eval_run(&job));
	for (size_t i = 0; i < s->nodes.count; i++) out[i] = rk_mat4_get_translation(pose.node_to_world[i]);
	free(mem);
}

static rk_vec3 bone_dir(const rk_humanoid *h, const rk_vec3 *pos, rk_humanoid_bone a, rk_humanoid_bone b)
{
	return rk_vec3_normalize(rk_vec3_sub(pos[h->bones[b]->index], pos[h->bones[a]->index]));
}

/* The VRMA of `clip` of `src`, read back, with both humanoids (*out NULL
 * when something failed). */
typedef struct vrma_case {
	rk_scene *v;
	rk_humanoid hs, hv;
} vrma_case;

static void vrma_case_make(rk_test_state *rk_t_, const rk_scene *src, const rk_anim_clip *clip, vrma_case *out)
{
	rk_error err;
	rk_vrma_write_opts o = { 0 };
	o.clip = clip;
	void *data = NULL;
	size_t size = 0;
	out->v = NULL;
	RK_REQUIRE(rk_vrma_write_memory(src, &o, &data, &size, &err));
	rk_scene *v = rk_load_memory(data, size, NULL, &err);
	rk_vrma_memory_free(data);
	RK_REQUIRE(v);
	out->v = v;
	RK_CHECK(rk_humanoid_detect(src, &out->hs, &err) && rk_humanoid_detect(v, &out->hv, &err));
}

/* Largest angle, over 7 times of the clip, between each humanoid bone
 * direction of the VRMA and the source's turned about +Y by yaw. */
static double vrma_case_worst(rk_test_state *rk_t_, const rk_scene *src, const rk_anim_clip *clip, const vrma_case *c,
	double yaw)
{
	rk_vec3 *pv = calloc(c->v->nodes.count, sizeof(rk_vec3)), *ps = calloc(src->nodes.count, sizeof(rk_vec3));
	double worst = 0.0, cy = cos(yaw), sy = sin(yaw);
	for (int k = 0; k <= 6 && pv && ps; k++) {
		double t = clip->time_begin + (clip->time_end - clip->time_begin) * k / 6.0;
		eval_positions(rk_t_, src, clip, t, ps);
		eval_positions(rk_t_, c->v, &c->v->clips.data[0], t - clip->time_begin, pv);
		for (int b = 1; b < RK_HUMANOID_BONE_COUNT; b++) {
			int p = rk_humanoid_parent(&c->hs, (rk_humanoid_bone)b);
			if (!c->hs.bones[b] || p < 0) continue;
			rk_vec3 ds = bone_dir(&c->hs, ps, (rk_humanoid_bone)p, (rk_humanoid_bone)b);
			rk_vec3 turned = { cy * ds.x + sy * ds.z, ds.y, -sy * ds.x + cy * ds.z }; /* R_y(yaw) ds */
			double d = rk_vec3_dot(turned, bone_dir(&c->hv, pv, (rk_humanoid_bone)p, (rk_humanoid_bone)b));
			double a = acos(d > 1.0 ? 1.0 : d);
			if (a > worst) worst = a;
		}
	}
	if (!pv || !ps) worst = 1e9;
	free(pv);
	free(ps);
	return worst;
}

/* A non-VRM scene (the A-pose demo avatar with the demo Walk retargeted
 * onto it) is written with VRM's T-pose as rest: at rest the arms, hands and fingers point along +-X, the
 * thumbs 45 degrees forward, the legs down (hand-derived directions); and the
 * animated bones still point where the source's do. */
RK_TEST(vrma_tpose_rest)
{
	rk_error err;
	rk_scene *mixamo = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err), *src = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
	RK_REQUIRE(mixamo && src);
	const rk_anim_clip *walk = rk_retarget(src, mixamo, rk_scene_find_clip(mixamo, "Walk"), NULL, NULL, &err);
	RK_REQUIRE(walk);
	vrma_case c;
	vrma_case_make(rk_t_, src, walk, &c);
	RK_REQUIRE(c.v);
	rk_vec3 *pv = calloc(c.v->nodes.count, sizeof(rk_vec3));
	RK_REQUIRE(pv);
	eval_positions(rk_t_, c.v, NULL, 0.0, pv);
	static const struct { rk_humanoid_bone a, b; double x, y, z; } rest[] = {
		{ RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM, 1, 0, 0 },
		{ RK_HUMANOID_RIGHT_LOWER_ARM, RK_HUMANOID_RIGHT_HAND, -1, 0, 0 },
		{ RK_HUMANOID_LEFT_HAND, RK_HUMANOID_LEFT_MIDDLE_PROXIMAL, 1, 0, 0 },
		{ RK_HUMANOID_RIGHT_INDEX_PROXIMAL, RK_HUMANOID_RIGHT_INDEX_INTERMEDIATE, -1, 0, 0 },
		{ RK_HUMANOID_LEFT_LITTLE_INTERMEDIATE, RK_HUMANOID_LEFT_LITTLE_DISTAL, 1, 0, 0 },
		{ RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG, 0, -1, 0 },
		{ RK_HUMANOID_RIGHT_LOWER_LEG, RK_HUMANOID_RIGHT_FOOT, 0, -1, 0 },
		{ RK_HUMANOID_LEFT_THUMB_METACARPAL, RK_HUMANOID_LEFT_THUMB_PROXIMAL, 0.70710678118654752, 0, 0.70710678118654752 },
	};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
		rk_vec3 d = bone_dir(&c.hv, pv, rest[i].a, rest[i].b);
		RK_CHECK_NEAR(d.x, rest[i].x, 1e-6);
		RK_CHECK_NEAR(d.y, rest[i].y, 1e-6);
		RK_CHECK_NEAR(d.z, rest[i].z, 1e-6);
	}
	/* animated: every humanoid bone pair points as in the source */
	RK_CHECK(vrma_case_worst(rk_t_, src, walk, &c, 0.0) < 1e-5);
	free(pv);
	rk_scene_free(c.v);
	rk_scene_free(src);
	rk_scene_free(mixamo);
}

typedef struct counting { size_t live, blocks, calls; } counting;

static void *count_alloc(void *user, size_t size)
{
	counting *c = (counting *)user;
	void *p = malloc(size);
	if (p) {
		c->live += size;
		c->blocks++;
		c->calls++;
	}
	return p;
}

static void count_free(void *user, void *ptr, size_t size)
{
	counting *c = (counting *)user;
	c->live -= size;
	c->blocks--;
	free(ptr);
}

/* The VRMA writer allocates from opts.allocator only (the output too, freed
 * by rk_vrma_memory_free), and a memory_limit too small fails with LIMIT. */
RK_TEST(vrma_write_allocator_and_limit)
{
	rk_scene *walk = load_fixture("vroid_walk.vrma");
	RK_REQUIRE(walk);
	counting c = { 0, 0, 0 };
	rk_vrma_write_opts o = { 0 };
	o.allocator = (rk_allocator){ count_alloc, count_free, &c };
	void *data = NULL;
	size_t size = 0;
	rk_error err;
	RK_REQUIRE(rk_vrma_write_memory(walk, &o, &data, &size, &err));
	RK_CHECK(c.calls >= 4 && c.blocks == 1 && c.live > size);
	rk_vrma_memory_free(data);
	RK_CHECK_INT(c.live, 0);
	RK_CHECK_INT(c.blocks, 0);
	o.memory_limit = 4096;
	RK_CHECK(!rk_vrma_write_memory(walk, &o, &data, &size, &err) && err.code == RK_ERROR_LIMIT && data == NULL);
	RK_CHECK_INT(c.live, 0);
	rk_scene_free(walk);
}

/* A non-VRM character facing -Z (the shared Soldier.glb) is turned to face
 * +Z: at rest its left leg is on +X and its left arm points along +X, and
 * each animated bone points as the Soldier's turned about +Y by the yaw that
 * takes its left (left minus right upper leg, horizontal) to +X (about half
 * a turn: its legs are not exactly level). */
RK_TEST(vrma_faces_plus_z)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/Soldier.glb", shared);
	rk_error err;
	rk_scene *src = rk_load_file(path, NULL, &err);
	RK_REQUIRE(src);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	RK_REQUIRE(walk);
	vrma_case c;
	vrma_case_make(rk_t_, src, walk, &c);
	RK_REQUIRE(c.v);
	rk_vec3 *pv = calloc(c.v->nodes.count, sizeof(rk_vec3)), *ps = calloc(src->nodes.count, sizeof(rk_vec3));
	RK_REQUIRE(pv && ps);
	eval_positions(rk_t_, c.v, NULL, 0.0, pv);
	RK_CHECK(pv[c.hv.bones[RK_HUMANOID_LEFT_UPPER_LEG]->index].x > pv[c.hv.bones[RK_HUMANOID_RIGHT_UPPER_LEG]->index].x);
	RK_CHECK_NEAR(bone_dir(&c.hv, pv, RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM).x, 1.0, 1e-6);
	/* the turn: the left leg minus the right, made horizontal, onto +X */
	eval_positions(rk_t_, src, NULL, 0.0, ps);
	rk_vec3 left = rk_vec3_sub(ps[c.hs.bones[RK_HUMANOID_LEFT_UPPER_LEG]->index], ps[c.hs.bones[RK_HUMANOID_RIGHT_UPPER_LEG]->index]);
	double yaw = atan2(left.z, left.x);
	RK_CHECK(fabs(fabs(yaw) - 3.14159265358979) < 0.05); /* about half a turn: Soldier faces -Z */
	RK_CHECK(vrma_case_worst(rk_t_, src, walk, &c, yaw) < 1e-5);
	free(pv);
	free(ps);
	rk_scene_free(c.v);
	rk_scene_free(src);
}


/* ---- expressions: VRMA expression tracks onto VRM morph targets ---------------- */

/* The Face node's morph weight track in `clip`, or NULL. */
static const rk_anim_track *face_track(const rk_anim_clip *clip)
{
	for (size_t i = 0; i < clip->layers[0].track_count; i++) {
		const rk_anim_track *t = &clip->layers[0].tracks[i];
		if (t->target == RK_TARGET_MORPH_WEIGHTS && strcmp(t->node->name, "Face") == 0) return t;
	}
	return NULL;
}

/* Eye rotations of the look-at on vroid_face_vrm1.vrm, by hand from
 * three-vrm's VRMLookAtBoneApplier and make_vrm.py's numbers: look-at
 * (yaw, pitch) = (0, 0), (30, -20), (-60, 45) degrees; range maps (input
 * max 90): inner 8, outer 12, down 6, up 10 degrees. Left eye: pitch < 0 ->
 * -down(-pitch), else up(pitch); yaw < 0 -> -inner(-yaw), else outer(yaw);
 * the right eye swaps inner and outer. The eyes and the head have identity
 * rest rotations, so the eye's local rotation is Ry(yaw') Rx(pitch'):
 *   0.5 s: left (4, -4/3), right (8/3, -4/3); 1 s: left (-16/3, 5),
 *   right (-8, 5).
 * vroid_face_vrm0.vrm: firstPerson.lookAtTypeName "Bone" without degree
 * maps: three-vrm's defaults xRange 90, yRange 10 on all four; faceFront
 * (0, 0, -1) conjugates E by Ry(180), which negates the pitch:
 *   0.5 s: both (10/3, 20/9); 1 s: both (-20/3, -5). */
static void check_look_at(rk_test_state *rk_t_, const rk_scene *dst, const rk_anim_clip *c, bool vrm0)
{
	static const double want1[2][3][2] = { { { 0, 0 }, { 4, -4.0 / 3 }, { -16.0 / 3, 5 } },
		{ { 0, 0 }, { 8.0 / 3, -4.0 / 3 }, { -8, 5 } } };
	static const double want0[2][3][2] = { { { 0, 0 }, { 10.0 / 3, 20.0 / 9 }, { -20.0 / 3, -5 } },
		{ { 0, 0 }, { 10.0 / 3, 20.0 / 9 }, { -20.0 / 3, -5 } } };
	const double (*want)[3][2] = vrm0 ? want0 : want1;
	for (int side = 0; side < 2; side++) {
		const rk_node *eye = rk_scene_find_node(dst, side ? "J_Adj_R_FaceEye" : "J_Adj_L_FaceEye");
		RK_REQUIRE(eye);
		const rk_anim_track *t = NULL;
		for (size_t i = 0; i < c->layers[0].track_count; i++)
			if (c->layers[0].tracks[i].node == eye && c->layers[0].tracks[i].target == RK_TARGET_ROTATION_QUAT)
				t = &c->layers[0].tracks[i];
		RK_REQUIRE(t);
		for (int f = 0; f < 3; f++) {
			double q[4];
			rk_anim_track_eval(t, 0.5 * f, false, q, 4);
			const double d = 3.14159265358979323846 / 180.0;
			rk_quat e = rk_quat_mul(rk_quat_axis_angle((rk_vec3){ 0, 1, 0 }, want[side][f][0] * d),
				rk_quat_axis_angle((rk_vec3){ 1, 0, 0 }, want[side][f][1] * d));
			double ang = rk_quat_angle_between(e, (rk_quat){ q[0], q[1], q[2], q[3] });
			RK_CHECK(ang < 1e-6); /* the file's float keys */
		}
	}
}

/* `avatar` (a fixture) with vroid_face.vrma retargeted at 2 fps and its
 * expressions applied; warnings into *log. NULL on a failure (reported). */
static rk_scene *face_retarget(rk_test_state *rk_t_, const rk_scene *src, const char *avatar, warn_log *log,
	rk_expression_report *rep, rk_anim_clip **clip)
{
	rk_scene *dst = load_fixture(avatar);
	RK_CHECK(dst != NULL);
	if (!dst) return NULL;
	rk_error err;
	rk_retarget_opts ro = { .fps = 2 };
	const rk_anim_clip *sc = &src->clips.data[0];
	rk_anim_clip *c = rk_retarget(dst, src, sc, &ro, NULL, &err);
	ro.warning = log_warning;
	ro.warning_user = log;
	bool ok = c && rk_retarget_expressions(dst, c, src, sc, &ro, rep, &err);
	RK_CHECK(ok);
	if (!ok) {
		rk_scene_free(dst);
		return NULL;
	}
	*clip = c;
	return dst;
}

/* The face's 3 morph weights at 0, 0.5 and 1 s against `want`. */
static void check_face_weights(rk_test_state *rk_t_, const rk_anim_clip *c, const double want[3][3])
{
	const rk_anim_track *t = face_track(c);
	RK_REQUIRE(t);
	RK_CHECK_INT(t->components, 3);
	RK_REQUIRE(t->key_count == 3);
	for (int f = 0; f < 3; f++) {
		double v[3];
		RK_CHECK_INT(rk_anim_track_eval(t, 0.5 * f, false, v, 3), 3);
		for (int k = 0; k < 3; k++) RK_CHECK_NEAR(v[k], want[f][k], 1e-6);
	}
}

/* vroid_face.vrma (happy 0/1/0.4, blink 0.2/0.6/1, aa 0.3/0.7/0.4, custom
 * smirk 1/0/0.5, surprised at 0, 0.5, 1 s) onto the face avatars, worked by
 * hand from make_vrm.py's binds:
 *   1.0: happy -> t0 x1 + t1 x0.5 (overrideBlink blend: blink multiplier
 *        1 - happy), blink -> t1 x0.8, aa (binary) -> t2, smirk -> t0 x0.25
 *     0 s: t0 = 0.25, t1 = 0.8 x 0.2 = 0.16, t2 = 0 (0.3 <= 0.5)
 *     0.5: t0 = 1, t1 = 0.5 + 0.8 x 0.6 x (1 - 1) = 0.5, t2 = 1
 *     1 s: t0 = 0.4 + 0.125 = 0.525, t1 = 0.2 + 0.8 x 1 x 0.6 = 0.68, t2 = 0
 *   0.x: joy/blink/a/smirk the same binds (weights / 100), no overrides:
 *     0.5: t1 = 0.5 + 0.48 = 0.98; 1 s: t1 = 0.2 + 0.8 = 1.0 */
RK_TEST(vrma_expressions_onto_vrm)
{
	static const char *const avatars[] = { "vroid_face_vrm1.vrm", "vroid_face_vrm0.vrm" };
	static const double want[2][3][3] = { { { 0.25, 0.16, 0 }, { 1, 0.5, 1 }, { 0.525, 0.68, 0 } },
		{ { 0.25, 0.16, 0 }, { 1, 0.98, 1 }, { 0.525, 1.0, 0 } } };
	rk_scene *src = load_fixture("vroid_face.vrma");
	RK_REQUIRE(src);
	RK_CHECK(rk_scene_has_vrma_expressions(src));
	for (int a = 0; a < 2; a++) {
		warn_log log = { 0 };
		rk_expression_report rep;
		rk_anim_clip *c = NULL;
		rk_scene *dst = face_retarget(rk_t_, src, avatars[a], &log, &rep, &c);
		RK_REQUIRE(dst);
		RK_CHECK(!rk_scene_has_vrma_expressions(dst));
		RK_CHECK_INT(rep.source_expressions, 5);
		RK_CHECK_INT(rep.matched, 4);
		RK_CHECK_INT(rep.tracks, 1);
		RK_CHECK_INT(log.count, 1);
		RK_CHECK(strstr(log.text, "'surprised'") != NULL);
		/* look-at: bone type on both (the 0.x one with three-vrm's
		 * default degree maps and its -Z face) */
		RK_CHECK_INT(rep.look_at_tracks, 2);
		check_look_at(rk_t_, dst, c, a == 1);
		check_face_weights(rk_t_, c, want[a]);
		rk_scene_free(dst);
	}
	/* a target without VRM expressions: nothing added, each expression warned */
	rk_scene *rig = load_fixture("vroid_vrm1.vrm");
	RK_REQUIRE(rig);
	rk_error err;
	rk_anim_clip *c = rk_retarget(rig, src, &src->clips.data[0], NULL, NULL, &err);
	RK_REQUIRE(c);
	size_t before = c->layers[0].track_count;
	warn_log log = { 0 };
	rk_retarget_opts ro = { .warning = log_warning, .warning_user = &log };
	rk_expression_report rep;
	RK_REQUIRE(rk_retarget_expressions(rig, c, src, &src->clips.data[0], &ro, &rep, &err));
	RK_CHECK_INT(c->layers[0].track_count, before);
	RK_CHECK_INT(rep.matched, 0);
	RK_CHECK_INT(log.count, 5);
	RK_CHECK(strstr(log.text, "declares no VRM expressions") != NULL);
	/* bad arguments: a clip of another scene */
	RK_CHECK(!rk_retarget_expressions(rig, &src->clips.data[0], src, &src->clips.data[0], NULL, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_retarget_expressions(NULL, c, src, &src->clips.data[0], NULL, NULL, &err));
	rk_scene_free(rig);
	rk_scene_free(src);
}

/* vroid_face.vrma's look-at onto avatars with an expression look-at, worked
 * by hand from make_vrm.py and three-vrm's VRMLookAtExpressionApplier:
 * look-at (yaw, pitch) (0, 0), (30, -20), (-60, 45); maps input max 60,
 * outer 0.8, up 0.9, down 0.6. pitch < 0: lookUp = 0.9 x 20/60 = 0.3;
 * yaw >= 0: lookLeft = 0.8 x 30/60 = 0.4; at 1 s lookDown = 0.6 x 45/60 =
 * 0.45, lookRight = 0.8. Binds: lookUp t0 x1, lookDown t0 x0.5, lookLeft
 * t2 x1, lookRight t2 x0.25, aa t1 x0.5 (aa 0.3, 0.7, 0.4).
 *   1.0 (aa overrideLookAt blend: look multiplier 1 - aa = 0.7, 0.3, 0.6):
 *     0 s (0, 0.15, 0); 0.5 s (0.3 x 0.3, 0.35, 0.4 x 0.3) = (0.09, 0.35,
 *     0.12); 1 s (0.45 x 0.6 x 0.5, 0.2, 0.8 x 0.6 x 0.25) = (0.135, 0.2, 0.12)
 *   0.x (no overrides): 0 s (0, 0.15, 0); 0.5 s (0.3, 0.35, 0.4);
 *     1 s (0.225, 0.2, 0.2) */
RK_TEST(vrma_look_at_expressions)
{
	static const char *const avatars[] = { "vroid_lookexpr_vrm1.vrm", "vroid_lookexpr_vrm0.vrm" };
	static const double want[2][3][3] = { { { 0, 0.15, 0 }, { 0.09, 0.35, 0.12 }, { 0.135, 0.2, 0.12 } },
		{ { 0, 0.15, 0 }, { 0.3, 0.35, 0.4 }, { 0.225, 0.2, 0.2 } } };
	rk_scene *src = load_fixture("vroid_face.vrma");
	RK_REQUIRE(src);
	for (int a = 0; a < 2; a++) {
		warn_log log = { 0 };
		rk_expression_report rep;
		rk_anim_clip *c = NULL;
		rk_scene *dst = face_retarget(rk_t_, src, avatars[a], &log, &rep, &c);
		RK_REQUIRE(dst);
		RK_CHECK_INT(rep.look_at_tracks, 0);
		RK_CHECK_INT(rep.look_at_expressions, 4);
		RK_CHECK_INT(rep.matched, 1);   /* aa; happy, blink, smirk, surprised are warned */
		RK_CHECK_INT(log.count, 4);
		check_face_weights(rk_t_, c, want[a]);
		rk_scene_free(dst);
	}
	rk_scene_free(src);
}

/* Byte flips of the face avatars (bone and expression look-at) and of the
 * VRMA: whatever loads retargets its expressions and look-at without a
 * crash (ASan), weights finite. */
RK_TEST(vrma_expressions_flipped)
{
	static const char *const names[] = { "vroid_face_vrm1.vrm", "vroid_face_vrm0.vrm", "vroid_lookexpr_vrm1.vrm",
		"vroid_lookexpr_vrm0.vrm", "vroid_face.vrma" };
	const size_t count = sizeof(names) / sizeof(names[0]);
	rk_scene *good_src = load_fixture("vroid_face.vrma"), *good_dst = load_fixture("vroid_face_vrm1.vrm");
	RK_REQUIRE(good_src && good_dst);
	for (size_t f = 0; f < count; f++) {
		size_t size = 0;
		unsigned char *data = read_fixture(names[f], &size);
		RK_REQUIRE(data && size > 100);
		unsigned char *copy = malloc(size);
		RK_REQUIRE(copy);
		rk_load_opts o = { 0 };
		o.filename = names[f];
		for (size_t i = 20; i < size; i += 11) {
			memcpy(copy, data, size);
			copy[i] = (unsigned char)(copy[i] ^ (i & 1 ? 0x04 : 0x31));
			rk_scene *s = rk_load_memory(copy, size, &o, NULL);
			if (!s) continue;
			bool is_src = f == count - 1;
			rk_scene *dst = is_src ? load_fixture("vroid_face_vrm1.vrm") : s;
			const rk_scene *src = is_src ? s : good_src;
			rk_error err;
			rk_anim_clip *c = src->clips.count ? rk_retarget(dst, src, &src->clips.data[0], NULL, NULL, &err) : NULL;
			if (c && rk_retarget_expressions(dst, c, src, &src->clips.data[0], NULL, NULL, &err)) {
				const rk_anim_track *t = face_track(c);
				for (size_t k = 0; t && k < t->key_count * t->components; k++) RK_CHECK(isfinite(rk_track_value(t, k)));
			}
			if (is_src) rk_scene_free(dst);
			rk_scene_free(s);
		}
		free(copy);
		free(data);
	}
	rk_scene_free(good_src);
	rk_scene_free(good_dst);
}


/* The weight of expression `name` in VRMA scene `v` at `t`: its node's
 * translation x; -1 when the expression or its track is missing. */
static double vrma_expression_weight(const rk_scene *v, const char *group, const char *name, double t)
{
	const rk_ext_value *x = rk_ext_member(rk_ext_member(rk_scene_extension(v, "VRMC_vrm_animation"), "expressions"), group);
	const rk_ext_value *node = rk_ext_member(rk_ext_member(x, name), "node");
	if (!node || node->kind != RK_EXT_NODE || !v->clips.count) return -1;
	const rk_anim_layer *l = &v->clips.data[0].layers[0];
	for (size_t i = 0; i < l->track_count; i++) {
		if (l->tracks[i].node != node->ref || l->tracks[i].target != RK_TARGET_TRANSLATION) continue;
		double out[4];
		rk_anim_track_eval(&l->tracks[i], t, false, out, 4);
		return out[0];
	}
	return -1;
}

/* VRMA out keeps a VRMA source's expression tracks: the scene itself
 * (convert) and, through expression_source, a retarget onto an avatar.
 * Expected: make_vrm.py's FACE_TRACKS keys, linear between them. */
RK_TEST(vrma_write_expressions)
{
	static const struct { const char *group, *name; double v[3]; } want[] = {
		{ "preset", "happy", { 0.0, 1.0, 0.4 } }, { "preset", "blink", { 0.2, 0.6, 1.0 } },
		{ "preset", "aa", { 0.3, 0.7, 0.4 } }, { "custom", "smirk", { 1.0, 0.0, 0.5 } },
		{ "preset", "surprised", { 0.0, 1.0, 0.0 } } };
	rk_scene *src = load_fixture("vroid_face.vrma"), *avatar = load_fixture("vroid_face_vrm1.vrm");
	RK_REQUIRE(src && avatar);
	rk_error err;
	const rk_anim_clip *rc = rk_retarget(avatar, src, &src->clips.data[0], NULL, NULL, &err);
	RK_REQUIRE(rc);
	for (int c = 0; c < 2; c++) {
		rk_vrma_write_stats st = { 0 };
		rk_vrma_write_opts o = { .fps = 4.0, .stats = &st };
		if (c) {
			o.clip = rc;
			o.expression_source = src;
			o.expression_clip = &src->clips.data[0];
		}
		void *data = NULL;
		size_t size = 0;
		RK_REQUIRE(rk_vrma_write_memory(c ? avatar : src, &o, &data, &size, &err));
		RK_CHECK_INT(st.expression_count, 5);
		rk_scene *v = rk_load_memory(data, size, NULL, &err);
		rk_vrma_memory_free(data);
		RK_REQUIRE(v);
		RK_CHECK(rk_scene_has_vrma_expressions(v));
		for (size_t e = 0; e < sizeof(want) / sizeof(want[0]); e++) {
			for (int k = 0; k < 3; k++)
				RK_CHECK_NEAR(vrma_expression_weight(v, want[e].group, want[e].name, 0.5 * k), want[e].v[k], 1e-6);
			RK_CHECK_NEAR(vrma_expression_weight(v, want[e].group, want[e].name, 0.25), 0.5 * (want[e].v[0] + want[e].v[1]), 1e-6);
		}
		RK_CHECK(vrma_expression_weight(v, "custom", "happy", 0.0) < 0); /* groups kept */
		rk_scene_free(v);
	}
	/* no expressions from a source without them; a foreign expression clip is refused */
	rk_vrma_write_stats st = { 0 };
	rk_vrma_write_opts o = { .stats = &st, .clip = rc };
	void *data = NULL;
	size_t size = 0;
	RK_REQUIRE(rk_vrma_write_memory(avatar, &o, &data, &size, &err));
	RK_CHECK_INT(st.expression_count, 0);
	rk_vrma_memory_free(data);
	o.expression_source = src;
	o.expression_clip = rc;
	RK_CHECK(!rk_vrma_write_memory(avatar, &o, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	rk_scene_free(avatar);
	rk_scene_free(src);
}

RK_TEST_MAIN(RK_TEST_ENTRY(vrm1_declared_humanoid), RK_TEST_ENTRY(vrm0_thumbs_translated), RK_TEST_ENTRY(vrm0_unity_names_thumbs),
	RK_TEST_ENTRY(declared_map_without_names), RK_TEST_ENTRY(vrma_humanoid_and_clip),
	RK_TEST_ENTRY(vrm_bad_extension_warns), RK_TEST_ENTRY(vrm_invalid_declaration_falls_back),
	RK_TEST_ENTRY(vrm_truncated_and_flipped), RK_TEST_ENTRY(plain_gltf_declares_nothing),
	RK_TEST_ENTRY(vrm_write_keeps_extensions), RK_TEST_ENTRY(vrm_write_drops_unwritten_reference),
	RK_TEST_ENTRY(vrma_write_round_trip), RK_TEST_ENTRY(vrma_write_bad_inputs), RK_TEST_ENTRY(vrma_tpose_rest),
	RK_TEST_ENTRY(vrma_write_allocator_and_limit), RK_TEST_ENTRY(vrma_faces_plus_z),
	RK_TEST_ENTRY(vrma_expressions_onto_vrm), RK_TEST_ENTRY(vrma_look_at_expressions),
	RK_TEST_ENTRY(vrma_expressions_flipped),
	RK_TEST_ENTRY(vrma_write_expressions))
