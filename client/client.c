/*
 * client.c: the hub of the terminal client, struct client's few functions that every layer
 * calls: a notice for the user, a redraw, and quitting.
 *
 * It reaches the view only through the struct client_view table and the rest of the program
 * only through c->stop, which main() sets, so that it sits below every module of client/ (the
 * network layer, the messages and the views call it; it calls none of them by name). It owns
 * nothing: struct client belongs to main() (client-main.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include "client.h"

void
client_notice(struct client *c, int error, const char *fmt, ...)
{
	char buf[CLIENT_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (c->view != NULL && c->view_data != NULL)
		c->view->notice(c, error, buf);
	else
		client_state_notice(&c->st, error, "%s", buf);
}

void
client_update(struct client *c)
{
	if (c->view != NULL && c->view_data != NULL && !c->quitting)
		c->view->update(c);
}

void
client_quit(struct client *c, int exit_code)
{
	if (c->quitting)
		return;
	c->quitting = 1;
	c->exit_code = exit_code;
	if (c->view != NULL)
		c->view->stop(c);
	if (c->stop != NULL)
		c->stop(c);
	/* A notice that came too late for the screen still reaches the user. */
	if (!c->opt.plain && c->st.message_error && c->st.message[0] && exit_code != 0 &&
	    exit_code < 128)
		fprintf(stderr, "hokito: %s\n", c->st.message);
}

int
client_login_ask(struct client *c, const char *code, int64_t retry_ms)
{
	if (c->view == NULL || c->view_data == NULL || c->view->login == NULL || c->quitting)
		return 0;
	return c->view->login(c, code, retry_ms);
}
