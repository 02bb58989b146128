/* src/formats/gltf/gltf_anim.c - animations of the glTF reader.
 *
 * Each glTF animation becomes an rk_anim_clip with one layer whose tracks are
 * sampler-based: one track per channel, times in seconds (decoded once per
 * input accessor and shared by the tracks of every sampler that reads it), values as doubles in the glTF output layout
 * (CUBICSPLINE: in-tangent, value, out-tangent per key). Integer rotation
 * and weight outputs are normalised with the glTF formulas. */
#include "gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct rki_gltf_sampler {
	bool valid;                  /* input decoded, times usable */
	size_t key_count;
	const double *times;
	size_t output;
	rk_interp interp;
} rki_gltf_sampler;

static bool rki_gltf_sampler_parse(rki_gltf *g, const rki_json *obj, const rki_gltf_loc *base, rki_gltf_sampler *smp)
{
	size_t input;
	const rki_json *interp;
	if (!rki_gltf_index(g, obj, base, "input", g->accessors.count, "accessors", true, &input)) return false;
	if (!rki_gltf_index(g, obj, base, "output", g->accessors.count, "accessors", true, &smp->output)) return false;
	if (!rki_gltf_string(g, obj, base, "interpolation", &interp)) return false;
	smp->interp = RK_INTERP_LINEAR;
	if (interp) {
		if (rki_json_eq(interp, "STEP")) smp->interp = RK_INTERP_CONSTANT;
		else if (rki_json_eq(interp, "CUBICSPLINE")) smp->interp = RK_INTERP_CUBIC;
		else if (!rki_json_eq(interp, "LINEAR"))
			rki_gltf_warn(g, RKI_GLTF_KEY(base, "interpolation"), "unknown interpolation (expected LINEAR, STEP or CUBICSPLINE): LINEAR used");
	}
	const rki_gltf_loc *ipath = RKI_GLTF_KEY(base, "input");
	rki_gltf_accessor acc;
	if (!rki_gltf_accessor_open(g, input, false, &acc)) return false;
	if (!rki_gltf_accessor_expect(g, &acc, ipath, "animation input", 1, false, RKI_GLTF_CT_ANY)) return false;
	if (acc.component_type != RKI_GLTF_FLOAT) rki_gltf_warn(g, ipath, "animation input is not FLOAT: converted");
	/* samplers of one input (glTF exporters share one per clip) share its times */
	if (!g->anim_times) {
		g->anim_times = (const double **)rki_arena_array(&g->sc.tmp, g->accessors.count, sizeof(double *));
		if (!g->anim_times) return rki_gltf_oom(g);
	}
	const double *times = g->anim_times[input];
	if (!times) {
		double *t = (double *)rki_gltf_array_uninit(g->sc.arena, acc.count, sizeof(double));  /* filled below */
		if (!t) return rki_gltf_oom(g);
		rki_gltf_accessor_read_f64(&acc, t, acc.normalized);
		g->anim_times[input] = times = t;
	}
	smp->times = times;
	smp->key_count = acc.count;
	if (acc.count == 0) {
		rki_gltf_warn(g, ipath, "animation sampler without keys: its channels are skipped");
		return true;
	}
	for (size_t k = 0; k < acc.count; k++) {
		if (!isfinite(times[k]))
			return rki_gltf_fail(g, RK_ERROR_CORRUPT, ipath, "animation time %zu of accessor %zu is not a finite number", k, input);
		if (k > 0 && times[k] < times[k - 1]) {
			rki_gltf_warn(g, ipath, "animation times decrease: the sampler's channels are skipped");
			return true;
		}
		if (k > 0 && times[k] == times[k - 1])
			rki_gltf_warn(g, ipath, "animation times repeat (expected strictly increasing): kept as stored");
	}
	smp->valid = true;
	return true;
}

/* Builds the track of one channel; *ok false when the channel is skipped. */
static bool rki_gltf_channel(rki_gltf *g, const rki_json *ch, const rki_gltf_loc *base, const rki_gltf_sampler *samplers, size_t sampler_count,
	const rki_gltf_loc *samplers_path, rk_anim_track *track, bool *ok)
{
	*ok = false;
	const rki_gltf_loc *tpath = RKI_GLTF_KEY(base, "target");
	size_t si, node;
	const rki_json *target, *path;
	if (!rki_gltf_index(g, ch, base, "sampler", sampler_count, "animations/.../samplers", true, &si)) return false;
	if (!rki_gltf_object(g, ch, base, "target", &target)) return false;
	if (!target) return rki_gltf_fail(g, RK_ERROR_CORRUPT, tpath, "animation channel needs a \"target\" object");
	if (!rki_gltf_index(g, target, tpath, "node", g->nodes.count, "nodes", false, &node)) return false;
	if (!rki_gltf_string(g, target, tpath, "path", &path)) return false;
	if (!path) return rki_gltf_fail_key(g, RK_ERROR_CORRUPT, tpath, "path", "animation target needs a \"path\"");
	if (node == RKI_GLTF_NONE) {
		rki_gltf_warn(g, tpath, "animation channel without a target node skipped");
		return true;
	}
	size_t components;
	unsigned ctypes;
	bool normalize;
	const char *use = "";
	if (rki_json_eq(path, "translation") || rki_json_eq(path, "scale")) {
		track->target = path->u.text[0] == 't' ? RK_TARGET_TRANSLATION : RK_TARGET_SCALE;
		use = path->u.text[0] == 't' ? "translation" : "scale";
		components = 3;
		ctypes = RKI_GLTF_CT_ANY;
		normalize = false;
	} else if (rki_json_eq(path, "rotation")) {
		track->target = RK_TARGET_ROTATION_QUAT;
		use = "rotation";
		components = 4;
		ctypes = RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_BYTE)
			| RKI_GLTF_CT(RKI_GLTF_SHORT) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_SHORT);
		normalize = true;
	} else if (rki_json_eq(path, "weights")) {
		track->target = RK_TARGET_MORPH_WEIGHTS;
		use = "weights";
		size_t m = g->node_mesh[node];
		components = m != RKI_GLTF_NONE ? g->mesh_info[m].target_count : 0;
		ctypes = RKI_GLTF_CT_FLOAT | RKI_GLTF_CT(RKI_GLTF_BYTE) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_BYTE)
			| RKI_GLTF_CT(RKI_GLTF_SHORT) | RKI_GLTF_CT(RKI_GLTF_UNSIGNED_SHORT);
		normalize = true;
		if (components == 0) {
			rki_gltf_warn(g, tpath, "weights channel on a node without morph targets skipped");
			return true;
		}
	} else {
		rki_gltf_warn(g, tpath, "animation target paths other than translation/rotation/scale/weights are skipped");
		return true;
	}
	const rki_gltf_sampler *smp = &samplers[si];
	if (!smp->valid) return true;
	const rki_gltf_loc *opath = RKI_GLTF_KEY(RKI_GLTF_IDX(samplers_path, si), "output");
	rki_gltf_accessor acc;
	if (!rki_gltf_accessor_open(g, smp->output, false, &acc)) return false;
	uint32_t want = track->target == RK_TARGET_MORPH_WEIGHTS ? 1u : (uint32_t)components;
	if (!rki_gltf_accessor_expect(g, &acc, opath, use, want, false, ctypes)) return false;
	if (!normalize && acc.component_type != RKI_GLTF_FLOAT) rki_gltf_warn(g, opath, "animation output is not FLOAT: converted");
	if (normalize && acc.component_type != RKI_GLTF_FLOAT && !acc.normalized)
		rki_gltf_warn(g, opath, "integer rotation/weights output not marked normalized: normalised anyway");
	size_t per_key = smp->interp == RK_INTERP_CUBIC ? 3 * components : components, expect = 0, have = 0;
	if (!rki_mul_size(acc.count, acc.components, &have) || !rki_mul_size(smp->key_count, per_key, &expect) || have != expect)
		return rki_gltf_fail(g, RK_ERROR_CORRUPT, opath,
			"animation output accessor %zu has %zu values; expected %zu keys x %zu%s = %zu",
			smp->output, have, smp->key_count, per_key,
			smp->interp == RK_INTERP_CUBIC ? " (in-tangent, value, out-tangent)" : "", expect);
	/* FLOAT outputs are kept as floats (bit-exact); integer ones are decoded
	 * (and normalised) to doubles */
	double *values = NULL;
	float *values_f = NULL;
	if (acc.component_type == RKI_GLTF_FLOAT) {
		values_f = (float *)rki_gltf_array_uninit(g->sc.arena, expect, sizeof(float));  /* filled below */
		if (!values_f) return rki_gltf_oom(g);
		rki_gltf_accessor_read_f32(&acc, values_f);
	} else {
		values = (double *)rki_gltf_array_uninit(g->sc.arena, expect, sizeof(double));  /* filled below */
		if (!values) return rki_gltf_oom(g);
		rki_gltf_accessor_read_f64(&acc, values, normalize || acc.normalized);
	}
	track->node = g->node_map[node];
	track->property = "";
	track->morph_channel = 0;
	track->key_count = smp->key_count;
	track->times = smp->times;
	track->components = (uint32_t)components;
	track->values_f64 = values;
	track->values_f32 = values_f;
	track->interpolation = smp->interp;
	*ok = true;
	return true;
}

static bool rki_gltf_animation(rki_gltf *g, size_t a, rk_anim_clip *clip)
{
	const rki_gltf_loc *base = RKI_GLTF_IDX(RKI_GLTF_KEY(NULL, "animations"), a), *spath = RKI_GLTF_KEY(base, "samplers"),
		*cpath = RKI_GLTF_KEY(base, "channels");
	const rki_json *obj = &g->animations.items[a], *samplers, *channels;
	size_t S, C;
	clip->index = (uint32_t)a;
	if (!(clip->name = rki_gltf_name(g, obj, base))) return false;
	if (!rki_gltf_array(g, obj, base, "samplers", &samplers, &S)) return false;
	if (!rki_gltf_array(g, obj, base, "channels", &channels, &C)) return false;
	if (!samplers) return rki_gltf_fail(g, RK_ERROR_CORRUPT, spath, "animation needs a \"samplers\" array");
	if (!channels) return rki_gltf_fail(g, RK_ERROR_CORRUPT, cpath, "animation needs a \"channels\" array");
	rki_gltf_sampler *smp = (rki_gltf_sampler *)rki_arena_array(&g->sc.tmp, S, sizeof(rki_gltf_sampler));
	rk_anim_track *tracks = (rk_anim_track *)rki_arena_array(g->sc.arena, C, sizeof(rk_anim_track));
	rk_anim_layer *layer = (rk_anim_layer *)rki_arena_alloc(g->sc.arena, sizeof(rk_anim_layer));
	if (!smp || !tracks || !layer) return rki_gltf_oom(g);
	bool any = false;
	double t0 = 0.0, t1 = 0.0;
	for (size_t k = 0; k < S; k++) {
		const rki_json *e = &samplers->u.items[k];
		const rki_gltf_loc *path = RKI_GLTF_IDX(spath, k);
		if (e->type != RKI_JSON_OBJECT) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "expected an animation sampler object");
		if (!rki_gltf_sampler_parse(g, e, path, &smp[k])) return false;
		if (smp[k].valid) {
			double first = smp[k].times[0], last = smp[k].times[smp[k].key_count - 1];
			if (!any || first < t0) t0 = first;
			if (!any || last > t1) t1 = last;
			any = true;
		}
	}
	size_t n = 0;
	for (size_t k = 0; k < C; k++) {
		const rki_json *e = &channels->u.items[k];
		const rki_gltf_loc *path = RKI_GLTF_IDX(cpath, k);
		if (e->type != RKI_JSON_OBJECT) return rki_gltf_fail(g, RK_ERROR_CORRUPT, path, "expected an animation channel object");
		bool ok;
		if (!rki_gltf_channel(g, e, path, smp, S, spath, &tracks[n], &ok)) return false;
		if (ok) n++;
	}
	clip->time_begin = t0;
	clip->time_end = t1;
	layer->name = clip->name;
	layer->weight = 1.0;
	layer->blend = RK_LAYER_OVERRIDE;
	layer->track_count = n;
	layer->tracks = tracks;
	clip->layer_count = 1;
	clip->layers = layer;
	return true;
}

bool rki_gltf_load_animations(rki_gltf *g)
{
	if (g->sc.opts.ignore_animation) return true;
	rk_scene *s = g->sc.scene;
	rk_anim_clip *clips = (rk_anim_clip *)rki_arena_array(g->sc.arena, g->animations.count, sizeof(rk_anim_clip));
	if (!clips) return rki_gltf_oom(g);
	s->clips.data = clips;
	s->clips.count = g->animations.count;
	for (size_t a = 0; a < g->animations.count; a++) {
		if (!rki_gltf_animation(g, a, &clips[a])) return false;
		rki_gltf_views_release(g);
	}
	return true;
}
