/*
 * state-dir.c: the folder of what hokito's programs remember, $XDG_STATE_HOME/hokito/.
 *
 * It only finds and makes the folder (each level mode 0700); the files in it are their modules'
 * (client-session.c, tls-link.c). It never reads or writes a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "state-dir.h"

int
state_dir_path(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char base[1024];

	if (xdg != NULL && xdg[0] == '/')
		snprintf(base, sizeof base, "%s", xdg);
	else if (home != NULL && home[0] != '\0')
		snprintf(base, sizeof base, "%s/.local/state", home);
	else
		return -ENOENT;
	/* Create each missing level: ~/.local, ~/.local/state, then ours. */
	for (char *p = base + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(base, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return -errno;
	if ((size_t)snprintf(buf, size, "%s/hokito", base) >= size)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}
