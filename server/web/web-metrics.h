/*
 * web-metrics.h: the operators' pages of the HTTP side: GET /metrics (the Prometheus text
 * format), GET /healthz (alive) and GET /readyz (store writable, accepting).
 *
 * The node gathers the numbers into a struct web_metrics (plain values, no pointer into the
 * game layer) and web_metrics_write() writes them under their names: the hokito_ prefix, base
 * units (seconds, bytes), _total for counters, and no player or game id as a label (the labels
 * are transports, kinds, statuses and limit names: a few values each). /metrics answers only a
 * loopback peer or one in a --metrics-allow range (403 for the others).
 */
#ifndef HOKITO_SERVER_WEB_METRICS_H
#define HOKITO_SERVER_WEB_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "game-base.h"
#include "hist.h"
#include "http.h"
#include "net.h"

/* A counter under one value of its label: a limit's name ("max-clients"), an outcome ("ok"). */
struct web_count {
	const char *label; /* static */
	uint64_t count;
};

#define WEB_MAX_COUNTS 32 /* values of a label at most */

struct web_metrics {
	struct net_stats net;        /* connections by transport, the network layer's refusals */
	struct http_stats http;      /* requests, the HTTP side's refusals */
	unsigned sessions;           /* sessions kept (connected or not) */
	unsigned sessions_connected; /* of those, with a connection now */
	/* games in memory, by kind and status */
	unsigned games[GAME_KINDS_MAX][EVENT_STATUS_COUNT];
	unsigned nkinds;            /* kinds in use: games[0 .. nkinds-1] */
	uint64_t games_created;     /* since the start */
	uint64_t games_finished;    /* since the start */
	uint64_t events;            /* game events published (each to every receiver) */
	uint64_t moves;             /* of them, moves */
	uint64_t commits;           /* group commits that wrote */
	struct hist commit_latency; /* their durations */
	struct hist loop_lag;       /* how late the loop ran a 100 ms timer */
	int store_down;             /* the store cannot write now */
	uint64_t store_errors;      /* times it went down since the start */
	/* requests refused by the game layer's limits (the connections' are net's and http's) */
	struct web_count refusals[WEB_MAX_COUNTS];
	unsigned nrefusals;
	struct web_count logins[WEB_MAX_COUNTS]; /* logins with a password, by outcome */
	unsigned nlogins;
	struct web_count hashes[WEB_MAX_COUNTS]; /* password jobs done, by outcome */
	unsigned nhashes;
	int thinking;           /* the computer players' pool is full */
	unsigned searches;      /* computer searches held: waiting, queued or running */
	unsigned reads_queued;  /* store reads no reader thread has taken yet */
	unsigned hash_threads;  /* password hashing threads */
	unsigned hashes_out;    /* password jobs out: queued or being hashed */
	unsigned hashes_queued; /* of them, those no hashing thread has taken yet */
	uint64_t uptime_s;      /* seconds since the start */
};

/* Write m in the Prometheus text format (version 0.0.4) to out. */
void web_metrics_write(FILE *out, const struct web_metrics *m);

/* The routes (http.h's http_get_fn). */
void web_metrics_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_healthz_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_readyz_get(struct http *h, const struct http_request *rq, struct http_reply *out);

#endif
