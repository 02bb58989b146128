/*
 * src/core/file_io.c - whole-file reads and atomic writes (core/internal.h).
 *
 * Reads open only regular files: the path is stat()ed first (so a FIFO or a
 * device is never even opened: opening some devices has side effects), then
 * opened with O_NONBLOCK (a FIFO swapped in between cannot block) and
 * fstat()ed again, and never more than the file's size is read.
 *
 * Writes (rki_write_file) go to an unnamed O_TMPFILE inode in the output's
 * folder, which is linked in only when complete: a process killed while
 * writing leaves nothing behind. Where the file system or kernel has no
 * O_TMPFILE (or /proc is not mounted for linkat), a temporary file with a
 * short name (".rk" + 7 characters, so outputs up to NAME_MAX bytes work) is
 * written and renamed instead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* O_TMPFILE, before any system header */
#endif
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *rki_file_kind(unsigned mode)
{
	if (S_ISREG(mode)) return "a regular file";
	if (S_ISDIR(mode)) return "a folder";
	if (S_ISFIFO(mode)) return "a FIFO";
	if (S_ISCHR(mode)) return "a character device";
	if (S_ISBLK(mode)) return "a block device";
	if (S_ISSOCK(mode)) return "a socket";
	if (S_ISLNK(mode)) return "a symbolic link";
	return "not a regular file";
}

int rki_open_regular(const char *path, uint64_t *size, const char **kind)
{
	struct stat st;
	*size = 0;
	if (kind) *kind = NULL;
	if (stat(path, &st) != 0) return -1;
	if (!S_ISREG(st.st_mode)) {
		if (kind) *kind = rki_file_kind((unsigned)st.st_mode);
		errno = EINVAL;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
		if (kind) *kind = rki_file_kind((unsigned)st.st_mode);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

bool rki_read_fd(int fd, void *dst, size_t size, size_t *got)
{
	unsigned char *p = (unsigned char *)dst;
	size_t n = 0;
	while (n < size) {
		ssize_t r = read(fd, p + n, size - n);
		if (r < 0) {
			if (errno == EINTR) continue;
			*got = n;
			return false;
		}
		if (r == 0) break;
		n += (size_t)r;
	}
	*got = n;
	return n == size;
}

int rki_open_input(const char *path, size_t max_size, uint64_t *size, rk_error *err)
{
	const char *kind = NULL;
	int fd = rki_open_regular(path, size, &kind);
	if (fd < 0) {
		if (kind) rki_error_set(err, RK_ERROR_IO, "%s is %s, not a regular file: not read", path, kind);
		else rki_error_set(err, RK_ERROR_IO, "cannot open file: %s", strerror(errno));
		rki_error_file(err, path);
		return -1;
	}
	if ((max_size && *size > max_size) || *size >= SIZE_MAX) {
		close(fd);
		rki_error_set(err, RK_ERROR_LIMIT, "file is %llu bytes, over the %zu byte limit", (unsigned long long)*size,
			max_size);
		rki_error_file(err, path);
		return -1;
	}
	return fd;
}

void *rki_read_input(rki_alloc *alloc, int fd, uint64_t fsize, const char *path, rk_error *err)
{
	unsigned char *data = (unsigned char *)rki_malloc(alloc, (size_t)fsize + 1);
	if (!data) {
		rki_error_set(err, alloc->limit_hit ? RK_ERROR_LIMIT : RK_ERROR_OUT_OF_MEMORY,
			"cannot allocate %llu bytes for the file", (unsigned long long)fsize + 1);
		rki_error_file(err, path);
		return NULL;
	}
	size_t got = 0;
	if (!rki_pread_full(fd, 0, data, (size_t)fsize, &got)) {
		rki_free(alloc, data, (size_t)fsize + 1);
		rki_error_set(err, RK_ERROR_IO, "short read (%zu of %llu bytes)", got, (unsigned long long)fsize);
		rki_error_file(err, path);
		return NULL;
	}
	data[fsize] = 0;
	return data;
}

void *rki_read_file(rki_alloc *alloc, const char *path, size_t max_size, size_t *size, rk_error *err)
{
	*size = 0;
	uint64_t fsize = 0;
	int fd = rki_open_input(path, max_size, &fsize, err);
	if (fd < 0) return NULL;
	void *data = rki_read_input(alloc, fd, fsize, path, err);
	close(fd);
	if (data) *size = (size_t)fsize;
	return data;
}

bool rki_pread_full(int fd, uint64_t offset, void *dst, size_t size, size_t *got)
{
	unsigned char *p = (unsigned char *)dst;
	size_t n = 0;
	while (n < size) {
		if (offset + n > (uint64_t)INT64_MAX) break;
		ssize_t r = pread(fd, p + n, size - n, (off_t)(offset + n));
		if (r < 0) {
			if (errno == EINTR) continue;
			break;
		}
		if (r == 0) break;
		n += (size_t)r;
	}
	if (got) *got = n;
	return n == size;
}

/* ---- writes ------------------------------------------------------------------- */

static bool rki_write_all(int fd, const void *data, size_t size)
{
	const unsigned char *p = (const unsigned char *)data;
	while (size > 0) {
		ssize_t w = write(fd, p, size);
		if (w < 0) {
			if (errno == EINTR) continue;
			return false;
		}
		p += w;
		size -= (size_t)w;
	}
	return true;
}

static bool rki_write_fail(rk_error *err, const char *path, const char *what, int e)
{
	rki_error_set(err, RK_ERROR_OUTPUT, "%s: %s", what, strerror(e));
	rki_error_file(err, path);
	return false;
}

/* "<dir>/.rk" + 7 characters from [a-z0-9]: short, so that a temporary name
 * beside an output of NAME_MAX bytes is still a valid name. The characters
 * come from the clock, the process id and a per-call salt (no global state). */
static void rki_temp_name(char *dst, size_t cap, const char *path, size_t dir_len, unsigned salt)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32) ^
		((uint64_t)salt * 0xBF58476D1CE4E5B9ull) ^ (uint64_t)(uintptr_t)dst;
	char name[8];
	for (int i = 0; i < 7; i++) {
		x ^= x >> 29;
		x *= 0x94D049BB133111EBull;
		name[i] = digits[(x >> 40) % 36];
	}
	name[7] = '\0';
	snprintf(dst, cap, "%.*s.rk%s", (int)dir_len, path, name);
}

/* O_TMPFILE: the data never has a name until it is complete. Returns 1 done,
 * 0 not available here (fall back), -1 failed (err set). */
static int rki_write_tmpfile(const char *path, const char *dir, size_t dir_len, bool exists, const void *data,
	size_t size, rk_error *err)
{
#ifdef O_TMPFILE
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) return 0;
	if (!rki_write_all(fd, data, size)) {
		int e = errno;
		close(fd);
		rki_write_fail(err, path, "write failed", e);
		return -1;
	}
	if (fsync(fd) != 0 && errno != EINVAL) {
		int e = errno;
		close(fd);
		rki_write_fail(err, path, "fsync failed", e);
		return -1;
	}
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!exists) {
		if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) {
			close(fd);
			return 1;
		}
		if (errno != EEXIST) {
			close(fd);
			return 0; /* no /proc, or links not allowed here: the rename path */
		}
	}
	/* Replace an existing file: link under a short temporary name, then
	 * rename over it (the name exists only between these two calls). */
	char tmp[4096 + 16];
	for (unsigned attempt = 0; attempt < 64; attempt++) {
		rki_temp_name(tmp, sizeof(tmp), path, dir_len, attempt);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
			close(fd);
			if (rename(tmp, path) != 0) {
				int e = errno;
				unlink(tmp);
				rki_write_fail(err, path, "cannot replace output", e);
		return -1;
			}
			return 1;
		}
		if (errno != EEXIST) break;
	}
	close(fd);
	return 0;
#else
	(void)path; (void)dir; (void)dir_len; (void)exists; (void)data; (void)size; (void)err;
	return 0;
#endif
}

static bool rki_write_renamed(const char *path, size_t dir_len, const void *data, size_t size, rk_error *err)
{
	char tmp[4096 + 16];
	snprintf(tmp, sizeof(tmp), "%.*s.rkXXXXXX", (int)dir_len, path);
	int fd = mkstemp(tmp);
	if (fd < 0) return rki_write_fail(err, path, "cannot create temporary file", errno);
	bool ok = rki_write_all(fd, data, size);
	const char *what = "write failed";
	/* mkstemp creates 0600; outputs are ordinary readable files. (Reading the
	 * umask would mean changing process state, which a library must not.) */
	if (ok) (void)fchmod(fd, 0644);
	if (ok && fsync(fd) != 0 && errno != EINVAL) {
		ok = false;
		what = "fsync failed";
	}
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
		what = "write failed";
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		e = errno;
		what = "cannot replace output";
	}
	if (!ok) {
		unlink(tmp);
		return rki_write_fail(err, path, what, e);
	}
	return true;
}

bool rki_write_file(const char *path, const void *data, size_t size, bool force, rk_error *err)
{
	size_t plen = strlen(path);
	if (plen == 0 || plen >= 4096 || path[plen - 1] == '/') {
		rki_error_set(err, RK_ERROR_OUTPUT, plen >= 4096 ? "output path too long" : "output path names no file");
		rki_error_file(err, path);
		return false;
	}
	struct stat st;
	bool exists = lstat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode) || !force) {
			rki_error_set(err, RK_ERROR_OUTPUT, "%s is %s, not a regular file: refused%s", path,
				rki_file_kind((unsigned)st.st_mode), S_ISDIR(st.st_mode) ? "" : " (force replaces it)");
			rki_error_file(err, path);
			return false;
		}
	}
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	char dir[4096];
	if (dir_len == 0) snprintf(dir, sizeof(dir), ".");
	else snprintf(dir, sizeof(dir), "%.*s", (int)dir_len, path);
	int r = rki_write_tmpfile(path, dir, dir_len, exists, data, size, err);
	if (r != 0) return r > 0;
	return rki_write_renamed(path, dir_len, data, size, err);
}

bool rki_write_file_atomic(const char *path, const void *data, size_t size, rk_error *err)
{
	return rki_write_file(path, data, size, false, err);
}

bool rk_file_write(const char *path, const void *data, size_t size, const rk_file_write_opts *opts, rk_error *err)
{
	if (!path || (!data && size)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_file_write: NULL path or data");
		return false;
	}
	rki_error_clear(err);
	return rki_write_file(path, data ? data : "", size, opts && opts->force, err);
}

bool rk_file_write_atomic(const char *path, const void *data, size_t size, rk_error *err)
{
	return rk_file_write(path, data, size, NULL, err);
}
