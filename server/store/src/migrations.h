/*
 * The migrations embedded at build time (migrations_embedded.c is generated
 * from the migrations/NNNN_name.sql files by cmake/embed_migrations.cmake) and the runner that
 * applies them.
 */
#ifndef RS_STORE_MIGRATIONS_H
#define RS_STORE_MIGRATIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct rs_migration {
    uint32_t version;     /* 1, 2, 3 ... */
    const char *name;     /* "initial" */
    const char *file;     /* "0001_initial.sql" */
    const char *sql;      /* the file's exact bytes, NUL-terminated */
    size_t size;          /* bytes, without the NUL */
} rs_migration;

/* Sorted by version; rs_migrations[i].version == i + 1. */
extern const rs_migration rs_migrations[];
extern const uint32_t rs_migration_count;

struct rs_store;

/* Checks the applied migrations recorded in the database against the
 * embedded ones and, unless read_only, applies the missing ones up to
 * version upto, each in its own transaction. Writes the resulting version
 * into s->schema_version. */
int rs_migrate(struct rs_store *s, uint32_t upto, int read_only, char *err, size_t err_len);

#endif
