/* tools/rigkit/cmd_batch.c - `rigkit batch`: retarget many motion files onto
 * many avatars in one run, on a pool of worker threads (docs/batch.md).
 *
 * JOB MODEL
 *   Phase 1, one job per motion file: load it, map its humanoid, pick its
 *   clips. The loaded scenes are then only read, by every worker at once
 *   (scene.h: any number of threads may read one const scene).
 *   Phase 2, one job per avatar (one output holding every clip) or, with
 *   --per-clip, one per (avatar, clip), each loading its own copy of the
 *   avatar. A job owns its avatar scene, the only thing rk_retarget writes.
 *   Workers take jobs in a fixed order; the main thread prints the report in
 *   job order as jobs finish. What is written depends on the inputs and the
 *   options only, never on the thread count or timing: clip order and names
 *   come from the sorted file lists, and every output is built by one thread.
 *
 * FAILURES
 *   A file that fails to load or is not a humanoid, or a clip that fails to
 *   retarget, is recorded against its job and printed on stderr in job order.
 *   Without --keep-going no job starts after the first failure (those
 *   running finish) and a job with a failure writes nothing; with it every
 *   other job runs and an output keeps the clips that worked. Exit code 2 for
 *   any input failure, 3 when an output could not be written, 1 for usage.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CLI_BATCH_MAX_THREADS 1024
#define CLI_BATCH_RAD_TO_DEG (180.0 / 3.14159265358979323846)

/* ---- small helpers --------------------------------------------------------- */

/* The CLI gives up on out-of-memory: report and leave at once (other
 * threads may be running, so no exit handlers). */
static void cli_batch_out_of_memory(void)
{
	fputs("rigkit: batch: out of memory\n", stderr);
	fflush(stdout);
	_Exit(CLI_EXIT_INPUT);
}

static void *cli_batch_alloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p) cli_batch_out_of_memory();
	return p;
}

static char *cli_batch_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = (char *)cli_batch_alloc(n, 1);
	memcpy(p, s, n);
	return p;
}

static char *cli_batch_format(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

static char *cli_batch_format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) n = 0;
	char *p = (char *)cli_batch_alloc((size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static double cli_batch_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cli_batch_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool cli_batch_clip_has_tracks(const rk_anim_clip *c)
{
	for (size_t l = 0; l < c->layer_count; l++)
		if (c->layers[l].track_count) return true;
	return false;
}

/* ---- input files ----------------------------------------------------------- */

typedef struct cli_batch_file {
	char *path;
	char *base;          /* file name without folder and extension */
} cli_batch_file;

typedef struct cli_batch_files {
	cli_batch_file *data;
	size_t count, cap;
} cli_batch_files;

static char *cli_batch_basename(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	const char *dot = strrchr(name, '.');
	size_t n = dot && dot != name ? (size_t)(dot - name) : strlen(name);
	char *p = (char *)cli_batch_alloc(n + 1, 1);
	memcpy(p, name, n);
	return p;
}

static void cli_batch_files_add(cli_batch_files *f, const char *path)
{
	if (f->count == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		cli_batch_file *d = (cli_batch_file *)realloc(f->data, cap * sizeof(*d));
		if (!d) cli_batch_out_of_memory();
		f->data = d;
		f->cap = cap;
	}
	f->data[f->count].path = cli_batch_strdup(path);
	f->data[f->count].base = cli_batch_basename(path);
	f->count++;
}

static void cli_batch_files_free(cli_batch_files *f)
{
	for (size_t i = 0; i < f->count; i++) {
		free(f->data[i].path);
		free(f->data[i].base);
	}
	free(f->data);
}

static bool cli_batch_scene_extension(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name) return false;
	static const char *const exts[] = { ".fbx", ".glb", ".gltf" };
	for (size_t e = 0; e < sizeof(exts) / sizeof(exts[0]); e++) {
		const char *x = exts[e];
		size_t n = strlen(x);
		if (strlen(dot) != n) continue;
		size_t i = 0;
		while (i < n && (dot[i] | 0x20) == x[i]) i++;
		if (i == n) return true;
	}
	return false;
}

/* Adds `path` (a file, taken whatever its name, or a directory: its scene
 * files sorted by name). 0 or an exit code after printing the error. */
static int cli_batch_expand(cli_ctx *ctx, const char *path, cli_batch_files *out)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_batch_files_add(out, path);    /* a missing file fails when it is loaded */
		return CLI_EXIT_OK;
	}
	DIR *d = opendir(path);
	if (!d) {
		return cli_fail(ctx, RK_ERROR_IO, CLI_EXIT_INPUT, path, "cannot read the directory (%s)", strerror(errno));
	}
	char **names = NULL;
	size_t count = 0, cap = 0;
	size_t plen = strlen(path);
	bool slash = plen > 0 && path[plen - 1] == '/';
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.' || !cli_batch_scene_extension(e->d_name)) continue;
		char *full = cli_batch_format("%s%s%s", path, slash ? "" : "/", e->d_name);
		struct stat fst;
		if (stat(full, &fst) != 0 || !S_ISREG(fst.st_mode)) {
			free(full);
			continue;
		}
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			char **n = (char **)realloc(names, cap * sizeof(*n));
			if (!n) cli_batch_out_of_memory();
			names = n;
		}
		names[count++] = full;
	}
	closedir(d);
	if (count) qsort(names, count, sizeof(*names), cli_batch_strcmp);
	for (size_t i = 0; i < count; i++) {
		cli_batch_files_add(out, names[i]);
		free(names[i]);
	}
	free(names);
	return CLI_EXIT_OK;
}

static int cli_batch_file_cmp(const void *a, const void *b)
{
	const cli_batch_file *x = (const cli_batch_file *)a, *y = (const cli_batch_file *)b;
	int c = strcmp(x->base, y->base);
	return c ? c : strcmp(x->path, y->path);
}

/* Two inputs of one kind with the same base name would write the same
 * output (avatars) or the same clip names (motions): a usage error. The
 * list is sorted by base name. */
static bool cli_batch_bases_unique(cli_ctx *ctx, const cli_batch_files *f, const char *kind)
{
	for (size_t i = 1; i < f->count; i++)
		if (!strcmp(f->data[i].base, f->data[i - 1].base)) {
			cli_usage(ctx, "two %s files named '%s': %s and %s (the name makes the output; rename one)", kind,
				f->data[i].base, f->data[i - 1].path, f->data[i].path);
			return false;
		}
	return true;
}

/* mkdir -p. false with errno set. */
static bool cli_batch_make_dir(const char *dir)
{
	char *p = cli_batch_strdup(dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/') continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			free(p);
			return false;
		}
		*s = '/';
	}
	int rc = mkdir(p, 0777);
	int saved = errno;
	free(p);
	if (rc != 0 && saved != EEXIST) {
		errno = saved;
		return false;
	}
	struct stat st;
	if (stat(dir, &st) != 0) return false;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return false;
	}
	return true;
}

/* ---- failures ---------------------------------------------------------------- */

typedef struct cli_batch_failure {
	char *file;          /* the input concerned (or the output, for write failures) */
	const char *stage;   /* "load", "humanoid", "clips", "retarget", "write" */
	char *text;          /* the whole error line after "rigkit: " */
	int exit_code;       /* CLI_EXIT_INPUT or CLI_EXIT_OUTPUT */
} cli_batch_failure;

typedef struct cli_batch_failures {
	cli_batch_failure *data;
	size_t count, cap;
} cli_batch_failures;

static void cli_batch_fail_text(cli_batch_failures *f, const char *file, const char *stage, int exit_code, char *text)
{
	if (f->count == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4;
		cli_batch_failure *d = (cli_batch_failure *)realloc(f->data, cap * sizeof(*d));
		if (!d) cli_batch_out_of_memory();
		f->data = d;
		f->cap = cap;
	}
	cli_batch_failure *x = &f->data[f->count++];
	x->file = cli_batch_strdup(file);
	x->stage = stage;
	x->text = text;
	x->exit_code = exit_code;
}

/* Records err; `context` (may be NULL) is put between the file and the error. */
static void cli_batch_fail_err(cli_batch_failures *f, const char *file, const char *stage, const char *context,
	const rk_error *err)
{
	char buf[2048];
	if (err->file[0] && !context) rk_error_format(buf, sizeof(buf), err);
	else if (err->file[0]) {
		char inner[1800];
		rk_error_format(inner, sizeof(inner), err);
		snprintf(buf, sizeof(buf), "%s: %s", context, inner);
	} else {
		char inner[1800];
		rk_error_format(inner, sizeof(inner), err);
		snprintf(buf, sizeof(buf), "%s: %s%s%s", file, context ? context : "", context ? ": " : "", inner);
	}
	int code = err->code == RK_ERROR_OUTPUT ? CLI_EXIT_OUTPUT : CLI_EXIT_INPUT;
	cli_batch_fail_text(f, file, stage, code, cli_batch_strdup(buf));
}

static void cli_batch_failures_free(cli_batch_failures *f)
{
	for (size_t i = 0; i < f->count; i++) {
		free(f->data[i].file);
		free(f->data[i].text);
	}
	free(f->data);
}

static int cli_batch_failures_exit(const cli_batch_failures *f)
{
	int rc = CLI_EXIT_OK;
	for (size_t i = 0; i < f->count; i++)
		if (f->data[i].exit_code > rc) rc = f->data[i].exit_code;
	return rc;
}

/* ---- the batch --------------------------------------------------------------- */

typedef struct cli_batch_motion {
	const cli_batch_file *file;
	rk_scene *scene;                 /* NULL when it failed */
	rk_humanoid humanoid;
	size_t *picks;                   /* indices of the picked clips in scene->clips */
	size_t pick_count;
	size_t animated;                 /* clips with tracks in the file */
	bool ran;                        /* false: not started (a failure, no --keep-going) */
	double seconds;
	cli_batch_failures failures;
} cli_batch_motion;

typedef struct cli_batch_clip {
	size_t motion;
	const rk_anim_clip *clip;        /* in the motion's scene */
	char *name;                      /* output clip name, unique in the batch */
	char *tag;                       /* --per-clip file name part: "<motion>" or "<motion>__<clip>" */
} cli_batch_clip;

typedef struct cli_batch_clip_result {
	bool ok;
	char *renamed;                   /* when the avatar has a clip of that name; else NULL */
	rk_retarget_report report;
} cli_batch_clip_result;

typedef struct cli_batch_job {
	size_t avatar;
	size_t clip_begin, clip_count;   /* into the batch's clips */
	char *out_path;
	cli_batch_clip_result *results;   /* clip_count */
	cli_batch_failures failures;
	bool ran, written;
	size_t ok_clips;
	double seconds;
} cli_batch_job;

typedef struct cli_batch {
	/* options */
	cli_ctx *ctx;
	rk_retarget_opts ro;
	bool per_clip, json, keep_going, drop_avatar_clips;
	const char *out_dir;
	size_t threads;
	rk_load_opts lo;                 /* load options for every file */
	const char *const *clip_names;
	size_t clip_name_count;
	/* inputs and work */
	cli_batch_files motion_files, avatar_files;
	cli_batch_motion *motions;
	cli_batch_clip *clips;
	size_t clip_count;
	cli_batch_job *jobs;
	size_t job_count;
	/* counters, updated by the main thread as it reports */
	size_t motions_failed, motions_not_run, jobs_failed, jobs_not_run, outputs_written, clips_done;
} cli_batch;

/* A set of strings (not owned): open addressing, FNV-1a. */
typedef struct cli_batch_set {
	const char **slots;
	size_t mask;
} cli_batch_set;

static size_t cli_batch_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static void cli_batch_set_init(cli_batch_set *set, size_t count)
{
	size_t cap = 16;
	while (cap < 2 * count + 2) cap *= 2;
	set->slots = (const char **)cli_batch_alloc(cap, sizeof(char *));
	set->mask = cap - 1;
}

/* true when s is in the set; else adds it when `add` */
static bool cli_batch_set_has(cli_batch_set *set, const char *s, bool add)
{
	size_t i = cli_batch_hash(s) & set->mask;
	for (; set->slots[i]; i = (i + 1) & set->mask)
		if (!strcmp(set->slots[i], s)) return true;
	if (add) set->slots[i] = s;
	return false;
}

/* Makes the names distinct: the first of equal names keeps it, later ones
 * get "~2", "~3", ... (the first suffix that is no other name, given or
 * made). Deterministic: depends on the order only. O(count). */
static void cli_batch_uniquify(char **names, size_t count)
{
	cli_batch_set given, seen;
	cli_batch_set_init(&given, count);
	cli_batch_set_init(&seen, count);
	for (size_t i = 0; i < count; i++) cli_batch_set_has(&given, names[i], true);
	for (size_t i = 0; i < count; i++) {
		if (!cli_batch_set_has(&seen, names[i], true)) continue;
		for (unsigned k = 2;; k++) {
			char *candidate = cli_batch_format("%s~%u", names[i], k);
			if (!cli_batch_set_has(&given, candidate, false) && !cli_batch_set_has(&seen, candidate, false)) {
				free(names[i]);
				names[i] = candidate;
				cli_batch_set_has(&seen, candidate, true);
				break;
			}
			free(candidate);
		}
	}
	free((void *)given.slots);
	free((void *)seen.slots);
}

/* A clip name made safe for a file name: path separators, ':' and other
 * characters file systems refuse become '_'. */
static char *cli_batch_file_safe(const char *s)
{
	char *p = cli_batch_strdup(s[0] ? s : "clip");
	for (char *c = p; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (u < 0x20 || u == 0x7f || strchr("/\\:*?\"<>|", u)) *c = '_';
	}
	if (p[0] == '.') p[0] = '_';
	return p;
}

/* ---- the worker pool ----------------------------------------------------------- */

typedef void cli_batch_run_fn(cli_batch *b, size_t i);
typedef bool cli_batch_failed_fn(const cli_batch *b, size_t i);
typedef void cli_batch_report_fn(cli_batch *b, size_t i, bool ran);

/* Jobs run through rk_parallel_for (rigkit/tasks.h): it hands out the job
 * indices in increasing order from an atomic counter to `threads` threads,
 * the calling one included. The report is printed in job order by whichever
 * worker finds the next job to report finished: a worker that ends a job
 * takes the report baton (an atomic flag; if another worker holds it, that
 * one will see the job), reports every finished job from the first
 * unreported one on, hands the baton back and looks once more, so a job
 * that finished meanwhile is not left unreported. Only atomics, no lock: a
 * worker never waits for another, and reports still come in order as soon
 * as a job and all jobs before it are finished. */
enum { CLI_BATCH_WAITING, CLI_BATCH_RAN, CLI_BATCH_NOT_RUN };

typedef struct cli_batch_pool {
	cli_batch *b;
	cli_batch_run_fn *run;
	cli_batch_failed_fn *failed;
	cli_batch_report_fn *report;
	size_t count;
	atomic_uchar *state;             /* per job: CLI_BATCH_WAITING, _RAN, _NOT_RUN */
	atomic_bool stop;                /* a failure without --keep-going: start no more jobs */
	atomic_bool baton;               /* held by the worker that reports */
	size_t reported;                 /* jobs reported (only the baton holder touches it) */
	bool not_run;                    /* some job was not run (idem) */
} cli_batch_pool;

static void cli_batch_pool_report(cli_batch_pool *p)
{
	for (;;) {
		if (atomic_exchange(&p->baton, true)) return;
		unsigned st;
		while (p->reported < p->count && (st = atomic_load(&p->state[p->reported])) != CLI_BATCH_WAITING) {
			p->report(p->b, p->reported, st == CLI_BATCH_RAN);
			p->not_run |= st == CLI_BATCH_NOT_RUN;
			p->reported++;
		}
		const size_t next = p->reported;
		atomic_store(&p->baton, false);
		/* job `next` may have finished after the scan, its worker finding
		 * the baton taken (seq_cst: then this load sees its state) */
		if (next >= p->count || atomic_load(&p->state[next]) == CLI_BATCH_WAITING) return;
	}
}

static void cli_batch_pool_job(void *user, size_t i, size_t worker)
{
	(void)worker;
	cli_batch_pool *p = (cli_batch_pool *)user;
	unsigned char st = CLI_BATCH_NOT_RUN;
	if (!atomic_load(&p->stop)) {
		p->run(p->b, i);
		if (p->failed(p->b, i) && !p->b->keep_going) atomic_store(&p->stop, true);
		st = CLI_BATCH_RAN;
	}
	atomic_store(&p->state[i], st);
	cli_batch_pool_report(p);
}

/* Runs jobs 0 .. count-1 on up to `threads` threads (this one included) in
 * that order and calls report(b, i, ran), in job order, as soon as job i and
 * every job before it are finished (ran false: never started, after a
 * failure without --keep-going). report calls never overlap. Returns true
 * when some job was not started. */
static bool cli_batch_pool_run(cli_batch *b, size_t count, size_t threads, cli_batch_run_fn *run,
	cli_batch_failed_fn *failed, cli_batch_report_fn *report)
{
	if (!count) return false;
	cli_batch_pool p;
	memset(&p, 0, sizeof(p));
	p.b = b;
	p.run = run;
	p.failed = failed;
	p.report = report;
	p.count = count;
	p.state = (atomic_uchar *)cli_batch_alloc(count, sizeof(atomic_uchar));
	for (size_t i = 0; i < count; i++) atomic_init(&p.state[i], CLI_BATCH_WAITING);
	atomic_init(&p.stop, false);
	atomic_init(&p.baton, false);
	rk_parallel_for(count, threads, cli_batch_pool_job, &p);
	/* every helper is joined: the last job's worker has reported it */
	cli_batch_pool_report(&p);
	free(p.state);
	return p.not_run;
}

/* ---- phase 1: motions ------------------------------------------------------------ */

static void cli_batch_load_motion(cli_batch *b, size_t i)
{
	cli_batch_motion *m = &b->motions[i];
	const char *path = m->file->path;
	double t0 = cli_batch_now();
	m->ran = true;
	rk_error err;
	m->scene = rk_load_file(path, &b->lo, &err);
	if (!m->scene) {
		cli_batch_fail_err(&m->failures, path, "load", NULL, &err);
		goto done;
	}
	if (!rk_humanoid_detect(m->scene, &m->humanoid, &err)) {
		cli_batch_fail_text(&m->failures, path, "humanoid", CLI_EXIT_INPUT,
			cli_batch_format("%s: not a humanoid: %s", path, err.message));
		goto done;
	}
	const rk_scene *s = m->scene;
	m->picks = (size_t *)cli_batch_alloc(s->clips.count, sizeof(size_t));
	for (size_t c = 0; c < s->clips.count; c++) {
		const rk_anim_clip *cl = &s->clips.data[c];
		bool tracks = cli_batch_clip_has_tracks(cl);
		m->animated += tracks;
		bool pick = false;
		if (b->clip_name_count) {
			for (size_t n = 0; n < b->clip_name_count && !pick; n++)
				pick = cl->name && !strcmp(cl->name, b->clip_names[n]);
		} else {
			pick = tracks;
		}
		if (pick) m->picks[m->pick_count++] = c;
	}
	if (!m->pick_count)
		cli_batch_fail_text(&m->failures, path, "clips", CLI_EXIT_INPUT,
			cli_batch_format(b->clip_name_count ? "%s: none of the clips named by --clip" : "%s: no animation clip with tracks",
				path));
done:
	if (m->failures.count) {
		rk_scene_free(m->scene);
		m->scene = NULL;
	}
	m->seconds = cli_batch_now() - t0;
}

static bool cli_batch_motion_failed(const cli_batch *b, size_t i)
{
	return b->motions[i].failures.count != 0;
}

/* "rigkit: TEXT" on stderr, TEXT escaped (cli_escape: names from files). */
static void cli_batch_print_line(const char *text)
{
	char safe[2048];
	cli_escape(safe, sizeof(safe), text);
	fprintf(stderr, "rigkit: %s\n", safe);
}

static void cli_batch_print_failures(const cli_batch_failures *f)
{
	for (size_t k = 0; k < f->count; k++) cli_batch_print_line(f->data[k].text);
}

static void cli_batch_report_motion(cli_batch *b, size_t i, bool ran)
{
	cli_batch_motion *m = &b->motions[i];
	if (!ran) {
		b->motions_not_run++;
		return;
	}
	if (m->failures.count) {
		b->motions_failed++;
		cli_batch_print_failures(&m->failures);
	}
}

/* The batch's clip list from the loaded motions, names made unique. */
static void cli_batch_collect_clips(cli_batch *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->motion_files.count; i++) n += b->motions[i].pick_count;
	b->clips = (cli_batch_clip *)cli_batch_alloc(n, sizeof(cli_batch_clip));
	for (size_t i = 0; i < b->motion_files.count; i++) {
		const cli_batch_motion *m = &b->motions[i];
		if (!m->scene) continue;
		for (size_t k = 0; k < m->pick_count; k++) {
			cli_batch_clip *c = &b->clips[b->clip_count++];
			c->motion = i;
			c->clip = &m->scene->clips.data[m->picks[k]];
			const char *cname = c->clip->name ? c->clip->name : "";
			bool single = m->animated == 1 && cli_batch_clip_has_tracks(c->clip);
			if (single) {
				c->name = cli_batch_strdup(m->file->base);
				c->tag = cli_batch_file_safe(m->file->base);
			} else {
				char *safe = cli_batch_file_safe(cname);
				c->name = cli_batch_format("%s/%s", m->file->base, cname);
				c->tag = cli_batch_format("%s__%s", m->file->base, safe);
				free(safe);
			}
		}
	}
	char **names = (char **)cli_batch_alloc(b->clip_count, sizeof(char *));
	for (size_t c = 0; c < b->clip_count; c++) names[c] = b->clips[c].name;
	cli_batch_uniquify(names, b->clip_count);
	for (size_t c = 0; c < b->clip_count; c++) {
		b->clips[c].name = names[c];
		names[c] = b->clips[c].tag;
	}
	cli_batch_uniquify(names, b->clip_count);
	for (size_t c = 0; c < b->clip_count; c++) b->clips[c].tag = names[c];
	free(names);
}

/* ---- phase 2: avatars ------------------------------------------------------------- */

static void cli_batch_make_jobs(cli_batch *b)
{
	size_t avatars = b->avatar_files.count;
	b->job_count = b->per_clip ? avatars * b->clip_count : avatars;
	if (!b->clip_count) b->job_count = 0;
	b->jobs = (cli_batch_job *)cli_batch_alloc(b->job_count, sizeof(cli_batch_job));
	char **outs = (char **)cli_batch_alloc(b->job_count, sizeof(char *));
	for (size_t j = 0; j < b->job_count; j++) {
		cli_batch_job *job = &b->jobs[j];
		if (b->per_clip) {
			job->avatar = j / b->clip_count;
			job->clip_begin = j % b->clip_count;
			job->clip_count = 1;
			outs[j] = cli_batch_format("%s__%s", b->avatar_files.data[job->avatar].base, b->clips[job->clip_begin].tag);
		} else {
			job->avatar = j;
			job->clip_begin = 0;
			job->clip_count = b->clip_count;
			outs[j] = cli_batch_strdup(b->avatar_files.data[j].base);
		}
	}
	cli_batch_uniquify(outs, b->job_count);   /* only --per-clip names can meet */
	size_t dlen = strlen(b->out_dir);
	bool slash = dlen > 0 && b->out_dir[dlen - 1] == '/';
	for (size_t j = 0; j < b->job_count; j++) {
		b->jobs[j].out_path = cli_batch_format("%s%s%s.glb", b->out_dir, slash ? "" : "/", outs[j]);
		free(outs[j]);
	}
	free(outs);
}

static bool cli_batch_scene_has_clip(const rk_scene *s, size_t count, const char *name)
{
	for (size_t c = 0; c < count; c++)
		if (s->clips.data[c].name && !strcmp(s->clips.data[c].name, name)) return true;
	return false;
}

static bool cli_batch_batch_has_clip(const cli_batch *b, const char *name)
{
	for (size_t c = 0; c < b->clip_count; c++)
		if (!strcmp(b->clips[c].name, name)) return true;
	return false;
}

static void cli_batch_run_job(cli_batch *b, size_t j)
{
	cli_batch_job *job = &b->jobs[j];
	const cli_batch_file *avatar = &b->avatar_files.data[job->avatar];
	double t0 = cli_batch_now();
	job->ran = true;
	job->results = (cli_batch_clip_result *)cli_batch_alloc(job->clip_count, sizeof(cli_batch_clip_result));
	rk_error err;
	rk_scene *s = rk_load_file(avatar->path, &b->lo, &err);
	if (!s) {
		cli_batch_fail_err(&job->failures, avatar->path, "load", NULL, &err);
		goto done;
	}
	rk_humanoid ht;
	if (!rk_humanoid_detect(s, &ht, &err)) {
		cli_batch_fail_text(&job->failures, avatar->path, "humanoid", CLI_EXIT_INPUT,
			cli_batch_format("%s: not a humanoid: %s", avatar->path, err.message));
		goto done;
	}
	if (b->drop_avatar_clips) s->clips.count = 0;
	size_t own = s->clips.count;
	rk_retarget_opts ro = b->ro;
	ro.target_humanoid = &ht;
	for (size_t k = 0; k < job->clip_count; k++) {
		const cli_batch_clip *c = &b->clips[job->clip_begin + k];
		const cli_batch_motion *m = &b->motions[c->motion];
		cli_batch_clip_result *r = &job->results[k];
		const char *name = c->name;
		if (cli_batch_scene_has_clip(s, own, name)) {
			for (unsigned n = 2; !r->renamed; n++) {
				char *candidate = cli_batch_format("%s~%u", c->name, n);
				if (!cli_batch_scene_has_clip(s, own, candidate) && !cli_batch_batch_has_clip(b, candidate))
					r->renamed = candidate;
				else
					free(candidate);
			}
			name = r->renamed;
		}
		ro.source_humanoid = &m->humanoid;
		ro.name = name;
		if (!rk_retarget(s, m->scene, c->clip, &ro, &r->report, &err)) {
			char *ctx = cli_batch_format("%s <- %s clip '%s'", avatar->path, m->file->path,
				c->clip->name ? c->clip->name : "");
			cli_batch_fail_err(&job->failures, avatar->path, "retarget", ctx, &err);
			free(ctx);
			continue;
		}
		r->ok = true;
		job->ok_clips++;
	}
	if (job->ok_clips && (b->keep_going || !job->failures.count)) {
		rk_gltf_write_opts wo;
		memset(&wo, 0, sizeof(wo));
		wo.max_frames = b->ro.max_frames;
		if (rk_glb_write(s, job->out_path, &wo, &err)) job->written = true;
		else cli_batch_fail_err(&job->failures, job->out_path, "write", NULL, &err);
	}
done:
	rk_scene_free(s);
	job->seconds = cli_batch_now() - t0;
}

/* With --per-clip every job of an avatar meets the same load or humanoid
 * failure: it is reported with the avatar's first job only. */
static bool cli_batch_failure_repeats(const cli_batch *b, size_t j, const cli_batch_failure *f)
{
	return b->per_clip && j % b->clip_count != 0 && (!strcmp(f->stage, "load") || !strcmp(f->stage, "humanoid"));
}

static bool cli_batch_job_failed(const cli_batch *b, size_t j)
{
	return b->jobs[j].failures.count != 0;
}

typedef struct cli_batch_job_stats {
	size_t bones_min, bones_max, frames, motions;
	double worst;                    /* radians */
} cli_batch_job_stats;

static cli_batch_job_stats cli_batch_stats(const cli_batch *b, const cli_batch_job *job)
{
	cli_batch_job_stats st;
	memset(&st, 0, sizeof(st));
	size_t last_motion = (size_t)-1;
	for (size_t k = 0; k < job->clip_count; k++) {
		const cli_batch_clip_result *r = &job->results[k];
		if (!r->ok) continue;
		size_t bones = r->report.mapped_bones;
		if (!st.frames || bones < st.bones_min) st.bones_min = bones;
		if (bones > st.bones_max) st.bones_max = bones;
		st.frames += r->report.frames;
		if (r->report.max_direction_error > st.worst) st.worst = r->report.max_direction_error;
		size_t motion = b->clips[job->clip_begin + k].motion;
		if (motion != last_motion) st.motions++;
		last_motion = motion;
	}
	return st;
}

static void cli_batch_report_job(cli_batch *b, size_t j, bool ran)
{
	cli_batch_job *job = &b->jobs[j];
	if (!ran) {
		b->jobs_not_run++;
		return;
	}
	if (job->failures.count) b->jobs_failed++;
	if (job->written) {
		b->outputs_written++;
		b->clips_done += job->ok_clips;
	}
	for (size_t k = 0; k < job->failures.count; k++)
		if (!cli_batch_failure_repeats(b, j, &job->failures.data[k]))
			cli_batch_print_line(job->failures.data[k].text);
	if (b->json || !job->written) return;
	cli_batch_job_stats st = cli_batch_stats(b, job);
	char bones[64];
	if (st.bones_min == st.bones_max) snprintf(bones, sizeof(bones), "%zu", st.bones_max);
	else snprintf(bones, sizeof(bones), "%zu-%zu", st.bones_min, st.bones_max);
	char *clips;
	if (b->per_clip) {
		const cli_batch_clip_result *r = &job->results[0];
		clips = cli_batch_format("'%s'", r->renamed ? r->renamed : b->clips[job->clip_begin].name);
	} else if (job->ok_clips == job->clip_count) {
		clips = cli_batch_format("%zu clip%s from %zu motion%s", job->ok_clips, job->ok_clips == 1 ? "" : "s",
			st.motions, st.motions == 1 ? "" : "s");
	} else {
		clips = cli_batch_format("%zu of %zu clips from %zu motion%s", job->ok_clips, job->clip_count, st.motions,
			st.motions == 1 ? "" : "s");
	}
	printf("%s: %s + %s, %s bones, %zu frames, max bone direction error %.2g deg, %.0f ms\n", job->out_path,
		b->avatar_files.data[job->avatar].path, clips, bones, st.frames, st.worst * CLI_BATCH_RAD_TO_DEG,
		job->seconds * 1000.0);
	free(clips);
	fflush(stdout);
}

/* ---- the JSON report ------------------------------------------------------------- */

/* job: the job index, or (size_t)-1 for a motion's failures */
static void cli_batch_json_failures(cli_json *j, const cli_batch *b, size_t job, const cli_batch_failures *f)
{
	for (size_t k = 0; k < f->count; k++) {
		if (job != (size_t)-1 && cli_batch_failure_repeats(b, job, &f->data[k])) continue;
		cli_json_object(j, NULL);
		cli_json_string(j, "file", f->data[k].file);
		cli_json_string(j, "stage", f->data[k].stage);
		cli_json_string(j, "error", f->data[k].text);
		cli_json_int(j, "exit_code", f->data[k].exit_code);
		cli_json_close_object(j);
	}
}

static int cli_batch_print_json(const cli_batch *b, double wall, int exit_code)
{
	cli_json j;
	cli_json_document(&j, b->ctx);
	cli_json_object(&j, NULL);
	cli_json_string(&j, "out", b->out_dir);
	cli_json_int(&j, "threads", (long long)b->threads);
	cli_json_bool(&j, "per_clip", b->per_clip);
	cli_json_string(&j, "root", cli_retarget_root_name(b->ro.root));
	cli_json_number(&j, "fps", b->ro.fps);
	cli_json_bool(&j, "skip_fingers", b->ro.skip_fingers);
	cli_json_bool(&j, "foot_ik", b->ro.foot_ik);
	cli_json_bool(&j, "keep_going", b->keep_going);

	cli_json_array(&j, "motions");
	for (size_t i = 0; i < b->motion_files.count; i++) {
		const cli_batch_motion *m = &b->motions[i];
		cli_json_object(&j, NULL);
		cli_json_string(&j, "file", m->file->path);
		cli_json_bool(&j, "ran", m->ran);
		cli_json_bool(&j, "ok", m->scene != NULL);
		cli_json_array(&j, "clips");
		for (size_t c = 0; c < b->clip_count; c++) {
			if (b->clips[c].motion != i) continue;
			cli_json_object(&j, NULL);
			cli_json_string(&j, "name", b->clips[c].name);
			cli_json_string(&j, "source_clip", b->clips[c].clip->name ? b->clips[c].clip->name : "");
			cli_json_number(&j, "duration", b->clips[c].clip->time_end - b->clips[c].clip->time_begin);
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
		cli_json_number(&j, "load_ms", m->seconds * 1000.0);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);

	cli_json_array(&j, "outputs");
	for (size_t k = 0; k < b->job_count; k++) {
		const cli_batch_job *job = &b->jobs[k];
		cli_json_object(&j, NULL);
		cli_json_string(&j, "avatar", b->avatar_files.data[job->avatar].path);
		cli_json_string(&j, "output", job->out_path);
		cli_json_bool(&j, "ran", job->ran);
		cli_json_bool(&j, "ok", job->ran && !job->failures.count);
		cli_json_bool(&j, "written", job->written);
		if (job->ran) {
			cli_batch_job_stats st = cli_batch_stats(b, job);
			cli_json_int(&j, "clips_ok", (long long)job->ok_clips);
			cli_json_int(&j, "mapped_bones_min", (long long)st.bones_min);
			cli_json_int(&j, "mapped_bones_max", (long long)st.bones_max);
			cli_json_int(&j, "frames", (long long)st.frames);
			cli_json_number(&j, "max_direction_error_deg", st.worst * CLI_BATCH_RAD_TO_DEG);
			cli_json_number(&j, "ms", job->seconds * 1000.0);
		}
		cli_json_array(&j, "clips");
		for (size_t c = 0; c < job->clip_count; c++) {
			const cli_batch_clip *bc = &b->clips[job->clip_begin + c];
			const cli_batch_clip_result *r = job->results ? &job->results[c] : NULL;
			cli_json_object(&j, NULL);
			cli_json_string(&j, "name", r && r->renamed ? r->renamed : bc->name);
			cli_json_string(&j, "motion", b->motions[bc->motion].file->path);
			cli_json_string(&j, "source_clip", bc->clip->name ? bc->clip->name : "");
			cli_json_bool(&j, "ok", r && r->ok);
			if (r && r->ok) {
				cli_json_int(&j, "mapped_bones", (long long)r->report.mapped_bones);
				cli_json_int(&j, "frames", (long long)r->report.frames);
				cli_json_int(&j, "tracks", (long long)r->report.tracks);
				cli_json_number(&j, "source_hips_height", r->report.source_hips_height);
				cli_json_number(&j, "target_hips_height", r->report.target_hips_height);
				cli_json_number(&j, "max_direction_error_deg", r->report.max_direction_error * CLI_BATCH_RAD_TO_DEG);
				if (b->ro.foot_ik) cli_json_number(&j, "max_foot_miss", r->report.max_foot_miss);
			}
			cli_json_close_object(&j);
		}
		cli_json_close_array(&j);
		cli_json_close_object(&j);
	}
	cli_json_close_array(&j);

	cli_json_array(&j, "failures");
	for (size_t i = 0; i < b->motion_files.count; i++) cli_batch_json_failures(&j, b, (size_t)-1, &b->motions[i].failures);
	for (size_t k = 0; k < b->job_count; k++) cli_batch_json_failures(&j, b, k, &b->jobs[k].failures);
	cli_json_close_array(&j);

	cli_json_object(&j, "summary");
	cli_json_int(&j, "motions", (long long)b->motion_files.count);
	cli_json_int(&j, "motions_failed", (long long)b->motions_failed);
	cli_json_int(&j, "motions_not_run", (long long)b->motions_not_run);
	cli_json_int(&j, "clips", (long long)b->clip_count);
	cli_json_int(&j, "avatars", (long long)b->avatar_files.count);
	cli_json_int(&j, "jobs", (long long)b->job_count);
	cli_json_int(&j, "jobs_failed", (long long)b->jobs_failed);
	cli_json_int(&j, "jobs_not_run", (long long)b->jobs_not_run);
	cli_json_int(&j, "outputs_written", (long long)b->outputs_written);
	cli_json_int(&j, "clips_retargeted", (long long)b->clips_done);
	cli_json_number(&j, "wall_s", wall);
	cli_json_number(&j, "files_per_s", wall > 0.0 ? (double)b->outputs_written / wall : 0.0);
	cli_json_number(&j, "clips_per_s", wall > 0.0 ? (double)b->clips_done / wall : 0.0);
	cli_json_int(&j, "exit_code", exit_code);
	cli_json_close_object(&j);
	cli_json_close_object(&j);
	return cli_json_end(&j);
}

/* ---- the command ------------------------------------------------------------------ */


typedef struct cli_batch_args {
	cli_list motions, avatars;
	bool has_motions, has_avatars;
	const char *out;
	long threads;
	bool per_clip, keep_going, drop_avatar_clips;
} cli_batch_args;

static const cli_opt cli_batch_rows[] = {
	{ .name = "--motions", .kind = CLI_OPT_PATHS, .offset = offsetof(cli_batch_args, motions),
		.seen = CLI_SEEN(cli_batch_args, has_motions), .metavar = "PATH",
		.help = "motion files or directories (repeatable)" },
	{ .name = "--avatars", .kind = CLI_OPT_PATHS, .offset = offsetof(cli_batch_args, avatars),
		.seen = CLI_SEEN(cli_batch_args, has_avatars), .metavar = "PATH",
		.help = "avatar files or directories (repeatable)" },
	{ .name = "--out", .kind = CLI_OPT_STRING, .offset = offsetof(cli_batch_args, out), .metavar = "DIR",
		.help = "output directory (created if missing)" },
	{ .name = "--threads", .kind = CLI_OPT_INT, .offset = offsetof(cli_batch_args, threads), .min = 1,
		.max = CLI_BATCH_MAX_THREADS, .metavar = "N", .help = "worker threads, the main one included; more than\n64 run as 64 (default: the CPUs this process can use)" },
	{ .name = "--per-clip", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_batch_args, per_clip),
		.help = "one output per avatar and clip instead:\nDIR/<avatar>__<motion>[__<clip>].glb" },
	{ .name = "--drop-avatar-clips", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_batch_args, drop_avatar_clips),
		.help = "write only the retargeted clips, not the avatar's own" },
	{ .name = "--keep-going", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_batch_args, keep_going),
		.help = "after a failure run every other job, and write outputs\nwith the clips that worked (default: start no "
			"job after\nthe first failure, write nothing incomplete)" },
};
static const cli_opt_table cli_batch_table = CLI_TABLE("options", cli_batch_rows);

const cli_spec cli_batch_spec = {
	.name = "batch",
	.usage = "usage: rigkit batch --motions PATH... --avatars PATH... --out DIR [options]\n"
		"\n"
		"Retargets the clips of every motion file onto every avatar (any humanoid to\n"
		"any humanoid, as `rigkit retarget`) on a pool of worker threads. PATH is a\n"
		"file or a directory (its *.fbx, *.glb and *.gltf files, sorted by name, not\n"
		"recursive). Each motion file is loaded once and shared by all workers.\n"
		"\n"
		"Writes DIR/<avatar>.glb per avatar: the avatar with every retargeted clip,\n"
		"named <motion> (a file with one animated clip) or <motion>/<clip>, in the\n"
		"order of the motion files, then of their clips (<avatar>, <motion>: file\n"
		"names without the extension). The bytes written do not depend on --threads.\n"
		"\n",
	.footer = "Files that fail to load or are not humanoids are reported on stderr\n"
		"('rigkit: FILE: error') and skipped. --json prints the report (also when\n"
		"some input failed). Exit codes: 0 all done, 1 usage, 2 some input failed,\n"
		"3 an output could not be written.\n",
	.operands = "no operand", .min_operands = 0, .max_operands = 0,
	.tables = { &cli_batch_table, &cli_retarget_table, &cli_load_table },
};

/* Parses the arguments into b. 0 or CLI_EXIT_USAGE / CLI_EXIT_INPUT after
 * printing the error. */
static int cli_batch_parse(cli_batch *b, int argc, char **argv)
{
	cli_ctx *ctx = b->ctx;
	cli_batch_args a;
	memset(&a, 0, sizeof(a));
	cli_retarget_args ra;
	memset(&ra, 0, sizeof(ra));
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_batch_spec, (void *const[]){ &a, &ra, &b->lo }, argc, argv, &ops);
	if (rc) return rc;
	cli_retarget_args_apply(&ra);
	b->ro = ra.ro;
	b->clip_names = ra.clips.items;
	b->clip_name_count = ra.clips.count;
	b->json = ctx->json;
	b->per_clip = a.per_clip;
	b->keep_going = a.keep_going;
	b->drop_avatar_clips = a.drop_avatar_clips;
	b->threads = (size_t)a.threads;
	if (!a.has_motions || !a.has_avatars || !a.out)
		return cli_usage(ctx, "--motions, --avatars and --out are required (see rigkit batch --help)");
	if (!a.out[0]) return cli_usage(ctx, "--out needs a directory");
	b->out_dir = a.out;
	for (size_t i = 0; i < a.motions.count; i++)
		if ((rc = cli_batch_expand(ctx, a.motions.items[i], &b->motion_files))) return rc;
	for (size_t i = 0; i < a.avatars.count; i++)
		if ((rc = cli_batch_expand(ctx, a.avatars.items[i], &b->avatar_files))) return rc;
	if (!b->motion_files.count || !b->avatar_files.count)
		return cli_usage(ctx, "no %s files found (directories give their *.fbx, *.glb, *.gltf)",
			b->motion_files.count ? "avatar" : "motion");
	/* one order whatever the order of the arguments: by name (then path) */
	qsort(b->motion_files.data, b->motion_files.count, sizeof(cli_batch_file), cli_batch_file_cmp);
	qsort(b->avatar_files.data, b->avatar_files.count, sizeof(cli_batch_file), cli_batch_file_cmp);
	if (!cli_batch_bases_unique(ctx, &b->motion_files, "motion") || !cli_batch_bases_unique(ctx, &b->avatar_files, "avatar"))
		return CLI_EXIT_USAGE;
	if (!b->threads) b->threads = rk_cpu_count();
	/* the most threads rk_parallel_for runs (what the report counts) */
	if (b->threads > RK_TASKS_MAX_HELPERS + 1) b->threads = RK_TASKS_MAX_HELPERS + 1;
	return CLI_EXIT_OK;
}

static void cli_batch_free(cli_batch *b)
{
	for (size_t j = 0; j < b->job_count; j++) {
		cli_batch_job *job = &b->jobs[j];
		if (job->results)
			for (size_t k = 0; k < job->clip_count; k++) free(job->results[k].renamed);
		free(job->results);
		free(job->out_path);
		cli_batch_failures_free(&job->failures);
	}
	free(b->jobs);
	for (size_t c = 0; c < b->clip_count; c++) {
		free(b->clips[c].name);
		free(b->clips[c].tag);
	}
	free(b->clips);
	if (b->motions)
		for (size_t i = 0; i < b->motion_files.count; i++) {
			rk_scene_free(b->motions[i].scene);
			free(b->motions[i].picks);
			cli_batch_failures_free(&b->motions[i].failures);
		}
	free(b->motions);
	cli_batch_files_free(&b->motion_files);
	cli_batch_files_free(&b->avatar_files);
}

int cli_cmd_batch(cli_ctx *ctx, int argc, char **argv)
{
	cli_batch b;
	memset(&b, 0, sizeof(b));
	b.ctx = ctx;
	int rc = cli_batch_parse(&b, argc, argv);
	if (rc) {
		cli_batch_free(&b);
		return rc;
	}
	if (!cli_batch_make_dir(b.out_dir)) {
		cli_fail(ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, b.out_dir, "cannot create the output directory (%s)",
			strerror(errno));
		cli_batch_free(&b);
		return CLI_EXIT_OUTPUT;
	}
	double t0 = cli_batch_now();

	b.motions = (cli_batch_motion *)cli_batch_alloc(b.motion_files.count, sizeof(cli_batch_motion));
	for (size_t i = 0; i < b.motion_files.count; i++) b.motions[i].file = &b.motion_files.data[i];
	cli_batch_pool_run(&b, b.motion_files.count, b.threads, cli_batch_load_motion, cli_batch_motion_failed,
		cli_batch_report_motion);
	bool stop = b.motions_failed && !b.keep_going;
	cli_batch_collect_clips(&b);
	if (!stop) {
		cli_batch_make_jobs(&b);
		cli_batch_pool_run(&b, b.job_count, b.threads, cli_batch_run_job, cli_batch_job_failed, cli_batch_report_job);
	}
	double wall = cli_batch_now() - t0;

	for (size_t i = 0; i < b.motion_files.count; i++) {
		int e = cli_batch_failures_exit(&b.motions[i].failures);
		if (e > rc) rc = e;
	}
	for (size_t j = 0; j < b.job_count; j++) {
		int e = cli_batch_failures_exit(&b.jobs[j].failures);
		if (e > rc) rc = e;
	}
	if (b.json) {
		int jrc = cli_batch_print_json(&b, wall, rc);
		if (rc == CLI_EXIT_OK) rc = jrc;
	} else {
		size_t loaded = b.motion_files.count - b.motions_failed - b.motions_not_run;
		printf("batch: %zu of %zu motion%s (%zu clip%s) x %zu avatar%s: %zu job%s, %zu written, %zu failed", loaded,
			b.motion_files.count, b.motion_files.count == 1 ? "" : "s", b.clip_count, b.clip_count == 1 ? "" : "s",
			b.avatar_files.count, b.avatar_files.count == 1 ? "" : "s", b.job_count, b.job_count == 1 ? "" : "s",
			b.outputs_written, b.jobs_failed);
		if (b.jobs_not_run) printf(", %zu not run", b.jobs_not_run);
		if (stop) printf(", stopped after a motion failed (see --keep-going)");
		printf("; %.3f s wall, %.1f files/s, %.1f clips/s, %zu thread%s\n", wall,
			wall > 0.0 ? (double)b.outputs_written / wall : 0.0, wall > 0.0 ? (double)b.clips_done / wall : 0.0,
			b.threads, b.threads == 1 ? "" : "s");
	}
	cli_batch_free(&b);
	return rc;
}
