/* src/export/fbx/fbx_write.c - FBX writer orchestrator (include/rigkit/export.h,
 * FBX WRITER; docs/fbx.md "## Writer"): builds the element tree of the whole
 * scene, then encodes it (fbx_write_dom.c) and writes it atomically. */
#include "export/fbx/fbx_write_internal.h"

#include <libdeflate.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const unsigned char rki_fw_file_id[16] = {
	0x28, 0xb3, 0x2a, 0xeb, 0xb6, 0x24, 0xcc, 0xc2, 0xbf, 0xc8, 0xb0, 0x2a, 0xa9, 0x2b, 0xfc, 0xf1
};
#define RKI_FW_CREATION_TIME "1970-01-01 10:00:00:000"

static int64_t rki_fw_id(rki_fw *w) { return w->next_id++; }

static bool rki_fw_is_identity(rk_mat4 m)
{
	return rk_mat4_max_diff(m, rk_mat4_identity()) == 0.0;
}

static void rki_fw_matrix(rki_fw *w, rki_fw_elem *parent, const char *name, rk_mat4 m)
{
	double *d = rki_fw_child_f64s(w, parent, name, 16);
	if (d) memcpy(d, m.m, sizeof(double) * 16);
}

/* ---- header, settings, documents ----------------------------------------- */

static void rki_fw_header(rki_fw *w, const char *creator)
{
	rki_fw_elem *h = rki_fw_add(w, NULL, "FBXHeaderExtension");
	rki_fw_child_i32(w, h, "FBXHeaderVersion", 1003);
	rki_fw_child_i32(w, h, "FBXVersion", (int32_t)w->version);
	rki_fw_child_i32(w, h, "EncryptionType", 0);
	rki_fw_elem *ts = rki_fw_add(w, h, "CreationTimeStamp");
	rki_fw_child_i32(w, ts, "Version", 1000);
	rki_fw_child_i32(w, ts, "Year", 1970);
	rki_fw_child_i32(w, ts, "Month", 1);
	rki_fw_child_i32(w, ts, "Day", 1);
	rki_fw_child_i32(w, ts, "Hour", 10);
	rki_fw_child_i32(w, ts, "Minute", 0);
	rki_fw_child_i32(w, ts, "Second", 0);
	rki_fw_child_i32(w, ts, "Millisecond", 0);
	rki_fw_child_str(w, h, "Creator", creator);
	rki_fw_elem *si = rki_fw_add(w, h, "SceneInfo");
	rki_fw_name(w, si, "GlobalInfo", "SceneInfo");
	rki_fw_str(w, si, "UserData");
	rki_fw_child_str(w, si, "Type", "UserData");
	rki_fw_child_i32(w, si, "Version", 100);
	rki_fw_elem *md = rki_fw_add(w, si, "MetaData");
	rki_fw_child_i32(w, md, "Version", 100);
	static const char *const meta[] = { "Title", "Subject", "Author", "Keywords", "Revision", "Comment" };
	for (size_t i = 0; i < 6; i++) rki_fw_child_str(w, md, meta[i], "");
	rki_fw_elem *p70 = rki_fw_add(w, si, "Properties70");
	rki_fw_str(w, rki_fw_p(w, p70, "DocumentUrl", "KString", "Url", ""), "");
	rki_fw_str(w, rki_fw_p(w, p70, "SrcDocumentUrl", "KString", "Url", ""), "");
	rki_fw_str(w, rki_fw_p(w, p70, "Original|ApplicationName", "KString", "", ""), "rigkit");
	rki_fw_str(w, rki_fw_p(w, p70, "Original|ApplicationVersion", "KString", "", ""), RK_VERSION_STRING);

	if (!w->o.ascii) rki_fw_raw(w, rki_fw_add(w, NULL, "FileId"), rki_fw_file_id, sizeof(rki_fw_file_id));
	rki_fw_child_str(w, NULL, "CreationTime", RKI_FW_CREATION_TIME);
	rki_fw_child_str(w, NULL, "Creator", creator);
}

/* FBX axis index and sign of an rk_axis. */
static void rki_fw_axis(rk_axis a, int32_t *index, int32_t *sign)
{
	int k = (int)a - (int)RK_AXIS_POSITIVE_X;
	*index = k / 2;
	*sign = k % 2 ? -1 : 1;
}

/* TimeMode of a frame rate (14 = custom). */
static int32_t rki_fw_time_mode(double fps)
{
	static const struct { double fps; int32_t mode; } modes[] = {
		{ 120.0, 1 }, { 100.0, 2 }, { 60.0, 3 }, { 50.0, 4 }, { 48.0, 5 }, { 30.0, 6 }, { 30000.0 / 1001.0, 9 },
		{ 25.0, 10 }, { 24.0, 11 }, { 1000.0, 12 }, { 24000.0 / 1001.0, 13 }, { 96.0, 15 }, { 72.0, 16 },
		{ 60000.0 / 1001.0, 17 }, { 120000.0 / 1001.0, 18 },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (fabs(fps - modes[i].fps) < 1e-9 * fps) return modes[i].mode;
	return 14;
}

static void rki_fw_settings(rki_fw *w)
{
	const rk_scene_settings *st = &w->scene->settings;
	rk_axes ax = rk_axes_valid(st->axes) ? st->axes : RK_AXES_RIGHT_HANDED_Y_UP;
	rk_axes oax = rk_axes_valid(st->original_axes) ? st->original_axes : ax;
	double unit = st->unit_meters > 0.0 && isfinite(st->unit_meters) ? st->unit_meters : 0.01;
	double ounit = st->original_unit_meters > 0.0 && isfinite(st->original_unit_meters) ? st->original_unit_meters : unit;
	double fps = st->frame_rate > 0.0 && isfinite(st->frame_rate) ? st->frame_rate : 30.0;
	rki_fw_elem *gs = rki_fw_add(w, NULL, "GlobalSettings");
	rki_fw_child_i32(w, gs, "Version", 1000);
	rki_fw_elem *p = rki_fw_add(w, gs, "Properties70");
	int32_t i, s;
	rki_fw_axis(ax.up, &i, &s);
	rki_fw_p_int(w, p, "UpAxis", i);
	rki_fw_p_int(w, p, "UpAxisSign", s);
	rki_fw_axis(ax.front, &i, &s);
	rki_fw_p_int(w, p, "FrontAxis", i);
	rki_fw_p_int(w, p, "FrontAxisSign", s);
	rki_fw_axis(ax.right, &i, &s);
	rki_fw_p_int(w, p, "CoordAxis", i);
	rki_fw_p_int(w, p, "CoordAxisSign", s);
	rki_fw_axis(oax.up, &i, &s);
	rki_fw_p_int(w, p, "OriginalUpAxis", i);
	rki_fw_p_int(w, p, "OriginalUpAxisSign", s);
	rki_fw_p_double(w, p, "UnitScaleFactor", unit * 100.0);
	rki_fw_p_double(w, p, "OriginalUnitScaleFactor", ounit * 100.0);
	rki_fw_p_vec3(w, p, "AmbientColor", "ColorRGB", "Color", "", (rk_vec3){ 0, 0, 0 });
	rki_fw_p_string(w, p, "DefaultCamera", "Producer Perspective");
	rki_fw_p_enum(w, p, "TimeMode", rki_fw_time_mode(fps));
	rki_fw_p_enum(w, p, "TimeProtocol", 2);
	rki_fw_p_enum(w, p, "SnapOnFrameMode", 0);
	int64_t t0 = 0, t1 = rki_fw_ticks(1.0);
	if (w->scene->clips.count && !w->o.no_animation) {
		t0 = rki_fw_ticks(w->scene->clips.data[0].time_begin);
		t1 = rki_fw_ticks(w->scene->clips.data[0].time_end);
	}
	rki_fw_p_time(w, p, "TimeSpanStart", t0);
	rki_fw_p_time(w, p, "TimeSpanStop", t1);
	rki_fw_p_double(w, p, "CustomFrameRate", fps);
}

static void rki_fw_documents(rki_fw *w)
{
	rki_fw_elem *d = rki_fw_add(w, NULL, "Documents");
	rki_fw_child_i32(w, d, "Count", 1);
	rki_fw_elem *doc = rki_fw_add(w, d, "Document");
	rki_fw_i64(w, doc, rki_fw_id(w));
	rki_fw_str(w, doc, "Scene");
	rki_fw_str(w, doc, "Scene");
	rki_fw_elem *p = rki_fw_add(w, doc, "Properties70");
	rki_fw_p(w, p, "SourceObject", "object", "", "");
	const char *active = "";
	if (w->scene->clips.count && !w->o.no_animation && w->scene->clips.data[0].name) active = w->scene->clips.data[0].name;
	rki_fw_p_string(w, p, "ActiveAnimStackName", active);
	rki_fw_child_i64(w, doc, "RootNode", 0);
	rki_fw_add(w, NULL, "References");
}

static void rki_fw_definitions(rki_fw *w, rki_fw_elem *defs)
{
	static const char *const names[RKI_FW_DEF_COUNT] = {
		"Model", "NodeAttribute", "Geometry", "Material", "Texture", "Video", "Deformer", "Pose",
		"AnimationStack", "AnimationLayer", "AnimationCurveNode", "AnimationCurve"
	};
	size_t total = 1, types = 1;
	for (size_t k = 0; k < RKI_FW_DEF_COUNT; k++) {
		total += w->def_counts[k];
		types += w->def_counts[k] > 0;
	}
	(void)types;
	rki_fw_child_i32(w, defs, "Version", 100);
	rki_fw_child_i32(w, defs, "Count", (int32_t)(total > INT32_MAX ? INT32_MAX : total));
	rki_fw_elem *g = rki_fw_add(w, defs, "ObjectType");
	rki_fw_str(w, g, "GlobalSettings");
	rki_fw_child_i32(w, g, "Count", 1);
	for (size_t k = 0; k < RKI_FW_DEF_COUNT; k++) {
		if (!w->def_counts[k]) continue;
		rki_fw_elem *t = rki_fw_add(w, defs, "ObjectType");
		rki_fw_str(w, t, names[k]);
		rki_fw_child_i32(w, t, "Count", (int32_t)(w->def_counts[k] > INT32_MAX ? INT32_MAX : w->def_counts[k]));
	}
}

/* ---- models ------------------------------------------------------------ */

static rki_fw_elem *rki_fw_object(rki_fw *w, const char *element, int64_t id, const char *name, const char *klass,
	const char *sub, int def)
{
	rki_fw_elem *e = rki_fw_add(w, w->objects, element);
	rki_fw_i64(w, e, id);
	rki_fw_name(w, e, name, klass);
	rki_fw_str(w, e, sub);
	w->def_counts[def]++;
	return e;
}

static void rki_fw_model_props(rki_fw *w, rki_fw_elem *p70, const rk_transform_props *tp, bool visible,
	const char *uv_set)
{
	rki_fw_p_bool(w, p70, "RotationActive", tp->rotation_active);
	int32_t inherit = tp->inherit_mode == RK_INHERIT_COMPONENTWISE_SCALE ? 0
		: tp->inherit_mode == RK_INHERIT_IGNORE_PARENT_SCALE ? 2 : 1;
	rki_fw_p_enum(w, p70, "InheritType", inherit);
	rki_fw_p_enum(w, p70, "RotationOrder", (int32_t)tp->rotation_order);
	rki_fw_p_vec3(w, p70, "RotationOffset", "Vector3D", "Vector", "", tp->rotation_offset);
	rki_fw_p_vec3(w, p70, "RotationPivot", "Vector3D", "Vector", "", tp->rotation_pivot);
	rki_fw_p_vec3(w, p70, "ScalingOffset", "Vector3D", "Vector", "", tp->scaling_offset);
	rki_fw_p_vec3(w, p70, "ScalingPivot", "Vector3D", "Vector", "", tp->scaling_pivot);
	rki_fw_p_vec3(w, p70, "PreRotation", "Vector3D", "Vector", "", tp->pre_rotation);
	rki_fw_p_vec3(w, p70, "PostRotation", "Vector3D", "Vector", "", tp->post_rotation);
	rki_fw_p_vec3(w, p70, "GeometricTranslation", "Vector3D", "Vector", "", tp->geometric_translation);
	rki_fw_p_vec3(w, p70, "GeometricRotation", "Vector3D", "Vector", "", tp->geometric_rotation);
	rki_fw_p_vec3(w, p70, "GeometricScaling", "Vector3D", "Vector", "", tp->geometric_scaling);
	rki_fw_p_int(w, p70, "DefaultAttributeIndex", 0);
	rki_fw_p_vec3(w, p70, "Lcl Translation", "Lcl Translation", "", "A", tp->translation);
	rki_fw_p_vec3(w, p70, "Lcl Rotation", "Lcl Rotation", "", "A", tp->rotation);
	rki_fw_p_vec3(w, p70, "Lcl Scaling", "Lcl Scaling", "", "A", tp->scaling);
	rki_fw_f64(w, rki_fw_p(w, p70, "Visibility", "Visibility", "", "A"), visible ? 1.0 : 0.0);
	if (uv_set && uv_set[0]) rki_fw_str(w, rki_fw_p(w, p70, "currentUVSet", "KString", "", "U"), uv_set);
}

/* The FBX properties a node is written with; *fbx = its own were kept. */
static rk_transform_props rki_fw_node_props(rki_fw *w, const rk_node *n, bool *fbx, size_t *adjusted)
{
	rk_transform_props tp;
	bool adjust = !rk_adjust_transform_is_identity(&n->adjust);
	if (n->has_fbx_props && !adjust) {
		*fbx = true;
		return n->props;
	}
	*fbx = false;
	tp = rk_transform_props_default();
	rk_trs t = adjust ? rk_mat4_decompose(n->node_to_parent) : n->local;
	if (adjust) (*adjusted)++;
	tp.translation = t.translation;
	tp.rotation = rk_quat_to_euler_deg(rk_quat_normalize(t.rotation), RK_ROTATION_XYZ);
	tp.scaling = t.scale;
	tp.rotation_active = true;
	if (n->has_fbx_props) {
		/* adjusted FBX node: the geometric transform stays (it is not part of node_to_parent) */
		tp.geometric_translation = n->props.geometric_translation;
		tp.geometric_rotation = n->props.geometric_rotation;
		tp.geometric_scaling = n->props.geometric_scaling;
		tp.inherit_mode = n->props.inherit_mode;
	}
	(void)w;
	return tp;
}

static const char *rki_fw_model_type(const rk_node *n)
{
	if (n->mesh) return "Mesh";
	if (n->kind == RK_NODE_JOINT) return "LimbNode";
	return "Null";
}

static bool rki_fw_models(rki_fw *w, int64_t *root_parent)
{
	const rk_scene *s = w->scene;
	size_t adjusted = 0, others = 0;
	*root_parent = 0;
	rk_mat4 rootm = s->root ? s->root->node_to_parent : rk_mat4_identity();
	if (!rki_fw_is_identity(rootm)) {
		int64_t id = rki_fw_id(w);
		rk_trs t = rk_mat4_decompose(rootm);
		rk_mat4 back = rk_mat4_from_trs(t);
		if (rk_mat4_max_diff(back, rootm) > 1e-9)
			rki_fw_warn(w, "the load conversion of the scene root shears: written as its nearest translation, rotation and scale");
		rk_transform_props tp = rk_transform_props_default();
		tp.translation = t.translation;
		tp.rotation = rk_quat_to_euler_deg(t.rotation, RK_ROTATION_XYZ);
		tp.scaling = t.scale;
		tp.rotation_active = true;
		rki_fw_elem *m = rki_fw_object(w, "Model", id, "RootNode", "Model", "Null", RKI_FW_DEF_MODEL);
		rki_fw_child_i32(w, m, "Version", 232);
		rki_fw_model_props(w, rki_fw_add(w, m, "Properties70"), &tp, true, NULL);
		rki_fw_child_str(w, m, "Culling", "CullingOff");
		int64_t aid = rki_fw_id(w);
		rki_fw_elem *a = rki_fw_object(w, "NodeAttribute", aid, "", "NodeAttribute", "Null", RKI_FW_DEF_ATTRIBUTE);
		rki_fw_child_str(w, a, "TypeFlags", "Null");
		rki_fw_connect(w, aid, id);
		rki_fw_connect(w, id, 0);
		*root_parent = id;
		w->st.model_count++;
	}
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->kind == RK_NODE_ROOT || !n->parent) {
			w->model_id[i] = 0;
			continue;
		}
		bool fbx;
		rk_transform_props tp = rki_fw_node_props(w, n, &fbx, &adjusted);
		w->node_fbx[i] = fbx;
		rk_rotation_order ord = tp.rotation_active ? tp.rotation_order : RK_ROTATION_XYZ;
		if (ord == RK_ROTATION_SPHERIC_XYZ) ord = RK_ROTATION_XYZ;
		w->node_order[i] = ord;
		if (n->kind == RK_NODE_CAMERA || n->kind == RK_NODE_LIGHT || n->kind == RK_NODE_OTHER) others++;
		int64_t id = rki_fw_id(w);
		w->model_id[i] = id;
		const char *type = rki_fw_model_type(n);
		rki_fw_elem *m = rki_fw_object(w, "Model", id, n->name, "Model", type, RKI_FW_DEF_MODEL);
		rki_fw_child_i32(w, m, "Version", 232);
		rki_fw_model_props(w, rki_fw_add(w, m, "Properties70"), &tp, n->visible, n->default_uv_set);
		rki_fw_bool(w, rki_fw_add(w, m, "Shading"), true);
		rki_fw_child_str(w, m, "Culling", "CullingOff");
		w->st.model_count++;
		if (!n->mesh) {
			bool limb = !strcmp(type, "LimbNode");
			int64_t aid = rki_fw_id(w);
			rki_fw_elem *a = rki_fw_object(w, "NodeAttribute", aid, n->name, "NodeAttribute", limb ? "LimbNode" : "Null",
				RKI_FW_DEF_ATTRIBUTE);
			rki_fw_elem *ap = rki_fw_add(w, a, "Properties70");
			if (limb) rki_fw_p_double(w, ap, "Size", 1.0);
			rki_fw_child_str(w, a, "TypeFlags", limb ? "Skeleton" : "Null");
			rki_fw_connect(w, aid, id);
		}
		int64_t parent = n->parent->kind == RK_NODE_ROOT || !n->parent->parent ? *root_parent : w->model_id[n->parent->index];
		rki_fw_connect(w, id, parent);
	}
	if (adjusted)
		rki_fw_warn(w, "%zu nodes carry a rigkit adjust transform (load option): written as their static local "
			"transform; their animation is written without the adjustment", adjusted);
	if (others) rki_fw_warn(w, "%zu cameras, lights or other nodes are written as Null nodes (their attributes are not kept)", others);
	return !w->failed;
}

/* ---- geometry ------------------------------------------------------------ */

static void rki_fw_layer_header(rki_fw *w, rki_fw_elem *le, int version, const char *name, const char *mapping,
	const char *reference)
{
	rki_fw_child_i32(w, le, "Version", version);
	rki_fw_child_str(w, le, "Name", name ? name : "");
	rki_fw_child_str(w, le, "MappingInformationType", mapping);
	rki_fw_child_str(w, le, "ReferenceInformationType", reference);
}

/* Value table + per-written-corner indices of an attribute. */
/* values: the table as doubles, or values_f as floats (dims per value). */
/* An attribute table with values in either precision. */
#define RKI_FW_HAS(a) ((a).values_f64 != NULL || (a).values_f32 != NULL)

static bool rki_fw_indexed(rki_fw *w, rki_fw_elem *le, const char *vname, const char *iname, const double *values,
	const float *values_f, size_t value_count, size_t dims, const uint32_t *indices, const uint32_t *corner_of, size_t corners)
{
	double *v = rki_fw_child_f64s(w, le, vname, value_count * dims);
	int32_t *ix = rki_fw_child_i32s(w, le, iname, corners);
	if (!v || !ix) return false;
	if (values) memcpy(v, values, value_count * dims * sizeof(double));
	else for (size_t i = 0; i < value_count * dims; i++) v[i] = values_f[i];
	for (size_t c = 0; c < corners; c++) {
		uint32_t k = indices[corner_of[c]];
		ix[c] = (int32_t)(k < value_count ? k : 0);
	}
	return true;
}

static void rki_fw_layer_ref(rki_fw *w, rki_fw_elem *layer, const char *type, int index)
{
	rki_fw_elem *le = rki_fw_add(w, layer, "LayerElement");
	rki_fw_child_str(w, le, "Type", type);
	rki_fw_child_i32(w, le, "TypedIndex", index);
}

static bool rki_fw_geometry(rki_fw *w, const rk_mesh *m)
{
	/* corners in written order: faces with at least one corner */
	size_t corners = 0, faces = 0, dropped = 0;
	for (size_t f = 0; f < m->face_count; f++) {
		const rk_face *fc = &m->faces[f];
		if (fc->index_count == 0 || fc->index_begin > m->index_count || fc->index_count > m->index_count - fc->index_begin) {
			dropped++;
			continue;
		}
		corners += fc->index_count;
		faces++;
	}
	if (corners > INT32_MAX || m->vertex_count > INT32_MAX / 3)
		return rki_fw_fail(w, RK_ERROR_UNSUPPORTED, "mesh '%s' has %zu corners and %zu vertices: more than FBX's 32-bit "
			"indices hold", m->name ? m->name : "", corners, m->vertex_count);
	if (dropped) rki_fw_warn(w, "mesh '%s': %zu faces without corners (or out of range) are not written", m->name ? m->name : "", dropped);
	uint32_t *corner_of = (uint32_t *)rki_fw_array(w, corners ? corners : 1, sizeof(uint32_t));
	uint32_t *face_of = (uint32_t *)rki_fw_array(w, faces ? faces : 1, sizeof(uint32_t));
	if (!corner_of || !face_of) return false;
	size_t at = 0, fi = 0;
	for (size_t f = 0; f < m->face_count; f++) {
		const rk_face *fc = &m->faces[f];
		if (fc->index_count == 0 || fc->index_begin > m->index_count || fc->index_count > m->index_count - fc->index_begin) continue;
		face_of[fi++] = (uint32_t)f;
		for (uint32_t k = 0; k < fc->index_count; k++) corner_of[at++] = fc->index_begin + k;
	}

	int64_t id = w->geom_id[m->index];
	rki_fw_elem *g = rki_fw_object(w, "Geometry", id, m->name, "Geometry", "Mesh", RKI_FW_DEF_GEOMETRY);
	rki_fw_add(w, g, "Properties70");
	rki_fw_child_i32(w, g, "GeometryVersion", 124);
	double *v = rki_fw_child_f64s(w, g, "Vertices", m->vertex_count * 3);
	int32_t *pvi = rki_fw_child_i32s(w, g, "PolygonVertexIndex", corners);
	if (!v || !pvi) return false;
	for (size_t i = 0; i < m->vertex_count; i++) {
		rk_vec3 p = rk_mesh_position(m, i);
		v[i * 3] = p.x;
		v[i * 3 + 1] = p.y;
		v[i * 3 + 2] = p.z;
	}
	at = 0;
	for (size_t f = 0; f < faces; f++) {
		const rk_face *fc = &m->faces[face_of[f]];
		for (uint32_t k = 0; k < fc->index_count; k++, at++) {
			uint32_t vi = m->vertex_indices[fc->index_begin + k];
			if (vi >= m->vertex_count) vi = 0;
			pvi[at] = k + 1 == fc->index_count ? -(int32_t)vi - 1 : (int32_t)vi;
		}
	}
	rki_fw_elem *layer0 = NULL;
	size_t layers = m->uv_sets.count > m->colors.count ? m->uv_sets.count : m->colors.count;
	if (layers < 1) layers = 1;
	rki_fw_elem **layer = (rki_fw_elem **)rki_fw_array(w, layers, sizeof(rki_fw_elem *));
	if (!layer) return false;

	bool has_normals = m->normals.exists && RKI_FW_HAS(m->normals) && m->normals.indices;
	if (has_normals) {
		rki_fw_elem *le = rki_fw_i32(w, rki_fw_add(w, g, "LayerElementNormal"), 0);
		rki_fw_layer_header(w, le, 102, "", "ByPolygonVertex", "Direct");
		double *nv = rki_fw_child_f64s(w, le, "Normals", corners * 3);
		if (!nv) return false;
		for (size_t c = 0; c < corners; c++) {
			uint32_t k = m->normals.indices[corner_of[c]];
			rk_vec3 n = k < m->normals.value_count ? rk_attrib_vec3_value(&m->normals, k) : (rk_vec3){ 0, 0, 0 };
			nv[c * 3] = n.x;
			nv[c * 3 + 1] = n.y;
			nv[c * 3 + 2] = n.z;
		}
	}
	for (size_t u = 0; u < m->uv_sets.count; u++) {
		const rk_uv_set *us = &m->uv_sets.data[u];
		if (!us->uv.exists || !RKI_FW_HAS(us->uv) || !us->uv.indices) continue;
		rki_fw_elem *le = rki_fw_i32(w, rki_fw_add(w, g, "LayerElementUV"), (int32_t)u);
		rki_fw_layer_header(w, le, 101, us->name, "ByPolygonVertex", "IndexToDirect");
		if (!rki_fw_indexed(w, le, "UV", "UVIndex", (const double *)us->uv.values_f64, us->uv.values_f32, us->uv.value_count, 2, us->uv.indices,
				corner_of, corners))
			return false;
	}
	/* tangents and binormals of the first UV set (the set FBX readers attach them to) */
	const rk_uv_set *us0 = m->uv_sets.count ? &m->uv_sets.data[0] : NULL;
	bool has_tan = us0 && us0->tangent.exists && RKI_FW_HAS(us0->tangent) && us0->tangent.indices;
	bool has_bin = us0 && us0->bitangent.exists && RKI_FW_HAS(us0->bitangent) && us0->bitangent.indices;
	if (has_tan) {
		rki_fw_elem *le = rki_fw_i32(w, rki_fw_add(w, g, "LayerElementTangent"), 0);
		rki_fw_layer_header(w, le, 102, us0->name, "ByPolygonVertex", "IndexToDirect");
		if (!rki_fw_indexed(w, le, "Tangents", "TangentsIndex", (const double *)us0->tangent.values_f64, us0->tangent.values_f32,
				us0->tangent.value_count,
				3, us0->tangent.indices, corner_of, corners))
			return false;
	}
	if (has_bin) {
		rki_fw_elem *le = rki_fw_i32(w, rki_fw_add(w, g, "LayerElementBinormal"), 0);
		rki_fw_layer_header(w, le, 102, us0->name, "ByPolygonVertex", "IndexToDirect");
		if (!rki_fw_indexed(w, le, "Binormals", "BinormalsIndex", (const double *)us0->bitangent.values_f64,
				us0->bitangent.values_f32, us0->bitangent.value_count, 3, us0->bitangent.indices, corner_of, corners))
			return false;
	}
	for (size_t k = 0; k < m->colors.count; k++) {
		const rk_attrib_vec4 *cs = &m->colors.data[k];
		if (!cs->exists || !RKI_FW_HAS(*cs) || !cs->indices) continue;
		rki_fw_elem *le = rki_fw_i32(w, rki_fw_add(w, g, "LayerElementColor"), (int32_t)k);
		rki_fw_layer_header(w, le, 101, "", "ByPolygonVertex", "IndexToDirect");
		if (!rki_fw_indexed(w, le, "Colors", "ColorIndex", (const double *)cs->values_f64, cs->values_f32, cs->value_count, 4, cs->indices,
				corner_of, corners))
			return false;
	}
	{
		rki_fw_elem *le = rki_fw_i32(w, rki_fw_add(w, g, "LayerElementMaterial"), 0);
		if (m->face_material) {
			rki_fw_layer_header(w, le, 101, "", "ByPolygon", "IndexToDirect");
			int32_t *mi = rki_fw_child_i32s(w, le, "Materials", faces);
			if (!mi) return false;
			for (size_t f = 0; f < faces; f++) {
				uint32_t s = m->face_material[face_of[f]];
				mi[f] = s > INT32_MAX ? -1 : (int32_t)s;
			}
		} else {
			rki_fw_layer_header(w, le, 101, "", "AllSame", "IndexToDirect");
			int32_t *mi = rki_fw_child_i32s(w, le, "Materials", 1);
			if (!mi) return false;
			mi[0] = 0;
		}
	}
	for (size_t l = 0; l < layers; l++) {
		layer[l] = rki_fw_i32(w, rki_fw_add(w, g, "Layer"), (int32_t)l);
		rki_fw_child_i32(w, layer[l], "Version", 100);
	}
	layer0 = layer[0];
	if (has_normals) rki_fw_layer_ref(w, layer0, "LayerElementNormal", 0);
	if (has_tan) rki_fw_layer_ref(w, layer0, "LayerElementTangent", 0);
	if (has_bin) rki_fw_layer_ref(w, layer0, "LayerElementBinormal", 0);
	rki_fw_layer_ref(w, layer0, "LayerElementMaterial", 0);
	for (size_t u = 0; u < m->uv_sets.count; u++)
		if (m->uv_sets.data[u].uv.exists && RKI_FW_HAS(m->uv_sets.data[u].uv) && m->uv_sets.data[u].uv.indices)
			rki_fw_layer_ref(w, layer[u], "LayerElementUV", (int)u);
	for (size_t k = 0; k < m->colors.count; k++)
		if (m->colors.data[k].exists && RKI_FW_HAS(m->colors.data[k]) && m->colors.data[k].indices)
			rki_fw_layer_ref(w, layer[k], "LayerElementColor", (int)k);
	w->st.geometry_count++;
	return !w->failed;
}

/* ---- blend shapes --------------------------------------------------------- */

static const double *rki_fw_static_weights(const rk_scene *s, const rk_mesh *m)
{
	for (size_t i = 0; i < s->nodes.count; i++)
		if (s->nodes.data[i].mesh == m && s->nodes.data[i].blend_weights) return s->nodes.data[i].blend_weights;
	return NULL;
}

static bool rki_fw_shape(rki_fw *w, const rk_blend_shape *bs, int64_t channel, bool bake_weights)
{
	int64_t id = rki_fw_id(w);
	rki_fw_elem *g = rki_fw_object(w, "Geometry", id, bs->name, "Geometry", "Shape", RKI_FW_DEF_GEOMETRY);
	rki_fw_child_i32(w, g, "Version", 100);
	int32_t *ix = rki_fw_child_i32s(w, g, "Indexes", bs->offset_count);
	double *v = rki_fw_child_f64s(w, g, "Vertices", bs->offset_count * 3);
	bool has_nrm = rk_blend_shape_has_normals(bs);
	double *nv = has_nrm ? rki_fw_child_f64s(w, g, "Normals", bs->offset_count * 3) : NULL;
	if (!ix || !v || (has_nrm && !nv)) return false;
	for (size_t k = 0; k < bs->offset_count; k++) {
		double f = bake_weights && bs->offset_weights ? bs->offset_weights[k] : 1.0;
		ix[k] = (int32_t)(bs->vertex_indices[k] > INT32_MAX ? 0 : bs->vertex_indices[k]);
		rk_vec3 po = rk_blend_shape_position_offset(bs, k);
		v[k * 3] = po.x * f;
		v[k * 3 + 1] = po.y * f;
		v[k * 3 + 2] = po.z * f;
		if (nv) {
			rk_vec3 no = rk_blend_shape_normal_offset(bs, k);
			nv[k * 3] = no.x * f;
			nv[k * 3 + 1] = no.y * f;
			nv[k * 3 + 2] = no.z * f;
		}
	}
	rki_fw_connect(w, id, channel);
	w->st.shape_count++;
	return !w->failed;
}

static bool rki_fw_blend(rki_fw *w, const rk_mesh *m)
{
	if (!m->blend_channels.count) return true;
	int64_t bid = rki_fw_id(w);
	rki_fw_elem *b = rki_fw_object(w, "Deformer", bid, m->name, "Deformer", "BlendShape", RKI_FW_DEF_DEFORMER);
	rki_fw_child_i32(w, b, "Version", 100);
	rki_fw_connect(w, bid, w->geom_id[m->index]);
	const double *stat = rki_fw_static_weights(w->scene, m);
	int64_t *ids = (int64_t *)rki_fw_array(w, m->blend_channels.count, sizeof(int64_t));
	if (!ids) return false;
	w->channel_id[m->index] = ids;
	for (size_t c = 0; c < m->blend_channels.count; c++) {
		const rk_blend_channel *ch = &m->blend_channels.data[c];
		int64_t cid = rki_fw_id(w);
		ids[c] = cid;
		double pct = (stat ? stat[c] : ch->default_weight) * 100.0;
		rki_fw_elem *e = rki_fw_object(w, "Deformer", cid, ch->name, "SubDeformer", "BlendShapeChannel", RKI_FW_DEF_DEFORMER);
		rki_fw_child_i32(w, e, "Version", 100);
		rki_fw_child_f64(w, e, "DeformPercent", pct);
		rki_fw_elem *p70 = rki_fw_add(w, e, "Properties70");
		rki_fw_p_number(w, p70, "DeformPercent", pct, true);
		bool per_offset = ch->target_count == 1 && ch->targets[0].offset_weights && ch->targets[0].offset_count > 1;
		bool bake = false;
		if (!per_offset)
			for (size_t t = 0; t < ch->target_count; t++) bake |= ch->targets[t].offset_weights != NULL;
		if (bake) rki_fw_warn(w, "blend channel '%s': per-offset weights of in-between shapes are multiplied into the offsets",
			ch->name ? ch->name : "");
		size_t nfw = per_offset ? ch->targets[0].offset_count : ch->target_count;
		double *fw = rki_fw_child_f64s(w, e, "FullWeights", nfw);
		if (!fw) return false;
		for (size_t k = 0; k < nfw; k++) {
			if (per_offset) fw[k] = ch->targets[0].offset_weights[k] * 100.0;
			else fw[k] = (ch->target_weights ? ch->target_weights[k] : (double)(k + 1) / (double)ch->target_count) * 100.0;
		}
		rki_fw_connect(w, cid, bid);
		for (size_t t = 0; t < ch->target_count; t++)
			if (!rki_fw_shape(w, &ch->targets[t], cid, bake)) return false;
	}
	return !w->failed;
}

/* ---- skins and the bind pose ------------------------------------------------ */

static const char *rki_fw_skinning_type(rk_skinning_method m)
{
	switch (m) {
	case RK_SKINNING_DUAL_QUATERNION: return "DualQuaternion";
	case RK_SKINNING_BLENDED_DQ: return "Blend";
	case RK_SKINNING_RIGID: return "Rigid";
	default: return "Linear";
	}
}

/* The mesh a skin deforms: the first node using it, else a mesh listing it. */
static const rk_mesh *rki_fw_skin_mesh(const rk_scene *s, const rk_skin_deformer *sk)
{
	for (size_t i = 0; i < s->nodes.count; i++)
		if (s->nodes.data[i].skin == sk && s->nodes.data[i].mesh) return s->nodes.data[i].mesh;
	for (size_t i = 0; i < s->meshes.count; i++)
		for (size_t k = 0; k < s->meshes.data[i].skin_count; k++)
			if (s->meshes.data[i].skins[k] == sk) return &s->meshes.data[i];
	return NULL;
}

static bool rki_fw_skin(rki_fw *w, const rk_skin_deformer *sk)
{
	const rk_scene *s = w->scene;
	const rk_mesh *m = rki_fw_skin_mesh(s, sk);
	if (!m) {
		rki_fw_warn(w, "skin '%s' deforms no mesh: not written", sk->name ? sk->name : "");
		return true;
	}
	int64_t sid = rki_fw_id(w);
	rki_fw_elem *e = rki_fw_object(w, "Deformer", sid, sk->name, "Deformer", "Skin", RKI_FW_DEF_DEFORMER);
	rki_fw_child_i32(w, e, "Version", 101);
	rki_fw_child_f64(w, e, "Link_DeformAcuracy", 50.0);
	rki_fw_child_str(w, e, "SkinningType", rki_fw_skinning_type(sk->method));
	if (sk->method == RK_SKINNING_BLENDED_DQ) {
		double *bw = rki_fw_child_f64s(w, e, "BlendWeights", sk->vertex_count);
		if (!bw) return false;
		for (size_t v = 0; v < sk->vertex_count; v++) bw[v] = sk->dq_weights ? sk->dq_weights[v] : 0.0;
	}
	rki_fw_connect(w, sid, w->geom_id[m->index]);
	/* influences per joint */
	size_t *count = (size_t *)rki_fw_array(w, sk->joint_count + 1, sizeof(size_t));
	if (!count) return false;
	for (size_t v = 0; v < sk->vertex_count; v++)
		for (uint32_t k = sk->weight_begin[v]; k < sk->weight_begin[v + 1] && k < sk->weight_count; k++)
			if (sk->weights[k].joint < sk->joint_count) count[sk->weights[k].joint]++;
	size_t unlinked = 0;
	for (size_t j = 0; j < sk->joint_count; j++) {
		const rk_skin_joint *jt = &sk->joints[j];
		int64_t cid = rki_fw_id(w);
		rki_fw_elem *c = rki_fw_object(w, "Deformer", cid, jt->node ? jt->node->name : "", "SubDeformer", "Cluster",
			RKI_FW_DEF_DEFORMER);
		rki_fw_child_i32(w, c, "Version", 100);
		rki_fw_elem *ud = rki_fw_add(w, c, "UserData");
		rki_fw_str(w, ud, "");
		rki_fw_str(w, ud, "");
		int32_t *ix = rki_fw_child_i32s(w, c, "Indexes", count[j]);
		double *wt = rki_fw_child_f64s(w, c, "Weights", count[j]);
		if (!ix || !wt) return false;
		size_t at = 0;
		for (size_t v = 0; v < sk->vertex_count && at < count[j]; v++)
			for (uint32_t k = sk->weight_begin[v]; k < sk->weight_begin[v + 1] && k < sk->weight_count; k++)
				if (sk->weights[k].joint == j) {
					ix[at] = (int32_t)v;
					wt[at] = sk->weights[k].weight;
					at++;
				}
		rki_fw_matrix(w, c, "Transform", jt->mesh_to_joint);
		rki_fw_matrix(w, c, "TransformLink", jt->joint_to_world_bind);
		rki_fw_connect(w, cid, sid);
		if (jt->node && jt->node->index < s->nodes.count && w->model_id[jt->node->index])
			rki_fw_connect(w, w->model_id[jt->node->index], cid);
		else
			unlinked++;
		w->st.cluster_count++;
	}
	if (unlinked) rki_fw_warn(w, "skin '%s': %zu joints without a node are written as clusters without a bone",
		sk->name ? sk->name : "", unlinked);
	w->st.skin_count++;
	return !w->failed;
}

static bool rki_fw_bind_pose(rki_fw *w)
{
	const rk_scene *s = w->scene;
	bool *has = (bool *)rki_fw_array(w, s->nodes.count, sizeof(bool));
	rk_mat4 *mat = (rk_mat4 *)rki_fw_array(w, s->nodes.count, sizeof(rk_mat4));
	if (!has || !mat) return false;
	size_t n = 0;
	for (size_t i = 0; i < s->nodes.count; i++)
		if (s->nodes.data[i].has_bind_pose && w->model_id[i]) {
			has[i] = true;
			mat[i] = s->nodes.data[i].bind_node_to_world;
		}
	for (size_t k = 0; k < s->skins.count; k++) {
		const rk_skin_deformer *sk = &s->skins.data[k];
		for (size_t j = 0; j < sk->joint_count; j++) {
			const rk_node *jn = sk->joints[j].node;
			if (jn && jn->index < s->nodes.count && !has[jn->index] && w->model_id[jn->index]) {
				has[jn->index] = true;
				mat[jn->index] = sk->joints[j].joint_to_world_bind;
			}
		}
		for (size_t i = 0; i < s->nodes.count; i++)
			if (s->nodes.data[i].skin == sk && !has[i] && w->model_id[i] && sk->joint_count) {
				has[i] = true;
				mat[i] = sk->joints[0].mesh_to_world_bind;
			}
	}
	for (size_t i = 0; i < s->nodes.count; i++) n += has[i];
	if (!n) return true;
	rki_fw_elem *p = rki_fw_object(w, "Pose", rki_fw_id(w), "BIND_POSES", "Pose", "BindPose", RKI_FW_DEF_POSE);
	rki_fw_child_str(w, p, "Type", "BindPose");
	rki_fw_child_i32(w, p, "Version", 100);
	rki_fw_child_i32(w, p, "NbPoseNodes", (int32_t)n);
	for (size_t i = 0; i < s->nodes.count; i++) {
		if (!has[i]) continue;
		rki_fw_elem *pn = rki_fw_add(w, p, "PoseNode");
		rki_fw_child_i64(w, pn, "Node", w->model_id[i]);
		rki_fw_matrix(w, pn, "Matrix", mat[i]);
	}
	return !w->failed;
}

/* ---- materials and textures ------------------------------------------------ */

static const char *rki_fw_texture_file(rki_fw *w, const rk_texture *t)
{
	if (t->filename && t->filename[0]) return t->filename;
	const char *ext = t->mime_type && !strcmp(t->mime_type, "image/jpeg") ? "jpg" : "png";
	const char *base = t->name && t->name[0] ? t->name : "texture";
	size_t n = strlen(base) + 8;
	char *s = (char *)rki_fw_array(w, n, 1);
	if (!s) return "";
	snprintf(s, n, "%s.%s", base, ext);
	return s;
}

static bool rki_fw_textures(rki_fw *w, int64_t *tex_id)
{
	const rk_scene *s = w->scene;
	size_t unembedded = 0;
	for (size_t i = 0; i < s->textures.count; i++) {
		const rk_texture *t = &s->textures.data[i];
		/* the UV set of the first material slot using it */
		const char *uv = "";
		for (size_t k = 0; k < s->materials.count && !uv[0]; k++) {
			const rk_material *m = &s->materials.data[k];
			const rk_texture_ref *refs[3] = { &m->base_color_texture, &m->normal_texture, &m->emissive_texture };
			for (size_t r = 0; r < 3; r++)
				if (refs[r]->texture == t && refs[r]->uv_set && refs[r]->uv_set[0]) {
					uv = refs[r]->uv_set;
					break;
				}
		}
		const char *file = rki_fw_texture_file(w, t);
		int64_t id = rki_fw_id(w);
		tex_id[i] = id;
		rki_fw_elem *e = rki_fw_object(w, "Texture", id, t->name, "Texture", "", RKI_FW_DEF_TEXTURE);
		rki_fw_child_str(w, e, "Type", "TextureVideoClip");
		rki_fw_child_i32(w, e, "Version", 202);
		rki_fw_name(w, rki_fw_add(w, e, "TextureName"), t->name, "Texture");
		rki_fw_elem *p70 = rki_fw_add(w, e, "Properties70");
		rki_fw_p_string(w, p70, "UVSet", uv[0] ? uv : "default");
		rki_fw_p_bool(w, p70, "UseMaterial", true);
		rki_fw_p_enum(w, p70, "WrapModeU", t->wrap_u == RK_WRAP_CLAMP ? 1 : 0);
		rki_fw_p_enum(w, p70, "WrapModeV", t->wrap_v == RK_WRAP_CLAMP ? 1 : 0);
		rki_fw_name(w, rki_fw_add(w, e, "Media"), t->name, "Video");
		rki_fw_child_str(w, e, "FileName", file);
		rki_fw_child_str(w, e, "RelativeFilename", file);
		rki_fw_elem *uvt = rki_fw_add(w, e, "ModelUVTranslation");
		rki_fw_f64(w, uvt, 0.0);
		rki_fw_f64(w, uvt, 0.0);
		rki_fw_elem *uvs = rki_fw_add(w, e, "ModelUVScaling");
		rki_fw_f64(w, uvs, 1.0);
		rki_fw_f64(w, uvs, 1.0);
		rki_fw_child_str(w, e, "Texture_Alpha_Source", "None");
		rki_fw_elem *crop = rki_fw_add(w, e, "Cropping");
		for (int k = 0; k < 4; k++) rki_fw_i32(w, crop, 0);
		w->st.texture_count++;

		int64_t vid = rki_fw_id(w);
		rki_fw_elem *v = rki_fw_object(w, "Video", vid, t->name, "Video", "Clip", RKI_FW_DEF_VIDEO);
		rki_fw_child_str(w, v, "Type", "Clip");
		rki_fw_elem *vp = rki_fw_add(w, v, "Properties70");
		rki_fw_str(w, rki_fw_p(w, vp, "Path", "KString", "XRefUrl", ""), file);
		rki_fw_child_i32(w, v, "UseMipMap", 0);
		rki_fw_child_str(w, v, "Filename", file);
		rki_fw_child_str(w, v, "RelativeFilename", file);
		if (t->content && t->content_size) {
			if (w->o.ascii || w->o.no_embed) unembedded++;
			else {
				rki_fw_raw(w, rki_fw_add(w, v, "Content"), t->content, t->content_size);
				w->st.embedded_texture_count++;
			}
		}
		rki_fw_connect(w, vid, id);
	}
	if (unembedded && w->o.ascii)
		rki_fw_warn(w, "%zu embedded textures are referenced by file name only (ASCII FBX does not embed them)", unembedded);
	return !w->failed;
}

static bool rki_fw_materials(rki_fw *w, const int64_t *tex_id)
{
	const rk_scene *s = w->scene;
	size_t dropped = 0;
	for (size_t i = 0; i < s->materials.count; i++) {
		const rk_material *m = &s->materials.data[i];
		int64_t id = rki_fw_id(w);
		w->material_id[i] = id;
		rki_fw_elem *e = rki_fw_object(w, "Material", id, m->name, "Material", "", RKI_FW_DEF_MATERIAL);
		rki_fw_child_i32(w, e, "Version", 102);
		const char *sm = m->shading_model && (!strcasecmp(m->shading_model, "lambert")) ? "lambert" : "phong";
		rki_fw_child_str(w, e, "ShadingModel", sm);
		rki_fw_child_i32(w, e, "MultiLayer", 0);
		rki_fw_elem *p = rki_fw_add(w, e, "Properties70");
		rki_fw_p_color(w, p, "DiffuseColor", (rk_vec3){ m->base_color.x, m->base_color.y, m->base_color.z });
		rki_fw_p_number(w, p, "DiffuseFactor", 1.0, true);
		rki_fw_p_color(w, p, "EmissiveColor", m->emissive);
		rki_fw_p_number(w, p, "EmissiveFactor", 1.0, true);
		rki_fw_p_color(w, p, "AmbientColor", (rk_vec3){ 0, 0, 0 });
		rki_fw_p_number(w, p, "TransparencyFactor", 1.0 - m->base_color.w, true);
		rki_fw_p_number(w, p, "Opacity", m->base_color.w, true);
		rki_fw_p_color(w, p, "SpecularColor", m->specular);
		rki_fw_p_number(w, p, "SpecularFactor", 1.0, true);
		rki_fw_p_number(w, p, "Shininess", m->shininess, true);
		rki_fw_p_number(w, p, "ShininessExponent", m->shininess, true);
		w->st.material_count++;
		const rk_texture_ref *refs[3] = { &m->base_color_texture, &m->normal_texture, &m->emissive_texture };
		static const char *const props[3] = { "DiffuseColor", "NormalMap", "EmissiveColor" };
		for (size_t r = 0; r < 3; r++) {
			const rk_texture *t = refs[r]->texture;
			if (!t || t->index >= s->textures.count) continue;
			rki_fw_connect_prop(w, tex_id[t->index], id, props[r]);
		}
		if (m->metallic_roughness_texture.texture) dropped++;
	}
	if (dropped) rki_fw_warn(w, "%zu metallic-roughness textures are not written (FBX Phong materials have no slot for them)", dropped);
	/* slots: node materials in order */
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (!n->mesh || !w->model_id[i]) continue;
		rk_material_ref_list slots = rk_node_material_slots(n);
		for (size_t k = 0; k < slots.count; k++) {
			const rk_material *m = slots.data[k];
			if (m && m->index < s->materials.count) rki_fw_connect(w, w->material_id[m->index], w->model_id[i]);
		}
	}
	return !w->failed;
}

/* ---- takes ---------------------------------------------------------------- */

static void rki_fw_takes(rki_fw *w)
{
	const rk_scene *s = w->scene;
	rki_fw_elem *t = rki_fw_add(w, NULL, "Takes");
	size_t n = w->o.no_animation ? 0 : s->clips.count;
	rki_fw_child_str(w, t, "Current", n && s->clips.data[0].name ? s->clips.data[0].name : "");
	for (size_t i = 0; i < n; i++) {
		const rk_anim_clip *c = &s->clips.data[i];
		rki_fw_elem *e = rki_fw_str(w, rki_fw_add(w, t, "Take"), c->name ? c->name : "");
		char file[80];
		snprintf(file, sizeof(file), "take%zu.tak", i);
		rki_fw_child_str(w, e, "FileName", file);
		int64_t a = rki_fw_ticks(c->time_begin), b = rki_fw_ticks(c->time_end);
		rki_fw_elem *lt = rki_fw_add(w, e, "LocalTime");
		rki_fw_i64(w, lt, a);
		rki_fw_i64(w, lt, b);
		rki_fw_elem *rt = rki_fw_add(w, e, "ReferenceTime");
		rki_fw_i64(w, rt, a);
		rki_fw_i64(w, rt, b);
	}
}

/* ---- the run ---------------------------------------------------------------- */

static bool rki_fw_build(rki_fw *w)
{
	const rk_scene *s = w->scene;
	char creator[64];
	snprintf(creator, sizeof(creator), "rigkit %s", RK_VERSION_STRING);
	const char *cr = w->o.creator ? w->o.creator : creator;
	rki_fw_header(w, cr);
	rki_fw_settings(w);
	rki_fw_documents(w);
	rki_fw_elem *defs = rki_fw_add(w, NULL, "Definitions");
	w->objects = rki_fw_add(w, NULL, "Objects");
	w->connections = rki_fw_add(w, NULL, "Connections");
	if (w->failed) return false;

	w->model_id = (int64_t *)rki_fw_array(w, s->nodes.count + 1, sizeof(int64_t));
	w->node_fbx = (bool *)rki_fw_array(w, s->nodes.count + 1, sizeof(bool));
	w->node_order = (rk_rotation_order *)rki_fw_array(w, s->nodes.count + 1, sizeof(rk_rotation_order));
	w->geom_id = (int64_t *)rki_fw_array(w, s->meshes.count + 1, sizeof(int64_t));
	w->channel_id = (int64_t **)rki_fw_array(w, s->meshes.count + 1, sizeof(int64_t *));
	w->material_id = (int64_t *)rki_fw_array(w, s->materials.count + 1, sizeof(int64_t));
	int64_t *tex_id = (int64_t *)rki_fw_array(w, s->textures.count + 1, sizeof(int64_t));
	if (!w->model_id || !w->node_fbx || !w->node_order || !w->geom_id || !w->channel_id || !w->material_id || !tex_id)
		return false;

	int64_t root_parent;
	if (!rki_fw_models(w, &root_parent)) return false;
	for (size_t i = 0; i < s->meshes.count; i++) w->geom_id[i] = rki_fw_id(w);
	for (size_t i = 0; i < s->meshes.count; i++)
		if (!rki_fw_geometry(w, &s->meshes.data[i]) || !rki_fw_blend(w, &s->meshes.data[i])) return false;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->mesh && w->model_id[i] && n->mesh->index < s->meshes.count)
			rki_fw_connect(w, w->geom_id[n->mesh->index], w->model_id[i]);
	}
	if (!rki_fw_textures(w, tex_id) || !rki_fw_materials(w, tex_id)) return false;
	for (size_t i = 0; i < s->skins.count; i++)
		if (!rki_fw_skin(w, &s->skins.data[i])) return false;
	if (!rki_fw_bind_pose(w)) return false;
	if (!w->o.no_animation && !rki_fw_write_animation(w)) return false;
	rki_fw_definitions(w, defs);
	rki_fw_takes(w);
	return !w->failed;
}

typedef struct rki_fw_out_header {
	rk_allocator allocator;
	size_t total;
	size_t magic;
} rki_fw_out_header;

#define RKI_FW_OUT_MAGIC ((size_t)0x46425857u)
#define RKI_FW_OUT_HEADER ((sizeof(rki_fw_out_header) + 15u) & ~(size_t)15u)

void rk_fbx_memory_free(void *data)
{
	if (!data) return;
	unsigned char *p = (unsigned char *)data - RKI_FW_OUT_HEADER;
	rki_fw_out_header h;
	memcpy(&h, p, sizeof(h));
	if (h.magic != RKI_FW_OUT_MAGIC) return;
	if (h.allocator.free) h.allocator.free(h.allocator.user, p, h.total);
	else if (!h.allocator.alloc) free(p);
}

/* Builds the file into *out (w's allocator). */
static bool rki_fw_run(rki_fw *w, const rk_scene *scene, const rk_fbx_write_opts *opts, rk_error *err, rki_buf *out)
{
	memset(w, 0, sizeof(*w));
	rki_error_clear(err);
	w->err = err;
	if (opts) w->o = *opts;
	w->scene = scene;
	if (!scene || !scene->nodes.count || !scene->nodes.data)
		return rki_fw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_fbx_write: the scene is NULL or has no nodes");
	if (w->o.version && w->o.version != 7400 && w->o.version != 7500)
		return rki_fw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_fbx_write: version %u is not 7400 or 7500", (unsigned)w->o.version);
	if (w->o.ascii && w->o.version == 7500)
		return rki_fw_fail(w, RK_ERROR_INVALID_ARGUMENT, "rk_fbx_write: ASCII FBX is written as 7.4 only");
	w->version = w->o.version ? w->o.version : 7400;
	w->next_id = 1000000;
	rki_alloc_init(&w->alloc, &w->o.allocator, w->o.memory_limit ? w->o.memory_limit : RKI_DEFAULT_MEMORY_LIMIT, 0);
	rki_arena_init(&w->arena, &w->alloc);
	rki_buf_init(out, &w->alloc);
	bool ok = rki_fw_build(w) && rki_fw_encode(w, out);
	if (w->deflate) libdeflate_free_compressor(w->deflate);
	w->deflate = NULL;
	rki_arena_free(&w->arena);
	if (ok) {
		w->st.version = w->o.ascii ? 7400 : w->version;
		w->st.warning_count = w->warnings;
		w->st.size = out->size;
		if (w->o.stats) *w->o.stats = w->st;
	} else {
		rki_buf_free(out);
	}
	return ok;
}

bool rk_fbx_write_memory(const rk_scene *scene, const rk_fbx_write_opts *opts, void **out_data, size_t *out_size,
	rk_error *err)
{
	rk_error local;
	if (!err) err = &local;
	if (out_data) *out_data = NULL;
	if (out_size) *out_size = 0;
	if (!out_data || !out_size) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_fbx_write_memory: NULL output pointer");
		return false;
	}
	rki_fw w;
	rki_buf out;
	if (!rki_fw_run(&w, scene, opts, err, &out)) return false;
	size_t total;
	if (!rki_add_size(out.size, RKI_FW_OUT_HEADER, &total)) {
		rki_buf_free(&out);
		rki_error_set(err, RK_ERROR_LIMIT, "rk_fbx_write_memory: output too large");
		return false;
	}
	unsigned char *p = (unsigned char *)rki_malloc(&w.alloc, total);
	if (!p) {
		rki_buf_free(&out);
		rki_error_set(err, RK_ERROR_OUT_OF_MEMORY, "rk_fbx_write_memory: out of memory for %zu bytes", total);
		return false;
	}
	rki_fw_out_header h;
	h.allocator = w.o.allocator;
	h.total = total;
	h.magic = RKI_FW_OUT_MAGIC;
	memcpy(p, &h, sizeof(h));
	memcpy(p + RKI_FW_OUT_HEADER, out.data, out.size);
	*out_data = p + RKI_FW_OUT_HEADER;
	*out_size = out.size;
	rki_buf_free(&out);
	return true;
}

bool rk_fbx_write(const rk_scene *scene, const char *path, const rk_fbx_write_opts *opts, rk_error *err)
{
	rk_error local;
	if (!err) err = &local;
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_fbx_write: NULL path");
		return false;
	}
	rki_fw w;
	rki_buf out;
	if (!rki_fw_run(&w, scene, opts, err, &out)) {
		rki_error_file(err, path);
		return false;
	}
	rk_file_write_opts fo = { .force = opts && opts->force };
	bool ok = rk_file_write(path, out.data, out.size, &fo, err);
	rki_buf_free(&out);
	return ok;
}
