/* tests/test_bvh.c - the BVH reader (src/formats/bvh): hand-derived joint
 * positions, rotation orders, units, leniency, and bad input: every error
 * names the file and line, every prefix and byte flip fails cleanly,
 * allocation failures leak nothing, and a claimed frame count the bytes do
 * not hold is refused before anything is allocated. The writer
 * (src/export/bvh): round trips through the reader, options, End Sites,
 * continuous angles, bad arguments. The same fixtures and written files are
 * checked against three.js BVHLoader (tests/test_bvh_threejs.sh) and
 * Blender (tests/test_bvh_blender.sh). */
#include "rk_test.h"

#include <rigkit/anim.h>
#include <rigkit/demo.h>
#include <rigkit/export.h>
#include <rigkit/humanoid.h>
#include <rigkit/load.h>

#include <stdlib.h>
#include <string.h>

#define FIXTURES RK_SOURCE_DIR "/tests/fixtures/bvh/"

static rk_scene *load_text(const char *text, const char *name, const rk_load_opts *base, rk_error *err)
{
	rk_load_opts o = base ? *base : (rk_load_opts){ 0 };
	o.filename = name;
	return rk_load_memory(text, strlen(text), &o, err);
}

/* World position of node `name` at time t of `clip` (static scene when t < 0). */
static bool world_at_clip(const rk_scene *s, const rk_anim_clip *clip, const char *name, double t, rk_vec3 *out)
{
	const rk_node *n = rk_scene_find_node(s, name);
	if (!n) return false;
	size_t bytes = rk_pose_memory_size(s);
	void *mem = malloc(bytes);
	rk_pose pose;
	bool ok = mem && rk_pose_init(&pose, s, mem, bytes);
	if (ok) {
		rk_pose_eval_job job = { .scene = s, .clip = t >= 0.0 ? clip : NULL, .time = t < 0.0 ? 0.0 : t, .pose = &pose };
		ok = rk_pose_eval_run(&job);
		if (ok) *out = rk_mat4_get_translation(pose.node_to_world[n->index]);
	}
	free(mem);
	return ok;
}

/* As world_at_clip, the scene's first clip. */
static bool world_at(const rk_scene *s, const char *name, double t, rk_vec3 *out)
{
	return world_at_clip(s, s->clips.count ? &s->clips.data[0] : NULL, name, t, out);
}

#define CHECK_POS(s, name, t, ex, ey, ez) do { rk_vec3 p_ = { 0, 0, 0 }; \
	RK_CHECK(world_at((s), (name), (t), &p_)); \
	RK_CHECK_NEAR(p_.x, (ex), 1e-9); RK_CHECK_NEAR(p_.y, (ey), 1e-9); RK_CHECK_NEAR(p_.z, (ez), 1e-9); } while (0)

static const char *const two_joints =
	"HIERARCHY\n"
	"ROOT A\n"
	"{\n"
	"\tOFFSET 1 2 3\n"
	"\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
	"\tJOINT B\n"
	"\t{\n"
	"\t\tOFFSET 0 10 0\n"
	"\t\tCHANNELS 3 Xrotation Yrotation Zrotation\n"
	"\t\tEnd Site\n"
	"\t\t{\n"
	"\t\t\tOFFSET 0 5 0\n"
	"\t\t}\n"
	"\t}\n"
	"}\n"
	"MOTION\n"
	"Frames: 2\n"
	"Frame Time: 0.04\n"
	"10 20 30 90 0 0 90 0 0\n"
	"0 0 0 0 0 0 0 0 0\n";

/* Hand-derived: translation = OFFSET + position channels; R = Rz * Rx * Ry
 * for "Zrotation Xrotation Yrotation" (channels left to right). */
RK_TEST(hand_derived_positions)
{
	rk_error err;
	rk_scene *s = load_text(two_joints, "dir/two.bvh", NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->settings.format, RK_FORMAT_BVH);
	RK_CHECK_STR(rk_format_name(s->settings.format), "bvh");
	RK_CHECK_NEAR(s->settings.unit_meters, 0.01, 0);
	RK_CHECK_NEAR(s->settings.frame_rate, 25.0, 1e-12);
	RK_CHECK(rk_axes_equal(s->settings.axes, RK_AXES_RIGHT_HANDED_Y_UP));
	RK_CHECK_INT(s->nodes.count, 4);
	RK_REQUIRE(s->clips.count == 1);
	RK_CHECK_STR(s->clips.data[0].name, "two");
	RK_CHECK_NEAR(s->clips.data[0].time_end, 0.04, 0);
	RK_CHECK_INT(s->clips.data[0].layers[0].track_count, 3);
	const rk_node *a = rk_scene_find_node(s, "A"), *b = rk_scene_find_node(s, "B"), *e = rk_scene_find_node(s, "B_End");
	RK_REQUIRE(a && b && e);
	RK_CHECK_INT(a->props.rotation_order, RK_ROTATION_YXZ);  /* applied Y first: R = Rz Rx Ry */
	RK_CHECK_INT(b->props.rotation_order, RK_ROTATION_ZYX);  /* R = Rx Ry Rz */
	RK_CHECK_STR(e->attribute_type, "End Site");
	RK_CHECK(e->parent == b && b->parent == a && a->parent == s->root);
	/* static scene: the OFFSETs, no rotation */
	CHECK_POS(s, "A", -1, 1, 2, 3);
	CHECK_POS(s, "B", -1, 1, 12, 3);
	CHECK_POS(s, "B_End", -1, 1, 17, 3);
	/* frame 0: A at (1+10, 2+20, 3+30) turned 90 deg about Z (+Y -> -X); B
	 * turned 90 deg about X (+Y -> +Z) */
	CHECK_POS(s, "A", 0.0, 11, 22, 33);
	CHECK_POS(s, "B", 0.0, 1, 22, 33);
	CHECK_POS(s, "B_End", 0.0, 1, 22, 38);
	/* frame 1: all zero */
	CHECK_POS(s, "A", 0.04, 1, 2, 3);
	CHECK_POS(s, "B_End", 0.04, 1, 17, 3);
	/* halfway: each channel linear (A rotated 45 deg about Z) */
	double h = 10.0 * sqrt(0.5);
	CHECK_POS(s, "B", 0.02, 6 - h, 12 + h, 18);
	rk_scene_free(s);
}

/* A ROOT with OFFSET 0 and position channels (CMU style) rests where its
 * first frame puts it; with a non-zero OFFSET (above) it rests at the OFFSET. */
RK_TEST(root_rest_at_first_frame)
{
	static const char *const text =
		"HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
		"JOINT Leg\n{\nOFFSET 0 -90 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 -5 0\n}\n}\n}\n"
		"MOTION\nFrames: 2\nFrame Time: 0.1\n3 95 4 10 0 0 0 0 0\n3 96 14 0 0 0 0 0 0\n";
	rk_error err;
	rk_scene *s = load_text(text, "cmu.bvh", NULL, &err);
	RK_REQUIRE(s);
	CHECK_POS(s, "Hips", -1, 3, 95, 4);      /* static: frame 0's position, rotation 0 */
	CHECK_POS(s, "Leg_End", -1, 3, 0, 4);
	CHECK_POS(s, "Hips", 0.1, 3, 96, 14);    /* the motion itself is unchanged */
	rk_load_opts o = { .ignore_animation = true };
	rk_scene *t = load_text(text, "cmu.bvh", &o, &err);
	RK_REQUIRE(t);
	CHECK_POS(t, "Hips", -1, 3, 95, 4);      /* the same rest without the clip */
	rk_scene_free(t);
	rk_scene_free(s);
}

/* The channel order decides the matrix order: Z 90 then Y 90 on a child at +X. */
RK_TEST(channel_order_matters)
{
	static const char *const fmt_text =
		"HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 2 %s %s\nJOINT C\n{\nOFFSET 1 0 0\nCHANNELS 0\n"
		"End Site\n{\nOFFSET 1 0 0\n}\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n90 90\n";
	char text[512];
	rk_error err;
	snprintf(text, sizeof(text), fmt_text, "Zrotation", "Yrotation");
	rk_scene *s = load_text(text, "zy.bvh", NULL, &err);
	RK_REQUIRE(s);
	CHECK_POS(s, "C", 0.0, 0, 0, -1);   /* Rz(90) Ry(90) (1,0,0): Ry first -> (0,0,-1) */
	rk_scene_free(s);
	snprintf(text, sizeof(text), fmt_text, "Yrotation", "Zrotation");
	s = load_text(text, "yz.bvh", NULL, &err);
	RK_REQUIRE(s);
	CHECK_POS(s, "C", 0.0, 0, 1, 0);    /* Ry(90) Rz(90) (1,0,0): Rz first -> (0,1,0) */
	rk_scene_free(s);
}

RK_TEST(units_and_options)
{
	rk_error err;
	rk_load_opts o = { .target_unit_meters = 1.0 };
	rk_scene *s = load_text(two_joints, "two.bvh", &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_NEAR(s->settings.unit_meters, 1.0, 0);
	RK_CHECK_NEAR(s->settings.original_unit_meters, 0.01, 0);
	CHECK_POS(s, "A", 0.0, 0.11, 0.22, 0.33);
	rk_scene_free(s);
	o = (rk_load_opts){ .source_unit_meters = 0.0254, .target_unit_meters = 1.0 };
	s = load_text(two_joints, "two.bvh", &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_NEAR(s->settings.original_unit_meters, 0.0254, 0);
	CHECK_POS(s, "B", -1, 0.0254, 12 * 0.0254, 3 * 0.0254);
	rk_scene_free(s);
	o = (rk_load_opts){ .ignore_animation = true };
	s = load_text(two_joints, "two.bvh", &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->clips.count, 0);
	RK_CHECK_INT(s->nodes.count, 4);
	rk_scene_free(s);
	/* memory: the clip name falls back to "motion" */
	s = rk_load_memory(two_joints, strlen(two_joints), NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK_STR(s->clips.data[0].name, "motion");
	rk_scene_free(s);
	RK_CHECK_INT(rk_format_detect(two_joints, strlen(two_joints)), RK_FORMAT_BVH);
	RK_CHECK_INT(rk_format_detect("\xEF\xBB\xBF  hierarchy\r\n", 16), RK_FORMAT_BVH);
	RK_CHECK_INT(rk_format_detect("HIERARCHYX", 10), RK_FORMAT_UNKNOWN);
}

/* Layout freedom the grammar allows: braces against words, CHANNELS before
 * OFFSET, several ROOTs, "Frames :" with a separate colon, names with
 * spaces, CR-only line ends, a named End Site, no MOTION. */
RK_TEST(lenient_layout)
{
	static const char *const text =
		"hierarchy\rROOT Left Hip{\rCHANNELS 3 Xrotation Yrotation Zrotation\rOFFSET 0 1 0\r"
		"End Site Tip\r{\rOFFSET 0 2 0\r}\r}\r"
		"ROOT Other\r{ OFFSET 5 0 0 CHANNELS 1 Xposition }\r"
		"Motion\rFrames : 1\rFrame Time : 0.5\r0 0 0 7\r";
	rk_error err;
	rk_scene *s = load_text(text, "lenient.bvh", NULL, &err);
	if (!s) fprintf(stderr, "%s (line %llu)\n", err.message, (unsigned long long)err.line);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->nodes.count, 4);
	RK_CHECK(rk_scene_find_node(s, "Left Hip") != NULL);
	RK_CHECK(rk_scene_find_node(s, "Tip") != NULL);
	CHECK_POS(s, "Other", 0.0, 12, 0, 0);
	RK_CHECK_INT(s->warnings.count, 0);
	rk_scene_free(s);
	static const char *const no_motion = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\n";
	s = load_text(no_motion, "pose.bvh", NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->clips.count, 0);
	RK_CHECK_INT(s->warnings.count, 1);
	rk_scene_free(s);
}

RK_TEST(absolute_positions)
{
	static const char *const text =
		"HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\nJOINT B\n{\nOFFSET 0 10 0\n"
		"CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\n"
		"MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 10 0 0 0 0\n";
	rk_error err;
	/* AUTO: B repeats its OFFSET, nothing looks additive: absolute (Blender) */
	rk_scene *s = load_text(text, "abs.bvh", NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->warnings.count, 1);
	if (s->warnings.count) RK_CHECK(strstr(s->warnings.data[0].message, "read as absolute") != NULL);
	CHECK_POS(s, "B", 0.0, 0, 10, 0);
	CHECK_POS(s, "B_End", 0.0, 0, 11, 0);
	rk_scene_free(s);
	/* forced: OFFSET + channel, as three.js */
	rk_load_opts o = { .bvh_positions = RK_BVH_POSITIONS_ADD_OFFSET };
	s = load_text(text, "abs.bvh", &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->warnings.count, 0);
	CHECK_POS(s, "B", 0.0, 0, 20, 0);
	rk_scene_free(s);
	/* forced absolute: the root's missing axes are 0 (Blender) */
	static const char *const root_y =
		"HIERARCHY\nROOT A\n{\nOFFSET 1 2 3\nCHANNELS 1 Yposition\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n"
		"MOTION\nFrames: 1\nFrame Time: 0.1\n7\n";
	o.bvh_positions = RK_BVH_POSITIONS_ABSOLUTE;
	s = load_text(root_y, "y.bvh", &o, &err);
	RK_REQUIRE(s);
	CHECK_POS(s, "A", 0.0, 0, 7, 0);
	rk_scene_free(s);
	/* AUTO with more additive joints than absolute ones stays additive, warned */
	static const char *const mixed =
		"HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n"
		"JOINT B\n{\nOFFSET 0 10 0\nCHANNELS 1 Yposition\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n"
		"JOINT C\n{\nOFFSET 5 0 0\nCHANNELS 1 Xposition\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n"
		"JOINT D\n{\nOFFSET 0 0 4\nCHANNELS 1 Zposition\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\n"
		"MOTION\nFrames: 1\nFrame Time: 0.1\n10 0 0\n";
	s = load_text(mixed, "mixed.bvh", NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->warnings.count, 1);
	if (s->warnings.count) RK_CHECK(strstr(s->warnings.data[0].message, "added to the OFFSET") != NULL);
	CHECK_POS(s, "B", 0.0, 0, 20, 0);
	CHECK_POS(s, "C", 0.0, 5, 0, 0);
	rk_scene_free(s);
}

typedef struct bad_case {
	const char *name;
	const char *text;
	rk_error_code code;
	uint64_t line;
	const char *says;
} bad_case;

#define HEAD "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n"
#define TAIL "End Site\n{\nOFFSET 0 1 0\n}\n}\n"
#define MOTION2 "MOTION\nFrames: 2\nFrame Time: 0.1\n"

static const bad_case bad_cases[] = {
	{ "empty", "", RK_ERROR_UNKNOWN_FORMAT, 0, NULL },
	{ "only HIERARCHY", "HIERARCHY\n", RK_ERROR_TRUNCATED, 2, "expected ROOT" },
	{ "no brace", "HIERARCHY\nROOT A\nOFFSET 0 0 0\n", RK_ERROR_CORRUPT, 3, "expected '{'" },
	{ "no name", "HIERARCHY\nROOT\n{\n", RK_ERROR_CORRUPT, 2, "joint name" },
	{ "cut in joint", HEAD, RK_ERROR_TRUNCATED, 6, "in joint 'A'" },
	{ "cut in offset", "HIERARCHY\nROOT A\n{\nOFFSET 0 0", RK_ERROR_TRUNCATED, 4, "OFFSET x y z" },
	{ "word in offset", "HIERARCHY\nROOT A\n{\nOFFSET 0 x 0\n", RK_ERROR_CORRUPT, 4, "got 'x'" },
	{ "huge offset", "HIERARCHY\nROOT A\n{\nOFFSET 0 1e999 0\n", RK_ERROR_CORRUPT, 4, "finite" },
	{ "fewer channel names", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation\n" TAIL,
		RK_ERROR_CORRUPT, 6, "channel name 3 of 3" },
	{ "more channel names", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation Yrotation Zrotation\n" TAIL,
		RK_ERROR_CORRUPT, 5, "more channel names" },
	{ "seven channels", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 7\n", RK_ERROR_CORRUPT, 5, "at most 6" },
	{ "scale channel", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xscale\n", RK_ERROR_CORRUPT, 5, "got 'Xscale'" },
	{ "twice", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation Xrotation\n", RK_ERROR_CORRUPT, 5, "twice" },
	{ "end site channels", HEAD "End Site\n{\nOFFSET 0 1 0\nCHANNELS 1 Xrotation\n", RK_ERROR_CORRUPT, 9, "End Site" },
	{ "end site child", HEAD "End Site\n{\nOFFSET 0 1 0\nJOINT B\n", RK_ERROR_CORRUPT, 9, "expected OFFSET or '}'" },
	{ "no offset", "HIERARCHY\nROOT A\n{\nCHANNELS 0\n}\nMOTION\n", RK_ERROR_CORRUPT, 5, "no OFFSET" },
	{ "End without Site", HEAD "End Sight\n", RK_ERROR_CORRUPT, 6, "'Site'" },
	{ "junk keyword", HEAD "SCALE 1 1 1\n", RK_ERROR_CORRUPT, 6, "got 'SCALE'" },
	{ "no Frames", HEAD TAIL "MOTION\nFrame Time: 0.1\n", RK_ERROR_CORRUPT, 12, "'Frames:'" },
	{ "bad count", HEAD TAIL "MOTION\nFrames: -2\n", RK_ERROR_CORRUPT, 12, "number of frames" },
	{ "no Frame Time", HEAD TAIL "MOTION\nFrames: 2\n0 0 0\n", RK_ERROR_CORRUPT, 13, "'Frame Time:'" },
	{ "zero frame time", HEAD TAIL "MOTION\nFrames: 2\nFrame Time: 0\n0 0 0\n0 0 0\n", RK_ERROR_CORRUPT, 13, "positive" },
	{ "frames cut", HEAD TAIL MOTION2 "0 0 0\n\n\n\n\n\n", RK_ERROR_TRUNCATED, 20, "after 1 of the 2 frames" },
	{ "frame short", HEAD TAIL MOTION2 "0 0\n0 0 0\n", RK_ERROR_CORRUPT, 14, "has 2 values, expected 3" },
	{ "frame long", HEAD TAIL MOTION2 "0 0 0 0\n0 0 0\n", RK_ERROR_CORRUPT, 14, "more than 3 values" },
	{ "last frame short", HEAD TAIL MOTION2 "0 0 0\n0 0    ", RK_ERROR_TRUNCATED, 15, "has 2 values" },
	{ "nan", HEAD TAIL MOTION2 "0 nan 0\n0 0 0\n", RK_ERROR_CORRUPT, 14, "got 'nan'" },
	{ "msvc inf", HEAD TAIL MOTION2 "0 -1.#IND 0\n0 0 0\n", RK_ERROR_CORRUPT, 14, "got '-1.#IND'" },
	{ "comma decimal", HEAD TAIL MOTION2 "0 1,5 0\n0 0 0\n", RK_ERROR_CORRUPT, 14, "got '1,5'" },
	{ "1e7 frames", HEAD TAIL "MOTION\nFrames: 10000000\nFrame Time: 0.1\n0 0 0\n", RK_ERROR_TRUNCATED, 12,
		"needs at least" },
	{ "2^64 frames", HEAD TAIL "MOTION\nFrames: 99999999999999999999999\n", RK_ERROR_CORRUPT, 12, "number of frames" },
};

RK_TEST(bad_input_errors)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const bad_case *c = &bad_cases[i];
		rk_error err;
		rk_scene *s = load_text(c->text, "bad.bvh", NULL, &err);
		RK_CHECK(s == NULL);
		rk_scene_free(s);
		bool ok = err.code == c->code && strcmp(err.file, "bad.bvh") == 0;
		if (c->line) ok = ok && (err.location & RK_LOCATION_LINE) && err.line == c->line && (err.location & RK_LOCATION_BYTE);
		if (c->says) ok = ok && strstr(err.message, c->says) != NULL;
		if (!ok) {
			char msg[1024];
			rk_error_format(msg, sizeof(msg), &err);
			fprintf(stderr, "case '%s': got code %d line %llu: %s (want code %d, line %llu, \"%s\")\n", c->name, (int)err.code,
				(unsigned long long)err.line, msg, (int)c->code, (unsigned long long)c->line, c->says ? c->says : "");
			RK_CHECK(false);
		}
	}
}

static double max_joint_distance(const rk_scene *a, const rk_anim_clip *a_clip, const rk_scene *b, double fps, size_t frames,
	size_t *compared);

/* ---- memory ----------------------------------------------------------------- */

/* A frame count the file cannot hold is refused before the values are
 * allocated: the peak stays that of a tiny file. */
RK_TEST(claimed_frames_bounded)
{
	static const char *const text = HEAD TAIL "MOTION\nFrames: 10000000\nFrame Time: 0.0083333\n1 2 3\n4 5 6\n";
	rk_test_alloc c = { .fail_after = SIZE_MAX };
	rk_load_opts o = { .allocator = { rk_test_alloc_fn, rk_test_free_fn, &c }, .filename = "claim.bvh" };
	rk_error err;
	rk_scene *s = rk_load_memory(text, strlen(text), &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_TRUNCATED);
	RK_CHECK(c.peak < 256 * 1024);
	RK_CHECK_INT(c.live, 0);
	/* zero channels: the frames carry nothing and nothing is allocated for them */
	static const char *const none = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 10000000\nFrame Time: 0.01\n";
	c = (rk_test_alloc){ .fail_after = SIZE_MAX };
	s = rk_load_memory(none, strlen(none), &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(s->clips.count, 0);
	RK_CHECK_INT(s->warnings.count, 1);
	RK_CHECK(c.peak < 256 * 1024);
	rk_scene_free(s);
}

static unsigned char *read_fixture(const char *name, size_t *size)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", FIXTURES, name);
	return rk_test_read_file(path, size);
}

static const char *const fixtures[] = {
	"orders.bvh", "six_channels.bvh", "subsets.bvh", "mixamo_walk.bvh", "cmu_walk.bvh", "bandai_walk.bvh",
	"poser_walk.bvh",
};

RK_TEST(fixtures_load)
{
	static const size_t nodes[] = { 9, 12, 9, 28, 30, 29, 26 };
	static const size_t frames[] = { 12, 15, 9, 31, 31, 31, 31 };
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		size_t size;
		unsigned char *d = read_fixture(fixtures[i], &size);
		RK_REQUIRE(d);
		rk_error err;
		rk_load_opts o = { .filename = fixtures[i] };
		rk_scene *s = rk_load_memory(d, size, &o, &err);
		if (!s) fprintf(stderr, "%s: %s (line %llu)\n", fixtures[i], err.message, (unsigned long long)err.line);
		RK_REQUIRE(s);
		RK_CHECK_INT(s->nodes.count, nodes[i]);
		RK_CHECK_INT(s->warnings.count, 0);
		RK_REQUIRE(s->clips.count == 1);
		const rk_anim_track *t = &s->clips.data[0].layers[0].tracks[0];
		RK_CHECK_INT(t->curves[0] ? t->curves[0]->key_count : t->curves[1] ? t->curves[1]->key_count : t->curves[2]->key_count,
			frames[i]);
		rk_scene_free(s);
		free(d);
	}
}

static const rk_node *find_node(const rk_scene *s, const char *name)
{
	for (size_t i = 0; i < s->nodes.count; i++)
		if (s->nodes.data[i].name && strcmp(s->nodes.data[i].name, name) == 0) return &s->nodes.data[i];
	return NULL;
}

/* Poser's naming (as in public BVH files such as three.js's pirouette.bvh):
 * lower-case names with a glued l/r side letter, "buttock" joints between
 * hip and thigh, no head joint (the neck ends in an End Site), no toes. The
 * expected map is read off the hierarchy by hand. */
RK_TEST(poser_names_detected)
{
	size_t size;
	unsigned char *d = read_fixture("poser_walk.bvh", &size);
	RK_REQUIRE(d);
	rk_error err;
	rk_scene *s = rk_load_memory(d, size, NULL, &err);
	RK_REQUIRE(s);
	rk_humanoid h;
	rk_humanoid_explanation why;
	RK_REQUIRE(rk_humanoid_detect_explained(s, &h, &why, &err));
	static const char *const map[][2] = {
		{ "hips", "hip" }, { "spine", "abdomen" }, { "chest", "chest" }, { "neck", "neck" }, { "head", "neck_End" },
		{ "leftShoulder", "lcollar" }, { "leftUpperArm", "lshldr" }, { "leftLowerArm", "lforearm" },
		{ "leftHand", "lhand" }, { "rightShoulder", "rcollar" }, { "rightUpperArm", "rshldr" },
		{ "rightLowerArm", "rforearm" }, { "rightHand", "rhand" }, { "leftUpperLeg", "lthigh" },
		{ "leftLowerLeg", "lshin" }, { "leftFoot", "lfoot" }, { "rightUpperLeg", "rthigh" },
		{ "rightLowerLeg", "rshin" }, { "rightFoot", "rfoot" },
	};
	size_t mapped = 0;
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) mapped += h.bones[b] != NULL;
	RK_CHECK_INT(mapped, sizeof(map) / sizeof(map[0]));
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		rk_humanoid_bone bone;
		RK_REQUIRE(rk_humanoid_bone_parse(map[i][0], &bone));
		RK_CHECK(h.bones[bone] && h.bones[bone] == find_node(s, map[i][1]));
	}
	RK_CHECK_INT(why.reason[RK_HUMANOID_LEFT_UPPER_ARM], RK_HUMANOID_REASON_NAME);
	RK_CHECK_INT(why.reason[RK_HUMANOID_HEAD], RK_HUMANOID_REASON_HIERARCHY);
	rk_scene_free(s);

	/* without its twin "rshldr" a lone "lshldr" is not read as a sided
	 * name (the limb chain may still place it) */
	char *text = malloc(size + 1);
	RK_REQUIRE(text);
	memcpy(text, d, size);
	text[size] = '\0';
	char *r = strstr(text, "JOINT rshldr");
	RK_REQUIRE(r);
	memcpy(r + 6, "xshldr", 6);
	s = rk_load_memory(text, size, NULL, &err);
	RK_REQUIRE(s);
	rk_humanoid_detect_explained(s, &h, &why, &err);
	RK_CHECK(why.reason[RK_HUMANOID_LEFT_UPPER_ARM] != RK_HUMANOID_REASON_NAME);
	RK_CHECK(why.reason[RK_HUMANOID_LEFT_LOWER_LEG] == RK_HUMANOID_REASON_NAME);
	rk_scene_free(s);
	free(text);
	free(d);
}

/* The walk as Blender writes BVH (absolute position channels on every
 * joint, the root's OFFSET at rest) reads as the same motion. */
RK_TEST(blender_style_file)
{
	size_t na, nb;
	unsigned char *a = read_fixture("mixamo_walk.bvh", &na), *b = read_fixture("mixamo_walk_absolute.bvh", &nb);
	RK_REQUIRE(a && b);
	rk_error err;
	rk_scene *sa = rk_load_memory(a, na, NULL, &err), *sb = rk_load_memory(b, nb, NULL, &err);
	RK_REQUIRE(sa && sb);
	RK_CHECK_INT(sb->warnings.count, 1);
	size_t n = 0;
	double d = max_joint_distance(sa, &sa->clips.data[0], sb, 30.0, 31, &n);
	RK_CHECK(n == 27 * 31);
	RK_CHECK(d < 1e-9);
	rk_scene_free(sb);
	rk_load_opts o = { .bvh_positions = RK_BVH_POSITIONS_ADD_OFFSET };
	sb = rk_load_memory(b, nb, &o, &err);
	RK_REQUIRE(sb);
	RK_CHECK(max_joint_distance(sa, &sa->clips.data[0], sb, 30.0, 1, &n) > 50.0);  /* offsets counted twice */
	rk_scene_free(sa);
	rk_scene_free(sb);
	free(a);
	free(b);
}

/* CRLF, LF and CR line ends read the same. */
RK_TEST(line_endings)
{
	size_t size;
	unsigned char *crlf = read_fixture("six_channels.bvh", &size);
	RK_REQUIRE(crlf);
	RK_CHECK(memchr(crlf, '\r', size) != NULL);
	unsigned char *lf = malloc(size), *cr = malloc(size);
	RK_REQUIRE(lf && cr);
	size_t n = 0;
	for (size_t i = 0; i < size; i++) {
		if (crlf[i] == '\r') continue;
		lf[n] = crlf[i];
		cr[n] = crlf[i] == '\n' ? '\r' : crlf[i];
		n++;
	}
	rk_error err;
	rk_scene *a = rk_load_memory(crlf, size, NULL, &err), *b = rk_load_memory(lf, n, NULL, &err),
		 *c = rk_load_memory(cr, n, NULL, &err);
	RK_REQUIRE(a && b && c);
	for (size_t i = 1; i < a->nodes.count; i++) {
		const char *name = a->nodes.data[i].name;
		rk_vec3 pa, pb, pc;
		RK_CHECK(world_at(a, name, 0.05, &pa) && world_at(b, name, 0.05, &pb) && world_at(c, name, 0.05, &pc));
		RK_CHECK(pa.x == pb.x && pa.y == pb.y && pa.z == pb.z);
		RK_CHECK(pa.x == pc.x && pa.y == pc.y && pa.z == pc.z);
	}
	rk_scene_free(a);
	rk_scene_free(b);
	rk_scene_free(c);
	/* an error in the CRLF file names the same line as in the LF one */
	crlf[size - 3] = 'x';
	lf[n - 2] = 'x';
	rk_error e1, e2;
	RK_CHECK(rk_load_memory(crlf, size, NULL, &e1) == NULL);
	RK_CHECK(rk_load_memory(lf, n, NULL, &e2) == NULL);
	RK_CHECK_INT(e1.line, e2.line);
	RK_CHECK(e1.line > 40);
	free(crlf);
	free(lf);
	free(cr);
}

RK_TEST(every_prefix_and_flip)
{
	const char *names[] = { "subsets.bvh", "six_channels.bvh" };
	for (int f = 0; f < 2; f++) {
		size_t size;
		unsigned char *d = read_fixture(names[f], &size);
		RK_REQUIRE(d);
		size_t loaded = 0;
		for (size_t n = 0; n < size; n++) {
			rk_error err;
			rk_scene *s = rk_load_memory(d, n, NULL, &err);
			if (s) loaded++;
			else RK_CHECK(err.code != RK_OK && err.message[0]);
			rk_scene_free(s);
		}
		/* only prefixes cut inside the last value (or its line end) load */
		RK_CHECK(loaded < 16);
		static const unsigned char flips[] = { 'x', '{', '}', ' ', '\n', '9', '-', 0 };
		for (size_t i = 0; i < size; i += (f ? 3 : 1)) {
			for (size_t k = 0; k < sizeof(flips); k++) {
				unsigned char keep = d[i];
				d[i] = flips[k];
				rk_error err;
				rk_scene *s = rk_load_memory(d, size, NULL, &err);
				if (!s) RK_CHECK(err.code != RK_OK && err.message[0]);
				rk_scene_free(s);
				d[i] = keep;
			}
		}
		free(d);
	}
}

RK_TEST(allocation_failures)
{
	size_t size;
	unsigned char *d = read_fixture("subsets.bvh", &size);
	RK_REQUIRE(d);
	size_t k = 0;
	for (;; k++) {
		rk_test_alloc c = { .fail_after = k };
		rk_load_opts o = { .allocator = { rk_test_alloc_fn, rk_test_free_fn, &c } };
		rk_error err;
		rk_scene *s = rk_load_memory(d, size, &o, &err);
		if (!s) RK_CHECK_INT(err.code, RK_ERROR_OUT_OF_MEMORY);
		rk_scene_free(s);
		RK_CHECK_INT(c.live, 0);
		RK_CHECK_INT(c.allocs, c.frees);
		if (s || k > 10000) break;
	}
	RK_CHECK(k > 0 && k < 10000);
	free(d);
}

RK_TEST(nesting_bounded)
{
	size_t depth = 300, cap = depth * 40 + 64, n = 0;
	char *text = malloc(cap);
	RK_REQUIRE(text);
	n += (size_t)snprintf(text + n, cap - n, "HIERARCHY\n");
	for (size_t i = 0; i < depth; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s J%zu\n{\nOFFSET 0 1 0\n", i ? "JOINT" : "ROOT", i);
	rk_error err;
	rk_scene *s = rk_load_memory(text, n, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK(strstr(err.message, "max_depth") != NULL);
	rk_load_opts o = { .max_depth = 400 };
	s = rk_load_memory(text, n, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_TRUNCATED);  /* deep enough now: the file just ends */
	free(text);
}

/* ---- writer ------------------------------------------------------------------- */

/* Largest distance between same-named nodes of a (clip a_clip at its begin +
 * f / fps) and b (its first clip at f / fps), over b's nodes that a has,
 * frames 0..frames-1. */
static double max_joint_distance(const rk_scene *a, const rk_anim_clip *a_clip, const rk_scene *b, double fps, size_t frames,
	size_t *compared)
{
	double a_begin = a_clip ? a_clip->time_begin : 0.0;
	double worst = 0.0;
	*compared = 0;
	for (size_t f = 0; f < frames; f++)
		for (size_t i = 1; i < b->nodes.count; i++) {
			const char *name = b->nodes.data[i].name;
			if (!rk_scene_find_node(a, name)) continue;
			rk_vec3 pa, pb;
			if (!world_at_clip(a, a_clip, name, a_begin + (double)f / fps, &pa) || !world_at(b, name, (double)f / fps, &pb)) return INFINITY;
			double d = rk_vec3_length(rk_vec3_sub(pa, pb));
			if (d > worst) worst = d;
			(*compared)++;
		}
	return worst;
}

RK_TEST(writer_round_trip)
{
	rk_error err;
	rk_scene *s = load_text(two_joints, "two.bvh", NULL, &err);
	RK_REQUIRE(s);
	char *text = NULL;
	size_t size = 0;
	rk_bvh_write_stats st;
	rk_bvh_write_opts o = { .stats = &st };
	RK_REQUIRE(rk_bvh_write_memory(s, &o, &text, &size, &err));
	RK_CHECK(strlen(text) == size);
	RK_CHECK_INT(st.joint_count, 2);
	RK_CHECK_INT(st.end_site_count, 1);
	RK_CHECK_INT(st.frame_count, 2);
	RK_CHECK_INT(st.channel_count, 9);
	RK_CHECK_NEAR(st.frame_time, 0.04, 1e-15);
	/* the root's OFFSET moves into its position channels; B keeps its order */
	RK_CHECK(strstr(text, "ROOT A\n{\n\tOFFSET 0.000000 0.000000 0.000000\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n") != NULL);
	RK_CHECK(strstr(text, "\t\tCHANNELS 3 Xrotation Yrotation Zrotation\n\t\tEnd Site\n") != NULL);
	RK_CHECK(strstr(text, "Frames: 2\nFrame Time: 0.04\n11.000000 22.000000 33.000000 90.000000 0.000000 0.000000 90.000000 0.000000 0.000000\n") != NULL);
	rk_scene *b = load_text(text, "back.bvh", NULL, &err);
	RK_REQUIRE(b);
	size_t n = 0;
	RK_CHECK(max_joint_distance(s, &s->clips.data[0], b, 25.0, 2, &n) < 1e-9);
	RK_CHECK_INT(n, 6);
	rk_bvh_memory_free(text);
	rk_scene_free(b);

	/* another order for every joint */
	o = (rk_bvh_write_opts){ .rotation_order = "xzy" };
	RK_REQUIRE(rk_bvh_write_memory(s, &o, &text, &size, &err));
	RK_CHECK(strstr(text, "CHANNELS 6 Xposition Yposition Zposition Xrotation Zrotation Yrotation") != NULL);
	b = load_text(text, "back.bvh", NULL, &err);
	RK_REQUIRE(b);
	RK_CHECK(max_joint_distance(s, &s->clips.data[0], b, 25.0, 2, &n) < 1e-5);
	rk_bvh_memory_free(text);
	rk_scene_free(b);
	rk_scene_free(s);
}

/* A yaw turning past 180 degrees stays continuous (200, 300, not -160, -60). */
RK_TEST(writer_continuous_angles)
{
	static const char *const text =
		"HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
		"End Site\n{\nOFFSET 0 0 1\n}\n}\nMOTION\nFrames: 4\nFrame Time: 0.5\n"
		"0 0 0 0 0 0\n0 0 0 0 0 100\n0 0 0 0 0 200\n0 0 0 0 0 300\n";
	rk_error err;
	rk_scene *s = load_text(text, "turn.bvh", NULL, &err);
	RK_REQUIRE(s);
	char *out = NULL;
	size_t size = 0;
	RK_REQUIRE(rk_bvh_write_memory(s, NULL, &out, &size, &err));
	const char *motion = strstr(out, "Frame Time: 0.5\n");
	RK_REQUIRE(motion);
	double v[4][6];
	const char *p = motion + strlen("Frame Time: 0.5\n");
	for (int f = 0; f < 4; f++)
		for (int k = 0; k < 6; k++) {
			char *end;
			v[f][k] = strtod(p, &end);
			p = end;
		}
	RK_CHECK_NEAR(v[2][5], 200.0, 1e-6);
	RK_CHECK_NEAR(v[3][5], 300.0, 1e-6);
	RK_CHECK_NEAR(v[3][3], 0.0, 1e-6);
	RK_CHECK_NEAR(v[3][4], 0.0, 1e-6);
	rk_bvh_memory_free(out);
	rk_scene_free(s);
}

/* The sample Mixamo-style character (metres, 0.01 Armature rotated to Z up)
 * as BVH (centimetres): every joint where rigkit evaluates the source. */
RK_TEST(writer_demo_character)
{
	rk_error err;
	rk_demo_opts dopts = { .no_mesh = true, .z_up_armature = true };
	rk_scene *src = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, &dopts, &err);
	RK_REQUIRE(src);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	RK_REQUIRE(walk);
	rk_bvh_write_stats st;
	rk_bvh_write_opts o = { .clip = walk, .stats = &st };
	char *text = NULL;
	size_t size = 0;
	RK_REQUIRE(rk_bvh_write_memory(src, &o, &text, &size, &err));
	RK_CHECK_INT(st.end_site_count, 3);   /* HeadTop_End and the two Toe_End */
	RK_CHECK_INT(st.frame_count, 31);
	RK_CHECK(strstr(text, "ROOT mixamorig:Hips\n") != NULL);
	RK_CHECK(strstr(text, "HeadTop_End") == NULL);
	rk_load_opts lo = { .target_unit_meters = 1.0 };
	rk_scene *b = load_text(text, "walk.bvh", &lo, &err);
	RK_REQUIRE(b);
	size_t n = 0;
	double d = max_joint_distance(src, walk, b, 30.0, st.frame_count, &n);
	RK_CHECK(n > 60 * 31);
	RK_CHECK(d < 1.8e-6);   /* 1e-6 of the 1.8 m character */
	if (!(d < 1.8e-6)) fprintf(stderr, "demo walk: worst %g m over %zu positions\n", d, n);
	rk_bvh_memory_free(text);
	rk_scene_free(b);

	/* a root that is not in the scene, a bad order */
	rk_node stranger;
	memset(&stranger, 0, sizeof(stranger));
	o = (rk_bvh_write_opts){ .root = &stranger };
	RK_CHECK(!rk_bvh_write_memory(src, &o, &text, &size, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(text == NULL && size == 0);
	o = (rk_bvh_write_opts){ .rotation_order = "XXY" };
	RK_CHECK(!rk_bvh_write_memory(src, &o, &text, &size, &err));
	RK_CHECK(strstr(err.message, "XXY") != NULL);
	/* opts.root: one arm only */
	o = (rk_bvh_write_opts){ .root = rk_scene_find_node(src, "mixamorig:LeftArm"), .stats = &st };
	RK_REQUIRE(o.root);
	RK_REQUIRE(rk_bvh_write_memory(src, &o, &text, &size, &err));
	RK_CHECK(strstr(text, "ROOT mixamorig:LeftArm\n") != NULL);
	RK_CHECK(strstr(text, "RightArm") == NULL);
	RK_CHECK_INT(st.joint_count, 23);
	rk_bvh_memory_free(text);
	/* a scene without joints: its transform nodes are the skeleton */
	static const char *const gltf = "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
		"\"nodes\":[{\"name\":\"Arm\",\"children\":[1]},{\"name\":\"Hand\",\"translation\":[0,0.5,0]}]}";
	rk_scene *g = rk_load_memory(gltf, strlen(gltf), NULL, &err);
	RK_REQUIRE(g);
	RK_REQUIRE(rk_bvh_write_memory(g, NULL, &text, &size, &err));
	RK_CHECK(strstr(text, "ROOT Arm\n") != NULL);
	RK_CHECK(strstr(text, "\tJOINT Hand\n\t{\n\t\tOFFSET 0.000000 50.000000 0.000000\n") != NULL);  /* metres -> cm */
	RK_CHECK(strstr(text, "Frames: 1\n") != NULL);
	rk_bvh_memory_free(text);
	rk_scene_free(g);
	/* atomic: an unwritable destination fails and leaves nothing */
	RK_CHECK(!rk_bvh_write(src, "/nonexistent-rigkit-dir/walk.bvh", NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_OUTPUT);
	rk_scene_free(src);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(hand_derived_positions),
	RK_TEST_ENTRY(root_rest_at_first_frame),
	RK_TEST_ENTRY(channel_order_matters),
	RK_TEST_ENTRY(units_and_options),
	RK_TEST_ENTRY(lenient_layout),
	RK_TEST_ENTRY(absolute_positions),
	RK_TEST_ENTRY(bad_input_errors),
	RK_TEST_ENTRY(claimed_frames_bounded),
	RK_TEST_ENTRY(fixtures_load),
	RK_TEST_ENTRY(blender_style_file),
	RK_TEST_ENTRY(poser_names_detected),
	RK_TEST_ENTRY(line_endings),
	RK_TEST_ENTRY(every_prefix_and_flip),
	RK_TEST_ENTRY(allocation_failures),
	RK_TEST_ENTRY(nesting_bounded),
	RK_TEST_ENTRY(writer_round_trip),
	RK_TEST_ENTRY(writer_continuous_angles),
	RK_TEST_ENTRY(writer_demo_character))
