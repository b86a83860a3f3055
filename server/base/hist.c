/*
 * hist.c: fixed-bucket histograms (hist.h): the bounds, and one observation.
 */
#include "hist.h"

const uint64_t hist_bounds_us[HIST_NBUCKETS] = {
        100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 1000000, 10000000,
};

void
hist_observe(struct hist *h, uint64_t us)
{
	unsigned i = 0;

	while (i < HIST_NBUCKETS && us > hist_bounds_us[i])
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum_us += us;
}
