/* tools/rigkit/memtune.c - how the CLI process asks glibc for memory.
 *
 * A conversion touches tens of megabytes once (the file, the scene, the
 * baked clip, the output). With glibc's defaults, blocks above 128 KB to
 * 32 MB are mapped and unmapped one by one and every 4 KB page is faulted
 * in separately; on the KVM guest of docs/benchmarks.md a page fault costs
 * several microseconds, and half of `rigkit convert ybot.fbx`'s CPU time was
 * the kernel's (7,776 minor faults). So, once at start-up and only here in
 * the CLI (the library allocates through its callers' allocators and keeps
 * no state): big blocks come from the heap, freed memory stays in the
 * process, the heap grows in one 64 MB step, and that range is marked for
 * transparent huge pages (the kernel's "madvise" mode), which is what glibc's
 * `glibc.malloc.hugetlb=1` tunable does. Measured in "FBX -> GLB" of
 * docs/benchmarks.md. Without glibc, or if any call fails, nothing changes:
 * this is a speed hint, never a requirement. RIGKIT_NO_MEMTUNE=1 turns it off.
 */
#define _DEFAULT_SOURCE 1
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define CLI_MEMTUNE_OFF 1 /* the sanitizers bring their own allocator */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define CLI_MEMTUNE_OFF 1
#endif
#endif

#if defined(__GLIBC__) && defined(__linux__) && !defined(CLI_MEMTUNE_OFF)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

void cli_memtune(void)
{
	const char *off = getenv("RIGKIT_NO_MEMTUNE");
	if (off && *off && *off != '0') return;
	const size_t step = (size_t)64 << 20;
	if (!mallopt(M_MMAP_THRESHOLD, 256 << 20) || !mallopt(M_TRIM_THRESHOLD, 512 << 20) || !mallopt(M_TOP_PAD, (int)step))
		return;
	void *start = sbrk(0);
	void *p = malloc((size_t)1 << 20); /* more than the heap has free: it grows by 1 MB + the 64 MB step (untouched) */
	void *end = sbrk(0);
	if (p && start != (void *)-1 && end != (void *)-1 && (uintptr_t)end > (uintptr_t)start) {
		uintptr_t a = ((uintptr_t)start + ((uintptr_t)2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1);
		if ((uintptr_t)end > a) (void)madvise((void *)a, (uintptr_t)end - a, MADV_HUGEPAGE);
	}
	free(p);
}
#else
void cli_memtune(void) {}
#endif
