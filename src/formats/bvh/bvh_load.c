/*
 * src/formats/bvh/bvh_load.c - the BVH reader: HIERARCHY (ROOT, JOINT, End
 * Site, OFFSET, CHANNELS) and MOTION (Frames, Frame Time, one line of
 * values per frame) into an rk_scene with one clip.
 *
 * Features, mapping and restrictions: include/rigkit/load.h, BVH IMPORTER,
 * and docs/bvh.md. Every count is checked before anything is allocated:
 * the frames times the channels must fit in the bytes that remain (every
 * value takes at least two bytes: a digit and a separator).
 */
#include "bvh_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RKI_BVH_NONE UINT32_MAX

/* Channel codes: X/Y/Z position, X/Y/Z rotation. */
enum { RKI_BVH_XPOS = 0, RKI_BVH_YPOS, RKI_BVH_ZPOS, RKI_BVH_XROT, RKI_BVH_YROT, RKI_BVH_ZROT, RKI_BVH_CHANNEL_KINDS };

static const char *const rki_bvh_channel_names[RKI_BVH_CHANNEL_KINDS] = {
	"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation",
};

typedef struct rki_bvh_joint {
	rki_bvh_word name;       /* len 0: an End Site without a name */
	uint32_t parent;         /* RKI_BVH_NONE for a ROOT */
	bool is_end;             /* End Site */
	bool has_offset, has_channels;
	double offset[3];
	uint8_t channel_count;
	uint8_t channels[6];     /* RKI_BVH_* in file order */
	size_t first_value;      /* index of the joint's first value in a frame */
	uint64_t line;           /* of its ROOT / JOINT / End keyword */
	size_t byte;
} rki_bvh_joint;

typedef struct rki_bvh {
	rki_scene_ctx sc;
	rk_error *err;
	const char *filename;
	rki_bvh_lex lx;
	rki_buf joints;          /* rki_bvh_joint, in file order (depth-first) */
	size_t joint_count;
	size_t value_count;      /* values per frame (all channels) */
	bool has_motion;
	size_t frames;
	double frame_time;
	uint64_t frames_line;
	double *values;          /* value_count * frames, channel-major: values[c * frames + f] */
	double *times;           /* frames */
} rki_bvh;

static rki_bvh_joint *rki_bvh_j(rki_bvh *b, uint32_t i)
{
	return (rki_bvh_joint *)b->joints.data + i;
}

/* Error at word w (its line and byte offset). Always returns false. */
static bool rki_bvh_fail(rki_bvh *b, rk_error_code code, rki_bvh_word w, const char *fmt, ...) RKI_PRINTF(4, 5);
static bool rki_bvh_fail(rki_bvh *b, rk_error_code code, rki_bvh_word w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_error_setv(b->err, code, fmt, ap);
	va_end(ap);
	rki_error_file(b->err, b->filename);
	rki_error_at_line(b->err, w.line);
	rki_error_at_byte(b->err, w.offset);
	return false;
}

static bool rki_bvh_oom(rki_bvh *b)
{
	rki_scene_oom(&b->sc);
	return false;
}

/* "'word'" (at most 40 bytes of it) or "the end of the file", for messages. */
static const char *rki_bvh_got(rki_bvh_word w, char *buf, size_t cap)
{
	if (w.len == 0) return "the end of the file";
	int n = w.len > 40 ? 40 : (int)w.len;
	snprintf(buf, cap, "'%.*s%s'", n, (const char *)w.s, w.len > 40 ? "..." : "");
	return buf;
}

/* Name of joint i for messages. */
static void rki_bvh_label(rki_bvh *b, uint32_t i, char *buf, size_t cap)
{
	const rki_bvh_joint *j = rki_bvh_j(b, i);
	if (j->is_end) snprintf(buf, cap, "End Site of line %llu", (unsigned long long)j->line);
	else snprintf(buf, cap, "'%.*s'", j->name.len > 60 ? 60 : (int)j->name.len, (const char *)j->name.s);
}

/* ---- HIERARCHY ------------------------------------------------------------------ */

/* Adds a joint after its keyword (ROOT, JOINT or "End Site"): the name on the
 * rest of the line and the opening brace. */
static bool rki_bvh_open(rki_bvh *b, rki_bvh_word kw, uint32_t parent, bool is_end, uint32_t *out)
{
	char got[64];
	if (b->joint_count >= b->sc.opts.max_elements || b->joint_count >= RKI_BVH_NONE - 1)
		return rki_bvh_fail(b, RK_ERROR_LIMIT, kw, "more than %zu joints (max_elements)", b->joint_count);
	rki_bvh_joint j;
	memset(&j, 0, sizeof(j));
	j.parent = parent;
	j.is_end = is_end;
	j.line = kw.line;
	j.byte = kw.offset;
	j.name = rki_bvh_rest_of_line(&b->lx);
	if (!is_end && j.name.len == 0)
		return rki_bvh_fail(b, RK_ERROR_CORRUPT, kw, "expected a joint name after %.*s", (int)kw.len, (const char *)kw.s);
	rki_bvh_word brace = rki_bvh_next(&b->lx);
	if (!rki_bvh_is(brace, "{"))
		return rki_bvh_fail(b, brace.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, brace,
			"expected '{' after %.*s %.*s, got %s", (int)kw.len, (const char *)kw.s, j.name.len > 60 ? 60 : (int)j.name.len,
			(const char *)j.name.s, rki_bvh_got(brace, got, sizeof(got)));
	if (!rki_buf_push(&b->joints, &j, sizeof(j))) return rki_bvh_oom(b);
	*out = (uint32_t)b->joint_count++;
	return true;
}

static bool rki_bvh_offset(rki_bvh *b, uint32_t ji, rki_bvh_word kw)
{
	char got[64], label[96];
	rki_bvh_label(b, ji, label, sizeof(label));
	if (rki_bvh_j(b, ji)->has_offset) return rki_bvh_fail(b, RK_ERROR_CORRUPT, kw, "second OFFSET in joint %s", label);
	for (int k = 0; k < 3; k++) {
		rki_bvh_word w = rki_bvh_next(&b->lx);
		double v = 0.0;
		rki_bvh_num r = rki_bvh_number(w, &v);
		if (r != RKI_BVH_NUM_OK)
			return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, w, "expected %s number (OFFSET x y z of joint %s), got %s",
				r == RKI_BVH_NUM_RANGE ? "a finite" : "a", label, rki_bvh_got(w, got, sizeof(got)));
		rki_bvh_j(b, ji)->offset[k] = v;
	}
	rki_bvh_j(b, ji)->has_offset = true;
	return true;
}

static int rki_bvh_channel_kind(rki_bvh_word w)
{
	for (int k = 0; k < RKI_BVH_CHANNEL_KINDS; k++)
		if (rki_bvh_is(w, rki_bvh_channel_names[k])) return k;
	return -1;
}

static bool rki_bvh_channels(rki_bvh *b, uint32_t ji, rki_bvh_word kw)
{
	char got[64], label[96];
	rki_bvh_label(b, ji, label, sizeof(label));
	rki_bvh_joint *j = rki_bvh_j(b, ji);
	if (j->is_end) return rki_bvh_fail(b, RK_ERROR_CORRUPT, kw, "an End Site has no CHANNELS (in the %s)", label);
	if (j->has_channels) return rki_bvh_fail(b, RK_ERROR_CORRUPT, kw, "second CHANNELS in joint %s", label);
	rki_bvh_word w = rki_bvh_next(&b->lx);
	uint64_t n = 0;
	if (!rki_bvh_count(w, &n))
		return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, w, "expected the number of channels after CHANNELS (joint %s), got %s",
			label, rki_bvh_got(w, got, sizeof(got)));
	if (n > 6) return rki_bvh_fail(b, RK_ERROR_CORRUPT, w, "CHANNELS %llu in joint %s: a joint has at most 6 channels", (unsigned long long)n, label);
	unsigned seen = 0;
	for (uint64_t c = 0; c < n; c++) {
		w = rki_bvh_next(&b->lx);
		int kind = rki_bvh_channel_kind(w);
		if (kind < 0)
			return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, w,
				"CHANNELS %llu of joint %s: expected channel name %llu of %llu (Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation), got %s",
				(unsigned long long)n, label, (unsigned long long)c + 1, (unsigned long long)n, rki_bvh_got(w, got, sizeof(got)));
		if (seen & (1u << kind))
			return rki_bvh_fail(b, RK_ERROR_CORRUPT, w, "CHANNELS of joint %s lists %s twice", label, rki_bvh_channel_names[kind]);
		seen |= 1u << kind;
		j->channels[c] = (uint8_t)kind;
	}
	w = rki_bvh_peek(&b->lx);
	if (rki_bvh_channel_kind(w) >= 0)
		return rki_bvh_fail(b, RK_ERROR_CORRUPT, w, "CHANNELS %llu of joint %s is followed by more channel names than %llu",
			(unsigned long long)n, label, (unsigned long long)n);
	j->channel_count = (uint8_t)n;
	j->has_channels = true;
	j->first_value = b->value_count;
	b->value_count += (size_t)n;
	if (b->value_count > b->sc.opts.max_elements)
		return rki_bvh_fail(b, RK_ERROR_LIMIT, kw, "more than %zu channels (max_elements)", b->sc.opts.max_elements);
	return true;
}

/* One ROOT block and everything inside it, without recursion: `cur` walks
 * down on JOINT / End Site and back up on '}'. */
static bool rki_bvh_root(rki_bvh *b, rki_bvh_word kw)
{
	char got[64], label[96];
	uint32_t cur = RKI_BVH_NONE;
	if (!rki_bvh_open(b, kw, RKI_BVH_NONE, false, &cur)) return false;
	size_t depth = 1;
	while (cur != RKI_BVH_NONE) {
		rki_bvh_word w = rki_bvh_next(&b->lx);
		bool is_end = rki_bvh_j(b, cur)->is_end;
		if (rki_bvh_is(w, "}")) {
			if (!rki_bvh_j(b, cur)->has_offset) {
				rki_bvh_label(b, cur, label, sizeof(label));
				return rki_bvh_fail(b, RK_ERROR_CORRUPT, w, "joint %s has no OFFSET (expected OFFSET x y z before its '}')", label);
			}
			cur = rki_bvh_j(b, cur)->parent;
			depth--;
		} else if (rki_bvh_is(w, "OFFSET")) {
			if (!rki_bvh_offset(b, cur, w)) return false;
		} else if (rki_bvh_is(w, "CHANNELS")) {
			if (!rki_bvh_channels(b, cur, w)) return false;
		} else if (!is_end && (rki_bvh_is(w, "JOINT") || rki_bvh_is(w, "End"))) {
			bool end = rki_bvh_is(w, "End");
			if (end) {
				rki_bvh_word site = rki_bvh_next(&b->lx);
				if (!rki_bvh_is(site, "Site"))
					return rki_bvh_fail(b, site.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, site, "expected 'Site' after 'End', got %s",
						rki_bvh_got(site, got, sizeof(got)));
			}
			if (depth >= b->sc.opts.max_depth)
				return rki_bvh_fail(b, RK_ERROR_LIMIT, w, "joints nested deeper than %zu (max_depth)", b->sc.opts.max_depth);
			uint32_t child;
			if (!rki_bvh_open(b, w, cur, end, &child)) return false;
			cur = child;
			depth++;
		} else {
			rki_bvh_label(b, cur, label, sizeof(label));
			return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, w, "expected %s or '}' in joint %s, got %s",
				is_end ? "OFFSET" : "OFFSET, CHANNELS, JOINT, End Site", label, rki_bvh_got(w, got, sizeof(got)));
		}
	}
	return true;
}

static bool rki_bvh_hierarchy(rki_bvh *b)
{
	char got[64];
	rki_bvh_word w = rki_bvh_next(&b->lx);
	if (!rki_bvh_is(w, "HIERARCHY")) return rki_bvh_fail(b, RK_ERROR_CORRUPT, w, "expected HIERARCHY, got %s", rki_bvh_got(w, got, sizeof(got)));
	for (;;) {
		w = rki_bvh_next(&b->lx);
		if (rki_bvh_is(w, "ROOT")) {
			if (!rki_bvh_root(b, w)) return false;
		} else if (rki_bvh_is(w, "MOTION") && b->joint_count) {
			b->has_motion = true;
			return true;
		} else if (w.len == 0 && b->joint_count) {
			rki_scene_warn(&b->sc, w.offset, "", "no MOTION section: the file has no clip");
			return true;
		} else {
			return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, w, "expected %s, got %s",
				b->joint_count ? "ROOT or MOTION" : "ROOT", rki_bvh_got(w, got, sizeof(got)));
		}
	}
}

/* ---- MOTION --------------------------------------------------------------------- */

/* "Label:" as one word, or "Label" then ":". */
static bool rki_bvh_label_word(rki_bvh *b, const char *label, rki_bvh_word *w)
{
	char with_colon[16];
	snprintf(with_colon, sizeof(with_colon), "%s:", label);
	*w = rki_bvh_next(&b->lx);
	if (rki_bvh_is(*w, with_colon)) return true;
	if (!rki_bvh_is(*w, label)) return false;
	rki_bvh_word colon = rki_bvh_next(&b->lx);
	return rki_bvh_is(colon, ":");
}

static bool rki_bvh_motion_header(rki_bvh *b)
{
	char got[64];
	rki_bvh_word w;
	if (!rki_bvh_label_word(b, "Frames", &w))
		return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, w, "expected 'Frames:' after MOTION, got %s",
			rki_bvh_got(w, got, sizeof(got)));
	rki_bvh_word n = rki_bvh_next(&b->lx);
	uint64_t frames = 0;
	if (!rki_bvh_count(n, &frames))
		return rki_bvh_fail(b, n.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, n, "expected the number of frames after 'Frames:', got %s",
			rki_bvh_got(n, got, sizeof(got)));
	b->frames_line = n.line;
	rki_bvh_word frame_word = rki_bvh_next(&b->lx);
	if (!rki_bvh_is(frame_word, "Frame") || !rki_bvh_label_word(b, "Time", &w))
		return rki_bvh_fail(b, frame_word.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, frame_word,
			"expected 'Frame Time:' after the frame count, got %s", rki_bvh_got(frame_word, got, sizeof(got)));
	rki_bvh_word t = rki_bvh_next(&b->lx);
	double ft = 0.0;
	if (rki_bvh_number(t, &ft) != RKI_BVH_NUM_OK)
		return rki_bvh_fail(b, t.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, t, "expected the seconds per frame after 'Frame Time:', got %s",
			rki_bvh_got(t, got, sizeof(got)));
	if (!(ft >= 1e-9 && ft <= 1e6)) {
		if (frames > 1)
			return rki_bvh_fail(b, RK_ERROR_CORRUPT, t, "Frame Time %g: expected a positive number of seconds per frame (1e-9 to 1e6)", ft);
		rki_scene_warn(&b->sc, t.offset, "", "Frame Time %g is not a positive number of seconds: 1/30 s used", ft);
		ft = 1.0 / 30.0;
	}
	b->frame_time = ft;

	/* Frames x channels values, each at least a digit and a separator. */
	size_t remaining = b->lx.size - b->lx.pos;
	if (b->value_count && frames > ((uint64_t)remaining + 1) / 2 / b->value_count)
		return rki_bvh_fail(b, RK_ERROR_TRUNCATED, n,
			"Frames: %llu with %zu channels needs at least %llu bytes of motion data, but the file has %zu bytes left",
			(unsigned long long)frames, b->value_count, (unsigned long long)frames * b->value_count * 2 - 1, remaining);
	if (frames > b->sc.opts.max_elements || (b->value_count && frames * b->value_count > b->sc.opts.max_elements))
		return rki_bvh_fail(b, RK_ERROR_LIMIT, n, "Frames: %llu with %zu channels is more than %zu values (max_elements)",
			(unsigned long long)frames, b->value_count, b->sc.opts.max_elements);
	if (!b->value_count && frames) {
		/* Nothing to read or keep: no value line, no clip. */
		rki_scene_warn(&b->sc, n.offset, "", "the HIERARCHY has no channels: the %llu frames carry no motion (no clip)",
			(unsigned long long)frames);
		frames = 0;
	}
	b->frames = (size_t)frames;
	return true;
}

static bool rki_bvh_frames(rki_bvh *b)
{
	char got[64];
	size_t nf = b->frames, nc = b->value_count;
	if (!nf) return true;
	/* without a clip the values only serve the rest pose: temporary memory */
	rki_arena *ar = b->sc.opts.ignore_animation ? &b->sc.tmp : b->sc.arena;
	b->times = (double *)rki_arena_array(ar, nf, sizeof(double));
	b->values = (double *)rki_arena_array(ar, nf * nc, sizeof(double));
	if (!b->times || !b->values) return rki_bvh_oom(b);
	for (size_t f = 0; f < nf; f++) {
		b->times[f] = (double)f * b->frame_time;
		rki_bvh_word w = rki_bvh_next(&b->lx);
		if (w.len == 0)
			return rki_bvh_fail(b, RK_ERROR_TRUNCATED, w, "the file ends after %zu of the %zu frames that 'Frames:' (line %llu) declares", f, nf,
				(unsigned long long)b->frames_line);
		uint64_t line = w.line;
		rki_bvh_word last = w;   /* where a short frame line ends */
		for (size_t c = 0; c < nc; c++) {
			if (c > 0) w = rki_bvh_next(&b->lx);
			if (w.len == 0 || w.line != line)
				return rki_bvh_fail(b, w.len ? RK_ERROR_CORRUPT : RK_ERROR_TRUNCATED, last,
					"frame %zu (line %llu) has %zu values, expected %zu (one per channel of the HIERARCHY)", f + 1,
					(unsigned long long)line, c, nc);
			double v = 0.0;
			rki_bvh_num r = rki_bvh_number(w, &v);
			if (r != RKI_BVH_NUM_OK)
				return rki_bvh_fail(b, RK_ERROR_CORRUPT, w, "frame %zu, value %zu: expected %s number, got %s", f + 1, c + 1,
					r == RKI_BVH_NUM_RANGE ? "a finite" : "a", rki_bvh_got(w, got, sizeof(got)));
			b->values[c * nf + f] = v;
			last = w;
			last.offset += w.len;
		}
		rki_bvh_word more = rki_bvh_peek(&b->lx);
		if (more.len && more.line == line)
			return rki_bvh_fail(b, RK_ERROR_CORRUPT, more, "frame %zu (line %llu) has more than %zu values (one per channel of the HIERARCHY)",
				f + 1, (unsigned long long)line, nc);
	}
	rki_bvh_word rest = rki_bvh_peek(&b->lx);
	if (rest.len)
		rki_scene_warn(&b->sc, rest.offset, "", "text after the last of the %zu frames ignored (line %llu)", nf, (unsigned long long)rest.line);
	return true;
}

/* ---- the scene -------------------------------------------------------------------- */

/* rk_rotation_order of a joint's rotation channels. The channels list the
 * matrices left to right (Zrotation Xrotation Yrotation: R = Rz * Rx * Ry),
 * so the last one is applied first; rigkit names orders by application
 * (RK_ROTATION_YXZ: Y first, R = Rz * Rx * Ry). Axes the joint does not list
 * (always 0) are appended in X, Y, Z order. */
static rk_rotation_order rki_bvh_order(const rki_bvh_joint *j)
{
	int axes[3], n = 0;
	unsigned seen = 0;
	for (int c = 0; c < j->channel_count; c++) {
		int k = j->channels[c];
		if (k >= RKI_BVH_XROT) {
			axes[n++] = k - RKI_BVH_XROT;
			seen |= 1u << (k - RKI_BVH_XROT);
		}
	}
	for (int a = 0; a < 3; a++)
		if (!(seen & (1u << a))) axes[n++] = a;
	/* applied first = listed last */
	int first = axes[2], second = axes[1];
	static const rk_rotation_order by_first_second[3][3] = {
		/* first X */ { RK_ROTATION_XYZ, RK_ROTATION_XYZ, RK_ROTATION_XZY },
		/* first Y */ { RK_ROTATION_YXZ, RK_ROTATION_YXZ, RK_ROTATION_YZX },
		/* first Z */ { RK_ROTATION_ZXY, RK_ROTATION_ZYX, RK_ROTATION_ZYX },
	};
	return by_first_second[first][second];
}

static const char *rki_bvh_node_name(rki_bvh *b, uint32_t i, const rk_node *nodes)
{
	const rki_bvh_joint *j = rki_bvh_j(b, i);
	if (j->name.len) return rki_arena_strndup(b->sc.arena, (const char *)j->name.s, j->name.len);
	/* an End Site without a name: "<parent>_End" */
	const char *parent = nodes[j->parent + 1].name;
	size_t pl = strlen(parent);
	char *s = (char *)rki_arena_alloc(b->sc.arena, pl + 5);
	if (!s) return NULL;
	memcpy(s, parent, pl);
	memcpy(s + pl, "_End", 5);
	return s;
}

/* The static translation of joint i: its OFFSET, except for a ROOT whose
 * OFFSET is 0 on every axis it has a position channel for (CMU and most
 * mocap files: the channels, not the OFFSET, put it in the world): there
 * the first frame's position, so the rest pose stands where the motion
 * starts instead of with the hips at the origin and the feet below it. */
static rk_vec3 rki_bvh_rest_translation(rki_bvh *b, uint32_t i, bool absolute)
{
	const rki_bvh_joint *j = rki_bvh_j(b, i);
	double t[3] = { j->offset[0], j->offset[1], j->offset[2] };
	bool pos = false, zero = true;
	for (int c = 0; c < j->channel_count; c++)
		if (j->channels[c] <= RKI_BVH_ZPOS) {
			pos = true;
			zero = zero && j->offset[j->channels[c]] == 0.0;
		}
	if (j->parent == RKI_BVH_NONE && pos && zero && b->frames) {
		if (absolute) t[0] = t[1] = t[2] = 0.0;
		for (int c = 0; c < j->channel_count; c++)
			if (j->channels[c] <= RKI_BVH_ZPOS) t[j->channels[c]] = b->values[(j->first_value + (size_t)c) * b->frames];
	}
	return (rk_vec3){ t[0], t[1], t[2] };
}

static bool rki_bvh_nodes(rki_bvh *b, bool absolute)
{
	size_t count = b->joint_count + 1;
	rk_node *nodes = (rk_node *)rki_arena_array(b->sc.arena, count, sizeof(rk_node));
	rk_node **refs = (rk_node **)rki_arena_array(b->sc.arena, b->joint_count, sizeof(rk_node *));
	uint32_t *child_count = (uint32_t *)rki_arena_array(&b->sc.tmp, count, sizeof(uint32_t));
	if (!nodes || !refs || !child_count) return rki_bvh_oom(b);
	for (uint32_t i = 0; i < b->joint_count; i++) {
		uint32_t p = rki_bvh_j(b, i)->parent;
		child_count[p == RKI_BVH_NONE ? 0 : p + 1]++;
	}
	size_t at = 0;
	for (size_t i = 0; i < count; i++) {
		nodes[i].children.data = refs + at;
		at += child_count[i];
	}
	rk_node *root = &nodes[0];
	root->index = 0;
	root->name = "";
	root->kind = RK_NODE_ROOT;
	root->props = rk_transform_props_default();
	root->adjust = rk_adjust_transform_identity();
	root->local = rk_trs_identity();
	root->attribute_type = "";
	root->default_uv_set = "";
	root->visible = true;
	for (uint32_t i = 0; i < b->joint_count; i++) {
		const rki_bvh_joint *j = rki_bvh_j(b, i);
		rk_node *n = &nodes[i + 1];
		rk_node *p = j->parent == RKI_BVH_NONE ? root : &nodes[j->parent + 1];
		n->index = i + 1;
		n->source_id = i + 1;
		n->kind = RK_NODE_JOINT;
		n->parent = p;
		p->children.data[p->children.count++] = n;
		n->has_fbx_props = true;
		n->props = rk_transform_props_default();
		n->props.translation = rki_bvh_rest_translation(b, i, absolute);
		n->props.rotation_active = true;
		n->props.rotation_order = rki_bvh_order(j);
		n->adjust = rk_adjust_transform_identity();
		n->local = rk_trs_identity();
		n->attribute_type = j->is_end ? "End Site" : "";
		n->default_uv_set = "";
		n->visible = true;
		n->name = rki_bvh_node_name(b, i, nodes);
		if (!n->name) return rki_bvh_oom(b);
	}
	b->sc.scene->nodes = (rk_node_list){ nodes, count };
	b->sc.scene->root = root;
	return true;
}

/* Whether position channels are absolute local positions rather than
 * added to the OFFSET (see rk_bvh_positions). AUTO: non-root joints with
 * position channels and a non-zero OFFSET vote in the first frame: values
 * equal to the OFFSET (within 1e-4 of it) are what Blender's and
 * MotionBuilder's exporters write (absolute), values of 0 what additive
 * files hold; absolute wins only with more votes. Both outcomes with
 * absolute votes are warned about. */
static bool rki_bvh_absolute(rki_bvh *b)
{
	if (b->sc.opts.bvh_positions == RK_BVH_POSITIONS_ABSOLUTE) return true;
	if (b->sc.opts.bvh_positions != RK_BVH_POSITIONS_AUTO || !b->frames) return false;
	size_t absolute = 0, additive = 0;
	uint32_t example = RKI_BVH_NONE;
	for (uint32_t i = 0; i < b->joint_count; i++) {
		const rki_bvh_joint *j = rki_bvh_j(b, i);
		if (j->parent == RKI_BVH_NONE) continue;
		bool any = false, nonzero = false, equal = true, zero = true;
		for (int c = 0; c < j->channel_count; c++) {
			int k = j->channels[c];
			if (k > RKI_BVH_ZPOS) continue;
			double off = j->offset[k], v = b->values[(j->first_value + (size_t)c) * b->frames];
			double tol = 1e-4 * fmax(fabs(off), 1.0);
			any = true;
			nonzero = nonzero || fabs(off) > tol;
			equal = equal && fabs(v - off) <= tol;
			zero = zero && fabs(v) <= tol;
		}
		if (!any || !nonzero) continue;
		if (equal) {
			absolute++;
			if (example == RKI_BVH_NONE) example = i;
		} else if (zero) {
			additive++;
		}
	}
	if (!absolute) return false;
	char label[96];
	rki_bvh_label(b, example, label, sizeof(label));
	if (absolute > additive) {
		rki_scene_warn(&b->sc, rki_bvh_j(b, example)->byte, "",
			"position channels read as absolute local positions (%zu joints, e.g. %s, repeat their OFFSET in the first frame, "
			"as Blender writes them; three.js would add the OFFSET): set bvh_positions to choose", absolute, label);
		return true;
	}
	rki_scene_warn(&b->sc, rki_bvh_j(b, example)->byte, "",
		"position channels added to the OFFSET although %zu joints (e.g. %s) repeat their OFFSET in the first frame, "
		"as if absolute (%zu look additive): set bvh_positions to choose", absolute, label, additive);
	return false;
}

static const char *rki_bvh_clip_name(rki_bvh *b)
{
	const char *fn = b->filename, *base = fn;
	for (const char *p = fn; *p; p++)
		if (*p == '/' || *p == '\\') base = p + 1;
	size_t len = strlen(base);
	const char *dot = strrchr(base, '.');
	if (dot && dot != base) len = (size_t)(dot - base);
	if (len == 0) return "motion";
	return rki_arena_strndup(b->sc.arena, base, len);
}

static bool rki_bvh_clip(rki_bvh *b, bool absolute)
{
	size_t nf = b->frames;
	if (!nf || b->sc.opts.ignore_animation) return true;
	size_t track_count = 0;
	for (uint32_t i = 0; i < b->joint_count; i++) {
		const rki_bvh_joint *j = rki_bvh_j(b, i);
		bool pos = false, rot = false;
		for (int c = 0; c < j->channel_count; c++) {
			if (j->channels[c] <= RKI_BVH_ZPOS) pos = true;
			else rot = true;
		}
		track_count += (size_t)pos + (size_t)rot;
	}
	rki_arena *ar = b->sc.arena;
	rk_anim_clip *clip = (rk_anim_clip *)rki_arena_alloc(ar, sizeof(rk_anim_clip));
	rk_anim_layer *layer = (rk_anim_layer *)rki_arena_alloc(ar, sizeof(rk_anim_layer));
	rk_anim_track *tracks = (rk_anim_track *)rki_arena_array(ar, track_count ? track_count : 1, sizeof(rk_anim_track));
	rk_anim_curve *curves = (rk_anim_curve *)rki_arena_array(ar, b->value_count, sizeof(rk_anim_curve));
	if (!clip || !layer || !tracks || !curves) return rki_bvh_oom(b);

	size_t t = 0;
	for (uint32_t i = 0; i < b->joint_count; i++) {
		const rki_bvh_joint *j = rki_bvh_j(b, i);
		rk_node *node = &b->sc.scene->nodes.data[i + 1];
		rk_anim_track *pos = NULL, *rot = NULL;
		for (int c = 0; c < j->channel_count; c++) {
			int k = j->channels[c];
			size_t vi = j->first_value + (size_t)c;
			double *v = b->values + vi * nf;
			rk_anim_curve *cv = &curves[vi];
			rk_anim_track **tr = k <= RKI_BVH_ZPOS ? &pos : &rot;
			if (!*tr) {
				*tr = &tracks[t++];
				(*tr)->node = node;
				(*tr)->target = k <= RKI_BVH_ZPOS ? RK_TARGET_TRANSLATION : RK_TARGET_ROTATION_EULER;
				(*tr)->property = k <= RKI_BVH_ZPOS ? "Lcl Translation" : "Lcl Rotation";
				for (int a = 0; a < 3; a++) (*tr)->default_value[a] = k <= RKI_BVH_ZPOS && !absolute ? j->offset[a] : 0.0;
			}
			int axis = k <= RKI_BVH_ZPOS ? k : k - RKI_BVH_XROT;
			/* translation = OFFSET + channel value (as three.js reads it), or the value */
			if (k <= RKI_BVH_ZPOS && !absolute)
				for (size_t f = 0; f < nf; f++) v[f] += j->offset[axis];
			double lo = v[0], hi = v[0];
			for (size_t f = 1; f < nf; f++) {
				if (v[f] < lo) lo = v[f];
				if (v[f] > hi) hi = v[f];
			}
			cv->key_count = nf;
			cv->times = b->times;
			cv->values = v;
			cv->pre_extrapolation = cv->post_extrapolation = RK_EXTRAPOLATE_CONSTANT;
			cv->pre_repeat_count = cv->post_repeat_count = -1;
			cv->min_value = lo;
			cv->max_value = hi;
			(*tr)->curves[axis] = cv;
		}
	}
	layer->name = rki_bvh_clip_name(b);
	if (!layer->name) return rki_bvh_oom(b);
	layer->weight = 1.0;
	layer->blend = RK_LAYER_OVERRIDE;
	layer->track_count = t;
	layer->tracks = tracks;
	clip->index = 0;
	clip->name = layer->name;
	clip->time_begin = 0.0;
	clip->time_end = b->times[nf - 1];
	clip->layer_count = 1;
	clip->layers = layer;
	b->sc.scene->clips = (rk_clip_list){ clip, 1 };
	return true;
}

static bool rki_bvh_run(rki_bvh *b, const unsigned char *data, size_t size)
{
	if (size > b->sc.opts.file_size_limit) {
		rki_error_set(b->err, RK_ERROR_LIMIT, "input is %zu bytes, over the file_size_limit %zu", size, b->sc.opts.file_size_limit);
		rki_error_file(b->err, b->filename);
		return false;
	}
	rki_bvh_lex_init(&b->lx, data, size);
	if (!rki_bvh_hierarchy(b)) return false;
	if (b->has_motion && (!rki_bvh_motion_header(b) || !rki_bvh_frames(b))) return false;
	bool absolute = rki_bvh_absolute(b);
	if (!rki_bvh_nodes(b, absolute) || !rki_bvh_clip(b, absolute)) return false;

	rk_scene_settings *st = &b->sc.scene->settings;
	double unit = b->sc.opts.source_unit_meters > 0.0 ? b->sc.opts.source_unit_meters : 0.01;
	st->format = RK_FORMAT_BVH;
	st->fbx_version = 0;
	st->ascii = true;
	st->creator = "";
	st->axes = st->original_axes = RK_AXES_RIGHT_HANDED_Y_UP;
	st->unit_meters = st->original_unit_meters = unit;
	st->frame_rate = b->frames ? 1.0 / b->frame_time : 0.0;
	return true;
}

bool rki_bvh_probe(const void *data, size_t size, bool *refined)
{
	rki_bvh_lex lx;
	*refined = false;
	rki_bvh_lex_init(&lx, (const unsigned char *)data, size);
	return rki_bvh_is(rki_bvh_next(&lx), "HIERARCHY");
}

rk_scene *rki_bvh_load(const void *data, size_t size, const rk_load_opts *opts, const char *filename,
	const rki_file_access *files, rk_error *err)
{
	(void)files;
	rk_error local;
	if (!err) err = &local;
	rki_error_clear(err);
	rki_bvh b;
	memset(&b, 0, sizeof(b));
	b.err = err;
	b.filename = filename ? filename : "";
	if (!rki_scene_begin(&b.sc, opts, b.filename, size, err)) return NULL;
	rki_buf_init(&b.joints, b.sc.alloc);
	bool ok = rki_bvh_run(&b, (const unsigned char *)data, size);
	if (ok && b.sc.alloc->failed) ok = rki_bvh_oom(&b);
	rki_buf_free(&b.joints);
	if (!ok) {
		rki_scene_abort(&b.sc);
		return NULL;
	}
	return rki_scene_finish(&b.sc);
}
