/*
 * tools/rigkit/batch.h - the pieces of `rigkit batch` shared by its source
 * files (docs/batch.md): the job specification both the folder form and a
 * manifest produce (cli_batch_jobspec), the manifest reader and writer, stable
 * hashing (--shard, --resume digests), paths, the per-output sidecar and the
 * report merger.
 *
 * cmd_batch.c   the command: the folder form, the plan, running jobs
 * batch_manifest.c  manifests (JSON Lines), paths, hashes, sidecars
 * batch_merge.c     rigkit batch --merge-reports
 *
 * Ownership: every string and array of a cli_batch_jobspec is malloc'd and
 * owned by the spec (cli_batch_specs_free). Out of memory ends the process
 * (cli_batch_out_of_memory). Nothing here keeps state between calls; the
 * functions are safe from any thread for distinct arguments, except where
 * they print (the reader and the merger run on the main thread).
 */
#ifndef RIGKIT_CLI_BATCH_H
#define RIGKIT_CLI_BATCH_H

#include "cli.h"

#include <stdint.h>

/* One clip of a job: which clip of which file, and the name it gets. */
typedef struct cli_batch_entry {
	char *source;                    /* the motion file (resolved path) */
	char *clip;                      /* the clip's name in it; NULL = every clip with tracks */
	char *name;                      /* the name in the output; NULL = the default rule (docs/batch.md) */
	size_t clip_index;               /* folder form: 1 + the clip's index in the file (names may
	                                    repeat in a file); 0 = the first clip named `clip` */
} cli_batch_entry;

/* Retarget options of one job (the manifest's "options"; command-line
 * options give the defaults). */
typedef struct cli_batch_job_opts {
	rk_retarget_root root;
	double fps;                      /* 0 = the source's frame rate */
	bool skip_fingers, foot_ik, drop_avatar_clips;
	rk_rest_mode rest;               /* RK_REST_AUTO (0) = default */
	rk_retarget_twist twist;         /* RK_RETARGET_TWIST_ON (0) = default */
	rk_retarget_contacts contacts;   /* RK_RETARGET_CONTACTS_FEET (0) = default */
	bool hand_contacts;
} cli_batch_job_opts;

/* One job: one output file. */
typedef struct cli_batch_jobspec {
	char *id;                        /* identity: key of reports and sidecars, hashed by --shard */
	char *group;                     /* hashed by --shard instead of id when set ("group"), or NULL */
	char *output;                    /* resolved path */
	char *target;                    /* the avatar (resolved path) */
	cli_batch_entry *entries;
	size_t entry_count;
	cli_batch_job_opts opts;
	size_t line;                     /* manifest line (1-based); 0 for the folder form */
} cli_batch_jobspec;

typedef struct cli_batch_specs {
	cli_batch_jobspec *data;
	size_t count, cap;
} cli_batch_specs;

/* ---- memory (the CLI gives up on out-of-memory) ---- */
void cli_batch_out_of_memory(void);
void *cli_batch_alloc(size_t count, size_t size);      /* zeroed */
char *cli_batch_strdup(const char *s);
char *cli_batch_format(const char *fmt, ...) CLI_PRINTF(1, 2);

cli_batch_jobspec *cli_batch_specs_push(cli_batch_specs *s);  /* a zeroed new spec */
void cli_batch_specs_free(cli_batch_specs *s);

/* ---- hashing: 64-bit FNV-1a ---- */
#define CLI_BATCH_FNV_OFFSET 14695981039346656037ull  /* FNV-1a 64-bit offset basis; prime 1099511628211 */
uint64_t cli_batch_fnv(uint64_t h, const void *data, size_t size);
uint64_t cli_batch_fnv_str(uint64_t h, const char *s);    /* the bytes and a 0 byte */
/* The FNV-1a of a file's bytes and its size. false with errno set when it
 * cannot be read. */
bool cli_batch_file_digest(const char *path, uint64_t *digest, uint64_t *size);
/* Shard of an id: FNV-1a of its bytes, modulo count. */
size_t cli_batch_shard_of(const char *id, size_t count);
/* Parses "K/N" (0 <= K < N <= CLI_BATCH_MAX_SHARDS). */
#define CLI_BATCH_MAX_SHARDS 1000000
bool cli_batch_parse_shard(const char *text, size_t *index, size_t *count);

/* ---- paths ---- */
/* The folder part of a path ("" for a bare name), malloc'd. */
char *cli_batch_dirname(const char *path);
/* dir + "/" + path, or path itself when it is absolute or dir is "". */
char *cli_batch_join(const char *dir, const char *path);
/* The absolute, lexically normalised form of path ("." and ".." removed
 * without looking at symbolic links). NULL when the working folder is unknown. */
char *cli_batch_absolute(const char *path);
/* path (absolute, normalised) relative to the folder base (idem). */
char *cli_batch_relative(const char *base, const char *path);
/* mkdir -p dir; false with errno set (ENOTDIR: a file has that name). */
bool cli_batch_make_dir(const char *dir);
/* mkdir -p of the folder of path (nothing for a bare name). false with errno set. */
bool cli_batch_make_parent(const char *path);
/* The output format of a path by its extension (CLI_FORMAT_*, 0 = none),
 * among those batch writes (every cli_output_formats entry but OBJ). */
int cli_batch_output_format(const char *path);
/* "glb, gltf" (the extensions batch writes) into dst. */
void cli_batch_output_formats(char *dst, size_t cap);

/* ---- files ---- */
/* The bytes of a file plus a NUL (malloc'd, *size bytes before it), or NULL
 * with errno set (EFBIG: more than max bytes). */
char *cli_batch_read_text(const char *path, size_t max, size_t *size);
/* Writes the (complete) document of j and a final newline to path
 * atomically (rk_file_write_atomic). false with err set. j stays as it is
 * (end it with cli_json_end, or rk_json_writer_free). */
bool cli_batch_json_save(const cli_json *j, const char *path, rk_error *err);

/* ---- manifests ---- */
/* Reads a manifest (docs/batch.md "Manifest"): one JSON object per line.
 * Relative paths are relative to the manifest's folder; `defaults` fills
 * each job's options. On error prints "rigkit: FILE:LINE: message" and
 * returns its exit code (CLI_EXIT_INPUT); else 0. */
int cli_batch_manifest_read(cli_ctx *ctx, const char *path, const cli_batch_job_opts *defaults, cli_batch_specs *out);
/* The manifest line of spec without its '\n' (malloc'd, *length bytes
 * plus a NUL): compact JSON, paths relative to the folder `base` (absolute,
 * normalised; NULL = paths as they are). */
char *cli_batch_manifest_line(const cli_batch_jobspec *spec, const char *base, size_t *length);

/* ---- sidecars: OUT.rigkit.json beside each output (--resume) ---- */
/* The sidecar path of an output (malloc'd). */
char *cli_batch_sidecar_path(const char *output);
/* true when the sidecar of `output` records `digest`; *report then gets
 * its "report" object as compact JSON text (malloc'd, may be NULL). */
bool cli_batch_sidecar_matches(const char *output, const char *digest, char **report);
/* Removes the temporary files a killed writer may have left for the
 * outputs (sorted with strcmp): OUTPUT.tmpXXXXXX and OUTPUT.rigkit.json.tmpXXXXXX,
 * rk_file_write_atomic's names. Only call it for outputs no other process
 * is writing. Returns how many were removed. */
size_t cli_batch_remove_stale_temps(const char *const *outputs, size_t count);

/* ---- rigkit batch --merge-reports ---- */
int cli_batch_merge(cli_ctx *ctx, const char *const *reports, size_t count, const char *out);

#endif
