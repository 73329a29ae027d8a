/* Output helpers of `oroya play`: a growable text buffer and numbers printed exactly as
 * JavaScript's JSON.stringify prints them, so results diff cleanly against three.js's. */
#ifndef OROYA_PLAY_FORMAT_H
#define OROYA_PLAY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct play_buf {
    char *data;
    size_t len, cap;
    bool failed; /* an allocation failed; the content is truncated */
} play_buf;

void play_buf_free(play_buf *b);
void play_buf_put(play_buf *b, const char *s);
void play_buf_putn(play_buf *b, const char *s, size_t n);
/* A JSON string literal with the escapes JSON.stringify uses. */
void play_buf_string(play_buf *b, const char *s);
/* A number as JSON.stringify(v): the shortest decimal that reads back as v, integers
 * without ".0", exponent form below 1e-6 and from 1e21 on, -0 as 0, NaN/Infinity as null. */
void play_buf_number(play_buf *b, double v);

/* The same number format into `out` (at least 32 bytes). Returns out. */
char *play_format_number(double v, char *out);

#endif
