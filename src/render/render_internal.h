/*
 * src/render/render_internal.h - shared pieces of the software renderer
 * (rigkit/render.h): the render context, the clipped screen-space triangle
 * list and the rasteriser entry points.
 *
 *   render.c         options, pose + deformation, camera, triangle setup
 *                    (triangulation, near/guard-band clipping, projection)
 *   render_raster.c  bands of samples: coverage, depth test, shading,
 *                    textures, resolve to RGBA8, skeleton overlay
 *   render_png.c     rk_png_write (stb_image_write, private copy)
 */
#ifndef RIGKIT_RENDER_INTERNAL_H
#define RIGKIT_RENDER_INTERNAL_H

#include "core/internal.h"
#include "scene/scene_internal.h"
#include "rigkit/image.h"
#include "rigkit/render.h"

/* Sub-sample precision of snapped vertex positions: 1/256 sample. */
#define RKI_RENDER_SUBPIXEL_BITS 8
#define RKI_RENDER_SUBPIXEL (1 << RKI_RENDER_SUBPIXEL_BITS)
/* Guard band: triangles are clipped to |x|, |y| <= G * w in clip space, i.e.
 * one image extent beyond each side. Keeps fixed-point coordinates below
 * 2^26 and edge products below 2^53. */
#define RKI_RENDER_GUARD 3.0
/* Samples per band (z-buffer + colour rows processed together). */
#define RKI_RENDER_BAND_SAMPLES ((size_t)1 << 18)
/* Encoding table size for linear -> sRGB (interpolated). */
#define RKI_RENDER_SRGB_LUT 4096

/* One triangle after clipping and projection, ready for any band. */
typedef struct rki_rtri {
	int32_t x[3], y[3];           /* snapped sample-grid positions, 1/256 sample */
	float key[3];                 /* depth key, bigger = nearer (1/w or -depth) */
	float invw[3];                /* 1/w for perspective-correct interpolation (1 for ortho) */
	float n[3][3];                /* world normals (unnormalised after clipping) */
	float uv[3][2];               /* texture coordinates, transform and V flip applied */
	float col[3][4];              /* vertex colours (linear RGBA; 1 without COLOR_0) */
	float facing[3];              /* unit geometric normal, turned towards the viewer */
	float wire[3];                /* 1 / (edge length in fixed units * 256) of wireframe edges
	                                 opposite each vertex, 0 = no line */
	uint32_t material;            /* index into rki_render.mats */
	int32_t bx0, by0, bx1, by1;   /* covered sample rectangle, inclusive, inside the image */
} rki_rtri;

/* A resolved material. */
typedef struct rki_rmat {
	float base[4];                /* linear RGBA */
	bool unlit, mask;
	float cutoff;
	int32_t texture;              /* index into rki_render.images, -1 = none */
	const rk_texture_ref *ref;    /* base colour texture reference (transform), NULL = none */
} rki_rmat;

typedef struct rki_rimage {
	uint8_t state;                /* 0 not tried, 1 decoded, 2 failed */
	rk_image image;
	rk_wrap wrap_u, wrap_v;
} rki_rimage;

typedef struct rki_render {
	const rk_scene *scene;
	rk_render_opts o;             /* resolved options (camera included) */
	rk_render_stats st;           /* filled as we go, copied to o.stats at the end */
	rki_alloc alloc;
	rk_error *err;

	uint32_t width, height, ss;   /* output size, supersampling factor */
	uint32_t sw, sh;              /* sample grid: width * ss, height * ss */

	/* camera */
	rk_vec3 eye, F, R, U;
	bool ortho;
	double proj_x, proj_y;        /* clip X = x * proj_x, Y = y * proj_y (perspective: W = depth) */
	double near;

	/* shading */
	float light[3];
	float ambient, diffuse;
	float bg_lin[3], bg_alpha;
	uint8_t bg_bytes[4];          /* the background as given (uncovered pixels) */
	float srgb_to_linear[256];
	float linear_to_srgb[RKI_RENDER_SRGB_LUT + 1]; /* value * 255 at i / LUT */
	float wire_half;              /* half wireframe width in samples */

	rki_rmat *mats;               /* scene->materials.count + 1 (last = default) */
	size_t mat_count;
	rki_rimage *images;           /* scene->textures.count */

	rki_buf tris;                 /* rki_rtri */
} rki_render;

/* Rasterises every triangle of r->tris into out (stride bytes per row) by
 * bands and resolves to RGBA8. False on allocation failure (err set). */
bool rki_render_raster(rki_render *r, unsigned char *out, size_t stride);

/* Decodes material m's texture on first use; returns the image or NULL. */
const rk_image *rki_render_texture(rki_render *r, const rki_rmat *m);

/* Draws the skeleton overlay of `pose_node_to_world` into out. */
void rki_render_skeleton(rki_render *r, const rk_mat4 *node_to_world, unsigned char *out, size_t stride);

#endif
