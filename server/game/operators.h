/*
 * operators.h: the operators' commands on accounts, run by the game layer while the server runs:
 * list the accounts, ban and unban a name, reset a password, mark an account as a bot (or back).
 * Requests come from the admin channel (admin.h: a Unix socket only the server's own user or root
 * reaches, never a TCP client) as JSON objects, and leave as JSON answers; the shapes are in
 * hokitod(8), ADMINISTRATION:
 *
 *   {"type":"accounts_list","after":ID,"limit":N}  ->
 * {"type":"accounts","accounts":[...],"next":ID}
 *   {"type":"account_ban","name":"alice"}           -> {"type":"ok","sessions":N,"games":N,...}
 *   {"type":"account_unban","name":"alice"}         -> {"type":"ok",...}
 *   {"type":"account_reset_password","name":"alice","password":"..."} -> {"type":"ok",...}
 *   {"type":"account_set_kind","name":"alice","kind":"bot"}           -> {"type":"ok",...}
 *   refusals: {"type":"error","code":"no_such_account"|"bad_request"|"bad_value"|...,"text":"..",
 *              "field":"after"} (field: the member refused, with bad_value)
 *
 * Every member is checked before anything is done: a number out of its range (accounts_list's
 * "after" 0 to 2^63-1, "limit" 1 to OPERATORS_LIST_MAX), a float, a string where a number goes
 * or a number where a string goes is bad_value, naming the member. A page is found in the
 * accounts' index by id (accounts_after()): its cost is its own length, whatever the ids asked.
 *
 * Ending an account's sessions (a ban, a password reset) is the same end for every one of them:
 * its game not over ends as aborted, reason abandoned (the opponent is told by the usual
 * game_over), its open game's seat is freed (the game ends: nobody is left to play it), its
 * connection gets bye (reason "banned" or "password_reset") and is closed, and the session is
 * forgotten, so that its token resumes nothing.
 *
 * Part of the game layer: no libuv, no clock, no I/O. The writes go through lobby_ops
 * (account_update: the turn's group commit), the hashing through ops->hash (the thread pool).
 */
#ifndef HOKITO_SERVER_OPERATORS_H
#define HOKITO_SERVER_OPERATORS_H

#include <stdint.h>

#include <jansson.h>

#include "lobby.h"

struct auth_job;

#define OPERATORS_LIST_MAX     1000 /* accounts_list's largest limit */
#define OPERATORS_LIST_DEFAULT 100  /* ... and its default */

/*
 * An operator's request req (borrowed), numbered ticket by the admin channel. Returns its answer
 * (a new reference), or NULL when the answer comes later from operators_hash_done() with the same
 * ticket (a new password is hashed on the pool).
 */
json_t *operators_request(struct lobby *lb, const json_t *req, uint64_t ticket);

/*
 * accounts_list's "after" and "limit" in req (borrowed), checked: NULL and *after, *limit set
 * (0 and OPERATORS_LIST_DEFAULT when absent), or an error answer (bad_value with its field), a
 * new reference. The store file's answer (adminctl.c) checks them here too.
 */
json_t *operators_list_args(const json_t *req, int64_t *after, size_t *limit);

/*
 * End every session of account id but keep (NULL: every one), as a ban does (above): each one's
 * game not over ends as aborted, abandoned, and *games counts it; its connection gets bye with
 * reason and text, and it is forgotten (its token gets bad_token). Returns how many ended. Used
 * by a ban, a reset, and by auth.c: a password changed (every session but the changing one), an
 * account closed (all of them).
 */
unsigned operators_account_end(struct lobby *lb, int64_t id, const struct session *keep,
                               const char *reason, const char *text, unsigned *games);

/*
 * The password job of a reset came back (j borrowed, j->ticket the request's): its answer, a new
 * reference. The caller frees j.
 */
json_t *operators_hash_done(struct lobby *lb, struct auth_job *j);

/* Account row as listed (id, name, kind, created_ms; closed_ms, banned_ms when set). New. */
json_t *operators_account_new(const struct store_account *row);

/* An ok answer to request about row, the sessions and games it ended counted. New. */
json_t *operators_ok_new(const char *request, const struct store_account *row, unsigned sessions,
                         unsigned games);

/*
 * Start-up, after the rebuild: the sessions of accounts banned or closed while no server ran
 * (hokitod accounts ban on the store file) are ended as by a ban. Returns how many.
 */
unsigned operators_restore(struct lobby *lb);

#endif
