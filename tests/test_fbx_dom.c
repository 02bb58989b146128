/*
 * tests/test_fbx_dom.c - the FBX document parser (src/formats/fbx/fbx_dom.c).
 *
 * Real files come from the shared folder (rk_test_shared_dir(); tests that
 * need it are skipped when it is absent). Hand-built binary files are written
 * byte by byte below, zlib data made with libdeflate's compressor.
 *
 * Robustness tests (truncations, byte corruptions, allocation failures) run
 * at full size by default: the whole file takes about 1 s in a -O2 build and
 * about 6 s with ASan+UBSan (clang -O1), so sanitizer runs need no reduction.
 * RIGKIT_TEST_QUICK=1 in the environment thins them out anyway (500 instead
 * of 2000 truncation lengths of ybot@kick.fbx, every 8th length of the small
 * files, 200 instead of 1000 corruptions per file) for much slower setups
 * such as valgrind. RIGKIT_TEST_VERBOSE=1 prints allocation counts.
 */
#include "formats/fbx/fbx_dom.h"
#include "formats/fbx/fbx_nodes.h"
#include "rk_test.h"

#include <dirent.h>
#include <errno.h>
#include <libdeflate.h>
#include <stdint.h>

/* ---- helpers ------------------------------------------------------------- */

static bool quick_mode(void)
{
	const char *q = getenv("RIGKIT_TEST_QUICK");
	return q && q[0] && strcmp(q, "0") != 0;
}

/* A parse with its own allocators: `tmp` must be empty after every parse. */
typedef struct parsed {
	rki_alloc arena_alloc;
	rki_alloc tmp;
	rki_arena arena;
	rki_fbx_doc doc;
	rk_error err;
	bool ok;
} parsed;

static void parse_bytes(parsed *p, const void *data, size_t size, const rki_fbx_limits *lim)
{
	memset(p, 0, sizeof(*p));
	rki_alloc_init(&p->arena_alloc, NULL, 0, 0);
	rki_alloc_init(&p->tmp, NULL, 0, 0);
	rki_arena_init(&p->arena, &p->arena_alloc);
	rki_error_clear(&p->err);
	p->ok = rki_fbx_parse(&p->doc, data, size, &p->arena, &p->tmp, lim, &p->err);
}

/* As parse_bytes, with binary arrays left pending (rki_fbx_parse_opts.lazy_arrays). */
static void parse_lazy(parsed *p, const void *data, size_t size, const rki_fbx_limits *lim)
{
	memset(p, 0, sizeof(*p));
	rki_alloc_init(&p->arena_alloc, NULL, 0, 0);
	rki_alloc_init(&p->tmp, NULL, 0, 0);
	rki_arena_init(&p->arena, &p->arena_alloc);
	rki_error_clear(&p->err);
	rki_fbx_parse_opts opts;
	memset(&opts, 0, sizeof(opts));
	if (lim) opts.limits = *lim;
	opts.lazy_arrays = true;
	p->ok = rki_fbx_parse_ex(&p->doc, data, size, &p->arena, &p->tmp, &opts, &p->err);
}

static void parsed_free(parsed *p)
{
	rki_arena_free(&p->arena);
}

typedef struct file_data {
	rki_alloc alloc;
	unsigned char *data;
	size_t size;
} file_data;

static bool load_file(file_data *f, const char *path)
{
	rk_error err;
	rki_alloc_init(&f->alloc, NULL, 0, 0);
	f->data = (unsigned char *)rki_read_file(&f->alloc, path, 0, &f->size, &err);
	if (!f->data) fprintf(stderr, "cannot read %s: %s\n", path, err.message);
	return f->data != NULL;
}

static void free_file(file_data *f)
{
	rki_free(&f->alloc, f->data, f->size + 1);
	f->data = NULL;
}

static bool shared_path(char *buf, size_t cap, const char *rel)
{
	const char *dir = rk_test_shared_dir();
	if (!dir) return false;
	snprintf(buf, cap, "%s/%s", dir, rel);
	return true;
}

static const rki_fbx_node *child(const rki_fbx_node *n, const char *name)
{
	return rki_fbx_find_child(n, name);
}

/* Checks parent links and NUL-terminated names everywhere below n
 * (recursive: parsed depth is bounded by the parser's max_depth, 64 here). */
static bool tree_consistent(const rki_fbx_node *n)
{
	if (!n->name || n->name[n->name_len] != '\0') return false;
	for (size_t i = 0; i < n->prop_count; i++) {
		const rki_fbx_prop *pr = &n->props[i];
		if ((pr->type == 'S' || pr->type == 'R') && (!pr->v.s.data || pr->v.s.data[pr->v.s.len] != '\0'))
			return false;
		if (strchr("fdlib", pr->type) && pr->type && !pr->v.a.data) return false;
	}
	for (size_t i = 0; i < n->child_count; i++)
		if (n->children[i].parent != n || !tree_consistent(&n->children[i])) return false;
	return true;
}

/* A parse failure must be clean: a code, a message, a byte offset inside the input. */
#define CHECK_CLEAN_FAILURE(p, size) do { \
	RK_CHECK((p)->err.code != RK_OK); \
	RK_CHECK((p)->err.message[0] != '\0'); \
	RK_CHECK(((p)->err.location & RK_LOCATION_BYTE) != 0); \
	RK_CHECK((p)->err.byte_offset <= (uint64_t)(size)); } while (0)

/* ---- 1. the whole corpus parses ---------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The Model properties the node builder looks up by name (FbxNode's
 * property names, as the FBX SDK writes them): each is found, and names
 * that differ by one character or in length are not. */
RK_TEST(node_prop_names)
{
	static const char *const names[] = {
		"Lcl Translation", "Lcl Rotation", "Lcl Scaling", "RotationOrder", "RotationOffset", "RotationPivot",
		"ScalingOffset", "ScalingPivot", "PreRotation", "PostRotation", "RotationActive", "InheritType",
		"GeometricTranslation", "GeometricRotation", "GeometricScaling", "Visibility", "currentUVSet",
		"TranslationActive", "ScalingActive"
	};
	size_t n = sizeof(names) / sizeof(names[0]);
	RK_CHECK(rki_fbx_node_prop_count() == (int)n);
	bool seen[32] = { false };
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		int k = rki_fbx_node_prop_index(names[i], len);
		RK_CHECK(k >= 0 && k < (int)n);
		if (k < 0 || k >= (int)n) continue;
		RK_CHECK(!seen[k]);
		seen[k] = true;
		RK_CHECK(strcmp(rki_fbx_node_prop_name(k), names[i]) == 0);
		char near[32];
		memcpy(near, names[i], len + 1);
		near[len - 1] = (char)(near[len - 1] ^ 0x20);
		RK_CHECK(rki_fbx_node_prop_index(near, len) == -1);
		RK_CHECK(rki_fbx_node_prop_index(names[i], len - 1) == -1);
	}
	RK_CHECK(rki_fbx_node_prop_index("Lcl Translation ", 16) == -1);
	RK_CHECK(rki_fbx_node_prop_index("", 0) == -1);
	RK_CHECK(rki_fbx_node_prop_name(-1) == NULL && rki_fbx_node_prop_name((int)n) == NULL);
}

RK_TEST(corpus_all_files_parse)
{
	char dir[4096];
	if (!shared_path(dir, sizeof(dir), "conformance/data")) RK_SKIP("shared folder (../shared) not found");
	DIR *dp = opendir(dir);
	RK_REQUIRE(dp != NULL);
	static char names[512][320];
	const char *list[512 + 2];
	size_t count = 0;
	struct dirent *de;
	while ((de = readdir(dp)) != NULL) {
		size_t len = strlen(de->d_name);
		if (len < 5 || len >= 256 || strcmp(de->d_name + len - 4, ".fbx") != 0 || count >= 512) continue;
		snprintf(names[count], sizeof(names[count]), "conformance/data/%s", de->d_name);
		list[count] = names[count];
		count++;
	}
	closedir(dp);
	qsort(list, count, sizeof(list[0]), cmp_str);
	list[count++] = "assets/ybot.fbx";
	list[count++] = "assets/ybot@kick.fbx";
	/* 123 .fbx files in conformance/data (counted with ls | grep -c fbx) plus the 2 assets. */
	RK_CHECK(count >= 125);
	size_t parsed_ok = 0;
	for (size_t i = 0; i < count; i++) {
		char path[4096];
		shared_path(path, sizeof(path), list[i]);
		file_data f;
		if (!load_file(&f, path)) {
			RK_CHECK(!"file unreadable");
			continue;
		}
		RK_CHECK(rki_fbx_is_fbx(f.data, f.size));
		parsed p;
		parse_bytes(&p, f.data, f.size, NULL);
		if (!p.ok) {
			char msg[1024];
			rk_error_format(msg, sizeof(msg), &p.err);
			fprintf(stderr, "  %s: %s\n", list[i], msg);
		}
		RK_CHECK(p.ok);
		RK_CHECK(p.tmp.bytes_in_use == 0);
		if (p.ok) {
			parsed_ok++;
			RK_CHECK(p.doc.root.child_count > 0);
			RK_CHECK(p.doc.root.parent == NULL);
			RK_CHECK(tree_consistent(&p.doc.root));
			/* 3000-5800 files keep objects at the top level. */
			if (p.doc.version >= 6000) RK_CHECK(child(&p.doc.root, "Objects") != NULL);
			/* file names say "_ascii" / "_binary" */
			if (strstr(list[i], "_ascii")) RK_CHECK(p.doc.ascii);
			if (strstr(list[i], "_binary")) RK_CHECK(!p.doc.ascii);
		}
		parsed_free(&p);
		free_file(&f);
	}
	RK_CHECK_INT(parsed_ok, count);
}

RK_TEST(corpus_versions_match_manifest)
{
	/* Values copied by hand from conformance/manifest.json, entry "file_info"
	 * (version, format) and "features" (big_endian) of each file. */
	static const struct { const char *file; unsigned version; bool ascii; bool big_endian; } cases[] = {
		{ "maya_cube_big_endian_7500_binary.fbx", 7500, false, true },
		{ "motionbuilder_cube_7700_binary.fbx", 7700, false, false },
		{ "maya_cube_7100_binary.fbx", 7100, false, false },
		{ "maya_cube_6100_ascii.fbx", 6100, true, false },
		{ "maya_cube_7500_ascii.fbx", 7500, true, false },
		{ "maya_child_pivots_7700_ascii.fbx", 7700, true, false },
		{ "max7_cube_5000_binary.fbx", 5000, false, false },   /* header says 3000 */
		{ "max2009_blob_5800_binary.fbx", 5800, false, false }, /* header says 3000 */
		{ "max2009_blob_5800_ascii.fbx", 5800, true, false },
		{ "max6_teapot_3000_binary.fbx", 3000, false, false },
	};
	char path[4096];
	if (!shared_path(path, sizeof(path), "conformance/data")) RK_SKIP("shared folder (../shared) not found");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[512];
		snprintf(rel, sizeof(rel), "conformance/data/%s", cases[i].file);
		shared_path(path, sizeof(path), rel);
		file_data f;
		RK_REQUIRE(load_file(&f, path));
		parsed p;
		parse_bytes(&p, f.data, f.size, NULL);
		RK_CHECK(p.ok);
		RK_CHECK_INT(p.doc.version, cases[i].version);
		RK_CHECK_INT(p.doc.ascii, cases[i].ascii);
		RK_CHECK_INT(p.doc.big_endian, cases[i].big_endian);
		if (!cases[i].ascii && cases[i].version < 6000) RK_CHECK_INT(p.doc.header_version, 3000);
		parsed_free(&p);
		free_file(&f);
	}
}

/* ---- 2. structural facts of ybot.fbx ------------------------------------------- */

/* Expected values were obtained with an independent reader written in Python
 * (struct + zlib only, no code shared with rigkit), run on the shared files:
 *
 *   import struct, zlib
 *   d = open('ybot.fbx','rb').read(); H = '<IIIB'   # version 7400 -> 32-bit records
 *   def node(p):  # returns ((name, props, children), next) or (None, next)
 *     end, n, pl, nl = struct.unpack_from(H, d, p)
 *     if end == 0: return None, p + 13
 *     name = d[p+13:p+13+nl]; p += 13 + nl; props = []
 *     for _ in range(n):
 *       t = chr(d[p]); p += 1
 *       if t in 'fdlib':
 *         c, e, cl = struct.unpack_from('<III', d, p); raw = d[p+12:p+12+cl]; p += 12 + cl
 *         raw = zlib.decompress(raw) if e else raw
 *         props.append(struct.unpack('<%d%s' % (c, dict(f='f',d='d',l='q',i='i',b='B')[t]), raw))
 *       elif t in 'SR': l, = struct.unpack_from('<I', d, p); props.append(d[p+4:p+4+l]); p += 4 + l
 *       else: f = dict(Y='<h',C='<B',I='<i',F='<f',D='<d',L='<q')[t]; props.append(struct.unpack_from(f, d, p)[0]); p += struct.calcsize(f)
 *     kids = []
 *     while p < end:
 *       k, p = node(p)
 *       if k is None: break
 *       kids.append(k)
 *     return (name, props, kids), end
 *   then: walk the top level from byte 27, count Objects children named b'Model',
 *   take len() of each Geometry's Vertices / PolygonVertexIndex array.
 *
 * It printed: ybot.fbx 69 Models; Geometry "Alpha_Surface\x00\x01Geometry":
 * Vertices 52008, PolygonVertexIndex 69216, first vertex (6.267427034930044,
 * 4.649287700732132, 13.578193118674072); "Alpha_Joints\x00\x01Geometry":
 * Vertices 31542, PolygonVertexIndex 43080. ybot@kick.fbx: 67 Models. */

static size_t count_children(const rki_fbx_node *n, const char *name)
{
	size_t c = 0;
	for (size_t i = 0; i < n->child_count; i++)
		if (strcmp(n->children[i].name, name) == 0) c++;
	return c;
}

static const rki_fbx_node *find_geometry(const rki_fbx_node *objects, const char *name, size_t name_len)
{
	for (size_t i = 0; i < objects->child_count; i++) {
		const rki_fbx_node *g = &objects->children[i];
		const char *s;
		size_t len;
		if (strcmp(g->name, "Geometry") != 0 || !rki_fbx_prop_str(g, 1, &s, &len)) continue;
		if (len == name_len && memcmp(s, name, len) == 0) return g;
	}
	return NULL;
}

RK_TEST(ybot_structure)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets/ybot.fbx")) RK_SKIP("shared folder (../shared) not found");
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	parsed p;
	parse_bytes(&p, f.data, f.size, NULL);
	RK_REQUIRE(p.ok);
	RK_CHECK_INT(p.doc.version, 7400);
	RK_CHECK(!p.doc.ascii);
	const rki_fbx_node *objects = child(&p.doc.root, "Objects");
	RK_REQUIRE(objects != NULL);
	RK_CHECK_INT(count_children(objects, "Model"), 69);

	static const struct { const char *name; size_t name_len; size_t verts, pvi; } geos[] = {
		{ "Alpha_Surface\0\1Geometry", sizeof("Alpha_Surface\0\1Geometry") - 1, 52008, 69216 },
		{ "Alpha_Joints\0\1Geometry", sizeof("Alpha_Joints\0\1Geometry") - 1, 31542, 43080 },
	};
	for (size_t gi = 0; gi < 2; gi++) {
		const rki_fbx_node *g = find_geometry(objects, geos[gi].name, geos[gi].name_len);
		RK_REQUIRE(g != NULL);
		const rki_fbx_node *v = child(g, "Vertices"), *pv = child(g, "PolygonVertexIndex");
		RK_REQUIRE(v && pv);
		RK_CHECK(v->prop_count == 1 && v->props[0].type == 'd');
		const double *pos;
		const int32_t *idx;
		size_t nv, ni;
		rk_error err;
		RK_REQUIRE(rki_fbx_array_f64(v, 0, &p.arena, &pos, &nv, &err));
		RK_REQUIRE(rki_fbx_array_i32(pv, 0, &p.arena, &idx, &ni, &err));
		RK_CHECK_INT(nv, geos[gi].verts);
		RK_CHECK_INT(ni, geos[gi].pvi);
		/* Independent cross-check inside the file: the largest vertex index
		 * (a negative index -x ends a polygon and means x - 1) + 1 is the
		 * vertex count, a third of the Vertices length. */
		int32_t max_index = -1;
		for (size_t k = 0; k < ni; k++) {
			int32_t x = idx[k] < 0 ? -idx[k] - 1 : idx[k];
			if (x > max_index) max_index = x;
		}
		RK_CHECK_INT((size_t)max_index + 1, nv / 3);
		RK_CHECK_INT(nv % 3, 0);
		if (gi == 0) {
			RK_CHECK(pos[0] == 6.267427034930044);
			RK_CHECK(pos[1] == 4.649287700732132);
			RK_CHECK(pos[2] == 13.578193118674072);
			char buf[128];
			rki_fbx_node_path(v, buf, sizeof(buf));
			RK_CHECK_STR(buf, "Objects/Geometry/Vertices");
			/* The property offset points at the 'd' type code in the file. */
			RK_CHECK(f.data[v->props[0].offset] == 'd');
			/* The node offset points at its record: name follows the 13-byte header. */
			RK_CHECK(memcmp(f.data + v->offset + 13, "Vertices", 8) == 0);
		}
	}
	RK_CHECK(tree_consistent(&p.doc.root));
	parsed_free(&p);
	free_file(&f);

	RK_REQUIRE(shared_path(path, sizeof(path), "assets/ybot@kick.fbx"));
	RK_REQUIRE(load_file(&f, path));
	parse_bytes(&p, f.data, f.size, NULL);
	RK_REQUIRE(p.ok);
	objects = child(&p.doc.root, "Objects");
	RK_REQUIRE(objects != NULL);
	RK_CHECK_INT(count_children(objects, "Model"), 67);
	parsed_free(&p);
	free_file(&f);
}

/* ---- 3. ASCII and binary versions of the same scene ------------------------------ */

/* First node under Objects (or the top level in 5800 files) with a Vertices
 * child (Geometry in 7.x, Model in 6100 and older). */
static const rki_fbx_node *first_mesh(const rki_fbx_doc *doc)
{
	const rki_fbx_node *objects = rki_fbx_find_child(&doc->root, "Objects");
	if (!objects) objects = &doc->root;
	for (size_t i = 0; i < objects->child_count; i++)
		if (rki_fbx_find_child(&objects->children[i], "Vertices")) return &objects->children[i];
	return NULL;
}

RK_TEST(ascii_binary_pairs_agree)
{
	static const char *const pairs[][2] = {
		{ "maya_cube_6100_ascii.fbx", "maya_cube_6100_binary.fbx" },
		{ "maya_cube_7100_ascii.fbx", "maya_cube_7100_binary.fbx" },
		{ "maya_cube_7400_ascii.fbx", "maya_cube_7400_binary.fbx" },
		{ "maya_cube_7500_ascii.fbx", "maya_cube_7500_binary.fbx" },
		{ "maya_cube_7500_binary.fbx", "maya_cube_big_endian_7500_binary.fbx" },
		{ "maya_cube_6100_binary.fbx", "maya_cube_big_endian_6100_binary.fbx" },
		{ "max2009_blob_5800_ascii.fbx", "max2009_blob_5800_binary.fbx" },
		{ "max2009_blob_6100_ascii.fbx", "max2009_blob_6100_binary.fbx" },
		{ "zbrush_d20_6100_ascii.fbx", "zbrush_d20_6100_binary.fbx" },
		{ "zbrush_d20_7500_ascii.fbx", "zbrush_d20_7500_binary.fbx" },
		{ "max_geometry_transform_7700_ascii.fbx", "max_geometry_transform_7700_binary.fbx" },
		{ "maya_rotation_order_7500_ascii.fbx", "maya_rotation_order_7500_binary.fbx" },
	};
	char path[4096];
	if (!shared_path(path, sizeof(path), "conformance/data")) RK_SKIP("shared folder (../shared) not found");
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		file_data f[2];
		parsed p[2];
		const double *v[2];
		const int32_t *ix[2];
		size_t nv[2], ni[2];
		bool ok = true;
		for (int k = 0; k < 2; k++) {
			char rel[512];
			snprintf(rel, sizeof(rel), "conformance/data/%s", pairs[i][k]);
			shared_path(path, sizeof(path), rel);
			RK_REQUIRE(load_file(&f[k], path));
			parse_bytes(&p[k], f[k].data, f[k].size, NULL);
			RK_CHECK(p[k].ok);
			const rki_fbx_node *mesh = p[k].ok ? first_mesh(&p[k].doc) : NULL;
			RK_CHECK(mesh != NULL);
			rk_error err;
			if (!mesh || !rki_fbx_array_f64(child(mesh, "Vertices"), 0, &p[k].arena, &v[k], &nv[k], &err) ||
				!rki_fbx_array_i32(child(mesh, "PolygonVertexIndex"), 0, &p[k].arena, &ix[k], &ni[k], &err)) {
				fprintf(stderr, "  %s: no Vertices/PolygonVertexIndex arrays\n", pairs[i][k]);
				ok = false;
			}
		}
		RK_CHECK(ok);
		if (ok) {
			RK_CHECK(nv[0] > 0 && ni[0] > 0);
			RK_CHECK_INT(nv[0], nv[1]);
			RK_CHECK_INT(ni[0], ni[1]);
			size_t bad_v = 0, bad_i = 0;
			for (size_t k = 0; k < nv[0] && nv[0] == nv[1]; k++) {
				/* ASCII writers print 15+ significant digits. */
				double tol = 1e-12 * (1.0 + fabs(v[0][k]));
				if (!(fabs(v[0][k] - v[1][k]) <= tol)) bad_v++;
			}
			for (size_t k = 0; k < ni[0] && ni[0] == ni[1]; k++)
				if (ix[0][k] != ix[1][k]) bad_i++;
			if (bad_v || bad_i) fprintf(stderr, "  %s vs %s: %zu vertices, %zu indices differ\n", pairs[i][0],
				pairs[i][1], bad_v, bad_i);
			RK_CHECK_INT(bad_v, 0);
			RK_CHECK_INT(bad_i, 0);
		}
		for (int k = 0; k < 2; k++) {
			parsed_free(&p[k]);
			free_file(&f[k]);
		}
	}
}

/* ---- 4. hand-built binary files -------------------------------------------------- */

typedef struct tb {
	unsigned char d[8192];
	size_t size;
	bool be;     /* big-endian file */
	bool wide;   /* 64-bit records (version >= 7500) */
} tb;

static void tb_bytes(tb *b, const void *p, size_t n)
{
	if (b->size + n > sizeof(b->d)) abort();
	memcpy(b->d + b->size, p, n);
	b->size += n;
}

static void tb_uint(tb *b, uint64_t v, size_t n)
{
	unsigned char x[8];
	for (size_t i = 0; i < n; i++) x[b->be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
	tb_bytes(b, x, n);
}

static void tb_patch(tb *b, size_t at, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++) b->d[at + (b->be ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

static void tb_header(tb *b, uint32_t version, bool be)
{
	memset(b, 0, sizeof(*b));
	b->be = be;
	b->wide = version >= 7500;
	tb_bytes(b, "Kaydara FBX Binary  \0\x1a", 22);
	unsigned char flag = be ? 1 : 0;
	tb_bytes(b, &flag, 1);
	tb_uint(b, version, 4);
}

static size_t tb_hdr(const tb *b)
{
	return b->wide ? 25 : 13;
}

/* Starts a node record; returns its offset. */
static size_t tb_begin(tb *b, const char *name, uint32_t nprops)
{
	size_t at = b->size, w = b->wide ? 8 : 4;
	tb_uint(b, 0, w);       /* end offset, patched by tb_end */
	tb_uint(b, nprops, w);
	tb_uint(b, 0, w);       /* property list length, patched by tb_props_done */
	unsigned char nl = (unsigned char)strlen(name);
	tb_bytes(b, &nl, 1);
	tb_bytes(b, name, nl);
	return at;
}

static void tb_props_done(tb *b, size_t at)
{
	size_t w = b->wide ? 8 : 4;
	size_t props_start = at + tb_hdr(b) + b->d[at + 3 * w];
	tb_patch(b, at + 2 * w, b->size - props_start, w);
}

static void tb_null(tb *b)
{
	static const unsigned char zeros[25] = { 0 };
	tb_bytes(b, zeros, tb_hdr(b));
}

static void tb_end(tb *b, size_t at, bool null_record)
{
	if (null_record) tb_null(b);
	tb_patch(b, at, b->size, b->wide ? 8 : 4);
}

static void tb_footer(tb *b)
{
	static const unsigned char id[16] = { 0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66,
		0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e };
	static const unsigned char magic[16] = { 0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
		0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b };
	static const unsigned char zeros[136] = { 0 };
	tb_bytes(b, id, 16);
	tb_bytes(b, zeros, 16 - (b->size % 16));
	tb_bytes(b, zeros, 4);
	tb_uint(b, 7400, 4);
	tb_bytes(b, zeros, 120);
	tb_bytes(b, magic, 16);
}

static void tb_type(tb *b, char t)
{
	tb_bytes(b, &t, 1);
}

/* Array property: elements given in native order, written in the file's order.
 * declared_count / declared_clen: 0 = the true values. */
static void tb_array(tb *b, char t, const void *elems, uint32_t count, size_t esize, bool zlib,
	uint32_t declared_count, uint32_t declared_clen)
{
	unsigned char raw[2048], comp[4096];
	const unsigned char *e = (const unsigned char *)elems;
	size_t n = (size_t)count * esize;
	if (n > sizeof(raw)) abort();
	for (uint32_t i = 0; i < count; i++)
		for (size_t j = 0; j < esize; j++)
			raw[i * esize + j] = e[i * esize + (b->be ? esize - 1 - j : j)];
	const unsigned char *data = raw;
	size_t clen = n;
	if (zlib) {
		struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
		if (!c) abort();
		clen = libdeflate_zlib_compress(c, raw, n, comp, sizeof(comp));
		libdeflate_free_compressor(c);
		if (clen == 0) abort();
		data = comp;
	}
	tb_type(b, t);
	tb_uint(b, declared_count ? declared_count : count, 4);
	tb_uint(b, zlib ? 1 : 0, 4);
	tb_uint(b, declared_clen ? declared_clen : clen, 4);
	tb_bytes(b, data, clen);
}

static const float k_f32[3] = { 1.5f, -2.25f, 1e-3f };
static const double k_f64[2] = { 3.141592653589793, -1e300 };
static const int64_t k_i64[2] = { -5000000000000LL, INT64_MAX };
static const int32_t k_i32[4] = { 0, 1, -3, INT32_MIN };
static const uint8_t k_b[3] = { 1, 0, 1 };

/* Scalars: Y C I F D L S R. Arrays: f raw, d zlib, l raw, i zlib, b raw; one child. */
static void build_sample(tb *b, uint32_t version, bool be, bool footer, bool top_null)
{
	tb_header(b, version, be);
	size_t s = tb_begin(b, "Scalars", 8);
	tb_type(b, 'Y'); tb_uint(b, (uint16_t)-2, 2);
	tb_type(b, 'C'); tb_uint(b, 1, 1);
	tb_type(b, 'I'); tb_uint(b, (uint32_t)-100000, 4);
	float fv = 1.5f;
	uint32_t fbits;
	memcpy(&fbits, &fv, 4);
	tb_type(b, 'F'); tb_uint(b, fbits, 4);
	double dv = -2.25;
	uint64_t dbits;
	memcpy(&dbits, &dv, 8);
	tb_type(b, 'D'); tb_uint(b, dbits, 8);
	tb_type(b, 'L'); tb_uint(b, (uint64_t)-5000000000000LL, 8);
	tb_type(b, 'S'); tb_uint(b, 13, 4); tb_bytes(b, "pCube1\0\1Model", 13);
	tb_type(b, 'R'); tb_uint(b, 3, 4); tb_bytes(b, "\xff\x00\x7f", 3);
	tb_props_done(b, s);
	tb_end(b, s, false);

	size_t a = tb_begin(b, "Arrays", 5);
	tb_array(b, 'f', k_f32, 3, 4, false, 0, 0);
	tb_array(b, 'd', k_f64, 2, 8, true, 0, 0);
	tb_array(b, 'l', k_i64, 2, 8, false, 0, 0);
	tb_array(b, 'i', k_i32, 4, 4, true, 0, 0);
	tb_array(b, 'b', k_b, 3, 1, false, 0, 0);
	tb_props_done(b, a);
	size_t c = tb_begin(b, "Child", 1);
	tb_type(b, 'I'); tb_uint(b, 7, 4);
	tb_props_done(b, c);
	tb_end(b, c, false);
	tb_end(b, a, true);
	if (top_null) tb_null(b);
	if (footer) tb_footer(b);
}

static void check_sample(rk_test_state *rk_t_, const parsed *p, const tb *b, uint32_t version)
{
	RK_REQUIRE(p->ok);
	RK_CHECK_INT(p->doc.version, version);
	RK_CHECK_INT(p->doc.big_endian, b->be);
	RK_CHECK(!p->doc.ascii);
	RK_REQUIRE(p->doc.root.child_count == 2);
	const rki_fbx_node *s = &p->doc.root.children[0];
	RK_CHECK_STR(s->name, "Scalars");
	RK_CHECK_INT(s->offset, 27);
	RK_REQUIRE(s->prop_count == 8);
	RK_CHECK_INT(s->props[0].offset, 27 + tb_hdr(b) + 7);
	const char types[] = "YCIFDLSR";
	for (int i = 0; i < 8; i++) RK_CHECK(s->props[i].type == types[i]);
	RK_CHECK_INT(s->props[0].v.i, -2);
	RK_CHECK_INT(s->props[1].v.i, 1);
	RK_CHECK_INT(s->props[2].v.i, -100000);
	RK_CHECK(s->props[3].v.f == 1.5);
	RK_CHECK(s->props[4].v.f == -2.25);
	RK_CHECK_INT(s->props[5].v.i, -5000000000000LL);
	RK_CHECK_INT(s->props[6].v.s.len, 13);
	RK_CHECK(memcmp(s->props[6].v.s.data, "pCube1\0\1Model", 14) == 0);  /* includes the NUL terminator */
	RK_CHECK_INT(s->props[7].v.s.len, 3);
	RK_CHECK(memcmp(s->props[7].v.s.data, "\xff\x00\x7f", 3) == 0);
	for (size_t i = 0; i < 8; i++) RK_CHECK(b->d[s->props[i].offset] == (unsigned char)types[i]);

	int64_t iv;
	double fv;
	const char *str;
	size_t len;
	RK_CHECK(rki_fbx_prop_i64(s, 0, &iv) && iv == -2);
	RK_CHECK(!rki_fbx_prop_i64(s, 4, &iv));  /* -2.25 is not integral */
	RK_CHECK(!rki_fbx_prop_i64(s, 3, &iv));  /* 1.5 either */
	RK_CHECK(rki_fbx_prop_f64(s, 5, &fv) && fv == -5e12);
	RK_CHECK(rki_fbx_prop_f64(s, 3, &fv) && fv == 1.5);
	RK_CHECK(!rki_fbx_prop_f64(s, 6, &fv));
	RK_CHECK(rki_fbx_prop_str(s, 6, &str, &len) && len == 13);
	RK_CHECK(rki_fbx_prop_str(s, 7, &str, &len) && len == 3);
	RK_CHECK(!rki_fbx_prop_str(s, 0, &str, &len));
	RK_CHECK(!rki_fbx_prop_i64(s, 8, &iv));
	RK_CHECK(!rki_fbx_prop_f64(s, 100, &fv));
	RK_CHECK(!rki_fbx_prop_str(NULL, 0, &str, &len));

	const rki_fbx_node *a = &p->doc.root.children[1];
	RK_CHECK_STR(a->name, "Arrays");
	RK_REQUIRE(a->prop_count == 5);
	RK_CHECK(a->props[0].type == 'f' && a->props[0].v.a.count == 3);
	RK_CHECK(memcmp(a->props[0].v.a.data, k_f32, sizeof(k_f32)) == 0);
	RK_CHECK(a->props[1].type == 'd' && a->props[1].v.a.count == 2);
	RK_CHECK(memcmp(a->props[1].v.a.data, k_f64, sizeof(k_f64)) == 0);
	RK_CHECK(a->props[2].type == 'l' && a->props[2].v.a.count == 2);
	RK_CHECK(memcmp(a->props[2].v.a.data, k_i64, sizeof(k_i64)) == 0);
	RK_CHECK(a->props[3].type == 'i' && a->props[3].v.a.count == 4);
	RK_CHECK(memcmp(a->props[3].v.a.data, k_i32, sizeof(k_i32)) == 0);
	RK_CHECK(a->props[4].type == 'b' && a->props[4].v.a.count == 3);
	RK_CHECK(memcmp(a->props[4].v.a.data, k_b, sizeof(k_b)) == 0);
	RK_REQUIRE(a->child_count == 1);
	RK_CHECK_STR(a->children[0].name, "Child");
	RK_CHECK(a->children[0].parent == a);
	RK_CHECK(a->parent == &p->doc.root);
	RK_CHECK(rki_fbx_prop_i64(&a->children[0], 0, &iv) && iv == 7);
	RK_CHECK(rki_fbx_find_child(&p->doc.root, "Arrays") == a);
	RK_CHECK(rki_fbx_find_child(&p->doc.root, "Array") == NULL);
}

RK_TEST(binary_handmade_32_and_64_bit)
{
	static const struct { uint32_t version; bool be; } cases[] = {
		{ 6100, false }, { 7400, false }, { 7500, false }, { 7700, false }, { 7400, true }, { 7500, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static tb b;
		build_sample(&b, cases[i].version, cases[i].be, true, true);
		RK_CHECK(rki_fbx_is_fbx(b.d, b.size));
		parsed p;
		parse_bytes(&p, b.d, b.size, NULL);
		check_sample(rk_t_, &p, &b, cases[i].version);
		RK_CHECK(p.tmp.bytes_in_use == 0);
		parsed_free(&p);
	}
}

RK_TEST(binary_array_conversions)
{
	static tb b;
	build_sample(&b, 7400, false, true, true);
	parsed p;
	parse_bytes(&p, b.d, b.size, NULL);
	RK_REQUIRE(p.ok);
	const rki_fbx_node *a = rki_fbx_find_child(&p.doc.root, "Arrays");
	RK_REQUIRE(a != NULL);
	const double *d;
	const int32_t *i32;
	const int64_t *i64;
	size_t n;
	rk_error err;
	/* f -> double */
	RK_REQUIRE(rki_fbx_array_f64(a, 0, &p.arena, &d, &n, &err));
	RK_CHECK(n == 3 && d[0] == 1.5 && d[1] == -2.25 && d[2] == (double)1e-3f);
	/* d -> double: no copy */
	RK_REQUIRE(rki_fbx_array_f64(a, 1, &p.arena, &d, &n, &err));
	RK_CHECK(n == 2 && (const void *)d == a->props[1].v.a.data);
	/* i -> int32: no copy; i -> int64 converts */
	RK_REQUIRE(rki_fbx_array_i32(a, 3, &p.arena, &i32, &n, &err));
	RK_CHECK(n == 4 && (const void *)i32 == a->props[3].v.a.data);
	RK_REQUIRE(rki_fbx_array_i64(a, 3, &p.arena, &i64, &n, &err));
	RK_CHECK(n == 4 && i64[2] == -3 && i64[3] == INT32_MIN);
	/* b -> int32 */
	RK_REQUIRE(rki_fbx_array_i32(a, 4, &p.arena, &i32, &n, &err));
	RK_CHECK(n == 3 && i32[0] == 1 && i32[1] == 0 && i32[2] == 1);
	/* l -> int64 direct; l -> int32 fails (INT64_MAX out of range) */
	RK_REQUIRE(rki_fbx_array_i64(a, 2, &p.arena, &i64, &n, &err));
	RK_CHECK(n == 2 && i64[1] == INT64_MAX);
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_array_i32(a, 2, &p.arena, &i32, &n, &err));
	RK_CHECK(err.code == RK_ERROR_CORRUPT && err.message[0]);
	RK_CHECK((err.location & RK_LOCATION_BYTE) && err.byte_offset == a->props[2].offset);
	RK_CHECK((err.location & RK_LOCATION_FBX_NODE) && strcmp(err.path, "Arrays") == 0);
	RK_CHECK(i32 == NULL && n == 0);
	/* f -> int32: 1.5 is not integral */
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_array_i32(a, 0, &p.arena, &i32, &n, &err));
	RK_CHECK(err.code == RK_ERROR_CORRUPT && strstr(err.message, "element 0") != NULL);
	/* d -> int64: 3.14159 not integral */
	RK_CHECK(!rki_fbx_array_i64(a, 1, &p.arena, &i64, &n, &err));
	/* index out of range, and a string property */
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_array_f64(a, 5, &p.arena, &d, &n, &err));
	RK_CHECK(err.code == RK_ERROR_CORRUPT && strcmp(err.path, "Arrays") == 0);
	const rki_fbx_node *s = rki_fbx_find_child(&p.doc.root, "Scalars");
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_array_f64(s, 6, &p.arena, &d, &n, &err));
	RK_CHECK(err.code == RK_ERROR_CORRUPT && err.byte_offset == s->props[6].offset);
	/* a node of numeric scalars only converts at index 0: Child has I 7 */
	RK_REQUIRE(rki_fbx_array_f64(&a->children[0], 0, &p.arena, &d, &n, &err));
	RK_CHECK(n == 1 && d[0] == 7.0);
	RK_REQUIRE(rki_fbx_array_i32(&a->children[0], 0, &p.arena, &i32, &n, &err));
	RK_CHECK(n == 1 && i32[0] == 7);
	char path[64];
	rki_fbx_node_path(&a->children[0], path, sizeof(path));
	RK_CHECK_STR(path, "Arrays/Child");
	rki_fbx_node_path(&a->children[0], path, 8);
	RK_CHECK_STR(path, "...hild");
	rki_fbx_node_path(&p.doc.root, path, sizeof(path));
	RK_CHECK_STR(path, "");
	parsed_free(&p);
}

RK_TEST(binary_footer_and_null_record)
{
	static tb b;
	parsed p;
	/* Top-level list ending right at the footer, no null record: accepted. */
	build_sample(&b, 7400, false, true, false);
	parse_bytes(&p, b.d, b.size, NULL);
	check_sample(rk_t_, &p, &b, 7400);
	parsed_free(&p);
	/* Null record but no footer: accepted (the footer is never read). */
	build_sample(&b, 7500, false, false, true);
	parse_bytes(&p, b.d, b.size, NULL);
	check_sample(rk_t_, &p, &b, 7500);
	parsed_free(&p);
	/* Neither: the list just stops -> truncated, at the end of the file. */
	build_sample(&b, 7400, false, false, false);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok);
	RK_CHECK_INT(p.err.code, RK_ERROR_TRUNCATED);
	RK_CHECK_INT(p.err.byte_offset, b.size);
	RK_CHECK(p.tmp.bytes_in_use == 0);
	parsed_free(&p);
}

/* Offset of the n-th property (0-based) of node record `at` in a 32-bit sample. */
static size_t sample_arrays_offset(const tb *b)
{
	/* Find the "Arrays" record: search for its name after its header. */
	for (size_t i = 27; i + 6 < b->size; i++)
		if (memcmp(b->d + i, "\x06" "Arrays", 7) == 0) return i + 7;
	abort();
}

RK_TEST(binary_corrupt_arrays)
{
	static tb b;
	parsed p;
	/* Raw int32 array declaring 4 elements (16 bytes) but only 12 data bytes. */
	tb_header(&b, 7400, false);
	size_t a = tb_begin(&b, "Arrays", 1);
	size_t prop_at = b.size;
	tb_array(&b, 'i', k_i32, 3, 4, false, 4, 0);
	tb_props_done(&b, a);
	tb_end(&b, a, false);
	tb_null(&b);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok);
	RK_CHECK_INT(p.err.code, RK_ERROR_CORRUPT);
	RK_CHECK(p.err.location & RK_LOCATION_BYTE);
	RK_CHECK_INT(p.err.byte_offset, prop_at);
	RK_CHECK(strstr(p.err.message, "declares 12") != NULL);
	RK_CHECK_STR(p.err.path, "Arrays");
	RK_CHECK(p.tmp.bytes_in_use == 0);
	parsed_free(&p);

	/* zlib data of 3 doubles declared as 4: inflates to fewer bytes. */
	tb_header(&b, 7500, false);
	a = tb_begin(&b, "Vertices", 1);
	prop_at = b.size;
	tb_array(&b, 'd', k_f64, 2, 8, true, 3, 0);
	tb_props_done(&b, a);
	tb_end(&b, a, false);
	tb_null(&b);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok);
	RK_CHECK_INT(p.err.code, RK_ERROR_CORRUPT);
	RK_CHECK_INT(p.err.byte_offset, prop_at);
	RK_CHECK(strstr(p.err.message, "inflates to 16 bytes") != NULL);
	RK_CHECK_STR(p.err.path, "Vertices");
	parsed_free(&p);

	/* zlib data of 4 ints declared as 2: inflates to more than declared. */
	tb_header(&b, 7400, false);
	a = tb_begin(&b, "Objects", 0);
	tb_props_done(&b, a);
	size_t g = tb_begin(&b, "Geometry", 0);
	tb_props_done(&b, g);
	size_t v = tb_begin(&b, "PolygonVertexIndex", 1);
	prop_at = b.size;
	tb_array(&b, 'i', k_i32, 4, 4, true, 2, 0);
	tb_props_done(&b, v);
	tb_end(&b, v, false);
	tb_end(&b, g, true);
	tb_end(&b, a, true);
	tb_null(&b);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok);
	RK_CHECK_INT(p.err.code, RK_ERROR_CORRUPT);
	RK_CHECK_INT(p.err.byte_offset, prop_at);
	RK_CHECK(strstr(p.err.message, "more than the declared 2") != NULL);
	RK_CHECK_STR(p.err.path, "Objects/Geometry/PolygonVertexIndex");
	parsed_free(&p);

	/* Corrupt zlib stream (flip a byte in the deflate data of the sample). */
	build_sample(&b, 7400, false, true, true);
	size_t arrays = sample_arrays_offset(&b);
	size_t dprop = arrays + 1 + 12 + 12;   /* after 'f' + header + 12 data bytes */
	RK_REQUIRE(b.d[dprop] == 'd');
	b.d[dprop + 13 + 4] ^= 0x55;          /* inside the deflate stream */
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok);
	RK_CHECK_INT(p.err.code, RK_ERROR_CORRUPT);
	RK_CHECK_INT(p.err.byte_offset, dprop);
	parsed_free(&p);

	/* Unknown encoding. */
	build_sample(&b, 7400, false, true, true);
	b.d[dprop + 5] = 2;
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT && strstr(p.err.message, "encoding 2"));
	parsed_free(&p);

	/* Unknown property type: the node keeps the properties before it, the
	 * rest of its property list is skipped and counted; the parse goes on
	 * (its child and the records after it are read). */
	build_sample(&b, 7400, false, true, true);
	b.d[dprop] = 'x';
	parse_bytes(&p, b.d, b.size, NULL);
	RK_REQUIRE(p.ok);
	RK_CHECK_INT(p.doc.skipped_props, 1);
	RK_CHECK(p.doc.skipped_type == 'x');
	RK_CHECK_INT(p.doc.skipped_offset, dprop);
	RK_REQUIRE(p.doc.root.child_count == 2);
	const rki_fbx_node *arr = &p.doc.root.children[1];
	RK_CHECK_INT(arr->prop_count, 1);
	RK_CHECK(arr->props[0].type == 'f');
	RK_REQUIRE(arr->child_count == 1);
	RK_CHECK_STR(arr->children[0].name, "Child");
	parsed_free(&p);
}

/* Type 'c' arrays (FbxChar: signed bytes, as some exporters write them),
 * raw and zlib, 32- and 64-bit records: 0xFF reads as -1, so a polygon
 * index list stored this way keeps its negative polygon ends. */
RK_TEST(binary_char_arrays)
{
	static tb b;
	parsed p;
	static const int8_t k_c[20] = { 1, 0, 1, 1, 0, -1, 7, 1, 0, 1, 1, 1, 0, 0, 1, 2, 3, 4, -128, 127 };
	for (int zlib = 0; zlib < 2; zlib++) {
		tb_header(&b, zlib ? 7500 : 7400, false);
		size_t a = tb_begin(&b, "Smoothing", 1);
		tb_array(&b, 'c', k_c, 20, 1, zlib != 0, 0, 0);
		tb_props_done(&b, a);
		tb_end(&b, a, false);
		tb_null(&b);
		parse_bytes(&p, b.d, b.size, NULL);
		RK_REQUIRE(p.ok);
		RK_CHECK_INT(p.doc.skipped_props, 0);
		const rki_fbx_node *n = &p.doc.root.children[0];
		RK_REQUIRE(n->prop_count == 1);
		RK_CHECK(n->props[0].type == 'c');
		const int32_t *iv;
		size_t count;
		rk_error err;
		rki_error_clear(&err);
		RK_REQUIRE(rki_fbx_array_i32(n, 0, &p.arena, &iv, &count, &err));
		RK_REQUIRE(count == 20);
		for (size_t i = 0; i < 20; i++) RK_CHECK_INT(iv[i], k_c[i]);
		parsed_free(&p);
	}
	/* Corrupt: a raw 'c' array declaring 30 elements over 20 data bytes, and
	 * a zlib one inflating to fewer bytes than declared; each names its
	 * property's byte offset and node. */
	for (int zlib = 0; zlib < 2; zlib++) {
		tb_header(&b, 7400, false);
		size_t a = tb_begin(&b, "Smoothing", 1);
		size_t prop_at = b.size;
		tb_array(&b, 'c', k_c, 20, 1, zlib != 0, 30, 0);
		tb_props_done(&b, a);
		tb_end(&b, a, false);
		tb_null(&b);
		parse_bytes(&p, b.d, b.size, NULL);
		bool failed = !p.ok;
		if (p.ok) {
			/* zlib arrays may be checked when decoded */
			const int32_t *iv;
			size_t count;
			rki_error_clear(&p.err);
			failed = !rki_fbx_array_i32(&p.doc.root.children[0], 0, &p.arena, &iv, &count, &p.err);
		}
		RK_CHECK(failed);
		RK_CHECK_INT(p.err.code, RK_ERROR_CORRUPT);
		RK_CHECK_INT(p.err.byte_offset, prop_at);
		RK_CHECK(strstr(p.err.path, "Smoothing") != NULL);
		parsed_free(&p);
	}
}

RK_TEST(binary_corrupt_records)
{
	static tb b;
	parsed p;
	/* End offset past the end of the file -> truncated. */
	build_sample(&b, 7400, false, true, true);
	tb_patch(&b, 27, b.size + 100, 4);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_TRUNCATED && p.err.byte_offset == 27);
	RK_CHECK_STR(p.err.path, "");
	parsed_free(&p);
	/* End offset before the property list ends -> corrupt. */
	build_sample(&b, 7500, false, true, true);
	tb_patch(&b, 27, 40, 8);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT && p.err.byte_offset == 27);
	parsed_free(&p);
	/* More properties than bytes. */
	build_sample(&b, 7400, false, true, true);
	tb_patch(&b, 31, 1000000, 4);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT);
	parsed_free(&p);
	/* String length past the property list. */
	build_sample(&b, 7400, false, true, true);
	size_t sprop = 27 + 13 + 7 + 3 + 2 + 5 + 5 + 9 + 9;
	RK_REQUIRE(b.d[sprop] == 'S');
	tb_patch(&b, sprop + 1, 0x7fffffff, 4);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT && p.err.byte_offset == sprop);
	RK_CHECK_STR(p.err.path, "Scalars");
	parsed_free(&p);
	/* Unsupported versions and a bad header. */
	build_sample(&b, 7400, false, true, true);
	tb_patch(&b, 23, 9000, 4);
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_UNSUPPORTED && strstr(p.err.message, "9000"));
	parsed_free(&p);
	build_sample(&b, 7400, false, true, true);
	b.d[21] = 0x1b;
	parse_bytes(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT);
	parsed_free(&p);
	/* Too short for the header. */
	parse_bytes(&p, "Kaydara FBX Binary  \0\x1a\0", 23, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_TRUNCATED);
	parsed_free(&p);
	parse_bytes(&p, "Kaydara FBX", 11, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_TRUNCATED);
	parsed_free(&p);
	parse_bytes(&p, "", 0, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_TRUNCATED);
	parsed_free(&p);
}

/* ---- ASCII syntax ----------------------------------------------------------------- */

static const char k_ascii[] =
	"; FBX 7.4.0 project file\n"
	"; comment line\r\n"
	"FBXHeaderExtension:  {\n"
	"\tFBXVersion: 7400 ; trailing comment\n"
	"}\n"
	"Objects:  {\n"
	"\tGeometry: 123456789012, \"Geometry::Cube\", \"Mesh\" {\n"
	"\t\tVertices: *6 {\n"
	"\t\t\ta: 1,2.5,-3, ; comment inside an array\n"
	"\t\t\t4e1,\n"
	"\t\t\t-0.0,0.1\n"
	"\t\t} \n"
	"\t\tPolygonVertexIndex: *3 {\n"
	"\t\t\ta: 0,1,-3\n"
	"\t\t}\n"
	"\t\tEmpty: *0 {\n"
	"\t\t}\n"
	"\t\tShading: T\n"
	"\t\tCulling: \"CullingOff\"\n"
	"\t\tPost-Extrapolation:  {\n"
	"\t\t\tType: N\n"
	"\t\t}\n"
	"\t\tName: \"a &quot;b&quot;\"\n"
	"\t}\n"
	"\tModel: \"Model::pCube1\", \"Mesh\" {\n"
	"\t\tVertices: -50,-50,50,50,-50,50,-50,50,50,50,50\n"
	"\t\t ,50,-50\n"
	"\t\tPolygonVertexIndex: 0,1,\n"
	"\t\t2,-4\n"
	"\t\tKey: \n"
	"\t\t\t0,0,L,\n"
	"\t\t\t1924423250,1.5,U,s,0,0,n\n"
	"\t\tCameraIndexName: \n"
	"\t\tContent: ,\n"
	" \"QUJD\"\n"
	"\t\tNumbers: 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.#INF, -1.#IND,"
	" -89.999995674159678, 1e-400, +7, .5\n"
	"\t}\n"
	"}\n";

RK_TEST(ascii_syntax)
{
	RK_CHECK(rki_fbx_is_fbx(k_ascii, sizeof(k_ascii) - 1));
	parsed p;
	parse_bytes(&p, k_ascii, sizeof(k_ascii) - 1, NULL);
	if (!p.ok) fprintf(stderr, "  %s (line %llu)\n", p.err.message, (unsigned long long)p.err.line);
	RK_REQUIRE(p.ok);
	RK_CHECK(p.doc.ascii);
	RK_CHECK_INT(p.doc.version, 7400);
	RK_CHECK(tree_consistent(&p.doc.root));
	const rki_fbx_node *objects = child(&p.doc.root, "Objects");
	RK_REQUIRE(objects && objects->child_count == 2);
	const rki_fbx_node *g = &objects->children[0];
	RK_CHECK_STR(g->name, "Geometry");
	RK_REQUIRE(g->prop_count == 3);
	RK_CHECK(g->props[0].type == 'L' && g->props[0].v.i == 123456789012LL);
	RK_CHECK(g->props[1].type == 'S' && strcmp(g->props[1].v.s.data, "Geometry::Cube") == 0);
	RK_CHECK(k_ascii[g->props[1].offset] == '"');
	RK_CHECK(memcmp(k_ascii + g->offset, "Geometry:", 9) == 0);

	const rki_fbx_node *v = child(g, "Vertices");
	RK_REQUIRE(v && v->prop_count == 1 && v->props[0].type == 'd');
	RK_CHECK(!v->props[0].all_integers);
	const double *d = (const double *)v->props[0].v.a.data;
	RK_REQUIRE(v->props[0].v.a.count == 6);
	RK_CHECK(d[0] == 1.0 && d[1] == 2.5 && d[2] == -3.0 && d[3] == 40.0);
	RK_CHECK(d[4] == 0.0 && signbit(d[4]) && d[5] == 0.1);
	const rki_fbx_node *pv = child(g, "PolygonVertexIndex");
	RK_REQUIRE(pv && pv->prop_count == 1 && pv->props[0].type == 'd');
	RK_CHECK(pv->props[0].all_integers);
	const int32_t *idx;
	size_t n;
	rk_error err;
	RK_REQUIRE(rki_fbx_array_i32(pv, 0, &p.arena, &idx, &n, &err));
	RK_CHECK(n == 3 && idx[0] == 0 && idx[1] == 1 && idx[2] == -3);
	RK_REQUIRE(rki_fbx_array_i32(v, 0, &p.arena, &idx, &n, &err) == false);
	RK_CHECK(err.code == RK_ERROR_CORRUPT && strstr(err.message, "element 1") != NULL);
	RK_CHECK_STR(err.path, "Objects/Geometry/Vertices");
	RK_CHECK(err.byte_offset == v->props[0].offset && k_ascii[err.byte_offset] == '*');
	const rki_fbx_node *e = child(g, "Empty");
	RK_REQUIRE(e && e->prop_count == 1 && e->props[0].type == 'd' && e->props[0].v.a.count == 0);
	RK_CHECK(e->props[0].v.a.data != NULL);
	const char *s;
	size_t len;
	RK_CHECK(rki_fbx_prop_str(child(g, "Shading"), 0, &s, &len) && len == 1 && s[0] == 'T');
	RK_CHECK(rki_fbx_prop_str(child(g, "Culling"), 0, &s, &len) && strcmp(s, "CullingOff") == 0);
	const rki_fbx_node *pe = child(g, "Post-Extrapolation");
	RK_REQUIRE(pe && pe->child_count == 1);
	RK_CHECK(rki_fbx_prop_str(&pe->children[0], 0, &s, &len) && strcmp(s, "N") == 0);
	RK_CHECK(rki_fbx_prop_str(child(g, "Name"), 0, &s, &len) && strcmp(s, "a &quot;b&quot;") == 0);

	const rki_fbx_node *m = &objects->children[1];
	const rki_fbx_node *mv = child(m, "Vertices");
	RK_REQUIRE(mv);
	RK_CHECK_INT(mv->prop_count, 13);
	const double *vd;
	RK_REQUIRE(rki_fbx_array_f64(mv, 0, &p.arena, &vd, &n, &err));
	RK_CHECK(n == 13 && vd[0] == -50 && vd[11] == 50 && vd[12] == -50);
	RK_CHECK(!rki_fbx_array_f64(mv, 1, &p.arena, &vd, &n, &err));  /* only index 0 */
	RK_REQUIRE(rki_fbx_array_i32(child(m, "PolygonVertexIndex"), 0, &p.arena, &idx, &n, &err));
	RK_CHECK(n == 4 && idx[3] == -4);
	const rki_fbx_node *key = child(m, "Key");
	RK_REQUIRE(key && key->prop_count == 10);
	RK_CHECK(key->props[2].type == 'S' && strcmp(key->props[2].v.s.data, "L") == 0);
	RK_CHECK(key->props[3].type == 'L' && key->props[3].v.i == 1924423250);
	RK_CHECK(key->props[4].type == 'D' && key->props[4].v.f == 1.5);
	RK_CHECK(!rki_fbx_array_f64(key, 0, &p.arena, &vd, &n, &err));  /* mixed list */
	const rki_fbx_node *cin = child(m, "CameraIndexName");
	RK_CHECK(cin && cin->prop_count == 0 && cin->child_count == 0);
	const rki_fbx_node *content = child(m, "Content");
	RK_REQUIRE(content && content->prop_count == 1);
	RK_CHECK(rki_fbx_prop_str(content, 0, &s, &len) && strcmp(s, "QUJD") == 0);
	const rki_fbx_node *num = child(m, "Numbers");
	RK_REQUIRE(num && num->prop_count == 9);
	RK_CHECK(num->props[0].type == 'L' && num->props[0].v.i == INT64_MAX);
	RK_CHECK(num->props[1].type == 'L' && num->props[1].v.i == INT64_MIN);
	RK_CHECK(num->props[2].type == 'D' && num->props[2].v.f == 9223372036854775808.0);
	RK_CHECK(num->props[3].type == 'D' && isinf(num->props[3].v.f) && num->props[3].v.f > 0);
	RK_CHECK(num->props[4].type == 'D' && isnan(num->props[4].v.f));
	RK_CHECK(num->props[5].type == 'D' && num->props[5].v.f == -89.999995674159678);
	RK_CHECK(num->props[6].type == 'D' && num->props[6].v.f == 0.0);
	RK_CHECK(num->props[7].type == 'L' && num->props[7].v.i == 7);
	RK_CHECK(num->props[8].type == 'D' && num->props[8].v.f == 0.5);
	int64_t iv;
	RK_CHECK(!rki_fbx_prop_i64(num, 2, &iv));  /* 2^63 does not fit */
	RK_CHECK(!rki_fbx_prop_i64(num, 4, &iv));  /* NaN */
	RK_CHECK(rki_fbx_prop_i64(num, 7, &iv) && iv == 7);
	parsed_free(&p);
}

/* Decimal parsing: every value must equal the compiler's correctly rounded literal. */
RK_TEST(ascii_number_rounding)
{
	static const char text[] =
		"N: 0.1, 0.2, 0.3, 1.7976931348623157e308, 2.2250738585072014e-308, 4.9406564584124654e-324,"
		" 0.30000000000000004, 123456789012345678901234567890, 3.141592653589793238462643383279,"
		" 1e22, 1e23, 9007199254740993, 9007199254740993.0, -0.000000000000000, 1E+2, 5e-1\n";
	static const double expect[] = {
		0.1, 0.2, 0.3, 1.7976931348623157e308, 2.2250738585072014e-308, 4.9406564584124654e-324,
		0.30000000000000004, 123456789012345678901234567890.0, 3.141592653589793238462643383279,
		1e22, 1e23, 9007199254740993.0, 9007199254740993.0, -0.0, 1e2, 0.5,
	};
	parsed p;
	parse_bytes(&p, text, sizeof(text) - 1, NULL);
	RK_REQUIRE(p.ok);
	const rki_fbx_node *n = child(&p.doc.root, "N");
	RK_REQUIRE(n && n->prop_count == sizeof(expect) / sizeof(expect[0]));
	for (size_t i = 0; i < n->prop_count; i++) {
		double v;
		RK_CHECK(rki_fbx_prop_f64(n, i, &v));
		if (v != expect[i] || signbit(v) != signbit(expect[i]))
			fprintf(stderr, "  value %zu: %.17g expected %.17g\n", i, v, expect[i]);
		RK_CHECK(v == expect[i] && signbit(v) == signbit(expect[i]));
	}
	RK_CHECK(n->props[11].type == 'L' && n->props[11].v.i == 9007199254740993LL);
	parsed_free(&p);
}

/* Decimal parsing against the C library's strtod() (correctly rounded in
 * glibc) on hostile tokens: every digit count from 1 to 60 with the point
 * anywhere, leading and trailing zeros, exponents to +-400 (overflow to
 * infinity, subnormals, underflow to zero), mantissas around 2^53 and 2^64,
 * and eight-digit runs cut at every offset. Each token is read both as a
 * scalar property and as an element of a 7.x "*N { a: ... }" array; the
 * doubles must be bit-identical to strtod's. Integer tokens that fit int64
 * stay integers ('L', equal to strtoll). */
typedef struct num_rng { uint64_t s; } num_rng;

static uint64_t num_next(num_rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static size_t num_token(num_rng *r, char *out, size_t cap)
{
	char digits[64];
	size_t nd = 1 + (size_t)(num_next(r) % 60), n = 0;
	unsigned style = (unsigned)(num_next(r) % 8);
	for (size_t i = 0; i < nd; i++) {
		unsigned d = (unsigned)(num_next(r) % 10);
		if (style == 1 && i < nd / 2) d = 0;            /* leading zeros */
		if (style == 2 && i > nd / 3) d = 0;            /* trailing zeros */
		if (style == 3) d = i % 8 == 7 ? 1 : 9;         /* runs of nines */
		digits[i] = (char)('0' + d);
	}
	if (num_next(r) % 3 == 0) out[n++] = num_next(r) % 2 ? '-' : '+';
	size_t dot = (size_t)(num_next(r) % (nd + 2));    /* nd + 1: no point */
	for (size_t i = 0; i < nd; i++) {
		if (i == dot) out[n++] = '.';
		out[n++] = digits[i];
	}
	if (dot == nd) out[n++] = '.';
	if (num_next(r) % 2) {
		int e = (int)(num_next(r) % 801) - 400;
		n += (size_t)snprintf(out + n, cap - n, "%s%d", num_next(r) % 2 ? "e" : "E", e);
	}
	out[n] = '\0';
	return n;
}

static bool same_double(double a, double b)
{
	if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
	return memcmp(&a, &b, sizeof(a)) == 0;
}

RK_TEST(ascii_numbers_match_strtod)
{
	static const char *const fixed[] = {
		"0", "-0", "+0", "0.0", "-0.0", ".0", "0.", "-.5e1", "5.", ".5", "00000000000000000000000001.5",
		"0e999", "0.000e-999", "1e-400", "-1e-400", "1e400", "-1e400", "2.4703282292062327e-324",
		"2.4703282292062328e-324", "4.9406564584124654e-324", "4.9e-324", "2.2250738585072011e-308",
		"2.2250738585072012e-308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
		"9007199254740992", "9007199254740993", "9007199254740993.0", "9007199254740992.5", "9007199254740993e0",
		"18446744073709551615", "18446744073709551616", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "1234567890123456789", "12345678901234567890",
		"1234567890123456789.5", "0.1234567890123456789", "0.12345678901234567890123", "12345678.12345678",
		"123456781234567812345678", "1e22", "1e23", "-1e-22", "1e-23", "8.98846567431158e307",
		"3.14159265358979323846264338327950288419716939937510", "0.30000000000000004", "1.36604283440533e-008",
		"-4.82595634460449", "99999999", "999999999", "99999999.99999999", "0.000000000000000000000000000000000001",
		"123456789012345678901234567890e-10", "7.0e+000", "1E+2", "5e-1", "4.35e-309", "1.00000000000000011102230246251565404236316680908203125",
		"1.00000000000000011102230246251565404236316680908203124", "1.00000000000000011102230246251565404236316680908203126",
	};
	enum { RANDOM = 4000 };
	size_t total = sizeof(fixed) / sizeof(fixed[0]) + RANDOM;
	size_t cap = total * 96 + 256;
	char *text = (char *)malloc(cap), *tokens = (char *)malloc(total * 80);
	size_t *starts = (size_t *)malloc(total * sizeof(size_t));
	RK_REQUIRE(text && tokens && starts);
	num_rng rng = { 0x9e3779b97f4a7c15ull };
	size_t tl = 0;
	for (size_t i = 0; i < total; i++) {
		starts[i] = tl;
		if (i < sizeof(fixed) / sizeof(fixed[0])) tl += (size_t)snprintf(tokens + tl, 80, "%s", fixed[i]);
		else tl += num_token(&rng, tokens + tl, 80);
		tokens[tl++] = '\0';
	}
	/* Scalars "S: t0, t1, ..." then the array "A: *N { a: t0,t1,... }". */
	size_t n = (size_t)snprintf(text, cap, "S: ");
	for (size_t i = 0; i < total; i++) n += (size_t)snprintf(text + n, cap - n, "%s%s", i ? ", " : "", tokens + starts[i]);
	n += (size_t)snprintf(text + n, cap - n, "\nA: *%zu {\n a: ", total);
	for (size_t i = 0; i < total; i++) n += (size_t)snprintf(text + n, cap - n, "%s%s", i ? "," : "", tokens + starts[i]);
	n += (size_t)snprintf(text + n, cap - n, "\n}\n");
	parsed p;
	parse_bytes(&p, text, n, NULL);
	RK_REQUIRE(p.ok);
	const rki_fbx_node *sc = child(&p.doc.root, "S"), *ar = child(&p.doc.root, "A");
	RK_REQUIRE(sc && ar && sc->prop_count == total);
	const double *vals;
	size_t count;
	const void *raw;
	RK_REQUIRE(rki_fbx_prop_array(ar, 0, &raw, &count, &p.err) && count == total);
	vals = (const double *)raw;
	size_t bad = 0;
	for (size_t i = 0; i < total; i++) {
		const char *t = tokens + starts[i];
		double want = strtod(t, NULL);
		const rki_fbx_prop *pr = &sc->props[i];
		bool ok;
		if (pr->type == 'L') {
			errno = 0;
			long long iv = strtoll(t, NULL, 10);
			ok = errno == 0 && !strpbrk(t, ".eE") && pr->v.i == iv;
		} else {
			ok = pr->type == 'D' && same_double(pr->v.f, want);
		}
		/* Array elements written as integers are the int64 value converted ((double)-0 is +0). */
		ok = ok && same_double(vals[i], pr->type == 'L' ? (double)pr->v.i : want);
		if (!ok && bad++ < 10)
			fprintf(stderr, "  token %zu \"%s\": type %c scalar %.17g array %.17g strtod %.17g\n", i, t, pr->type,
				pr->type == 'L' ? (double)pr->v.i : pr->v.f, vals[i], want);
	}
	RK_CHECK_INT(bad, 0);
	parsed_free(&p);

	/* MSVC's printf spellings of infinity and NaN (strtod does not read them). */
	static const char special[] = "X: 1.#INF, -1.#INF, 1.#IND, -1.#IND, 1.#QNAN, 1.#SNAN, 1.#INF00\n";
	parse_bytes(&p, special, sizeof(special) - 1, NULL);
	RK_REQUIRE(p.ok);
	const rki_fbx_node *x = child(&p.doc.root, "X");
	RK_REQUIRE(x && x->prop_count == 7);
	RK_CHECK(isinf(x->props[0].v.f) && x->props[0].v.f > 0);
	RK_CHECK(isinf(x->props[1].v.f) && x->props[1].v.f < 0);
	for (int i = 2; i < 6; i++) RK_CHECK(x->props[i].type == 'D' && isnan(x->props[i].v.f));
	RK_CHECK(isinf(x->props[6].v.f));
	parsed_free(&p);
	free(text);
	free(tokens);
	free(starts);
}

RK_TEST(ascii_errors_have_lines)
{
	static const struct { const char *text; rk_error_code code; unsigned line; const char *path; } cases[] = {
		{ "A: {\n  B: 1\n  C: *3 { a: 1,2 }\n}\n", RK_ERROR_CORRUPT, 3, "A/C" },
		{ "A: {\n  B: *2 { a: 1,2,3 }\n}\n", RK_ERROR_CORRUPT, 2, "A/B" },
		{ "A: {\n  B: {\n    C: 1\n", RK_ERROR_TRUNCATED, 4, "A/B" },
		{ "A: \"open string\n\n", RK_ERROR_TRUNCATED, 1, "A" },
		{ "A: 1\n}\n", RK_ERROR_CORRUPT, 2, "" },
		{ "A 1\n", RK_ERROR_CORRUPT, 1, "A" },
		{ "A: {\n B: 12abc\n}", RK_ERROR_CORRUPT, 2, "A/B" },
		{ "A: {\n B: *2 { 1,2 }\n}", RK_ERROR_CORRUPT, 2, "A/B" },
		{ "A: {\n B: *99999999 { a: 1 }\n}", RK_ERROR_TRUNCATED, 2, "A/B" },
		{ "A: {\n B: *2 x\n}", RK_ERROR_CORRUPT, 2, "A/B" },
		{ "A: {\n B: *2 { a: 1 2 }\n}", RK_ERROR_CORRUPT, 2, "A/B" },
		{ "A: :\n", RK_ERROR_CORRUPT, 1, "A" },
		{ "; only a comment\n", RK_ERROR_TRUNCATED, 2, "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parsed p;
		size_t len = strlen(cases[i].text);
		parse_bytes(&p, cases[i].text, len, NULL);
		RK_CHECK(!p.ok);
		if (p.err.code != cases[i].code || p.err.line != cases[i].line || strcmp(p.err.path, cases[i].path) != 0)
			fprintf(stderr, "  case %zu: code %d line %llu path \"%s\": %s\n", i, (int)p.err.code,
				(unsigned long long)p.err.line, p.err.path, p.err.message);
		RK_CHECK_INT(p.err.code, cases[i].code);
		RK_CHECK(p.err.location & RK_LOCATION_LINE);
		RK_CHECK_INT(p.err.line, cases[i].line);
		RK_CHECK_STR(p.err.path, cases[i].path);
		CHECK_CLEAN_FAILURE(&p, len);
		RK_CHECK(p.tmp.bytes_in_use == 0);
		parsed_free(&p);
	}
}

RK_TEST(is_fbx_sniffing)
{
	RK_CHECK(rki_fbx_is_fbx("; FBX 6.1.0 project file\n", 25));
	RK_CHECK(rki_fbx_is_fbx("\xef\xbb\xbf  \r\nFBXHeaderExtension:  {", 31));
	RK_CHECK(rki_fbx_is_fbx("FBXVersion : 7400", 17));
	RK_CHECK(rki_fbx_is_fbx("; comment\n; Autodesk FBX\n", 25));
	RK_CHECK(!rki_fbx_is_fbx("", 0));
	RK_CHECK(!rki_fbx_is_fbx(NULL, 10));
	RK_CHECK(!rki_fbx_is_fbx("glTF", 4));
	RK_CHECK(!rki_fbx_is_fbx("; a comment\nObjects: {", 22));
	RK_CHECK(!rki_fbx_is_fbx("Kaydara FBX Binary  \0", 21));
	RK_CHECK(rki_fbx_is_fbx("Kaydara FBX Binary  \0\x1a\0", 23));
}

/* ---- 5. truncations and corruptions --------------------------------------------------- */

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Parses data[0..len): must succeed or fail cleanly, leaking no temporary memory.
 * Returns whether it succeeded. */
static bool parse_must_be_clean(rk_test_state *rk_t_, const unsigned char *data, size_t len, const char *what,
	size_t at)
{
	parsed p;
	parse_bytes(&p, data, len, NULL);
	if (!p.ok) {
		bool clean = p.err.code != RK_OK && p.err.message[0] != '\0' && (p.err.location & RK_LOCATION_BYTE) &&
			p.err.byte_offset <= len;
		if (!clean) fprintf(stderr, "  %s at %zu: unclean error (code %d, \"%s\")\n", what, at, (int)p.err.code,
			p.err.message);
		RK_CHECK(clean);
	} else {
		RK_CHECK(tree_consistent(&p.doc.root));
	}
	RK_CHECK(p.tmp.bytes_in_use == 0);
	bool ok = p.ok;
	parsed_free(&p);
	return ok;
}

/* Binary prefixes fail unless only (part of) the footer is missing: the
 * top-level null record and footer together are under 256 bytes here. */
static void truncate_file(rk_test_state *rk_t_, const char *rel, size_t steps)
{
	char path[4096];
	shared_path(path, sizeof(path), rel);
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	bool binary = f.size > 20 && memcmp(f.data, "Kaydara", 7) == 0;
	size_t successes = 0, n = 0;
	for (size_t k = 0; k < steps; k++) {
		size_t len = steps >= f.size ? k : (size_t)((double)k * (double)f.size / (double)steps);
		if (len >= f.size) break;
		/* A fresh exact-size copy so ASan sees any read past the prefix. */
		unsigned char *copy = (unsigned char *)malloc(len ? len : 1);
		RK_REQUIRE(copy != NULL);
		memcpy(copy, f.data, len);
		bool ok = parse_must_be_clean(rk_t_, copy, len, rel, len);
		free(copy);
		if (ok) successes++;
		if (binary && ok && len + 256 < f.size) {
			fprintf(stderr, "  %s: prefix of %zu bytes parsed\n", rel, len);
			RK_CHECK(!"binary prefix accepted");
		}
		n++;
	}
	RK_CHECK(n > 0);
	free_file(&f);
}

RK_TEST(truncations)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets")) RK_SKIP("shared folder (../shared) not found");
	bool quick = quick_mode();
	truncate_file(rk_t_, "assets/ybot@kick.fbx", quick ? 500 : 2000);
	/* Small files at every length (every 8th in quick mode). */
	static const char *const small[] = {
		"conformance/data/maya_cube_7400_binary.fbx",
		"conformance/data/maya_cube_big_endian_7500_binary.fbx",
		"conformance/data/maya_cube_6100_ascii.fbx",
		"conformance/data/maya_cube_7500_ascii.fbx",
	};
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		shared_path(path, sizeof(path), small[i]);
		file_data f;
		RK_REQUIRE(load_file(&f, path));
		size_t size = f.size;
		free_file(&f);
		truncate_file(rk_t_, small[i], quick ? size / 8 : size);
	}
}

static void corrupt_file(rk_test_state *rk_t_, const char *rel, size_t count, uint64_t seed)
{
	char path[4096];
	shared_path(path, sizeof(path), rel);
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	unsigned char *copy = (unsigned char *)malloc(f.size);
	RK_REQUIRE(copy != NULL);
	memcpy(copy, f.data, f.size);
	uint64_t s = seed;
	size_t failures = 0;
	for (size_t k = 0; k < count; k++) {
		size_t at = (size_t)(xorshift64(&s) % f.size);
		unsigned char val = (unsigned char)xorshift64(&s);
		if (val == copy[at]) val ^= 0x80;
		unsigned char old = copy[at];
		copy[at] = val;
		if (!parse_must_be_clean(rk_t_, copy, f.size, rel, at)) failures++;
		copy[at] = old;
	}
	/* Not a correctness criterion, but a corruption that never fails means the test is not biting. */
	RK_CHECK(failures > 0);
	free(copy);
	free_file(&f);
}

RK_TEST(corruptions)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets")) RK_SKIP("shared folder (../shared) not found");
	size_t count = quick_mode() ? 200 : 1000;
	corrupt_file(rk_t_, "assets/ybot@kick.fbx", count, 0x9e3779b97f4a7c15ULL);
	corrupt_file(rk_t_, "conformance/data/maya_cube_7400_ascii.fbx", count, 0x1234567887654321ULL);
	corrupt_file(rk_t_, "conformance/data/synthetic_comment_cube_7500_ascii.fbx", count, 0xdeadbeefcafef00dULL);
	corrupt_file(rk_t_, "conformance/data/maya_cube_6100_ascii.fbx", count, 0x0123456789abcdefULL);
}

/* Every allocation failing in turn, first in the temporary allocator, then in
 * the arena's: a clean LIMIT error and nothing leaked. */
static void fail_allocations(rk_test_state *rk_t_, const unsigned char *data, size_t size)
{
	for (int which = 0; which < 2; which++) {
		size_t limit = 1;
		for (; limit < 100000; limit++) {
			rki_alloc arena_alloc, tmp;
			rki_alloc_init(&arena_alloc, NULL, 0, which == 1 ? limit : 0);
			rki_alloc_init(&tmp, NULL, 0, which == 0 ? limit : 0);
			rki_arena arena;
			rki_arena_init(&arena, &arena_alloc);
			rki_fbx_doc doc;
			rk_error err;
			rki_error_clear(&err);
			bool ok = rki_fbx_parse(&doc, data, size, &arena, &tmp, NULL, &err);
			RK_CHECK(tmp.bytes_in_use == 0);
			rki_arena_free(&arena);
			RK_CHECK(arena_alloc.bytes_in_use == 0);
			if (ok) break;
			if (err.code != RK_ERROR_LIMIT) fprintf(stderr, "  allocation limit %zu: %s\n", limit, err.message);
			RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
			RK_CHECK(err.message[0] != '\0');
		}
		/* It succeeded in the end; the temporary allocator always needs more than one
		 * allocation (frames and nodes), the arena may need only one chunk. */
		RK_CHECK(limit < 100000);
		if (which == 0) RK_CHECK(limit > 1);
		if (getenv("RIGKIT_TEST_VERBOSE")) fprintf(stderr, "  %s allocator: %zu allocations\n", which ? "arena" : "tmp", limit);
	}
}

RK_TEST(allocation_failures)
{
	static tb b;
	build_sample(&b, 7500, false, true, true);
	fail_allocations(rk_t_, b.d, b.size);
	fail_allocations(rk_t_, (const unsigned char *)k_ascii, sizeof(k_ascii) - 1);
	char path[4096];
	if (!shared_path(path, sizeof(path), "conformance/data/maya_cube_7400_binary.fbx")) return;
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	fail_allocations(rk_t_, f.data, f.size);
	free_file(&f);
}

/* ---- 6. limits ---------------------------------------------------------------------- */

RK_TEST(limits)
{
	/* Depth: 100 nested ASCII nodes against the default 64 and an explicit 3. */
	static char deep[2048];
	size_t n = 0;
	for (int i = 0; i < 100; i++) n += (size_t)snprintf(deep + n, sizeof(deep) - n, "N: {\n");
	for (int i = 0; i < 100; i++) n += (size_t)snprintf(deep + n, sizeof(deep) - n, "}\n");
	parsed p;
	parse_bytes(&p, deep, n, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	RK_CHECK_INT(p.err.line, 65);
	RK_CHECK(p.tmp.bytes_in_use == 0);
	parsed_free(&p);
	rki_fbx_limits lim;
	memset(&lim, 0, sizeof(lim));
	lim.max_depth = 200;
	parse_bytes(&p, deep, n, &lim);
	RK_CHECK(p.ok);
	parsed_free(&p);

	/* Binary: the sample's Arrays/Child is at depth 2. */
	static tb b;
	build_sample(&b, 7400, false, true, true);
	lim.max_depth = 1;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	RK_CHECK_STR(p.err.path, "Arrays/Child");
	parsed_free(&p);
	lim.max_depth = 2;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(p.ok);
	parsed_free(&p);

	/* Array elements: the sample's largest array has 4 elements. */
	memset(&lim, 0, sizeof(lim));
	lim.max_array_elems = 3;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT && strcmp(p.err.path, "Arrays") == 0);
	parsed_free(&p);
	lim.max_array_elems = 4;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(p.ok);
	parsed_free(&p);
	/* Total array bytes: 12 + 16 + 16 + 16 + 3 = 63. */
	memset(&lim, 0, sizeof(lim));
	lim.max_total_array_bytes = 62;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	parsed_free(&p);
	lim.max_total_array_bytes = 63;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(p.ok);
	parsed_free(&p);
	/* Nodes: Scalars, Arrays, Child. */
	memset(&lim, 0, sizeof(lim));
	lim.max_nodes = 2;
	parse_bytes(&p, b.d, b.size, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	parsed_free(&p);

	/* ASCII: "*6" arrays and 13-value 6100 lists against max_array_elems. */
	memset(&lim, 0, sizeof(lim));
	lim.max_array_elems = 5;
	parse_bytes(&p, k_ascii, sizeof(k_ascii) - 1, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	RK_CHECK_STR(p.err.path, "Objects/Geometry/Vertices");
	parsed_free(&p);
	lim.max_array_elems = 12;
	parse_bytes(&p, k_ascii, sizeof(k_ascii) - 1, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	RK_CHECK_STR(p.err.path, "Objects/Model/Vertices");
	parsed_free(&p);

	/* Real files. */
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets/ybot.fbx")) return;
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	memset(&lim, 0, sizeof(lim));
	lim.max_depth = 3;   /* Objects/Model/Properties70/P is depth 4 */
	parse_bytes(&p, f.data, f.size, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	RK_CHECK(p.tmp.bytes_in_use == 0);
	parsed_free(&p);
	memset(&lim, 0, sizeof(lim));
	lim.max_array_elems = 52007;  /* the body's Vertices array has 52008 */
	parse_bytes(&p, f.data, f.size, &lim);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_LIMIT);
	RK_CHECK(strncmp(p.err.path, "Objects/Geometry/", 17) == 0);
	parsed_free(&p);
	free_file(&f);
}


/* ---- 7. lazy arrays and threaded decoding ------------------------------------------------- */

static bool is_array_type(char t)
{
	return t && strchr("fdlibc", t) != NULL;
}

static size_t elem_size(char t)
{
	return t == 'd' || t == 'l' ? 8 : t == 'b' || t == 'c' ? 1 : 4;
}

/* True when the RKI_FBX_ARRAY_PAD bytes after a 'd' array are zero. */
static bool f64_padded(const rki_fbx_prop *pr)
{
	static const unsigned char zero[RKI_FBX_ARRAY_PAD];
	return memcmp((const unsigned char *)pr->v.a.data + pr->v.a.count * 8, zero, RKI_FBX_ARRAY_PAD) == 0;
}

/* Walks an eager and a lazy parse of the same bytes side by side: same tree;
 * every lazy array of at least one element is pending until read, then equal
 * to the eager one. *pending counts the pending arrays met. `read` = false only
 * counts and checks the pending state. */
static void compare_lazy(rk_test_state *rk_t_, const rki_fbx_node *e, const rki_fbx_node *l, bool read, size_t *pending)
{
	RK_REQUIRE(e->name_len == l->name_len && memcmp(e->name, l->name, e->name_len) == 0);
	RK_REQUIRE(e->prop_count == l->prop_count && e->child_count == l->child_count);
	for (size_t i = 0; i < e->prop_count; i++) {
		const rki_fbx_prop *ep = &e->props[i], *lp = &l->props[i];
		RK_REQUIRE(ep->type == lp->type && ep->offset == lp->offset);
		RK_CHECK(ep->pending == 0);
		if (!is_array_type(ep->type)) continue;
		RK_REQUIRE(ep->v.a.count == lp->v.a.count);
		if (ep->type == 'd') RK_CHECK(f64_padded(ep));
		if (lp->pending) {
			(*pending)++;
			RK_CHECK(lp->v.a.count > 0 && lp->v.a.data == NULL);
		}
		if (!read) continue;
		const void *data;
		size_t count;
		rk_error err;
		RK_REQUIRE(rki_fbx_prop_array(l, i, &data, &count, &err));
		RK_CHECK(lp->pending == 0 && data == lp->v.a.data && count == ep->v.a.count);
		RK_CHECK(memcmp(data, ep->v.a.data, count * elem_size(ep->type)) == 0);
		if (lp->type == 'd') RK_CHECK(f64_padded(lp));
		const void *again;
		RK_CHECK(rki_fbx_prop_array(l, i, &again, &count, &err) && again == data);
	}
	for (size_t c = 0; c < e->child_count; c++) {
		RK_REQUIRE(l->children[c].parent == l);
		compare_lazy(rk_t_, &e->children[c], &l->children[c], read, pending);
	}
}

static const char *const k_lazy_files[] = {
	"assets/ybot.fbx",
	"assets/ybot@kick.fbx",
	"conformance/data/maya_cube_7400_binary.fbx",
	"conformance/data/maya_cube_big_endian_7500_binary.fbx",
	"conformance/data/maya_kenney_character_7700_binary.fbx",
	"conformance/data/max2009_blob_6100_binary.fbx",
	"conformance/data/maya_cube_7500_ascii.fbx",
};

RK_TEST(lazy_arrays_match_eager)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets")) RK_SKIP("shared folder (../shared) not found");
	for (size_t k = 0; k < sizeof(k_lazy_files) / sizeof(k_lazy_files[0]); k++) {
		shared_path(path, sizeof(path), k_lazy_files[k]);
		file_data f;
		RK_REQUIRE(load_file(&f, path));
		parsed e, l;
		parse_bytes(&e, f.data, f.size, NULL);
		parse_lazy(&l, f.data, f.size, NULL);
		RK_REQUIRE(e.ok && l.ok);
		RK_CHECK(l.tmp.bytes_in_use == 0);
		RK_CHECK(l.arena.total <= e.arena.total);
		size_t pending = 0;
		compare_lazy(rk_t_, &e.doc.root, &l.doc.root, true, &pending);
		bool binary = !e.doc.ascii;
		if (binary && strstr(k_lazy_files[k], "6100") == NULL) RK_CHECK(pending > 0);
		if (!binary) RK_CHECK_INT(pending, 0);
		/* Everything is decoded now: a second walk finds nothing pending. */
		size_t again = 0;
		compare_lazy(rk_t_, &e.doc.root, &l.doc.root, false, &again);
		RK_CHECK_INT(again, 0);
		if (getenv("RIGKIT_TEST_VERBOSE"))
			fprintf(stderr, "  %s: %zu pending arrays, arena %zu eager / %zu lazy before decoding\n", k_lazy_files[k],
				pending, e.arena.total, l.arena.total);
		parsed_free(&e);
		parsed_free(&l);
		free_file(&f);
	}
}

/* The conversions (rki_fbx_array_*) decode pending arrays too, and converted
 * f64 copies carry the zero pad. */
RK_TEST(lazy_arrays_through_conversions)
{
	static tb b;
	build_sample(&b, 7500, true, true, true);   /* big-endian: decoding swaps */
	parsed p;
	parse_lazy(&p, b.d, b.size, NULL);
	RK_REQUIRE(p.ok);
	const rki_fbx_node *a = rki_fbx_find_child(&p.doc.root, "Arrays");
	RK_REQUIRE(a != NULL && a->prop_count == 5);
	for (size_t i = 0; i < 5; i++) RK_CHECK(a->props[i].pending != 0 && a->props[i].v.a.data == NULL);
	RK_CHECK_INT(a->props[0].pending, 1);   /* f raw */
	RK_CHECK_INT(a->props[1].pending, 2);   /* d zlib */
	const double *d;
	const int32_t *i32;
	const int64_t *i64;
	size_t n;
	rk_error err;
	RK_REQUIRE(rki_fbx_array_f64(a, 0, &p.arena, &d, &n, &err));
	RK_CHECK(n == 3 && d[0] == 1.5 && d[1] == -2.25 && d[2] == (double)1e-3f);
	static const double zero[RKI_FBX_ARRAY_PAD / 8];
	RK_CHECK(memcmp(d + 3, zero, sizeof(zero)) == 0);
	RK_CHECK(a->props[0].pending == 0 && memcmp(a->props[0].v.a.data, k_f32, sizeof(k_f32)) == 0);
	RK_REQUIRE(rki_fbx_array_f64(a, 1, &p.arena, &d, &n, &err));
	RK_CHECK(n == 2 && d == a->props[1].v.a.data && d[0] == k_f64[0] && d[1] == k_f64[1]);
	RK_CHECK(memcmp(d + 2, zero, sizeof(zero)) == 0);
	RK_REQUIRE(rki_fbx_array_i64(a, 2, &p.arena, &i64, &n, &err));
	RK_CHECK(n == 2 && i64[0] == k_i64[0] && i64[1] == INT64_MAX);
	RK_REQUIRE(rki_fbx_array_i32(a, 3, &p.arena, &i32, &n, &err));
	RK_CHECK(n == 4 && i32 == a->props[3].v.a.data && i32[3] == INT32_MIN);
	RK_REQUIRE(rki_fbx_array_i32(a, 4, &p.arena, &i32, &n, &err));
	RK_CHECK(n == 3 && i32[0] == 1 && i32[1] == 0 && i32[2] == 1);
	/* Not an array: a clean error from rki_fbx_prop_array. */
	const rki_fbx_node *s = rki_fbx_find_child(&p.doc.root, "Scalars");
	const void *data;
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_prop_array(s, 0, &data, &n, &err) && data == NULL && n == 0);
	RK_CHECK(err.code == RK_ERROR_CORRUPT && err.byte_offset == s->props[0].offset);
	RK_CHECK(!rki_fbx_prop_array(s, 99, &data, &n, &err) && err.code == RK_ERROR_CORRUPT);
	parsed_free(&p);
}

/* Threaded decoding gives the eager arrays whatever the thread count, and a
 * name filter decodes exactly the named nodes' arrays. */
RK_TEST(decode_arrays_threads)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets/ybot.fbx")) RK_SKIP("shared folder (../shared) not found");
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	parsed e;
	parse_bytes(&e, f.data, f.size, NULL);
	RK_REQUIRE(e.ok);
	static const size_t threads[] = { 1, 2, 3, 8, 0 };
	size_t all = 0;
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		parsed l;
		parse_lazy(&l, f.data, f.size, NULL);
		RK_REQUIRE(l.ok);
		size_t pending = 0;
		compare_lazy(rk_t_, &e.doc.root, &l.doc.root, false, &pending);
		if (t == 0) all = pending;
		RK_CHECK_INT(pending, all);
		size_t got = rki_fbx_decode_arrays(&l.doc.root, NULL, 0, 64, threads[t], &l.tmp);
		RK_CHECK_INT(got, all);
		RK_CHECK(l.tmp.bytes_in_use == 0);
		size_t left = 0;
		compare_lazy(rk_t_, &e.doc.root, &l.doc.root, true, &left);
		RK_CHECK_INT(left, 0);
		parsed_free(&l);
	}
	RK_CHECK(all > 1000);

	/* Names and depth: only Objects/Geometry/Vertices (depth 2 below Objects). */
	parsed l;
	parse_lazy(&l, f.data, f.size, NULL);
	RK_REQUIRE(l.ok);
	const rki_fbx_node *objects = child(&l.doc.root, "Objects");
	RK_REQUIRE(objects != NULL);
	static const char *const names[] = { "Vertices", "Normals" };
	RK_CHECK_INT(rki_fbx_decode_arrays(objects, names, 1, 1, 2, &l.tmp), 0);   /* too shallow */
	RK_CHECK_INT(rki_fbx_decode_arrays(objects, names, 1, 2, 2, &l.tmp), 2);   /* two meshes */
	RK_CHECK_INT(rki_fbx_decode_arrays(objects, names, 2, 2, 2, &l.tmp), 0);   /* Normals are at depth 3 */
	/* Start; other work on the document (arrays outside the batch, and the
	 * batch's own Normals, which are waited for, not decoded twice); finish. */
	rki_fbx_decode_batch *batch = rki_fbx_decode_start(objects, names + 1, 1, 3, 2, &l.tmp);
	RK_CHECK(batch != NULL);
	RK_CHECK(rki_fbx_decode_start(objects, names, 2, 3, 2, &l.tmp) == NULL);   /* one batch at a time */
	const rki_fbx_node *eobjects = child(&e.doc.root, "Objects");
	for (size_t i = 0; i < objects->child_count; i++) {
		const rki_fbx_node *g = &objects->children[i];
		if (strcmp(g->name, "Geometry") != 0) continue;
		const int32_t *idx;
		size_t n;
		rk_error err;
		RK_CHECK(rki_fbx_array_i32(child(g, "PolygonVertexIndex"), 0, &l.arena, &idx, &n, &err) && n > 0);
		const rki_fbx_node *ln = child(child(g, "LayerElementNormal"), "Normals");
		const rki_fbx_node *en = child(child(&eobjects->children[i], "LayerElementNormal"), "Normals");
		RK_REQUIRE(ln && en);
		size_t used = l.arena.total;
		const double *nd;
		RK_REQUIRE(rki_fbx_array_f64(ln, 0, &l.arena, &nd, &n, &err));
		RK_CHECK(l.arena.total == used);   /* the batch's buffer, not a new one */
		RK_CHECK(n == en->props[0].v.a.count && memcmp(nd, en->props[0].v.a.data, n * 8) == 0);
	}
	RK_CHECK_INT(rki_fbx_decode_finish(batch), 2);
	RK_CHECK(rki_fbx_decode_start(objects, names, 2, 3, 2, &l.tmp) == NULL);   /* nothing left */
	RK_CHECK_INT(rki_fbx_decode_finish(NULL), 0);
	RK_CHECK(l.tmp.bytes_in_use == 0);
	size_t left = 0;
	compare_lazy(rk_t_, &e.doc.root, &l.doc.root, false, &left);
	RK_CHECK_INT(left, all - 6);
	parsed_free(&l);
	parsed_free(&e);
	free_file(&f);
}

/* Bad array data found only when decoding: the error of an eager parse (code,
 * message, byte offset) with the node path, from the accessor; threaded
 * decoding leaves such arrays pending and the accessor still reports them. */
RK_TEST(lazy_corrupt_arrays)
{
	static tb b;
	/* zlib data of 3 doubles declared as 4: inflates to fewer bytes. */
	tb_header(&b, 7500, false);
	size_t a = tb_begin(&b, "Objects", 0);
	tb_props_done(&b, a);
	size_t v = tb_begin(&b, "Vertices", 1);
	size_t prop_at = b.size;
	tb_array(&b, 'd', k_f64, 2, 8, true, 3, 0);
	tb_props_done(&b, v);
	tb_end(&b, v, false);
	tb_end(&b, a, true);
	tb_null(&b);
	parsed e, p;
	parse_bytes(&e, b.d, b.size, NULL);
	RK_CHECK(!e.ok && e.err.code == RK_ERROR_CORRUPT);
	parse_lazy(&p, b.d, b.size, NULL);
	RK_REQUIRE(p.ok);
	const rki_fbx_node *vn = child(child(&p.doc.root, "Objects"), "Vertices");
	RK_REQUIRE(vn && vn->props[0].pending == 2);
	RK_CHECK_INT(rki_fbx_decode_arrays(&p.doc.root, NULL, 0, 8, 2, &p.tmp), 0);
	RK_CHECK(vn->props[0].pending == 2 && vn->props[0].v.a.data == NULL);
	const double *d;
	size_t n;
	rk_error err;
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_array_f64(vn, 0, &p.arena, &d, &n, &err) && d == NULL && n == 0);
	RK_CHECK_INT(err.code, RK_ERROR_CORRUPT);
	RK_CHECK_INT(err.byte_offset, prop_at);
	RK_CHECK_STR(err.message, e.err.message);
	RK_CHECK(strstr(err.message, "inflates to 16 bytes") != NULL);
	RK_CHECK_STR(err.path, "Objects/Vertices");
	RK_CHECK_STR(e.err.path, "Objects/Vertices");
	/* Still pending: a second read fails the same way. */
	rk_error err2;
	const void *data;
	RK_CHECK(!rki_fbx_prop_array(vn, 0, &data, &n, &err2) && strcmp(err2.message, err.message) == 0);
	RK_CHECK(p.tmp.bytes_in_use == 0);
	parsed_free(&p);
	parsed_free(&e);

	/* Inflates to more than declared; corrupt stream. */
	for (int kind = 0; kind < 2; kind++) {
		if (kind == 0) {
			tb_header(&b, 7400, false);
			a = tb_begin(&b, "PolygonVertexIndex", 1);
			prop_at = b.size;
			tb_array(&b, 'i', k_i32, 4, 4, true, 2, 0);
			tb_props_done(&b, a);
			tb_end(&b, a, false);
			tb_null(&b);
		} else {
			build_sample(&b, 7400, false, true, true);
			prop_at = sample_arrays_offset(&b) + 1 + 12 + 12;
			RK_REQUIRE(b.d[prop_at] == 'd');
			b.d[prop_at + 13 + 4] ^= 0x55;
		}
		parse_bytes(&e, b.d, b.size, NULL);
		RK_CHECK(!e.ok);
		parse_lazy(&p, b.d, b.size, NULL);
		RK_REQUIRE(p.ok);
		rki_fbx_decode_arrays(&p.doc.root, NULL, 0, 8, 1, &p.tmp);
		const rki_fbx_node *node = kind == 0 ? child(&p.doc.root, "PolygonVertexIndex") : child(&p.doc.root, "Arrays");
		RK_REQUIRE(node != NULL);
		size_t pi = kind == 0 ? 0 : 1;
		rki_error_clear(&err);
		RK_CHECK(!rki_fbx_prop_array(node, pi, &data, &n, &err));
		RK_CHECK_INT(err.code, e.err.code);
		RK_CHECK_INT(err.byte_offset, prop_at);
		RK_CHECK_INT(e.err.byte_offset, prop_at);
		RK_CHECK_STR(err.message, e.err.message);
		RK_CHECK_STR(err.path, e.err.path);
		parsed_free(&p);
		parsed_free(&e);
	}

	/* Checks that need no decoding still fail the parse: raw size, encoding, ratio. */
	tb_header(&b, 7400, false);
	a = tb_begin(&b, "Arrays", 1);
	tb_array(&b, 'i', k_i32, 3, 4, false, 4, 0);
	tb_props_done(&b, a);
	tb_end(&b, a, false);
	tb_null(&b);
	parse_lazy(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT && strstr(p.err.message, "declares 12") != NULL);
	parsed_free(&p);
	build_sample(&b, 7400, false, true, true);
	b.d[sample_arrays_offset(&b) + 1 + 12 + 12 + 5] = 2;
	parse_lazy(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT && strstr(p.err.message, "encoding 2"));
	parsed_free(&p);
	tb_header(&b, 7400, false);
	a = tb_begin(&b, "Arrays", 1);
	tb_array(&b, 'd', k_f64, 2, 8, true, 1000000, 0);
	tb_props_done(&b, a);
	tb_end(&b, a, false);
	tb_null(&b);
	parse_lazy(&p, b.d, b.size, NULL);
	RK_CHECK(!p.ok && p.err.code == RK_ERROR_CORRUPT && strstr(p.err.message, "compressed bytes") != NULL);
	parsed_free(&p);
}

/* Decodes every pending array of a parsed document through the accessors
 * (after a threaded pass over half of them); every failure must be clean. */
static void decode_all_clean(rk_test_state *rk_t_, const rki_fbx_node *n, size_t size)
{
	for (size_t i = 0; i < n->prop_count; i++) {
		if (!is_array_type(n->props[i].type)) continue;
		const void *data;
		size_t count;
		rk_error err;
		rki_error_clear(&err);
		if (rki_fbx_prop_array(n, i, &data, &count, &err)) {
			RK_CHECK(data != NULL && count == n->props[i].v.a.count);
		} else {
			RK_CHECK(err.code != RK_OK && err.message[0] && (err.location & RK_LOCATION_BYTE) && err.byte_offset <= size);
			RK_CHECK((err.location & RK_LOCATION_FBX_NODE) && err.path[0]);
		}
	}
	for (size_t c = 0; c < n->child_count; c++) decode_all_clean(rk_t_, &n->children[c], size);
}

/* A lazy parse with a pre-scan batch (rki_fbx_decode_prescan) over the same bytes. */
static void parse_prescan_in(parsed *p, const void *data, size_t size, const char *const *containers,
	size_t container_count, const char *const *names, size_t name_count, size_t threads, rki_fbx_decode_batch **batch)
{
	memset(p, 0, sizeof(*p));
	rki_alloc_init(&p->arena_alloc, NULL, 0, 0);
	rki_alloc_init(&p->tmp, NULL, 0, 0);
	rki_arena_init(&p->arena, &p->arena_alloc);
	rki_error_clear(&p->err);
	*batch = rki_fbx_decode_prescan(data, size, "Objects", containers, container_count, names, name_count, 3, threads, NULL,
		&p->arena, &p->tmp);
	rki_fbx_parse_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.lazy_arrays = true;
	opts.batch = *batch;
	p->ok = rki_fbx_parse_ex(&p->doc, data, size, &p->arena, &p->tmp, &opts, &p->err);
}

static void parse_prescan(parsed *p, const void *data, size_t size, const char *const *names, size_t name_count,
	size_t threads, rki_fbx_decode_batch **batch)
{
	parse_prescan_in(p, data, size, NULL, 0, names, name_count, threads, batch);
}

static void lazy_must_be_clean(rk_test_state *rk_t_, const unsigned char *data, size_t len, const char *what, size_t at)
{
	parsed p;
	static const char *const some[] = { "Vertices", "Normals", "KeyTime", "Weights" };
	rki_fbx_decode_batch *batch = NULL;
	if (at % 2) parse_prescan(&p, data, len, some, 4, 2, &batch);
	else parse_lazy(&p, data, len, NULL);
	if (!p.ok) {
		bool clean = p.err.code != RK_OK && p.err.message[0] != '\0' && (p.err.location & RK_LOCATION_BYTE) &&
			p.err.byte_offset <= len;
		if (!clean) fprintf(stderr, "  %s at %zu: unclean lazy error (code %d, \"%s\")\n", what, at, (int)p.err.code,
			p.err.message);
		RK_CHECK(clean);
	} else {
		if (!batch) rki_fbx_decode_arrays(&p.doc.root, some, 4, 8, 2, &p.tmp);
		decode_all_clean(rk_t_, &p.doc.root, len);
	}
	rki_fbx_decode_finish(batch);
	RK_CHECK(p.tmp.bytes_in_use == 0);
	parsed_free(&p);
}

RK_TEST(lazy_truncations_and_corruptions)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets/ybot@kick.fbx")) RK_SKIP("shared folder (../shared) not found");
	static const char *const files[] = {
		"assets/ybot@kick.fbx",
		"conformance/data/maya_cube_7400_binary.fbx",
		"conformance/data/maya_cube_big_endian_7500_binary.fbx",
	};
	bool quick = quick_mode();
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		shared_path(path, sizeof(path), files[k]);
		file_data f;
		RK_REQUIRE(load_file(&f, path));
		size_t steps = k == 0 ? (quick ? 200 : 600) : (quick ? f.size / 8 : f.size / 2);
		for (size_t s = 0; s < steps; s++) {
			size_t len = (size_t)((double)s * (double)f.size / (double)steps);
			unsigned char *copy = (unsigned char *)malloc(len ? len : 1);
			RK_REQUIRE(copy != NULL);
			memcpy(copy, f.data, len);
			lazy_must_be_clean(rk_t_, copy, len, files[k], len);
			free(copy);
		}
		/* Byte corruptions, which now hit array data that is inflated after parsing. */
		unsigned char *copy = (unsigned char *)malloc(f.size);
		RK_REQUIRE(copy != NULL);
		memcpy(copy, f.data, f.size);
		uint64_t seed = 0x5eed0000u + k;
		size_t count = quick ? 100 : 400;
		for (size_t c = 0; c < count; c++) {
			size_t at = (size_t)(xorshift64(&seed) % f.size);
			unsigned char old = copy[at];
			copy[at] = (unsigned char)(old ^ (1u + xorshift64(&seed) % 255u));
			lazy_must_be_clean(rk_t_, copy, f.size, files[k], at);
			copy[at] = old;
		}
		free(copy);
		free_file(&f);
	}
}

/* Every allocation failing in turn while parsing lazily and then decoding
 * (threaded and through the accessors): clean errors, nothing leaked. */
RK_TEST(lazy_allocation_failures)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "conformance/data/maya_cube_7400_binary.fbx")) RK_SKIP("shared folder (../shared) not found");
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	for (int which = 0; which < 2; which++) {
		size_t limit = 1;
		for (; limit < 100000; limit++) {
			rki_alloc arena_alloc, tmp;
			rki_alloc_init(&arena_alloc, NULL, 0, which == 1 ? limit : 0);
			rki_alloc_init(&tmp, NULL, 0, which == 0 ? limit : 0);
			rki_arena arena;
			rki_arena_init(&arena, &arena_alloc);
			rki_fbx_doc doc;
			rk_error err;
			rki_error_clear(&err);
			rki_fbx_parse_opts opts;
			memset(&opts, 0, sizeof(opts));
			opts.lazy_arrays = true;
			bool ok = rki_fbx_parse_ex(&doc, f.data, f.size, &arena, &tmp, &opts, &err);
			bool all = false;
			if (ok) {
				static const char *const names[] = { "Vertices", "Normals" };
				rki_fbx_decode_arrays(&doc.root, names, 2, 8, 2, &tmp);
				RK_CHECK(tmp.bytes_in_use == 0);
				/* Then every array through the accessor, stopping at the first failure. */
				const rki_fbx_node *stack[64];
				size_t next[64], depth = 1;
				stack[0] = &doc.root;
				next[0] = 0;
				all = true;
				while (depth > 0 && all) {
					const rki_fbx_node *n = stack[depth - 1];
					if (next[depth - 1] == 0) {
						for (size_t i = 0; i < n->prop_count && all; i++) {
							if (!is_array_type(n->props[i].type)) continue;
							const void *data;
							size_t count;
							rki_error_clear(&err);
							if (!rki_fbx_prop_array(n, i, &data, &count, &err)) {
								all = false;
								RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
								RK_CHECK(err.path[0] && (err.location & RK_LOCATION_BYTE));
							}
						}
					}
					if (next[depth - 1] < n->child_count && depth < 64) {
						stack[depth] = &n->children[next[depth - 1]++];
						next[depth++] = 0;
					} else {
						depth--;
					}
				}
			} else {
				RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
			}
			RK_CHECK(tmp.bytes_in_use == 0);
			rki_arena_free(&arena);
			RK_CHECK(arena_alloc.bytes_in_use == 0);
			if (ok && all) break;
		}
		RK_CHECK(limit < 100000);
	}
	free_file(&f);
}

/* Decoding from the raw bytes while the tree is parsed gives the eager arrays,
 * whatever the thread count; arrays outside the listed names stay pending. */
RK_TEST(prescan_batches)
{
	char path[4096];
	if (!shared_path(path, sizeof(path), "assets")) RK_SKIP("shared folder (../shared) not found");
	static const char *const files[] = {
		"assets/ybot.fbx",
		"assets/ybot@kick.fbx",
		"conformance/data/maya_cube_big_endian_7500_binary.fbx",
		"conformance/data/maya_kenney_character_7700_binary.fbx",
		"conformance/data/maya_cube_7500_ascii.fbx",
	};
	static const char *const names[] = { "Vertices", "PolygonVertexIndex", "Normals", "UV", "UVIndex", "Weights", "KeyTime" };
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		shared_path(path, sizeof(path), files[k]);
		file_data f;
		RK_REQUIRE(load_file(&f, path));
		parsed e;
		parse_bytes(&e, f.data, f.size, NULL);
		RK_REQUIRE(e.ok);
		static const size_t threads[] = { 1, 2, 8 };
		for (size_t t = 0; t < 3; t++) {
			parsed l;
			rki_fbx_decode_batch *batch;
			parse_prescan(&l, f.data, f.size, names, sizeof(names) / sizeof(names[0]), threads[t], &batch);
			RK_REQUIRE(l.ok);
			/* A batch only when a helper thread would run: binary, 2+ threads, >= 256 KiB. */
			if (e.doc.ascii || threads[t] == 1) RK_CHECK(batch == NULL);
			if (strstr(files[k], "ybot.fbx") && threads[t] > 1) RK_CHECK(batch != NULL);
			/* Reading every array: the batch's are waited for, the others decoded. */
			size_t pending = 0;
			compare_lazy(rk_t_, &e.doc.root, &l.doc.root, true, &pending);
			size_t got = rki_fbx_decode_finish(batch);
			if (batch) RK_CHECK(got > 0 && got < pending);
			RK_CHECK(l.tmp.bytes_in_use == 0);
			parsed_free(&l);
		}
		/* Finishing first: only the listed arrays are decoded. */
		parsed l;
		rki_fbx_decode_batch *batch;
		parse_prescan(&l, f.data, f.size, names, 1, 2, &batch);
		RK_REQUIRE(l.ok);
		size_t got = rki_fbx_decode_finish(batch);
		size_t left = 0;
		compare_lazy(rk_t_, &e.doc.root, &l.doc.root, false, &left);
		if (strstr(files[k], "ybot.fbx")) RK_CHECK_INT(got, 2);   /* two meshes' Vertices */
		if (!e.doc.ascii) RK_CHECK(left > 0);
		compare_lazy(rk_t_, &e.doc.root, &l.doc.root, true, &left);
		parsed_free(&l);
		parsed_free(&e);
		free_file(&f);
	}
	/* Containers: only the listed objects' subtrees are scanned. ybot.fbx has
	 * Vertices under its two Geometry objects and Weights under its Deformer
	 * (cluster) objects. */
	{
		shared_path(path, sizeof(path), "assets/ybot.fbx");
		file_data f;
		RK_REQUIRE(load_file(&f, path));
		static const char *const vw[] = { "Vertices", "Weights" };
		static const char *const geo[] = { "Geometry" }, *const geo_def[] = { "Geometry", "Deformer" };
		size_t got_all, got_geo, got_geo_def;
		parsed l;
		rki_fbx_decode_batch *batch;
		parse_prescan_in(&l, f.data, f.size, NULL, 0, vw, 2, 2, &batch);
		RK_REQUIRE(l.ok && batch);
		got_all = rki_fbx_decode_finish(batch);
		parsed_free(&l);
		parse_prescan_in(&l, f.data, f.size, geo, 1, vw, 2, 2, &batch);
		RK_REQUIRE(l.ok && batch);
		got_geo = rki_fbx_decode_finish(batch);
		parsed_free(&l);
		parse_prescan_in(&l, f.data, f.size, geo_def, 2, vw, 2, 2, &batch);
		RK_REQUIRE(l.ok && batch);
		got_geo_def = rki_fbx_decode_finish(batch);
		parsed_free(&l);
		RK_CHECK_INT(got_geo, 2);
		RK_CHECK(got_all > 2);
		RK_CHECK_INT(got_geo_def, got_all);
		free_file(&f);
	}

	/* Not binary FBX, bad arguments: no batch. */
	rki_alloc a;
	rki_alloc_init(&a, NULL, 0, 0);
	rki_arena ar;
	rki_arena_init(&ar, &a);
	RK_CHECK(rki_fbx_decode_prescan(k_ascii, sizeof(k_ascii) - 1, "Objects", NULL, 0, names, 1, 3, 2, NULL, &ar, &a) == NULL);
	RK_CHECK(rki_fbx_decode_prescan(NULL, 0, "Objects", NULL, 0, names, 1, 3, 2, NULL, &ar, &a) == NULL);
	RK_CHECK(a.bytes_in_use == 0);

	/* A corrupt stream found by a helper: the accessor reports the eager parse's
	 * error. ybot.fbx with a byte flipped inside the body's Normals deflate data. */
	shared_path(path, sizeof(path), "assets/ybot.fbx");
	file_data f;
	RK_REQUIRE(load_file(&f, path));
	parsed e, l;
	parse_lazy(&e, f.data, f.size, NULL);
	RK_REQUIRE(e.ok);
	const rki_fbx_node *objects = child(&e.doc.root, "Objects");
	const rki_fbx_prop *np = NULL;
	for (size_t i = 0; objects && i < objects->child_count && !np; i++) {
		const rki_fbx_node *nn = child(child(&objects->children[i], "LayerElementNormal"), "Normals");
		if (nn && nn->props[0].pending == 2 && nn->props[0].v.a.count > 100000) np = &nn->props[0];
	}
	RK_REQUIRE(np != NULL);
	uint64_t prop_at = np->offset;
	unsigned char *bad = (unsigned char *)malloc(f.size);
	RK_REQUIRE(bad != NULL);
	memcpy(bad, f.data, f.size);
	bad[prop_at + 13 + np->encoded_size / 2] ^= 0x5a;
	parsed_free(&e);
	parse_bytes(&e, bad, f.size, NULL);
	RK_CHECK(!e.ok && e.err.code == RK_ERROR_CORRUPT && e.err.byte_offset == prop_at);
	rki_fbx_decode_batch *batch;
	parse_prescan(&l, bad, f.size, names, 3, 2, &batch);
	RK_REQUIRE(l.ok && batch != NULL);
	const rki_fbx_node *bn = NULL;
	objects = child(&l.doc.root, "Objects");
	for (size_t i = 0; objects && i < objects->child_count && !bn; i++) {
		const rki_fbx_node *nn = child(child(&objects->children[i], "LayerElementNormal"), "Normals");
		if (nn && nn->props[0].offset == prop_at) bn = nn;
	}
	RK_REQUIRE(bn != NULL);
	const void *data;
	size_t n;
	rk_error err;
	rki_error_clear(&err);
	RK_CHECK(!rki_fbx_prop_array(bn, 0, &data, &n, &err));
	RK_CHECK_STR(err.message, e.err.message);
	RK_CHECK_INT(err.byte_offset, prop_at);
	RK_CHECK_STR(err.path, e.err.path);
	RK_CHECK(rki_fbx_decode_finish(batch) > 0);   /* the other arrays */
	RK_CHECK(bn->props[0].pending == 2);
	RK_CHECK(l.tmp.bytes_in_use == 0);
	parsed_free(&l);
	parsed_free(&e);
	/* Truncations and corruptions of ybot.fbx with a pre-scan batch. */
	size_t steps = quick_mode() ? 20 : 60;
	for (size_t k = 1; k <= steps; k++) {
		size_t len = (size_t)((double)k * (double)f.size / (double)(steps + 1));
		unsigned char *copy = (unsigned char *)malloc(len);
		RK_REQUIRE(copy != NULL);
		memcpy(copy, f.data, len);
		lazy_must_be_clean(rk_t_, copy, len, "ybot.fbx prefix", 2 * k + 1);
		free(copy);
		uint64_t seed = 0xfeed0000u + k;
		size_t at = (size_t)(xorshift64(&seed) % f.size);
		memcpy(bad, f.data, f.size);
		bad[at] ^= (unsigned char)(1u + xorshift64(&seed) % 255u);
		lazy_must_be_clean(rk_t_, bad, f.size, "ybot.fbx corrupted", 2 * k + 1);
	}
	free(bad);
	free_file(&f);
	static tb b;
	tb_header(&b, 7500, false);
	size_t o = tb_begin(&b, "Objects", 0);
	tb_props_done(&b, o);
	size_t v = tb_begin(&b, "Vertices", 1);
	tb_array(&b, 'd', k_f64, 2, 8, true, 3, 0);
	tb_props_done(&b, v);
	tb_end(&b, v, false);
	tb_end(&b, o, true);
	tb_null(&b);
	/* The parse fails after the pre-scan: the batch is finished all the same. */
	parse_prescan(&l, b.d, b.size - 40, names, 1, 2, &batch);
	RK_CHECK(!l.ok);
	rki_fbx_decode_finish(batch);
	RK_CHECK(l.tmp.bytes_in_use == 0);
	parsed_free(&l);
	rki_arena_free(&ar);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(node_prop_names),
	RK_TEST_ENTRY(corpus_all_files_parse),
	RK_TEST_ENTRY(corpus_versions_match_manifest),
	RK_TEST_ENTRY(ybot_structure),
	RK_TEST_ENTRY(ascii_binary_pairs_agree),
	RK_TEST_ENTRY(binary_handmade_32_and_64_bit),
	RK_TEST_ENTRY(binary_array_conversions),
	RK_TEST_ENTRY(binary_footer_and_null_record),
	RK_TEST_ENTRY(binary_corrupt_arrays),
	RK_TEST_ENTRY(binary_char_arrays),
	RK_TEST_ENTRY(binary_corrupt_records),
	RK_TEST_ENTRY(ascii_syntax),
	RK_TEST_ENTRY(ascii_number_rounding),
	RK_TEST_ENTRY(ascii_numbers_match_strtod),
	RK_TEST_ENTRY(ascii_errors_have_lines),
	RK_TEST_ENTRY(is_fbx_sniffing),
	RK_TEST_ENTRY(truncations),
	RK_TEST_ENTRY(corruptions),
	RK_TEST_ENTRY(allocation_failures),
	RK_TEST_ENTRY(limits),
	RK_TEST_ENTRY(lazy_arrays_match_eager),
	RK_TEST_ENTRY(lazy_arrays_through_conversions),
	RK_TEST_ENTRY(decode_arrays_threads),
	RK_TEST_ENTRY(lazy_corrupt_arrays),
	RK_TEST_ENTRY(lazy_truncations_and_corruptions),
	RK_TEST_ENTRY(lazy_allocation_failures),
	RK_TEST_ENTRY(prescan_batches))
