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
 * links and "." are resolved; otherwise OROYA_ERR_ACCESS. The check compares the device and
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
oroya_result oroya__file_read_all(oroya__file *f, void *buf, oroya_error *err,
                                  const char *where, const char *shown);

void oroya__file_close(oroya__file *f);

#endif
