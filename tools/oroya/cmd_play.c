/* oroya play SCENARIO.json: not implemented yet (issue: the mixer). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_play(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya play: not implemented yet\n");
    return 1;
}
