/*
 * tools/view/view.h - the GPU viewer behind `rigkit view` (docs/view.md):
 * rigkit's mesh expansion drawn with OpenGL 3.3 core (libepoxy) in an SDL2
 * window or an offscreen framebuffer, CPU-skinned every frame.
 *
 * A top layer like the CLI: it uses rigkit's public headers only and keeps
 * every SDL and GL name to itself (the CLI sees the types below, never a GL
 * type). Names are view_* (rk_ names belong to the library).
 *
 *   view_gl       one window + GL context + shader programs + the font
 *                 texture; hidden for headless use (screenshots, tests)
 *   view_model    one scene on the GPU: per mesh node a static index buffer
 *                 (the expansion's index range), a static UV buffer and a
 *                 dynamic position/normal buffer that CPU skinning writes
 *                 into (mapped) every frame; per part its material colour
 *                 and base colour texture; a float skeleton and runtime
 *                 clips (built on first use) for playback
 *   view_window_run  the interactive loop (orbit camera, clip playback with
 *                 crossfades, root motion keep / in place, skeleton overlay,
 *                 an on-screen status line)
 *
 * Drawing uses rk_render_camera_eval() (render.h), so a GPU frame and
 * rk_render() of the same arguments project every point identically.
 *
 * Restrictions: blend shapes (morph targets) and glTF vertex colours are
 * not drawn; a skinned mesh shared by several nodes is drawn once per
 * node at its skin's pose; BLEND materials are drawn opaque (as rk_render
 * does).
 *
 * Threads: one thread owns a view_gl and everything made with it.
 * Errors: functions that can fail return false / NULL with an rk_error
 * (code + message) or a message buffer; nothing is printed.
 */
#ifndef RIGKIT_VIEW_VIEW_H
#define RIGKIT_VIEW_VIEW_H

#include <rigkit/rigkit.h>
#include <rigkit/skin.h>

typedef struct view_gl view_gl;
typedef struct view_model view_model;

typedef struct view_gl_opts {
	bool hidden;                    /* no visible window (offscreen rendering only) */
	uint32_t width, height;         /* window size; 0 = 960 x 720 */
	const char *title;              /* NULL = "rigkit view" */
} view_gl_opts;

/* Opens the window and a GL 3.3 core context (SDL_Init included). NULL
 * with err set (RK_ERROR_UNSUPPORTED-like: RK_ERROR_INVALID_ARGUMENT with a
 * message naming what failed: no display, no GL 3.3, a shader) when the
 * machine cannot. When hidden and no X display is set, SDL's offscreen
 * (EGL) video driver is tried. */
view_gl *view_gl_create(const view_gl_opts *opts, rk_error *err);
/* Deletes the programs, font texture, context and window; SDL_Quit. */
void view_gl_destroy(view_gl *g);
/* "renderer, version" strings of the context (static for its lifetime). */
const char *view_gl_renderer(const view_gl *g);

/* Live GL object names, counted by probing names 1..probe with glIs*
 * (names are small integers in every driver rigkit is tested on). */
typedef struct view_gl_counts {
	size_t buffers, textures, vertex_arrays, programs, shaders, framebuffers, renderbuffers;
} view_gl_counts;
void view_gl_count_objects(view_gl *g, uint32_t probe, view_gl_counts *out);

typedef struct view_model_opts {
	bool textures;                  /* upload base colour textures (rk_image_decode) */
	size_t skin_threads;            /* skinning threads, the caller included, kept for the model's
	                                   lifetime (rk_skin_run_range); 0 = one per CPU, 1 = none */
} view_model_opts;

/* Uploads `scene` (kept by pointer: it must outlive the model). NULL with
 * err set when the expansion or the skeleton cannot be built; textures that
 * cannot be decoded are drawn without (view_model_texture_failures). */
view_model *view_model_create(view_gl *g, const rk_scene *scene, const view_model_opts *opts, rk_error *err);
/* Deletes every GL object of the model and its CPU memory. NULL is fine. */
void view_model_destroy(view_model *m);
/* Textures that failed to decode, and the first message ("" if none). */
size_t view_model_texture_failures(const view_model *m, const char **first_message);
/* Expansion totals (triangles, vertices, parts) for reports. */
void view_model_sizes(const view_model *m, size_t *triangles, size_t *vertices, size_t *parts);

/* A pose to show. Times are absolute file seconds (as rk_render takes). */
typedef struct view_pose {
	const rk_anim_clip *clip;       /* NULL = the static scene */
	double time;
	bool loop;                      /* wrap the time into the clip (else clamp) */
	const rk_anim_clip *from_clip;  /* crossfade: the clip fading out (NULL = none) */
	double from_time;
	float fade;                     /* weight of `clip` in [0, 1] while fading */
	bool in_place;                  /* root motion: hips' horizontal travel locked (humanoids) */
} view_pose;

/* Samples the runtime clip(s), blends, computes model matrices, skins every
 * skinned mesh into its mapped vertex buffer (threaded) and updates the
 * skeleton overlay. skin_ms (may be NULL) receives the skinning + upload
 * time in milliseconds. False with err set when a clip cannot be built. */
bool view_model_pose(view_model *m, const view_pose *pose, double *skin_ms, rk_error *err);

/* How to draw. The camera is rk_render_camera_eval()'s (stats camera
 * fields), for width x height. */
typedef struct view_draw_opts {
	rk_render_stats camera;
	uint32_t width, height;         /* viewport in pixels */
	uint32_t x, y;                  /* viewport origin (GL: from the bottom-left) */
	bool unlit;                     /* base colour only (RK_SHADE_UNLIT) */
	bool skeleton;                  /* joints and bones on top */
	bool clear;                     /* clear the viewport to `background` first */
	uint8_t background[4];          /* sRGB RGBA8 */
} view_draw_opts;

/* Draws the posed model into the bound framebuffer. */
void view_model_draw(view_model *m, const view_draw_opts *o);

/* Renders into an offscreen framebuffer (created and deleted here) of
 * width x height and reads it back into rgba (rows top to bottom, stride
 * bytes apart, 0 = width * 4). `frames` draws, each with its own options
 * and pose, go side by side (frame k at x = k * width of a sheet
 * frames * width wide). False with err set when the framebuffer cannot be
 * made. */
bool view_offscreen(view_gl *g, view_model *m, uint32_t width, uint32_t height, size_t frames,
	const view_pose *poses, const view_draw_opts *opts, unsigned char *rgba, size_t stride, rk_error *err);

/* Binds a framebuffer object of width x height kept by g (made or resized
 * here, deleted with g) for repeated offscreen frames (benchmarks). False
 * with err set when it cannot be made. */
bool view_gl_bind_target(view_gl *g, uint32_t width, uint32_t height, rk_error *err);
/* glFinish: waits until the GPU has executed everything submitted. */
void view_gl_finish(view_gl *g);

/* Text overlay: draws `text` (ASCII, '\n' starts a line; other bytes show
 * as '?') at pixel (x, y) from the top-left of a width x height viewport,
 * `scale` pixels per font pixel, RGBA colour, on a dark backing box. */
void view_text_draw(view_gl *g, uint32_t width, uint32_t height, int x, int y, int scale, const char *text,
	const float rgba[4]);

/* ---- the interactive window ---- */

/* How the window gets its scenes: load item `index` of `count` (the CLI
 * loads the file, retargets --anim onto it). Returns the scene, or NULL
 * with err set (the window then shows the error). The window frees scenes
 * with rk_scene_free(). */
typedef rk_scene *view_load_fn(void *user, size_t index, rk_error *err);

typedef struct view_window_opts {
	size_t count;                   /* items (files) to cycle through with N / P */
	view_load_fn *load;
	void *user;
	const char *const *names;       /* count item names (shown and in errors) */
	const char *clip;               /* clip name to start with, NULL = the first with tracks */
	bool clip_from_end;             /* look for it from the last clip (--anim's come last) */
	double start_yaw;               /* added to the camera yaw (a humanoid's own front) per item: */
	double (*yaw_of)(const rk_scene *s); /* optional: the yaw for a loaded scene */
	bool unlit, textures, skeleton, in_place;
	double frames_limit;            /* stop after this many frames (0 = until closed; tests) */
	const char *capture_png;        /* with frames_limit: the last frame as a PNG (tests), else NULL */
	const char *keys;               /* scripted key presses (tests), one every 10 frames from frame
	                                   5: letters as typed, '>' / '<' the right / left arrows */
	size_t skin_threads;
} view_window_opts;

/* What the window ended with (view_window_run's report, for tests). */
typedef struct view_window_report {
	size_t frames;
	size_t item;                    /* the file shown last */
	char clip[256];                 /* its clip ("" static / none) */
	size_t crossfades;              /* clip switches that faded */
	bool in_place, skeleton, unlit, loaded;
	char error[RK_ERROR_TEXT_MAX + 256]; /* the on-screen error, "" if none */
} view_window_report;

/* Runs the window until it is closed (Esc, q, window close) or
 * frames_limit frames were shown. Keys: see docs/view.md (also drawn on
 * screen with H). Returns 0, or 3 when capture_png cannot be written (err
 * set, may be NULL). report (may be NULL) receives the final state. */
int view_window_run(view_gl *g, const view_window_opts *opts, view_window_report *report, rk_error *err);

/* ---- the module ---- */

/* The viewer is built as a module (rigkit-view.so, linked with SDL2 and
 * libepoxy) that `rigkit view` loads with dlopen when it runs, so the other
 * commands start without loading SDL2, libepoxy and their dependencies.
 * The module exports one symbol, VIEW_API_SYMBOL: a function returning
 * this table of the functions above (the CLI calls them through it). A
 * table of another VIEW_API_VERSION is refused. */
#define VIEW_API_VERSION 1u
#define VIEW_API_SYMBOL "view_api_get"

typedef struct view_api {
	unsigned version;               /* VIEW_API_VERSION */
	size_t size;                    /* sizeof(view_api) of the module */
	view_gl *(*gl_create)(const view_gl_opts *opts, rk_error *err);
	void (*gl_destroy)(view_gl *g);
	const char *(*gl_renderer)(const view_gl *g);
	void (*gl_count_objects)(view_gl *g, uint32_t probe, view_gl_counts *out);
	bool (*gl_bind_target)(view_gl *g, uint32_t width, uint32_t height, rk_error *err);
	void (*gl_finish)(view_gl *g);
	view_model *(*model_create)(view_gl *g, const rk_scene *scene, const view_model_opts *opts, rk_error *err);
	void (*model_destroy)(view_model *m);
	size_t (*model_texture_failures)(const view_model *m, const char **first_message);
	void (*model_sizes)(const view_model *m, size_t *triangles, size_t *vertices, size_t *parts);
	bool (*model_pose)(view_model *m, const view_pose *pose, double *skin_ms, rk_error *err);
	void (*model_draw)(view_model *m, const view_draw_opts *o);
	bool (*offscreen)(view_gl *g, view_model *m, uint32_t width, uint32_t height, size_t frames,
		const view_pose *poses, const view_draw_opts *opts, unsigned char *rgba, size_t stride, rk_error *err);
	int (*window_run)(view_gl *g, const view_window_opts *opts, view_window_report *report, rk_error *err);
} view_api;

typedef const view_api *view_api_get_fn(void);
/* The module's table (static, constant). */
const view_api *view_api_get(void);

#endif
