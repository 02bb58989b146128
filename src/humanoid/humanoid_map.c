/* src/humanoid/humanoid_map.c - bone map files ('leftUpperArm = Bone.012'),
 * include/rigkit/humanoid.h "Map files". */
#include "core/internal.h"
#include "rigkit/humanoid.h"

#include <string.h>

#define RKI_MAP_FILE_LIMIT ((size_t)16 << 20)
#define RKI_MAP_NAME_MAX 1024

static bool rki_map_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* [*b, *e) trimmed of spaces at both ends. */
static void rki_map_trim(const char **b, const char **e)
{
	while (*b < *e && rki_map_space(**b)) (*b)++;
	while (*e > *b && rki_map_space((*e)[-1])) (*e)--;
}

static bool rki_map_fail(rk_error *err, const char *filename, uint64_t line, const char *fmt, const char *name)
{
	rki_error_set(err, RK_ERROR_CORRUPT, fmt, name);
	rki_error_file(err, filename);
	rki_error_at_line(err, line);
	return false;
}

bool rk_humanoid_map_apply(rk_humanoid *humanoid, const rk_scene *scene, const char *text, size_t size,
	const char *filename, rk_error *err)
{
	rki_error_clear(err);
	if (!humanoid || !scene || (!text && size)) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_humanoid_map_apply: humanoid, scene and text are required");
		return false;
	}
	const char *p = text, *end = text + size;
	uint64_t line = 0;
	while (p < end) {
		line++;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *hash = memchr(p, '#', (size_t)(le - p));
		const char *b = p, *e = hash ? hash : le;
		p = nl ? nl + 1 : end;
		rki_map_trim(&b, &e);
		if (b == e) continue;
		const char *eq = memchr(b, '=', (size_t)(e - b));
		if (!eq) return rki_map_fail(err, filename, line, "expected 'bone = node name'%s", "");
		const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
		rki_map_trim(&kb, &ke);
		rki_map_trim(&vb, &ve);
		char bone_name[64], node_name[RKI_MAP_NAME_MAX];
		size_t kn = (size_t)(ke - kb), vn = (size_t)(ve - vb);
		if (kn == 0) return rki_map_fail(err, filename, line, "expected a humanoid bone name before '='%s", "");
		if (kn >= sizeof(bone_name)) kn = sizeof(bone_name) - 1;
		memcpy(bone_name, kb, kn);
		bone_name[kn] = '\0';
		if (vn >= sizeof(node_name))
			return rki_map_fail(err, filename, line, "node name longer than 1023 bytes%s", "");
		memcpy(node_name, vb, vn);
		node_name[vn] = '\0';
		rk_humanoid_bone bone;
		if (!rk_humanoid_bone_parse(bone_name, &bone))
			return rki_map_fail(err, filename, line,
				"'%s' is not a humanoid bone name (VRM 1.0: hips, spine, leftUpperArm, ...)", bone_name);
		if (!rk_humanoid_set(humanoid, scene, bone, node_name, err)) {
			rki_error_file(err, filename);
			rki_error_at_line(err, line);
			return false;
		}
	}
	return true;
}

bool rk_humanoid_map_apply_file(rk_humanoid *humanoid, const rk_scene *scene, const char *path, rk_error *err)
{
	rki_error_clear(err);
	if (!path) {
		rki_error_set(err, RK_ERROR_INVALID_ARGUMENT, "rk_humanoid_map_apply_file: NULL path");
		return false;
	}
	rki_alloc a;
	rki_alloc_init(&a, NULL, 0, 0);
	size_t size = 0;
	char *text = (char *)rki_read_file(&a, path, RKI_MAP_FILE_LIMIT, &size, err);
	if (!text) return false;
	bool ok = rk_humanoid_map_apply(humanoid, scene, text, size, path, err);
	rki_free(&a, text, size + 1);
	return ok;
}
