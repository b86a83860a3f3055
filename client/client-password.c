/*
 * client-password.c: a password typed on the terminal, without echo.
 *
 * The terminal's echo is turned off while a password is typed and on again after, so that it
 * never shows (on the screen, in a terminal's scrollback, in a tmux pane). The full screen reads
 * keys without echo anyway; this serves the command line (--login and --register with --plain,
 * before the loop starts) and --plain's login and register commands, whose line the loop reads.
 * It owns nothing and keeps no copy of what is typed.
 */
#include <errno.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "client.h"

int
client_password_echo(int fd, int on)
{
	struct termios tio;

	if (!isatty(fd) || tcgetattr(fd, &tio) < 0)
		return -1;
	if (on)
		tio.c_lflag |= ECHO;
	else
		tio.c_lflag &= ~(tcflag_t)ECHO;
	return tcsetattr(fd, TCSANOW, &tio) < 0 ? -1 : 0;
}

int
client_password_read(int fd, char *buf, size_t size)
{
	size_t n = 0;
	int rc = 0;

	if (client_password_echo(fd, 0) < 0)
		return -1;
	for (;;) {
		char ch;
		ssize_t r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = n > 0 ? 0 : -1;
			break;
		}
		if (ch == '\n' || ch == '\r')
			break;
		if (n + 1 < size)
			buf[n++] = ch;
	}
	buf[n] = '\0';
	client_password_echo(fd, 1);
	return rc;
}
