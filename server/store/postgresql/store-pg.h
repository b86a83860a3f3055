/*
 * store-pg.h: the PostgreSQL backend of hokitod's store: a database named by a libpq URI
 * (postgresql://..., postgres://...), the same contract as the SQLite backend (store-port.h).
 * store-db.c routes such a --db here; nothing else names it.
 *
 * The store lives in the connection's current schema (the first of its search_path, "public" by
 * default): its tables, a table hokito_meta that marks it as hokitod's and holds its schema
 * version, and the functions and triggers that keep its counts. One hokitod writes a store at a
 * time (a session-level advisory lock of the writer's connection); readers and --check use
 * connections of their own. See store-pg-impl.h for how the files of the backend share the work.
 */
#ifndef HOKITO_SERVER_STORE_PG_H
#define HOKITO_SERVER_STORE_PG_H

#include "store-port.h"

extern const struct store_backend store_backend_postgresql;

#endif
