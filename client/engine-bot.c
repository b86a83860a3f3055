/* engine-bot.c: placeholder, written next. */
#include "engine.h"

int
engine_bot(struct engine_opts *o)
{
	(void)o;
	return engine_fail(EXIT_USAGE, "bot: not written yet");
}
