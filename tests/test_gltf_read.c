/*
 * tests/test_gltf_read.c - the glTF 2.0 / GLB reader.
 *
 * Expectations are independent of the loader:
 *   - facts about the shared GLBs come from the JSON chunks, read once with
 *     this python3 script (json and struct only), whose output is copied into
 *     rk_shared_facts below:
 *
 *       cd ../shared/assets && python3 - Flamingo.glb Horse.glb Soldier.glb Xbot.glb readyplayer.me.glb <<'EOF'
 *       import json, struct, sys
 *       for fn in sys.argv[1:]:
 *           b = open(fn, 'rb').read()
 *           n = struct.unpack_from('<I', b, 12)[0]
 *           j = json.loads(b[20:20 + n])
 *           A = j['accessors']
 *           nodes = j.get('nodes', []); meshes = j.get('meshes', []); skins = j.get('skins', [])
 *           pairs = {(x['skin'], x['mesh']) for x in nodes if 'skin' in x and 'mesh' in x}
 *           unused = [s for s in range(len(skins)) if s not in {p[0] for p in pairs}]
 *           joints = {i for s in skins for i in s['joints']}
 *           nodefault = any('material' not in p for m in meshes for p in m['primitives'])
 *           verts = [sum(A[p['attributes']['POSITION']]['count'] for p in m['primitives']) for m in meshes]
 *           tris = [sum(A[p['indices']]['count'] // 3 for p in m['primitives']) for m in meshes]
 *           print(fn.split('/')[-1], 'nodes', len(nodes), 'meshes', len(meshes), 'rk_skins', len(pairs) + len(unused),
 *                 'joint_nodes', len(joints), 'skin_joints', [len(s['joints']) for s in skins],
 *                 'materials', len(j.get('materials', [])) + nodefault, 'textures', len(j.get('textures', [])))
 *           print('  verts', verts, 'tris', tris, 'targets', [len(m['primitives'][0].get('targets', [])) for m in meshes])
 *           for a in j.get('animations', []):
 *               ins = [A[s['input']] for s in a['samplers']]
 *               print('  clip', a['name'], 'channels', len(a['channels']), 'range',
 *                     min(x['min'][0] for x in ins), max(x['max'][0] for x in ins))
 *       EOF
 *
 *     ("rk_skins" counts one rk_skin_deformer per (skin, mesh) pair used by nodes plus
 *     unused skins, as gltf_load.c documents; readyplayer.me.glb's 67 bones
 *     and 10 meshes also match SOURCES.md.)
 *   - accessor min/max of POSITION are read from the JSON at run time with
 *     cJSON, a different path from the loader's binary decoding;
 *   - the tiny documents are built here byte by byte, with hand-derived
 *     expected values.
 *
 * Robustness: every shared GLB is truncated at 500 evenly spaced lengths
 * (each both as-is and with the GLB header length patched to the new size, so
 * the chunk and JSON code is reached) and gets 1,000 single-byte corruptions
 * (xorshift32, fixed seed; half of them inside the JSON chunk, half anywhere).
 * Each load must return a scene that passes an invariant check or an error
 * with a message. RIGKIT_TEST_QUICK=1 cuts this to 100 + 100 per file for
 * slow sanitizer builds.
 *
 * RIGKIT_GLTF_SEED_DIR=<dir>: also writes the hand-built documents there as
 * fuzzing seeds (see fuzz/README.md).
 */
#include "rk_test.h"
#include "rk_glb.h"

#include "rigkit/scene.h"
#include "rigkit/load.h"
#include "rigkit/anim.h"
#include "formats/gltf/gltf_internal.h"

#include <cjson/cJSON.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------ */

static unsigned char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *buf = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
	if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = n > 0 ? (size_t)n : 0;
	return buf;
}

static bool write_all(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f) return false;
	bool ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;
}

static void maybe_write_seed(const char *name, const void *data, size_t size)
{
	const char *dir = getenv("RIGKIT_GLTF_SEED_DIR");
	if (!dir || !dir[0]) return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_all(path, data, size);
}

static char *base64(const void *data, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)data;
	char *out = (char *)malloc((n + 2) / 3 * 4 + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n) v |= p[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

/* Copies tmpl replacing "@URI@" with a base64 data: URI of bin and "@LEN@"
 * with its size. */
static char *make_doc(const char *tmpl, const void *bin, size_t n)
{
	char *b64 = base64(bin, n);
	char uri[1 << 16], len[32];
	snprintf(uri, sizeof(uri), "data:application/octet-stream;base64,%s", b64);
	snprintf(len, sizeof(len), "%zu", n);
	free(b64);
	size_t cap = strlen(tmpl) + 1;
	for (const char *s = tmpl; (s = strchr(s, '@')) != NULL; s++) cap += strlen(uri) + strlen(len);
	char *out = (char *)malloc(cap);
	size_t o = 0;
	for (const char *s = tmpl; *s;) {
		if (strncmp(s, "@URI@", 5) == 0) {
			memcpy(out + o, uri, strlen(uri));
			o += strlen(uri);
			s += 5;
		} else if (strncmp(s, "@LEN@", 5) == 0) {
			memcpy(out + o, len, strlen(len));
			o += strlen(len);
			s += 5;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return out;
}

static rk_scene *load_text(const char *text, const rk_load_opts *opts, rk_error *err)
{
	return rk_load_memory(text, strlen(text), opts, err);
}

static const rk_warning *find_warning(const rk_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings.count; i++)
		if (strstr(s->warnings.data[i].message, needle)) return &s->warnings.data[i];
	return NULL;
}

static void print_error(const char *what, const rk_error *err)
{
	char buf[1024];
	rk_error_format(buf, sizeof(buf), err);
	fprintf(stderr, "%s: %s\n", what, buf);
}

/* Little-endian writers for building buffers. */
typedef struct bin_builder { unsigned char data[4096]; size_t size; } bin_builder;

static size_t bin_f32(bin_builder *b, const float *v, size_t n)
{
	size_t at = b->size;
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &v[i], 4);
		for (int k = 0; k < 4; k++) b->data[b->size++] = (unsigned char)(u >> (8 * k));
	}
	return at;
}

static size_t bin_u16(bin_builder *b, const uint16_t *v, size_t n)
{
	size_t at = b->size;
	for (size_t i = 0; i < n; i++) {
		b->data[b->size++] = (unsigned char)v[i];
		b->data[b->size++] = (unsigned char)(v[i] >> 8);
	}
	return at;
}

static size_t bin_u32(bin_builder *b, const uint32_t *v, size_t n)
{
	size_t at = b->size;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 4; k++) b->data[b->size++] = (unsigned char)(v[i] >> (8 * k));
	return at;
}

static size_t bin_u8(bin_builder *b, const uint8_t *v, size_t n)
{
	size_t at = b->size;
	memcpy(b->data + b->size, v, n);
	b->size += n;
	return at;
}

static void bin_align4(bin_builder *b)
{
	while (b->size % 4) b->data[b->size++] = 0;
}

/* Structural invariants every loaded scene must satisfy; returns violations. */
static int scene_violations(const rk_scene *s)
{
	int bad = 0;
	if (s->nodes.count < 1 || s->root != &s->nodes.data[0] || s->root->kind != RK_NODE_ROOT || s->root->parent) return 1;
	for (size_t i = 1; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->index != i || !n->parent || n->parent->index >= i || !n->name) bad++;
		for (size_t c = 0; c < n->children.count; c++)
			if (n->children.data[c]->parent != n) bad++;
		if (n->mesh && (n->mesh < s->meshes.data || n->mesh >= s->meshes.data + s->meshes.count)) bad++;
		if (n->mesh && n->blend_weights == NULL && n->mesh->blend_channels.count > 0) bad++;
	}
	for (size_t m = 0; m < s->meshes.count; m++) {
		const rk_mesh *mesh = &s->meshes.data[m];
		for (size_t c = 0; c < mesh->index_count; c++)
			if (mesh->vertex_indices[c] >= mesh->vertex_count) bad++;
		for (size_t f = 0; f < mesh->face_count; f++) {
			const rk_face *face = &mesh->faces[f];
			if (face->index_count != 3 || (size_t)face->index_begin + 3 > mesh->index_count) bad++;
			if (mesh->face_material && mesh->face_material[f] >= mesh->materials.count) bad++;
		}
		for (size_t k = 0; k < mesh->materials.count; k++)
			if (!mesh->materials.data[k]) bad++;
		for (size_t k = 0; k < mesh->blend_channels.count; k++) {
			const rk_blend_shape *sh = &mesh->blend_channels.data[k].targets[0];
			for (size_t o = 0; o < sh->offset_count; o++)
				if (sh->vertex_indices[o] >= mesh->vertex_count) bad++;
		}
	}
	for (size_t k = 0; k < s->skins.count; k++) {
		const rk_skin_deformer *sk = &s->skins.data[k];
		if (sk->weight_begin[0] != 0 || sk->weight_begin[sk->vertex_count] != sk->weight_count) bad++;
		for (size_t v = 0; v < sk->vertex_count; v++) {
			if (sk->weight_begin[v + 1] < sk->weight_begin[v]) { bad++; break; }
			for (uint32_t w = sk->weight_begin[v]; w < sk->weight_begin[v + 1]; w++) {
				if (sk->weights[w].joint >= sk->joint_count || !(sk->weights[w].weight > 0.0f)) bad++;
				if (w > sk->weight_begin[v] && sk->weights[w].weight > sk->weights[w - 1].weight) bad++;
			}
		}
		for (size_t j = 0; j < sk->joint_count; j++)
			if (!sk->joints[j].node) bad++;
	}
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		if (clip->layer_count != 1) bad++;
		for (size_t t = 0; clip->layer_count && t < clip->layers[0].track_count; t++) {
			const rk_anim_track *tr = &clip->layers[0].tracks[t];
			if (!tr->node || !tr->times || !rk_track_has_values(tr) || tr->key_count == 0) bad++;
			for (size_t k = 0; k + 1 < tr->key_count; k++)
				if (tr->times[k + 1] < tr->times[k]) bad++;
		}
	}
	for (size_t i = 0; i < s->warnings.count; i++)
		if (!s->warnings.data[i].message || !s->warnings.data[i].message[0]) bad++;
	return bad;
}

/* ---- shared assets ---------------------------------------------------------------- */

typedef struct rk_shared_fact {
	const char *file;
	size_t nodes, meshes, skins, joint_nodes, materials, textures;
	size_t first_skin_joints;
	size_t vertices[10], triangles[10], targets[10];
	const char *clips[8];
	size_t channels;                 /* per clip */
	double time_end[8];
} rk_shared_fact;

static const rk_shared_fact rk_shared_facts[] = {
	{ "Flamingo.glb", 1, 1, 0, 0, 1, 0, 0, { 337 }, { 542 }, { 14 }, { "flamingo_flyA_" }, 1, { 1.399999976158142 } },
	{ "Horse.glb", 1, 1, 0, 0, 1, 0, 0, { 796 }, { 984 }, { 15 }, { "horse_A_" }, 1, { 1.5 } },
	{ "Soldier.glb", 68, 2, 2, 49, 2, 2, 49, { 7325, 109 }, { 11186, 190 }, { 0, 0 }, { "Idle", "Run", "TPose", "Walk" }, 156,
		{ 1.9666666666666694, 0.7, 0.03333333333333333, 1.0333333333333332 } },
	{ "Xbot.glb", 70, 2, 2, 67, 2, 0, 67, { 12473, 15901 }, { 20840, 28272 }, { 0, 0 },
		{ "agree", "headShake", "idle", "run", "sad_pose", "sneak_pose", "walk" }, 201,
		{ 1.8333333333333333, 2.566666666666667, 2.5, 0.7, 0.06666666666666667, 0.06666666666666667, 0.9666666666666667 } },
	{ "readyplayer.me.glb", 78, 10, 10, 67, 9, 19, 67, { 120, 120, 2162, 84, 143, 1486, 1108, 1418, 704, 2251 },
		{ 206, 206, 4094, 100, 236, 2498, 1674, 2236, 1148, 3419 }, { 2, 2, 2, 2, 2, 0, 0, 0, 0, 0 }, { NULL }, 0, { 0 } },
};
#define RK_SHARED_COUNT (sizeof(rk_shared_facts) / sizeof(rk_shared_facts[0]))

static bool shared_path(char *dst, size_t cap, const char *file)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) return false;
	snprintf(dst, cap, "%s/assets/%s", dir, file);
	return true;
}

RK_TEST(shared_glbs_load)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "Soldier.glb")) RK_SKIP("shared assets not found (set RIGKIT_SHARED_DIR to the folder holding assets/)");
	for (size_t f = 0; f < RK_SHARED_COUNT; f++) {
		const rk_shared_fact *e = &rk_shared_facts[f];
		shared_path(path, sizeof(path), e->file);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		if (!s) print_error(e->file, &err);
		RK_REQUIRE(s != NULL);
		RK_CHECK_INT(scene_violations(s), 0);
		RK_CHECK_INT(s->settings.format, RK_FORMAT_GLB);
		RK_CHECK(!s->settings.ascii);
		RK_CHECK(rk_axes_equal(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP));
		RK_CHECK_NEAR(s->settings.unit_meters, 1.0, 0.0);
		RK_CHECK_NEAR(s->settings.frame_rate, 0.0, 0.0);
		RK_CHECK_STR(s->source_path, path);
		RK_CHECK_INT(s->nodes.count, e->nodes + 1);
		RK_CHECK_INT(s->meshes.count, e->meshes);
		RK_CHECK_INT(s->skins.count, e->skins);
		RK_CHECK_INT(s->materials.count, e->materials);
		RK_CHECK_INT(s->textures.count, e->textures);
		size_t joints = 0;
		for (size_t i = 0; i < s->nodes.count; i++) joints += s->nodes.data[i].kind == RK_NODE_JOINT;
		RK_CHECK_INT(joints, e->joint_nodes);
		if (e->skins) RK_CHECK_INT(s->skins.data[0].joint_count, e->first_skin_joints);
		for (size_t m = 0; m < s->meshes.count && m < 10; m++) {
			const rk_mesh *mesh = &s->meshes.data[m];
			RK_CHECK_INT(mesh->vertex_count, e->vertices[m]);
			RK_CHECK_INT(mesh->face_count, e->triangles[m]);
			RK_CHECK_INT(mesh->index_count, 3 * e->triangles[m]);
			RK_CHECK_INT(mesh->blend_channels.count, e->targets[m]);
			RK_CHECK_INT(mesh->skin_count, e->skins ? 1 : 0);
			RK_CHECK_INT(mesh->source_id, m);
		}
		size_t clips = 0;
		while (clips < 8 && e->clips[clips]) clips++;
		RK_CHECK_INT(s->clips.count, clips);
		for (size_t c = 0; c < clips && c < s->clips.count; c++) {
			const rk_anim_clip *clip = &s->clips.data[c];
			RK_CHECK_STR(clip->name, e->clips[c]);
			RK_CHECK(rk_scene_find_clip(s, e->clips[c]) == clip);
			RK_CHECK_INT(clip->layer_count, 1);
			RK_CHECK_INT(clip->layers[0].track_count, e->channels);
			RK_CHECK_NEAR(clip->time_end, e->time_end[c], 1e-6);
		}
		/* Skinned mesh nodes point at the rk_skin_deformer of their mesh. */
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (!n->skin) continue;
			RK_CHECK(n->mesh && n->mesh->skin_count == 1 && n->mesh->skins[0] == n->skin);
			RK_CHECK_INT(n->kind, RK_NODE_MESH);
		}
		bool stride_warning = find_warning(s, "byteStride") != NULL;
		RK_CHECK(stride_warning == (strcmp(e->file, "Soldier.glb") == 0));
		rk_scene_free(s);
	}
}

RK_TEST(shared_glb_details)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "Soldier.glb")) RK_SKIP("shared assets not found (set RIGKIT_SHARED_DIR to the folder holding assets/)");
	rk_error err;
	/* Soldier: root "Character" with -90 deg about X and scale 0.01 (SOURCES.md). */
	rk_scene *s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s != NULL);
	const rk_node *ch = rk_scene_find_node(s, "Character");
	RK_REQUIRE(ch != NULL);
	RK_CHECK(ch->parent == s->root);
	RK_CHECK_NEAR(ch->local.rotation.x, -0.7071067690849304, 1e-7);
	RK_CHECK_NEAR(ch->local.rotation.w, 0.7071067690849304, 1e-7);
	RK_CHECK_NEAR(ch->local.scale.y, 0.01, 1e-8);
	RK_CHECK_NEAR(ch->props.rotation.x, -90.0, 1e-5);
	RK_CHECK(!ch->has_fbx_props);
	RK_CHECK(rk_scene_find_node(s, "mixamorig:Hips") != NULL);
	RK_CHECK(s->skins.data[0].skeleton_root == rk_scene_find_node(s, "mixamorig:Hips"));
	RK_CHECK_STR(s->settings.creator, "blendergltf v1.2.0");
	RK_CHECK_STR(s->materials.data[0].name, "Vanguard_VisorMat");
	RK_CHECK(s->materials.data[0].normal_texture.texture == &s->textures.data[0]);
	RK_CHECK(s->textures.data[1].content != NULL && s->textures.data[1].content_size > 0);
	RK_CHECK_STR(s->textures.data[1].mime_type, "image/jpeg");
	RK_CHECK(s->textures.data[1].content[0] == 0xFF && s->textures.data[1].content[1] == 0xD8);
	const rk_warning *w = find_warning(s, "byteStride");
	RK_CHECK(w != NULL && w->path[0] == '/');
	/* Bind pose: joint_to_world_bind * mesh_to_joint == mesh_to_world_bind. */
	const rk_skin_deformer *sk = &s->skins.data[0];
	for (size_t j = 0; j < sk->joint_count; j++) {
		rk_mat4 back = rk_mat4_mul(sk->joints[j].joint_to_world_bind, sk->joints[j].mesh_to_joint);
		RK_CHECK(rk_mat4_max_diff(back, sk->joints[j].mesh_to_world_bind) < 1e-6);
	}
	rk_scene_free(s);

	/* Xbot: Armature's children keep the file order [67, 68, 66]. */
	shared_path(path, sizeof(path), "Xbot.glb");
	s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s != NULL);
	const rk_node *arm = rk_scene_find_node(s, "Armature");
	RK_REQUIRE(arm != NULL && arm->children.count == 3);
	RK_CHECK_STR(arm->children.data[0]->name, "Beta_Joints");
	RK_CHECK_STR(arm->children.data[1]->name, "Beta_Surface");
	RK_CHECK_STR(arm->children.data[2]->name, "mixamorig:Hips");
	RK_CHECK_NEAR(arm->local.scale.x, 0.009999999776482582, 1e-12);
	RK_CHECK_INT(arm->source_id, 69);
	rk_scene_free(s);

	/* Flamingo: unnamed node, morph target names, weights animation. */
	shared_path(path, sizeof(path), "Flamingo.glb");
	s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_STR(s->nodes.data[1].name, ""); /* unnamed in the file: stays unnamed */
	RK_CHECK_INT(s->nodes.data[1].source_id, 0);
	const rk_mesh *mesh = &s->meshes.data[0];
	RK_CHECK_STR(mesh->blend_channels.data[0].name, "flamingo_flyA_000");
	RK_CHECK_STR(mesh->blend_channels.data[1].name, "flamingo_flyA_001");
	RK_CHECK(s->nodes.data[1].blend_weights != NULL);
	const rk_anim_track *tr = &s->clips.data[0].layers[0].tracks[0];
	RK_CHECK_INT(tr->target, RK_TARGET_MORPH_WEIGHTS);
	RK_CHECK_INT(tr->components, 14);
	RK_CHECK_INT(tr->key_count, 15);
	RK_CHECK_INT(mesh->colors.count, 1);
	RK_CHECK_STR(mesh->uv_sets.data[0].name, "TEXCOORD_0");
	rk_scene_free(s);

	/* readyplayer.me: 67 bones in its one glTF skin, shared by 10 meshes. */
	shared_path(path, sizeof(path), "readyplayer.me.glb");
	s = rk_load_file(path, NULL, &err);
	RK_REQUIRE(s != NULL);
	for (size_t k = 0; k < s->skins.count; k++) {
		RK_CHECK_INT(s->skins.data[k].joint_count, 67);
		RK_CHECK_STR(s->skins.data[k].name, "Armature");
		RK_CHECK(s->skins.data[k].skeleton_root == rk_scene_find_node(s, "Hips"));
	}
	RK_CHECK_STR(s->meshes.data[2].name, "Wolf3D_Head");
	RK_CHECK_STR(s->meshes.data[2].blend_channels.data[0].name, "mouthOpen");
	rk_scene_free(s);
}

/* POSITION bounds of the loaded meshes equal accessor.min/max in the JSON. */
RK_TEST(shared_position_bounds)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "Soldier.glb")) RK_SKIP("shared assets not found (set RIGKIT_SHARED_DIR to the folder holding assets/)");
	for (size_t f = 0; f < RK_SHARED_COUNT; f++) {
		shared_path(path, sizeof(path), rk_shared_facts[f].file);
		size_t size;
		unsigned char *data = read_all(path, &size);
		RK_REQUIRE(data != NULL && size > 20);
		uint32_t jlen = (uint32_t)data[12] | ((uint32_t)data[13] << 8) | ((uint32_t)data[14] << 16) | ((uint32_t)data[15] << 24);
		cJSON *root = cJSON_ParseWithLength((const char *)data + 20, jlen);
		RK_REQUIRE(root != NULL);
		rk_error err;
		rk_scene *s = rk_load_memory(data, size, NULL, &err);
		RK_REQUIRE(s != NULL);
		const cJSON *meshes = cJSON_GetObjectItem(root, "meshes"), *accessors = cJSON_GetObjectItem(root, "accessors");
		size_t checked = 0;
		for (size_t m = 0; m < s->meshes.count; m++) {
			const cJSON *prims = cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, (int)m), "primitives");
			if (cJSON_GetArraySize(prims) != 1) continue;
			int acc = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(prims, 0), "attributes"), "POSITION")->valueint;
			const cJSON *a = cJSON_GetArrayItem(accessors, acc);
			const cJSON *mn = cJSON_GetObjectItem(a, "min"), *mx = cJSON_GetObjectItem(a, "max");
			RK_REQUIRE(mn && mx);
			const rk_mesh *mesh = &s->meshes.data[m];
			double lo[3] = { 1e300, 1e300, 1e300 }, hi[3] = { -1e300, -1e300, -1e300 };
			for (size_t v = 0; v < mesh->vertex_count; v++) {
				const double p[3] = { rk_mesh_position(mesh, v).x, rk_mesh_position(mesh, v).y, rk_mesh_position(mesh, v).z };
				for (int k = 0; k < 3; k++) {
					if (p[k] < lo[k]) lo[k] = p[k];
					if (p[k] > hi[k]) hi[k] = p[k];
				}
			}
			for (int k = 0; k < 3; k++) {
				double emin = cJSON_GetArrayItem(mn, k)->valuedouble, emax = cJSON_GetArrayItem(mx, k)->valuedouble;
				RK_CHECK_NEAR(lo[k], emin, 1e-6 * (1.0 + fabs(emin)));
				RK_CHECK_NEAR(hi[k], emax, 1e-6 * (1.0 + fabs(emax)));
			}
			checked++;
		}
		RK_CHECK(checked == s->meshes.count);
		rk_scene_free(s);
		cJSON_Delete(root);
		free(data);
	}
}

/* ---- hand-built documents ------------------------------------------------------ */

static const char rk_doc_sparse[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":2},"
	"{\"buffer\":0,\"byteOffset\":40,\"byteLength\":24}],"
	"\"accessors\":["
	"{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
	"\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}},"
	"{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
	"\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"byteOffset\":1,\"componentType\":5121},\"values\":{\"bufferView\":2,\"byteOffset\":12}}}],"
	"\"meshes\":[{\"name\":\"dense\",\"primitives\":[{\"attributes\":{\"POSITION\":0}}]},"
	"{\"name\":\"zeros\",\"primitives\":[{\"attributes\":{\"POSITION\":1}}]}],"
	"\"nodes\":[{\"name\":\"a\",\"mesh\":0},{\"name\":\"b\",\"mesh\":1}],\"scenes\":[{\"nodes\":[0,1]}],\"scene\":0}";

static char *build_sparse_doc(void)
{
	bin_builder b = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint8_t idx[2] = { 0, 2 };
	const float val[6] = { 5, 5, 5, 7, 7, 7 };
	bin_f32(&b, pos, 9);
	bin_u8(&b, idx, 2);
	bin_align4(&b);
	bin_f32(&b, val, 6);
	return make_doc(rk_doc_sparse, b.data, b.size);
}

RK_TEST(sparse_accessor)
{
	char *doc = build_sparse_doc();
	maybe_write_seed("sparse.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("sparse", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_CHECK_INT(s->settings.format, RK_FORMAT_GLTF);
	RK_CHECK(s->settings.ascii);
	RK_REQUIRE(s->meshes.count == 2);
	const rk_mesh *m = &s->meshes.data[0];
	RK_REQUIRE(m->vertex_count == 3 && m->face_count == 1);
	RK_CHECK_NEAR(rk_mesh_position(m, 0).x, 5.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 1).x, 1.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 2).z, 7.0, 0.0);
	RK_CHECK_INT(m->vertex_indices[0], 0);
	RK_CHECK_INT(m->vertex_indices[2], 2);
	/* accessor without bufferView: zeros, then the sparse value at index 2 */
	m = &s->meshes.data[1];
	RK_REQUIRE(m->vertex_count == 3);
	RK_CHECK_NEAR(rk_mesh_position(m, 0).y, 0.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 1).x, 0.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 2).y, 7.0, 0.0);
	/* no material in the primitives -> one shared "default" material */
	RK_REQUIRE(s->materials.count == 1);
	RK_CHECK_STR(s->materials.data[0].name, "default");
	RK_CHECK(s->meshes.data[0].materials.data[0] == &s->materials.data[0]);
	RK_CHECK(s->meshes.data[1].materials.data[0] == &s->materials.data[0]);
	RK_CHECK_NEAR(s->materials.data[0].metallic, 1.0, 0.0);
	rk_scene_free(s);
	free(doc);
}

/* Values in the file's precision: FLOAT accessors stay floats, bit for bit
 * (positions, normals, morph deltas, animation outputs), normalised integers
 * are decoded to doubles (UVs, a SHORT rotation output); samplers of one
 * input share its times; a one-primitive mesh has no face slots; a unit
 * conversion that modifies the geometry writes scaled doubles. */
static const char rk_doc_precision[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36},"
	"{\"buffer\":0,\"byteOffset\":72,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":84,\"byteLength\":36},"
	"{\"buffer\":0,\"byteOffset\":120,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":128,\"byteLength\":24},"
	"{\"buffer\":0,\"byteOffset\":152,\"byteLength\":16}],"
	"\"accessors\":["
	"{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":2,\"componentType\":5123,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
	"{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
	"{\"bufferView\":5,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
	"{\"bufferView\":6,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"targets\":[{\"POSITION\":3}]}]}],"
	"\"nodes\":[{\"name\":\"m\",\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0,"
	"\"animations\":[{\"samplers\":[{\"input\":4,\"output\":5},{\"input\":4,\"output\":6}],"
	"\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
	"{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}";

static const float precision_pos[9] = { 0.1f, -2.5f, 3.3333333f, 1e-3f, 0.0f, 7.7f, -0.4f, 1.0f, 0.0f };
static const float precision_morph[9] = { 0.25f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.125f, 0.0f };
static const float precision_trans[6] = { 0.1f, 0.2f, 0.3f, 1.1f, 1.2f, 1.3f };

static char *build_precision_doc(void)
{
	bin_builder b = { .size = 0 };
	const float nrm[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 1 };
	const uint16_t uv[6] = { 0, 65535, 32768, 0, 65535, 65535 };
	const float times[2] = { 0.0f, 1.0f / 3.0f };
	const uint16_t rot[8] = { 0, 0, 0, 32767, 0, 0, 32767, 0 };
	bin_f32(&b, precision_pos, 9);
	bin_f32(&b, nrm, 9);
	bin_u16(&b, uv, 6);
	bin_f32(&b, precision_morph, 9);
	bin_f32(&b, times, 2);
	bin_f32(&b, precision_trans, 6);
	bin_u16(&b, rot, 8);
	return make_doc(rk_doc_precision, b.data, b.size);
}

RK_TEST(values_kept_in_file_precision)
{
	char *doc = build_precision_doc();
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("precision", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_REQUIRE(s->meshes.count == 1);
	const rk_mesh *m = &s->meshes.data[0];
	RK_REQUIRE(m->vertex_count == 3 && m->face_count == 1);
	RK_CHECK(m->positions_f64 == NULL && m->positions_f32 != NULL);
	RK_CHECK(m->positions_f32 && memcmp(m->positions_f32, precision_pos, sizeof(precision_pos)) == 0);
	RK_CHECK(rk_mesh_position(m, 0).x == (double)0.1f && rk_mesh_position(m, 2).x == (double)-0.4f);
	RK_CHECK(m->normals.exists && m->normals.values_f64 == NULL && m->normals.values_f32 != NULL);
	RK_CHECK(rk_attrib_vec3_corner(&m->normals, 1).z == 1.0);
	RK_REQUIRE(m->uv_sets.count == 1);
	const rk_attrib_vec2 *uv = &m->uv_sets.data[0].uv;
	RK_CHECK(uv->values_f64 != NULL && uv->values_f32 == NULL);   /* normalised UNSIGNED_SHORT: doubles */
	RK_CHECK(rk_attrib_vec2_value(uv, 1).x == 32768.0 / 65535.0 && rk_attrib_vec2_value(uv, 0).y == 1.0);
	RK_CHECK(m->face_material == NULL);                           /* one primitive: every face is slot 0 */
	RK_REQUIRE(m->blend_channels.count == 1 && m->blend_channels.data[0].target_count == 1);
	const rk_blend_shape *bs = &m->blend_channels.data[0].targets[0];
	RK_CHECK(bs->position_offsets_f64 == NULL && bs->position_offsets_f32 != NULL && !rk_blend_shape_has_normals(bs));
	RK_REQUIRE(bs->offset_count == 2);                            /* vertex 1 does not move */
	RK_CHECK(bs->vertex_indices[0] == 0 && bs->vertex_indices[1] == 2);
	RK_CHECK(rk_blend_shape_position_offset(bs, 0).x == 0.25 && rk_blend_shape_position_offset(bs, 1).y == 0.125);
	RK_REQUIRE(s->clips.count == 1 && s->clips.data[0].layer_count == 1 && s->clips.data[0].layers[0].track_count == 2);
	const rk_anim_track *tt = &s->clips.data[0].layers[0].tracks[0], *tr = &s->clips.data[0].layers[0].tracks[1];
	RK_CHECK(tt->target == RK_TARGET_TRANSLATION && tr->target == RK_TARGET_ROTATION_QUAT);
	RK_CHECK(tt->values_f64 == NULL && tt->values_f32 && memcmp(tt->values_f32, precision_trans, sizeof(precision_trans)) == 0);
	RK_CHECK(tr->values_f64 != NULL && tr->values_f32 == NULL);   /* normalised SHORT: doubles */
	RK_CHECK(rk_track_value(tr, 3) == 1.0 && rk_track_value(tr, 6) == 1.0);
	RK_CHECK(tt->times == tr->times);                             /* one input, decoded once */
	RK_CHECK(tt->times && tt->times[1] == (double)(1.0f / 3.0f));
	/* the pose at a key is the stored float widened */
	size_t bytes = rk_pose_memory_size(s);
	void *mem = malloc(bytes);
	RK_REQUIRE(mem);
	rk_pose pose;
	RK_REQUIRE(rk_pose_init(&pose, s, mem, bytes));
	rk_pose_eval_job job = { .scene = s, .clip = &s->clips.data[0], .time = (double)(1.0f / 3.0f), .pose = &pose };
	RK_REQUIRE(rk_pose_eval_validate(&job, &err));
	rk_pose_eval_run(&job);
	RK_CHECK(pose.local[1].translation.x == (double)1.1f && pose.local[1].translation.z == (double)1.3f);
	free(mem);
	rk_scene_free(s);

	/* metres -> centimetres by modifying the geometry: scaled copies in doubles */
	rk_load_opts o = { .target_unit_meters = 0.01, .space_conversion = RK_CONVERT_MODIFY_GEOMETRY };
	s = load_text(doc, &o, &err);
	RK_REQUIRE(s != NULL);
	m = &s->meshes.data[0];
	RK_CHECK(m->positions_f64 != NULL && m->positions_f32 == NULL);
	RK_CHECK(m->positions_f64 && m->positions_f64[0].x == (double)0.1f * 100.0 && m->positions_f64[2].y == 100.0);
	bs = &m->blend_channels.data[0].targets[0];
	RK_CHECK(bs->position_offsets_f64 != NULL && bs->position_offsets_f32 == NULL);
	RK_CHECK(rk_blend_shape_position_offset(bs, 0).x == 25.0);
	rk_scene_free(s);
	free(doc);
}

static const char rk_doc_skin[] =
	"{\"asset\":{\"version\":\"2.0\",\"generator\":\"rigkit test\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
	"{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
	"{\"bufferView\":2,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
	"\"skins\":[{\"name\":\"rig\",\"joints\":[1,2,3]}],"
	"\"nodes\":[{\"name\":\"body\",\"mesh\":0,\"skin\":0},{\"name\":\"hip\",\"children\":[2],\"translation\":[0,1,0]},"
	"{\"name\":\"spine\",\"children\":[3]},{\"name\":\"head\"}],"
	"\"scenes\":[{\"nodes\":[0,1]}]}";

static char *build_skin_doc(void)
{
	bin_builder b = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint8_t joints[12] = { 0, 1, 0, 0, 1, 0, 2, 0, 2, 9, 0, 0 };
	const uint8_t weights[12] = { 255, 0, 0, 0, 51, 204, 0, 0, 255, 0, 0, 0 };
	bin_f32(&b, pos, 9);
	bin_u8(&b, joints, 12);
	bin_u8(&b, weights, 12);
	return make_doc(rk_doc_skin, b.data, b.size);
}

RK_TEST(normalized_ubyte_weights)
{
	char *doc = build_skin_doc();
	maybe_write_seed("skin.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("skin", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_CHECK_STR(s->settings.creator, "rigkit test");
	RK_REQUIRE(s->skins.count == 1);
	const rk_skin_deformer *sk = &s->skins.data[0];
	RK_CHECK_STR(sk->name, "rig");
	RK_REQUIRE(sk->joint_count == 3 && sk->vertex_count == 3);
	RK_CHECK(sk->joints[0].node == rk_scene_find_node(s, "hip"));
	RK_CHECK(sk->joints[2].node == rk_scene_find_node(s, "head"));
	RK_CHECK(sk->skeleton_root == rk_scene_find_node(s, "hip"));
	RK_CHECK(rk_mat4_max_diff(sk->joints[1].mesh_to_joint, rk_mat4_identity()) == 0.0);
	RK_CHECK_INT(sk->weight_begin[0], 0);
	RK_CHECK_INT(sk->weight_begin[1], 1);
	RK_CHECK_INT(sk->weight_begin[2], 3);
	RK_CHECK_INT(sk->weight_begin[3], 4);
	RK_CHECK_INT(sk->weight_count, 4);
	RK_CHECK_INT(sk->max_weights_per_vertex, 2);
	/* v0: joint 0 at 255/255 */
	RK_CHECK_INT(sk->weights[0].joint, 0);
	RK_CHECK_NEAR(sk->weights[0].weight, 1.0, 1e-7);
	/* v1: joints (1, 0) at (51, 204)/255 -> sorted (0: 0.8), (1: 0.2) */
	RK_CHECK_INT(sk->weights[1].joint, 0);
	RK_CHECK_NEAR(sk->weights[1].weight, 0.8, 1e-7);
	RK_CHECK_INT(sk->weights[2].joint, 1);
	RK_CHECK_NEAR(sk->weights[2].weight, 0.2, 1e-7);
	/* v2: joint 2 at 1.0; joint 9 (out of range) has weight 0: dropped, warned */
	RK_CHECK_INT(sk->weights[3].joint, 2);
	RK_CHECK(find_warning(s, "zero weight") != NULL);
	const rk_node *body = rk_scene_find_node(s, "body");
	RK_REQUIRE(body != NULL);
	RK_CHECK(body->skin == sk);
	RK_CHECK_INT(body->kind, RK_NODE_MESH);
	RK_CHECK(body->mesh->skin_count == 1 && body->mesh->skins[0] == sk);
	RK_CHECK_INT(rk_scene_find_node(s, "spine")->kind, RK_NODE_JOINT);
	RK_CHECK_INT(rk_scene_find_node(s, "head")->depth, 3);
	/* identity IBMs and mesh node: bind pose of joint = inverse(IBM) = identity */
	RK_CHECK(rk_mat4_max_diff(sk->joints[0].joint_to_world_bind, rk_mat4_identity()) < 1e-12);
	rk_scene_free(s);
	free(doc);
}

/* One JOINTS/WEIGHTS set of u16 joints and FLOAT weights (the reader's
 * direct path): ties keep file order, negative / NaN weights and zero
 * weights on out-of-range joints are dropped with warnings. */
static const char rk_doc_skinf[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},"
	"{\"buffer\":0,\"byteOffset\":60,\"byteLength\":48}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"VEC4\"},"
	"{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
	"\"skins\":[{\"joints\":[1,2,3]}],"
	"\"nodes\":[{\"mesh\":0,\"skin\":0},{\"children\":[2]},{\"children\":[3]},{}]}";

static char *build_skinf_doc(uint16_t v2_joint, float v2_weight)
{
	bin_builder b = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint16_t joints[12] = { 2, 0, 1, 0, 1, 7, 0, 2, v2_joint, 0, 0, 0 };
	const float weights[12] = { 0.25f, 0.5f, 0.25f, 0.0f, -0.5f, 0.0f, NAN, 1.0f, v2_weight, 0.0f, 0.0f, 0.0f };
	bin_f32(&b, pos, 9);
	bin_u16(&b, joints, 12);
	bin_f32(&b, weights, 12);
	return make_doc(rk_doc_skinf, b.data, b.size);
}

RK_TEST(float_weights)
{
	char *doc = build_skinf_doc(0, 0.0f);
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("float weights", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_REQUIRE(s->skins.count == 1);
	const rk_skin_deformer *sk = &s->skins.data[0];
	RK_REQUIRE(sk->vertex_count == 3);
	RK_CHECK_INT(sk->weight_begin[0], 0);
	RK_CHECK_INT(sk->weight_begin[1], 3);
	RK_CHECK_INT(sk->weight_begin[2], 4);
	RK_CHECK_INT(sk->weight_begin[3], 4);
	RK_CHECK_INT(sk->weight_count, 4);
	RK_CHECK_INT(sk->max_weights_per_vertex, 3);
	/* v0: (0: 0.5), then the tie (2: 0.25), (1: 0.25) in file order */
	RK_CHECK_INT(sk->weights[0].joint, 0);
	RK_CHECK(sk->weights[0].weight == 0.5f);
	RK_CHECK_INT(sk->weights[1].joint, 2);
	RK_CHECK_INT(sk->weights[2].joint, 1);
	RK_CHECK(sk->weights[2].weight == 0.25f);
	/* v1: only (2: 1.0) survives */
	RK_CHECK_INT(sk->weights[3].joint, 2);
	RK_CHECK(sk->weights[3].weight == 1.0f);
	RK_CHECK(find_warning(s, "negative or NaN") != NULL);
	const rk_warning *w = find_warning(s, "zero weight");
	RK_CHECK(w != NULL && strcmp(w->path, "/meshes/0/primitives/0/attributes/JOINTS_0") == 0);
	rk_scene_free(s);
	free(doc);

	/* a weighted joint index out of range is an error at JOINTS_0 */
	doc = build_skinf_doc(5, 0.5f);
	s = load_text(doc, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/meshes/0/primitives/0/attributes/JOINTS_0");
	RK_CHECK(strstr(err.message, "joint index 5 of vertex 2") != NULL);
	free(doc);
}

static const char rk_doc_skin8[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},"
	"{\"buffer\":0,\"byteOffset\":60,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":108,\"byteLength\":12},"
	"{\"buffer\":0,\"byteOffset\":120,\"byteLength\":24}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"VEC4\"},"
	"{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
	"{\"bufferView\":3,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
	"{\"bufferView\":4,\"componentType\":5123,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2,\"JOINTS_1\":3,\"WEIGHTS_1\":4}}]}],"
	"\"skins\":[{\"joints\":[1,2,3,4,5,6]}],"
	"\"nodes\":[{\"name\":\"body\",\"mesh\":0,\"skin\":0},{\"name\":\"j0\"},{\"name\":\"j1\"},{\"name\":\"j2\"},"
	"{\"name\":\"j3\"},{\"name\":\"j4\"},{\"name\":\"j5\"}],"
	"\"scenes\":[{\"nodes\":[0,1,2,3,4,5,6]}]}";

static char *build_skin8_doc(void)
{
	bin_builder b = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint16_t j0[12] = { 0, 1, 2, 3, 5, 4, 3, 2, 0, 0, 0, 0 };
	const float w0[12] = { 0.1f, 0.2f, 0.05f, 0.0f, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0 };
	const uint8_t j1[12] = { 4, 5, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4 };
	const uint16_t w1[12] = { 26214, 16384, 0, 0, 0, 0, 0, 0, 65535, 0, 0, 0 };
	bin_f32(&b, pos, 9);
	bin_u16(&b, j0, 12);
	bin_f32(&b, w0, 12);
	bin_u8(&b, j1, 12);
	bin_u16(&b, w1, 12);
	return make_doc(rk_doc_skin8, b.data, b.size);
}

/* JOINTS_0/WEIGHTS_0 (USHORT, FLOAT) and JOINTS_1/WEIGHTS_1 (UBYTE, USHORT
 * normalized) merged per vertex, sorted by descending weight (ties keep set
 * order), zeros dropped. */
RK_TEST(two_influence_sets)
{
	char *doc = build_skin8_doc();
	maybe_write_seed("skin8.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("skin8", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	const rk_skin_deformer *sk = &s->skins.data[0];
	RK_REQUIRE(sk->weight_count == 9);
	RK_CHECK_INT(sk->max_weights_per_vertex, 5);
	static const uint32_t joints[9] = { 4, 5, 1, 0, 2, 5, 4, 0, 1 };
	static const double weights[9] = { 26214.0 / 65535.0, 16384.0 / 65535.0, 0.2, 0.1, 0.05, 0.5, 0.5, 1.0, 1.0 };
	for (int i = 0; i < 9; i++) {
		RK_CHECK_INT(sk->weights[i].joint, joints[i]);
		RK_CHECK_NEAR(sk->weights[i].weight, weights[i], 1e-7);
	}
	RK_CHECK_INT(sk->weight_begin[1], 5);
	RK_CHECK_INT(sk->weight_begin[2], 7);
	/* the joints' only common ancestor is the synthetic root */
	RK_CHECK(sk->skeleton_root == NULL);
	rk_scene_free(s);
	free(doc);
}

static const char rk_doc_strip[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":120,\"byteStride\":24,\"target\":34962},"
	"{\"buffer\":0,\"byteOffset\":120,\"byteLength\":5},{\"buffer\":0,\"byteOffset\":128,\"byteLength\":6}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"},"
	"{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5121,\"count\":5,\"type\":\"SCALAR\"},"
	"{\"bufferView\":2,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
	"\"materials\":[{\"name\":\"red\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0,0,1]}}],"
	"\"meshes\":[{\"name\":\"strip\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"mode\":5}]},"
	"{\"name\":\"fan\",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":2,\"mode\":6}]},"
	"{\"name\":\"multi\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"mode\":5},"
	"{\"attributes\":{\"POSITION\":0},\"mode\":0},"
	"{\"attributes\":{\"POSITION\":0},\"indices\":3,\"material\":0}]}],"
	"\"nodes\":[{\"mesh\":0},{\"mesh\":1},{\"mesh\":2}],\"scenes\":[{\"nodes\":[0,1,2]}]}";

static char *build_strip_doc(void)
{
	bin_builder b = { .size = 0 };
	for (int i = 0; i < 5; i++) {
		const float pn[6] = { (float)i, (float)(i * i), 0.0f, 0.0f, 0.0f, (float)(i + 1) };
		bin_f32(&b, pn, 6);
	}
	const uint8_t fan[5] = { 0, 1, 2, 3, 4 };
	bin_u8(&b, fan, 5);
	bin_align4(&b);
	const uint16_t tri[3] = { 4, 3, 2 };
	bin_u16(&b, tri, 3);
	bin_align4(&b);
	return make_doc(rk_doc_strip, b.data, b.size);
}

RK_TEST(byte_stride_strip_fan_and_primitives)
{
	char *doc = build_strip_doc();
	maybe_write_seed("strip.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("strip", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_REQUIRE(s->meshes.count == 3);
	/* interleaved POSITION/NORMAL, stride 24 */
	const rk_mesh *m = &s->meshes.data[0];
	RK_REQUIRE(m->vertex_count == 5 && m->normals.exists);
	for (int i = 0; i < 5; i++) {
		RK_CHECK_NEAR(rk_mesh_position(m, i).x, i, 0.0);
		RK_CHECK_NEAR(rk_mesh_position(m, i).y, i * i, 0.0);
		RK_CHECK_NEAR(rk_attrib_vec3_value(&m->normals, i).z, i + 1, 0.0);
	}
	RK_CHECK(m->normals.indices == m->vertex_indices);
	/* strip 0..4: (0,1,2), (1,3,2), (2,3,4) */
	static const uint32_t strip[9] = { 0, 1, 2, 1, 3, 2, 2, 3, 4 };
	RK_REQUIRE(m->face_count == 3 && m->index_count == 9);
	for (int c = 0; c < 9; c++) RK_CHECK_INT(m->vertex_indices[c], strip[c]);
	RK_CHECK_INT(m->faces[2].index_begin, 6);
	RK_CHECK_INT(m->faces[2].index_count, 3);
	/* fan 0..4: (1,2,0), (2,3,0), (3,4,0) */
	static const uint32_t fan[9] = { 1, 2, 0, 2, 3, 0, 3, 4, 0 };
	m = &s->meshes.data[1];
	RK_REQUIRE(m->face_count == 3);
	for (int c = 0; c < 9; c++) RK_CHECK_INT(m->vertex_indices[c], fan[c]);
	/* three primitives: strip (no material), points (skipped), indexed triangle */
	m = &s->meshes.data[2];
	RK_CHECK(m->is_gltf_primitive_split);
	RK_REQUIRE(m->vertex_count == 10 && m->face_count == 4 && m->materials.count == 3);
	RK_CHECK_INT(m->face_material[0], 0);
	RK_CHECK_INT(m->face_material[3], 2);
	RK_CHECK_INT(m->vertex_indices[9], 5 + 4);
	RK_CHECK_INT(m->vertex_indices[11], 5 + 2);
	RK_CHECK_STR(m->materials.data[0]->name, "default");
	RK_CHECK_STR(m->materials.data[2]->name, "red");
	RK_CHECK_NEAR(m->materials.data[2]->base_color.y, 0.0, 0.0);
	/* second half has no NORMAL: zeros, with a warning */
	RK_CHECK_NEAR(rk_attrib_vec3_value(&m->normals, 7).z, 0.0, 0.0);
	RK_CHECK(find_warning(s, "no NORMAL") != NULL);
	RK_CHECK(find_warning(s, "point and line") != NULL);
	RK_REQUIRE(s->materials.count == 2);
	RK_CHECK_STR(s->materials.data[1].name, "default");
	rk_scene_free(s);
	free(doc);
}

static const char rk_doc_types[] =
	"{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":24,\"byteStride\":8},"
	"{\"buffer\":0,\"byteOffset\":24,\"byteLength\":12,\"byteStride\":4},"
	"{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
	"{\"buffer\":0,\"byteOffset\":48,\"byteLength\":24},"
	"{\"buffer\":0,\"byteOffset\":72,\"byteLength\":12,\"byteStride\":4},"
	"{\"buffer\":0,\"byteOffset\":84,\"byteLength\":12}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":2,\"componentType\":5123,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
	"{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"},"
	"{\"bufferView\":4,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":5,\"componentType\":5125,\"count\":3,\"type\":\"SCALAR\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2,\"TEXCOORD_1\":3,\"COLOR_0\":4},"
	"\"indices\":5}]}],"
	"\"nodes\":[{\"mesh\":0}]}";

static char *build_types_doc(void)
{
	bin_builder b = { .size = 0 };
	const uint16_t pos[12] = { (uint16_t)-2, 0, 0, 0, 300, (uint16_t)-1, 5, 0, 0, 0, (uint16_t)-32768, 0 };
	bin_u16(&b, pos, 12);
	const uint8_t nrm[12] = { 127, 0, 0, 0, (uint8_t)-127, 0, 0, 0, 0, (uint8_t)-128, 64, 0 };
	bin_u8(&b, nrm, 12);
	const uint16_t uv0[6] = { 0, 65535, 32768, 0, 65535, 13107 };
	bin_u16(&b, uv0, 6);
	const float uv1[6] = { 0.25f, 0.5f, -1.0f, 2.0f, 0.0f, 1.0f };
	bin_f32(&b, uv1, 6);
	const uint8_t col[12] = { 255, 0, 51, 0, 0, 255, 0, 0, 102, 102, 102, 0 };
	bin_u8(&b, col, 12);
	const uint32_t idx[3] = { 2, 1, 0 };
	bin_u32(&b, idx, 3);
	return make_doc(rk_doc_types, b.data, b.size);
}

RK_TEST(component_types)
{
	char *doc = build_types_doc();
	maybe_write_seed("types.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("types", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	/* no scenes: the parentless node is added under the root, with a warning */
	RK_CHECK(find_warning(s, "no scenes") != NULL);
	RK_REQUIRE(s->meshes.count == 1 && s->nodes.count == 2);
	const rk_mesh *m = &s->meshes.data[0];
	/* SHORT positions, not normalized (KHR_mesh_quantization), stride 8 */
	RK_CHECK_NEAR(rk_mesh_position(m, 0).x, -2.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 1).x, 300.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 1).y, -1.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 1).z, 5.0, 0.0);
	RK_CHECK_NEAR(rk_mesh_position(m, 2).z, -32768.0, 0.0);
	/* BYTE normalized normals: c / 127, clamped to -1 */
	RK_CHECK_NEAR(rk_attrib_vec3_value(&m->normals, 0).x, 1.0, 0.0);
	RK_CHECK_NEAR(rk_attrib_vec3_value(&m->normals, 1).x, -1.0, 0.0);
	RK_CHECK_NEAR(rk_attrib_vec3_value(&m->normals, 2).y, -1.0, 0.0);
	RK_CHECK_NEAR(rk_attrib_vec3_value(&m->normals, 2).z, 64.0 / 127.0, 1e-15);
	/* UNSIGNED_SHORT normalized UVs: c / 65535 */
	RK_REQUIRE(m->uv_sets.count == 2);
	RK_CHECK_STR(m->uv_sets.data[1].name, "TEXCOORD_1");
	RK_CHECK_NEAR(rk_attrib_vec2_value(&m->uv_sets.data[0].uv, 0).y, 1.0, 0.0);
	RK_CHECK_NEAR(rk_attrib_vec2_value(&m->uv_sets.data[0].uv, 1).x, 32768.0 / 65535.0, 1e-15);
	RK_CHECK_NEAR(rk_attrib_vec2_value(&m->uv_sets.data[0].uv, 2).y, 0.2, 1e-15);
	RK_CHECK_NEAR(rk_attrib_vec2_value(&m->uv_sets.data[1].uv, 1).x, -1.0, 0.0);
	/* UNSIGNED_BYTE normalized VEC3 colours, alpha 1 */
	RK_REQUIRE(m->colors.count == 1);
	RK_CHECK_NEAR(rk_attrib_vec4_value(&m->colors.data[0], 0).z, 0.2, 1e-15);
	RK_CHECK_NEAR(rk_attrib_vec4_value(&m->colors.data[0], 2).x, 0.4, 1e-15);
	RK_CHECK_NEAR(rk_attrib_vec4_value(&m->colors.data[0], 2).w, 1.0, 0.0);
	/* UNSIGNED_INT indices */
	RK_CHECK_INT(m->vertex_indices[0], 2);
	RK_CHECK_INT(m->vertex_indices[2], 0);
	rk_scene_free(s);
	free(doc);
}

static const char rk_doc_matrix[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"nodes\":[{\"name\":\"m\",\"matrix\":[0,2,0,0, -3,0,0,0, 0,0,4,0, 1,2,3,1],\"children\":[1]},"
	"{\"name\":\"shear\",\"matrix\":[1,0,0,0, 0.5,1,0,0, 0,0,1,0, 0,0,0,1]},"
	"{\"name\":\"trs\",\"translation\":[1,0,0],\"rotation\":[0,0,0,2],\"scale\":[1,1,1]},"
	"{\"camera\":0}],\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":0.8,\"znear\":0.1}}],"
	"\"scenes\":[{\"nodes\":[2]},{\"nodes\":[0]}],\"scene\":1}";

RK_TEST(matrix_nodes)
{
	maybe_write_seed("matrix.gltf", rk_doc_matrix, strlen(rk_doc_matrix));
	rk_error err;
	rk_scene *s = load_text(rk_doc_matrix, NULL, &err);
	if (!s) print_error("matrix", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	/* M = T(1,2,3) * Rz(90) * S(2,3,4) */
	const rk_node *n = rk_scene_find_node(s, "m");
	RK_REQUIRE(n != NULL);
	RK_CHECK_NEAR(n->local.translation.x, 1.0, 1e-12);
	RK_CHECK_NEAR(n->local.translation.z, 3.0, 1e-12);
	RK_CHECK_NEAR(n->local.scale.x, 2.0, 1e-12);
	RK_CHECK_NEAR(n->local.scale.y, 3.0, 1e-12);
	RK_CHECK_NEAR(n->local.scale.z, 4.0, 1e-12);
	RK_CHECK_NEAR(fabs(n->local.rotation.z), sqrt(0.5), 1e-12);
	RK_CHECK_NEAR(fabs(n->local.rotation.w), sqrt(0.5), 1e-12);
	RK_CHECK_NEAR(n->local.rotation.z * n->local.rotation.w, 0.5, 1e-12);
	RK_CHECK_NEAR(n->props.rotation.z, 90.0, 1e-9);
	const double expect[16] = { 0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1 };
	for (int k = 0; k < 16; k++) RK_CHECK_NEAR(n->node_to_parent.m[k], expect[k], 1e-12);
	/* the loaded scene is scenes[1]: "m" comes first under the root */
	RK_CHECK(s->root->children.data[0] == n);
	RK_CHECK(rk_scene_find_node(s, "shear")->parent == n);
	const rk_warning *w = find_warning(s, "shear");
	RK_REQUIRE(w != NULL);
	RK_CHECK_STR(w->path, "/nodes/1");
	/* non-unit quaternion normalised, with a warning */
	const rk_node *t = rk_scene_find_node(s, "trs");
	RK_CHECK_NEAR(t->local.rotation.w, 1.0, 0.0);
	RK_CHECK(find_warning(s, "not a unit quaternion") != NULL);
	/* nodes outside the loaded scene are kept under the root */
	RK_CHECK(t->parent == s->root);
	RK_CHECK(find_warning(s, "not in the loaded scene") != NULL);
	const rk_node *n3 = NULL;
	for (size_t k = 1; k < s->nodes.count; k++)
		if (s->nodes.data[k].source_id == 3) n3 = &s->nodes.data[k];
	RK_REQUIRE(n3 != NULL);
	RK_CHECK_STR(n3->name, "");
	RK_CHECK_INT(n3->kind, RK_NODE_CAMERA);
	RK_CHECK_INT(n->kind, RK_NODE_NULL);
	rk_scene_free(s);
}

static const char rk_doc_anim[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":72},"
	"{\"buffer\":0,\"byteOffset\":80,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":88,\"byteLength\":16}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[2]},"
	"{\"bufferView\":1,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\"},"
	"{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0.5],\"max\":[1.5]},"
	"{\"bufferView\":3,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"}],"
	"\"animations\":[{\"name\":\"clip\",\"samplers\":[{\"input\":0,\"output\":1,\"interpolation\":\"CUBICSPLINE\"},"
	"{\"input\":2,\"output\":3,\"interpolation\":\"STEP\"}],"
	"\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
	"{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
	"{\"sampler\":1,\"target\":{\"path\":\"rotation\"}}]}],"
	"\"nodes\":[{\"name\":\"mover\",\"children\":[1]},{\"name\":\"turner\"}],\"scenes\":[{\"nodes\":[0]}]}";

static char *build_anim_doc(void)
{
	bin_builder b = { .size = 0 };
	const float t0[2] = { 0.0f, 2.0f };
	const float out0[18] = { 0, 0, 0, 1, 2, 3, 1, 1, 1, 2, 2, 2, 4, 5, 6, 0, 0, 0 };
	const float t1[2] = { 0.5f, 1.5f };
	const uint16_t out1[8] = { 0, 0, 0, 32767, (uint16_t)-32768, 0, 0, 0 };
	bin_f32(&b, t0, 2);
	bin_f32(&b, out0, 18);
	bin_f32(&b, t1, 2);
	bin_u16(&b, out1, 8);
	return make_doc(rk_doc_anim, b.data, b.size);
}

RK_TEST(cubicspline_animation)
{
	char *doc = build_anim_doc();
	maybe_write_seed("anim.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("anim", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_REQUIRE(s->clips.count == 1);
	const rk_anim_clip *c = &s->clips.data[0];
	RK_CHECK_STR(c->name, "clip");
	RK_CHECK_NEAR(c->time_begin, 0.0, 0.0);
	RK_CHECK_NEAR(c->time_end, 2.0, 0.0);
	RK_REQUIRE(c->layer_count == 1 && c->layers[0].track_count == 2);
	RK_CHECK(find_warning(s, "without a target node") != NULL);
	const rk_anim_track *t = &c->layers[0].tracks[0];
	RK_CHECK(t->node == rk_scene_find_node(s, "mover"));
	RK_CHECK_INT(t->target, RK_TARGET_TRANSLATION);
	RK_CHECK_INT(t->interpolation, RK_INTERP_CUBIC);
	RK_CHECK_INT(t->key_count, 2);
	RK_CHECK_INT(t->components, 3);
	RK_CHECK(t->curves[0] == NULL);
	static const double v0[18] = { 0, 0, 0, 1, 2, 3, 1, 1, 1, 2, 2, 2, 4, 5, 6, 0, 0, 0 };
	for (int k = 0; k < 18; k++) RK_CHECK_NEAR(rk_track_value(t, (size_t)k), v0[k], 0.0);
	RK_CHECK_NEAR(t->times[1], 2.0, 0.0);
	t = &c->layers[0].tracks[1];
	RK_CHECK(t->node == rk_scene_find_node(s, "turner"));
	RK_CHECK_INT(t->target, RK_TARGET_ROTATION_QUAT);
	RK_CHECK_INT(t->interpolation, RK_INTERP_CONSTANT);
	RK_CHECK_INT(t->components, 4);
	/* normalized SHORT: 32767 -> 1, -32768 -> -1 (clamped) */
	static const double v1[8] = { 0, 0, 0, 1, -1, 0, 0, 0 };
	for (int k = 0; k < 8; k++) RK_CHECK_NEAR(rk_track_value(t, (size_t)k), v1[k], 0.0);
	RK_CHECK_NEAR(t->times[0], 0.5, 0.0);
	rk_scene_free(s);

	rk_load_opts opts = { .ignore_animation = true };
	s = load_text(doc, &opts, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(s->clips.count, 0);
	rk_scene_free(s);
	free(doc);
}

static const char rk_doc_morph[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":1},"
	"{\"buffer\":0,\"byteOffset\":40,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":52,\"byteLength\":8},"
	"{\"buffer\":0,\"byteOffset\":60,\"byteLength\":2}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
	"\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}},"
	"{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
	"{\"bufferView\":4,\"componentType\":5121,\"normalized\":true,\"count\":2,\"type\":\"SCALAR\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":1}]}],"
	"\"weights\":[0.25],\"extras\":{\"targetNames\":[\"smile\"]}}],"
	"\"animations\":[{\"samplers\":[{\"input\":2,\"output\":3}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]}],"
	"\"nodes\":[{\"name\":\"face\",\"mesh\":0,\"weights\":[0.75]},{\"name\":\"other\",\"mesh\":0}],\"scenes\":[{\"nodes\":[0,1]}]}";

static char *build_morph_doc(void)
{
	bin_builder b = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint8_t idx[1] = { 1 };
	const float delta[3] = { 0, 1, 0 };
	const float times[2] = { 0, 1 };
	const uint8_t w[2] = { 0, 255 };
	bin_f32(&b, pos, 9);
	bin_u8(&b, idx, 1);
	bin_align4(&b);
	bin_f32(&b, delta, 3);
	bin_f32(&b, times, 2);
	bin_u8(&b, w, 2);
	bin_align4(&b);
	return make_doc(rk_doc_morph, b.data, b.size);
}

RK_TEST(morph_targets)
{
	char *doc = build_morph_doc();
	maybe_write_seed("morph.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("morph", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	const rk_mesh *m = &s->meshes.data[0];
	RK_REQUIRE(m->blend_channels.count == 1);
	const rk_blend_channel *ch = &m->blend_channels.data[0];
	RK_CHECK_STR(ch->name, "smile");
	RK_CHECK_NEAR(ch->default_weight, 0.25, 0.0);
	RK_REQUIRE(ch->target_count == 1);
	RK_CHECK_NEAR(ch->target_weights[0], 1.0, 0.0);
	RK_REQUIRE(ch->targets[0].offset_count == 1);
	RK_CHECK_INT(ch->targets[0].vertex_indices[0], 1);
	RK_CHECK_NEAR(rk_blend_shape_position_offset(&ch->targets[0], 0).y, 1.0, 0.0);
	RK_CHECK(!rk_blend_shape_has_normals(&ch->targets[0]));
	const rk_node *face = rk_scene_find_node(s, "face"), *other = rk_scene_find_node(s, "other");
	RK_CHECK_NEAR(face->blend_weights[0], 0.75, 0.0);
	RK_CHECK_NEAR(other->blend_weights[0], 0.25, 0.0);
	RK_CHECK(face->mesh == other->mesh);
	const rk_anim_track *t = &s->clips.data[0].layers[0].tracks[0];
	RK_CHECK_INT(t->target, RK_TARGET_MORPH_WEIGHTS);
	RK_CHECK_INT(t->components, 1);
	RK_CHECK_INT(t->interpolation, RK_INTERP_LINEAR);
	RK_CHECK_NEAR(rk_track_value(t, 1), 1.0, 0.0);
	rk_scene_free(s);
	free(doc);
}

/* A 1x1 PNG's first bytes are enough: images are never decoded. */
static const unsigned char rk_png_bytes[16] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };

static const char rk_doc_material[] =
	"{\"asset\":{\"version\":\"2.0\"},"
	"\"extensionsUsed\":[\"KHR_texture_transform\",\"KHR_materials_unlit\",\"EXT_made_up\"],"
	"\"extensionsRequired\":[\"KHR_texture_transform\"],"
	"\"buffers\":[{\"byteLength\":@LEN@,\"uri\":\"@URI@\"}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":16}],"
	"\"images\":[{\"uri\":\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==\"},{\"bufferView\":0,\"mimeType\":\"image/x-test\"},"
	"{\"uri\":\"textures/wood%20grain.png\"}],"
	"\"samplers\":[{\"wrapS\":33071,\"wrapT\":33648}],"
	"\"textures\":[{\"name\":\"tex\",\"sampler\":0,\"source\":0},{\"source\":1},{\"source\":2}],"
	"\"materials\":[{\"name\":\"mat\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.5,0.25,1,1],"
	"\"baseColorTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":{\"offset\":[0.5,0.25],\"rotation\":1.5,\"scale\":[2,3],\"texCoord\":1}}},"
	"\"metallicFactor\":0.3,\"roughnessFactor\":0.7,\"metallicRoughnessTexture\":{\"index\":1,\"texCoord\":2}},"
	"\"normalTexture\":{\"index\":2},\"emissiveFactor\":[1,0,0],\"alphaMode\":\"MASK\",\"alphaCutoff\":0.25,\"doubleSided\":true,"
	"\"extensions\":{\"KHR_materials_unlit\":{}}},{}]}";

RK_TEST(materials_textures_transform)
{
	char *doc = make_doc(rk_doc_material, rk_png_bytes, sizeof(rk_png_bytes));
	maybe_write_seed("material.gltf", doc, strlen(doc));
	rk_error err;
	rk_scene *s = load_text(doc, NULL, &err);
	if (!s) print_error("material", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_REQUIRE(s->materials.count == 2 && s->textures.count == 3);
	const rk_material *m = &s->materials.data[0];
	RK_CHECK_STR(m->name, "mat");
	RK_CHECK_STR(m->shading_model, "pbrMetallicRoughness");
	RK_CHECK_NEAR(m->base_color.y, 0.25, 0.0);
	RK_CHECK_NEAR(m->metallic, 0.3, 0.0);
	RK_CHECK_NEAR(m->roughness, 0.7, 0.0);
	RK_CHECK_NEAR(m->emissive.x, 1.0, 0.0);
	RK_CHECK_INT(m->alpha_mode, RK_ALPHA_MASK);
	RK_CHECK_NEAR(m->alpha_cutoff, 0.25, 0.0);
	RK_CHECK(m->double_sided);
	RK_CHECK(m->unlit);
	const rk_texture_ref *r = &m->base_color_texture;
	RK_CHECK(r->texture == &s->textures.data[0]);
	RK_CHECK(r->has_transform);
	RK_CHECK_NEAR(r->offset.x, 0.5, 0.0);
	RK_CHECK_NEAR(r->offset.y, 0.25, 0.0);
	RK_CHECK_NEAR(r->scale.x, 2.0, 0.0);
	RK_CHECK_NEAR(r->scale.y, 3.0, 0.0);
	RK_CHECK_NEAR(r->rotation, 1.5, 0.0);
	RK_CHECK_INT(r->texcoord, 1);    /* the transform's texCoord overrides */
	RK_CHECK_STR(r->uv_set, "TEXCOORD_1");
	RK_CHECK_INT(m->metallic_roughness_texture.texcoord, 2);
	RK_CHECK(!m->metallic_roughness_texture.has_transform);
	RK_CHECK_NEAR(m->metallic_roughness_texture.scale.x, 1.0, 0.0);
	RK_CHECK(m->normal_texture.texture == &s->textures.data[2]);
	RK_CHECK(m->emissive_texture.texture == NULL);
	/* second material: all glTF defaults */
	m = &s->materials.data[1];
	RK_CHECK_NEAR(m->base_color.x, 1.0, 0.0);
	RK_CHECK_NEAR(m->roughness, 1.0, 0.0);
	RK_CHECK_NEAR(m->alpha_cutoff, 0.5, 0.0);
	RK_CHECK(!m->double_sided && !m->unlit);
	/* textures: data: URI, bufferView, external file name */
	const rk_texture *t = &s->textures.data[0];
	RK_CHECK_STR(t->name, "tex");
	RK_CHECK_INT(t->wrap_u, RK_WRAP_CLAMP);
	RK_CHECK_INT(t->wrap_v, RK_WRAP_MIRROR);
	RK_CHECK_STR(t->mime_type, "image/png");
	RK_REQUIRE(t->content_size == 16);
	RK_CHECK(memcmp(t->content, rk_png_bytes, 16) == 0);
	RK_CHECK_STR(t->filename, "");
	t = &s->textures.data[1];
	RK_CHECK_STR(t->mime_type, "image/x-test");
	RK_REQUIRE(t->content_size == 16);
	RK_CHECK(memcmp(t->content, rk_png_bytes, 16) == 0);
	RK_CHECK_INT(t->wrap_u, RK_WRAP_REPEAT);
	t = &s->textures.data[2];
	RK_CHECK_STR(t->filename, "textures/wood grain.png");
	RK_CHECK(t->resolved_path == NULL);
	RK_CHECK(t->content == NULL);
	RK_CHECK_STR(t->mime_type, "image/png");
	const rk_warning *w = find_warning(s, "EXT_made_up");
	RK_REQUIRE(w != NULL);
	RK_CHECK_STR(w->path, "/extensionsUsed/2");
	RK_CHECK(find_warning(s, "KHR_texture_transform") == NULL);
	rk_scene_free(s);

	rk_load_opts opts = { .no_embedded_content = true };
	s = load_text(doc, &opts, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK(s->textures.data[0].content == NULL && s->textures.data[1].content == NULL);
	RK_CHECK_STR(s->textures.data[1].mime_type, "image/x-test");
	rk_scene_free(s);
	free(doc);
}

/* ---- errors ------------------------------------------------------------------------ */

RK_TEST(unknown_required_extension)
{
	/* (Draco was the example until rigkit decoded it: test_gltf_compressed.c) */
	static const char doc[] = "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"VENDOR_geometry_codec\"],"
		"\"extensionsRequired\":[\"KHR_texture_transform\",\"VENDOR_geometry_codec\"]}";
	rk_load_opts opts = { .filename = "draco.gltf" };
	rk_error err;
	rk_scene *s = load_text(doc, &opts, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
	RK_CHECK(strstr(err.message, "VENDOR_geometry_codec") != NULL);
	RK_CHECK(err.location & RK_LOCATION_JSON);
	RK_CHECK_STR(err.path, "/extensionsRequired/1");
	RK_CHECK_STR(err.file, "draco.gltf");
	rk_scene_free(s);
}

RK_TEST(out_of_range_index)
{
	/* Same layout as the strip document, but index 7 in a 5-vertex primitive. */
	bin_builder b = { .size = 0 };
	for (int i = 0; i < 5; i++) {
		const float pn[6] = { (float)i, 0, 0, 0, 0, 1 };
		bin_f32(&b, pn, 6);
	}
	const uint8_t fan[5] = { 0, 1, 7, 3, 4 };
	bin_u8(&b, fan, 5);
	bin_align4(&b);
	const uint16_t tri[3] = { 0, 1, 2 };
	bin_u16(&b, tri, 3);
	bin_align4(&b);
	char *doc = make_doc(rk_doc_strip, b.data, b.size);
	rk_load_opts opts = { .filename = "dir/bad_index.gltf" };
	rk_error err;
	rk_scene *s = load_text(doc, &opts, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/meshes/1/primitives/0/indices");
	RK_CHECK_STR(err.file, "dir/bad_index.gltf");
	RK_CHECK(strstr(err.message, "7") != NULL);
	char text[1024];
	rk_error_format(text, sizeof(text), &err);
	RK_CHECK(strstr(text, "JSON /meshes/1/primitives/0/indices") != NULL);
	free(doc);

	/* an index into a list that does not exist */
	static const char doc2[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":3}]}";
	s = load_text(doc2, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/nodes/0/mesh");

	/* accessor reaching past its bufferView */
	static const char doc3[] = "{\"asset\":{\"version\":\"2.0\"},"
		"\"buffers\":[{\"byteLength\":12,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA\"}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
		"\"accessors\":[{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}";
	s = load_text(doc3, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/accessors/0/count");

	/* bufferView reaching past its buffer */
	static const char doc4[] = "{\"asset\":{\"version\":\"2.0\"},"
		"\"buffers\":[{\"byteLength\":12,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA\"}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteOffset\":8,\"byteLength\":8}]}";
	s = load_text(doc4, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_STR(err.path, "/bufferViews/0/byteLength");

	/* buffer claiming more bytes than its data: URI holds */
	static const char doc5[] = "{\"asset\":{\"version\":\"2.0\"},"
		"\"buffers\":[{\"byteLength\":13,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA\"}]}";
	s = load_text(doc5, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_STR(err.path, "/buffers/0/byteLength");

	/* a joint index beyond the skin's joints with a non-zero weight */
	bin_builder k = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint8_t joints[12] = { 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t weights[12] = { 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0 };
	bin_f32(&k, pos, 9);
	bin_u8(&k, joints, 12);
	bin_u8(&k, weights, 12);
	doc = make_doc(rk_doc_skin, k.data, k.size);
	s = load_text(doc, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/meshes/0/primitives/0/attributes/JOINTS_0");
	free(doc);
}

RK_TEST(bad_node_graphs)
{
	rk_error err;
	static const char cycle[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[2]},{\"children\":[0]}]}";
	rk_scene *s = load_text(cycle, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK(strstr(err.message, "cycle") != NULL);
	RK_CHECK(strncmp(err.path, "/nodes/", 7) == 0);

	static const char cycle2[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[2]},{\"children\":[1]}],"
		"\"scenes\":[{\"nodes\":[0]}]}";
	s = load_text(cycle2, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK(strstr(err.message, "parent") != NULL || strstr(err.message, "cycle") != NULL);

	static const char two_parents[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},{}]}";
	s = load_text(two_parents, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/nodes/1/children/0");

	static const char self[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[0]}]}";
	s = load_text(self, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_STR(err.path, "/nodes/0/children/0");

	/* a chain deeper than max_depth */
	char deep[4096];
	size_t n = (size_t)snprintf(deep, sizeof(deep), "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
	for (int i = 0; i < 20; i++) n += (size_t)snprintf(deep + n, sizeof(deep) - n, "%s{\"children\":[%d]}", i ? "," : "", i + 1);
	snprintf(deep + n, sizeof(deep) - n, ",{}]}");
	rk_load_opts opts = { .max_depth = 10 };
	s = load_text(deep, &opts, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	s = load_text(deep, NULL, &err);
	RK_CHECK(s != NULL);
	if (s) RK_CHECK_INT(s->nodes.data[21].depth, 21);
	rk_scene_free(s);
}

RK_TEST(bad_json_and_versions)
{
	rk_error err;
	static const char syntax[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{]}";
	rk_scene *s = load_text(syntax, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK(err.location & RK_LOCATION_BYTE);
	RK_CHECK(err.byte_offset >= 30 && err.byte_offset <= 40);

	static const char v1[] = "{\"asset\":{\"version\":\"1.0\"}}";
	s = load_text(v1, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
	RK_CHECK_STR(err.path, "/asset/version");

	static const char wrong_type[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"translation\":[1,2]}]}";
	s = load_text(wrong_type, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_STR(err.path, "/nodes/0/translation");
	RK_CHECK(strstr(err.message, "3") != NULL);

	/* JSON nesting beyond max_depth is refused (the reader does not recurse) */
	char deep[2048];
	size_t n = (size_t)snprintf(deep, sizeof(deep), "{\"asset\":{\"version\":\"2.0\"},\"extras\":");
	for (int i = 0; i < 600; i++) deep[n++] = '[';
	for (int i = 0; i < 600; i++) deep[n++] = ']';
	deep[n++] = '}';
	deep[n] = '\0';
	s = load_text(deep, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK(err.location & RK_LOCATION_BYTE);

	/* an empty but valid document */
	static const char empty[] = "\xEF\xBB\xBF {\"asset\":{\"version\":\"2.0\",\"generator\":\"x\"}}";
	s = load_text(empty, NULL, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(s->nodes.count, 1);
	RK_CHECK_INT(s->root->kind, RK_NODE_ROOT);
	RK_CHECK_STR(s->root->name, "");
	RK_CHECK_STR(s->settings.creator, "x");
	rk_scene_free(s);

	/* format detection: the first key decides even when "asset" comes late */
	RK_CHECK_INT(rk_format_detect("{ \"accessors\": []}", 18), RK_FORMAT_GLTF);
	RK_CHECK_INT(rk_format_detect("{\"foo\": 1}", 10), RK_FORMAT_UNKNOWN);
	RK_CHECK_INT(rk_format_detect("glTF", 4), RK_FORMAT_GLB);
}

/* ---- the JSON reader (src/formats/gltf/gltf_json_parse.c) ------------------------------------
 * Values are checked through what the loader makes of them: node names and
 * translations. Expected numbers are C literals (the compiler rounds them
 * correctly, as strtod must); expected strings are hand-encoded UTF-8. */

/* Loads `prefix` + `node` + `suffix` as a one-node document. */
static rk_scene *load_node_json(const char *node, rk_error *err)
{
	char doc[2048];
	snprintf(doc, sizeof(doc), "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[%s]}", node);
	return load_text(doc, NULL, err);
}

/* The document must fail with an error `code` at byte `at` of doc. */
static void expect_json_error_at(rk_test_state *rk_t_, const char *doc, size_t doc_len, size_t at, rk_error_code code)
{
	rk_error err;
	rk_scene *s = rk_load_memory(doc, doc_len, NULL, &err);
	RK_CHECK(s == NULL);
	rk_scene_free(s);
	RK_CHECK_INT(err.code, code);
	RK_CHECK(err.location & RK_LOCATION_BYTE);
	RK_CHECK_INT(err.byte_offset, at);
	RK_CHECK(err.message[0] != '\0');
	if (err.byte_offset != at) fprintf(stderr, "  document: %.*s\n  message: %s\n", (int)doc_len, doc, err.message);
}

/* The same at the first occurrence of `marker` after the "nodes" key. */
static void expect_json_error(rk_test_state *rk_t_, const char *doc, size_t doc_len, const char *marker, rk_error_code code)
{
	const char *from = strstr(doc, "\"nodes\"");
	RK_REQUIRE(from != NULL && marker[0] != '\0');
	const char *at = NULL;
	for (size_t i = (size_t)(from - doc); i + strlen(marker) <= doc_len && !at; i++)
		if (memcmp(doc + i, marker, strlen(marker)) == 0) at = doc + i;
	RK_REQUIRE(at != NULL);
	expect_json_error_at(rk_t_, doc, doc_len, (size_t)(at - doc), code);
}

RK_TEST(json_reader)
{
	rk_error err;
	/* escapes, including a surrogate pair, and raw UTF-8 */
	rk_scene *s = load_node_json("{\"name\":\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00\\u20AC|\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"}", &err);
	if (!s) print_error("escapes", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_STR(s->nodes.data[1].name, "a\"b\\c/d\n\t\xC3\xA9\xF0\x9F\x98\x80\xE2\x82\xAC|\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
	rk_scene_free(s);

	/* numbers: exponents, 19-digit and longer integers, a number longer than 64 characters */
	s = load_node_json(" {\r\n\t\"translation\" : [ 1E2 , -0.5e-1 ,\t123456789012345678901234567890 ] ,"
		"\"scale\":[1234567890123456789,-0.000000000000000000000000000000000000000000000000000000000000000000000125,9007199254740993]}", &err);
	if (!s) print_error("numbers", &err);
	RK_REQUIRE(s != NULL);
	const rk_node *n = &s->nodes.data[1];
	RK_CHECK(n->local.translation.x == 100.0);
	RK_CHECK(n->local.translation.y == -0.05);
	RK_CHECK(n->local.translation.z == 123456789012345678901234567890.0);
	RK_CHECK(n->local.scale.x == 1234567890123456789.0);
	RK_CHECK(n->local.scale.y == -0.000000000000000000000000000000000000000000000000000000000000000000000125);
	RK_CHECK(n->local.scale.z == 9007199254740993.0);  /* 2^53 + 1 rounds to even: 2^53 */
	rk_scene_free(s);

	/* decimals: short ones (Clinger's fast path in the reader) and long ones (strtod) agree with the compiler */
	static const struct { const char *text; double value; } decimals[] = {
		{ "2.512805223464966", 2.512805223464966 }, { "-6.508234946522862e-07", -6.508234946522862e-07 },
		{ "0.39312317967414856", 0.39312317967414856 }, { "1.5e-30", 1.5e-30 }, { "123.456e5", 123.456e5 },
		{ "0.1", 0.1 }, { "1e22", 1e22 }, { "1e23", 1e23 }, { "9007199254740993.5", 9007199254740993.5 },
		{ "0.000012360472283035051", 0.000012360472283035051 }, { "-0.0e-5", -0.0 }, { "4.9e-324", 4.9e-324 },
		{ "1.7976931348623157e308", 1.7976931348623157e308 }, { "100.4000015258789", 100.4000015258789 },
	};
	for (size_t i = 0; i < sizeof(decimals) / sizeof(decimals[0]); i++) {
		char node[160];
		snprintf(node, sizeof(node), "{\"translation\":[%s,0,0]}", decimals[i].text);
		s = load_node_json(node, &err);
		RK_REQUIRE(s != NULL);
		RK_CHECK(s->nodes.data[1].local.translation.x == decimals[i].value);
		if (s->nodes.data[1].local.translation.x != decimals[i].value)
			fprintf(stderr, "  %s -> %.17g\n", decimals[i].text, s->nodes.data[1].local.translation.x);
		rk_scene_free(s);
	}

	/* a locale whose decimal point is not '.' (when one is installed) */
	static const char *const comma_locales[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8" };
	for (size_t i = 0; i < sizeof(comma_locales) / sizeof(comma_locales[0]); i++) {
		if (!setlocale(LC_NUMERIC, comma_locales[i])) continue;
		s = load_node_json("{\"translation\":[1.5,0.39312317967414856,-6.508234946522862e-07]}", &err);
		setlocale(LC_NUMERIC, "C");
		RK_REQUIRE(s != NULL);
		RK_CHECK(s->nodes.data[1].local.translation.x == 1.5);
		RK_CHECK(s->nodes.data[1].local.translation.y == 0.39312317967414856);
		RK_CHECK(s->nodes.data[1].local.translation.z == -6.508234946522862e-07);
		rk_scene_free(s);
		break;
	}

	/* a repeated key: the first one counts */
	s = load_node_json("{\"name\":\"first\",\"name\":\"second\"}", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_STR(s->nodes.data[1].name, "first");
	rk_scene_free(s);

	/* syntax errors at the offending byte */
	static const struct { const char *node, *marker; } bad[] = {
		{ "{\"name\":\"a\x01\"}", "\x01" },                       /* raw control character */
		{ "{\"name\":\"\xC3\x28\"}", "\xC3" },                    /* truncated 2-byte sequence */
		{ "{\"name\":\"\xC0\xAF\"}", "\xC0" },                    /* overlong */
		{ "{\"name\":\"\xED\xA0\x80\"}", "\xED" },                /* UTF-16 surrogate in UTF-8 */
		{ "{\"name\":\"\xF4\x90\x80\x80\"}", "\xF4" },            /* above U+10FFFF */
		{ "{\"name\":\"\xFF\"}", "\xFF" },
		{ "{\"name\":\"x\\ud800y\"}", "\\ud800" },                /* lone high surrogate */
		{ "{\"name\":\"x\\ud800\\u0041\"}", "\\ud800" },          /* high surrogate + non-surrogate */
		{ "{\"name\":\"x\\udc00\"}", "\\udc00" },                 /* lone low surrogate */
		{ "{\"name\":\"x\\q\"}", "\\q" },
		{ "{\"name\":\"x\\u12G4\"}", "\\u12G4" },
		{ "{\"translation\":[01,0,0]}", "1,0,0" },
		{ "{\"translation\":[+1,0,0]}", "+1" },
		{ "{\"translation\":[.5,0,0]}", ".5" },
		{ "{\"translation\":[1.,0,0]}", ",0,0]" },
		{ "{\"translation\":[1e,0,0]}", ",0,0]" },
		{ "{\"translation\":[1e+,0,0]}", ",0,0]" },
		{ "{\"translation\":[-,0,0]}", ",0,0]" },
		{ "{\"translation\":[NaN,0,0]}", "NaN" },
		{ "{\"translation\":[0x10,0,0]}", "x10" },
		{ "{\"translation\":[1,2,]}", "]}" },
		{ "{\"name\":tru}", "tru}" },
		{ "{\"name\":\"x\",}", "}" },
		{ "{\"name\" \"x\"}", "\"x\"" },
		{ "{name:\"x\"}", "name" },
		{ "{\"name\":\"x\"]", "]" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char doc[512];
		int len = snprintf(doc, sizeof(doc), "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[%s]}", bad[i].node);
		expect_json_error(rk_t_, doc, (size_t)len, bad[i].marker, RK_ERROR_CORRUPT);
	}
	/* an unterminated string, then a document cut short: offsets at the quote / the end */
	static const char open_string[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"abc";
	expect_json_error(rk_t_, open_string, strlen(open_string), "\"abc", RK_ERROR_CORRUPT);
	static const char cut[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}";
	s = load_text(cut, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_INT(err.byte_offset, strlen(cut));
	/* \u0000 is allowed (names end there) */
	s = load_node_json("{\"name\":\"ab\\u0000cd\"}", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_STR(s->nodes.data[1].name, "ab");
	rk_scene_free(s);
	/* a NUL byte is not whitespace inside the document, but may pad the end */
	static const char nul_inside[] = "{\"asset\":{\"version\":\"2.0\"},\0\"nodes\":[]}";
	expect_json_error_at(rk_t_, nul_inside, sizeof(nul_inside) - 1, 27, RK_ERROR_CORRUPT);
	static const char nul_after[] = "{\"asset\":{\"version\":\"2.0\"}}\0\0 ";
	s = rk_load_memory(nul_after, sizeof(nul_after) - 1, NULL, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(s->warnings.count, 0);
	rk_scene_free(s);
	static const char two_docs[] = "{\"asset\":{\"version\":\"2.0\"}} {}";
	s = load_text(two_docs, NULL, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK(find_warning(s, "after the JSON document") != NULL);
	rk_scene_free(s);
	/* member names are limited to 65535 bytes */
	size_t long_len = 65536 + 64;
	char *long_key = (char *)malloc(long_len + 64);
	RK_REQUIRE(long_key != NULL);
	int head = snprintf(long_key, 64, "{\"asset\":{\"version\":\"2.0\"},\"");
	memset(long_key + head, 'k', 65536);
	snprintf(long_key + head + 65536, 32, "\":1}");
	s = load_text(long_key, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_INT(err.byte_offset, head - 1);
	long_key[head + 65535] = '"';  /* 65535 bytes: fine */
	long_key[head + 65536] = ':';
	long_key[head + 65537] = '1';
	long_key[head + 65538] = '}';
	long_key[head + 65539] = '\0';
	s = load_text(long_key, NULL, &err);
	RK_CHECK(s != NULL);
	rk_scene_free(s);
	free(long_key);
	/* the number of values is limited by max_elements, at the value that exceeds
	 * it: document, asset, "2.0", x, 1 are 5; 2 is the sixth */
	rk_load_opts few = { .max_elements = 5 };
	static const char many[] = "{\"asset\":{\"version\":\"2.0\"},\"x\":[1,2,3]}";
	s = load_text(many, &few, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_INT(err.byte_offset, strstr(many, "2,3]") - many);
}

/* The reader's tree itself (internal API, src/formats/gltf/gltf_internal.h). */
RK_TEST(json_tree)
{
	static const char text[] = " {\"a\":[1,-2.5e3,\"x\\u00e9\",true,false,null,[],{}],\"\":{\"k\\n\":\"v\"},\"a\":0} ";
	rki_alloc alloc;
	rki_arena arena;
	rki_json_doc doc;
	rki_json_error err;
	rki_alloc_init(&alloc, NULL, 0, 0);
	rki_arena_init(&arena, &alloc);
	RK_REQUIRE(rki_json_parse(&doc, (const unsigned char *)text, sizeof(text) - 1, &arena, 8, 100, &err));
	RK_CHECK_INT(doc.end, sizeof(text) - 2);
	const rki_json *root = &doc.root;
	RK_REQUIRE(root->type == RKI_JSON_OBJECT && root->len == 3);
	const rki_json *a = rki_json_get(root, "a");  /* the first "a" */
	RK_REQUIRE(rki_json_is(a, RKI_JSON_ARRAY) && a->len == 8);
	RK_CHECK(a->u.items[0].type == RKI_JSON_NUMBER && rki_json_number(&doc, &a->u.items[0]) == 1.0);
	RK_CHECK(rki_json_number(&doc, &a->u.items[1]) == -2500.0);
	RK_CHECK(a->u.items[2].type == RKI_JSON_STRING && a->u.items[2].len == 3 && memcmp(a->u.items[2].u.text, "x\xC3\xA9", 3) == 0);
	RK_CHECK(a->u.items[3].type == RKI_JSON_TRUE && a->u.items[4].type == RKI_JSON_FALSE && a->u.items[5].type == RKI_JSON_NULL);
	RK_CHECK(a->u.items[6].type == RKI_JSON_ARRAY && a->u.items[6].len == 0);
	RK_CHECK(a->u.items[7].type == RKI_JSON_OBJECT && a->u.items[7].len == 0);
	const rki_json *e = rki_json_get_n(root, "", 0);
	RK_REQUIRE(rki_json_is(e, RKI_JSON_OBJECT) && e->len == 1);
	RK_CHECK(e->u.members[0].value.key_len == 2 && memcmp(e->u.members[0].key, "k\n", 2) == 0);
	RK_CHECK(rki_json_eq(rki_json_get_n(e, "k\n", 2), "v"));
	RK_CHECK(rki_json_get(root, "b") == NULL && rki_json_get(a, "a") == NULL);
	rki_arena_free(&arena);
	RK_CHECK_INT(alloc.bytes_in_use, 0);

	/* the depth limit counts containers: 8 nested arrays pass with max_depth 8, 9 do not */
	rki_arena_init(&arena, &alloc);
	RK_CHECK(rki_json_parse(&doc, (const unsigned char *)"[[[[[[[[]]]]]]]]", 16, &arena, 8, 100, &err));
	RK_CHECK(!rki_json_parse(&doc, (const unsigned char *)"[[[[[[[[[]]]]]]]]]", 18, &arena, 8, 100, &err));
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK_INT(err.offset, 8);
	rki_arena_free(&arena);
	RK_CHECK_INT(alloc.bytes_in_use, 0);

	/* numbers are copied for strtod with the locale's decimal point in place of '.' */
	char buf[64];
	rki_json_number_copy(buf, "-1.25e-3", 8, ",");
	RK_CHECK_STR(buf, "-1,25e-3");
	rki_json_number_copy(buf, "1.5", 3, "\xD9\xAB");  /* U+066B ARABIC DECIMAL SEPARATOR */
	RK_CHECK_STR(buf, "1\xD9\xAB" "5");
	rki_json_number_copy(buf, "42", 2, ",");
	RK_CHECK_STR(buf, "42");
}

/* ---- GLB containers (make_glb: rk_glb.h) ------------------------------------------- */

static const char rk_glb_json[] =
	"{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":42}],"
	"\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
	"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	"{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
	"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
	"\"nodes\":[{\"name\":\"tri\",\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";

static unsigned char *build_glb(size_t *size)
{
	bin_builder b = { .size = 0 };
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint16_t idx[3] = { 0, 1, 2 };
	bin_f32(&b, pos, 9);
	bin_u16(&b, idx, 3);
	return make_glb(rk_glb_json, b.data, b.size, size);
}

RK_TEST(glb_container)
{
	size_t size;
	unsigned char *glb = build_glb(&size);
	maybe_write_seed("tri.glb", glb, size);
	rk_error err;
	rk_scene *s = rk_load_memory(glb, size, NULL, &err);
	if (!s) print_error("glb", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(s->settings.format, RK_FORMAT_GLB);
	RK_CHECK_INT(s->meshes.data[0].face_count, 1);
	RK_CHECK_NEAR(rk_mesh_position(&s->meshes.data[0], 2).y, 1.0, 0.0);
	rk_scene_free(s);

	unsigned char *bad = (unsigned char *)malloc(size + 8);
	/* version 1 */
	memcpy(bad, glb, size);
	put32(bad + 4, 1);
	s = rk_load_memory(bad, size, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_UNSUPPORTED);
	RK_CHECK(err.location & RK_LOCATION_BYTE);
	RK_CHECK_INT(err.byte_offset, 4);
	/* truncated: header length beyond the data */
	s = rk_load_memory(glb, size - 1, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_TRUNCATED);
	RK_CHECK_INT(err.byte_offset, 8);
	/* JSON chunk longer than the file */
	memcpy(bad, glb, size);
	put32(bad + 12, (uint32_t)size);
	s = rk_load_memory(bad, size, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_TRUNCATED);
	RK_CHECK_INT(err.byte_offset, 12);
	/* first chunk is not JSON */
	memcpy(bad, glb, size);
	put32(bad + 16, 0x004E4942);
	s = rk_load_memory(bad, size, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_INT(err.byte_offset, 16);
	/* BIN chunk smaller than buffer 0 says */
	memcpy(bad, glb, size);
	size_t bin_at = size - 44 - 8; /* BIN chunk header: 42 bytes padded to 44 */
	put32(bad + bin_at, 40);
	put32(bad + 8, (uint32_t)(size - 4));
	s = rk_load_memory(bad, size - 4, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_STR(err.path, "/buffers/0/byteLength");
	/* trailing bytes after the GLB: warning */
	memcpy(bad, glb, size);
	memset(bad + size, 0, 8);
	s = rk_load_memory(bad, size + 8, NULL, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK(find_warning(s, "after the end of the GLB") != NULL);
	rk_scene_free(s);
	free(bad);
	free(glb);
}

/* ---- external files ------------------------------------------------------------------ */

RK_TEST(external_files)
{
	char dir[] = "/tmp/rigkit_gltf_XXXXXX";
	RK_REQUIRE(mkdtemp(dir) != NULL);
	char path[4096], gltf[4096], sub[4096];
	const float pos[9] = { 0, 0, 0, 2, 0, 0, 0, 2, 0 };
	bin_builder b = { .size = 0 };
	bin_f32(&b, pos, 9);
	snprintf(sub, sizeof(sub), "%s/maps", dir);
	RK_REQUIRE(mkdir(sub, 0700) == 0);
	snprintf(path, sizeof(path), "%s/my data.bin", dir);
	RK_REQUIRE(write_all(path, b.data, b.size));
	snprintf(path, sizeof(path), "%s/maps/skin.png", dir);
	RK_REQUIRE(write_all(path, rk_png_bytes, sizeof(rk_png_bytes)));
	static const char doc[] = "{\"asset\":{\"version\":\"2.0\"},"
		"\"buffers\":[{\"byteLength\":36,\"uri\":\"my%20data.bin\"}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
		"\"images\":[{\"uri\":\"maps/skin.png\"},{\"uri\":\"maps/missing.jpg\"}],"
		"\"textures\":[{\"source\":0},{\"source\":1}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
	snprintf(gltf, sizeof(gltf), "%s/model.gltf", dir);
	RK_REQUIRE(write_all(gltf, doc, strlen(doc)));

	rk_error err;
	rk_scene *s = rk_load_file(gltf, NULL, &err);
	if (!s) print_error("external", &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_NEAR(rk_mesh_position(&s->meshes.data[0], 1).x, 2.0, 0.0);
	snprintf(path, sizeof(path), "%s/maps/skin.png", dir);
	RK_CHECK_STR(s->textures.data[0].resolved_path, path);
	RK_CHECK_STR(s->textures.data[0].filename, "maps/skin.png");
	RK_CHECK(s->textures.data[0].content == NULL);
	RK_CHECK(s->textures.data[1].resolved_path == NULL);
	RK_CHECK_STR(s->textures.data[1].mime_type, "image/jpeg");
	rk_scene_free(s);

	/* from memory without a file name: a clean error naming the buffer */
	s = load_text(doc, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_IO);
	RK_CHECK_STR(err.path, "/buffers/0/uri");
	RK_CHECK(strstr(err.message, "my data.bin") != NULL);
	/* ... and with one, it resolves */
	rk_load_opts opts = { .filename = gltf };
	s = load_text(doc, &opts, &err);
	RK_CHECK(s != NULL);
	rk_scene_free(s);

	/* missing file, URL, absolute path */
	static const char missing[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"nothere.bin\"}]}";
	s = load_text(missing, &opts, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_IO);
	RK_CHECK_STR(err.path, "/buffers/0/uri");
	static const char url[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"https://example.com/a.bin\"}]}";
	/* refused by the access policy (docs/security.md): the rest loads, with a
	 * warning naming the reference (tests/test_file_access.c has every form) */
	s = load_text(url, &opts, &err);
	RK_REQUIRE(s != NULL);
	RK_REQUIRE(s->warnings.count == 1);
	RK_CHECK(strstr(s->warnings.data[0].message, "https://example.com/a.bin") != NULL);
	rk_scene_free(s);
	static const char abs_path[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"/etc/passwd\"}]}";
	s = load_text(abs_path, &opts, &err);
	RK_REQUIRE(s != NULL);
	RK_REQUIRE(s->warnings.count == 1);
	RK_CHECK(strstr(s->warnings.data[0].message, "\"/etc/passwd\"") != NULL);
	rk_scene_free(s);

	snprintf(path, sizeof(path), "%s/my data.bin", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/maps/skin.png", dir);
	unlink(path);
	unlink(gltf);
	rmdir(sub);
	rmdir(dir);
}

/* ---- robustness ---------------------------------------------------------------------- */

static bool quick_mode(void)
{
	const char *q = getenv("RIGKIT_TEST_QUICK");
	return q && q[0] == '1';
}

static uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Loads and checks one mutated input; returns false on a bad outcome. */
static bool robust_load(const unsigned char *data, size_t size, const rk_load_opts *opts)
{
	rk_error err;
	rk_scene *s = rk_load_memory(data, size, opts, &err);
	if (s) {
		int bad = scene_violations(s);
		rk_scene_free(s);
		return bad == 0;
	}
	return err.code != RK_OK && err.message[0] != '\0' && err.description != NULL;
}

static void robustness_one(rk_test_state *rk_t_, const char *name, unsigned char *data, size_t size, size_t truncations, size_t corruptions)
{
	rk_load_opts opts = { .memory_limit = (size_t)256 << 20, .max_elements = (size_t)1 << 22 };
	unsigned char *copy = (unsigned char *)malloc(size ? size : 1);
	size_t failures = 0;
	bool glb = size >= 12 && memcmp(data, "glTF", 4) == 0;
	for (size_t k = 0; k < truncations; k++) {
		size_t len = (size_t)((double)size * (double)k / (double)truncations);
		memcpy(copy, data, len);
		if (!robust_load(copy, len, &opts)) failures++;
		if (glb && len >= 12) {
			put32(copy + 8, (uint32_t)len);
			if (!robust_load(copy, len, &opts)) failures++;
		}
	}
	uint32_t json_end = glb ? 20 + ((uint32_t)data[12] | ((uint32_t)data[13] << 8) | ((uint32_t)data[14] << 16)) : (uint32_t)size;
	if (json_end > size) json_end = (uint32_t)size;
	uint32_t rng = 0x9E3779B9u;
	memcpy(copy, data, size);
	for (size_t k = 0; k < corruptions; k++) {
		uint32_t r = xorshift32(&rng);
		size_t pos = (k % 2 == 0) ? r % json_end : r % size;
		unsigned char old = copy[pos], v = (unsigned char)(xorshift32(&rng) >> 24);
		if (v == old) v ^= 0x55;
		copy[pos] = v;
		if (!robust_load(copy, size, &opts)) {
			failures++;
			fprintf(stderr, "%s: corruption %zu (byte %zu = 0x%02X) gave a bad outcome\n", name, k, pos, v);
		}
		copy[pos] = old;
	}
	if (failures) fprintf(stderr, "%s: %zu bad outcomes\n", name, failures);
	RK_CHECK_INT(failures, 0);
	free(copy);
}

RK_TEST(robustness_tiny_documents)
{
	char *docs[7] = { build_sparse_doc(), build_skin_doc(), build_strip_doc(), build_anim_doc(), build_morph_doc(), build_types_doc(),
		build_skin8_doc() };
	for (int i = 0; i < 7; i++) {
		size_t n = strlen(docs[i]);
		robustness_one(rk_t_, "tiny document", (unsigned char *)docs[i], n, n < 2000 ? n : 2000, quick_mode() ? 300 : 2000);
		free(docs[i]);
	}
	size_t size;
	unsigned char *glb = build_glb(&size);
	robustness_one(rk_t_, "tiny glb", glb, size, size, quick_mode() ? 300 : 3000);
	free(glb);
}

RK_TEST(robustness_shared_glbs)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "Soldier.glb")) RK_SKIP("shared assets not found (set RIGKIT_SHARED_DIR to the folder holding assets/)");
	size_t truncations = quick_mode() ? 100 : 500, corruptions = quick_mode() ? 100 : 1000;
	for (size_t f = 0; f < RK_SHARED_COUNT; f++) {
		shared_path(path, sizeof(path), rk_shared_facts[f].file);
		size_t size;
		unsigned char *data = read_all(path, &size);
		RK_REQUIRE(data != NULL);
		robustness_one(rk_t_, rk_shared_facts[f].file, data, size, truncations, corruptions);
		free(data);
	}
}

/* ---- memory and allocation limits -------------------------------------------------------- */

typedef struct counting_alloc {
	size_t allocs, frees, live_bytes, fail_after;
} counting_alloc;

static void *counting_malloc(void *user, size_t size)
{
	counting_alloc *c = (counting_alloc *)user;
	if (c->allocs >= c->fail_after) return NULL;
	void *p = malloc(size);
	if (p) {
		c->allocs++;
		c->live_bytes += size;
	}
	return p;
}

static void counting_free(void *user, void *ptr, size_t size)
{
	counting_alloc *c = (counting_alloc *)user;
	c->frees++;
	c->live_bytes -= size;
	free(ptr);
}

/* Fails allocation k for every k until the load succeeds. */
static void fail_every_allocation(rk_test_state *rk_t_, const char *name, const void *data, size_t size, const char *filename)
{
	size_t k = 0;
	for (;; k++) {
		counting_alloc c = { 0, 0, 0, k };
		rk_load_opts opts = { .allocator = { counting_malloc, counting_free, &c }, .filename = filename };
		rk_error err;
		rk_scene *s = data ? rk_load_memory(data, size, &opts, &err) : rk_load_file(filename, &opts, &err);
		if (s) {
			RK_CHECK_INT(scene_violations(s), 0);
			rk_scene_free(s);
		} else {
			RK_CHECK(err.code == RK_ERROR_OUT_OF_MEMORY);
			RK_CHECK(err.message[0] != '\0');
		}
		if (c.allocs != c.frees || c.live_bytes != 0) {
			fprintf(stderr, "%s: leak when allocation %zu fails: %zu allocs, %zu frees, %zu bytes\n", name, k, c.allocs, c.frees, c.live_bytes);
			RK_CHECK(false);
			return;
		}
		if (s) break;
		if (k > 100000) {
			RK_CHECK(false);
			return;
		}
	}
	RK_CHECK(k > 0);
	if (getenv("RIGKIT_TEST_VERBOSE")) fprintf(stderr, "%s: loads with every allocation failing in turn up to %zu: no leak\n", name, k);
}

RK_TEST(allocation_failures)
{
	char *docs[4] = { build_skin_doc(), build_anim_doc(), build_morph_doc(), make_doc(rk_doc_material, rk_png_bytes, 16) };
	for (int i = 0; i < 4; i++) {
		fail_every_allocation(rk_t_, "tiny document", docs[i], strlen(docs[i]), NULL);
		free(docs[i]);
	}
	size_t size;
	unsigned char *glb = build_glb(&size);
	fail_every_allocation(rk_t_, "tiny glb", glb, size, NULL);
	free(glb);

	char path[4096];
	if (shared_path(path, sizeof(path), "Flamingo.glb")) {
		fail_every_allocation(rk_t_, "Flamingo.glb (file)", NULL, 0, path);
	}

	/* external buffer file read through the allocator */
	char dir[] = "/tmp/rigkit_gltf_XXXXXX";
	RK_REQUIRE(mkdtemp(dir) != NULL);
	char bin[4096], gltf[4096];
	snprintf(bin, sizeof(bin), "%s/b.bin", dir);
	snprintf(gltf, sizeof(gltf), "%s/a.gltf", dir);
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	static const char doc[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"b.bin\"}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
	RK_REQUIRE(write_all(bin, pos, sizeof(pos)) && write_all(gltf, doc, strlen(doc)));
	fail_every_allocation(rk_t_, "external buffer", NULL, 0, gltf);
	unlink(bin);
	unlink(gltf);
	rmdir(dir);
}

RK_TEST(memory_limits)
{
	char *doc = build_skin_doc();
	rk_error err;
	rk_load_opts opts = { .memory_limit = 1024 };
	rk_scene *s = load_text(doc, &opts, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK(err.message[0] != '\0');
	/* enough for the scene block, not for the rest */
	opts.memory_limit = 24 * 1024;
	s = load_text(doc, &opts, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	/* every allocation limit below what the file needs */
	size_t k = 0;
	for (;; k++) {
		rk_load_opts o = { .allocation_limit = k + 1 };
		s = load_text(doc, &o, &err);
		if (s) break;
		RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
		if (k > 10000) break;
	}
	RK_CHECK(s != NULL);
	rk_scene_free(s);
	/* max_elements bounds counts */
	rk_load_opts small = { .max_elements = 2 };
	s = load_text(doc, &small, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	/* file_size_limit applies to memory input too */
	rk_load_opts fsl = { .file_size_limit = 10 };
	s = load_text(doc, &fsl, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	free(doc);

	char path[4096];
	if (shared_path(path, sizeof(path), "Xbot.glb")) {
		rk_load_opts big = { .memory_limit = (size_t)2 << 20 };
		s = rk_load_file(path, &big, &err);
		RK_CHECK(s == NULL);
		RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
		/* a generous limit works and reports what the scene holds */
		big.memory_limit = (size_t)64 << 20;
		s = rk_load_file(path, &big, &err);
		RK_REQUIRE(s != NULL);
		RK_CHECK(s->memory_used > 0 && s->memory_used < ((size_t)64 << 20));
		rk_scene_free(s);
	}
}

RK_TEST(ignore_geometry)
{
	char *doc = build_skin_doc();
	rk_error err;
	rk_load_opts opts = { .ignore_geometry = true };
	rk_scene *s = load_text(doc, &opts, &err);
	RK_REQUIRE(s != NULL);
	RK_CHECK_INT(scene_violations(s), 0);
	RK_CHECK_INT(s->meshes.count, 0);
	RK_CHECK_INT(s->skins.count, 1);
	RK_CHECK_INT(s->skins.data[0].joint_count, 3);
	RK_CHECK_INT(s->skins.data[0].vertex_count, 0);
	RK_CHECK(rk_scene_find_node(s, "body")->mesh == NULL);
	RK_CHECK_INT(rk_scene_find_node(s, "hip")->kind, RK_NODE_JOINT);
	rk_scene_free(s);
	free(doc);
}

/* The load's warning callback sees each warning as it is recorded, and a
 * repeated one once more at the end with its total count. */
typedef struct warn_calls {
	size_t calls, total;
	char text[512];
} warn_calls;

static void record_warning(void *user, const rk_warning *w)
{
	warn_calls *c = (warn_calls *)user;
	c->calls++;
	c->total += w->count;
	size_t n = strlen(c->text);
	snprintf(c->text + n, sizeof(c->text) - n, "%zu:%s\n", w->count, w->message);
}

RK_TEST(warning_callback)
{
	const char *text = "{\"asset\":{\"version\":\"2.0\"},"
		"\"extensionsUsed\":[\"EXT_rigkit_test_a\",\"EXT_rigkit_test_a\",\"EXT_rigkit_test_b\"]}";
	warn_calls c;
	memset(&c, 0, sizeof(c));
	rk_load_opts o;
	memset(&o, 0, sizeof(o));
	o.warning = record_warning;
	o.warning_user = &c;
	rk_error err;
	rk_scene *s = load_text(text, &o, &err);
	RK_REQUIRE(s);
	const rk_warning *a = find_warning(s, "EXT_rigkit_test_a");
	RK_REQUIRE(a && find_warning(s, "EXT_rigkit_test_b"));
	size_t listed = 0;
	for (size_t i = 0; i < s->warnings.count; i++) listed += s->warnings.data[i].count;
	if (a->count > 1) {
		RK_CHECK_INT(c.calls, s->warnings.count + 1);   /* the repeat, once more at the end */
		RK_CHECK_INT(c.total, listed + 1);
	} else {
		RK_CHECK_INT(c.calls, s->warnings.count);
		RK_CHECK_INT(c.total, listed);
	}
	RK_CHECK(strstr(c.text, "EXT_rigkit_test_b") != NULL);
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(warning_callback),
	RK_TEST_ENTRY(shared_glbs_load),
	RK_TEST_ENTRY(shared_glb_details),
	RK_TEST_ENTRY(shared_position_bounds),
	RK_TEST_ENTRY(sparse_accessor),
	RK_TEST_ENTRY(values_kept_in_file_precision),
	RK_TEST_ENTRY(normalized_ubyte_weights),
	RK_TEST_ENTRY(two_influence_sets),
	RK_TEST_ENTRY(float_weights),
	RK_TEST_ENTRY(byte_stride_strip_fan_and_primitives),
	RK_TEST_ENTRY(component_types),
	RK_TEST_ENTRY(matrix_nodes),
	RK_TEST_ENTRY(cubicspline_animation),
	RK_TEST_ENTRY(morph_targets),
	RK_TEST_ENTRY(materials_textures_transform),
	RK_TEST_ENTRY(unknown_required_extension),
	RK_TEST_ENTRY(out_of_range_index),
	RK_TEST_ENTRY(bad_node_graphs),
	RK_TEST_ENTRY(bad_json_and_versions),
	RK_TEST_ENTRY(json_reader),
	RK_TEST_ENTRY(json_tree),
	RK_TEST_ENTRY(glb_container),
	RK_TEST_ENTRY(external_files),
	RK_TEST_ENTRY(robustness_tiny_documents),
	RK_TEST_ENTRY(robustness_shared_glbs),
	RK_TEST_ENTRY(allocation_failures),
	RK_TEST_ENTRY(memory_limits),
	RK_TEST_ENTRY(ignore_geometry))
