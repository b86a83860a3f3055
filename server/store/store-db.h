/*
 * store-db.h: the registry of the store's backends: a store opened from hokitod's --db, whatever
 * its backend, and what the server and its operators' commands ask of it besides the ports
 * (store-port.h). The text of --db chooses the backend:
 *
 *   PATH, sqlite:PATH     an SQLite file (store/sqlite/); ":memory:" a private temporary
 *                         database that keeps nothing
 *   postgresql://..., postgres://...
 *                         a PostgreSQL database (store/postgresql/), a libpq URI
 *
 * Nothing above the store names a backend: hokitod.c, node.c, adminctl.c and the turn pipeline
 * hold a struct store_db and its ports. Open and close on the loop's thread, before the loop runs
 * and after it stopped.
 */
#ifndef HOKITO_SERVER_STORE_DB_H
#define HOKITO_SERVER_STORE_DB_H

#include "store-port.h"

/* What the durability of a commit means (--fsync). */
enum store_fsync {
	STORE_FSYNC_NORMAL = 0, /* survives a crash of hokitod (SQLite: WAL, synchronous=NORMAL;
	                         * PostgreSQL: synchronous_commit=off, a crash of the database
	                         * server may lose its last moments) */
	STORE_FSYNC_ALWAYS = 1, /* survives a power loss too (SQLite: an fsync per commit;
	                         * PostgreSQL: synchronous_commit=on) */
};

struct store_db_options {
	enum store_fsync fsync;
	int must_exist; /* refuse a store that is not there yet (operators' commands); else create
	                 * it (the file, the schema) */
	int writer;     /* take the store's one-writer lock (hokitod); 0: an operator's command
	                 * beside a running server may still read (and is refused writes): a store
	                 * of this program's schema, which it reads as one moment, that of the
	                 * open: every read through its ports (the write port's start-up reads, and
	                 * the read port store_db_reader_open() gives) sees the store as it was
	                 * then, whatever a server writes meanwhile (hokitod migrate's source) */
};

struct store_db;

/*
 * Open the store that db names (see the top), with o (NULL: the defaults, a writer that may
 * create). Checks that it is a hokitod store of a schema this program knows and migrates it to
 * this program's schema. Returns 0 and *out, to close with store_db_close(); or a negative
 * store_errno with err saying what (the URI's password never appears in it): STORE_EINVAL for a
 * --db that names no backend, STORE_EUNAVAIL (cannot reach it, a refused login), STORE_ECONFLICT
 * (another writer holds it; not a hokitod store), STORE_EVERSION, STORE_ECORRUPT, STORE_EIO.
 */
int store_db_open(const char *db, const struct store_db_options *o, struct store_db **out,
                  struct store_error *err);

/* Close the store: roll back what was not committed, release the lock. Accepts NULL. */
void store_db_close(struct store_db *s);

/*
 * Close the store after a start that failed: as store_db_close(), and what this open created is
 * removed again (a new SQLite file with its journal), so that a failed start (a port taken, a
 * full disk) leaves nothing that a later start would refuse. Accepts NULL.
 */
void store_db_discard(struct store_db *s);

/* The backend's name: "sqlite", "postgresql". */
const char *store_db_backend(const struct store_db *s);

/* The store for the log and the operator: the path, or the URI without its password. */
const char *store_db_name(const struct store_db *s);

/* The schema version the store is at. */
int store_db_schema(const struct store_db *s);

/* Whether the store keeps nothing across a restart (":memory:"). */
int store_db_is_temporary(const struct store_db *s);

/* The write port (its impl borrowed from s). */
void store_db_write_port(struct store_db *s, struct store_write_port *out);

/*
 * A read port on a connection of its own, to be used on one thread at a time (reader.c);
 * release it with out->close(). A temporary store has none of its own (out->loop_only, the
 * loop's connection). Returns 0, or a negative store_errno with err.
 */
int store_db_reader_open(struct store_db *s, struct store_read_port *out, struct store_error *err);

/*
 * hokitod --check: the full check of the store that db names, which reads all of it, without
 * migrating or writing, beside a running server too. Calls found(ctx, text) for each finding
 * (one sentence, borrowed for the call). Returns the number of findings (0: sound), or a
 * negative store_errno with err.
 */
int store_db_check(const char *db, void (*found)(void *ctx, const char *text), void *ctx,
                   struct store_error *err);

/*
 * Where the admin socket of a server on db goes when --admin-socket is not given: beside an
 * SQLite file (PATH.sock); "" for none (":memory:", a database server, a --db that names no
 * backend). Into buf. Opens nothing: the operators' commands find a running server by it.
 */
void store_db_admin_path(const char *db, char *buf, size_t size);

/*
 * hokitod backup: an online copy of the store that db names into the new file path (refused if
 * it exists), beside a running server too, which it never holds up for long; the copy is checked
 * before this returns. progress(ctx, done, total) (NULL for none) is called as it goes, in units
 * of the backend's (SQLite: pages). Returns 0, or a negative store_errno with err: STORE_EINVAL
 * for a --db that names no backend or a backend whose database has its own tools for it
 * (PostgreSQL: pg_dump), or path there already; STORE_ENOTFOUND (no store), STORE_ECORRUPT (the
 * copy fails its check; it is removed), STORE_EIO.
 */
int store_db_backup(const char *db, const char *path,
                    void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
                    struct store_error *err);

/*
 * db as a message may show it, into buf: a URI without its password (the one after the user
 * name, and a password= parameter); any other text as it is. Opens nothing.
 */
void store_db_display(const char *db, char *buf, size_t size);

#endif
