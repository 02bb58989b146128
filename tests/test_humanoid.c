/*
 * tests/test_humanoid.c - humanoid bone maps (rigkit/retarget.h): VRM 1.0
 * bone names and parents, rk_humanoid_detect on the sample characters, the
 * shared real-world assets and hand-built rigs in the naming schemes of
 * Unreal, 3ds Max Biped, VRoid, Rigify, Character Creator, Blender (with
 * ".001" duplicates), Daz Genesis 2/3/8 and CMU BVH, and the errors of
 * rk_humanoid_set / rk_humanoid_validate.
 *
 * Expectations are written from the conventions themselves: the VRM 1.0
 * humanoid specification (bone names, parents, the 15 required bones), the
 * Mixamo joint names and hierarchy (as listed by `rigkit info` for the shared
 * files), Unreal's mannequin, Biped's and VRoid's default skeletons, Rigify's
 * DEF bones, Character Creator's CC_Base skeleton, Daz Genesis 8's joint
 * names (hip, pelvis, lShldrBend/lShldrTwist, lCarpal1..4 ...) and the CMU
 * motion capture database's BVH joints (LHipJoint, LowerBack, Neck1 ...).
 * The hand-built rigs are small glTF documents loaded with rk_load_memory
 * (skin joints become RK_NODE_JOINT, "m" nodes carry a one-triangle mesh).
 */
#include "rk_test.h"

#include <rigkit/retarget.h>
#include <rigkit/rigkit.h>
#include <rigkit/demo.h>

#include <stdarg.h>
#include <stdint.h>

/* ---- helpers -------------------------------------------------------------------- */

static rk_humanoid_bone bone_of(const char *name)
{
	rk_humanoid_bone b = RK_HUMANOID_BONE_COUNT;
	if (!rk_humanoid_bone_parse(name, &b)) {
		fprintf(stderr, "test table error: unknown bone %s\n", name);
		abort();
	}
	return b;
}

static const char *node_name(const rk_humanoid *h, const char *bone)
{
	const rk_node *n = h->bones[bone_of(bone)];
	return n ? n->name : "(unmapped)";
}

/* Checks that exactly the bones of `pairs` ({bone, node name without
 * prefix}) are mapped, each to prefix + node name. */
static void check_exact_map(rk_test_state *rk_t_, const rk_humanoid *h, const char *const (*pairs)[2], size_t count,
	const char *prefix, const char *what)
{
	bool listed[RK_HUMANOID_BONE_COUNT] = { false };
	for (size_t i = 0; i < count; i++) {
		char expected[160];
		snprintf(expected, sizeof(expected), "%s%s", prefix, pairs[i][1]);
		listed[bone_of(pairs[i][0])] = true;
		const char *got = node_name(h, pairs[i][0]);
		if (strcmp(got, expected) != 0) {
			fprintf(stderr, "%s: bone %s: got \"%s\", expected \"%s\"\n", what, pairs[i][0], got, expected);
			rk_t_->failed++;
		}
	}
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		if (!listed[b] && h->bones[b]) {
			fprintf(stderr, "%s: bone %s: mapped to \"%s\", expected unmapped\n", what,
				rk_humanoid_bone_name((rk_humanoid_bone)b), h->bones[b]->name);
			rk_t_->failed++;
		}
	}
}

/* A tiny glTF scene builder: nodes with a name, a parent and a kind
 * ('j' skin joint, 'n' plain node, 'm' node with a mesh). */
#define TB_MAX 256
typedef struct tb {
	char names[TB_MAX][64];
	int parent[TB_MAX];
	char kind[TB_MAX];
	int count;
	bool has_t[TB_MAX];          /* a translation (tb_at) */
	double t[TB_MAX][3];
} tb;

/* Gives node i a translation. */
static void tb_at(tb *b, int i, double x, double y, double z)
{
	b->has_t[i] = true;
	b->t[i][0] = x, b->t[i][1] = y, b->t[i][2] = z;
}

#if defined(__GNUC__) || defined(__clang__)
static int tb_add(tb *b, int parent, char kind, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#endif

static int tb_add(tb *b, int parent, char kind, const char *fmt, ...)
{
	if (b->count >= TB_MAX) abort();
	int i = b->count++;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->names[i], sizeof(b->names[i]), fmt, ap);
	va_end(ap);
	b->parent[i] = parent;
	b->kind[i] = kind;
	return i;
}

static void tb_cat(char **p, size_t *left, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(*p, *left, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= *left) abort();
	*p += n;
	*left -= (size_t)n;
}

static rk_scene *tb_load(const tb *b, rk_error *err)
{
	size_t cap = 64 * 1024;
	char *json = (char *)malloc(cap), *p = json;
	size_t left = cap;
	bool has_mesh = false, has_joint = false;
	tb_cat(&p, &left, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
	for (int i = 0; i < b->count; i++) {
		tb_cat(&p, &left, "%s{\"name\":\"%s\"", i ? "," : "", b->names[i]);
		if (b->has_t[i]) tb_cat(&p, &left, ",\"translation\":[%.17g,%.17g,%.17g]", b->t[i][0], b->t[i][1], b->t[i][2]);
		if (b->kind[i] == 'm') {
			tb_cat(&p, &left, ",\"mesh\":0");
			has_mesh = true;
		}
		if (b->kind[i] == 'j') has_joint = true;
		bool first = true;
		for (int c = 0; c < b->count; c++) {
			if (b->parent[c] != i) continue;
			tb_cat(&p, &left, "%s%d", first ? ",\"children\":[" : ",", c);
			first = false;
		}
		tb_cat(&p, &left, "%s}", first ? "" : "]");
	}
	tb_cat(&p, &left, "],\"scenes\":[{\"nodes\":[");
	bool first = true;
	for (int i = 0; i < b->count; i++) {
		if (b->parent[i] >= 0) continue;
		tb_cat(&p, &left, "%s%d", first ? "" : ",", i);
		first = false;
	}
	tb_cat(&p, &left, "]}],\"scene\":0");
	if (has_joint) {
		tb_cat(&p, &left, ",\"skins\":[{\"joints\":[");
		first = true;
		for (int i = 0; i < b->count; i++) {
			if (b->kind[i] != 'j') continue;
			tb_cat(&p, &left, "%s%d", first ? "" : ",", i);
			first = false;
		}
		tb_cat(&p, &left, "]}]");
	}
	if (has_mesh) {
		/* one triangle, three zero positions (36 zero bytes) */
		tb_cat(&p, &left, ",\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
			"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}],"
			"\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
			"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
			"\"min\":[0,0,0],\"max\":[0,0,0]}],"
			"\"meshes\":[{\"name\":\"m\",\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]");
	}
	tb_cat(&p, &left, "}");
	rk_scene *s = rk_load_memory(json, strlen(json), NULL, err);
	free(json);
	return s;
}

/* The node with this name that is a child of a node named parent_name. */
static const rk_node *find_child(const rk_scene *s, const char *parent_name, const char *name)
{
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->parent && strcmp(n->name, name) == 0 && strcmp(n->parent->name, parent_name) == 0) return n;
	}
	return NULL;
}

/* ---- bone names, parents, required set ------------------------------------------------ */

/* VRM 1.0 humanoid bones in enum order and each one's parent in the full set
 * (VRM 1.0 specification, humanoid bone list). */
static const char *const k_vrm_bones[][2] = {
	{ "hips", NULL }, { "spine", "hips" }, { "chest", "spine" }, { "upperChest", "chest" },
	{ "neck", "upperChest" }, { "head", "neck" }, { "leftEye", "head" }, { "rightEye", "head" }, { "jaw", "head" },
	{ "leftUpperLeg", "hips" }, { "leftLowerLeg", "leftUpperLeg" }, { "leftFoot", "leftLowerLeg" },
	{ "leftToes", "leftFoot" },
	{ "rightUpperLeg", "hips" }, { "rightLowerLeg", "rightUpperLeg" }, { "rightFoot", "rightLowerLeg" },
	{ "rightToes", "rightFoot" },
	{ "leftShoulder", "upperChest" }, { "leftUpperArm", "leftShoulder" }, { "leftLowerArm", "leftUpperArm" },
	{ "leftHand", "leftLowerArm" },
	{ "rightShoulder", "upperChest" }, { "rightUpperArm", "rightShoulder" }, { "rightLowerArm", "rightUpperArm" },
	{ "rightHand", "rightLowerArm" },
	{ "leftThumbMetacarpal", "leftHand" }, { "leftThumbProximal", "leftThumbMetacarpal" },
	{ "leftThumbDistal", "leftThumbProximal" },
	{ "leftIndexProximal", "leftHand" }, { "leftIndexIntermediate", "leftIndexProximal" },
	{ "leftIndexDistal", "leftIndexIntermediate" },
	{ "leftMiddleProximal", "leftHand" }, { "leftMiddleIntermediate", "leftMiddleProximal" },
	{ "leftMiddleDistal", "leftMiddleIntermediate" },
	{ "leftRingProximal", "leftHand" }, { "leftRingIntermediate", "leftRingProximal" },
	{ "leftRingDistal", "leftRingIntermediate" },
	{ "leftLittleProximal", "leftHand" }, { "leftLittleIntermediate", "leftLittleProximal" },
	{ "leftLittleDistal", "leftLittleIntermediate" },
	{ "rightThumbMetacarpal", "rightHand" }, { "rightThumbProximal", "rightThumbMetacarpal" },
	{ "rightThumbDistal", "rightThumbProximal" },
	{ "rightIndexProximal", "rightHand" }, { "rightIndexIntermediate", "rightIndexProximal" },
	{ "rightIndexDistal", "rightIndexIntermediate" },
	{ "rightMiddleProximal", "rightHand" }, { "rightMiddleIntermediate", "rightMiddleProximal" },
	{ "rightMiddleDistal", "rightMiddleIntermediate" },
	{ "rightRingProximal", "rightHand" }, { "rightRingIntermediate", "rightRingProximal" },
	{ "rightRingDistal", "rightRingIntermediate" },
	{ "rightLittleProximal", "rightHand" }, { "rightLittleIntermediate", "rightLittleProximal" },
	{ "rightLittleDistal", "rightLittleIntermediate" },
};

RK_TEST(bone_names_parents_required)
{
	RK_REQUIRE(sizeof(k_vrm_bones) / sizeof(k_vrm_bones[0]) == RK_HUMANOID_BONE_COUNT);
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		rk_humanoid_bone bone = (rk_humanoid_bone)b;
		RK_CHECK_STR(rk_humanoid_bone_name(bone), k_vrm_bones[b][0]);
		rk_humanoid_bone parsed = RK_HUMANOID_BONE_COUNT;
		RK_CHECK(rk_humanoid_bone_parse(k_vrm_bones[b][0], &parsed));
		RK_CHECK_INT(parsed, b);
		/* case-insensitive */
		char upper[64], lower[64];
		size_t i = 0;
		for (; k_vrm_bones[b][0][i]; i++) {
			char c = k_vrm_bones[b][0][i];
			upper[i] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
			lower[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		}
		upper[i] = lower[i] = '\0';
		parsed = RK_HUMANOID_BONE_COUNT;
		RK_CHECK(rk_humanoid_bone_parse(upper, &parsed));
		RK_CHECK_INT(parsed, b);
		parsed = RK_HUMANOID_BONE_COUNT;
		RK_CHECK(rk_humanoid_bone_parse(lower, &parsed));
		RK_CHECK_INT(parsed, b);
		int expected_parent = k_vrm_bones[b][1] ? (int)bone_of(k_vrm_bones[b][1]) : -1;
		RK_CHECK_INT(rk_humanoid_bone_parent(bone), expected_parent);
	}
	rk_humanoid_bone dummy = RK_HUMANOID_HIPS;
	RK_CHECK(!rk_humanoid_bone_parse("", &dummy));
	RK_CHECK(!rk_humanoid_bone_parse(NULL, &dummy));
	RK_CHECK(!rk_humanoid_bone_parse("hip", &dummy));
	RK_CHECK(!rk_humanoid_bone_parse("hipsx", &dummy));
	RK_CHECK(!rk_humanoid_bone_parse("leftThumbIntermediate", &dummy));   /* VRM 0.x only */
	RK_CHECK_INT(dummy, RK_HUMANOID_HIPS);
	RK_CHECK_STR(rk_humanoid_bone_name(RK_HUMANOID_BONE_COUNT), "");
	RK_CHECK_STR(rk_humanoid_bone_name((rk_humanoid_bone)-1), "");
	RK_CHECK_INT(rk_humanoid_bone_parent(RK_HUMANOID_BONE_COUNT), -1);

	/* required: exactly the 15 of the header */
	static const char *const required[] = {
		"hips", "spine", "head", "leftUpperArm", "leftLowerArm", "leftHand", "rightUpperArm", "rightLowerArm",
		"rightHand", "leftUpperLeg", "leftLowerLeg", "leftFoot", "rightUpperLeg", "rightLowerLeg", "rightFoot",
	};
	int count = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		bool expected = false;
		for (size_t r = 0; r < sizeof(required) / sizeof(required[0]); r++)
			if (strcmp(required[r], k_vrm_bones[b][0]) == 0) expected = true;
		RK_CHECK_INT(rk_humanoid_bone_required((rk_humanoid_bone)b), expected);
		count += rk_humanoid_bone_required((rk_humanoid_bone)b);
	}
	RK_CHECK_INT(count, 15);
	RK_CHECK(!rk_humanoid_bone_required(RK_HUMANOID_BONE_COUNT));
}

/* ---- Mixamo / Ready Player Me naming ------------------------------------------------ */

/* Every humanoid bone a full Mixamo skeleton maps (no jaw; the "...4" and
 * "_End" joints are not humanoid bones). */
static const char *const k_mixamo[][2] = {
	{ "hips", "Hips" }, { "spine", "Spine" }, { "chest", "Spine1" }, { "upperChest", "Spine2" },
	{ "neck", "Neck" }, { "head", "Head" }, { "leftEye", "LeftEye" }, { "rightEye", "RightEye" },
	{ "leftUpperLeg", "LeftUpLeg" }, { "leftLowerLeg", "LeftLeg" }, { "leftFoot", "LeftFoot" },
	{ "leftToes", "LeftToeBase" },
	{ "rightUpperLeg", "RightUpLeg" }, { "rightLowerLeg", "RightLeg" }, { "rightFoot", "RightFoot" },
	{ "rightToes", "RightToeBase" },
	{ "leftShoulder", "LeftShoulder" }, { "leftUpperArm", "LeftArm" }, { "leftLowerArm", "LeftForeArm" },
	{ "leftHand", "LeftHand" },
	{ "rightShoulder", "RightShoulder" }, { "rightUpperArm", "RightArm" }, { "rightLowerArm", "RightForeArm" },
	{ "rightHand", "RightHand" },
	{ "leftThumbMetacarpal", "LeftHandThumb1" }, { "leftThumbProximal", "LeftHandThumb2" },
	{ "leftThumbDistal", "LeftHandThumb3" },
	{ "leftIndexProximal", "LeftHandIndex1" }, { "leftIndexIntermediate", "LeftHandIndex2" },
	{ "leftIndexDistal", "LeftHandIndex3" },
	{ "leftMiddleProximal", "LeftHandMiddle1" }, { "leftMiddleIntermediate", "LeftHandMiddle2" },
	{ "leftMiddleDistal", "LeftHandMiddle3" },
	{ "leftRingProximal", "LeftHandRing1" }, { "leftRingIntermediate", "LeftHandRing2" },
	{ "leftRingDistal", "LeftHandRing3" },
	{ "leftLittleProximal", "LeftHandPinky1" }, { "leftLittleIntermediate", "LeftHandPinky2" },
	{ "leftLittleDistal", "LeftHandPinky3" },
	{ "rightThumbMetacarpal", "RightHandThumb1" }, { "rightThumbProximal", "RightHandThumb2" },
	{ "rightThumbDistal", "RightHandThumb3" },
	{ "rightIndexProximal", "RightHandIndex1" }, { "rightIndexIntermediate", "RightHandIndex2" },
	{ "rightIndexDistal", "RightHandIndex3" },
	{ "rightMiddleProximal", "RightHandMiddle1" }, { "rightMiddleIntermediate", "RightHandMiddle2" },
	{ "rightMiddleDistal", "RightHandMiddle3" },
	{ "rightRingProximal", "RightHandRing1" }, { "rightRingIntermediate", "RightHandRing2" },
	{ "rightRingDistal", "RightHandRing3" },
	{ "rightLittleProximal", "RightHandPinky1" }, { "rightLittleIntermediate", "RightHandPinky2" },
	{ "rightLittleDistal", "RightHandPinky3" },
};
#define K_MIXAMO_COUNT (sizeof(k_mixamo) / sizeof(k_mixamo[0]))

/* The same table without the eyes (Soldier.glb has none). */
static void check_mixamo(rk_test_state *rk_t_, const rk_humanoid *h, const char *prefix, bool eyes, const char *what)
{
	const char *pairs[K_MIXAMO_COUNT][2];
	size_t n = 0;
	for (size_t i = 0; i < K_MIXAMO_COUNT; i++) {
		if (!eyes && strstr(k_mixamo[i][0], "Eye")) continue;
		pairs[n][0] = k_mixamo[i][0];
		pairs[n][1] = k_mixamo[i][1];
		n++;
	}
	check_exact_map(rk_t_, h, (const char *const (*)[2])pairs, n, prefix, what);
}

RK_TEST(detect_sample_characters)
{
	rk_error err;
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	rk_scene *dst = rk_demo_scene(RK_DEMO_AVATAR, NULL, &err);
	RK_REQUIRE(src && dst);
	rk_humanoid h;
	RK_CHECK(rk_humanoid_detect(src, &h, &err));
	RK_CHECK_INT(err.code, RK_OK);
	check_mixamo(rk_t_, &h, "mixamorig:", true, "Mixamo sample");
	RK_CHECK_STR(node_name(&h, "chest"), "mixamorig:Spine1");
	RK_CHECK_STR(node_name(&h, "leftIndexProximal"), "mixamorig:LeftHandIndex1");
	/* the end joints stay unmapped */
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *n = h.bones[b];
		if (!n) continue;
		RK_CHECK(strcmp(n->name, "mixamorig:LeftHandIndex4") != 0);
		RK_CHECK(strstr(n->name, "_End") == NULL);
		RK_CHECK(n->name[strlen(n->name) - 1] != '4');
		RK_CHECK(n->kind == RK_NODE_JOINT);
	}
	RK_CHECK(rk_humanoid_validate(&h, src, &err));

	rk_humanoid a;
	RK_CHECK(rk_humanoid_detect(dst, &a, &err));
	check_mixamo(rk_t_, &a, "", true, "avatar sample");
	RK_CHECK_STR(node_name(&a, "leftUpperLeg"), "LeftUpLeg");
	RK_CHECK_STR(node_name(&a, "rightLowerLeg"), "RightLeg");

	/* a humanoid of one scene is not valid for the other */
	RK_CHECK(!rk_humanoid_validate(&a, src, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "not a node of this scene") != NULL);
	rk_scene_free(src);
	rk_scene_free(dst);
}

/* ---- shared assets ---------------------------------------------------------------------- */

RK_TEST(detect_shared_assets)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("no shared assets folder (/work/shared)");
	static const struct { const char *file, *prefix; bool eyes; } files[] = {
		{ "ybot.fbx", "mixamorig:", true },
		{ "ybot@kick.fbx", "mixamorig:", true },
		{ "Soldier.glb", "mixamorig:", false },   /* colons kept in the file; three.js drops them on load */
		{ "Xbot.glb", "mixamorig:", true },
		{ "readyplayer.me.glb", "", true },
	};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/assets/%s", shared, files[f].file);
		rk_error err;
		rk_scene *s = rk_load_file(path, NULL, &err);
		if (!s) {
			fprintf(stderr, "%s: %s\n", path, err.message);
			rk_t_->failed++;
			continue;
		}
		rk_humanoid h;
		bool ok = rk_humanoid_detect(s, &h, &err);
		if (!ok) fprintf(stderr, "%s: %s\n", files[f].file, err.message);
		RK_CHECK(ok);
		check_mixamo(rk_t_, &h, files[f].prefix, files[f].eyes, files[f].file);
		/* meshes (Wolf3D_Head, EyeLeft, vanguard_Mesh ...) are never mapped */
		for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
			if (h.bones[b]) RK_CHECK(h.bones[b]->mesh == NULL);
		rk_scene_free(s);
	}
}

/* ---- hand-built rigs ---------------------------------------------------------------------- */

static void detect_and_check(rk_test_state *rk_t_, const tb *b, const char *const (*pairs)[2], size_t count,
	const char *what)
{
	rk_error err;
	rk_scene *s = tb_load(b, &err);
	if (!s) {
		fprintf(stderr, "%s: load failed: %s\n", what, err.message);
		rk_t_->failed++;
		return;
	}
	rk_humanoid h;
	bool ok = rk_humanoid_detect(s, &h, &err);
	if (!ok) fprintf(stderr, "%s: %s\n", what, err.message);
	RK_CHECK(ok);
	check_exact_map(rk_t_, &h, pairs, count, "", what);
	rk_scene_free(s);
}

/* Unreal Engine mannequin: UE4 (spine_01..03, one neck) or UE5 (spine_01..05,
 * neck_01..02, metacarpals), with IK and twist helpers. */
static void build_unreal(tb *b, bool ue5)
{
	memset(b, 0, sizeof(*b));
	tb_add(b, -1, 'm', "SK_Mannequin");
	int root = tb_add(b, -1, 'j', "root");
	int pelvis = tb_add(b, root, 'j', "pelvis");
	int spine = tb_add(b, pelvis, 'j', "spine_01");
	for (int i = 2; i <= (ue5 ? 5 : 3); i++) spine = tb_add(b, spine, 'j', "spine_%02d", i);
	int neck = tb_add(b, spine, 'j', "neck_01");
	if (ue5) neck = tb_add(b, neck, 'j', "neck_02");
	tb_add(b, neck, 'j', "head");
	static const char *const fingers[] = { "thumb", "index", "middle", "ring", "pinky" };
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "r" : "l";
		int clav = tb_add(b, spine, 'j', "clavicle_%s", s);
		int upper = tb_add(b, clav, 'j', "upperarm_%s", s);
		int lower = tb_add(b, upper, 'j', "lowerarm_%s", s);
		tb_add(b, upper, 'j', "upperarm_twist_01_%s", s);
		tb_add(b, lower, 'j', "lowerarm_twist_01_%s", s);
		int hand = tb_add(b, lower, 'j', "hand_%s", s);
		for (int f = 0; f < 5; f++) {
			int parent = hand;
			if (ue5 && f > 0) parent = tb_add(b, hand, 'j', "%s_metacarpal_%s", fingers[f], s);
			for (int k = 1; k <= 3; k++) parent = tb_add(b, parent, 'j', "%s_%02d_%s", fingers[f], k, s);
		}
		int thigh = tb_add(b, pelvis, 'j', "thigh_%s", s);
		tb_add(b, thigh, 'j', "thigh_twist_01_%s", s);
		int calf = tb_add(b, thigh, 'j', "calf_%s", s);
		tb_add(b, calf, 'j', "calf_twist_01_%s", s);
		int foot = tb_add(b, calf, 'j', "foot_%s", s);
		tb_add(b, foot, 'j', "ball_%s", s);
	}
	int ik_foot = tb_add(b, root, 'j', "ik_foot_root");
	tb_add(b, ik_foot, 'j', "ik_foot_l");
	tb_add(b, ik_foot, 'j', "ik_foot_r");
	int ik_hand = tb_add(b, root, 'j', "ik_hand_root");
	int gun = tb_add(b, ik_hand, 'j', "ik_hand_gun");
	tb_add(b, gun, 'j', "ik_hand_l");
	tb_add(b, gun, 'j', "ik_hand_r");
}

RK_TEST(detect_unreal)
{
	static const char *const map[][2] = {
		{ "hips", "pelvis" }, { "spine", "spine_01" }, { "chest", "spine_02" }, { "upperChest", "spine_03" },
		{ "neck", "neck_01" }, { "head", "head" },
		{ "leftShoulder", "clavicle_l" }, { "leftUpperArm", "upperarm_l" }, { "leftLowerArm", "lowerarm_l" },
		{ "leftHand", "hand_l" },
		{ "rightShoulder", "clavicle_r" }, { "rightUpperArm", "upperarm_r" }, { "rightLowerArm", "lowerarm_r" },
		{ "rightHand", "hand_r" },
		{ "leftUpperLeg", "thigh_l" }, { "leftLowerLeg", "calf_l" }, { "leftFoot", "foot_l" }, { "leftToes", "ball_l" },
		{ "rightUpperLeg", "thigh_r" }, { "rightLowerLeg", "calf_r" }, { "rightFoot", "foot_r" },
		{ "rightToes", "ball_r" },
		{ "leftThumbMetacarpal", "thumb_01_l" }, { "leftThumbProximal", "thumb_02_l" },
		{ "leftThumbDistal", "thumb_03_l" },
		{ "leftIndexProximal", "index_01_l" }, { "leftIndexIntermediate", "index_02_l" },
		{ "leftIndexDistal", "index_03_l" },
		{ "leftMiddleProximal", "middle_01_l" }, { "leftMiddleIntermediate", "middle_02_l" },
		{ "leftMiddleDistal", "middle_03_l" },
		{ "leftRingProximal", "ring_01_l" }, { "leftRingIntermediate", "ring_02_l" }, { "leftRingDistal", "ring_03_l" },
		{ "leftLittleProximal", "pinky_01_l" }, { "leftLittleIntermediate", "pinky_02_l" },
		{ "leftLittleDistal", "pinky_03_l" },
		{ "rightThumbMetacarpal", "thumb_01_r" }, { "rightThumbProximal", "thumb_02_r" },
		{ "rightThumbDistal", "thumb_03_r" },
		{ "rightIndexProximal", "index_01_r" }, { "rightIndexIntermediate", "index_02_r" },
		{ "rightIndexDistal", "index_03_r" },
		{ "rightMiddleProximal", "middle_01_r" }, { "rightMiddleIntermediate", "middle_02_r" },
		{ "rightMiddleDistal", "middle_03_r" },
		{ "rightRingProximal", "ring_01_r" }, { "rightRingIntermediate", "ring_02_r" },
		{ "rightRingDistal", "ring_03_r" },
		{ "rightLittleProximal", "pinky_01_r" }, { "rightLittleIntermediate", "pinky_02_r" },
		{ "rightLittleDistal", "pinky_03_r" },
	};
	static tb b;
	build_unreal(&b, false);
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "UE4 mannequin");
	/* UE5: spine_04/05, neck_02 and the metacarpals stay unmapped; the
	 * clavicles hang from spine_05, below the mapped upper chest */
	build_unreal(&b, true);
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "UE5 mannequin");
}

/* 3ds Max Biped: thighs hang from the first spine link, clavicles from the
 * neck; fingers Finger<f>[<k>], toes Toe0. */
static void build_biped(tb *b, const char *prefix)
{
	memset(b, 0, sizeof(*b));
	tb_add(b, -1, 'm', "Body");
	int root = tb_add(b, -1, 'j', "%.*s", (int)strlen(prefix) - 1, prefix);   /* "Bip01" */
	tb_add(b, root, 'j', "%sFootsteps", prefix);
	int pelvis = tb_add(b, root, 'j', "%sPelvis", prefix);
	int spine = tb_add(b, pelvis, 'j', "%sSpine", prefix);
	int spine1 = tb_add(b, spine, 'j', "%sSpine1", prefix);
	int spine2 = tb_add(b, spine1, 'j', "%sSpine2", prefix);
	int spine3 = tb_add(b, spine2, 'j', "%sSpine3", prefix);
	int neck = tb_add(b, spine3, 'j', "%sNeck", prefix);
	int head = tb_add(b, neck, 'j', "%sHead", prefix);
	tb_add(b, head, 'j', "%sHeadNub", prefix);
	for (int side = 0; side < 2; side++) {
		char sp = prefix[strlen(prefix) - 1];   /* the prefix's separator */
		char s[4] = { side ? 'R' : 'L', sp, '\0' };
		int thigh = tb_add(b, spine, 'j', "%s%sThigh", prefix, s);
		int calf = tb_add(b, thigh, 'j', "%s%sCalf", prefix, s);
		int foot = tb_add(b, calf, 'j', "%s%sFoot", prefix, s);
		int toe = tb_add(b, foot, 'j', "%s%sToe0", prefix, s);
		tb_add(b, toe, 'j', "%s%sToe0Nub", prefix, s);
		int clav = tb_add(b, neck, 'j', "%s%sClavicle", prefix, s);
		int upper = tb_add(b, clav, 'j', "%s%sUpperArm", prefix, s);
		int fore = tb_add(b, upper, 'j', "%s%sForearm", prefix, s);
		int hand = tb_add(b, fore, 'j', "%s%sHand", prefix, s);
		for (int f = 0; f < 5; f++) {
			int p = tb_add(b, hand, 'j', "%s%sFinger%d", prefix, s, f);
			p = tb_add(b, p, 'j', "%s%sFinger%d1", prefix, s, f);
			p = tb_add(b, p, 'j', "%s%sFinger%d2", prefix, s, f);
			tb_add(b, p, 'j', "%s%sFinger%dNub", prefix, s, f);
		}
	}
}

RK_TEST(detect_biped)
{
	static const char *const map[][2] = {
		{ "hips", "Pelvis" }, { "spine", "Spine" }, { "chest", "Spine1" }, { "upperChest", "Spine2" },
		{ "neck", "Neck" }, { "head", "Head" },
		{ "leftUpperLeg", "L?Thigh" }, { "leftLowerLeg", "L?Calf" }, { "leftFoot", "L?Foot" },
		{ "leftToes", "L?Toe0" },
		{ "rightUpperLeg", "R?Thigh" }, { "rightLowerLeg", "R?Calf" }, { "rightFoot", "R?Foot" },
		{ "rightToes", "R?Toe0" },
		{ "leftShoulder", "L?Clavicle" }, { "leftUpperArm", "L?UpperArm" }, { "leftLowerArm", "L?Forearm" },
		{ "leftHand", "L?Hand" },
		{ "rightShoulder", "R?Clavicle" }, { "rightUpperArm", "R?UpperArm" }, { "rightLowerArm", "R?Forearm" },
		{ "rightHand", "R?Hand" },
		{ "leftThumbMetacarpal", "L?Finger0" }, { "leftThumbProximal", "L?Finger01" },
		{ "leftThumbDistal", "L?Finger02" },
		{ "leftIndexProximal", "L?Finger1" }, { "leftIndexIntermediate", "L?Finger11" },
		{ "leftIndexDistal", "L?Finger12" },
		{ "leftMiddleProximal", "L?Finger2" }, { "leftMiddleIntermediate", "L?Finger21" },
		{ "leftMiddleDistal", "L?Finger22" },
		{ "leftRingProximal", "L?Finger3" }, { "leftRingIntermediate", "L?Finger31" },
		{ "leftRingDistal", "L?Finger32" },
		{ "leftLittleProximal", "L?Finger4" }, { "leftLittleIntermediate", "L?Finger41" },
		{ "leftLittleDistal", "L?Finger42" },
		{ "rightThumbMetacarpal", "R?Finger0" }, { "rightThumbProximal", "R?Finger01" },
		{ "rightThumbDistal", "R?Finger02" },
		{ "rightIndexProximal", "R?Finger1" }, { "rightIndexIntermediate", "R?Finger11" },
		{ "rightIndexDistal", "R?Finger12" },
		{ "rightMiddleProximal", "R?Finger2" }, { "rightMiddleIntermediate", "R?Finger21" },
		{ "rightMiddleDistal", "R?Finger22" },
		{ "rightRingProximal", "R?Finger3" }, { "rightRingIntermediate", "R?Finger31" },
		{ "rightRingDistal", "R?Finger32" },
		{ "rightLittleProximal", "R?Finger4" }, { "rightLittleIntermediate", "R?Finger41" },
		{ "rightLittleDistal", "R?Finger42" },
	};
	static const char *const prefixes[] = { "Bip01 ", "Bip001_" };
	for (size_t p = 0; p < 2; p++) {
		/* the table with the prefix and separator filled in */
		enum { N = sizeof(map) / sizeof(map[0]) };
		static char names[N][64];
		const char *pairs[N][2];
		char sep = prefixes[p][strlen(prefixes[p]) - 1];
		for (size_t i = 0; i < N; i++) {
			snprintf(names[i], sizeof(names[i]), "%s%s", prefixes[p], map[i][1]);
			char *q = strchr(names[i], '?');
			if (q) *q = sep;
			pairs[i][0] = map[i][0];
			pairs[i][1] = names[i];
		}
		static tb b;
		build_biped(&b, prefixes[p]);
		detect_and_check(rk_t_, &b, (const char *const (*)[2])pairs, N, prefixes[p]);
	}
}

/* VRoid Studio export (VRM): J_Bip_{C,L,R}_ names, eyes as J_Adj_?_FaceEye,
 * a plain "Root" above the hips and secondary (hair) bones. */
RK_TEST(detect_vroid)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	tb_add(&b, -1, 'm', "Face");
	tb_add(&b, -1, 'm', "Body");
	int root = tb_add(&b, -1, 'j', "Root");
	int hips = tb_add(&b, root, 'j', "J_Bip_C_Hips");
	int spine = tb_add(&b, hips, 'j', "J_Bip_C_Spine");
	int chest = tb_add(&b, spine, 'j', "J_Bip_C_Chest");
	int upper = tb_add(&b, chest, 'j', "J_Bip_C_UpperChest");
	int neck = tb_add(&b, upper, 'j', "J_Bip_C_Neck");
	int head = tb_add(&b, neck, 'j', "J_Bip_C_Head");
	tb_add(&b, head, 'j', "J_Adj_L_FaceEye");
	tb_add(&b, head, 'j', "J_Adj_R_FaceEye");
	int hair = tb_add(&b, head, 'j', "J_Sec_Hair1_01");
	tb_add(&b, hair, 'j', "J_Sec_Hair2_01");
	tb_add(&b, upper, 'j', "J_Sec_L_Bust1");
	static const char *const fingers[] = { "Thumb", "Index", "Middle", "Ring", "Little" };
	for (int side = 0; side < 2; side++) {
		char s = side ? 'R' : 'L';
		int sh = tb_add(&b, upper, 'j', "J_Bip_%c_Shoulder", s);
		int ua = tb_add(&b, sh, 'j', "J_Bip_%c_UpperArm", s);
		int la = tb_add(&b, ua, 'j', "J_Bip_%c_LowerArm", s);
		int hand = tb_add(&b, la, 'j', "J_Bip_%c_Hand", s);
		for (int f = 0; f < 5; f++) {
			int p = hand;
			for (int k = 1; k <= 3; k++) p = tb_add(&b, p, 'j', "J_Bip_%c_%s%d", s, fingers[f], k);
		}
		int ul = tb_add(&b, hips, 'j', "J_Bip_%c_UpperLeg", s);
		int ll = tb_add(&b, ul, 'j', "J_Bip_%c_LowerLeg", s);
		int ft = tb_add(&b, ll, 'j', "J_Bip_%c_Foot", s);
		tb_add(&b, ft, 'j', "J_Bip_%c_ToeBase", s);
	}
	static const char *const map[][2] = {
		{ "hips", "J_Bip_C_Hips" }, { "spine", "J_Bip_C_Spine" }, { "chest", "J_Bip_C_Chest" },
		{ "upperChest", "J_Bip_C_UpperChest" }, { "neck", "J_Bip_C_Neck" }, { "head", "J_Bip_C_Head" },
		{ "leftEye", "J_Adj_L_FaceEye" }, { "rightEye", "J_Adj_R_FaceEye" },
		{ "leftShoulder", "J_Bip_L_Shoulder" }, { "leftUpperArm", "J_Bip_L_UpperArm" },
		{ "leftLowerArm", "J_Bip_L_LowerArm" }, { "leftHand", "J_Bip_L_Hand" },
		{ "rightShoulder", "J_Bip_R_Shoulder" }, { "rightUpperArm", "J_Bip_R_UpperArm" },
		{ "rightLowerArm", "J_Bip_R_LowerArm" }, { "rightHand", "J_Bip_R_Hand" },
		{ "leftUpperLeg", "J_Bip_L_UpperLeg" }, { "leftLowerLeg", "J_Bip_L_LowerLeg" },
		{ "leftFoot", "J_Bip_L_Foot" }, { "leftToes", "J_Bip_L_ToeBase" },
		{ "rightUpperLeg", "J_Bip_R_UpperLeg" }, { "rightLowerLeg", "J_Bip_R_LowerLeg" },
		{ "rightFoot", "J_Bip_R_Foot" }, { "rightToes", "J_Bip_R_ToeBase" },
		{ "leftThumbMetacarpal", "J_Bip_L_Thumb1" }, { "leftThumbProximal", "J_Bip_L_Thumb2" },
		{ "leftThumbDistal", "J_Bip_L_Thumb3" },
		{ "leftIndexProximal", "J_Bip_L_Index1" }, { "leftIndexIntermediate", "J_Bip_L_Index2" },
		{ "leftIndexDistal", "J_Bip_L_Index3" },
		{ "leftMiddleProximal", "J_Bip_L_Middle1" }, { "leftMiddleIntermediate", "J_Bip_L_Middle2" },
		{ "leftMiddleDistal", "J_Bip_L_Middle3" },
		{ "leftRingProximal", "J_Bip_L_Ring1" }, { "leftRingIntermediate", "J_Bip_L_Ring2" },
		{ "leftRingDistal", "J_Bip_L_Ring3" },
		{ "leftLittleProximal", "J_Bip_L_Little1" }, { "leftLittleIntermediate", "J_Bip_L_Little2" },
		{ "leftLittleDistal", "J_Bip_L_Little3" },
		{ "rightThumbMetacarpal", "J_Bip_R_Thumb1" }, { "rightThumbProximal", "J_Bip_R_Thumb2" },
		{ "rightThumbDistal", "J_Bip_R_Thumb3" },
		{ "rightIndexProximal", "J_Bip_R_Index1" }, { "rightIndexIntermediate", "J_Bip_R_Index2" },
		{ "rightIndexDistal", "J_Bip_R_Index3" },
		{ "rightMiddleProximal", "J_Bip_R_Middle1" }, { "rightMiddleIntermediate", "J_Bip_R_Middle2" },
		{ "rightMiddleDistal", "J_Bip_R_Middle3" },
		{ "rightRingProximal", "J_Bip_R_Ring1" }, { "rightRingIntermediate", "J_Bip_R_Ring2" },
		{ "rightRingDistal", "J_Bip_R_Ring3" },
		{ "rightLittleProximal", "J_Bip_R_Little1" }, { "rightLittleIntermediate", "J_Bip_R_Little2" },
		{ "rightLittleDistal", "J_Bip_R_Little3" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "VRoid");
}

/* Blender Rigify deformation bones: DEF-spine is the hips, DEF-spine.004 the
 * neck, DEF-spine.006 the head; limbs split in two (".001" segments);
 * fingers under palm bones. */
RK_TEST(detect_rigify)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	tb_add(&b, -1, 'm', "Body");
	int rig = tb_add(&b, -1, 'n', "rig");
	int hips = tb_add(&b, rig, 'j', "DEF-spine");
	int s1 = tb_add(&b, hips, 'j', "DEF-spine.001");
	int s2 = tb_add(&b, s1, 'j', "DEF-spine.002");
	int s3 = tb_add(&b, s2, 'j', "DEF-spine.003");
	int s4 = tb_add(&b, s3, 'j', "DEF-spine.004");
	int s5 = tb_add(&b, s4, 'j', "DEF-spine.005");
	tb_add(&b, s5, 'j', "DEF-spine.006");
	static const char *const fingers[] = { "thumb", "f_index", "f_middle", "f_ring", "f_pinky" };
	for (int side = 0; side < 2; side++) {
		char s = side ? 'R' : 'L';
		tb_add(&b, hips, 'j', "DEF-pelvis.%c", s);
		tb_add(&b, s3, 'j', "DEF-breast.%c", s);
		int sh = tb_add(&b, s3, 'j', "DEF-shoulder.%c", s);
		int ua = tb_add(&b, sh, 'j', "DEF-upper_arm.%c", s);
		int ua1 = tb_add(&b, ua, 'j', "DEF-upper_arm.%c.001", s);
		int fa = tb_add(&b, ua1, 'j', "DEF-forearm.%c", s);
		int fa1 = tb_add(&b, fa, 'j', "DEF-forearm.%c.001", s);
		int hand = tb_add(&b, fa1, 'j', "DEF-hand.%c", s);
		for (int f = 0; f < 5; f++) {
			int p = f == 0 ? hand : tb_add(&b, hand, 'j', "DEF-palm.%02d.%c", f, s);
			for (int k = 1; k <= 3; k++) p = tb_add(&b, p, 'j', "DEF-%s.%02d.%c", fingers[f], k, s);
		}
		int th = tb_add(&b, hips, 'j', "DEF-thigh.%c", s);
		int th1 = tb_add(&b, th, 'j', "DEF-thigh.%c.001", s);
		int sn = tb_add(&b, th1, 'j', "DEF-shin.%c", s);
		int sn1 = tb_add(&b, sn, 'j', "DEF-shin.%c.001", s);
		int ft = tb_add(&b, sn1, 'j', "DEF-foot.%c", s);
		tb_add(&b, ft, 'j', "DEF-toe.%c", s);
	}
	static const char *const map[][2] = {
		{ "hips", "DEF-spine" }, { "spine", "DEF-spine.001" }, { "chest", "DEF-spine.002" },
		{ "upperChest", "DEF-spine.003" }, { "neck", "DEF-spine.004" }, { "head", "DEF-spine.006" },
		{ "leftShoulder", "DEF-shoulder.L" }, { "leftUpperArm", "DEF-upper_arm.L" },
		{ "leftLowerArm", "DEF-forearm.L" }, { "leftHand", "DEF-hand.L" },
		{ "rightShoulder", "DEF-shoulder.R" }, { "rightUpperArm", "DEF-upper_arm.R" },
		{ "rightLowerArm", "DEF-forearm.R" }, { "rightHand", "DEF-hand.R" },
		{ "leftUpperLeg", "DEF-thigh.L" }, { "leftLowerLeg", "DEF-shin.L" }, { "leftFoot", "DEF-foot.L" },
		{ "leftToes", "DEF-toe.L" },
		{ "rightUpperLeg", "DEF-thigh.R" }, { "rightLowerLeg", "DEF-shin.R" }, { "rightFoot", "DEF-foot.R" },
		{ "rightToes", "DEF-toe.R" },
		{ "leftThumbMetacarpal", "DEF-thumb.01.L" }, { "leftThumbProximal", "DEF-thumb.02.L" },
		{ "leftThumbDistal", "DEF-thumb.03.L" },
		{ "leftIndexProximal", "DEF-f_index.01.L" }, { "leftIndexIntermediate", "DEF-f_index.02.L" },
		{ "leftIndexDistal", "DEF-f_index.03.L" },
		{ "leftMiddleProximal", "DEF-f_middle.01.L" }, { "leftMiddleIntermediate", "DEF-f_middle.02.L" },
		{ "leftMiddleDistal", "DEF-f_middle.03.L" },
		{ "leftRingProximal", "DEF-f_ring.01.L" }, { "leftRingIntermediate", "DEF-f_ring.02.L" },
		{ "leftRingDistal", "DEF-f_ring.03.L" },
		{ "leftLittleProximal", "DEF-f_pinky.01.L" }, { "leftLittleIntermediate", "DEF-f_pinky.02.L" },
		{ "leftLittleDistal", "DEF-f_pinky.03.L" },
		{ "rightThumbMetacarpal", "DEF-thumb.01.R" }, { "rightThumbProximal", "DEF-thumb.02.R" },
		{ "rightThumbDistal", "DEF-thumb.03.R" },
		{ "rightIndexProximal", "DEF-f_index.01.R" }, { "rightIndexIntermediate", "DEF-f_index.02.R" },
		{ "rightIndexDistal", "DEF-f_index.03.R" },
		{ "rightMiddleProximal", "DEF-f_middle.01.R" }, { "rightMiddleIntermediate", "DEF-f_middle.02.R" },
		{ "rightMiddleDistal", "DEF-f_middle.03.R" },
		{ "rightRingProximal", "DEF-f_ring.01.R" }, { "rightRingIntermediate", "DEF-f_ring.02.R" },
		{ "rightRingDistal", "DEF-f_ring.03.R" },
		{ "rightLittleProximal", "DEF-f_pinky.01.R" }, { "rightLittleIntermediate", "DEF-f_pinky.02.R" },
		{ "rightLittleDistal", "DEF-f_pinky.03.R" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "Rigify");
}

/* Character Creator (CC3/CC4): CC_Base_Hip above CC_Base_Pelvis (which
 * carries the legs) and CC_Base_Waist; the spine chain decides that
 * CC_Base_Spine01 is the chest although "spine_01" names Unreal's spine. */
RK_TEST(detect_character_creator)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	tb_add(&b, -1, 'm', "CC_Base_Body");
	int bone_root = tb_add(&b, -1, 'j', "CC_Base_BoneRoot");
	int hip = tb_add(&b, bone_root, 'j', "CC_Base_Hip");
	int pelvis = tb_add(&b, hip, 'j', "CC_Base_Pelvis");
	int waist = tb_add(&b, hip, 'j', "CC_Base_Waist");
	int sp1 = tb_add(&b, waist, 'j', "CC_Base_Spine01");
	int sp2 = tb_add(&b, sp1, 'j', "CC_Base_Spine02");
	int n1 = tb_add(&b, sp2, 'j', "CC_Base_NeckTwist01");
	int n2 = tb_add(&b, n1, 'j', "CC_Base_NeckTwist02");
	int head = tb_add(&b, n2, 'j', "CC_Base_Head");
	int facial = tb_add(&b, head, 'j', "CC_Base_FacialBone");
	tb_add(&b, facial, 'j', "CC_Base_JawRoot");
	tb_add(&b, facial, 'j', "CC_Base_L_Eye");
	tb_add(&b, facial, 'j', "CC_Base_R_Eye");
	for (int side = 0; side < 2; side++) {
		char s = side ? 'R' : 'L';
		int cl = tb_add(&b, sp2, 'j', "CC_Base_%c_Clavicle", s);
		int ua = tb_add(&b, cl, 'j', "CC_Base_%c_Upperarm", s);
		tb_add(&b, ua, 'j', "CC_Base_%c_UpperarmTwist01", s);
		int fa = tb_add(&b, ua, 'j', "CC_Base_%c_Forearm", s);
		int hand = tb_add(&b, fa, 'j', "CC_Base_%c_Hand", s);
		int p = tb_add(&b, hand, 'j', "CC_Base_%c_Index1", s);
		p = tb_add(&b, p, 'j', "CC_Base_%c_Index2", s);
		tb_add(&b, p, 'j', "CC_Base_%c_Index3", s);
		int th = tb_add(&b, pelvis, 'j', "CC_Base_%c_Thigh", s);
		int ca = tb_add(&b, th, 'j', "CC_Base_%c_Calf", s);
		int ft = tb_add(&b, ca, 'j', "CC_Base_%c_Foot", s);
		tb_add(&b, ft, 'j', "CC_Base_%c_ToeBase", s);
	}
	static const char *const map[][2] = {
		{ "hips", "CC_Base_Hip" }, { "spine", "CC_Base_Waist" }, { "chest", "CC_Base_Spine01" },
		{ "upperChest", "CC_Base_Spine02" }, { "neck", "CC_Base_NeckTwist01" }, { "head", "CC_Base_Head" },
		{ "jaw", "CC_Base_JawRoot" }, { "leftEye", "CC_Base_L_Eye" }, { "rightEye", "CC_Base_R_Eye" },
		{ "leftShoulder", "CC_Base_L_Clavicle" }, { "leftUpperArm", "CC_Base_L_Upperarm" },
		{ "leftLowerArm", "CC_Base_L_Forearm" }, { "leftHand", "CC_Base_L_Hand" },
		{ "rightShoulder", "CC_Base_R_Clavicle" }, { "rightUpperArm", "CC_Base_R_Upperarm" },
		{ "rightLowerArm", "CC_Base_R_Forearm" }, { "rightHand", "CC_Base_R_Hand" },
		{ "leftIndexProximal", "CC_Base_L_Index1" }, { "leftIndexIntermediate", "CC_Base_L_Index2" },
		{ "leftIndexDistal", "CC_Base_L_Index3" },
		{ "rightIndexProximal", "CC_Base_R_Index1" }, { "rightIndexIntermediate", "CC_Base_R_Index2" },
		{ "rightIndexDistal", "CC_Base_R_Index3" },
		{ "leftUpperLeg", "CC_Base_L_Thigh" }, { "leftLowerLeg", "CC_Base_L_Calf" },
		{ "leftFoot", "CC_Base_L_Foot" }, { "leftToes", "CC_Base_L_ToeBase" },
		{ "rightUpperLeg", "CC_Base_R_Thigh" }, { "rightLowerLeg", "CC_Base_R_Calf" },
		{ "rightFoot", "CC_Base_R_Foot" }, { "rightToes", "CC_Base_R_ToeBase" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "Character Creator");
}

/* Mixamo bodies under other prefixes: three.js's colon-less "mixamorigHips",
 * "mixamorig1Hips", and an "Armature|" path (Blender / Assimp style). */
static void build_mixamo(tb *b, const char *prefix)
{
	memset(b, 0, sizeof(*b));
	int arm = tb_add(b, -1, 'n', "Armature");
	tb_add(b, arm, 'm', "Beta_Surface");
	int hips = tb_add(b, arm, 'j', "%sHips", prefix);
	int spine = tb_add(b, hips, 'j', "%sSpine", prefix);
	int s1 = tb_add(b, spine, 'j', "%sSpine1", prefix);
	int s2 = tb_add(b, s1, 'j', "%sSpine2", prefix);
	int neck = tb_add(b, s2, 'j', "%sNeck", prefix);
	int head = tb_add(b, neck, 'j', "%sHead", prefix);
	tb_add(b, head, 'j', "%sHeadTop_End", prefix);
	tb_add(b, head, 'j', "%sLeftEye", prefix);
	tb_add(b, head, 'j', "%sRightEye", prefix);
	static const char *const fingers[] = { "Thumb", "Index", "Middle", "Ring", "Pinky" };
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "Right" : "Left";
		int sh = tb_add(b, s2, 'j', "%s%sShoulder", prefix, s);
		int ua = tb_add(b, sh, 'j', "%s%sArm", prefix, s);
		int fa = tb_add(b, ua, 'j', "%s%sForeArm", prefix, s);
		int hand = tb_add(b, fa, 'j', "%s%sHand", prefix, s);
		for (int f = 0; f < 5; f++) {
			int p = hand;
			for (int k = 1; k <= 4; k++) p = tb_add(b, p, 'j', "%s%sHand%s%d", prefix, s, fingers[f], k);
		}
		int ul = tb_add(b, hips, 'j', "%s%sUpLeg", prefix, s);
		int ll = tb_add(b, ul, 'j', "%s%sLeg", prefix, s);
		int ft = tb_add(b, ll, 'j', "%s%sFoot", prefix, s);
		int toe = tb_add(b, ft, 'j', "%s%sToeBase", prefix, s);
		tb_add(b, toe, 'j', "%s%sToe_End", prefix, s);
	}
}

RK_TEST(detect_mixamo_prefixes)
{
	static const char *const prefixes[] = { "mixamorig", "mixamorig1", "Armature|", "Character1:mixamorig:",
		"Character1_" /* Maya HumanIK */ };
	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		static tb b;
		build_mixamo(&b, prefixes[p]);
		rk_error err;
		rk_scene *s = tb_load(&b, &err);
		RK_REQUIRE(s);
		rk_humanoid h;
		RK_CHECK(rk_humanoid_detect(s, &h, &err));
		check_mixamo(rk_t_, &h, prefixes[p], true, prefixes[p]);
		rk_scene_free(s);
	}
}

/* Blender-style names with every side marker placement, and no Hips/Pelvis:
 * "Root" is the joint the legs hang from, so it is the hips. */
RK_TEST(detect_side_markers_and_root_pelvis)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int arm = tb_add(&b, -1, 'n', "Armature");
	tb_add(&b, arm, 'm', "Body_Head");   /* a mesh: never the head */
	int root = tb_add(&b, arm, 'j', "Root");
	int spine = tb_add(&b, root, 'j', "Spine");
	int chest = tb_add(&b, spine, 'j', "Chest");
	int neck = tb_add(&b, chest, 'j', "Neck");
	tb_add(&b, neck, 'j', "Head");
	/* left: token markers; right: words */
	int sl = tb_add(&b, chest, 'j', "Shoulder.L");
	int ual = tb_add(&b, sl, 'j', "L_UpperArm");
	int lal = tb_add(&b, ual, 'j', "lowerarm_l");
	tb_add(&b, lal, 'j', "L Hand");
	int ulel = tb_add(&b, root, 'j', "thigh.L");
	int llel = tb_add(&b, ulel, 'j', "shin.l");
	int fl = tb_add(&b, llel, 'j', "L-Foot");
	tb_add(&b, fl, 'j', "Toes_L");
	int sr = tb_add(&b, chest, 'j', "R_Clavicle");
	int uar = tb_add(&b, sr, 'j', "UpperArm.R");
	int lar = tb_add(&b, uar, 'j', "Right_LowerArm");
	tb_add(&b, lar, 'j', "HandRight");
	int uler = tb_add(&b, root, 'j', "RightUpperLeg");
	int ller = tb_add(&b, uler, 'j', "lower_leg_r");
	int fr = tb_add(&b, ller, 'j', "Foot_Right");
	tb_add(&b, fr, 'j', "R.Toe");
	static const char *const map[][2] = {
		{ "hips", "Root" }, { "spine", "Spine" }, { "chest", "Chest" }, { "neck", "Neck" }, { "head", "Head" },
		{ "leftShoulder", "Shoulder.L" }, { "leftUpperArm", "L_UpperArm" }, { "leftLowerArm", "lowerarm_l" },
		{ "leftHand", "L Hand" },
		{ "leftUpperLeg", "thigh.L" }, { "leftLowerLeg", "shin.l" }, { "leftFoot", "L-Foot" }, { "leftToes", "Toes_L" },
		{ "rightShoulder", "R_Clavicle" }, { "rightUpperArm", "UpperArm.R" }, { "rightLowerArm", "Right_LowerArm" },
		{ "rightHand", "HandRight" },
		{ "rightUpperLeg", "RightUpperLeg" }, { "rightLowerLeg", "lower_leg_r" }, { "rightFoot", "Foot_Right" },
		{ "rightToes", "R.Toe" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "side markers");
}

/* A compact Mixamo-like body for the ambiguity cases; returns the node
 * indices of a few joints through the out parameters. */
static void build_small(tb *b, int *hips_out, int *neck_out, int *lfore_out, int *rfore_out)
{
	memset(b, 0, sizeof(*b));
	int hips = tb_add(b, -1, 'j', "Hips");
	int spine = tb_add(b, hips, 'j', "Spine");
	int neck = tb_add(b, spine, 'j', "Neck");
	int fore[2];
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "Right" : "Left";
		int ua = tb_add(b, spine, 'j', "%sArm", s);
		fore[side] = tb_add(b, ua, 'j', "%sForeArm", s);
		int ul = tb_add(b, hips, 'j', "%sUpLeg", s);
		int ll = tb_add(b, ul, 'j', "%sLeg", s);
		tb_add(b, ll, 'j', "%sFoot", s);
	}
	*hips_out = hips;
	*neck_out = neck;
	*lfore_out = fore[0];
	*rfore_out = fore[1];
}

RK_TEST(detect_ambiguity)
{
	static tb b;
	int hips, neck, lfore, rfore;
	rk_error err;
	rk_humanoid h;

	/* three nodes named "Head": a mesh at the top (shallowest), a plain group
	 * under the neck, the joint one level deeper: the joint wins. A "LeftHand"
	 * socket directly under the hips is shallower than the real hand but not
	 * below the left lower arm. */
	build_small(&b, &hips, &neck, &lfore, &rfore);
	tb_add(&b, -1, 'm', "Head");
	tb_add(&b, neck, 'n', "Head");
	int neck1 = tb_add(&b, neck, 'j', "Neck1");
	tb_add(&b, neck1, 'j', "Head");
	tb_add(&b, hips, 'j', "LeftHand");
	tb_add(&b, lfore, 'j', "LeftHand");
	tb_add(&b, rfore, 'j', "RightHand");
	rk_scene *s = tb_load(&b, &err);
	RK_REQUIRE(s);
	bool ok = rk_humanoid_detect(s, &h, &err);
	if (!ok) fprintf(stderr, "%s\n", err.message);
	RK_CHECK(ok);
	const rk_node *head = h.bones[RK_HUMANOID_HEAD];
	RK_REQUIRE(head);
	RK_CHECK_STR(head->name, "Head");
	RK_CHECK(head->kind == RK_NODE_JOINT);
	RK_CHECK(head == find_child(s, "Neck1", "Head"));
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == find_child(s, "LeftForeArm", "LeftHand"));
	RK_CHECK(h.bones[RK_HUMANOID_NECK] == rk_scene_find_node(s, "Neck"));
	/* one spine joint between hips and neck: spine only */
	RK_CHECK(h.bones[RK_HUMANOID_SPINE] == rk_scene_find_node(s, "Spine"));
	RK_CHECK(h.bones[RK_HUMANOID_CHEST] == NULL);
	RK_CHECK(h.bones[RK_HUMANOID_UPPER_CHEST] == NULL);
	for (int x = 0; x < RK_HUMANOID_BONE_COUNT; x++)
		if (h.bones[x]) RK_CHECK(h.bones[x]->kind == RK_NODE_JOINT);
	rk_scene_free(s);

	/* with only the group and the mesh, the group is the head (non-joints
	 * are used when no joint matches; meshes never) */
	build_small(&b, &hips, &neck, &lfore, &rfore);
	tb_add(&b, -1, 'm', "Head");
	tb_add(&b, neck, 'n', "Head");
	tb_add(&b, lfore, 'j', "LeftHand");
	tb_add(&b, rfore, 'j', "RightHand");
	s = tb_load(&b, &err);
	RK_REQUIRE(s);
	RK_CHECK(rk_humanoid_detect(s, &h, &err));
	RK_REQUIRE(h.bones[RK_HUMANOID_HEAD]);
	RK_CHECK(h.bones[RK_HUMANOID_HEAD]->kind == RK_NODE_NULL);
	RK_CHECK(h.bones[RK_HUMANOID_HEAD]->mesh == NULL);
	rk_scene_free(s);

	/* the only "LeftHand" hangs from the right forearm: rejected, detection
	 * fails naming the bone, and out keeps what was found */
	build_small(&b, &hips, &neck, &lfore, &rfore);
	tb_add(&b, neck, 'j', "Head");
	tb_add(&b, rfore, 'j', "RightHand");
	tb_add(&b, rfore, 'j', "LeftHand");
	s = tb_load(&b, &err);
	RK_REQUIRE(s);
	RK_CHECK(!rk_humanoid_detect(s, &h, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK_STR(err.message, "no node found for humanoid bone leftHand");
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == NULL);
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_LOWER_ARM] == rk_scene_find_node(s, "LeftForeArm"));
	RK_CHECK(h.bones[RK_HUMANOID_RIGHT_HAND] == rk_scene_find_node(s, "RightHand"));
	RK_CHECK(h.bones[RK_HUMANOID_HEAD] == rk_scene_find_node(s, "Head"));
	rk_scene_free(s);

	/* a plain "Root" above the Hips stays unmapped */
	memset(&b, 0, sizeof(b));
	int root = tb_add(&b, -1, 'j', "Root");
	int hp = tb_add(&b, root, 'j', "Hips");
	int sp = tb_add(&b, hp, 'j', "Spine");
	tb_add(&b, sp, 'j', "Head");
	s = tb_load(&b, &err);
	RK_REQUIRE(s);
	RK_CHECK(!rk_humanoid_detect(s, &h, &err));   /* no limbs; the legs come first in bone order */
	RK_CHECK_STR(err.message, "no node found for humanoid bone leftUpperLeg");
	RK_CHECK(h.bones[RK_HUMANOID_HIPS] == rk_scene_find_node(s, "Hips"));
	RK_CHECK(h.bones[RK_HUMANOID_SPINE] == rk_scene_find_node(s, "Spine"));
	RK_CHECK(h.bones[RK_HUMANOID_HEAD] == rk_scene_find_node(s, "Head"));
	for (int x = 0; x < RK_HUMANOID_BONE_COUNT; x++) RK_CHECK(h.bones[x] != rk_scene_find_node(s, "Root"));
	rk_scene_free(s);
}

/* Structure decides: the clavicles hang from the middle of three spine joints
 * (so the chain stops there: spine, chest, no upper chest), and a stray
 * "Hips" joint with nothing below it (listed first, as deep as the real one)
 * loses against the one the legs and the spine hang from. */
RK_TEST(detect_structure_decides)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int controls = tb_add(&b, -1, 'n', "Controls");
	tb_add(&b, controls, 'j', "Hips");
	int arm = tb_add(&b, -1, 'n', "Armature");
	int hips = tb_add(&b, arm, 'j', "Hips");
	int spine = tb_add(&b, hips, 'j', "Spine");
	int s1 = tb_add(&b, spine, 'j', "Spine1");
	int s2 = tb_add(&b, s1, 'j', "Spine2");
	int neck = tb_add(&b, s2, 'j', "Neck");
	tb_add(&b, neck, 'j', "Head");
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "Right" : "Left";
		int sh = tb_add(&b, s1, 'j', "%sShoulder", s);
		int ua = tb_add(&b, sh, 'j', "%sArm", s);
		int fa = tb_add(&b, ua, 'j', "%sForeArm", s);
		tb_add(&b, fa, 'j', "%sHand", s);
		int ul = tb_add(&b, hips, 'j', "%sUpLeg", s);
		int ll = tb_add(&b, ul, 'j', "%sLeg", s);
		tb_add(&b, ll, 'j', "%sFoot", s);
	}
	static const char *const map[][2] = {
		{ "hips", "Hips" }, { "spine", "Spine" }, { "chest", "Spine1" }, { "neck", "Neck" }, { "head", "Head" },
		{ "leftShoulder", "LeftShoulder" }, { "leftUpperArm", "LeftArm" }, { "leftLowerArm", "LeftForeArm" },
		{ "leftHand", "LeftHand" },
		{ "rightShoulder", "RightShoulder" }, { "rightUpperArm", "RightArm" }, { "rightLowerArm", "RightForeArm" },
		{ "rightHand", "RightHand" },
		{ "leftUpperLeg", "LeftUpLeg" }, { "leftLowerLeg", "LeftLeg" }, { "leftFoot", "LeftFoot" },
		{ "rightUpperLeg", "RightUpLeg" }, { "rightLowerLeg", "RightLeg" }, { "rightFoot", "RightFoot" },
	};
	rk_error err;
	rk_scene *s = tb_load(&b, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	RK_CHECK(rk_humanoid_detect(s, &h, &err));
	check_exact_map(rk_t_, &h, map, sizeof(map) / sizeof(map[0]), "", "structure");
	RK_CHECK(h.bones[RK_HUMANOID_HIPS] == find_child(s, "Armature", "Hips"));
	rk_scene_free(s);
}

/* ---- Daz Genesis, Blender duplicates, CMU BVH ------------------------------------------ */

/* n (which must exist) is mapped to some bone. */
static bool is_mapped(const rk_humanoid *h, const rk_node *n)
{
	if (!n) abort();
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++)
		if (h->bones[b] == n) return true;
	return false;
}

/* Daz Genesis 8 (and 3): sides glued as a lower-case letter ("lShldrBend"),
 * hip above pelvis (which carries the thighs), Bend/Twist pairs on the
 * limbs, two abdomen and two chest joints, two neck joints, carpal helpers
 * between the hand and the fingers, metatarsals between foot and toe. */
static void build_genesis8(tb *b)
{
	memset(b, 0, sizeof(*b));
	tb_add(b, -1, 'm', "Genesis8Female.Shape");
	int figure = tb_add(b, -1, 'j', "Genesis8Female");
	int hip = tb_add(b, figure, 'j', "hip");
	int pelvis = tb_add(b, hip, 'j', "pelvis");
	int abl = tb_add(b, hip, 'j', "abdomenLower");
	int abu = tb_add(b, abl, 'j', "abdomenUpper");
	int chl = tb_add(b, abu, 'j', "chestLower");
	int chu = tb_add(b, chl, 'j', "chestUpper");
	int nkl = tb_add(b, chu, 'j', "neckLower");
	int nku = tb_add(b, nkl, 'j', "neckUpper");
	int head = tb_add(b, nku, 'j', "head");
	tb_add(b, head, 'j', "lEye");
	tb_add(b, head, 'j', "rEye");
	tb_add(b, head, 'j', "lowerJaw");
	static const char *const fingers[] = { "Index", "Mid", "Ring", "Pinky" };
	for (int side = 0; side < 2; side++) {
		char s = side ? 'r' : 'l';
		tb_add(b, chu, 'j', "%cPectoral", s);
		int collar = tb_add(b, chu, 'j', "%cCollar", s);
		int shb = tb_add(b, collar, 'j', "%cShldrBend", s);
		int sht = tb_add(b, shb, 'j', "%cShldrTwist", s);
		int fab = tb_add(b, sht, 'j', "%cForearmBend", s);
		int fat = tb_add(b, fab, 'j', "%cForearmTwist", s);
		int hand = tb_add(b, fat, 'j', "%cHand", s);
		int p = hand;
		for (int k = 1; k <= 3; k++) p = tb_add(b, p, 'j', "%cThumb%d", s, k);
		for (int f = 0; f < 4; f++) {
			p = tb_add(b, hand, 'j', "%cCarpal%d", s, f + 1);
			for (int k = 1; k <= 3; k++) p = tb_add(b, p, 'j', "%c%s%d", s, fingers[f], k);
		}
		int thb = tb_add(b, pelvis, 'j', "%cThighBend", s);
		int tht = tb_add(b, thb, 'j', "%cThighTwist", s);
		int shin = tb_add(b, tht, 'j', "%cShin", s);
		int foot = tb_add(b, shin, 'j', "%cFoot", s);
		int meta = tb_add(b, foot, 'j', "%cMetatarsals", s);
		int toe = tb_add(b, meta, 'j', "%cToe", s);
		tb_add(b, toe, 'j', "%cBigToe", s);
		tb_add(b, toe, 'j', "%cSmallToe1", s);
	}
}

/* hip (not pelvis) is the hips, as for Character Creator; the spine chain
 * between hip and neckLower has four joints and the collars hang from the
 * fourth, so the structural rule maps the first three (abdomenLower,
 * abdomenUpper, chestLower) and leaves chestUpper unmapped; neckUpper,
 * the Twist, Carpal and Metatarsals joints stay unmapped. */
RK_TEST(detect_daz_genesis)
{
	static const char *const map[][2] = {
		{ "hips", "hip" }, { "spine", "abdomenLower" }, { "chest", "abdomenUpper" },
		{ "upperChest", "chestLower" }, { "neck", "neckLower" }, { "head", "head" },
		{ "leftEye", "lEye" }, { "rightEye", "rEye" }, { "jaw", "lowerJaw" },
		{ "leftShoulder", "lCollar" }, { "leftUpperArm", "lShldrBend" }, { "leftLowerArm", "lForearmBend" },
		{ "leftHand", "lHand" },
		{ "rightShoulder", "rCollar" }, { "rightUpperArm", "rShldrBend" }, { "rightLowerArm", "rForearmBend" },
		{ "rightHand", "rHand" },
		{ "leftUpperLeg", "lThighBend" }, { "leftLowerLeg", "lShin" }, { "leftFoot", "lFoot" },
		{ "leftToes", "lToe" },
		{ "rightUpperLeg", "rThighBend" }, { "rightLowerLeg", "rShin" }, { "rightFoot", "rFoot" },
		{ "rightToes", "rToe" },
		{ "leftThumbMetacarpal", "lThumb1" }, { "leftThumbProximal", "lThumb2" }, { "leftThumbDistal", "lThumb3" },
		{ "leftIndexProximal", "lIndex1" }, { "leftIndexIntermediate", "lIndex2" }, { "leftIndexDistal", "lIndex3" },
		{ "leftMiddleProximal", "lMid1" }, { "leftMiddleIntermediate", "lMid2" }, { "leftMiddleDistal", "lMid3" },
		{ "leftRingProximal", "lRing1" }, { "leftRingIntermediate", "lRing2" }, { "leftRingDistal", "lRing3" },
		{ "leftLittleProximal", "lPinky1" }, { "leftLittleIntermediate", "lPinky2" },
		{ "leftLittleDistal", "lPinky3" },
		{ "rightThumbMetacarpal", "rThumb1" }, { "rightThumbProximal", "rThumb2" },
		{ "rightThumbDistal", "rThumb3" },
		{ "rightIndexProximal", "rIndex1" }, { "rightIndexIntermediate", "rIndex2" },
		{ "rightIndexDistal", "rIndex3" },
		{ "rightMiddleProximal", "rMid1" }, { "rightMiddleIntermediate", "rMid2" }, { "rightMiddleDistal", "rMid3" },
		{ "rightRingProximal", "rRing1" }, { "rightRingIntermediate", "rRing2" }, { "rightRingDistal", "rRing3" },
		{ "rightLittleProximal", "rPinky1" }, { "rightLittleIntermediate", "rPinky2" },
		{ "rightLittleDistal", "rPinky3" },
	};
	static tb b;
	build_genesis8(&b);
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "Genesis 8");

	/* the helpers, named: none is mapped */
	rk_error err;
	rk_scene *s = tb_load(&b, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	static const char *const unmapped[] = {
		"Genesis8Female", "pelvis", "chestUpper", "neckUpper", "lShldrTwist", "rShldrTwist", "lForearmTwist",
		"rForearmTwist", "lThighTwist", "rThighTwist", "lCarpal1", "lCarpal2", "lCarpal3", "lCarpal4",
		"rCarpal1", "rCarpal4", "lMetatarsals", "rMetatarsals", "lPectoral", "lBigToe", "lSmallToe1",
	};
	for (size_t i = 0; i < sizeof(unmapped) / sizeof(unmapped[0]); i++) {
		const rk_node *n = rk_scene_find_node(s, unmapped[i]);
		RK_REQUIRE(n);
		if (is_mapped(&h, n)) {
			fprintf(stderr, "Genesis 8: helper %s is mapped\n", unmapped[i]);
			rk_t_->failed++;
		}
	}
	for (int x = 0; x < RK_HUMANOID_BONE_COUNT; x++) {
		if (!h.bones[x]) continue;
		RK_CHECK(strstr(h.bones[x]->name, "Twist") == NULL);
		RK_CHECK(strstr(h.bones[x]->name, "Carpal") == NULL);
	}
	/* the thighs hang from pelvis, below the mapped hips */
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_UPPER_LEG]->parent == rk_scene_find_node(s, "pelvis"));
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_LEFT_UPPER_LEG), RK_HUMANOID_HIPS);
	rk_scene_free(s);
}

/* Genesis 1/2-style names: lShldr, lForeArm, lThigh, abdomen, abdomen2,
 * chest, one neck. */
RK_TEST(detect_daz_genesis2)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int hip = tb_add(&b, -1, 'j', "hip");
	int pelvis = tb_add(&b, hip, 'j', "pelvis");
	int ab = tb_add(&b, hip, 'j', "abdomen");
	int ab2 = tb_add(&b, ab, 'j', "abdomen2");
	int chest = tb_add(&b, ab2, 'j', "chest");
	int neck = tb_add(&b, chest, 'j', "neck");
	tb_add(&b, neck, 'j', "head");
	for (int side = 0; side < 2; side++) {
		char s = side ? 'r' : 'l';
		int collar = tb_add(&b, chest, 'j', "%cCollar", s);
		int sh = tb_add(&b, collar, 'j', "%cShldr", s);
		int fa = tb_add(&b, sh, 'j', "%cForeArm", s);
		int hand = tb_add(&b, fa, 'j', "%cHand", s);
		int c = tb_add(&b, hand, 'j', "%cCarpal1", s);
		int p = tb_add(&b, c, 'j', "%cIndex1", s);
		tb_add(&b, p, 'j', "%cIndex2", s);
		int th = tb_add(&b, pelvis, 'j', "%cThigh", s);
		int shin = tb_add(&b, th, 'j', "%cShin", s);
		int foot = tb_add(&b, shin, 'j', "%cFoot", s);
		tb_add(&b, foot, 'j', "%cToe", s);
	}
	static const char *const map[][2] = {
		{ "hips", "hip" }, { "spine", "abdomen" }, { "chest", "abdomen2" }, { "upperChest", "chest" },
		{ "neck", "neck" }, { "head", "head" },
		{ "leftShoulder", "lCollar" }, { "leftUpperArm", "lShldr" }, { "leftLowerArm", "lForeArm" },
		{ "leftHand", "lHand" }, { "leftIndexProximal", "lIndex1" }, { "leftIndexIntermediate", "lIndex2" },
		{ "rightShoulder", "rCollar" }, { "rightUpperArm", "rShldr" }, { "rightLowerArm", "rForeArm" },
		{ "rightHand", "rHand" }, { "rightIndexProximal", "rIndex1" }, { "rightIndexIntermediate", "rIndex2" },
		{ "leftUpperLeg", "lThigh" }, { "leftLowerLeg", "lShin" }, { "leftFoot", "lFoot" }, { "leftToes", "lToe" },
		{ "rightUpperLeg", "rThigh" }, { "rightLowerLeg", "rShin" }, { "rightFoot", "rFoot" },
		{ "rightToes", "rToe" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "Genesis 2");
}

/* Upper-case glued sides ("LUpperArm", "RThigh") are read only when the rest
 * is a sided bone word; "LHipJoint" is a helper. Mixed with the separated
 * markers, which keep working ("lowerarm_l"). */
RK_TEST(detect_upper_glued_sides)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int hips = tb_add(&b, -1, 'j', "Hips");
	int spine = tb_add(&b, hips, 'j', "Spine");
	int neck = tb_add(&b, spine, 'j', "Neck");
	tb_add(&b, neck, 'j', "Head");
	int lua = tb_add(&b, spine, 'j', "LUpperArm");
	int lla = tb_add(&b, lua, 'j', "lowerarm_l");
	tb_add(&b, lla, 'j', "LHand");
	int rua = tb_add(&b, spine, 'j', "RUpperArm");
	int rla = tb_add(&b, rua, 'j', "RForeArm");
	tb_add(&b, rla, 'j', "RHand");
	int lhj = tb_add(&b, hips, 'j', "LHipJoint");
	int lth = tb_add(&b, lhj, 'j', "LThigh");
	int lsh = tb_add(&b, lth, 'j', "LShin");
	tb_add(&b, lsh, 'j', "LFoot");
	int rth = tb_add(&b, hips, 'j', "RThigh");
	int rca = tb_add(&b, rth, 'j', "RCalf");
	tb_add(&b, rca, 'j', "RIGHTFOOT");   /* the whole name first, not "R" + "IGHTFOOT" */
	tb_add(&b, hips, 'j', "Leg");   /* not "L" + "eg" */
	tb_add(&b, hips, 'j', "LEG");
	static const char *const map[][2] = {
		{ "hips", "Hips" }, { "spine", "Spine" }, { "neck", "Neck" }, { "head", "Head" },
		{ "leftUpperArm", "LUpperArm" }, { "leftLowerArm", "lowerarm_l" }, { "leftHand", "LHand" },
		{ "rightUpperArm", "RUpperArm" }, { "rightLowerArm", "RForeArm" }, { "rightHand", "RHand" },
		{ "leftUpperLeg", "LThigh" }, { "leftLowerLeg", "LShin" }, { "leftFoot", "LFoot" },
		{ "rightUpperLeg", "RThigh" }, { "rightLowerLeg", "RCalf" }, { "rightFoot", "RIGHTFOOT" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "upper-case glued sides");
}

/* False positives: "Leg", "LEG" and "LowerLeg" are not a left lower leg by
 * name (an "L" followed by a lower-case letter is no side; "L" + "EG" is no
 * bone; side-less lowerLeg names need a side). With one of them in the place
 * of LeftLeg the name matches leave leftLowerLeg empty; the hierarchy then
 * maps the joint between LeftUpLeg and LeftFoot as the lower leg, and says
 * so (reason "hierarchy", never "name"). */
RK_TEST(detect_glued_side_false_positives)
{
	static const char *const decoys[] = { "Leg", "LEG", "LowerLeg", "Lshin", "LLower" };
	for (size_t i = 0; i < sizeof(decoys) / sizeof(decoys[0]); i++) {
		static tb b;
		memset(&b, 0, sizeof(b));
		int hips = tb_add(&b, -1, 'j', "Hips");
		int spine = tb_add(&b, hips, 'j', "Spine");
		int neck = tb_add(&b, spine, 'j', "Neck");
		tb_add(&b, neck, 'j', "Head");
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "Right" : "Left";
			int ua = tb_add(&b, spine, 'j', "%sArm", s);
			int fa = tb_add(&b, ua, 'j', "%sForeArm", s);
			tb_add(&b, fa, 'j', "%sHand", s);
			int ul = tb_add(&b, hips, 'j', "%sUpLeg", s);
			int ll = side ? tb_add(&b, ul, 'j', "RightLeg") : tb_add(&b, ul, 'j', "%s", decoys[i]);
			tb_add(&b, ll, 'j', "%sFoot", s);
		}
		rk_error err;
		rk_scene *s = tb_load(&b, &err);
		RK_REQUIRE(s);
		rk_humanoid h;
		static rk_humanoid_explanation why;
		RK_CHECK(rk_humanoid_detect_explained(s, &h, &why, &err));
		RK_CHECK(h.bones[RK_HUMANOID_LEFT_LOWER_LEG] == rk_scene_find_node(s, decoys[i]));
		RK_CHECK_INT(why.reason[RK_HUMANOID_LEFT_LOWER_LEG], RK_HUMANOID_REASON_HIERARCHY);
		if (!strstr(why.text[RK_HUMANOID_LEFT_LOWER_LEG], "says nothing")) {
			fprintf(stderr, "decoy %s: %s\n", decoys[i], why.text[RK_HUMANOID_LEFT_LOWER_LEG]);
			rk_t_->failed++;
		}
		RK_CHECK_INT(why.reason[RK_HUMANOID_LEFT_UPPER_LEG], RK_HUMANOID_REASON_NAME);
		RK_CHECK(h.bones[RK_HUMANOID_RIGHT_LOWER_LEG] == rk_scene_find_node(s, "RightLeg"));
		RK_CHECK_INT(why.reason[RK_HUMANOID_RIGHT_LOWER_LEG], RK_HUMANOID_REASON_NAME);
		rk_scene_free(s);
	}
}

/* Blender duplicate names: the ".001" suffix is ignored when matching
 * ("Hips.001", "UpperArm.L.001"); a plain name wins over a duplicate for the
 * same bone unless the existing rules (joint, support) decide first. */
static void build_blender(tb *b, int parent, const char *suffix)
{
	int hips = tb_add(b, parent, 'j', "Hips%s", suffix);
	int spine = tb_add(b, hips, 'j', "Spine%s", suffix);
	int chest = tb_add(b, spine, 'j', "Chest%s", suffix);
	int neck = tb_add(b, chest, 'j', "Neck%s", suffix);
	tb_add(b, neck, 'j', "Head%s", suffix);
	for (int side = 0; side < 2; side++) {
		char s = side ? 'R' : 'L';
		int sh = tb_add(b, chest, 'j', "Shoulder.%c%s", s, suffix);
		int ua = tb_add(b, sh, 'j', "UpperArm.%c%s", s, suffix);
		int la = tb_add(b, ua, 'j', "LowerArm.%c%s", s, suffix);
		int hand = tb_add(b, la, 'j', "Hand.%c%s", s, suffix);
		int p = tb_add(b, hand, 'j', "Index1.%c%s", s, suffix);
		tb_add(b, p, 'j', "Index2.%c%s", s, suffix);
		int ul = tb_add(b, hips, 'j', "UpperLeg.%c%s", s, suffix);
		int ll = tb_add(b, ul, 'j', "LowerLeg.%c%s", s, suffix);
		int ft = tb_add(b, ll, 'j', "Foot.%c%s", s, suffix);
		tb_add(b, ft, 'j', "Toes.%c%s", s, suffix);
	}
}

static const char *const k_blender[][2] = {
	{ "hips", "Hips" }, { "spine", "Spine" }, { "chest", "Chest" }, { "neck", "Neck" }, { "head", "Head" },
	{ "leftShoulder", "Shoulder.L" }, { "leftUpperArm", "UpperArm.L" }, { "leftLowerArm", "LowerArm.L" },
	{ "leftHand", "Hand.L" }, { "leftIndexProximal", "Index1.L" }, { "leftIndexIntermediate", "Index2.L" },
	{ "rightShoulder", "Shoulder.R" }, { "rightUpperArm", "UpperArm.R" }, { "rightLowerArm", "LowerArm.R" },
	{ "rightHand", "Hand.R" }, { "rightIndexProximal", "Index1.R" }, { "rightIndexIntermediate", "Index2.R" },
	{ "leftUpperLeg", "UpperLeg.L" }, { "leftLowerLeg", "LowerLeg.L" }, { "leftFoot", "Foot.L" },
	{ "leftToes", "Toes.L" },
	{ "rightUpperLeg", "UpperLeg.R" }, { "rightLowerLeg", "LowerLeg.R" }, { "rightFoot", "Foot.R" },
	{ "rightToes", "Toes.R" },
};
#define K_BLENDER_COUNT (sizeof(k_blender) / sizeof(k_blender[0]))

RK_TEST(detect_blender_duplicates)
{
	static tb b;
	rk_error err;
	rk_humanoid h;

	/* every name a duplicate */
	memset(&b, 0, sizeof(b));
	build_blender(&b, tb_add(&b, -1, 'n', "Armature.001"), ".001");
	{
		const char *pairs[K_BLENDER_COUNT][2];
		static char names[K_BLENDER_COUNT][64];
		for (size_t i = 0; i < K_BLENDER_COUNT; i++) {
			snprintf(names[i], sizeof(names[i]), "%s.001", k_blender[i][1]);
			pairs[i][0] = k_blender[i][0];
			pairs[i][1] = names[i];
		}
		detect_and_check(rk_t_, &b, (const char *const (*)[2])pairs, K_BLENDER_COUNT, "all .001");
	}

	/* two armatures at the same depth, the duplicate one first in node
	 * order: the plain names win */
	memset(&b, 0, sizeof(b));
	build_blender(&b, tb_add(&b, -1, 'n', "Armature.001"), ".001");
	build_blender(&b, tb_add(&b, -1, 'n', "Armature"), "");
	detect_and_check(rk_t_, &b, k_blender, K_BLENDER_COUNT, "plain and .001");

	/* a stray plain "Hips" with nothing below loses against the "Hips.001"
	 * the legs and the spine hang from (support before the plain name);
	 * below it, the .001 names are the only candidates */
	memset(&b, 0, sizeof(b));
	int arm = tb_add(&b, -1, 'n', "Armature");
	tb_add(&b, arm, 'j', "Hips");
	build_blender(&b, arm, ".001");
	rk_scene *s = tb_load(&b, &err);
	RK_REQUIRE(s);
	RK_CHECK(rk_humanoid_detect(s, &h, &err));
	RK_CHECK(h.bones[RK_HUMANOID_HIPS] == rk_scene_find_node(s, "Hips.001"));
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == rk_scene_find_node(s, "Hand.L.001"));
	RK_CHECK(!is_mapped(&h, rk_scene_find_node(s, "Hips")));
	rk_scene_free(s);

	/* only one '.' and three digits are a suffix: as the only head, "Head.001"
	 * is found, "Head.01", "Head.0001", "Head_001", "Head.001.001" are not */
	static const char *const heads[] = { "Head.001", "Head.01", "Head.0001", "Head_001", "Head.001.001" };
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		int hips, neck, lfore, rfore;
		build_small(&b, &hips, &neck, &lfore, &rfore);
		tb_add(&b, lfore, 'j', "LeftHand");
		tb_add(&b, rfore, 'j', "RightHand");
		tb_add(&b, neck, 'j', "%s", heads[i]);
		s = tb_load(&b, &err);
		RK_REQUIRE(s);
		bool ok = rk_humanoid_detect(s, &h, &err);
		RK_CHECK_INT(ok, i == 0);
		if (i == 0) RK_CHECK(h.bones[RK_HUMANOID_HEAD] == rk_scene_find_node(s, heads[i]));
		else RK_CHECK_STR(err.message, "no node found for humanoid bone head");
		rk_scene_free(s);
	}
}

/* CMU motion capture BVH (the cgspeed conversion): LHipJoint/RHipJoint
 * between the hips and the legs, LowerBack -> Spine -> Spine1 -> Neck ->
 * Neck1 -> Head, one thumb joint LThumb and one finger joint
 * LeftHandIndex1 after LeftFingerBase. LowerBack is the joint that bends
 * the lower back, so the structural chain gives spine = LowerBack, chest =
 * Spine, upperChest = Spine1 (the shoulders hang from Spine1). Neck1,
 * the hip joints, LeftFingerBase and the single-joint LThumb stay unmapped;
 * LeftHandIndex1 is the index proximal by its Mixamo name. */
RK_TEST(detect_cmu_bvh)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int hips = tb_add(&b, -1, 'j', "Hips");
	int lb = tb_add(&b, hips, 'j', "LowerBack");
	int spine = tb_add(&b, lb, 'j', "Spine");
	int s1 = tb_add(&b, spine, 'j', "Spine1");
	int neck = tb_add(&b, s1, 'j', "Neck");
	int neck1 = tb_add(&b, neck, 'j', "Neck1");
	tb_add(&b, neck1, 'j', "Head");
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "Right" : "Left";
		char c = side ? 'R' : 'L';
		int hj = tb_add(&b, hips, 'j', "%cHipJoint", c);
		int ul = tb_add(&b, hj, 'j', "%sUpLeg", s);
		int ll = tb_add(&b, ul, 'j', "%sLeg", s);
		int ft = tb_add(&b, ll, 'j', "%sFoot", s);
		tb_add(&b, ft, 'j', "%sToeBase", s);
		int sh = tb_add(&b, s1, 'j', "%sShoulder", s);
		int ua = tb_add(&b, sh, 'j', "%sArm", s);
		int fa = tb_add(&b, ua, 'j', "%sForeArm", s);
		int hand = tb_add(&b, fa, 'j', "%sHand", s);
		int fb = tb_add(&b, hand, 'j', "%sFingerBase", s);
		tb_add(&b, fb, 'j', "%sHandIndex1", s);
		tb_add(&b, hand, 'j', "%cThumb", c);
	}
	static const char *const map[][2] = {
		{ "hips", "Hips" }, { "spine", "LowerBack" }, { "chest", "Spine" }, { "upperChest", "Spine1" },
		{ "neck", "Neck" }, { "head", "Head" },
		{ "leftUpperLeg", "LeftUpLeg" }, { "leftLowerLeg", "LeftLeg" }, { "leftFoot", "LeftFoot" },
		{ "leftToes", "LeftToeBase" },
		{ "rightUpperLeg", "RightUpLeg" }, { "rightLowerLeg", "RightLeg" }, { "rightFoot", "RightFoot" },
		{ "rightToes", "RightToeBase" },
		{ "leftShoulder", "LeftShoulder" }, { "leftUpperArm", "LeftArm" }, { "leftLowerArm", "LeftForeArm" },
		{ "leftHand", "LeftHand" }, { "leftIndexProximal", "LeftHandIndex1" },
		{ "rightShoulder", "RightShoulder" }, { "rightUpperArm", "RightArm" }, { "rightLowerArm", "RightForeArm" },
		{ "rightHand", "RightHand" }, { "rightIndexProximal", "RightHandIndex1" },
	};
	detect_and_check(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), "CMU BVH");
}

/* ---- the hierarchy before names, BVH naming schemes ---------------------------------- */

/* detect_and_check, and each bone of `hier` ({bone, ...}) chosen by the
 * hierarchy (RK_HUMANOID_REASON_HIERARCHY), every other mapped bone that is
 * not in the spine chain by its name. */
static void detect_and_check_why(rk_test_state *rk_t_, const tb *b, const char *const (*pairs)[2], size_t count,
	const char *const *hier, size_t hier_count, const char *what)
{
	detect_and_check(rk_t_, b, pairs, count, what);
	rk_error err;
	rk_scene *s = tb_load(b, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	static rk_humanoid_explanation why;
	RK_CHECK(rk_humanoid_detect_explained(s, &h, &why, &err));
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		if (!h.bones[k]) {
			RK_CHECK_INT(why.reason[k], RK_HUMANOID_REASON_NONE);
			continue;
		}
		bool listed = false;
		for (size_t i = 0; i < hier_count; i++) listed |= bone_of(hier[i]) == (rk_humanoid_bone)k;
		bool spine = k == RK_HUMANOID_SPINE || k == RK_HUMANOID_CHEST || k == RK_HUMANOID_UPPER_CHEST;
		rk_humanoid_reason want = listed || spine ? RK_HUMANOID_REASON_HIERARCHY : RK_HUMANOID_REASON_NAME;
		if (why.reason[k] != want || !why.text[k][0]) {
			fprintf(stderr, "%s: %s: reason %s (%s), expected %s\n", what, rk_humanoid_bone_name((rk_humanoid_bone)k),
				rk_humanoid_reason_name(why.reason[k]), why.text[k], rk_humanoid_reason_name(want));
			rk_t_->failed++;
		}
	}
	rk_scene_free(s);
}

/* A body with named spine, neck, head and arms; legs as the caller adds. */
static int build_body(tb *b, int *arm_parent)
{
	memset(b, 0, sizeof(*b));
	int hips = tb_add(b, -1, 'j', "Hips");
	int spine = tb_add(b, hips, 'j', "Spine");
	int chest = tb_add(b, spine, 'j', "Chest");
	int neck = tb_add(b, chest, 'j', "Neck");
	tb_add(b, neck, 'j', "Head");
	*arm_parent = chest;
	return hips;
}

/* Mixamo-named arm of side s ("Left"/"Right") below parent. */
static void tb_mixamo_arm(tb *b, int parent, const char *s)
{
	int ua = tb_add(b, parent, 'j', "%sArm", s);
	int la = tb_add(b, ua, 'j', "%sForeArm", s);
	tb_add(b, la, 'j', "%sHand", s);
}

static const char *const k_body[][2] = {
	{ "hips", "Hips" }, { "spine", "Spine" }, { "chest", "Chest" }, { "neck", "Neck" }, { "head", "Head" },
};

/* The issue's rig: "Calf_L" is the thigh (a direct child of the hips) and
 * "Shin_L" the shin. Both names say lower leg; the chain below the hips
 * says the first joint is the upper leg. Likewise a leg named in the wrong
 * order (Shin above Thigh) and "Hip_L" -> "Thigh_L" (a thigh named hip,
 * the shin named thigh). */
RK_TEST(detect_names_that_lie)
{
	static const char *const leg_names[3][3] = {
		{ "Calf", "Shin", "Foot" },      /* upper named lower, lower named lower */
		{ "Shin", "Thigh", "Foot" },     /* the names in the wrong order */
		{ "Hip", "Thigh", "Ankle" },     /* upper named hip, lower named upper */
	};
	static const char *const hier[3][4] = {
		{ "leftUpperLeg", "rightUpperLeg", NULL, NULL },
		{ "leftUpperLeg", "rightUpperLeg", "leftLowerLeg", "rightLowerLeg" },
		{ "leftLowerLeg", "rightLowerLeg", NULL, NULL },
	};
	for (int v = 0; v < 3; v++) {
		static tb b;
		int arms;
		int hips = build_body(&b, &arms);
		for (int side = 0; side < 2; side++) {
			char c = side ? 'R' : 'L';
			int ul = tb_add(&b, hips, 'j', "%s_%c", leg_names[v][0], c);
			int ll = tb_add(&b, ul, 'j', "%s_%c", leg_names[v][1], c);
			int ft = tb_add(&b, ll, 'j', "%s_%c", leg_names[v][2], c);
			tb_add(&b, ft, 'j', "Toe_%c", c);
			int ua = tb_add(&b, arms, 'j', "UpperArm_%c", c);
			int la = tb_add(&b, ua, 'j', "LowerArm_%c", c);
			tb_add(&b, la, 'j', "Hand_%c", c);
		}
		char names[14][2][24];
		static const char *const bones[2][7] = {
			{ "leftUpperLeg", "leftLowerLeg", "leftFoot", "leftToes", "leftUpperArm", "leftLowerArm", "leftHand" },
			{ "rightUpperLeg", "rightLowerLeg", "rightFoot", "rightToes", "rightUpperArm", "rightLowerArm", "rightHand" },
		};
		const char *pairs[5 + 14][2];
		for (int k = 0; k < 5; k++) pairs[k][0] = k_body[k][0], pairs[k][1] = k_body[k][1];
		for (int side = 0; side < 2; side++) {
			char c = side ? 'R' : 'L';
			const char *node[7] = { leg_names[v][0], leg_names[v][1], leg_names[v][2], "Toe", "UpperArm", "LowerArm",
				"Hand" };
			for (int k = 0; k < 7; k++) {
				char *n = names[side * 7 + k][0];
				snprintf(n, 24, "%s_%c", node[k], c);
				pairs[5 + side * 7 + k][0] = bones[side][k];
				pairs[5 + side * 7 + k][1] = n;
			}
		}
		size_t hc = hier[v][2] ? 4 : 2;
		detect_and_check_why(rk_t_, &b, (const char *const (*)[2])pairs, 19, hier[v], hc, leg_names[v][0]);
	}
}

/* Biovision BVH (the joints of ../shared/assets/example.bvh): Hips -> Chest
 * -> Neck -> Head, Chest -> LeftCollar -> LeftUpArm -> LeftLowArm ->
 * LeftHand, Hips -> LeftUpLeg -> LeftLowLeg -> LeftFoot. One joint between
 * the hips and the neck: the spine. */
static const char *const k_biovision[][2] = {
	{ "hips", "Hips" }, { "spine", "Chest" }, { "neck", "Neck" }, { "head", "Head" },
	{ "leftShoulder", "LeftCollar" }, { "leftUpperArm", "LeftUpArm" }, { "leftLowerArm", "LeftLowArm" },
	{ "leftHand", "LeftHand" },
	{ "rightShoulder", "RightCollar" }, { "rightUpperArm", "RightUpArm" }, { "rightLowerArm", "RightLowArm" },
	{ "rightHand", "RightHand" },
	{ "leftUpperLeg", "LeftUpLeg" }, { "leftLowerLeg", "LeftLowLeg" }, { "leftFoot", "LeftFoot" },
	{ "rightUpperLeg", "RightUpLeg" }, { "rightLowerLeg", "RightLowLeg" }, { "rightFoot", "RightFoot" },
};

RK_TEST(detect_biovision_bvh)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int hips = tb_add(&b, -1, 'j', "Hips");
	int chest = tb_add(&b, hips, 'j', "Chest");
	int neck = tb_add(&b, chest, 'j', "Neck");
	tb_add(&b, neck, 'j', "Head");
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "Right" : "Left";
		int co = tb_add(&b, chest, 'j', "%sCollar", s);
		int ua = tb_add(&b, co, 'j', "%sUpArm", s);
		int la = tb_add(&b, ua, 'j', "%sLowArm", s);
		tb_add(&b, la, 'j', "%sHand", s);
		int ul = tb_add(&b, hips, 'j', "%sUpLeg", s);
		int ll = tb_add(&b, ul, 'j', "%sLowLeg", s);
		tb_add(&b, ll, 'j', "%sFoot", s);
	}
	detect_and_check_why(rk_t_, &b, k_biovision, sizeof(k_biovision) / sizeof(k_biovision[0]), NULL, 0, "Biovision");

	/* the real file, once a BVH reader is there */
	char path[512];
	snprintf(path, sizeof(path), "%s/assets/example.bvh", rk_test_shared_dir());
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) {
		printf("example.bvh not loaded (%s): the hand-built Biovision rig only\n", err.message);
		return;
	}
	rk_humanoid h;
	RK_CHECK(rk_humanoid_detect(s, &h, &err));
	check_exact_map(rk_t_, &h, k_biovision, sizeof(k_biovision) / sizeof(k_biovision[0]), "", "example.bvh");
	rk_scene_free(s);
}

/* Biovision variants where "LeftShoulder" is the upper arm: joint-named
 * limbs (LeftShoulder -> LeftElbow -> LeftWrist, LeftHip -> LeftKnee ->
 * LeftAnkle) with and without a LeftCollar above. Without a collar the name
 * says shoulder but the chain has no other joint for the upper arm; with one
 * the collar is the shoulder and LeftShoulder the upper arm. */
RK_TEST(detect_biovision_shoulder_is_upper_arm)
{
	for (int collar = 0; collar < 2; collar++) {
		static tb b;
		memset(&b, 0, sizeof(b));
		int hips = tb_add(&b, -1, 'j', "Hips");
		int chest = tb_add(&b, hips, 'j', "Chest");
		int neck = tb_add(&b, chest, 'j', "Neck");
		tb_add(&b, neck, 'j', "Head");
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "Right" : "Left";
			int p = collar ? tb_add(&b, chest, 'j', "%sCollar", s) : chest;
			int sh = tb_add(&b, p, 'j', "%sShoulder", s);
			int el = tb_add(&b, sh, 'j', "%sElbow", s);
			tb_add(&b, el, 'j', "%sWrist", s);
			int hp = tb_add(&b, hips, 'j', "%sHip", s);
			int kn = tb_add(&b, hp, 'j', "%sKnee", s);
			int an = tb_add(&b, kn, 'j', "%sAnkle", s);
			tb_add(&b, an, 'j', "%sToe", s);
		}
		static const char *const base[][2] = {
			{ "hips", "Hips" }, { "spine", "Chest" }, { "neck", "Neck" }, { "head", "Head" },
			{ "leftUpperArm", "LeftShoulder" }, { "leftLowerArm", "LeftElbow" }, { "leftHand", "LeftWrist" },
			{ "rightUpperArm", "RightShoulder" }, { "rightLowerArm", "RightElbow" }, { "rightHand", "RightWrist" },
			{ "leftUpperLeg", "LeftHip" }, { "leftLowerLeg", "LeftKnee" }, { "leftFoot", "LeftAnkle" },
			{ "leftToes", "LeftToe" },
			{ "rightUpperLeg", "RightHip" }, { "rightLowerLeg", "RightKnee" }, { "rightFoot", "RightAnkle" },
			{ "rightToes", "RightToe" },
			{ "leftShoulder", "LeftCollar" }, { "rightShoulder", "RightCollar" },
		};
		static const char *const hier[] = { "leftUpperArm", "rightUpperArm" };
		detect_and_check_why(rk_t_, &b, base, collar ? 20 : 18, hier, 2, collar ? "collar + shoulder" : "shoulder");
	}
}

/* Bandai Namco Research Motion dataset: joint_Root -> Hips -> Spine ->
 * Chest -> Neck -> Head, Hips -> UpperLeg_L -> LowerLeg_L -> Foot_L ->
 * Toe_L, Chest -> Shoulder_L -> UpperArm_L -> LowerArm_L -> Hand_L. */
RK_TEST(detect_bandai_namco_bvh)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int root = tb_add(&b, -1, 'j', "joint_Root");
	int hips = tb_add(&b, root, 'j', "Hips");
	int spine = tb_add(&b, hips, 'j', "Spine");
	int chest = tb_add(&b, spine, 'j', "Chest");
	int neck = tb_add(&b, chest, 'j', "Neck");
	tb_add(&b, neck, 'j', "Head");
	for (int side = 0; side < 2; side++) {
		char c = side ? 'R' : 'L';
		int ul = tb_add(&b, hips, 'j', "UpperLeg_%c", c);
		int ll = tb_add(&b, ul, 'j', "LowerLeg_%c", c);
		int ft = tb_add(&b, ll, 'j', "Foot_%c", c);
		tb_add(&b, ft, 'j', "Toe_%c", c);
		int sh = tb_add(&b, chest, 'j', "Shoulder_%c", c);
		int ua = tb_add(&b, sh, 'j', "UpperArm_%c", c);
		int la = tb_add(&b, ua, 'j', "LowerArm_%c", c);
		tb_add(&b, la, 'j', "Hand_%c", c);
	}
	static const char *const map[][2] = {
		{ "hips", "Hips" }, { "spine", "Spine" }, { "chest", "Chest" }, { "neck", "Neck" }, { "head", "Head" },
		{ "leftUpperLeg", "UpperLeg_L" }, { "leftLowerLeg", "LowerLeg_L" }, { "leftFoot", "Foot_L" },
		{ "leftToes", "Toe_L" },
		{ "rightUpperLeg", "UpperLeg_R" }, { "rightLowerLeg", "LowerLeg_R" }, { "rightFoot", "Foot_R" },
		{ "rightToes", "Toe_R" },
		{ "leftShoulder", "Shoulder_L" }, { "leftUpperArm", "UpperArm_L" }, { "leftLowerArm", "LowerArm_L" },
		{ "leftHand", "Hand_L" },
		{ "rightShoulder", "Shoulder_R" }, { "rightUpperArm", "UpperArm_R" }, { "rightLowerArm", "LowerArm_R" },
		{ "rightHand", "Hand_R" },
	};
	detect_and_check_why(rk_t_, &b, map, sizeof(map) / sizeof(map[0]), NULL, 0, "Bandai Namco");
}

/* LAFAN1 (Ubisoft) and Mixamo-named BVH: Mixamo's names with "LeftToe"
 * instead of "LeftToeBase" (LAFAN1) and the "mixamorig:" / "mixamorig_"
 * prefixes Blender's BVH export keeps. Truebones' Biped-style BVH:
 * "Bip01_L_Thigh" ... with underscores. */
RK_TEST(detect_lafan_mixamo_truebones_bvh)
{
	static const char *const prefixes[] = { "", "mixamorig:", "mixamorig_" };
	for (size_t p = 0; p < 3; p++) {
		static tb b;
		memset(&b, 0, sizeof(b));
		const char *x = prefixes[p];
		int hips = tb_add(&b, -1, 'j', "%sHips", x);
		int spine = tb_add(&b, hips, 'j', "%sSpine", x);
		int s1 = tb_add(&b, spine, 'j', "%sSpine1", x);
		int s2 = tb_add(&b, s1, 'j', "%sSpine2", x);
		int neck = tb_add(&b, s2, 'j', "%sNeck", x);
		tb_add(&b, neck, 'j', "%sHead", x);
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "Right" : "Left";
			int ul = tb_add(&b, hips, 'j', "%s%sUpLeg", x, s);
			int ll = tb_add(&b, ul, 'j', "%s%sLeg", x, s);
			int ft = tb_add(&b, ll, 'j', "%s%sFoot", x, s);
			tb_add(&b, ft, 'j', "%s%sToe", x, s);
			int sh = tb_add(&b, s2, 'j', "%s%sShoulder", x, s);
			int ua = tb_add(&b, sh, 'j', "%s%sArm", x, s);
			int la = tb_add(&b, ua, 'j', "%s%sForeArm", x, s);
			tb_add(&b, la, 'j', "%s%sHand", x, s);
		}
		static const char *const map[][2] = {
			{ "hips", "Hips" }, { "spine", "Spine" }, { "chest", "Spine1" }, { "upperChest", "Spine2" },
			{ "neck", "Neck" }, { "head", "Head" },
			{ "leftUpperLeg", "LeftUpLeg" }, { "leftLowerLeg", "LeftLeg" }, { "leftFoot", "LeftFoot" },
			{ "leftToes", "LeftToe" },
			{ "rightUpperLeg", "RightUpLeg" }, { "rightLowerLeg", "RightLeg" }, { "rightFoot", "RightFoot" },
			{ "rightToes", "RightToe" },
			{ "leftShoulder", "LeftShoulder" }, { "leftUpperArm", "LeftArm" }, { "leftLowerArm", "LeftForeArm" },
			{ "leftHand", "LeftHand" },
			{ "rightShoulder", "RightShoulder" }, { "rightUpperArm", "RightArm" }, { "rightLowerArm", "RightForeArm" },
			{ "rightHand", "RightHand" },
		};
		rk_error err;
		rk_scene *s = tb_load(&b, &err);
		RK_REQUIRE(s);
		rk_humanoid h;
		RK_CHECK(rk_humanoid_detect(s, &h, &err));
		check_exact_map(rk_t_, &h, map, sizeof(map) / sizeof(map[0]), x, x[0] ? x : "LAFAN1");
		rk_scene_free(s);
	}
	/* Truebones / Biped with underscores */
	static tb b;
	memset(&b, 0, sizeof(b));
	int root = tb_add(&b, -1, 'j', "Bip01");
	int pelvis = tb_add(&b, root, 'j', "Bip01_Pelvis");
	int spine = tb_add(&b, pelvis, 'j', "Bip01_Spine");
	int s1 = tb_add(&b, spine, 'j', "Bip01_Spine1");
	int neck = tb_add(&b, s1, 'j', "Bip01_Neck");
	tb_add(&b, neck, 'j', "Bip01_Head");
	for (int side = 0; side < 2; side++) {
		char c = side ? 'R' : 'L';
		int th = tb_add(&b, pelvis, 'j', "Bip01_%c_Thigh", c);
		int ca = tb_add(&b, th, 'j', "Bip01_%c_Calf", c);
		int ft = tb_add(&b, ca, 'j', "Bip01_%c_Foot", c);
		tb_add(&b, ft, 'j', "Bip01_%c_Toe0", c);
		int cl = tb_add(&b, neck, 'j', "Bip01_%c_Clavicle", c);
		int ua = tb_add(&b, cl, 'j', "Bip01_%c_UpperArm", c);
		int fa = tb_add(&b, ua, 'j', "Bip01_%c_Forearm", c);
		tb_add(&b, fa, 'j', "Bip01_%c_Hand", c);
	}
	static const char *const biped[][2] = {
		{ "hips", "Bip01_Pelvis" }, { "spine", "Bip01_Spine" }, { "chest", "Bip01_Spine1" }, { "neck", "Bip01_Neck" },
		{ "head", "Bip01_Head" },
		{ "leftUpperLeg", "Bip01_L_Thigh" }, { "leftLowerLeg", "Bip01_L_Calf" }, { "leftFoot", "Bip01_L_Foot" },
		{ "leftToes", "Bip01_L_Toe0" },
		{ "rightUpperLeg", "Bip01_R_Thigh" }, { "rightLowerLeg", "Bip01_R_Calf" }, { "rightFoot", "Bip01_R_Foot" },
		{ "rightToes", "Bip01_R_Toe0" },
		{ "leftShoulder", "Bip01_L_Clavicle" }, { "leftUpperArm", "Bip01_L_UpperArm" },
		{ "leftLowerArm", "Bip01_L_Forearm" }, { "leftHand", "Bip01_L_Hand" },
		{ "rightShoulder", "Bip01_R_Clavicle" }, { "rightUpperArm", "Bip01_R_UpperArm" },
		{ "rightLowerArm", "Bip01_R_Forearm" }, { "rightHand", "Bip01_R_Hand" },
	};
	detect_and_check(rk_t_, &b, biped, sizeof(biped) / sizeof(biped[0]), "Truebones Biped");
}

/* Side from the position: legs and arms named without any side marker
 * ("Thigh", "Shin", "Foot", "Shoulder", "UpperArm", "LowerArm", "Hand" on
 * both sides). A glTF character faces +Z, so its left is +X: the chain at
 * +X is the left one. */
RK_TEST(detect_side_from_position)
{
	static tb b;
	memset(&b, 0, sizeof(b));
	int hips = tb_add(&b, -1, 'j', "Hips");
	tb_at(&b, hips, 0, 1, 0);
	int spine = tb_add(&b, hips, 'j', "Spine");
	tb_at(&b, spine, 0, 0.1, 0);
	int chest = tb_add(&b, spine, 'j', "Chest");
	tb_at(&b, chest, 0, 0.15, 0);
	int neck = tb_add(&b, chest, 'j', "Neck");
	tb_at(&b, neck, 0, 0.25, 0);
	tb_at(&b, tb_add(&b, neck, 'j', "Head"), 0, 0.1, 0);
	for (int side = 0; side < 2; side++) {
		double x = side ? -1.0 : 1.0;
		static const char *const leg[3] = { "Thigh", "Shin", "Foot" };
		static const char *const arm[4] = { "Shoulder", "UpperArm", "LowerArm", "Hand" };
		int p = hips;
		for (int k = 0; k < 3; k++) {
			p = tb_add(&b, p, 'j', "%s", leg[k]);
			tb_at(&b, p, k == 0 ? 0.1 * x : 0.0, k == 0 ? -0.05 : -0.43, 0);
		}
		p = chest;
		for (int k = 0; k < 4; k++) {
			p = tb_add(&b, p, 'j', "%s", arm[k]);
			tb_at(&b, p, (k == 0 ? 0.05 : 0.2) * x, k == 0 ? 0.2 : 0.0, 0);
		}
	}
	rk_error err;
	rk_scene *s = tb_load(&b, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	static rk_humanoid_explanation why;
	bool ok = rk_humanoid_detect_explained(s, &h, &why, &err);
	if (!ok) fprintf(stderr, "side from position: %s\n", err.message);
	RK_CHECK(ok);
	static const rk_humanoid_bone bones[2][7] = {
		{ RK_HUMANOID_LEFT_UPPER_LEG, RK_HUMANOID_LEFT_LOWER_LEG, RK_HUMANOID_LEFT_FOOT, RK_HUMANOID_LEFT_SHOULDER,
			RK_HUMANOID_LEFT_UPPER_ARM, RK_HUMANOID_LEFT_LOWER_ARM, RK_HUMANOID_LEFT_HAND },
		{ RK_HUMANOID_RIGHT_UPPER_LEG, RK_HUMANOID_RIGHT_LOWER_LEG, RK_HUMANOID_RIGHT_FOOT, RK_HUMANOID_RIGHT_SHOULDER,
			RK_HUMANOID_RIGHT_UPPER_ARM, RK_HUMANOID_RIGHT_LOWER_ARM, RK_HUMANOID_RIGHT_HAND },
	};
	static const char *const names[7] = { "Thigh", "Shin", "Foot", "Shoulder", "UpperArm", "LowerArm", "Hand" };
	for (int side = 0; side < 2; side++) {
		for (int k = 0; k < 7; k++) {
			const rk_node *n = h.bones[bones[side][k]];
			double x = n ? rk_mat4_get_translation(n->node_to_world).x : 0.0;
			if (!n || strcmp(n->name, names[k]) != 0 || (side ? x >= 0.0 : x <= 0.0)) {
				fprintf(stderr, "side from position: %s is %s at x = %g\n", rk_humanoid_bone_name(bones[side][k]),
					n ? n->name : "(unmapped)", x);
				rk_t_->failed++;
			}
			RK_CHECK(strstr(why.text[bones[side][k]], side ? "right by its position" : "left by its position") != NULL);
		}
	}
	RK_CHECK_STR(h.bones[RK_HUMANOID_LEFT_UPPER_LEG]->name, "Thigh");
	RK_CHECK(rk_mat4_get_translation(h.bones[RK_HUMANOID_LEFT_HAND]->node_to_world).x > 0.3);
	rk_scene_free(s);
}

/* Long limb chains: with 60 unnamed joints between LeftUpLeg and LeftFoot
 * the hierarchy maps the first as the lower leg; with 70 (past the 64-joint
 * chain limit) the limb is left as the names gave it and detection says
 * which bone is missing, without reading past its buffers. */
RK_TEST(detect_long_limb_chains)
{
	static const int helpers[2] = { 60, 70 };
	for (int v = 0; v < 2; v++) {
		static tb b;
		int arms;
		int hips = build_body(&b, &arms);
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "Right" : "Left";
			int p = tb_add(&b, hips, 'j', "%sUpLeg", s);
			if (side) p = tb_add(&b, p, 'j', "RightLeg");
			else
				for (int k = 0; k < helpers[v]; k++) p = tb_add(&b, p, 'j', "helper%d", k);
			tb_add(&b, p, 'j', "%sFoot", s);
			tb_mixamo_arm(&b, arms, s);
		}
		rk_error err;
		rk_scene *s = tb_load(&b, &err);
		RK_REQUIRE(s);
		rk_humanoid h;
		bool ok = rk_humanoid_detect(s, &h, &err);
		if (v == 0) {
			RK_CHECK(ok);
			RK_CHECK(h.bones[RK_HUMANOID_LEFT_LOWER_LEG] && strcmp(h.bones[RK_HUMANOID_LEFT_LOWER_LEG]->name, "helper0") == 0);
		} else {
			RK_CHECK(!ok);
			RK_CHECK_STR(err.message, "no node found for humanoid bone leftLowerLeg");
		}
		rk_scene_free(s);
	}
}

/* The explanation of a declared humanoid and of the legs-meet hips. */
RK_TEST(explain_reasons)
{
	static tb b;
	int arms;
	memset(&b, 0, sizeof(b));
	int root = tb_add(&b, -1, 'j', "Root");   /* the pelvis, unnamed: where the legs meet */
	int spine = tb_add(&b, root, 'j', "Spine");
	int neck = tb_add(&b, spine, 'j', "Neck");
	tb_add(&b, neck, 'j', "Head");
	arms = spine;
	for (int side = 0; side < 2; side++) {
		const char *s = side ? "Right" : "Left";
		int ul = tb_add(&b, root, 'j', "%sUpLeg", s);
		int ll = tb_add(&b, ul, 'j', "%sLeg", s);
		tb_add(&b, ll, 'j', "%sFoot", s);
		tb_mixamo_arm(&b, arms, s);
	}
	rk_error err;
	rk_scene *s = tb_load(&b, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	static rk_humanoid_explanation why;
	RK_REQUIRE(rk_humanoid_detect_explained(s, &h, &why, &err));
	RK_CHECK_STR(h.bones[RK_HUMANOID_HIPS]->name, "Root");
	RK_CHECK_INT(why.reason[RK_HUMANOID_HIPS], RK_HUMANOID_REASON_HIERARCHY);
	RK_CHECK(strstr(why.text[RK_HUMANOID_HIPS], "where the upper legs \"LeftUpLeg\" and \"RightUpLeg\" meet") != NULL);
	RK_CHECK_STR(rk_humanoid_reason_name(RK_HUMANOID_REASON_NAME), "name");
	RK_CHECK_STR(rk_humanoid_reason_name(RK_HUMANOID_REASON_HIERARCHY), "hierarchy");
	RK_CHECK_STR(rk_humanoid_reason_name(RK_HUMANOID_REASON_DECLARED), "declared");
	RK_CHECK_STR(rk_humanoid_reason_name(RK_HUMANOID_REASON_MAP), "map");
	RK_CHECK_STR(rk_humanoid_reason_name((rk_humanoid_reason)99), "");
	/* declared: every declared bone says so */
	rk_declared_hint hints[RK_HUMANOID_BONE_COUNT];
	size_t n = 0;
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		if (!h.bones[k]) continue;
		hints[n++] = (rk_declared_hint){ "humanoid", rk_humanoid_bone_name((rk_humanoid_bone)k), h.bones[k], "VRMC_vrm" };
	}
	s->hints = (rk_declared_hint_list){ hints, n };
	rk_humanoid h2;
	RK_REQUIRE(rk_humanoid_detect_explained(s, &h2, &why, &err));
	for (int k = 0; k < RK_HUMANOID_BONE_COUNT; k++) {
		if (!h2.bones[k]) continue;
		RK_CHECK_INT(why.reason[k], RK_HUMANOID_REASON_DECLARED);
		RK_CHECK_STR(why.text[k], "declared by the file (VRMC_vrm)");
	}
	s->hints = (rk_declared_hint_list){ NULL, 0 };
	rk_scene_free(s);
}

/* ---- set / validate / parent ------------------------------------------------------------ */

RK_TEST(set_validate_errors)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	const rk_humanoid good = h;

	/* unknown node name: false, bone unchanged */
	RK_CHECK(!rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_HAND, "mixamorig:NoSuchBone", &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "mixamorig:NoSuchBone") != NULL);
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == good.bones[RK_HUMANOID_LEFT_HAND]);
	/* exact names only */
	RK_CHECK(!rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_HAND, "LeftHand", &err));
	RK_CHECK(!rk_humanoid_set(&h, s, RK_HUMANOID_BONE_COUNT, "mixamorig:LeftHand", &err));
	RK_CHECK(!rk_humanoid_set(NULL, s, RK_HUMANOID_LEFT_HAND, "mixamorig:LeftHand", &err));
	RK_CHECK(!rk_humanoid_set(&h, NULL, RK_HUMANOID_LEFT_HAND, "mixamorig:LeftHand", &err));

	/* a required bone cleared */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_HAND, NULL, &err));
	RK_CHECK_INT(err.code, RK_OK);
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == NULL);
	RK_CHECK(!rk_humanoid_validate(&h, s, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "leftHand") != NULL);
	/* the fingers now hang from the lower arm */
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_LEFT_INDEX_PROXIMAL), RK_HUMANOID_LEFT_LOWER_ARM);

	/* back by name */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_HAND, "mixamorig:LeftHand", &err));
	RK_CHECK(rk_humanoid_validate(&h, s, &err));
	RK_CHECK_INT(err.code, RK_OK);
	RK_CHECK(memcmp(&h, &good, sizeof(h)) == 0);

	/* one node for two bones */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_HAND, "mixamorig:RightHand", &err));
	RK_CHECK(!rk_humanoid_validate(&h, s, &err));
	RK_CHECK(strstr(err.message, "mixamorig:RightHand") != NULL);
	RK_CHECK(strstr(err.message, "two") != NULL);
	h = good;

	/* a bone whose node is not below its humanoid parent's node */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_HAND, "mixamorig:HeadTop_End", &err));
	RK_CHECK(!rk_humanoid_validate(&h, s, &err));
	RK_CHECK(strstr(err.message, "leftHand") != NULL);
	RK_CHECK(strstr(err.message, "leftLowerArm") != NULL);
	h = good;
	/* ... also when a finger is not below the hand */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_INDEX_DISTAL, "mixamorig:LeftHandMiddle3", &err));
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_MIDDLE_DISTAL, "", &err));
	RK_CHECK(!rk_humanoid_validate(&h, s, &err));
	RK_CHECK(strstr(err.message, "leftIndexDistal") != NULL);
	h = good;

	/* optional bones may be cleared; the nearest mapped ancestor takes over */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_LEFT_SHOULDER, "", &err));
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_UPPER_CHEST, NULL, &err));
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_LEFT_UPPER_ARM), RK_HUMANOID_CHEST);
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_NECK), RK_HUMANOID_CHEST);
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_RIGHT_UPPER_ARM), RK_HUMANOID_RIGHT_SHOULDER);
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_HIPS), -1);
	RK_CHECK_INT(rk_humanoid_parent(&h, RK_HUMANOID_BONE_COUNT), -1);
	RK_CHECK_INT(rk_humanoid_parent(NULL, RK_HUMANOID_SPINE), -1);
	RK_CHECK(rk_humanoid_validate(&h, s, &err));
	/* ... but a required one may not */
	RK_CHECK(rk_humanoid_set(&h, s, RK_HUMANOID_SPINE, "", &err));
	RK_CHECK(!rk_humanoid_validate(&h, s, &err));
	RK_CHECK(strstr(err.message, "spine") != NULL);

	/* bad arguments */
	RK_CHECK(!rk_humanoid_validate(NULL, s, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_humanoid_validate(&good, NULL, &err));
	RK_CHECK(!rk_humanoid_detect(NULL, &h, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_humanoid_detect(s, NULL, &err));
	RK_CHECK(rk_humanoid_detect(s, &h, NULL));   /* err may be NULL */
	/* a node that is not one of the scene's */
	rk_node stray = *s->nodes.data[2].parent;
	h = good;
	h.bones[RK_HUMANOID_JAW] = &stray;
	RK_CHECK(!rk_humanoid_validate(&h, s, &err));
	RK_CHECK(strstr(err.message, "jaw") != NULL);
	rk_scene_free(s);
}

/* ---- map files (rk_humanoid_map_apply) and declared hints -------------------------------- */

RK_TEST(map_file_lines)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	const rk_humanoid good = h;
	/* comments, blank lines, CRLF, spaces around both names, case-insensitive
	 * bone names, 'bone =' unmaps */
	const char text[] = "# corrections\r\n\n  LEFTHAND =  mixamorig:LeftForeArm \r\nneck =\n\t# done";
	RK_REQUIRE(rk_humanoid_map_apply(&h, s, text, sizeof(text) - 1, "m.txt", &err));
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == rk_scene_find_node(s, "mixamorig:LeftForeArm"));
	RK_CHECK(h.bones[RK_HUMANOID_NECK] == NULL);
	RK_CHECK(h.bones[RK_HUMANOID_HEAD] == good.bones[RK_HUMANOID_HEAD]);
	/* empty text is a valid (empty) map */
	RK_CHECK(rk_humanoid_map_apply(&h, s, "", 0, NULL, &err));

	/* errors name the file and the 1-based line; earlier lines stay applied */
	h = good;
	const char bad_bone[] = "neck =\n\nnotABone = mixamorig:Hips\n";
	RK_CHECK(!rk_humanoid_map_apply(&h, s, bad_bone, sizeof(bad_bone) - 1, "m.txt", &err));
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK((err.location & RK_LOCATION_LINE) && err.line == 3);
	RK_CHECK_STR(err.file, "m.txt");
	RK_CHECK(strstr(err.message, "notABone") != NULL);
	RK_CHECK(h.bones[RK_HUMANOID_NECK] == NULL);
	const char no_eq[] = "hips mixamorig:Hips";
	RK_CHECK(!rk_humanoid_map_apply(&h, s, no_eq, sizeof(no_eq) - 1, "m.txt", &err));
	RK_CHECK(err.line == 1 && err.code == RK_ERROR_CORRUPT);
	const char no_key[] = "\n = mixamorig:Hips";
	RK_CHECK(!rk_humanoid_map_apply(&h, s, no_key, sizeof(no_key) - 1, "m.txt", &err));
	RK_CHECK(err.line == 2);
	const char no_node[] = "hips = NoSuchNode";
	RK_CHECK(!rk_humanoid_map_apply(&h, s, no_node, sizeof(no_node) - 1, "m.txt", &err));
	RK_CHECK(err.line == 1 && strstr(err.message, "NoSuchNode") != NULL);
	/* a node name longer than any node's: refused, no overflow */
	char longline[2100];
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "hips = ", 7);
	RK_CHECK(!rk_humanoid_map_apply(&h, s, longline, sizeof(longline), "m.txt", &err));
	RK_CHECK(err.line == 1);
	/* bad arguments */
	RK_CHECK(!rk_humanoid_map_apply(NULL, s, "", 0, NULL, &err));
	RK_CHECK(!rk_humanoid_map_apply(&h, NULL, "", 0, NULL, &err));
	RK_CHECK(!rk_humanoid_map_apply(&h, s, NULL, 3, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_humanoid_map_apply_file(&h, s, "/nonexistent/map.txt", &err));
	RK_CHECK_INT(err.code, RK_ERROR_IO);

	/* every prefix and single-byte corruption of a valid map: each call
	 * either succeeds or fails with a line inside the text; the text is
	 * read only within its length (the copies are exact-size heap blocks) */
	const char map[] = "# map\nhips = mixamorig:Hips\nleftHand = mixamorig:LeftHand\nneck =\nhead = mixamorig:Head\n";
	const size_t n = sizeof(map) - 1;
	size_t lines = 6;
	for (size_t len = 0; len <= n; len++) {
		char *copy = (char *)malloc(len ? len : 1);
		RK_REQUIRE(copy);
		memcpy(copy, map, len);
		h = good;
		bool ok = rk_humanoid_map_apply(&h, s, copy, len, "p.txt", &err);
		if (!ok) RK_CHECK(err.line >= 1 && err.line <= lines && err.message[0]);
		for (size_t k = 0; k < len; k++) {
			char saved = copy[k];
			copy[k] = (char)(saved ^ 0x5a);
			h = good;
			if (!rk_humanoid_map_apply(&h, s, copy, len, "p.txt", &err))
				RK_CHECK(err.line >= 1 && err.line <= lines && err.message[0]);
			copy[k] = saved;
		}
		free(copy);
	}
	rk_scene_free(s);
}

/* A humanoid the file declares (scene->hints) wins over name matching when
 * it is valid, and is ignored when it is not. */
RK_TEST(declared_hints)
{
	rk_error err;
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	rk_humanoid byname;
	RK_REQUIRE(rk_humanoid_detect(s, &byname, &err));
	RK_REQUIRE(byname.bones[RK_HUMANOID_NECK] && byname.bones[RK_HUMANOID_HEAD]);
	/* declare everything name matching found, but no neck and the head on
	 * the neck's node: a different, still valid humanoid */
	rk_declared_hint hints[RK_HUMANOID_BONE_COUNT];
	size_t count = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *node = byname.bones[b];
		if (!node || b == RK_HUMANOID_NECK) continue;
		if (b == RK_HUMANOID_HEAD) node = byname.bones[RK_HUMANOID_NECK];
		hints[count++] = (rk_declared_hint){ "humanoid", rk_humanoid_bone_name((rk_humanoid_bone)b), node, "test" };
	}
	s->hints = (rk_declared_hint_list){ hints, count };
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	RK_CHECK(h.bones[RK_HUMANOID_NECK] == NULL);
	RK_CHECK(h.bones[RK_HUMANOID_HEAD] == byname.bones[RK_HUMANOID_NECK]);
	RK_CHECK(h.bones[RK_HUMANOID_LEFT_HAND] == byname.bones[RK_HUMANOID_LEFT_HAND]);

	/* an invalid declaration (the left hand above the left upper arm) is
	 * ignored: name matching again */
	for (size_t i = 0; i < count; i++)
		if (strcmp(hints[i].key, "leftHand") == 0) hints[i].node = byname.bones[RK_HUMANOID_HIPS];
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	RK_CHECK(memcmp(&h, &byname, sizeof(h)) == 0);
	/* other schemes and unknown keys are not humanoid declarations */
	for (size_t i = 0; i < count; i++) hints[i].scheme = "other";
	RK_REQUIRE(rk_humanoid_detect(s, &h, &err));
	RK_CHECK(memcmp(&h, &byname, sizeof(h)) == 0);
	s->hints = (rk_declared_hint_list){ NULL, 0 };
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(bone_names_parents_required),
	RK_TEST_ENTRY(detect_sample_characters),
	RK_TEST_ENTRY(detect_shared_assets),
	RK_TEST_ENTRY(detect_unreal),
	RK_TEST_ENTRY(detect_biped),
	RK_TEST_ENTRY(detect_vroid),
	RK_TEST_ENTRY(detect_rigify),
	RK_TEST_ENTRY(detect_character_creator),
	RK_TEST_ENTRY(detect_mixamo_prefixes),
	RK_TEST_ENTRY(detect_side_markers_and_root_pelvis),
	RK_TEST_ENTRY(detect_ambiguity),
	RK_TEST_ENTRY(detect_structure_decides),
	RK_TEST_ENTRY(detect_daz_genesis),
	RK_TEST_ENTRY(detect_daz_genesis2),
	RK_TEST_ENTRY(detect_upper_glued_sides),
	RK_TEST_ENTRY(detect_glued_side_false_positives),
	RK_TEST_ENTRY(detect_blender_duplicates),
	RK_TEST_ENTRY(detect_cmu_bvh),
	RK_TEST_ENTRY(detect_names_that_lie),
	RK_TEST_ENTRY(detect_biovision_bvh),
	RK_TEST_ENTRY(detect_biovision_shoulder_is_upper_arm),
	RK_TEST_ENTRY(detect_bandai_namco_bvh),
	RK_TEST_ENTRY(detect_lafan_mixamo_truebones_bvh),
	RK_TEST_ENTRY(detect_side_from_position),
	RK_TEST_ENTRY(detect_long_limb_chains),
	RK_TEST_ENTRY(explain_reasons),
	RK_TEST_ENTRY(set_validate_errors),
	RK_TEST_ENTRY(map_file_lines),
	RK_TEST_ENTRY(declared_hints)
)
