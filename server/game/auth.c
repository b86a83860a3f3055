/*
 * auth.c: register, and hello with a password (auth.h): the checks that are cheap run here, on
 * the loop (the name's rules and keys, the throttles, the set of accounts); the hashing goes to
 * the thread pool through ops->hash and comes back to auth_reply(). Part of the game layer: no
 * libuv here. Owns the jobs it makes until ops->hash steals them.
 */
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "auth.h"
#include "guard.h"
#include "log.h"
#include "names.h"
#include "operators.h"
#include "xmalloc.h"

/* A copy of password pw (NUL-terminated), its length in *len. Returns a new block. */
static char *
auth_secret_dup(const char *pw, size_t *len)
{
	char *copy;

	*len = strlen(pw);
	copy = xmalloc(*len + 1);
	memcpy(copy, pw, *len + 1);
	return copy;
}

/* A new job of op for peer's request m, which waits for it: its ticket, its password copied. */
static struct auth_job *
auth_job_new(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, enum auth_op op)
{
	struct auth_job *j = xcalloc(1, sizeof *j);

	j->op = op;
	j->password = auth_secret_dup(m->password, &j->len);
	snprintf(j->name, sizeof j->name, "%s", m->name != NULL ? m->name : "");
	snprintf(j->addr_key, sizeof j->addr_key, "%s", peer->addr);
	j->ticket = lobby_wait_add(lb, peer, m);
	lb->accounts.jobs_out++;
	return j;
}

/* Wipe and free a copy of a password (len bytes). Accepts NULL. */
static void
auth_secret_free(char *pw, size_t len)
{
	volatile char *p = pw;

	if (pw == NULL)
		return;
	for (size_t i = 0; i < len; i++)
		p[i] = 0;
	free(pw);
}

void
auth_job_free(struct auth_job *j)
{
	if (j == NULL)
		return;
	auth_secret_free(j->password, j->len);
	auth_secret_free(j->password2, j->len2);
	free(j);
}

void
auth_job_run(struct auth_job *j)
{
	switch (j->op) {
	case AUTH_REGISTER:
	case AUTH_RESET:
		j->rc = password_hash(j->password, j->len, j->hash);
		break;
	case AUTH_LOGIN:
		j->rc = password_verify(j->hash, j->password, j->len);
		break;
	case AUTH_LOGIN_NONE:
		j->rc = password_verify_none(j->password, j->len);
		break;
	case AUTH_CHANGE:
		j->rc = password_verify(j->hash, j->password, j->len);
		if (j->rc == 0)
			j->rc = password_hash(j->password2, j->len2, j->hash);
		break;
	case AUTH_CLOSE:
		j->rc = password_verify(j->hash, j->password, j->len);
		break;
	}
}

/* Refuse m with bad_value for member field. */
static void
auth_refuse_value(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, const char *field,
                  const char *text)
{
	lobby_send(lb, peer, msg_error_new(PROTO_EBADVALUE, m->type, field, text, m->id));
}

/* Refuse m with login_throttled: retry in retry_ms. */
static void
auth_refuse_throttled(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                      uint64_t retry_ms)
{
	json_t *o = msg_error_new(PROTO_ELOGINTHROTTLED, m->type, NULL,
	                          "too many failed logins; try again later", NULL);

	json_object_set_new(o, "retry_ms", json_integer((json_int_t)retry_ms));
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	lobby_send(lb, peer, o);
}

/*
 * Whether a password may come over peer's connection: one that is encrypted, or from a loopback
 * address, or any with the operator's --allow-insecure-passwords; else m is refused here
 * (insecure_transport). 1 or 0.
 */
static int
auth_transport_ok(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	if (peer->encrypted || peer->loopback || lb->cfg.allow_insecure_passwords)
		return 1;
	lobby_refuse(
	        lb, peer, m, PROTO_EINSECURE,
	        "passwords are taken only over an encrypted connection (or from this machine)");
	return 0;
}

/*
 * Count a request refused because AUTH_JOBS_MAX password jobs are out, and say so in the log: at
 * once the first time, then at most once in AUTH_BUSY_LOG_MS with the count since the last line,
 * so that a storm of logins is seen without writing a line per login.
 */
static void
auth_busy_log(struct lobby *lb)
{
	struct accounts *as = &lb->accounts;
	uint64_t now = lb->ops.now(lb->ops.arg);

	as->busy_refused++;
	if (as->busy_logged_at != 0 && now - as->busy_logged_at < AUTH_BUSY_LOG_MS)
		return;
	log_warn("%u password requests refused login_throttled lately: %d password jobs out "
	         "already, the most there may be",
	         as->busy_refused, AUTH_JOBS_MAX);
	as->busy_refused = 0;
	as->busy_logged_at = now;
}

/*
 * Whether password jobs may go out now: not when AUTH_JOBS_MAX are out already (then m is
 * refused here, login_throttled, and the log counts it). A logged-in session's own request
 * (session: 1) has AUTH_JOBS_SESSION more places, which logins never take, so that a storm of
 * logins does not keep an owner from changing its password. 1 or 0.
 */
static int
auth_room(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, int session)
{
	if (lb->ops.hash == NULL) {
		lobby_refuse(lb, peer, m, PROTO_EINTERNAL, "this server keeps no accounts");
		return 0;
	}
	if (lb->accounts.jobs_out < AUTH_JOBS_MAX + (session ? AUTH_JOBS_SESSION : 0))
		return 1;
	auth_busy_log(lb);
	auth_refuse_throttled(lb, peer, m, AUTH_BUSY_MS);
	return 0;
}

/*
 * Count a login refused by an account's own bound (accounts.h: failures from several addresses
 * it does not know), and say so in the log: at once the first time, then at most once in
 * AUTH_BUSY_LOG_MS with the count since the last line.
 */
static void
auth_bound_log(struct lobby *lb, const char *key)
{
	struct accounts *as = &lb->accounts;
	uint64_t now = lb->ops.now(lb->ops.arg);

	as->bound_refused++;
	if (as->bound_logged_at != 0 && now - as->bound_logged_at < AUTH_BUSY_LOG_MS)
		return;
	log_warn("%u logins refused login_throttled lately by an account's own bound (the last to "
	         "'%s'): its failed logins come from %d addresses or more; its known addresses "
	         "are not slowed",
	         as->bound_refused, key, as->spread_min);
	as->bound_refused = 0;
	as->bound_logged_at = now;
}

void
auth_register(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	char key[STORE_ACCOUNT_NAME_MAX], skeleton[STORE_SKELETON_MAX];
	struct auth_job *j;
	int rc;

	if (!auth_transport_ok(lb, peer, m))
		return;
	if (!names_account_valid(m->name) || names_account_key(m->name, key, sizeof key) < 0) {
		auth_refuse_value(lb, peer, m, "name",
		                  "an account name has 3 to 20 of A-Z a-z 0-9 _ -");
		return;
	}
	if (password_check(m->password, strlen(m->password)) < 0) {
		auth_refuse_value(lb, peer, m, "password",
		                  "a password has 8 to 1024 bytes, no NUL");
		return;
	}
	if ((rc = password_weak(m->password, strlen(m->password), m->name)) < 0) {
		lobby_refuse(lb, peer, m, PROTO_EWEAKPASSWORD, "%s", password_weak_text(rc));
		return;
	}
	if (peer->session != NULL && peer->session->account != 0) {
		lobby_refuse(lb, peer, m, PROTO_EALREADYWELCOMED,
		             "this connection is logged in to an account already");
		return;
	}
	if (peer->session != NULL && peer->session->table != NULL) {
		lobby_refuse(lb, peer, m, PROTO_EINGAME,
		             "register between games: leave this one first");
		return;
	}
	if (names_skeleton(m->name, skeleton, sizeof skeleton) < 0 ||
	    accounts_taken(&lb->accounts, key, skeleton) || names_imitates_computer(m->name)) {
		lobby_refuse(lb, peer, m, PROTO_ENAMETAKEN,
		             "the name '%s' is taken (or looks like a name that is)", m->name);
		return;
	}
	if (accounts_reserved_name(&lb->accounts, m->name)) {
		lobby_refuse(lb, peer, m, PROTO_ENAMERESERVED,
		             "the name '%s' is reserved (it is, or looks like, a name of the "
		             "server or its staff); pick another",
		             m->name);
		return;
	}
	/* before hello it makes a new session: counted as a hello without a token is */
	if (peer->session == NULL && guard_refuse_session(lb, peer, m))
		return;
	if (!auth_room(lb, peer, m, 0))
		return;
	/* last: a registration refused by anything else does not spend the address's allowance */
	if (guard_refuse_register(lb, peer, m))
		return;
	j = auth_job_new(lb, peer, m, AUTH_REGISTER);
	snprintf(j->key, sizeof j->key, "%s", key);
	snprintf(j->skeleton, sizeof j->skeleton, "%s", skeleton);
	accounts_reserve(&lb->accounts, key, skeleton);
	lb->ops.hash(lb->ops.arg, j);
}

void
auth_login(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	char key[STORE_ACCOUNT_NAME_MAX];
	uint64_t now = lobby_time(lb), retry = 0;
	const struct account *a = NULL;
	struct auth_job *j;
	int valid =
	        names_account_valid(m->name) && names_account_key(m->name, key, sizeof key) >= 0;
	int rc;

	if (!auth_transport_ok(lb, peer, m)) {
		lb->accounts.logins[ACCOUNTS_LOGIN_INSECURE]++;
		return;
	}
	if (!valid) /* a name no account can have: counted under the address only */
		snprintf(key, sizeof key, "-");
	else
		a = accounts_find(&lb->accounts, key);
	if ((rc = accounts_login_check(&lb->accounts, a, key, peer->addr, now, &retry)) < 0) {
		if (rc == ACCOUNTS_LIMIT_ACCOUNT)
			auth_bound_log(lb, key);
		lb->accounts.logins[ACCOUNTS_LOGIN_THROTTLED]++;
		auth_refuse_throttled(lb, peer, m, retry);
		return;
	}
	if (!auth_room(lb, peer, m, 0)) {
		if (lb->ops.hash != NULL) /* else: no accounts here */
			lb->accounts.logins[ACCOUNTS_LOGIN_THROTTLED]++;
		return;
	}
	j = auth_job_new(lb, peer, m, a != NULL ? AUTH_LOGIN : AUTH_LOGIN_NONE);
	j->counted = accounts_login_begin(&lb->accounts, a, key, peer->addr, now);
	snprintf(j->key, sizeof j->key, "%s", key);
	if (a != NULL)
		snprintf(j->hash, sizeof j->hash, "%s", a->row.hash);
	lb->ops.hash(lb->ops.arg, j);
}

/*
 * The account of peer's session for m (an account's request): the account, or NULL when m was
 * refused here (not_logged_in, insecure_transport, login_throttled). A password guessed through
 * these requests is slowed per session (accounts.by_session: a session is had only with the
 * password or the token), never by the failures of logins from elsewhere, so that the owner's
 * own session can always change its password.
 */
static struct account *
auth_account_request(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct account *a = s->account != 0 ? accounts_find_id(&lb->accounts, s->account) : NULL;
	uint64_t now = lobby_time(lb), retry = 0;

	if (a == NULL) {
		lobby_refuse(lb, peer, m, PROTO_ENOTLOGGEDIN, "this session is a guest's");
		return NULL;
	}
	if (!auth_transport_ok(lb, peer, m))
		return NULL;
	if (throttle_check(lb->accounts.by_session, s->id, now, &retry) == THROTTLE_EAGAIN) {
		auth_refuse_throttled(lb, peer, m, retry);
		return NULL;
	}
	if (!auth_room(lb, peer, m, 1))
		return NULL;
	throttle_begin(lb->accounts.by_session, s->id, now, &retry);
	return a;
}

/* A new job of op about account a (its name, key and hash copied) for peer's request m. */
static struct auth_job *
auth_account_job_new(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                     enum auth_op op, const struct account *a)
{
	struct auth_job *j = auth_job_new(lb, peer, m, op);

	snprintf(j->name, sizeof j->name, "%s", a->row.name);
	snprintf(j->key, sizeof j->key, "%s", a->row.key);
	snprintf(j->hash, sizeof j->hash, "%s", a->row.hash);
	return j;
}

void
auth_password_change(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct account *a;
	struct auth_job *j;
	int rc;

	if (peer->session->account != 0 &&
	    password_check(m->new_password, strlen(m->new_password)) < 0) {
		auth_refuse_value(lb, peer, m, "new", "a password has 8 to 1024 bytes, no NUL");
		return;
	}
	a = accounts_find_id(&lb->accounts, peer->session->account);
	if (a != NULL &&
	    (rc = password_weak(m->new_password, strlen(m->new_password), a->row.name)) < 0) {
		lobby_refuse(lb, peer, m, PROTO_EWEAKPASSWORD, "%s", password_weak_text(rc));
		return;
	}
	if ((a = auth_account_request(lb, peer, m)) == NULL)
		return;
	j = auth_account_job_new(lb, peer, m, AUTH_CHANGE, a);
	j->password2 = auth_secret_dup(m->new_password, &j->len2);
	lb->ops.hash(lb->ops.arg, j);
}

void
auth_account_close(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct account *a;

	if (s->account != 0 && s->table != NULL && s->seat >= 0 &&
	    s->table->st.status != EVENT_STATUS_FINISHED) {
		lobby_refuse(lb, peer, m, PROTO_EINGAME,
		             "close the account between games: this one is not over");
		return;
	}
	if ((a = auth_account_request(lb, peer, m)) == NULL)
		return;
	lb->ops.hash(lb->ops.arg, auth_account_job_new(lb, peer, m, AUTH_CLOSE, a));
}

int
auth_guest_refused(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, const char *name)
{
	int why = accounts_guest_refused(&lb->accounts, name);

	if (why == 0)
		return 0;
	if (why == ACCOUNTS_RESERVED)
		lobby_refuse(
		        lb, peer, m, PROTO_ENAMERESERVED,
		        "the name '%s' is reserved (it is, or looks like, a name of the server "
		        "or its staff); pick another",
		        name);
	else
		lobby_refuse(lb, peer, m, PROTO_ENAMETAKEN,
		             "the name '%s' is an account's, or looks like an account's or the "
		             "computer's; pick another",
		             name);
	return 1;
}

/* Peer is now account a's: a new session (welcome), or the guest session it had (ok). */
static void
auth_welcome(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
             const struct account *a)
{
	struct session *s = peer->session;

	if (s == NULL) {
		s = lobby_session_new(lb, a->row.name);
		s->account = a->row.id;
		s->bot = accounts_is_bot(a);
		s->peer = peer;
		peer->session = s;
		guard_session_made(lb, s);
		log_info("%s (%s) logged in to account %lld", s->id, s->name, (long long)a->row.id);
		lobby_send(lb, peer, lobby_welcome_new(lb, s, 0, m->id));
		return;
	}
	s->account = a->row.id;
	snprintf(s->name, sizeof s->name, "%s", a->row.name); /* not at a game: auth_register() */
	log_info("%s (%s) registered account %lld", s->id, s->name, (long long)a->row.id);
	lobby_send_ok(lb, peer, m->type, -1, m->id);
}

/*
 * Account a's password changed (op AUTH_CHANGE) or a closed (AUTH_CLOSE) by session s: the other
 * sessions of a end (a changed password), or all of them with s (a closed account), as a ban ends
 * them (operators_account_end()): a guesser or a thief logged in elsewhere is out, and no token
 * of a closed account resumes anything.
 */
static void
auth_account_ended(struct lobby *lb, struct session *s, const struct account *a, enum auth_op op)
{
	unsigned n, games = 0;

	if (op == AUTH_CHANGE) {
		n = operators_account_end(lb, a->row.id, s, "password_changed",
		                          "the account's password was changed: log in again",
		                          &games);
		log_info("%s (%s) changed the password of account %lld: %u other sessions ended, "
		         "%u games",
		         s->id, s->name, (long long)a->row.id, n, games);
		return;
	}
	log_info("%s (%s) closed account %lld", s->id, s->name, (long long)a->row.id);
	n = operators_account_end(lb, a->row.id, NULL, "closed", "the account is closed", &games);
	log_info("account %lld closed: %u sessions ended, %u games", (long long)a->row.id, n,
	         games);
}

void
auth_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct auth_job *j)
{
	struct store_account row;
	struct account *a;

	switch (j->op) {
	case AUTH_REGISTER:
		accounts_release(&lb->accounts, j->key, j->skeleton);
		if (j->rc < 0) {
			log_error("account '%s': hashing its password failed (%d)", j->name, j->rc);
			lobby_refuse(lb, peer, m, PROTO_EINTERNAL,
			             "the password could not be hashed");
			return;
		}
		memset(&row, 0, sizeof row);
		row.id = lb->accounts.next_id;
		snprintf(row.name, sizeof row.name, "%s", j->name);
		snprintf(row.key, sizeof row.key, "%s", j->key);
		snprintf(row.skeleton, sizeof row.skeleton, "%s", j->skeleton);
		snprintf(row.hash, sizeof row.hash, "%s", j->hash);
		snprintf(row.kind, sizeof row.kind, "account");
		if (lb->ops.account_add != NULL)
			lb->ops.account_add(lb->ops.arg, &row); /* sets created_ms */
		a = accounts_add(&lb->accounts, &row);
		accounts_known_add(a, j->addr_key, lobby_time(lb)); /* its owner's first address */
		auth_welcome(lb, peer, m, a);
		return;
	case AUTH_LOGIN:
	case AUTH_LOGIN_NONE:
		a = j->op == AUTH_LOGIN ? accounts_find(&lb->accounts, j->key) : NULL;
		if (j->rc == PASSWORD_EHASH)
			log_error("account '%s': its stored hash is damaged", j->key);
		/* a password reset while this one was checked: the old one opens nothing */
		if (j->rc != 0 || a == NULL || strcmp(a->row.hash, j->hash) != 0) {
			lb->accounts.logins[ACCOUNTS_LOGIN_WRONG_PASSWORD]++;
			lobby_refuse(lb, peer, m, PROTO_EWRONGPASSWORD,
			             "no account of that name and password");
			return; /* the attempt stays counted as a failure */
		}
		accounts_login_success(&lb->accounts, a, j->key, j->addr_key, j->counted,
		                       lobby_time(lb));
		/* only once the password is right: closed or banned, one answer for both */
		if (a->row.closed_ms != 0 || a->row.banned_ms != 0) {
			lb->accounts.logins[ACCOUNTS_LOGIN_CLOSED]++;
			lobby_refuse(lb, peer, m, PROTO_EACCOUNTCLOSED,
			             "this account is closed: it logs in no more");
			return;
		}
		lb->accounts.logins[ACCOUNTS_LOGIN_OK]++;
		auth_welcome(lb, peer, m, a);
		return;
	case AUTH_CHANGE:
	case AUTH_CLOSE:
		a = accounts_find(&lb->accounts, j->key);
		if (j->rc == PASSWORD_EMISMATCH || a == NULL) {
			lobby_refuse(lb, peer, m, PROTO_EWRONGPASSWORD, "that is not the password");
			return;
		}
		if (j->rc < 0) {
			log_error("account '%s': its password job failed (%d)", j->key, j->rc);
			lobby_refuse(lb, peer, m, PROTO_EINTERNAL,
			             "the password could not be checked");
			return;
		}
		throttle_forget(lb->accounts.by_session, peer->session->id);
		if (j->op == AUTH_CHANGE)
			snprintf(a->row.hash, sizeof a->row.hash, "%s", j->hash);
		else
			a->row.closed_ms = -1; /* now: the store's write sets the time */
		if (lb->ops.account_update != NULL)
			lb->ops.account_update(lb->ops.arg, &a->row);
		if (a->row.closed_ms < 0)
			a->row.closed_ms = 1; /* without a store: closed, at no known time */
		lobby_send_ok(lb, peer, m->type, -1, m->id);
		auth_account_ended(lb, peer->session, a, j->op);
		return;
	case AUTH_RESET: /* an operator's: operators_hash_done() answers it */
		return;
	}
}

void
auth_abandon(struct lobby *lb, struct auth_job *j)
{
	if (j->op == AUTH_REGISTER)
		accounts_release(&lb->accounts, j->key, j->skeleton);
}

int
auth_account_release(struct lobby *lb, int64_t id)
{
	struct account *a = accounts_find_id(&lb->accounts, id);

	if (a == NULL || accounts_is_bot(a) || a->row.closed_ms != 0 || a->row.banned_ms != 0)
		return 0;
	for (size_t i = 0; i < lb->sessions.n; i++)
		if (lb->sessions.all[i]->account == id)
			return 0; /* logged in now, or seated */
	for (size_t i = 0; i < lb->ntables; i++)
		if (lb->tables[i]->seat_account[0] == id || lb->tables[i]->seat_account[1] == id)
			return 0; /* a game the store has not finished */
	log_debug("account %lld (%s) released: never used since %lld", (long long)id, a->row.name,
	          (long long)a->row.created_ms);
	accounts_remove(&lb->accounts, a);
	return 1;
}

/* restore: one stored account. */
static int
auth_restore_cb(void *ctx, const struct store_account *row)
{
	accounts_add(ctx, row);
	return 0;
}

int
auth_restore(struct lobby *lb, struct store_error *err)
{
	const struct store_write_port *st = lb->cfg.store;

	if (st == NULL || st->accounts_load == NULL)
		return 0;
	return st->accounts_load(st->impl, auth_restore_cb, &lb->accounts, err);
}
