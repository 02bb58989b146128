/* src/gltf/gltf_load.c - glTF/GLB scene reader entry point (being built: see issue 4). */
#include "scene/scene_internal.h"

#include <string.h>

bool rki_is_gltf(const void *data, size_t size, bool *is_glb)
{
	const unsigned char *p = (const unsigned char *)data;
	*is_glb = false;
	if (size >= 4 && memcmp(p, "glTF", 4) == 0) {
		*is_glb = true;
		return true;
	}
	size_t i = 0;
	if (size >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3;
	while (i < size && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
	if (i >= size || p[i] != '{') return false;
	size_t window = size - i < 65536 ? size - i : 65536;
	return rki_memmem(p + i, window, "\"asset\"", 7) != NULL;
}

rk_scene *rki_load_gltf(const void *data, size_t size, const rk_load_opts *opts, const char *filename, rk_error *err)
{
	(void)data;
	(void)size;
	(void)opts;
	rki_error_set(err, RK_ERROR_UNSUPPORTED, "glTF scenes cannot be read yet");
	rki_error_file(err, filename);
	return NULL;
}
