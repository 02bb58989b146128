/*
 * src/formats/fbx/fbx_dom_arrays.c - decoding binary FBX arrays: one array (raw or
 * zlib via libdeflate, byte order), and many at once on helper threads
 * (rki_fbx_decode_start/finish/arrays, and rki_fbx_decode_prescan straight
 * from the input while the tree is still being parsed).
 *
 * Arrays are decoded by rki_fbx_decode_array() into a buffer allocated
 * beforehand: at parse time (eager), on first access (lazy: the property keeps
 * its offset and encoded size, the input stays with the document), or by
 * worker threads, which only inflate into buffers the calling thread
 * allocated and touch nothing shared.
 */
#include "formats/fbx/fbx_dom_private.h"

#include "rigkit/tasks.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rki_fbx_decode_arrays(): each helper thread should get at least this many decoded bytes. */
#define RKI_FBX_THREAD_MIN_BYTES ((uint64_t)256 << 10)

/* ---- array decoding (parse time, first access and worker threads) ------------- */

static void rki_fbx_swap_elems(void *data, size_t count, size_t esize)
{
	unsigned char *b = (unsigned char *)data;
	for (size_t i = 0; i < count; i++, b += esize) {
		for (size_t j = 0; j < esize / 2; j++) {
			unsigned char t = b[j];
			b[j] = b[esize - 1 - j];
			b[esize - 1 - j] = t;
		}
	}
}

/* Bytes to allocate for a decoded array of `bytes` bytes: f64 arrays carry the zero pad. */
bool rki_fbx_array_alloc_size(char type, uint64_t bytes, size_t *out)
{
	uint64_t pad = type == 'd' ? RKI_FBX_ARRAY_PAD : 0;
	if (bytes > (uint64_t)SIZE_MAX - pad) return false;
	*out = (size_t)(bytes + pad);
	return true;
}

/* Decodes an array's encoded data src[0..clen) (raw when inflater is NULL) into
 * out[0..bytes), clears out[bytes..alloc) and converts the byte order when
 * `swap`. Touches nothing but its arguments: safe on worker threads. */
rki_fbx_decode_result rki_fbx_decode_array(struct libdeflate_decompressor *inflater,
	const unsigned char *src, size_t clen, void *out, size_t bytes, size_t alloc, size_t esize, bool swap,
	size_t *got, int *lib_result)
{
	*got = 0;
	*lib_result = 0;
	if (!inflater) {
		memcpy(out, src, bytes);   /* raw: clen == bytes, checked when parsing */
	} else {
		enum libdeflate_result r = libdeflate_zlib_decompress(inflater, src, clen, out, bytes, got);
		*lib_result = (int)r;
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return RKI_FBX_DECODE_TOO_BIG;
		if (r != LIBDEFLATE_SUCCESS) return RKI_FBX_DECODE_INVALID;
		if (*got != bytes) return RKI_FBX_DECODE_SHORT;
	}
	if (alloc > bytes) memset((unsigned char *)out + bytes, 0, alloc - bytes);
	if (swap && esize > 1) rki_fbx_swap_elems(out, bytes / esize, esize);
	return RKI_FBX_DECODE_OK;
}

/* The message of a failed rki_fbx_decode_array(), the same at parse time and on access. */
void rki_fbx_decode_message(char *buf, size_t cap, rki_fbx_decode_result r, int lib_result, size_t got,
	size_t count, size_t esize)
{
	unsigned long long bytes = (unsigned long long)count * esize;
	switch (r) {
	case RKI_FBX_DECODE_TOO_BIG:
		snprintf(buf, cap, "zlib array inflates to more than the declared %zu elements (%llu bytes)", count, bytes);
		break;
	case RKI_FBX_DECODE_INVALID:
		snprintf(buf, cap, "invalid zlib data in array of %zu elements (libdeflate result %d)", count, lib_result);
		break;
	default:
		snprintf(buf, cap, "zlib array inflates to %zu bytes, expected %zu elements * %zu bytes = %llu", got, count,
			esize, bytes);
		break;
	}
}

/* ---- decoding many pending arrays on several threads ---------------------------------- */

/* Job states. A job is claimed (QUEUED -> RUNNING) by exactly one thread with a
 * compare-and-swap: a helper taking the next job in size order, or the calling
 * thread taking any job, in particular one an accessor is waiting for. */
enum { RKI_FBX_JOB_QUEUED, RKI_FBX_JOB_RUNNING, RKI_FBX_JOB_OK, RKI_FBX_JOB_FAILED };

/* Everything a worker needs, read from the input: workers never touch the
 * document (only the calling thread reads and writes properties and the arena).
 * Jobs are identified by the byte offset of their property (its type code). */
typedef struct rki_fbx_decode_job {
	uint64_t offset;
	rki_fbx_prop *prop;  /* set by the calling thread once the property exists */
	const unsigned char *src;
	size_t clen;
	void *out;          /* NULL: no memory, the array stays pending */
	size_t bytes, alloc, esize;
	char type;
	bool zlib;
	bool published;
	atomic_int state;
} rki_fbx_decode_job;

typedef struct rki_fbx_decode_worker {
	struct libdeflate_decompressor *inflater;
} rki_fbx_decode_worker;

struct rki_fbx_decode_batch {
	rki_alloc *tmp;
	rki_fbx_doc *doc;           /* NULL until a parse attaches the batch */
	rki_buf jobs;               /* rki_fbx_decode_job by increasing offset */
	rki_buf order;              /* size_t job indices, largest first: the helpers' queue */
	size_t count;
	atomic_size_t next;         /* next position in order */
	bool swap;
	bool sync;                  /* mutex and cond initialised */
	pthread_mutex_t mutex;      /* with cond: waiting for a job another thread runs */
	pthread_cond_t cond;
	rki_fbx_decode_worker workers[RKI_FBX_MAX_THREADS];
	size_t worker_count;        /* workers[0] is the calling thread's */
	size_t started;             /* helper threads running: workers[1..started) */
	rk_task_team team;          /* the helpers (rigkit/tasks.h) */
};

static rki_fbx_decode_job *rki_fbx_job(rki_fbx_decode_batch *b, size_t k)
{
	return (rki_fbx_decode_job *)(void *)b->jobs.data + k;
}

/* Runs a job this thread has claimed and wakes whoever waits for it. */
static void rki_fbx_job_run(rki_fbx_decode_batch *b, rki_fbx_decode_job *job, struct libdeflate_decompressor *inflater)
{
	size_t got;
	int lib_result;
	bool ok = job->out && (!job->zlib || inflater) &&
		rki_fbx_decode_array(job->zlib ? inflater : NULL, job->src, job->clen, job->out, job->bytes, job->alloc,
			job->esize, b->swap, &got, &lib_result) == RKI_FBX_DECODE_OK;
	if (b->sync) pthread_mutex_lock(&b->mutex);
	atomic_store_explicit(&job->state, ok ? RKI_FBX_JOB_OK : RKI_FBX_JOB_FAILED, memory_order_release);
	if (b->sync) {
		pthread_cond_broadcast(&b->cond);
		pthread_mutex_unlock(&b->mutex);
	}
}

static bool rki_fbx_job_claim(rki_fbx_decode_job *job)
{
	int expected = RKI_FBX_JOB_QUEUED;
	return atomic_compare_exchange_strong_explicit(&job->state, &expected, RKI_FBX_JOB_RUNNING,
		memory_order_acquire, memory_order_relaxed);
}

/* Claims and runs the next queued job in size order; false when none is left. */
static bool rki_fbx_job_run_next(rki_fbx_decode_batch *b, struct libdeflate_decompressor *inflater)
{
	const size_t *order = (const size_t *)(const void *)b->order.data;
	for (;;) {
		size_t k = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
		if (k >= b->count) return false;
		rki_fbx_decode_job *job = rki_fbx_job(b, order[k]);
		if (!rki_fbx_job_claim(job)) continue;   /* the calling thread took it out of turn */
		rki_fbx_job_run(b, job, inflater);
		return true;
	}
}

/* A helper of the team: worker k (1..) uses workers[k]'s decompressor. */
static void rki_fbx_decode_helper(void *user, size_t worker)
{
	rki_fbx_decode_batch *b = (rki_fbx_decode_batch *)user;
	while (rki_fbx_job_run_next(b, b->workers[worker].inflater)) {}
}

/* Calling thread: makes the job finished (running it, or helping with other
 * jobs and then waiting while a helper runs it) and publishes a success into
 * its property. True when the array is decoded. */
static bool rki_fbx_job_complete(rki_fbx_decode_batch *b, rki_fbx_decode_job *job)
{
	struct libdeflate_decompressor *inflater = b->worker_count ? b->workers[0].inflater : NULL;
	if (rki_fbx_job_claim(job)) rki_fbx_job_run(b, job, inflater);
	while (atomic_load_explicit(&job->state, memory_order_acquire) == RKI_FBX_JOB_RUNNING) {
		if (rki_fbx_job_run_next(b, inflater)) continue;
		pthread_mutex_lock(&b->mutex);   /* RUNNING here means a helper has it: sync is set */
		while (atomic_load_explicit(&job->state, memory_order_acquire) == RKI_FBX_JOB_RUNNING)
			pthread_cond_wait(&b->cond, &b->mutex);
		pthread_mutex_unlock(&b->mutex);
	}
	if (atomic_load_explicit(&job->state, memory_order_acquire) != RKI_FBX_JOB_OK || !job->prop) return false;
	if (!job->published) {
		job->prop->v.a.data = job->out;
		job->prop->pending = 0;
		job->published = true;
	}
	return true;
}

/* The job of the property at byte `offset`, or NULL. */
static rki_fbx_decode_job *rki_fbx_batch_find(rki_fbx_decode_batch *b, uint64_t offset)
{
	size_t lo = 0, hi = b->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		rki_fbx_decode_job *job = rki_fbx_job(b, mid);
		if (job->offset == offset) return job;
		if (job->offset < offset) lo = mid + 1;
		else hi = mid;
	}
	return NULL;
}

/* Parser hook: a pending array property just read; ties it to its job when the
 * job describes the same array (it was read from the same bytes). */
void rki_fbx_batch_link(rki_fbx_decode_batch *b, rki_fbx_prop *pr)
{
	rki_fbx_decode_job *job = rki_fbx_batch_find(b, pr->offset);
	if (job && !job->prop && job->type == pr->type && job->bytes == pr->v.a.count * job->esize &&
		job->clen == pr->encoded_size && job->zlib == (pr->pending == 2))
		job->prop = pr;
}

/* Parse hook: the document serves its pending arrays from the batch from now on. */
void rki_fbx_batch_attach(rki_fbx_decode_batch *b, rki_fbx_doc *doc)
{
	if (b->doc || doc->batch_) return;
	b->doc = doc;
	doc->batch_ = b;
}

/* Accessor hook: a pending property of the document's batch is waited for
 * instead of decoded again. False when it is not in the batch or its job
 * failed (then the caller decodes it, reporting the error). */
bool rki_fbx_batch_take(rki_fbx_doc *doc, const rki_fbx_prop *pr)
{
	rki_fbx_decode_batch *b = doc->batch_;
	if (!b) return false;
	rki_fbx_decode_job *job = rki_fbx_batch_find(b, pr->offset);
	return job && job->prop == pr && rki_fbx_job_complete(b, job);
}

/* Node names a batch decodes, with their lengths (the first RKI_FBX_FILTER_LENS;
 * further names are measured when compared). len_mask has bit n set when a
 * listed name has length n < 64. */
#define RKI_FBX_FILTER_LENS 32u
typedef struct rki_fbx_name_filter {
	const char *const *names;   /* NULL: every node */
	size_t count;
	size_t lens[RKI_FBX_FILTER_LENS];
	uint64_t len_mask;
	bool long_names;            /* a listed name is 64 bytes or longer */
} rki_fbx_name_filter;

static void rki_fbx_filter_init(rki_fbx_name_filter *f, const char *const *names, size_t name_count)
{
	memset(f, 0, sizeof(*f));
	f->names = names;
	f->count = name_count;
	for (size_t k = 0; names && k < name_count; k++) {
		size_t len = names[k] ? strlen(names[k]) : 0;
		if (k < RKI_FBX_FILTER_LENS) f->lens[k] = len;
		if (len < 64) f->len_mask |= (uint64_t)1 << len;
		else f->long_names = true;
	}
}

static bool rki_fbx_name_listed(const rki_fbx_name_filter *f, const char *name, size_t name_len)
{
	if (!f->names) return true;
	if (name_len < 64 ? !(f->len_mask >> name_len & 1) : !f->long_names) return false;
	for (size_t k = 0; k < f->count; k++) {
		const char *listed = f->names[k];
		if (!listed || (name_len && listed[0] != name[0])) continue;
		size_t len = k < RKI_FBX_FILTER_LENS ? f->lens[k] : strlen(listed);
		if (len == name_len && memcmp(listed, name, len) == 0) return true;
	}
	return false;
}

/* Appends a job for every pending array below n (depth levels at most). Recursion depth <= max_depth. */
static bool rki_fbx_collect_pending(rki_buf *jobs, const rki_fbx_doc *doc, const rki_fbx_node *n,
	const rki_fbx_name_filter *f, size_t depth)
{
	for (size_t c = 0; c < n->child_count; c++) {
		const rki_fbx_node *ch = &n->children[c];
		if (ch->prop_count && rki_fbx_name_listed(f, ch->name, ch->name_len)) {
			for (size_t i = 0; i < ch->prop_count; i++) {
				rki_fbx_prop *pr = (rki_fbx_prop *)(uintptr_t)&ch->props[i];
				if (!pr->pending) continue;
				uint64_t at = pr->offset + 1 + RKI_FBX_ARRAY_HEADER;
				if (at > doc->input_size_ || pr->encoded_size > doc->input_size_ - at) continue;
				rki_fbx_decode_job job;
				memset(&job, 0, sizeof(job));
				job.offset = pr->offset;
				job.prop = pr;
				job.type = pr->type;
				job.esize = rki_fbx_array_elem_size(pr->type);
				job.bytes = pr->v.a.count * job.esize;   /* <= max_total_array_bytes */
				job.clen = pr->encoded_size;
				job.zlib = pr->pending == 2;
				job.src = doc->input_ + at;
				if (!rki_buf_push(jobs, &job, sizeof(job))) return false;
			}
		}
		if (depth > 1 && ch->child_count && !rki_fbx_collect_pending(jobs, doc, ch, f, depth - 1)) return false;
	}
	return true;
}

typedef struct rki_fbx_job_key { uint64_t offset; size_t bytes; size_t index; } rki_fbx_job_key;

static int rki_fbx_key_by_size(const void *a, const void *b)
{
	const rki_fbx_job_key *x = (const rki_fbx_job_key *)a, *y = (const rki_fbx_job_key *)b;
	if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int rki_fbx_job_by_offset(const void *a, const void *b)
{
	const rki_fbx_decode_job *x = (const rki_fbx_decode_job *)a, *y = (const rki_fbx_decode_job *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Threads (the calling one included) for `count` arrays of `total` decoded bytes. */
static size_t rki_fbx_thread_count(size_t threads, uint64_t total, size_t count)
{
	size_t want = threads ? threads : rk_cpu_count();
	if (want > RKI_FBX_MAX_THREADS) want = RKI_FBX_MAX_THREADS;
	if ((uint64_t)want > 1 + total / RKI_FBX_THREAD_MIN_BYTES) want = (size_t)(1 + total / RKI_FBX_THREAD_MIN_BYTES);
	if (want > count) want = count;
	return want;
}

static rki_fbx_decode_batch *rki_fbx_batch_new(rki_alloc *tmp)
{
	rki_fbx_decode_batch *b = (rki_fbx_decode_batch *)rki_malloc(tmp, sizeof(*b));
	if (!b) return NULL;
	memset(b, 0, sizeof(*b));
	b->tmp = tmp;
	rki_buf_init(&b->jobs, tmp);
	rki_buf_init(&b->order, tmp);
	return b;
}

static void rki_fbx_batch_free(rki_fbx_decode_batch *b)
{
	for (size_t k = 0; k < b->worker_count; k++)
		if (b->workers[k].inflater) libdeflate_free_decompressor(b->workers[k].inflater);
	if (b->sync) {
		pthread_cond_destroy(&b->cond);
		pthread_mutex_destroy(&b->mutex);
	}
	rki_buf_free(&b->jobs);
	rki_buf_free(&b->order);
	rki_free(b->tmp, b, sizeof(*b));
}

/* Jobs collected: sorts them by offset, allocates their buffers from `arena`
 * (on this thread, in offset order), queues them largest first and starts the
 * helpers. NULL (batch freed) when there is nothing to decode. */
static rki_fbx_decode_batch *rki_fbx_batch_begin(rki_fbx_decode_batch *b, rki_arena *arena, bool swap, size_t threads)
{
	b->count = b->jobs.size / sizeof(rki_fbx_decode_job);
	if (b->count == 0 || !rki_buf_reserve(&b->order, b->count * sizeof(size_t))) {
		rki_fbx_batch_free(b);
		return NULL;
	}
	rki_fbx_decode_job *jobs = rki_fbx_job(b, 0);
	for (size_t k = 1; k < b->count; k++) {
		if (jobs[k].offset > jobs[k - 1].offset) continue;
		qsort(jobs, b->count, sizeof(*jobs), rki_fbx_job_by_offset);   /* file order already, normally */
		break;
	}
	uint64_t total = 0;
	bool any_zlib = false;
	for (size_t k = 0; k < b->count; k++) {
		rki_fbx_decode_job *job = &jobs[k];
		atomic_init(&job->state, RKI_FBX_JOB_QUEUED);
		if (k > 0 && job->offset == jobs[k - 1].offset) continue;   /* never: one job per property */
		if (!rki_fbx_array_alloc_size(job->type, job->bytes, &job->alloc)) continue;
		job->out = rki_arena_alloc_uninit(arena, job->alloc);
		if (!job->out) break;   /* the rest stays pending: accessors report the failure */
		total += job->bytes;
		any_zlib = any_zlib || job->zlib;
	}
	rki_buf keys;
	rki_buf_init(&keys, b->tmp);
	if (!rki_buf_reserve(&keys, b->count * sizeof(rki_fbx_job_key))) {
		rki_buf_free(&keys);
		rki_fbx_batch_free(b);
		return NULL;
	}
	rki_fbx_job_key *key = (rki_fbx_job_key *)(void *)keys.data;
	for (size_t k = 0; k < b->count; k++) {
		key[k].offset = jobs[k].offset;
		key[k].bytes = jobs[k].bytes;
		key[k].index = k;
	}
	qsort(key, b->count, sizeof(*key), rki_fbx_key_by_size);
	size_t *order = (size_t *)(void *)b->order.data;
	for (size_t k = 0; k < b->count; k++) order[k] = key[k].index;
	b->order.size = b->count * sizeof(size_t);
	rki_buf_free(&keys);
	b->swap = swap;
	atomic_init(&b->next, 0);

	size_t want = rki_fbx_thread_count(threads, total, b->count);
	for (; b->worker_count < want; b->worker_count++) {
		rki_fbx_decode_worker *w = &b->workers[b->worker_count];
		w->inflater = NULL;
		if (any_zlib && !(w->inflater = libdeflate_alloc_decompressor())) break;
	}
	if (b->worker_count > 1 && pthread_mutex_init(&b->mutex, NULL) == 0) {
		if (pthread_cond_init(&b->cond, NULL) == 0) b->sync = true;
		else pthread_mutex_destroy(&b->mutex);
	}
	b->started = 1;
	if (b->sync) b->started += rk_task_team_start(&b->team, b->worker_count - 1, rki_fbx_decode_helper, b);
	return b;
}

rki_fbx_decode_batch *rki_fbx_decode_start(const rki_fbx_node *under, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, rki_alloc *tmp)
{
	if (!under || !tmp || max_depth == 0) return NULL;
	rki_fbx_doc *doc = rki_fbx_doc_of(under);
	if (!doc->input_ || !doc->arena_ || doc->batch_) return NULL;
	rki_fbx_decode_batch *b = rki_fbx_batch_new(tmp);
	if (!b) return NULL;
	rki_fbx_name_filter filter;
	rki_fbx_filter_init(&filter, names, name_count);
	if (!rki_fbx_collect_pending(&b->jobs, doc, under, &filter, max_depth)) b->jobs.size = 0;
	b = rki_fbx_batch_begin(b, doc->arena_, doc->big_endian == rki_fbx_host_little_endian(), threads);
	if (b) {
		b->doc = doc;
		doc->batch_ = b;
	}
	return b;
}

/* ---- pre-scan: decoding while the tree is still being parsed ------------------------------ */

typedef struct rki_fbx_prescan {
	const unsigned char *d;
	size_t size;
	bool be, wide;
	rki_fbx_name_filter filter;
	rki_fbx_limits lim;
	uint64_t array_bytes;
	rki_buf *jobs;
	bool failed;        /* out of memory: stop */
} rki_fbx_prescan;

static uint32_t rki_fbx_ps32(const rki_fbx_prescan *s, const unsigned char *b)
{
	if (s->be) return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | (uint32_t)b[0];
}

static uint64_t rki_fbx_ps64(const rki_fbx_prescan *s, const unsigned char *b)
{
	uint64_t lo = rki_fbx_ps32(s, b), hi = rki_fbx_ps32(s, b + 4);
	return s->be ? (lo << 32 | hi) : (hi << 32 | lo);
}

/* A node record at pos inside [.., end): false when it is the null record or
 * does not fit (the parse proper reports that). */
static bool rki_fbx_ps_record(const rki_fbx_prescan *s, size_t pos, size_t end, size_t *rec_end, size_t *body,
	uint64_t *nprops, size_t *plen, const char **name, size_t *name_len)
{
	size_t hdr = s->wide ? 25 : 13;
	if (pos > end || end - pos < hdr) return false;
	const unsigned char *h = s->d + pos;
	uint64_t e = s->wide ? rki_fbx_ps64(s, h) : rki_fbx_ps32(s, h);
	uint64_t np = s->wide ? rki_fbx_ps64(s, h + 8) : rki_fbx_ps32(s, h + 4);
	uint64_t pl = s->wide ? rki_fbx_ps64(s, h + 16) : rki_fbx_ps32(s, h + 8);
	size_t nl = h[hdr - 1];
	if (e == 0 || e > end || e < (uint64_t)pos + hdr + nl || pl > e - (pos + hdr + nl)) return false;
	*rec_end = (size_t)e;
	*body = pos + hdr + nl;
	*nprops = np;
	*plen = (size_t)pl;
	*name = (const char *)h + hdr;
	*name_len = nl;
	return true;
}

/* The array properties of one listed node, with the parse's own checks. */
static void rki_fbx_ps_props(rki_fbx_prescan *s, size_t pos, size_t pend, uint64_t nprops)
{
	for (uint64_t i = 0; i < nprops && pos < pend && !s->failed; i++) {
		size_t at = pos++;
		char t = (char)s->d[at];
		size_t fixed = 0;
		switch (t) {
		case 'Y': fixed = 2; break;
		case 'C': fixed = 1; break;
		case 'I': case 'F': fixed = 4; break;
		case 'D': case 'L': fixed = 8; break;
		case 'S': case 'R':
			if (pend - pos < 4) return;
			fixed = 4 + (size_t)rki_fbx_ps32(s, s->d + pos);
			if (fixed < 4) return;
			break;
		case 'c': case 'f': case 'd': case 'l': case 'i': case 'b': {
			if (pend - pos < RKI_FBX_ARRAY_HEADER) return;
			const unsigned char *h = s->d + pos;
			uint32_t count = rki_fbx_ps32(s, h), encoding = rki_fbx_ps32(s, h + 4), clen = rki_fbx_ps32(s, h + 8);
			pos += RKI_FBX_ARRAY_HEADER;
			if (clen > pend - pos) return;
			size_t esize = rki_fbx_array_elem_size(t);
			uint64_t bytes = (uint64_t)count * esize;
			bool ok = count > 0 && count <= s->lim.max_array_elems &&
				bytes <= (uint64_t)s->lim.max_total_array_bytes - s->array_bytes &&
				((encoding == 0 && bytes == clen) ||
					(encoding == 1 && bytes <= (uint64_t)clen * RKI_FBX_MAX_INFLATE_RATIO + 1024));
			if (ok) {
				rki_fbx_decode_job job;
				memset(&job, 0, sizeof(job));
				job.offset = at;
				job.type = t;
				job.esize = esize;
				job.bytes = (size_t)bytes;
				job.clen = clen;
				job.zlib = encoding == 1;
				job.src = s->d + pos;
				s->array_bytes += bytes;
				if (!rki_buf_push(s->jobs, &job, sizeof(job))) s->failed = true;
			}
			pos += clen;
			continue;
		}
		default:
			return;
		}
		if (pend - pos < fixed) return;
		pos += fixed;
	}
}

/* Children of a node in [pos, end), depth levels at most; with `only`, just
 * the children it lists (this level only). Recursion depth <= max_depth (<= 16). */
static void rki_fbx_ps_children(rki_fbx_prescan *s, size_t pos, size_t end, size_t depth,
	const rki_fbx_name_filter *only)
{
	size_t rec_end, body, plen, name_len;
	uint64_t nprops;
	const char *name;
	while (!s->failed && rki_fbx_ps_record(s, pos, end, &rec_end, &body, &nprops, &plen, &name, &name_len)) {
		if (only && !rki_fbx_name_listed(only, name, name_len)) {
			pos = rec_end;   /* a whole subtree skipped in O(1): records know their end */
			continue;
		}
		if (nprops && rki_fbx_name_listed(&s->filter, name, name_len)) rki_fbx_ps_props(s, body, body + plen, nprops);
		if (depth > 1 && body + plen < rec_end) rki_fbx_ps_children(s, body + plen, rec_end, depth - 1, NULL);
		pos = rec_end;
	}
}

rki_fbx_decode_batch *rki_fbx_decode_prescan(const void *data, size_t size, const char *under,
	const char *const *containers, size_t container_count, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, const rki_fbx_limits *limits, rki_arena *arena, rki_alloc *tmp)
{
	const unsigned char *d = (const unsigned char *)data;
	if (!d || !under || !arena || !tmp || max_depth == 0 || max_depth > 16 || size < RKI_FBX_HEADER_SIZE ||
		memcmp(d, rki_fbx_magic, sizeof(rki_fbx_magic)) != 0 || d[22] > 1)
		return NULL;
	/* Without a helper thread a batch only costs (see below): not even the scan. */
	if (rki_fbx_thread_count(threads, UINT64_MAX, SIZE_MAX) < 2) return NULL;
	rki_fbx_prescan s;
	memset(&s, 0, sizeof(s));
	s.d = d;
	s.size = size;
	s.be = d[22] == 1;
	uint32_t version = rki_fbx_ps32(&s, d + 23);
	if (version < 3000 || version >= 8000) return NULL;
	s.wide = version >= 7500;
	rki_fbx_filter_init(&s.filter, names, name_count);
	rki_fbx_name_filter top;
	rki_fbx_filter_init(&top, containers, container_count);
	if (limits) s.lim = *limits;
	if (!s.lim.max_array_elems) s.lim.max_array_elems = RKI_FBX_DEFAULT_MAX_ARRAY_ELEMS;
	if (!s.lim.max_total_array_bytes) {
		uint64_t def = RKI_FBX_DEFAULT_MAX_TOTAL_ARRAY_BYTES;
		s.lim.max_total_array_bytes = def > SIZE_MAX ? SIZE_MAX : (size_t)def;
	}
	rki_fbx_decode_batch *b = rki_fbx_batch_new(tmp);
	if (!b) return NULL;
	s.jobs = &b->jobs;
	size_t under_len = strlen(under), pos = RKI_FBX_HEADER_SIZE, rec_end, body, plen, name_len;
	uint64_t nprops;
	const char *name;
	while (!s.failed && rki_fbx_ps_record(&s, pos, size, &rec_end, &body, &nprops, &plen, &name, &name_len)) {
		if (name_len == under_len && memcmp(name, under, under_len) == 0 && body + plen < rec_end)
			rki_fbx_ps_children(&s, body + plen, rec_end, max_depth, containers ? &top : NULL);
		pos = rec_end;
	}
	if (s.failed) b->jobs.size = 0;
	/* Without a helper thread a batch only costs: lazy decoding on access does the same. */
	if (rki_fbx_thread_count(threads, s.array_bytes, b->jobs.size / sizeof(rki_fbx_decode_job)) < 2) {
		rki_fbx_batch_free(b);
		return NULL;
	}
	return rki_fbx_batch_begin(b, arena, s.be == rki_fbx_host_little_endian(), threads);
}

size_t rki_fbx_decode_finish(rki_fbx_decode_batch *b)
{
	if (!b) return 0;
	/* The calling thread works through what is left, then the helpers are joined. */
	struct libdeflate_decompressor *inflater = b->worker_count ? b->workers[0].inflater : NULL;
	while (rki_fbx_job_run_next(b, inflater)) {}
	if (b->started > 1) rk_task_team_join(&b->team);
	b->started = 1;
	size_t decoded = 0;
	for (size_t k = 0; b->doc && k < b->count; k++)
		if (rki_fbx_job_complete(b, rki_fbx_job(b, k))) decoded++;   /* every job is finished here */
	if (b->doc) b->doc->batch_ = NULL;
	rki_fbx_batch_free(b);
	return decoded;
}

size_t rki_fbx_decode_arrays(const rki_fbx_node *under, const char *const *names, size_t name_count,
	size_t max_depth, size_t threads, rki_alloc *tmp)
{
	return rki_fbx_decode_finish(rki_fbx_decode_start(under, names, name_count, max_depth, threads, tmp));
}
