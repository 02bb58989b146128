/* tools/view/view_model.c - one scene on the GPU (view.h): the mesh
 * expansion uploaded once, runtime playback, CPU skinning into mapped
 * vertex buffers every frame, one draw per part, the skeleton overlay.
 *
 * Buffers per expanded mesh node (rk_mesh_draw):
 *   ebo  static   the draw's index range of x->indices (absolute indices,
 *                 drawn with base vertex -first_vertex)
 *   uv   static   float x2 per vertex (from the expansion's interleaved vertex)
 *   dyn  dynamic  float x3 position + float x3 normal per vertex (24 bytes):
 *                 skinned meshes: written by rk_skin_run_range() on the
 *                 model's skinning threads (kept for its lifetime) straight
 *                 into the mapped buffer every frame (world space: palette =
 *                 model(joint) * inverse bind); unskinned: uploaded once in
 *                 mesh space and placed by the node's posed world matrix.
 * The expansion is built with no_geometry_transform: the skin binding's
 * inverse bind matrices and the unskinned model matrix (world * G) both
 * carry the FBX geometric transform, so it is applied exactly once. */
#include "view_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct view_part {
	uint32_t first, count;          /* index range inside the mesh's ebo */
	float color[4];                 /* linear RGBA */
	GLuint tex;                     /* 0 = none */
	bool unlit, mask;
	float cutoff;
	float uvm[9];                   /* texture transform and V flip, column-major mat3 */
} view_part;

typedef struct view_mesh {
	const rk_mesh_draw *draw;
	GLuint vao, dyn, uv, ebo;
	bool skinned;
	size_t joint_count;
	uint32_t *skin_joints;          /* skeleton joint per skin joint */
	rk_float4x4 *inverse_bind;
	rk_float4x4 *palette;
	int32_t joint;                  /* the node's skeleton joint (unskinned placement) */
	view_m4 geometry;               /* geometry_to_node */
	view_m4 model;                  /* posed world * geometry (unskinned) */
	float normal[9];                /* inverse transpose of model's 3x3 (unskinned) */
	rk_skin_job job;                /* inputs set at load; outputs per frame */
} view_mesh;

/* Skinning threads kept for the model's lifetime: each frame the caller
 * and `helpers` threads skin disjoint rk_skin_split() ranges of one job
 * with rk_skin_run_range() (skin.h recommends it over creating threads per
 * call: no thread is created per frame). */
#define VIEW_MAX_SKIN_THREADS 16

typedef struct view_pool {
	pthread_t threads[VIEW_MAX_SKIN_THREADS];
	size_t helpers;                 /* threads started */
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t generation;            /* bumped per job */
	size_t pending;                 /* helpers still working on it */
	bool quit;
	const rk_skin_job *job;
} view_pool;

typedef struct view_worker {
	view_pool *pool;
	size_t index;                   /* range index, 1..helpers (0 = the caller) */
} view_worker;

struct view_model {
	view_gl *g;
	const rk_scene *scene;
	view_model_opts o;
	rk_mesh_expansion *x;
	rk_skeleton *skel;
	view_mesh *meshes;
	size_t mesh_count;
	view_part *parts;
	size_t part_count;
	GLuint *tex;
	size_t tex_count, tex_failed;
	char tex_error[RK_ERROR_TEXT_MAX];
	rk_runtime_clip **clips;        /* scene->clips.count, built on first use */
	void *pose_mem;
	rk_local_pose pose[3];          /* sample A, sample B, blend result */
	uint32_t *cursors[2];
	size_t cursor_cap[2];
	rk_sample_context ctx[2];
	rk_float4x4 *model;             /* joint_count */
	int32_t hips;                   /* RK_JOINT_NONE when no humanoid */
	rk_float3 up;
	/* skeleton overlay: joint nodes (dots) and joint-to-parent-joint bones */
	GLuint bvao, bvbo;
	uint32_t *bone_joints;          /* bone_count pairs, then dot_count singles */
	size_t bone_count, dot_count;
	float *bone_xyz;                /* (2 * bone_count + dot_count) * 3 */
	double skin_ms;
	view_pool pool;
	bool pool_ready;
	view_worker workers[VIEW_MAX_SKIN_THREADS];
};

static void *view_pool_main(void *arg)
{
	view_worker *w = (view_worker *)arg;
	view_pool *p = w->pool;
	uint64_t seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->generation == seen) pthread_cond_wait(&p->go, &p->mu);
		if (p->quit) break;
		seen = p->generation;
		const rk_skin_job *job = p->job;
		size_t parts = p->helpers + 1;
		pthread_mutex_unlock(&p->mu);
		size_t b, e;
		rk_skin_split(job->vertex_count, parts, w->index, &b, &e);
		rk_skin_run_range(job, b, e);
		pthread_mutex_lock(&p->mu);
		if (--p->pending == 0) pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Starts up to threads - 1 helpers (threads 0 = one per CPU). */
static void view_pool_start(view_model *m, size_t threads)
{
	view_pool *p = &m->pool;
	if (threads == 0) threads = rk_cpu_count();
	if (threads > VIEW_MAX_SKIN_THREADS) threads = VIEW_MAX_SKIN_THREADS;
	if (threads < 2) return;
	if (pthread_mutex_init(&p->mu, NULL) != 0) return;
	if (pthread_cond_init(&p->go, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		return;
	}
	if (pthread_cond_init(&p->done, NULL) != 0) {
		pthread_cond_destroy(&p->go);
		pthread_mutex_destroy(&p->mu);
		return;
	}
	m->pool_ready = true;
	pthread_mutex_lock(&p->mu);
	for (size_t k = 0; k + 1 < threads; k++) {
		m->workers[k].pool = p;
		m->workers[k].index = k + 1;
		if (pthread_create(&p->threads[k], NULL, view_pool_main, &m->workers[k]) != 0) break;
		p->helpers++;
	}
	pthread_mutex_unlock(&p->mu);
}

static void view_pool_stop(view_model *m)
{
	view_pool *p = &m->pool;
	if (!m->pool_ready) return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (size_t k = 0; k < p->helpers; k++) pthread_join(p->threads[k], NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->go);
	pthread_mutex_destroy(&p->mu);
	m->pool_ready = false;
}

/* Skins the whole job: split over the pool for large meshes. */
static bool view_pool_skin(view_model *m, const rk_skin_job *job)
{
	view_pool *p = &m->pool;
	if (!rk_skin_validate(job, NULL)) return false;
	if (!m->pool_ready || p->helpers == 0 || job->vertex_count < 2 * RK_SKIN_MIN_THREAD_VERTICES)
		return rk_skin_run(job);
	pthread_mutex_lock(&p->mu);
	p->job = job;
	p->pending = p->helpers;
	p->generation++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	size_t b, e;
	rk_skin_split(job->vertex_count, p->helpers + 1, 0, &b, &e);
	rk_skin_run_range(job, b, e);
	pthread_mutex_lock(&p->mu);
	while (p->pending) pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return true;
}

static bool view_set_err(rk_error *err, rk_error_code code, const char *msg)
{
	if (err) {
		memset(err, 0, sizeof(*err));
		err->code = code;
		err->description = "GPU viewer";
		snprintf(err->message, sizeof(err->message), "%s", msg);
	}
	return false;
}

static double view_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static view_m4 view_m4_from_rk(const rk_mat4 *a)
{
	view_m4 r;
	memcpy(r.m, a->m, sizeof(r.m));
	return r;
}

static view_m4 view_m4_from_float(const rk_float4x4 *a)
{
	view_m4 r;
	for (int i = 0; i < 16; i++) r.m[i] = a->m[i];
	return r;
}

/* Inverse transpose of the upper 3x3 up to a positive factor (sign(det) *
 * cofactor matrix), column-major mat3. */
static void view_normal_matrix(float *dst, const view_m4 *a)
{
	const double *m = a->m;
	double c[9];
	/* a(r, c) = m[c * 4 + r]; cofactor C(r, c) */
#define A(r, k) m[(k) * 4 + (r)]
	c[0] = A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1);
	c[1] = A(1, 2) * A(2, 0) - A(1, 0) * A(2, 2);
	c[2] = A(1, 0) * A(2, 1) - A(1, 1) * A(2, 0);
	c[3] = A(0, 2) * A(2, 1) - A(0, 1) * A(2, 2);
	c[4] = A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0);
	c[5] = A(0, 1) * A(2, 0) - A(0, 0) * A(2, 1);
	c[6] = A(0, 1) * A(1, 2) - A(0, 2) * A(1, 1);
	c[7] = A(0, 2) * A(1, 0) - A(0, 0) * A(1, 2);
	c[8] = A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0);
	double det = A(0, 0) * c[0] + A(0, 1) * c[1] + A(0, 2) * c[2];
#undef A
	double s = det < 0.0 ? -1.0 : 1.0;
	/* c[r * 3 + k] = C(r, k); the inverse transpose is C / det: column k, row r */
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++) dst[k * 3 + r] = (float)(s * c[r * 3 + k]);
}

/* ---------------------------------------------------------------------------
 * Upload
 * ------------------------------------------------------------------------- */

static GLint view_wrap(rk_wrap w)
{
	return w == RK_WRAP_CLAMP ? GL_CLAMP_TO_EDGE : w == RK_WRAP_MIRROR ? GL_MIRRORED_REPEAT : GL_REPEAT;
}

static GLuint view_texture(view_model *m, const rk_texture *t)
{
	size_t i = (size_t)(t - m->scene->textures.data);
	if (m->tex[i]) return m->tex[i] == (GLuint)-1 ? 0 : m->tex[i];
	rk_image img;
	rk_error e;
	if (!rk_image_decode(t, NULL, &img, &e)) {
		if (m->tex_failed++ == 0) rk_error_format(m->tex_error, sizeof(m->tex_error), &e);
		m->tex[i] = (GLuint)-1;
		return 0;
	}
	GLint max_size = 0;
	glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
	if (img.width > (uint32_t)max_size || img.height > (uint32_t)max_size) {
		if (m->tex_failed++ == 0)
			snprintf(m->tex_error, sizeof(m->tex_error), "texture \"%s\": %u x %u exceeds the GL limit %d",
				t->name ? t->name : "", (unsigned)img.width, (unsigned)img.height, (int)max_size);
		rk_image_free(&img);
		m->tex[i] = (GLuint)-1;
		return 0;
	}
	GLuint name = 0;
	glGenTextures(1, &name);
	glBindTexture(GL_TEXTURE_2D, name);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, (GLsizei)img.width, (GLsizei)img.height, 0, GL_RGBA,
		GL_UNSIGNED_BYTE, img.pixels);
	/* bilinear, no mipmaps: what rk_render samples */
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, view_wrap(t->wrap_u));
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, view_wrap(t->wrap_v));
	glBindTexture(GL_TEXTURE_2D, 0);
	rk_image_free(&img);
	m->tex[i] = name;
	return name;
}

static float view_unit(double v)
{
	if (!isfinite(v)) return 1.0f;
	return v < 0.0 ? 0.0f : v > 1.0 ? 1.0f : (float)v;
}

/* A part's material as rk_render resolves it (render.c, materials): base
 * colour clamped to [0, 1], default grey 0.8 without a material; texture
 * transform (T * R * S) then V flip for files whose V starts at the bottom. */
static void view_part_setup(view_model *m, view_part *p, const rk_mesh_part *src)
{
	const rk_material *mat = src->material;
	memset(p->uvm, 0, sizeof(p->uvm));
	p->uvm[0] = p->uvm[4] = p->uvm[8] = 1.0f;
	p->tex = 0;
	p->mask = false;
	p->unlit = false;
	p->cutoff = 0.5f;
	if (!mat) {
		p->color[0] = p->color[1] = p->color[2] = 0.8f;
		p->color[3] = 1.0f;
		return;
	}
	p->color[0] = view_unit(mat->base_color.x);
	p->color[1] = view_unit(mat->base_color.y);
	p->color[2] = view_unit(mat->base_color.z);
	p->color[3] = view_unit(mat->base_color.w);
	p->unlit = mat->unlit;
	p->mask = mat->alpha_mode == RK_ALPHA_MASK;
	p->cutoff = isfinite(mat->alpha_cutoff) ? (float)mat->alpha_cutoff : 0.5f;
	const rk_texture *t = mat->base_color_texture.texture;
	const rk_scene *s = m->scene;
	if (!m->o.textures || !t || !s->textures.count || t < s->textures.data || t >= s->textures.data + s->textures.count)
		return;
	p->tex = view_texture(m, t);
	/* u' = cr sx u + sr sy v + ox, v' = -sr sx u + cr sy v + oy */
	const rk_texture_ref *ref = &mat->base_color_texture;
	double a = 1, b = 0, c = 0, d = 1, ox = 0, oy = 0;
	if (ref->has_transform) {
		double cr = cos(ref->rotation), sr = sin(ref->rotation);
		a = cr * ref->scale.x;
		b = sr * ref->scale.y;
		c = -sr * ref->scale.x;
		d = cr * ref->scale.y;
		ox = ref->offset.x;
		oy = ref->offset.y;
	}
	rk_file_format f = s->settings.format;
	if (f != RK_FORMAT_GLTF && f != RK_FORMAT_GLB) {   /* v'' = 1 - v' */
		c = -c;
		d = -d;
		oy = 1.0 - oy;
	}
	/* column-major: col0 = (a, c, 0), col1 = (b, d, 0), col2 = (ox, oy, 1) */
	p->uvm[0] = (float)a;
	p->uvm[1] = (float)c;
	p->uvm[3] = (float)b;
	p->uvm[4] = (float)d;
	p->uvm[6] = (float)ox;
	p->uvm[7] = (float)oy;
}

static bool view_mesh_upload(view_model *m, view_mesh *vm, const rk_mesh_draw *d, rk_error *err)
{
	const rk_mesh_expansion *x = m->x;
	size_t stride = x->format.stride;
	const unsigned char *base = (const unsigned char *)x->vertices + (size_t)d->first_vertex * stride;
	size_t n = d->vertex_count;
	vm->draw = d;
	vm->geometry = view_m4_from_rk(&d->node->geometry_to_node);
	vm->joint = rk_skeleton_joint_of_node(m->skel, d->node);
	if (d->skin) {
		vm->joint_count = d->skin->joint_count;
		vm->skin_joints = (uint32_t *)malloc(sizeof(uint32_t) * (vm->joint_count ? vm->joint_count : 1));
		vm->inverse_bind = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (vm->joint_count ? vm->joint_count : 1));
		vm->palette = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * (vm->joint_count ? vm->joint_count : 1));
		if (!vm->skin_joints || !vm->inverse_bind || !vm->palette)
			return view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "out of memory for a skin palette");
		rk_error e;
		/* a skin whose joints are not all nodes of the skeleton is drawn rigidly */
		vm->skinned = vm->joint_count > 0
			&& rk_skeleton_skin_binding(m->skel, m->scene, d->skin, d->node, vm->skin_joints, vm->inverse_bind, &e);
	}
	float *pn = (float *)malloc(n * 24u + 1u), *uv = (float *)malloc(n * 8u + 1u);
	if (!pn || !uv) {
		free(pn);
		free(uv);
		return view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "out of memory for vertex staging");
	}
	for (size_t v = 0; v < n; v++) {
		const unsigned char *src = base + v * stride;
		memcpy(pn + v * 6, src + x->format.position_offset, 12);
		memcpy(pn + v * 6 + 3, src + x->format.normal_offset, 12);
		memcpy(uv + v * 2, src + x->format.uv_offset, 8);
	}
	glGenVertexArrays(1, &vm->vao);
	glBindVertexArray(vm->vao);
	glGenBuffers(1, &vm->dyn);
	glBindBuffer(GL_ARRAY_BUFFER, vm->dyn);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * 24u), pn, vm->skinned ? GL_DYNAMIC_DRAW : GL_STATIC_DRAW);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 24, (const void *)0);
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 24, (const void *)12);
	glGenBuffers(1, &vm->uv);
	glBindBuffer(GL_ARRAY_BUFFER, vm->uv);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * 8u), uv, GL_STATIC_DRAW);
	glEnableVertexAttribArray(2);
	glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 8, (const void *)0);
	glGenBuffers(1, &vm->ebo);
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, vm->ebo);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)d->index_count * 4u), x->indices + d->first_index,
		GL_STATIC_DRAW);
	glBindVertexArray(0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	free(pn);
	free(uv);
	if (vm->skinned) {
		rk_skin_job *j = &vm->job;
		memset(j, 0, sizeof(*j));
		j->vertex_count = n;
		j->positions = (const float *)(base + x->format.position_offset);
		j->position_stride = stride;
		j->normals = (const float *)(base + x->format.normal_offset);
		j->normal_stride = stride;
		j->joints = (const uint16_t *)(base + x->format.joints_offset);
		j->joint_stride = stride;
		j->weights = (const float *)(base + x->format.weights_offset);
		j->weight_stride = stride;
		j->matrices = &vm->palette[0].m[0];
		j->joint_count = vm->joint_count;
		j->out_position_stride = 24;
		j->out_normal_stride = 24;
	}
	return true;
}

static bool view_bones_setup(view_model *m, rk_error *err)
{
	const rk_scene *s = m->scene;
	size_t bones = 0, dots = 0;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->kind != RK_NODE_JOINT) continue;
		dots++;
		if (n->parent && n->parent->kind == RK_NODE_JOINT) bones++;
	}
	m->bone_count = bones;
	m->dot_count = dots;
	if (!dots) return true;
	m->bone_joints = (uint32_t *)malloc(sizeof(uint32_t) * (2 * bones + dots));
	m->bone_xyz = (float *)malloc(sizeof(float) * 3 * (2 * bones + dots));
	if (!m->bone_joints || !m->bone_xyz) return view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "out of memory for bones");
	size_t b = 0, k = 2 * bones;
	for (size_t i = 0; i < s->nodes.count; i++) {
		const rk_node *n = &s->nodes.data[i];
		if (n->kind != RK_NODE_JOINT) continue;
		int32_t j = rk_skeleton_joint_of_node(m->skel, n);
		m->bone_joints[k++] = (uint32_t)(j < 0 ? 0 : j);
		if (n->parent && n->parent->kind == RK_NODE_JOINT) {
			int32_t pj = rk_skeleton_joint_of_node(m->skel, n->parent);
			m->bone_joints[b++] = (uint32_t)(pj < 0 ? 0 : pj);
			m->bone_joints[b++] = (uint32_t)(j < 0 ? 0 : j);
		}
	}
	glGenVertexArrays(1, &m->bvao);
	glBindVertexArray(m->bvao);
	glGenBuffers(1, &m->bvbo);
	glBindBuffer(GL_ARRAY_BUFFER, m->bvbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 3 * (2 * bones + dots)), NULL, GL_DYNAMIC_DRAW);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 12, (const void *)0);
	glBindVertexArray(0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	return true;
}

view_model *view_model_create(view_gl *g, const rk_scene *scene, const view_model_opts *opts, rk_error *err)
{
	if (!g || !scene) {
		view_set_err(err, RK_ERROR_INVALID_ARGUMENT, "view_model_create: NULL argument");
		return NULL;
	}
	view_model *m = (view_model *)calloc(1, sizeof(view_model));
	if (!m) {
		view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "out of memory");
		return NULL;
	}
	m->g = g;
	m->scene = scene;
	if (opts) m->o = *opts;
	m->hips = RK_JOINT_NONE;
	rk_mesh_opts mo = { 0 };
	mo.no_geometry_transform = true;
	m->x = rk_mesh_expansion_build(scene, &mo, err);
	if (!m->x) goto fail;
	if (m->x->format.joints_offset == RK_ATTRIBUTE_ABSENT || m->x->format.weights_offset == RK_ATTRIBUTE_ABSENT
		|| m->x->format.weight_format != RK_WEIGHTS_FLOAT) {
		view_set_err(err, RK_ERROR_INVALID_ARGUMENT, "unexpected vertex format");
		goto fail;
	}
	m->skel = rk_skeleton_build(scene, NULL, err);
	if (!m->skel) goto fail;
	size_t jc = m->skel->joint_count, psz = rk_local_pose_memory_size(jc);
	m->pose_mem = malloc(psz * 3 + 1);
	m->model = (rk_float4x4 *)malloc(sizeof(rk_float4x4) * jc);
	m->clips = (rk_runtime_clip **)calloc(scene->clips.count + 1, sizeof(rk_runtime_clip *));
	m->tex_count = scene->textures.count;
	m->tex = (GLuint *)calloc(m->tex_count + 1, sizeof(GLuint));
	m->mesh_count = m->x->draw_count;
	m->meshes = (view_mesh *)calloc(m->mesh_count + 1, sizeof(view_mesh));
	m->part_count = m->x->part_count;
	m->parts = (view_part *)calloc(m->part_count + 1, sizeof(view_part));
	if (!m->pose_mem || !m->model || !m->clips || !m->tex || !m->meshes || !m->parts) {
		view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "out of memory for the model");
		goto fail;
	}
	for (int k = 0; k < 3; k++) rk_local_pose_init(&m->pose[k], jc, (char *)m->pose_mem + psz * (size_t)k, psz);
	rk_humanoid h;
	if (rk_humanoid_detect(scene, &h, NULL) && h.bones[RK_HUMANOID_HIPS])
		m->hips = rk_skeleton_joint_of_node(m->skel, h.bones[RK_HUMANOID_HIPS]);
	rk_vec3 up = { 0, 1, 0 };
	switch (scene->settings.axes.up) {
	case RK_AXIS_POSITIVE_X: up = (rk_vec3){ 1, 0, 0 }; break;
	case RK_AXIS_NEGATIVE_X: up = (rk_vec3){ -1, 0, 0 }; break;
	case RK_AXIS_NEGATIVE_Y: up = (rk_vec3){ 0, -1, 0 }; break;
	case RK_AXIS_POSITIVE_Z: up = (rk_vec3){ 0, 0, 1 }; break;
	case RK_AXIS_NEGATIVE_Z: up = (rk_vec3){ 0, 0, -1 }; break;
	default: break;
	}
	m->up = (rk_float3){ (float)up.x, (float)up.y, (float)up.z };
	for (size_t i = 0; i < m->part_count; i++) view_part_setup(m, &m->parts[i], &m->x->parts[i]);
	for (size_t i = 0; i < m->mesh_count; i++) {
		const rk_mesh_draw *d = &m->x->draws[i];
		if (!view_mesh_upload(m, &m->meshes[i], d, err)) goto fail;
		for (uint32_t p = d->first_part; p < d->first_part + d->part_count; p++)
			m->parts[p].first = m->x->parts[p].start_index - d->first_index;
		for (uint32_t p = d->first_part; p < d->first_part + d->part_count; p++) m->parts[p].count = m->x->parts[p].index_count;
	}
	if (!view_bones_setup(m, err)) goto fail;
	view_pool_start(m, m->o.skin_threads);
	view_pose rest = { 0 };
	if (!view_model_pose(m, &rest, NULL, err)) goto fail;
	return m;
fail:
	view_model_destroy(m);
	return NULL;
}

void view_model_destroy(view_model *m)
{
	if (!m) return;
	view_pool_stop(m);
	for (size_t i = 0; m->meshes && i < m->mesh_count; i++) {
		view_mesh *vm = &m->meshes[i];
		GLuint bufs[3] = { vm->dyn, vm->uv, vm->ebo };
		for (int k = 0; k < 3; k++)
			if (bufs[k]) glDeleteBuffers(1, &bufs[k]);
		if (vm->vao) glDeleteVertexArrays(1, &vm->vao);
		free(vm->skin_joints);
		free(vm->inverse_bind);
		free(vm->palette);
	}
	for (size_t i = 0; m->tex && i < m->tex_count; i++)
		if (m->tex[i] && m->tex[i] != (GLuint)-1) glDeleteTextures(1, &m->tex[i]);
	if (m->bvbo) glDeleteBuffers(1, &m->bvbo);
	if (m->bvao) glDeleteVertexArrays(1, &m->bvao);
	for (size_t i = 0; m->clips && i < m->scene->clips.count; i++) rk_runtime_clip_free(m->clips[i]);
	free(m->clips);
	free(m->cursors[0]);
	free(m->cursors[1]);
	free(m->bone_joints);
	free(m->bone_xyz);
	free(m->tex);
	free(m->meshes);
	free(m->parts);
	free(m->model);
	free(m->pose_mem);
	rk_skeleton_free(m->skel);
	rk_mesh_expansion_free(m->x);
	free(m);
}

size_t view_model_texture_failures(const view_model *m, const char **first_message)
{
	if (first_message) *first_message = m ? m->tex_error : "";
	return m ? m->tex_failed : 0;
}

void view_model_sizes(const view_model *m, size_t *triangles, size_t *vertices, size_t *parts)
{
	if (triangles) *triangles = m ? m->x->index_count / 3 : 0;
	if (vertices) *vertices = m ? m->x->vertex_count : 0;
	if (parts) *parts = m ? m->x->part_count : 0;
}

/* ---------------------------------------------------------------------------
 * Pose
 * ------------------------------------------------------------------------- */

static const rk_runtime_clip *view_clip(view_model *m, const rk_anim_clip *c, rk_error *err)
{
	const rk_scene *s = m->scene;
	if (c < s->clips.data || c >= s->clips.data + s->clips.count) {
		view_set_err(err, RK_ERROR_INVALID_ARGUMENT, "the clip is not one of the scene's");
		return NULL;
	}
	size_t i = (size_t)(c - s->clips.data);
	if (!m->clips[i]) m->clips[i] = rk_runtime_clip_build(s, c, m->skel, NULL, err);
	return m->clips[i];
}

/* Samples clip `c` at file time t into pose[slot] (+ root motion). */
static bool view_sample(view_model *m, int slot, const rk_anim_clip *c, double t, bool loop, bool in_place,
	rk_error *err)
{
	const rk_runtime_clip *rc = view_clip(m, c, err);
	if (!rc) return false;
	size_t need = rk_sample_context_size(rc);
	if (need > m->cursor_cap[slot]) {
		uint32_t *cur = (uint32_t *)realloc(m->cursors[slot], sizeof(uint32_t) * need);
		if (!cur) return view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "out of memory for sample cursors");
		m->cursors[slot] = cur;
		m->cursor_cap[slot] = need;
		rk_sample_context_init(&m->ctx[slot], cur, need);
	}
	rk_sample_job sj = { 0 };
	sj.clip = rc;
	sj.time = t - rc->source_time_begin;
	sj.playback = loop ? RK_PLAYBACK_LOOP : RK_PLAYBACK_CLAMP;
	sj.context = &m->ctx[slot];
	sj.output = m->pose[slot];
	if (!rk_sample_validate(&sj, err) || !rk_sample_run(&sj)) return false;
	if (in_place && m->hips >= 0) {
		rk_root_motion_job rj = { 0 };
		rj.skeleton = m->skel;
		rj.clip = rc;
		rj.mode = RK_ROOT_MOTION_IN_PLACE;
		rj.hips = m->hips;
		rj.up = m->up;
		rj.time = sj.time;
		rj.playback = sj.playback;
		rj.pose = m->pose[slot];
		if (!rk_root_motion_validate(&rj, err) || !rk_root_motion_run(&rj)) return false;
	}
	return true;
}

bool view_model_pose(view_model *m, const view_pose *pose, double *skin_ms, rk_error *err)
{
	rk_local_pose_view in = m->skel->rest;
	if (pose->clip) {
		if (!view_sample(m, 0, pose->clip, pose->time, pose->loop, pose->in_place, err)) return false;
		in = rk_local_pose_view_of(m->pose[0]);
		if (pose->from_clip && pose->fade < 1.0f) {
			if (!view_sample(m, 1, pose->from_clip, pose->from_time, pose->loop, pose->in_place, err)) return false;
			rk_crossfade cf = { 0 };
			rk_blend_layer layers[2];
			rk_crossfade_layers(&cf, rk_local_pose_view_of(m->pose[1]), rk_local_pose_view_of(m->pose[0]), layers);
			layers[0].weight = 1.0f - pose->fade;
			layers[1].weight = pose->fade;
			rk_blend_job bj = { 0 };
			bj.skeleton = m->skel;
			bj.layers = layers;
			bj.layer_count = 2;
			bj.output = m->pose[2];
			if (!rk_blend_validate(&bj, err) || !rk_blend_run(&bj)) return false;
			in = rk_local_pose_view_of(m->pose[2]);
		}
	}
	rk_local_to_model_job lj = { 0 };
	lj.skeleton = m->skel;
	lj.input = in;
	lj.model = m->model;
	if (!rk_local_to_model_validate(&lj, err) || !rk_local_to_model_run(&lj)) return false;

	double t0 = view_now_ms();
	for (size_t i = 0; i < m->mesh_count; i++) {
		view_mesh *vm = &m->meshes[i];
		if (!vm->skinned) {
			view_m4 w = vm->joint >= 0 ? view_m4_from_float(&m->model[vm->joint])
			                           : view_m4_from_rk(&vm->draw->node->node_to_world);
			vm->model = view_m4_mul(w, vm->geometry);
			view_normal_matrix(vm->normal, &vm->model);
			continue;
		}
		for (size_t k = 0; k < vm->joint_count; k++) {
			view_m4 p = view_m4_mul(view_m4_from_float(&m->model[vm->skin_joints[k]]),
				view_m4_from_float(&vm->inverse_bind[k]));
			view_m4_to_float(vm->palette[k].m, p);
		}
		glBindBuffer(GL_ARRAY_BUFFER, vm->dyn);
		float *dst = (float *)glMapBufferRange(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(vm->job.vertex_count * 24u),
			GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
		if (!dst) {
			glBindBuffer(GL_ARRAY_BUFFER, 0);
			return view_set_err(err, RK_ERROR_OUT_OF_MEMORY, "glMapBufferRange failed");
		}
		vm->job.out_positions = dst;
		vm->job.out_normals = dst + 3;
		bool ok = view_pool_skin(m, &vm->job);
		glUnmapBuffer(GL_ARRAY_BUFFER);
		glBindBuffer(GL_ARRAY_BUFFER, 0);
		if (!ok) {
			rk_skin_validate(&vm->job, err);
			return false;
		}
	}
	m->skin_ms = view_now_ms() - t0;
	if (skin_ms) *skin_ms = m->skin_ms;

	if (m->dot_count) {
		size_t n = 2 * m->bone_count + m->dot_count;
		for (size_t i = 0; i < n; i++) {
			const float *c = m->model[m->bone_joints[i]].m;
			m->bone_xyz[i * 3 + 0] = c[12];
			m->bone_xyz[i * 3 + 1] = c[13];
			m->bone_xyz[i * 3 + 2] = c[14];
		}
		glBindBuffer(GL_ARRAY_BUFFER, m->bvbo);
		glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(float) * 3 * n), m->bone_xyz);
		glBindBuffer(GL_ARRAY_BUFFER, 0);
	}
	return true;
}

/* ---------------------------------------------------------------------------
 * Draw
 * ------------------------------------------------------------------------- */

void view_model_draw(view_model *m, const view_draw_opts *o)
{
	view_gl *g = m->g;
	const view_mesh_prog *p = &g->mesh;
	glViewport((GLint)o->x, (GLint)o->y, (GLsizei)o->width, (GLsizei)o->height);
	if (o->clear) {
		glEnable(GL_SCISSOR_TEST);
		glScissor((GLint)o->x, (GLint)o->y, (GLsizei)o->width, (GLsizei)o->height);
		glClearColor(o->background[0] / 255.0f, o->background[1] / 255.0f, o->background[2] / 255.0f,
			o->background[3] / 255.0f);
		glClearDepth(1.0);
		glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
		glDisable(GL_SCISSOR_TEST);
	}
	view_m4 vp = view_camera_matrix(&o->camera, o->width, o->height);
	const rk_render_stats *c = &o->camera;
	/* rk_render's default light: from the camera's upper left */
	rk_vec3 L = rk_vec3_normalize(rk_vec3_add(rk_vec3_add(rk_vec3_scale(c->right, -0.35), rk_vec3_scale(c->up, 0.55)),
		rk_vec3_scale(c->forward, -0.75)));
	glEnable(GL_DEPTH_TEST);
	glDepthFunc(GL_LESS);
	glDisable(GL_CULL_FACE);
	glDisable(GL_BLEND);
	glUseProgram(p->prog);
	glUniform3f(p->light, (float)L.x, (float)L.y, (float)L.z);
	glUniform3f(p->eye, (float)c->eye.x, (float)c->eye.y, (float)c->eye.z);
	glUniform1f(p->ambient, 0.3f);
	glUniform1f(p->diffuse, 0.7f);
	glUniform1i(p->tex, 0);
	glActiveTexture(GL_TEXTURE0);
	static const float identity3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	for (size_t i = 0; i < m->mesh_count; i++) {
		const view_mesh *vm = &m->meshes[i];
		const rk_mesh_draw *d = vm->draw;
		if (!d->node->visible) continue;
		view_m4 model;
		if (vm->skinned) {
			memset(&model, 0, sizeof(model));
			model.m[0] = model.m[5] = model.m[10] = model.m[15] = 1.0;
		} else {
			model = vm->model;
		}
		float f[16];
		view_m4_to_float(f, view_m4_mul(vp, model));
		glUniformMatrix4fv(p->mvp, 1, GL_FALSE, f);
		view_m4_to_float(f, model);
		glUniformMatrix4fv(p->model, 1, GL_FALSE, f);
		glUniformMatrix3fv(p->normal, 1, GL_FALSE, vm->skinned ? identity3 : vm->normal);
		glBindVertexArray(vm->vao);
		for (uint32_t k = d->first_part; k < d->first_part + d->part_count; k++) {
			const view_part *pt = &m->parts[k];
			if (!pt->count) continue;
			glUniform4fv(p->color, 1, pt->color);
			glUniform1i(p->unlit, o->unlit || pt->unlit);
			glUniform1i(p->mask, pt->mask);
			glUniform1f(p->cutoff, pt->cutoff);
			glUniform1i(p->has_tex, pt->tex != 0);
			glUniformMatrix3fv(p->uvm, 1, GL_FALSE, pt->uvm);
			glBindTexture(GL_TEXTURE_2D, pt->tex);
			glDrawElementsBaseVertex(GL_TRIANGLES, (GLsizei)pt->count, GL_UNSIGNED_INT,
				(const void *)((size_t)pt->first * 4u), -(GLint)d->first_vertex);
		}
	}
	glBindTexture(GL_TEXTURE_2D, 0);
	glBindVertexArray(0);
	if (o->skeleton && m->dot_count) {
		float f[16];
		view_m4_to_float(f, vp);
		glDisable(GL_DEPTH_TEST);
		glUseProgram(g->line.prog);
		glUniformMatrix4fv(g->line.mvp, 1, GL_FALSE, f);
		glBindVertexArray(m->bvao);
		glUniform4f(g->line.color, 1.0f, 0.85f, 0.2f, 1.0f);
		if (m->bone_count) glDrawArrays(GL_LINES, 0, (GLsizei)(2 * m->bone_count));
		glEnable(GL_PROGRAM_POINT_SIZE);
		float ps = (float)(o->height / 128 > 3 ? o->height / 128 : 3);
		glUniform1f(g->line.point_size, ps);
		glUniform4f(g->line.color, 1.0f, 0.4f, 0.2f, 1.0f);
		glDrawArrays(GL_POINTS, (GLint)(2 * m->bone_count), (GLsizei)m->dot_count);
		glDisable(GL_PROGRAM_POINT_SIZE);
		glBindVertexArray(0);
		glEnable(GL_DEPTH_TEST);
	}
	glUseProgram(0);
}
