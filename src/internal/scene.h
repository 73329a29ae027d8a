/* Private scene calls shared with other modules. */
#ifndef OROYA_INTERNAL_SCENE_H
#define OROYA_INTERNAL_SCENE_H

#include "oroya/scene.h"

/* oroya_scene_update_world for the dense indices first..count-1 only: the nodes before
 * `first` keep their matrices. Correct whenever no transform before `first` changed since the
 * last full update (parents come before children). Used by IK after it rewrote a chain. */
void oroya__scene_update_world_from(oroya_scene *scene, uint32_t first);

#endif
