/* oroya_bench: the figures of `oroya bench` as a standalone program, built by CMake as
 * build/bench/oroya_bench (the CLI subcommand is what CI runs, with --quick):
 *
 *   ./build/bench/oroya_bench            # built-in characters; or HUMANOID.glb [--skin CROWD.glb]
 *
 * Options and output: see tools/oroya/cmd_bench.c and docs/performance.md. */
#include "cli.h"

int main(int argc, char **argv) { return oroya_cmd_bench(argc, argv); }
