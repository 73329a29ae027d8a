/* oroya/base.h - result codes, error details and the allocator shared by every module.
 *
 * Every fallible oroya call returns an oroya_result; OROYA_OK is 0. Calls that can say
 * more (loaders, validators) also fill a caller-supplied oroya_error with a message that
 * names the place: a JSON path, a track, a key index. oroya keeps no error state in
 * globals, so two threads never see each other's errors.
 *
 * Memory: top-level desc structs take an optional oroya_allocator. A zeroed allocator
 * means malloc/free. The alignment argument exists because SIMD data wants 16 bytes.
 */
#ifndef OROYA_BASE_H
#define OROYA_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Only the declarations of the public headers are exported from the shared libraries:
 * liboroya is compiled with hidden visibility, and every public header wraps its
 * declarations in OROYA_API_BEGIN ... OROYA_API_END (OROYA_API marks a single one).
 * Internal oroya__ functions stay inside the library. */
#if defined(__GNUC__) || defined(__clang__)
#define OROYA_API __attribute__((visibility("default")))
#define OROYA_API_BEGIN _Pragma("GCC visibility push(default)")
#define OROYA_API_END _Pragma("GCC visibility pop")
#else
#define OROYA_API
#define OROYA_API_BEGIN
#define OROYA_API_END
#endif

/* Marks a function kept for one release under an old name: calls still compile and link,
 * with a warning that names the replacement (docs/api.md, "Naming", lists them). */
#if defined(__GNUC__) || defined(__clang__)
#define OROYA_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#define OROYA_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#define OROYA_DEPRECATED(msg)
#endif

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

#define OROYA_VERSION_MAJOR 0
#define OROYA_VERSION_MINOR 1
#define OROYA_VERSION_PATCH 0
#define OROYA_VERSION_STRING "0.1.0"

typedef enum oroya_result {
    OROYA_OK = 0,
    OROYA_ERR_INVALID_ARGUMENT, /* NULL pointer, bad count, bad enum, non-finite parameter */
    OROYA_ERR_OUT_OF_MEMORY,    /* the allocator returned NULL */
    OROYA_ERR_IO,               /* a file could not be opened, read or written */
    OROYA_ERR_PARSE,            /* malformed text or container (JSON, GLB, base64) */
    OROYA_ERR_INVALID_DATA,     /* well-formed input that breaks a rule of its format */
    OROYA_ERR_OUT_OF_RANGE,     /* an index or offset outside what it refers to */
    OROYA_ERR_NOT_FOUND,        /* a name or file that does not exist */
    OROYA_ERR_STALE_HANDLE,     /* a handle whose object was removed */
    OROYA_ERR_CYCLE,            /* a parent/child change or file graph that loops */
    OROYA_ERR_LIMIT,            /* a documented maximum was exceeded */
    OROYA_ERR_UNSUPPORTED,      /* valid input that oroya does not handle (yet) */
    OROYA_ERR_NO_KEYS,          /* a track without keys */
    OROYA_ERR_BAD_TIMES,        /* key times not finite or not strictly increasing */
    OROYA_ERR_VALUE_COUNT,      /* values do not match keys x components */
    OROYA_ERR_UNKNOWN_PROPERTY, /* a track property oroya does not know */
    OROYA_ERR_NON_FINITE,       /* NaN or infinity where a finite number is required */
    OROYA_ERR_BACKEND,          /* the graphics backend (EGL/OpenGL) failed */
    OROYA_ERR_ACCESS,           /* a file outside the folder it may be read from */
    OROYA_ERR_BUSY,             /* a call the object cannot take now (from its callback) */
    OROYA_RESULT_COUNT_
} oroya_result;

/* A static, human-readable name for a result code ("invalid argument"). Never NULL. */
const char *oroya_result_string(oroya_result result);

/* Length in bytes of the UTF-8 sequence at s (n >= 1 bytes available), or 0 when the bytes
 * there are not well-formed UTF-8 (overlong, surrogate, past U+10FFFF, cut short). Names
 * oroya reads from files are checked UTF-8 already; this is for text of the caller's own
 * (a file name from the command line) that goes next to them into JSON. */
size_t oroya_utf8_sequence_length(const char *s, size_t n);

/* Details of a failure. Fill by passing a pointer to a zeroed struct; `message` names
 * the place ("animations[2].samplers[0].output: accessor 17 has 12 elements, expected 36"). */
#define OROYA_ERROR_MESSAGE_MAX 512
typedef struct oroya_error {
    oroya_result result;
    char message[OROYA_ERROR_MESSAGE_MAX];
} oroya_error;

/* Optional allocator. `alloc` returns memory aligned to `align` (a power of two) or NULL;
 * `free` accepts NULL. A zeroed struct means the C library's allocator. */
typedef struct oroya_allocator {
    void *(*alloc)(size_t size, size_t align, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} oroya_allocator;

/* Memory through an optional allocator (NULL or zeroed: malloc/free), for code built on
 * liboroya that takes an oroya_allocator as liboroya does (liboroya_render uses these).
 * alloc: NULL for size 0 or on failure; calloc: zeroed, NULL when count * size overflows;
 * free: NULL is a no-op. `align` is a power of two. */
void *oroya_allocator_alloc(const oroya_allocator *a, size_t size, size_t align);
void *oroya_allocator_calloc(const oroya_allocator *a, size_t count, size_t size, size_t align);
void oroya_allocator_free(const oroya_allocator *a, void *ptr);

/* Fills err (when not NULL) with `result` and a printf-style message, and returns `result`:
 * the error convention of liboroya, for the layers built on it. */
oroya_result oroya_error_set(oroya_error *err, oroya_result result, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_BASE_H */
