/* oroya_bench: the figures of `oroya bench` as a standalone program (CMake does not build
 * bench/; the CLI subcommand is what CI runs). Build it against an installed or built oroya:
 *
 *   cc -O2 -Iinclude -Itools/oroya bench/oroya_bench.c tools/oroya/cmd_bench.c \
 *      build/liboroya.a -lcjson -lm -lpthread -o oroya_bench
 *   ./oroya_bench ../shared/bench/data/humanoid67.glb
 *
 * Options and output: see tools/oroya/cmd_bench.c and docs/performance.md. */
#include "cli.h"

int main(int argc, char **argv) { return oroya_cmd_bench(argc, argv); }
