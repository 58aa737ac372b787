#include "otlp_redact.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "internal.h"
#include "xalloc.h"

/* ---- Redaction of command lines ---------------------------------------------------------- */

static const char redacted[] = "[REDACTED]";

const char *const rn_redact_default_words[] = {
	"token", "secret", "password", "passwd", "key", NULL
};

/* Does the name s[0..n) contain one of `words` (case-insensitive)? */
static bool secret_word(const char *s, size_t n, const char *const *words)
{
	size_t i, j;

	for (i = 0; words[i]; i++) {
		size_t w = strlen(words[i]);

		if (!w)
			continue;
		for (j = 0; j + w <= n; j++)
			if (!strncasecmp(s + j, words[i], w))
				return true;
	}
	return false;
}

/* "KEY=VALUE" where KEY could be an environment variable name ([A-Za-z_][A-Za-z0-9_]*). */
static bool env_assignment(const char *s, size_t *keylen)
{
	size_t i;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; s[i] && s[i] != '='; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	if (s[i] != '=')
		return false;
	*keylen = i;
	return true;
}

static char *join(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	char *s = rn_xmalloc(alen + blen + 1);

	memcpy(s, a, alen);
	memcpy(s + alen, b, blen + 1);
	return s;
}

/* Redact the password of "scheme://user:password@host..." inside `arg`, or NULL if none. */
static char *redact_url(const char *arg)
{
	const char *sep = strstr(arg, "://"), *auth, *at, *colon;

	if (!sep)
		return NULL;
	auth = sep + 3;
	at = auth + strcspn(auth, "@/?#");
	if (*at != '@')
		return NULL;
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (!colon)
		return NULL;
	{
		char *head = join(arg, (size_t)(colon + 1 - arg), redacted);
		char *s = join(head, strlen(head), at);

		free(head);
		return s;
	}
}

/* Is c a shell word separator (outside quotes)? */
static bool shell_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
		c == ')' || c == '`';
}

/* End of the shell word starting at s (quotes and backslashes kept inside the word). */
static const char *shell_word_end(const char *s)
{
	char q = 0;

	for (; *s; s++) {
		if (q) {
			if (*s == q)
				q = 0;
			else if (q == '"' && *s == '\\' && s[1])
				s++;
		} else if (*s == '\'' || *s == '"') {
			q = *s;
		} else if (*s == '\\' && s[1]) {
			s++;
		} else if (shell_sep(*s)) {
			break;
		}
	}
	return s;
}

/* Secrets inside a shell command string ("sh -c '...'", `shell = true`): each shell word gets
 * the rules of rn_redact_argv (--flag=VALUE, --flag VALUE, KEY=VALUE, URL passwords), the text
 * between words is kept. A word in matching quotes is judged by what is inside them. Returns
 * the redacted string, or NULL when nothing was redacted. */
static char *redact_shell(const char *a, const char *const *words)
{
	struct rn_buf b;
	const char *p = a;
	bool next_secret = false, changed = false;

	rn_buf_init(&b, 0);
	while (*p) {
		const char *ws = p, *we, *in, *ie, *val = NULL;
		char *word, *url;
		size_t klen;

		if (shell_sep(*p)) {
			rn_buf_addc(&b, *p++);
			continue;
		}
		we = shell_word_end(p);
		p = we;
		in = ws;
		ie = we;
		if (ie - in >= 2 && (*in == '\'' || *in == '"') && ie[-1] == *in) {
			in++;
			ie--;
		}
		word = rn_xstrndup(in, (size_t)(ie - in));
		if (next_secret) {
			val = in;
			next_secret = false;
		} else if (word[0] == '-' && word[1] && strcmp(word, "--")) {
			const char *name = word + strspn(word, "-");
			const char *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);

			if (secret_word(name, nlen, words)) {
				if (eq)
					val = in + (eq + 1 - word);
				else
					next_secret = true;
			}
		} else if (env_assignment(word, &klen) && secret_word(word, klen, words)) {
			val = in + klen + 1;
		}
		if (val) {
			rn_buf_add(&b, ws, (size_t)(val - ws));
			rn_buf_adds(&b, redacted);
			rn_buf_add(&b, ie, (size_t)(we - ie));
			changed = true;
		} else if ((url = redact_url(word))) {
			rn_buf_add(&b, ws, (size_t)(in - ws));
			rn_buf_adds(&b, url);
			rn_buf_add(&b, ie, (size_t)(we - ie));
			free(url);
			changed = true;
		} else {
			rn_buf_add(&b, ws, (size_t)(we - ws));
		}
		free(word);
	}
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	if (!changed) {
		rn_buf_release(&b);
		return NULL;
	}
	return rn_buf_detach(&b, NULL);
}

char **rn_otlp_redact_argv(const char *const *argv)
{
	return rn_redact_argv(argv, NULL);
}

char **rn_redact_argv(const char *const *argv, const char *const *words)
{
	size_t n = 0, i;
	bool next_secret = false;
	char **out;

	if (!argv)
		return NULL;
	if (!words)
		words = rn_redact_default_words;
	while (argv[n])
		n++;
	out = rn_xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		const char *a = argv[i];
		size_t klen;

		if (next_secret) {
			out[i] = rn_xstrdup(redacted);
			next_secret = false;
			continue;
		}
		if (a[0] == '-' && a[1] && strcmp(a, "--")) {
			const char *name = a + strspn(a, "-");
			const char *eq = strchr(name, '=');
			size_t nlen = eq ? (size_t)(eq - name) : strlen(name);

			if (secret_word(name, nlen, words)) {
				if (eq)
					out[i] = join(a, (size_t)(eq + 1 - a), redacted);
				else
					next_secret = true;
			}
		} else if (env_assignment(a, &klen) && secret_word(a, klen, words)) {
			out[i] = join(a, klen + 1, redacted);
		}
		if (!out[i] && a[strcspn(a, " \t\n;&|()`")])
			out[i] = redact_shell(a, words);
		if (!out[i])
			out[i] = redact_url(a);
		if (!out[i])
			out[i] = rn_xstrdup(a);
	}
	return out;
}

void rn_otlp_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
