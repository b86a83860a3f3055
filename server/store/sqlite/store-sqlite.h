/*
 * store-sqlite.h: the SQLite backend as the registry sees it (store-db.c): one struct
 * store_backend. Its own API, which its tests and nothing else above the store use, is store.h.
 */
#ifndef HOKITO_SERVER_STORE_SQLITE_H
#define HOKITO_SERVER_STORE_SQLITE_H

#include "store-port.h"

extern const struct store_backend store_backend_sqlite;

#endif
