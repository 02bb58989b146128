/*
 * tests/rk_test.h - the tiny test framework used by every rigkit test.
 *
 * Each test file defines test functions with RK_TEST(name) and lists them in
 * RK_TEST_MAIN(...). A failed check prints file:line and the values, marks
 * the test failed and continues. RK_SKIP("why") ends a test as skipped.
 * The process exits 0 when nothing failed, 77 (CTest's skip code, set as
 * SKIP_RETURN_CODE) when everything was skipped, 1 otherwise.
 */
#ifndef RK_TEST_H
#define RK_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rk_test_state {
	int failed;
	int skipped;
	const char *name;
} rk_test_state;

typedef void (*rk_test_fn)(rk_test_state *rk_t_);

#define RK_TEST(name) static void name(rk_test_state *rk_t_)

#define RK_CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, rk_t_->name, #cond); \
	rk_t_->failed++; } } while (0)

#define RK_REQUIRE(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: %s: requirement failed: %s\n", __FILE__, __LINE__, rk_t_->name, #cond); \
	rk_t_->failed++; return; } } while (0)

#define RK_CHECK_NEAR(a, b, tol) do { double rk_a_ = (double)(a), rk_b_ = (double)(b); \
	if (!(fabs(rk_a_ - rk_b_) <= (tol))) { \
	fprintf(stderr, "%s:%d: %s: %s = %.17g, expected %s = %.17g (tol %g)\n", __FILE__, __LINE__, \
		rk_t_->name, #a, rk_a_, #b, rk_b_, (double)(tol)); rk_t_->failed++; } } while (0)

#define RK_CHECK_INT(a, b) do { long long rk_a_ = (long long)(a), rk_b_ = (long long)(b); \
	if (rk_a_ != rk_b_) { \
	fprintf(stderr, "%s:%d: %s: %s = %lld, expected %lld\n", __FILE__, __LINE__, rk_t_->name, #a, rk_a_, rk_b_); \
	rk_t_->failed++; } } while (0)

#define RK_CHECK_STR(a, b) do { const char *rk_a_ = (a), *rk_b_ = (b); \
	if (!rk_a_ || !rk_b_ || strcmp(rk_a_, rk_b_) != 0) { \
	fprintf(stderr, "%s:%d: %s: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, rk_t_->name, #a, \
		rk_a_ ? rk_a_ : "(null)", rk_b_ ? rk_b_ : "(null)"); rk_t_->failed++; } } while (0)

#define RK_SKIP(why) do { fprintf(stderr, "%s: SKIPPED: %s\n", rk_t_->name, (why)); rk_t_->skipped = 1; return; } while (0)

/* Directory of ../shared relative to the source tree (set by CMake), or NULL when absent. */
static inline const char *rk_test_shared_dir(void)
{
	const char *env = getenv("RIGKIT_SHARED_DIR");
#ifdef RK_SHARED_DIR
	if (!env || !env[0]) env = RK_SHARED_DIR;
#endif
	if (!env || !env[0]) return NULL;
	char probe[4096];
	snprintf(probe, sizeof(probe), "%s/assets/SOURCES.md", env);
	FILE *f = fopen(probe, "rb");
	if (!f) return NULL;
	fclose(f);
	return env;
}

#define RK_TEST_ENTRY(fn) { #fn, fn }
typedef struct rk_test_entry { const char *name; rk_test_fn fn; } rk_test_entry;

static inline int rk_test_run(const rk_test_entry *tests, size_t count, int argc, char **argv)
{
	int failed = 0, skipped = 0, passed = 0;
	for (size_t i = 0; i < count; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1])) continue;
		rk_test_state st = { 0, 0, tests[i].name };
		tests[i].fn(&st);
		if (st.failed) { failed++; fprintf(stderr, "FAIL %s\n", tests[i].name); }
		else if (st.skipped) skipped++;
		else passed++;
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	if (failed) return 1;
	if (passed == 0 && skipped > 0) return 77;
	return 0;
}

#define RK_TEST_MAIN(...) \
	int main(int argc, char **argv) { \
		static const rk_test_entry rk_tests_[] = { __VA_ARGS__ }; \
		return rk_test_run(rk_tests_, sizeof(rk_tests_) / sizeof(rk_tests_[0]), argc, argv); }

/* The whole file at `path` in a malloc'd block (free it), *size bytes; NULL
 * when it cannot be read. */
static inline unsigned char *rk_test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	*size = 0;
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *d = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
	if (d && n > 0 && fread(d, 1, (size_t)n, f) != (size_t)n) {
		free(d);
		d = NULL;
	}
	fclose(f);
	if (d) *size = n > 0 ? (size_t)n : 0;
	return d;
}

/* A counting allocator for rk_allocator (user = &rk_test_alloc): fails
 * every allocation from number fail_after on (0-based; SIZE_MAX = never)
 * and tracks live and peak bytes, so tests prove that failures leak nothing
 * and that hostile counts allocate nothing big. */
typedef struct rk_test_alloc {
	size_t allocs, frees, live, peak, fail_after;
} rk_test_alloc;

static inline void *rk_test_alloc_fn(void *user, size_t size)
{
	rk_test_alloc *c = (rk_test_alloc *)user;
	if (c->allocs >= c->fail_after) return NULL;
	void *p = malloc(size);
	if (p) {
		c->allocs++;
		c->live += size;
		if (c->live > c->peak) c->peak = c->live;
	}
	return p;
}

static inline void rk_test_free_fn(void *user, void *ptr, size_t size)
{
	rk_test_alloc *c = (rk_test_alloc *)user;
	c->frees++;
	c->live -= size;
	free(ptr);
}

#endif
