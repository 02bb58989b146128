/*
 * rigkit/render.h - preview rendering without a GPU: a posed scene
 * rasterised into an RGBA8 image, and PNG output.
 *
 * OVERVIEW
 *   rk_render() evaluates a scene at a time of a clip (anim.h pose job),
 *   deforms every visible mesh node (blend shapes and skinning, anim.h's
 *   double reference path), triangulates its polygons (mesh.h's
 *   rk_polygon_triangulate) and rasterises the triangles on the CPU into a
 *   caller-owned RGBA8 buffer: z-buffer, perspective-correct attributes,
 *   Lambert shading, optional base colour textures, optional wireframe and
 *   skeleton overlays, optional supersampling. It is meant for previews,
 *   thumbnails, contact sheets and tests on machines without a GPU, not for
 *   real-time use. rk_png_write() stores the result atomically.
 *
 *     rk_render_opts o = { .camera.yaw_deg = 30, .textures = true };  // zero = defaults
 *     uint32_t w, h;
 *     size_t bytes = rk_render_size(&o, &w, &h, &err);              // 512 * 512 * 4
 *     unsigned char *rgba = malloc(bytes);
 *     if (!rk_render(scene, clip, clip->time_begin, &o, rgba, 0, &err)) ...;
 *     if (!rk_png_write("preview.png", rgba, w, h, 0, &err)) ...;
 *
 *   docs/render.md shows pictures and measurements.
 *
 * WHAT IS DRAWN
 *   Nodes with a mesh and `visible` set, in node order. Positions:
 *   rk_mesh_world_positions_eval() for the pose; normals:
 *   rk_mesh_world_normals_eval() when the mesh stores normals, else the flat
 *   normal of each triangle (from the posed positions). Each face with
 *   n >= 3 corners becomes n - 2 triangles of rk_polygon_triangulate() on the
 *   mesh-space (rest) positions; faces with fewer corners, a corner range
 *   outside the mesh or a position index out of range are skipped and
 *   counted (stats.skipped_faces); an out-of-range UV index reads (0, 0), an
 *   out-of-range normal index the flat normal. Material of a face: as
 *   mesh.h step 1 (slot list
 *   node->materials, else mesh->materials; face_material[f], NULL = slot 0;
 *   no or an out-of-range slot: the default material, linear grey 0.8).
 *   Skeleton-only scenes draw nothing but the background (and the skeleton
 *   overlay when asked).
 *
 * CAMERA (rk_render_camera; world space of the (converted) scene)
 *   Camera basis: forward F (the view direction), right R, up U, image x
 *   along R, image y along U. Two ways to place it:
 *   Auto framing (default, look_at false): the frame box is the posed
 *   bounds (every drawn mesh vertex; without any, the joint nodes' world
 *   positions; without joints, every node's) or camera.bounds_min/max when
 *   has_bounds. The scene's axes (settings.axes; unknown: up +Y, front +Z
 *   for a Y up scene, -Y otherwise; right: its axis when known, else
 *   up x front) give the front view: the camera sits on the front side of
 *   the box looking along -front, R = the right axis, U = the up axis, so a
 *   character modelled facing front faces the viewer with its left hand on
 *   the image's right, also in left-handed scenes. yaw_deg orbits the camera
 *   about the up axis through the box centre (positive towards the right
 *   axis: 90 shows a front-facing character's left side); pitch_deg raises
 *   it (positive looks down from above; +-90 are top/bottom views). The
 *   camera looks at the box centre from the distance at which all 8 box
 *   corners fit in the image with `margin` free on each side (perspective),
 *   or with an orthographic height fitted the same way.
 *   Explicit camera (look_at true): eye, target and up (zero: the scene's up
 *   axis as above). F = normalize(target - eye), R = normalize(F x up) in a
 *   right-handed scene, negated in a left-handed one (scene axes with
 *   right . (up x front) < 0), U = the part of up perpendicular to F, so
 *   the image is never mirrored. yaw/pitch/margin/bounds are ignored; orthographic with
 *   ortho_height 0 fits the posed bounds seen from that direction.
 *   Projection: perspective with vertical field of view fov_deg (the
 *   horizontal one follows the aspect ratio), or orthographic showing
 *   ortho_height world units vertically. Nothing nearer than `near` (view
 *   depth along F) is drawn: triangles crossing that plane are clipped
 *   (and against a guard band of 2x the image extents on each side, so no
 *   coordinate overflows). near default: 1e-3 * (distance from the eye to
 *   the frame box centre + the box's half diagonal) for perspective, 0
 *   (the eye plane) for orthographic, where auto framing puts the eye
 *   outside the box.
 *   The camera actually used is reported in stats (eye, target, basis,
 *   projection), e.g. to project points onto the image yourself:
 *     depth = (p - eye) . F, x = (p - eye) . R, y = (p - eye) . U
 *     perspective:  t = tan(fov_deg / 2), ndc = (x / (depth t a), y / (depth t))
 *     orthographic: ndc = (x / (ortho_height / 2 a), y / (ortho_height / 2))
 *     a = width / height; pixel = ((ndc.x + 1) width / 2, (1 - ndc.y) height / 2)
 *   in pixel units with (0, 0) the top-left corner of the top-left pixel
 *   (pixel centres at +0.5).
 *
 * RASTERISATION
 *   Sample positions are pixel centres (of the supersampled grid with
 *   supersample > 1). Vertex positions are snapped to 1/256 of a sample;
 *   coverage uses exact integer edge functions with the top-left fill rule
 *   (a sample on a shared edge belongs to exactly one of the triangles, so
 *   a closed surface covers every sample once). Depth test: nearest wins
 *   (perspective compares 1/depth, orthographic -depth, both interpolated
 *   linearly on screen); on exact ties the triangle drawn first stays.
 *   Normals and UVs are interpolated perspective-correctly. Back faces are
 *   drawn by default (glTF/OBJ windings and mirroring conversions do not
 *   matter); with cull_back_faces, a triangle (a, b, c) is culled when
 *   (b - a) x (c - a) points away from the eye, the winding's sense flipped
 *   for nodes whose world matrix mirrors (det < 0 of geometry_to_world, or
 *   of the root conversion for skinned nodes). Supersampling (supersample
 *   = s) renders s x s samples per pixel and averages them in linear light.
 *   The image is processed in horizontal bands, so the z-buffer and colour
 *   memory stay bounded (a few MiB) for any image size.
 *
 * SHADING
 *   Base colour b = material base_color (linear RGBA) times the vertex
 *   colour COLOR_0 (glTF/GLB files only, as the glTF spec defines it; FBX
 *   vertex colours often carry other data and are ignored) times, with
 *   opts.textures, the base colour texture at the interpolated UV:
 *   rk_image_decode() of the texture (embedded content, or the file at
 *   resolved_path), texels sRGB-decoded, bilinear, wrap_u/wrap_v honoured,
 *   the texture transform (offset, rotation, scale; KHR_texture_transform
 *   order T * R * S) applied, V flipped for files whose V origin is
 *   bottom-left (every format but glTF/GLB, see rk_uv_set); UV set by
 *   rk_node_material_uv_set() (scene.h). A texture that cannot be decoded is counted
 *   (stats.textures_failed, first message in stats.texture_error) and the
 *   material drawn without it. RK_ALPHA_MASK materials discard samples with
 *   b.a < alpha_cutoff; BLEND is drawn opaque.
 *   LAMBERT (default): colour = b.rgb * (ambient + diffuse * max(0, n . L)),
 *   n the unit shading normal turned towards the viewer when the triangle
 *   is seen from its back (two-sided lighting: n is flipped when it points
 *   to the other side of the triangle's plane than the eye), L the unit
 *   direction towards the light. Materials with `unlit` and RK_SHADE_UNLIT
 *   use colour = b.rgb. Defaults: ambient 0.3, diffuse 0.7 (a surface facing
 *   the light shows its base colour), L from the camera's upper left:
 *   normalize(-0.35 R + 0.55 U - 0.75 F).
 *   Output: colour (and the background) composited in linear light, then
 *   encoded as 8-bit sRGB (linear_output: plain value * 255), rounded;
 *   alpha is coverage (255 where the surface covers the pixel) composited
 *   over the background's alpha; RGB not premultiplied.
 *
 * OVERLAYS (drawn into the final image, not supersampled)
 *   wireframe: the polygon edges (not the triangulation's diagonals) of the
 *   visible surface, darkened, depth-tested (part of the surface pass).
 *   skeleton: on top of everything, a line from each joint node
 *   (RK_NODE_JOINT) to its parent when the parent is a joint too, and a dot
 *   on every joint, at the posed world positions (node_to_world
 *   translation). Lines are clipped at `near`; anti-aliased by distance.
 *
 * DETERMINISM
 *   The same scene, clip, time, options and library build give the same
 *   bytes: single-threaded, fixed evaluation order, no uninitialised reads.
 *
 * MEMORY
 *   rk_render() allocates its temporaries from opts->allocator (zero =
 *   malloc/free), all freed before it returns, within opts->memory_limit:
 *   the pose, one node's posed positions and normals (double), the
 *   triangle list after clipping (~200 bytes per triangle), decoded
 *   textures (opts.textures only) and one band of samples (at most 2^18
 *   samples, 20 bytes each). stb_image (texture decoding) and
 *   stb_image_write (rk_png_write) use malloc internally.
 *
 * ERRORS
 *   RK_ERROR_INVALID_ARGUMENT: NULL scene or buffer, a size or option out
 *   of range (named in the message), a clip whose tracks do not belong to
 *   the scene (rk_pose_eval_validate's message), non-finite time.
 *   RK_ERROR_LIMIT / RK_ERROR_OUT_OF_MEMORY: memory_limit or the allocator.
 *   On failure the output buffer may have been partly written.
 *
 * THREAD SAFETY
 *   The scene is only read: any number of threads may render the same const
 *   scene at once into distinct buffers. No global state (stb's options are
 *   private copies that are never changed).
 */
#ifndef RIGKIT_RENDER_H
#define RIGKIT_RENDER_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest width or height rk_render() accepts, in pixels. */
#define RK_RENDER_MAX_SIZE 16384
/* Default width and height. */
#define RK_RENDER_DEFAULT_SIZE 512

typedef enum rk_render_shading {
	RK_SHADE_LAMBERT = 0,           /* ambient + one directional light (default) */
	RK_SHADE_UNLIT                  /* base colour only */
} rk_render_shading;

/* Where the camera is and what it sees (see CAMERA). Zero = auto framing,
 * front view, perspective, 30 degree vertical field of view. */
typedef struct rk_render_camera {
	double yaw_deg;                 /* auto: orbit about the up axis, degrees, default 0 (front) */
	double pitch_deg;               /* auto: elevation, degrees, default 0; positive looks down */
	double margin;                  /* auto: free border per side as a fraction of the image's
	                                   half extent, 0 = 0.05, at most 0.9 */
	bool has_bounds;                /* auto: frame bounds_min/max instead of the posed bounds */
	rk_vec3 bounds_min, bounds_max; /* world space; min <= max per axis */
	bool look_at;                   /* explicit camera: eye, target, up */
	rk_vec3 eye, target;            /* world space, look_at only; eye != target */
	rk_vec3 up;                     /* world space, look_at only; zero = the scene's up axis */
	double fov_deg;                 /* perspective vertical field of view, degrees,
	                                   0 = 30, in (0, 170] */
	bool orthographic;              /* parallel projection */
	double ortho_height;            /* orthographic: world units shown vertically; 0 = fit the box */
	double near;                    /* view depth of the near clipping plane, world units;
	                                   0 = auto (see CAMERA), negative is an error */
} rk_render_camera;

/* What a render met and the camera it used. */
typedef struct rk_render_stats {
	size_t mesh_nodes;              /* mesh nodes drawn */
	size_t triangles;               /* triangles from triangulation (before clipping/culling) */
	size_t triangles_rasterized;    /* after near/guard-band clipping and culling (a clipped
	                                   triangle may count up to 6 times) */
	size_t skipped_faces;           /* faces with < 3 corners or an out-of-range index */
	uint64_t fragments;             /* samples covered by triangles, before the depth test */
	size_t textures_decoded;        /* distinct textures decoded */
	size_t textures_failed;         /* distinct textures that could not be decoded */
	char texture_error[RK_ERROR_TEXT_MAX]; /* message of the first failure, "" if none */
	rk_vec3 bounds_min, bounds_max; /* the posed bounds (see CAMERA), world space */
	/* The camera used (see CAMERA). */
	rk_vec3 eye, target;
	rk_vec3 forward, right, up;     /* unit basis F, R, U */
	bool orthographic;
	double fov_deg;                 /* perspective */
	double ortho_height;            /* orthographic */
	double near;
} rk_render_stats;

/* Options. Zero-initialise; every zero field is the default. */
typedef struct rk_render_opts {
	uint32_t width, height;         /* pixels; both 0 = 512 x 512; one of them 0 is an error;
	                                   at most RK_RENDER_MAX_SIZE each */
	rk_render_camera camera;
	bool has_background;
	uint8_t background[4];          /* sRGB RGBA8 when has_background; default (40, 44, 52, 255) */
	rk_render_shading shading;      /* default RK_SHADE_LAMBERT */
	rk_vec3 light_direction;        /* towards the light, world space; zero = from the camera's
	                                   upper left (see SHADING) */
	double ambient, diffuse;        /* both 0 = 0.3 and 0.7; otherwise as given (>= 0) */
	bool textures;                  /* sample base colour textures (see SHADING); default off here,
	                                   on in `rigkit render` (--untextured turns it off) */
	bool wireframe;                 /* polygon edges on the visible surface */
	bool skeleton;                  /* joints and bones on top */
	uint32_t line_width;            /* overlay lines, pixels; 0 = max(1, min(width, height) / 256),
	                                   at most 64 */
	uint32_t supersample;           /* samples per pixel along each axis: 0 or 1 = off,
	                                   2 = 2x2, up to 4 */
	bool cull_back_faces;           /* default false: draw both sides */
	bool linear_output;             /* write linear values * 255 instead of sRGB */
	bool no_extrapolation;          /* pose evaluation: hold FBX curve ends (anim.h) */
	rk_allocator allocator;         /* temporaries; zero = malloc/free */
	size_t memory_limit;            /* bytes of temporaries; 0 = 4 GiB (1.5 GiB with 32-bit size_t) */
	rk_render_stats *stats;         /* optional output, filled by rk_render() when non-NULL */
	/* Reporting (rk_warning_fn, scene.h): each texture that cannot be decoded
	 * (opts.textures), once, with the decoder's error text; counted in
	 * stats.textures_failed as well. NULL = stats only. */
	rk_warning_fn *warning;
	void *warning_user;
} rk_render_opts;

/* The image size opts ask for: *width, *height (either may be NULL) and the
 * return value, the bytes of a tightly packed RGBA8 buffer (width * height
 * * 4). opts NULL = defaults (512 x 512). Returns 0 with err set
 * (RK_ERROR_INVALID_ARGUMENT) when exactly one of width/height is 0 or
 * either exceeds RK_RENDER_MAX_SIZE. Pure, thread safe. */
size_t rk_render_size(const rk_render_opts *opts, uint32_t *width, uint32_t *height, rk_error *err);

/* World-space bounds of `scene` posed at `time` of `clip` (NULL = the
 * static scene), as auto framing sees them (see CAMERA): every vertex of
 * the visible mesh nodes, else joint or node positions. Use it to give
 * several renders one camera (camera.has_bounds), e.g. the union over the
 * frames of a contact sheet. opts may be NULL (allocator, memory_limit and
 * no_extrapolation are used). Returns false with err set for the same
 * scene/clip/time errors as rk_render. Thread safe. */
bool rk_render_bounds(const rk_scene *scene, const rk_anim_clip *clip, double time, const rk_render_opts *opts,
	rk_vec3 *out_min, rk_vec3 *out_max, rk_error *err);

/* The camera rk_render() would use for these arguments, without drawing:
 * fills the camera fields of *out (eye, target, forward, right, up,
 * orthographic, fov_deg, ortho_height, near) and bounds_min/max (the posed
 * bounds, see CAMERA); every other field is zeroed. With it another
 * renderer (a GPU viewer) sees exactly what rk_render() sees: project a
 * world point p with the formulas under CAMERA. Only width/height (the
 * aspect ratio), camera and no_extrapolation/allocator/memory_limit of opts
 * matter (NULL = defaults). Returns false with err set for the errors of
 * rk_render (bad size or camera options, scene/clip/time). Thread safe. */
bool rk_render_camera_eval(const rk_scene *scene, const rk_anim_clip *clip, double time, const rk_render_opts *opts,
	rk_render_stats *out, rk_error *err);

/* Renders `scene` posed at `time` (seconds, absolute file time; anim.h) of
 * `clip` (NULL = the static scene, cached matrices) into `rgba`: height
 * rows of width * 4 bytes (R, G, B, A; rows top to bottom), row r starting
 * at rgba + r * stride. stride 0 = width * 4; otherwise >= width * 4 (a
 * sub-rectangle of a larger image: contact sheets). The buffer must hold
 * (height - 1) * stride + width * 4 bytes; every one of those pixel bytes
 * is written, bytes between rows are not. opts NULL = defaults. Returns
 * false with err set (see ERRORS). Deterministic; thread safe on a const
 * scene with distinct buffers. */
bool rk_render(const rk_scene *scene, const rk_anim_clip *clip, double time, const rk_render_opts *opts,
	unsigned char *rgba, size_t stride, rk_error *err);

/* Writes an RGBA8 image (layout as rk_render's, stride 0 = width * 4) as a
 * PNG file (8-bit RGBA, non-interlaced; stb_image_write's encoder with its
 * default settings, so equal pixels give equal bytes) through
 * rk_file_write_atomic(): readers see the old file or the whole new one.
 * Returns false with RK_ERROR_INVALID_ARGUMENT for NULL arguments, a zero
 * size or a stride < width * 4, RK_ERROR_LIMIT for images stb cannot
 * encode (height * (width * 4 + 1) > INT_MAX bytes), RK_ERROR_OUT_OF_MEMORY,
 * or RK_ERROR_OUTPUT when the file cannot be written (path untouched).
 * Thread safe for distinct paths. */
bool rk_png_write(const char *path, const unsigned char *rgba, uint32_t width, uint32_t height, size_t stride,
	rk_error *err);
/* As rk_png_write, with rk_file_write options (opts->force: replace a
 * symbolic link or special file at `path`; NULL = defaults). */
bool rk_png_write_file(const char *path, const unsigned char *rgba, uint32_t width, uint32_t height, size_t stride,
	const rk_file_write_opts *opts, rk_error *err);

#ifdef __cplusplus
}
#endif
#endif
