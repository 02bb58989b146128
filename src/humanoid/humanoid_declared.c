/* src/humanoid/humanoid_declared.c - the humanoid a file declares (scene->hints,
 * scheme "humanoid": VRM 1.0, VRM 0.x, VRM Animation) checked against name
 * detection: include/rigkit/humanoid.h, rk_humanoid_check_declared. */
#include "core/internal.h"
#include "scene/scene_internal.h"
#include "rigkit/humanoid.h"

#include <stdio.h>
#include <string.h>

static void rki_hd_warn(rk_warning_fn *fn, void *user, size_t *count, const char *fmt, ...) RKI_PRINTF(4, 5);

static void rki_hd_warn(rk_warning_fn *fn, void *user, size_t *count, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rki_warning_emitv(fn, user, fmt, ap);
	va_end(ap);
	(*count)++;
}

size_t rk_humanoid_check_declared(const rk_scene *scene, rk_warning_fn *warning, void *user)
{
	size_t count = 0;
	if (!scene) return 0;
	rk_humanoid declared;
	memset(&declared, 0, sizeof(declared));
	const char *origin = NULL;
	for (size_t i = 0; i < scene->hints.count; i++) {
		const rk_declared_hint *h = &scene->hints.data[i];
		rk_humanoid_bone bone;
		if (!h->scheme || strcmp(h->scheme, "humanoid") != 0 || !h->key || !h->node) continue;
		if (!origin) origin = h->origin ? h->origin : "";
		if (!rk_humanoid_bone_parse(h->key, &bone)) {
			rki_hd_warn(warning, user, &count, "%s declares humanoid bone '%.60s', which is not a VRM 1.0 bone: ignored",
				origin, h->key);
			continue;
		}
		declared.bones[bone] = h->node;
	}
	if (!origin) return 0;
	rk_error err;
	if (!rk_humanoid_validate(&declared, scene, &err)) {
		rki_hd_warn(warning, user, &count, "the humanoid %s declares is not valid (%s): bones are found from names instead",
			origin, err.message);
		return count;
	}
	/* name detection alone: the same scene without its hints */
	rk_scene names_only = *scene;
	names_only.hints.data = NULL;
	names_only.hints.count = 0;
	rk_humanoid named;
	rk_humanoid_detect(&names_only, &named, NULL);
	for (int b = 0; b < RK_HUMANOID_BONE_COUNT; b++) {
		const rk_node *d = declared.bones[b], *n = named.bones[b];
		if (!d || !n || d == n) continue;
		rki_hd_warn(warning, user, &count, "humanoid bone %s: %s declares '%.80s', the names suggest '%.80s': the declaration is used",
			rk_humanoid_bone_name((rk_humanoid_bone)b), origin, d->name ? d->name : "", n->name ? n->name : "");
	}
	return count;
}
