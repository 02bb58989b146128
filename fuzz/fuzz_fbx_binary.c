/* fuzz/fuzz_fbx_binary.c - binary FBX through the whole scene path.
 * Inputs without the binary magic get a 7400 header prepended, so every
 * input exercises the binary reader (see fuzz/README.md). */
#include "fuzz_fbx_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t header[27] = { 'K', 'a', 'y', 'd', 'a', 'r', 'a', ' ', 'F', 'B', 'X', ' ', 'B', 'i', 'n', 'a',
		'r', 'y', ' ', ' ', 0, 0x1a, 0, 0xe8, 0x1c, 0, 0 };
	if (size >= 20 && memcmp(data, header, 20) == 0) {
		rk_fuzz_fbx_scene(data, size);
		return 0;
	}
	uint8_t *buf = (uint8_t *)malloc(size + sizeof(header));
	if (!buf) return 0;
	memcpy(buf, header, sizeof(header));
	if (size) memcpy(buf + sizeof(header), data, size);
	rk_fuzz_fbx_scene(buf, size + sizeof(header));
	free(buf);
	return 0;
}
