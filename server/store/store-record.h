/*
 * store-record.h: the text game record of a stored game (store-record.c), for every backend's
 * read port.
 */
#ifndef HOKITO_SERVER_STORE_RECORD_H
#define HOKITO_SERVER_STORE_RECORD_H

#include <stddef.h>

#include "record.h"
#include "store-port.h"

/*
 * The record (FORMATS.md "Game records") of game g from its events ev[0..nev) (borrowed);
 * changes (NULL, or both seats' by seat) give a rated game's rating headers. Reads nothing.
 * Returns the length, or STORE_ENOSPC or STORE_ECORRUPT.
 */
int store_record_format(const struct store_game *g, const struct store_event *ev, size_t nev,
                        const struct store_rating_change *changes, char *buf, size_t size,
                        struct store_error *err);

/* How a stored end reads as a record's result (record.h). */
enum record_result store_record_result(const struct store_game *g);

#endif
