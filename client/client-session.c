/*
 * client-session.c: the session token kept in a file, so that a restarted client rejoins.
 *
 * The server gives every session a secret token; a client that says hello with it gets its seat
 * (or its place as a spectator) back. This module keeps one token per server and player name in
 * the state folder, with whose session it is (a guest's or an account's: --login and --register
 * resume only an account's, see client_net_start()), (state-dir.h: $XDG_STATE_HOME/hokito/), in a
 * file only the user can read, written whole to a temporary name and renamed so a crash never
 * leaves half a token. It owns nothing in memory and never talks to the network.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "state-dir.h"

/* The token file's path for a server and a name; odd characters become '_'. */
static int
session_path(const char *host, int port, const char *name, char *buf, size_t size)
{
	char dir[1100], key[256];
	size_t n = 0;
	int rc = state_dir_path(dir, sizeof dir);

	if (rc < 0)
		return rc;
	n = (size_t)snprintf(key, sizeof key, "%s-%d-%s", host, port, name);
	if (n >= sizeof key)
		n = sizeof key - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)key[i];
		if (!(ch == '-' || ch == '.' || (ch >= '0' && ch <= '9') ||
		      (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
			key[i] = '_';
	}
	if ((size_t)snprintf(buf, size, "%s/session-%s", dir, key) >= size)
		return -ENAMETOOLONG;
	return 0;
}

int
client_session_load(const char *host, int port, const char *name, char *token, size_t size,
                    int *account)
{
	char path[1500], buf[CLIENT_TOKEN_MAX + 16];
	FILE *f;
	size_t n, end;

	*account = 0;
	if (session_path(host, port, name, path, sizeof path) < 0)
		return -1;
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	end = strcspn(buf, "\r\n");
	/* the second line, "account", says whose session it is; a file without one is older */
	*account = strncmp(buf + end + strspn(buf + end, "\r\n"), "account", 7) == 0;
	buf[end] = '\0';
	snprintf(token, size, "%s", buf);
	return token[0] != '\0' ? 0 : -1;
}

int
client_session_save(const char *host, int port, const char *name, const char *token, int account)
{
	char path[1500], tmp[1600], text[CLIENT_TOKEN_MAX + 16];
	int fd, rc;
	size_t len;

	rc = session_path(host, port, name, path, sizeof path);
	if (rc < 0)
		return rc;
	len = (size_t)snprintf(text, sizeof text, "%s\n%s\n", token, account ? "account" : "guest");
	if (len >= sizeof text)
		return -ENAMETOOLONG;
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc != 0 ? rc : -EIO;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}

void
client_session_forget(const char *host, int port, const char *name)
{
	char path[1500];

	if (session_path(host, port, name, path, sizeof path) == 0)
		unlink(path);
}
