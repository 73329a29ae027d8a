/* Runtime hardening: mixer calls made from inside the event callback, and huge finite inputs
 * that must not turn into inf or NaN (rotations, world matrices, cubic tangents, additive
 * weights, warps). docs/robustness.md lists the rules these check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/scene.h"
#include "oroya/track.h"
#include "oroya_test.h"

static oroya_scene *one_node_scene(oroya_node *node) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_OBJECT, node) == OROYA_OK);
    return s;
}

/* x goes from 0 to 1 over `duration` seconds on node "a". */
static oroya_clip *line_clip(const char *name, float duration) {
    float times[2] = {0, duration};
    float values[6] = {0, 0, 0, 1, 0, 0};
    oroya_track t = {.target = "a",
                     .property = OROYA_PROPERTY_TRANSLATION,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 3,
                     .key_count = 2,
                     .times = times,
                     .values = values};
    oroya_clip_desc d = {.name = name, .duration = duration, .tracks = &t, .track_count = 1};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&d, &c, NULL) == OROYA_OK);
    return c;
}

/* ---- mixer calls from the event callback ---------------------------------------------------- */

typedef enum reentry_op {
    OP_UNCACHE_CLIP, OP_UNCACHE_ACTION, OP_STOP_ALL, OP_STOP, OP_UPDATE, OP_SET_TIME,
    OP_PLAY_OTHER, OP_CLIP_ACTION, OP_RESET, OP_DESTROY, OP_COUNT
} reentry_op;

typedef struct reentry {
    reentry_op op;
    oroya_mixer *mixer;
    oroya_clip *clip, *other;
    int calls;
    oroya_result result; /* of the call made from the callback */
} reentry;

static void reentry_event(const oroya_event *e, void *user) {
    reentry *r = user;
    r->calls++;
    oroya_action *b = NULL;
    switch (r->op) {
    case OP_UNCACHE_CLIP: r->result = oroya_mixer_uncache_clip(r->mixer, r->clip); break;
    case OP_UNCACHE_ACTION: r->result = oroya_mixer_uncache_action(r->mixer, e->action); break;
    case OP_STOP_ALL: oroya_mixer_stop_all(r->mixer); break;
    case OP_STOP: oroya_action_stop(e->action); break;
    case OP_UPDATE: r->result = oroya_mixer_update(r->mixer, 0.5); break;
    case OP_SET_TIME: r->result = oroya_mixer_set_time(r->mixer, 0.25); break;
    case OP_PLAY_OTHER: r->result = oroya_mixer_play(r->mixer, r->other, &b); break;
    case OP_CLIP_ACTION: r->result = oroya_mixer_clip_action(r->mixer, r->other, &b); break;
    case OP_RESET: oroya_action_reset(e->action); break;
    case OP_DESTROY: oroya_mixer_destroy(r->mixer); break;
    case OP_COUNT: break;
    }
}

/* Every op from inside the callback, with a looping action and a once action both raising
 * events in the same update: no use after free (ASan and valgrind watch), the refused calls
 * return OROYA_ERR_BUSY and change nothing, and the mixer keeps working after. */
static void test_callback_reentry(void) {
    for (int op = 0; op < OP_COUNT; op++) {
        oroya_node n;
        oroya_scene *s = one_node_scene(&n);
        reentry r = {.op = (reentry_op)op, .result = OROYA_OK};
        r.clip = line_clip("loop", 1);
        oroya_clip *once = line_clip("once", 1);
        r.other = line_clip("other", 1);
        OT_CHECK(oroya_mixer_create(s, &(oroya_mixer_desc){.on_event = reentry_event, .user = &r},
                                    &r.mixer) == OROYA_OK);
        oroya_action *a = NULL, *o = NULL;
        OT_CHECK(oroya_mixer_play(r.mixer, r.clip, &a) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(r.mixer, once, &o) == OROYA_OK);
        oroya_action_set_loop(o, OROYA_LOOP_ONCE, 1);
        OT_CHECK(oroya_mixer_update(r.mixer, 0.5) == OROYA_OK);
        OT_EQ_INT(r.calls, 0);
        oroya_result u = oroya_mixer_update(r.mixer, 0.75); /* both actions raise an event */
        OT_CHECK_MSG(u == OROYA_OK, "op %d: update gave %s", op, oroya_result_string(u));
        OT_CHECK_MSG(r.calls >= 1, "op %d: %d calls", op, r.calls);
        if (op == OP_UNCACHE_CLIP || op == OP_UNCACHE_ACTION || op == OP_UPDATE ||
            op == OP_SET_TIME) {
            OT_CHECK_MSG(r.result == OROYA_ERR_BUSY, "op %d: got %s", op,
                         oroya_result_string(r.result));
            OT_EQ_INT(oroya_mixer_active_action_count(r.mixer), 2);
        } else {
            OT_CHECK_MSG(r.result == OROYA_OK, "op %d: got %s", op,
                         oroya_result_string(r.result));
        }
        if (op != OP_DESTROY) {
            /* Outside the callback the same calls work. */
            r.op = OP_COUNT;
            OT_CHECK(oroya_mixer_uncache_clip(r.mixer, r.clip) == OROYA_OK);
            OT_CHECK(oroya_mixer_update(r.mixer, 0.5) == OROYA_OK);
            oroya_mixer_destroy(r.mixer);
        }
        oroya_clip_destroy(r.clip);
        oroya_clip_destroy(once);
        oroya_clip_destroy(r.other);
        oroya_scene_destroy(s);
    }
}

int main(void) {
    OT_RUN(test_callback_reentry);
    return ot_finish();
}
