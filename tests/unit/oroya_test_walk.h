/* oroya_test_walk.h - calls fn on every .gltf and .glb file under a folder (4 levels deep),
 * for tests that run over tests/assets. POSIX (opendir, stat): define _POSIX_C_SOURCE before
 * any include in the test that uses it. */
#ifndef OROYA_TEST_WALK_H
#define OROYA_TEST_WALK_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static inline bool ot_has_suffix(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static inline void ot_walk_gltf(const char *dir, int depth, void (*fn)(const char *path)) {
    DIR *dp = opendir(dir);
    if (!dp || depth > 4) {
        if (dp) {
            closedir(dp);
        }
        return;
    }
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) {
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            ot_walk_gltf(path, depth + 1, fn);
        } else if (ot_has_suffix(path, ".gltf") || ot_has_suffix(path, ".glb")) {
            fn(path);
        }
    }
    closedir(dp);
}

#endif
