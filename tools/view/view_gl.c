/* tools/view/view_gl.c - the window, the GL 3.3 core context, the shader
 * programs, the camera matrix, offscreen rendering and GL object counts
 * (view.h). */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void view_fbo_delete(GLuint *fbo, GLuint rb[2]);

static bool view_fail(rk_error *err, const char *fmt, const char *arg)
{
	if (err) {
		memset(err, 0, sizeof(*err));
		err->code = RK_ERROR_INVALID_ARGUMENT;
		err->description = "GPU viewer";
		snprintf(err->message, sizeof(err->message), fmt, arg ? arg : "");
	}
	return false;
}

/* ---------------------------------------------------------------------------
 * Shaders. Colours are computed in linear light and written sRGB-encoded
 * (the exact sRGB curve) into an 8-bit target, as rk_render encodes its
 * output; textures are GL_SRGB8_ALPHA8, so sampling and bilinear filtering
 * happen on linear values, like rk_render's decoded texels.
 * ------------------------------------------------------------------------- */

static const char view_mesh_vs[] =
	"#version 330 core\n"
	"layout(location = 0) in vec3 a_pos;\n"
	"layout(location = 1) in vec3 a_nrm;\n"
	"layout(location = 2) in vec2 a_uv;\n"
	"uniform mat4 u_mvp;\n"
	"uniform mat4 u_model;\n"
	"uniform mat3 u_normal;\n"
	"uniform mat3 u_uvm;\n"
	"out vec3 v_world;\n"
	"out vec3 v_nrm;\n"
	"out vec2 v_uv;\n"
	"void main() {\n"
	"  v_world = (u_model * vec4(a_pos, 1.0)).xyz;\n"
	"  v_nrm = u_normal * a_nrm;\n"
	"  v_uv = (u_uvm * vec3(a_uv, 1.0)).xy;\n"
	"  gl_Position = u_mvp * vec4(a_pos, 1.0);\n"
	"}\n";

static const char view_mesh_fs[] =
	"#version 330 core\n"
	"in vec3 v_world;\n"
	"in vec3 v_nrm;\n"
	"in vec2 v_uv;\n"
	"uniform vec4 u_color;\n"
	"uniform sampler2D u_tex;\n"
	"uniform bool u_has_tex;\n"
	"uniform bool u_unlit;\n"
	"uniform vec3 u_light;\n"
	"uniform float u_ambient;\n"
	"uniform float u_diffuse;\n"
	"uniform vec3 u_eye;\n"
	"uniform bool u_mask;\n"
	"uniform float u_cutoff;\n"
	"out vec4 o_color;\n"
	"vec3 encode(vec3 l) {\n"
	"  l = clamp(l, 0.0, 1.0);\n"
	"  return mix(l * 12.92, 1.055 * pow(l, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), l));\n"
	"}\n"
	"void main() {\n"
	"  vec4 b = u_color;\n"
	"  if (u_has_tex) b *= texture(u_tex, v_uv);\n"
	"  if (u_mask && b.a < u_cutoff) discard;\n"
	"  vec3 c = b.rgb;\n"
	"  if (!u_unlit) {\n"
	"    vec3 n = normalize(v_nrm);\n"
	"    vec3 g = cross(dFdx(v_world), dFdy(v_world));\n"
	"    if (dot(g, u_eye - v_world) < 0.0) g = -g;\n"   /* geometric normal towards the eye */
	"    if (dot(n, g) < 0.0) n = -n;\n"                 /* two-sided lighting */
	"    c *= u_ambient + u_diffuse * max(0.0, dot(n, u_light));\n"
	"  }\n"
	"  o_color = vec4(encode(c), 1.0);\n"
	"}\n";

static const char view_line_vs[] =
	"#version 330 core\n"
	"layout(location = 0) in vec3 a_pos;\n"
	"uniform mat4 u_mvp;\n"
	"uniform float u_point_size;\n"
	"void main() { gl_Position = u_mvp * vec4(a_pos, 1.0); gl_PointSize = u_point_size; }\n";

static const char view_line_fs[] =
	"#version 330 core\n"
	"uniform vec4 u_color;\n"
	"out vec4 o_color;\n"
	"void main() { o_color = u_color; }\n";

static const char view_text_vs[] =
	"#version 330 core\n"
	"layout(location = 0) in vec2 a_pos;\n"
	"layout(location = 1) in vec2 a_uv;\n"
	"uniform vec2 u_screen;\n"
	"out vec2 v_uv;\n"
	"void main() {\n"
	"  v_uv = a_uv;\n"
	"  gl_Position = vec4(a_pos.x / u_screen.x * 2.0 - 1.0, 1.0 - a_pos.y / u_screen.y * 2.0, 0.0, 1.0);\n"
	"}\n";

static const char view_text_fs[] =
	"#version 330 core\n"
	"in vec2 v_uv;\n"
	"uniform sampler2D u_tex;\n"
	"uniform vec4 u_color;\n"
	"out vec4 o_color;\n"
	"void main() {\n"
	"  float a = v_uv.x < 0.0 ? 0.6 : texture(u_tex, v_uv).r;\n"  /* u < 0: the backing box */
	"  vec3 c = v_uv.x < 0.0 ? vec3(0.0) : u_color.rgb;\n"
	"  o_color = vec4(c, a * u_color.a);\n"
	"}\n";

static GLuint view_shader(GLenum kind, const char *src, char *msg, size_t cap)
{
	GLuint s = glCreateShader(kind);
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		glGetShaderInfoLog(s, (GLsizei)cap, NULL, msg);
		glDeleteShader(s);
		return 0;
	}
	return s;
}

GLuint view_program(const char *vs, const char *fs, char *msg, size_t cap)
{
	GLuint v = view_shader(GL_VERTEX_SHADER, vs, msg, cap);
	if (!v) return 0;
	GLuint f = view_shader(GL_FRAGMENT_SHADER, fs, msg, cap);
	if (!f) {
		glDeleteShader(v);
		return 0;
	}
	GLuint p = glCreateProgram();
	glAttachShader(p, v);
	glAttachShader(p, f);
	glLinkProgram(p);
	glDetachShader(p, v);
	glDetachShader(p, f);
	glDeleteShader(v);
	glDeleteShader(f);
	GLint ok = 0;
	glGetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		glGetProgramInfoLog(p, (GLsizei)cap, NULL, msg);
		glDeleteProgram(p);
		return 0;
	}
	return p;
}

static bool view_gl_programs(view_gl *g, rk_error *err)
{
	char msg[1024] = "";
	g->mesh.prog = view_program(view_mesh_vs, view_mesh_fs, msg, sizeof(msg));
	if (!g->mesh.prog) return view_fail(err, "mesh shader: %s", msg);
	view_mesh_prog *m = &g->mesh;
	m->mvp = glGetUniformLocation(m->prog, "u_mvp");
	m->model = glGetUniformLocation(m->prog, "u_model");
	m->normal = glGetUniformLocation(m->prog, "u_normal");
	m->uvm = glGetUniformLocation(m->prog, "u_uvm");
	m->color = glGetUniformLocation(m->prog, "u_color");
	m->tex = glGetUniformLocation(m->prog, "u_tex");
	m->has_tex = glGetUniformLocation(m->prog, "u_has_tex");
	m->unlit = glGetUniformLocation(m->prog, "u_unlit");
	m->light = glGetUniformLocation(m->prog, "u_light");
	m->ambient = glGetUniformLocation(m->prog, "u_ambient");
	m->diffuse = glGetUniformLocation(m->prog, "u_diffuse");
	m->eye = glGetUniformLocation(m->prog, "u_eye");
	m->mask = glGetUniformLocation(m->prog, "u_mask");
	m->cutoff = glGetUniformLocation(m->prog, "u_cutoff");
	g->line.prog = view_program(view_line_vs, view_line_fs, msg, sizeof(msg));
	if (!g->line.prog) return view_fail(err, "line shader: %s", msg);
	g->line.mvp = glGetUniformLocation(g->line.prog, "u_mvp");
	g->line.color = glGetUniformLocation(g->line.prog, "u_color");
	g->line.point_size = glGetUniformLocation(g->line.prog, "u_point_size");
	g->text.prog = view_program(view_text_vs, view_text_fs, msg, sizeof(msg));
	if (!g->text.prog) return view_fail(err, "text shader: %s", msg);
	g->text.screen = glGetUniformLocation(g->text.prog, "u_screen");
	g->text.tex = glGetUniformLocation(g->text.prog, "u_tex");
	g->text.color = glGetUniformLocation(g->text.prog, "u_color");

	unsigned char *atlas = (unsigned char *)malloc(VIEW_FONT_COUNT * VIEW_FONT_W * VIEW_FONT_H);
	if (!atlas) return view_fail(err, "out of memory for the font%s", NULL);
	view_font_atlas(atlas);
	glGenTextures(1, &g->font_tex);
	glBindTexture(GL_TEXTURE_2D, g->font_tex);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, VIEW_FONT_COUNT * VIEW_FONT_W, VIEW_FONT_H, 0, GL_RED, GL_UNSIGNED_BYTE, atlas);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glBindTexture(GL_TEXTURE_2D, 0);
	free(atlas);
	glGenVertexArrays(1, &g->text_vao);
	glGenBuffers(1, &g->text_vbo);
	glBindVertexArray(g->text_vao);
	glBindBuffer(GL_ARRAY_BUFFER, g->text_vbo);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, (const void *)0);
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 16, (const void *)8);
	glBindVertexArray(0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	return true;
}

view_gl *view_gl_create(const view_gl_opts *opts, rk_error *err)
{
	view_gl_opts o = { 0 };
	if (opts) o = *opts;
	if (!o.width || !o.height) {
		o.width = 960;
		o.height = 720;
	}
	const char *display = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
	if (o.hidden && (!display || !*display) && (!wayland || !*wayland) && !getenv("SDL_VIDEODRIVER"))
		SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		view_fail(err, "cannot open a display (SDL: %s); run under xvfb-run for headless use", SDL_GetError());
		return NULL;
	}
	view_gl *g = (view_gl *)calloc(1, sizeof(view_gl));
	if (!g) {
		SDL_Quit();
		view_fail(err, "out of memory%s", NULL);
		return NULL;
	}
	SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
	SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
	SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
	SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
	SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
	Uint32 flags = SDL_WINDOW_OPENGL | (o.hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_RESIZABLE);
	g->window = SDL_CreateWindow(o.title ? o.title : "rigkit view", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
		(int)o.width, (int)o.height, flags);
	if (!g->window) {
		view_fail(err, "cannot create an OpenGL window (SDL: %s)", SDL_GetError());
		view_gl_destroy(g);
		return NULL;
	}
	g->context = SDL_GL_CreateContext(g->window);
	if (!g->context) {
		view_fail(err, "no OpenGL 3.3 core context (SDL: %s)", SDL_GetError());
		view_gl_destroy(g);
		return NULL;
	}
	SDL_GL_MakeCurrent(g->window, g->context);
	SDL_GL_SetSwapInterval(o.hidden ? 0 : 1);
	if (epoxy_gl_version() < 33) {
		view_fail(err, "the OpenGL context is older than 3.3 (%s)", (const char *)glGetString(GL_VERSION));
		view_gl_destroy(g);
		return NULL;
	}
	snprintf(g->renderer, sizeof(g->renderer), "%s, OpenGL %s", (const char *)glGetString(GL_RENDERER),
		(const char *)glGetString(GL_VERSION));
	if (!view_gl_programs(g, err)) {
		view_gl_destroy(g);
		return NULL;
	}
	return g;
}

void view_gl_destroy(view_gl *g)
{
	if (!g) return;
	if (g->context) {
		if (g->mesh.prog) glDeleteProgram(g->mesh.prog);
		if (g->line.prog) glDeleteProgram(g->line.prog);
		if (g->text.prog) glDeleteProgram(g->text.prog);
		if (g->font_tex) glDeleteTextures(1, &g->font_tex);
		if (g->text_vbo) glDeleteBuffers(1, &g->text_vbo);
		if (g->text_vao) glDeleteVertexArrays(1, &g->text_vao);
		view_fbo_delete(&g->target_fbo, g->target_rb);
		SDL_GL_DeleteContext(g->context);
	}
	if (g->window) SDL_DestroyWindow(g->window);
	free(g);
	SDL_Quit();
}

const char *view_gl_renderer(const view_gl *g)
{
	return g ? g->renderer : "";
}

void view_gl_count_objects(view_gl *g, uint32_t probe, view_gl_counts *out)
{
	memset(out, 0, sizeof(*out));
	(void)g;
	for (GLuint n = 1; n <= probe; n++) {
		out->buffers += glIsBuffer(n) ? 1u : 0u;
		out->textures += glIsTexture(n) ? 1u : 0u;
		out->vertex_arrays += glIsVertexArray(n) ? 1u : 0u;
		out->programs += glIsProgram(n) ? 1u : 0u;
		out->shaders += glIsShader(n) ? 1u : 0u;
		out->framebuffers += glIsFramebuffer(n) ? 1u : 0u;
		out->renderbuffers += glIsRenderbuffer(n) ? 1u : 0u;
	}
}

/* ---------------------------------------------------------------------------
 * Camera: render.h's projection (CAMERA) as a GL matrix. Camera space:
 * x = (p - eye) . R, y = (p - eye) . U, depth d = (p - eye) . F;
 * perspective clip = (x / (t a), y / t, z(d), d), t = tan(fov / 2);
 * orthographic clip = (x / (h a), y / h, z(d), 1), h = ortho_height / 2.
 * z maps [near, far] to [-1, 1]; near is at least rk_render's near and, for
 * depth precision, half the nearest corner depth of the framed bounds; far
 * lies beyond the farthest corner by the box's diagonal.
 * ------------------------------------------------------------------------- */

view_m4 view_m4_mul(view_m4 a, view_m4 b)
{
	view_m4 r;
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < 4; k++) {
			double s = 0.0;
			for (int i = 0; i < 4; i++) s += a.m[i * 4 + k] * b.m[c * 4 + i];
			r.m[c * 4 + k] = s;
		}
	return r;
}

void view_m4_to_float(float *dst, view_m4 a)
{
	for (int i = 0; i < 16; i++) dst[i] = (float)a.m[i];
}

view_m4 view_camera_matrix(const rk_render_stats *cam, uint32_t width, uint32_t height)
{
	rk_vec3 e = cam->eye, R = cam->right, U = cam->up, F = cam->forward;
	double aspect = (double)width / (double)(height ? height : 1);
	rk_vec3 mn = cam->bounds_min, mx = cam->bounds_max;
	double dmin = INFINITY, dmax = -INFINITY;
	for (int k = 0; k < 8; k++) {
		rk_vec3 q = { k & 1 ? mx.x : mn.x, k & 2 ? mx.y : mn.y, k & 4 ? mx.z : mn.z };
		double d = rk_vec3_dot(rk_vec3_sub(q, e), F);
		if (d < dmin) dmin = d;
		if (d > dmax) dmax = d;
	}
	double diag = rk_vec3_length(rk_vec3_sub(mx, mn));
	if (!(diag > 0.0) || !isfinite(diag)) diag = 1.0;
	double n = cam->near, f;
	if (cam->orthographic) {
		n = dmin - diag;
		f = dmax + diag;
	} else {
		if (!(n > 0.0)) n = 1e-3 * diag;
		if (dmin * 0.5 > n) n = dmin * 0.5;
		f = (dmax > n ? dmax : n) + diag;
	}
	/* view: rows R, U, F (depth), translation -eye */
	view_m4 v = { { 0 } };
	double rows[3][3] = { { R.x, R.y, R.z }, { U.x, U.y, U.z }, { F.x, F.y, F.z } };
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++) v.m[c * 4 + r] = rows[r][c];
		v.m[12 + r] = -(rows[r][0] * e.x + rows[r][1] * e.y + rows[r][2] * e.z);
	}
	v.m[15] = 1.0;
	/* projection on (x, y, d, 1) */
	view_m4 p = { { 0 } };
	if (cam->orthographic) {
		double h = cam->ortho_height * 0.5;
		if (!(h > 0.0)) h = 1.0;
		p.m[0] = 1.0 / (h * aspect);
		p.m[5] = 1.0 / h;
		p.m[10] = 2.0 / (f - n);
		p.m[14] = -(f + n) / (f - n);
		p.m[15] = 1.0;
	} else {
		double t = tan(cam->fov_deg * RK_PI / 360.0);
		p.m[0] = 1.0 / (t * aspect);
		p.m[5] = 1.0 / t;
		p.m[10] = (f + n) / (f - n);
		p.m[14] = -2.0 * f * n / (f - n);
		p.m[11] = 1.0;
	}
	return view_m4_mul(p, v);
}

/* ---------------------------------------------------------------------------
 * Offscreen rendering
 * ------------------------------------------------------------------------- */

/* Makes fbo + colour (RGBA8) and depth (32F) renderbuffers of w x h. */
static bool view_fbo_make(GLuint *fbo, GLuint rb[2], uint32_t w, uint32_t h)
{
	glGenFramebuffers(1, fbo);
	glGenRenderbuffers(2, rb);
	glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, (GLsizei)w, (GLsizei)h);
	glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT32F, (GLsizei)w, (GLsizei)h);
	glBindRenderbuffer(GL_RENDERBUFFER, 0);
	glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
	return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

static void view_fbo_delete(GLuint *fbo, GLuint rb[2])
{
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (rb[0] || rb[1]) glDeleteRenderbuffers(2, rb);
	if (*fbo) glDeleteFramebuffers(1, fbo);
	*fbo = rb[0] = rb[1] = 0;
}

bool view_gl_bind_target(view_gl *g, uint32_t width, uint32_t height, rk_error *err)
{
	if (g->target_fbo && g->target_w == width && g->target_h == height) {
		glBindFramebuffer(GL_FRAMEBUFFER, g->target_fbo);
		return true;
	}
	view_fbo_delete(&g->target_fbo, g->target_rb);
	if (!view_fbo_make(&g->target_fbo, g->target_rb, width, height)) {
		view_fbo_delete(&g->target_fbo, g->target_rb);
		return view_fail(err, "the offscreen framebuffer is incomplete%s", NULL);
	}
	g->target_w = width;
	g->target_h = height;
	return true;
}

void view_gl_finish(view_gl *g)
{
	(void)g;
	glFinish();
}

bool view_offscreen(view_gl *g, view_model *m, uint32_t width, uint32_t height, size_t frames,
	const view_pose *poses, const view_draw_opts *opts, unsigned char *rgba, size_t stride, rk_error *err)
{
	if (!g || !m || !width || !height || !frames || !poses || !opts || !rgba)
		return view_fail(err, "view_offscreen: bad arguments%s", NULL);
	GLint max_rb = 0;
	glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
	uint64_t sheet_w = (uint64_t)width * frames;
	if (sheet_w > (uint64_t)max_rb || height > (uint32_t)max_rb)
		return view_fail(err, "the image is larger than the GL driver's renderbuffer limit%s", NULL);
	if (stride == 0) stride = (size_t)sheet_w * 4u;
	GLuint fbo = 0, rb[2] = { 0, 0 };
	bool ok = view_fbo_make(&fbo, rb, (uint32_t)sheet_w, height);
	if (!ok) view_fail(err, "the offscreen framebuffer is incomplete%s", NULL);
	for (size_t k = 0; ok && k < frames; k++) {
		if (!view_model_pose(m, &poses[k], NULL, err)) {
			ok = false;
			break;
		}
		view_draw_opts d = opts[k];
		d.x = (uint32_t)(k * width);
		d.y = 0;
		d.width = width;
		d.height = height;
		d.clear = true;
		view_model_draw(m, &d);
	}
	if (ok) {
		unsigned char *tmp = (unsigned char *)malloc((size_t)sheet_w * 4u * height);
		if (!tmp) {
			ok = view_fail(err, "out of memory for the read-back%s", NULL);
		} else {
			glPixelStorei(GL_PACK_ALIGNMENT, 1);
			glReadPixels(0, 0, (GLsizei)sheet_w, (GLsizei)height, GL_RGBA, GL_UNSIGNED_BYTE, tmp);
			for (uint32_t r = 0; r < height; r++)   /* GL rows go bottom to top */
				memcpy(rgba + (size_t)r * stride, tmp + (size_t)(height - 1 - r) * sheet_w * 4u, (size_t)sheet_w * 4u);
			free(tmp);
		}
	}
	view_fbo_delete(&fbo, rb);
	return ok;
}
