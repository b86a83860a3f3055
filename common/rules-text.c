/*
 * rules-text.c: the rules of each game told to a person, as plain text with small board diagrams.
 *
 * The same words are shown by `hokito-engine rules`, by the terminal client's rules page and (by
 * hand, kept in step) by the RULES section of hokito(6). They are written from the rules the
 * engine implements (common/FORMATS.md and the rules issue), in the order a newcomer needs them:
 * the aim, the pieces, a turn, the end and the score, then the fine points. Lines are at most 76
 * columns and plain ASCII, so that every terminal shows them as they are. Nothing here allocates
 * or keeps state.
 */
#include "rules-text.h"

static const char hokito_rules[] =
        "HOKITO: stack your pawns high, on top of the others'.\n"
        "\n"
        "THE AIM\n"
        "  Control the most valuable stacks when the game stops. A stack belongs to\n"
        "  the player whose pawn is on top of it.\n"
        "\n"
        "THE PAWNS\n"
        "  Black and White each have 18 pawns: six each of value 1, 2 and 3. At the\n"
        "  start every square holds one pawn: Black's fill ranks 1-3 and White's\n"
        "  ranks 4-6, in an order drawn from the game's seed (the random36 variant\n"
        "  mixes all 36 pawns over the whole board). Black moves first.\n"
        "\n"
        "A TURN\n"
        "  Move one of your lone pawns, or one stack with your pawn on top. It makes\n"
        "  exactly as many hops as the value of its top pawn: a 3 hops three times.\n"
        "\n"
        "  A hop goes straight up, down, left or right to the FIRST occupied square\n"
        "  in that direction. Empty squares on the way are skipped and not counted;\n"
        "  with nothing before the edge, that hop cannot be made. The squares where\n"
        "  the mover lands on its way may hold anything.\n"
        "\n"
        "  After the first hop each hop goes straight on or turns a quarter turn:\n"
        "  never back the way it came. Here the white 2 on b2 (W) hops twice:\n"
        "\n"
        "    4  . . . x .      first hop: right, over the empty c2, onto the\n"
        "    3  . . . . .      pawn o on d2; second hop: up, over the empty d3,\n"
        "    2  . W . o .      onto the lone pawn x on d4, where it stops: the\n"
        "    1  . . . . .      move is b2-d4. From d2 it could not hop back\n"
        "       a b c d e      left to b2, the way it came.\n"
        "\n"
        "  Where it stops: a lone pawn must end on a lone pawn, and a stack (two or\n"
        "  more pawns) on a stack, of any colour and any height. The mover is put on\n"
        "  top, whole: stacks never split, so every stack holds an even number of\n"
        "  pawns. Different paths to the same square are the same move (c2-e4).\n"
        "\n"
        "THE END AND THE SCORE\n"
        "  The game ends as soon as EITHER player has no legal move, whoever is to\n"
        "  move. Each player then scores, for every square with their pawn on top,\n"
        "  the top pawn's value times the number of pawns in the stack:\n"
        "\n"
        "      a lone 2 scores 2; a stack four pawns high with a 3 on top scores 12.\n"
        "\n"
        "  The higher score wins; equal scores are a draw. So a 3 that crowns a tall\n"
        "  stack late in the game is worth a great deal, and a low pawn on top of a\n"
        "  tall stack of yours is a target for your opponent's 3s.\n"
        "\n"
        "ON THE SERVER\n"
        "  A game may also end by resignation, by a flag falling on the clock, by\n"
        "  agreement to a draw, or when a player who left does not come back in\n"
        "  time and the other claims it.\n";

static const char oxono_rules[] =
        "OXONO: line up four of your colour or of one symbol.\n"
        "\n"
        "THE AIM\n"
        "  Be the player who completes a line of four or more pawns in a row or a\n"
        "  column: four of your colour, or four of the same symbol, X or O, whatever\n"
        "  their colours.\n"
        "\n"
        "THE PIECES\n"
        "  Two totems, X and O, stand on c3 and d4 (the seed says which is which).\n"
        "  Pink and Black each have 16 pawns in reserve: 8 marked X and 8 marked O.\n"
        "  Pink moves first.\n"
        "\n"
        "A TURN\n"
        "  1. Pick a totem whose symbol you still hold and slide it up, down, left or\n"
        "     right, one or more squares, over empty squares only: it cannot pass\n"
        "     over a pawn or the other totem.\n"
        "  2. Put one of your pawns of that symbol next to the totem's new square\n"
        "     (above, below, left or right). If all four are taken, put it on any\n"
        "     empty square.\n"
        "\n"
        "  Xc5+c6 means: totem X to c5, then your X pawn on c6.\n"
        "\n"
        "  A BOXED-IN TOTEM: when every square beside a totem is taken (pawns or the\n"
        "  other totem; an edge square has three neighbours, a corner two), it jumps\n"
        "  instead: straight over the whole run of taken squares beside it to the\n"
        "  first empty square after them. Here X is boxed in on c3:\n"
        "\n"
        "    6  . . . . .      (x and o are pawns of either colour)\n"
        "    5  . . x . .      up: over c4 and c5 to c6;\n"
        "    4  . . o . .      right: over d3 to e3;\n"
        "    3  . o X x .      down: over c2 to c1;\n"
        "    2  . . x . .      left: over b3 to a3.\n"
        "    1  . . . . .      A run that reaches the edge gives no jump that\n"
        "       a b c d e      way; if no way gives one, any empty square.\n"
        "\n"
        "  A totem that is not boxed in always slides and never jumps.\n"
        "\n"
        "THE END\n"
        "  The player whose pawn completes a line of four or more (of one colour, or\n"
        "  of one symbol with colours mixed) in a row or a column wins at once.\n"
        "  Totems break lines. When all 32 pawns are placed with no line, the game\n"
        "  is a draw.\n"
        "\n"
        "ON THE SERVER\n"
        "  A game may also end by resignation, by a flag falling on the clock, by\n"
        "  agreement to a draw, or when a player who left does not come back in\n"
        "  time and the other claims it.\n";

const char *
rules_text_get(enum game_kind kind)
{
	switch (kind) {
	case GAME_HOKITO:
		return hokito_rules;
	case GAME_OXONO:
		return oxono_rules;
	}
	return NULL;
}
