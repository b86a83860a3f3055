/*
 * admin.h: hokitod's admin channel: a Unix domain socket beside the store through which the
 * operators' commands (`hokitod accounts ...`, operators.h) reach the running server. It speaks
 * newline-delimited JSON: one request a line, one answer a line, in order. Only that socket takes
 * these requests, never a TCP client: the socket is made mode 0600, and a peer whose credentials
 * (SO_PEERCRED) are neither root's nor the server's own user's is refused with one error line and
 * closed. A socket file left by a server that died is replaced at start; one that a running server
 * answers on is not (the start fails). The file is removed at stop.
 *
 * It knows nothing about accounts: each request goes up through the request callback, whose
 * answer (now, or later through admin_reply()) is written only once the loop turn that made it
 * is durable (admin_release(), called as the network layer's output is released: turn.h), so an
 * operator is never told of a ban that a crash could undo. Owns its listening handle and its
 * connections, each freed in its close callback.
 */
#ifndef HOKITO_SERVER_ADMIN_H
#define HOKITO_SERVER_ADMIN_H

#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#define ADMIN_LINE_MAX 65536 /* bytes of a request line */

struct admin;

/*
 * A request req (borrowed), numbered ticket: answer it with admin_reply(), during the call or
 * later. Called on the loop's thread. A connection sends its next request only after the answer.
 */
typedef void (*admin_request_cb)(void *arg, uint64_t ticket, const json_t *req);

/*
 * Listen on the Unix socket at path (copied) on loop, answering through request(arg, ...).
 * Returns 0 and the channel in *out, or a negative libuv error and *out NULL (UV_EADDRINUSE: a
 * server answers on path already; UV_EEXIST: path is a file but no socket; UV_ENAMETOOLONG: too
 * long for a socket).
 */
int admin_create(uv_loop_t *loop, const char *path, admin_request_cb request, void *arg,
                 struct admin **out);

/*
 * The answer (stolen) of request ticket, made in loop turn turn (net_turn()); written once that
 * turn is released. Dropped when the asking connection is gone.
 */
void admin_reply(struct admin *ad, uint64_t ticket, json_t *answer, uint64_t turn);

/* The output of every turn up to turn is durable: write the answers made in them. */
void admin_release(struct admin *ad, uint64_t turn);

/* Stop: no more connections, the open ones closed, the socket file removed. */
void admin_close(struct admin *ad);

/* Free the channel once the loop has closed its handles. Accepts NULL. */
void admin_free(struct admin *ad);

#endif
