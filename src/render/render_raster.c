/* src/render/render_raster.c - the rasteriser of rigkit/render.h: bands of
 * samples (z-buffer + linear colour), integer edge functions with the
 * top-left rule, perspective-correct shading, bilinear textures, resolve to
 * RGBA8, and the skeleton overlay. */
#include "render_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Textures
 * ------------------------------------------------------------------------- */

static float rki_wrap_coord(float u, rk_wrap mode)
{
	if (!isfinite(u)) return 0.0f;
	switch (mode) {
	case RK_WRAP_CLAMP: return u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
	case RK_WRAP_MIRROR: return u - 2.0f * floorf(u * 0.5f);  /* [0, 2) */
	default: return u - floorf(u);                           /* [0, 1) */
	}
}

static int32_t rki_wrap_index(int32_t i, int32_t n, rk_wrap mode)
{
	switch (mode) {
	case RK_WRAP_CLAMP: return i < 0 ? 0 : i >= n ? n - 1 : i;
	case RK_WRAP_MIRROR: {
		int32_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
		return m >= n ? 2 * n - 1 - m : m;
	}
	default: return ((i % n) + n) % n;
	}
}

/* Bilinear sample in linear light (RGB sRGB-decoded, alpha as stored). */
static void rki_texture_sample(const rki_render *r, const rki_rimage *ri, float u, float v, float out[4])
{
	const rk_image *img = &ri->image;
	int32_t w = (int32_t)img->width, h = (int32_t)img->height;
	float x = rki_wrap_coord(u, ri->wrap_u) * (float)w - 0.5f;
	float y = rki_wrap_coord(v, ri->wrap_v) * (float)h - 0.5f;
	float fx0 = floorf(x), fy0 = floorf(y);
	float fx = x - fx0, fy = y - fy0;
	int32_t x0 = (int32_t)fx0, y0 = (int32_t)fy0;
	int32_t xs[2] = { rki_wrap_index(x0, w, ri->wrap_u), rki_wrap_index(x0 + 1, w, ri->wrap_u) };
	int32_t ys[2] = { rki_wrap_index(y0, h, ri->wrap_v), rki_wrap_index(y0 + 1, h, ri->wrap_v) };
	float wt[4] = { (1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy };
	out[0] = out[1] = out[2] = out[3] = 0.0f;
	for (int k = 0; k < 4; k++) {
		const unsigned char *p = img->pixels + ((size_t)ys[k >> 1] * (size_t)w + (size_t)xs[k & 1]) * 4u;
		out[0] += wt[k] * r->srgb_to_linear[p[0]];
		out[1] += wt[k] * r->srgb_to_linear[p[1]];
		out[2] += wt[k] * r->srgb_to_linear[p[2]];
		out[3] += wt[k] * (float)p[3] * (1.0f / 255.0f);
	}
}

/* ---------------------------------------------------------------------------
 * Triangles
 * ------------------------------------------------------------------------- */

typedef struct rki_band {
	float *depth;                 /* sw * rows, bigger = nearer */
	float *colour;                /* sw * rows * 4: linear RGB premultiplied by coverage, coverage */
	int32_t y0, y1;               /* sample rows held, inclusive */
	uint64_t fragments;
} rki_band;

static bool rki_top_left(int64_t dx, int64_t dy)
{
	return dy < 0 || (dy == 0 && dx > 0);
}

static void rki_shade(const rki_render *r, const rki_rtri *t, const float b[3], const int64_t e[3], float *dst,
	float *depth, float key)
{
	const rki_rmat *m = &r->mats[t->material];
	float w0 = b[0] * t->invw[0], w1 = b[1] * t->invw[1], w2 = b[2] * t->invw[2];
	float s = w0 + w1 + w2;
	if (!(s > 0.0f)) return;
	float inv = 1.0f / s;
	w0 *= inv;
	w1 *= inv;
	w2 *= inv;
	float c[4];
	for (int k = 0; k < 4; k++) c[k] = m->base[k] * (w0 * t->col[0][k] + w1 * t->col[1][k] + w2 * t->col[2][k]);
	if (m->texture >= 0) {
		const rki_rimage *ri = &r->images[m->texture];
		if (ri->state == 1) {
			float u = w0 * t->uv[0][0] + w1 * t->uv[1][0] + w2 * t->uv[2][0];
			float v = w0 * t->uv[0][1] + w1 * t->uv[1][1] + w2 * t->uv[2][1];
			float tx[4];
			rki_texture_sample(r, ri, u, v, tx);
			for (int k = 0; k < 4; k++) c[k] *= tx[k];
		}
	}
	if (m->mask && c[3] < m->cutoff) return;
	if (!m->unlit) {
		float n[3];
		for (int k = 0; k < 3; k++) n[k] = w0 * t->n[0][k] + w1 * t->n[1][k] + w2 * t->n[2][k];
		float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
		if (len2 > 1e-20f) {
			float il = 1.0f / sqrtf(len2);
			if (n[0] * t->facing[0] + n[1] * t->facing[1] + n[2] * t->facing[2] < 0.0f) il = -il;
			for (int k = 0; k < 3; k++) n[k] *= il;
		} else {
			memcpy(n, t->facing, sizeof(n));
		}
		float ndl = n[0] * r->light[0] + n[1] * r->light[1] + n[2] * r->light[2];
		float li = r->ambient + r->diffuse * (ndl > 0.0f ? ndl : 0.0f);
		c[0] *= li;
		c[1] *= li;
		c[2] *= li;
	}
	if (t->wire[0] > 0.0f || t->wire[1] > 0.0f || t->wire[2] > 0.0f) {
		float d = FLT_MAX;
		for (int k = 0; k < 3; k++) {
			if (!(t->wire[k] > 0.0f)) continue;
			float dk = (float)e[k] * t->wire[k];
			if (dk < d) d = dk;
		}
		float cov = r->wire_half + 0.5f - d;
		cov = cov < 0.0f ? 0.0f : cov > 1.0f ? 1.0f : cov;
		float keep = 1.0f - 0.8f * cov;
		c[0] *= keep;
		c[1] *= keep;
		c[2] *= keep;
	}
	dst[0] = c[0];
	dst[1] = c[1];
	dst[2] = c[2];
	dst[3] = 1.0f;
	*depth = key;
}

static void rki_raster_tri(const rki_render *r, const rki_rtri *t, rki_band *band)
{
	int64_t X[3] = { t->x[0], t->x[1], t->x[2] }, Y[3] = { t->y[0], t->y[1], t->y[2] };
	int64_t ex[3], ey[3], bias[3];
	/* Edge i (opposite vertex i) runs from a = i + 1 to b = i + 2:
	 * E_i(p) = (xb - xa)(py - ya) - (yb - ya)(px - xa), positive inside. */
	for (int i = 0; i < 3; i++) {
		int a = (i + 1) % 3, b = (i + 2) % 3;
		int64_t dx = X[b] - X[a], dy = Y[b] - Y[a];
		ex[i] = -dy * RKI_RENDER_SUBPIXEL;  /* step per sample in x */
		ey[i] = dx * RKI_RENDER_SUBPIXEL;   /* step per sample in y */
		bias[i] = rki_top_left(dx, dy) ? 0 : -1;
	}
	int64_t area = (X[2] - X[1]) * (Y[0] - Y[1]) - (Y[2] - Y[1]) * (X[0] - X[1]);
	if (area <= 0) return;
	float inv_area = (float)(1.0 / (double)area);
	int32_t y0 = t->by0 > band->y0 ? t->by0 : band->y0;
	int32_t y1 = t->by1 < band->y1 ? t->by1 : band->y1;
	int64_t px0 = (int64_t)t->bx0 * RKI_RENDER_SUBPIXEL + RKI_RENDER_SUBPIXEL / 2;
	size_t sw = r->sw;
	int64_t py0 = (int64_t)y0 * RKI_RENDER_SUBPIXEL + RKI_RENDER_SUBPIXEL / 2, erow[3];
	for (int i = 0; i < 3; i++) {
		int a = (i + 1) % 3, b = (i + 2) % 3;
		erow[i] = (X[b] - X[a]) * (py0 - Y[a]) - (Y[b] - Y[a]) * (px0 - X[a]);
	}
	for (int32_t y = y0; y <= y1; y++, erow[0] += ey[0], erow[1] += ey[1], erow[2] += ey[2]) {
		int64_t e[3] = { erow[0], erow[1], erow[2] };
		size_t row = (size_t)(y - band->y0) * sw;
		for (int32_t x = t->bx0; x <= t->bx1; x++, e[0] += ex[0], e[1] += ex[1], e[2] += ex[2]) {
			if (((e[0] + bias[0]) | (e[1] + bias[1]) | (e[2] + bias[2])) < 0) continue;
			band->fragments++;
			float b[3] = { (float)e[0] * inv_area, (float)e[1] * inv_area, (float)e[2] * inv_area };
			float key = b[0] * t->key[0] + b[1] * t->key[1] + b[2] * t->key[2];
			size_t idx = row + (size_t)x;
			if (!(key > band->depth[idx])) continue;
			rki_shade(r, t, b, e, band->colour + idx * 4, band->depth + idx, key);
		}
	}
}

/* ---------------------------------------------------------------------------
 * Resolve
 * ------------------------------------------------------------------------- */

static unsigned char rki_encode(const rki_render *r, float v)
{
	if (!(v > 0.0f)) return 0;
	if (v >= 1.0f) return 255;
	float f = v * (float)RKI_RENDER_SRGB_LUT;
	int i = (int)f;
	if (i >= RKI_RENDER_SRGB_LUT) i = RKI_RENDER_SRGB_LUT - 1;
	float frac = f - (float)i;
	float e = r->linear_to_srgb[i] + (r->linear_to_srgb[i + 1] - r->linear_to_srgb[i]) * frac;
	int q = (int)(e + 0.5f);
	return (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
}

static void rki_resolve(const rki_render *r, const rki_band *band, uint32_t out_y0, uint32_t rows, unsigned char *out,
	size_t stride)
{
	uint32_t ss = r->ss;
	float inv_n = 1.0f / (float)(ss * ss);
	/* Uncovered pixels (most of a preview) are the background. */
	const uint8_t *bg = r->bg_bytes;
	for (uint32_t y = 0; y < rows; y++) {
		unsigned char *dst = out + (size_t)(out_y0 + y) * stride;
		for (uint32_t x = 0; x < r->width; x++) {
			float sum[4] = { 0, 0, 0, 0 };
			for (uint32_t sy = 0; sy < ss; sy++) {
				const float *src = band->colour + (((size_t)(y * ss + sy)) * r->sw + (size_t)x * ss) * 4u;
				for (uint32_t sx = 0; sx < ss; sx++)
					for (int k = 0; k < 4; k++) sum[k] += src[sx * 4 + (uint32_t)k];
			}
			if (sum[3] == 0.0f) {
				memcpy(dst + x * 4, bg, 4);
				continue;
			}
			float a = sum[3] * inv_n;
			float oa = a + (1.0f - a) * r->bg_alpha;
			float rgb[3];
			for (int k = 0; k < 3; k++) {
				float prem = sum[k] * inv_n + (1.0f - a) * r->bg_lin[k] * r->bg_alpha;
				rgb[k] = oa > 0.0f ? prem / oa : 0.0f;
			}
			dst[x * 4 + 0] = rki_encode(r, rgb[0]);
			dst[x * 4 + 1] = rki_encode(r, rgb[1]);
			dst[x * 4 + 2] = rki_encode(r, rgb[2]);
			int qa = (int)(oa * 255.0f + 0.5f);
			dst[x * 4 + 3] = (unsigned char)(qa < 0 ? 0 : qa > 255 ? 255 : qa);
		}
	}
}

bool rki_render_raster(rki_render *r, unsigned char *out, size_t stride)
{
	size_t per_row = (size_t)r->sw * r->ss;  /* samples per output row */
	size_t rows_out = RKI_RENDER_BAND_SAMPLES / per_row;
	if (rows_out < 1) rows_out = 1;
	if (rows_out > r->height) rows_out = r->height;
	size_t samples = rows_out * per_row;
	float *depth = (float *)rki_malloc(&r->alloc, samples * sizeof(float));
	float *colour = (float *)rki_malloc(&r->alloc, samples * 4 * sizeof(float));
	if (!depth || !colour) {
		rki_free(&r->alloc, depth, samples * sizeof(float));
		rki_free(&r->alloc, colour, samples * 4 * sizeof(float));
		if (r->alloc.limit_hit)
			rki_error_set(r->err, RK_ERROR_LIMIT, "rk_render: memory limit reached allocating the sample band");
		else
			rki_error_set(r->err, RK_ERROR_OUT_OF_MEMORY, "rk_render: out of memory allocating the sample band");
		return false;
	}
	const rki_rtri *tris = (const rki_rtri *)r->tris.data;
	size_t count = r->tris.size / sizeof(rki_rtri);
	rki_band band = { depth, colour, 0, 0, 0 };
	for (uint32_t oy = 0; oy < r->height; oy += (uint32_t)rows_out) {
		uint32_t rows = r->height - oy < rows_out ? r->height - oy : (uint32_t)rows_out;
		size_t n = (size_t)rows * per_row;
		for (size_t i = 0; i < n; i++) depth[i] = -FLT_MAX;
		memset(colour, 0, n * 4 * sizeof(float));
		band.y0 = (int32_t)(oy * r->ss);
		band.y1 = (int32_t)((oy + rows) * r->ss) - 1;
		for (size_t i = 0; i < count; i++) {
			const rki_rtri *t = &tris[i];
			if (t->by1 < band.y0 || t->by0 > band.y1) continue;
			rki_raster_tri(r, t, &band);
		}
		rki_resolve(r, &band, oy, rows, out, stride);
	}
	r->st.fragments += band.fragments;
	rki_free(&r->alloc, depth, samples * sizeof(float));
	rki_free(&r->alloc, colour, samples * 4 * sizeof(float));
	return true;
}

/* ---------------------------------------------------------------------------
 * Skeleton overlay
 * ------------------------------------------------------------------------- */

static void rki_blend(unsigned char *p, const uint8_t col[3], float cov)
{
	float da = p[3] * (1.0f / 255.0f);
	float oa = cov + da * (1.0f - cov);
	for (int k = 0; k < 3; k++) {
		float v = oa > 0.0f ? ((float)col[k] * cov + (float)p[k] * da * (1.0f - cov)) / oa : 0.0f;
		int q = (int)(v + 0.5f);
		p[k] = (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
	}
	int qa = (int)(oa * 255.0f + 0.5f);
	p[3] = (unsigned char)(qa > 255 ? 255 : qa);
}

/* Anti-aliased capsule of radius rad around segment a-b (output pixels). */
static void rki_capsule(const rki_render *r, unsigned char *out, size_t stride, double ax, double ay, double bx,
	double by, double rad, const uint8_t col[3])
{
	double reach = rad + 1.0;
	double minx = floor((ax < bx ? ax : bx) - reach), maxx = ceil((ax > bx ? ax : bx) + reach);
	double miny = floor((ay < by ? ay : by) - reach), maxy = ceil((ay > by ? ay : by) + reach);
	if (maxx < 0.0 || maxy < 0.0 || minx >= (double)r->width || miny >= (double)r->height) return;
	int32_t x0 = minx < 0.0 ? 0 : (int32_t)minx, y0 = miny < 0.0 ? 0 : (int32_t)miny;
	int32_t x1 = maxx >= (double)r->width ? (int32_t)r->width - 1 : (int32_t)maxx;
	int32_t y1 = maxy >= (double)r->height ? (int32_t)r->height - 1 : (int32_t)maxy;
	double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy, len = sqrt(len2);
	for (int32_t y = y0; y <= y1; y++) {
		double cy = y + 0.5;
		int32_t xa = x0, xb = x1;
		if (fabs(dy) > 1e-6 * (len + 1.0)) {
			/* the capsule's row lies within reach / |sin| of the line */
			double xl = ax + (cy - ay) * dx / dy, hw = reach * len / fabs(dy);
			double lo = floor(xl - hw), hi = ceil(xl + hw);
			if (lo > (double)xa) xa = lo > (double)x1 ? x1 + 1 : (int32_t)lo;
			if (hi < (double)xb) xb = hi < (double)x0 ? x0 - 1 : (int32_t)hi;
		}
		unsigned char *row = out + (size_t)y * stride;
		for (int32_t x = xa; x <= xb; x++) {
			double cx = x + 0.5;
			double t = len2 > 0.0 ? ((cx - ax) * dx + (cy - ay) * dy) / len2 : 0.0;
			t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
			double ex = cx - (ax + t * dx), ey = cy - (ay + t * dy);
			double cov = rad + 0.5 - sqrt(ex * ex + ey * ey);
			if (cov <= 0.0) continue;
			rki_blend(row + (size_t)x * 4u, col, cov > 1.0 ? 1.0f : (float)cov);
		}
	}
}

/* View-space (x, y, depth) of a world point. */
static void rki_view(const rki_render *r, rk_vec3 p, double v[3])
{
	double d[3] = { p.x - r->eye.x, p.y - r->eye.y, p.z - r->eye.z };
	v[0] = d[0] * r->R.x + d[1] * r->R.y + d[2] * r->R.z;
	v[1] = d[0] * r->U.x + d[1] * r->U.y + d[2] * r->U.z;
	v[2] = d[0] * r->F.x + d[1] * r->F.y + d[2] * r->F.z;
}

static bool rki_to_pixels(const rki_render *r, const double v[3], double *px, double *py)
{
	double w = r->ortho ? 1.0 : v[2];
	*px = (v[0] * r->proj_x / w + 1.0) * 0.5 * (double)r->width;
	*py = (1.0 - v[1] * r->proj_y / w) * 0.5 * (double)r->height;
	return isfinite(*px) && isfinite(*py) && fabs(*px) < 1e9 && fabs(*py) < 1e9;
}

void rki_render_skeleton(rki_render *r, const rk_mat4 *node_to_world, unsigned char *out, size_t stride)
{
	static const uint8_t bone[3] = { 255, 150, 30 }, joint[3] = { 255, 240, 200 };
	const rk_scene *s = r->scene;
	double lw = (double)r->o.line_width;
	/* Perspective needs depth > 0; keep a sliver in front of the eye. */
	double near = r->near > 0.0 ? r->near : (r->ortho ? 0.0 : 1e-9);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->nodes.count; i++) {
			const rk_node *n = &s->nodes.data[i];
			if (n->kind != RK_NODE_JOINT) continue;
			double a[3], b[3], ax, ay, bx, by;
			rki_view(r, rk_mat4_get_translation(node_to_world[i]), a);
			if (pass == 1) {
				if (a[2] < near || !rki_to_pixels(r, a, &ax, &ay)) continue;
				rki_capsule(r, out, stride, ax, ay, ax, ay, 1.5 * lw + 0.5, joint);
				continue;
			}
			const rk_node *parent = n->parent;
			if (!parent || parent->kind != RK_NODE_JOINT) continue;
			rki_view(r, rk_mat4_get_translation(node_to_world[parent->index]), b);
			if (a[2] < near && b[2] < near) continue;
			if (a[2] < near || b[2] < near) {
				double *q = a[2] < near ? a : b, *o = a[2] < near ? b : a;
				double t = (near - o[2]) / (q[2] - o[2]);
				for (int k = 0; k < 3; k++) q[k] = o[k] + t * (q[k] - o[k]);
				q[2] = near;
			}
			if (!rki_to_pixels(r, a, &ax, &ay) || !rki_to_pixels(r, b, &bx, &by)) continue;
			rki_capsule(r, out, stride, ax, ay, bx, by, 0.5 * lw, bone);
		}
	}
}
