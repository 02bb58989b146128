/* fuzz/fuzz_fbx_ascii.c - ASCII FBX through the whole scene path.
 * Every input gets an FBX comment line prepended so that format detection
 * always chooses the ASCII reader (see fuzz/README.md). */
#include "fuzz_fbx_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char prefix[] = "; FBX 7.4.0 project file\n";
	size_t n = sizeof(prefix) - 1;
	uint8_t *buf = (uint8_t *)malloc(size + n);
	if (!buf) return 0;
	memcpy(buf, prefix, n);
	if (size) memcpy(buf + n, data, size);
	rk_fuzz_fbx_scene(buf, size + n);
	free(buf);
	return 0;
}
