/* KNOWN BUGS in other modules, one failing test each (see docs/robustness.md, "Open bugs").
 * Every test here fails until its module is fixed; none of them is about the test itself.
 * When a fix lands, the test passes and stays as a regression test. */
#include "oroya/gltf.h"
#include "oroya_test.h"

#include <string.h>

#define SHARED_GLTF OROYA_SHARED_DIR "/assets/gltf/"

/* BUG (src/gltf_buffers.c, resolve_path): oroya_gltf_desc.base_dir is documented as "the
 * directory that external URIs are relative to", but resolve_path concatenates base_dir and
 * the URI with no separator, so base_dir "dir" and uri "a.bin" open "dira.bin". Only a
 * base_dir ending in '/' works; oroya_gltf_parse_file always passes one, so only
 * oroya_gltf_parse callers see it. */
static void test_bug_base_dir_without_trailing_slash(void) {
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
        "\"uri\":\"RiggedSimple0.bin\"}]}";
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_result r = oroya_gltf_parse(
        &(oroya_gltf_desc){.base_dir = SHARED_GLTF "RiggedSimple/glTF"}, json, strlen(json), &g,
        &err);
    OT_EQ_INT(r, OROYA_OK);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(g, &err);
        OT_CHECK_MSG(r == OROYA_OK, "KNOWN BUG base_dir without '/': %s", err.message);
    }
    oroya_gltf_free(g);
}

int main(void) {
    OT_RUN(test_bug_base_dir_without_trailing_slash);
    return ot_finish();
}
