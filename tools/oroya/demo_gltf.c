/* A render world from a glTF 2.0 file. Reading files needs the glTF importer
 * (oroya_gltf_load), which is not in this build yet. */
#include <stdio.h>
#include <string.h>

#include "demo_scene.h"

int gltf_world_create(const char *path, world *w) {
    memset(w, 0, sizeof *w);
    fprintf(stderr, "oroya: reading '%s' needs the glTF importer, which this build does not have "
                    "yet; run without a file for the built-in demo\n", path);
    return 1;
}
