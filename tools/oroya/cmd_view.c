/* oroya view: not implemented yet (it arrives with the renderer). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_view(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya view: not implemented yet\n");
    return 1;
}
