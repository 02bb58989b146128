/* tools/view/view_window.c - the interactive loop of `rigkit view`
 * (view.h view_window_run, docs/view.md): playback with crossfades, root
 * motion keep / in place, an orbit camera (a rk_hierarchy item orbiting the
 * target with rk_hierarchy_rotate_around + rk_hierarchy_look_at, seed 003's
 * example), the skeleton overlay and an on-screen status line. */
#include "view_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VIEW_FADE_SECONDS 0.3

typedef struct view_state {
	const view_window_opts *o;
	view_gl *g;
	size_t item;
	rk_scene *scene;
	view_model *model;
	char error[RK_ERROR_TEXT_MAX + 256];
	size_t clip;                    /* index into scene->clips; SIZE_MAX = static */
	double time;                    /* file seconds */
	size_t from_clip;               /* fading out (SIZE_MAX = none) */
	rk_crossfade fade;
	bool fading, paused, in_place, unlit, skeleton, help;
	/* camera */
	rk_render_stats base;           /* rk_render_camera_eval of the first frame */
	double hand;                    /* +1 right-handed scene, -1 left-handed */
	rk_hierarchy *h;
	int32_t cam;
	rk_vec3 target, up;
	double frame_ms, skin_ms;
	size_t crossfades;
} view_state;

static double view_clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static const rk_anim_clip *view_state_clip(const view_state *s, size_t i)
{
	return s->scene && i < s->scene->clips.count ? &s->scene->clips.data[i] : NULL;
}

static void view_unload(view_state *s)
{
	view_model_destroy(s->model);
	s->model = NULL;
	rk_scene_free(s->scene);
	s->scene = NULL;
	rk_hierarchy_destroy(s->h);
	s->h = NULL;
}

static void view_camera_reset(view_state *s, uint32_t w, uint32_t h)
{
	rk_render_opts ro = { 0 };
	ro.width = w;
	ro.height = h;
	ro.camera.yaw_deg = s->o->start_yaw + (s->o->yaw_of ? s->o->yaw_of(s->scene) : 0.0);
	const rk_anim_clip *c = view_state_clip(s, s->clip);
	rk_error err;
	if (!rk_render_camera_eval(s->scene, c, c ? c->time_begin : 0.0, &ro, &s->base, &err)) {
		rk_error_format(s->error, sizeof(s->error), &err);
		return;
	}
	s->hand = rk_vec3_dot(rk_vec3_cross(s->base.forward, s->base.up), s->base.right) < 0.0 ? -1.0 : 1.0;
	rk_hierarchy_destroy(s->h);
	s->h = rk_hierarchy_create(1, NULL);
	s->cam = s->h ? rk_hierarchy_add(s->h, RK_NO_PARENT, rk_trs_identity()) : -1;
	s->target = s->base.target;
	s->up = s->base.up;
	rk_hierarchy_set_world_position(s->h, s->cam, s->base.eye);
	rk_hierarchy_look_at(s->h, s->cam, s->target, s->up);
}

static void view_load(view_state *s, size_t item, uint32_t w, uint32_t h)
{
	view_unload(s);
	s->item = item;
	s->error[0] = 0;
	s->fading = false;
	s->from_clip = SIZE_MAX;
	rk_error err;
	memset(&err, 0, sizeof(err));
	s->scene = s->o->load(s->o->user, item, &err);
	const char *name = s->o->names ? s->o->names[item] : "";
	if (!s->scene) {
		char msg[RK_ERROR_TEXT_MAX];
		rk_error_format(msg, sizeof(msg), &err);
		snprintf(s->error, sizeof(s->error), "%s%s%s", strstr(msg, name) ? "" : name, strstr(msg, name) ? "" : ": ", msg);
		return;
	}
	view_model_opts mo = { 0 };
	mo.textures = s->o->textures;
	mo.skin_threads = s->o->skin_threads;
	s->model = view_model_create(s->g, s->scene, &mo, &err);
	if (!s->model) {
		char msg[RK_ERROR_TEXT_MAX];
		rk_error_format(msg, sizeof(msg), &err);
		snprintf(s->error, sizeof(s->error), "%s: %s", name, msg);
		rk_scene_free(s->scene);
		s->scene = NULL;
		return;
	}
	s->clip = SIZE_MAX;
	size_t n = s->scene->clips.count;
	for (size_t k = 0; k < n; k++) {
		size_t i = s->o->clip_from_end ? n - 1 - k : k;
		const rk_anim_clip *c = &s->scene->clips.data[i];
		if (s->o->clip ? strcmp(c->name, s->o->clip) == 0 : c->layer_count > 0) {
			s->clip = i;
			break;
		}
	}
	if (s->clip == SIZE_MAX && s->scene->clips.count && !s->o->clip) s->clip = 0;
	const rk_anim_clip *c = view_state_clip(s, s->clip);
	s->time = c ? c->time_begin : 0.0;
	view_camera_reset(s, w, h);
}

static void view_switch_clip(view_state *s, int step)
{
	size_t n = s->scene ? s->scene->clips.count : 0;
	if (n < 1) return;
	size_t next = s->clip == SIZE_MAX ? 0 : (s->clip + n + (size_t)(step > 0 ? 1 : n - 1)) % n;
	if (next == s->clip) return;
	const rk_anim_clip *c = view_state_clip(s, next), *from = view_state_clip(s, s->clip);
	if (from) {
		s->from_clip = s->clip;
		rk_crossfade_start(&s->fade, s->time, c->time_begin, VIEW_FADE_SECONDS);
		s->fading = true;
		s->crossfades++;
	}
	s->clip = next;
	s->time = c->time_begin;
}

static rk_render_stats view_camera_now(const view_state *s)
{
	rk_render_stats c = s->base;
	if (!s->h) return c;
	c.eye = rk_hierarchy_get_world_position(s->h, s->cam);
	c.forward = rk_vec3_normalize(rk_hierarchy_transform_direction(s->h, s->cam, rk_vec3_make(0, 0, 1)));
	c.up = rk_vec3_normalize(rk_hierarchy_transform_direction(s->h, s->cam, rk_vec3_make(0, 1, 0)));
	c.right = rk_vec3_scale(rk_vec3_normalize(rk_vec3_cross(c.forward, c.up)), s->hand);
	c.target = s->target;
	/* keep the depth range around the framed box wherever the camera went */
	double dist = rk_vec3_length(rk_vec3_sub(c.eye, s->target));
	double base_dist = rk_vec3_length(rk_vec3_sub(s->base.eye, s->base.target));
	if (base_dist > 0.0 && s->base.near > 0.0) c.near = s->base.near * dist / base_dist;
	return c;
}

static void view_orbit(view_state *s, double yaw, double pitch)
{
	if (!s->h) return;
	rk_hierarchy_rotate_around(s->h, s->cam, s->target, s->up, yaw);
	rk_vec3 f = rk_hierarchy_transform_direction(s->h, s->cam, rk_vec3_make(0, 0, 1));
	rk_vec3 axis = rk_vec3_cross(f, s->up);
	double elev = asin(fmax(-1.0, fmin(1.0, -rk_vec3_dot(rk_vec3_normalize(f), s->up))));
	/* stop short of the poles so look_at keeps an up direction */
	double lim = 1.5;
	if (elev + pitch > lim) pitch = lim - elev;
	if (elev + pitch < -lim) pitch = -lim - elev;
	if (rk_vec3_length(axis) > 1e-9) rk_hierarchy_rotate_around(s->h, s->cam, s->target, rk_vec3_normalize(axis), -pitch);
	rk_hierarchy_look_at(s->h, s->cam, s->target, s->up);
}

static void view_zoom(view_state *s, double factor)
{
	if (!s->h) return;
	rk_vec3 e = rk_hierarchy_get_world_position(s->h, s->cam);
	rk_vec3 d = rk_vec3_sub(e, s->target);
	rk_hierarchy_set_world_position(s->h, s->cam, rk_vec3_add(s->target, rk_vec3_scale(d, factor)));
}

static const char view_help[] =
	"mouse drag: orbit   wheel: zoom   space: pause   left/right: clip (crossfade)\n"
	"r: root motion keep/in place   k: skeleton   u: unlit   f: reframe\n"
	"n/p: next/previous file   h: this help   esc/q: quit";

/* Reads the back buffer (before the swap) into a PNG. */
static bool view_capture(const char *path, int w, int h, rk_error *err)
{
	unsigned char *px = (unsigned char *)malloc((size_t)w * (size_t)h * 4u);
	unsigned char *flip = (unsigned char *)malloc((size_t)w * (size_t)h * 4u);
	bool ok = px && flip;
	if (ok) {
		glPixelStorei(GL_PACK_ALIGNMENT, 1);
		glReadBuffer(GL_BACK);
		glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
		for (int r = 0; r < h; r++) memcpy(flip + (size_t)r * w * 4u, px + (size_t)(h - 1 - r) * w * 4u, (size_t)w * 4u);
		ok = rk_png_write(path, flip, (uint32_t)w, (uint32_t)h, 0, err);
	}
	free(px);
	free(flip);
	return ok;
}

/* Queues the scripted key of `frame` (view_window_opts.keys). */
static void view_script_key(const char *keys, double frame)
{
	if (!keys || frame < 5.0 || fmod(frame - 5.0, 10.0) != 0.0) return;
	size_t k = (size_t)((frame - 5.0) / 10.0);
	if (k >= strlen(keys)) return;
	SDL_Event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = SDL_KEYDOWN;
	char c = keys[k];
	ev.key.keysym.sym = c == '>' ? SDLK_RIGHT : c == '<' ? SDLK_LEFT : c == ' ' ? SDLK_SPACE : (SDL_Keycode)c;
	SDL_PushEvent(&ev);
}

int view_window_run(view_gl *g, const view_window_opts *o, view_window_report *report, rk_error *err)
{
	int rc = 0;
	view_state st;
	memset(&st, 0, sizeof(st));
	view_state *s = &st;
	s->o = o;
	s->g = g;
	s->in_place = o->in_place;
	s->unlit = o->unlit;
	s->skeleton = o->skeleton;
	s->clip = SIZE_MAX;
	s->from_clip = SIZE_MAX;
	int w = 0, h = 0;
	SDL_ShowWindow(g->window);
	SDL_GL_GetDrawableSize(g->window, &w, &h);
	if (o->count) view_load(s, 0, (uint32_t)w, (uint32_t)h);
	double last = view_clock_ms();
	bool running = true, dragging = false;
	double frames = 0;
	while (running) {
		view_script_key(o->keys, frames);
		SDL_Event ev;
		while (SDL_PollEvent(&ev)) {
			if (ev.type == SDL_QUIT) running = false;
			else if (ev.type == SDL_MOUSEBUTTONDOWN && ev.button.button == SDL_BUTTON_LEFT) dragging = true;
			else if (ev.type == SDL_MOUSEBUTTONUP && ev.button.button == SDL_BUTTON_LEFT) dragging = false;
			else if (ev.type == SDL_MOUSEMOTION && dragging) view_orbit(s, -0.01 * ev.motion.xrel, 0.01 * ev.motion.yrel);
			else if (ev.type == SDL_MOUSEWHEEL) view_zoom(s, ev.wheel.y > 0 ? 0.9 : 1.0 / 0.9);
			else if (ev.type == SDL_KEYDOWN) {
				switch (ev.key.keysym.sym) {
				case SDLK_ESCAPE:
				case SDLK_q: running = false; break;
				case SDLK_SPACE: s->paused = !s->paused; break;
				case SDLK_RIGHT: view_switch_clip(s, 1); break;
				case SDLK_LEFT: view_switch_clip(s, -1); break;
				case SDLK_r: s->in_place = !s->in_place; break;
				case SDLK_k: s->skeleton = !s->skeleton; break;
				case SDLK_u: s->unlit = !s->unlit; break;
				case SDLK_h: s->help = !s->help; break;
				case SDLK_f:
					if (s->scene) view_camera_reset(s, (uint32_t)w, (uint32_t)h);
					break;
				case SDLK_n:
					if (o->count) view_load(s, (s->item + 1) % o->count, (uint32_t)w, (uint32_t)h);
					break;
				case SDLK_p:
					if (o->count) view_load(s, (s->item + o->count - 1) % o->count, (uint32_t)w, (uint32_t)h);
					break;
				case SDLK_LEFTBRACKET: view_orbit(s, 0.1, 0.0); break;
				case SDLK_RIGHTBRACKET: view_orbit(s, -0.1, 0.0); break;
				default: break;
				}
			}
		}
		double now = view_clock_ms(), dt = (now - last) * 1e-3;
		last = now;
		SDL_GL_GetDrawableSize(g->window, &w, &h);
		if (w < 1 || h < 1) continue;
		const rk_anim_clip *clip = view_state_clip(s, s->clip);
		if (!s->paused && clip) {
			s->time += dt;
			double dur = clip->time_end - clip->time_begin;
			if (dur > 0.0 && s->time > clip->time_end) s->time = clip->time_begin + fmod(s->time - clip->time_begin, dur);
			if (s->fading) {
				rk_crossfade_advance(&s->fade, dt);
				if (rk_crossfade_done(&s->fade)) s->fading = false;
			}
		}
		double t0 = view_clock_ms();
		glBindFramebuffer(GL_FRAMEBUFFER, 0);
		if (s->model) {
			view_pose p = { 0 };
			p.clip = clip;
			p.time = s->time;
			p.loop = true;
			p.in_place = s->in_place;
			if (s->fading) {
				p.from_clip = view_state_clip(s, s->from_clip);
				p.from_time = s->fade.from_time;
				p.fade = rk_crossfade_weight(&s->fade);
			}
			rk_error perr;
			if (!view_model_pose(s->model, &p, &s->skin_ms, &perr)) {
				rk_error_format(s->error, sizeof(s->error), &perr);
				view_unload(s);
			}
		}
		view_draw_opts d = { 0 };
		d.width = (uint32_t)w;
		d.height = (uint32_t)h;
		d.clear = true;
		d.unlit = s->unlit;
		d.skeleton = s->skeleton;
		d.background[0] = 40;
		d.background[1] = 44;
		d.background[2] = 52;
		d.background[3] = 255;
		if (s->model) {
			d.camera = view_camera_now(s);
			view_model_draw(s->model, &d);
		} else {
			glViewport(0, 0, w, h);
			glClearColor(40 / 255.0f, 44 / 255.0f, 52 / 255.0f, 1.0f);
			glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
		}
		glFinish();
		s->frame_ms = view_clock_ms() - t0;
		char line[2048];
		const char *name = o->names ? o->names[s->item] : "";
		const char *slash = strrchr(name, '/');
		if (slash && s->model) name = slash + 1;
		int scale = h >= 900 ? 3 : w >= 640 ? 2 : 1;
		if (s->model) {
			snprintf(line, sizeof(line), "%s  clip %s  t %.2f s%s\nframe %.2f ms  skinning %.2f ms  root %s%s", name,
				clip ? clip->name : "(static)", clip ? s->time - clip->time_begin : 0.0, s->paused ? " (paused)" : "",
				s->frame_ms, s->skin_ms, s->in_place ? "in place" : "keep", s->fading ? "  (crossfade)" : "");
			const float white[4] = { 1, 1, 1, 1 };
			view_text_draw(g, (uint32_t)w, (uint32_t)h, 8, 8, scale, line, white);
			if (s->help) view_text_draw(g, (uint32_t)w, (uint32_t)h, 8, 8 + 24 * scale, scale, view_help, white);
		} else {
			const float red[4] = { 1.0f, 0.5f, 0.45f, 1 };
			snprintf(line, sizeof(line), "%s\n(n/p: another file, esc: quit)", s->error[0] ? s->error : "no file");
			view_text_draw(g, (uint32_t)w, (uint32_t)h, 8, 8, scale, line, red);
		}
		frames += 1;
		if (o->frames_limit > 0 && frames >= o->frames_limit) {
			running = false;
			if (o->capture_png && !view_capture(o->capture_png, w, h, err)) rc = 3;
		}
		SDL_GL_SwapWindow(g->window);
	}
	if (report) {
		memset(report, 0, sizeof(*report));
		report->frames = (size_t)frames;
		report->item = s->item;
		const rk_anim_clip *c = view_state_clip(s, s->clip);
		snprintf(report->clip, sizeof(report->clip), "%s", c && c->name ? c->name : "");
		report->crossfades = s->crossfades;
		report->in_place = s->in_place;
		report->skeleton = s->skeleton;
		report->unlit = s->unlit;
		report->loaded = s->model != NULL;
		_Static_assert(sizeof(report->error) == sizeof(s->error), "error text sizes");
		memcpy(report->error, s->error, sizeof(report->error));
	}
	view_unload(s);
	return rc;
}
