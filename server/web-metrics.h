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

/* A refusal counter, by the name of the limit (a flag's name without its dashes' prefix). */
struct web_refusal {
	const char *limit; /* "max-clients", ... (static) */
	uint64_t count;
};

#define WEB_MAX_REFUSALS 16

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
	int thinking;               /* the computer players' pool is full */
	unsigned hash_threads;      /* password hashing threads */
	uint64_t uptime_s;          /* seconds since the start */
};

/* Write m in the Prometheus text format (version 0.0.4) to out. */
void web_metrics_write(FILE *out, const struct web_metrics *m);

/* The routes (http.h's http_get_fn). */
void web_metrics_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_healthz_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_readyz_get(struct http *h, const struct http_request *rq, struct http_reply *out);

#endif
