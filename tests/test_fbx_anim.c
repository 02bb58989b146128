/*
 * tests/test_fbx_anim.c - FBX animation reading (src/formats/fbx/fbx_anim.c).
 *
 * Expectations come from outside the reader:
 *   - the conformance manifest (stack names per file),
 *   - numbers read from the ASCII files' text by the tiny reader below
 *     (KeyTime/KeyValueFloat arrays, LocalStart/LocalStop, and the comment
 *     lines the FBX SDK writes before each array, e.g.
 *     ";KeyAttrFlags: Cubic|TangeantUser" and
 *     ";KeyAttrDataFloat: RightSlope:45.2592, NextLeftSlope:-32.708, ..."),
 *   - the reference OBJs: the loaded curves are evaluated here by a small
 *     independent Bezier evaluator (not src/anim) and the resulting cube
 *     transform is compared with the OBJ vertices, which checks the slope
 *     units (value per second), the default 1/3 weights, auto tangents and
 *     the extrapolation modes numerically.
 * Hand-written ASCII files test flag/weight decoding, legacy Take key lists
 * and hostile data (bad counts, bad KeyAttrRefCount sums, keys going
 * backwards, malformed Key lists), every truncation and every allocation
 * failure of small files: an error or a warning, never a crash.
 */
#include "rigkit/rigkit.h"
#include "rk_test.h"

#include <cjson/cJSON.h>
#include <stdint.h>

#define TICKS 46186158000.0

/* ---- files ---------------------------------------------------------------- */

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

static void data_path(char *out, size_t cap, const char *shared, const char *name)
{
	snprintf(out, cap, "%s/conformance/data/%s", shared, name);
}

static rk_scene *load_data(const char *shared, const char *name, rk_error *err)
{
	char path[4096];
	data_path(path, sizeof(path), shared, name);
	memset(err, 0, sizeof(*err));
	return rk_load_file(path, NULL, err);
}

static void print_error(const char *what, const rk_error *err)
{
	char buf[2048];
	rk_error_format(buf, sizeof(buf), err);
	fprintf(stderr, "  %s: %s\n", what, buf);
}

/* ---- tiny ASCII FBX 7.x reader (independent of the library) ---------------- */

/* Numbers of "Name: *N { a: ... }" found after `from` and before `end`. */
static size_t text_array(const char *from, const char *end, const char *name, double *out, size_t cap)
{
	char key[64];
	snprintf(key, sizeof(key), "\t%s: *", name);
	const char *p = strstr(from, key);
	if (!p || p >= end) return 0;
	p = strstr(p, "a:");
	if (!p || p >= end) return 0;
	p += 2;
	size_t n = 0;
	while (*p && *p != '}') {
		char *q;
		double v = strtod(p, &q);
		if (q == p) {
			p++;
			continue;
		}
		if (n < cap) out[n] = v;
		n++;
		p = q;
	}
	return n;
}

/* The text of the comment line ";Name: ..." after `from`, copied into buf. */
static bool text_comment(const char *from, const char *end, const char *name, char *buf, size_t cap)
{
	char key[64];
	snprintf(key, sizeof(key), ";%s: ", name);
	const char *p = strstr(from, key);
	if (!p || p >= end) return false;
	p += strlen(key);
	size_t n = 0;
	while (p[n] && p[n] != '\n' && p[n] != '\r' && n + 1 < cap) n++;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

/* Value of P: "name", "KTime", "Time", "",<int> after `from`. */
static bool text_ktime(const char *from, const char *name, double *seconds)
{
	char key[64];
	snprintf(key, sizeof(key), "P: \"%s\", \"KTime\", \"Time\", \"\",", name);
	const char *p = strstr(from, key);
	if (!p) return false;
	*seconds = strtod(p + strlen(key), NULL) / TICKS;
	return true;
}

/* ---- independent curve evaluation ------------------------------------------ */

static double bez(double p0, double p1, double p2, double p3, double u)
{
	double a = 1.0 - u;
	return a * a * a * p0 + 3.0 * a * a * u * p1 + 3.0 * a * u * u * p2 + u * u * u * p3;
}

static double eval_inside(const rk_anim_curve *c, double t)
{
	size_t n = c->key_count;
	if (t <= c->times[0]) return c->values[0];
	if (t >= c->times[n - 1]) return c->values[n - 1];
	size_t i = 0;
	while (i + 2 < n && t >= c->times[i + 1]) i++;
	double t0 = c->times[i], t1 = c->times[i + 1], v0 = c->values[i], v1 = c->values[i + 1];
	switch (rk_curve_interp(c, i)) {
	case RK_INTERP_CONSTANT: return v0;
	case RK_INTERP_CONSTANT_NEXT: return t > t0 ? v1 : v0;
	case RK_INTERP_LINEAR: return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
	case RK_INTERP_CUBIC: {
		double dt = t1 - t0, wr = rk_curve_right_weight(c, i), wl = rk_curve_left_weight(c, i + 1);
		double x1 = t0 + wr * dt, x2 = t1 - wl * dt;
		double y1 = v0 + wr * dt * rk_curve_right_slope(c, i), y2 = v1 - wl * dt * rk_curve_left_slope(c, i + 1);
		double lo = 0.0, hi = 1.0;
		for (int it = 0; it < 200; it++) {
			double mid = 0.5 * (lo + hi);
			if (bez(t0, x1, x2, t1, mid) < t) lo = mid;
			else hi = mid;
		}
		return bez(v0, y1, y2, v1, 0.5 * (lo + hi));
	}
	}
	return v0;
}

/* Handles CONSTANT, REPEAT and REPEAT_RELATIVE (all this corpus needs);
 * *unsupported is set for other modes. */
static double eval_curve(const rk_anim_curve *c, double t, bool extrapolate, bool *unsupported)
{
	size_t n = c->key_count;
	double t0 = c->times[0], t1 = c->times[n - 1], d = t1 - t0;
	bool before = t < t0, after = t > t1;
	if (!extrapolate || n < 2 || d <= 0.0 || (!before && !after)) return eval_inside(c, t);
	rk_extrapolation mode = before ? c->pre_extrapolation : c->post_extrapolation;
	if (mode == RK_EXTRAPOLATE_CONSTANT) return eval_inside(c, t);
	if (mode != RK_EXTRAPOLATE_REPEAT && mode != RK_EXTRAPOLATE_REPEAT_RELATIVE) {
		*unsupported = true;
		return 0.0;
	}
	double k = floor((t - t0) / d);
	double v = eval_inside(c, t - k * d);
	if (mode == RK_EXTRAPOLATE_REPEAT_RELATIVE) v += k * (c->values[n - 1] - c->values[0]);
	return v;
}

static const rk_anim_track *find_track(const rk_anim_clip *clip, const char *node, const char *prop)
{
	for (size_t l = 0; l < clip->layer_count; l++)
		for (size_t i = 0; i < clip->layers[l].track_count; i++) {
			const rk_anim_track *t = &clip->layers[l].tracks[i];
			if (t->node && strcmp(t->node->name, node) == 0 && t->property && strcmp(t->property, prop) == 0) return t;
		}
	return NULL;
}

static double track_value(const rk_anim_track *t, int k, double time, bool extrapolate, bool *unsupported)
{
	if (!t || !t->curves[k]) return t ? t->default_value[k] : 0.0;
	return eval_curve(t->curves[k], time, extrapolate, unsupported);
}

/* All curves of a scene (distinct pointers), up to cap. */
static size_t scene_curves(const rk_scene *s, const rk_anim_curve **out, size_t cap)
{
	size_t n = 0;
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		for (size_t l = 0; l < clip->layer_count; l++)
			for (size_t i = 0; i < clip->layers[l].track_count; i++)
				for (int k = 0; k < 4; k++) {
					const rk_anim_curve *cv = clip->layers[l].tracks[i].curves[k];
					if (!cv) continue;
					bool dup = false;
					for (size_t j = 0; j < n && !dup; j++) dup = out[j] == cv;
					if (!dup && n < cap) out[n++] = cv;
				}
	}
	return n;
}

/* Every track must have a curve with keys, strictly increasing times. */
static int check_scene_invariants(const rk_scene *s)
{
	int bad = 0;
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *clip = &s->clips.data[c];
		if (clip->index != c || !clip->name) bad++;
		for (size_t l = 0; l < clip->layer_count; l++) {
			const rk_anim_layer *layer = &clip->layers[l];
			for (size_t i = 0; i < layer->track_count; i++) {
				const rk_anim_track *t = &layer->tracks[i];
				bool any = false;
				if (!t->node || t->node->index >= s->nodes.count || &s->nodes.data[t->node->index] != t->node) bad++;
				for (int k = 0; k < 4; k++) {
					const rk_anim_curve *cv = t->curves[k];
					if (!cv) continue;
					any = true;
					if (cv->key_count == 0 || !cv->times || !cv->values || !cv->interp) {
						bad++;
						continue;
					}
					for (size_t j = 1; j < cv->key_count; j++)
						if (!(cv->times[j] > cv->times[j - 1])) bad++;
				}
				if (!any) bad++;
			}
		}
	}
	return bad;
}

/* ---- corpus: stack names ----------------------------------------------------- */

RK_TEST(corpus_stack_names_match_manifest)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	char path[4096];
	snprintf(path, sizeof(path), "%s/conformance/manifest.json", shared);
	char *text = read_file(path, NULL);
	if (!text) RK_SKIP("conformance/manifest.json not found");
	cJSON *root = cJSON_Parse(text);
	free(text);
	RK_REQUIRE(root && cJSON_IsArray(root));
	size_t files = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, root) {
		const cJSON *fbx = cJSON_GetObjectItemCaseSensitive(e, "fbx");
		const cJSON *info = cJSON_GetObjectItemCaseSensitive(e, "file_info");
		const cJSON *stacks = cJSON_GetObjectItemCaseSensitive(info, "anim_stacks");
		if (!cJSON_IsString(fbx) || !cJSON_IsArray(stacks)) continue;
		/* one check per file: skip entries whose file came earlier */
		bool seen = false;
		for (const cJSON *p = root->child; p && p != e && !seen; p = p->next) {
			const cJSON *pf = cJSON_GetObjectItemCaseSensitive(p, "fbx");
			seen = cJSON_IsString(pf) && strcmp(pf->valuestring, fbx->valuestring) == 0;
		}
		if (seen) continue;
		files++;
		rk_error err;
		rk_scene *s = load_data(shared, fbx->valuestring, &err);
		if (!s) {
			fprintf(stderr, "  %s does not load\n", fbx->valuestring);
			print_error(fbx->valuestring, &err);
			rk_t_->failed++;
			continue;
		}
		/* "(internal)" is the ufbx checker's own stack for channels stored
		 * directly on pre-6000 Models, not a stack or take in the file. */
		size_t want = 0;
		const cJSON *st;
		cJSON_ArrayForEach(st, stacks) {
			if (!cJSON_IsString(st) || strcmp(st->valuestring, "(internal)") == 0) continue;
			if (want >= s->clips.count || strcmp(s->clips.data[want].name, st->valuestring) != 0) {
				fprintf(stderr, "  %s: stack %zu expected \"%s\", got \"%s\"\n", fbx->valuestring, want, st->valuestring,
					want < s->clips.count ? s->clips.data[want].name : "(none)");
				rk_t_->failed++;
			}
			want++;
		}
		if (want != s->clips.count) {
			fprintf(stderr, "  %s: %zu clips, manifest lists %zu stacks\n", fbx->valuestring, s->clips.count, want);
			rk_t_->failed++;
		}
		RK_CHECK_INT(check_scene_invariants(s), 0);
		for (size_t c = 0; c < s->clips.count; c++) RK_CHECK(s->clips.data[c].time_end >= s->clips.data[c].time_begin);
		rk_scene_free(s);
	}
	cJSON_Delete(root);
	RK_CHECK(files > 100);
}

/* ---- corpus: ASCII 7.x curve data against the file text ------------------------------------ */

/* Compares every AnimationCurve of an ASCII 7.x file with the loaded curves:
 * key times and values, interpolation from the ";KeyAttrFlags:" comment,
 * and user-tangent slopes from the ";KeyAttrDataFloat:" comment. */
static void check_ascii_curves(rk_test_state *rk_t_, const char *shared, const char *name, size_t expect_curves)
{
	char path[4096];
	data_path(path, sizeof(path), shared, name);
	char *text = read_file(path, NULL);
	RK_REQUIRE(text);
	rk_error err;
	rk_scene *s = load_data(shared, name, &err);
	if (!s) print_error(name, &err);
	RK_REQUIRE(s);
	const rk_anim_curve *curves[512];
	size_t nc = scene_curves(s, curves, 512);
	bool *used = (bool *)calloc(nc + 1, sizeof(bool));
	size_t found = 0;
	double *tv = (double *)malloc(4096 * sizeof(double)), *vv = (double *)malloc(4096 * sizeof(double));
	double *refs = (double *)malloc(4096 * sizeof(double));
	RK_REQUIRE(used && tv && vv && refs);
	for (const char *p = strstr(text, "\tAnimationCurve: "); p; p = strstr(p + 1, "\tAnimationCurve: ")) {
		const char *end = strstr(p, "\n\t}");
		if (!end) break;
		size_t nt = text_array(p, end, "KeyTime", tv, 4096);
		size_t nv = text_array(p, end, "KeyValueFloat", vv, 4096);
		RK_CHECK_INT(nt, nv);
		if (nt == 0 || nt > 4096 || nt != nv) continue;
		found++;
		/* the loaded curve with exactly these keys */
		const rk_anim_curve *cv = NULL;
		for (size_t i = 0; i < nc && !cv; i++) {
			if (used[i] || curves[i]->key_count != nt) continue;
			bool same = true;
			for (size_t k = 0; k < nt && same; k++)
				same = fabs(curves[i]->times[k] - tv[k] / TICKS) < 1e-12 && curves[i]->values[k] == vv[k];
			if (same) {
				cv = curves[i];
				used[i] = true;
			}
		}
		if (!cv) {
			fprintf(stderr, "  %s: curve at byte %ld (%zu keys) not found among the loaded curves\n", name,
				(long)(p - text), nt);
			rk_t_->failed++;
			continue;
		}
		/* interpolation per key from the SDK's comment, expanded by KeyAttrRefCount */
		char flags[8192];
		size_t nr = text_array(p, end, "KeyAttrRefCount", refs, 4096);
		if (text_comment(p, end, "KeyAttrFlags", flags, sizeof(flags)) && nr > 0) {
			size_t key = 0, attr = 0;
			for (char *tok = strtok(flags, ","); tok && attr < nr; tok = strtok(NULL, ","), attr++) {
				rk_interp want = strstr(tok, "Constant") ? (strstr(tok, "ConstantNext") ? RK_INTERP_CONSTANT_NEXT : RK_INTERP_CONSTANT)
					: strstr(tok, "Linear") ? RK_INTERP_LINEAR : RK_INTERP_CUBIC;
				for (int r = 0; r < (int)refs[attr] && key < nt; r++, key++) RK_CHECK_INT(rk_curve_interp(cv, key), want);
			}
			RK_CHECK_INT(key, nt);
		}
		/* user tangents: the comment lists RightSlope / NextLeftSlope per attribute */
		char data[8192];
		if (text_comment(p, end, "KeyAttrDataFloat", data, sizeof(data)) && strstr(data, "RightSlope:") && nr == nt) {
			char fl[8192];
			text_comment(p, end, "KeyAttrFlags", fl, sizeof(fl));
			const char *q = data;
			for (size_t k = 0; k < nt; k++) {
				const char *rsp = strstr(q, "RightSlope:"), *nlp = strstr(q, "NextLeftSlope:");
				if (!rsp || !nlp) break;
				double rs = strtod(rsp + 11, NULL), nl = strtod(nlp + 14, NULL);
				if (rk_curve_interp(cv, k) == RK_INTERP_CUBIC && strstr(fl, "TangeantUser")) {
					RK_CHECK_NEAR(rk_curve_right_slope(cv, k), rs, 1e-4 * (1.0 + fabs(rs)));
					if (k + 1 < nt) RK_CHECK_NEAR(rk_curve_left_slope(cv, k + 1), nl, 1e-4 * (1.0 + fabs(nl)));
				}
				q = nlp + 14;
			}
		}
	}
	RK_CHECK_INT(found, expect_curves);
	RK_CHECK_INT(nc, expect_curves);
	free(used);
	free(tv);
	free(vv);
	free(refs);
	free(text);
	rk_scene_free(s);
}

RK_TEST(ascii_7x_curves_match_file_text)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	/* counts = "AnimationCurve:" objects in each file (grep -c) */
	check_ascii_curves(rk_t_, shared, "maya_extrapolate_cube_7700_ascii.fbx", 10);
	check_ascii_curves(rk_t_, shared, "motionbuilder_sausage_rrss_7700_ascii.fbx", 6);
	check_ascii_curves(rk_t_, shared, "maya_child_pivots_7700_ascii.fbx", 30);
	check_ascii_curves(rk_t_, shared, "maya_mixed_inherit_mode_7700_ascii.fbx", 60);
	check_ascii_curves(rk_t_, shared, "max_transformed_skin_7500_ascii.fbx", 18);
}

RK_TEST(ascii_7x_time_ranges_and_flags)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	char path[4096];
	data_path(path, sizeof(path), shared, "maya_extrapolate_cube_7700_ascii.fbx");
	char *text = read_file(path, NULL);
	RK_REQUIRE(text);
	double start = 0, stop = 0;
	const char *stack = strstr(text, "AnimationStack: ");
	RK_REQUIRE(stack && text_ktime(stack, "LocalStart", &start) && text_ktime(stack, "LocalStop", &stop));
	free(text);
	rk_error err;
	rk_scene *s = load_data(shared, "maya_extrapolate_cube_7700_ascii.fbx", &err);
	RK_REQUIRE(s && s->clips.count == 1);
	const rk_anim_clip *clip = &s->clips.data[0];
	RK_CHECK_STR(clip->name, "Take 001");
	RK_CHECK_NEAR(clip->time_begin, start, 1e-12);
	RK_CHECK_NEAR(clip->time_end, stop, 1e-12);
	RK_REQUIRE(clip->layer_count == 1);
	RK_CHECK_STR(clip->layers[0].name, "BaseLayer");
	RK_CHECK_NEAR(clip->layers[0].weight, 1.0, 0);

	const rk_anim_track *tt = find_track(clip, "pCube1", "Lcl Translation");
	const rk_anim_track *tr = find_track(clip, "pCube1", "Lcl Rotation");
	const rk_anim_track *ts = find_track(clip, "pCube1", "Lcl Scaling");
	const rk_anim_track *tv = find_track(clip, "pCube1", "Visibility");
	RK_REQUIRE(tt && tr && ts && tv);
	RK_CHECK_INT(tt->target, RK_TARGET_TRANSLATION);
	RK_CHECK_INT(tr->target, RK_TARGET_ROTATION_EULER);
	RK_CHECK_INT(ts->target, RK_TARGET_SCALE);
	RK_CHECK_INT(tv->target, RK_TARGET_FBX_PROPERTY);
	/* P: "d|Visibility", "Visibility", "", "A",1 and scaling d|X..Z = 1 */
	RK_CHECK_NEAR(tv->default_value[0], 1.0, 0);
	RK_CHECK_NEAR(ts->default_value[2], 1.0, 0);
	/* ";KeyAttrFlags: Constant|ConstantStandard" */
	RK_REQUIRE(tv->curves[0] && tv->curves[0]->key_count == 1);
	RK_CHECK_INT(rk_curve_interp(tv->curves[0], 0), RK_INTERP_CONSTANT);
	/* T.Y: ";KeyAttrDataFloat: RightSlope:45.2592, NextLeftSlope:-32.708,
	 * RightWeight:0.333333, NextLeftWeight:0.333333", Post-Extrapolation Type: A */
	const rk_anim_curve *ty = tt->curves[1];
	RK_REQUIRE(ty && ty->key_count == 2);
	RK_CHECK_NEAR(rk_curve_right_slope(ty, 0), 45.2592, 1e-4);
	RK_CHECK_NEAR(rk_curve_left_slope(ty, 1), -32.708, 1e-4);
	RK_CHECK_NEAR(rk_curve_right_weight(ty, 0), 1.0 / 3.0, 1e-12); /* 3333 / 9999 */
	RK_CHECK_NEAR(rk_curve_left_weight(ty, 1), 1.0 / 3.0, 1e-12);
	RK_CHECK_INT(ty->post_extrapolation, RK_EXTRAPOLATE_REPEAT_RELATIVE);
	RK_CHECK_INT(ty->post_repeat_count, -1);
	RK_CHECK_INT(ty->pre_extrapolation, RK_EXTRAPOLATE_CONSTANT);
	/* R.Y has Pre- and Post-Extrapolation Type: R */
	const rk_anim_curve *ry = tr->curves[1];
	RK_REQUIRE(ry && ry->key_count == 3);
	RK_CHECK_INT(ry->pre_extrapolation, RK_EXTRAPOLATE_REPEAT);
	RK_CHECK_INT(ry->post_extrapolation, RK_EXTRAPOLATE_REPEAT);
	/* auto tangent of the middle key of 0, 45, 90 at 1/24 s, 1 s, 1.5 s:
	 * the neighbours' secant 90 / (1.5 - 1/24) */
	RK_CHECK_NEAR(rk_curve_left_slope(ry, 1), 90.0 / (1.5 - 1.0 / 24.0), 1e-9);
	RK_CHECK_NEAR(rk_curve_right_slope(ry, 1), 90.0 / (1.5 - 1.0 / 24.0), 1e-9);
	RK_CHECK_NEAR(rk_curve_right_slope(ry, 0), 0.0, 0);
	RK_CHECK_NEAR(rk_curve_left_slope(ry, 2), 0.0, 0);
	RK_CHECK_NEAR(ry->min_value, 0.0, 0);
	RK_CHECK_NEAR(ry->max_value, 90.0, 0);
	rk_scene_free(s);
}

RK_TEST(binary_and_ascii_7x_decode_identically)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	static const char *pairs[][2] = {
		{ "maya_extrapolate_cube_7700_ascii.fbx", "maya_extrapolate_cube_7700_binary.fbx" },
		{ "maya_pivot_offset_7700_ascii.fbx", "maya_pivot_offset_7700_binary.fbx" },
		{ "motionbuilder_sausage_rrss_7700_ascii.fbx", "motionbuilder_sausage_rrss_7700_binary.fbx" },
		{ "max_transformed_skin_7500_ascii.fbx", "max_transformed_skin_7500_binary.fbx" },
		{ "maya_pivot_offset_6100_ascii.fbx", "maya_pivot_offset_6100_binary.fbx" },
		{ "max2009_cube_anim_6100_ascii.fbx", "max2009_cube_anim_6100_binary.fbx" },
		{ "max_transformed_skin_6100_ascii.fbx", "max_transformed_skin_6100_binary.fbx" },
	};
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		rk_error ea, eb;
		rk_scene *a = load_data(shared, pairs[p][0], &ea);
		rk_scene *b = load_data(shared, pairs[p][1], &eb);
		RK_REQUIRE(a && b);
		RK_REQUIRE(a->clips.count == b->clips.count && a->clips.count > 0);
		for (size_t c = 0; c < a->clips.count; c++) {
			const rk_anim_clip *ca = &a->clips.data[c], *cb = &b->clips.data[c];
			RK_CHECK_STR(ca->name, cb->name);
			RK_CHECK_NEAR(ca->time_begin, cb->time_begin, 0);
			RK_CHECK_NEAR(ca->time_end, cb->time_end, 0);
			RK_REQUIRE(ca->layer_count == cb->layer_count);
			for (size_t l = 0; l < ca->layer_count; l++) {
				RK_REQUIRE(ca->layers[l].track_count == cb->layers[l].track_count);
				for (size_t i = 0; i < ca->layers[l].track_count; i++) {
					const rk_anim_track *ta = &ca->layers[l].tracks[i];
					const rk_anim_track *tb = find_track(cb, ta->node->name, ta->property);
					RK_REQUIRE(tb);
					for (int k = 0; k < 4; k++) {
						const rk_anim_curve *x = ta->curves[k], *y = tb->curves[k];
						RK_REQUIRE((x == NULL) == (y == NULL));
						if (!x) continue;
						RK_REQUIRE(x->key_count == y->key_count);
						for (size_t j = 0; j < x->key_count; j++) {
							RK_CHECK_NEAR(x->times[j], y->times[j], 0);
							/* binary floats vs the decimal text the SDK printed */
							RK_CHECK_NEAR(x->values[j], y->values[j], 1e-6 * (1 + fabs(x->values[j])));
							RK_CHECK_INT(rk_curve_interp(x, j), rk_curve_interp(y, j));
							RK_CHECK_NEAR(rk_curve_right_slope(x, j), rk_curve_right_slope(y, j), 1e-9 * (1 + fabs(rk_curve_right_slope(x, j))));
							RK_CHECK_NEAR(rk_curve_left_slope(x, j), rk_curve_left_slope(y, j), 1e-9 * (1 + fabs(rk_curve_left_slope(x, j))));
							RK_CHECK_NEAR(rk_curve_right_weight(x, j), rk_curve_right_weight(y, j), 1e-9);
							RK_CHECK_NEAR(rk_curve_left_weight(x, j), rk_curve_left_weight(y, j), 1e-9);
						}
						RK_CHECK_INT(x->pre_extrapolation, y->pre_extrapolation);
						RK_CHECK_INT(x->post_extrapolation, y->post_extrapolation);
					}
				}
			}
		}
		rk_scene_free(a);
		rk_scene_free(b);
	}
}

/* The same scene exported as 6100 (Takes) and 7700 (stacks) by Maya. */
RK_TEST(takes_6100_match_stacks_7700)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	static const char *pairs[][2] = {
		{ "maya_pivot_offset_6100_ascii.fbx", "maya_pivot_offset_7700_ascii.fbx" },
		{ "maya_null_pivots_6100_ascii.fbx", "maya_null_pivots_7700_ascii.fbx" },
		{ "maya_zero_scale_pivot_6100_ascii.fbx", "maya_zero_scale_pivot_7700_ascii.fbx" },
		{ "maya_child_pivots_6100_ascii.fbx", "maya_child_pivots_7700_ascii.fbx" },
	};
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		rk_error ea, eb;
		rk_scene *a = load_data(shared, pairs[p][0], &ea);
		rk_scene *b = load_data(shared, pairs[p][1], &eb);
		RK_REQUIRE(a && b && a->clips.count == 1 && b->clips.count == 1);
		const rk_anim_clip *ca = &a->clips.data[0], *cb = &b->clips.data[0];
		RK_CHECK_STR(ca->name, cb->name);
		RK_CHECK_NEAR(ca->time_begin, cb->time_begin, 1e-12);
		RK_CHECK_NEAR(ca->time_end, cb->time_end, 1e-12);
		size_t ta_count = ca->layers[0].track_count;
		RK_CHECK_INT(ta_count, cb->layers[0].track_count);
		for (size_t i = 0; i < ta_count; i++) {
			const rk_anim_track *ta = &ca->layers[0].tracks[i];
			const rk_anim_track *tb = find_track(cb, ta->node->name, ta->property);
			if (!tb) {
				fprintf(stderr, "  %s: no %s.%s in the 7700 file\n", pairs[p][0], ta->node->name, ta->property);
				rk_t_->failed++;
				continue;
			}
			RK_CHECK_INT(ta->target, tb->target);
			for (int k = 0; k < 4; k++) {
				const rk_anim_curve *x = ta->curves[k], *y = tb->curves[k];
				RK_REQUIRE((x == NULL) == (y == NULL));
				if (!x) continue;
				RK_REQUIRE(x->key_count == y->key_count);
				for (size_t j = 0; j < x->key_count; j++) {
					RK_CHECK_NEAR(x->times[j], y->times[j], 1e-12);
					RK_CHECK_NEAR(x->values[j], y->values[j], 1e-5 * (1 + fabs(y->values[j])));
					/* both files' keys evaluate alike: compare at the segment middle */
					if (j + 1 < x->key_count) {
						double tm = 0.5 * (x->times[j] + x->times[j + 1]);
						RK_CHECK_NEAR(eval_inside(x, tm), eval_inside(y, tm), 1e-5);
					}
				}
			}
		}
		rk_scene_free(a);
		rk_scene_free(b);
	}
}

/* ---- corpus: numeric checks against reference OBJs ------------------------------------------ */

static bool obj_positions(const char *shared, const char *name, rk_vec3 *out, size_t cap, size_t *count)
{
	char path[4096];
	data_path(path, sizeof(path), shared, name);
	char *text = read_file(path, NULL);
	if (!text) return false;
	size_t n = 0;
	for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
		if (line[0] != 'v' || line[1] != ' ') continue;
		double x, y, z;
		if (sscanf(line + 2, "%lf %lf %lf", &x, &y, &z) == 3 && n < cap) out[n++] = (rk_vec3){ x, y, z };
	}
	free(text);
	*count = n;
	return true;
}

static void euler_xyz_matrix(double rx, double ry, double rz, double m[3][3])
{
	double d = 3.14159265358979323846 / 180.0;
	double cx = cos(rx * d), sx = sin(rx * d), cy = cos(ry * d), sy = sin(ry * d), cz = cos(rz * d), sz = sin(rz * d);
	/* Rz * Ry * Rx (x applied first) */
	m[0][0] = cz * cy; m[0][1] = cz * sy * sx - sz * cx; m[0][2] = cz * sy * cx + sz * sx;
	m[1][0] = sz * cy; m[1][1] = sz * sy * sx + cz * cx; m[1][2] = sz * sy * cx - cz * sx;
	m[2][0] = -sy;     m[2][1] = cy * sx;                m[2][2] = cy * cx;
}

/* maya_extrapolate_cube: one cube node pCube1 (no pivots, XYZ order, child
 * of the root) whose T/R/S are animated with user, auto and constant keys
 * and every extrapolation the corpus has. Its mesh vertices, moved by
 * T * R * S evaluated from the loaded curves here, must match the OBJs. */
RK_TEST(extrapolate_cube_curves_reproduce_reference_objs)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	static const struct { const char *obj; double frame; bool extrapolate; } cases[] = {
		{ "maya_extrapolate_cube_26.obj", 26, true }, { "maya_extrapolate_cube_60.obj", 60, true },
		{ "maya_extrapolate_cube_80.obj", 80, true }, { "maya_extrapolate_cube_100.obj", 100, true },
		{ "maya_extrapolate_cube_noex_28.obj", 28, false }, { "maya_extrapolate_cube_noex_34.obj", 34, false },
		{ "maya_extrapolate_cube_noex_44.obj", 44, false }, { "maya_extrapolate_cube_noex_68.obj", 68, false },
	};
	static const char *files[] = { "maya_extrapolate_cube_7700_ascii.fbx", "maya_extrapolate_cube_7700_binary.fbx" };
	for (size_t f = 0; f < 2; f++) {
		rk_error err;
		rk_scene *s = load_data(shared, files[f], &err);
		RK_REQUIRE(s && s->clips.count == 1);
		const rk_node *node = rk_scene_find_node(s, "pCube1");
		RK_REQUIRE(node && node->mesh && node->mesh->vertex_count == 8);
		RK_REQUIRE(node->props.rotation_order == RK_ROTATION_XYZ);
		RK_REQUIRE(node->props.rotation_pivot.x == 0 && node->props.scaling_pivot.y == 0 && node->props.pre_rotation.z == 0);
		const rk_anim_clip *clip = &s->clips.data[0];
		const rk_anim_track *tt = find_track(clip, "pCube1", "Lcl Translation");
		const rk_anim_track *tr = find_track(clip, "pCube1", "Lcl Rotation");
		const rk_anim_track *ts = find_track(clip, "pCube1", "Lcl Scaling");
		RK_REQUIRE(tt && tr && ts);
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			rk_vec3 ref[16];
			size_t nref;
			RK_REQUIRE(obj_positions(shared, cases[c].obj, ref, 16, &nref) && nref == 8);
			double t = cases[c].frame / 24.0;
			bool unsupported = false;
			double T[3], R[3], S[3];
			for (int k = 0; k < 3; k++) {
				T[k] = track_value(tt, k, t, cases[c].extrapolate, &unsupported);
				R[k] = track_value(tr, k, t, cases[c].extrapolate, &unsupported);
				S[k] = track_value(ts, k, t, cases[c].extrapolate, &unsupported);
			}
			RK_CHECK(!unsupported);
			double m[3][3];
			euler_xyz_matrix(R[0], R[1], R[2], m);
			double worst = 0;
			for (size_t v = 0; v < 8; v++) {
				rk_vec3 p = rk_mesh_position(node->mesh, v);
				double q[3] = { p.x * S[0], p.y * S[1], p.z * S[2] };
				double w[3];
				for (int r = 0; r < 3; r++) w[r] = T[r] + m[r][0] * q[0] + m[r][1] * q[1] + m[r][2] * q[2];
				double e = fmax(fabs(w[0] - ref[v].x), fmax(fabs(w[1] - ref[v].y), fabs(w[2] - ref[v].z)));
				if (e > worst) worst = e;
			}
			if (worst > 1e-4) fprintf(stderr, "  %s %s: worst error %g\n", files[f], cases[c].obj, worst);
			RK_CHECK(worst <= 1e-4);
		}
		rk_scene_free(s);
	}
}

/* max2009_cube_anim (3ds Max, 6100 Takes): Box01 spans z 0..20 around the
 * z axis and rotates about Z only, so the OBJ centroid is (T.x, T.y,
 * 10 * S.z). Keys: T.X 0, -70, 70 with "a" weights 0.333233 and a last "r"
 * weight 0.989999; S.Z 1, 1.5, 2.25 with slopes 0.625 ("U,s,0,0.625,n"). */
RK_TEST(take_6100_keys_reproduce_reference_objs)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	static const char *files[] = { "max2009_cube_anim_6100_ascii.fbx", "max2009_cube_anim_6100_binary.fbx" };
	static const struct { const char *obj; double t; } cases[] = { { "max2009_cube_anim_15.obj", 0.5 }, { "max2009_cube_anim_45.obj", 1.5 } };
	for (size_t f = 0; f < 2; f++) {
		rk_error err;
		rk_scene *s = load_data(shared, files[f], &err);
		RK_REQUIRE(s && s->clips.count == 1);
		const rk_anim_clip *clip = &s->clips.data[0];
		RK_CHECK_STR(clip->name, "Take 001");
		RK_CHECK_NEAR(clip->time_begin, 0.0, 0);          /* LocalTime: 0,92372316000 */
		RK_CHECK_NEAR(clip->time_end, 92372316000.0 / TICKS, 1e-15);
		const rk_anim_track *tt = find_track(clip, "Box01", "Lcl Translation");
		const rk_anim_track *ts = find_track(clip, "Box01", "Lcl Scaling");
		RK_REQUIRE(tt && ts && tt->curves[0] && ts->curves[2]);
		const rk_anim_curve *tx = tt->curves[0], *sz = ts->curves[2];
		RK_REQUIRE(tx->key_count == 3 && sz->key_count == 3);
		RK_CHECK_NEAR(rk_curve_right_weight(tx, 0), 0.333233326673508, 1e-12);
		RK_CHECK_NEAR(rk_curve_left_weight(tx, 1), 0.333233326673508, 1e-12);
		RK_CHECK_NEAR(rk_curve_right_weight(tx, 2), 0.989998996257782, 1e-12);
		RK_CHECK_INT(rk_curve_interp(tx, 0), RK_INTERP_CUBIC);
		RK_CHECK_NEAR(rk_curve_left_slope(sz, 1), 0.62499988079071, 1e-12);
		RK_CHECK_NEAR(rk_curve_right_slope(sz, 1), 0.62499988079071, 1e-12);
		RK_CHECK_NEAR(rk_curve_right_weight(sz, 1), 1.0 / 3.0, 1e-12); /* 'n': default */
		const rk_node *node = rk_scene_find_node(s, "Box01");
		RK_REQUIRE(node && node->mesh && node->mesh->vertex_count > 0);
		double cz = 0;
		for (size_t v = 0; v < node->mesh->vertex_count; v++) cz += rk_mesh_position(node->mesh, v).z;
		cz /= (double)node->mesh->vertex_count;
		RK_CHECK_NEAR(cz, 10.0, 1e-5);
		for (size_t c = 0; c < 2; c++) {
			rk_vec3 ref[64];
			size_t n;
			RK_REQUIRE(obj_positions(shared, cases[c].obj, ref, 64, &n) && n > 0);
			rk_vec3 m = { 0, 0, 0 };
			for (size_t v = 0; v < n; v++) {
				m.x += ref[v].x / (double)n;
				m.z += ref[v].z / (double)n;
			}
			bool unsupported = false;
			RK_CHECK_NEAR(eval_curve(tx, cases[c].t, true, &unsupported), m.x, 1e-4);
			RK_CHECK_NEAR(eval_curve(sz, cases[c].t, true, &unsupported) * cz, m.z, 1e-4);
		}
		rk_scene_free(s);
	}
}

/* blender440_shape_weight_anim: DeformPercent curves of channels "Key" and
 * "Side". From the OBJs: Side moves vertex 4 by +2 x at full weight with
 * FullWeights 50 % (x = 1 + w), Key moves vertex 3 by +2 (y after the
 * file's -90 degree X rotation) with FullWeights 100 % (y = 1 + 2 w). */
RK_TEST(blend_shape_weight_curves)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder not found");
	rk_error err;
	rk_scene *s = load_data(shared, "blender440_shape_weight_anim_7400_binary.fbx", &err);
	RK_REQUIRE(s && s->clips.count == 1);
	const rk_anim_clip *clip = &s->clips.data[0];
	RK_CHECK_STR(clip->name, "Cube|Action");
	const rk_node *node = rk_scene_find_node(s, "Cube");
	RK_REQUIRE(node && node->mesh && node->mesh->blend_channels.count == 2);
	const rk_anim_track *key = NULL, *side = NULL;
	size_t morph = 0;
	for (size_t i = 0; i < clip->layers[0].track_count; i++) {
		const rk_anim_track *t = &clip->layers[0].tracks[i];
		if (t->target != RK_TARGET_MORPH_WEIGHTS) continue;
		morph++;
		RK_CHECK(t->node == node);
		RK_CHECK_STR(t->property, "DeformPercent");
		RK_REQUIRE(t->morph_channel < node->mesh->blend_channels.count);
		const char *nm = node->mesh->blend_channels.data[t->morph_channel].name;
		if (strcmp(nm, "Key") == 0) key = t;
		if (strcmp(nm, "Side") == 0) side = t;
	}
	RK_CHECK_INT(morph, 2);
	RK_REQUIRE(key && side && key->curves[0] && side->curves[0]);
	static const struct { const char *obj; double frame; } cases[] = {
		{ "blender440_shape_weight_anim_5.obj", 5 }, { "blender440_shape_weight_anim_15.obj", 15 },
		{ "blender440_shape_weight_anim_25.obj", 25 },
	};
	for (size_t c = 0; c < 3; c++) {
		rk_vec3 ref[16];
		size_t n;
		RK_REQUIRE(obj_positions(shared, cases[c].obj, ref, 16, &n) && n == 8);
		bool unsupported = false;
		double t = cases[c].frame / 24.0;
		RK_CHECK_NEAR(eval_curve(side->curves[0], t, true, &unsupported), 100.0 * (ref[4].x - 1.0), 1e-3);
		RK_CHECK_NEAR(eval_curve(key->curves[0], t, true, &unsupported), 100.0 * (ref[3].y - 1.0) / 2.0, 1e-3);
	}
	rk_scene_free(s);
}

/* ---- hand-written files ----------------------------------------------------------------------- */

/* A 7.4 ASCII file with one node "Cube", one stack "Walk" (LocalStop 1 s),
 * one layer and a translation curve node; CURVE is the AnimationCurve body. */
static char *make_fbx7(const char *curve, const char *layer_props, const char *extra_conns)
{
	static const char head[] =
		"; FBX 7.4.0 project file\n"
		"FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
		"Objects:  {\n"
		"\tModel: 100, \"Model::Cube\", \"Null\" {\n\t\tVersion: 232\n\t\tProperties70:  {\n"
		"\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",1,2,3\n\t\t}\n\t}\n"
		"\tAnimationStack: 200, \"AnimStack::Walk\", \"\" {\n\t\tProperties70:  {\n"
		"\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n"
		"\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",46186158000\n\t\t}\n\t}\n"
		"\tAnimationLayer: 300, \"AnimLayer::Base\", \"\" {\n";
	static const char mid[] =
		"\t}\n"
		"\tAnimationCurveNode: 400, \"AnimCurveNode::T\", \"\" {\n\t\tProperties70:  {\n"
		"\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",7\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",8\n"
		"\t\t}\n\t}\n"
		"\tAnimationCurve: 500, \"AnimCurve::\", \"\" {\n";
	static const char tail[] =
		"\t}\n}\n"
		"Connections:  {\n\tC: \"OO\",100,0\n\tC: \"OO\",300,200\n\tC: \"OO\",400,300\n"
		"\tC: \"OP\",400,100, \"Lcl Translation\"\n\tC: \"OP\",500,400, \"d|X\"\n";
	size_t n = strlen(head) + strlen(layer_props) + strlen(mid) + strlen(curve) + strlen(tail) + strlen(extra_conns) + 8;
	char *s = (char *)malloc(n);
	if (s) snprintf(s, n, "%s%s%s%s%s%s}\n", head, layer_props, mid, curve, tail, extra_conns);
	return s;
}

/* A 6100 ASCII file: node "Cube" and one Take "Walk" animating T.X with KEYS. */
static char *make_fbx6(const char *keys, const char *keycount)
{
	static const char head[] =
		"; FBX 6.1.0 project file\n"
		"FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 6100\n}\n"
		"Objects:  {\n\tModel: \"Model::Cube\", \"Null\" {\n\t\tVersion: 232\n\t\tProperties60:  {\n"
		"\t\t\tProperty: \"Lcl Translation\", \"Lcl Translation\", \"A\",1,2,3\n\t\t}\n\t}\n}\n"
		"Connections:  {\n\tConnect: \"OO\", \"Model::Cube\", \"Model::Scene\"\n}\n"
		"Takes:  {\n\tCurrent: \"Walk\"\n\tTake: \"Walk\" {\n\t\tFileName: \"Walk.tak\"\n"
		"\t\tLocalTime: 0,46186158000\n\t\tReferenceTime: 0,46186158000\n"
		"\t\tModel: \"Model::Cube\" {\n\t\t\tVersion: 1.1\n\t\t\tChannel: \"Transform\" {\n"
		"\t\t\t\tChannel: \"T\" {\n\t\t\t\t\tChannel: \"X\" {\n\t\t\t\t\t\tDefault: 4\n"
		"\t\t\t\t\t\tKeyVer: 4005\n\t\t\t\t\t\tKeyCount: ";
	static const char mid[] = "\n\t\t\t\t\t\tKey: ";
	static const char tail[] =
		"\n\t\t\t\t\t\tColor: 1,1,1\n\t\t\t\t\t}\n\t\t\t\t\tLayerType: 1\n\t\t\t\t}\n\t\t\t}\n"
		"\t\t\tChannel: \"Visibility\" {\n\t\t\t\tDefault: 1\n\t\t\t\tKeyVer: 4005\n\t\t\t\tKeyCount: 1\n"
		"\t\t\t\tKey: 0,1,C,s\n\t\t\t}\n\t\t}\n\t}\n}\n";
	size_t n = strlen(head) + strlen(keycount) + strlen(mid) + strlen(keys) + strlen(tail) + 1;
	char *s = (char *)malloc(n);
	if (s) snprintf(s, n, "%s%s%s%s%s", head, keycount, mid, keys, tail);
	return s;
}

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

/* In-between shapes connected out of weight order: sorted by FullWeights, so
 * weight 0.5 is exactly the in-between (shape "Half", +2 in x) and 1.0 the
 * main target ("Full", +3 in y); between them the two mix linearly. */
RK_TEST(inbetween_shapes_sorted_by_full_weight)
{
	static const char text[] =
		"; FBX 7.4.0 project file\n"
		"FBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\n"
		"Objects:  {\n"
		"\tGeometry: 10, \"Geometry::G\", \"Mesh\" {\n"
		"\t\tVertices: *9 {\n\t\t\ta: 0,0,0,1,0,0,0,1,0\n\t\t}\n"
		"\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t}\n"
		"\tModel: 20, \"Model::M\", \"Mesh\" {\n\t}\n"
		"\tDeformer: 30, \"Deformer::B\", \"BlendShape\" {\n\t}\n"
		"\tDeformer: 31, \"SubDeformer::C\", \"BlendShapeChannel\" {\n"
		"\t\tDeformPercent: 75\n\t\tFullWeights: *2 {\n\t\t\ta: 100,50\n\t\t}\n\t}\n"
		"\tGeometry: 40, \"Geometry::Full\", \"Shape\" {\n"
		"\t\tIndexes: *1 {\n\t\t\ta: 0\n\t\t}\n\t\tVertices: *3 {\n\t\t\ta: 0,3,0\n\t\t}\n\t}\n"
		"\tGeometry: 41, \"Geometry::Half\", \"Shape\" {\n"
		"\t\tIndexes: *1 {\n\t\t\ta: 0\n\t\t}\n\t\tVertices: *3 {\n\t\t\ta: 2,0,0\n\t\t}\n\t}\n"
		"}\n"
		"Connections:  {\n"
		"\tC: \"OO\",20,0\n\tC: \"OO\",10,20\n\tC: \"OO\",30,10\n\tC: \"OO\",31,30\n"
		"\tC: \"OO\",40,31\n\tC: \"OO\",41,31\n}\n";
	rk_error err;
	rk_scene *s = load_text(text, &err);
	RK_REQUIRE(s);
	RK_REQUIRE(s->meshes.count == 1 && s->meshes.data[0].blend_channels.count == 1);
	const rk_blend_channel *ch = &s->meshes.data[0].blend_channels.data[0];
	RK_REQUIRE(ch->target_count == 2);
	RK_CHECK_NEAR(ch->target_weights[0], 0.5, 0);
	RK_CHECK_NEAR(ch->target_weights[1], 1.0, 0);
	RK_CHECK_STR(ch->targets[0].name, "Half");
	RK_CHECK_STR(ch->targets[1].name, "Full");
	double f[2];
	rk_blend_channel_factors_eval(ch, 0.75, f);   /* halfway between the two */
	RK_CHECK_NEAR(f[0], 0.5, 1e-12);
	RK_CHECK_NEAR(f[1], 0.5, 1e-12);
	rk_blend_channel_factors_eval(ch, 0.25, f);   /* base -> Half */
	RK_CHECK_NEAR(f[0], 0.5, 1e-12);
	RK_CHECK_NEAR(f[1], 0.0, 1e-12);
	rk_blend_channel_factors_eval(ch, 1.5, f);    /* past the last: Half -> Full extended */
	RK_CHECK_NEAR(f[0], -1.0, 1e-12);
	RK_CHECK_NEAR(f[1], 2.0, 1e-12);
	rk_scene_free(s);
}

static const rk_anim_curve *only_curve(const rk_scene *s)
{
	if (s->clips.count != 1 || s->clips.data[0].layer_count != 1 || s->clips.data[0].layers[0].track_count != 1) return NULL;
	return s->clips.data[0].layers[0].tracks[0].curves[0];
}

/* Float bit patterns as ASCII FBX writes them: 1.5f = 0x3FC00000,
 * -2.0f = 0xC0000000, 2.0f = 0x40000000; weights word (next-left 2000 << 16)
 * | right 5000 = 131077000; 3333 | 3333 << 16 = 218434821. */
#define KEYS3 "\t\tKeyTime: *3 {\n\t\t\ta: 0,23093079000,46186158000\n\t\t}\n\t\tKeyValueFloat: *3 {\n\t\t\ta: 0,5,10\n\t\t}\n"

RK_TEST(hand_written_7x_flags_slopes_weights)
{
	/* key 0: cubic user, weighted right + next left, slopes 1.5 / -2;
	 * key 1: constant next; key 2: linear */
	char *text = make_fbx7(KEYS3
		"\t\tKeyAttrFlags: *3 {\n\t\t\ta: 50332680,258,4\n\t\t}\n"
		"\t\tKeyAttrDataFloat: *12 {\n\t\t\ta: 1069547520,-1073741824,131077000,0,0,0,218434821,0,0,0,218434821,0\n\t\t}\n"
		"\t\tKeyAttrRefCount: *3 {\n\t\t\ta: 1,1,1\n\t\t}\n"
		"\t\tPre-Extrapolation:  {\n\t\t\tType: M\n\t\t\tRepetition: 3\n\t\t}\n"
		"\t\tPost-Extrapolation:  {\n\t\t\tType: K\n\t\t\tRepetition: -1\n\t\t}\n",
		"\t\tProperties70:  {\n\t\t\tP: \"Weight\", \"Number\", \"\", \"A\",50\n"
		"\t\t\tP: \"BlendMode\", \"enum\", \"\", \"\",2\n\t\t\tP: \"RotationAccumulationMode\", \"enum\", \"\", \"\",1\n"
		"\t\t\tP: \"ScaleAccumulationMode\", \"enum\", \"\", \"\",1\n\t\t}\n", "");
	RK_REQUIRE(text);
	rk_error err;
	rk_scene *s = load_text(text, &err);
	if (!s) print_error("load", &err);
	RK_REQUIRE(s);
	RK_REQUIRE(s->clips.count == 1);
	const rk_anim_clip *clip = &s->clips.data[0];
	RK_CHECK_STR(clip->name, "Walk");
	RK_CHECK_NEAR(clip->time_begin, 0.0, 0);
	RK_CHECK_NEAR(clip->time_end, 1.0, 0);
	RK_REQUIRE(clip->layer_count == 1);
	const rk_anim_layer *layer = &clip->layers[0];
	RK_CHECK_STR(layer->name, "Base");
	RK_CHECK_NEAR(layer->weight, 0.5, 0);
	RK_CHECK_INT(layer->blend, RK_LAYER_OVERRIDE_PASSTHROUGH);
	RK_CHECK(layer->rotation_accumulate_by_component);
	RK_CHECK(!layer->scale_accumulate_multiply);
	RK_REQUIRE(layer->track_count == 1);
	const rk_anim_track *t = &layer->tracks[0];
	RK_CHECK_STR(t->node->name, "Cube");
	RK_CHECK_INT(t->target, RK_TARGET_TRANSLATION);
	RK_CHECK_STR(t->property, "Lcl Translation");
	RK_CHECK(t->curves[1] == NULL && t->curves[2] == NULL);
	/* d|X 7, d|Y 8 from the curve node; Z from Lcl Translation's 3 */
	RK_CHECK_NEAR(t->default_value[0], 7, 0);
	RK_CHECK_NEAR(t->default_value[1], 8, 0);
	RK_CHECK_NEAR(t->default_value[2], 3, 0);
	const rk_anim_curve *c = t->curves[0];
	RK_REQUIRE(c && c->key_count == 3);
	RK_CHECK_NEAR(c->times[1], 0.5, 1e-15);
	RK_CHECK_INT(rk_curve_interp(c, 0), RK_INTERP_CUBIC);
	RK_CHECK_INT(rk_curve_interp(c, 1), RK_INTERP_CONSTANT_NEXT);
	RK_CHECK_INT(rk_curve_interp(c, 2), RK_INTERP_LINEAR);
	RK_CHECK_NEAR(rk_curve_right_slope(c, 0), 1.5, 0);
	RK_CHECK_NEAR(rk_curve_left_slope(c, 1), -2.0, 0);
	RK_CHECK_NEAR(rk_curve_right_weight(c, 0), 5000.0 / 9999.0, 1e-15);
	RK_CHECK_NEAR(rk_curve_left_weight(c, 1), 2000.0 / 9999.0, 1e-15);
	RK_CHECK_NEAR(rk_curve_right_weight(c, 1), 1.0 / 3.0, 1e-15); /* not weighted: default */
	RK_CHECK(c->right_weight && c->left_weight && c->right_slope && c->left_slope != c->right_slope);
	RK_CHECK_INT(c->pre_extrapolation, RK_EXTRAPOLATE_MIRROR);
	RK_CHECK_INT(c->pre_repeat_count, 3);
	RK_CHECK_INT(c->post_extrapolation, RK_EXTRAPOLATE_SLOPE);
	RK_CHECK_INT(c->post_repeat_count, -1);
	RK_CHECK_NEAR(c->min_value, 0, 0);
	RK_CHECK_NEAR(c->max_value, 10, 0);
	RK_CHECK_INT(s->warnings.count, 0);
	rk_scene_free(s);
	free(text);
}

RK_TEST(hand_written_7x_auto_tangents)
{
	/* 0x6108 = cubic | auto | time independent | clamp progressive; one
	 * attribute shared by all keys (KeyAttrRefCount 3) */
	static const char *values[] = { "0,10,20", "0,10,0", "0,1,10" };
	for (int v = 0; v < 3; v++) {
		char curve[1024];
		snprintf(curve, sizeof(curve),
			"\t\tKeyTime: *3 {\n\t\t\ta: 0,46186158000,92372316000\n\t\t}\n\t\tKeyValueFloat: *3 {\n\t\t\ta: %s\n\t\t}\n"
			"\t\tKeyAttrFlags: *1 {\n\t\t\ta: 24840\n\t\t}\n\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,218434821,0\n\t\t}\n"
			"\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 3\n\t\t}\n", values[v]);
		char *text = make_fbx7(curve, "", "");
		RK_REQUIRE(text);
		rk_error err;
		rk_scene *s = load_text(text, &err);
		RK_REQUIRE(s);
		const rk_anim_curve *c = only_curve(s);
		RK_REQUIRE(c && c->key_count == 3);
		for (int k = 0; k < 3; k++) RK_CHECK_INT(rk_curve_interp(c, k), RK_INTERP_CUBIC);
		/* end keys flat; middle: secant of the neighbours (20 / 2 s = 10),
		 * 0 at an extremum, and for 0, 1, 10 limited so the left handle
		 * (1 - s / 3) does not go below 0: s = 3 */
		static const double want[] = { 10.0, 0.0, 3.0 };
		RK_CHECK_NEAR(rk_curve_right_slope(c, 0), 0, 0);
		RK_CHECK_NEAR(rk_curve_left_slope(c, 2), 0, 0);
		RK_CHECK_NEAR(rk_curve_left_slope(c, 1), want[v], 1e-12);
		RK_CHECK_NEAR(rk_curve_right_slope(c, 1), want[v], 1e-12);
		/* compact storage (scene.h): default weights are not stored, auto
		 * keys' equal slopes share one array, all-zero slopes none */
		RK_CHECK(c->right_weight == NULL && c->left_weight == NULL);
		RK_CHECK(c->left_slope == c->right_slope);
		RK_CHECK((c->right_slope == NULL) == (v == 1));
		rk_scene_free(s);
		free(text);
	}
}

/* A Mixamo clip: 159 curves of 62 cubic auto keys on one time base. Equal key
 * times are stored once, default weights not at all, and each curve keeps
 * one slope array for both sides. */
RK_TEST(mixamo_curves_share_storage)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("shared folder (../shared) not found");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/ybot@kick.fbx", shared);
	rk_error err;
	rk_scene *s = rk_load_file(path, NULL, &err);
	if (!s) print_error("load", &err);
	RK_REQUIRE(s && s->clips.count == 1);
	const rk_anim_layer *layer = &s->clips.data[0].layers[0];
	const double *time_arrays[8];
	size_t distinct = 0, curves = 0;
	for (size_t t = 0; t < layer->track_count; t++) {
		for (int k = 0; k < 4; k++) {
			const rk_anim_curve *c = layer->tracks[t].curves[k];
			if (!c) continue;
			curves++;
			RK_CHECK(c->right_weight == NULL && c->left_weight == NULL);
			RK_CHECK(c->left_slope == c->right_slope);
			size_t d = 0;
			while (d < distinct && time_arrays[d] != c->times) d++;
			if (d == distinct && distinct < 8) time_arrays[distinct++] = c->times;
			/* equal pointers hold equal times; the first is a whole clip */
			RK_CHECK_NEAR(c->times[0], s->clips.data[0].time_begin, 1e-12);
		}
	}
	RK_CHECK_INT(curves, 159);
	RK_CHECK(distinct >= 1 && distinct < 8);
	rk_scene_free(s);
}

RK_TEST(hostile_7x_curves_fail_or_warn)
{
	static const struct { const char *curve; bool fails; const char *warning; } cases[] = {
		/* KeyTime 3, KeyValueFloat 2 */
		{ "\t\tKeyTime: *3 {\n\t\t\ta: 0,1,2\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,5\n\t\t}\n", true, NULL },
		/* KeyValueFloat missing */
		{ "\t\tKeyTime: *3 {\n\t\t\ta: 0,1,2\n\t\t}\n", true, NULL },
		/* KeyAttrRefCount sums to 5 > 3 keys */
		{ KEYS3 "\t\tKeyAttrFlags: *2 {\n\t\t\ta: 4,4\n\t\t}\n\t\tKeyAttrDataFloat: *8 {\n\t\t\ta: 0,0,0,0,0,0,0,0\n\t\t}\n"
		  "\t\tKeyAttrRefCount: *2 {\n\t\t\ta: 2,3\n\t\t}\n", true, NULL },
		/* negative KeyAttrRefCount */
		{ KEYS3 "\t\tKeyAttrFlags: *2 {\n\t\t\ta: 4,4\n\t\t}\n\t\tKeyAttrDataFloat: *8 {\n\t\t\ta: 0,0,0,0,0,0,0,0\n\t\t}\n"
		  "\t\tKeyAttrRefCount: *2 {\n\t\t\ta: -1,4\n\t\t}\n", true, NULL },
		/* huge KeyAttrRefCount (overflow bait) */
		{ KEYS3 "\t\tKeyAttrFlags: *2 {\n\t\t\ta: 4,4\n\t\t}\n\t\tKeyAttrDataFloat: *8 {\n\t\t\ta: 0,0,0,0,0,0,0,0\n\t\t}\n"
		  "\t\tKeyAttrRefCount: *2 {\n\t\t\ta: 9223372036854775807,1\n\t\t}\n", true, NULL },
		/* KeyAttrRefCount and KeyAttrFlags disagree in length */
		{ KEYS3 "\t\tKeyAttrFlags: *2 {\n\t\t\ta: 4,4\n\t\t}\n\t\tKeyAttrRefCount: *3 {\n\t\t\ta: 1,1,1\n\t\t}\n", true, NULL },
		/* 2 flags for 3 keys and no KeyAttrRefCount */
		{ KEYS3 "\t\tKeyAttrFlags: *2 {\n\t\t\ta: 4,4\n\t\t}\n", true, NULL },
		/* KeyAttrDataFloat shorter than 4 per attribute */
		{ KEYS3 "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 4\n\t\t}\n\t\tKeyAttrDataFloat: *3 {\n\t\t\ta: 0,0,0\n\t\t}\n"
		  "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 3\n\t\t}\n", true, NULL },
		/* non-integer key time */
		{ "\t\tKeyTime: *2 {\n\t\t\ta: 0,1.5\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,5\n\t\t}\n", true, NULL },
		/* KeyAttrRefCount covers only 2 of 3 keys: the last attribute repeats */
		{ KEYS3 "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 4\n\t\t}\n\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,0,0\n\t\t}\n"
		  "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n\t\t}\n", false, "KeyAttrRefCount" },
		/* times going backwards and repeating: 0, 10, 10, 5, 20 -> 0, 10, 20 */
		{ "\t\tKeyTime: *5 {\n\t\t\ta: 0,10,10,5,20\n\t\t}\n\t\tKeyValueFloat: *5 {\n\t\t\ta: 1,2,3,4,5\n\t\t}\n", false, "not after" },
		/* values that are not numbers */
		{ "\t\tKeyTime: *2 {\n\t\t\ta: 0,10\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 1.#INF,-1.#IND\n\t\t}\n", false, "finite" },
		/* unknown extrapolation letter */
		{ KEYS3 "\t\tPost-Extrapolation:  {\n\t\t\tType: Z\n\t\t\tRepetition: 2\n\t\t}\n", false, "extrapolation" },
		/* velocity flag on a cubic key */
		{ KEYS3 "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 268436488\n\t\t}\n\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,0,0\n\t\t}\n"
		  "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 3\n\t\t}\n", false, "velocit" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = make_fbx7(cases[i].curve, "", "");
		RK_REQUIRE(text);
		rk_error err;
		rk_scene *s = load_text(text, &err);
		if (cases[i].fails) {
			if (s) fprintf(stderr, "  case %zu loaded but should fail\n", i);
			RK_CHECK(s == NULL);
			RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
			RK_CHECK(strstr(err.path, "AnimationCurve") != NULL);
		} else {
			if (!s) print_error("unexpected failure", &err);
			RK_CHECK(s != NULL);
			if (s) {
				if (!has_warning(s, cases[i].warning)) fprintf(stderr, "  case %zu: no warning with \"%s\"\n", i, cases[i].warning);
				RK_CHECK(has_warning(s, cases[i].warning));
				RK_CHECK_INT(check_scene_invariants(s), 0);
			}
		}
		if (i == 10 && s) {
			const rk_anim_curve *c = only_curve(s);
			RK_REQUIRE(c && c->key_count == 3);
			RK_CHECK_NEAR(c->values[0], 1, 0);
			RK_CHECK_NEAR(c->values[1], 2, 0);
			RK_CHECK_NEAR(c->values[2], 5, 0);
		}
		if (i == 11 && s) {
			const rk_anim_curve *c = only_curve(s);
			RK_REQUIRE(c && c->key_count == 2);
			RK_CHECK(c->values[0] == 0 && c->values[1] == 0);
		}
		rk_scene_free(s);
		free(text);
	}
}

RK_TEST(unusual_7x_targets)
{
	/* a curve node also connected to the layer's own Weight property (an
	 * animated property of a non-Model object: ignored with a warning), an
	 * empty curve (no keys: no track) and a curve without key attributes
	 * (cubic auto, the SDK's default) */
	char *text = make_fbx7("\t\tKeyTime: *2 {\n\t\t\ta: 0,46186158000\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 3,4\n\t\t}\n", "",
		"\tC: \"OP\",400,300, \"Weight\"\n");
	RK_REQUIRE(text);
	rk_error err;
	rk_scene *s = load_text(text, &err);
	RK_REQUIRE(s);
	RK_CHECK(has_warning(s, "other than Models"));
	const rk_anim_curve *c = only_curve(s);
	RK_REQUIRE(c && c->key_count == 2);
	RK_CHECK_INT(rk_curve_interp(c, 0), RK_INTERP_CUBIC);
	RK_CHECK_NEAR(rk_curve_right_slope(c, 0), 0, 0);
	rk_scene_free(s);
	free(text);

	text = make_fbx7("\t\tDefault: 0\n", "", "");
	RK_REQUIRE(text);
	s = load_text(text, &err);
	RK_REQUIRE(s && s->clips.count == 1 && s->clips.data[0].layer_count == 1);
	RK_CHECK_INT(s->clips.data[0].layers[0].track_count, 0);
	/* no keys: the stored LocalStart/LocalStop still give the range */
	RK_CHECK_NEAR(s->clips.data[0].time_end, 1.0, 0);
	rk_scene_free(s);
	free(text);
}

RK_TEST(hand_written_6100_keys)
{
	/* L; C,n; U,s with slopes and both weights; U,a (auto); U,b (break) with
	 * a right weight; U,t (TCB) */
	char *text = make_fbx6("0,0,L,10000000000,5,C,n,20000000000,10,U,s,1.5,-2,a,0.25,0.5,"
		"30000000000,12,U,a,n,40000000000,20,U,b,3,4,r,0.4,50000000000,25,U,t,0,0,0", "6");
	RK_REQUIRE(text);
	rk_error err;
	rk_scene *s = load_text(text, &err);
	if (!s) print_error("load", &err);
	RK_REQUIRE(s && s->clips.count == 1);
	const rk_anim_clip *clip = &s->clips.data[0];
	RK_CHECK_STR(clip->name, "Walk");
	RK_CHECK_NEAR(clip->time_end, 1.0, 0);
	RK_REQUIRE(clip->layer_count == 1);
	const rk_anim_track *tt = find_track(clip, "Cube", "Lcl Translation");
	const rk_anim_track *tv = find_track(clip, "Cube", "Visibility");
	RK_REQUIRE(tt && tv);
	RK_CHECK_INT(tv->target, RK_TARGET_FBX_PROPERTY);
	RK_CHECK_NEAR(tt->default_value[0], 4, 0); /* Default: 4 */
	RK_CHECK_NEAR(tt->default_value[1], 2, 0); /* Lcl Translation 1,2,3 */
	const rk_anim_curve *c = tt->curves[0];
	RK_REQUIRE(c && c->key_count == 6);
	RK_CHECK_INT(rk_curve_interp(c, 0), RK_INTERP_LINEAR);
	RK_CHECK_INT(rk_curve_interp(c, 1), RK_INTERP_CONSTANT_NEXT);
	for (int k = 2; k < 6; k++) RK_CHECK_INT(rk_curve_interp(c, k), RK_INTERP_CUBIC);
	RK_CHECK_NEAR(rk_curve_right_slope(c, 2), 1.5, 0);
	/* auto key 3 (12 between 10 and 20): the neighbours' secant 10 / (2e10
	 * ticks) would put the left handle (weight 0.5 from key 2's "a" entry)
	 * below 10, so clamp progressive limits it to 2 / (0.5 * 1e10 ticks) */
	RK_CHECK_NEAR(rk_curve_left_slope(c, 3), 2.0 / (0.5 * 10000000000.0 / TICKS), 1e-9);
	RK_CHECK_NEAR(rk_curve_right_slope(c, 3), rk_curve_left_slope(c, 3), 0);
	RK_CHECK_NEAR(rk_curve_right_weight(c, 2), 0.25, 0);
	RK_CHECK_NEAR(rk_curve_left_weight(c, 3), 0.5, 0);
	RK_CHECK_NEAR(rk_curve_right_slope(c, 4), 3, 0);
	RK_CHECK_NEAR(rk_curve_right_weight(c, 4), 0.4, 0);
	RK_CHECK_NEAR(rk_curve_left_weight(c, 5), 1.0 / 3.0, 1e-15);
	/* TCB 0,0,0 at the last key: its one secant (25 - 20) / (1e10 ticks) on
	 * both sides (this replaces key 4's "next left" slope 4) */
	RK_CHECK_NEAR(rk_curve_right_slope(c, 5), 5.0 / (10000000000.0 / TICKS), 1e-9);
	RK_CHECK_NEAR(rk_curve_left_slope(c, 5), 5.0 / (10000000000.0 / TICKS), 1e-9);
	RK_CHECK_INT(s->warnings.count, 0);
	rk_scene_free(s);
	free(text);
}

RK_TEST(hostile_6100_key_lists)
{
	static const struct { const char *keys; const char *count; bool fails; } cases[] = {
		{ "0,0,X", "1", true },                     /* unknown interpolation */
		{ "0,0,U,z,1,2", "1", true },               /* unknown tangent mode */
		{ "0,0,U,s,1,2,q", "1", true },             /* unknown weight mode */
		{ "0,0", "1", true },                       /* key without interpolation */
		{ "0,0,U,s,1", "1", true },                 /* slopes cut short */
		{ "0,0,U,s,1,2,a,0.3", "1", true },         /* weights cut short */
		{ "0,0,L,U", "2", true },                   /* a letter where a time belongs */
		{ "0,0,L,5,L,L", "2", true },               /* a letter where a value belongs */
		{ "\"x\",0,L", "1", true },                 /* a string time */
		{ "0,0,L,10,1,L", "5", false },             /* KeyCount disagrees: warning */
		{ "10,0,L,5,1,L,10,2,L,20,3,L", "4", false }, /* time going backwards: dropped */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = make_fbx6(cases[i].keys, cases[i].count);
		RK_REQUIRE(text);
		rk_error err;
		rk_scene *s = load_text(text, &err);
		if (cases[i].fails) {
			if (s) fprintf(stderr, "  case %zu loaded but should fail\n", i);
			RK_CHECK(s == NULL);
			RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
			RK_CHECK(strstr(err.path, "Key") != NULL);
		} else {
			if (!s) print_error("unexpected failure", &err);
			RK_CHECK(s && s->warnings.count > 0);
			if (s) RK_CHECK_INT(check_scene_invariants(s), 0);
		}
		rk_scene_free(s);
		free(text);
	}
}

RK_TEST(take_entry_of_another_class_is_ignored)
{
	char *text = make_fbx6("0,0,L,10,1,L", "2");
	RK_REQUIRE(text);
	char *at = strstr(text, "Model: \"Model::Cube\" {");
	RK_REQUIRE(at);
	size_t n = strlen(text) + 16;
	char *other = (char *)malloc(n);
	RK_REQUIRE(other);
	snprintf(other, n, "%.*sModel: \"Material::Cube\" {%s", (int)(at - text), text, at + strlen("Model: \"Model::Cube\" {"));
	rk_error err;
	rk_scene *s = load_text(other, &err);
	RK_REQUIRE(s && s->clips.count == 1);
	RK_CHECK_INT(s->clips.data[0].layers[0].track_count, 0);
	RK_CHECK(has_warning(s, "not a Model"));
	rk_scene_free(s);
	free(other);
	free(text);
}

/* Every prefix of the hand-written files loads or fails with an error; every
 * allocation failure is reported (ASan builds also check for leaks). */
RK_TEST(truncations_and_allocation_failures)
{
	char *texts[2];
	texts[0] = make_fbx7(KEYS3
		"\t\tKeyAttrFlags: *3 {\n\t\t\ta: 50332680,258,4\n\t\t}\n"
		"\t\tKeyAttrDataFloat: *12 {\n\t\t\ta: 1069547520,-1073741824,131077000,0,0,0,218434821,0,0,0,218434821,0\n\t\t}\n"
		"\t\tKeyAttrRefCount: *3 {\n\t\t\ta: 1,1,1\n\t\t}\n"
		"\t\tPost-Extrapolation:  {\n\t\t\tType: K\n\t\t\tRepetition: -1\n\t\t}\n", "", "");
	texts[1] = make_fbx6("0,0,L,10000000000,5,C,n,20000000000,10,U,s,1.5,-2,a,0.25,0.5,30000000000,12,U,a,n", "4");
	RK_REQUIRE(texts[0] && texts[1]);
	for (int f = 0; f < 2; f++) {
		size_t n = strlen(texts[f]);
		size_t loaded = 0;
		for (size_t len = 0; len <= n; len++) {
			rk_error err;
			memset(&err, 0, sizeof(err));
			rk_scene *s = rk_load_memory(texts[f], len, NULL, &err);
			if (s) {
				loaded++;
				RK_CHECK_INT(check_scene_invariants(s), 0);
				rk_scene_free(s);
			} else {
				RK_CHECK(err.code != RK_OK);
			}
		}
		RK_CHECK(loaded > 0);
		/* allocation limits 1, 2, ... until the load succeeds */
		bool done = false;
		for (size_t limit = 1; limit < 100000 && !done; limit++) {
			rk_load_opts opts;
			memset(&opts, 0, sizeof(opts));
			opts.allocation_limit = limit;
			rk_error err;
			memset(&err, 0, sizeof(err));
			rk_scene *s = rk_load_memory(texts[f], n, &opts, &err);
			if (s) {
				done = true;
				RK_CHECK(only_curve(s) != NULL || s->clips.count == 1);
				rk_scene_free(s);
			} else if (err.code != RK_ERROR_LIMIT && err.code != RK_ERROR_OUT_OF_MEMORY) {
				fprintf(stderr, "  allocation limit %zu: error code %d\n", limit, (int)err.code);
				print_error("error", &err);
				rk_t_->failed++;
				break;
			}
		}
		RK_CHECK(done);
		free(texts[f]);
	}
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(corpus_stack_names_match_manifest),
	RK_TEST_ENTRY(ascii_7x_curves_match_file_text),
	RK_TEST_ENTRY(ascii_7x_time_ranges_and_flags),
	RK_TEST_ENTRY(binary_and_ascii_7x_decode_identically),
	RK_TEST_ENTRY(takes_6100_match_stacks_7700),
	RK_TEST_ENTRY(extrapolate_cube_curves_reproduce_reference_objs),
	RK_TEST_ENTRY(take_6100_keys_reproduce_reference_objs),
	RK_TEST_ENTRY(blend_shape_weight_curves),
	RK_TEST_ENTRY(hand_written_7x_flags_slopes_weights),
	RK_TEST_ENTRY(hand_written_7x_auto_tangents),
	RK_TEST_ENTRY(mixamo_curves_share_storage),
	RK_TEST_ENTRY(hostile_7x_curves_fail_or_warn),
	RK_TEST_ENTRY(unusual_7x_targets),
	RK_TEST_ENTRY(hand_written_6100_keys),
	RK_TEST_ENTRY(hostile_6100_key_lists),
	RK_TEST_ENTRY(take_entry_of_another_class_is_ignored),
	RK_TEST_ENTRY(truncations_and_allocation_failures),
	RK_TEST_ENTRY(inbetween_shapes_sorted_by_full_weight))
