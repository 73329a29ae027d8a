/* Clip markers (keyframe events): the crossing rule forwards and backwards, repeat wraps,
 * ping-pong turns, one dt spanning several loops, clamped and unclamped finishes, set_time,
 * play after stop, an action's own set_time (before and after play), markers set on a
 * playing action's clip, markers replaced from the event callback, the loop cap, the order against loop and finished events, and
 * oroya_clip_set_markers' checks. Expected sequences are worked out by hand from the rule in
 * oroya/mixer.h; the long irregular run and the loop cap are checked against counts computed
 * in closed form. */
#include <stdint.h>
#include <stdlib.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/scene.h"
#include "oroya_test.h"

typedef struct {
    char log[4096];
    size_t len;
    int counts[4];
} recorder;

static void on_event(const oroya_event *e, void *user) {
    recorder *r = user;
    const char *s = e->type == OROYA_EVENT_LOOP       ? "LOOP"
                    : e->type == OROYA_EVENT_FINISHED ? "FIN"
                                                      : e->marker->name;
    if (e->type == OROYA_EVENT_MARKER) {
        OT_CHECK(e->action != NULL);
        OT_CHECK(e->marker != NULL);
        const char *at = strchr("sabe", e->marker->name[0]);
        if (at)
            r->counts[at - "sabe"]++;
    }
    size_t n = strlen(s);
    if (r->len + n + 2 < sizeof r->log) {
        memcpy(r->log + r->len, s, n);
        r->len += n;
        r->log[r->len++] = ' ';
        r->log[r->len] = 0;
    }
}

typedef struct {
    oroya_scene *scene;
    oroya_clip *clip;
    oroya_mixer *mixer;
    oroya_action *action;
    recorder rec;
} fixture;

/* A 1 s clip moving node "n"; markers from the list "s" 0, "a" 0.25, "b" 0.75, "e" 1 as
 * selected by `which` (a string of those letters). */
static void setup(fixture *f, const char *which) {
    memset(f, 0, sizeof *f);
    OT_CHECK(oroya_scene_create(NULL, &f->scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(f->scene, "n", (oroya_node){0}, OROYA_NODE_BONE, &n) == OROYA_OK);
    static const float times[] = {0, 0.25f, 1};
    static const float values[] = {0, 0, 0, 1, 0, 0, 4, 0, 0};
    oroya_track t = {.target = "n",
                     .property = OROYA_PROPERTY_TRANSLATION,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .times = times,
                     .values = values,
                     .key_count = 3,
                     .components = 3};
    oroya_clip_desc cd = {.name = "walk", .duration = 1, .tracks = &t, .track_count = 1};
    OT_CHECK(oroya_clip_create(&cd, &f->clip, NULL) == OROYA_OK);
    oroya_marker all[4] = {{1.0, "e"}, {0.75, "b"}, {0.25, "a"}, {0.0, "s"}}; /* unsorted */
    oroya_marker chosen[4];
    uint32_t count = 0;
    for (int i = 0; i < 4; i++)
        if (strchr(which, all[i].name[0]))
            chosen[count++] = all[i];
    OT_CHECK(oroya_clip_set_markers(f->clip, chosen, count, NULL) == OROYA_OK);
    oroya_mixer_desc md = {.on_event = on_event, .user = &f->rec};
    OT_CHECK(oroya_mixer_create(f->scene, &md, &f->mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(f->mixer, f->clip, &f->action) == OROYA_OK);
}

static void teardown(fixture *f) {
    oroya_mixer_destroy(f->mixer);
    oroya_clip_destroy(f->clip);
    oroya_scene_destroy(f->scene);
}

/* Runs one update and returns what it logged. */
static const char *step(fixture *f, double dt) {
    f->rec.len = 0;
    f->rec.log[0] = 0;
    OT_CHECK(oroya_mixer_update(f->mixer, dt) == OROYA_OK);
    return f->rec.log;
}

#define EXPECT(f, dt, want)                                                                        \
    do {                                                                                           \
        const char *got_ = step(f, dt);                                                            \
        OT_CHECK_MSG(!strcmp(got_, want), "dt %g: got \"%s\", want \"%s\"", (double)(dt), got_,    \
                     want);                                                                        \
    } while (0)

static void test_sorted_and_checked(void) {
    fixture f;
    setup(&f, "sabe");
    OT_EQ_INT(f.clip->marker_count, 4);
    for (uint32_t i = 1; i < f.clip->marker_count; i++)
        OT_CHECK(f.clip->markers[i - 1].time <= f.clip->markers[i].time);
    OT_CHECK(!strcmp(f.clip->markers[0].name, "s"));
    oroya_error err = {0};
    oroya_marker bad = {1.5, "late"};
    OT_CHECK(oroya_clip_set_markers(f.clip, &bad, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(err.message, "late") != NULL);
    OT_CHECK(strstr(err.message, "walk") != NULL);
    OT_EQ_INT(f.clip->marker_count, 4); /* unchanged */
    /* Just past the end: the message shows a time that is past it (not "time 1 ... [0, 1]"). */
    oroya_marker just_past = {(double)f.clip->duration + 1e-6, "edge"};
    OT_CHECK(oroya_clip_set_markers(f.clip, &just_past, 1, &err) == OROYA_ERR_INVALID_DATA);
    char shown[64];
    snprintf(shown, sizeof shown, "time %.9g is outside", just_past.time);
    OT_CHECK_MSG(strstr(err.message, shown) != NULL, "%s", err.message);
    oroya_marker nan_time = {NAN, "x"};
    OT_CHECK(oroya_clip_set_markers(f.clip, &nan_time, 1, &err) == OROYA_ERR_NON_FINITE);
    oroya_marker no_name = {0.5, NULL};
    OT_CHECK(oroya_clip_set_markers(f.clip, &no_name, 1, &err) == OROYA_ERR_INVALID_DATA);
    oroya_clip *copy = NULL;
    OT_CHECK(oroya_clip_clone(f.clip, &copy, NULL) == OROYA_OK);
    OT_EQ_INT(copy->marker_count, 4);
    OT_CHECK(copy->markers != f.clip->markers && !strcmp(copy->markers[3].name, "e"));
    oroya_clip_destroy(copy);
    teardown(&f);
}

static void test_repeat_forward(void) {
    fixture f;
    setup(&f, "sabe");
    EXPECT(&f, 0.25, "s a "); /* [0, 0.25]: the start is covered once */
    EXPECT(&f, 0.25, "");     /* (0.25, 0.5]: a marker on the previous time: no */
    EXPECT(&f, 0.25, "b ");
    EXPECT(&f, 0.25, "e LOOP s "); /* the end, the wrap, then the start of the next loop */
    EXPECT(&f, 0.25, "a ");
    EXPECT(&f, 2.5, "b e LOOP s a b e s a b "); /* (0.25, 2.75]: several loops in one dt */
    teardown(&f);
}

static void test_repeat_backward(void) {
    fixture f;
    setup(&f, "ab");
    oroya_action_set_time_scale(f.action, -1);
    EXPECT(&f, 0.5, "LOOP b "); /* 0 -> wraps to 0.5: [0.5, 1] */
    EXPECT(&f, 0.5, "a ");      /* [0, 0.5) */
    EXPECT(&f, 0.5, "LOOP b ");
    EXPECT(&f, 2.0, "a LOOP b a b "); /* one LOOP event for both wraps */
    teardown(&f);
}

static void test_ping_pong(void) {
    fixture f;
    setup(&f, "sae");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_PINGPONG, INFINITY) == OROYA_OK);
    EXPECT(&f, 0.5, "s a ");
    EXPECT(&f, 0.5, "e LOOP ");   /* the turn touches the end once */
    EXPECT(&f, 0.5, "");          /* clip time 1 -> 0.5 */
    EXPECT(&f, 0.5, "a s LOOP "); /* back down through 0.25 to the start: once */
    EXPECT(&f, 0.5, "a ");
    EXPECT(&f, 2.0, "e LOOP a s a ");
    teardown(&f);
}

/* Ping-pong played backwards starts in round -1, which three shows mirrored (`loopCount & 1`:
 * raw time 0 shows the clip's end): its markers are the mirrored ones, as the pose is. From
 * 0.5 at time scale -1, 0.2 s a step: raw 0.5 -> 0.3 -> 0.1 shows 0.5 -> 0.7 -> 0.9, then the
 * pass through 0 turns at the end (raw 0.9 in round 0, shown 0.9), then down again. */
static void test_ping_pong_backward(void) {
    fixture f;
    setup(&f, "sabe");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_PINGPONG, INFINITY) == OROYA_OK);
    OT_CHECK(oroya_action_set_time_scale(f.action, -1) == OROYA_OK);
    OT_CHECK(oroya_action_set_time(f.action, 0.5) == OROYA_OK);
    EXPECT(&f, 0.2, "");        /* shown [0.5, 0.7] */
    EXPECT(&f, 0.2, "b ");      /* (0.7, 0.9] */
    EXPECT(&f, 0.2, "e LOOP "); /* 0.9 -> 1 (the turn) -> 0.9 */
    EXPECT(&f, 0.2, "b ");      /* [0.7, 0.9) */
    EXPECT(&f, 0.5, "a ");      /* [0.2, 0.7) */
    teardown(&f);
    /* From 0: raw 0 shows the end, which the first update covers. */
    setup(&f, "sabe");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_PINGPONG, INFINITY) == OROYA_OK);
    OT_CHECK(oroya_action_set_time_scale(f.action, -1) == OROYA_OK);
    EXPECT(&f, 0.1, "e LOOP ");   /* 1 -> 0.9 */
    EXPECT(&f, 0.5, "b ");        /* 0.9 -> 0.4 */
    EXPECT(&f, 0.5, "a s LOOP "); /* 0.4 -> 0 (the turn) -> 0.1 */
    teardown(&f);
}

static void test_once_and_finishes(void) {
    fixture f;
    setup(&f, "ae");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_ONCE, 1) == OROYA_OK);
    oroya_action_set_clamp_when_finished(f.action, true);
    EXPECT(&f, 0.6, "a ");
    EXPECT(&f, 0.6, "e FIN ");
    EXPECT(&f, 0.6, ""); /* never after a clamped finish */
    EXPECT(&f, 5.0, "");
    teardown(&f);

    setup(&f, "ab");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_REPEAT, 2) == OROYA_OK);
    EXPECT(&f, 0.75, "a b ");
    EXPECT(&f, 0.75, "LOOP a ");
    EXPECT(&f, 0.75, "b FIN "); /* 1.5 -> 2.25 clamps at 2: b at 1.75 only */
    EXPECT(&f, 0.75, "");
    teardown(&f);

    /* One dt far past the last repetition: every loop up to the finish, then nothing. */
    setup(&f, "a");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_PINGPONG, 3) == OROYA_OK);
    EXPECT(&f, 10.0, "a a a FIN ");
    EXPECT(&f, 1.0, "");
    teardown(&f);
}

static void test_set_time_and_restart(void) {
    fixture f;
    setup(&f, "sab");
    OT_CHECK(oroya_mixer_set_time(f.mixer, 0.5) == OROYA_OK);
    OT_CHECK_MSG(!strcmp(f.rec.log, ""), "set_time fired \"%s\"", f.rec.log);
    f.rec.len = 0;
    f.rec.log[0] = 0;
    EXPECT(&f, 0.3, "b ");
    oroya_action_stop(f.action);
    oroya_action_play(f.action);
    EXPECT(&f, 0.3, "s a "); /* play after stop: the start is covered again */
    /* reset + play, the three.js way to replay: also while the action is still scheduled,
     * where play changes nothing (the start was skipped) */
    oroya_action_reset(f.action);
    oroya_action_play(f.action);
    EXPECT(&f, 0.3, "s a ");
    teardown(&f);
    /* A finished LOOP_ONCE action, unclamped (disabled, still scheduled), replayed. */
    setup(&f, "sab");
    OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_ONCE, 1) == OROYA_OK);
    EXPECT(&f, 1.5, "s a b FIN ");
    oroya_action_reset(f.action);
    oroya_action_play(f.action);
    EXPECT(&f, 0.3, "s a ");
    teardown(&f);
}

/* Time scale 1.3, irregular dts, 10 loops: each marker fires once per loop it was passed,
 * which in closed form is floor((U - m) / d) + 1 for a clip time U reached from 0. */
static void test_irregular_long_run(void) {
    fixture f;
    setup(&f, "sabe");
    oroya_action_set_time_scale(f.action, 1.3);
    double u = 0;
    uint32_t seed = 12345;
    while (u < 10.0) {
        seed = seed * 1664525u + 1013904223u;
        double dt = 0.001 + (double)(seed >> 8) / (double)(1u << 24) * 0.09;
        step(&f, dt);
        u = oroya_action_time(f.action) + (double)oroya_action_loop_count(f.action);
    }
    const double m[4] = {0, 0.25, 0.75, 1.0};
    for (int i = 0; i < 4; i++) {
        int want = (int)floor((u - m[i]) / 1.0) + 1;
        OT_EQ_INT(f.rec.counts[i], want);
    }
    teardown(&f);
}

/* An action's own set_time is a jump like the mixer's: the next update covers (set time,
 * new] (markers jumped over do not fire, nor one on the set time itself), a set time past the
 * clip's end wraps without touching the end, and a time set before the first update after
 * play (either order) is the start that update covers. */
static void test_action_set_time(void) {
    fixture f;
    setup(&f, "sabe");
    EXPECT(&f, 0.1, "s ");
    OT_CHECK(oroya_action_set_time(f.action, 0.6) == OROYA_OK);
    OT_CHECK_MSG(!strcmp(f.rec.log, "s "), "set_time fired \"%s\"", f.rec.log);
    EXPECT(&f, 0.2, "b "); /* (0.6, 0.8]: "a" was jumped over */
    OT_CHECK(oroya_action_set_time(f.action, 0.2) == OROYA_OK);
    EXPECT(&f, 0.1, "a "); /* (0.2, 0.3], back behind an earlier crossing */
    OT_CHECK(oroya_action_set_time(f.action, 0.25) == OROYA_OK);
    EXPECT(&f, 0.1, ""); /* (0.25, 0.35]: on the set time, not crossed */
    OT_CHECK(oroya_action_set_time(f.action, 1.5) == OROYA_OK);
    EXPECT(&f, 0.1, "LOOP s a "); /* 1.5 -> 1.6 wraps to 0.6: the end was not crossed */
    teardown(&f);

    /* Played, then set: the first update covers the set time. */
    setup(&f, "sabe");
    OT_CHECK(oroya_action_set_time(f.action, 0.25) == OROYA_OK);
    EXPECT(&f, 0.1, "a ");
    EXPECT(&f, 0.1, "");
    /* Stopped, set, then played: the same. */
    oroya_action_stop(f.action);
    OT_CHECK(oroya_action_set_time(f.action, 0.75) == OROYA_OK);
    oroya_action_play(f.action);
    EXPECT(&f, 0.3, "b e LOOP s "); /* [0.75, 1.05] */
    /* Backwards from a set time, not the first update after play: [new, set). */
    oroya_action_set_time_scale(f.action, -1);
    OT_CHECK(oroya_action_set_time(f.action, 0.75) == OROYA_OK);
    EXPECT(&f, 0.5, "a "); /* [0.25, 0.75) */
    teardown(&f);
}

/* Markers set on the clip of a playing action. oroya/clip.h asks for load time (the call
 * allocates, and frees the list earlier events point at); done anyway between updates, every
 * update reads the clip's current list: the next update reports the new markers it crosses
 * from where the action is, also right after a set_time, and none once they are removed. */
static void test_markers_set_while_playing(void) {
    fixture f;
    setup(&f, "");
    EXPECT(&f, 0.1, "");
    OT_CHECK(oroya_action_set_time(f.action, 0.5) == OROYA_OK);
    const oroya_marker ab[2] = {{0.25, "a"}, {0.75, "b"}};
    OT_CHECK(oroya_clip_set_markers(f.clip, ab, 2, NULL) == OROYA_OK);
    EXPECT(&f, 0.3, "b ");      /* (0.5, 0.8] */
    EXPECT(&f, 0.5, "LOOP a "); /* (0.8, 1.3]: no marker at the ends in this list */
    const oroya_marker se[2] = {{1.0, "e"}, {0.0, "s"}};
    OT_CHECK(oroya_clip_set_markers(f.clip, se, 2, NULL) == OROYA_OK);
    EXPECT(&f, 0.5, "");          /* (0.3, 0.8] */
    EXPECT(&f, 0.5, "e LOOP s "); /* (0.8, 1.3] */
    OT_CHECK(oroya_clip_set_markers(f.clip, NULL, 0, NULL) == OROYA_OK);
    EXPECT(&f, 1.0, "LOOP ");
    teardown(&f);

    /* Set after play, before the first update: the start is covered. */
    setup(&f, "");
    OT_CHECK(oroya_clip_set_markers(f.clip, ab, 2, NULL) == OROYA_OK);
    OT_CHECK(oroya_action_set_time(f.action, 0.25) == OROYA_OK);
    EXPECT(&f, 0.6, "a b ");
    teardown(&f);
}

/* A callback that replaces the markers of the clip being reported (on the `replace_on`-th
 * marker "a"): that loop's pass over the old list stops there (before the fix the update went
 * on with the old count over the new, shorter list: ASan saw a read past its end), and the
 * loops after it, in the same update and later ones, report the new list. `twice`: two
 * replacements in one callback with lists as long as the old one, so the second may land at
 * the old list's address (glibc reuses it); the pass must still stop. */
static oroya_clip *replace_clip;
static int replace_on, replace_seen;
static bool replace_twice;

static void on_event_replacing(const oroya_event *e, void *user) {
    on_event(e, user);
    if (e->type == OROYA_EVENT_MARKER && !strcmp(e->marker->name, "a") &&
        ++replace_seen == replace_on) {
        const oroya_marker x = {0.05, "x"};
        const oroya_marker four[2][4] = {{{0.1, "p"}, {0.3, "q"}, {0.6, "r"}, {0.9, "t"}},
                                         {{0.1, "p"}, {0.3, "q"}, {0.6, "r"}, {0.9, "t"}}};
        if (replace_twice) {
            OT_CHECK(oroya_clip_set_markers(replace_clip, four[0], 4, NULL) == OROYA_OK);
            OT_CHECK(oroya_clip_set_markers(replace_clip, four[1], 4, NULL) == OROYA_OK);
        } else {
            OT_CHECK(oroya_clip_set_markers(replace_clip, &x, 1, NULL) == OROYA_OK);
        }
    }
}

static void replacing(fixture *f, const char *which, int on, bool twice) {
    setup(f, which);
    replace_clip = f->clip;
    replace_on = on, replace_seen = 0, replace_twice = twice;
    oroya_mixer_set_event_callback(f->mixer, on_event_replacing, &f->rec);
}

static void test_markers_replaced_from_callback(void) {
    fixture f;
    replacing(&f, "sabe", 1, false);
    EXPECT(&f, 0.1, "s ");        /* [0, 0.1] */
    EXPECT(&f, 1.0, "a LOOP x "); /* (0.1, 1]: "b" and "e" were in the old list; [0, 0.1] */
    EXPECT(&f, 0.5, "");          /* (0.1, 0.6] */
    EXPECT(&f, 0.5, "LOOP x ");   /* (0.6, 1], [0, 0.1] */
    uint32_t count = 0;
    const oroya_event *ev = oroya_mixer_events(f.mixer, &count, NULL);
    OT_EQ_INT(count, 2);
    OT_CHECK(count == 2 && ev[1].type == OROYA_EVENT_MARKER && !strcmp(ev[1].marker->name, "x"));
    teardown(&f);

    /* Replaced in the second loop of an update over four: the loops after it report the new
     * list. (0.1, 1], LOOP, [0, 1] stopped at "a", [0, 1] and [0, 0.1] with "x" at 0.05. */
    replacing(&f, "ab", 2, false);
    EXPECT(&f, 0.1, "");
    EXPECT(&f, 3.0, "a b LOOP a x x ");
    teardown(&f);

    /* Two replacements in one callback: the pass stops even if the second list took the
     * old one's address ("q", "r" and "t" of the new list are not reported by it). */
    replacing(&f, "sabe", 1, true);
    EXPECT(&f, 0.1, "s ");
    EXPECT(&f, 0.8, "a ");      /* (0.1, 0.9] */
    EXPECT(&f, 0.3, "LOOP p "); /* (0.9, 1], [0, 0.2] */
    teardown(&f);
}

/* Past OROYA_MAX_MARKER_LOOPS loops in one update the markers are counted in `dropped`, not
 * dispatched: one update of 5000.1 s on the 1 s clip passes marker "a" (0.25) 5000 times.
 * The callback sees at least the cap and fewer than all; every event that happened (5000
 * markers and one LOOP) is either in the list (64 by default) or counted as dropped. */
static void test_marker_loop_cap(void) {
    fixture f;
    setup(&f, "a");
    step(&f, 5000.1);
    uint32_t count = 0, dropped = 0;
    oroya_mixer_events(f.mixer, &count, &dropped);
    OT_CHECK_MSG(f.rec.counts[1] >= OROYA_MAX_MARKER_LOOPS && f.rec.counts[1] < 5000,
                 "%d markers dispatched", f.rec.counts[1]);
    OT_EQ_INT(count, 64);
    OT_EQ_INT(count + dropped, 5001);
    teardown(&f);
}

/* Ping-pong past the cap: a middle loop touches one end, not both, so the loops past the cap
 * count the markers of (0, d] or [0, d) as the loop's direction has it. Markers at both ends,
 * 5000 turns in one update: one end marker per turn and the update's one LOOP event (5001
 * events), each in the list or counted as dropped (two markers per skipped loop were counted
 * before: 5904). */
static void test_marker_loop_cap_ping_pong(void) {
    for (int dir = 0; dir < 2; dir++) {
        fixture f;
        setup(&f, "se");
        OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_PINGPONG, INFINITY) == OROYA_OK);
        if (dir) {
            OT_CHECK(oroya_action_set_time_scale(f.action, -1) == OROYA_OK);
        }
        step(&f, 0.25);
        step(&f, 5000.0);
        uint32_t count = 0, dropped = 0;
        oroya_mixer_events(f.mixer, &count, &dropped);
        /* 5000 s from 0.25 (or 0.75 backwards): 5000 turns, each with its end's marker. */
        OT_EQ_INT(count + dropped, 5001);
        teardown(&f);
    }
}

/* Loop counts near INT64_MAX: three updates of 4e18 s each on a repeating (and a ping-pong)
 * 1 s clip saturate the loop count, and the marker pass added loop indices to it as signed
 * 64-bit integers, which overflowed (undefined behaviour, which the sanitized build of this
 * test reports; found by a stateful API fuzz). Each update is accepted and fires the capped
 * markers and its LOOP event. The dropped count saturates at UINT32_MAX and stays there: the
 * repeat case's events after the cap's count added one more, and it wrapped to 0. */
static void test_marker_loop_count_saturated(void) {
    for (int pp = 0; pp < 2; pp++) {
        fixture f;
        setup(&f, "sa");
        if (pp) {
            OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_PINGPONG, INFINITY) == OROYA_OK);
        }
        for (int i = 0; i < 3; i++) {
            step(&f, 4e18);
            uint32_t count = 0, dropped = 0;
            oroya_mixer_events(f.mixer, &count, &dropped);
            OT_CHECK_MSG(count == 64 && dropped == UINT32_MAX,
                         "mode %d update %d: %u events, %u dropped", pp, i, count, dropped);
        }
        OT_CHECK(oroya_action_loop_count(f.action) == INT64_MAX);
        teardown(&f);
    }
}

/* A marker at the clip's end (its float duration, 1.20000005) on an action whose duration is
 * the exact 1.2 (oroya_action_desc.duration, as three.js has it) fires at the action's end,
 * once and on every repeat: it was never reached (the action's end is before it). */
static void test_marker_at_end_exact_duration(void) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(scene, "n", (oroya_node){0}, OROYA_NODE_BONE, &n) == OROYA_OK);
    static const float times[] = {0, 1.2f};
    static const float values[] = {0, 0, 0, 1, 0, 0};
    const oroya_track t = {.target = "n",
                           .property = OROYA_PROPERTY_TRANSLATION,
                           .interpolation = OROYA_INTERP_LINEAR,
                           .times = times,
                           .values = values,
                           .key_count = 2,
                           .components = 3};
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.name = "c", .tracks = &t, .track_count = 1},
                               &clip, NULL) == OROYA_OK);
    const oroya_marker ms[2] = {{0.6, "a"}, {(double)clip->duration, "e"}};
    OT_CHECK(oroya_clip_set_markers(clip, ms, 2, NULL) == OROYA_OK);
    for (int repeat = 0; repeat < 2; repeat++) {
        fixture f;
        memset(&f, 0, sizeof f);
        f.scene = scene;
        oroya_mixer_desc md = {.on_event = on_event, .user = &f.rec};
        OT_CHECK(oroya_mixer_create(scene, &md, &f.mixer) == OROYA_OK);
        OT_CHECK(oroya_action_create(f.mixer, clip, &(oroya_action_desc){.duration = 1.2},
                                     &f.action) == OROYA_OK);
        oroya_action_play(f.action);
        if (repeat) {
            OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_REPEAT, INFINITY) == OROYA_OK);
            EXPECT(&f, 1.0, "a ");
            EXPECT(&f, 1.0, "e LOOP a "); /* 1.0 -> 2.0: the end at 1.2, then 0.6 */
            EXPECT(&f, 1.0, "e LOOP a "); /* 0.8 -> 1.8: the end, then 0 -> 0.6 (included) */
        } else {
            OT_CHECK(oroya_action_set_loop(f.action, OROYA_LOOP_ONCE, 1) == OROYA_OK);
            EXPECT(&f, 1.0, "a ");
            EXPECT(&f, 1.0, "e FIN ");
        }
        oroya_mixer_destroy(f.mixer);
    }
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
}

/* A zero-length clip fires no marker in any loop mode, LOOP_ONCE included (its finishing
 * update fired a marker at 0, forwards and backwards). */
static void test_zero_length_clip_no_marker(void) {
    for (int mode = 0; mode < 3; mode++) {
        for (int back = 0; back < 2; back++) {
            fixture f;
            memset(&f, 0, sizeof f);
            OT_CHECK(oroya_scene_create(NULL, &f.scene) == OROYA_OK);
            oroya_node n;
            OT_CHECK(oroya_scene_add_node(f.scene, "n", (oroya_node){0}, OROYA_NODE_BONE, &n) ==
                     OROYA_OK);
            static const float times[] = {0};
            static const float values[] = {1, 2, 3};
            oroya_track t = {.target = "n",
                             .property = OROYA_PROPERTY_TRANSLATION,
                             .interpolation = OROYA_INTERP_LINEAR,
                             .times = times,
                             .values = values,
                             .key_count = 1,
                             .components = 3};
            OT_CHECK(
                oroya_clip_create(&(oroya_clip_desc){.name = "z", .tracks = &t, .track_count = 1},
                                  &f.clip, NULL) == OROYA_OK);
            OT_CHECK(oroya_clip_set_markers(f.clip, &(oroya_marker){0.0, "s"}, 1, NULL) ==
                     OROYA_OK);
            OT_CHECK(oroya_mixer_create(f.scene,
                                        &(oroya_mixer_desc){.on_event = on_event, .user = &f.rec},
                                        &f.mixer) == OROYA_OK);
            OT_CHECK(oroya_mixer_play(f.mixer, f.clip, &f.action) == OROYA_OK);
            OT_CHECK(oroya_action_set_loop(f.action, (oroya_loop_mode)mode, INFINITY) == OROYA_OK);
            if (back)
                OT_CHECK(oroya_action_set_time_scale(f.action, -1) == OROYA_OK);
            for (int k = 0; k < 3; k++) {
                const char *got = step(&f, 0.25);
                OT_CHECK_MSG(!strstr(got, "s "), "mode %d back %d update %d: \"%s\"", mode, back, k,
                             got);
            }
            teardown(&f);
        }
    }
}

/* oroya_mixer_destroy from the event callback: the update stops there, so no event comes
 * after that one (the rest of a multi-loop pass kept coming before), and it returns OK. */
static oroya_mixer *doomed;
static int events_after_destroy, destroy_calls;
static void on_event_destroying(const oroya_event *e, void *user) {
    (void)e, (void)user;
    if (destroy_calls++) {
        events_after_destroy++;
        return;
    }
    oroya_mixer_destroy(doomed);
}

static void test_destroy_from_callback_stops_events(void) {
    fixture f;
    setup(&f, "sab");
    oroya_mixer_destroy(f.mixer); /* the fixture's, replaced by one with the callback above */
    OT_CHECK(oroya_mixer_create(f.scene, &(oroya_mixer_desc){.on_event = on_event_destroying},
                                &f.mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(f.mixer, f.clip, NULL) == OROYA_OK);
    doomed = f.mixer;
    events_after_destroy = destroy_calls = 0;
    OT_EQ_INT(oroya_mixer_update(f.mixer, 3.5), OROYA_OK); /* s a b LOOP s a b ... */
    OT_EQ_INT(destroy_calls, 1);
    OT_EQ_INT(events_after_destroy, 0);
    oroya_clip_destroy(f.clip); /* the mixer is gone */
    oroya_scene_destroy(f.scene);
}

int main(void) {
    OT_RUN(test_sorted_and_checked);
    OT_RUN(test_repeat_forward);
    OT_RUN(test_repeat_backward);
    OT_RUN(test_ping_pong);
    OT_RUN(test_ping_pong_backward);
    OT_RUN(test_once_and_finishes);
    OT_RUN(test_set_time_and_restart);
    OT_RUN(test_irregular_long_run);
    OT_RUN(test_action_set_time);
    OT_RUN(test_markers_set_while_playing);
    OT_RUN(test_markers_replaced_from_callback);
    OT_RUN(test_marker_loop_cap);
    OT_RUN(test_marker_loop_cap_ping_pong);
    OT_RUN(test_marker_loop_count_saturated);
    OT_RUN(test_marker_at_end_exact_duration);
    OT_RUN(test_destroy_from_callback_stops_events);
    OT_RUN(test_zero_length_clip_no_marker);
    return ot_finish();
}
