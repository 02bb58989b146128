/* tools/view/view_api.c - the table `rigkit view` calls the viewer module
 * through (view.h, "the module"). */
#include "view.h"

static const view_api view_api_table = {
	.version = VIEW_API_VERSION,
	.size = sizeof(view_api),
	.gl_create = view_gl_create,
	.gl_destroy = view_gl_destroy,
	.gl_renderer = view_gl_renderer,
	.gl_count_objects = view_gl_count_objects,
	.gl_bind_target = view_gl_bind_target,
	.gl_finish = view_gl_finish,
	.model_create = view_model_create,
	.model_destroy = view_model_destroy,
	.model_texture_failures = view_model_texture_failures,
	.model_sizes = view_model_sizes,
	.model_pose = view_model_pose,
	.model_draw = view_model_draw,
	.offscreen = view_offscreen,
	.window_run = view_window_run,
};

const view_api *view_api_get(void)
{
	return &view_api_table;
}
