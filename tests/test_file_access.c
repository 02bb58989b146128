/*
 * tests/test_file_access.c - the access policy for external files
 * (src/load/load_files.h, docs/security.md) and the output rules of
 * rk_file_write (src/core/file_io.c).
 *
 * Every case builds its own files in a fresh temporary folder T:
 *   T/secret.bin   36 bytes: the floats 1234.5, 2345.5, ... (a buffer that
 *                  must never be read: positions would show those values)
 *   T/secret.png   a valid PNG carrying the text "RIGKIT-SECRET-PNG-7f3a"
 *                  (must never appear in a written GLB)
 *   T/in/          the input's folder: model.gltf / model.glb, ok.bin
 *                  (positions 1, 2, 3 ...), tex.png, links and FIFOs.
 * Expectations are the files' own bytes: a refused reference leaves the
 * secret values out of the scene and out of the writer's output, and a
 * warning names the reference as written. The allow-list and callback
 * cases show the same files ARE read when allowed (so the checks can fail).
 * FIFOs and /dev/zero run under alarm(): a blocking open fails the test.
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECRET_MARK "RIGKIT-SECRET-PNG-7f3a"

static char T[512];

static bool write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f) return false;
	bool ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;
}

static const char *at(const char *rel)
{
	static char buf[8][1024];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", T, rel);
	return buf[k];
}

/* A 1x1 RGBA PNG with a tEXt chunk holding `mark` (CRCs are not checked by
 * the loader, which never decodes; the writer embeds the bytes as they are). */
static size_t make_png(unsigned char *buf, const char *mark)
{
	static const unsigned char head[] = { 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0,
		0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89 };
	size_t n = sizeof(head), len = strlen(mark);
	memcpy(buf, head, n);
	buf[n++] = 0; buf[n++] = 0; buf[n++] = 0; buf[n++] = (unsigned char)len;
	memcpy(buf + n, "tEXt", 4);
	n += 4;
	memcpy(buf + n, mark, len);
	n += len;
	memset(buf + n, 0, 4);
	n += 4;
	static const unsigned char tail[] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	memcpy(buf + n, tail, sizeof(tail));
	return n + sizeof(tail);
}

static void setup(void)
{
	snprintf(T, sizeof(T), "/tmp/rk_access_XXXXXX");
	if (!mkdtemp(T)) abort();
	mkdir(at("in"), 0700);
	mkdir(at("in/sub"), 0700);
	mkdir(at("out"), 0700);
	float secret[9], ok[9];
	for (int i = 0; i < 9; i++) {
		secret[i] = 1234.5f + 1111.0f * (float)i;
		ok[i] = (float)(i + 1);
	}
	unsigned char png[256];
	size_t pn = make_png(png, SECRET_MARK);
	write_file(at("secret.bin"), secret, sizeof(secret));
	write_file(at("secret.png"), png, pn);
	write_file(at("in/ok.bin"), ok, sizeof(ok));
	pn = make_png(png, "inside-png");
	write_file(at("in/tex.png"), png, pn);
	symlink("../secret.bin", at("in/link.bin"));
	symlink("../secret.png", at("in/link.png"));
	symlink("/dev/zero", at("in/zero.bin"));
	mkfifo(at("in/fifo.bin"), 0600);
	mkfifo(at("in/fifo.png"), 0600);
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
		char p[2048];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) rm_tree(p);
		else unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/* A .gltf with one triangle whose buffer has URI `buf_uri` (JSON-escaped
 * already) and one textured material whose image has URI `img_uri`. */
static void gltf_doc(char *dst, size_t cap, const char *buf_uri, const char *img_uri)
{
	snprintf(dst, cap,
		"{\"asset\":{\"version\":\"2.0\"},"
		"\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
		"\"images\":[{\"uri\":\"%s\"}],\"textures\":[{\"source\":0}],"
		"\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]}],"
		"\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
		buf_uri, img_uri);
}

static bool has_warning(const rk_scene *s, const char *a, const char *b)
{
	for (size_t i = 0; i < s->warnings.count; i++) {
		const char *m = s->warnings.data[i].message;
		if (strstr(m, a) && (!b || strstr(m, b))) return true;
	}
	return false;
}

static void print_warnings(const rk_scene *s)
{
	for (size_t i = 0; i < s->warnings.count; i++) fprintf(stderr, "  warning: %s\n", s->warnings.data[i].message);
}

static bool glb_contains(rk_test_state *rk_t_, const rk_scene *s, const char *needle)
{
	void *data = NULL;
	size_t size = 0;
	rk_error err;
	rk_gltf_write_opts o = { .container = RK_GLTF_CONTAINER_GLB };
	if (!rk_gltf_write_memory(s, &o, &data, &size, &err)) {
		RK_CHECK(false);
		return false;
	}
	bool found = false;
	for (size_t i = 0; i + strlen(needle) <= size && !found; i++) found = !memcmp((char *)data + i, needle, strlen(needle));
	rk_gltf_memory_free(data);
	return found;
}

static bool positions_are(const rk_scene *s, float first)
{
	if (!s->meshes.count || s->meshes.data[0].vertex_count < 1) return false;
	return rk_mesh_position(&s->meshes.data[0], 0).x == (double)first;
}

static rk_scene *load_doc(const char *doc, const rk_load_opts *opts, rk_error *err)
{
	write_file(at("in/model.gltf"), doc, strlen(doc));
	return rk_load_file(at("in/model.gltf"), opts, err);
}

RK_TEST(escapes_are_refused_and_warned)
{
	setup();
	alarm(60);
	char abs_bin[1100], abs_png[1100], file_bin[1100], file_png[1100];
	snprintf(abs_bin, sizeof(abs_bin), "%s", at("secret.bin"));
	snprintf(abs_png, sizeof(abs_png), "%s", at("secret.png"));
	snprintf(file_bin, sizeof(file_bin), "file://%s", at("secret.bin"));
	snprintf(file_png, sizeof(file_png), "file://%s", at("secret.png"));
	/* { URI in JSON, the text the warning must contain } */
	const char *bins[][2] = { { "../secret.bin", "\"../secret.bin\"" }, { "%2e%2e/secret.bin", "%2e%2e/secret.bin" },
		{ "%2E%2E%2Fsecret.bin", "%2E%2E%2Fsecret.bin" }, { "..%2fsecret.bin", "..%2fsecret.bin" },
		{ "..\\\\secret.bin", "..\\secret.bin" }, { "sub/../../secret.bin", "sub/../../secret.bin" },
		{ abs_bin, abs_bin }, { file_bin, "file:" }, { "link.bin", "link.bin" }, { "zero.bin", "zero.bin" } };
	const char *pngs[][2] = { { "../secret.png", "\"../secret.png\"" }, { "%2e%2e/secret.png", "%2e%2e/secret.png" },
		{ "..%5Csecret.png", "..%5Csecret.png" }, { "..\\\\secret.png", "..\\secret.png" }, { abs_png, abs_png },
		{ file_png, "file:" }, { "link.png", "link.png" } };
	char doc[4096];
	rk_error err;
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		gltf_doc(doc, sizeof(doc), bins[i][0], "tex.png");
		rk_scene *s = load_doc(doc, NULL, &err);
		if (!s) fprintf(stderr, "case %s: %s\n", bins[i][0], err.message);
		RK_REQUIRE(s);
		if (!has_warning(s, bins[i][1], "buffer 0")) {
			fprintf(stderr, "buffer case %s: no warning naming it\n", bins[i][0]);
			print_warnings(s);
			RK_CHECK(false);
		}
		RK_CHECK(positions_are(s, 0.0f));   /* zeros, never 1234.5 */
		RK_CHECK(!positions_are(s, 1234.5f));
		RK_CHECK(s->textures.data[0].resolved_path != NULL); /* the rest still loads */
		rk_scene_free(s);
	}
	for (size_t i = 0; i < sizeof(pngs) / sizeof(pngs[0]); i++) {
		gltf_doc(doc, sizeof(doc), "ok.bin", pngs[i][0]);
		rk_scene *s = load_doc(doc, NULL, &err);
		RK_REQUIRE(s);
		if (!has_warning(s, pngs[i][1], "image 0")) {
			fprintf(stderr, "image case %s: no warning naming it\n", pngs[i][0]);
			print_warnings(s);
			RK_CHECK(false);
		}
		RK_CHECK(s->textures.data[0].resolved_path == NULL);
		RK_CHECK(s->textures.data[0].content == NULL);
		RK_CHECK(positions_are(s, 1.0f));
		RK_CHECK(!glb_contains(rk_t_, s, SECRET_MARK));
		rk_scene_free(s);
	}
	/* control: inside the folder, both are read and the image is embedded */
	gltf_doc(doc, sizeof(doc), "ok.bin", "sub/../tex.png");
	rk_scene *s = load_doc(doc, NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK(positions_are(s, 1.0f));
	RK_CHECK_INT(s->warnings.count, 0);
	RK_CHECK(glb_contains(rk_t_, s, "inside-png"));
	rk_scene_free(s);
	alarm(0);
	rm_tree(T);
}

/* GLB: BIN chunk for the buffer, image by URI. */
static size_t make_glb(unsigned char *out, const char *img_uri)
{
	char json[1024];
	int jn = snprintf(json, sizeof(json),
		"{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36}],"
		"\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
		"\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
		"\"images\":[{\"uri\":\"%s\"}],\"textures\":[{\"source\":0}],"
		"\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]}],"
		"\"nodes\":[{\"mesh\":0}]}",
		img_uri);
	while (jn % 4) json[jn++] = ' ';
	uint32_t total = 12 + 8 + (uint32_t)jn + 8 + 36;
	uint32_t hdr[5] = { 0x46546C67u, 2, total, (uint32_t)jn, 0x4E4F534Au };
	memcpy(out, hdr, 20);
	memcpy(out + 20, json, (size_t)jn);
	uint32_t bin[2] = { 36, 0x004E4942u };
	memcpy(out + 20 + jn, bin, 8);
	float v[9] = { 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	memcpy(out + 28 + jn, v, 36);
	return total;
}

RK_TEST(glb_image_uri_refused)
{
	setup();
	unsigned char glb[2048];
	const char *uris[] = { "../secret.png", "%2e%2e/secret.png", "link.png", "..\\\\secret.png" };
	for (size_t i = 0; i < sizeof(uris) / sizeof(uris[0]); i++) {
		size_t n = make_glb(glb, uris[i]);
		write_file(at("in/model.glb"), glb, n);
		rk_error err;
		rk_scene *s = rk_load_file(at("in/model.glb"), NULL, &err);
		RK_REQUIRE(s);
		RK_CHECK(has_warning(s, "image 0", "not opened"));
		RK_CHECK(s->textures.data[0].resolved_path == NULL);
		RK_CHECK(positions_are(s, 5.0f));
		RK_CHECK(!glb_contains(rk_t_, s, SECRET_MARK));
		rk_scene_free(s);
	}
	rm_tree(T);
}

RK_TEST(allow_paths_open_the_tree)
{
	setup();
	char doc[4096];
	rk_error err;
	const char *allow[] = { T };
	rk_load_opts o = { .allow_paths = { allow, 1 } };
	gltf_doc(doc, sizeof(doc), "../secret.bin", "../secret.png");
	rk_scene *s = load_doc(doc, &o, &err);
	RK_REQUIRE(s);
	RK_CHECK(positions_are(s, 1234.5f));
	RK_CHECK(s->textures.data[0].resolved_path != NULL);
	RK_CHECK(glb_contains(rk_t_, s, SECRET_MARK));
	rk_scene_free(s);
	/* the symlink out lands in the allowed tree too */
	gltf_doc(doc, sizeof(doc), "link.bin", "tex.png");
	s = load_doc(doc, &o, &err);
	RK_REQUIRE(s);
	RK_CHECK(positions_are(s, 1234.5f));
	rk_scene_free(s);
	/* an allowed folder that does not exist is an error naming it */
	const char *bad[] = { "/nonexistent/rigkit/folder" };
	rk_load_opts ob = { .allow_paths = { bad, 1 } };
	s = load_doc(doc, &ob, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_INVALID_ARGUMENT);
	RK_CHECK(strstr(err.message, "/nonexistent/rigkit/folder") != NULL);
	rm_tree(T);
}

typedef struct served {
	int opens, closes;
	char last_path[512], last_ref[512];
	float positions[9];
	unsigned char png[256];
	size_t png_size;
} served;

static bool serve_open(void *user, const rk_file_request *r, const void **data, size_t *size)
{
	served *sv = (served *)user;
	sv->opens++;
	snprintf(sv->last_path, sizeof(sv->last_path), "%s", r->path);
	snprintf(sv->last_ref, sizeof(sv->last_ref), "%s", r->reference);
	if (!strcmp(r->path, "uploads/42/buf.bin")) {
		*data = sv->positions;
		*size = sizeof(sv->positions);
		return true;
	}
	if (!strcmp(r->path, "uploads/42/maps/skin.png")) {
		*data = sv->png;
		*size = sv->png_size;
		return true;
	}
	return false;
}

static void serve_close(void *user, const void *data, size_t size)
{
	(void)data;
	(void)size;
	((served *)user)->closes++;
}

RK_TEST(open_file_callback_serves_memory)
{
	served sv;
	memset(&sv, 0, sizeof(sv));
	for (int i = 0; i < 9; i++) sv.positions[i] = 40.0f + (float)i;
	sv.png_size = make_png(sv.png, "served-png");
	rk_load_opts o = { .filename = "uploads/42/model.gltf", .open_file = serve_open, .close_file = serve_close,
		.file_user = &sv };
	char doc[4096];
	rk_error err;
	gltf_doc(doc, sizeof(doc), "buf.bin", "maps/sub/../skin.png");
	rk_scene *s = rk_load_memory(doc, strlen(doc), &o, &err);
	RK_REQUIRE(s);
	RK_CHECK(positions_are(s, 40.0f));
	RK_CHECK_INT(sv.opens, 2);
	RK_CHECK_INT(sv.closes, 2);
	RK_CHECK_STR(sv.last_ref, "maps/sub/../skin.png");
	RK_REQUIRE(s->textures.data[0].content != NULL);
	RK_CHECK(s->textures.data[0].content_size == sv.png_size);
	RK_CHECK(glb_contains(rk_t_, s, "served-png"));
	rk_scene_free(s);
	/* escapes never reach the callback */
	sv.opens = 0;
	gltf_doc(doc, sizeof(doc), "../41/buf.bin", "/etc/passwd");
	s = rk_load_memory(doc, strlen(doc), &o, &err);
	RK_REQUIRE(s);
	RK_CHECK_INT(sv.opens, 0);
	RK_CHECK(has_warning(s, "../41/buf.bin", "buffer 0"));
	RK_CHECK(has_warning(s, "/etc/passwd", "image 0"));
	rk_scene_free(s);
	/* a file the callback does not have: the buffer is an I/O error naming it */
	gltf_doc(doc, sizeof(doc), "other.bin", "x.png");
	s = rk_load_memory(doc, strlen(doc), &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_IO);
	RK_CHECK(strstr(err.message, "other.bin") != NULL);
}

RK_TEST(special_files_never_block)
{
	setup();
	alarm(30); /* a blocking open() of a FIFO would end the test here */
	char doc[4096];
	rk_error err;
	gltf_doc(doc, sizeof(doc), "fifo.bin", "tex.png");
	rk_scene *s = load_doc(doc, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_IO);
	RK_CHECK(strstr(err.message, "fifo.bin") && strstr(err.message, "FIFO"));
	RK_CHECK_STR(err.path, "/buffers/0/uri");
	gltf_doc(doc, sizeof(doc), "sub", "tex.png");
	s = load_doc(doc, NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK(strstr(err.message, "folder") != NULL);
	gltf_doc(doc, sizeof(doc), "ok.bin", "fifo.png");
	s = load_doc(doc, NULL, &err);
	RK_REQUIRE(s);
	RK_CHECK(has_warning(s, "fifo.png", "FIFO"));
	RK_CHECK(s->textures.data[0].resolved_path == NULL);
	rk_scene_free(s);
	/* /dev/zero: outside the tree through the link; allowed, it is a device */
	const char *dev[] = { "/dev" };
	rk_load_opts o = { .allow_paths = { dev, 1 } };
	gltf_doc(doc, sizeof(doc), "zero.bin", "tex.png");
	s = load_doc(doc, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK(strstr(err.message, "zero.bin") && strstr(err.message, "character device"));
	gltf_doc(doc, sizeof(doc), "/dev/zero", "tex.png");
	s = load_doc(doc, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK(strstr(err.message, "character device") != NULL);
	/* the input itself */
	s = rk_load_file(at("in/fifo.bin"), NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_IO);
	RK_CHECK(strstr(err.message, "FIFO") != NULL);
	s = rk_load_file("/dev/zero", NULL, &err);
	RK_CHECK(s == NULL);
	RK_CHECK(strstr(err.message, "character device") != NULL);
	alarm(0);
	rm_tree(T);
}

/* ---- outputs ------------------------------------------------------------------------------ */

static size_t count_entries(const char *dir, const char *except)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!except || strcmp(e->d_name, except))) n++;
	if (d) closedir(d);
	return n;
}

static bool file_is(const char *path, const char *text)
{
	char buf[256] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f) return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n == strlen(text) && !memcmp(buf, text, n);
}

RK_TEST(outputs_refuse_links_and_special_files)
{
	setup();
	alarm(30);
	rk_error err;
	/* names of 246..255 bytes: the temporary name must stay short */
	for (size_t len = 246; len <= 255; len++) {
		char name[300], path[1400];
		memset(name, 'n', len);
		name[len] = '\0';
		snprintf(path, sizeof(path), "%s/%s", at("out"), name);
		RK_CHECK(rk_file_write(path, "first", 5, NULL, &err));
		RK_CHECK(rk_file_write_atomic(path, "second", 6, &err)); /* replaces an existing file */
		RK_CHECK(file_is(path, "second"));
		unlink(path);
	}
	RK_CHECK_INT(count_entries(at("out"), NULL), 0); /* no temporary files left */

	write_file(at("target.txt"), "keep", 4);
	symlink("../target.txt", at("out/link.glb"));
	RK_CHECK(!rk_file_write(at("out/link.glb"), "new", 3, NULL, &err));
	RK_CHECK_INT(err.code, RK_ERROR_OUTPUT);
	RK_CHECK(strstr(err.message, "symbolic link") != NULL);
	RK_CHECK(file_is(at("target.txt"), "keep"));
	rk_file_write_opts force = { .force = true };
	RK_CHECK(rk_file_write(at("out/link.glb"), "new", 3, &force, &err));
	struct stat st;
	RK_CHECK(lstat(at("out/link.glb"), &st) == 0 && S_ISREG(st.st_mode));
	RK_CHECK(file_is(at("out/link.glb"), "new"));
	RK_CHECK(file_is(at("target.txt"), "keep"));

	mkfifo(at("out/pipe.glb"), 0600);
	RK_CHECK(!rk_file_write(at("out/pipe.glb"), "x", 1, NULL, &err));
	RK_CHECK(strstr(err.message, "FIFO") != NULL);
	RK_CHECK(rk_file_write(at("out/pipe.glb"), "x", 1, &force, &err));
	RK_CHECK(lstat(at("out/pipe.glb"), &st) == 0 && S_ISREG(st.st_mode));
	mkdir(at("out/dir.glb"), 0700);
	RK_CHECK(!rk_file_write(at("out/dir.glb"), "x", 1, &force, &err));
	RK_CHECK(strstr(err.message, "folder") != NULL);
	RK_CHECK(!rk_file_write("/dev/null", "x", 1, NULL, &err));
	RK_CHECK(strstr(err.message, "character device") != NULL);

	/* writers pass it on: OBJ and glTF refuse a link unless force */
	rk_scene *s = rk_demo_scene(RK_DEMO_MIXAMO_SOURCE, NULL, &err);
	RK_REQUIRE(s);
	symlink("../target.txt", at("out/link.obj"));
	RK_CHECK(!rk_obj_write(s, at("out/link.obj"), NULL, &err));
	rk_obj_write_opts oo = { .force = true };
	RK_CHECK(rk_obj_write(s, at("out/link.obj"), &oo, &err));
	symlink("../target.txt", at("out/link2.glb"));
	RK_CHECK(!rk_glb_write(s, at("out/link2.glb"), NULL, &err));
	RK_CHECK(file_is(at("target.txt"), "keep"));
	unsigned char px[16] = { 0 };
	symlink("../target.txt", at("out/link.png"));
	RK_CHECK(!rk_png_write(at("out/link.png"), px, 2, 2, 0, &err));
	RK_CHECK(rk_png_write_file(at("out/link.png"), px, 2, 2, 0, &force, &err));
	rk_scene_free(s);
	RK_CHECK(file_is(at("target.txt"), "keep"));
	alarm(0);
	rm_tree(T);
}

RK_TEST(kill_during_write_leaves_nothing)
{
	setup();
	size_t size = (size_t)48 << 20;
	int leftovers = 0, killed = 0;
	for (int round = 0; round < 12; round++) {
		pid_t pid = fork();
		RK_REQUIRE(pid >= 0);
		if (pid == 0) {
			unsigned char *big = (unsigned char *)malloc(size);
			if (!big) _exit(2);
			memset(big, 'x', size);
			rk_error err;
			for (;;) rk_file_write(at("out/big.glb"), big, size, NULL, &err);
		}
		struct timespec ts = { 0, (long)(5 + round * 13) * 1000000L };
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int status = 0;
		waitpid(pid, &status, 0);
		killed += WIFSIGNALED(status);
		leftovers += (int)count_entries(at("out"), "big.glb");
	}
	RK_CHECK_INT(killed, 12);
	RK_CHECK_INT(leftovers, 0);
	rm_tree(T);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(escapes_are_refused_and_warned),
	RK_TEST_ENTRY(glb_image_uri_refused),
	RK_TEST_ENTRY(allow_paths_open_the_tree),
	RK_TEST_ENTRY(open_file_callback_serves_memory),
	RK_TEST_ENTRY(special_files_never_block),
	RK_TEST_ENTRY(outputs_refuse_links_and_special_files),
	RK_TEST_ENTRY(kill_during_write_leaves_nothing))
