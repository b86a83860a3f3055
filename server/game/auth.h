/*
 * auth.h: accounts on the wire: register, and hello with a password. Handlers of the request table
 * (handlers.c), and the guest check of a plain hello.
 *
 * Argon2id costs tens of milliseconds of CPU by design (password.h), so no password is hashed or
 * verified on the loop's thread: a handler fills a struct auth_job and hands it to ops->hash
 * (lobby.h), which runs auth_job_run() on the hasher's threads (hasher.h), below the games'
 * priority, and brings it back to handlers_auth_done() (handlers.h), which answers through
 * auth_reply(). Meanwhile the asking connection is held (struct lobby_wait, ops->pause), as behind
 * a store read: its later requests wait unread, so that its replies keep the order of its requests.
 * At most AUTH_JOBS_MAX jobs are out at once: past that a request is answered login_throttled at
 * once, so that a storm of logins queues no unbounded work; the log says so, at most once in
 * AUTH_BUSY_LOG_MS with the count refused.
 *
 * Failed logins are slowed by accounts.h's rule: per (account, address) first, per address, and
 * per account only from addresses it has not logged in from and only once several addresses
 * fail, so that a guesser pays for its guesses and the owner does not; a logged-in session's
 * password_change and account_close are slowed per session only. Every attempt counts as a
 * failure from the moment it begins, and a right password takes it back. A
 * login to a name without an account spends the same time (password_verify_none()) and gets the
 * same wrong_password, so that the answer does not tell which names exist. A closed or banned
 * account's password is checked as any other's: only a right one learns account_closed (one code
 * for both, not telling which).
 */
#ifndef HOKITO_SERVER_AUTH_H
#define HOKITO_SERVER_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "lobby.h"
#include "password.h"
#include "store-port.h"
#include "throttle.h"

#define AUTH_JOBS_MAX 32 /* password jobs out at once for logins and registrations */
#define AUTH_JOBS_SESSION                                                                          \
	8                      /* more places for a logged-in session's password_change and        \
	                          account_close, and an operator's reset: never taken by logins */
#define AUTH_BUSY_MS     1000  /* retry_ms of a login refused because AUTH_JOBS_MAX are out */
#define AUTH_BUSY_LOG_MS 10000 /* at most one log line so long about those refusals */

/* What a password job does. */
enum auth_op {
	AUTH_REGISTER,   /* hash a new account's password */
	AUTH_LOGIN,      /* verify a password against an account's hash */
	AUTH_LOGIN_NONE, /* spend a verification's time for a name without an account */
	AUTH_CHANGE,     /* verify the old password, then hash the new one (password2) */
	AUTH_CLOSE,      /* verify the password of an account to close */
	AUTH_RESET,      /* hash an operator's new password for an account (operators.h) */
};

/*
 * A password job, question and answer; it runs off the loop's thread (auth_job_run()), which
 * touches nothing else. Like a store read it carries no pointer to the asker: the lobby finds
 * the asker by ticket, and drops the answer if the connection is gone.
 */
struct auth_job {
	uint64_t ticket; /* the lobby's number for it (lobby_wait_add()); AUTH_RESET: the admin
	                    channel's number of the request */
	enum auth_op op;
	char *password;  /* owned, wiped by auth_job_free() */
	size_t len;      /* its bytes */
	char *password2; /* AUTH_CHANGE: the new password, owned, wiped by auth_job_free() */
	size_t len2;     /* its bytes */
	char name[STORE_ACCOUNT_NAME_MAX]; /* the account name as given */
	char key[STORE_ACCOUNT_NAME_MAX];  /* its names_account_key() */
	char skeleton[STORE_SKELETON_MAX]; /* register: its names_skeleton() */
	char addr_key[THROTTLE_KEY_MAX];   /* the asker's source address key */
	char hash[PASSWORD_HASH_SIZE];     /* login: the stored hash; register: the new one */
	int counted; /* login: counted under the account's own bound (accounts_login_begin()) */
	int rc;      /* the answer: 0 or a password_error */
};

/* register: create an account (a name and a password) and log in to it. */
void auth_register(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* hello with a name and a password (m->password): log in to the account. */
void auth_login(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * password_change: a new password for the session's account; then every other session of the
 * account ends (bye "password_changed", operators_account_end()); this one goes on, its token
 * kept.
 */
void auth_password_change(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * account_close: the session's account closes (its name stays taken); then every session of the
 * account ends (bye "closed", operators_account_end()): no token of it resumes.
 */
void auth_account_close(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * A guest's hello m with name (m->name trimmed, borrowed): whether it is refused, sent here:
 * name_taken when the name looks like an account's or like the computer's, name_reserved when
 * it looks like a reserved word (names.h). 1 (refused) or 0.
 */
int auth_guest_refused(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                       const char *name);

/* The answer of job j (borrowed) to peer's request m (borrowed), which asked for it. */
void auth_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct auth_job *j);

/* Job j (borrowed) came back and its connection is gone: take back what it held. */
void auth_abandon(struct lobby *lb, struct auth_job *j);

/* Run job j on the calling thread. BLOCKING: the hasher's threads only. */
void auth_job_run(struct auth_job *j);

/* Wipe the password and free the job. Accepts NULL. */
void auth_job_free(struct auth_job *j);

/* Load the store's accounts into lb's set (start-up). Returns the count or a store error. */
int auth_restore(struct lobby *lb, struct store_error *err);

/*
 * --unused-account-days: whether account id, which the store found unused (no finished game, no
 * rating), may go: not a bot's, not closed nor banned, no session of it kept (logged
 * in, or seated), at no table. If so it is forgotten here (its name free again) and 1 is
 * returned: the caller deletes its row (in the same turn); else 0, and it stays.
 */
int auth_account_release(struct lobby *lb, int64_t id);

#endif
