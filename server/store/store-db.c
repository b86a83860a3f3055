/*
 * store-db.c: the registry of the store's backends (store-db.h): --db's scheme chooses one, and
 * every call after the open goes to it through its struct store_backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-db.h"
#include "store-pg.h"
#include "store-sqlite.h"
#include "xmalloc.h"

struct store_db {
	const struct store_backend *be;
	void *impl; /* the backend's, owned */
};

/* Which backend db names, and its target (db without a "sqlite:" scheme). */
static const struct store_backend *
store_db_choose(const char *db, const char **target)
{
	*target = db;
	if (strncmp(db, "sqlite:", 7) == 0) {
		*target = db + 7;
		return &store_backend_sqlite;
	}
	if (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0)
		return &store_backend_postgresql; /* the whole URI: libpq reads it */
	if (strstr(db, "://") != NULL)
		return NULL; /* a scheme of no backend's */
	return &store_backend_sqlite;
}

/* A --db that names no backend (a scheme of none, or "sqlite:" alone): STORE_EINVAL. */
static int
store_db_unknown(const char *db, struct store_error *err)
{
	const char *sep = strstr(db, "://");

	err->code = STORE_EINVAL;
	if (sep == NULL)
		snprintf(err->text, sizeof err->text, "--db sqlite: wants a file path");
	else
		snprintf(err->text, sizeof err->text,
		         "--db %.*s://...: no store of that kind (a file path, sqlite:PATH, "
		         "postgresql://...)",
		         (int)(sep - db < 32 ? sep - db : 32), db);
	return STORE_EINVAL;
}

int
store_db_open(const char *db, const struct store_db_options *o, struct store_db **out,
              struct store_error *err)
{
	static const struct store_db_options defaults = {STORE_FSYNC_NORMAL, 0, 1};
	const struct store_backend *be;
	const char *target;
	void *impl;
	int rc;

	*out = NULL;
	be = store_db_choose(db, &target);
	if (be == NULL || *target == '\0')
		return store_db_unknown(db, err);
	if ((rc = be->open(target, o != NULL ? o : &defaults, &impl, err)) < 0)
		return rc;
	*out = xcalloc(1, sizeof **out);
	(*out)->be = be;
	(*out)->impl = impl;
	return 0;
}

void
store_db_close(struct store_db *s)
{
	if (s == NULL)
		return;
	s->be->close(s->impl);
	free(s);
}

void
store_db_discard(struct store_db *s)
{
	if (s == NULL)
		return;
	s->be->discard(s->impl);
	free(s);
}

const char *
store_db_backend(const struct store_db *s)
{
	return s->be->name;
}

const char *
store_db_name(const struct store_db *s)
{
	return s->be->display(s->impl);
}

int
store_db_schema(const struct store_db *s)
{
	return s->be->schema(s->impl);
}

int
store_db_is_temporary(const struct store_db *s)
{
	return s->be->is_temporary(s->impl);
}

void
store_db_write_port(struct store_db *s, struct store_write_port *out)
{
	s->be->write_port(s->impl, out);
}

int
store_db_reader_open(struct store_db *s, struct store_read_port *out, struct store_error *err)
{
	return s->be->reader_open(s->impl, out, err);
}

int
store_db_check(const char *db, void (*found)(void *ctx, const char *text), void *ctx,
               struct store_error *err)
{
	const char *target;
	const struct store_backend *be = store_db_choose(db, &target);

	if (be == NULL || *target == '\0')
		return store_db_unknown(db, err);
	return be->check(target, found, ctx, err);
}

void
store_db_admin_path(const char *db, char *buf, size_t size)
{
	const char *target;
	const struct store_backend *be = store_db_choose(db, &target);

	if (be == NULL || *target == '\0')
		snprintf(buf, size, "%s", "");
	else
		be->admin_path(target, buf, size);
}

int
store_db_backup(const char *db, const char *path,
                void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
                struct store_error *err)
{
	const char *target;
	const struct store_backend *be = store_db_choose(db, &target);

	if (be == NULL || *target == '\0')
		return store_db_unknown(db, err);
	if (be->backup == NULL)
		return store_fail(err, STORE_EINVAL,
		                  "a %s store is backed up with its database's own tools",
		                  be->name);
	return be->backup(target, path, progress, ctx, err);
}

/* Append s[0..n) to buf (size, *len), cut at its end. */
static void
display_put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

/*
 * A URI's authority ends at the first '/', '?' or '#' after "://", and its user information at
 * the last '@' in it ("user:password@"): the colon and what follows it go. In the query, every
 * "password=..." parameter goes with its '&'.
 */
void
store_db_display(const char *db, char *buf, size_t size)
{
	const char *sep = strstr(db, "://"), *auth, *end, *at = NULL, *p, *q;
	size_t len = 0, kept = 0; /* kept: the query's parameters written */

	if (size == 0)
		return;
	buf[0] = '\0';
	if (sep == NULL) {
		display_put(buf, size, &len, db, strlen(db));
		return;
	}
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	display_put(buf, size, &len, db, (size_t)(auth - db));
	if (at != NULL) {
		const char *colon = memchr(auth, ':', (size_t)(at - auth));
		size_t user = (size_t)((colon != NULL ? colon : at) - auth);

		display_put(buf, size, &len, auth, user);
		if (user > 0)
			display_put(buf, size, &len, "@", 1);
		auth = at + 1;
	}
	q = strchr(auth, '?');
	if (q == NULL) {
		display_put(buf, size, &len, auth, strlen(auth));
		return;
	}
	display_put(buf, size, &len, auth, (size_t)(q - auth));
	for (p = q + 1;;) { /* each parameter up to the next '&' (or the fragment's '#') */
		size_t n = strcspn(p, "&#");

		if (n > 0 && strncmp(p, "password=", 9) != 0) {
			display_put(buf, size, &len, kept++ == 0 ? "?" : "&", 1);
			display_put(buf, size, &len, p, n);
		}
		p += n;
		if (*p != '&')
			break;
		p++;
	}
	display_put(buf, size, &len, p, strlen(p)); /* the fragment, if any */
}
