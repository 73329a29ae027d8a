/* Private mixer entry points, for tests. */
#ifndef OROYA_INTERNAL_MIXER_H
#define OROYA_INTERNAL_MIXER_H

#include "oroya/mixer.h"

/* true: every update takes the property path (three.js's PropertyMixer in double), also with
 * a rig: the reference the pose kernel path is tested against. Bone matrices are then
 * computed from the scene. Takes effect at the next update. */
void oroya__mixer_set_reference(oroya_mixer *mixer, bool reference);

#endif
