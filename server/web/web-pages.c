/*
 * web-pages.c: the pages for people (web-pages.h): the embedded files by name, and the rules
 * page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules-text.h"
#include "web-pages.h"
#include "xmalloc.h"

/* The embedded file name, or NULL. */
static const struct web_asset *
asset_find(const char *name)
{
	for (unsigned i = 0; i < web_nassets; i++)
		if (strcmp(web_assets[i].name, name) == 0)
			return &web_assets[i];
	return NULL;
}

/* Answer with the embedded file name (a copy: the reply owns its body), or 404. */
static void
asset_reply(const char *name, struct http_reply *out)
{
	const struct web_asset *a = asset_find(name);

	if (a == NULL) {
		http_reply_printf(out, 404, "text/plain; charset=utf-8", "nothing here\n");
		return;
	}
	free(out->body);
	out->body = xmalloc(a->len + 1);
	memcpy(out->body, a->data, a->len);
	out->len = a->len;
	out->status = 200;
	out->type = a->type;
}

void
web_lobby_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	(void)h;
	(void)rq;
	asset_reply("lobby.html", out);
}

void
web_game_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	(void)h;
	(void)rq;
	asset_reply("game.html", out);
}

void
web_profile_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	(void)h;
	(void)rq;
	asset_reply("profile.html", out);
}

void
web_static_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const char *name = rq->path + strlen("/static/");

	(void)h;
	/* the HTML pages have their own routes; only the files they load are here */
	if (strchr(name, '/') != NULL || strstr(name, ".html") != NULL) {
		http_reply_printf(out, 404, "text/plain; charset=utf-8", "nothing here\n");
		return;
	}
	asset_reply(name, out);
}

/* Write text to f with &, <, > and " escaped. */
static void
html_escape(FILE *f, const char *text)
{
	for (const char *p = text; *p != '\0'; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
}

void
web_rules_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	static const struct {
		enum game_kind kind;
		const char *title;
	} games[] = {{GAME_HOKITO, "HOKITO"}, {GAME_OXONO, "OXONO"}};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)h;
	(void)rq;
	if ((f = open_memstream(&text, &len)) == NULL) {
		http_reply_printf(out, 500, "text/plain; charset=utf-8", "out of memory\n");
		return;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>hokito: the rules</title>\n"
	      "<link rel=\"stylesheet\" href=\"/static/hokito.css\">\n</head>\n<body>\n"
	      "<header><a href=\"/\">hokito</a> <a href=\"/rules\">rules</a></header>\n"
	      "<main>\n<h1>The rules</h1>\n",
	      f);
	for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
		fprintf(f, "<h2 id=\"%s\">%s</h2>\n<pre class=\"rules\">", games[i].title,
		        games[i].title);
		html_escape(f, rules_text_get(games[i].kind));
		fputs("</pre>\n", f);
	}
	fputs("</main>\n</body>\n</html>\n", f);
	fclose(f);
	free(out->body);
	out->body = text;
	out->len = len;
	out->status = 200;
	out->type = "text/html; charset=utf-8";
}
