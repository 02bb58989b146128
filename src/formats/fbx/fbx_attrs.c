/*
 * src/formats/fbx/fbx_attrs.c - Light and Camera NodeAttributes (FBX 7x).
 *
 * MAPPING (properties as stored, the object type's template as fallback)
 *   Light  LightType 0 point, 1 directional, 2 spot, 3 area, 4 volume (as
 *          area); Color; Intensity / 100 (FBX stores a percentage);
 *          range = FarAttenuationEnd when EnableFarAttenuation, else 0
 *          (infinite); spot InnerAngle / OuterAngle (full cone angles in
 *          degrees) -> half angles in radians. FBX lights shine along the
 *          node's -Y: to_node turns -Z onto -Y (a -90 degree turn about X).
 *   Camera CameraProjectionType 0 perspective, 1 orthographic. Aspect =
 *          AspectWidth / AspectHeight (0 when either is not > 0). Vertical
 *          field of view by ApertureMode: 0 (horizontal and vertical)
 *          FieldOfViewY; 1 (horizontal) from FieldOfView and the aspect;
 *          2 (vertical) FieldOfView; 3 (focal length) 2 atan(FilmHeight
 *          inches * 25.4 / 2 / FocalLength mm). NearPlane, FarPlane.
 *          Orthographic: FBX states no extent in scene units, so ymag =
 *          OrthoZoom and xmag = ymag * aspect (1 when the aspect is
 *          unknown). FBX cameras
 *          look along the node's +X with +Y up: to_node turns -Z onto +X
 *          (a -90 degree turn about Y).
 *   An attribute connected to several Models is shared by their nodes; a
 *   Model has at most one (the first connected).
 *
 * RESTRICTIONS
 *   Animated light and camera properties are not read; decay, shadows,
 *   area light shapes, film gates and the other camera properties are
 *   ignored.
 */
#include "formats/fbx/fbx_attrs.h"

#include "formats/fbx/fbx_objects.h"
#include "formats/fbx/fbx_props.h"

#include <math.h>
#include <string.h>

#define RKI_FBX_DEG (3.14159265358979323846 / 180.0)

static bool rki_fbx_is_attr(const rki_fbx_object *o, const char *cls)
{
	return strcmp(o->element, "NodeAttribute") == 0 && strcmp(o->sub_class, cls) == 0;
}

/* Unit quaternion of `deg` degrees about axis 0 (X) or 1 (Y). */
static rk_quat rki_fbx_turn(int axis, double deg)
{
	double h = 0.5 * deg * RKI_FBX_DEG, s = sin(h);
	return axis == 0 ? (rk_quat){ s, 0.0, 0.0, cos(h) } : (rk_quat){ 0.0, s, 0.0, cos(h) };
}

static double rki_fbx_finite(double v, double def)
{
	return isfinite(v) ? v : def;
}

static void rki_fbx_light(const rki_fbx_object *o, rk_light *l)
{
	int64_t type = rki_fbx_obj_i64(o, "LightType", 0);
	l->type = type == 1 ? RK_LIGHT_DIRECTIONAL : type == 2 ? RK_LIGHT_SPOT : (type == 3 || type == 4) ? RK_LIGHT_AREA : RK_LIGHT_POINT;
	rk_vec3 c = rki_fbx_obj_vec3(o, "Color", (rk_vec3){ 1.0, 1.0, 1.0 });
	l->color = (rk_vec3){ rki_fbx_finite(c.x, 1.0), rki_fbx_finite(c.y, 1.0), rki_fbx_finite(c.z, 1.0) };
	l->intensity = rki_fbx_finite(rki_fbx_obj_f64(o, "Intensity", 100.0), 100.0) / 100.0;
	if (rki_fbx_obj_i64(o, "EnableFarAttenuation", 0)) {
		double r = rki_fbx_obj_f64(o, "FarAttenuationEnd", 0.0);
		l->range = r > 0.0 && isfinite(r) ? r : 0.0;
	}
	double inner = rki_fbx_finite(rki_fbx_obj_f64(o, "InnerAngle", 0.0), 0.0);
	double outer = rki_fbx_finite(rki_fbx_obj_f64(o, "OuterAngle", 45.0), 45.0);
	if (outer < 0.0) outer = 0.0;
	if (outer > 180.0) outer = 180.0;
	if (inner < 0.0) inner = 0.0;
	if (inner > outer) inner = outer;
	l->inner_cone_angle = 0.5 * inner * RKI_FBX_DEG;
	l->outer_cone_angle = 0.5 * outer * RKI_FBX_DEG;
	l->to_node = rki_fbx_turn(0, -90.0);
}

static void rki_fbx_camera(const rki_fbx_object *o, rk_camera *c)
{
	c->projection = rki_fbx_obj_i64(o, "CameraProjectionType", 0) == 1 ? RK_PROJECTION_ORTHOGRAPHIC : RK_PROJECTION_PERSPECTIVE;
	double aw = rki_fbx_obj_f64(o, "AspectWidth", 0.0), ah = rki_fbx_obj_f64(o, "AspectHeight", 0.0);
	c->aspect_ratio = aw > 0.0 && ah > 0.0 && isfinite(aw / ah) ? aw / ah : 0.0;
	double fov = rki_fbx_obj_f64(o, "FieldOfView", 40.0);
	double yfov;
	switch (rki_fbx_obj_i64(o, "ApertureMode", 2)) {
	case 0: yfov = rki_fbx_obj_f64(o, "FieldOfViewY", fov) * RKI_FBX_DEG; break;
	case 1: {
		double a = c->aspect_ratio > 0.0 ? c->aspect_ratio : 1.0;
		yfov = 2.0 * atan(tan(0.5 * fov * RKI_FBX_DEG) / a);
		break;
	}
	case 3: {
		double film = rki_fbx_obj_f64(o, "FilmHeight", 0.612) * 25.4, focal = rki_fbx_obj_f64(o, "FocalLength", 35.0);
		yfov = focal > 0.0 ? 2.0 * atan(0.5 * film / focal) : fov * RKI_FBX_DEG;
		break;
	}
	default: yfov = fov * RKI_FBX_DEG; break;
	}
	c->yfov = yfov > 0.0 && yfov < 3.14159 && isfinite(yfov) ? yfov : 40.0 * RKI_FBX_DEG;
	c->znear = rki_fbx_finite(rki_fbx_obj_f64(o, "NearPlane", 10.0), 10.0);
	c->zfar = rki_fbx_finite(rki_fbx_obj_f64(o, "FarPlane", 4000.0), 4000.0);
	if (!(c->znear > 0.0)) c->znear = 0.0;
	if (!(c->zfar > c->znear)) c->zfar = 0.0;
	double zoom = rki_fbx_finite(rki_fbx_obj_f64(o, "OrthoZoom", 1.0), 1.0);
	c->ymag = zoom > 0.0 ? zoom : 1.0;
	c->xmag = c->ymag * (c->aspect_ratio > 0.0 ? c->aspect_ratio : 1.0);
	c->to_node = rki_fbx_turn(1, -90.0);
}

bool rki_fbx_build_attributes(rki_fbx_ctx *ctx)
{
	rk_scene *s = ctx->sc->scene;
	size_t nl = 0, nc = 0;
	for (size_t i = 0; i < ctx->object_count; i++) {
		if (rki_fbx_is_attr(&ctx->objects[i], "Light")) nl++;
		else if (rki_fbx_is_attr(&ctx->objects[i], "Camera")) nc++;
	}
	if (!nl && !nc) return true;
	rk_light *lights = (rk_light *)rki_arena_array(ctx->sc->arena, nl ? nl : 1, sizeof(rk_light));
	rk_camera *cams = (rk_camera *)rki_arena_array(ctx->sc->arena, nc ? nc : 1, sizeof(rk_camera));
	if (!lights || !cams) return rki_fbx_oom(ctx);
	for (size_t i = 0; i < ctx->object_count; i++) {
		const rki_fbx_object *o = &ctx->objects[i];
		bool light = rki_fbx_is_attr(o, "Light");
		if (!light && !rki_fbx_is_attr(o, "Camera")) continue;
		rk_light *l = NULL;
		rk_camera *c = NULL;
		if (light) {
			l = &lights[s->lights.count];
			l->index = (uint32_t)s->lights.count++;
			l->name = o->name ? o->name : "";
			rki_fbx_light(o, l);
		} else {
			c = &cams[s->cameras.count];
			c->index = (uint32_t)s->cameras.count++;
			c->name = o->name ? o->name : "";
			rki_fbx_camera(o, c);
		}
		for (uint32_t k = 0; k < o->parents_count; k++) {
			const rki_fbx_conn *cn = &ctx->conns[o->parents_begin + k];
			if (cn->prop || cn->other == RKI_FBX_ROOT_OBJECT || !rki_fbx_is_model(&ctx->objects[cn->other])) continue;
			rk_node *nd = (rk_node *)ctx->objects[cn->other].out;
			if (!nd) continue;
			if (l && !nd->light) nd->light = l;
			if (c && !nd->camera) nd->camera = c;
		}
	}
	s->lights.data = lights;
	s->cameras.data = cams;
	return true;
}
