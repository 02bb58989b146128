/* src/export/fbx/fbx_write_anim.c - animation of the FBX writer: stacks, layers,
 * curve nodes and curves (include/rigkit/export.h, FBX WRITER, ANIMATION).
 *
 * Quaternion tracks become Euler curves: keys at the source key times with
 * the Euler triple nearest the previous key's (rki_fw_euler_near), then
 * every segment is halved while linear interpolation of its Euler angles
 * departs from the track's own rotation by more than the tolerance at 1/4,
 * 1/2 or 3/4 of it (at most 40 halvings, never below 4 ticks). */
#include "export/fbx/fbx_write_internal.h"

#include <math.h>
#include <string.h>

#define RKI_FW_KEY_CONSTANT 0x00000002u
#define RKI_FW_KEY_CONSTANT_NEXT 0x00000100u
#define RKI_FW_KEY_LINEAR 0x00000004u
#define RKI_FW_KEY_CUBIC 0x00000008u
#define RKI_FW_KEY_TANGENT_USER 0x00000400u
#define RKI_FW_KEY_TANGENT_BREAK 0x00000800u
#define RKI_FW_KEY_WEIGHTED_RIGHT 0x01000000u
#define RKI_FW_KEY_WEIGHTED_NEXT_LEFT 0x02000000u
#define RKI_FW_WEIGHT_DIVIDER 9999.0
#define RKI_FW_MAX_DEPTH 40

/* One curve to write: keys with everything explicit. */
typedef struct rki_fw_keys {
	size_t count, cap;
	int64_t *ticks;
	double *values;
	rk_interp *interp;
	double *rs, *ls, *rw, *lw;    /* right/left slope (per second) and weight of each key */
} rki_fw_keys;

static bool rki_fw_keys_init(rki_fw *w, rki_fw_keys *k, size_t cap)
{
	memset(k, 0, sizeof(*k));
	if (cap == 0) cap = 1;
	k->cap = cap;
	k->ticks = (int64_t *)rki_fw_array(w, cap, sizeof(int64_t));
	k->values = (double *)rki_fw_array(w, cap, sizeof(double));
	k->interp = (rk_interp *)rki_fw_array(w, cap, sizeof(rk_interp));
	k->rs = (double *)rki_fw_array(w, cap, sizeof(double));
	k->ls = (double *)rki_fw_array(w, cap, sizeof(double));
	k->rw = (double *)rki_fw_array(w, cap, sizeof(double));
	k->lw = (double *)rki_fw_array(w, cap, sizeof(double));
	return k->ticks && k->values && k->interp && k->rs && k->ls && k->rw && k->lw;
}

static bool rki_fw_keys_grow(rki_fw *w, rki_fw_keys *k)
{
	if (k->count < k->cap) return true;
	rki_fw_keys n;
	if (!rki_fw_keys_init(w, &n, k->cap * 2)) return false;
	memcpy(n.ticks, k->ticks, k->count * sizeof(int64_t));
	memcpy(n.values, k->values, k->count * sizeof(double));
	memcpy(n.interp, k->interp, k->count * sizeof(rk_interp));
	memcpy(n.rs, k->rs, k->count * sizeof(double));
	memcpy(n.ls, k->ls, k->count * sizeof(double));
	memcpy(n.rw, k->rw, k->count * sizeof(double));
	memcpy(n.lw, k->lw, k->count * sizeof(double));
	n.count = k->count;
	*k = n;
	return true;
}

static bool rki_fw_key(rki_fw *w, rki_fw_keys *k, int64_t ticks, double value, rk_interp in)
{
	if (!rki_fw_keys_grow(w, k)) return false;
	size_t i = k->count++;
	k->ticks[i] = ticks;
	k->values[i] = value;
	k->interp[i] = in;
	k->rs[i] = k->ls[i] = 0.0;
	k->rw[i] = k->lw[i] = 1.0 / 3.0;
	return true;
}

static uint32_t rki_fw_weight_bits(double wt)
{
	double v = round(wt * RKI_FW_WEIGHT_DIVIDER);
	if (!(v >= 0.0)) v = 0.0;
	if (v > 65535.0) v = 65535.0;
	return (uint32_t)v;
}

/* Writes an AnimationCurve of `k` connected to curve node `cn` as "d|<comp>". */
static bool rki_fw_curve(rki_fw *w, int64_t cn, const char *comp, rki_fw_keys *k)
{
	/* keys whose tick is not after the previous key's cannot be kept */
	size_t m = 0, dropped = 0;
	for (size_t i = 0; i < k->count; i++) {
		if (m && k->ticks[i] <= k->ticks[m - 1]) {
			dropped++;
			continue;
		}
		if (m != i) {
			k->ticks[m] = k->ticks[i];
			k->values[m] = k->values[i];
			k->interp[m] = k->interp[i];
			k->rs[m] = k->rs[i];
			k->ls[m] = k->ls[i];
			k->rw[m] = k->rw[i];
			k->lw[m] = k->lw[i];
		}
		m++;
	}
	k->count = m;
	if (dropped) rki_fw_warn(w, "%zu animation keys closer than one FBX tick (1/46186158000 s) to the previous one were dropped", dropped);
	int64_t id = w->next_id++;
	rki_fw_elem *e = rki_fw_add(w, w->objects, "AnimationCurve");
	rki_fw_i64(w, e, id);
	rki_fw_name(w, e, "", "AnimCurve");
	rki_fw_str(w, e, "");
	w->def_counts[RKI_FW_DEF_CURVE]++;
	rki_fw_child_f64(w, e, "Default", m ? k->values[0] : 0.0);
	rki_fw_child_i32(w, e, "KeyVer", 4009);
	int64_t *kt = rki_fw_arr_i64(w, rki_fw_add(w, e, "KeyTime"), m);
	float *kv = rki_fw_arr_f32(w, rki_fw_add(w, e, "KeyValueFloat"), m);
	int32_t *kf = rki_fw_arr_i32(w, rki_fw_add(w, e, "KeyAttrFlags"), m);
	float *kd = rki_fw_arr_f32(w, rki_fw_add(w, e, "KeyAttrDataFloat"), m * 4);
	int32_t *kr = rki_fw_arr_i32(w, rki_fw_add(w, e, "KeyAttrRefCount"), m);
	if (!kt || !kv || !kf || !kd || !kr) return false;
	for (size_t i = 0; i < m; i++) {
		kt[i] = k->ticks[i];
		kv[i] = (float)k->values[i];
		uint32_t f;
		switch (k->interp[i]) {
		case RK_INTERP_CONSTANT: f = RKI_FW_KEY_CONSTANT; break;
		case RK_INTERP_CONSTANT_NEXT: f = RKI_FW_KEY_CONSTANT | RKI_FW_KEY_CONSTANT_NEXT; break;
		case RK_INTERP_CUBIC: f = RKI_FW_KEY_CUBIC | RKI_FW_KEY_TANGENT_USER; break;
		default: f = RKI_FW_KEY_LINEAR; break;
		}
		double next_ls = i + 1 < m ? k->ls[i + 1] : 0.0, next_lw = i + 1 < m ? k->lw[i + 1] : 1.0 / 3.0;
		if (k->interp[i] == RK_INTERP_CUBIC) {
			if (k->ls[i] != k->rs[i]) f |= RKI_FW_KEY_TANGENT_BREAK;
			if (k->rw[i] != 1.0 / 3.0) f |= RKI_FW_KEY_WEIGHTED_RIGHT;
			if (next_lw != 1.0 / 3.0) f |= RKI_FW_KEY_WEIGHTED_NEXT_LEFT;
		}
		kf[i] = (int32_t)f;
		kd[i * 4] = (float)k->rs[i];
		kd[i * 4 + 1] = (float)next_ls;
		uint32_t bits = rki_fw_weight_bits(k->rw[i]) | rki_fw_weight_bits(next_lw) << 16;
		memcpy(&kd[i * 4 + 2], &bits, 4);
		kd[i * 4 + 3] = 0.0f;
		kr[i] = 1;
	}
	char prop[16] = "d|";
	strncat(prop, comp, sizeof(prop) - 3);
	rki_fw_connect_prop(w, id, cn, prop);
	w->st.curve_count++;
	w->st.key_count += m;
	return !w->failed;
}

/* ---- Euler angles ------------------------------------------------------------ */

static const char *const rki_fw_order_axes[6] = { "XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX" };

static double *rki_fw_comp(rk_vec3 *v, char axis)
{
	return axis == 'X' ? &v->x : axis == 'Y' ? &v->y : &v->z;
}

/* Rotation angle between unit quaternions a and b, accurate for tiny angles
 * too (2 atan2(|v|, |w|) of a^-1 b; acos of the dot product loses about 1e-8). */
static double rki_fw_quat_dist(rk_quat a, rk_quat b)
{
	rk_quat d = rk_quat_mul(rk_quat_conjugate(a), b);
	double v = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	return 2.0 * atan2(v, fabs(d.w));
}

static double rki_fw_euler_error(rk_vec3 e, rk_rotation_order order, rk_quat q)
{
	return rki_fw_quat_dist(rk_quat_from_euler_deg(e, order), q);
}

static double rki_fw_turns(double v, double prev)
{
	return v + 360.0 * round((prev - v) / 360.0);
}

rk_vec3 rki_fw_euler_near(rk_quat q, rk_rotation_order order, bool has_prev, rk_vec3 prev)
{
	if ((unsigned)order > 5) order = RK_ROTATION_XYZ;
	rk_vec3 e = rk_quat_to_euler_deg(q, order);
	if (!has_prev) return e;
	const char *ax = rki_fw_order_axes[order];
	rk_vec3 alt = e;
	*rki_fw_comp(&alt, ax[0]) += 180.0;
	*rki_fw_comp(&alt, ax[1]) = 180.0 - *rki_fw_comp(&alt, ax[1]);
	*rki_fw_comp(&alt, ax[2]) += 180.0;
	rk_vec3 cand[4];
	size_t n = 0;
	cand[n++] = e;
	if (rki_fw_euler_error(alt, order, q) < 1e-9) cand[n++] = alt;
	/* gimbal lock: the first and last angles trade; keep the first one */
	double mid = *rki_fw_comp(&e, ax[1]) * RK_PI / 180.0;
	if (fabs(cos(mid)) < 1e-6) {
		for (int sgn = -1; sgn <= 1; sgn += 2) {
			rk_vec3 g = e;
			double d = *rki_fw_comp(&prev, ax[0]) - *rki_fw_comp(&g, ax[0]);
			*rki_fw_comp(&g, ax[0]) += d;
			*rki_fw_comp(&g, ax[2]) += sgn * d;
			if (rki_fw_euler_error(g, order, q) < 1e-9) cand[n++] = g;
		}
	}
	rk_vec3 best = e;
	double best_d = INFINITY;
	for (size_t i = 0; i < n; i++) {
		rk_vec3 c = cand[i];
		c.x = rki_fw_turns(c.x, prev.x);
		c.y = rki_fw_turns(c.y, prev.y);
		c.z = rki_fw_turns(c.z, prev.z);
		double d = (c.x - prev.x) * (c.x - prev.x) + (c.y - prev.y) * (c.y - prev.y) + (c.z - prev.z) * (c.z - prev.z);
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	return best;
}

/* ---- tracks ------------------------------------------------------------------- */

typedef struct rki_fw_rot {
	rki_fw *w;
	const rk_anim_track *track;
	rk_rotation_order order;
	double tol;
	size_t max_keys;
	rki_fw_keys axis[3];
} rki_fw_rot;

static rk_quat rki_fw_track_quat(const rk_anim_track *t, int64_t ticks)
{
	double v[4] = { 0, 0, 0, 1 };
	rk_anim_track_eval(t, (double)ticks / RKI_FW_TICKS_PER_SECOND, false, v, 4);
	rk_quat q = { v[0], v[1], v[2], v[3] };
	double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(len > 0.0) || !isfinite(len)) return (rk_quat){ 0, 0, 0, 1 };
	return rk_quat_normalize(q);
}

static bool rki_fw_rot_key(rki_fw_rot *r, int64_t ticks, rk_vec3 e, rk_interp in)
{
	if (r->axis[0].count >= r->max_keys)
		return rki_fw_fail(r->w, RK_ERROR_LIMIT, "a rotation track of node '%s' needs more than %zu Euler keys "
			"(rk_fbx_write_opts.max_frames)", r->track->node->name ? r->track->node->name : "", r->max_keys);
	return rki_fw_key(r->w, &r->axis[0], ticks, e.x, in) && rki_fw_key(r->w, &r->axis[1], ticks, e.y, in) &&
		rki_fw_key(r->w, &r->axis[2], ticks, e.z, in);
}

static rk_vec3 rki_fw_lerp3(rk_vec3 a, rk_vec3 b, double s)
{
	return (rk_vec3){ a.x + (b.x - a.x) * s, a.y + (b.y - a.y) * s, a.z + (b.z - a.z) * s };
}

/* Keys after (a, ea) up to and including (b, eb). */
static bool rki_fw_rot_refine(rki_fw_rot *r, int64_t a, rk_vec3 ea, int64_t b, rk_vec3 eb, int depth)
{
	double worst = 0.0;
	for (int k = 1; k <= 3; k++) {
		double s = k / 4.0;
		int64_t tm = a + (int64_t)((double)(b - a) * s);
		double ts = (double)(tm - a) / (double)(b - a);
		double e = rki_fw_euler_error(rki_fw_lerp3(ea, eb, ts), r->order, rki_fw_track_quat(r->track, tm));
		if (e > worst) worst = e;
	}
	if (worst > r->tol && depth < RKI_FW_MAX_DEPTH && b - a >= 4) {
		int64_t mid = a + (b - a) / 2;
		rk_vec3 em = rki_fw_euler_near(rki_fw_track_quat(r->track, mid), r->order, true, ea);
		return rki_fw_rot_refine(r, a, ea, mid, em, depth + 1) && rki_fw_rot_refine(r, mid, em, b, eb, depth + 1);
	}
	if (worst > r->tol && b - a < 4) r->w->st.euler_jump_count++;   /* an exact gimbal-lock crossing */
	else if (worst > r->w->st.max_euler_error) r->w->st.max_euler_error = worst;
	return rki_fw_rot_key(r, b, eb, RK_INTERP_LINEAR);
}

/* Sorted, distinct key ticks of a track (sampler times, or all curves' times). */
static int64_t *rki_fw_track_ticks(rki_fw *w, const rk_anim_track *t, size_t *out_n)
{
	size_t total = 0;
	bool curves = false;
	for (int k = 0; k < 4; k++)
		if (t->curves[k]) {
			curves = true;
			total += t->curves[k]->key_count;
		}
	if (!curves) total = t->key_count;
	int64_t *tk = (int64_t *)rki_fw_array(w, total ? total : 1, sizeof(int64_t));
	if (!tk) return NULL;
	size_t n = 0;
	if (curves) {
		for (int k = 0; k < 4; k++)
			if (t->curves[k])
				for (size_t i = 0; i < t->curves[k]->key_count; i++) tk[n++] = rki_fw_ticks(t->curves[k]->times[i]);
	} else {
		for (size_t i = 0; i < t->key_count; i++) tk[n++] = rki_fw_ticks(t->times[i]);
	}
	/* insertion sort is fine for sorted input (the usual case) */
	for (size_t i = 1; i < n; i++) {
		int64_t v = tk[i];
		size_t j = i;
		while (j > 0 && tk[j - 1] > v) {
			tk[j] = tk[j - 1];
			j--;
		}
		tk[j] = v;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || tk[i] != tk[m - 1]) tk[m++] = tk[i];
	*out_n = m;
	return tk;
}

static bool rki_fw_rotation_curves(rki_fw *w, const rk_anim_track *t, rk_rotation_order order, rki_fw_keys out[3])
{
	rki_fw_rot r;
	memset(&r, 0, sizeof(r));
	r.w = w;
	r.track = t;
	r.order = order;
	r.tol = w->o.rotation_tolerance > 0.0 ? w->o.rotation_tolerance : 4e-6;
	r.max_keys = w->o.max_frames ? w->o.max_frames : (size_t)RK_DEFAULT_MAX_FRAMES * 4;
	size_t n;
	int64_t *tk = rki_fw_track_ticks(w, t, &n);
	if (!tk) return false;
	for (int a = 0; a < 3; a++)
		if (!rki_fw_keys_init(w, &r.axis[a], n * 2 + 4)) return false;
	bool step = !t->curves[0] && !t->curves[1] && !t->curves[2] && !t->curves[3] && t->interpolation == RK_INTERP_CONSTANT;
	rk_vec3 prev = { 0, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		rk_vec3 e = rki_fw_euler_near(rki_fw_track_quat(t, tk[i]), order, i > 0, prev);
		if (i == 0 || step) {
			if (!rki_fw_rot_key(&r, tk[i], e, step ? RK_INTERP_CONSTANT : RK_INTERP_LINEAR)) return false;
		} else if (!rki_fw_rot_refine(&r, tk[i - 1], prev, tk[i], e, 0)) {
			return false;
		}
		prev = e;
	}
	for (int a = 0; a < 3; a++) out[a] = r.axis[a];
	w->st.euler_key_count += r.axis[0].count;
	return true;
}

/* Keys of one component of a sampler track (scale: values x mul). */
static bool rki_fw_sampler_keys(rki_fw *w, const rk_anim_track *t, uint32_t comp, double mul, rki_fw_keys *k)
{
	if (!rki_fw_keys_init(w, k, t->key_count)) return false;
	uint32_t nc = t->components;
	bool cubic = t->interpolation == RK_INTERP_CUBIC;
	for (size_t i = 0; i < t->key_count; i++) {
		size_t base = cubic ? (i * 3 + 1) * nc : i * nc;
		double v = rk_track_value(t, base + comp) * mul;
		rk_interp in = t->interpolation == RK_INTERP_CONSTANT ? RK_INTERP_CONSTANT : cubic ? RK_INTERP_CUBIC : RK_INTERP_LINEAR;
		if (!rki_fw_key(w, k, rki_fw_ticks(t->times[i]), v, in)) return false;
		if (cubic) {
			k->ls[i] = rk_track_value(t, i * 3 * nc + comp) * mul;         /* in-tangent */
			k->rs[i] = rk_track_value(t, (i * 3 + 2) * nc + comp) * mul;   /* out-tangent */
		}
	}
	return true;
}

static bool rki_fw_curve_keys(rki_fw *w, const rk_anim_curve *c, rki_fw_keys *k)
{
	if (!rki_fw_keys_init(w, k, c->key_count)) return false;
	for (size_t i = 0; i < c->key_count; i++) {
		if (!rki_fw_key(w, k, rki_fw_ticks(c->times[i]), c->values[i], rk_curve_interp(c, i))) return false;
		k->rs[i] = rk_curve_right_slope(c, i);
		k->ls[i] = rk_curve_left_slope(c, i);
		k->rw[i] = rk_curve_right_weight(c, i);
		k->lw[i] = rk_curve_left_weight(c, i);
	}
	return true;
}

/* An AnimationCurveNode for `prop` of object `target`, in layer `layer`. */
static int64_t rki_fw_curve_node(rki_fw *w, int64_t layer, int64_t target, const char *prop, const char *short_name,
	const char *const *comps, const double *defaults, size_t ncomp)
{
	int64_t id = w->next_id++;
	rki_fw_elem *e = rki_fw_add(w, w->objects, "AnimationCurveNode");
	rki_fw_i64(w, e, id);
	rki_fw_name(w, e, short_name, "AnimCurveNode");
	rki_fw_str(w, e, "");
	w->def_counts[RKI_FW_DEF_CURVE_NODE]++;
	rki_fw_elem *p70 = rki_fw_add(w, e, "Properties70");
	for (size_t k = 0; k < ncomp; k++) {
		char name[16] = "d|";
		strncat(name, comps[k], sizeof(name) - 3);
		rki_fw_p_number(w, p70, name, defaults[k], true);
	}
	rki_fw_connect(w, id, layer);
	rki_fw_connect_prop(w, id, target, prop);
	return id;
}

static const char *const rki_fw_xyzw[4] = { "X", "Y", "Z", "W" };

typedef struct rki_fw_seen {
	uint8_t *flags;               /* per node: bit 0 T, 1 R, 2 S */
} rki_fw_seen;

static bool rki_fw_track(rki_fw *w, int64_t layer, const rk_anim_track *t, rki_fw_seen *seen, size_t *skipped)
{
	const rk_scene *s = w->scene;
	const rk_node *n = t->node;
	if (!n || n->index >= s->nodes.count || &s->nodes.data[n->index] != n || !w->model_id[n->index]) {
		(*skipped)++;
		return true;
	}
	bool has_curves = t->curves[0] || t->curves[1] || t->curves[2] || t->curves[3];
	if (!has_curves && (t->key_count == 0 || !t->times || !rk_track_has_values(t))) return true;

	if (t->target == RK_TARGET_MORPH_WEIGHTS) {
		const rk_mesh *m = n->mesh;
		if (!m || !w->channel_id[m->index]) {
			(*skipped)++;
			return true;
		}
		if (has_curves) {
			uint32_t ch = t->morph_channel;
			if (ch >= m->blend_channels.count || !t->curves[0]) {
				(*skipped)++;
				return true;
			}
			rki_fw_keys k;
			const char *comp = "DeformPercent";
			int64_t cn = rki_fw_curve_node(w, layer, w->channel_id[m->index][ch], "DeformPercent", "DeformPercent", &comp,
				&t->default_value[0], 1);
			return rki_fw_curve_keys(w, t->curves[0], &k) && rki_fw_curve(w, cn, comp, &k);
		}
		for (uint32_t c = 0; c < t->components && c < m->blend_channels.count; c++) {
			rki_fw_keys k;
			const char *comp = "DeformPercent";
			double def = 0.0;
			int64_t cn = rki_fw_curve_node(w, layer, w->channel_id[m->index][c], "DeformPercent", "DeformPercent", &comp, &def, 1);
			if (!rki_fw_sampler_keys(w, t, c, 100.0, &k) || !rki_fw_curve(w, cn, comp, &k)) return false;
		}
		return true;
	}

	const char *prop;
	int bit = -1;
	switch (t->target) {
	case RK_TARGET_TRANSLATION: prop = "Lcl Translation"; break;
	case RK_TARGET_ROTATION_EULER: case RK_TARGET_ROTATION_QUAT: prop = "Lcl Rotation"; break;
	case RK_TARGET_SCALE: prop = "Lcl Scaling"; break;
	default: prop = t->property && t->property[0] ? t->property : ""; break;
	}
	if (!prop[0]) {
		(*skipped)++;
		return true;
	}
	if (!strcmp(prop, "Lcl Translation")) bit = 0;
	else if (!strcmp(prop, "Lcl Rotation")) bit = 1;
	else if (!strcmp(prop, "Lcl Scaling")) bit = 2;
	else if (!w->node_fbx[n->index]) {
		(*skipped)++;   /* pivots etc. of a node not written with its own FBX properties */
		return true;
	}
	if (bit >= 0) {
		if (seen->flags[n->index] & (1u << bit)) {
			rki_fw_warn(w, "node '%s': a second '%s' track in one layer is not written", n->name ? n->name : "", prop);
			return true;
		}
		seen->flags[n->index] |= (uint8_t)(1u << bit);
	}
	const char *short_name = bit == 0 ? "T" : bit == 1 ? "R" : bit == 2 ? "S" : prop;

	if (t->target == RK_TARGET_ROTATION_QUAT) {
		rki_fw_keys k[3];
		const rk_transform_props *tp = &n->props;
		rk_vec3 def = w->node_fbx[n->index] ? tp->rotation : rk_quat_to_euler_deg(n->local.rotation, RK_ROTATION_XYZ);
		if (!rki_fw_rotation_curves(w, t, w->node_order[n->index], k)) return false;
		double defs[3] = { def.x, def.y, def.z };
		if (k[0].count) {
			defs[0] = k[0].values[0];
			defs[1] = k[1].values[0];
			defs[2] = k[2].values[0];
		}
		int64_t cn = rki_fw_curve_node(w, layer, w->model_id[n->index], prop, short_name, rki_fw_xyzw, defs, 3);
		for (int a = 0; a < 3; a++)
			if (!rki_fw_curve(w, cn, rki_fw_xyzw[a], &k[a])) return false;
		return true;
	}
	if (has_curves) {
		size_t ncomp = 0;
		for (int c = 0; c < 4; c++)
			if (t->curves[c]) ncomp = (size_t)c + 1;
		if (ncomp < 3 && bit >= 0) ncomp = 3;
		for (int c = 0; c < 4; c++)
			if ((size_t)c >= ncomp && t->curves[c]) ncomp = (size_t)c + 1;
		for (int c = 0; c < 4; c++)
			if (t->curves[c] && (t->curves[c]->pre_extrapolation != RK_EXTRAPOLATE_CONSTANT ||
					t->curves[c]->post_extrapolation != RK_EXTRAPOLATE_CONSTANT)) {
				rki_fw_warn(w, "node '%s' '%s': curve extrapolation other than constant is not written", n->name ? n->name : "",
					prop);
				break;
			}
		int64_t cn = rki_fw_curve_node(w, layer, w->model_id[n->index], prop, short_name, rki_fw_xyzw, t->default_value, ncomp);
		for (size_t c = 0; c < ncomp; c++) {
			if (!t->curves[c]) continue;
			rki_fw_keys k;
			if (!rki_fw_curve_keys(w, t->curves[c], &k) || !rki_fw_curve(w, cn, rki_fw_xyzw[c], &k)) return false;
		}
		return true;
	}
	/* sampler translation / scale / Euler */
	if (t->components < 3) {
		(*skipped)++;
		return true;
	}
	double defs[3];
	size_t base = t->interpolation == RK_INTERP_CUBIC ? t->components : 0;
	for (int c = 0; c < 3; c++) defs[c] = rk_track_value(t, base + (size_t)c);
	int64_t cn = rki_fw_curve_node(w, layer, w->model_id[n->index], prop, short_name, rki_fw_xyzw, defs, 3);
	for (uint32_t c = 0; c < 3; c++) {
		rki_fw_keys k;
		if (!rki_fw_sampler_keys(w, t, c, 1.0, &k) || !rki_fw_curve(w, cn, rki_fw_xyzw[c], &k)) return false;
	}
	return true;
}

bool rki_fw_write_animation(rki_fw *w)
{
	const rk_scene *s = w->scene;
	rki_fw_seen seen;
	seen.flags = (uint8_t *)rki_fw_array(w, s->nodes.count + 1, 1);
	if (!seen.flags) return false;
	size_t skipped = 0;
	for (size_t ci = 0; ci < s->clips.count; ci++) {
		const rk_anim_clip *c = &s->clips.data[ci];
		int64_t sid = w->next_id++;
		rki_fw_elem *st = rki_fw_add(w, w->objects, "AnimationStack");
		rki_fw_i64(w, st, sid);
		rki_fw_name(w, st, c->name ? c->name : "", "AnimStack");
		rki_fw_str(w, st, "");
		w->def_counts[RKI_FW_DEF_STACK]++;
		rki_fw_elem *p = rki_fw_add(w, st, "Properties70");
		int64_t a = rki_fw_ticks(c->time_begin), b = rki_fw_ticks(c->time_end);
		rki_fw_p_time(w, p, "LocalStart", a);
		rki_fw_p_time(w, p, "LocalStop", b);
		rki_fw_p_time(w, p, "ReferenceStart", a);
		rki_fw_p_time(w, p, "ReferenceStop", b);
		w->st.stack_count++;
		size_t layers = c->layer_count ? c->layer_count : 1;
		for (size_t li = 0; li < layers; li++) {
			const rk_anim_layer *l = c->layer_count ? &c->layers[li] : NULL;
			int64_t lid = w->next_id++;
			rki_fw_elem *le = rki_fw_add(w, w->objects, "AnimationLayer");
			rki_fw_i64(w, le, lid);
			rki_fw_name(w, le, l && l->name ? l->name : "BaseLayer", "AnimLayer");
			rki_fw_str(w, le, "");
			w->def_counts[RKI_FW_DEF_LAYER]++;
			rki_fw_elem *lp = rki_fw_add(w, le, "Properties70");
			if (l) {
				rki_fw_p_number(w, lp, "Weight", l->weight * 100.0, true);
				rki_fw_p_enum(w, lp, "BlendMode", l->blend == RK_LAYER_ADDITIVE ? 0 : l->blend == RK_LAYER_OVERRIDE ? 1 : 2);
				rki_fw_p_enum(w, lp, "RotationAccumulationMode", l->rotation_accumulate_by_component ? 1 : 0);
				rki_fw_p_enum(w, lp, "ScaleAccumulationMode", l->scale_accumulate_multiply ? 0 : 1);
			}
			rki_fw_connect(w, lid, sid);
			if (!l) continue;
			memset(seen.flags, 0, s->nodes.count + 1);
			for (size_t ti = 0; ti < l->track_count; ti++)
				if (!rki_fw_track(w, lid, &l->tracks[ti], &seen, &skipped)) return false;
		}
	}
	if (skipped) rki_fw_warn(w, "%zu animation tracks could not be written (no node, no blend channel, or a property of a "
		"node written without its FBX properties)", skipped);
	return !w->failed;
}
