/* oroya: the command-line tool. One file per subcommand (cmd_<name>.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "oroya/base.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"play", oroya_cmd_play, "run a scenario (three.js oracle format) and print the result"},
    {"info", oroya_cmd_info, "print a glTF file's nodes, meshes, skins and clips"},
    {"sample", oroya_cmd_sample,
     "sample a clip of a glTF file and print local TRS and bone matrices as JSON"},
    {"render", oroya_cmd_render, "render a glTF file or the built-in demo to PNG, GIF or MP4"},
    {"export", oroya_cmd_export,
     "write a glTF file again through oroya's exporter, with clip utilities"},
    {"plot", oroya_cmd_plot, "draw animation curves to SVG or PNG"},
    {"view", oroya_cmd_view, "open a glTF file in an interactive window"},
    {"bench", oroya_cmd_bench, "run the speed benchmarks"},
};

static void usage(FILE *f) {
    fprintf(f, "oroya %s - 3D character animation\n\nusage: oroya <command> [options]\n\n",
            OROYA_VERSION_STRING);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(f, "\n'oroya <command> --help' describes each command.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("oroya %s\n", OROYA_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "oroya: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
