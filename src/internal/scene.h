/* Private scene calls shared with other modules: IK's partial world update, and hooks for
 * writers that keep results outside the scene and write them on demand (the mixer's pose
 * kernel path writes its joints back lazily). */
#ifndef OROYA_INTERNAL_SCENE_H
#define OROYA_INTERNAL_SCENE_H

#include "oroya/scene.h"

/* oroya_scene_update_world for the dense indices first..count-1 only: the nodes before
 * `first` keep their matrices. Correct whenever no transform before `first` changed since the
 * last full update (parents come before children). Used by IK after it rewrote a chain. */
void oroya__scene_update_world_from(oroya_scene *scene, uint32_t first);

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

/* The dense transforms without a flush and without moving the epoch: for a writer's own
 * reads and writes of what it owns (the mixer). */
oroya_transform *oroya__scene_transforms_raw(oroya_scene *scene);
/* Moves on every call that may write transforms from outside (set_transform, transforms(),
 * layout changes): a writer that caches values read from the scene re-reads them when it
 * moved. */
uint32_t oroya__scene_epoch(const oroya_scene *scene);
/* A hint: the lines of the scene header that a mixer's update reads (layout version, epoch,
 * pending), fetched ahead of a batch's next mixers. No effect on results; NULL ok. */
void oroya__scene_prefetch(const oroya_scene *scene);

/* The animatable scalars of a node's light and camera (the mixer's INTENSITY and FOV
 * tracks): a pointer to the stored value, or NULL when the node is stale or has no light /
 * camera. The writer keeps the value finite; nothing is validated on the way. */
float *oroya__scene_light_intensity(oroya_scene *scene, oroya_node node);
float *oroya__scene_camera_fov(oroya_scene *scene, oroya_node node);

#endif
