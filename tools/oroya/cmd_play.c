/* oroya play SCENARIO.json: the command line over oroya_scenario_run (oroya_scenario.h),
 * which runs a scenario in the format of docs/scenario.md (three.js's reference format) through
 * oroya's mixer; this prints the result format on stdout, so oroya can be compared with
 * three.js number by number. A malformed scenario is reported with the JSON path of the
 * offending value, exit status 1; warnings (normalized rotation keys) go to stderr. */
#define _POSIX_C_SOURCE 200809L /* fstat, fileno */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya_scenario.h"

/* The scenario's text from a file or stdin ("-"), NUL-terminated. At most
 * OROYA_SCENARIO_MAX_SIZE bytes are kept: past them *too_big is set and NULL returned (a
 * pipe has no size to check first, so the read stops there instead of growing the buffer
 * without end). */
static char *read_file(const char *path, size_t *len, bool *too_big) {
    FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    const size_t limit = (size_t)OROYA_SCENARIO_MAX_SIZE;
    struct stat st;
    if (f != stdin && fstat(fileno(f), &st) == 0 && (uint64_t)st.st_size > limit) {
        fclose(f);
        *too_big = true; /* a file says its size: nothing is read */
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap)
            break;
        if (n > limit) {
            *too_big = true;
            break;
        }
        /* The last buffer holds limit + 1 bytes and the NUL: one byte more is too many. */
        size_t next = cap > limit / 2 ? limit + 2 : cap * 2;
        char *nb = realloc(buf, next);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap = next;
    }
    bool err = ferror(f) != 0;
    if (f != stdin)
        fclose(f);
    if (!buf || err || *too_big) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: oroya play [--base DIR] [--allow-gltf-dir DIR] [--allow-outside]\n"
            "                  [--report-path] SCENARIO.json\n\n"
            "Runs a scenario (nodes, skins, clips, actions, script, steps, record; \"gltf\"\n"
            "models) through oroya's mixer and prints the result on stdout, one frame per\n"
            "line; the format is documented in docs/scenario.md of the oroya sources, the\n"
            "same as three.js's reference runner, so results compare number by number.\n"
            "'-' reads the scenario from stdin; a \"gltf\" path is relative to the scenario's\n"
            "folder, or to --base DIR (default: the working directory for stdin), and the\n"
            "model must lie in that folder or its subfolders (\"..\" and symbolic links\n"
            "resolved; refused otherwise).\n"
            "--allow-gltf-dir DIR lets the \"gltf\" model lie in DIR (and its subfolders)\n"
            "too.\n"
            "--allow-outside lets the model's buffers lie outside the model's folder\n"
            "(refused by default).\n"
            "--report-path prints to stderr, after a successful run, how many of the mixer\n"
            "updates went through the pose kernel: \"oroya play: FILE: path: kernel K of N\n"
            "updates\" (the others took the property path).\n"
            "Limits: a scenario of more than %llu bytes (2 GiB, OROYA_SCENARIO_MAX_SIZE; a\n"
            "file by its size, stdin one byte past it) or of more than %llu JSON values\n"
            "(OROYA_SCENARIO_MAX_JSON_VALUES: arrays, objects, strings, numbers, true, false\n"
            "and null, keys not counted) is refused before it is parsed; a \"gltf\" model\n"
            "has the same two limits (OROYA_GLTF_MAX_FILE_SIZE, OROYA_GLTF_MAX_JSON_VALUES).\n"
            "Exit status: 0 ok, 1 bad scenario or failure (the message names the JSON path),\n"
            "2 usage.\n",
            (unsigned long long)OROYA_SCENARIO_MAX_SIZE,
            (unsigned long long)OROYA_SCENARIO_MAX_JSON_VALUES);
}

static void print_warning(const char *message, void *user) {
    fprintf(stderr, "oroya play: %s: warning: %s\n", cli_esc((const char *)user), cli_esc(message));
}

int oroya_cmd_play(int argc, char **argv) {
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    const char *base = NULL, *file = NULL, *gltf_dir = NULL;
    bool allow_outside = false, report_path = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--base") && i + 1 < argc)
            base = argv[++i];
        else if (!strcmp(argv[i], "--allow-gltf-dir") && i + 1 < argc)
            gltf_dir = argv[++i];
        else if (!strcmp(argv[i], "--allow-outside"))
            allow_outside = true;
        else if (!strcmp(argv[i], "--report-path"))
            report_path = true;
        else if (!file && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
            file = argv[i];
        else {
            /* Named, as the other commands do (it printed the usage alone). */
            fprintf(stderr, "oroya play: bad or incomplete argument '%s'\n", cli_esc(argv[i]));
            usage(stderr);
            return 2;
        }
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    char dir[4096];
    if (!base) {
        const char *slash = strrchr(file, '/');
        if (!strcmp(file, "-") || !slash)
            snprintf(dir, sizeof dir, ".");
        else if (slash == file)
            snprintf(dir, sizeof dir, "/");
        else
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
        base = dir;
    }
    if (strcmp(file, "-") && cli_check_regular_file("play", file))
        return 1;
    size_t len = 0;
    bool too_big = false;
    errno = 0;
    char *text = read_file(file, &len, &too_big);
    if (too_big) {
        fprintf(stderr, "oroya play: %s: over %llu bytes (OROYA_SCENARIO_MAX_SIZE, 2 GiB)\n",
                cli_esc(file), (unsigned long long)OROYA_SCENARIO_MAX_SIZE);
        return 1;
    }
    if (!text) {
        fprintf(stderr, "oroya play: %s: %s\n", cli_esc(file), strerror(errno ? errno : EIO));
        return 1;
    }
    oroya_scenario_desc desc = {.base_dir = base,
                                .allow_gltf_dir = gltf_dir,
                                .on_warning = print_warning,
                                .user = (void *)(uintptr_t)file,
                                .allow_outside_base_dir = allow_outside};
    oroya_scenario_stats stats = {0};
    if (report_path)
        desc.stats = &stats;
    char *out = NULL;
    size_t out_len = 0;
    oroya_error err = {0};
    oroya_result r = oroya_scenario_run(text, len, &desc, &out, &out_len, &err);
    free(text);
    if (r != OROYA_OK) {
        fprintf(stderr, "oroya play: %s: %s\n", cli_esc(file), cli_esc(err.message));
        return 1;
    }
    if (report_path)
        fprintf(stderr, "oroya play: %s: path: kernel %llu of %llu updates\n", cli_esc(file),
                (unsigned long long)stats.kernel_updates, (unsigned long long)stats.updates);
    int rc = 0;
    if (cli_json_write(stdout, out, out_len) || fflush(stdout) != 0)
        rc = 1;
    oroya_scenario_free_output(&desc, out);
    return rc;
}
