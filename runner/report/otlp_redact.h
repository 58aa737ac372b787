/*
 * otlp_redact.h - redaction of secrets from command lines before they leave renacer (OTLP
 * attributes, the argv recorded in golden traces).
 *
 * Part of the OTLP exporter (runner/report/otlp.h is its public header and includes this one).
 * Stateless; safe to call from any thread.
 */
#ifndef RN_OTLP_REDACT_H
#define RN_OTLP_REDACT_H

/*
 * Redact secrets from a command line before it is exported: the value after a flag whose name
 * contains token, secret, password, passwd or key (case-insensitive; "--token X", "-password X",
 * "--api-key=X"), the value of "KEY=VALUE" words whose KEY looks like an environment variable
 * name containing those words, and the password of "scheme://user:password@host" URLs, become
 * "[REDACTED]". Returns a malloc'ed NULL-terminated copy (free with rn_otlp_argv_free).
 * Dies on out-of-memory. `argv` NULL gives NULL.
 */
char **rn_otlp_redact_argv(const char *const *argv);

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
