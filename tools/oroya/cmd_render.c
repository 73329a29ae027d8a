/* oroya render: not implemented yet (it arrives with the renderer). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya render: not implemented yet\n");
    return 1;
}
