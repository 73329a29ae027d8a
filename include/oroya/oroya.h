/* oroya.h - the umbrella header: includes every public module of liboroya.
 * The renderer has its own header, <oroya/render.h>, and library, liboroya_render. */
#ifndef OROYA_H
#define OROYA_H

#include "oroya/base.h"
#include "oroya/math.h"
#include "oroya/rotation.h"
#include "oroya/track.h"
#include "oroya/clip.h"
#include "oroya/scene.h"
#include "oroya/geometry.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/pose.h"
#include "oroya/ik.h"
#include "oroya/json.h"
#include "oroya/gltf.h"

#endif /* OROYA_H */
