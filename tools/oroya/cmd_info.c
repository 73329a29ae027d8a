/* oroya info: not implemented yet (it arrives with glTF import). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_info(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya info: not implemented yet\n");
    return 1;
}
