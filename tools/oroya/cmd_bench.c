/* oroya bench: not implemented yet (it arrives with speed). */
#include <stdio.h>

#include "cli.h"

int oroya_cmd_bench(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "oroya bench: not implemented yet\n");
    return 1;
}
