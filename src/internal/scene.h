/* Private scene hooks (src/scene.c), for writers that keep results outside the scene and
 * write them on demand: the mixer's pose kernel path writes its joints back lazily. */
#ifndef OROYA_INTERNAL_SCENE_H
#define OROYA_INTERNAL_SCENE_H

#include "oroya/scene.h"

/* A writer with results pending: flush(ctx) writes them. Owned by the writer. */
typedef struct oroya__scene_hook {
    void (*flush)(void *ctx);
    void *ctx;
    struct oroya__scene_hook *next;
} oroya__scene_hook;

void oroya__scene_add_hook(oroya_scene *scene, oroya__scene_hook *hook);
void oroya__scene_remove_hook(oroya_scene *scene, oroya__scene_hook *hook);
/* Something is pending: the next call that reads or writes node transforms, matrices or the
 * layout (get/set_transform, transforms(), update_world, get_world/local, world/local
 * matrices, add/remove/set_parent/attach) first calls every hook's flush, once. */
void oroya__scene_mark_pending(oroya_scene *scene);
/* The flush itself (a no-op when nothing is pending). */
void oroya__scene_flush(const oroya_scene *scene);

#endif
