/*
 * tests/test_fbx_legacy.c - the legacy FBX layout (src/formats/fbx/fbx_legacy.c):
 * 3000/5000 binary and 5800 binary/ASCII files whose Models sit at the top
 * level of the document.
 *
 * Expectations come from outside the reader:
 *   - the reference OBJs of the conformance corpus (vertex, face and corner
 *     counts; for the static entries every world-space face corner, in
 *     order, computed here from the loaded node matrices),
 *   - the files' own text: names, Children lists, "Default:" values,
 *     LocalTime ranges, Link/Shape names (grep -a on the binaries; the
 *     values are quoted beside each check),
 *   - invariants any valid scene must satisfy (indices inside their arrays,
 *     parents before children), checked after every truncation of two
 *     files and on hand-written hostile documents.
 */
#include "rigkit/rigkit.h"
#include "rk_test.h"

#include <stdint.h>

/* ---- files -------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? (char *)malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (!buf) return NULL;
	buf[n] = '\0';
	if (size) *size = (size_t)n;
	return buf;
}

static rk_scene *load_data(const char *shared, const char *name, rk_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/conformance/data/%s", shared, name);
	memset(err, 0, sizeof(*err));
	rk_scene *s = rk_load_file(path, NULL, err);
	if (!s) {
		char buf[2048];
		rk_error_format(buf, sizeof(buf), err);
		fprintf(stderr, "  load %s: %s\n", name, buf);
	}
	return s;
}

/* ---- a minimal OBJ reader (positions and faces per group) ------------------------ */

typedef struct obj_group {
	char name[128];
	size_t face_begin, face_count;   /* into obj_file.face_* */
} obj_group;

typedef struct obj_file {
	double *v;            /* 3 per position */
	size_t v_count;
	size_t *face_start;   /* into corners */
	size_t *face_size;
	size_t face_count;
	size_t *corners;      /* 0-based position index */
	size_t corner_count;
	obj_group groups[64];
	size_t group_count;
} obj_file;

static void obj_free(obj_file *o)
{
	free(o->v);
	free(o->face_start);
	free(o->face_size);
	free(o->corners);
	memset(o, 0, sizeof(*o));
}

static bool obj_load(const char *shared, const char *name, obj_file *o)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/conformance/data/%s", shared, name);
	memset(o, 0, sizeof(*o));
	size_t size;
	char *text = read_file(path, &size);
	if (!text) return false;
	size_t cap_v = 1024, cap_f = 1024, cap_c = 4096;
	o->v = (double *)malloc(cap_v * 3 * sizeof(double));
	o->face_start = (size_t *)malloc(cap_f * sizeof(size_t));
	o->face_size = (size_t *)malloc(cap_f * sizeof(size_t));
	o->corners = (size_t *)malloc(cap_c * sizeof(size_t));
	char *p = text;
	while (*p) {
		char *eol = p;
		while (*eol && *eol != '\n' && *eol != '\r') eol++;
		char save = *eol;
		*eol = '\0';
		if (p[0] == 'v' && p[1] == ' ') {
			if (o->v_count == cap_v) { cap_v *= 2; o->v = (double *)realloc(o->v, cap_v * 3 * sizeof(double)); }
			sscanf(p + 2, "%lf %lf %lf", &o->v[o->v_count * 3], &o->v[o->v_count * 3 + 1], &o->v[o->v_count * 3 + 2]);
			o->v_count++;
		} else if (p[0] == 'g' && p[1] == ' ' && strncmp(p, "g defau", 7) != 0 && o->group_count < 64) {
			obj_group *g = &o->groups[o->group_count++];
			snprintf(g->name, sizeof(g->name), "%s", p + 2);
			g->face_begin = o->face_count;
		} else if (p[0] == 'f' && p[1] == ' ') {
			if (o->face_count == cap_f) {
				cap_f *= 2;
				o->face_start = (size_t *)realloc(o->face_start, cap_f * sizeof(size_t));
				o->face_size = (size_t *)realloc(o->face_size, cap_f * sizeof(size_t));
			}
			o->face_start[o->face_count] = o->corner_count;
			size_t n = 0;
			char *q = p + 2;
			for (;;) {
				while (*q == ' ' || *q == '\t') q++;
				if (!*q) break;
				long idx = strtol(q, &q, 10);
				while (*q && *q != ' ' && *q != '\t') q++;
				if (o->corner_count == cap_c) { cap_c *= 2; o->corners = (size_t *)realloc(o->corners, cap_c * sizeof(size_t)); }
				o->corners[o->corner_count++] = idx > 0 ? (size_t)(idx - 1) : (size_t)((long)o->v_count + idx);
				n++;
			}
			o->face_size[o->face_count++] = n;
			if (o->group_count) o->groups[o->group_count - 1].face_count++;
		}
		*eol = save;
		p = *eol ? eol + 1 : eol;
	}
	free(text);
	return true;
}

/* ---- scene checks ------------------------------------------------------------------ */

static size_t child_index(const rk_node *parent, const char *name)
{
	for (size_t i = 0; i < parent->children.count; i++)
		if (strcmp(parent->children.data[i]->name, name) == 0) return i;
	return SIZE_MAX;
}

/* Structural invariants every loaded scene must satisfy. Returns the number
 * of violations (printed). */
static int validate_scene(const rk_scene *s)
{
	int bad = 0;
#define VCHECK(c) do { if (!(c)) { if (bad < 5) fprintf(stderr, "  invariant failed: %s\n", #c); bad++; } } while (0)
	VCHECK(s->nodes.count >= 1 && s->root == &s->nodes.data[0]);
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		VCHECK(n->index == i);
		VCHECK(n->name != NULL);
		if (i == 0) VCHECK(n->parent == NULL);
		else VCHECK(n->parent && n->parent->index < i);
		for (size_t c = 0; c < n->children.count; c++) VCHECK(n->children.data[c]->parent == n);
		if (n->mesh) VCHECK(n->mesh >= s->meshes.data && n->mesh < s->meshes.data + s->meshes.count);
		for (size_t k = 0; k < n->materials.count; k++) VCHECK(n->materials.data[k] != NULL);
	}
	for (size_t i = 0; i < s->meshes.count; i++) {
		const rk_mesh *m = &s->meshes.data[i];
		size_t corners = 0;
		for (size_t f = 0; f < m->face_count; f++) {
			VCHECK(m->faces[f].index_begin == corners);
			corners += m->faces[f].index_count;
			if (m->face_material) {
				size_t slots = 0;
				for (size_t k = 0; k < s->nodes.count; k++)
					if (s->nodes.data[k].mesh == m && s->nodes.data[k].materials.count > slots) slots = s->nodes.data[k].materials.count;
				VCHECK(m->face_material[f] < (slots ? slots : 1));
			}
		}
		VCHECK(corners == m->index_count);
		for (size_t c = 0; c < m->index_count; c++) {
			VCHECK(m->vertex_indices[c] < m->vertex_count);
			if (m->normals.exists) VCHECK(m->normals.indices[c] < m->normals.value_count);
			for (size_t u = 0; u < m->uv_sets.count; u++)
				VCHECK(m->uv_sets.data[u].uv.indices[c] < m->uv_sets.data[u].uv.value_count);
		}
		for (size_t b = 0; b < m->blend_channels.count; b++) {
			const rk_blend_channel *ch = &m->blend_channels.data[b];
			for (size_t t = 0; t < ch->target_count; t++)
				for (size_t k = 0; k < ch->targets[t].offset_count; k++)
					VCHECK(ch->targets[t].vertex_indices[k] < m->vertex_count);
		}
		for (size_t k = 0; k < m->skin_count; k++) {
			const rk_skin_deformer *sk = m->skins[k];
			VCHECK(sk->vertex_count == m->vertex_count);
			VCHECK(sk->weight_begin[0] == 0 && sk->weight_begin[sk->vertex_count] == sk->weight_count);
			for (size_t v = 0; v < sk->vertex_count; v++) VCHECK(sk->weight_begin[v] <= sk->weight_begin[v + 1]);
			for (size_t w = 0; w < sk->weight_count; w++) VCHECK(sk->weights[w].joint < sk->joint_count);
		}
	}
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		for (size_t l = 0; l < clip->layer_count; l++)
			for (size_t t = 0; t < clip->layers[l].track_count; t++) {
				const rk_anim_track *tr = &clip->layers[l].tracks[t];
				VCHECK(tr->node && tr->node >= s->nodes.data && tr->node < s->nodes.data + s->nodes.count);
				if (tr->target == RK_TARGET_MORPH_WEIGHTS && tr->node && tr->node->mesh)
					VCHECK(tr->morph_channel < tr->node->mesh->blend_channels.count);
			}
	}
#undef VCHECK
	return bad;
}

/* Ordered comparison of a static mesh node with an OBJ group: same faces,
 * same corner counts, world positions within tol. Returns the largest error
 * or a negative value on a count mismatch. */
static double compare_static(const rk_node *n, const obj_file *o, const obj_group *g, double tol)
{
	const rk_mesh *m = n->mesh;
	if (!m || m->face_count != g->face_count) return -1.0;
	double worst = 0.0;
	for (size_t f = 0; f < m->face_count; f++) {
		size_t of = g->face_begin + f;
		if (m->faces[f].index_count != o->face_size[of]) return -2.0;
		for (size_t k = 0; k < o->face_size[of]; k++) {
			rk_vec3 p = rk_mesh_position(m, m->vertex_indices[m->faces[f].index_begin + k]);
			rk_vec3 w = rk_mat4_transform_point(n->geometry_to_world, p);
			const double *r = &o->v[o->corners[o->face_start[of] + k] * 3];
			double e = fmax(fabs(w.x - r[0]), fmax(fabs(w.y - r[1]), fabs(w.z - r[2])));
			if (e > worst) worst = e;
		}
	}
	(void)tol;
	return worst;
}

static const rk_anim_track *find_track(const rk_anim_clip *clip, const rk_node *node, rk_anim_target target)
{
	for (size_t l = 0; l < clip->layer_count; l++)
		for (size_t t = 0; t < clip->layers[l].track_count; t++)
			if (clip->layers[l].tracks[t].node == node && clip->layers[l].tracks[t].target == target)
				return &clip->layers[l].tracks[t];
	return NULL;
}

#define NEED_SHARED() \
	const char *shared = rk_test_shared_dir(); \
	if (!shared) RK_SKIP("shared data not found (set RIGKIT_SHARED_DIR)")

/* ---- corpus files -------------------------------------------------------------------- */

/* max7_cube_5000_binary.fbx (3ds Max 7, FBX 5000): Models "Fbx_Root"
 * (Type "Null", R Default -90,0,0, Children: "Box01") and "Box01" (8
 * vertices, 6 quads, 8 normals = one per vertex). */
RK_TEST(test_legacy_cube_5000)
{
	NEED_SHARED();
	rk_error err;
	rk_scene *s = load_data(shared, "max7_cube_5000_binary.fbx", &err);
	RK_REQUIRE(s);
	obj_file o;
	RK_REQUIRE(obj_load(shared, "max7_cube.obj", &o));
	RK_CHECK_INT(validate_scene(s), 0);
	RK_CHECK_INT(s->settings.fbx_version, 5000);
	RK_CHECK_INT(s->nodes.count, 3);
	rk_node *root = rk_scene_find_node(s, "Fbx_Root"), *box = rk_scene_find_node(s, "Box01");
	RK_REQUIRE(root && box);
	RK_CHECK(root->parent == s->root);
	RK_CHECK(box->parent == root);
	RK_CHECK_STR(root->attribute_type, "Null");
	RK_CHECK_NEAR(root->props.rotation.x, -90.0, 0.0);
	RK_REQUIRE(box->mesh);
	RK_CHECK_INT(box->kind, RK_NODE_MESH);
	RK_CHECK_INT(box->mesh->vertex_count, o.v_count);
	RK_CHECK_INT(box->mesh->face_count, o.face_count);
	RK_CHECK_INT(box->mesh->index_count, o.corner_count);
	RK_CHECK(box->mesh->normals.exists);
	RK_CHECK(box->mesh->normals.indices == box->mesh->vertex_indices); /* per vertex */
	RK_CHECK_INT(box->mesh->uv_sets.count, 1);
	RK_REQUIRE(o.group_count == 1);
	double e = compare_static(box, &o, &o.groups[0], 1e-3);
	RK_CHECK(e >= 0.0 && e < 1e-3);
	obj_free(&o);
	rk_scene_free(s);
}

/* max6_teapot_3000_binary.fbx (FBX 3000): Fbx_Root -> Teapot01, T Default
 * -13.8741,-31.9136,0, R Default 0,~0,-49.1782, S Default 0.648593. */
RK_TEST(test_legacy_teapot_3000)
{
	NEED_SHARED();
	rk_error err;
	rk_scene *s = load_data(shared, "max6_teapot_3000_binary.fbx", &err);
	RK_REQUIRE(s);
	obj_file o;
	RK_REQUIRE(obj_load(shared, "max6_teapot.obj", &o));
	RK_CHECK_INT(validate_scene(s), 0);
	rk_node *tp = rk_scene_find_node(s, "Teapot01");
	RK_REQUIRE(tp && tp->mesh);
	RK_CHECK(tp->parent == rk_scene_find_node(s, "Fbx_Root"));
	RK_CHECK_NEAR(tp->props.translation.x, -13.8741, 1e-4);
	RK_CHECK_NEAR(tp->props.translation.y, -31.9136, 1e-4);
	RK_CHECK_NEAR(tp->props.rotation.z, -49.1782, 1e-4);
	RK_CHECK_NEAR(tp->props.scaling.y, 0.648593, 1e-6);
	RK_CHECK_INT(tp->mesh->vertex_count, o.v_count);
	RK_CHECK_INT(tp->mesh->face_count, o.face_count);
	RK_REQUIRE(o.group_count == 1);
	double e = compare_static(tp, &o, &o.groups[0], 1e-3);
	RK_CHECK(e >= 0.0 && e < 1e-3);
	obj_free(&o);
	rk_scene_free(s);
}

/* max2009_blob_5800_{binary,ascii}.fbx: Models FDirect02/Omni01/Fspot01
 * (Type "Light"), Camera01 (Type "Camera"), Box01 (7 inline materials
 * Right, Left, Front, "Material #27".."#29", Top; MaterialAssignation
 * ByPolygon; Children: Pyramid04..Pyramid19), static transforms only in the
 * Take's Default values. */
static void check_blob(rk_test_state *rk_t_, const char *shared, const char *file)
{
	rk_error err;
	rk_scene *s = load_data(shared, file, &err);
	RK_REQUIRE(s);
	obj_file o;
	RK_REQUIRE(obj_load(shared, "max2009_blob.obj", &o));
	RK_CHECK_INT(validate_scene(s), 0);
	RK_CHECK_INT(s->settings.fbx_version, 5800);
	RK_CHECK_INT(s->nodes.count, 1 + 5 + 16);
	RK_CHECK_INT(s->meshes.count, 17);
	RK_CHECK_INT(s->materials.count, 7);
	RK_CHECK_NEAR(s->settings.frame_rate, 30.0, 0.0); /* Settings: FrameRate: "30" */
	rk_node *box = rk_scene_find_node(s, "Box01");
	RK_REQUIRE(box && box->mesh);
	RK_CHECK(box->parent == s->root);
	RK_CHECK_INT(box->children.count, 16);
	RK_CHECK_INT(rk_scene_find_node(s, "Omni01")->kind, RK_NODE_LIGHT);
	RK_CHECK_INT(rk_scene_find_node(s, "Camera01")->kind, RK_NODE_CAMERA);
	/* Take Default of FDirect02: T 25.8811,-53.899,113.886, R 27.5978,-0,0 */
	const rk_node *fd = rk_scene_find_node(s, "FDirect02");
	RK_CHECK_NEAR(fd->props.translation.x, 25.8811, 1e-4);
	RK_CHECK_NEAR(fd->props.translation.z, 113.886, 1e-3);
	RK_CHECK_NEAR(fd->props.rotation.x, 27.5978, 1e-4);
	RK_REQUIRE(box->materials.count == 7);
	RK_CHECK_STR(box->materials.data[0]->name, "Right");
	RK_CHECK_STR(box->materials.data[3]->name, "Material #27");
	RK_CHECK_STR(box->materials.data[6]->name, "Top");
	RK_CHECK_STR(box->materials.data[0]->shading_model, "phong");
	RK_CHECK(box->mesh->face_material != NULL);
	RK_CHECK_INT(box->mesh->uv_sets.count, 1);
	char name[32];
	for (int k = 4; k <= 19; k++) {
		snprintf(name, sizeof(name), "Pyramid%02d", k);
		rk_node *p = rk_scene_find_node(s, name);
		RK_CHECK(p && p->parent == box && p->mesh);
	}
	size_t faces = 0, verts = 0;
	for (size_t i = 0; i < s->meshes.count; i++) {
		faces += s->meshes.data[i].face_count;
		verts += s->meshes.data[i].vertex_count;
	}
	RK_CHECK_INT(faces, o.face_count);
	RK_CHECK_INT(verts, o.v_count);
	for (size_t g = 0; g < o.group_count; g++) {
		rk_node *n = rk_scene_find_node(s, o.groups[g].name);
		RK_CHECK(n != NULL);
		if (!n) continue;
		double e = compare_static(n, &o, &o.groups[g], 1e-3);
		if (!(e >= 0.0 && e < 1e-3)) fprintf(stderr, "  %s: group %s error %g\n", file, o.groups[g].name, e);
		RK_CHECK(e >= 0.0 && e < 1e-3);
	}
	obj_free(&o);
	rk_scene_free(s);
}

RK_TEST(test_legacy_blob_5800_binary)
{
	NEED_SHARED();
	check_blob(rk_t_, shared, "max2009_blob_5800_binary.fbx");
}

RK_TEST(test_legacy_blob_5800_ascii)
{
	NEED_SHARED();
	check_blob(rk_t_, shared, "max2009_blob_5800_ascii.fbx");
}

/* max7_skin_5000_binary.fbx: Fbx_Root Children "Box01" "Bone01"; Bone01 ->
 * Bone02 -> Bone03 -> Bone04 (Type "LimbNode"); Box01 Link "Bone01".."Bone04"
 * (Indexes 137/144/105/41 entries, first Link weights start 1 1 1 ...);
 * Bone02 T Default 30; Pose "BIND_POSES" lists 5 nodes; Take "Take 001"
 * LocalTime 0,30790772000. */
RK_TEST(test_legacy_skin_5000)
{
	NEED_SHARED();
	rk_error err;
	rk_scene *s = load_data(shared, "max7_skin_5000_binary.fbx", &err);
	RK_REQUIRE(s);
	obj_file o;
	RK_REQUIRE(obj_load(shared, "max7_skin_5.obj", &o));
	RK_CHECK_INT(validate_scene(s), 0);
	rk_node *fr = rk_scene_find_node(s, "Fbx_Root"), *box = rk_scene_find_node(s, "Box01");
	RK_REQUIRE(fr && box && box->mesh && box->skin);
	RK_CHECK(child_index(fr, "Box01") == 0 && child_index(fr, "Bone01") == 1);
	const char *bones[4] = { "Bone01", "Bone02", "Bone03", "Bone04" };
	const size_t counts[4] = { 137, 144, 105, 41 };
	for (int i = 0; i < 4; i++) {
		rk_node *b = rk_scene_find_node(s, bones[i]);
		RK_REQUIRE(b);
		RK_CHECK(b->parent == (i ? rk_scene_find_node(s, bones[i - 1]) : fr));
		RK_CHECK_INT(b->kind, RK_NODE_JOINT);
		RK_CHECK(b->has_bind_pose);
		RK_CHECK(box->skin->joints[i].node == b);
		size_t n = 0;
		for (size_t w = 0; w < box->skin->weight_count; w++) n += box->skin->weights[w].joint == (uint32_t)i;
		RK_CHECK_INT(n, counts[i]);
	}
	RK_CHECK_INT(box->skin->joint_count, 4);
	RK_CHECK(box->skin->weight_begin[1] - box->skin->weight_begin[0] >= 1);
	RK_CHECK_NEAR(box->skin->weights[box->skin->weight_begin[0]].weight, 1.0, 1e-6);
	RK_CHECK_NEAR(rk_scene_find_node(s, "Bone02")->props.translation.x, 30.0, 1e-9);
	RK_CHECK_INT(box->mesh->vertex_count, o.v_count);
	RK_CHECK_INT(box->mesh->face_count, o.face_count);
	RK_CHECK_INT(box->mesh->index_count, o.corner_count);
	rk_anim_clip *clip = rk_scene_find_clip(s, "Take 001");
	RK_REQUIRE(clip);
	RK_CHECK_NEAR(clip->time_end, 30790772000.0 / 46186158000.0, 1e-12);
	RK_CHECK(find_track(clip, rk_scene_find_node(s, "Bone01"), RK_TARGET_ROTATION_EULER) != NULL);
	obj_free(&o);
	rk_scene_free(s);
}

/* max7_blend_cube_5000_binary.fbx: Box01 with Shape "Box02" and "Box03"
 * (16 Indexes each), own channels "Box02 (Shape)" Default 35.2 and
 * "Box03 (Shape)" Default 89.6, keyed in Take "Take 001". */
RK_TEST(test_legacy_blend_5000)
{
	NEED_SHARED();
	rk_error err;
	rk_scene *s = load_data(shared, "max7_blend_cube_5000_binary.fbx", &err);
	RK_REQUIRE(s);
	obj_file o;
	RK_REQUIRE(obj_load(shared, "max7_blend_cube_8.obj", &o));
	RK_CHECK_INT(validate_scene(s), 0);
	rk_node *box = rk_scene_find_node(s, "Box01");
	RK_REQUIRE(box && box->mesh && box->blend_weights);
	const rk_mesh *m = box->mesh;
	RK_CHECK_INT(m->face_count, o.face_count);
	RK_CHECK_INT(m->index_count, o.corner_count);
	RK_REQUIRE(m->blend_channels.count == 2);
	RK_CHECK_STR(m->blend_channels.data[0].name, "Box02");
	RK_CHECK_STR(m->blend_channels.data[1].name, "Box03");
	RK_CHECK_NEAR(m->blend_channels.data[0].default_weight, 0.352, 1e-6); /* stored as float */
	RK_CHECK_NEAR(m->blend_channels.data[1].default_weight, 0.896, 1e-6);
	RK_CHECK_INT(m->blend_channels.data[0].targets[0].offset_count, 16);
	RK_CHECK_NEAR(box->blend_weights[1], 0.896, 1e-6);
	rk_anim_clip *clip = rk_scene_find_clip(s, "Take 001");
	RK_REQUIRE(clip);
	size_t morph = 0;
	for (size_t l = 0; l < clip->layer_count; l++)
		for (size_t t = 0; t < clip->layers[l].track_count; t++)
			if (clip->layers[l].tracks[t].target == RK_TARGET_MORPH_WEIGHTS && clip->layers[l].tracks[t].node == box) morph++;
	RK_CHECK_INT(morph, 2);
	obj_free(&o);
	rk_scene_free(s);
}

/* max2009_cube_anim_5800_{ascii,binary}.fbx: no channels on the Model, the
 * Take's Defaults give R.Z -146.25 and S 1.95312476158142; LocalTime
 * 0,92372316000 (2 s); T.X keys 0 -> 0, 46186158000 -> -70, 92372316000 -> 70. */
static void check_cube_anim(rk_test_state *rk_t_, const char *shared, const char *file)
{
	rk_error err;
	rk_scene *s = load_data(shared, file, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(validate_scene(s), 0);
	rk_node *box = rk_scene_find_node(s, "Box01");
	RK_REQUIRE(box && box->mesh);
	RK_CHECK_INT(box->mesh->vertex_count, 8);
	RK_CHECK_INT(box->mesh->face_count, 12);
	RK_CHECK(box->mesh->normals.exists && box->mesh->normals.value_count == 36); /* per corner */
	RK_CHECK_NEAR(box->props.rotation.z, -146.25, 1e-9);
	RK_CHECK_NEAR(box->props.scaling.x, 1.95312476158142, 1e-6);
	rk_anim_clip *clip = rk_scene_find_clip(s, "Take 001");
	RK_REQUIRE(clip);
	RK_CHECK_NEAR(clip->time_begin, 0.0, 0.0);
	RK_CHECK_NEAR(clip->time_end, 2.0, 1e-12);
	const rk_anim_track *t = find_track(clip, box, RK_TARGET_TRANSLATION);
	RK_REQUIRE(t && t->curves[0]);
	RK_REQUIRE(t->curves[0]->key_count == 3);
	RK_CHECK_NEAR(t->curves[0]->times[1], 1.0, 1e-12);
	RK_CHECK_NEAR(t->curves[0]->values[1], -70.0, 1e-9);
	RK_CHECK_NEAR(t->curves[0]->values[2], 70.0, 1e-9);
	rk_scene_free(s);
}

RK_TEST(test_legacy_cube_anim_5800_ascii)
{
	NEED_SHARED();
	check_cube_anim(rk_t_, shared, "max2009_cube_anim_5800_ascii.fbx");
}

RK_TEST(test_legacy_cube_anim_5800_binary)
{
	NEED_SHARED();
	check_cube_anim(rk_t_, shared, "max2009_cube_anim_5800_binary.fbx");
}

/* ---- truncation ------------------------------------------------------------------------- */

/* 300 prefix lengths spread over the file, plus the first and last 16
 * bytes one by one: each load is an error or a scene that passes
 * validate_scene(). */
static void check_truncations(rk_test_state *rk_t_, const char *shared, const char *file)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/conformance/data/%s", shared, file);
	size_t size;
	char *data = read_file(path, &size);
	RK_REQUIRE(data && size > 64);
	size_t ok = 0, failed = 0;
	for (size_t k = 0; k < 332; k++) {
		size_t len = k < 300 ? size * k / 300 : k < 316 ? k - 300 : size - (k - 315);
		char *copy = (char *)malloc(len ? len : 1);
		memcpy(copy, data, len);
		rk_error err;
		memset(&err, 0, sizeof(err));
		rk_scene *s = rk_load_memory(copy, len, NULL, &err);
		if (s) {
			ok++;
			int bad = validate_scene(s);
			if (bad) fprintf(stderr, "  %s truncated at %zu: %d invariant failures\n", file, len, bad);
			RK_CHECK_INT(bad, 0);
			rk_scene_free(s);
		} else {
			failed++;
			RK_CHECK(err.code != RK_OK);
		}
		free(copy);
	}
	RK_CHECK(ok + failed == 332);
	RK_CHECK(failed > 0);
	free(data);
}

RK_TEST(test_legacy_truncated_binary)
{
	NEED_SHARED();
	check_truncations(rk_t_, shared, "max7_skin_5000_binary.fbx");
}

RK_TEST(test_legacy_truncated_ascii)
{
	NEED_SHARED();
	check_truncations(rk_t_, shared, "max2009_cube_anim_5800_ascii.fbx");
}

/* ---- hostile documents -------------------------------------------------------------------- */

static rk_scene *load_text(const char *text, rk_error *err)
{
	memset(err, 0, sizeof(*err));
	return rk_load_memory(text, strlen(text), NULL, err);
}

static bool has_warning(const rk_scene *s, const char *part)
{
	for (size_t i = 0; i < s->warnings.count; i++)
		if (strstr(s->warnings.data[i].message, part)) return true;
	return false;
}

#define HEADER "; FBX 5.8.0 project file\nFBXHeaderExtension:  {\n    FBXHeaderVersion: 1003\n    FBXVersion: 5800\n}\n"

/* Cycles, self references, repeated and unknown children. */
RK_TEST(test_legacy_hierarchy_hostile)
{
	rk_error err;
	rk_scene *s = load_text(HEADER
		"Model: \"Model::A\" {\n    Children: \"Model::B\", \"Model::A\", \"Model::Nope\"\n}\n"
		"Model: \"Model::B\" {\n    Children: \"Model::C\"\n}\n"
		"Model: \"Model::C\" {\n    Children: \"Model::A\", \"Model::B\", 7\n}\n"
		"Model: \"Model::D\" {\n    Children: \"Model::D\"\n}\n"
		"Model: \"Model::C\" {\n}\n"
		"Model: 12 {\n}\n", &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(validate_scene(s), 0);
	RK_CHECK_INT(s->nodes.count, 6); /* root, A, B, C, D, second C */
	rk_node *a = rk_scene_find_node(s, "A"), *b = rk_scene_find_node(s, "B"), *c = rk_scene_find_node(s, "C"), *d = rk_scene_find_node(s, "D");
	RK_REQUIRE(a && b && c && d);
	/* A -> B -> C -> A is a cycle: one link is cut, the rest stays. */
	RK_CHECK(b->parent == a && c->parent == b);
	RK_CHECK(a->parent == s->root);
	RK_CHECK(d->parent == s->root);
	RK_CHECK(has_warning(s, "cycle") || has_warning(s, "another parent"));
	RK_CHECK(has_warning(s, "not Models"));
	RK_CHECK(has_warning(s, "several Models"));
	rk_scene_free(s);
}

/* Geometry with bad counts and out-of-range references everywhere. */
RK_TEST(test_legacy_geometry_hostile)
{
	rk_error err;
	rk_scene *s = load_text(HEADER
		"Model: \"Model::Bone\" {\n    Type: \"LimbNode\"\n}\n"
		"Model: \"Model::M\" {\n"
		"    Vertices: 0,0,0, 1,0,0, 0,1,0, 1,1,0\n"
		"    PolygonVertexIndex: 0,1,-3, 2,9,-4, 3,1\n"
		"    Normals: 0,0,1, 0,0,1\n"
		"    MaterialAssignation: \"ByPolygon\"\n"
		"    Materials: 0, 5, -2\n"
		"    Material: \"Material::Only\" {\n        Diffuse: 1,0,0\n        Alpha: 7\n    }\n"
		"    GeometryUVInfo:  {\n        MappingInformationType: \"ByPolygon\"\n"
		"        TextureUV: 0,0, 1,0, 0,1\n"
		"        TextureUVVerticeIndex: 0,1,2, 2,99,-1, 0,1\n    }\n"
		"    Link: \"Model::Bone\" {\n        Indexes: 0,1,2,3,50,-1\n        Weights: 1,1,0.5\n"
		"        Transform: 1,0,0,0\n    }\n"
		"    Link: \"Model::Ghost\" {\n        Indexes: 0\n        Weights: 1\n    }\n"
		"    Shape: \"Shape::S\" {\n        Indexes: 0,3,77\n        Vertices: 0,0,1, 0,0,1\n    }\n"
		"    Channel: \"S (Shape)\" {\n        Default: 50\n    }\n"
		"}\n", &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(validate_scene(s), 0);
	rk_node *m = rk_scene_find_node(s, "M");
	RK_REQUIRE(m && m->mesh);
	RK_CHECK_INT(m->mesh->face_count, 3);
	RK_CHECK_INT(m->mesh->index_count, 8);
	RK_CHECK(!m->mesh->normals.exists); /* 2 normals fit neither 4 vertices nor 8 corners */
	RK_CHECK_INT(m->mesh->uv_sets.count, 1);
	RK_CHECK(m->skin && m->skin->joint_count == 2);
	RK_CHECK(m->skin->joints[1].node == NULL);
	RK_CHECK_INT(m->skin->weight_count, 3); /* three valid (index, weight) pairs of Bone */
	RK_REQUIRE(m->mesh->blend_channels.count == 1);
	RK_CHECK_INT(m->mesh->blend_channels.data[0].targets[0].offset_count, 2);
	RK_CHECK_NEAR(m->mesh->blend_channels.data[0].default_weight, 0.5, 0.0);
	RK_CHECK_NEAR(m->materials.data[0]->base_color.w, 1.0, 0.0); /* Alpha 7 is not an opacity */
	RK_CHECK(has_warning(s, "out of range"));
	RK_CHECK(has_warning(s, "not 16 finite numbers"));
	rk_scene_free(s);
}

/* Values of the wrong type where names, numbers and arrays are expected. */
RK_TEST(test_legacy_types_hostile)
{
	const char *docs[] = {
		HEADER "Model: \"Model::M\" {\n    Vertices: \"x\"\n    PolygonVertexIndex: 0\n}\n",
		HEADER "Model: \"Model::M\" {\n    Vertices: 0,0,0,1\n    PolygonVertexIndex: 0\n}\n",
		HEADER "Model: \"Model::M\" {\n    Vertices: 0,0,0\n    PolygonVertexIndex: 0.5\n}\n",
		HEADER "Model: \"Model::M\" {\n    Vertices:\n    PolygonVertexIndex: 0,1,-3\n}\n",
		HEADER "Model: \"Model::M\" {\n    Vertices: 0,0,0\n    PolygonVertexIndex: -1\n    Normals: \"n\"\n}\n",
		HEADER "Model: \"Model::M\" {\n    Type: 5\n    Children: 1, 2\n    Channel: \"Transform\" {\n"
		"        Channel: \"T\" {\n            Channel: \"X\" {\n                Default: \"a\"\n            }\n        }\n    }\n}\n",
		HEADER "Model: \"Model::M\" {\n}\nTakes:  {\n    Take: \"T\" {\n        Model: 3 {\n        }\n"
		"        Model: \"Model::M\" {\n            Channel: \"Transform\" {\n                Channel: \"R\" {\n"
		"                    Channel: \"Z\" {\n                        Default: 45\n                    }\n"
		"                }\n            }\n        }\n    }\n}\n",
		HEADER "Model: \"Model::M\" {\n}\nSceneGenericPersistence:  {\n    Pose: \"P\" {\n        Type: \"BindPose\"\n"
		"        PoseNode:  {\n            Node: \"Model::M\"\n            Matrix: 1,2,3\n        }\n"
		"        PoseNode:  {\n            Node: 4\n        }\n    }\n}\n",
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		rk_error err;
		rk_scene *s = load_text(docs[i], &err);
		if (!s) {
			RK_CHECK(err.code != RK_OK);
			continue;
		}
		RK_CHECK_INT(validate_scene(s), 0);
		if (i == 6) {
			rk_node *m = rk_scene_find_node(s, "M");
			RK_CHECK(m && fabs(m->props.rotation.z - 45.0) < 1e-12);
		}
		if (i == 7) {
			rk_node *m = rk_scene_find_node(s, "M");
			RK_CHECK(m && !m->has_bind_pose);
		}
		rk_scene_free(s);
	}
	/* every truncation of the hostile geometry document */
	static const char geo[] = HEADER
		"Model: \"Model::Bone\" {\n    Type: \"LimbNode\"\n}\n"
		"Model: \"Model::M\" {\n    Vertices: 0,0,0, 1,0,0, 0,1,0\n    PolygonVertexIndex: 0,1,-3\n"
		"    Normals: 0,0,1, 0,0,1, 0,0,1\n    Link: \"Model::Bone\" {\n        Indexes: 0,1\n        Weights: 1,1\n    }\n"
		"    Shape: \"S\" {\n        Indexes: 1\n        Vertices: 0,0,1\n    }\n    Children: \"Model::Bone\"\n}\n"
		"Takes:  {\n    Take: \"T\" {\n        Model: \"Model::M\" {\n            Channel: \"S (Shape)\" {\n"
		"                Default: 10\n                KeyVer: 4005\n                KeyCount: 2\n"
		"                Key: 0,0,L,46186158000,100,L\n            }\n        }\n    }\n}\n";
	for (size_t len = 0; len <= sizeof(geo) - 1; len++) {
		rk_error err;
		memset(&err, 0, sizeof(err));
		char *copy = (char *)malloc(len ? len : 1);
		memcpy(copy, geo, len);
		rk_scene *s = rk_load_memory(copy, len, NULL, &err);
		if (s) {
			RK_CHECK_INT(validate_scene(s), 0);
			rk_scene_free(s);
		} else {
			RK_CHECK(err.code != RK_OK);
		}
		free(copy);
	}
}

/* Allocation limits: every allocation count up to the one a full load
 * needs fails cleanly (no crash, an error), on a small legacy file. */
RK_TEST(test_legacy_allocation_failures)
{
	NEED_SHARED();
	char path[4096];
	snprintf(path, sizeof(path), "%s/conformance/data/max7_blend_cube_5000_binary.fbx", shared);
	size_t size;
	char *data = read_file(path, &size);
	RK_REQUIRE(data);
	size_t failures = 0, successes = 0;
	for (size_t limit = 1; limit < 2000; limit++) {
		rk_load_opts opts;
		memset(&opts, 0, sizeof(opts));
		opts.allocation_limit = limit;
		rk_error err;
		memset(&err, 0, sizeof(err));
		rk_scene *s = rk_load_memory(data, size, &opts, &err);
		if (s) {
			RK_CHECK_INT(validate_scene(s), 0);
			rk_scene_free(s);
			successes++;
			break;
		}
		RK_CHECK(err.code != RK_OK);
		failures++;
	}
	RK_CHECK(successes == 1);
	RK_CHECK(failures > 0);
	free(data);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_legacy_cube_5000),
	RK_TEST_ENTRY(test_legacy_teapot_3000),
	RK_TEST_ENTRY(test_legacy_blob_5800_binary),
	RK_TEST_ENTRY(test_legacy_blob_5800_ascii),
	RK_TEST_ENTRY(test_legacy_skin_5000),
	RK_TEST_ENTRY(test_legacy_blend_5000),
	RK_TEST_ENTRY(test_legacy_cube_anim_5800_ascii),
	RK_TEST_ENTRY(test_legacy_cube_anim_5800_binary),
	RK_TEST_ENTRY(test_legacy_truncated_binary),
	RK_TEST_ENTRY(test_legacy_truncated_ascii),
	RK_TEST_ENTRY(test_legacy_hierarchy_hostile),
	RK_TEST_ENTRY(test_legacy_geometry_hostile),
	RK_TEST_ENTRY(test_legacy_types_hostile),
	RK_TEST_ENTRY(test_legacy_allocation_failures))
