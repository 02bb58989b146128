/*
 * tests/test_gltf_stream.c - rk_load_file of a GLB file reads it in pieces
 * (src/formats/gltf/gltf_buffer.c, "Streamed GLB") instead of holding it.
 *
 * Expectations:
 *   - the same scene as rk_load_memory of the file's bytes (the path the
 *     other glTF tests check against the JSON, three.js and the validator):
 *     the GLB rk_gltf_write_memory makes of both scenes is the same bytes,
 *     and the warnings are the same; for the shared GLBs, the repository's
 *     fixtures (meshopt, Draco, quantized, WebP, humanoids) and a GLB built
 *     here;
 *   - truncated and corrupted files: the same outcome both ways (the same
 *     error code, message, byte offset and JSON pointer, or the same scene);
 *   - a file that shrinks while it loads (a stream whose reads fail from
 *     some byte on): RK_ERROR_IO at that read's byte offset, nothing leaked;
 *   - the file is not held: a GLB whose BIN chunk carries 8 MiB that no
 *     accessor reads loads with a peak (counted by the allocator) below
 *     1 MiB from the file, while rk_load_memory's caller holds the 8 MiB.
 */
#include "rk_test.h"
#include "rk_glb.h"

#include "rigkit/export.h"
#include "rigkit/load.h"
#include "rigkit/scene.h"
#include "formats/gltf/gltf.h"
#include "load/load_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f) return false;
	bool ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;
}

static char *temp_path(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/test_gltf_stream_%ld_%s", RK_BINARY_DIR, (long)getpid(), name);
	return buf;
}

/* The GLB bytes of a scene (its digest), NULL when it cannot be written. */
static void *scene_bytes(const rk_scene *s, size_t *size)
{
	void *out = NULL;
	rk_error err;
	*size = 0;
	rk_gltf_write_opts wo = { 0 };
	if (!rk_gltf_write_memory(s, &wo, &out, size, &err)) return NULL;
	return out;
}

/* Compares two outcomes of one input; returns the number of differences. */
static int compare_outcomes(const char *what, rk_scene *a, const rk_error *ea, rk_scene *b, const rk_error *eb)
{
	int bad = 0;
	if (!a || !b) {
		if (a || b) {
			fprintf(stderr, "%s: one path failed: file %s / memory %s\n", what, a ? "ok" : ea->message, b ? "ok" : eb->message);
			return 1;
		}
		if (ea->code != eb->code || strcmp(ea->message, eb->message) != 0 || ea->byte_offset != eb->byte_offset
			|| strcmp(ea->path, eb->path) != 0) {
			fprintf(stderr, "%s: errors differ:\n  file:   %d %s (byte %llu, %s)\n  memory: %d %s (byte %llu, %s)\n", what,
				(int)ea->code, ea->message, (unsigned long long)ea->byte_offset, ea->path, (int)eb->code, eb->message,
				(unsigned long long)eb->byte_offset, eb->path);
			bad++;
		}
		return bad;
	}
	if (a->warnings.count != b->warnings.count) {
		fprintf(stderr, "%s: %zu warnings from the file, %zu from memory\n", what, a->warnings.count, b->warnings.count);
		bad++;
	} else {
		for (size_t i = 0; i < a->warnings.count; i++) {
			const rk_warning *x = &a->warnings.data[i], *y = &b->warnings.data[i];
			if (strcmp(x->message, y->message) != 0 || strcmp(x->path, y->path) != 0 || x->count != y->count
				|| x->byte_offset != y->byte_offset) {
				fprintf(stderr, "%s: warning %zu differs: \"%s\" / \"%s\"\n", what, i, x->message, y->message);
				bad++;
			}
		}
	}
	size_t na, nb;
	void *da = scene_bytes(a, &na), *db = scene_bytes(b, &nb);
	if (!da || !db || na != nb || memcmp(da, db, na) != 0) {
		fprintf(stderr, "%s: the scenes differ (written GLB %zu / %zu bytes)\n", what, na, nb);
		bad++;
	}
	rk_gltf_memory_free(da);
	rk_gltf_memory_free(db);
	return bad;
}

/* Loads `data` both ways (through a temporary file `tmp`); differences. */
static int both_ways(const char *what, const char *tmp, const unsigned char *data, size_t size, const rk_load_opts *opts)
{
	if (!write_file(tmp, data, size)) {
		fprintf(stderr, "%s: cannot write %s\n", what, tmp);
		return 1;
	}
	rk_error ea, eb;
	rk_scene *a = rk_load_file(tmp, opts, &ea);
	rk_load_opts mo = opts ? *opts : (rk_load_opts){ 0 };
	mo.filename = tmp;  /* the same name in errors and the same folder for references */
	rk_scene *b = rk_load_memory(data, size, &mo, &eb);
	int bad = compare_outcomes(what, a, &ea, b, &eb);
	rk_scene_free(a);
	rk_scene_free(b);
	return bad;
}

static const char *const rk_fixture_glbs[] = {
	"rig.glb", "rig_meshopt.glb", "rig_gt_meshopt.glb", "rig_quant.glb", "rig_draco.glb", "rig_webp.glb",
	"humanoid_bind.glb", "humanoid_crouch.glb", "twist_rig.glb", "twist_source.glb",
};
static const char *const rk_shared_glbs[] = { "Flamingo.glb", "Horse.glb", "Soldier.glb", "Xbot.glb", "readyplayer.me.glb" };

/* A GLB with a mesh, a skin, an animation and an embedded image, its BIN
 * chunk holding `pad` bytes that nothing reads after the data. */
static unsigned char *build_glb(size_t pad, size_t *size)
{
	float bin_f[3 * 3 + 16 + 2 + 6];
	size_t k = 0;
	const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	for (int i = 0; i < 9; i++) bin_f[k++] = pos[i];
	for (int i = 0; i < 16; i++) bin_f[k++] = (i % 5 == 0) ? 1.0f : 0.0f;  /* identity inverse bind matrix */
	bin_f[k++] = 0.0f;                                                    /* times */
	bin_f[k++] = 1.0f;
	const float moves[6] = { 0.25f, 0, 0, 0.5f, 0, 0 };                 /* translations */
	for (int i = 0; i < 6; i++) bin_f[k++] = moves[i];
	unsigned char png[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t data_bytes = sizeof(float) * k + 16 + sizeof(png), total = data_bytes + pad;
	unsigned char *bin = (unsigned char *)calloc(1, total);
	memcpy(bin, bin_f, sizeof(float) * k);
	unsigned char joints[4] = { 0, 0, 0, 0 };
	memcpy(bin + sizeof(float) * k, joints, 4);             /* JOINTS_0: 3 vertices x 4 ubytes */
	memcpy(bin + sizeof(float) * k + 4, joints, 4);
	memcpy(bin + sizeof(float) * k + 8, joints, 4);
	memcpy(bin + sizeof(float) * k + 12, joints, 4);        /* padding of the joints view */
	memcpy(bin + sizeof(float) * k + 16, png, sizeof(png));
	char json[4096];
	snprintf(json, sizeof(json),
		"{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
		"\"nodes\":[{\"name\":\"bone\"},{\"name\":\"body\",\"mesh\":0,\"skin\":0}],"
		"\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":5,\"WEIGHTS_0\":6},\"material\":0}]}],"
		"\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
		"\"textures\":[{\"source\":0}],\"images\":[{\"bufferView\":6,\"mimeType\":\"image/png\"}],"
		"\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":1}],"
		"\"animations\":[{\"name\":\"move\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
		"\"samplers\":[{\"input\":2,\"output\":3}]}],"
		"\"accessors\":["
		"{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
		"{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"},"
		"{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
		"{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
		"{\"bufferView\":3,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
		"{\"bufferView\":4,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
		"{\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
		"\"bufferViews\":["
		"{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
		"{\"buffer\":0,\"byteOffset\":36,\"byteLength\":64},"
		"{\"buffer\":0,\"byteOffset\":100,\"byteLength\":8},"
		"{\"buffer\":0,\"byteOffset\":108,\"byteLength\":24},"
		"{\"buffer\":0,\"byteOffset\":132,\"byteLength\":12},"
		"{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
		"{\"buffer\":0,\"byteOffset\":148,\"byteLength\":8},"
		"{\"buffer\":0,\"byteOffset\":156,\"byteLength\":%zu}],"
		"\"buffers\":[{\"byteLength\":%zu}]}",
		pad, total);
	unsigned char *glb = make_glb(json, bin, total, size);
	free(bin);
	return glb;
}

RK_TEST(same_scene_as_memory)
{
	char path[4096], tmp[4096];
	int bad = 0;
	size_t tested = 0;
	for (size_t i = 0; i < sizeof(rk_fixture_glbs) / sizeof(rk_fixture_glbs[0]); i++) {
		snprintf(path, sizeof(path), "%s/tests/fixtures/%s", RK_SOURCE_DIR, rk_fixture_glbs[i]);
		size_t size;
		unsigned char *data = rk_test_read_file(path, &size);
		RK_REQUIRE(data != NULL);
		bad += both_ways(rk_fixture_glbs[i], temp_path(tmp, sizeof(tmp), "fixture.glb"), data, size, NULL);
		free(data);
		tested++;
	}
	for (size_t i = 0; i < sizeof(rk_shared_glbs) / sizeof(rk_shared_glbs[0]); i++) {
		snprintf(path, sizeof(path), "%s/assets/%s", rk_test_shared_dir(), rk_shared_glbs[i]);
		size_t size;
		unsigned char *data = rk_test_read_file(path, &size);
		if (!data) {
			fprintf(stderr, "same_scene_as_memory: %s not found (set RIGKIT_SHARED_DIR): shared GLBs not compared\n", path);
			break;
		}
		bad += both_ways(rk_shared_glbs[i], temp_path(tmp, sizeof(tmp), "shared.glb"), data, size, NULL);
		free(data);
		tested++;
	}
	size_t size;
	unsigned char *glb = build_glb(300000, &size);
	bad += both_ways("built GLB", temp_path(tmp, sizeof(tmp), "built.glb"), glb, size, NULL);
	rk_load_opts no_images = { .no_embedded_content = true };
	bad += both_ways("built GLB, no embedded content", tmp, glb, size, &no_images);
	free(glb);
	unlink(tmp);
	RK_CHECK(tested >= sizeof(rk_fixture_glbs) / sizeof(rk_fixture_glbs[0]));
	RK_CHECK_INT(bad, 0);
}

static uint32_t next_random(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Truncations (as they are and with the header length patched) and byte
 * changes of `data`, each loaded both ways. */
static int mutations(const char *name, const unsigned char *data, size_t size, size_t truncations, size_t changes)
{
	char tmp[4096], what[256];
	temp_path(tmp, sizeof(tmp), "mutated.glb");
	unsigned char *copy = (unsigned char *)malloc(size);
	int bad = 0;
	for (size_t k = 0; k < truncations; k++) {
		size_t len = (size_t)((double)size * (double)k / (double)truncations);
		memcpy(copy, data, len);
		snprintf(what, sizeof(what), "%s truncated to %zu", name, len);
		bad += both_ways(what, tmp, copy, len, NULL);
		if (len >= 12) {
			put32(copy + 8, (uint32_t)len);
			snprintf(what, sizeof(what), "%s truncated to %zu, header patched", name, len);
			bad += both_ways(what, tmp, copy, len, NULL);
		}
	}
	uint32_t rng = 0x2545F491u;
	memcpy(copy, data, size);
	for (size_t k = 0; k < changes; k++) {
		size_t pos = next_random(&rng) % size;
		unsigned char old = copy[pos], v = (unsigned char)(next_random(&rng) >> 24);
		if (v == old) v ^= 0x5a;
		copy[pos] = v;
		snprintf(what, sizeof(what), "%s with byte %zu = 0x%02X", name, pos, v);
		bad += both_ways(what, tmp, copy, size, NULL);
		copy[pos] = old;
	}
	free(copy);
	unlink(tmp);
	return bad;
}

RK_TEST(same_outcome_on_damaged_files)
{
	size_t size;
	unsigned char *glb = build_glb(64, &size);
	int bad = mutations("built GLB", glb, size, size, 1500);
	free(glb);
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/fixtures/rig_meshopt.glb", RK_SOURCE_DIR);
	unsigned char *data = rk_test_read_file(path, &size);
	RK_REQUIRE(data != NULL);
	bad += mutations("rig_meshopt.glb", data, size, 150, 300);
	free(data);
	snprintf(path, sizeof(path), "%s/assets/Soldier.glb", rk_test_shared_dir());
	data = rk_test_read_file(path, &size);
	if (data) {
		bad += mutations("Soldier.glb", data, size, 40, 60);
		free(data);
	} else {
		fprintf(stderr, "same_outcome_on_damaged_files: %s not found: shared GLB not mutated\n", path);
	}
	RK_CHECK_INT(bad, 0);
}

/* A stream over memory whose reads fail at and after byte `fail_from`. */
typedef struct shrinking {
	const unsigned char *data;
	uint64_t fail_from;
	size_t reads;
} shrinking;

static bool shrinking_read(void *ctx, uint64_t offset, void *dst, size_t len)
{
	shrinking *s = (shrinking *)ctx;
	s->reads++;
	if (offset + len > s->fail_from) return false;
	memcpy(dst, s->data + offset, len);
	return true;
}

RK_TEST(file_shrinking_while_loading)
{
	size_t size;
	unsigned char *glb = build_glb(64, &size);
	size_t json_end = 20 + get32(glb + 12);
	size_t checked = 0;
	/* every byte of the BIN chunk's data: a read there fails */
	for (uint64_t cut = json_end + 8; cut < size; cut += 3) {
		rk_test_alloc counter = { .fail_after = SIZE_MAX };
		rk_load_opts opts = { .allocator = { rk_test_alloc_fn, rk_test_free_fn, &counter } };
		rki_alloc a;
		rk_load_opts resolved;
		rki_load_opts_resolve(&resolved, &opts, size);
		rki_alloc_init(&a, &resolved.allocator, 0, 0);
		rki_files files;
		rk_error err;
		RK_REQUIRE(rki_files_init(&files, &a, &resolved, "shrinking.glb", &err));
		shrinking sh = { glb, cut, 0 };
		rki_stream in = { size, &sh, shrinking_read };
		rk_scene *s = rki_gltf_load_stream(&in, &opts, "shrinking.glb", &files.access, &err);
		rki_files_free(&files);
		if (s) {
			/* the reads never reached the cut: the bytes after it are padding nothing reads */
			RK_CHECK(cut >= size - 64);
			rk_scene_free(s);
		} else {
			RK_CHECK_INT(err.code, RK_ERROR_IO);
			RK_CHECK(strstr(err.message, "cannot read") != NULL);
			/* the read that failed: at or after the JSON chunk (the first to reach the cut) */
			RK_CHECK(err.byte_offset >= json_end && err.byte_offset < size);
			RK_CHECK_STR(err.file, "shrinking.glb");
			checked++;
		}
		RK_CHECK_INT(counter.live, 0);
	}
	RK_CHECK(checked > 20);
	free(glb);
}

RK_TEST(file_not_held)
{
	size_t size;
	const size_t pad = (size_t)8 << 20;
	unsigned char *glb = build_glb(pad, &size);
	char tmp[4096];
	RK_REQUIRE(write_file(temp_path(tmp, sizeof(tmp), "padded.glb"), glb, size));
	rk_test_alloc c_file = { .fail_after = SIZE_MAX }, c_mem = { .fail_after = SIZE_MAX };
	rk_load_opts of = { .allocator = { rk_test_alloc_fn, rk_test_free_fn, &c_file } };
	rk_load_opts om = { .allocator = { rk_test_alloc_fn, rk_test_free_fn, &c_mem } };
	rk_error err;
	rk_scene *a = rk_load_file(tmp, &of, &err);
	RK_REQUIRE(a != NULL);
	rk_scene *b = rk_load_memory(glb, size, &om, &err);
	RK_REQUIRE(b != NULL);
	fprintf(stderr, "file_not_held: %zu-byte GLB, peak %zu bytes from the file, %zu from memory (+ the caller's copy)\n",
		size, c_file.peak, c_mem.peak);
	RK_CHECK(c_file.peak < ((size_t)1 << 20));
	/* the scene itself is the same and small: the file path holds no copy */
	RK_CHECK(c_file.peak < c_mem.peak + ((size_t)1 << 20));
	RK_CHECK_INT(a->meshes.count, 1);
	RK_CHECK_INT(a->clips.count, 1);
	rk_scene_free(a);
	rk_scene_free(b);
	RK_CHECK_INT(c_file.live, 0);
	unlink(tmp);
	free(glb);
}

RK_TEST_MAIN(RK_TEST_ENTRY(same_scene_as_memory), RK_TEST_ENTRY(same_outcome_on_damaged_files),
	RK_TEST_ENTRY(file_shrinking_while_loading), RK_TEST_ENTRY(file_not_held))
