/*
 * tests/test_conformance.c - rigkit's own FBX mesh-evaluation conformance
 * runner over ../shared/conformance (see its README.txt, which defines how
 * every entry is evaluated and matched; the section names quoted below are
 * that README's).
 *
 * For every manifest entry:
 *   1. skip out-of-scope entries (subdivision, NURBS, geometry caches) and
 *      "pose" mode entries (they need any named Pose element of the file;
 *      the scene model has only each node's BindPose matrix);
 *   2. load data/<fbx> with rk_load_file (load_options: target_axes,
 *      target_unit_meters), evaluate the stack at `time` with the anim API
 *      (rk_pose_eval_job, eval_options.no_extrapolation), and compute world
 *      positions / normals of mesh nodes (rk_mesh_world_positions_eval /
 *      rk_mesh_world_normals_eval);
 *   3. parse the reference .obj ("Reading the .obj"), map obj meshes to FBX
 *      nodes (rules 1-4), and compare ("Ordered matching" incl. normals and
 *      UVs, "Multiset matching" as an optimal bipartite pairing).
 *
 * The expectations come only from the reference .obj files and the README:
 * nothing here is derived from rigkit's own output, and nothing is shared
 * with tools/objcheck.py (which checks the CLI instead). Face winding: a
 * face may only match with reversed corners [c0, cn, .., c1] when the load
 * conversion mirrors (file axes and target axes of opposite handedness,
 * computed here from the manifest's file_info.axes and the README's table
 * of target axes) and then it must.
 *
 * Results: per entry PASS / FAIL / KNOWN (listed in
 * tests/conformance_known_failures.txt) / FIXED (listed there but passing)
 * / SKIP on stdout (PASS and SKIP lines only with RIGKIT_CONFORMANCE_VERBOSE=1),
 * then "N passed, M failed, K skipped" and the pass counts per feature tag.
 * The same data goes to RK_BINARY_DIR/conformance.json and, as markdown for
 * docs/conformance.md, RK_BINARY_DIR/conformance.md (conformance-quick.* for
 * RIGKIT_TEST_QUICK runs).
 *
 * Exit status: 0 when every in-scope entry passed or is a listed known
 * failure; 1 when an unlisted entry fails, a listed entry passes (shrink the
 * list!) or the list names an id the manifest lacks; 77 when the shared
 * folder is missing. RIGKIT_TEST_QUICK=1 checks every 4th entry only (used by
 * `make sanitize`). An argument restricts the run to ids containing it (no
 * report files are written then).
 */
#include <rigkit/anim.h>
#include <rigkit/load.h>
#include <rigkit/math.h>

#include <cjson/cJSON.h>

#include "rk_test.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef RK_BINARY_DIR
#define RK_BINARY_DIR "."
#endif
#ifndef RK_SOURCE_DIR
#define RK_SOURCE_DIR "."
#endif

#define CF_ORDERED_TOL 0.001   /* README: ordered positions and normals, per component */
#define CF_MSG_MAX 1024

/* ==========================================================================
 * Small utilities
 * ========================================================================== */

static void *cf_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "test_conformance: out of memory (%zu bytes)\n", size);
		exit(1);
	}
	return p;
}

static void *cf_grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap) return ptr;
	size_t c = *cap ? *cap : 16;
	while (c < need) c *= 2;
	void *p = realloc(ptr, c * elem);
	if (!p) {
		fprintf(stderr, "test_conformance: out of memory\n");
		exit(1);
	}
	*cap = c;
	return p;
}

#define CF_PUSH(arr, count, cap, value) do { \
	(arr) = cf_grow((arr), &(cap), (count) + 1, sizeof(*(arr))); \
	(arr)[(count)++] = (value); } while (0)

static char *cf_strdup(const char *s)
{
	size_t n = strlen(s);
	char *d = (char *)cf_alloc(n + 1);
	memcpy(d, s, n + 1);
	return d;
}

static char *cf_strndup(const char *s, size_t n)
{
	char *d = (char *)cf_alloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* Reads a whole file, NUL-terminated. NULL when it cannot be read. */
static char *cf_read_file(const char *path, size_t *out_size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	size_t cap = 0, size = 0;
	char *data = NULL;
	for (;;) {
		data = cf_grow(data, &cap, size + 65536 + 1, 1);
		size_t n = fread(data + size, 1, cap - size - 1, f);
		size += n;
		if (n == 0) break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(data);
		return NULL;
	}
	data[size] = '\0';
	if (out_size) *out_size = size;
	return data;
}

/* dst = dir + "/" + name; false when it does not fit. */
static bool cf_join(char *dst, size_t cap, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	if (a + 1 + b + 1 > cap) return false;
	memcpy(dst, dir, a);
	dst[a] = '/';
	memcpy(dst + a + 1, name, b + 1);
	return true;
}

static double cf_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool cf_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* Max |a_i - b_i|; +inf when anything is NaN, so `!(d < tol)` fails it. */
static double cf_diff3(rk_vec3 a, rk_vec3 b)
{
	double d[3] = { fabs(a.x - b.x), fabs(a.y - b.y), fabs(a.z - b.z) };
	double m = 0.0;
	for (int i = 0; i < 3; i++) {
		if (d[i] != d[i]) return INFINITY;
		if (d[i] > m) m = d[i];
	}
	return m;
}

static double cf_diff2(rk_vec2 a, rk_vec2 b)
{
	double dx = fabs(a.x - b.x), dy = fabs(a.y - b.y);
	if (dx != dx || dy != dy) return INFINITY;
	return dx > dy ? dx : dy;
}

static double cf_len2(rk_vec3 v)
{
	return v.x * v.x + v.y * v.y + v.z * v.z;
}

static rk_vec3 cf_normalize(rk_vec3 v)
{
	double l = sqrt(cf_len2(v));
	if (!(l > 0.0)) return v;
	return (rk_vec3){ v.x / l, v.y / l, v.z / l };
}

/* q * v * q^-1 for a unit quaternion (x, y, z, w), written out here so the
 * diff transform does not depend on rigkit's own math. */
static rk_vec3 cf_quat_rotate(const double q[4], rk_vec3 v)
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double tx = 2.0 * (y * v.z - z * v.y);
	double ty = 2.0 * (z * v.x - x * v.z);
	double tz = 2.0 * (x * v.y - y * v.x);
	return (rk_vec3){ v.x + w * tx + (y * tz - z * ty),
		v.y + w * ty + (z * tx - x * tz),
		v.z + w * tz + (x * ty - y * tx) };
}

/* ==========================================================================
 * Reference OBJ (README "Reading the .obj")
 * ========================================================================== */

typedef struct cf_corner { long v, t, n; } cf_corner;   /* 0-based, -1 = absent */

typedef struct cf_objmesh {
	char *raw;               /* text after "g "/"o ", trailing whitespace trimmed */
	char *raw_decoded;       /* the same with FBXASC decoded */
	char **groups;           /* decoded group names */
	size_t group_count;
	size_t order;            /* position in the file */
	size_t face_begin, face_count;
	bool has_t;              /* some corner has a vt index */
} cf_objmesh;

typedef struct cf_obj {
	rk_vec3 *v; size_t v_count, v_cap;
	rk_vec2 *vt; size_t vt_count, vt_cap;
	rk_vec3 *vn; size_t vn_count, vn_cap;
	cf_corner *corners; size_t corner_count, corner_cap;
	size_t *face_first; size_t face_first_cap;
	uint32_t *face_len; size_t face_len_cap;
	size_t face_count;
	cf_objmesh *meshes; size_t mesh_count, mesh_cap;
	bool blender;            /* "# www.blender.org" comment */
} cf_obj;

static void cf_obj_free(cf_obj *o)
{
	for (size_t i = 0; i < o->mesh_count; i++) {
		cf_objmesh *m = &o->meshes[i];
		for (size_t g = 0; g < m->group_count; g++) free(m->groups[g]);
		free(m->groups);
		free(m->raw);
		free(m->raw_decoded);
	}
	free(o->meshes);
	free(o->v);
	free(o->vt);
	free(o->vn);
	free(o->corners);
	free(o->face_first);
	free(o->face_len);
	memset(o, 0, sizeof(*o));
}

/* "FBXASC" + 3 decimal digits stands for that byte (0 and >255 kept as text). */
static char *cf_decode_name(const char *s, size_t n)
{
	char *d = (char *)cf_alloc(n + 1);
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (n - i >= 9 && memcmp(s + i, "FBXASC", 6) == 0 &&
		    s[i + 6] >= '0' && s[i + 6] <= '9' && s[i + 7] >= '0' && s[i + 7] <= '9' &&
		    s[i + 8] >= '0' && s[i + 8] <= '9') {
			int v = (s[i + 6] - '0') * 100 + (s[i + 7] - '0') * 10 + (s[i + 8] - '0');
			if (v > 0 && v < 256) {
				d[o++] = (char)v;
				i += 9;
				continue;
			}
		}
		d[o++] = s[i++];
	}
	d[o] = '\0';
	return d;
}

/* Splits [s, e) at whitespace; returns the token count, tokens in tok[] (max cap). */
static size_t cf_tokens(const char *s, const char *e, const char **tok, size_t *len, size_t cap)
{
	size_t n = 0;
	while (s < e) {
		while (s < e && cf_is_space(*s)) s++;
		if (s >= e) break;
		const char *b = s;
		while (s < e && !cf_is_space(*s)) s++;
		if (n < cap) {
			tok[n] = b;
			len[n] = (size_t)(s - b);
		}
		n++;
	}
	return n;
}

static double cf_parse_double(const char *s, size_t n)
{
	char buf[128];
	if (n == 0 || n >= sizeof(buf)) return NAN;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	return (*end == '\0') ? v : NAN;
}

/* OBJ index: 1-based, negative = relative to the current count. -2 on bad
 * syntax, -1 for an empty field. Out-of-range values are checked at the end. */
static long cf_parse_index(const char *s, size_t n, size_t count)
{
	if (n == 0) return -1;
	char buf[32];
	if (n >= sizeof(buf)) return -2;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	long v = strtol(buf, &end, 10);
	if (*end != '\0' || v == 0) return -2;
	if (v < 0) {
		long r = (long)count + v;
		return r < 0 ? -2 : r;
	}
	return v - 1;
}

static bool cf_line_is(const char *l, const char *e, const char *kw)
{
	size_t n = strlen(kw);
	if ((size_t)(e - l) < n || memcmp(l, kw, n) != 0) return false;
	return (size_t)(e - l) == n || cf_is_space(l[n]);
}

static bool cf_is_group_line(const char *l, const char *e)
{
	if (!(cf_line_is(l, e, "g") || cf_line_is(l, e, "o"))) return false;
	if ((size_t)(e - l) >= 7 && memcmp(l, "g defau", 7) == 0) return false;
	return true;
}

static cf_objmesh *cf_obj_new_mesh(cf_obj *o, const char *raw, size_t raw_len)
{
	cf_objmesh m;
	memset(&m, 0, sizeof(m));
	while (raw_len > 0 && cf_is_space(raw[raw_len - 1])) raw_len--;
	/* "g NAME": the README's "text after g " is after exactly one separator. */
	m.raw = cf_strndup(raw, raw_len);
	m.raw_decoded = cf_decode_name(raw, raw_len);
	const char *tok[256];
	size_t len[256];
	size_t n = cf_tokens(raw, raw + raw_len, tok, len, 256);
	if (n > 256) n = 256;
	m.groups = (char **)cf_alloc((n ? n : 1) * sizeof(char *));
	for (size_t i = 0; i < n; i++) m.groups[i] = cf_decode_name(tok[i], len[i]);
	m.group_count = n;
	m.order = o->mesh_count;
	m.face_begin = o->face_count;
	CF_PUSH(o->meshes, o->mesh_count, o->mesh_cap, m);
	return &o->meshes[o->mesh_count - 1];
}

static int cf_mesh_order_cmp(const void *a, const void *b)
{
	const cf_objmesh *x = (const cf_objmesh *)a, *y = (const cf_objmesh *)b;
	if (x->group_count != y->group_count) return x->group_count < y->group_count ? -1 : 1;
	return x->order < y->order ? -1 : (x->order > y->order ? 1 : 0);
}

/* Parses `data` (NUL-terminated, size bytes). On error returns false with msg. */
static bool cf_obj_parse(cf_obj *o, const char *data, size_t size, char *msg, size_t msg_cap)
{
	memset(o, 0, sizeof(*o));
	const char *end = data + size;
	bool has_groups = false;
	for (const char *p = data; p < end;) {
		const char *e = p;
		while (e < end && *e != '\r' && *e != '\n') e++;
		if (cf_is_group_line(p, e)) has_groups = true;
		p = e + 1;
	}
	cf_objmesh *cur = NULL;
	if (!has_groups) cur = cf_obj_new_mesh(o, "", 0);
	size_t line_no = 0;
	for (const char *p = data; p < end;) {
		const char *e = p;
		while (e < end && *e != '\r' && *e != '\n') e++;
		line_no++;
		const char *tok[64];
		size_t len[64];
		if (cf_line_is(p, e, "v") || cf_line_is(p, e, "vn")) {
			size_t n = cf_tokens(p, e, tok, len, 4);
			double c[3] = { 0, 0, 0 };
			for (size_t i = 1; i < 4 && i < n; i++) c[i - 1] = cf_parse_double(tok[i], len[i]);
			rk_vec3 v = { c[0], c[1], c[2] };
			if (p[1] == 'n') CF_PUSH(o->vn, o->vn_count, o->vn_cap, v);
			else CF_PUSH(o->v, o->v_count, o->v_cap, v);
		} else if (cf_line_is(p, e, "vt")) {
			size_t n = cf_tokens(p, e, tok, len, 3);
			double c[2] = { 0, 0 };
			for (size_t i = 1; i < 3 && i < n; i++) c[i - 1] = cf_parse_double(tok[i], len[i]);
			rk_vec2 t = { c[0], c[1] };
			CF_PUSH(o->vt, o->vt_count, o->vt_cap, t);
		} else if (cf_line_is(p, e, "f")) {
			if (!cur) cur = cf_obj_new_mesh(o, "", 0);
			size_t first = o->corner_count;
			const char *s = p + 1;
			while (s < e) {
				while (s < e && cf_is_space(*s)) s++;
				if (s >= e) break;
				const char *b = s;
				while (s < e && !cf_is_space(*s)) s++;
				/* p, p/t, p//n, p/t/n */
				const char *f[3] = { b, NULL, NULL };
				size_t fl[3] = { 0, 0, 0 };
				int nf = 1;
				for (const char *q = b; q < s; q++) {
					if (*q == '/') {
						if (nf == 3) break;
						f[nf++] = q + 1;
					} else {
						fl[nf - 1]++;
					}
				}
				cf_corner c;
				c.v = cf_parse_index(f[0], fl[0], o->v_count);
				c.t = nf > 1 ? cf_parse_index(f[1], fl[1], o->vt_count) : -1;
				c.n = nf > 2 ? cf_parse_index(f[2], fl[2], o->vn_count) : -1;
				if (c.v < 0 || c.t < -1 || c.n < -1) {
					snprintf(msg, msg_cap, "reference obj line %zu: bad face corner '%.*s'", line_no, (int)(s - b), b);
					return false;
				}
				if (c.t >= 0) cur->has_t = true;
				CF_PUSH(o->corners, o->corner_count, o->corner_cap, c);
			}
			if (o->corner_count > first) {
				size_t fc = o->face_count;
				o->face_first = cf_grow(o->face_first, &o->face_first_cap, fc + 1, sizeof(size_t));
				o->face_len = cf_grow(o->face_len, &o->face_len_cap, fc + 1, sizeof(uint32_t));
				o->face_first[fc] = first;
				o->face_len[fc] = (uint32_t)(o->corner_count - first);
				o->face_count++;
				cur->face_count++;
			}
		} else if (cf_is_group_line(p, e)) {
			const char *r = p + 1;
			if (r < e) r++; /* the single separator after g/o */
			cur = cf_obj_new_mesh(o, r, (size_t)(e - r));
		} else if (e > p && *p == '#') {
			const char *b = p + 1, *q = e;
			while (b < q && cf_is_space(*b)) b++;
			while (q > b && cf_is_space(q[-1])) q--;
			if ((size_t)(q - b) == 15 && memcmp(b, "www.blender.org", 15) == 0) o->blender = true;
		}
		p = e + 1;
	}
	for (size_t i = 0; i < o->corner_count; i++) {
		const cf_corner *c = &o->corners[i];
		if ((size_t)c->v >= o->v_count || (c->t >= 0 && (size_t)c->t >= o->vt_count) ||
		    (c->n >= 0 && (size_t)c->n >= o->vn_count)) {
			snprintf(msg, msg_cap, "reference obj: corner %zu index out of range (v %ld/%zu, vt %ld/%zu, vn %ld/%zu)",
				i, c->v + 1, o->v_count, c->t + 1, o->vt_count, c->n + 1, o->vn_count);
			return false;
		}
	}
	/* Drop meshes without faces, then order by group count (stable). */
	size_t kept = 0;
	for (size_t i = 0; i < o->mesh_count; i++) {
		cf_objmesh *m = &o->meshes[i];
		if (m->face_count == 0) {
			for (size_t g = 0; g < m->group_count; g++) free(m->groups[g]);
			free(m->groups);
			free(m->raw);
			free(m->raw_decoded);
			continue;
		}
		o->meshes[kept++] = *m;
	}
	o->mesh_count = kept;
	qsort(o->meshes, o->mesh_count, sizeof(cf_objmesh), cf_mesh_order_cmp);
	return true;
}

/* ==========================================================================
 * Manifest entries
 * ========================================================================== */

typedef enum cf_status { CF_PASS, CF_FAIL, CF_SKIP } cf_status;

typedef struct cf_result {
	cf_status status;
	char kind[32];            /* failure kind: load, stack, eval, mapping, topology, position, normal, uv, ... */
	char message[CF_MSG_MAX]; /* first mismatch / error / skip reason */
	char detail[CF_MSG_MAX];  /* pass / fail statistics */
	double seconds;
	size_t meshes, corners, normals, uvs;  /* compared counts */
	size_t bad_meshes;
	double max_pos_err, max_normal_err, max_uv_err;
	bool known;               /* listed in the known-failure file */
	const char *known_reason; /* its reason there (owned by the list) */
} cf_result;

static void cf_fail(cf_result *r, const char *kind, const char *fmt, ...)
{
	if (r->status == CF_FAIL) return;   /* keep the first failure */
	r->status = CF_FAIL;
	snprintf(r->kind, sizeof(r->kind), "%s", kind);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

static const char *cf_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool cf_json_num(const cJSON *obj, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsNumber(v)) return false;
	*out = v->valuedouble;
	return true;
}

static bool cf_json_has_string(const cJSON *arr, const char *s)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && strcmp(it->valuestring, s) == 0) return true;
	return false;
}

/* Sign of det[right up front] of a README axes description; 0 if unparsable. */
static int cf_axis_vec(const char *s, double v[3])
{
	v[0] = v[1] = v[2] = 0.0;
	if (!s || strlen(s) != 2 || (s[0] != '+' && s[0] != '-')) return 0;
	int i = s[1] == 'X' ? 0 : s[1] == 'Y' ? 1 : s[1] == 'Z' ? 2 : -1;
	if (i < 0) return 0;
	v[i] = s[0] == '+' ? 1.0 : -1.0;
	return 1;
}

static int cf_handedness(const char *right, const char *up, const char *front)
{
	double r[3], u[3], f[3];
	if (!cf_axis_vec(right, r) || !cf_axis_vec(up, u) || !cf_axis_vec(front, f)) return 0;
	double c[3] = { r[1] * u[2] - r[2] * u[1], r[2] * u[0] - r[0] * u[2], r[0] * u[1] - r[1] * u[0] };
	double d = c[0] * f[0] + c[1] * f[1] + c[2] * f[2];
	return d > 0.5 ? 1 : d < -0.5 ? -1 : 0;
}

/* README "Options": the four named target conventions as {right, up, front}. */
static int cf_target_handedness(const char *name)
{
	if (!strcmp(name, "right_handed_y_up")) return cf_handedness("+X", "+Y", "+Z");
	if (!strcmp(name, "left_handed_y_up")) return cf_handedness("+X", "+Y", "-Z");
	if (!strcmp(name, "right_handed_z_up")) return cf_handedness("+X", "+Z", "-Y");
	if (!strcmp(name, "left_handed_z_up")) return cf_handedness("+X", "+Z", "+Y");
	return 0;
}

/* Everything the comparison needs from one manifest entry. */
typedef struct cf_entry {
	const char *id, *fbx, *obj, *mode, *stack, *matching;
	double time;
	double tolerance, uv_tolerance, position_scale;
	bool compare_normals;       /* compare_normals != false */
	bool compare_uvs;
	bool line_faces, blender_directive;
	bool no_extrapolation;
	double fbx_position_scale;
	bool has_fbx_rotation;
	double fbx_rotation[4];
	const char *target_axes;     /* NULL = keep */
	double target_unit_meters;   /* 0 = keep */
	bool mirrored;               /* conversion is a reflection: winding reversed */
	bool vacuous;
} cf_entry;

static bool cf_entry_read(const cJSON *j, cf_entry *e, cf_result *r)
{
	memset(e, 0, sizeof(*e));
	e->id = cf_json_str(j, "id");
	e->fbx = cf_json_str(j, "fbx");
	e->obj = cf_json_str(j, "obj");
	e->mode = cf_json_str(j, "mode");
	e->matching = cf_json_str(j, "matching");
	if (!e->id || !e->fbx || !e->obj || !e->mode || !e->matching) {
		cf_fail(r, "manifest", "entry lacks id/fbx/obj/mode/matching");
		return false;
	}
	e->stack = cf_json_str(j, "stack");
	if (!cf_json_num(j, "time", &e->time)) e->time = 0.0;
	if (!cf_json_num(j, "tolerance", &e->tolerance)) e->tolerance = 0.001;
	if (!cf_json_num(j, "uv_tolerance", &e->uv_tolerance)) e->uv_tolerance = 0.001;
	if (!cf_json_num(j, "position_scale", &e->position_scale)) e->position_scale = 1.0;
	const cJSON *cn = cJSON_GetObjectItemCaseSensitive(j, "compare_normals");
	e->compare_normals = cn && !cJSON_IsFalse(cn) && !cJSON_IsNull(cn);
	e->compare_uvs = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "compare_uvs"));
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(j, "directives");
	e->line_faces = cf_json_has_string(dir, "line_faces");
	const cJSON *it;
	cJSON_ArrayForEach(it, dir)
		if (cJSON_IsString(it) && strstr(it->valuestring, "www.blender.org")) e->blender_directive = true;
	const cJSON *eo = cJSON_GetObjectItemCaseSensitive(j, "eval_options");
	e->no_extrapolation = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(eo, "no_extrapolation"));
	const cJSON *dopt = cJSON_GetObjectItemCaseSensitive(j, "diff_options");
	if (!cf_json_num(dopt, "fbx_position_scale", &e->fbx_position_scale)) e->fbx_position_scale = 1.0;
	const cJSON *rot = cJSON_GetObjectItemCaseSensitive(dopt, "fbx_rotation_xyzw");
	if (rot) {
		if (!cJSON_IsArray(rot) || cJSON_GetArraySize(rot) != 4) {
			cf_fail(r, "manifest", "fbx_rotation_xyzw is not 4 numbers");
			return false;
		}
		for (int k = 0; k < 4; k++) {
			const cJSON *c = cJSON_GetArrayItem(rot, k);
			if (!cJSON_IsNumber(c)) {
				cf_fail(r, "manifest", "fbx_rotation_xyzw is not 4 numbers");
				return false;
			}
			e->fbx_rotation[k] = c->valuedouble;
		}
		double l = sqrt(e->fbx_rotation[0] * e->fbx_rotation[0] + e->fbx_rotation[1] * e->fbx_rotation[1] +
			e->fbx_rotation[2] * e->fbx_rotation[2] + e->fbx_rotation[3] * e->fbx_rotation[3]);
		if (!(l > 0.0)) {
			cf_fail(r, "manifest", "fbx_rotation_xyzw has zero length");
			return false;
		}
		for (int k = 0; k < 4; k++) e->fbx_rotation[k] /= l;
		e->has_fbx_rotation = true;
	}
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(j, "load_options");
	e->target_axes = cf_json_str(lo, "target_axes");
	if (!cf_json_num(lo, "target_unit_meters", &e->target_unit_meters)) e->target_unit_meters = 0.0;
	if (e->target_axes) {
		/* Mirroring: file handedness (file_info.axes; "unknown" = FBX's
		 * default right-handed Y up) differs from the target's. */
		const cJSON *ax = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "file_info"), "axes");
		int fh = cf_handedness(cf_json_str(ax, "right"), cf_json_str(ax, "up"), cf_json_str(ax, "front"));
		if (fh == 0) fh = 1;
		int th = cf_target_handedness(e->target_axes);
		if (th == 0) {
			cf_fail(r, "manifest", "unknown target_axes '%s'", e->target_axes);
			return false;
		}
		e->mirrored = fh != th;
	}
	e->vacuous = cf_json_has_string(cJSON_GetObjectItemCaseSensitive(j, "features"), "vacuous_no_faces_in_obj");
	return true;
}

/* Reason to skip an entry, or NULL. */
static const char *cf_skip_reason(const cJSON *j, const cf_entry *e)
{
	const cJSON *features = cJSON_GetObjectItemCaseSensitive(j, "features");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "out_of_scope")) || cf_json_has_string(features, "out_of_scope"))
		return "out_of_scope";
	if (!strcmp(e->matching, "multiset_subdivided")) return "out_of_scope (Catmull-Clark subdivision)";
	if (!strcmp(e->matching, "multiset_tessellated_nurbs")) return "out_of_scope (NURBS tessellation)";
	if (!strcmp(e->mode, "pose")) return "pose mode not supported yet";
	return NULL;
}

/* ==========================================================================
 * Obj mesh -> FBX node (README "Finding the FBX node for an obj mesh")
 * ========================================================================== */

static int cf_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const rk_node *cf_map_mesh(const rk_scene *s, const cf_objmesh *om, bool blender, const bool *taken, int *rule)
{
	/* Rule 1: sorted group names == sorted names of node + ancestors (root excluded). */
	if (om->group_count > 0) {
		const char **want = (const char **)cf_alloc(om->group_count * sizeof(char *));
		const char **have = (const char **)cf_alloc(om->group_count * sizeof(char *));
		for (size_t g = 0; g < om->group_count; g++) want[g] = om->groups[g];
		qsort(want, om->group_count, sizeof(char *), cf_strptr_cmp);
		const rk_node *found = NULL;
		for (size_t i = 0; i < s->nodes.count && !found; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (!n->mesh || taken[i] || !n->parent) continue;
			size_t depth = 0;
			for (const rk_node *a = n; a && a->parent; a = a->parent) depth++;
			if (depth != om->group_count) continue;
			size_t k = 0;
			for (const rk_node *a = n; a && a->parent; a = a->parent) have[k++] = a->name ? a->name : "";
			qsort(have, depth, sizeof(char *), cf_strptr_cmp);
			bool eq = true;
			for (size_t g = 0; g < depth && eq; g++) eq = strcmp(have[g], want[g]) == 0;
			if (eq) found = n;
		}
		free(want);
		free(have);
		if (found) {
			*rule = 1;
			return found;
		}
	}
	/* Rule 2: a node named exactly the whole text after "g "/"o ". */
	if (om->raw[0]) {
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (!n->parent || !n->name || !n->mesh) continue;
			if (!strcmp(n->name, om->raw) || !strcmp(n->name, om->raw_decoded)) {
				*rule = 2;
				return n;
			}
		}
	}
	/* Rule 3: each group name in order (Blender: also the part before '_'). */
	for (size_t g = 0; g < om->group_count; g++) {
		const char *name = om->groups[g];
		for (int pass = 0; pass < 2; pass++) {
			size_t cmp_len = strlen(name);
			if (pass == 1) {
				const char *us = strchr(name, '_');
				if (!blender || !us) break;
				cmp_len = (size_t)(us - name);
			}
			for (size_t i = 0; i < s->nodes.count; i++) {
				const rk_node *n = &s->nodes.data[i];
				if (!n->parent || !n->name || !n->mesh || taken[i]) continue;
				if (strlen(n->name) == cmp_len && !memcmp(n->name, name, cmp_len)) {
					*rule = 3;
					return n;
				}
			}
		}
	}
	/* Rule 4: exactly one mesh, used by exactly one node. */
	if (s->meshes.count == 1) {
		const rk_node *only = NULL;
		size_t users = 0;
		for (size_t i = 0; i < s->nodes.count; i++)
			if (s->nodes.data[i].mesh == &s->meshes.data[0]) {
				only = &s->nodes.data[i];
				users++;
			}
		if (users == 1) {
			*rule = 4;
			return only;
		}
	}
	return NULL;
}

/* ==========================================================================
 * FBX side: world-space corners of one node in comparison space
 * ========================================================================== */

typedef struct cf_fbxmesh {
	const rk_node *node;
	size_t face_count;
	size_t *face_first;      /* into the arrays below, faces in FBX order */
	uint32_t *face_len;
	size_t corner_count;     /* corners with winding already applied */
	rk_vec3 *pos;            /* comparison space */
	rk_vec3 *nrm;            /* NULL when normals are not compared */
	rk_vec2 *uv;             /* NULL when the mesh has no UV set */
	size_t skipped_line_faces;
	bool deformed;
} cf_fbxmesh;

static void cf_fbxmesh_free(cf_fbxmesh *m)
{
	free(m->face_first);
	free(m->face_len);
	free(m->pos);
	free(m->nrm);
	free(m->uv);
	memset(m, 0, sizeof(*m));
}

static rk_vec3 cf_xf_fbx_pos(const cf_entry *e, rk_vec3 p)
{
	double k = e->fbx_position_scale;
	p = (rk_vec3){ p.x * k, p.y * k, p.z * k };
	if (e->has_fbx_rotation) p = cf_quat_rotate(e->fbx_rotation, p);
	k = e->position_scale;
	return (rk_vec3){ p.x * k, p.y * k, p.z * k };
}

static rk_vec3 cf_xf_obj_pos(const cf_entry *e, rk_vec3 p)
{
	double k = e->position_scale;
	return (rk_vec3){ p.x * k, p.y * k, p.z * k };
}

static const rk_uv_set *cf_pick_uv_set(const rk_node *n, bool use_current)
{
	const rk_mesh *m = n->mesh;
	if (!m->uv_sets.count) return NULL;
	if (use_current && n->default_uv_set && n->default_uv_set[0])
		for (size_t i = 0; i < m->uv_sets.count; i++)
			if (m->uv_sets.data[i].name && !strcmp(m->uv_sets.data[i].name, n->default_uv_set))
				return &m->uv_sets.data[i];
	return &m->uv_sets.data[0];
}

/* Evaluates node's mesh for the pose and fills *out. */
static bool cf_fbxmesh_build(const rk_scene *s, const rk_pose *pose, const rk_node *n, const cf_entry *e,
	bool ordered, cf_fbxmesh *out, cf_result *r)
{
	memset(out, 0, sizeof(*out));
	const rk_mesh *m = n->mesh;
	out->node = n;
	for (size_t f = 0; f < m->face_count; f++) {
		if (m->faces[f].index_begin > m->index_count || m->faces[f].index_count > m->index_count - m->faces[f].index_begin) {
			cf_fail(r, "mesh data", "node '%s': face %zu corners out of range", n->name, f);
			return false;
		}
	}
	for (size_t c = 0; c < m->index_count; c++) {
		if (m->vertex_indices[c] >= m->vertex_count) {
			cf_fail(r, "mesh data", "node '%s': corner %zu vertex index %u >= %zu", n->name, c,
				(unsigned)m->vertex_indices[c], m->vertex_count);
			return false;
		}
	}
	rk_vec3 *wpos = (rk_vec3 *)cf_alloc(m->vertex_count * sizeof(rk_vec3));
	if (!rk_mesh_world_positions_eval(s, n, pose, wpos)) {
		free(wpos);
		cf_fail(r, "eval", "rk_mesh_world_positions_eval failed for node '%s'", n->name);
		return false;
	}
	out->deformed = n->skin != NULL || m->skin_count > 0 || m->blend_channels.count > 0;
	/* Directive transform_skin (maya_instanced_skin): the README's extra
	 * geometry_to_world * inv(B) for skinned instances is part of the world
	 * positions rk_mesh_world_positions_eval returns for instanced skinned
	 * meshes, so it is not applied here again: whatever the library returns
	 * must match the reference directly, as the CLI output must. */
	rk_vec3 *wnrm = NULL;
	if (e->compare_normals && m->normals.exists && (!out->deformed || !ordered)) {
		/* Ordered: undeformed meshes only (README "Normals"). Multiset: raw
		 * skinned normals for skinned meshes. */
		wnrm = (rk_vec3 *)cf_alloc(m->index_count * sizeof(rk_vec3));
		if (!rk_mesh_world_normals_eval(s, n, pose, wnrm)) {
			free(wpos);
			free(wnrm);
			cf_fail(r, "eval", "rk_mesh_world_normals_eval failed for node '%s' (mesh has normals)", n->name);
			return false;
		}
	}
	const rk_uv_set *uvs = cf_pick_uv_set(n, ordered);
	out->face_first = (size_t *)cf_alloc(m->face_count * sizeof(size_t));
	out->face_len = (uint32_t *)cf_alloc(m->face_count * sizeof(uint32_t));
	out->pos = (rk_vec3 *)cf_alloc(m->index_count * sizeof(rk_vec3));
	if (wnrm) out->nrm = (rk_vec3 *)cf_alloc(m->index_count * sizeof(rk_vec3));
	if (uvs) out->uv = (rk_vec2 *)cf_alloc(m->index_count * sizeof(rk_vec2));
	bool uv_ok = true;
	size_t oc = 0;
	for (size_t f = 0; f < m->face_count; f++) {
		uint32_t cnt = m->faces[f].index_count;
		if (e->line_faces && cnt == 2) {
			out->skipped_line_faces++;
			continue;
		}
		out->face_first[out->face_count] = oc;
		out->face_len[out->face_count] = cnt;
		out->face_count++;
		for (uint32_t k = 0; k < cnt; k++) {
			/* Mirroring conversion: [c0, c1, .., cn] -> [c0, cn, .., c1]. */
			uint32_t kk = (e->mirrored && k > 0) ? cnt - k : k;
			size_t c = m->faces[f].index_begin + kk;
			out->pos[oc] = cf_xf_fbx_pos(e, wpos[m->vertex_indices[c]]);
			if (wnrm) {
				rk_vec3 nn = wnrm[c];
				if (e->has_fbx_rotation) nn = cf_quat_rotate(e->fbx_rotation, nn);
				out->nrm[oc] = nn;
			}
			if (uvs) {
				uint32_t ui = uvs->uv.indices ? uvs->uv.indices[c] : (uint32_t)c;
				if (ui < uvs->uv.value_count && (uvs->uv.values_f64 || uvs->uv.values_f32)) out->uv[oc] = rk_attrib_vec2_value(&uvs->uv, ui);
				else {
					out->uv[oc] = (rk_vec2){ NAN, NAN };
					uv_ok = false;
				}
			}
			oc++;
		}
	}
	out->corner_count = oc;
	free(wpos);
	free(wnrm);
	if (!uv_ok) {
		cf_fail(r, "mesh data", "node '%s': UV index out of range in set '%s'", n->name, uvs->name ? uvs->name : "");
		return false;
	}
	return true;
}

/* ==========================================================================
 * Comparison
 * ========================================================================== */

static void cf_fmt3(char *dst, size_t cap, rk_vec3 v)
{
	snprintf(dst, cap, "(%.6g %.6g %.6g)", v.x, v.y, v.z);
}

/* README "Ordered matching". Returns false on mismatch (first one in r). */
static bool cf_compare_ordered(const cf_entry *e, const cf_obj *o, const cf_objmesh *om, const cf_fbxmesh *fm, cf_result *r)
{
	const char *name = fm->node->name;
	size_t nf = om->face_count;
	if (!e->line_faces && fm->face_count != om->face_count) {
		cf_fail(r, "topology", "mesh '%s': %zu faces, reference %zu", name, fm->face_count, om->face_count);
		return false;
	}
	if (fm->face_count < nf) nf = fm->face_count;
	size_t ref_corners = 0;
	for (size_t f = 0; f < om->face_count; f++) ref_corners += o->face_len[om->face_begin + f];
	if (!e->line_faces && fm->corner_count != ref_corners) {
		cf_fail(r, "topology", "mesh '%s': %zu corners, reference %zu", name, fm->corner_count, ref_corners);
		return false;
	}
	bool cmp_uv = e->compare_uvs && om->has_t;
	bool first_failure = r->status != CF_FAIL;
	bool ok = true;
	size_t bad_pos = 0, bad_nrm = 0, bad_uv = 0;
	for (size_t f = 0; f < nf; f++) {
		size_t of = om->face_begin + f;
		uint32_t n = fm->face_len[f];
		if (n != o->face_len[of]) {
			cf_fail(r, "topology", "mesh '%s' face %zu: %u corners, reference %u", name, f, n, o->face_len[of]);
			return false;
		}
		for (uint32_t k = 0; k < n; k++) {
			const cf_corner *rc = &o->corners[o->face_first[of] + k];
			size_t fc = fm->face_first[f] + k;
			rk_vec3 rp = cf_xf_obj_pos(e, o->v[rc->v]);
			double d = cf_diff3(fm->pos[fc], rp);
			if (d > r->max_pos_err || d != d) r->max_pos_err = d;
			r->corners++;
			if (!(d < CF_ORDERED_TOL)) {
				bad_pos++;
				if (ok) {
					char a[96], b[96];
					cf_fmt3(a, sizeof(a), fm->pos[fc]);
					cf_fmt3(b, sizeof(b), rp);
					cf_fail(r, "position", "mesh '%s' face %zu corner %u: position %s, reference %s (|d| %.3g)", name, f, k, a, b, d);
				}
				ok = false;
			}
			if (fm->nrm && rc->n >= 0) {
				rk_vec3 fnv = fm->nrm[fc], rn = o->vn[rc->n];
				if (cf_len2(fnv) > 0.01 && cf_len2(rn) > 0.01) {
					rn = cf_normalize(rn);
					d = cf_diff3(fnv, rn);
					if (d > r->max_normal_err || d != d) r->max_normal_err = d;
					r->normals++;
					if (!(d < CF_ORDERED_TOL)) {
						bad_nrm++;
						if (ok) {
							char a[96], b[96];
							cf_fmt3(a, sizeof(a), fnv);
							cf_fmt3(b, sizeof(b), rn);
							cf_fail(r, "normal", "mesh '%s' face %zu corner %u: normal %s, reference %s (|d| %.3g)", name, f, k, a, b, d);
						}
						ok = false;
					}
				}
			}
			if (cmp_uv) {
				if (rc->t < 0) {
					if (fm->uv) {
						bad_uv++;
						if (ok) cf_fail(r, "uv", "mesh '%s' face %zu corner %u: FBX corner has a UV, reference has none", name, f, k);
						ok = false;
					}
				} else if (!fm->uv) {
					bad_uv++;
					if (ok) cf_fail(r, "uv", "mesh '%s': reference has UVs, the FBX mesh has no UV set", name);
					ok = false;
				} else {
					rk_vec2 ru = o->vt[rc->t];
					d = cf_diff2(fm->uv[fc], ru);
					if (d > r->max_uv_err || d != d) r->max_uv_err = d;
					r->uvs++;
					if (!(d < e->uv_tolerance)) {
						bad_uv++;
						if (ok) {
							const rk_uv_set *us = cf_pick_uv_set(fm->node, true);
							cf_fail(r, "uv", "mesh '%s' face %zu corner %u: uv (%.6g %.6g) from set '%s', reference (%.6g %.6g) (|d| %.3g)",
								name, f, k, fm->uv[fc].x, fm->uv[fc].y, us && us->name ? us->name : "", ru.x, ru.y, d);
						}
						ok = false;
					}
				}
			}
		}
	}
	if (!ok && first_failure) {
		size_t len = strlen(r->message);
		snprintf(r->message + len, sizeof(r->message) - len, " [mismatching corners in this mesh: %zu position, %zu normal, %zu uv]",
			bad_pos, bad_nrm, bad_uv);
	}
	return ok;
}

/* One corner as compared by multiset matching. */
typedef struct cf_mpoint {
	rk_vec3 p, n;
	rk_vec2 uv;
	bool has_n, has_uv;
} cf_mpoint;

typedef struct cf_cand { double d; uint32_t j; } cf_cand;

static int cf_cand_cmp(const void *a, const void *b)
{
	const cf_cand *x = (const cf_cand *)a, *y = (const cf_cand *)b;
	if (x->d != y->d) return x->d < y->d ? -1 : 1;
	return x->j < y->j ? -1 : (x->j > y->j ? 1 : 0);
}

typedef struct cf_xkey { double x; uint32_t i; } cf_xkey;

static int cf_xkey_cmp(const void *a, const void *b)
{
	const cf_xkey *p = (const cf_xkey *)a, *q = (const cf_xkey *)b;
	if (p->x != q->x) return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : (p->i > q->i ? 1 : 0);
}

static double cf_mdist(const cf_mpoint *a, const cf_mpoint *b, bool use_n, bool use_uv)
{
	double dx = a->p.x - b->p.x, dy = a->p.y - b->p.y, dz = a->p.z - b->p.z;
	double d2 = dx * dx + dy * dy + dz * dz;
	if (use_n && a->has_n && b->has_n) {
		dx = a->n.x - b->n.x, dy = a->n.y - b->n.y, dz = a->n.z - b->n.z;
		d2 += dx * dx + dy * dy + dz * dz;
	}
	if (use_uv) {
		if (a->has_uv != b->has_uv) return INFINITY;
		if (a->has_uv) {
			dx = a->uv.x - b->uv.x, dy = a->uv.y - b->uv.y;
			d2 += dx * dx + dy * dy;
		}
	}
	return d2 == d2 ? sqrt(d2) : INFINITY;
}

static int cf_finite_pos(rk_vec3 p)
{
	return isfinite(p.x) && isfinite(p.y) && isfinite(p.z);
}

/* README "Multiset matching": a perfect pairing with distance < tolerance,
 * found as a maximum bipartite matching (greedy start + augmenting paths). */
static bool cf_compare_multiset(const cf_entry *e, const cf_obj *o, const cf_objmesh *om, const cf_fbxmesh *fm, cf_result *r)
{
	const char *name = fm->node->name;
	if (fm->face_count != om->face_count) {
		cf_fail(r, "topology", "mesh '%s': %zu faces, reference %zu", name, fm->face_count, om->face_count);
		return false;
	}
	size_t nr = 0;
	for (size_t f = 0; f < om->face_count; f++) nr += o->face_len[om->face_begin + f];
	size_t nfc = fm->corner_count;
	if (nfc != nr) {
		cf_fail(r, "topology", "mesh '%s': %zu corners, reference %zu", name, nfc, nr);
		return false;
	}
	bool use_uv = e->compare_uvs && om->has_t;
	bool use_n = e->compare_normals && fm->nrm != NULL;
	if (use_uv && !fm->uv) {
		cf_fail(r, "uv", "mesh '%s': reference has UVs, the FBX mesh has no UV set", name);
		return false;
	}
	cf_mpoint *F = (cf_mpoint *)cf_alloc(nfc * sizeof(cf_mpoint));
	cf_mpoint *R = (cf_mpoint *)cf_alloc(nr * sizeof(cf_mpoint));
	for (size_t i = 0; i < nfc; i++) {
		F[i].p = fm->pos[i];
		if (fm->nrm && cf_len2(fm->nrm[i]) > 0.01) {
			F[i].n = fm->nrm[i];
			F[i].has_n = true;
		}
		if (fm->uv) {
			F[i].uv = fm->uv[i];
			F[i].has_uv = true;
		}
	}
	size_t k = 0;
	for (size_t f = 0; f < om->face_count; f++) {
		size_t of = om->face_begin + f;
		for (uint32_t c = 0; c < o->face_len[of]; c++, k++) {
			const cf_corner *rc = &o->corners[o->face_first[of] + c];
			R[k].p = cf_xf_obj_pos(e, o->v[rc->v]);
			if (rc->n >= 0 && cf_len2(o->vn[rc->n]) > 0.01) {
				R[k].n = cf_normalize(o->vn[rc->n]);
				R[k].has_n = true;
			}
			if (rc->t >= 0) {
				R[k].uv = o->vt[rc->t];
				R[k].has_uv = true;
			}
		}
	}
	/* Candidates: reference corners sorted by x; |dx| < tol is necessary. */
	double tol = e->tolerance;
	cf_xkey *rs = (cf_xkey *)cf_alloc(nr * sizeof(cf_xkey));
	size_t nrs = 0;
	for (size_t j = 0; j < nr; j++)
		if (cf_finite_pos(R[j].p)) rs[nrs++] = (cf_xkey){ R[j].p.x, (uint32_t)j };
	qsort(rs, nrs, sizeof(cf_xkey), cf_xkey_cmp);
	size_t *cbeg = (size_t *)cf_alloc((nfc + 1) * sizeof(size_t));
	cf_cand *cand = NULL;
	size_t ncand = 0, cand_cap = 0;
	for (size_t i = 0; i < nfc; i++) {
		cbeg[i] = ncand;
		if (!cf_finite_pos(F[i].p)) continue;
		double x0 = F[i].p.x - tol;
		size_t lo = 0, hi = nrs;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (rs[mid].x < x0) lo = mid + 1;
			else hi = mid;
		}
		for (size_t q = lo; q < nrs && rs[q].x <= F[i].p.x + tol; q++) {
			double d = cf_mdist(&F[i], &R[rs[q].i], use_n, use_uv);
			if (d < tol) {
				cf_cand cd = { d, rs[q].i };
				CF_PUSH(cand, ncand, cand_cap, cd);
			}
		}
		qsort(cand + cbeg[i], ncand - cbeg[i], sizeof(cf_cand), cf_cand_cmp);
	}
	cbeg[nfc] = ncand;
	int64_t *match_f = (int64_t *)cf_alloc(nfc * sizeof(int64_t));
	int64_t *match_r = (int64_t *)cf_alloc(nr * sizeof(int64_t));
	for (size_t i = 0; i < nfc; i++) match_f[i] = -1;
	for (size_t j = 0; j < nr; j++) match_r[j] = -1;
	/* Greedy: FBX corners in x order, closest free candidate. */
	cf_xkey *fs = (cf_xkey *)cf_alloc(nfc * sizeof(cf_xkey));
	size_t nfs = 0;
	for (size_t i = 0; i < nfc; i++)
		if (cf_finite_pos(F[i].p)) fs[nfs++] = (cf_xkey){ F[i].p.x, (uint32_t)i };
	qsort(fs, nfs, sizeof(cf_xkey), cf_xkey_cmp);
	for (size_t q = 0; q < nfs; q++) {
		uint32_t i = fs[q].i;
		for (size_t c = cbeg[i]; c < cbeg[i + 1]; c++)
			if (match_r[cand[c].j] < 0) {
				match_r[cand[c].j] = i;
				match_f[i] = cand[c].j;
				break;
			}
	}
	/* Augmenting paths (Kuhn), iterative DFS. */
	uint32_t *visited = (uint32_t *)cf_alloc(nr * sizeof(uint32_t));
	uint32_t stamp = 0;
	size_t *st_i = (size_t *)cf_alloc((nfc + 1) * sizeof(size_t));
	size_t *st_c = (size_t *)cf_alloc((nfc + 1) * sizeof(size_t));
	uint32_t *via = (uint32_t *)cf_alloc((nfc + 1) * sizeof(uint32_t));
	bool ok = true;
	for (size_t root = 0; root < nfc && ok; root++) {
		if (match_f[root] >= 0) continue;
		stamp++;
		size_t sp = 0;
		st_i[sp] = root;
		st_c[sp] = cbeg[root];
		sp++;
		bool found = false;
		while (sp > 0 && !found) {
			size_t top = sp - 1;
			size_t i = st_i[top];
			bool pushed = false;
			while (st_c[top] < cbeg[i + 1]) {
				uint32_t j = cand[st_c[top]++].j;
				if (visited[j] == stamp) continue;
				visited[j] = stamp;
				via[top] = j;
				if (match_r[j] < 0) {
					for (size_t d = 0; d <= top; d++) {
						match_f[st_i[d]] = via[d];
						match_r[via[d]] = (int64_t)st_i[d];
					}
					found = true;
					break;
				}
				st_i[sp] = (size_t)match_r[j];
				st_c[sp] = cbeg[st_i[sp]];
				sp++;
				pushed = true;
				break;
			}
			if (!found && !pushed) sp--;
		}
		if (!found) {
			double near = INFINITY;
			for (size_t j = 0; j < nr; j++) {
				double d = cf_mdist(&F[root], &R[j], use_n, use_uv);
				if (d < near) near = d;
			}
			char a[96];
			cf_fmt3(a, sizeof(a), F[root].p);
			size_t face = 0;
			while (face + 1 < fm->face_count && fm->face_first[face + 1] <= root) face++;
			cf_fail(r, "position", "mesh '%s' face %zu corner %zu: FBX corner %s%s has no free reference corner within %g (nearest at %.3g%s)",
				name, face, root - fm->face_first[face], a,
				use_uv ? (F[root].has_uv ? " uv" : " (no uv)") : "", tol, near,
				use_uv ? ", position+uv distance" : "");
			if (use_uv) {
				size_t len = strlen(r->message);
				snprintf(r->message + len, sizeof(r->message) - len, " uv (%.6g %.6g)", F[root].uv.x, F[root].uv.y);
			}
			ok = false;
		}
	}
	if (ok) {
		for (size_t i = 0; i < nfc; i++) {
			double d = cf_mdist(&F[i], &R[(size_t)match_f[i]], use_n, use_uv);
			if (d > r->max_pos_err) r->max_pos_err = d;
		}
		r->corners += nfc;
		if (use_uv) r->uvs += nfc;
	}
	free(F);
	free(R);
	free(rs);
	free(cbeg);
	free(cand);
	free(match_f);
	free(match_r);
	free(fs);
	free(visited);
	free(st_i);
	free(st_c);
	free(via);
	return ok;
}

/* ==========================================================================
 * One entry
 * ========================================================================== */

typedef struct cf_ctx {
	const char *data_dir;
	bool verbose;
} cf_ctx;

static void cf_run_entry(const cf_ctx *ctx, const cJSON *j, cf_result *r)
{
	cf_entry e;
	if (!cf_entry_read(j, &e, r)) return;
	const char *skip = cf_skip_reason(j, &e);
	if (skip) {
		r->status = CF_SKIP;
		snprintf(r->message, sizeof(r->message), "%s", skip);
		return;
	}
	bool ordered = !strcmp(e.matching, "ordered");
	if (!ordered && strcmp(e.matching, "multiset") != 0) {
		cf_fail(r, "manifest", "unknown matching '%s'", e.matching);
		return;
	}
	bool animated = !strcmp(e.mode, "animated");
	if (!animated && strcmp(e.mode, "static") != 0) {
		cf_fail(r, "manifest", "unknown mode '%s'", e.mode);
		return;
	}

	char path[4096];
	size_t obj_size = 0;
	char *obj_text = cf_join(path, sizeof(path), ctx->data_dir, e.obj) ? cf_read_file(path, &obj_size) : NULL;
	if (!obj_text) {
		cf_fail(r, "reference", "cannot read %s", path);
		return;
	}
	cf_obj obj;
	char msg[CF_MSG_MAX];
	bool parsed = cf_obj_parse(&obj, obj_text, obj_size, msg, sizeof(msg));
	free(obj_text);
	if (!parsed) {
		cf_obj_free(&obj);
		cf_fail(r, "reference", "%s: %s", e.obj, msg);
		return;
	}

	rk_load_opts lo;
	memset(&lo, 0, sizeof(lo));
	if (e.target_axes && !rk_axes_parse(e.target_axes, &lo.target_axes)) {
		cf_obj_free(&obj);
		cf_fail(r, "load", "rk_axes_parse rejects '%s'", e.target_axes);
		return;
	}
	lo.target_unit_meters = e.target_unit_meters;
	if (!cf_join(path, sizeof(path), ctx->data_dir, e.fbx)) {
		cf_obj_free(&obj);
		cf_fail(r, "load", "path too long");
		return;
	}
	rk_error err;
	memset(&err, 0, sizeof(err));
	rk_scene *s = rk_load_file(path, &lo, &err);
	if (!s) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		cf_obj_free(&obj);
		cf_fail(r, "load", "load failed: %s", buf);
		return;
	}
	/* README: entries whose obj has no faces only require a successful load. */
	if (e.vacuous || obj.mesh_count == 0) {
		cf_obj_free(&obj);
		rk_scene_free(s);
		snprintf(r->detail, sizeof(r->detail), "vacuous: loaded (obj has no faces)");
		return;
	}

	const rk_anim_clip *clip = NULL;
	double time = 0.0;
	if (animated && e.stack) {
		clip = rk_scene_find_clip(s, e.stack);
		if (!clip) {
			char names[512];
			size_t len = 0;
			names[0] = '\0';
			for (size_t i = 0; i < s->clips.count && len + 4 < sizeof(names); i++) {
				int w = snprintf(names + len, sizeof(names) - len, "%s'%s'", i ? ", " : "",
					s->clips.data[i].name ? s->clips.data[i].name : "(null)");
				if (w < 0) break;
				len += (size_t)w;
				if (len >= sizeof(names)) len = sizeof(names) - 1;
			}
			cf_fail(r, "stack", "no clip named '%s' (scene has %zu: %s)", e.stack, s->clips.count,
				s->clips.count ? names : "none");
			cf_obj_free(&obj);
			rk_scene_free(s);
			return;
		}
		time = e.time;
	} else if (animated) {
		time = e.time;   /* no stack in the file: static values */
	}
	size_t pose_size = rk_pose_memory_size(s);
	void *pose_mem = cf_alloc(pose_size);
	rk_pose pose;
	if (!rk_pose_init(&pose, s, pose_mem, pose_size)) {
		free(pose_mem);
		cf_obj_free(&obj);
		rk_scene_free(s);
		cf_fail(r, "eval", "rk_pose_init failed (size %zu)", pose_size);
		return;
	}
	rk_pose_eval_job job;
	memset(&job, 0, sizeof(job));
	job.scene = s;
	job.clip = clip;
	job.time = time;
	job.no_extrapolation = e.no_extrapolation;
	job.pose = &pose;
	if (!rk_pose_eval_validate(&job, &err) || !rk_pose_eval_run(&job)) {
		char buf[1024];
		rk_error_format(buf, sizeof(buf), &err);
		free(pose_mem);
		cf_obj_free(&obj);
		rk_scene_free(s);
		cf_fail(r, "eval", "pose job rejected: %s", buf);
		return;
	}

	bool *taken = (bool *)cf_alloc(s->nodes.count * sizeof(bool));
	bool blender = obj.blender || e.blender_directive;
	for (size_t i = 0; i < obj.mesh_count; i++) {
		const cf_objmesh *om = &obj.meshes[i];
		int rule = 0;
		const rk_node *n = cf_map_mesh(s, om, blender, taken, &rule);
		if (!n) {
			r->bad_meshes++;
			size_t mesh_nodes = 0;
			for (size_t k = 0; k < s->nodes.count; k++) mesh_nodes += s->nodes.data[k].mesh != NULL;
			cf_fail(r, "mapping", "no FBX mesh node for obj mesh '%s' (%zu faces); the scene has %zu nodes (root included), %zu meshes, %zu mesh nodes",
				om->raw[0] ? om->raw : "(unnamed)", om->face_count, s->nodes.count, s->meshes.count, mesh_nodes);
			continue;
		}
		taken[n->index] = true;
		if (n->mesh->skin_count > 1) continue;   /* README: not compared */
		cf_fbxmesh fm;
		if (!cf_fbxmesh_build(s, &pose, n, &e, ordered, &fm, r)) {
			r->bad_meshes++;
			cf_fbxmesh_free(&fm);
			continue;
		}
		bool ok = ordered ? cf_compare_ordered(&e, &obj, om, &fm, r) : cf_compare_multiset(&e, &obj, om, &fm, r);
		if (!ok) r->bad_meshes++;
		r->meshes++;
		if (ctx->verbose)
			printf("    obj mesh '%s' -> node '%s' (rule %d)%s\n", om->raw[0] ? om->raw : "(unnamed)", n->name, rule, ok ? "" : " MISMATCH");
		cf_fbxmesh_free(&fm);
	}
	free(taken);
	free(pose_mem);
	cf_obj_free(&obj);
	rk_scene_free(s);
	snprintf(r->detail, sizeof(r->detail), "%zu meshes (%zu failing), %zu corners, %zu normals, %zu uvs compared; max error pos %.3g normal %.3g uv %.3g",
		r->meshes, r->bad_meshes, r->corners, r->normals, r->uvs, r->max_pos_err, r->max_normal_err, r->max_uv_err);
	if (r->status == CF_FAIL) {
		size_t len = strlen(r->message);
		if (r->bad_meshes > 1)
			snprintf(r->message + len, sizeof(r->message) - len, " (%zu meshes fail)", r->bad_meshes);
	}
}

/* ==========================================================================
 * Known failures, feature statistics, reports
 * ========================================================================== */

typedef struct cf_known {
	char *id;
	char *reason;
} cf_known;

typedef struct cf_known_list { cf_known *data; size_t count, cap; } cf_known_list;

/* One id per line, optional "# reason" after it; '#' lines are comments. */
static void cf_known_load(const char *path, cf_known_list *list)
{
	memset(list, 0, sizeof(*list));
	size_t size;
	char *text = cf_read_file(path, &size);
	if (!text) return;
	for (char *p = text; *p;) {
		char *e = p;
		while (*e && *e != '\n' && *e != '\r') e++;
		char *hash = memchr(p, '#', (size_t)(e - p));
		char *idend = hash ? hash : e;
		char *b = p;
		while (b < idend && cf_is_space(*b)) b++;
		while (idend > b && cf_is_space(idend[-1])) idend--;
		if (idend > b) {
			cf_known k;
			k.id = cf_strndup(b, (size_t)(idend - b));
			if (hash) {
				char *rb = hash + 1, *re = e;
				while (rb < re && cf_is_space(*rb)) rb++;
				while (re > rb && cf_is_space(re[-1])) re--;
				k.reason = cf_strndup(rb, (size_t)(re - rb));
			} else {
				k.reason = cf_strdup("");
			}
			CF_PUSH(list->data, list->count, list->cap, k);
		}
		p = *e ? e + 1 : e;
	}
	free(text);
}

static cf_known *cf_known_find(cf_known_list *list, const char *id)
{
	for (size_t i = 0; i < list->count; i++)
		if (!strcmp(list->data[i].id, id)) return &list->data[i];
	return NULL;
}

typedef struct cf_feature { char *tag; size_t passed, failed, skipped; } cf_feature;
typedef struct cf_feature_list { cf_feature *data; size_t count, cap; } cf_feature_list;

static void cf_feature_add(cf_feature_list *fl, const char *tag, cf_status st)
{
	cf_feature *f = NULL;
	for (size_t i = 0; i < fl->count && !f; i++)
		if (!strcmp(fl->data[i].tag, tag)) f = &fl->data[i];
	if (!f) {
		cf_feature nf = { cf_strdup(tag), 0, 0, 0 };
		CF_PUSH(fl->data, fl->count, fl->cap, nf);
		f = &fl->data[fl->count - 1];
	}
	if (st == CF_PASS) f->passed++;
	else if (st == CF_FAIL) f->failed++;
	else f->skipped++;
}

static int cf_feature_cmp(const void *a, const void *b)
{
	const cf_feature *x = (const cf_feature *)a, *y = (const cf_feature *)b;
	size_t tx = x->passed + x->failed, ty = y->passed + y->failed;
	if (tx != ty) return tx > ty ? -1 : 1;
	return strcmp(x->tag, y->tag);
}

static const char *cf_status_word(const cf_result *r)
{
	if (r->status == CF_PASS) return r->known ? "FIXED" : "PASS";
	if (r->status == CF_FAIL) return r->known ? "KNOWN" : "FAIL";
	return "SKIP";
}

/* Markdown-safe copy of s (| and newlines escaped) to f. */
static void cf_md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|') fputs("\\|", f);
		else if (*s == '\n' || *s == '\r') fputc(' ', f);
		else fputc(*s, f);
	}
}

int main(int argc, char **argv)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) {
		printf("test_conformance: SKIPPED: shared folder not found (set RIGKIT_SHARED_DIR or configure RIGKIT_SHARED_DIR)\n");
		return 77;
	}
	char manifest_path[4096], data_dir[4096];
	snprintf(manifest_path, sizeof(manifest_path), "%s/conformance/manifest.json", shared);
	snprintf(data_dir, sizeof(data_dir), "%s/conformance/data", shared);
	size_t msize;
	char *mtext = cf_read_file(manifest_path, &msize);
	if (!mtext) {
		printf("test_conformance: SKIPPED: %s not found\n", manifest_path);
		return 77;
	}
	cJSON *manifest = cJSON_ParseWithLength(mtext, msize);
	free(mtext);
	if (!cJSON_IsArray(manifest)) {
		fprintf(stderr, "test_conformance: %s is not a JSON array\n", manifest_path);
		cJSON_Delete(manifest);
		return 1;
	}
	const char *q = getenv("RIGKIT_TEST_QUICK");
	bool quick = q && q[0] && strcmp(q, "0") != 0;
	const char *vb = getenv("RIGKIT_CONFORMANCE_VERBOSE");
	bool verbose = vb && vb[0] && strcmp(vb, "0") != 0;
	const char *filter = argc > 1 ? argv[1] : NULL;
	bool full = !quick && !filter;

	cf_known_list known;
	cf_known_load(RK_SOURCE_DIR "/tests/conformance_known_failures.txt", &known);

	cf_ctx ctx = { data_dir, verbose };
	size_t total = (size_t)cJSON_GetArraySize(manifest);
	cf_result *results = (cf_result *)cf_alloc((total ? total : 1) * sizeof(cf_result));
	const char **ids = (const char **)cf_alloc((total ? total : 1) * sizeof(char *));
	bool *ran = (bool *)cf_alloc((total ? total : 1) * sizeof(bool));
	size_t n_pass = 0, n_fail = 0, n_known = 0, n_fixed = 0, n_skip = 0, n_run = 0;
	cf_feature_list features = { 0 };
	double t_start = cf_now();

	size_t idx = 0;
	const cJSON *j;
	cJSON_ArrayForEach(j, manifest) {
		size_t i = idx++;
		const char *id = cf_json_str(j, "id");
		ids[i] = id ? id : "(no id)";
		if (filter && !strstr(ids[i], filter)) continue;
		if (quick && i % 4 != 0) continue;
		ran[i] = true;
		n_run++;
		cf_result *r = &results[i];
		double t0 = cf_now();
		if (verbose) printf("%s\n", ids[i]);
		cf_run_entry(&ctx, j, r);
		fflush(stdout);
		r->seconds = cf_now() - t0;
		cf_known *k = cf_known_find(&known, ids[i]);
		if (k) {
			r->known = r->status != CF_SKIP;
			r->known_reason = k->reason;
		}
		if (r->status == CF_PASS) {
			n_pass++;
			if (r->known) {
				n_fixed++;
				printf("FIXED %s: passes now but is listed in tests/conformance_known_failures.txt (\"%s\") - remove it from the list\n", ids[i], k->reason);
			} else if (verbose) {
				printf("PASS %s: %s (%.3fs)\n", ids[i], r->detail, r->seconds);
			}
		} else if (r->status == CF_FAIL) {
			if (r->known) {
				n_known++;
				printf("KNOWN %s: [%s] %s\n", ids[i], r->kind, r->message);
			} else {
				n_fail++;
				printf("FAIL %s: [%s] %s\n", ids[i], r->kind, r->message);
			}
			if (verbose && r->detail[0]) printf("    %s\n", r->detail);
		} else {
			n_skip++;
			if (verbose) printf("SKIP %s: %s\n", ids[i], r->message);
		}
		const cJSON *tag;
		cJSON_ArrayForEach(tag, cJSON_GetObjectItemCaseSensitive(j, "features"))
			if (cJSON_IsString(tag)) cf_feature_add(&features, tag->valuestring, r->status);
		const char *matching = cf_json_str(j, "matching");
		if (matching) {
			char mt[96];
			snprintf(mt, sizeof(mt), "matching:%s", matching);
			bool listed = false;
			cJSON_ArrayForEach(tag, cJSON_GetObjectItemCaseSensitive(j, "features"))
				if (cJSON_IsString(tag) && !strcmp(tag->valuestring, mt)) listed = true;
			if (!listed) cf_feature_add(&features, mt, r->status);
		}
		cf_feature_add(&features, "all", r->status);
	}
	double wall = cf_now() - t_start;

	/* Known-list ids that the manifest lacks (only meaningful on a full run). */
	size_t n_stale = 0;
	if (full) {
		for (size_t i = 0; i < known.count; i++) {
			bool in_manifest = false;
			for (size_t m = 0; m < total && !in_manifest; m++) in_manifest = !strcmp(ids[m], known.data[i].id);
			if (!in_manifest) {
				n_stale++;
				printf("STALE tests/conformance_known_failures.txt lists '%s', which is not in the manifest\n", known.data[i].id);
			}
		}
	}

	qsort(features.data, features.count, sizeof(cf_feature), cf_feature_cmp);
	printf("\nper feature (passed/in scope, skipped):\n");
	for (size_t i = 0; i < features.count; i++) {
		const cf_feature *f = &features.data[i];
		printf("  %-34s %4zu/%-4zu%s", f->tag, f->passed, f->passed + f->failed, f->skipped ? "" : "\n");
		if (f->skipped) printf(" (%zu skipped)\n", f->skipped);
	}
	printf("\nconformance: %zu entries checked%s%s in %.1fs\n", n_run, quick ? " (RIGKIT_TEST_QUICK: every 4th)" : "",
		filter ? " (filtered)" : "", wall);
	printf("%zu passed, %zu failed, %zu skipped\n", n_pass, n_fail + n_known, n_skip);
	printf("(%zu of the failures are listed known failures; %zu new failures; %zu listed entries pass now)\n",
		n_known, n_fail, n_fixed);

	/* Reports: JSON + markdown into the build folder (not for filtered runs). */
	if (!filter) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "manifest", manifest_path);
		cJSON_AddBoolToObject(root, "quick", quick);
		cJSON_AddNumberToObject(root, "entries", (double)total);
		cJSON_AddNumberToObject(root, "checked", (double)n_run);
		cJSON_AddNumberToObject(root, "passed", (double)n_pass);
		cJSON_AddNumberToObject(root, "failed", (double)(n_fail + n_known));
		cJSON_AddNumberToObject(root, "known_failures", (double)n_known);
		cJSON_AddNumberToObject(root, "new_failures", (double)n_fail);
		cJSON_AddNumberToObject(root, "fixed_known_failures", (double)n_fixed);
		cJSON_AddNumberToObject(root, "skipped", (double)n_skip);
		cJSON_AddNumberToObject(root, "seconds", wall);
		cJSON *fj = cJSON_AddObjectToObject(root, "features");
		for (size_t i = 0; i < features.count; i++) {
			cJSON *o = cJSON_AddObjectToObject(fj, features.data[i].tag);
			cJSON_AddNumberToObject(o, "passed", (double)features.data[i].passed);
			cJSON_AddNumberToObject(o, "total", (double)(features.data[i].passed + features.data[i].failed));
			cJSON_AddNumberToObject(o, "skipped", (double)features.data[i].skipped);
		}
		cJSON *ej = cJSON_AddArrayToObject(root, "results");
		for (size_t i = 0; i < total; i++) {
			if (!ran[i]) continue;
			const cf_result *r = &results[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "id", ids[i]);
			cJSON_AddStringToObject(o, "status", r->status == CF_PASS ? "pass" : r->status == CF_FAIL ? "fail" : "skip");
			if (r->status != CF_SKIP) cJSON_AddBoolToObject(o, "known_failure", r->known);
			if (r->status == CF_FAIL) cJSON_AddStringToObject(o, "kind", r->kind);
			if (r->known_reason) cJSON_AddStringToObject(o, "known_failure_note", r->known_reason);
			if (r->status != CF_PASS) cJSON_AddStringToObject(o, r->status == CF_SKIP ? "reason" : "message", r->message);
			if (r->status != CF_SKIP) {
				cJSON_AddNumberToObject(o, "meshes", (double)r->meshes);
				cJSON_AddNumberToObject(o, "corners", (double)r->corners);
				cJSON_AddNumberToObject(o, "normals", (double)r->normals);
				cJSON_AddNumberToObject(o, "uvs", (double)r->uvs);
				cJSON_AddNumberToObject(o, "max_position_error", isfinite(r->max_pos_err) ? r->max_pos_err : -1.0);
				cJSON_AddNumberToObject(o, "max_normal_error", isfinite(r->max_normal_err) ? r->max_normal_err : -1.0);
				cJSON_AddNumberToObject(o, "max_uv_error", isfinite(r->max_uv_err) ? r->max_uv_err : -1.0);
				cJSON_AddNumberToObject(o, "seconds", r->seconds);
			}
			cJSON_AddItemToArray(ej, o);
		}
		char *js = cJSON_Print(root);
		cJSON_Delete(root);
		char out_path[4096];
		/* A quick (subset) run must not overwrite the full report. */
		const char *stem = quick ? "conformance-quick" : "conformance";
		snprintf(out_path, sizeof(out_path), "%s/%s.json", RK_BINARY_DIR, stem);
		FILE *f = fopen(out_path, "wb");
		if (f && js) {
			fputs(js, f);
			fputc('\n', f);
		}
		if (f) fclose(f);
		else fprintf(stderr, "test_conformance: cannot write %s\n", out_path);
		free(js);

		snprintf(out_path, sizeof(out_path), "%s/%s.md", RK_BINARY_DIR, stem);
		f = fopen(out_path, "wb");
		if (f) {
			fprintf(f, "# FBX conformance\n\n");
			fprintf(f, "Generated by `tests/test_conformance.c` (CTest `test_conformance`) from the corpus in "
				"`../shared/conformance` (%zu entries; reference OBJ exports, derived from the ufbx test data). "
				"Each entry loads one FBX file, evaluates it (static or at an animation time) with rigkit's "
				"anim API and compares the world-space face corners of its meshes with a reference OBJ: "
				"positions (0.001 per component), normals of undeformed meshes and UVs where the entry asks "
				"for them, in order or as a multiset. See `../shared/conformance/README.txt` for the rules.\n\n",
				total);
			if (quick) fprintf(f, "**Quick run: every 4th entry only.**\n\n");
			fprintf(f, "**%zu passed, %zu failed, %zu skipped** (of %zu checked).\n\n", n_pass, n_fail + n_known, n_skip, n_run);
			fprintf(f, "Reproduce: `ctest --test-dir build -R test_conformance --output-on-failure` "
				"(set `RIGKIT_CONFORMANCE_VERBOSE=1` for per-entry details; `build/test_conformance ID_SUBSTRING` runs a subset).\n\n");
			fprintf(f, "## By feature\n\n| feature | passed | in scope | skipped |\n|---|---:|---:|---:|\n");
			for (size_t i = 0; i < features.count; i++) {
				const cf_feature *ft = &features.data[i];
				fprintf(f, "| `%s` | %zu | %zu | %zu |\n", ft->tag, ft->passed, ft->passed + ft->failed, ft->skipped);
			}
			if (n_fail + n_known) {
				fprintf(f, "\n## Failures\n\n| entry | status | kind | first mismatch | known-failure note |\n|---|---|---|---|---|\n");
				for (size_t i = 0; i < total; i++) {
					if (!ran[i] || results[i].status != CF_FAIL) continue;
					fprintf(f, "| `");
					cf_md_text(f, ids[i]);
					fprintf(f, "` | %s | %s | ", cf_status_word(&results[i]), results[i].kind);
					cf_md_text(f, results[i].message);
					fprintf(f, " | ");
					cf_md_text(f, results[i].known_reason ? results[i].known_reason : "");
					fprintf(f, " |\n");
				}
			}
			if (n_skip) {
				fprintf(f, "\n## Skipped\n\n| entry | reason |\n|---|---|\n");
				for (size_t i = 0; i < total; i++) {
					if (!ran[i] || results[i].status != CF_SKIP) continue;
					fprintf(f, "| `");
					cf_md_text(f, ids[i]);
					fprintf(f, "` | ");
					cf_md_text(f, results[i].message);
					fprintf(f, " |\n");
				}
			}
			fclose(f);
		} else {
			fprintf(stderr, "test_conformance: cannot write %s\n", out_path);
		}
		printf("reports: %s/%s.json, %s/%s.md\n", RK_BINARY_DIR, stem, RK_BINARY_DIR, stem);
	}

	for (size_t i = 0; i < features.count; i++) free(features.data[i].tag);
	free(features.data);
	for (size_t i = 0; i < known.count; i++) {
		free(known.data[i].id);
		free(known.data[i].reason);
	}
	free(known.data);
	free(results);
	free(ids);
	free(ran);
	cJSON_Delete(manifest);

	if (n_fixed) printf("\n*** %zu listed known failure(s) PASS now: remove them from tests/conformance_known_failures.txt ***\n", n_fixed);
	if (n_fail) printf("\n*** %zu entries fail that are not listed in tests/conformance_known_failures.txt ***\n", n_fail);
	if (n_stale) printf("\n*** %zu stale id(s) in tests/conformance_known_failures.txt ***\n", n_stale);
	if (n_fail || n_fixed || n_stale) return 1;
	if (n_run > 0 && n_pass == 0 && n_fail + n_known == 0) return 77;   /* everything skipped */
	return 0;
}
