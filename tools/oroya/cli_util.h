/* What every subcommand of the oroya CLI shares: opening input files with errors in one
 * style ("oroya render: /x.glb: No such file or directory"), and one resolver for clip and
 * node names, so `--clip animation_2` or `--node node_5` mean the same thing everywhere. */
#ifndef OROYA_CLI_UTIL_H
#define OROYA_CLI_UTIL_H

#include <stdio.h>

#include "oroya/clip.h"
#include "oroya/gltf.h"
#include "oroya/scene.h"

/* `s` fit for a terminal: every control character, which a name from a file could use to
 * move the cursor, set the window title or clear the screen, written as an escape. C0 (0x00
 * to 0x1f, newline and tab included) and DEL become "\x1b", C1 (U+0080 to U+009F) "\u009b",
 * and a byte that is not UTF-8 "\xff". Returns `s` itself when nothing needs escaping, else
 * a copy that stays valid for the next 7 calls (so one printf can take several); "" for
 * NULL, and "(out of memory)" when no copy can be made. Every text output and message of the
 * CLI that can carry a string from a file (names, URIs, library messages) goes through it. */
const char *cli_esc(const char *s);

/* Writes JSON text `len` bytes long to `f`, with DEL and C1 controls (U+0080 to U+009F),
 * which JSON lets strings hold raw, written as \u007f and \u009b instead: the same JSON, and
 * nothing a terminal would act on (C0 controls are escaped by every JSON writer already).
 * Returns 0, or 1 when the write failed. */
int cli_json_write(FILE *f, const char *text, size_t len);

/* 0 when `path` exists and may be read (checked without opening it, so nothing blocks);
 * else prints "oroya CMD: PATH: <errno text>" and returns 1. */
int cli_check_readable(const char *cmd, const char *path);

/* cli_check_readable, and a regular file (a FIFO or a device is refused before anything
 * opens it, so reading cannot block): for the CLI's own readers (scenarios). */
int cli_check_regular_file(const char *cmd, const char *path);

/* Prints "oroya CMD: PATH: MESSAGE" for a failed library call, or "oroya CMD: MESSAGE"
 * when the message names the path already, so the path shows once. */
void cli_report(const char *cmd, const char *path, const oroya_error *err);

/* When import ignored animation channels (an unknown target.path such as "pointer", or no
 * target.node), prints "oroya CMD: PATH: warning: animations[i].channels[j].target.path: ...;
 * channel ignored ..." once, naming the first and counting them all. */
void cli_warn_ignored_channels(const char *cmd, const char *path, const oroya_gltf_model *m);
/* Likewise for the animations whose extras (markers, curves) import dropped. */
void cli_warn_ignored_extras(const char *cmd, const char *path, const oroya_gltf_model *m);

/* oroya_gltf_load with the errors above, cli_warn_ignored_channels and
 * cli_warn_ignored_extras. 0 on success; 1 (message printed) on failure. */
int cli_gltf_load(const char *cmd, const char *path, const oroya_gltf_import_desc *desc,
                  oroya_gltf_model **out);

/* The clip `name` among clips[0..count) of `file` (NULL: the built-in demo): a clip's own name
 * first, else "animation_<i>" (the i-th clip, as oroya info lists them). Returns its index, or
 * -1 after printing "oroya CMD: FILE: no clip named 'NAME'; clips: ..." with every clip's
 * name. */
int32_t cli_find_clip(const char *cmd, const char *file, oroya_clip *const *clips, uint32_t count,
                      const char *name);
/* cli_find_clip's lookup alone: the index, or -1 with nothing printed. */
int32_t cli_clip_index(oroya_clip *const *clips, uint32_t count, const char *name);

/* The node `name` of `scene` (of `file`, NULL: the built-in demo): its scene name, or, for a
 * glTF file (model not NULL), any name oroya_gltf_model_find_node takes ("node_<i>"). 0 on
 * success; 1 after printing "oroya CMD: FILE: no node named 'NAME' (oroya info lists them)". */
int cli_find_node(const char *cmd, const char *file, const oroya_scene *scene,
                  const oroya_gltf_model *model, const char *name, oroya_node *out);

/* "WxH" with W and H plain decimal digits (no sign, no spaces, nothing after), each at most
 * 99999: true and *w, *h set, else false (sscanf's %u took "+64x+64" and read
 * "-4294967232x64" as 64x64). The caller checks the range it allows. */
bool cli_parse_size(const char *text, unsigned *w, unsigned *h);

/* A compression tolerance (scene units) from the text of --compress TOL: 0 and *out set, or 2
 * after printing "oroya CMD: --compress TEXT: the tolerance must be a number in (0, MAX]". */
int cli_parse_tolerance(const char *cmd, const char *text, float *out);

#endif
