/*
 * tests/test_fbx_robust.c - hostile input through the whole FBX scene path.
 *
 * Every FBX file under ../shared (assets and the conformance corpus) is
 * loaded with rk_load_memory() after
 *   - truncation at evenly spaced lengths (500 per file), and
 *   - 1,000 random single-byte corruptions (fixed-seed xorshift),
 * and must either fail with an error that has a code and a message, or give
 * a scene that survives evaluation (static pose, first clip at its middle,
 * world positions and normals of every mesh node). Crashes, hangs, leaks and
 * undefined behaviour are caught by the sanitizer build (make sanitize).
 * RIGKIT_TEST_QUICK=1 (set by make sanitize) lowers the counts to 60/60 for
 * the assets and 12/12 per corpus file.
 */
#include "rk_test.h"

#include <rigkit/rigkit.h>

#include <dirent.h>
#include <stdint.h>

static unsigned char *read_all(const char *path, size_t *size)
{
	return rk_test_read_file(path, size);
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Loads and, on success, evaluates. Returns 1 for a scene, 0 for a clean
 * error, -1 for a failure of the contract (error without code/message). */
static int load_and_use(const unsigned char *data, size_t size)
{
	rk_error err;
	rk_load_opts opts = { 0 };
	opts.memory_limit = (size_t)512 << 20;
	opts.filename = "robust.fbx";
	rk_scene *s = rk_load_memory(data, size, &opts, &err);
	if (!s) return (err.code != RK_OK && err.message[0]) ? 0 : -1;
	size_t ps = rk_pose_memory_size(s);
	void *mem = malloc(ps ? ps : 1);
	rk_pose pose;
	size_t maxv = 0, maxc = 0;
	for (size_t i = 0; i < s->meshes.count; i++) {
		if (s->meshes.data[i].vertex_count > maxv) maxv = s->meshes.data[i].vertex_count;
		if (s->meshes.data[i].index_count > maxc) maxc = s->meshes.data[i].index_count;
	}
	rk_vec3 *pos = (rk_vec3 *)malloc((maxv + 1) * sizeof(rk_vec3));
	rk_vec3 *nrm = (rk_vec3 *)malloc((maxc + 1) * sizeof(rk_vec3));
	if (mem && pos && nrm && rk_pose_init(&pose, s, mem, ps)) {
		for (int pass = 0; pass < 2; pass++) {
			rk_pose_eval_job job = { 0 };
			job.scene = s;
			job.pose = &pose;
			if (pass == 1) {
				if (!s->clips.count) break;
				job.clip = &s->clips.data[0];
				double t = 0.5 * (job.clip->time_begin + job.clip->time_end);
				job.time = isfinite(t) ? t : 0.0;
			}
			if (!rk_pose_eval_run(&job)) continue;
			for (size_t i = 0; i < s->nodes.count; i++) {
				const rk_node *n = &s->nodes.data[i];
				if (!n->mesh) continue;
				rk_mesh_world_positions_eval(s, n, &pose, pos);
				rk_mesh_world_normals_eval(s, n, &pose, nrm);
			}
		}
	}
	free(mem);
	free(pos);
	free(nrm);
	rk_scene_free(s);
	return 1;
}

typedef struct robust_stats { size_t loads, scenes, errors, bad; } robust_stats;

static void hammer(rk_test_state *rk_t_, const char *path, int truncations, int corruptions, uint64_t seed, robust_stats *st)
{
	size_t size;
	unsigned char *orig = read_all(path, &size);
	if (!orig || size == 0) {
		free(orig);
		fprintf(stderr, "%s: cannot read\n", path);
		rk_t_->failed++;
		return;
	}
	unsigned char *buf = (unsigned char *)malloc(size);
	if (!buf) { free(orig); rk_t_->failed++; return; }
	/* The intact file must load. */
	if (load_and_use(orig, size) != 1) {
		fprintf(stderr, "%s: the intact file does not load\n", path);
		rk_t_->failed++;
	}
	for (int k = 0; k < truncations; k++) {
		size_t len = (size_t)((double)size * (double)k / (double)truncations);
		memcpy(buf, orig, len);
		int r = load_and_use(buf, len);
		st->loads++;
		if (r < 0) { st->bad++; fprintf(stderr, "%s: truncated to %zu: error without code/message\n", path, len); }
		else if (r) st->scenes++;
		else st->errors++;
	}
	for (int k = 0; k < corruptions; k++) {
		memcpy(buf, orig, size);
		size_t at = (size_t)(xorshift(&seed) % size);
		unsigned char v = (unsigned char)xorshift(&seed);
		if (v == buf[at]) v ^= 0x5a;
		buf[at] = v;
		int r = load_and_use(buf, size);
		st->loads++;
		if (r < 0) { st->bad++; fprintf(stderr, "%s: byte %zu = %u: error without code/message\n", path, at, v); }
		else if (r) st->scenes++;
		else st->errors++;
	}
	free(buf);
	free(orig);
}

static int quick(void)
{
	const char *q = getenv("RIGKIT_TEST_QUICK");
	return q && q[0] && q[0] != '0';
}

RK_TEST(test_assets_truncated_and_corrupted)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	const char *names[] = { "ybot.fbx", "ybot@kick.fbx" };
	robust_stats st = { 0 };
	for (size_t i = 0; i < 2; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/assets/%s", shared, names[i]);
		hammer(rk_t_, path, quick() ? 60 : 500, quick() ? 60 : 1000, 0x9e3779b97f4a7c15ull + i, &st);
	}
	printf("assets: %zu loads: %zu scenes, %zu clean errors\n", st.loads, st.scenes, st.errors);
	RK_CHECK_INT(st.bad, 0);
	RK_CHECK(st.errors > 0);
}

RK_TEST(test_corpus_truncated_and_corrupted)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/conformance/data", shared);
	DIR *d = opendir(dir);
	if (!d) RK_SKIP("conformance/data not found");
	robust_stats st = { 0 };
	size_t files = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".fbx") != 0) continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		hammer(rk_t_, path, quick() ? 12 : 500, quick() ? 12 : 1000, 0x2545f4914f6cdd1dull ^ (uint64_t)files, &st);
		files++;
	}
	closedir(d);
	printf("corpus: %zu files, %zu loads: %zu scenes, %zu clean errors\n", files, st.loads, st.scenes, st.errors);
	RK_CHECK(files >= 100);
	RK_CHECK_INT(st.bad, 0);
}

RK_TEST(test_limits)
{
	const char *shared = rk_test_shared_dir();
	if (!shared) RK_SKIP("../shared not found (set RIGKIT_SHARED_DIR)");
	char path[4096];
	snprintf(path, sizeof(path), "%s/assets/ybot.fbx", shared);
	rk_error err;
	rk_load_opts o = { 0 };
	o.memory_limit = 1 << 20; /* ybot needs far more than 1 MiB */
	rk_scene *s = rk_load_file(path, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	RK_CHECK(strstr(err.file, "ybot.fbx") != NULL);
	rk_scene_free(s);
	o.memory_limit = 0;
	o.max_elements = 1000; /* arrays of tens of thousands of elements */
	s = rk_load_file(path, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	rk_scene_free(s);
	o.max_elements = 0;
	o.file_size_limit = 1000;
	s = rk_load_file(path, &o, &err);
	RK_CHECK(s == NULL);
	RK_CHECK_INT(err.code, RK_ERROR_LIMIT);
	rk_scene_free(s);
}

RK_TEST_MAIN(
	RK_TEST_ENTRY(test_assets_truncated_and_corrupted),
	RK_TEST_ENTRY(test_corpus_truncated_and_corrupted),
	RK_TEST_ENTRY(test_limits))
