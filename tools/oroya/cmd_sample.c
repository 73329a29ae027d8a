/* oroya sample: not implemented yet (it arrives with glTF import). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_sample(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya sample: not implemented yet\n");
    return 1;
}
