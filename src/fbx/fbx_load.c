/* src/fbx/fbx_load.c - FBX scene reader entry point (being built: see issue 3). */
#include "scene/scene_internal.h"

#include <string.h>

bool rki_is_fbx(const void *data, size_t size)
{
	static const char magic[] = "Kaydara FBX Binary  ";
	const char *p = (const char *)data;
	if (size >= sizeof(magic) - 1 && memcmp(p, magic, sizeof(magic) - 1) == 0) return true;
	/* ASCII FBX starts with a ';' comment or FBXHeaderExtension. */
	size_t i = 0;
	if (size >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) i = 3;
	while (i < size && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
	if (i < size && p[i] == ';') return size - i >= 4 && rki_memmem(p + i, size - i < 512 ? size - i : 512, "FBX", 3) != NULL;
	return size - i >= 18 && memcmp(p + i, "FBXHeaderExtension", 18) == 0;
}

rk_scene *rki_load_fbx(const void *data, size_t size, const rk_load_opts *opts, const char *filename, rk_error *err)
{
	(void)data;
	(void)size;
	(void)opts;
	rki_error_set(err, RK_ERROR_UNSUPPORTED, "FBX scenes cannot be read yet");
	rki_error_file(err, filename);
	return NULL;
}
