/*
 * hist.h: fixed-bucket histograms of durations, as Prometheus reads them (cumulative buckets,
 * a count and a sum), for the metrics (web-metrics.h).
 *
 * Pure: no clock is read, no I/O, no allocation; a histogram is a plain value embedded in its
 * owner (the turn pipeline's group commits, the node's loop lag). The bucket bounds are the same
 * for every histogram (HIST_BOUNDS_US, in microseconds: 100 us to 10 s), so that one table names
 * them all.
 */
#ifndef HOKITO_SERVER_HIST_H
#define HOKITO_SERVER_HIST_H

#include <stdint.h>

#define HIST_NBUCKETS 12

/* The upper bounds of the buckets, in microseconds (the last bucket, +Inf, is implicit). */
extern const uint64_t hist_bounds_us[HIST_NBUCKETS];

struct hist {
	uint64_t bucket[HIST_NBUCKETS + 1]; /* observations in each bucket (not cumulative) */
	uint64_t count;
	uint64_t sum_us;
};

/* Count one observation of us microseconds. */
void hist_observe(struct hist *h, uint64_t us);

#endif
