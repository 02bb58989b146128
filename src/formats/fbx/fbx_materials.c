/*
 * src/formats/fbx/fbx_materials.c - textures (file names, path resolution,
 * embedded Video content) and materials (see fbx_materials.h).
 */
#include "formats/fbx/fbx_materials.h"
#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- materials and textures ------------------------------------------------------------ */

/* Finds the texture's file through the access policy (src/load/load_files.h):
 * RelativeFilename, then FileName, inside the input's folder tree; then their
 * trailing path parts (the file name last) inside the input's folder, which
 * is how absolute and foreign-OS paths ("B:\\Users\\...\\wood.jpg") of real
 * files are found. A reference leaving the folder, or naming a FIFO or
 * device, is a warning naming it. With rk_load_opts.open_file the bytes
 * come from the callback and become the texture's content. */
static bool rki_fbx_texture_file(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_texture *t, const char *rel, const char *abs)
{
	rki_file_ask ask = { .refs = { rel, abs }, .ref_lens = { strlen(rel), strlen(abs) }, .by_name = true,
		.arena = ctx->sc->arena };
	rki_file_result res;
	rki_file_status st = rki_scene_open_file(ctx->sc, &ask, &res);
	if (st == RKI_FILE_FAILED) return false;
	if (st == RKI_FILE_OK) {
		t->resolved_path = res.path;
		if (res.data && !t->content && !ctx->sc->opts.no_embedded_content) {
			t->content = res.data;
			t->content_size = res.size;
		}
	} else if (st != RKI_FILE_MISSING) {
		rki_fbx_warn(ctx, o->node, "texture \"%.60s\": %s", t->name ? t->name : "", res.why);
	}
	return true;
}

static const char *rki_mime_of(const unsigned char *p, size_t n)
{
	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
	if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "image/jpeg";
	return "";
}

bool rki_fbx_build_texture(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_texture *t)
{
	t->name = o->name;
	const char *fn = "", *rel = "";
	size_t len;
	if (!rki_fbx_child_str(o->node, "FileName", &fn, &len) && !rki_fbx_child_str(o->node, "Filename", &fn, &len)) fn = "";
	if (!rki_fbx_child_str(o->node, "RelativeFilename", &rel, &len)) rel = "";
	const char *chosen = rel[0] ? rel : fn;
	t->filename = rki_arena_strndup(ctx->sc->arena, chosen, strlen(chosen));
	if (!t->filename) return rki_fbx_oom(ctx);
	t->mime_type = "";
	/* Embedded content lives in a Video connected to the texture. */
	for (uint32_t k = 0; k < o->children_count; k++) {
		rki_fbx_object *v = rki_fbx_child_of_kind(ctx, o, k, "Video", NULL);
		if (!v) continue;
		const rki_fbx_node *cn = rki_fbx_find_child(v->node, "Content");
		const char *data;
		size_t dlen;
		if (cn && !ctx->sc->opts.no_embedded_content) {
			for (size_t pi = 0; pi < cn->prop_count; pi++) {
				if (!rki_fbx_prop_str(cn, pi, &data, &dlen) || dlen == 0) continue;
				if (cn->props[pi].type == 'R') {
					t->content = (const unsigned char *)data;
					t->content_size = dlen;
				}
				break;
			}
		}
		if (!t->filename[0]) {
			const char *vf;
			if (rki_fbx_child_str(v->node, "RelativeFilename", &vf, &len) || rki_fbx_child_str(v->node, "Filename", &vf, &len))
				t->filename = rki_arena_strndup(ctx->sc->arena, vf, strlen(vf));
			if (!t->filename) return rki_fbx_oom(ctx);
		}
		break;
	}
	if (!rki_fbx_texture_file(ctx, o, t, rel, fn)) return false;
	if (t->content) t->mime_type = rki_mime_of(t->content, t->content_size);
	if (!t->mime_type[0] && t->filename[0]) {
		const char *dot = strrchr(t->filename, '.');
		if (dot && (!strcmp(dot, ".png") || !strcmp(dot, ".PNG"))) t->mime_type = "image/png";
		else if (dot && (!strcmp(dot, ".jpg") || !strcmp(dot, ".jpeg") || !strcmp(dot, ".JPG"))) t->mime_type = "image/jpeg";
	}
	const char *uvset = rki_fbx_obj_str(o, "UVSet", "");
	(void)uvset;
	return true;
}

bool rki_fbx_build_material(rki_fbx_ctx *ctx, rki_fbx_object *o, rk_material *m)
{
	m->name = o->name;
	const char *sm;
	size_t len;
	m->shading_model = rki_fbx_child_str(o->node, "ShadingModel", &sm, &len) ? rki_arena_strndup(ctx->sc->arena, sm, len)
		: rki_fbx_obj_str(o, "ShadingModel", "");
	if (!m->shading_model) return rki_fbx_oom(ctx);
	rk_vec3 dc = rki_fbx_obj_vec3(o, "DiffuseColor", rki_fbx_obj_vec3(o, "Diffuse", (rk_vec3){ 0.8, 0.8, 0.8 }));
	double df = rki_fbx_obj_f64(o, "DiffuseFactor", 1.0);
	double opacity = 1.0;
	size_t vi;
	if (rki_fbx_obj_prop(o, "Opacity", &vi)) opacity = rki_fbx_obj_f64(o, "Opacity", 1.0);
	else opacity = 1.0 - rki_fbx_obj_f64(o, "TransparencyFactor", 0.0);
	if (!(opacity >= 0.0 && opacity <= 1.0)) opacity = 1.0;
	m->base_color = (rk_vec4){ dc.x * df, dc.y * df, dc.z * df, opacity };
	rk_vec3 sc = rki_fbx_obj_vec3(o, "SpecularColor", (rk_vec3){ 0.2, 0.2, 0.2 });
	double sf = rki_fbx_obj_f64(o, "SpecularFactor", 1.0);
	m->specular = rk_vec3_scale(sc, sf);
	m->shininess = rki_fbx_obj_f64(o, "ShininessExponent", rki_fbx_obj_f64(o, "Shininess", 20.0));
	rk_vec3 ec = rki_fbx_obj_vec3(o, "EmissiveColor", (rk_vec3){ 0, 0, 0 });
	m->emissive = rk_vec3_scale(ec, rki_fbx_obj_f64(o, "EmissiveFactor", 1.0));
	m->metallic = 0.0;
	/* Phong exponent -> roughness (Blinn-Phong to GGX approximation). */
	m->roughness = m->shininess > 0.0 ? sqrt(2.0 / (m->shininess + 2.0)) : 1.0;
	m->alpha_mode = opacity < 1.0 ? RK_ALPHA_BLEND : RK_ALPHA_OPAQUE;
	m->alpha_cutoff = 0.5;
	for (uint32_t k = 0; k < o->children_count; k++) {
		const rki_fbx_conn *c = &ctx->conns[o->children_begin + k];
		rki_fbx_object *to = &ctx->objects[c->other];
		if (strcmp(to->element, "Texture") != 0 || !to->out || !c->prop) continue;
		rk_texture_ref *slot = NULL;
		if (!strcmp(c->prop, "DiffuseColor") || !strcmp(c->prop, "Diffuse") || !strcmp(c->prop, "Maya|baseColor")) slot = &m->base_color_texture;
		else if (!strcmp(c->prop, "NormalMap") || !strcmp(c->prop, "Bump")) slot = &m->normal_texture;
		else if (!strcmp(c->prop, "EmissiveColor")) slot = &m->emissive_texture;
		if (!slot || slot->texture) continue;
		slot->texture = (rk_texture *)to->out;
		const char *uvset = rki_fbx_obj_str(to, "UVSet", "");
		slot->uv_set = rki_arena_strndup(ctx->sc->arena, uvset, strlen(uvset));
		if (!slot->uv_set) return rki_fbx_oom(ctx);
		slot->scale = (rk_vec2){ 1, 1 };
	}
	return true;
}
