/*
 * rigkit/mesh.h - mesh expansion: polygon meshes of an rk_scene -> GPU-ready
 * indexed triangle lists (docs/api.md lists the functions).
 *
 * OVERVIEW
 *   The pieces, each usable on its own:
 *
 *     rk_polygon_triangulate()   one polygon -> triangles (ear clipping in the
 *                                polygon's best-fit plane); pure function
 *     rk_mesh_smooth_normals()   polygons -> one smooth normal per vertex;
 *                                pure function
 *     rk_mesh_expand_job         one mesh node -> interleaved vertices, one
 *                                uint32 index buffer, per-material parts, all
 *                                in caller-owned buffers sized by
 *                                rk_mesh_expand_bound()
 *     rk_mesh_expansion_build()         every mesh node of a scene (or one) -> one
 *                                rk_mesh_expansion in a single allocation,
 *                                released with rk_mesh_expansion_free()
 *
 *   Typical use (load time, not per frame):
 *
 *     rk_mesh_opts opts = { .flip_v = true };           // zero = defaults
 *     rk_mesh_expansion *x = rk_mesh_expansion_build(scene, &opts, &err);
 *     upload x->vertices (x->vertex_count * x->format.stride bytes) and
 *            x->indices (x->index_count uint32) once;
 *     for each draw d of x->draws, for each part p of d:
 *         bind p->material's textures; DrawIndexed(p->index_count, p->start_index, 0);
 *     rk_mesh_expansion_free(x);
 *
 * WHAT ONE MESH NODE BECOMES (rk_mesh_expand_job)
 *   1. Material parts. Slot list S = rk_node_material_slots(node) (node's
 *      materials when non-empty, else the mesh's); face f uses slot
 *      s = rk_node_face_slot(node, f) and material S[s], or NULL when s is
 *      RK_NO_SLOT (out of range; counted in stats.invalid_material_slots
 *      when |S| > 0; a mesh without any slot simply has one NULL-material
 *      part). See scene.h MATERIAL SLOTS. Faces whose slots name
 *      the same material pointer (or NULL) share one part. Parts are ordered
 *      by the first slot naming their material; the part of out-of-range
 *      slots comes last unless a NULL slot placed it earlier. Parts with no
 *      triangles are omitted. All parts of a node are contiguous ranges of
 *      one index buffer, in part order.
 *   2. Triangulation: each face with n >= 3 corners gives exactly n - 2
 *      triangles (rk_polygon_triangulate); faces with fewer corners give
 *      none (stats.skipped_polygons). Triangles keep the polygon's winding.
 *      The winding is reversed ((a, b, c) -> (a, c, b)) when
 *          opts.mirror XOR det(position matrix P) < 0
 *      so triangles stay front-facing after a mirroring P. Mirroring applied
 *      later by the caller (a skinning palette or world matrix with negative
 *      determinant, e.g. the root axis conversion for skinned meshes) is the
 *      caller's: set opts.mirror.
 *   3. One vertex per face corner, then (default) deduplicated by exact
 *      byte equality (meshopt_generateVertexRemap / meshopt_remapVertexBuffer
 *      / meshopt_remapIndexBuffer), so vertex_count <= corner count.
 *      Per corner:
 *        position  P * mesh->positions[vertex_indices[c]], float
 *        normal    normalize(Nm * n), n = the file's corner normal, or the
 *                  generated one (below); Nm = sign(det P) * cofactor(P3x3)
 *                  = the inverse-transpose up to a positive factor
 *        uv        from the part's UV set (below); flip_v: v' = 1 - v.
 *                  Meshes without UV sets get (0, 0) (flip_v not applied).
 *        joints/weights  skin influences of the corner's mesh vertex (below)
 *        tangent   (opts.tangents) the UV set's tangent: xyz =
 *                  normalize(P3x3 * t), w = -1 when dot(cross(n', t'), b')
 *                  < 0 (b' = P3x3 * bitangent) else +1; (0, 0, 0, 0) when the
 *                  set has no tangents (stats.tangent_meshes tells).
 *      Position matrix P (column vectors; G = node->geometry_to_node, or the
 *      identity with opts.no_geometry_transform):
 *        default                        P = G          (mesh space; FBX
 *                                       geometric transform applied)
 *        opts.world_space, unskinned    P = node->node_to_world * G
 *                                       (= geometry_to_world by default)
 *        opts.world_space, skinned      P = G: skinned meshes stay in the
 *                                       space mesh_to_joint expects, see
 *                                       scene.h SPACES AND MATRICES
 *      "Skinned" here means node->skin != NULL (even with
 *      opts.no_skin_attributes).
 *   4. Optional (opts.optimize): per part meshopt_optimizeVertexCache on the
 *      part's index range, then meshopt_optimizeVertexFetch over the node's
 *      whole index buffer (parts in order), which renumbers vertices in order
 *      of first use.
 *   5. Bounds: axis-aligned box of the output positions (the float values
 *      written), and rk_mesh_radius() of it.
 *
 * UV SET OF A PART
 *   rk_node_material_uv_set(node, part material) (scene.h UV SET OF A
 *   TEXTURE ON A MESH NODE: the base colour texture's named set, else
 *   node->default_uv_set, else the texture's texcoord index when it names
 *   none, else set 0). rk_mesh_part.uv_set reports the chosen index (-1 when
 *   the mesh has no usable set).
 *
 * GENERATED NORMALS (when !mesh->normals.exists, or opts.generate_normals)
 *   rk_mesh_smooth_normals() of the mesh's positions and faces, in mesh
 *   space (before P): one smooth normal per mesh vertex (position index; no
 *   hard edges), weighted by corner angle times polygon area (SMOOTH NORMALS
 *   below). A corner whose vertex got no normal (zero sum) gets its own
 *   face's area vector (normalised later; (0, 0, 0) if that is zero too).
 *   The result then goes through Nm like a file normal; mirror does not
 *   change generated normals. The glTF writer generates its normals the
 *   same way (export.h), so both give one mesh the same normals.
 *
 * SKIN INFLUENCES (node->skin != NULL and !opts.no_skin_attributes)
 *   For each mesh vertex v: its weights skin->weights[weight_begin[v] ..
 *   weight_begin[v+1]) minus unusable ones (joint >= joint_count, weight not
 *   > 0 or not finite, and with RK_JOINTS_NODE a joint without node) are
 *   ordered by descending weight (ties: smaller output joint index first);
 *   the first 4 are kept (stats.truncated_influences counts vertices that
 *   had more) and divided by their sum, computed in double. Unused slots
 *   hold joint 0, weight 0.
 *     joints   uint16; RK_JOINTS_SKIN: index into node->skin->joints (the
 *              palette of rk_skin_matrices_eval); RK_JOINTS_NODE: rk_node.index
 *              of the joint node (one palette for the whole scene)
 *     weights  RK_WEIGHTS_FLOAT: float, sum 1 up to float rounding;
 *              RK_WEIGHTS_UNORM16: uint16 q_i = round(w_i * 65535), then
 *              65535 - sum(q) is added to q_0 (the largest), so the sum is
 *              exactly 65535.
 *   Vertices without usable weights (v >= skin->vertex_count included;
 *   stats.unweighted_vertices):
 *     RK_UNWEIGHTED_ZERO (default)  all joints 0, all weights 0: a shader
 *              summing w_i * M_i collapses them to the origin, so either
 *              test for sum 0 or choose the next mode
 *     RK_UNWEIGHTED_BIND_JOINT      joints[0] = opts.unweighted_joint,
 *              weights[0] = 1 (65535)
 *   Unskinned nodes write zero joints and weights.
 *
 * VERTEX LAYOUT (interleaved, tightly packed, no padding, host byte order;
 *   offsets in bytes, see rk_vertex_format)
 *
 *     attribute  type        offset  default stride 56 = struct rk_gpu_vertex
 *     position   float32 x3       0
 *     normal     float32 x3      12
 *     uv         float32 x2      24
 *     joints     uint16  x4      32  (absent with opts.no_skin_attributes)
 *     weights    float32 x4      40  RK_WEIGHTS_FLOAT
 *                uint16  x4      40  RK_WEIGHTS_UNORM16 (normalised)
 *     tangent    float32 x4    last  (only with opts.tangents)
 *
 *   strides: 56 (default), 48 (UNORM16), 32 (no_skin_attributes), +16 with
 *   tangents. Why interleaved: one buffer, one binding, one upload, one
 *   format for every node, and exact byte-wise deduplication; the layout is
 *   position/normal/UV plus influences in one stream (glTF, D3D11 input
 *   layouts and Vulkan bindings take offset + stride).
 *   Every field is 4-byte aligned. The index buffer is uint32, triangle
 *   list, indices absolute into the vertex buffer it was written with.
 *
 * MEMORY
 *   The job never allocates itself (no malloc, no qsort, no VLAs; at most a
 *   ~1.3 KB stack buffer in rk_polygon_triangulate): vertices, indices,
 *   parts and scratch are the caller's, sized by rk_mesh_expand_bound().
 *   Deduplication and
 *   optimisation call meshoptimizer, which allocates its own temporaries
 *   through meshopt_setAllocator's allocator (operator new/malloc unless the
 *   application installed one; rigkit never does). rk_mesh_expansion_build() uses
 *   opts->allocator (zero = malloc/free) for one temporary block (freed
 *   before it returns) and one result block, which rk_mesh_expansion_free()
 *   frees. Peak memory: the result, plus worst-case buffers for all nodes
 *   (one vertex per corner, all indices, parts), plus the largest node's
 *   scratch (ybot.fbx: 2.6 MB result, 14 MB peak).
 *
 * UNTRUSTED DATA
 *   rk_mesh_expand_validate() checks every face range, corner index,
 *   attribute index and the skin's CSR arrays against their counts, and
 *   every size against uint32 limits; run() validates first. Scenes from
 *   rk_load_file() always pass; hand-built ones get RK_ERROR_CORRUPT
 *   naming the first bad value. Face slot indices and skin joint indices
 *   may be anything (handled above, counted in the stats).
 *
 * THREAD SAFETY
 *   The scene is only read. Any number of jobs may run concurrently on one
 *   const scene with distinct output and scratch buffers. No global state.
 */
#ifndef RIGKIT_MESH_H
#define RIGKIT_MESH_H

#include "rigkit/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Triangulation
 * ------------------------------------------------------------------------- */

/* rk_polygon_triangulate() result flags. */
enum {
	/* Ear clipping found no valid ear at some step (a self-intersecting or
	 * numerically hopeless remainder): the best convex corner was clipped
	 * regardless of containment, or, if no corner was convex, the remainder
	 * was fanned from its first corner; or (polygons of more than 64
	 * corners) the work budget ran out and the rest was clipped without
	 * containment tests. Triangles may overlap; the signed area is still
	 * exact. */
	RK_TRIANGULATE_FALLBACK = 1u << 0,
	/* The polygon has no area (Newell normal ~0: all points coincident or
	 * collinear, or lobes cancelling): it was fanned from corner 0. Not
	 * tested for 3 corners (a triangle is returned as is). */
	RK_TRIANGULATE_DEGENERATE = 1u << 1,
	/* Bad arguments (see below): nothing was written, 0 returned. */
	RK_TRIANGULATE_INVALID = 1u << 2
};

/* Polygons up to this many corners need no scratch (a stack buffer is used). */
#define RK_TRIANGULATE_STACK_CORNERS 32

/* Scratch bytes rk_polygon_triangulate() needs for `corner_count` corners
 * (0 for fewer than 5 corners; SIZE_MAX if the size overflows). */
size_t rk_polygon_triangulate_scratch_size(size_t corner_count);

/* Triangulates one polygon by ear clipping.
 *
 * Corner k is positions[indices[k]] (indices NULL: positions[k]);
 * position_count bounds indices. Writes corner_count - 2 triangles, i.e.
 * 3 * (corner_count - 2) uint32 values, into `destination` as polygon-local
 * corner numbers 0..corner_count-1, and returns the triangle count (0 for
 * fewer than 3 corners).
 *
 * Method: the polygon is projected onto the plane through its corners with
 * the Newell normal N (the area vector, robust for non-planar polygons) as
 * normal, in a right-handed basis (u, v, N), so its winding becomes
 * counter-clockwise. Triangles: 3 corners as is; 4 corners split along the
 * diagonal whose two triangles both face along N (the shorter one when both
 * do); otherwise ear clipping over a linked list. An ear is a corner whose
 * triangle (prev, corner, next) has positive area and contains no other
 * remaining corner (inside or on the boundary; corners at the same 2D
 * point as one of the three are ignored, which handles duplicated points
 * and bridge edges). Each step clips, in this order of preference:
 *   1. a zero-area corner that duplicates a neighbour or is the tip of a
 *      spike (the outline doubles back), which removes no area;
 *   2. the ear with the best shape (largest 2 * area / sum of squared edge
 *      lengths);
 *   3. any zero-area corner (e.g. collinear on an edge);
 *   4. RK_TRIANGULATE_FALLBACK (see the flag).
 * Tolerances are relative to the polygon's size (1e-12 * extent^2).
 *
 * Polygons of more than 64 corners follow the same rules with two indexes
 * (so results for them may differ from the scan above, equally valid):
 * the clippable corners sit in a binary heap (free, then ears by shape,
 * then zero-area; the shape key is 2 * area / (sum of squared edges)^2 so
 * that small well-shaped ears go first and triangles stay local), and the
 * corners that can block an ear (reflex or zero-area: in a simple polygon
 * a triangle containing any corner contains one of those) sit in a static
 * bounding-box tree over their Z-order, with per-node counts of blocking
 * corners, so an ear test visits only the nodes near its triangle. Each
 * call has a work budget of n * min(n, 1024) node visits and point tests;
 * when it is spent (only seen for self-intersecting polygons) the rest is
 * clipped best-shaped convex corner first, without containment tests, and
 * RK_TRIANGULATE_FALLBACK is set.
 *
 * Guarantees: every corner is used; each triangle (a, b, c) is in the
 * polygon's winding, so the sum of the triangles' area vectors equals the
 * polygon's area vector (no area is dropped); for simple polygons, planar
 * or not, every triangle lies inside the projected polygon and faces along N.
 *
 * destination: 3 * (corner_count - 2) entries. scratch: scratch_size >=
 * rk_polygon_triangulate_scratch_size(corner_count) bytes, any alignment; may be
 * NULL when corner_count <= RK_TRIANGULATE_STACK_CORNERS. Returns 0 with
 * RK_TRIANGULATE_INVALID for NULL destination/positions, an index >=
 * position_count, scratch too small, or corner_count > UINT32_MAX.
 * out_flags (may be NULL) receives RK_TRIANGULATE_* bits. Pure, thread
 * safe, no allocation. Time for n corners: up to 64, O(n^2) typical and
 * O(n^3) at worst (n is small); more than 64, O(n log n) typical (100,000
 * corners: 0.1-0.3 s, docs/benchmarks.md) and O(n * min(n, 1024) + n log n)
 * at worst, whatever the input. Scratch: about 40 bytes per corner up to
 * 64 corners, 76 above. */
size_t rk_polygon_triangulate(uint32_t *destination, const rk_vec3 *positions, size_t position_count,
	const uint32_t *indices, size_t corner_count, void *scratch, size_t scratch_size, uint32_t *out_flags);

/* ---------------------------------------------------------------------------
 * Smooth normals
 * ------------------------------------------------------------------------- */

/* SMOOTH NORMALS: one normal per vertex of a polygon mesh.
 *
 *   n_v = normalize( sum over faces f with a corner at v:  angle_f(v) * A_f )
 *
 *   A_f       the face's area vector (Newell normal) in its winding:
 *             sum_k (p_k - p_0) x (p_k+1 - p_0); |A_f| = 2 * area for a
 *             planar face, (b - a) x (c - a) for a triangle
 *   angle_f(v) the angle between the face's two edges at that corner,
 *             atan2(|e1 x e2|, e1 . e2) in radians, 0..pi (a corner repeated
 *             in one face counts once per corner)
 *
 * Why angle times area: three.js BufferGeometry.computeVertexNormals sums
 * the unnormalised triangle cross products (area weighting: large faces
 * dominate, small slivers barely tilt the normal); Blender's mesh normals
 * sum the unit face normal times the corner angle (angle weighting, after
 * Thuermer and Wuethrich: cutting a flat face into more faces leaves its
 * vertices' normals unchanged, since the corner angles add up). The product
 * keeps a part of both and is the weighting mesh expansion documented
 * and tested before this function existed (then per triangle). Working per
 * polygon, it does not depend on how a polygon is triangulated either (the
 * glTF writer triangulates after transforming, the expansion before).
 *
 * destination: vertex_count entries, written for every vertex: unit
 * length, or (0, 0, 0) for a vertex no face with area reaches (or whose
 * sum cancels or overflows). Faces are faces[0 .. face_count) over
 * vertex_indices (rk_mesh layout: face f's corners are
 * vertex_indices[index_begin .. index_begin + index_count)). Untrusted
 * input is fine: a face with fewer than 3 corners, a corner range beyond
 * index_count or a vertex index >= vertex_count is skipped and counted;
 * faces with no (or a non-finite) area vector and corners with a
 * non-finite angle add nothing. Returns the number of faces skipped
 * (face_count when a needed pointer is NULL; then nothing is written).
 * No scratch, no allocation, O(corners); pure and thread safe. The mesh is
 * whatever space the positions are in: to get normals for transformed
 * positions, transform these by the inverse-transpose. This is the one
 * smooth-normal generator: mesh expansion, the glTF writer (export.h) and
 * the sample characters' builder (demo.h, "Body") all use its code. */
size_t rk_mesh_smooth_normals(rk_vec3 *destination, const rk_vec3 *positions, size_t vertex_count,
	const uint32_t *vertex_indices, size_t index_count, const rk_face *faces, size_t face_count);

/* ---------------------------------------------------------------------------
 * Options and vertex format
 * ------------------------------------------------------------------------- */

typedef enum rk_weight_format {
	RK_WEIGHTS_FLOAT = 0,   /* float32 x4 */
	RK_WEIGHTS_UNORM16      /* uint16 x4, normalised (65535 = 1) */
} rk_weight_format;

typedef enum rk_joint_index_mode {
	RK_JOINTS_SKIN = 0,     /* index into node->skin->joints */
	RK_JOINTS_NODE          /* rk_node.index of the joint node */
} rk_joint_index_mode;

typedef enum rk_unweighted_mode {
	RK_UNWEIGHTED_ZERO = 0, /* joints 0, weights 0 */
	RK_UNWEIGHTED_BIND_JOINT /* joints[0] = unweighted_joint, weights[0] = 1 */
} rk_unweighted_mode;

/* Options. Zero-initialise; every zero field is the default. */
typedef struct rk_mesh_opts {
	const rk_node *node;            /* rk_mesh_expansion_build only: expand just this node (must be
	                                   one of the scene's, with a mesh); NULL = every node
	                                   with a mesh, in scene order. Ignored by the job. */
	bool mirror;                    /* reverse triangle winding (see step 2) */
	bool flip_v;                    /* v' = 1 - v (FBX/OBJ bottom-left UVs -> top-left) */
	bool tangents;                  /* add a float32 x4 tangent attribute */
	bool generate_normals;          /* generate normals even when the file has some */
	bool no_geometry_transform;     /* do not apply node->geometry_to_node */
	bool world_space;               /* unskinned nodes: positions/normals in world space */
	bool no_skin_attributes;        /* drop joints/weights from the layout */
	bool no_dedup;                  /* keep one vertex per face corner */
	bool optimize;                  /* vertex cache + fetch optimisation (step 4) */
	rk_weight_format weight_format; /* default RK_WEIGHTS_FLOAT */
	rk_joint_index_mode joint_indices; /* default RK_JOINTS_SKIN */
	rk_unweighted_mode unweighted;  /* default RK_UNWEIGHTED_ZERO */
	uint16_t unweighted_joint;      /* joint for RK_UNWEIGHTED_BIND_JOINT, default 0 */
	rk_allocator allocator;         /* rk_mesh_expansion_build only; zero = malloc/free */
} rk_mesh_opts;

/* Marks an attribute missing from a format. */
#define RK_ATTRIBUTE_ABSENT UINT32_MAX

/* Byte layout of one interleaved vertex (see VERTEX LAYOUT). */
typedef struct rk_vertex_format {
	uint32_t stride;                /* bytes per vertex */
	uint32_t position_offset;       /* float32 x3, always 0 */
	uint32_t normal_offset;         /* float32 x3, always 12 */
	uint32_t uv_offset;             /* float32 x2, always 24 */
	uint32_t joints_offset;         /* uint16 x4, 32 or RK_ATTRIBUTE_ABSENT */
	uint32_t weights_offset;        /* weight_format x4, 40 or RK_ATTRIBUTE_ABSENT */
	uint32_t tangent_offset;        /* float32 x4 or RK_ATTRIBUTE_ABSENT */
	rk_weight_format weight_format;
} rk_vertex_format;

/* The default vertex (zeroed rk_mesh_opts): 56 bytes, offsets 0/12/24/32/40. */
typedef struct rk_gpu_vertex {
	float position[3];              /* P * mesh position (see step 3) */
	float normal[3];                /* unit length (zero only for zero input) */
	float uv[2];
	uint16_t joints[4];             /* see SKIN INFLUENCES */
	float weights[4];               /* descending, sum 1 (or all 0) */
} rk_gpu_vertex;

/* The format rk_mesh_opts selects (NULL = defaults). Pure. */
rk_vertex_format rk_mesh_vertex_format(const rk_mesh_opts *opts);

/* ---------------------------------------------------------------------------
 * One mesh node: the expansion job
 * ------------------------------------------------------------------------- */

/* A run of triangles sharing one material. */
typedef struct rk_mesh_part {
	rk_material *material;          /* NULL for no / out-of-range material */
	uint32_t start_index;           /* first index (job: in job->indices; expansion: in x->indices) */
	uint32_t index_count;           /* 3 * triangles */
	uint32_t material_slot;         /* first slot naming `material`; UINT32_MAX when the
	                                   part holds only out-of-range slots */
	int32_t uv_set;                 /* index into mesh->uv_sets used for the UVs, -1 if none */
} rk_mesh_part;

/* What the expansion met (counts over the node, or summed over nodes). */
typedef struct rk_mesh_stats {
	size_t polygons;                /* faces read */
	size_t triangles;               /* triangles written */
	size_t skipped_polygons;        /* faces with < 3 corners (no triangles) */
	size_t fallback_polygons;       /* RK_TRIANGULATE_FALLBACK faces */
	size_t degenerate_polygons;     /* RK_TRIANGULATE_DEGENERATE faces (zero area, fanned) */
	size_t invalid_material_slots;  /* faces with slot >= slot count (> 0) */
	size_t corners;                 /* vertices before deduplication */
	size_t unweighted_vertices;     /* mesh vertices of a skinned mesh without usable weights */
	size_t truncated_influences;    /* mesh vertices with more than 4 usable weights */
	size_t dropped_weights;         /* unusable weights ignored */
	size_t generated_normal_meshes; /* nodes whose normals were generated */
	size_t tangent_meshes;          /* nodes with tangents written (opts.tangents) */
} rk_mesh_stats;

/* Buffer sizes for one node (rk_mesh_expand_bound). */
typedef struct rk_mesh_expand_sizes {
	size_t max_vertices;            /* vertices: corners of faces with >= 3 corners */
	size_t index_count;             /* exact: 3 * sum over faces of max(0, n - 2) */
	size_t max_parts;               /* slot count + 1 */
	size_t scratch_size;            /* bytes of job scratch */
	size_t max_polygon_corners;     /* largest face */
} rk_mesh_expand_sizes;

/* Sizes the job needs for `node` with `opts` (NULL = defaults). Linear in
 * the face count; reads only counts and face sizes. False with
 * RK_ERROR_INVALID_ARGUMENT when node or node->mesh is NULL, RK_ERROR_CORRUPT
 * when faces is NULL with face_count > 0, RK_ERROR_LIMIT when a count does
 * not fit the uint32 index range. Thread safe. */
bool rk_mesh_expand_bound(const rk_node *node, const rk_mesh_opts *opts, rk_mesh_expand_sizes *out, rk_error *err);

/* What rk_mesh_expand_run() wrote (rk_mesh_expand_job.output). */
typedef struct rk_mesh_expand_output {
	size_t vertex_count;            /* vertices written */
	size_t index_count;             /* indices written (== sizes.index_count) */
	size_t part_count;              /* parts written, ordered as in step 1 */
	rk_vertex_format format;
	bool skinned;                   /* influences written from node->skin */
	bool world_space;               /* positions are world space (P includes node_to_world) */
	bool reversed_winding;          /* step 2 reversed the triangles */
	rk_vec3 bounds_min, bounds_max; /* of the written positions; both 0 when no vertex */
	rk_mesh_stats stats;
} rk_mesh_expand_output;

/* Expands one mesh node into caller buffers. Fill the inputs, run, read
 * *output. The job owns no memory; every output is behind a pointer, so a
 * const job can run. */
typedef struct rk_mesh_expand_job {
	/* inputs */
	const rk_node *node;            /* a node with a mesh */
	const rk_mesh_opts *opts;       /* NULL = defaults */
	uint32_t base_vertex;           /* added to every index written (placing several nodes
	                                   in one vertex buffer); default 0 */
	void *vertices;                 /* >= max_vertices * stride bytes, 4-byte aligned */
	size_t vertex_capacity;         /* in vertices */
	uint32_t *indices;              /* >= index_count entries */
	size_t index_capacity;
	rk_mesh_part *parts;            /* >= max_parts entries */
	size_t part_capacity;
	void *scratch;                  /* >= scratch_size bytes, any alignment */
	size_t scratch_size;
	rk_mesh_expand_output *output;  /* required: counts, format, bounds, stats */
} rk_mesh_expand_job;

/* Checks the job: buffers against rk_mesh_expand_bound(), then the mesh
 * data (see UNTRUSTED DATA). False with err set (INVALID_ARGUMENT for
 * missing or small buffers, CORRUPT for bad mesh data, LIMIT for uint32
 * overflow, including base_vertex + vertices). O(corners + weights). */
bool rk_mesh_expand_validate(const rk_mesh_expand_job *job, rk_error *err);

/* Validates, then expands (WHAT ONE MESH NODE BECOMES). Returns false
 * (nothing useful in the outputs) only when rk_mesh_expand_validate() would
 * fail: call it yourself to learn why. No allocation except meshoptimizer's
 * (MEMORY). */
bool rk_mesh_expand_run(const rk_mesh_expand_job *job);

/* Scene radius of a box: r = max over axes of (max - min) / 2;
 * 1.0 when r < 1e-3 or not finite (so an empty or inverted box gives 1). */
double rk_mesh_radius(rk_vec3 bounds_min, rk_vec3 bounds_max);

/* ---------------------------------------------------------------------------
 * Every mesh node: one allocation
 * ------------------------------------------------------------------------- */

/* One expanded mesh node inside an rk_mesh_expansion. */
typedef struct rk_mesh_draw {
	const rk_node *node;
	const rk_mesh *mesh;
	const rk_skin_deformer *skin;            /* node->skin when influences were written, else NULL */
	uint32_t first_vertex, vertex_count;  /* range of x->vertices */
	uint32_t first_index, index_count;    /* range of x->indices (absolute indices) */
	uint32_t first_part, part_count;      /* range of x->parts */
	bool world_space;               /* see rk_mesh_expand_output */
	bool reversed_winding;
	rk_vec3 bounds_min, bounds_max; /* of this node's positions */
	rk_mesh_stats stats;
} rk_mesh_draw;

typedef struct rk_mesh_expansion {
	rk_vertex_format format;
	size_t vertex_count;
	void *vertices;                 /* vertex_count * format.stride bytes; 16-byte aligned
	                                   when the allocator's blocks are (malloc's are) */
	size_t index_count;
	uint32_t *indices;              /* triangle list, absolute into vertices */
	size_t part_count;
	rk_mesh_part *parts;            /* start_index absolute into indices */
	size_t draw_count;
	rk_mesh_draw *draws;            /* one per expanded node, scene order */
	rk_vec3 bounds_min, bounds_max; /* union of the draws' boxes (mixes spaces when
	                                   world_space and skinned nodes meet) */
	double radius;                  /* rk_mesh_radius(bounds_min, bounds_max) */
	rk_mesh_stats stats;            /* summed over draws */
	size_t memory_size;             /* bytes of the single result block */
	rk_allocator allocator_;        /* used by rk_mesh_expansion_free */
} rk_mesh_expansion;

/* Expands every node with a mesh (opts->node: just that one) into one
 * block: draws, parts, indices and vertices, each node's vertices
 * deduplicated on their own. A scene without mesh nodes gives an expansion
 * with zero counts and radius 1. NULL on failure with err set (the job's
 * errors naming the node, RK_ERROR_OUT_OF_MEMORY, RK_ERROR_LIMIT when the
 * totals exceed uint32 indices). Temporary memory (worst-case sizes plus
 * scratch) is freed before return. Thread safe for distinct results. */
rk_mesh_expansion *rk_mesh_expansion_build(const rk_scene *scene, const rk_mesh_opts *opts, rk_error *err);

/* Frees the expansion (one allocation). NULL is fine. */
void rk_mesh_expansion_free(rk_mesh_expansion *x);

/* Human-readable summary of an expansion, written like
 * snprintf: always NUL-terminated when cap > 0, returns the length the whole
 * text needs (excluding the NUL); dst = NULL, cap = 0 asks. Format, one
 * line per draw and per part, then a total line:
 *
 *   mesh "Body" node "Body": 2 parts, 7212 vertices, 13280 triangles, skinned (52 joints)
 *     part 0: material "Skin" (slot 0), uv set 0, 10000 triangles, indices 0..29999
 *     part 1: material (none) (slot -), uv set -1, 3280 triangles, indices 30000..39839
 *   total: 1 mesh nodes, 2 parts, 7212 vertices, 13280 triangles, radius 87.5
 *
 * followed, when non-zero, by "note: " lines with the stats counters
 * (fallback/degenerate/skipped polygons, invalid slots, unweighted
 * vertices, truncated influences, dropped weights). Pure, thread safe. */
size_t rk_mesh_expansion_describe(char *dst, size_t cap, const rk_mesh_expansion *x);

#ifdef __cplusplus
}
#endif
#endif
