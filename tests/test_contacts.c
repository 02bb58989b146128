/*
 * tests/test_contacts.c - contacts found from a clip (rk_contacts_detect) and
 * the contact solve of rk_retarget (include/rigkit/retarget.h, CONTACTS,
 * CONTACT SOLVE).
 *
 * Expectations come from what rigkit/demo.h states about the sample Walk
 * (left heel strike at 0 s, right at 0.5 s, each foot on the ground 60 % of
 * the cycle with the ball of the foot - ToeBase - put from strike to
 * toe-off, the foot flat for the first 35 %; the Idle keeps both feet flat
 * where they stand), and from world positions of evaluated poses computed
 * here (the target avatar stands on y = 0, Y up).
 */
#include "rigkit/rigkit.h"
#include "rk_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rk_scene *sample(rk_demo_kind kind)
{
	rk_demo_opts o;
	memset(&o, 0, sizeof(o));
	o.no_mesh = true;
	rk_error err;
	return rk_demo_scene(kind, &o, &err);
}

static bool floor_bit(const rk_contacts *c, double t, rk_contact_point p)
{
	size_t k = (size_t)floor(t * c->fps + 0.5);
	return k < c->frames && ((c->frame[k].floor >> p) & 1u);
}

RK_TEST(walk_contacts_follow_the_gait)
{
	rk_scene *src = sample(RK_DEMO_MIXAMO_SOURCE);
	RK_REQUIRE(src);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	RK_REQUIRE(walk);
	rk_contacts c;
	rk_error err;
	RK_REQUIRE(rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, 30.0, NULL, NULL, &c, &err));
	RK_CHECK_INT(c.frames, 31);
	/* the walk has root motion: no treadmill */
	RK_CHECK(fabs(c.ground_velocity.x) + fabs(c.ground_velocity.z) < 1e-12);
	/* left ball down from the strike to toe-off, right ball from 0.5 s on */
	for (double t = 0.0; t <= 0.55; t += 1.0 / 30.0) RK_CHECK(floor_bit(&c, t, RK_CONTACT_LEFT_TOES));
	for (double t = 0.7; t <= 0.95; t += 1.0 / 30.0) RK_CHECK(!floor_bit(&c, t, RK_CONTACT_LEFT_TOES));
	for (double t = 0.55; t <= 1.0; t += 1.0 / 30.0) RK_CHECK(floor_bit(&c, t, RK_CONTACT_RIGHT_TOES));
	for (double t = 0.2; t <= 0.45; t += 1.0 / 30.0) RK_CHECK(!floor_bit(&c, t, RK_CONTACT_RIGHT_TOES));
	/* the left heel (ankle) is down while flat, up late in the stance (heel-off to 40 degrees) */
	for (double t = 0.05; t <= 0.3; t += 1.0 / 30.0) RK_CHECK(floor_bit(&c, t, RK_CONTACT_LEFT_FOOT));
	RK_CHECK(!floor_bit(&c, 0.55, RK_CONTACT_LEFT_FOOT));
	/* no hand touches anything */
	RK_CHECK_INT(c.contact_frames[RK_CONTACT_LEFT_HAND] + c.contact_frames[RK_CONTACT_RIGHT_HAND], 0);
	RK_CHECK_INT(c.hand_pair_frames, 0);
	RK_CHECK(c.rest_height[RK_CONTACT_LEFT_FOOT] > c.rest_height[RK_CONTACT_LEFT_TOES]);
	rk_contacts_free(&c);
	RK_CHECK(c.frame == NULL && c.frames == 0);

	/* idle: both feet flat the whole time */
	const rk_anim_clip *idle = rk_scene_find_clip(src, "Idle");
	RK_REQUIRE(rk_contacts_detect(src, idle, NULL, RK_REST_AUTO, 0.0, NULL, NULL, &c, &err));
	for (int p = RK_CONTACT_LEFT_FOOT; p <= RK_CONTACT_RIGHT_TOES; p++) RK_CHECK_INT(c.contact_frames[p], c.frames);
	rk_contacts_free(&c);

	/* stricter heights: nothing touches when the floor band is below the joints' noise */
	rk_contact_opts strict = { .on_height = 1e-9, .off_height = 2e-9, .on_speed = 1e-9, .off_speed = 2e-9 };
	RK_REQUIRE(rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, 30.0, &strict, NULL, &c, &err));
	RK_CHECK(c.contact_frames[RK_CONTACT_LEFT_FOOT] < 31);
	rk_contacts_free(&c);
	rk_scene_free(src);
}

RK_TEST(contacts_bad_inputs_are_rejected)
{
	rk_scene *src = sample(RK_DEMO_MIXAMO_SOURCE), *dst = sample(RK_DEMO_AVATAR);
	RK_REQUIRE(src && dst);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	rk_contacts c;
	rk_error err;
	RK_CHECK(!rk_contacts_detect(NULL, walk, NULL, RK_REST_AUTO, 30, NULL, NULL, &c, &err));
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(!rk_contacts_detect(src, NULL, NULL, RK_REST_AUTO, 30, NULL, NULL, &c, &err));
	RK_CHECK(!rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, 30, NULL, NULL, NULL, &err));
	RK_CHECK(!rk_contacts_detect(dst, walk, NULL, RK_REST_AUTO, 30, NULL, NULL, &c, &err));   /* not dst's clip */
	RK_CHECK(strstr(err.message, "not one of"));
	RK_CHECK(!rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, -1, NULL, NULL, &c, &err));
	RK_CHECK(!rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, NAN, NULL, NULL, &c, &err));
	rk_contact_opts neg = { .on_height = -0.1 };
	RK_CHECK(!rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, 30, &neg, NULL, &c, &err));
	RK_CHECK(strstr(err.message, "on_height"));
	rk_contact_opts inverted = { .on_speed = 1.0, .off_speed = 0.5 };
	RK_CHECK(!rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, 30, &inverted, NULL, &c, &err));
	RK_CHECK(strstr(err.message, "below its on threshold"));
	rk_contact_opts nan = { .blend_time = NAN };
	RK_CHECK(!rk_contacts_detect(src, walk, NULL, RK_REST_AUTO, 30, &nan, NULL, &c, &err));
	RK_CHECK(c.frame == NULL);
	rk_contacts_free(&c);   /* harmless on a failed result */
	rk_contacts_free(NULL);
	/* the same thresholds are checked by rk_retarget and rk_clip_compare */
	rk_retarget_opts ro = { .contact_opts = &inverted };
	RK_CHECK(!rk_retarget(dst, src, walk, &ro, NULL, &err));
	RK_CHECK_INT(dst->clips.count, 0);
	ro = (rk_retarget_opts){ .contacts = (rk_retarget_contacts)7 };
	RK_CHECK(!rk_retarget(dst, src, walk, &ro, NULL, &err) && strstr(err.message, "contacts mode"));
	rk_compare_opts co = { .contact_opts = &neg };
	rk_compare_result res;
	RK_CHECK(!rk_clip_compare(src, walk, src, walk, &co, &res, &err));
	RK_CHECK_STR(rk_contact_point_name(RK_CONTACT_RIGHT_TOES), "rightToes");
	RK_CHECK_STR(rk_contact_point_name((rk_contact_point)99), "unknown");
	rk_scene_free(src);
	rk_scene_free(dst);
}

typedef struct posed {
	rk_pose pose;
	void *mem;
} posed;

static bool posed_init(posed *p, const rk_scene *s)
{
	size_t bytes = rk_pose_memory_size(s);
	p->mem = malloc(bytes);
	return p->mem && rk_pose_init(&p->pose, s, p->mem, bytes);
}

static rk_vec3 world_at(posed *p, const rk_scene *s, const rk_anim_clip *clip, double t, const char *name)
{
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = clip;
	job.time = t;
	job.pose = &p->pose;
	if (!rk_pose_eval_run(&job)) return (rk_vec3){ NAN, NAN, NAN };
	return rk_mat4_get_translation(p->pose.node_to_world[rk_scene_find_node(s, name)->index]);
}

static const rk_anim_track *track_of(const rk_anim_clip *c, const rk_node *n, rk_anim_target what)
{
	for (size_t i = 0; i < c->layers[0].track_count; i++)
		if (c->layers[0].tracks[i].node == n && c->layers[0].tracks[i].target == what) return &c->layers[0].tracks[i];
	return NULL;
}

RK_TEST(solve_keeps_planted_balls_on_the_floor_and_the_rest_untouched)
{
	rk_scene *src = sample(RK_DEMO_MIXAMO_SOURCE), *dst = sample(RK_DEMO_AVATAR);
	RK_REQUIRE(src && dst);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	rk_error err;
	rk_retarget_report rep, rep0;
	rk_retarget_opts off = { .contacts = RK_RETARGET_CONTACTS_OFF, .name = "off" };
	rk_retarget_opts on = { .name = "on" };
	RK_REQUIRE(rk_retarget(dst, src, walk, &off, &rep0, &err));
	RK_REQUIRE(rk_retarget(dst, src, walk, &on, &rep, &err));
	const rk_anim_clip *c0 = rk_scene_find_clip(dst, "off"), *c1 = rk_scene_find_clip(dst, "on");
	RK_REQUIRE(c0 && c1);
	RK_CHECK_INT(rep0.solved_frames, 0);
	RK_CHECK(rep.solved_frames > 0);
	RK_CHECK(rep.contact_frames[RK_CONTACT_LEFT_TOES] >= 17);
	RK_CHECK_INT(rep.unreached_goals, 0);
	RK_CHECK(rep.solved_bones[RK_HUMANOID_LEFT_UPPER_LEG] && rep.solved_bones[RK_HUMANOID_RIGHT_FOOT]);
	RK_CHECK(!rep.solved_bones[RK_HUMANOID_SPINE] && !rep.solved_bones[RK_HUMANOID_LEFT_HAND]);
	RK_CHECK(rep.max_direction_error < 1e-6);   /* the bones the solve did not turn */

	/* bones whose parent chain the solve leaves alone: the very same keys */
	const rk_humanoid_bone same[] = { RK_HUMANOID_HIPS, RK_HUMANOID_SPINE, RK_HUMANOID_HEAD, RK_HUMANOID_LEFT_UPPER_ARM,
		RK_HUMANOID_RIGHT_HAND, RK_HUMANOID_LEFT_INDEX_PROXIMAL };
	rk_humanoid h;
	RK_REQUIRE(rk_humanoid_detect(dst, &h, &err));
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const rk_anim_track *a = track_of(c0, h.bones[same[i]], RK_TARGET_ROTATION_QUAT);
		const rk_anim_track *b = track_of(c1, h.bones[same[i]], RK_TARGET_ROTATION_QUAT);
		RK_REQUIRE(a && b && a->key_count == b->key_count);
		RK_CHECK(memcmp(a->values_f64, b->values_f64, a->key_count * 4 * sizeof(double)) == 0);
	}
	/* the legs did change */
	const rk_anim_track *la = track_of(c0, h.bones[RK_HUMANOID_LEFT_FOOT], RK_TARGET_ROTATION_QUAT);
	const rk_anim_track *lb = track_of(c1, h.bones[RK_HUMANOID_LEFT_FOOT], RK_TARGET_ROTATION_QUAT);
	RK_CHECK(memcmp(la->values_f64, lb->values_f64, la->key_count * 4 * sizeof(double)) != 0);

	/* planted balls: put, at their rest height (the avatar stands on y = 0) */
	posed p;
	RK_REQUIRE(posed_init(&p, dst));
	double hh = world_at(&p, dst, NULL, 0, "Hips").y -
		fmin(world_at(&p, dst, NULL, 0, "LeftToeBase").y, world_at(&p, dst, NULL, 0, "LeftFoot").y);
	const char *ball[2] = { "LeftToeBase", "RightToeBase" };
	const double window[2][2] = { { 0.0, 0.55 }, { 0.55, 1.0 } };
	double rest_y[2] = { world_at(&p, dst, NULL, 0, ball[0]).y, world_at(&p, dst, NULL, 0, ball[1]).y };
	double drift_on = 0, drift_off = 0, height_on = 0;
	for (int side = 0; side < 2; side++) {
		rk_vec3 first_on = world_at(&p, dst, c1, window[side][0], ball[side]);
		rk_vec3 first_off = world_at(&p, dst, c0, window[side][0], ball[side]);
		for (double t = window[side][0]; t <= window[side][1] + 1e-9; t += 1.0 / 30.0) {
			rk_vec3 a = world_at(&p, dst, c1, t, ball[side]), b = world_at(&p, dst, c0, t, ball[side]);
			drift_on = fmax(drift_on, hypot(a.x - first_on.x, a.z - first_on.z) / hh);
			drift_off = fmax(drift_off, hypot(b.x - first_off.x, b.z - first_off.z) / hh);
			height_on = fmax(height_on, fabs(a.y - rest_y[side]) / hh);
		}
	}
	printf("planted ball drift %.2e (rule alone %.2e) hips heights, off its rest height by %.2e\n", drift_on,
		drift_off, height_on);
	RK_CHECK(drift_on < 1e-3);   /* 0.2 mm on a 0.8 m hips height */
	RK_CHECK(height_on < 0.005);
	RK_CHECK(drift_off > 10 * drift_on);
	free(p.mem);
	rk_scene_free(src);
	rk_scene_free(dst);
}

RK_TEST(solve_memory_is_limited_and_balanced)
{
	rk_scene *src = sample(RK_DEMO_MIXAMO_SOURCE), *dst = sample(RK_DEMO_AVATAR);
	RK_REQUIRE(src && dst);
	const rk_anim_clip *walk = rk_scene_find_clip(src, "Walk");
	rk_error err;
	/* from a limit too small for the contact state to enough: LIMIT or success, never a leak */
	bool ok = false, limited = false;
	for (size_t lim = 64 << 10; lim <= (16u << 20); lim *= 2) {
		rk_retarget_opts o = { .memory_limit = lim, .hand_contacts = true };
		rk_anim_clip *c = rk_retarget(dst, src, walk, &o, NULL, &err);
		if (c) ok = true;
		else limited = limited || err.code == RK_ERROR_LIMIT;
	}
	RK_CHECK(ok && limited);
	rk_scene_free(src);
	rk_scene_free(dst);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(walk_contacts_follow_the_gait),
	RK_TEST_ENTRY(contacts_bad_inputs_are_rejected),
	RK_TEST_ENTRY(solve_keeps_planted_balls_on_the_floor_and_the_rest_untouched),
	RK_TEST_ENTRY(solve_memory_is_limited_and_balanced))
