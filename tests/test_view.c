/*
 * tests/test_view.c - `rigkit view` (the OpenGL viewer, docs/view.md)
 * against `rigkit render` (the CPU rasteriser): two independent renderers
 * fed by one load. The GPU one draws rigkit's mesh expansion (index ranges,
 * parts, UV choice) skinned by the float runtime + rk_skin into mapped
 * vertex buffers; the CPU one triangulates the scene itself and poses it
 * with the double reference evaluator (anim.h). A wrong index range, part,
 * material, skinning upload or camera shows up as disagreeing pixels.
 *
 * Measure, per image pair (unlit base colour, transparent background, so
 * alpha is the silhouette):
 *   colour: of the pixels inside the union of both silhouettes, the share
 *           covered by both with every channel within 10/255 (>= 98%);
 *   edges:  every pixel in exactly one silhouette (the XOR) lies within
 *           Chebyshev distance 1 of a pixel of the other silhouette, i.e.
 *           the silhouettes differ by at most one pixel at any edge.
 * Also: filmstrips (--frames), the GL object leak check over 100 loads
 * with a corrupt file among them, a corrupt file's error naming the file,
 * the window loop surviving a file that fails to load.
 *
 * Runs under xvfb-run (CMake adds it when found) with Mesa's llvmpipe;
 * skips with a message when rigkit was built without the viewer or no GL
 * context can be made.
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>

#include <stb/stb_image.h>

#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[512];

static const char *tmp_dir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/test_view_tmp", RK_BINARY_DIR);
		mkdir(tmpdir, 0755);
		char cmd[1200];
		snprintf(cmd, sizeof(cmd), "rm -f '%s'/lsan.*", tmpdir);
		if (system(cmd) != 0) fprintf(stderr, "could not clear %s/lsan.*\n", tmpdir);
	}
	return tmpdir;
}

/* Runs a shell command; returns its exit code (-1 if it did not exit). */
static int run(const char *cmd)
{
	int st = system(cmd);
	if (st == -1 || !WIFEXITED(st)) return -1;
	return WEXITSTATUS(st);
}

static bool file_contains(const char *path, const char *needle)
{
	size_t n;
	unsigned char *d = rk_test_read_file(path, &n);
	if (!d) return false;
	char *s = (char *)realloc(d, n + 1);
	if (!s) {
		free(d);
		return false;
	}
	s[n] = 0;
	bool found = strstr(s, needle) != NULL;
	free(s);
	return found;
}

/* RIGKIT_TEST_QUICK=1 (make sanitize): fewer files, times and views. */
static bool quick(void)
{
	const char *q = getenv("RIGKIT_TEST_QUICK");
	return q && q[0] && q[0] != '0';
}

#if defined(__SANITIZE_ADDRESS__)
#define TEST_VIEW_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_VIEW_ASAN 1
#endif
#endif

/* NULL when the viewer works here, else why not (for RK_SKIP). */
static const char *view_unavailable(void)
{
	static int state = 0;   /* 0 unknown, 1 ok, 2 not built, 3 no GL */
	if (!state) {
#ifdef TEST_VIEW_ASAN
		/* Sanitizer build: the GL driver, Xlib and D-Bus (via SDL) keep
		 * allocations for the process lifetime, partly in modules unloaded
		 * before LeakSanitizer reports (so no suppression can name them).
		 * The children's leak reports go to files instead of failing them;
		 * test_no_rigkit_leaks fails on any leak whose stack has a rigkit
		 * frame (view_, cli_, rk_, rki_ functions). */
		static char lsan[1024];
		snprintf(lsan, sizeof(lsan), "exitcode=0:log_path=%s/lsan", tmp_dir());
		setenv("LSAN_OPTIONS", lsan, 1);
#endif
		char cmd[2048];
		snprintf(cmd, sizeof(cmd), "'%s' view '%s/tests/fixtures/rig.glb' --screenshot '%s/probe.png' >'%s/probe.log' 2>&1",
			RK_CLI_PATH, RK_SOURCE_DIR, tmp_dir(), tmp_dir());
		int rc = run(cmd);
		char log[1024];
		snprintf(log, sizeof(log), "%s/probe.log", tmp_dir());
		if (rc == 0) state = 1;
		else if (file_contains(log, "built without")) state = 2;
		else state = 3;
		if (state == 3) {
			size_t n;
			unsigned char *d = rk_test_read_file(log, &n);
			fprintf(stderr, "view probe failed (exit %d): %.*s\n", rc, (int)n, d ? (const char *)d : "");
			free(d);
		}
	}
	if (state == 2) return "rigkit was built without the viewer (SDL2/libepoxy missing: scripts/install-deps.sh view)";
	if (state == 3) return "no OpenGL 3.3 context here (no display/xvfb-run or no Mesa driver)";
	return NULL;
}

/* Writes the built-in sample characters (rigkit sample) to TMP/demo once. */
static bool demo_written(void)
{
	static int done = 0;
	if (!done) {
		char cmd[2048];
		snprintf(cmd, sizeof(cmd), "'%s' sample '%s/demo' >/dev/null", RK_CLI_PATH, tmp_dir());
		done = run(cmd) == 0 ? 1 : 2;
	}
	return done == 1;
}

typedef struct cmp_result {
	int width, height;
	size_t union_px, agree_px, xor_px;
	int max_edge;                   /* largest XOR pixel distance to the other silhouette (capped at 16) */
} cmp_result;

/* Chebyshev distance from (x, y) to the nearest pixel with mask[] set, up to cap. */
static int nearest(const unsigned char *mask, int w, int h, int x, int y, int cap)
{
	for (int r = 1; r <= cap; r++)
		for (int dy = -r; dy <= r; dy++)
			for (int dx = -r; dx <= r; dx++) {
				if (abs(dx) != r && abs(dy) != r) continue;
				int xx = x + dx, yy = y + dy;
				if (xx >= 0 && yy >= 0 && xx < w && yy < h && mask[yy * w + xx]) return r;
			}
	return cap + 1;
}

static bool compare_png(const char *a_path, const char *b_path, cmp_result *out)
{
	memset(out, 0, sizeof(*out));
	int wa, ha, wb, hb, c;
	unsigned char *a = stbi_load(a_path, &wa, &ha, &c, 4), *b = stbi_load(b_path, &wb, &hb, &c, 4);
	bool ok = a && b && wa == wb && ha == hb;
	unsigned char *ma = ok ? (unsigned char *)calloc((size_t)wa * ha, 1) : NULL;
	unsigned char *mb = ok ? (unsigned char *)calloc((size_t)wa * ha, 1) : NULL;
	if (ok && ma && mb) {
		out->width = wa;
		out->height = ha;
		size_t n = (size_t)wa * ha;
		for (size_t i = 0; i < n; i++) {
			ma[i] = a[i * 4 + 3] >= 128;
			mb[i] = b[i * 4 + 3] >= 128;
		}
		for (size_t i = 0; i < n; i++) {
			if (!ma[i] && !mb[i]) continue;
			out->union_px++;
			if (ma[i] && mb[i]) {
				int d = 0;
				for (int k = 0; k < 3; k++) {
					int e = abs((int)a[i * 4 + k] - (int)b[i * 4 + k]);
					if (e > d) d = e;
				}
				if (d <= 10) out->agree_px++;
				continue;
			}
			out->xor_px++;
			int x = (int)(i % (size_t)wa), y = (int)(i / (size_t)wa);
			int dist = nearest(ma[i] ? mb : ma, wa, ha, x, y, 16);
			if (dist > out->max_edge) out->max_edge = dist;
		}
	} else {
		ok = false;
	}
	free(ma);
	free(mb);
	stbi_image_free(a);
	stbi_image_free(b);
	return ok;
}

static int pairs_compared;

/* Draws `vfile` with rigkit view (VARGS) and `rfile` with rigkit render
 * (RARGS), both unlit on a transparent background, and measures them.
 * False (after reporting) when a command or the comparison failed. */
static bool measure_pair(const char *vfile, const char *vargs, const char *rfile, const char *rargs, cmp_result *c)
{
	char v[1024], r[1024], cmd[4096], log[1024];
	snprintf(v, sizeof(v), "%s/view.png", tmp_dir());
	snprintf(r, sizeof(r), "%s/render.png", tmp_dir());
	snprintf(log, sizeof(log), "%s/pair.log", tmp_dir());
	remove(v);
	remove(r);
	snprintf(cmd, sizeof(cmd), "'%s' view '%s' --screenshot '%s' --unlit --background 00000000 %s >'%s' 2>&1",
		RK_CLI_PATH, vfile, v, vargs, log);
	int rc_v = run(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' render '%s' '%s' --unlit --background 00000000 %s >>'%s' 2>&1", RK_CLI_PATH,
		rfile, r, rargs, log);
	int rc_r = run(cmd);
	if (rc_v != 0 || rc_r != 0) {
		fprintf(stderr, "  %s %s: view exit %d, render exit %d (see %s)\n", vfile, vargs, rc_v, rc_r, log);
		return false;
	}
	return compare_png(v, r, c);
}

static double agreement(const cmp_result *c)
{
	return c->union_px ? (double)c->agree_px / (double)c->union_px : 1.0;
}

/* measure_pair, then the acceptance measure: >= 98% agree, edges within 1. */
static void check_pair2(rk_test_state *rk_t_, const char *vfile, const char *vargs, const char *rfile, const char *rargs)
{
	cmp_result c;
	bool ok = measure_pair(vfile, vargs, rfile, rargs, &c);
	RK_CHECK(ok);
	if (!ok) return;
	double agree = agreement(&c);
	const char *base = strrchr(vfile, '/');
	fprintf(stderr, "  %-22s %-44s union %7zu px, agree %6.2f%%, xor %5zu px, max edge distance %d\n",
		base ? base + 1 : vfile, vargs, c.union_px, 100.0 * agree, c.xor_px, c.max_edge);
	RK_CHECK(c.union_px > 100);   /* something was drawn */
	RK_CHECK(agree >= 0.98);
	RK_CHECK(c.max_edge <= 1);
	pairs_compared++;
}

/* The same file and arguments for both renderers. */
static void check_pair(rk_test_state *rk_t_, const char *file, const char *args)
{
	check_pair2(rk_t_, file, args, file, args);
}

/* Compares `file` static, and at three times of each of its first two
 * clips from a few directions. */
static void check_file(rk_test_state *rk_t_, const char *file, int max_clips)
{
	rk_error err;
	rk_scene *s = rk_load_file(file, NULL, &err);
	RK_REQUIRE(s);
	char args[512];
	check_pair(rk_t_, file, "--size 320x320");
	check_pair(rk_t_, file, "--size 320x320 --untextured");
	if (!quick()) check_pair(rk_t_, file, "--size 256x320 --yaw 90");
	int clips = 0;
	if (quick()) max_clips = 1;
	for (size_t i = 0; i < s->clips.count && clips < max_clips; i++) {
		const rk_anim_clip *c = &s->clips.data[i];
		if (!c->layer_count || !(c->time_end > c->time_begin)) continue;
		clips++;
		static const double at[3] = { 0.0, 0.37, 0.71 };
		static const char *views[3] = { "", "--yaw 35 --pitch 20", "--yaw -120" };
		for (int k = quick() ? 1 : 0; k < (quick() ? 2 : 3); k++) {
			double t = c->time_begin + at[k] * (c->time_end - c->time_begin);
			snprintf(args, sizeof(args), "--size 320x320 --clip '%s' --time %.6f %s", c->name, t, views[k]);
			check_pair(rk_t_, file, args);
		}
	}
	rk_scene_free(s);
}

RK_TEST(test_fixtures_agree)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	static const char *fixtures[] = { "rig.glb", "rig.gltf", "rig_7400.fbx", "rig_7500.fbx", "rig_ascii.fbx" };
	char path[1024];
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i += quick() ? 3 : 1) {
		snprintf(path, sizeof(path), "%s/tests/fixtures/%s", RK_SOURCE_DIR, fixtures[i]);
		check_file(rk_t_, path, 2);
	}
}

/* The built-in demo characters (rigkit sample): skinned, several parts,
 * textured (checked with --texture too). */
RK_TEST(test_demo_characters_agree)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	char path[1024];
	RK_REQUIRE(demo_written());
	snprintf(path, sizeof(path), "%s/demo/source.glb", tmp_dir());
	check_file(rk_t_, path, 2);
	check_pair(rk_t_, path, "--size 320x320 --clip Walk --time 0.4 --texture");
	snprintf(path, sizeof(path), "%s/demo/avatar.glb", tmp_dir());
	check_file(rk_t_, path, 1);
	check_pair(rk_t_, path, "--size 320x320 --texture --yaw 20");
}

RK_TEST(test_shared_avatars_agree)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared/assets not found");
	static const char *avatars[] = { "Xbot.glb", "ybot.fbx", "Soldier.glb", "readyplayer.me.glb" };
	char path[1024];
	for (size_t i = 0; i < sizeof(avatars) / sizeof(avatars[0]); i += quick() ? 2 : 1) {
		snprintf(path, sizeof(path), "%s/assets/%s", shared, avatars[i]);
		check_file(rk_t_, path, 2);
	}
	snprintf(path, sizeof(path), "%s/assets/Soldier.glb", shared);
	check_pair(rk_t_, path, "--size 320x400 --clip Walk --time 0.3 --texture");
	snprintf(path, sizeof(path), "%s/assets/readyplayer.me.glb", shared);
	check_pair(rk_t_, path, "--size 320x400 --texture --yaw 25");
}

/* --anim: ybot@kick.fbx (a motion without a mesh) retargeted onto ybot.fbx
 * in memory by the viewer, against `rigkit retarget` writing the same
 * retarget as a GLB that `rigkit render` draws. */
RK_TEST(test_anim_retargeted_agrees)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared/assets not found");
	char cmd[4096], glb[1024], ybot[1024];
	snprintf(glb, sizeof(glb), "%s/kick.glb", tmp_dir());
	snprintf(ybot, sizeof(ybot), "%s/assets/ybot.fbx", shared);
	snprintf(cmd, sizeof(cmd), "'%s' retarget '%s/assets/ybot@kick.fbx' '%s' '%s' --name kick --drop-target-clips >/dev/null 2>&1",
		RK_CLI_PATH, shared, ybot, glb);
	RK_REQUIRE(run(cmd) == 0);
	static const double at[3] = { 0.2, 0.9, 1.6 };
	for (int k = 0; k < (quick() ? 1 : 3); k++) {
		char vargs[1024], rargs[256];
		snprintf(vargs, sizeof(vargs), "--anim '%s/assets/ybot@kick.fbx' --size 320x320 --time %g --yaw %d", shared,
			at[k], k * 50);
		snprintf(rargs, sizeof(rargs), "--clip kick --size 320x320 --time %g --yaw %d", at[k], k * 50);
		check_pair2(rk_t_, ybot, vargs, glb, rargs);
	}
}

/* The measure can fail: the sample's Walk 0.05 s apart, the texture in one
 * renderer only, and the camera turned by 3 degrees each miss the bar. */
RK_TEST(test_measure_detects_differences)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	char path[1024];
	RK_REQUIRE(demo_written());
	snprintf(path, sizeof(path), "%s/demo/source.glb", tmp_dir());
	static const char *const vr[3][2] = {
		{ "--size 320x320 --clip Walk --time 0.40", "--size 320x320 --clip Walk --time 0.45" },
		{ "--size 320x320", "--size 320x320 --untextured" },
		{ "--size 320x320 --yaw 30", "--size 320x320 --yaw 33" },
	};
	for (int k = 0; k < 3; k++) {
		cmp_result c;
		RK_REQUIRE(measure_pair(path, vr[k][0], path, vr[k][1], &c));
		fprintf(stderr, "  view %s / render %s: agree %.2f%%, max edge distance %d\n", vr[k][0], vr[k][1],
			100.0 * agreement(&c), c.max_edge);
		RK_CHECK(agreement(&c) < 0.98 || c.max_edge > 1);
	}
}

/* --frames N: the same sheet layout and shared camera as rigkit render. */
RK_TEST(test_filmstrip_agrees)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	char path[1024];
	snprintf(path, sizeof(path), "%s/demo/source.glb", tmp_dir());
	RK_REQUIRE(demo_written());
	check_pair(rk_t_, path, "--clip Walk --frames 5 --size 128x192 --yaw 90");
	snprintf(path, sizeof(path), "%s/tests/fixtures/rig_7500.fbx", RK_SOURCE_DIR);
	check_pair(rk_t_, path, "--frames 3 --size 160x160");
}

/* Writes the first `keep` bytes of src to dst. */
static bool write_prefix(const char *src, const char *dst, size_t keep)
{
	size_t n;
	unsigned char *d = rk_test_read_file(src, &n);
	if (!d) return false;
	FILE *f = fopen(dst, "wb");
	bool ok = f && fwrite(d, 1, keep < n ? keep : n, f) == (keep < n ? keep : n);
	if (f) fclose(f);
	free(d);
	return ok;
}

/* 100 loads in one GL session (fixtures, a demo character, a truncated
 * GLB): every buffer, texture, vertex array, framebuffer and renderbuffer
 * name made for a file is deleted with it; the bad file is reported by
 * name and skipped. */
RK_TEST(test_leak_check_100_loads)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	char bad[1024], src[1024], cmd[8192], out[1024], err_log[1024];
	snprintf(src, sizeof(src), "%s/tests/fixtures/rig.glb", RK_SOURCE_DIR);
	snprintf(bad, sizeof(bad), "%s/truncated.glb", tmp_dir());
	RK_REQUIRE(write_prefix(src, bad, 1000));
	RK_REQUIRE(demo_written());
	snprintf(out, sizeof(out), "%s/leak.json", tmp_dir());
	snprintf(err_log, sizeof(err_log), "%s/leak.log", tmp_dir());
	snprintf(cmd, sizeof(cmd),
		"'%s' view '%s/tests/fixtures/rig.glb' '%s/demo/source.glb' '%s/tests/fixtures/rig_7400.fbx' '%s' "
		"--leak-check --repeat 100 --json >'%s' 2>'%s'",
		RK_CLI_PATH, RK_SOURCE_DIR, tmp_dir(), RK_SOURCE_DIR, bad, out, err_log);
	int rc = run(cmd);
	RK_CHECK_INT(rc, 2);   /* the bad file made it an input error; no leak (that would be 3) */
	RK_CHECK(file_contains(err_log, "truncated.glb"));
	RK_CHECK(file_contains(out, "\"loads\": 100"));
	RK_CHECK(file_contains(out, "\"failed\": 25"));
	RK_CHECK(file_contains(out, "\"drawn\": 75"));
	RK_CHECK(file_contains(out, "\"leak\": false"));
	size_t n;
	unsigned char *d = rk_test_read_file(out, &n);
	if (d) fprintf(stderr, "%.*s", (int)n, (const char *)d);
	free(d);
	/* the counts are real: while a file is loaded there are more names */
	RK_CHECK(!file_contains(out, "\"loaded\": {\n    \"buffers\": 0,"));
	/* without the bad file: exit 0 */
	snprintf(cmd, sizeof(cmd), "'%s' view '%s/tests/fixtures/rig_ascii.fbx' --leak-check --repeat 3 >/dev/null 2>&1",
		RK_CLI_PATH, RK_SOURCE_DIR);
	RK_CHECK_INT(run(cmd), 0);
}

/* Glyph pixels in the top 40 rows of a window capture: red ones (the
 * error colour, red = 1) or white ones (the status line, red = 0). */
static size_t count_text_pixels(const char *png, int red)
{
	int w, h, c;
	unsigned char *px = stbi_load(png, &w, &h, &c, 4);
	if (!px) return 0;
	size_t n = 0;
	for (int y = 0; y < h && y < 40; y++)
		for (int x = 0; x < w; x++) {
			const unsigned char *p = px + ((size_t)y * w + x) * 4;
			if (red ? (p[0] > 200 && p[1] > 100 && p[1] < 160 && p[2] < 150) : (p[0] > 240 && p[1] > 240 && p[2] > 240)) n++;
		}
	stbi_image_free(px);
	return n;
}

/* A file that fails to load: headless, an error exit naming the file and no
 * output; in the window, the loop keeps running (the error is on screen). */
RK_TEST(test_bad_file)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	char bad[1024], src[1024], png[1024], log[1024], cmd[8192];
	snprintf(src, sizeof(src), "%s/tests/fixtures/rig_7500.fbx", RK_SOURCE_DIR);
	snprintf(bad, sizeof(bad), "%s/cut.fbx", tmp_dir());
	RK_REQUIRE(write_prefix(src, bad, 3000));
	snprintf(png, sizeof(png), "%s/never.png", tmp_dir());
	snprintf(log, sizeof(log), "%s/bad.log", tmp_dir());
	remove(png);
	snprintf(cmd, sizeof(cmd), "'%s' view '%s' --screenshot '%s' 2>'%s'", RK_CLI_PATH, bad, png, log);
	RK_CHECK_INT(run(cmd), 2);
	RK_CHECK(file_contains(log, "cut.fbx"));
	FILE *f = fopen(png, "rb");
	RK_CHECK(f == NULL);
	if (f) fclose(f);
	/* the window: the error as on-screen text (red glyph pixels in the top
	 * rows), then after 20 frames the loop closes normally */
	snprintf(png, sizeof(png), "%s/window_error.png", tmp_dir());
	snprintf(cmd, sizeof(cmd), "'%s' view '%s' '%s' --window-frames 20 --size 320x240 --capture '%s' 2>'%s'", RK_CLI_PATH,
		bad, src, png, log);
	RK_CHECK_INT(run(cmd), 0);
	RK_CHECK(count_text_pixels(png, 1) > 150);
	RK_CHECK(count_text_pixels(png, 0) < 20);
	/* a file that loads: the status line in white */
	snprintf(png, sizeof(png), "%s/window_ok.png", tmp_dir());
	snprintf(cmd, sizeof(cmd), "'%s' view '%s' --window-frames 20 --size 320x240 --capture '%s' 2>'%s'", RK_CLI_PATH,
		src, png, log);
	RK_CHECK_INT(run(cmd), 0);
	RK_CHECK(count_text_pixels(png, 0) > 150);
	RK_CHECK(count_text_pixels(png, 1) < 20);
}

/* Runs the window over the demo source character and `bad` for `frames`
 * frames pressing `keys`; the final state (JSON) goes to `out`. */
static int run_window(const char *bad, int frames, const char *keys, const char *out)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "'%s' view '%s/demo/source.glb' '%s' --window-frames %d --window-keys '%s' "
		"--size 320x240 --json >'%s' 2>'%s/window.log'", RK_CLI_PATH, tmp_dir(), bad, frames, keys, out, tmp_dir());
	return run(cmd);
}

/* The interactive loop driven by scripted keys (--window-keys, one key
 * every 10 frames): right arrow = next clip with a crossfade, r = root
 * motion in place, k = skeleton, n = next file (the previous one unloaded);
 * the final state comes back as JSON. */
RK_TEST(test_window_keys)
{
	const char *why = view_unavailable();
	if (why) RK_SKIP(why);
	char out[1024], bad[1024], src[1024];
	RK_REQUIRE(demo_written());
	snprintf(src, sizeof(src), "%s/tests/fixtures/rig.glb", RK_SOURCE_DIR);
	snprintf(bad, sizeof(bad), "%s/window_bad.glb", tmp_dir());
	RK_REQUIRE(write_prefix(src, bad, 700));
	snprintf(out, sizeof(out), "%s/window.json", tmp_dir());
	/* Idle -> Walk (crossfade), in place, skeleton on */
	RK_CHECK_INT(run_window(bad, 45, ">rk", out), 0);
	RK_CHECK(file_contains(out, "\"clip\": \"Walk\""));
	RK_CHECK(file_contains(out, "\"crossfades\": 1"));
	RK_CHECK(file_contains(out, "\"root_motion\": \"in place\""));
	RK_CHECK(file_contains(out, "\"skeleton\": true"));
	RK_CHECK(file_contains(out, "\"loaded\": true"));
	/* n: the truncated file, its error on screen; n again: back to the first */
	RK_CHECK_INT(run_window(bad, 30, "n", out), 0);
	RK_CHECK(file_contains(out, "\"loaded\": false"));
	RK_CHECK(file_contains(out, "window_bad.glb"));
	RK_CHECK_INT(run_window(bad, 40, "nn>", out), 0);
	RK_CHECK(file_contains(out, "\"loaded\": true"));
	RK_CHECK(file_contains(out, "\"clip\": \"Walk\""));
	RK_CHECK(file_contains(out, "\"error\": null"));
}

/* Sanitizer builds: no leak report of a viewer child names rigkit code. */
RK_TEST(test_no_rigkit_leaks)
{
#ifndef TEST_VIEW_ASAN
	RK_SKIP("not a sanitizer build (leaks are checked under make sanitize)");
#else
	if (view_unavailable()) RK_SKIP("viewer unavailable");
	char cmd[2048], list[1024];
	snprintf(list, sizeof(list), "%s/lsan_hits.txt", tmp_dir());
	snprintf(cmd, sizeof(cmd), "cat '%s'/lsan.* 2>/dev/null | grep -E ' in (view_|cli_|rk_|rki_)' >'%s'; "
		"ls '%s'/lsan.* 2>/dev/null | wc -l >&2", tmp_dir(), list, tmp_dir());
	run(cmd);
	size_t n;
	unsigned char *d = rk_test_read_file(list, &n);
	if (d && n) fprintf(stderr, "leaks in rigkit code:\n%.*s", (int)n, (const char *)d);
	RK_CHECK(d && n == 0);
	free(d);
#endif
}

RK_TEST(test_pairs_were_compared)
{
	if (view_unavailable()) RK_SKIP("viewer unavailable");
	fprintf(stderr, "  %d image pairs compared\n", pairs_compared);
	RK_CHECK(pairs_compared >= (quick() ? 12 : 40));
}

RK_TEST_MAIN(RK_TEST_ENTRY(test_fixtures_agree), RK_TEST_ENTRY(test_demo_characters_agree),
	RK_TEST_ENTRY(test_shared_avatars_agree), RK_TEST_ENTRY(test_anim_retargeted_agrees),
	RK_TEST_ENTRY(test_measure_detects_differences), RK_TEST_ENTRY(test_filmstrip_agrees),
	RK_TEST_ENTRY(test_leak_check_100_loads), RK_TEST_ENTRY(test_bad_file), RK_TEST_ENTRY(test_window_keys),
	RK_TEST_ENTRY(test_no_rigkit_leaks), RK_TEST_ENTRY(test_pairs_were_compared))
