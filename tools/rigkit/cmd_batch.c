/* tools/rigkit/cmd_batch.c - `rigkit batch`: retarget many motion files onto
 * many avatars in one run, on a pool of worker threads, from folders or a
 * manifest, optionally one shard of many (docs/batch.md).
 *
 * JOB MODEL
 *   A job is one output file: a target (avatar), a list of clips (motion
 *   file, clip, output name) and retarget options (cli_batch_jobspec,
 *   batch.h). The folder form makes its jobs from the sorted file lists
 *   (after loading the motions, which gives their clips); --manifest reads
 *   them from a file; --plan writes the folder form's jobs as a manifest.
 *   Either way the jobs then run the same way:
 *   Phase 1, one task per motion file: load it, map its humanoid. The loaded
 *   scenes are then only read, by every worker at once (scene.h: any number
 *   of threads may read one const scene).
 *   Phase 2, one task per job: load the avatar, rk_retarget every clip,
 *   write. A job owns its avatar scene, the only thing rk_retarget writes.
 *   Workers take jobs in a fixed order; the report is printed in job order
 *   as jobs finish. What is written depends on the inputs and the options
 *   only, never on the thread count, the shard count or timing.
 *
 * SHARDS AND RESUMING
 *   --shard K/N keeps the jobs whose id hashes (FNV-1a) to K modulo N, so N
 *   processes do every job exactly once and adding jobs moves no other job.
 *   --resume skips a job whose output exists and whose sidecar
 *   (OUT.rigkit.json, written after the output) records the same input
 *   digest (FNV-1a of the input bytes, the options and the rigkit version).
 *
 * FAILURES
 *   A file that fails to load or is not a humanoid, or a clip that fails to
 *   retarget, is recorded against its job and printed on stderr in job order.
 *   Without --keep-going no job starts after the first failure (those
 *   running finish) and a job with a failure writes nothing; with it every
 *   other job runs and an output keeps the clips that worked. Exit code 2 for
 *   any input failure, 3 when an output could not be written, 1 for usage.
 */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLI_BATCH_MAX_THREADS 1024
#define CLI_BATCH_RAD_TO_DEG (180.0 / 3.14159265358979323846)

/* ---- small helpers --------------------------------------------------------- */

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
	static const char *const exts[] = { ".fbx", ".glb", ".gltf", ".vrm", ".vrma", ".bvh" };
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


/* Index of `path` among f's files, through `order` (f's indices sorted by
 * path); (size_t)-1 when absent. */
static size_t cli_batch_find_file(const cli_batch_files *f, const size_t *order, const char *path)
{
	size_t lo = 0, hi = f->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(f->data[order[mid]].path, path);
		if (!c) return order[mid];
		if (c < 0) lo = mid + 1;
		else hi = mid;
	}
	return (size_t)-1;
}

typedef struct cli_batch_keyed {
	const char *key;
	size_t index;
} cli_batch_keyed;

static int cli_batch_keyed_cmp(const void *a, const void *b)
{
	const cli_batch_keyed *x = (const cli_batch_keyed *)a, *y = (const cli_batch_keyed *)b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* f's indices sorted by path (malloc'd). */
static size_t *cli_batch_path_order(const cli_batch_files *f)
{
	cli_batch_keyed *k = (cli_batch_keyed *)cli_batch_alloc(f->count, sizeof(*k));
	for (size_t i = 0; i < f->count; i++) k[i] = (cli_batch_keyed){ f->data[i].path, i };
	qsort(k, f->count, sizeof(*k), cli_batch_keyed_cmp);
	size_t *order = (size_t *)cli_batch_alloc(f->count, sizeof(size_t));
	for (size_t i = 0; i < f->count; i++) order[i] = k[i].index;
	free(k);
	return order;
}

/* ---- failures ---------------------------------------------------------------- */

typedef struct cli_batch_failure {
	char *file;          /* the input concerned (or the output, for write failures) */
	const char *stage;   /* "load", "humanoid", "clips", "retarget", "write" */
	char *text;          /* the whole error line after "rigkit: " */
	int exit_code;       /* CLI_EXIT_INPUT or CLI_EXIT_OUTPUT */
	bool copy;           /* a motion's failure copied to a job: printed with the motion */
	bool repeat;         /* the avatar's failure, already printed with an earlier job */
} cli_batch_failure;

typedef struct cli_batch_failures {
	cli_batch_failure *data;
	size_t count, cap;
} cli_batch_failures;

static cli_batch_failure *cli_batch_fail_text(cli_batch_failures *f, const char *file, const char *stage, int exit_code,
	char *text)
{
	if (f->count == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4;
		cli_batch_failure *d = (cli_batch_failure *)realloc(f->data, cap * sizeof(*d));
		if (!d) cli_batch_out_of_memory();
		f->data = d;
		f->cap = cap;
	}
	cli_batch_failure *x = &f->data[f->count++];
	memset(x, 0, sizeof(*x));
	x->file = cli_batch_strdup(file);
	x->stage = stage;
	x->text = text;
	x->exit_code = exit_code;
	return x;
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
	size_t *picks;                   /* folder form: indices of the picked clips in scene->clips */
	size_t pick_count;
	size_t animated;                 /* clips with tracks in the file */
	bool ran;                        /* false: not started (a failure, no --keep-going) */
	double seconds;
	cli_batch_failures failures;
} cli_batch_motion;

/* Folder form: the batch's clips, in output order, names unique. */
typedef struct cli_batch_def {
	size_t motion;
	size_t index;                    /* in the motion's scene->clips */
	char *name;                      /* output clip name, unique in the batch */
	char *tag;                       /* --per-clip file name part: "<motion>" or "<motion>__<clip>" */
} cli_batch_def;

/* A clip of a job, resolved after phase 1. */
typedef struct cli_batch_clip {
	size_t motion;
	const rk_anim_clip *clip;        /* in the motion's scene */
	char *name;                      /* in the output, unique in the job */
} cli_batch_clip;

typedef struct cli_batch_clip_result {
	bool ok;
	char *renamed;                   /* when the avatar has a clip of that name; else NULL */
	rk_retarget_report report;
} cli_batch_clip_result;

typedef struct cli_batch_job {
	const cli_batch_jobspec *spec;      /* id, output, target, entries, options */
	size_t avatar;                   /* into avatar_files */
	size_t clip_begin, clip_count;   /* into the batch's clips */
	int format;                      /* CLI_FORMAT_* of the output */
	bool has_digest;                 /* --resume: every input was read */
	char digest[17];                 /* 16 hex digits */
	bool up_to_date;                 /* --resume: skipped */
	char *previous;                  /* up to date: the sidecar's report of the job (JSON), or NULL */
	cli_batch_clip_result *results;  /* clip_count */
	cli_batch_failures failures;
	bool ran, written;
	size_t bytes, plain_bytes;       /* --compress: the output's size, and without compression */
	size_t ok_clips;
	double seconds;
} cli_batch_job;

typedef struct cli_batch_progress {
	bool on, tty, shown;             /* shown: a live line is on the terminal */
	size_t total, done, skipped, failed;
	size_t step;                     /* not a TTY: tenths printed */
	double t0, last;
} cli_batch_progress;

typedef struct cli_batch {
	/* options */
	cli_ctx *ctx;
	cli_batch_job_opts defaults;     /* the command line's retarget options */
	bool per_clip, json, keep_going, resume, plan, sharded;
	int out_format;                  /* folder form: CLI_FORMAT_GLB or CLI_FORMAT_FBX (--format) */
	const char *out_dir;             /* folder form */
	const char *manifest;            /* --manifest, or NULL */
	const char *report_path;         /* --report, or NULL */
	const char *output;              /* -o (--plan), or NULL */
	size_t threads, shard, shards;
	size_t max_frames;               /* --max-frames (0 = RK_DEFAULT_MAX_FRAMES) */
	cli_twist_weights twist_weight_store;   /* --twist-weight (names copied) */
	const rk_twist_weight *twist_weights;
	size_t twist_weight_count;
	cli_gltf_out_args gltf_out;      /* --rebase-time, --compress, --compress-anim (glTF outputs) */
	rk_load_opts lo;                 /* load options for every file */
	const char *const *clip_names;
	size_t clip_name_count;
	/* inputs */
	cli_batch_files motion_files, avatar_files;
	size_t *motion_order, *avatar_order;   /* indices sorted by path */
	cli_batch_motion *motions;
	cli_batch_def *defs;
	size_t def_count;
	cli_batch_specs specs;           /* every job (the shard's are in jobs) */
	char jobs_digest[17];            /* of the sorted job ids: shards of one job list agree */
	/* the shard's work */
	cli_batch_clip *clips;
	size_t clip_count, clip_cap;
	cli_batch_job *jobs;
	size_t job_count;
	bool *avatar_reported;           /* an avatar's load failure was printed */
	cli_batch_progress progress;
	bool stopped;                    /* a motion failed without --keep-going */
	/* counters, updated by the reporting thread */
	size_t motions_failed, motions_not_run, jobs_failed, jobs_not_run, jobs_up_to_date, outputs_written, clips_done;
} cli_batch;

/* A set of strings (not owned): open addressing, FNV-1a. */
typedef struct cli_batch_set {
	const char **slots;
	size_t mask;
} cli_batch_set;

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
	size_t i = (size_t)cli_batch_fnv(CLI_BATCH_FNV_OFFSET, s, strlen(s)) & set->mask;
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

/* ---- progress on stderr ------------------------------------------------------------ */

/* Terminal (stderr is a TTY): one live line, redrawn at most 10 times a
 * second ("\r", erased before anything else is printed and at the end).
 * Otherwise a plain line at each tenth of the jobs and at least every 30 s.
 * Nothing with -q. */
static void cli_batch_progress_clear(cli_batch_progress *p)
{
	if (!p->shown) return;
	fputs("\r\033[K", stderr);
	p->shown = false;
}

static void cli_batch_duration(char *dst, size_t cap, double s)
{
	if (!(s < 1e9)) snprintf(dst, cap, "?");
	else if (s >= 3600.0) snprintf(dst, cap, "%dh%02dm", (int)(s / 3600.0), (int)(s / 60.0) % 60);
	else if (s >= 60.0) snprintf(dst, cap, "%dm%02ds", (int)(s / 60.0), (int)s % 60);
	else snprintf(dst, cap, "%.0f s", s);
}

static void cli_batch_progress_show(cli_batch_progress *p)
{
	if (!p->on || !p->total) return;
	double now = cli_batch_now(), elapsed = now - p->t0;
	bool end = p->done == p->total;
	size_t ran = p->done - p->skipped, todo = p->total - p->skipped;
	double rate = elapsed > 0.0 ? (double)ran / elapsed : 0.0;
	char eta[32];
	if (end) snprintf(eta, sizeof(eta), "0 s");
	else if (rate > 0.0) cli_batch_duration(eta, sizeof(eta), (double)(todo - ran) / rate);
	else snprintf(eta, sizeof(eta), "?");
	char extra[64] = "";
	size_t n = 0;
	if (p->skipped) n += (size_t)snprintf(extra + n, sizeof(extra) - n, ", %zu up to date", p->skipped);
	if (p->failed) snprintf(extra + n, sizeof(extra) - n, ", %zu failed", p->failed);
	char speed[64] = "";   /* none until a job has run: up-to-date jobs take no time */
	if (ran) snprintf(speed, sizeof(speed), ", %.1f jobs/s, ETA %s", rate, eta);
	if (p->tty) {
		if (!end && now - p->last < 0.1) return;
		fprintf(stderr, "\rbatch: %zu/%zu jobs%s%s\033[K", p->done, p->total, extra, speed);
		p->shown = true;   /* erased at the end of the run: the summary says the rest */
	} else {
		size_t step = p->done * 10 / p->total;
		if (step == p->step && now - p->last < 30.0) return;
		p->step = step;
		fprintf(stderr, "batch: %zu/%zu jobs (%zu%%)%s%s\n", p->done, p->total, p->done * 100 / p->total, extra, speed);
	}
	p->last = now;
	fflush(stderr);
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
	/* a manifest names its clips: a file without tracks fails in its jobs */
	if (!m->pick_count && !b->manifest)
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

static void cli_batch_print_failures(cli_batch *b, const cli_batch_failures *f)
{
	cli_batch_progress_clear(&b->progress);
	for (size_t k = 0; k < f->count; k++)
		if (!f->data[k].copy && !f->data[k].repeat) cli_batch_print_line(f->data[k].text);
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
		cli_batch_print_failures(b, &m->failures);
	}
}

/* Phase 1 over b->motion_files; sets b->stopped after a failure without --keep-going. */
static void cli_batch_load_motions(cli_batch *b)
{
	b->motions = (cli_batch_motion *)cli_batch_alloc(b->motion_files.count, sizeof(cli_batch_motion));
	for (size_t i = 0; i < b->motion_files.count; i++) b->motions[i].file = &b->motion_files.data[i];
	b->motion_order = cli_batch_path_order(&b->motion_files);
	cli_batch_pool_run(b, b->motion_files.count, b->threads, cli_batch_load_motion, cli_batch_motion_failed,
		cli_batch_report_motion);
	b->stopped = b->motions_failed && !b->keep_going;
}

/* ---- the folder form's jobs ---------------------------------------------------- */

/* The batch's clip list from the loaded motions, names made unique. */
static void cli_batch_collect_defs(cli_batch *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->motion_files.count; i++) n += b->motions[i].pick_count;
	b->defs = (cli_batch_def *)cli_batch_alloc(n, sizeof(cli_batch_def));
	for (size_t i = 0; i < b->motion_files.count; i++) {
		const cli_batch_motion *m = &b->motions[i];
		if (!m->scene) continue;
		for (size_t k = 0; k < m->pick_count; k++) {
			cli_batch_def *c = &b->defs[b->def_count++];
			c->motion = i;
			c->index = m->picks[k];
			const rk_anim_clip *clip = &m->scene->clips.data[c->index];
			const char *cname = clip->name ? clip->name : "";
			bool single = m->animated == 1 && cli_batch_clip_has_tracks(clip);
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
	char **names = (char **)cli_batch_alloc(b->def_count, sizeof(char *));
	for (size_t c = 0; c < b->def_count; c++) names[c] = b->defs[c].name;
	cli_batch_uniquify(names, b->def_count);
	for (size_t c = 0; c < b->def_count; c++) {
		b->defs[c].name = names[c];
		names[c] = b->defs[c].tag;
	}
	cli_batch_uniquify(names, b->def_count);
	for (size_t c = 0; c < b->def_count; c++) b->defs[c].tag = names[c];
	free(names);
}

static void cli_batch_spec_add_def(cli_batch *b, cli_batch_jobspec *s, size_t d, size_t *cap)
{
	if (s->entry_count == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		cli_batch_entry *e = (cli_batch_entry *)realloc(s->entries, *cap * sizeof(*e));
		if (!e) cli_batch_out_of_memory();
		s->entries = e;
	}
	const cli_batch_def *def = &b->defs[d];
	const cli_batch_motion *m = &b->motions[def->motion];
	const char *cname = m->scene->clips.data[def->index].name;
	cli_batch_entry *e = &s->entries[s->entry_count++];
	memset(e, 0, sizeof(*e));
	e->source = cli_batch_strdup(m->file->path);
	e->clip = cli_batch_strdup(cname ? cname : "");
	e->name = cli_batch_strdup(def->name);
	e->clip_index = def->index + 1;
}

/* One spec per avatar (all clips) or, --per-clip, per (avatar, clip); ids
 * are the output file names (unique), outputs DIR/<id>. */
static void cli_batch_folder_specs(cli_batch *b)
{
	size_t avatars = b->avatar_files.count;
	size_t count = !b->def_count ? 0 : b->per_clip ? avatars * b->def_count : avatars;
	char **ids = (char **)cli_batch_alloc(count, sizeof(char *));
	for (size_t j = 0; j < count; j++) {
		if (b->per_clip)
			ids[j] = cli_batch_format("%s__%s", b->avatar_files.data[j / b->def_count].base, b->defs[j % b->def_count].tag);
		else
			ids[j] = cli_batch_strdup(b->avatar_files.data[j].base);
	}
	cli_batch_uniquify(ids, count);   /* only --per-clip names can meet */
	size_t dlen = strlen(b->out_dir);
	bool slash = dlen > 0 && b->out_dir[dlen - 1] == '/';
	for (size_t j = 0; j < count; j++) {
		cli_batch_jobspec *s = cli_batch_specs_push(&b->specs);
		s->id = cli_batch_format("%s.%s", ids[j], b->out_format == CLI_FORMAT_FBX ? "fbx" : "glb");
		s->output = cli_batch_format("%s%s%s", b->out_dir, slash ? "" : "/", s->id);
		s->target = cli_batch_strdup(b->avatar_files.data[b->per_clip ? j / b->def_count : j].path);
		s->opts = b->defaults;
		size_t cap = 0;
		if (b->per_clip) cli_batch_spec_add_def(b, s, j % b->def_count, &cap);
		else
			for (size_t d = 0; d < b->def_count; d++) cli_batch_spec_add_def(b, s, d, &cap);
		free(ids[j]);
	}
	free(ids);
}

/* The digest of the sorted job ids (shards of one job list agree on it). */
static void cli_batch_digest_ids(cli_batch *b)
{
	const char **ids = (const char **)cli_batch_alloc(b->specs.count, sizeof(char *));
	for (size_t i = 0; i < b->specs.count; i++) ids[i] = b->specs.data[i].id;
	qsort(ids, b->specs.count, sizeof(*ids), cli_batch_strcmp);
	uint64_t h = CLI_BATCH_FNV_OFFSET;
	for (size_t i = 0; i < b->specs.count; i++) h = cli_batch_fnv_str(h, ids[i]);
	snprintf(b->jobs_digest, sizeof(b->jobs_digest), "%016llx", (unsigned long long)h);
	free(ids);
}

static bool cli_batch_in_shard(const cli_batch *b, const cli_batch_jobspec *s)
{
	return !b->sharded || cli_batch_shard_of(s->group ? s->group : s->id, b->shards) == b->shard;
}

/* --plan: the manifest of the folder form's jobs (this shard's with --shard). */
static int cli_batch_write_plan(cli_batch *b, int rc)
{
	char *base = NULL;
	if (b->output && !cli_is_stdio(b->output)) {
		char *dir = cli_batch_dirname(b->output);
		base = cli_batch_absolute(dir[0] ? dir : ".");
		free(dir);
	} else {
		base = cli_batch_absolute(".");
	}
	size_t n = 0, cap = 0, jobs = 0;
	char *text = NULL;
	for (size_t i = 0; i < b->specs.count; i++) {
		if (!cli_batch_in_shard(b, &b->specs.data[i])) continue;
		size_t len = 0;
		char *line = cli_batch_manifest_line(&b->specs.data[i], base, &len);
		if (n + len + 1 > cap) {
			cap = (n + len + 1) * 2;
			char *t = (char *)realloc(text, cap);
			if (!t) cli_batch_out_of_memory();
			text = t;
		}
		memcpy(text + n, line, len);
		n += len;
		text[n++] = '\n';
		free(line);
		jobs++;
	}
	free(base);
	int wrc = CLI_EXIT_OK;
	rk_error err;
	char *dir = b->output ? cli_batch_dirname(b->output) : NULL;
	if (!b->output || cli_is_stdio(b->output)) wrc = n ? cli_write_stdout(b->ctx, text, n) : CLI_EXIT_OK;
	else if (dir[0] && !cli_batch_make_dir(dir))
		wrc = cli_fail(b->ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, dir, "cannot create the folder (%s)", strerror(errno));
	else if (!rk_file_write_atomic(b->output, text ? text : "", n, &err)) wrc = cli_print_error(b->ctx, &err);
	free(dir);
	free(text);
	if (wrc) return wrc;
	if (b->json) {
		cli_json j;
		cli_json_document(&j, b->ctx);
		cli_json_object(&j, NULL);
		cli_json_string(&j, "plan", b->output);
		cli_json_int(&j, "jobs", (long long)jobs);
		cli_json_int(&j, "jobs_total", (long long)b->specs.count);
		cli_json_string(&j, "jobs_digest", b->jobs_digest);
		cli_json_int(&j, "motions_failed", (long long)b->motions_failed);
		cli_json_int(&j, "exit_code", rc);
		cli_json_close_object(&j);
		int jrc = cli_json_end(&j);
		if (!rc) rc = jrc;
	} else if (b->output && !cli_is_stdio(b->output) && !b->ctx->quiet) {
		fprintf(stderr, "batch: plan: %zu job%s written to %s\n", jobs, jobs == 1 ? "" : "s", b->output);
	}
	return rc;
}

/* ---- the shard's jobs ----------------------------------------------------------- */

/* Sorted, distinct copies of `count` strings (the array malloc'd, the strings not copied). */
static const char **cli_batch_distinct(const char **v, size_t *count)
{
	qsort(v, *count, sizeof(*v), cli_batch_strcmp);
	size_t n = 0;
	for (size_t i = 0; i < *count; i++)
		if (!n || strcmp(v[n - 1], v[i])) v[n++] = v[i];
	*count = n;
	return v;
}

/* b->jobs: the specs of this shard, in spec order. With a manifest, the
 * avatar files are the shard's distinct targets (sorted by path). */
static void cli_batch_select_jobs(cli_batch *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->specs.count; i++) n += cli_batch_in_shard(b, &b->specs.data[i]);
	b->jobs = (cli_batch_job *)cli_batch_alloc(n, sizeof(cli_batch_job));
	for (size_t i = 0; i < b->specs.count; i++)
		if (cli_batch_in_shard(b, &b->specs.data[i])) {
			cli_batch_job *job = &b->jobs[b->job_count++];
			job->spec = &b->specs.data[i];
			job->format = b->manifest ? cli_batch_output_format(job->spec->output) : b->out_format;
			if (job->format == CLI_FORMAT_FBX && b->ctx->fbx_ascii) job->format = CLI_FORMAT_FBX_ASCII;
		}
	if (b->manifest) {
		size_t count = b->job_count;
		const char **t = (const char **)cli_batch_alloc(count, sizeof(char *));
		for (size_t j = 0; j < count; j++) t[j] = b->jobs[j].spec->target;
		cli_batch_distinct(t, &count);
		for (size_t k = 0; k < count; k++) cli_batch_files_add(&b->avatar_files, t[k]);
		free((void *)t);
	}
	b->avatar_order = cli_batch_path_order(&b->avatar_files);
	b->avatar_reported = (bool *)cli_batch_alloc(b->avatar_files.count, sizeof(bool));
	for (size_t j = 0; j < b->job_count; j++)
		b->jobs[j].avatar = cli_batch_find_file(&b->avatar_files, b->avatar_order, b->jobs[j].spec->target);
}

/* ---- --resume: digests and sidecars ------------------------------------------------- */

typedef struct cli_batch_input {
	const char *path;
	bool ok;
	uint64_t digest, size;
} cli_batch_input;

static int cli_batch_input_cmp(const void *key, const void *elem)
{
	return strcmp((const char *)key, ((const cli_batch_input *)elem)->path);
}

/* The glTF output options in a job digest (only when some is given, so
 * sidecars written without them stay valid). */
static const char *cli_batch_gltf_out_key(const cli_gltf_out_args *g)
{
	static const char *const keys[8] = { "", " rebase", " meshopt", " rebase meshopt", " anim", " rebase anim",
		" meshopt anim", " rebase meshopt anim" };
	return keys[(g->rebase_time ? 1 : 0) | (g->compress ? 2 : 0) | (g->compress_anim ? 4 : 0)];
}

/* The digest of one job: the rigkit version, the load and retarget
 * options, the output format and clip names, and the bytes of every input.
 * false when an input cannot be read (the job then runs, and fails). */
static bool cli_batch_job_digest(const cli_batch *b, cli_batch_job *job, const cli_batch_input *in, size_t count)
{
	const cli_batch_jobspec *s = job->spec;
	char opts[256];
	snprintf(opts, sizeof(opts), "axes %d %d %d unit %.17g root %d fps %.17g fingers %d foot_ik %d drop %d rest %d format %d%s",
		(int)b->lo.target_axes.right, (int)b->lo.target_axes.up, (int)b->lo.target_axes.front, b->lo.target_unit_meters,
		(int)s->opts.root, s->opts.fps, s->opts.skip_fingers, s->opts.foot_ik, s->opts.drop_avatar_clips, (int)s->opts.rest, job->format,
		b->gltf_out.rebase_time || b->gltf_out.compress || b->gltf_out.compress_anim
			? cli_batch_gltf_out_key(&b->gltf_out) : "");
	uint64_t h = cli_batch_fnv_str(CLI_BATCH_FNV_OFFSET, "rigkit batch job digest 1");
	h = cli_batch_fnv_str(h, rk_version());
	h = cli_batch_fnv_str(h, opts);
	if (s->opts.twist != RK_RETARGET_TWIST_ON) h = cli_batch_fnv_str(h, "twist off");
	if (s->opts.contacts != RK_RETARGET_CONTACTS_FEET) h = cli_batch_fnv_str(h, "contacts off");
	if (s->opts.hand_contacts) h = cli_batch_fnv_str(h, "hand contacts");
	for (size_t i = 0; i < b->twist_weight_count; i++) {
		char tw[200];
		snprintf(tw, sizeof(tw), "twist %.150s %.17g", b->twist_weights[i].node, b->twist_weights[i].share);
		h = cli_batch_fnv_str(h, tw);
	}
	const cli_batch_input *t = (const cli_batch_input *)bsearch(s->target, in, count, sizeof(*in), cli_batch_input_cmp);
	if (!t || !t->ok) return false;
	h = cli_batch_fnv(h, &t->digest, sizeof(t->digest));
	h = cli_batch_fnv(h, &t->size, sizeof(t->size));
	for (size_t e = 0; e < s->entry_count; e++) {
		const cli_batch_entry *x = &s->entries[e];
		const cli_batch_input *m = (const cli_batch_input *)bsearch(x->source, in, count, sizeof(*in), cli_batch_input_cmp);
		if (!m || !m->ok) return false;
		h = cli_batch_fnv(h, &m->digest, sizeof(m->digest));
		h = cli_batch_fnv(h, &m->size, sizeof(m->size));
		h = cli_batch_fnv_str(h, x->clip ? x->clip : "\001every clip");
		h = cli_batch_fnv_str(h, x->name ? x->name : "\001default name");
	}
	snprintf(job->digest, sizeof(job->digest), "%016llx", (unsigned long long)h);
	job->has_digest = true;
	return true;
}

/* Removes the temporary files an interrupted run left for this run's
 * outputs (no other process writes them: they are this shard's). */
static void cli_batch_remove_temps(cli_batch *b)
{
	const char **outs = (const char **)cli_batch_alloc(b->job_count, sizeof(char *));
	for (size_t j = 0; j < b->job_count; j++) outs[j] = b->jobs[j].spec->output;
	qsort(outs, b->job_count, sizeof(*outs), cli_batch_strcmp);
	size_t removed = cli_batch_remove_stale_temps(outs, b->job_count);
	free((void *)outs);
	if (removed) cli_note(b->ctx, "batch: removed %zu temporary file%s left by an interrupted run", removed, removed == 1 ? "" : "s");
}

/* Finds each job's digest and marks the jobs whose sidecar records it as
 * up to date. */
static void cli_batch_resume(cli_batch *b)
{
	size_t count = 0;
	for (size_t j = 0; j < b->job_count; j++) count += 1 + b->jobs[j].spec->entry_count;
	const char **paths = (const char **)cli_batch_alloc(count, sizeof(char *));
	count = 0;
	for (size_t j = 0; j < b->job_count; j++) {
		const cli_batch_jobspec *s = b->jobs[j].spec;
		paths[count++] = s->target;
		for (size_t e = 0; e < s->entry_count; e++) paths[count++] = s->entries[e].source;
	}
	cli_batch_distinct(paths, &count);
	cli_batch_input *in = (cli_batch_input *)cli_batch_alloc(count, sizeof(*in));
	for (size_t i = 0; i < count; i++) {
		in[i].path = paths[i];
		in[i].ok = cli_batch_file_digest(paths[i], &in[i].digest, &in[i].size);
	}
	for (size_t j = 0; j < b->job_count; j++) {
		cli_batch_job *job = &b->jobs[j];
		if (!cli_batch_job_digest(b, job, in, count)) continue;
		job->up_to_date = cli_batch_sidecar_matches(job->spec->output, job->digest, &job->previous);
	}
	free(in);
	free((void *)paths);
}

/* ---- resolving the jobs' clips ---------------------------------------------------- */

/* With a manifest: the motion files are the distinct sources of the jobs to run. */
static void cli_batch_manifest_motions(cli_batch *b)
{
	size_t count = 0;
	for (size_t j = 0; j < b->job_count; j++)
		if (!b->jobs[j].up_to_date) count += b->jobs[j].spec->entry_count;
	const char **v = (const char **)cli_batch_alloc(count, sizeof(char *));
	count = 0;
	for (size_t j = 0; j < b->job_count; j++)
		if (!b->jobs[j].up_to_date)
			for (size_t e = 0; e < b->jobs[j].spec->entry_count; e++) v[count++] = b->jobs[j].spec->entries[e].source;
	cli_batch_distinct(v, &count);
	for (size_t k = 0; k < count; k++) cli_batch_files_add(&b->motion_files, v[k]);
	free((void *)v);
}

static void cli_batch_push_clip(cli_batch *b, size_t motion, const rk_anim_clip *clip, char *name)
{
	if (b->clip_count == b->clip_cap) {
		size_t cap = b->clip_cap ? b->clip_cap * 2 : 64;
		cli_batch_clip *c = (cli_batch_clip *)realloc(b->clips, cap * sizeof(*c));
		if (!c) cli_batch_out_of_memory();
		b->clips = c;
		b->clip_cap = cap;
	}
	b->clips[b->clip_count++] = (cli_batch_clip){ motion, clip, name };
}

/* The clips of each job to run, from its entries and the loaded motions.
 * A missing clip or a motion that failed is a failure of the job. */
static void cli_batch_resolve(cli_batch *b)
{
	for (size_t j = 0; j < b->job_count; j++) {
		cli_batch_job *job = &b->jobs[j];
		job->clip_begin = b->clip_count;
		if (job->up_to_date) continue;
		const cli_batch_jobspec *s = job->spec;
		for (size_t e = 0; e < s->entry_count; e++) {
			const cli_batch_entry *x = &s->entries[e];
			size_t mi = cli_batch_find_file(&b->motion_files, b->motion_order, x->source);
			const cli_batch_motion *m = mi == (size_t)-1 ? NULL : &b->motions[mi];
			if (!m || !m->scene) {
				for (size_t k = 0; m && k < m->failures.count; k++) {
					const cli_batch_failure *f = &m->failures.data[k];
					cli_batch_fail_text(&job->failures, f->file, f->stage, f->exit_code, cli_batch_strdup(f->text))->copy = true;
				}
				continue;
			}
			const rk_scene *sc = m->scene;
			size_t found = 0;
			for (size_t c = 0; c < sc->clips.count; c++) {
				if (x->clip_index && c + 1 != x->clip_index) continue;
				const rk_anim_clip *clip = &sc->clips.data[c];
				const char *cname = clip->name ? clip->name : "";
				if (x->clip ? strcmp(cname, x->clip) != 0 : !cli_batch_clip_has_tracks(clip)) continue;
				char *name;
				if (x->name) name = cli_batch_strdup(x->name);
				else if (m->animated == 1 && cli_batch_clip_has_tracks(clip)) name = cli_batch_strdup(m->file->base);
				else name = cli_batch_format("%s/%s", m->file->base, cname);
				cli_batch_push_clip(b, mi, clip, name);
				found++;
				if (x->clip) break;   /* a name takes the first clip of that name */
			}
			if (!found)
				cli_batch_fail_text(&job->failures, x->source, "clips", CLI_EXIT_INPUT,
					x->clip ? cli_batch_format("%s: no animation clip named '%s' (job %s)", x->source, x->clip, s->id)
							: cli_batch_format("%s: no animation clip with tracks (job %s)", x->source, s->id));
		}
		job->clip_count = b->clip_count - job->clip_begin;
		char **names = (char **)cli_batch_alloc(job->clip_count, sizeof(char *));
		for (size_t c = 0; c < job->clip_count; c++) names[c] = b->clips[job->clip_begin + c].name;
		cli_batch_uniquify(names, job->clip_count);
		for (size_t c = 0; c < job->clip_count; c++) b->clips[job->clip_begin + c].name = names[c];
		free(names);
	}
}

/* ---- phase 2: jobs ------------------------------------------------------------------ */

static bool cli_batch_scene_has_clip(const rk_scene *s, size_t count, const char *name)
{
	for (size_t c = 0; c < count; c++)
		if (s->clips.data[c].name && !strcmp(s->clips.data[c].name, name)) return true;
	return false;
}

static bool cli_batch_job_has_clip(const cli_batch *b, const cli_batch_job *job, const char *name)
{
	for (size_t c = 0; c < job->clip_count; c++)
		if (!strcmp(b->clips[job->clip_begin + c].name, name)) return true;
	return false;
}

static void cli_batch_json_job(cli_json *j, const cli_batch *b, const cli_batch_job *job, bool timings, const char *key);

/* OUT.rigkit.json after OUT (--resume): the job's digest, its inputs and
 * its report without timings, written atomically. A sidecar that cannot be
 * written is a write failure of the job (the output stands; the next
 * --resume redoes the job). */
static void cli_batch_write_sidecar(const cli_batch *b, cli_batch_job *job)
{
	cli_json j;
	cli_json_document(&j, b->ctx);
	cli_json_object(&j, NULL);
	cli_json_string(&j, "rigkit", rk_version());
	cli_json_string(&j, "id", job->spec->id);
	cli_json_string(&j, "digest", job->digest);
	cli_json_array(&j, "inputs");
	cli_json_string(&j, NULL, job->spec->target);
	for (size_t e = 0; e < job->spec->entry_count; e++) cli_json_string(&j, NULL, job->spec->entries[e].source);
	cli_json_close_array(&j);
	cli_batch_json_job(&j, b, job, false, "report");
	cli_json_close_object(&j);
	char *path = cli_batch_sidecar_path(job->spec->output);
	rk_error err;
	if (!cli_batch_json_save(&j, path, &err)) cli_batch_fail_err(&job->failures, path, "write", NULL, &err);
	rk_json_writer_free(&j.w);
	free(path);
}

static void cli_batch_run_job(cli_batch *b, size_t j)
{
	cli_batch_job *job = &b->jobs[j];
	if (job->up_to_date) return;
	const cli_batch_jobspec *spec = job->spec;
	const char *avatar = spec->target;
	double t0 = cli_batch_now();
	job->ran = true;
	job->results = (cli_batch_clip_result *)cli_batch_alloc(job->clip_count, sizeof(cli_batch_clip_result));
	rk_error err;
	rk_scene *s = NULL;
	if (job->failures.count && !b->keep_going) goto done;   /* a clip is missing: nothing incomplete */
	s = rk_load_file(avatar, &b->lo, &err);
	if (!s) {
		cli_batch_fail_err(&job->failures, avatar, "load", NULL, &err);
		goto done;
	}
	rk_humanoid ht;
	if (!rk_humanoid_detect(s, &ht, &err)) {
		cli_batch_fail_text(&job->failures, avatar, "humanoid", CLI_EXIT_INPUT,
			cli_batch_format("%s: not a humanoid: %s", avatar, err.message));
		goto done;
	}
	if (spec->opts.root == RK_RETARGET_ROOT_EXTRACT && (job->format == CLI_FORMAT_BVH || job->format == CLI_FORMAT_VRMA)) {
		cli_batch_fail_text(&job->failures, spec->output, "options", CLI_EXIT_USAGE,
			cli_batch_format("%s: root extract puts the travel on a root node, which %s output does not keep", spec->output,
				job->format == CLI_FORMAT_BVH ? "BVH" : "VRM Animation"));
		goto done;
	}
	if (spec->opts.root == RK_RETARGET_ROOT_EXTRACT && ht.bones[RK_HUMANOID_HIPS]->parent == s->root) {
		/* hips hanging from the scene: a new "root" node carries the root motion */
		if (!rk_scene_insert_parent(s, ht.bones[RK_HUMANOID_HIPS], "root", &err) || !rk_humanoid_detect(s, &ht, &err)) {
			cli_batch_fail_text(&job->failures, avatar, "humanoid", CLI_EXIT_INPUT,
				cli_batch_format("%s: cannot add a root node above the hips: %s", avatar, err.message));
			goto done;
		}
	}
	if (spec->opts.drop_avatar_clips) s->clips.count = 0;
	size_t own = s->clips.count;
	rk_retarget_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.root = spec->opts.root;
	ro.fps = spec->opts.fps;
	ro.skip_fingers = spec->opts.skip_fingers;
	ro.foot_ik = spec->opts.foot_ik;
	ro.rest = spec->opts.rest;
	ro.twist = spec->opts.twist;
	ro.contacts = spec->opts.contacts;
	ro.hand_contacts = spec->opts.hand_contacts;
	ro.twist_weights = b->twist_weights;
	ro.twist_weight_count = b->twist_weight_count;
	ro.max_frames = b->max_frames;
	ro.target_humanoid = &ht;
	for (size_t k = 0; k < job->clip_count; k++) {
		const cli_batch_clip *c = &b->clips[job->clip_begin + k];
		const cli_batch_motion *m = &b->motions[c->motion];
		cli_batch_clip_result *r = &job->results[k];
		const char *name = c->name;
		if (cli_batch_scene_has_clip(s, own, name)) {
			for (unsigned n = 2; !r->renamed; n++) {
				char *candidate = cli_batch_format("%s~%u", c->name, n);
				if (!cli_batch_scene_has_clip(s, own, candidate) && !cli_batch_job_has_clip(b, job, candidate))
					r->renamed = candidate;
				else
					free(candidate);
			}
			name = r->renamed;
		}
		ro.source_humanoid = &m->humanoid;
		ro.name = name;
		/* a VRM Animation source's expressions and look-at onto a VRM avatar
		 * (nothing for other files; warnings only counted: worker thread) */
		if (!rk_retarget(s, m->scene, c->clip, &ro, &r->report, &err) ||
			!rk_retarget_expressions(s, &s->clips.data[s->clips.count - 1], m->scene, c->clip,
				&(rk_retarget_opts){ .target_humanoid = &ht }, NULL, &err)) {
			char *ctx = cli_batch_format("%s <- %s clip '%s'", avatar, m->file->path, c->clip->name ? c->clip->name : "");
			cli_batch_fail_err(&job->failures, avatar, "retarget", ctx, &err);
			free(ctx);
			continue;
		}
		r->ok = true;
		job->ok_clips++;
	}
	if (job->ok_clips && (b->keep_going || !job->failures.count)) {
		char *dir = cli_batch_dirname(spec->output);
		if (b->manifest && dir[0] && !cli_batch_make_dir(dir)) {
			cli_batch_fail_text(&job->failures, spec->output, "write", CLI_EXIT_OUTPUT,
				cli_batch_format("%s: cannot create the folder %s (%s)", spec->output, dir, strerror(errno)));
		} else if (cli_write_scene_gltf(s, spec->output, job->format, b->ctx->force, b->max_frames, &b->gltf_out,
					   &job->bytes, &job->plain_bytes, &err)) {
			job->written = true;
			if (b->resume && job->has_digest) cli_batch_write_sidecar(b, job);
		} else {
			cli_batch_fail_err(&job->failures, spec->output, "write", NULL, &err);
		}
		free(dir);
	}
done:
	rk_scene_free(s);
	job->seconds = cli_batch_now() - t0;
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
	for (size_t k = 0; k < job->clip_count && job->results; k++) {
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

static const char *cli_batch_status(const cli_batch_job *job)
{
	if (job->up_to_date) return "up_to_date";
	if (!job->ran) return "not_run";
	if (!job->written) return "failed";
	return job->failures.count ? "partial" : "written";
}

static void cli_batch_report_job(cli_batch *b, size_t j, bool ran)
{
	cli_batch_job *job = &b->jobs[j];
	cli_batch_progress *p = &b->progress;
	p->done++;
	if (job->up_to_date) {
		b->jobs_up_to_date++;
		p->skipped++;
		if (b->ctx->verbose) cli_batch_progress_clear(p);
		cli_note(b->ctx, "%s: up to date (digest %s)", job->spec->output, job->digest);
		cli_batch_progress_show(p);
		return;
	}
	if (!ran) {
		b->jobs_not_run++;
		cli_batch_progress_show(p);
		return;
	}
	if (job->failures.count) {
		b->jobs_failed++;
		p->failed++;
	}
	if (job->written) {
		b->outputs_written++;
		b->clips_done += job->ok_clips;
	}
	/* an avatar that does not load fails every job it has: printed once */
	for (size_t k = 0; k < job->failures.count; k++) {
		cli_batch_failure *f = &job->failures.data[k];
		if (strcmp(f->stage, "load") && strcmp(f->stage, "humanoid")) continue;
		if (f->copy || strcmp(f->file, job->spec->target)) continue;
		f->repeat = b->avatar_reported[job->avatar];
		b->avatar_reported[job->avatar] = true;
	}
	cli_batch_print_failures(b, &job->failures);
	if (!b->json && job->written) {
		cli_batch_job_stats st = cli_batch_stats(b, job);
		char bones[64];
		if (st.bones_min == st.bones_max) snprintf(bones, sizeof(bones), "%zu", st.bones_max);
		else snprintf(bones, sizeof(bones), "%zu-%zu", st.bones_min, st.bones_max);
		char *clips;
		if (b->per_clip || (b->manifest && job->clip_count == 1)) {
			const cli_batch_clip_result *r = &job->results[0];
			clips = cli_batch_format("'%s'", r->renamed ? r->renamed : b->clips[job->clip_begin].name);
		} else if (job->ok_clips == job->clip_count) {
			clips = cli_batch_format("%zu clip%s from %zu motion%s", job->ok_clips, job->ok_clips == 1 ? "" : "s",
				st.motions, st.motions == 1 ? "" : "s");
		} else {
			clips = cli_batch_format("%zu of %zu clips from %zu motion%s", job->ok_clips, job->clip_count, st.motions,
				st.motions == 1 ? "" : "s");
		}
		cli_batch_progress_clear(p);
		printf("%s: %s + %s, %s bones, %zu frames, max bone direction error %.2g deg, %.0f ms\n", job->spec->output,
			job->spec->target, clips, bones, st.frames, st.worst * CLI_BATCH_RAD_TO_DEG, job->seconds * 1000.0);
		free(clips);
		fflush(stdout);
	}
	cli_batch_progress_show(p);
}

/* ---- the JSON report ------------------------------------------------------------- */

static void cli_batch_json_failure(cli_json *j, const cli_batch_failure *f)
{
	cli_json_object(j, NULL);
	cli_json_string(j, "file", f->file);
	cli_json_string(j, "stage", f->stage);
	cli_json_string(j, "error", f->text);
	cli_json_int(j, "exit_code", f->exit_code);
	cli_json_close_object(j);
}

/* One element of "outputs" (also a sidecar's "report"). */
static void cli_batch_json_job(cli_json *j, const cli_batch *b, const cli_batch_job *job, bool timings, const char *key)
{
	cli_json_object(j, key);
	cli_json_string(j, "id", job->spec->id);
	if (job->spec->line) cli_json_int(j, "line", (long long)job->spec->line);
	else cli_json_null(j, "line");
	cli_json_string(j, "avatar", job->spec->target);
	cli_json_string(j, "output", job->spec->output);
	cli_json_string(j, "status", cli_batch_status(job));
	cli_json_bool(j, "ran", job->ran);
	cli_json_bool(j, "ok", job->up_to_date || (job->ran && !job->failures.count));
	cli_json_bool(j, "written", job->written);
	if (job->has_digest) cli_json_string(j, "digest", job->digest);
	if (job->up_to_date && job->previous) rk_json_raw(&j->w, "previous", job->previous, strlen(job->previous));
	if (job->ran) {
		cli_batch_job_stats st = cli_batch_stats(b, job);
		cli_json_int(j, "clips_ok", (long long)job->ok_clips);
		cli_json_int(j, "mapped_bones_min", (long long)st.bones_min);
		cli_json_int(j, "mapped_bones_max", (long long)st.bones_max);
		cli_json_int(j, "frames", (long long)st.frames);
		cli_json_number(j, "max_direction_error_deg", st.worst * CLI_BATCH_RAD_TO_DEG);
		if (timings) cli_json_number(j, "ms", job->seconds * 1000.0);
		if (job->written && job->bytes) { /* --compress */
			cli_json_object(j, "compression");
			cli_json_string(j, "mode", "meshopt");
			cli_json_int(j, "bytes", (long long)job->bytes);
			cli_json_int(j, "uncompressed_bytes", (long long)job->plain_bytes);
			if (job->plain_bytes) cli_json_number(j, "ratio", (double)job->bytes / (double)job->plain_bytes);
			cli_json_close_object(j);
		}
	}
	cli_json_array(j, "clips");
	for (size_t c = 0; c < job->clip_count; c++) {
		const cli_batch_clip *bc = &b->clips[job->clip_begin + c];
		const cli_batch_clip_result *r = job->results ? &job->results[c] : NULL;
		cli_json_object(j, NULL);
		cli_json_string(j, "name", r && r->renamed ? r->renamed : bc->name);
		cli_json_string(j, "motion", b->motions[bc->motion].file->path);
		cli_json_string(j, "source_clip", bc->clip->name ? bc->clip->name : "");
		cli_json_bool(j, "ok", r && r->ok);
		if (r && r->ok) {
			cli_json_int(j, "mapped_bones", (long long)r->report.mapped_bones);
			cli_json_int(j, "frames", (long long)r->report.frames);
			cli_json_int(j, "tracks", (long long)r->report.tracks);
			cli_json_number(j, "source_hips_height", r->report.source_hips_height);
			cli_json_number(j, "target_hips_height", r->report.target_hips_height);
			cli_json_number(j, "max_direction_error_deg", r->report.max_direction_error * CLI_BATCH_RAD_TO_DEG);
			cli_json_string(j, "source_rest", rk_rest_mode_name(r->report.source_rest));
			cli_json_string(j, "target_rest", rk_rest_mode_name(r->report.target_rest));
			if (job->spec->opts.foot_ik) cli_json_number(j, "max_foot_miss", r->report.max_foot_miss);
		}
		cli_json_close_object(j);
	}
	cli_json_close_array(j);
	cli_json_array(j, "failures");
	for (size_t k = 0; k < job->failures.count; k++) cli_batch_json_failure(j, &job->failures.data[k]);
	cli_json_close_array(j);
	cli_json_close_object(j);
}

/* The report document (--json on stdout, --report FILE). */
static void cli_batch_json_report(cli_json *j, const cli_batch *b, double wall, int exit_code)
{
	cli_json_object(j, NULL);
	cli_json_string(j, "report", "rigkit batch");
	cli_json_string(j, "version", rk_version());
	cli_json_string(j, "manifest", b->manifest);
	cli_json_string(j, "out", b->out_dir);
	if (b->sharded) {
		cli_json_object(j, "shard");
		cli_json_int(j, "index", (long long)b->shard);
		cli_json_int(j, "count", (long long)b->shards);
		cli_json_close_object(j);
	} else {
		cli_json_null(j, "shard");
	}
	cli_json_int(j, "jobs_total", (long long)b->specs.count);
	cli_json_string(j, "jobs_digest", b->jobs_digest);
	cli_json_bool(j, "resume", b->resume);
	cli_json_int(j, "threads", (long long)b->threads);
	cli_json_bool(j, "per_clip", b->per_clip);
	cli_json_string(j, "root", cli_retarget_root_name(b->defaults.root));
	cli_json_number(j, "fps", b->defaults.fps);
	cli_json_bool(j, "skip_fingers", b->defaults.skip_fingers);
	cli_json_bool(j, "foot_ik", b->defaults.foot_ik);
	cli_json_string(j, "rest", rk_rest_mode_name(b->defaults.rest));
	cli_json_bool(j, "keep_going", b->keep_going);

	cli_json_array(j, "motions");
	for (size_t i = 0; i < b->motion_files.count; i++) {
		const cli_batch_motion *m = &b->motions[i];
		cli_json_object(j, NULL);
		cli_json_string(j, "file", m->file->path);
		cli_json_bool(j, "ran", m->ran);
		cli_json_bool(j, "ok", m->scene != NULL);
		if (!b->manifest) {
			cli_json_array(j, "clips");
			for (size_t c = 0; c < b->def_count; c++) {
				if (b->defs[c].motion != i) continue;
				const rk_anim_clip *clip = &m->scene->clips.data[b->defs[c].index];
				cli_json_object(j, NULL);
				cli_json_string(j, "name", b->defs[c].name);
				cli_json_string(j, "source_clip", clip->name ? clip->name : "");
				cli_json_number(j, "duration", clip->time_end - clip->time_begin);
				cli_json_close_object(j);
			}
			cli_json_close_array(j);
		}
		cli_json_number(j, "load_ms", m->seconds * 1000.0);
		cli_json_close_object(j);
	}
	cli_json_close_array(j);

	cli_json_array(j, "outputs");
	for (size_t k = 0; k < b->job_count; k++) cli_batch_json_job(j, b, &b->jobs[k], true, NULL);
	cli_json_close_array(j);

	/* every failure once: the motions', then the jobs' in job order */
	cli_json_array(j, "failures");
	for (size_t i = 0; i < b->motion_files.count; i++)
		for (size_t k = 0; k < b->motions[i].failures.count; k++) cli_batch_json_failure(j, &b->motions[i].failures.data[k]);
	for (size_t k = 0; k < b->job_count; k++)
		for (size_t f = 0; f < b->jobs[k].failures.count; f++) {
			const cli_batch_failure *x = &b->jobs[k].failures.data[f];
			if (!x->copy && !x->repeat) cli_batch_json_failure(j, x);
		}
	cli_json_close_array(j);

	cli_json_object(j, "summary");
	cli_json_int(j, "motions", (long long)b->motion_files.count);
	cli_json_int(j, "motions_failed", (long long)b->motions_failed);
	cli_json_int(j, "motions_not_run", (long long)b->motions_not_run);
	cli_json_int(j, "clips", (long long)(b->manifest ? b->clip_count : b->def_count));
	cli_json_int(j, "avatars", (long long)b->avatar_files.count);
	cli_json_int(j, "jobs", (long long)b->job_count);
	cli_json_int(j, "jobs_failed", (long long)b->jobs_failed);
	cli_json_int(j, "jobs_not_run", (long long)b->jobs_not_run);
	cli_json_int(j, "jobs_up_to_date", (long long)b->jobs_up_to_date);
	cli_json_int(j, "outputs_written", (long long)b->outputs_written);
	cli_json_int(j, "clips_retargeted", (long long)b->clips_done);
	cli_json_number(j, "wall_s", wall);
	cli_json_number(j, "files_per_s", wall > 0.0 ? (double)b->outputs_written / wall : 0.0);
	cli_json_number(j, "clips_per_s", wall > 0.0 ? (double)b->clips_done / wall : 0.0);
	cli_json_int(j, "exit_code", exit_code);
	cli_json_close_object(j);
	cli_json_close_object(j);
}

/* --report FILE (atomically) and --json (stdout). Returns an exit code. */
static int cli_batch_write_reports(cli_batch *b, double wall, int rc)
{
	int out = CLI_EXIT_OK;
	if (b->report_path) {
		cli_json j;
		cli_json_document(&j, b->ctx);
		cli_batch_json_report(&j, b, wall, rc);
		rk_error err;
		if (!cli_batch_json_save(&j, b->report_path, &err)) out = cli_print_error(b->ctx, &err);
		rk_json_writer_free(&j.w);
	}
	if (b->json) {
		cli_json j;
		cli_json_document(&j, b->ctx);
		cli_batch_json_report(&j, b, wall, rc > out ? rc : out);
		int jrc = cli_json_end(&j);
		if (jrc > out) out = jrc;
	}
	return out;
}

/* ---- the command ------------------------------------------------------------------ */

typedef struct cli_batch_shard_arg {
	size_t index, count;
} cli_batch_shard_arg;

static bool cli_batch_parse_shard_arg(const char *value, void *target)
{
	cli_batch_shard_arg *s = (cli_batch_shard_arg *)target;
	return cli_batch_parse_shard(value, &s->index, &s->count);
}

typedef struct cli_batch_args {
	cli_list motions, avatars, merge;
	bool has_motions, has_avatars, has_merge, has_shard;
	const char *out, *manifest, *report, *output;
	long threads;
	cli_batch_shard_arg shard;
	bool per_clip, keep_going, drop_avatar_clips, plan, resume;
	int format;                      /* --format: CLI_FORMAT_GLB (default) or CLI_FORMAT_FBX */
} cli_batch_args;

static const cli_enum_name cli_batch_formats[] = { { "glb", CLI_FORMAT_GLB }, { "fbx", CLI_FORMAT_FBX }, { NULL, 0 } };

static const cli_opt cli_batch_rows[] = {
	{ .name = "--motions", .kind = CLI_OPT_PATHS, .offset = offsetof(cli_batch_args, motions),
		.seen = CLI_SEEN(cli_batch_args, has_motions), .metavar = "PATH",
		.help = "motion files or directories (repeatable)" },
	{ .name = "--avatars", .kind = CLI_OPT_PATHS, .offset = offsetof(cli_batch_args, avatars),
		.seen = CLI_SEEN(cli_batch_args, has_avatars), .metavar = "PATH",
		.help = "avatar files or directories (repeatable)" },
	{ .name = "--out", .kind = CLI_OPT_STRING, .offset = offsetof(cli_batch_args, out), .metavar = "DIR",
		.help = "output directory (created if missing)" },
	{ .name = "--manifest", .kind = CLI_OPT_STRING, .offset = offsetof(cli_batch_args, manifest), .metavar = "FILE",
		.help = "run the jobs of FILE (JSON Lines: one job per line,\npaths relative to FILE's folder) instead of "
			"--motions,\n--avatars, --out" },
	{ .name = "--plan", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_batch_args, plan),
		.help = "write the manifest of the folder form's jobs (to -o FILE\nor stdout) instead of running them" },
	{ .name = "--output", .alias = "-o", .kind = CLI_OPT_STRING, .offset = offsetof(cli_batch_args, output),
		.metavar = "FILE", .help = "where --plan writes the manifest and --merge-reports\nthe summary (default: stdout)" },
	{ .name = "--shard", .kind = CLI_OPT_CUSTOM, .offset = offsetof(cli_batch_args, shard),
		.seen = CLI_SEEN(cli_batch_args, has_shard), .parse = cli_batch_parse_shard_arg,
		.expects = "K/N with 0 <= K < N <= 1000000", .metavar = "K/N",
		.help = "run shard K of N (K from 0): the jobs whose id hashes\nto K; N processes together run every job once" },
	{ .name = "--resume", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_batch_args, resume),
		.help = "skip jobs whose output and sidecar OUT.rigkit.json\nrecord the same input digest; write sidecars" },
	{ .name = "--report", .kind = CLI_OPT_STRING, .offset = offsetof(cli_batch_args, report), .metavar = "FILE",
		.help = "also write the --json report to FILE (atomically)" },
	{ .name = "--merge-reports", .kind = CLI_OPT_PATHS, .offset = offsetof(cli_batch_args, merge),
		.seen = CLI_SEEN(cli_batch_args, has_merge), .metavar = "REPORT",
		.help = "merge the --report files of shards into one summary\n(counts, failures, timings, quality; "
			"duplicate and\nmissing jobs); runs nothing" },
	{ .name = "--threads", .kind = CLI_OPT_INT, .offset = offsetof(cli_batch_args, threads), .min = 1,
		.max = CLI_BATCH_MAX_THREADS, .metavar = "N", .help = "worker threads, the main one included; more than\n64 run as 64 (default: the CPUs this process can use)" },
	{ .name = "--per-clip", .kind = CLI_OPT_FLAG, .offset = offsetof(cli_batch_args, per_clip),
		.help = "one output per avatar and clip instead:\nDIR/<avatar>__<motion>[__<clip>].glb" },
	{ .name = "--format", .kind = CLI_OPT_ENUM, .offset = offsetof(cli_batch_args, format), .names = cli_batch_formats,
		.metavar = "FMT", .help = "glb (default) or fbx: the folder form's outputs\n(DIR/<avatar>.glb or .fbx; --fbx-ascii for ASCII FBX)" },
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
		"       rigkit batch --manifest FILE [--shard K/N] [--resume] [--report FILE] [options]\n"
		"       rigkit batch --plan --motions PATH... --avatars PATH... --out DIR [-o FILE]\n"
		"       rigkit batch --merge-reports REPORT... [-o FILE]\n"
		"\n"
		"Retargets the clips of every motion file onto every avatar (any humanoid to\n"
		"any humanoid, as `rigkit retarget`) on a pool of worker threads. PATH is a\n"
		"file or a directory (its *.fbx, *.glb, *.gltf, *.vrm, *.vrma and *.bvh files,\n"
		"sorted by name, not recursive). Each motion file is loaded once and shared\n"
		"by all workers.\n"
		"\n"
		"Writes DIR/<avatar>.glb per avatar: the avatar with every retargeted clip,\n"
		"named <motion> (a file with one animated clip) or <motion>/<clip>, in the\n"
		"order of the motion files, then of their clips (<avatar>, <motion>: file\n"
		"names without the extension). The bytes written do not depend on --threads\n"
		"or --shard. A manifest lists the jobs one per line (docs/batch.md):\n"
		"  {\"output\": \"out/a.glb\", \"target\": \"a.glb\", \"source\": \"walk.fbx\", \"clip\": \"Walk\"}\n"
		"\n",
	.footer = "Files that fail to load or are not humanoids are reported on stderr\n"
		"('rigkit: FILE: error') and skipped. Progress goes to stderr (a live line on\n"
		"a terminal, else a line per tenth; none with -q). --json prints the report\n"
		"(also when some input failed). Exit codes: 0 all done, 1 usage, 2 some input\n"
		"failed, 3 an output could not be written.\n",
	.operands = "no operand", .min_operands = 0, .max_operands = 0,
	.tables = { &cli_batch_table, &cli_retarget_table, &cli_gltf_out_table, &cli_load_table },
};

/* Parses the arguments into b (and a, for --merge-reports). 0 or
 * CLI_EXIT_USAGE / CLI_EXIT_INPUT after printing the error. */
static int cli_batch_parse(cli_batch *b, cli_batch_args *a, int argc, char **argv)
{
	cli_ctx *ctx = b->ctx;
	memset(a, 0, sizeof(*a));
	cli_retarget_args ra;
	memset(&ra, 0, sizeof(ra));
	cli_operands ops;
	int rc = cli_opts_parse(ctx, &cli_batch_spec, (void *const[]){ a, &ra, &b->gltf_out, &b->lo }, argc, argv, &ops);
	if (rc) return rc;
	cli_retarget_args_apply(&ra);
	if ((rc = cli_gltf_out_check(ctx, &b->gltf_out, true))) return rc;
	b->defaults.root = ra.ro.root;
	b->defaults.fps = ra.ro.fps;
	b->defaults.skip_fingers = ra.ro.skip_fingers;
	b->defaults.foot_ik = ra.ro.foot_ik;
	b->defaults.rest = ra.ro.rest;
	b->defaults.twist = ra.ro.twist;
	b->defaults.contacts = ra.ro.contacts;
	b->defaults.hand_contacts = ra.ro.hand_contacts;
	b->twist_weight_store = ra.twist_weights;
	for (size_t i = 0; i < b->twist_weight_store.count; i++)
		b->twist_weight_store.items[i].node = b->twist_weight_store.names[i];
	b->twist_weights = b->twist_weight_store.count ? b->twist_weight_store.items : NULL;
	b->twist_weight_count = b->twist_weight_store.count;
	b->max_frames = ra.ro.max_frames;
	b->defaults.drop_avatar_clips = a->drop_avatar_clips;
	b->clip_names = ra.clips.items;
	b->clip_name_count = ra.clips.count;
	b->json = ctx->json;
	b->per_clip = a->per_clip;
	b->out_format = a->format ? a->format : CLI_FORMAT_GLB;
	b->keep_going = a->keep_going;
	b->resume = a->resume;
	b->plan = a->plan;
	b->manifest = a->manifest;
	b->report_path = a->report;
	b->output = a->output;
	b->sharded = a->has_shard;
	b->shard = a->shard.index;
	b->shards = a->shard.count;
	b->threads = (size_t)a->threads;
	bool folder = a->has_motions || a->has_avatars || a->out;
	if (a->has_merge) {
		if (folder || a->manifest || a->plan || a->has_shard || a->resume || a->report || a->per_clip || ra.clips.count)
			return cli_usage(ctx, "--merge-reports takes report files, -o FILE and --json only");
		if (a->output && cli_is_stdio(a->output) && ctx->json)
			return cli_usage(ctx, "--json and -o - would both write stdout");
		return CLI_EXIT_OK;
	}
	if (a->output && !a->plan) return cli_usage(ctx, "-o is for --plan and --merge-reports (see rigkit batch --help)");
	if (a->manifest) {
		if (folder || a->per_clip || ra.clips.count)
			return cli_usage(ctx, "--manifest replaces --motions, --avatars, --out, --per-clip and --clip");
		if (a->plan) return cli_usage(ctx, "--plan writes a manifest from --motions, --avatars and --out");
		if (!a->manifest[0]) return cli_usage(ctx, "--manifest needs a file");
	} else {
		if (!a->has_motions || !a->has_avatars || !a->out)
			return cli_usage(ctx, "--motions, --avatars and --out are required (see rigkit batch --help)");
		if (!a->out[0]) return cli_usage(ctx, "--out needs a directory");
	}
	if (a->plan) {
		if (a->resume || a->report) return cli_usage(ctx, "--plan runs no job: no --resume or --report");
		if (ctx->json && (!a->output || cli_is_stdio(a->output)))
			return cli_usage(ctx, "--json and the manifest would both write stdout: give -o FILE");
	}
	if (a->report && !a->report[0]) return cli_usage(ctx, "--report needs a file");
	if (a->manifest) {
		/* jobs come from the manifest (read after the usage checks) */
	} else {
		b->out_dir = a->out;
		for (size_t i = 0; i < a->motions.count; i++)
			if ((rc = cli_batch_expand(ctx, a->motions.items[i], &b->motion_files))) return rc;
		for (size_t i = 0; i < a->avatars.count; i++)
			if ((rc = cli_batch_expand(ctx, a->avatars.items[i], &b->avatar_files))) return rc;
		if (!b->motion_files.count || !b->avatar_files.count)
			return cli_usage(ctx, "no %s files found (directories give their *.fbx, *.glb, *.gltf, *.vrm, *.vrma, *.bvh)",
				b->motion_files.count ? "avatar" : "motion");
		/* one order whatever the order of the arguments: by name (then path) */
		qsort(b->motion_files.data, b->motion_files.count, sizeof(cli_batch_file), cli_batch_file_cmp);
		qsort(b->avatar_files.data, b->avatar_files.count, sizeof(cli_batch_file), cli_batch_file_cmp);
		if (!cli_batch_bases_unique(ctx, &b->motion_files, "motion") ||
			!cli_batch_bases_unique(ctx, &b->avatar_files, "avatar"))
			return CLI_EXIT_USAGE;
	}
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
		free(job->previous);
		cli_batch_failures_free(&job->failures);
	}
	free(b->jobs);
	for (size_t c = 0; c < b->clip_count; c++) free(b->clips[c].name);
	free(b->clips);
	for (size_t c = 0; c < b->def_count; c++) {
		free(b->defs[c].name);
		free(b->defs[c].tag);
	}
	free(b->defs);
	if (b->motions)
		for (size_t i = 0; i < b->motion_files.count; i++) {
			rk_scene_free(b->motions[i].scene);
			free(b->motions[i].picks);
			cli_batch_failures_free(&b->motions[i].failures);
		}
	free(b->motions);
	free(b->motion_order);
	free(b->avatar_order);
	free(b->avatar_reported);
	cli_batch_specs_free(&b->specs);
	cli_batch_files_free(&b->motion_files);
	cli_batch_files_free(&b->avatar_files);
}

static void cli_batch_print_summary(const cli_batch *b, double wall)
{
	if (b->manifest) {
		printf("batch: %s: %zu job%s", b->manifest, b->specs.count, b->specs.count == 1 ? "" : "s");
		if (b->sharded) printf(", shard %zu/%zu: %zu job%s", b->shard, b->shards, b->job_count, b->job_count == 1 ? "" : "s");
		printf(", %zu written, %zu up to date, %zu failed", b->outputs_written, b->jobs_up_to_date, b->jobs_failed);
		if (b->jobs_not_run) printf(", %zu not run", b->jobs_not_run);
		if (b->stopped) printf(", stopped after a motion failed (see --keep-going)");
	} else {
		size_t loaded = b->motion_files.count - b->motions_failed - b->motions_not_run;
		printf("batch: %zu of %zu motion%s (%zu clip%s) x %zu avatar%s: %zu job%s, %zu written, %zu failed", loaded,
			b->motion_files.count, b->motion_files.count == 1 ? "" : "s", b->def_count, b->def_count == 1 ? "" : "s",
			b->avatar_files.count, b->avatar_files.count == 1 ? "" : "s", b->job_count, b->job_count == 1 ? "" : "s",
			b->outputs_written, b->jobs_failed);
		if (b->jobs_up_to_date) printf(", %zu up to date", b->jobs_up_to_date);
		if (b->jobs_not_run) printf(", %zu not run", b->jobs_not_run);
		if (b->sharded) printf(" (shard %zu/%zu of %zu jobs)", b->shard, b->shards, b->specs.count);
		if (b->stopped) printf(", stopped after a motion failed (see --keep-going)");
	}
	printf("; %.3f s wall, %.1f files/s, %.1f clips/s, %zu thread%s\n", wall,
		wall > 0.0 ? (double)b->outputs_written / wall : 0.0, wall > 0.0 ? (double)b->clips_done / wall : 0.0,
		b->threads, b->threads == 1 ? "" : "s");
}

static int cli_batch_main(cli_batch *b)
{
	cli_ctx *ctx = b->ctx;
	int rc = CLI_EXIT_OK;
	if (b->manifest) {
		if ((rc = cli_batch_manifest_read(ctx, b->manifest, &b->defaults, &b->specs))) return rc;
	} else if (!b->plan && !cli_batch_make_dir(b->out_dir)) {
		return cli_fail(ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, b->out_dir, "cannot create the output directory (%s)",
			strerror(errno));
	}
	if (b->report_path && !cli_batch_make_parent(b->report_path))
		return cli_fail(ctx, RK_ERROR_OUTPUT, CLI_EXIT_OUTPUT, b->report_path, "cannot create the report's folder (%s)",
			strerror(errno));
	double t0 = cli_batch_now();
	if (!b->manifest) {
		/* the folder form: its jobs need the motions' clips */
		cli_batch_load_motions(b);
		cli_batch_collect_defs(b);
		if (!b->stopped) cli_batch_folder_specs(b);
	}
	cli_batch_digest_ids(b);
	for (size_t i = 0; i < b->motion_files.count; i++) {
		int e = cli_batch_failures_exit(&b->motions[i].failures);
		if (e > rc) rc = e;
	}
	if (b->plan) return b->stopped ? rc : cli_batch_write_plan(b, rc);
	cli_batch_select_jobs(b);
	cli_batch_remove_temps(b);
	if (b->resume) cli_batch_resume(b);
	if (b->manifest) {
		cli_batch_manifest_motions(b);
		cli_batch_load_motions(b);
		for (size_t i = 0; i < b->motion_files.count; i++) {
			int e = cli_batch_failures_exit(&b->motions[i].failures);
			if (e > rc) rc = e;
		}
	}
	b->progress.on = !ctx->quiet;
	b->progress.tty = isatty(STDERR_FILENO) != 0;
	b->progress.total = b->job_count;
	b->progress.t0 = cli_batch_now();
	if (b->stopped) {
		b->jobs_not_run = b->job_count;
		for (size_t j = 0; j < b->job_count; j++) b->jobs[j].clip_begin = 0;
	} else {
		cli_batch_resolve(b);
		cli_batch_pool_run(b, b->job_count, b->threads, cli_batch_run_job, cli_batch_job_failed, cli_batch_report_job);
	}
	cli_batch_progress_clear(&b->progress);
	double wall = cli_batch_now() - t0;
	for (size_t j = 0; j < b->job_count; j++) {
		int e = cli_batch_failures_exit(&b->jobs[j].failures);
		if (e > rc) rc = e;
	}
	int orc = cli_batch_write_reports(b, wall, rc);
	if (!b->json) cli_batch_print_summary(b, wall);
	return orc > rc ? orc : rc;
}

int cli_cmd_batch(cli_ctx *ctx, int argc, char **argv)
{
	cli_batch b;
	memset(&b, 0, sizeof(b));
	b.ctx = ctx;
	cli_batch_args a;
	int rc = cli_batch_parse(&b, &a, argc, argv);
	if (!rc && a.has_merge) rc = cli_batch_merge(ctx, a.merge.items, a.merge.count, a.output);
	else if (!rc) rc = cli_batch_main(&b);
	cli_batch_free(&b);
	return rc;
}
