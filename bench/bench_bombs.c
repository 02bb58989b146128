/*
 * bench/bench_bombs.c - peak memory of loading small files that claim a lot
 * (tests/rk_bombs.h): a binary FBX of zlib arrays that decode to 480 MB (a
 * "deflate bomb", 10 arrays of 6 M doubles), and GLBs of 100,000 and
 * 1,000,000 empty nodes. Each load runs in a child process (fork), so its
 * peak resident set (getrusage ru_maxrss of the child) is its own.
 *
 * usage: bench_bombs [--max-memory BYTES]
 * Prints one line per case:
 *   "bomb NAME FILE_BYTES RESULT PEAK_RSS_KB SECONDS"
 * RESULT is "loaded" or the error code name ("memory or count limit
 * reached" for RK_ERROR_LIMIT). Default options unless --max-memory.
 */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include "bench_common.h"

#include "../tests/rk_bombs.h"

#include <rigkit/rigkit.h>

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void bench_bomb(const char *name, const unsigned char *data, size_t size, size_t max_memory)
{
	double t0 = bench_now();
	int pipefd[2];
	if (pipe(pipefd) != 0) return;
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		rk_load_opts o = { 0 };
		o.filename = name;
		o.memory_limit = max_memory;
		rk_error err;
		rk_scene *s = rk_load_memory(data, size, &o, &err);
		int code = s ? 0 : (int)err.code;
		rk_scene_free(s);
		ssize_t w = write(pipefd[1], &code, sizeof(code));
		_exit(w == (ssize_t)sizeof(code) ? 0 : 1);
	}
	close(pipefd[1]);
	int code = -1;
	if (pid > 0 && read(pipefd[0], &code, sizeof(code)) != (ssize_t)sizeof(code)) code = -1;
	close(pipefd[0]);
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	if (pid > 0) wait4(pid, &status, 0, &ru);
	printf("bomb %s %zu %s %ld %.2f\n", name, size,
		code == 0 ? "loaded" : code < 0 ? "crashed" : rk_error_code_name((rk_error_code)code), ru.ru_maxrss,
		bench_now() - t0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	size_t max_memory = 0;
	for (int a = 1; a < argc; a++)
		if (strcmp(argv[a], "--max-memory") == 0 && a + 1 < argc) max_memory = (size_t)strtoull(argv[++a], NULL, 10);
	size_t size;
	unsigned char *d = rk_bomb_fbx_deflate(10, 3u << 21, &size);
	if (d) bench_bomb("deflate_bomb.fbx", d, size, max_memory);
	free(d);
	d = rk_bomb_glb_nodes(100000, &size);
	if (d) bench_bomb("100k_nodes.glb", d, size, max_memory);
	free(d);
	d = rk_bomb_glb_nodes(1000000, &size);
	if (d) bench_bomb("1M_nodes.glb", d, size, max_memory);
	free(d);
	return 0;
}
