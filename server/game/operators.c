/*
 * operators.c: the operators' commands on accounts (operators.h): a table of requests, each
 * checked here and applied to the accounts in memory (accounts.h), the store's row written
 * through ops->account_update (the turn's group commit), a new password hashed through
 * ops->hash. Ending an account's sessions reuses the game layer's own ends: table_finish() as
 * aborted, abandoned (as a game nobody comes back to), lobby_session_leave() for a seat, and
 * lobby_session_drop(); auth.c ends an account's sessions through operators_account_end() too
 * (a password changed, an account closed). Owns nothing between calls but the password jobs it
 * hands out until ops->hash steals them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "log.h"
#include "names.h"
#include "operators.h"
#include "password.h"
#include "xmalloc.h"

/* An answer refusing the request: code (a word) and a sentence. A new reference. */
static json_t *operators_error(const char *code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

static json_t *
operators_error(const char *code, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return json_pack("{s:s, s:s, s:s}", "type", "error", "code", code, "text", text);
}

/* err (stolen) naming the request's member field that it refuses. Returns err. */
static json_t *
operators_field(json_t *err, const char *field)
{
	json_object_set_new(err, "field", json_string(field));
	return err;
}

json_t *
operators_account_new(const struct store_account *row)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:I}", "id", (json_int_t)row->id, "name", row->name,
	                      "kind", row->kind, "created_ms", (json_int_t)row->created_ms);

	if (row->closed_ms != 0)
		json_object_set_new(o, "closed_ms", json_integer((json_int_t)row->closed_ms));
	if (row->banned_ms != 0)
		json_object_set_new(o, "banned_ms", json_integer((json_int_t)row->banned_ms));
	return o;
}

json_t *
operators_ok_new(const char *request, const struct store_account *row, unsigned sessions,
                 unsigned games)
{
	return json_pack("{s:s, s:s, s:o, s:i, s:i}", "type", "ok", "request", request, "account",
	                 operators_account_new(row), "sessions", (int)sessions, "games",
	                 (int)games);
}

/*
 * A string member of req, into *out: NULL, or an error answer (a new reference): bad_request
 * when it is missing, bad_value (naming it) when it is no string.
 */
static json_t *
operators_string(const json_t *req, const char *member, const char **out)
{
	const json_t *v = json_object_get(req, member);

	*out = json_string_value(v);
	if (*out != NULL)
		return NULL;
	if (v == NULL)
		return operators_error("bad_request", "\"%s\" (a string) is missing", member);
	return operators_field(operators_error("bad_value", "\"%s\" is a string", member), member);
}

/*
 * The account named by req's "name" (any case), into *out; else an error answer (bad_request:
 * no name; bad_value: a name that is no string; no_such_account), a new reference, and *out NULL.
 */
static json_t *
operators_account(struct lobby *lb, const json_t *req, struct account **out)
{
	char key[STORE_ACCOUNT_NAME_MAX];
	const char *name;
	json_t *err;

	*out = NULL;
	if ((err = operators_string(req, "name", &name)) != NULL)
		return err;
	if (!names_account_valid(name) || names_account_key(name, key, sizeof key) < 0 ||
	    (*out = accounts_find(&lb->accounts, key)) == NULL)
		return operators_error("no_such_account", "no account is named '%.64s'", name);
	return NULL;
}

/* Write account a's row (its hash, kind, closed and banned times) in the turn's commit. */
static void
operators_account_write(struct lobby *lb, struct account *a)
{
	if (lb->ops.account_update != NULL)
		lb->ops.account_update(lb->ops.arg, &a->row); /* a time of -1 becomes now */
	if (a->row.banned_ms < 0)
		a->row.banned_ms = 1; /* without a store: banned, at no known time */
}

/*
 * End session s (its account is banned, or its password reset): its game not over ends as
 * aborted, abandoned, and *games counts it; an open game it is seated at ends as its seat is
 * freed; its connection gets bye (reason) and is closed. s stays in the registry for the caller
 * to forget (operators_account_end()).
 */
static void
operators_session_end(struct lobby *lb, struct session *s, const char *reason, const char *text,
                      unsigned *games)
{
	struct table *t = s->table;
	struct lobby_peer *peer = s->peer;

	if (t != NULL && s->seat >= 0 && t->st.status != EVENT_STATUS_FINISHED) {
		if (t->st.status != EVENT_STATUS_OPEN) {
			log_info("game %s: %s (%s) is gone (%s)", t->id, s->id, s->name, reason);
			table_finish(t, EVENT_RESULT_ABORTED, -1, EVENT_REASON_ABANDONED);
			lobby_finished_touch(lb, t);
		}
		(*games)++; /* an open one ends as its seat is freed, below */
	}
	if (peer != NULL) {
		lobby_send(lb, peer, msg_bye_new(reason, text));
		lobby_peer_gone(lb, peer);
		lb->ops.close(lb->ops.arg, peer);
	}
	if (t != NULL)
		lobby_touched(lb, t);
	lobby_session_leave(lb, s);
}

unsigned
operators_account_end(struct lobby *lb, int64_t id, const struct session *keep, const char *reason,
                      const char *text, unsigned *games)
{
	size_t kept = 0;
	unsigned n = 0;

	for (size_t i = 0; i < lb->sessions.n; i++) {
		struct session *s = lb->sessions.all[i];

		if (s->account != id || s == keep) {
			lb->sessions.all[kept++] = s;
			continue;
		}
		operators_session_end(lb, s, reason, text, games);
		log_info("%s (%s) ended: %s", s->id, s->name, reason);
		lobby_session_drop(lb, s); /* its address's count of sessions too */
		n++;
	}
	lb->sessions.n = kept;
	lobby_prune(lb);
	lobby_arm(lb);
	return n;
}

/*
 * Check an integer member of req: absent (then *out keeps its default), or an integer from min
 * to max. NULL, or an error answer (bad_value, naming the member and its range): a new reference.
 */
static json_t *
operators_integer(const json_t *req, const char *member, json_int_t min, json_int_t max,
                  json_int_t *out)
{
	const json_t *v = json_object_get(req, member);

	if (v == NULL)
		return NULL;
	if (json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max) {
		*out = json_integer_value(v);
		return NULL;
	}
	return operators_field(operators_error("bad_value",
	                                       "\"%s\" is an integer from %lld to %lld", member,
	                                       (long long)min, (long long)max),
	                       member);
}

json_t *
operators_list_args(const json_t *req, int64_t *after, size_t *limit)
{
	json_int_t a = 0, n = OPERATORS_LIST_DEFAULT;
	json_t *err;

	if ((err = operators_integer(req, "after", 0, INT64_MAX, &a)) != NULL ||
	    (err = operators_integer(req, "limit", 1, OPERATORS_LIST_MAX, &n)) != NULL)
		return err;
	*after = (int64_t)a;
	*limit = (size_t)n;
	return NULL;
}

/*
 * accounts_list: a page of accounts by id, after "after" (an id), at most "limit": found in the
 * set's index by id (accounts_after()), so that a page costs its own length whatever the ids.
 */
static json_t *
operators_list(struct lobby *lb, const json_t *req, uint64_t ticket)
{
	json_t *list, *o, *err;
	int64_t after;
	size_t limit, i, n = accounts_count(&lb->accounts);

	(void)ticket;
	if ((err = operators_list_args(req, &after, &limit)) != NULL)
		return err;
	list = json_array();
	for (i = accounts_after(&lb->accounts, after); i < n && json_array_size(list) < limit; i++)
		json_array_append_new(list,
		                      operators_account_new(&accounts_at(&lb->accounts, i)->row));
	o = json_pack("{s:s, s:o}", "type", "accounts", "accounts", list);
	if (i < n && i > 0)
		json_object_set_new(o, "next",
		                    json_integer(accounts_at(&lb->accounts, i - 1)->row.id));
	return o;
}

/* account_ban: the account logs in no more; its sessions and games end. */
static json_t *
operators_ban(struct lobby *lb, const json_t *req, uint64_t ticket)
{
	unsigned sessions, games = 0;
	struct account *a;
	json_t *err = operators_account(lb, req, &a);

	(void)ticket;
	if (err != NULL)
		return err;
	if (a->row.banned_ms == 0) {
		a->row.banned_ms = -1; /* now: the store's write sets the time */
		operators_account_write(lb, a);
	}
	sessions = operators_account_end(lb, a->row.id, NULL, "banned", "this account is banned",
	                                 &games);
	log_info("account %lld (%s) banned by the operator: %u sessions, %u games ended",
	         (long long)a->row.id, a->row.name, sessions, games);
	return operators_ok_new("account_ban", &a->row, sessions, games);
}

/* account_unban: the account may log in again. */
static json_t *
operators_unban(struct lobby *lb, const json_t *req, uint64_t ticket)
{
	struct account *a;
	json_t *err = operators_account(lb, req, &a);

	(void)ticket;
	if (err != NULL)
		return err;
	if (a->row.banned_ms != 0) {
		a->row.banned_ms = 0;
		operators_account_write(lb, a);
		log_info("account %lld (%s) unbanned by the operator", (long long)a->row.id,
		         a->row.name);
	}
	return operators_ok_new("account_unban", &a->row, 0, 0);
}

/* account_set_kind: "bot" or "account". */
static json_t *
operators_set_kind(struct lobby *lb, const json_t *req, uint64_t ticket)
{
	const char *kind;
	struct account *a;
	json_t *err;

	(void)ticket;
	if ((err = operators_string(req, "kind", &kind)) != NULL)
		return err;
	if (strcmp(kind, "bot") != 0 && strcmp(kind, "account") != 0)
		return operators_field(
		        operators_error("bad_value", "\"kind\" is \"bot\" or \"account\""), "kind");
	if ((err = operators_account(lb, req, &a)) != NULL)
		return err;
	if (strcmp(a->row.kind, kind) != 0) {
		snprintf(a->row.kind, sizeof a->row.kind, "%s", kind);
		operators_account_write(lb, a);
		log_info("account %lld (%s) is now a%s %s", (long long)a->row.id, a->row.name,
		         kind[0] == 'a' ? "n" : "", kind);
	}
	return operators_ok_new("account_set_kind", &a->row, 0, 0);
}

/* account_reset_password: the new password is hashed on the pool; operators_hash_done(). */
static json_t *
operators_reset(struct lobby *lb, const json_t *req, uint64_t ticket)
{
	const char *pw;
	struct account *a;
	struct auth_job *j;
	json_t *err;
	int rc;

	if ((err = operators_string(req, "password", &pw)) != NULL)
		return err;
	if (password_check(pw, strlen(pw)) < 0)
		return operators_field(
		        operators_error("bad_value", "a password has 8 to 1024 bytes, no NUL"),
		        "password");
	if ((err = operators_account(lb, req, &a)) != NULL)
		return err;
	if ((rc = password_weak(pw, strlen(pw), a->row.name)) < 0)
		return operators_error("weak_password", "%s", password_weak_text(rc));
	if (lb->ops.hash == NULL)
		return operators_error("internal", "this server keeps no accounts");
	if (lb->accounts.jobs_out >= AUTH_JOBS_MAX + AUTH_JOBS_SESSION) /* logins never take all */
		return operators_error("busy", "too many passwords are being hashed; try again");
	j = xcalloc(1, sizeof *j);
	j->op = AUTH_RESET;
	j->ticket = ticket;
	j->len = strlen(pw);
	j->password = xmalloc(j->len + 1);
	memcpy(j->password, pw, j->len + 1);
	snprintf(j->name, sizeof j->name, "%s", a->row.name);
	snprintf(j->key, sizeof j->key, "%s", a->row.key);
	lb->accounts.jobs_out++;
	lb->ops.hash(lb->ops.arg, j);
	return NULL;
}

json_t *
operators_hash_done(struct lobby *lb, struct auth_job *j)
{
	struct account *a = accounts_find(&lb->accounts, j->key);
	unsigned sessions, games = 0;

	accounts_job_done(&lb->accounts, j->rc);
	if (a == NULL)
		return operators_error("no_such_account", "no account is named '%s'", j->name);
	if (j->rc < 0) {
		log_error("account '%s': hashing its new password failed (%d)", j->key, j->rc);
		return operators_error("internal", "the password could not be hashed");
	}
	snprintf(a->row.hash, sizeof a->row.hash, "%s", j->hash);
	operators_account_write(lb, a);
	accounts_login_forget(&lb->accounts, a->row.key); /* its owner may log in at once */
	sessions = operators_account_end(lb, a->row.id, NULL, "password_reset",
	                                 "the account's password was reset: log in again", &games);
	log_info("account %lld (%s): password reset by the operator, %u sessions ended",
	         (long long)a->row.id, a->row.name, sessions);
	return operators_ok_new("account_reset_password", &a->row, sessions, games);
}

/* The requests, by type. */
static const struct {
	const char *type;
	json_t *(*run)(struct lobby *lb, const json_t *req, uint64_t ticket);
} operators_table[] = {
        {"accounts_list", operators_list},        {"account_ban", operators_ban},
        {"account_unban", operators_unban},       {"account_reset_password", operators_reset},
        {"account_set_kind", operators_set_kind},
};

json_t *
operators_request(struct lobby *lb, const json_t *req, uint64_t ticket)
{
	const char *type = json_string_value(json_object_get(req, "type"));

	if (type == NULL)
		return operators_error("bad_request", "a request is an object with a \"type\"");
	for (size_t i = 0; i < sizeof operators_table / sizeof operators_table[0]; i++)
		if (strcmp(type, operators_table[i].type) == 0)
			return operators_table[i].run(lb, req, ticket);
	return operators_error("unknown_type", "no request '%.64s'", type);
}

unsigned
operators_restore(struct lobby *lb)
{
	unsigned n = 0, games = 0;

	for (size_t i = 0; i < lb->sessions.n; i++) {
		const struct session *s = lb->sessions.all[i];
		const struct account *a =
		        s->account != 0 ? accounts_find_id(&lb->accounts, s->account) : NULL;

		if (a != NULL && (a->row.banned_ms != 0 || a->row.closed_ms != 0)) {
			int closed = a->row.banned_ms == 0;

			n += operators_account_end(
			        lb, a->row.id, NULL, closed ? "closed" : "banned",
			        closed ? "the account is closed" : "this account is banned",
			        &games);
			i = (size_t)-1; /* the registry was compacted: look again from the start */
		}
	}
	if (n > 0)
		log_info("%u sessions of closed or banned accounts ended, %u games", n, games);
	return n;
}
