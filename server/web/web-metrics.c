/*
 * web-metrics.c: GET /metrics, /healthz and /readyz (web-metrics.h).
 *
 * The text is made at each scrape from the numbers the node gathered (a few hundred bytes per
 * game kind and limit: no store read, nothing that grows with the games but the count of tables
 * the node walks). Each metric has its HELP and TYPE lines; a histogram's buckets are cumulative,
 * with le in seconds.
 */
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "web-metrics.h"

static const char *const transport_names[NET_NTRANSPORTS] = {"tcp", "tls", "ws", "http"};

/* The HELP and TYPE lines of a metric. */
static void
metric_head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A counter with one label (name label) and its n values. */
static void
metric_counts(FILE *out, const char *name, const char *label, const char *help,
              const struct web_count *c, unsigned n)
{
	metric_head(out, name, "counter", help);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s{%s=\"%s\"} %llu\n", name, label, c[i].label,
		        (unsigned long long)c[i].count);
}

/* A histogram of microseconds, written in seconds. */
static void
metric_hist(FILE *out, const char *name, const char *help, const struct hist *h)
{
	uint64_t cum = 0;

	metric_head(out, name, "histogram", help);
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		cum += h->bucket[i];
		fprintf(out, "%s_bucket{le=\"%g\"} %llu\n", name, (double)hist_bounds_us[i] / 1e6,
		        (unsigned long long)cum);
	}
	cum += h->bucket[HIST_NBUCKETS];
	fprintf(out, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
	fprintf(out, "%s_sum %.6f\n%s_count %llu\n", name, (double)h->sum_us / 1e6, name,
	        (unsigned long long)h->count);
}

void
web_metrics_write(FILE *out, const struct web_metrics *m)
{
	const struct web_count refusals[] = {
	        {"max-clients", m->net.refused_clients},
	        {"max-conns-per-addr", m->net.refused_per_addr},
	        {"max-output", m->net.dropped_output},
	        {"max-line", m->net.too_long},
	        {"hello-timeout", m->net.hello_timeouts},
	        {"max-http-rate-per-addr", m->http.refused_rate},
	        {"http-origin", m->http.refused_origin},
	};

	metric_head(out, "hokito_connections", "gauge", "Connections open now, by transport.");
	for (int t = 0; t < NET_NTRANSPORTS; t++)
		fprintf(out, "hokito_connections{transport=\"%s\"} %u\n", transport_names[t],
		        m->net.open[t]);
	metric_head(out, "hokito_connections_accepted_total", "counter",
	            "Connections accepted since the start, by transport.");
	for (int t = 0; t < NET_NTRANSPORTS; t++)
		fprintf(out, "hokito_connections_accepted_total{transport=\"%s\"} %llu\n",
		        transport_names[t], (unsigned long long)m->net.accepted[t]);
	metric_head(out, "hokito_refusals_total", "counter",
	            "Connections or requests refused or closed by a limit, by the limit's flag.");
	for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
		fprintf(out, "hokito_refusals_total{limit=\"%s\"} %llu\n", refusals[i].label,
		        (unsigned long long)refusals[i].count);
	for (unsigned i = 0; i < m->nrefusals; i++)
		fprintf(out, "hokito_refusals_total{limit=\"%s\"} %llu\n", m->refusals[i].label,
		        (unsigned long long)m->refusals[i].count);
	metric_head(out, "hokito_http_requests_total", "counter",
	            "HTTP requests answered (not the WebSocket upgrades).");
	fprintf(out, "hokito_http_requests_total %llu\n", (unsigned long long)m->http.requests);
	metric_head(out, "hokito_sessions", "gauge",
	            "Sessions kept, connected or waiting for a resume.");
	fprintf(out, "hokito_sessions %u\n", m->sessions);
	metric_head(out, "hokito_sessions_connected", "gauge", "Sessions with a connection now.");
	fprintf(out, "hokito_sessions_connected %u\n", m->sessions_connected);
	metric_head(out, "hokito_games", "gauge", "Games in memory, by kind and status.");
	for (unsigned k = 0; k < m->nkinds; k++)
		for (int s = 0; s < EVENT_STATUS_COUNT; s++)
			fprintf(out, "hokito_games{kind=\"%s\",status=\"%s\"} %u\n",
			        game_kind_name((enum game_kind)k),
			        event_status_name((enum event_status)s), m->games[k][s]);
	metric_head(out, "hokito_games_created_total", "counter", "Games created since the start.");
	fprintf(out, "hokito_games_created_total %llu\n", (unsigned long long)m->games_created);
	metric_head(out, "hokito_games_finished_total", "counter",
	            "Games finished since the start.");
	fprintf(out, "hokito_games_finished_total %llu\n", (unsigned long long)m->games_finished);
	metric_head(out, "hokito_game_events_total", "counter",
	            "Game events published since the start (moves, chat, offers, ends, ...).");
	fprintf(out, "hokito_game_events_total %llu\n", (unsigned long long)m->events);
	metric_head(out, "hokito_moves_total", "counter", "Moves played since the start.");
	fprintf(out, "hokito_moves_total %llu\n", (unsigned long long)m->moves);
	metric_head(out, "hokito_lines_sent_total", "counter",
	            "Lines (messages) handed to connections, by transport.");
	for (int t = 0; t < NET_NTRANSPORTS; t++)
		fprintf(out, "hokito_lines_sent_total{transport=\"%s\"} %llu\n", transport_names[t],
		        (unsigned long long)m->net.lines[t]);
	metric_head(out, "hokito_store_commits_total", "counter",
	            "Group commits that wrote to the store.");
	fprintf(out, "hokito_store_commits_total %llu\n", (unsigned long long)m->commits);
	metric_hist(out, "hokito_store_commit_duration_seconds",
	            "Time the loop spent in each group commit that wrote.", &m->commit_latency);
	metric_hist(out, "hokito_loop_lag_seconds",
	            "How late the loop ran a timer due every 100 ms.", &m->loop_lag);
	metric_head(out, "hokito_store_down", "gauge",
	            "1 while the store cannot write (replies are held), else 0.");
	fprintf(out, "hokito_store_down %d\n", m->store_down ? 1 : 0);
	metric_head(out, "hokito_store_unavailable_total", "counter",
	            "Times the store went down (could not write) since the start.");
	fprintf(out, "hokito_store_unavailable_total %llu\n", (unsigned long long)m->store_errors);
	metric_head(out, "hokito_search_pool_full", "gauge",
	            "1 while every computer player's search slot is taken (--max-thinking).");
	fprintf(out, "hokito_search_pool_full %d\n", m->thinking ? 1 : 0);
	metric_head(out, "hokito_searches", "gauge",
	            "Computer players' searches held: waiting for a place, queued or running.");
	fprintf(out, "hokito_searches %u\n", m->searches);
	metric_head(out, "hokito_store_reads_queued", "gauge",
	            "Store reads (history, records, profiles, the read API) waiting for a reader "
	            "thread.");
	fprintf(out, "hokito_store_reads_queued %u\n", m->reads_queued);
	metric_head(out, "hokito_password_threads", "gauge", "Threads hashing passwords.");
	fprintf(out, "hokito_password_threads %u\n", m->hash_threads);
	metric_head(out, "hokito_password_jobs", "gauge",
	            "Password jobs (hashes to make or check) out: queued or being hashed.");
	fprintf(out, "hokito_password_jobs %u\n", m->hashes_out);
	metric_head(out, "hokito_password_jobs_queued", "gauge",
	            "Password jobs waiting for a hashing thread.");
	fprintf(out, "hokito_password_jobs_queued %u\n", m->hashes_queued);
	metric_counts(out, "hokito_password_hashes_total", "outcome",
	              "Password jobs done since the start, by outcome.", m->hashes, m->nhashes);
	metric_counts(out, "hokito_logins_total", "outcome",
	              "Logins with a password since the start, by outcome.", m->logins, m->nlogins);
	metric_head(out, "hokito_uptime_seconds", "gauge", "Seconds since the server started.");
	fprintf(out, "hokito_uptime_seconds %llu\n", (unsigned long long)m->uptime_s);
}

/* Whether rq's peer lies in the range a. */
static int
allow_match(const struct http_allow *a, const struct sockaddr_storage *ss)
{
	const unsigned char *p;
	unsigned full, rest;

	if (ss->ss_family != a->family)
		return 0;
	p = a->family == AF_INET
	            ? (const unsigned char *)&((const struct sockaddr_in *)ss)->sin_addr
	            : (const unsigned char *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	full = a->bits / 8;
	rest = a->bits % 8;
	if (memcmp(p, a->addr, full) != 0)
		return 0;
	return rest == 0 || ((p[full] ^ a->addr[full]) & (0xff00u >> rest) & 0xff) == 0;
}

void
web_metrics_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const struct http_config *cfg = http_config_of(h);
	const struct http_ops *ops = http_ops_of(h);
	int allowed = rq->loopback;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; !allowed && i < cfg->nallow; i++)
		allowed = allow_match(&cfg->allow[i], rq->ss);
	if (!allowed) {
		http_reply_printf(out, 403, "text/plain; charset=utf-8",
		                  "metrics are served to loopback and --metrics-allow only\n");
		return;
	}
	if ((f = open_memstream(&text, &len)) == NULL) {
		http_reply_printf(out, 500, "text/plain; charset=utf-8", "out of memory\n");
		return;
	}
	ops->metrics(ops->arg, f);
	fclose(f);
	free(out->body);
	out->body = text;
	out->len = len;
	out->status = 200;
	out->type = "text/plain; version=0.0.4; charset=utf-8";
}

void
web_healthz_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	(void)h;
	(void)rq;
	http_reply_printf(out, 200, "text/plain; charset=utf-8", "ok\n");
}

void
web_readyz_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const struct http_ops *ops = http_ops_of(h);
	char why[160] = "";

	(void)rq;
	if (ops->ready(ops->arg, why, sizeof why)) {
		http_reply_printf(out, 200, "text/plain; charset=utf-8", "ready\n");
		return;
	}
	http_reply_printf(out, 503, "text/plain; charset=utf-8", "not ready: %s\n", why);
	out->retry_after = 5;
}
