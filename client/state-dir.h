/*
 * state-dir.h: the folder where hokito's programs keep what they remember between runs:
 * $XDG_STATE_HOME/hokito/ (by default ~/.local/state/hokito/), mode 0700. The session tokens
 * (client-session.c) and the pinned TLS certificates (known_hosts, tls-link.c) live there.
 */
#ifndef HOKITO_CLIENT_STATE_DIR_H
#define HOKITO_CLIENT_STATE_DIR_H

#include <stddef.h>

/* Write the folder's path into buf, creating each missing level. Returns 0 or a negative errno. */
int state_dir_path(char *buf, size_t size);

#endif
