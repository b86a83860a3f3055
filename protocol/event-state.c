/*
 * event-state.c: the rules of what each game event does to a game (event-state.h).
 *
 * One table, indexed by enum msg_type, says for every event in which statuses it may come and
 * which function applies it; notices have no status rule and only update what they report. A
 * rule about an event is written here and nowhere else: the server's table and restore and the
 * client all apply events through event_state_apply(). A second table says what each offer
 * request is about (draw or rematch) and asks (offer, accept, decline), for event_state_answer().
 * event_state_decode() reads the same state from a state message, so a client that joins a game
 * midway follows it from there. Pure: no allocation, no I/O.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "event-member.h"
#include "event-state.h"
#include "event.h"
#include "protocol.h"

#define S(status) (1u << (status))

#define ANY_STATUS                                                                                 \
	(S(EVENT_STATUS_OPEN) | S(EVENT_STATUS_LIVE) | S(EVENT_STATUS_ADJOURNED) |                 \
	 S(EVENT_STATUS_FINISHED))

void
event_state_init(struct event_state *st, enum game_kind kind)
{
	memset(st, 0, sizeof *st);
	st->kind = kind;
	st->status = EVENT_STATUS_OPEN;
	st->to_move = -1;
	st->first = -1;
	st->result = EVENT_RESULT_NONE;
	st->winner = -1;
	st->reason = EVENT_REASON_NONE;
	for (int i = 0; i < EVENT_OFFER_COUNT; i++)
		st->offer[i] = -1;
}

int
event_state_offer_after_move(int offer, int mover)
{
	return offer == mover ? offer : -1;
}

int
event_state_over(const struct event_state *st)
{
	return st->status == EVENT_STATUS_FINISHED;
}

/* Take the clocks or scores an event carries; absent ones leave the last values. */
static void
take_pair(struct event_pair *to, const struct event_pair *from)
{
	if (from->has)
		*to = *from;
}

static void
seated_apply(struct event_state *st, const struct event *ev)
{
	int seat = ev->u.seated.seat;

	st->seated[seat] = 1;
	st->computer[seat] = ev->u.seated.player.computer;
	st->connected[seat] = 1;
	st->grace_over[seat] = 0;
}

static void
started_apply(struct event_state *st, const struct event *ev)
{
	st->status = EVENT_STATUS_LIVE;
	st->to_move = ev->u.started.to_move;
	st->first = ev->u.started.to_move;
	for (int i = 0; i < 2; i++) {
		st->seated[i] = 1;
		st->computer[i] = ev->u.started.players[i].computer;
	}
	take_pair(&st->clocks, &ev->u.started.clocks);
}

static void
moved_apply(struct event_state *st, const struct event *ev)
{
	const struct event_moved *m = &ev->u.moved;

	st->offer[EVENT_OFFER_DRAW] =
	        event_state_offer_after_move(st->offer[EVENT_OFFER_DRAW], m->by);
	st->ply = m->ply;
	st->to_move = m->to_move;
	take_pair(&st->scores, &m->scores);
	take_pair(&st->clocks, &m->clocks);
}

static void
game_over_apply(struct event_state *st, const struct event *ev)
{
	const struct event_game_over *g = &ev->u.game_over;

	st->status = EVENT_STATUS_FINISHED;
	st->to_move = -1;
	st->offer[EVENT_OFFER_DRAW] = -1;
	st->result = g->outcome.result;
	st->winner = g->outcome.winner;
	st->reason = g->outcome.reason;
	take_pair(&st->scores, &g->outcome.scores);
	take_pair(&st->clocks, &g->clocks);
}

static void
draw_offered_apply(struct event_state *st, const struct event *ev)
{
	st->offer[EVENT_OFFER_DRAW] = ev->u.offer.by;
}

static void
draw_declined_apply(struct event_state *st, const struct event *ev)
{
	(void)ev;
	st->offer[EVENT_OFFER_DRAW] = -1;
}

static void
chat_apply(struct event_state *st, const struct event *ev)
{
	(void)st; /* the lines themselves are the caller's to keep */
	(void)ev;
}

static void
grace_over_apply(struct event_state *st, const struct event *ev)
{
	st->grace_over[ev->u.grace_over.seat] = 1;
	st->claimable[ev->u.grace_over.seat] = 1;
	take_pair(&st->clocks, &ev->u.grace_over.clocks);
}

/* Without a clock the game waits for both players; nobody may move, offer or claim. */
static void
adjourned_apply(struct event_state *st, const struct event *ev)
{
	st->status = EVENT_STATUS_ADJOURNED;
	st->to_move = -1;
	st->offer[EVENT_OFFER_DRAW] = -1;
	st->grace_over[ev->u.adjourned.seat] = 1;
}

/* Both players are back: the game is live, each with a whole grace period again. */
static void
resumed_apply(struct event_state *st, const struct event *ev)
{
	st->status = EVENT_STATUS_LIVE;
	st->to_move = ev->u.resumed.to_move;
	for (int i = 0; i < 2; i++)
		st->grace_over[i] = st->claimable[i] = 0;
}

static void
rematch_offered_apply(struct event_state *st, const struct event *ev)
{
	st->offer[EVENT_OFFER_REMATCH] = ev->u.offer.by;
}

static void
rematch_closed_apply(struct event_state *st, const struct event *ev)
{
	(void)ev;
	st->offer[EVENT_OFFER_REMATCH] = -1;
}

static void
nothing_apply(struct event_state *st, const struct event *ev)
{
	(void)st;
	(void)ev;
}

/* A player who comes back may not be claimed against any more; a drop says its grace. */
static void
presence_apply(struct event_state *st, const struct event *ev)
{
	const struct event_presence *p = &ev->u.presence;

	st->connected[p->seat] = p->connected;
	if (p->connected)
		st->grace_over[p->seat] = st->claimable[p->seat] = 0;
	else if (p->has_grace && !p->grace_over)
		st->grace_over[p->seat] = st->claimable[p->seat] = 0; /* a fresh drop */
	else if (p->has_grace)
		st->grace_over[p->seat] = 1;
}

/*
 * Each event: the statuses it may come in (a bit per enum event_status; 0 for a notice, which
 * may come any time and has no seq of its own) and what it does.
 */
static const struct {
	unsigned when;
	void (*apply)(struct event_state *st, const struct event *ev);
} rules[MSG_TYPE_COUNT] = {
        [MSG_SEATED] = {S(EVENT_STATUS_OPEN), seated_apply},
        [MSG_STARTED] = {S(EVENT_STATUS_OPEN), started_apply},
        [MSG_MOVED] = {S(EVENT_STATUS_LIVE), moved_apply},
        [MSG_GAME_OVER] = {S(EVENT_STATUS_OPEN) | S(EVENT_STATUS_LIVE) | S(EVENT_STATUS_ADJOURNED),
                           game_over_apply},
        [MSG_DRAW_OFFERED] = {S(EVENT_STATUS_LIVE), draw_offered_apply},
        [MSG_DRAW_DECLINED] = {S(EVENT_STATUS_LIVE), draw_declined_apply},
        [MSG_CHAT] = {ANY_STATUS, chat_apply},
        [MSG_GRACE_OVER] = {S(EVENT_STATUS_LIVE) | S(EVENT_STATUS_ADJOURNED), grace_over_apply},
        [MSG_ADJOURNED] = {S(EVENT_STATUS_LIVE), adjourned_apply},
        [MSG_RESUMED] = {S(EVENT_STATUS_ADJOURNED), resumed_apply},
        [MSG_REMATCH_OFFERED] = {S(EVENT_STATUS_FINISHED), rematch_offered_apply},
        [MSG_REMATCH_DECLINED] = {S(EVENT_STATUS_FINISHED), rematch_closed_apply},
        [MSG_REMATCH_STARTED] = {S(EVENT_STATUS_FINISHED), rematch_closed_apply},
        [MSG_YOUR_TURN] = {0, nothing_apply},
        [MSG_PRESENCE] = {0, presence_apply},
        [MSG_SPECTATORS] = {0, nothing_apply},
        [MSG_KIBITZ] = {0, nothing_apply},
};

int
event_state_allows(const struct event_state *st, enum msg_type type)
{
	if ((int)type <= MSG_NONE || type >= MSG_TYPE_COUNT || rules[type].apply == NULL)
		return 0;
	return rules[type].when == 0 || (rules[type].when & S(st->status)) != 0;
}

/* Fill err with a refusal of field and return PROTO_EBADVALUE. */
static int refuse(struct msg_error *err, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

static int
refuse(struct msg_error *err, const char *field, const char *fmt, ...)
{
	va_list ap;

	err->code = PROTO_EBADVALUE;
	snprintf(err->field, sizeof err->field, "%s", field);
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return PROTO_EBADVALUE;
}

int
event_state_apply(struct event_state *st, const struct event *ev, struct msg_error *err)
{
	const char *type = msg_type_name(ev->type);

	if (!event_state_allows(st, ev->type))
		return refuse(err, "type", "No %s in a game that is %s.",
		              type ? type : "such event", event_status_name(st->status));
	if (rules[ev->type].when != 0 && ev->seq != st->seq + 1)
		return refuse(err, "seq", "The %s event has seq %lld where %lld comes next.", type,
		              (long long)ev->seq, (long long)(st->seq + 1));
	if (ev->type == MSG_MOVED && st->to_move >= 0 && ev->u.moved.by != st->to_move)
		return refuse(err, "by", "A move by %s when %s is to move.",
		              game_side_name(st->kind, ev->u.moved.by),
		              game_side_name(st->kind, st->to_move));
	if (ev->type == MSG_MOVED && ev->u.moved.ply != st->ply + 1)
		return refuse(err, "ply", "A move at ply %lld after %lld moves.",
		              (long long)ev->u.moved.ply, (long long)st->ply);
	if (ev->type == MSG_GAME_OVER && ev->u.game_over.ply != st->ply)
		return refuse(err, "ply", "The game ends at ply %lld after %lld moves.",
		              (long long)ev->u.game_over.ply, (long long)st->ply);
	rules[ev->type].apply(st, ev);
	if (rules[ev->type].when != 0)
		st->seq = ev->seq;
	return 0;
}

/* Each offer request: the offer it is about and what it asks. */
static const struct {
	int known;
	enum event_offer offer;
	enum event_answer ask;
} requests[MSG_TYPE_COUNT] = {
        [MSG_DRAW_OFFER] = {1, EVENT_OFFER_DRAW, EVENT_ANSWER_OFFER},
        [MSG_DRAW_ACCEPT] = {1, EVENT_OFFER_DRAW, EVENT_ANSWER_ACCEPT},
        [MSG_DRAW_DECLINE] = {1, EVENT_OFFER_DRAW, EVENT_ANSWER_DECLINE},
        [MSG_REMATCH] = {1, EVENT_OFFER_REMATCH, EVENT_ANSWER_OFFER},
        [MSG_REMATCH_DECLINE] = {1, EVENT_OFFER_REMATCH, EVENT_ANSWER_DECLINE},
};

int
event_state_answer(const struct event_state *st, enum msg_type request, int seat)
{
	int standing;

	assert((int)request > MSG_NONE && request < MSG_TYPE_COUNT && requests[request].known);
	assert(seat == 0 || seat == 1);
	standing = st->offer[requests[request].offer];
	if (requests[request].ask == EVENT_ANSWER_OFFER && standing == seat)
		return PROTO_EALREADYOFFERED;
	if (requests[request].ask == EVENT_ANSWER_OFFER)
		return standing == 1 - seat ? EVENT_ANSWER_ACCEPT : EVENT_ANSWER_OFFER;
	return standing == 1 - seat ? (int)requests[request].ask : PROTO_ENOOFFER;
}

int
event_state_unplayed(const struct event_state *st)
{
	return st->status == EVENT_STATUS_FINISHED && st->result == EVENT_RESULT_ABORTED &&
	       st->ply == 0;
}

int
event_state_may_abort(const struct event_state *st, int seat)
{
	return st->ply <= (seat == st->first ? 0 : 1);
}

/* A seat of a state's players: null, or a player object with "connected" (7.1). */
static int
state_player_decode(struct event_state *st, const json_t *players, int seat, struct msg_error *err)
{
	const json_t *v = json_object_get(players, game_side_name(st->kind, seat));
	struct event_player p;

	if (json_is_null(v))
		return 0;
	EVENT_TRY(event_member_player(v, "players", 1, &p, err));
	EVENT_TRY(event_member_bool(v, "connected", &st->connected[seat], err));
	if (json_object_get(v, "grace_over") != NULL)
		EVENT_TRY(event_member_bool(v, "grace_over", &st->grace_over[seat], err));
	if (json_object_get(v, "claimable") != NULL)
		EVENT_TRY(event_member_bool(v, "claimable", &st->claimable[seat], err));
	st->seated[seat] = 1;
	st->computer[seat] = p.computer;
	return 0;
}

int
event_state_decode(struct event_state *st, const json_t *o, struct msg_error *err)
{
	const char *word;
	enum game_kind kind;
	enum event_status status;
	const json_t *v;
	struct game start;
	struct game_error gerr;
	struct event_outcome out;

	EVENT_TRY(event_member_str(o, "kind", 0, &word, err));
	if (game_kind_parse(word, &kind) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "kind", "No game '%.40s'.", word);
	event_state_init(st, kind);
	EVENT_TRY(event_member_str(o, "status", 0, &word, err));
	if (event_status_parse(word, &status) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "status", "No status '%.40s'.",
		                         word);
	st->status = status;
	EVENT_TRY(event_member_int(o, "seq", 0, &st->seq, err));
	EVENT_TRY(event_member_int(o, "ply", 0, &st->ply, err));
	EVENT_TRY(event_member_seat(o, "to_move", kind, 1, &st->to_move, err));
	EVENT_TRY(event_member_str(o, "start", 1, &word, err));
	if (game_parse(&start, kind, word, &gerr) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "start", "'start': %s", gerr.text);
	st->first = game_side(&start);
	v = event_member_get(o, "result", err);
	if (v == NULL)
		return err->code;
	if (json_is_null(v) != (status != EVENT_STATUS_FINISHED))
		return event_member_fail(err, PROTO_EBADVALUE, "result",
		                         "'result' is an object for a finished game, else null.");
	if (!json_is_null(v)) {
		EVENT_TRY(event_outcome_decode(v, kind, &out, err));
		st->result = out.result;
		st->winner = out.winner;
		st->reason = out.reason;
	}
	EVENT_TRY(event_member_pair(o, "scores", kind, 1, &st->scores, err));
	v = json_object_get(o, "clock");
	if (v != NULL && !json_is_null(v)) {
		if (!json_is_object(v))
			return event_member_fail(err, PROTO_EBADFIELD, "clock",
			                         "'clock' must be an object or null.");
		EVENT_TRY(event_member_pair(v, "remaining", kind, 0, &st->clocks, err));
		if (!st->clocks.has)
			return event_member_fail(err, PROTO_EBADFIELD, "clock",
			                         "'clock' must have 'remaining'.");
	}
	if (json_object_get(o, "draw_offer") != NULL)
		EVENT_TRY(event_member_seat(o, "draw_offer", kind, 1, &st->offer[EVENT_OFFER_DRAW],
		                            err));
	if (json_object_get(o, "rematch_offer") != NULL)
		EVENT_TRY(event_member_seat(o, "rematch_offer", kind, 1,
		                            &st->offer[EVENT_OFFER_REMATCH], err));
	v = event_member_get(o, "players", err);
	if (v == NULL)
		return err->code;
	if (!json_is_object(v))
		return event_member_fail(err, PROTO_EBADFIELD, "players",
		                         "'players' must be an object.");
	for (int i = 0; i < 2; i++)
		EVENT_TRY(state_player_decode(st, v, i, err));
	return 0;
}
