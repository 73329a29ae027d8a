/* The result text of a run (scenario_internal.h's play_buf): a growable buffer through the
 * desc's allocator, JSON strings, and numbers printed exactly as JavaScript's JSON.stringify
 * prints them, so results diff cleanly against three.js's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

void play_buf_free(play_buf *b) {
    if (b->data)
        oroya_allocator_free(b->alloc, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void play_buf_putn(play_buf *b, const char *s, size_t n) {
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = oroya_allocator_alloc(b->alloc, cap, 16);
        if (!p) {
            b->failed = true;
            return;
        }
        if (b->data) {
            memcpy(p, b->data, b->len + 1);
            oroya_allocator_free(b->alloc, b->data);
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void play_buf_put(play_buf *b, const char *s) { play_buf_putn(b, s, strlen(s)); }

void play_buf_string(play_buf *b, const char *s) {
    play_buf_put(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': play_buf_put(b, "\\\""); break;
        case '\\': play_buf_put(b, "\\\\"); break;
        case '\b': play_buf_put(b, "\\b"); break;
        case '\f': play_buf_put(b, "\\f"); break;
        case '\n': play_buf_put(b, "\\n"); break;
        case '\r': play_buf_put(b, "\\r"); break;
        case '\t': play_buf_put(b, "\\t"); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                play_buf_put(b, esc);
            } else {
                play_buf_putn(b, (const char *)p, 1);
            }
        }
    }
    play_buf_put(b, "\"");
}

/* ECMAScript Number::toString: find the fewest significant digits that read back as v
 * (printf rounds correctly, so trying 1..17 digits finds them), then lay the digits out
 * as JS does: plain notation for exponents -7 < e < 21, otherwise d.ddde+x. */
static char *play_format_number(double v, char *out) {
    if (!isfinite(v)) {
        strcpy(out, "null");
        return out;
    }
    if (v == 0) {
        strcpy(out, "0");
        return out;
    }
    char tmp[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    const char *s = tmp;
    bool neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    int k = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && k < 20)
            digits[k++] = *s;
    int e = *s == 'e' ? atoi(s + 1) : 0;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    int n = e + 1; /* the decimal point sits after n digits */
    char *o = out;
    if (neg)
        *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = k; i < n; i++)
            *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -n; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
    }
    *o = '\0';
    return out;
}

void play_buf_number(play_buf *b, double v) {
    char tmp[40];
    play_buf_put(b, play_format_number(v, tmp));
}
