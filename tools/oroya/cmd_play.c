/* oroya play: not implemented yet (it arrives with the mixer). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_play(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya play: not implemented yet\n");
    return 1;
}
