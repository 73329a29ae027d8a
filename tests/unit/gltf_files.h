/* Test helper: calls fn on every .gltf and .glb file under dir (recursively, in readdir
 * order); returns how many it found. */
#ifndef OROYA_TEST_GLTF_FILES_H
#define OROYA_TEST_GLTF_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int ot_each_gltf(const char *dir, void (*fn)(const char *path, void *user), void *user) {
    int files = 0;
    DIR *d = opendir(dir);
    if (!d) {
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
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
            files += ot_each_gltf(path, fn, user);
            continue;
        }
        size_t len = strlen(path);
        if ((len > 5 && !strcmp(path + len - 5, ".gltf")) ||
            (len > 4 && !strcmp(path + len - 4, ".glb"))) {
            files++;
            fn(path, user);
        }
    }
    closedir(d);
    return files;
}

#endif
