/*
 * fuzz_regex.c - the config validator's pattern path (runner/input/config.c get_regex and
 * util/rn_regex.c over PCRE2) on arbitrary patterns, and matching with what it accepts.
 *
 * The input is a pattern (NUL bytes dropped, at most 4096 bytes), written as a TOML literal
 * string into `span_name_pattern` of an [[assertion]] (or as a basic string with escapes when
 * it holds a quote or a newline) and validated by rn_config_parse. Properties: validation
 * returns (libFuzzer's -timeout turns a hang into a failure: the pattern bounds exist so that no
 * pattern can take the compiler minutes); a rejected pattern's diagnostic points into the text;
 * an accepted one is at most RN_REGEX_MAX_BYTES and matches subjects (the pattern itself, a long
 * run of one character, syscall-like names) without hanging (the match limits).
 * Seeds: tests/fuzz/regressions/regex/ (catastrophic patterns among them).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "fuzz.h"
#include "rn_regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_config cfg;
	struct rn_diag d;
	struct rn_buf pat, toml;
	size_t i;

	if (size > 4096)
		size = 4096;
	rn_buf_init(&pat, 0);
	for (i = 0; i < size; i++)
		if (data[i])
			rn_buf_addc(&pat, (char)data[i]);
	rn_buf_init(&toml, 0);
	rn_buf_adds(&toml,
		    "[[assertion]]\nname = \"a\"\ntype = \"span_count\"\nmax_spans = 1\n"
		    "span_name_pattern = ");
	if (!strpbrk(pat.buf, "'\n\r")) {
		rn_buf_addf(&toml, "'%s'\n", pat.buf);
	} else {
		rn_buf_addc(&toml, '"');
		for (i = 0; i < pat.len; i++) {
			unsigned char c = (unsigned char)pat.buf[i];

			if (c == '"' || c == '\\')
				rn_buf_addf(&toml, "\\%c", c);
			else if (c < 0x20 || c == 0x7f)
				rn_buf_addf(&toml, "\\u%04x", c);
			else
				rn_buf_addc(&toml, (char)c);
		}
		rn_buf_adds(&toml, "\"\n");
	}
	FUZZ_CHECK(!rn_buf_failed(&pat) && !rn_buf_failed(&toml), "out of memory");

	if (rn_config_parse(&cfg, "renacer.toml", toml.buf, toml.len, true, &d)) {
		FUZZ_CHECK(d.set, "failed parse without a diagnostic");
		FUZZ_CHECK(d.line >= 0 && d.line <= 6, "diagnostic line outside the text");
		rn_config_release(&cfg);
	} else {
		const struct rn_regex *re;
		char *run = malloc(4097);

		FUZZ_CHECK(cfg.nassertions == 1 && cfg.assertions[0].span_re, "no compiled regex");
		FUZZ_CHECK(strlen(cfg.assertions[0].span_name_pattern) <= RN_REGEX_MAX_BYTES,
			   "a pattern beyond the bounds was accepted");
		re = cfg.assertions[0].span_re;
		FUZZ_CHECK(run != NULL, "out of memory");
		memset(run, 'a', 4096);
		run[4096] = '\0';
		rn_regex_match(re, pat.buf);
		rn_regex_match(re, run);
		rn_regex_match(re, "openat");
		rn_regex_match(re, "");
		free(run);
		rn_config_release(&cfg);
	}
	rn_buf_release(&pat);
	rn_buf_release(&toml);
	return 0;
}
