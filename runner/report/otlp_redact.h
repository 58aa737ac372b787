/*
 * otlp_redact.h - redaction of secrets from command lines before they leave renacer (OTLP
 * attributes, the argv recorded in golden traces).
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header and includes this one).
 * Stateless; safe to call from any thread.
 */
#ifndef RN_OTLP_REDACT_H
#define RN_OTLP_REDACT_H

/* The built-in secret-name words ("token", "secret", "password", "passwd", "key"),
 * NULL-terminated; `[report] redact` in renacer.toml replaces them. */
extern const char *const rn_redact_default_words[];
/* rn_otlp_redact_argv() with the list of secret-name `words` (case-insensitive substrings of a
 * flag or variable name; NULL = rn_redact_default_words). Used for exported attributes and for
 * the argv recorded in golden traces. A word holding a shell command (a space, tab, newline,
 * ';', '&', '|', '(', ')' or '`': "sh -c '...'", `shell = true`) is redacted shell word by
 * shell word with the same rules. Caller frees with rn_otlp_argv_free. */
char **rn_redact_argv(const char *const *argv, const char *const *words);
/* Free a vector returned by rn_otlp_redact_argv. NULL is a no-op. */
void rn_otlp_argv_free(char **argv);

#endif
