/*
 * tools/view/view_internal.h - what the viewer's files share: the GL
 * context struct, shader programs and small matrix helpers.
 *
 *   view_gl.c      window, context, programs, offscreen framebuffer, counts
 *   view_model.c   a scene on the GPU: upload, pose (sample, blend, skin),
 *                  draw, skeleton overlay
 *   view_font.c    the built-in 5 x 7 bitmap font and text drawing
 *   view_window.c  the interactive loop
 */
#ifndef RIGKIT_VIEW_INTERNAL_H
#define RIGKIT_VIEW_INTERNAL_H

#include "view.h"

#include <SDL.h>
#include <epoxy/gl.h>

/* The mesh program's uniform locations. */
typedef struct view_mesh_prog {
	GLuint prog;
	GLint mvp, model, normal, uvm, color, tex, has_tex, unlit, light, ambient, diffuse, eye, mask, cutoff;
} view_mesh_prog;

/* Flat-colour lines and points (skeleton overlay). */
typedef struct view_line_prog {
	GLuint prog;
	GLint mvp, color, point_size;
} view_line_prog;

/* Text quads. */
typedef struct view_text_prog {
	GLuint prog;
	GLint screen, tex, color;
} view_text_prog;

struct view_gl {
	SDL_Window *window;
	SDL_GLContext context;
	char renderer[256];
	view_mesh_prog mesh;
	view_line_prog line;
	view_text_prog text;
	GLuint font_tex;               /* R8 glyph atlas */
	GLuint text_vao, text_vbo;
	GLuint target_fbo, target_rb[2]; /* view_gl_bind_target */
	uint32_t target_w, target_h;
};

/* Column-major 4x4 double matrices (rk_mat4 layout). */
typedef struct view_m4 { double m[16]; } view_m4;

/* View-projection matrix of an rk_render_camera_eval() camera for a
 * width / height viewport, with near/far planes fitted to the camera's
 * bounds (see view_model.c). */
view_m4 view_camera_matrix(const rk_render_stats *cam, uint32_t width, uint32_t height);
view_m4 view_m4_mul(view_m4 a, view_m4 b);
void view_m4_to_float(float *dst, view_m4 a);

/* Compiles and links a program from two sources; 0 with msg set. */
GLuint view_program(const char *vs, const char *fs, char *msg, size_t cap);

/* The glyph atlas (view_font.c): VIEW_FONT_W x VIEW_FONT_H cells for
 * characters 32..126, one row; 1 byte per texel. */
#define VIEW_FONT_W 6
#define VIEW_FONT_H 8
#define VIEW_FONT_FIRST 32
#define VIEW_FONT_COUNT 95
void view_font_atlas(unsigned char *dst); /* VIEW_FONT_COUNT * VIEW_FONT_W * VIEW_FONT_H bytes */

#endif
