/*
 * names.c: account name rules and the confusable keys of names (ICU's spoof checker).
 *
 * Owns nothing between calls: each call opens a USpoofChecker and closes it before returning, so
 * there is no global, no lock and no per-thread state to tear down; the checker is a clone of
 * ICU's shared confusable data and costs about 0.3 us to open (measured here; one skeleton costs
 * about 1.5 us), far below the cost of anything a login does. Work buffers are on the stack. Never
 * does I/O beyond what ICU does to map its data once per process.
 */
#include "names.h"

#include <string.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

/* UTF-16 units of a work buffer: case folding and skeletons expand a name, a few times at most. */
#define NAMES_WORK 4096

/* A name being turned into a key, in UTF-16. */
struct names_work {
	UChar s[NAMES_WORK];
	int32_t len;
};

static bool
names_account_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

bool
names_account_valid(const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0'; i++) {
		if (i >= NAMES_ACCOUNT_MAX || !names_account_char(name[i]))
			return false;
	}
	return i >= NAMES_ACCOUNT_MIN;
}

int
names_account_key(const char *name, char *key, size_t size)
{
	size_t i, len = strlen(name);

	if (!names_account_valid(name))
		return NAMES_EINVAL;
	if (len >= size)
		return NAMES_ENOSPC;
	for (i = 0; i < len; i++)
		key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
	key[len] = '\0';
	return (int)len;
}

/* Keep the code points of w for which drop() is false. */
static void
names_filter(struct names_work *w, bool (*drop)(UChar32))
{
	int32_t i = 0, out = 0;

	while (i < w->len) {
		int32_t start = i;
		UChar32 c;

		U16_NEXT(w->s, i, w->len, c);
		if (!drop(c)) {
			while (start < i)
				w->s[out++] = w->s[start++];
		}
	}
	w->len = out;
}

/* Invisible characters: zero-width spaces and joiners, direction marks, fillers, tags... */
static bool
names_invisible(UChar32 c)
{
	return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT);
}

/* Combining marks: accents and dots that ride on a letter (the skeleton is in NFD). */
static bool
names_mark(UChar32 c)
{
	int8_t t = u_charType(c);

	return t == U_NON_SPACING_MARK || t == U_ENCLOSING_MARK || names_invisible(c);
}

/* Everything but letters and digits. */
static bool
names_not_alnum(UChar32 c)
{
	return !u_isalnum(c);
}

/* An ICU status as our error: 0, NAMES_ENOSPC (a buffer too small) or NAMES_EICU. */
static int
names_status(UErrorCode st)
{
	if (st == U_BUFFER_OVERFLOW_ERROR || st == U_STRING_NOT_TERMINATED_WARNING)
		return NAMES_ENOSPC;
	return U_FAILURE(st) ? NAMES_EICU : 0;
}

/* w, in place: its full case folding, or with skel its UTS #39 skeleton. */
static int
names_map(const USpoofChecker *sc, struct names_work *w, bool skel)
{
	struct names_work t;
	UErrorCode st = U_ZERO_ERROR;
	int rc;

	if (skel)
		t.len = uspoof_getSkeleton(sc, 0, w->s, w->len, t.s, NAMES_WORK, &st);
	else
		t.len = u_strFoldCase(t.s, NAMES_WORK, w->s, w->len, U_FOLD_CASE_DEFAULT, &st);
	if ((rc = names_status(st)) < 0)
		return rc;
	memcpy(w->s, t.s, (size_t)t.len * sizeof t.s[0]);
	w->len = t.len;
	return 0;
}

/* name (UTF-8, NUL-terminated) into w, invisible characters removed. */
static int
names_load(const char *name, struct names_work *w)
{
	UErrorCode st = U_ZERO_ERROR;
	size_t len = strlen(name);

	if (len > NAMES_INPUT_MAX)
		return NAMES_EINVAL;
	u_strFromUTF8(w->s, NAMES_WORK, &w->len, name, (int32_t)len, &st);
	if (U_FAILURE(st))
		return NAMES_EINVAL;
	names_filter(w, names_invisible);
	return 0;
}

/* w back to UTF-8 in key; its length, or NAMES_ENOSPC. */
static int
names_store(const struct names_work *w, char *key, size_t size)
{
	UErrorCode st = U_ZERO_ERROR;
	int32_t len;

	if (size > INT32_MAX)
		size = INT32_MAX;
	u_strToUTF8(key, (int32_t)size, &len, w->s, w->len, &st);
	return names_status(st) < 0 ? names_status(st) : len;
}

/*
 * The key of a loaded name: folded, skeleton, marks dropped, folded again (the skeleton maps some
 * characters to capitals, "0" to "O"). With skel_first, a skeleton is taken before the first fold
 * too, so that capitals of other scripts are mapped while they still look Latin.
 */
static int
names_key(const USpoofChecker *sc, struct names_work *w, bool skel_first)
{
	int rc;

	if (skel_first && (rc = names_map(sc, w, true)) < 0)
		return rc;
	if ((rc = names_map(sc, w, false)) < 0 || (rc = names_map(sc, w, true)) < 0)
		return rc;
	names_filter(w, names_mark);
	return names_map(sc, w, false);
}

static USpoofChecker *
names_checker_open(void)
{
	UErrorCode st = U_ZERO_ERROR;
	USpoofChecker *sc = uspoof_open(&st);

	if (U_FAILURE(st)) {
		uspoof_close(sc);
		return NULL;
	}
	return sc;
}

int
names_skeleton(const char *name, char *key, size_t size)
{
	struct names_work w;
	USpoofChecker *sc;
	int rc;

	if ((rc = names_load(name, &w)) < 0)
		return rc;
	if ((sc = names_checker_open()) == NULL)
		return NAMES_EICU;
	rc = names_key(sc, &w, false);
	uspoof_close(sc);
	return rc < 0 ? rc : names_store(&w, key, size);
}

/* A way of turning a name being worked on into a key (names_key(), names_loose()). */
typedef int (*names_keyer)(const USpoofChecker *sc, struct names_work *w, bool skel_first);

/*
 * The two keys of name by keyer, skeleton before and after case folding, into keys: 2 when they
 * differ, 1 when they are the same, or a negative NAMES_E* code.
 */
static int
names_two_keys(const char *name, names_keyer keyer, char keys[2][NAMES_KEY_MAX])
{
	struct names_work loaded, w;
	USpoofChecker *sc;
	int rc;

	if ((rc = names_load(name, &loaded)) < 0)
		return rc;
	if ((sc = names_checker_open()) == NULL)
		return NAMES_EICU;
	w = loaded;
	if ((rc = keyer(sc, &w, false)) >= 0 &&
	    (rc = names_store(&w, keys[0], NAMES_KEY_MAX)) >= 0) {
		w = loaded;
		if ((rc = keyer(sc, &w, true)) >= 0)
			rc = names_store(&w, keys[1], NAMES_KEY_MAX);
	}
	uspoof_close(sc);
	if (rc < 0)
		return rc;
	return strcmp(keys[0], keys[1]) != 0 ? 2 : 1;
}

int
names_guest_keys(const char *name, char keys[2][NAMES_KEY_MAX])
{
	return names_two_keys(name, names_key, keys);
}

/* What shows nothing at the ends of a name: White_Space and Default_Ignorable_Code_Point. */
static bool
names_blank(UChar32 c)
{
	return u_isUWhiteSpace(c) || names_invisible(c);
}

int
names_trim(const char *name, char *out, size_t size)
{
	int32_t len = (int32_t)strnlen(name, NAMES_INPUT_MAX + 1), start = 0, end, i;
	UChar32 c;

	if (len > NAMES_INPUT_MAX)
		return NAMES_EINVAL;
	while (start < len) {
		i = start;
		U8_NEXT(name, i, len, c);
		if (c < 0)
			return NAMES_EINVAL;
		if (!names_blank(c))
			break;
		start = i;
	}
	end = len;
	while (end > start) {
		i = end;
		U8_PREV(name, start, i, c);
		if (c < 0)
			return NAMES_EINVAL;
		if (!names_blank(c))
			break;
		end = i;
	}
	if ((size_t)(end - start) >= size)
		return NAMES_ENOSPC;
	memcpy(out, name + start, (size_t)(end - start));
	out[end - start] = '\0';
	return end - start;
}

/* w, in place, in Unicode's compatibility composition (NFKC): circled, fullwidth, styled
 * letters and ligatures become the plain ones, a no-break space a space. */
static int
names_nfkc(struct names_work *w)
{
	UErrorCode st = U_ZERO_ERROR;
	const UNormalizer2 *n2 = unorm2_getNFKCInstance(&st);
	struct names_work t;
	int rc;

	if (U_FAILURE(st))
		return NAMES_EICU;
	t.len = unorm2_normalize(n2, w->s, w->len, t.s, NAMES_WORK, &st);
	if ((rc = names_status(st)) < 0)
		return rc;
	memcpy(w->s, t.s, (size_t)t.len * sizeof t.s[0]);
	w->len = t.len;
	return 0;
}

/*
 * The loose key of a loaded name: NFKC, then the key of names_key(), then everything but letters
 * and digits removed (spaces of any width, punctuation, symbols, the enclosing circles of
 * enclosed letters).
 */
static int
names_loose(const USpoofChecker *sc, struct names_work *w, bool skel_first)
{
	int rc;

	if ((rc = names_nfkc(w)) < 0 || (rc = names_key(sc, w, skel_first)) < 0)
		return rc;
	names_filter(w, names_not_alnum);
	return 0;
}

int
names_loose_keys(const char *name, char keys[2][NAMES_KEY_MAX])
{
	return names_two_keys(name, names_loose, keys);
}

int
names_loose_key(const char *name, char *key, size_t size)
{
	char keys[2][NAMES_KEY_MAX];
	int rc = names_loose_keys(name, keys);

	if (rc < 0)
		return rc;
	if (strlen(keys[0]) >= size)
		return NAMES_ENOSPC;
	memcpy(key, keys[0], strlen(keys[0]) + 1);
	return (int)strlen(key);
}

/*
 * The names nobody takes, by account or as a guest: the server's own, its staff's and the names
 * a player could pass for to ask others for their passwords. Compared by names_reserved_keys().
 */
static const char *const names_reserved_words[] = {
        "admin",      "administrator", "root",     "operator", "moderator", "mod",
        "hokitod",    "hokito",        "oxono",    "system",   "sysop",     "server",
        "computer",   "staff",         "support",  "official", "superuser", "webmaster",
        "postmaster", "hostmaster",    "security", "helpdesk", "abuse",     "owner",
};

const char *
names_reserved_word(size_t i)
{
	return i < sizeof names_reserved_words / sizeof names_reserved_words[0]
	               ? names_reserved_words[i]
	               : NULL;
}

/*
 * A loose key made stricter for the reserved words: the digits that stand for letters in
 * "l33t" writing become those letters (0 o, 1 l, 3 e, 4 a, 5 s, 7 t, 8 b, 9 g), and i is an l
 * (the skeleton makes 1, I and | an l already), so that "Adm1n", "AdmIn", "4dmin", "r00t" and
 * "m0d" are "admin", "root" and "mod". Only ASCII letters and digits change.
 */
static void
names_leet(char *key)
{
	static const char from[] = "01345789i", to[] = "oleastbgl";

	for (char *c = key; *c != '\0'; c++) {
		const char *f = strchr(from, *c);

		if (f != NULL)
			*c = to[f - from];
	}
}

int
names_reserved_keys(const char *name, char keys[2][NAMES_KEY_MAX])
{
	int i, n = names_loose_keys(name, keys);

	for (i = 0; i < n; i++)
		names_leet(keys[i]);
	return n;
}

bool
names_reserved(const char *name)
{
	char keys[2][NAMES_KEY_MAX], word[2][NAMES_KEY_MAX];
	const char *w;
	int i, n;

	if ((n = names_reserved_keys(name, keys)) < 0)
		return true; /* cannot be checked: refused is the safe answer */
	for (size_t k = 0; (w = names_reserved_word(k)) != NULL; k++) {
		if (names_reserved_keys(w, word) < 0)
			return true;
		for (i = 0; i < n; i++)
			if (strcmp(keys[i], word[0]) == 0)
				return true;
	}
	return false;
}

/* Whether key, with all but letters and digits removed, begins with prefix (likewise reduced). */
static bool
names_key_begins(const char *key, const struct names_work *prefix)
{
	struct names_work w;
	UErrorCode st = U_ZERO_ERROR;

	u_strFromUTF8(w.s, NAMES_WORK, &w.len, key, -1, &st);
	if (U_FAILURE(st))
		return true;
	names_filter(&w, names_not_alnum);
	return w.len >= prefix->len &&
	       memcmp(w.s, prefix->s, (size_t)prefix->len * sizeof w.s[0]) == 0;
}

bool
names_imitates_computer(const char *name)
{
	char keys[2][NAMES_KEY_MAX], computer[NAMES_KEY_MAX];
	struct names_work prefix;
	UErrorCode st = U_ZERO_ERROR;
	int i, n;

	/* the key of "computer" from the data at hand rather than written out here; loose keys,
	 * so that circled, fullwidth and styled letters count too */
	if ((n = names_loose_keys(name, keys)) < 0 ||
	    names_loose_key("computer", computer, sizeof computer) < 0)
		return true;
	u_strFromUTF8(prefix.s, NAMES_WORK, &prefix.len, computer, -1, &st);
	if (U_FAILURE(st))
		return true;
	names_filter(&prefix, names_not_alnum);
	for (i = 0; i < n; i++) {
		if (names_key_begins(keys[i], &prefix))
			return true;
	}
	return false;
}
