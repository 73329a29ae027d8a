/* Reading files from strangers (the I/O layer: glTF files, their buffers and images). */
#ifndef OROYA_INTERNAL_IO_FILE_H
#define OROYA_INTERNAL_IO_FILE_H

#include "internal/base.h"

/* A regular file open for reading. */
typedef struct oroya__file {
    int fd;
    uint64_t size;
} oroya__file;

/* Opens `path` for reading without ever blocking: a FIFO, a device, a directory or a socket
 * is refused (OROYA_ERR_IO, "is not a regular file") before a byte is read, so a file name
 * cannot make a load hang. The type is checked on the open descriptor (fstat), so the file
 * cannot be swapped between the check and the read.
 * When `inside` is not NULL, the file must lie inside that directory once "..", symbolic
 * links and "." are resolved; otherwise OROYA_ERR_ACCESS. That check runs before anything is
 * opened or its type looked at, and resolves a path that does not exist (or a link to
 * nothing) as far as it can, so the refusal of a path outside is the same whether it exists
 * or what it is: it tells nothing about the outside. After the open, a second check compares the device and
 * inode of the resolved path with the open descriptor's, so a link changed between the two
 * steps is refused too.
 * Errors name `where` and `shown` (the name as the user wrote it) and carry the C library's
 * reason: OROYA_ERR_NOT_FOUND (no such file or folder), OROYA_ERR_IO (any other failure to
 * open, or not a regular file), OROYA_ERR_ACCESS, OROYA_ERR_LIMIT (more than max_size
 * bytes). On error nothing stays open. */
oroya_result oroya__file_open(const char *path, const char *inside, uint64_t max_size,
                              oroya__file *out, oroya_error *err, const char *where,
                              const char *shown);

/* Reads the whole file (f->size bytes) into buf and closes it. OROYA_ERR_IO when the file
 * gives fewer bytes (it shrank) or fails. */
oroya_result oroya__file_read_all(oroya__file *f, void *buf, oroya_error *err, const char *where,
                                  const char *shown);

void oroya__file_close(oroya__file *f);

#endif

/* ---- JSON text from strangers ---------------------------------------------------------- */

/* Checks what cJSON does not: RFC 8259 text is UTF-8 (no overlong forms, no surrogates,
 * nothing past U+10FFFF) and has no raw NUL. cJSON takes a NUL for whitespace between
 * tokens and cuts a string at one, so "na\0me" would load as "na". Trailing NUL bytes after
 * the text (padding some writers leave) are allowed: *json_len gets the length without
 * them. On a bad byte returns false, *bad the byte offset and *why "a NUL byte" or
 * "invalid UTF-8". */
bool oroya__json_text_check(const char *text, size_t len, size_t *json_len, size_t *bad,
                            const char **why);

/* Length of the UTF-8 sequence at s (n >= 1 bytes available), 0 when it is not well
 * formed (Unicode 15, table 3-7). */
size_t oroya__utf8_sequence(const unsigned char *s, size_t n);

/* What one pass over JSON text finds before cJSON parses it. */
typedef struct oroya__json_counts {
    /* The values in the text as cJSON makes them, one cJSON item each: every array, object,
     * string, number, true, false and null; an object's key is not one (cJSON keeps it in
     * its value's item). For text cJSON accepts this is its item count exactly; for text it
     * refuses, cJSON stops after at most this many items plus two (a member it started). */
    size_t values;
    /* The byte of the first '[' or '{' that opens a level past the depth limit (where
     * cJSON stops), SIZE_MAX when arrays and objects never nest that deep. */
    size_t too_deep_at;
} oroya__json_counts;

/* Counts the values of text[0..len) and finds where arrays and objects first nest deeper
 * than `depth_limit`, in one pass, strings skipped (memchr to each quote). Bytes up to the
 * space are whitespace and a leading byte order mark is skipped, as cJSON does. Never
 * allocates; the text need not be valid JSON. */
void oroya__json_scan(const char *text, size_t len, size_t depth_limit, oroya__json_counts *out);

/* Whether arrays and objects in text[0..len) nest deeper than `limit` (strings skipped):
 * cJSON refuses such text with a plain parse error at the depth limit. */
bool oroya__json_too_deep(const char *text, size_t len, size_t limit);
