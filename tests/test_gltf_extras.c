/*
 * tests/test_gltf_extras.c - what the glTF reader keeps and the writer
 * carries beyond geometry and animation: cameras, KHR_lights_punctual
 * lights, FBX Light / Camera attributes, extras, occlusion and normal
 * scale, KHR material extensions, names, skins, separate files.
 *
 * Expectations are independent of rigkit: the values written by
 * tests/fixtures/make_rich_gltf.py (stated again here), hand-written glTF
 * and FBX text with hand-derived results (FBX cameras look along +X, FBX
 * lights shine along -Y: the documented conventions, so the glTF output's
 * world direction of the camera must be the FBX node's world +X), and the
 * writer's JSON parsed with cJSON, never with rigkit's reader alone.
 * tests/test_gltf_carry.sh adds the piece-by-piece listing, the Khronos
 * validator and three.js.
 */
#include "rk_test.h"

#include "rigkit/export.h"
#include "rigkit/load.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RK_TEST_PI 3.14159265358979323846

static const rk_warning *find_warning(const rk_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings.count; i++)
		if (strstr(s->warnings.data[i].message, needle)) return &s->warnings.data[i];
	return NULL;
}

static rk_scene *load_rich(rk_error *err)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/rich.gltf", RK_SOURCE_DIR);
	return rk_load_file(path, NULL, err);
}

static rk_scene *load_text(const char *text, rk_error *err)
{
	memset(err, 0, sizeof(*err));
	rk_load_opts o = { .filename = "mem.gltf" };
	return rk_load_memory(text, strlen(text), &o, err);
}

/* The glTF JSON of a GLB in memory (cJSON, caller deletes). */
static cJSON *glb_json(const void *data, size_t size)
{
	const unsigned char *p = (const unsigned char *)data;
	if (size < 20 || memcmp(p, "glTF", 4) != 0) return NULL;
	uint32_t n = (uint32_t)p[12] | ((uint32_t)p[13] << 8) | ((uint32_t)p[14] << 16) | ((uint32_t)p[15] << 24);
	if (20 + (size_t)n > size) return NULL;
	return cJSON_ParseWithLength((const char *)p + 20, n);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const rk_ext_value *member(const rk_ext_value *o, const char *key)
{
	return rk_ext_member(o, key);
}

/* Everything make_rich_gltf.py puts in, read back by the reader. */
RK_TEST(rich_file_read)
{
	rk_error err;
	rk_scene *s = load_rich(&err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_STR(s->scene_name, "Scene");
	/* names as in the file: nodes 2 and 6 have none */
	RK_REQUIRE(s->nodes.count == 12);
	RK_CHECK_STR(s->nodes.data[3].name, "");
	RK_CHECK_INT(s->nodes.data[3].source_id, 2);
	RK_CHECK_STR(s->nodes.data[7].name, "");
	/* cameras */
	RK_REQUIRE(s->cameras.count == 2);
	const rk_camera *c0 = &s->cameras.data[0], *c1 = &s->cameras.data[1];
	RK_CHECK_INT(c0->projection, RK_PROJECTION_PERSPECTIVE);
	RK_CHECK_NEAR(c0->yfov, 0.7, 0.0);
	RK_CHECK_NEAR(c0->aspect_ratio, 1.5, 0.0);
	RK_CHECK_NEAR(c0->znear, 0.05, 0.0);
	RK_CHECK_NEAR(c0->zfar, 200.0, 0.0);
	RK_CHECK_STR(c0->name, "");
	RK_CHECK_STR(c1->name, "Top");
	RK_CHECK_INT(c1->projection, RK_PROJECTION_ORTHOGRAPHIC);
	RK_CHECK_NEAR(c1->xmag, 2.0, 0.0);
	RK_CHECK_NEAR(c1->ymag, 1.5, 0.0);
	RK_CHECK_NEAR(c1->zfar, 50.0, 0.0);
	RK_CHECK(s->nodes.data[7].camera == c0);
	RK_CHECK(rk_scene_find_node(s, "OrthoCam")->camera == c1);
	RK_REQUIRE(c0->extras != NULL);
	const rk_ext_value *lens = member(c0->extras, "lens");
	RK_REQUIRE(lens != NULL && lens->kind == RK_EXT_STRING);
	RK_CHECK_STR(lens->string, "35mm");
	/* lights */
	RK_REQUIRE(s->lights.count == 3);
	const rk_light *sun = &s->lights.data[0], *lamp = &s->lights.data[1], *spot = &s->lights.data[2];
	RK_CHECK_STR(sun->name, "SunLight");
	RK_CHECK_INT(sun->type, RK_LIGHT_DIRECTIONAL);
	RK_CHECK_NEAR(sun->color.y, 0.9, 0.0);
	RK_CHECK_NEAR(sun->intensity, 3.0, 0.0);
	RK_CHECK_INT(lamp->type, RK_LIGHT_POINT);
	RK_CHECK_NEAR(lamp->range, 10.0, 0.0);
	RK_CHECK_INT(spot->type, RK_LIGHT_SPOT);
	RK_CHECK_NEAR(spot->inner_cone_angle, 0.2, 0.0);
	RK_CHECK_NEAR(spot->outer_cone_angle, 0.6, 0.0);
	RK_CHECK_NEAR(spot->intensity, 1.0, 0.0);
	RK_CHECK(rk_scene_find_node(s, "Sun")->light == sun);
	RK_CHECK(rk_scene_find_node(s, "Spot")->light == spot);
	RK_CHECK_INT(rk_scene_find_node(s, "Spot")->kind, RK_NODE_LIGHT);
	RK_CHECK_NEAR(sun->to_node.w, 1.0, 0.0);
	/* extras */
	RK_REQUIRE(s->asset_extras != NULL);
	RK_CHECK_NEAR(member(s->asset_extras, "revision")->number, 3.0, 0.0);
	RK_CHECK_STR(member(rk_scene_find_node(s, "Root")->extras, "role")->string, "root");
	RK_CHECK_INT(member(s->nodes.data[3].extras, "unnamed")->kind, RK_EXT_BOOL);
	RK_CHECK_STR(member(s->meshes.data[0].extras, "tag")->string, "box");
	RK_CHECK_STR(member(s->materials.data[0].extras, "quality")->string, "high");
	RK_CHECK(find_warning(s, "top-level extras") != NULL);
	RK_CHECK(find_warning(s, "extras of 1 skins") != NULL);
	RK_CHECK(find_warning(s, "KHR_materials_variants") != NULL);
	/* material: occlusion, normal scale, KHR extensions with textures resolved */
	const rk_material *rich = &s->materials.data[0];
	RK_CHECK(rich->occlusion_texture.texture == &s->textures.data[2]);
	RK_CHECK_INT(rich->occlusion_texture.texcoord, 1);
	RK_CHECK_NEAR(rich->occlusion_strength, 0.7, 0.0);
	RK_CHECK_NEAR(rich->normal_scale, 0.5, 0.0);
	size_t kept = 0;
	const rk_extension *spec = NULL;
	for (size_t i = 0; i < s->extensions.count; i++) {
		if (s->extensions.data[i].owner != RK_EXT_OWNER_MATERIAL || s->extensions.data[i].material != rich) continue;
		kept++;
		if (strcmp(s->extensions.data[i].name, "KHR_materials_specular") == 0) spec = &s->extensions.data[i];
	}
	RK_CHECK_INT(kept, 7);
	RK_REQUIRE(spec != NULL);
	const rk_ext_value *st = member(member(&spec->value, "specularTexture"), "index");
	RK_REQUIRE(st != NULL);
	RK_CHECK_INT(st->kind, RK_EXT_TEXTURE);
	RK_CHECK(st->ref == &s->textures.data[2]);
	RK_CHECK_NEAR(member(&spec->value, "specularFactor")->number, 0.8, 0.0);
	/* textures: image names, sampler filters */
	RK_CHECK_STR(s->textures.data[0].name, "ColorTex");
	RK_CHECK_STR(s->textures.data[0].image_name, "color");
	RK_CHECK_STR(s->textures.data[1].name, "");
	RK_CHECK_INT(s->textures.data[0].mag_filter, 9729);
	RK_CHECK_INT(s->textures.data[0].min_filter, 9987);
	RK_CHECK_INT(s->textures.data[2].mag_filter, 0);
	/* tangents: uv set 0 */
	RK_CHECK(s->meshes.data[0].uv_sets.data[0].tangent.exists);
	rk_scene_free(s);
}

/* The writer's output holds them: parsed with cJSON. */
RK_TEST(rich_file_written)
{
	rk_error err;
	rk_scene *s = load_rich(&err);
	RK_REQUIRE(s != NULL);
	void *data = NULL;
	size_t size = 0;
	rk_gltf_write_stats stats = { 0 };
	rk_gltf_write_opts o = { .stats = &stats };
	RK_REQUIRE(rk_gltf_write_memory(s, &o, &data, &size, &err));
	cJSON *j = glb_json(data, size);
	RK_REQUIRE(j != NULL);
	const cJSON *nodes = cJSON_GetObjectItem(j, "nodes");
	RK_CHECK_INT(cJSON_GetArraySize(nodes), 11);
	/* unnamed stays unnamed */
	RK_CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 2), "name") == NULL);
	RK_CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 6), "name") == NULL);
	RK_CHECK_NEAR(num(cJSON_GetArrayItem(nodes, 6), "camera"), 0, 0);
	const cJSON *cams = cJSON_GetObjectItem(j, "cameras");
	RK_CHECK_INT(cJSON_GetArraySize(cams), 2);
	const cJSON *persp = cJSON_GetObjectItem(cJSON_GetArrayItem(cams, 0), "perspective");
	RK_CHECK_NEAR(num(persp, "yfov"), 0.7, 0);
	RK_CHECK_NEAR(num(persp, "aspectRatio"), 1.5, 0);
	const cJSON *lights = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "extensions"), "KHR_lights_punctual"), "lights");
	RK_CHECK_INT(cJSON_GetArraySize(lights), 3);
	RK_CHECK_NEAR(num(cJSON_GetObjectItem(cJSON_GetArrayItem(lights, 2), "spot"), "outerConeAngle"), 0.6, 0);
	const cJSON *spot_node = cJSON_GetArrayItem(nodes, 10);
	RK_CHECK_NEAR(num(cJSON_GetObjectItem(cJSON_GetObjectItem(spot_node, "extensions"), "KHR_lights_punctual"), "light"), 2, 0);
	/* extensionsUsed lists what is written */
	const cJSON *used = cJSON_GetObjectItem(j, "extensionsUsed");
	const char *want[] = { "KHR_lights_punctual", "KHR_materials_specular", "KHR_materials_clearcoat", "KHR_texture_transform" };
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		bool found = false;
		for (const cJSON *e = used ? used->child : NULL; e; e = e->next) found = found || (cJSON_IsString(e) && !strcmp(e->valuestring, want[k]));
		RK_CHECK(found);
	}
	/* three skins, as in the file */
	RK_CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "skins")), 3);
	RK_CHECK_INT(stats.skin_count, 3);
	/* material: occlusion and the specular texture point at the same image */
	const cJSON *mat = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "materials"), 0);
	const cJSON *occ = cJSON_GetObjectItem(mat, "occlusionTexture");
	RK_CHECK_NEAR(num(occ, "strength"), 0.7, 0);
	RK_CHECK_NEAR(num(occ, "texCoord"), 1, 0);
	RK_CHECK_NEAR(num(cJSON_GetObjectItem(mat, "normalTexture"), "scale"), 0.5, 0);
	const cJSON *sp = cJSON_GetObjectItem(cJSON_GetObjectItem(mat, "extensions"), "KHR_materials_specular");
	RK_CHECK_NEAR(num(cJSON_GetObjectItem(sp, "specularTexture"), "index"), num(occ, "index"), 0);
	RK_CHECK(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(mat, "extras"), "quality")));
	/* mesh extras merged with targetNames */
	const cJSON *m1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "meshes"), 1);
	const cJSON *mx = cJSON_GetObjectItem(m1, "extras");
	RK_CHECK(cJSON_IsString(cJSON_GetObjectItem(mx, "kind")));
	RK_CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(mx, "targetNames")), 1);
	RK_CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "asset"), "extras") != NULL);
	RK_CHECK(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "scenes"), 0), "name")));
	const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "samplers"), 0);
	RK_CHECK_NEAR(num(smp, "minFilter"), 9987, 0);
	cJSON_Delete(j);
	rk_gltf_memory_free(data);
	rk_scene_free(s);
}

static const char rk_doc_head[] = "{\"asset\":{\"version\":\"2.0\"},";

static void check_error(rk_test_state *rk_t_, const char *body, const char *pointer, const char *words)
{
	char doc[4096];
	snprintf(doc, sizeof(doc), "%s%s}", rk_doc_head, body);
	rk_error err;
	rk_scene *s = load_text(doc, &err);
	RK_CHECK(s == NULL);
	if (s) {
		rk_scene_free(s);
		return;
	}
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	char text[1024];
	rk_error_format(text, sizeof(text), &err);
	if (!strstr(text, pointer) || !strstr(text, words)) printf("  unexpected error: %s\n", text);
	RK_CHECK(strstr(text, pointer) != NULL);
	RK_CHECK(strstr(text, words) != NULL);
}

/* Hostile cameras and lights: errors with the JSON pointer; oddities warn. */
RK_TEST(bad_lights_and_cameras)
{
	check_error(rk_t_, "\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"spot\",\"spot\":{\"outerConeAngle\":\"wide\"}}]}}",
		"/extensions/KHR_lights_punctual/lights/0/spot/outerConeAngle", "number");
	check_error(rk_t_, "\"cameras\":[{\"type\":\"fisheye\"}]", "/cameras/0/type", "perspective");
	check_error(rk_t_, "\"cameras\":[{\"type\":\"perspective\"}]", "/cameras/0/perspective", "perspective");
	check_error(rk_t_, "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":0.1}}],\"nodes\":[{\"camera\":1}]",
		"/nodes/0/camera", "1");
	/* warnings, the file loads (extras nested 60 deep are cut at 48) */
	char deep[200];
	size_t n = 0;
	for (int d = 0; d < 60; d++) deep[n++] = '[';
	deep[n++] = '1';
	for (int d = 0; d < 60; d++) deep[n++] = ']';
	deep[n] = '\0';
	char doc[4096];
	snprintf(doc, sizeof(doc), "%s%s%s}]}", rk_doc_head,
		"\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"area\",\"range\":-1},{\"color\":[1,1,1]}]}},"
		"\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":-1,\"znear\":0.1}}],"
		"\"nodes\":[{\"extensions\":{\"KHR_lights_punctual\":{\"light\":7}}},"
		"{\"camera\":0,\"extensions\":{\"KHR_lights_punctual\":{\"light\":0}},\"extras\":", deep);
	rk_error err;
	rk_scene *s = load_text(doc, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK(find_warning(s, "unknown light type") != NULL);
	RK_CHECK(find_warning(s, "range must be > 0") != NULL);
	RK_CHECK(find_warning(s, "yfov must be > 0") != NULL);
	RK_CHECK(find_warning(s, "nested deeper") != NULL);
	RK_CHECK(find_warning(s, "has no \"type\"") != NULL);
	const rk_warning *lw = find_warning(s, "the node gets no light");
	RK_REQUIRE(lw != NULL);
	RK_CHECK_STR(lw->path, "/nodes/0/extensions/KHR_lights_punctual/light");
	RK_CHECK_INT(s->lights.data[0].type, RK_LIGHT_POINT);
	RK_CHECK_INT(s->lights.data[1].type, RK_LIGHT_POINT);
	RK_CHECK(s->nodes.data[1].light == NULL);
	RK_CHECK(s->nodes.data[2].camera == &s->cameras.data[0]);
	RK_CHECK(s->nodes.data[2].light == &s->lights.data[0]);
	RK_CHECK(s->nodes.data[2].extras != NULL);
	/* and the writer makes a valid file of it */
	void *data = NULL;
	size_t size = 0;
	RK_CHECK(rk_gltf_write_memory(s, NULL, &data, &size, &err));
	rk_gltf_memory_free(data);
	rk_scene_free(s);
}

/* FBX Camera and Light attributes: values and directions. */
static const char rk_fbx_attrs[] =
	"; FBX 7.4.0 project file\n"
	"FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
	"GlobalSettings:  {\n\tProperties70:  {\n\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n"
	"\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\t}\n}\n"
	"Objects:  {\n"
	"\tNodeAttribute: 10, \"NodeAttribute::Cam\", \"Camera\" {\n\t\tProperties70:  {\n"
	"\t\t\tP: \"ApertureMode\", \"enum\", \"\", \"\",2\n"
	"\t\t\tP: \"FieldOfView\", \"FieldOfView\", \"\", \"A\",60\n"
	"\t\t\tP: \"AspectWidth\", \"double\", \"Number\", \"\",1920\n"
	"\t\t\tP: \"AspectHeight\", \"double\", \"Number\", \"\",1080\n"
	"\t\t\tP: \"NearPlane\", \"double\", \"Number\", \"\",5\n"
	"\t\t\tP: \"FarPlane\", \"double\", \"Number\", \"\",5000\n"
	"\t\t}\n\t}\n"
	"\tNodeAttribute: 11, \"NodeAttribute::Lamp\", \"Light\" {\n\t\tProperties70:  {\n"
	"\t\t\tP: \"LightType\", \"enum\", \"\", \"\",2\n"
	"\t\t\tP: \"Color\", \"Color\", \"\", \"A\",1,0.5,0.25\n"
	"\t\t\tP: \"Intensity\", \"Number\", \"\", \"A\",250\n"
	"\t\t\tP: \"InnerAngle\", \"Number\", \"\", \"A\",20\n"
	"\t\t\tP: \"OuterAngle\", \"Number\", \"\", \"A\",60\n"
	"\t\t}\n\t}\n"
	"\tModel: 100, \"Model::CamNode\", \"Camera\" {\n\t\tVersion: 232\n\t\tProperties70:  {\n"
	"\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,100,500\n"
	"\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",0,90,0\n\t\t}\n\t}\n"
	"\tModel: 101, \"Model::LampNode\", \"Light\" {\n\t\tVersion: 232\n\t\tProperties70:  {\n"
	"\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,300,0\n\t\t}\n\t}\n"
	"}\n"
	"Connections:  {\n\tC: \"OO\",100,0\n\tC: \"OO\",101,0\n\tC: \"OO\",10,100\n\tC: \"OO\",11,101\n}\n";

RK_TEST(fbx_light_and_camera)
{
	rk_error err;
	memset(&err, 0, sizeof(err));
	rk_scene *s = rk_load_memory(rk_fbx_attrs, strlen(rk_fbx_attrs), NULL, &err);
	if (!s) {
		char text[512];
		rk_error_format(text, sizeof(text), &err);
		printf("  %s\n", text);
	}
	RK_REQUIRE(s != NULL);
	RK_REQUIRE(s->cameras.count == 1 && s->lights.count == 1);
	const rk_camera *c = &s->cameras.data[0];
	const rk_light *l = &s->lights.data[0];
	RK_CHECK_STR(c->name, "Cam");
	RK_CHECK_NEAR(c->yfov, 60.0 * RK_TEST_PI / 180.0, 1e-12);  /* ApertureMode 2: FieldOfView is vertical */
	RK_CHECK_NEAR(c->aspect_ratio, 1920.0 / 1080.0, 1e-12);
	RK_CHECK_NEAR(c->znear, 5.0, 0.0);
	RK_CHECK_NEAR(c->zfar, 5000.0, 0.0);
	RK_CHECK_INT(l->type, RK_LIGHT_SPOT);
	RK_CHECK_NEAR(l->intensity, 2.5, 1e-12);
	RK_CHECK_NEAR(l->color.y, 0.5, 0.0);
	RK_CHECK_NEAR(l->inner_cone_angle, 10.0 * RK_TEST_PI / 180.0, 1e-12);
	RK_CHECK_NEAR(l->outer_cone_angle, 30.0 * RK_TEST_PI / 180.0, 1e-12);
	const rk_node *cam = rk_scene_find_node(s, "CamNode"), *lamp = rk_scene_find_node(s, "LampNode");
	RK_REQUIRE(cam && lamp);
	RK_CHECK(cam->camera == c);
	RK_CHECK(lamp->light == l);
	/* conventions: camera looks along node +X, light along node -Y */
	rk_vec3 cd = rk_quat_rotate(c->to_node, (rk_vec3){ 0, 0, -1 }), ld = rk_quat_rotate(l->to_node, (rk_vec3){ 0, 0, -1 });
	RK_CHECK_NEAR(cd.x, 1.0, 1e-12);
	RK_CHECK_NEAR(ld.y, -1.0, 1e-12);
	rk_vec3 cu = rk_quat_rotate(c->to_node, (rk_vec3){ 0, 1, 0 });
	RK_CHECK_NEAR(cu.y, 1.0, 1e-12);

	/* written: the extra child carries the camera; its glTF world -Z is the
	 * FBX node's world +X. CamNode is turned 90 degrees about Y, so its +X
	 * points along world -Z: the camera looks along -Z. */
	void *data = NULL;
	size_t size = 0;
	RK_REQUIRE(rk_gltf_write_memory(s, NULL, &data, &size, &err));
	rk_scene *back = rk_load_memory(data, size, NULL, &err);
	RK_REQUIRE(back != NULL);
	const rk_node *carrier = NULL, *light_carrier = NULL;
	for (size_t i = 0; i < back->nodes.count; i++) {
		if (back->nodes.data[i].camera) carrier = &back->nodes.data[i];
		if (back->nodes.data[i].light) light_carrier = &back->nodes.data[i];
	}
	RK_REQUIRE(carrier && light_carrier);
	RK_CHECK_STR(carrier->parent->name, "CamNode");
	RK_CHECK_STR(light_carrier->parent->name, "LampNode");
	rk_vec3 wd = rk_mat4_transform_vector(carrier->node_to_world, (rk_vec3){ 0, 0, -1 });
	wd = rk_vec3_normalize(wd); /* the root scales centimetres to metres */
	RK_CHECK_NEAR(wd.x, 0.0, 1e-9);
	RK_CHECK_NEAR(wd.z, -1.0, 1e-9);
	rk_vec3 lw = rk_mat4_transform_vector(light_carrier->node_to_world, (rk_vec3){ 0, 0, -1 });
	lw = rk_vec3_normalize(lw);
	RK_CHECK_NEAR(lw.y, -1.0, 1e-9);
	RK_CHECK_INT(back->lights.data[0].type, RK_LIGHT_SPOT);
	RK_CHECK_NEAR(back->cameras.data[0].yfov, c->yfov, 1e-12);
	rk_scene_free(back);
	rk_gltf_memory_free(data);
	rk_scene_free(s);
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Separate files: .bin and images beside the .gltf; refused elsewhere. */
RK_TEST(separate_files)
{
	rk_error err;
	rk_scene *s = load_rich(&err);
	RK_REQUIRE(s != NULL);
	char dir[1024], path[1200], bin[1200], img[1200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_extras_sep", RK_BINARY_DIR);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/a.gltf", dir);
	snprintf(bin, sizeof(bin), "%s/a.bin", dir);
	snprintf(img, sizeof(img), "%s/a_1.png", dir);
	remove(path);
	remove(bin);
	remove(img);
	rk_gltf_write_stats st = { 0 };
	rk_gltf_write_opts o = { .separate_files = true, .stats = &st };
	RK_REQUIRE(rk_gltf_write(s, path, &o, &err));
	RK_CHECK(file_exists(path) && file_exists(bin) && file_exists(img));
	RK_CHECK_INT(st.file_count, 4);
	rk_scene *back = rk_load_file(path, NULL, &err);
	RK_REQUIRE(back != NULL);
	RK_CHECK_INT(back->textures.count, s->textures.count);
	RK_CHECK(back->textures.data[1].resolved_path != NULL);
	RK_CHECK_INT(back->meshes.data[0].vertex_count, s->meshes.data[0].vertex_count);
	rk_scene_free(back);
	/* GLB and memory output cannot have side files */
	void *data = NULL;
	size_t size = 0;
	RK_CHECK(!rk_gltf_write_memory(s, &o, &data, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	snprintf(path, sizeof(path), "%s/a.glb", dir);
	RK_CHECK(!rk_gltf_write(s, path, &o, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!file_exists(path));
	rk_scene_free(s);
}

/* One glTF skin used by two meshes: the reader makes one rk_skin_deformer
 * per (skin, mesh) pair, the writer writes the one skin again. */
RK_TEST(shared_skin_stays_one)
{
	static const char doc[] =
		"{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2]}],"
		"\"nodes\":[{\"name\":\"J\"},{\"name\":\"A\",\"mesh\":0,\"skin\":0},{\"name\":\"B\",\"mesh\":1,\"skin\":0}],"
		"\"skins\":[{\"joints\":[0]}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]},"
		"{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
		"{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
		"{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
		"{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],"
		"\"buffers\":[{\"byteLength\":96,\"uri\":\"data:application/octet-stream;base64,"
		/* positions (0,0,0) (1,0,0) (0,1,0); joints 0; weights (1,0,0,0) */
		"AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAA\"}]}";
	rk_error err;
	rk_scene *s = load_text(doc, &err);
	if (!s) {
		char text[512];
		rk_error_format(text, sizeof(text), &err);
		printf("  %s\n", text);
	}
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(s->skins.count, 2); /* one per (skin, mesh) pair, load.h */
	void *data = NULL;
	size_t size = 0;
	RK_REQUIRE(rk_gltf_write_memory(s, NULL, &data, &size, &err));
	cJSON *j = glb_json(data, size);
	RK_REQUIRE(j != NULL);
	RK_CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "skins")), 1);
	const cJSON *nodes = cJSON_GetObjectItem(j, "nodes");
	RK_CHECK_NEAR(num(cJSON_GetArrayItem(nodes, 1), "skin"), 0, 0);
	RK_CHECK_NEAR(num(cJSON_GetArrayItem(nodes, 2), "skin"), 0, 0);
	cJSON_Delete(j);
	rk_gltf_memory_free(data);
	rk_scene_free(s);
}


/* Counting allocator that fails allocation number `fail_at` (1-based). */
typedef struct count_alloc {
	size_t calls, fail_at, live;
} count_alloc;

static void *ca_alloc(void *user, size_t size)
{
	count_alloc *c = (count_alloc *)user;
	if (++c->calls == c->fail_at) return NULL;
	void *p = malloc(size);
	if (p) c->live++;
	return p;
}

static void ca_free(void *user, void *ptr, size_t size)
{
	(void)size;
	count_alloc *c = (count_alloc *)user;
	if (ptr) c->live--;
	free(ptr);
}

static char *read_rich(size_t *size)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/rich.gltf", RK_SOURCE_DIR);
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	char *buf = (char *)malloc(1 << 20);
	*size = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	return buf;
}

/* Every prefix, a few hundred byte corruptions and every allocation failure
 * of rich.gltf (cameras, lights, extras, kept extensions) load or fail
 * cleanly, and the writer takes every scene that loads. */
RK_TEST(rich_file_hostile)
{
	size_t size = 0;
	char *orig = read_rich(&size);
	RK_REQUIRE(orig && size > 1000);
	char *buf = (char *)malloc(size);
	RK_REQUIRE(buf);
	size_t bad = 0, loaded = 0;
	for (size_t len = 0; len < size; len += 7) {
		rk_error err;
		memset(&err, 0, sizeof(err));
		rk_load_opts o = { .filename = "rich.gltf" };
		rk_scene *s = rk_load_memory(orig, len, &o, &err);
		if (s) loaded++;
		else if (err.code == RK_OK || !err.message[0]) bad++;
		rk_scene_free(s);
	}
	uint32_t seed = 12345;
	for (int k = 0; k < 400; k++) {
		memcpy(buf, orig, size);
		seed = seed * 1664525u + 1013904223u;
		size_t at = (seed >> 8) % size;
		seed = seed * 1664525u + 1013904223u;
		buf[at] = (char)(seed >> 24);
		rk_error err;
		memset(&err, 0, sizeof(err));
		rk_load_opts o = { .filename = "rich.gltf" };
		rk_scene *s = rk_load_memory(buf, size, &o, &err);
		if (s) {
			loaded++;
			void *data = NULL;
			size_t n = 0;
			if (rk_gltf_write_memory(s, NULL, &data, &n, &err)) rk_gltf_memory_free(data);
		} else if (err.code == RK_OK || !err.message[0]) {
			bad++;
		}
		rk_scene_free(s);
	}
	RK_CHECK_INT(bad, 0);
	RK_CHECK(loaded > 0);
	/* allocation failures: every one until the load succeeds; nothing leaks */
	bool done = false;
	size_t n = 1;
	for (; n < 100000 && !done; n++) {
		count_alloc ca = { 0, n, 0 };
		rk_load_opts o = { .filename = "rich.gltf", .allocator = { ca_alloc, ca_free, &ca } };
		rk_error err;
		rk_scene *s = rk_load_memory(orig, size, &o, &err);
		if (s) {
			done = true;
			rk_scene_free(s);
		} else {
			RK_CHECK(err.code == RK_ERROR_OUT_OF_MEMORY || err.code == RK_ERROR_LIMIT);
		}
		RK_CHECK_INT(ca.live, 0);
		if (ca.live) break;
	}
	RK_CHECK(done);
	printf("rich.gltf: %zu bytes, %zu prefixes and corruptions loaded, %zu allocation failures injected\n", size, loaded, n - 2);
	free(buf);
	free(orig);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(rich_file_read),
	RK_TEST_ENTRY(rich_file_written),
	RK_TEST_ENTRY(bad_lights_and_cameras),
	RK_TEST_ENTRY(fbx_light_and_camera),
	RK_TEST_ENTRY(separate_files),
	RK_TEST_ENTRY(shared_skin_stays_one),
	RK_TEST_ENTRY(rich_file_hostile))
