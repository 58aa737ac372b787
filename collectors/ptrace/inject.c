/*
 * inject.c - parsing strace's --inject rules (inject.h). Applying them is the ptrace
 * collector's (ptrace.c, "Tampering").
 */
#include "inject_rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diag.h"
#include "ptrace/ptrace.h"
#include "xalloc.h"

/* Parse an unsigned decimal at *p, advancing it. 0 or -1 (no digit, overflow). */
static int parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	return 0;
}

/* DUR: a number (a fraction allowed) and an optional unit s, ms, us, ns (us without one). */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "", 1e3 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 } };
	char *end;
	double v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtod(s, &end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (!(v >= 1 && v < 1e18))
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	return -1;
}

/* ERRNO: a name from the errno table or a number 1..4095. */
static int parse_errno(const char *s, int *err)
{
	uint64_t v;
	const char *p = s;

	if (!parse_u64(&p, &v)) {
		if (*p || v < 1 || v > 4095)
			return -1;
		*err = (int)v;
		return 0;
	}
	for (int e = 1; e <= 4095; e++) {
		if (!strcmp(rn_errno_name(e), s)) {
			*err = e;
			return 0;
		}
	}
	return -1;
}

/* SIG: SIGNAME, NAME or a number 1..64. */
static int parse_signal(const char *s, int *sig)
{
	uint64_t v;
	const char *p = s;

	if (!parse_u64(&p, &v)) {
		if (*p || v < 1 || v > 64)
			return -1;
		*sig = (int)v;
		return 0;
	}
	for (int n = 1; n <= 64; n++) {
		const char *name = rn_signal_name(n);

		if (!strcasecmp(name, s) ||
		    (!strncmp(name, "SIG", 3) && !strcasecmp(name + 3, s))) {
			*sig = n;
			return 0;
		}
	}
	return -1;
}

/* when=FIRST[..LAST][+[STEP]] */
static int parse_when(struct rn_inject *inj, const char *s)
{
	const char *p = s;
	bool ranged = false;

	if (parse_u64(&p, &inj->first) || !inj->first)
		return -1;
	inj->last = inj->first;
	inj->step = 1;
	if (!strncmp(p, "..", 2)) {
		p += 2;
		ranged = true;
		if (parse_u64(&p, &inj->last) || inj->last < inj->first)
			return -1;
	}
	if (*p == '+') {
		p++;
		if (*p && (parse_u64(&p, &inj->step) || !inj->step))
			return -1;
		if (!ranged)
			inj->last = UINT64_MAX;
	}
	return *p ? -1 : 0;
}

/* Apply one modifier "key=value" of `inj`. 0 or -1 with diag set. */
static int parse_modifier(struct rn_inject *inj, const char *mod, const char *spec,
			  struct rn_diag *diag)
{
	const char *eq = strchr(mod, '=');
	const char *v = eq ? eq + 1 : "";
	size_t klen = eq ? (size_t)(eq - mod) : strlen(mod);
	static const char *const keys[] = { "error",      "retval", "signal", "delay_enter",
					    "delay_exit", "when",   NULL };
	char key[32];
	uint64_t n;
	const char *p = v;

	if (klen >= sizeof(key))
		klen = sizeof(key) - 1;
	memcpy(key, mod, klen);
	key[klen] = 0;
	if (!eq || !*v) {
		const char *hint = rn_suggest(key, keys);

		if (eq || !hint || strcmp(hint, key))
			return rn_diag_set(diag, 0, 0,
					   "inject '%s': '%s' is not KEY=VALUE (error=, retval=, "
					   "signal=, delay_enter=, delay_exit=, when=)",
					   spec, mod);
		return rn_diag_set(diag, 0, 0, "inject '%s': '%s' needs a value", spec, key);
	}
	if (!strcmp(key, "error")) {
		if (parse_errno(v, &inj->error))
			return rn_diag_set(diag, 0, 0,
					   "inject '%s': unknown errno '%s' (a name such as EIO, or "
					   "1..4095)",
					   spec, v);
		inj->actions |= RN_INJECT_ERROR;
	} else if (!strcmp(key, "retval")) {
		if (parse_u64(&p, &n) || *p || n > INT64_MAX)
			return rn_diag_set(diag, 0, 0,
					   "inject '%s': retval wants a number >= 0, not '%s'",
					   spec, v);
		inj->retval = (int64_t)n;
		inj->actions |= RN_INJECT_RETVAL;
	} else if (!strcmp(key, "signal")) {
		if (parse_signal(v, &inj->signo))
			return rn_diag_set(diag, 0, 0, "inject '%s': unknown signal '%s'", spec, v);
		inj->actions |= RN_INJECT_SIGNAL;
	} else if (!strcmp(key, "delay_enter") || !strcmp(key, "delay_exit")) {
		bool enter = !strcmp(key, "delay_enter");

		if (parse_duration(v, enter ? &inj->delay_enter_ns : &inj->delay_exit_ns))
			return rn_diag_set(diag, 0, 0,
					   "inject '%s': %s wants a duration such as 10ms, 500us "
					   "or 1s, not '%s'",
					   spec, key, v);
		inj->actions |= enter ? RN_INJECT_DELAY_ENTER : RN_INJECT_DELAY_EXIT;
	} else if (!strcmp(key, "when")) {
		if (parse_when(inj, v))
			return rn_diag_set(
				diag, 0, 0,
				"inject '%s': when wants FIRST[..LAST][+[STEP]] (from 1), "
				"not '%s'",
				spec, v);
	} else {
		const char *hint = rn_suggest(key, keys);

		if (hint)
			return rn_diag_set(diag, 0, 0,
					   "inject '%s': unknown modifier '%s' (did you mean '%s'?)",
					   spec, key, hint);
		return rn_diag_set(diag, 0, 0,
				   "inject '%s': unknown modifier '%s' (error, retval, signal, "
				   "delay_enter, delay_exit, when)",
				   spec, key);
	}
	return 0;
}

int rn_inject_parse(struct rn_inject *inj, const char *spec, struct rn_diag *diag)
{
	const char *colon = strchr(spec, ':');
	char *copy, *mod, *next;
	struct rn_diag sd;

	memset(inj, 0, sizeof(*inj));
	inj->first = 1;
	inj->last = UINT64_MAX;
	inj->step = 1;
	if (!colon || colon == spec)
		return rn_diag_set(diag, 0, 0,
				   "inject '%s': expected SET:ACTION (fsync:error=EIO, "
				   "read:delay_exit=10ms)",
				   spec);
	copy = rn_xstrdup(spec);
	copy[colon - spec] = 0;
	inj->set = rn_xcalloc((size_t)rn_syscall_table_size(), sizeof(*inj->set));
	rn_diag_init(&sd, NULL, NULL, 0);
	if (rn_syscall_set_parse(copy, inj->set, &sd)) {
		rn_diag_set(diag, 0, 0, "inject '%s': %s", spec, sd.msg);
		goto out_fail;
	}
	for (mod = copy + (colon - spec) + 1; mod; mod = next) {
		next = strchr(mod, ':');
		if (next)
			*next++ = 0;
		if (parse_modifier(inj, mod, spec, diag))
			goto out_fail;
	}
	if ((inj->actions & RN_INJECT_ERROR) && (inj->actions & RN_INJECT_RETVAL)) {
		rn_diag_set(diag, 0, 0, "inject '%s': error= and retval= exclude each other", spec);
		goto out_fail;
	}
	if (!inj->actions) {
		rn_diag_set(diag, 0, 0,
			    "inject '%s': no action (error=, retval=, signal=, delay_enter= or "
			    "delay_exit=)",
			    spec);
		goto out_fail;
	}
	free(copy);
	inj->text = rn_xstrdup(spec);
	return 0;

out_fail:
	free(copy);
	rn_inject_release(inj);
	return -1;
}

void rn_inject_release(struct rn_inject *inj)
{
	free(inj->set);
	free(inj->text);
	memset(inj, 0, sizeof(*inj));
}

bool rn_inject_when(const struct rn_inject *inj, uint64_t n)
{
	return n >= inj->first && n <= inj->last && (n - inj->first) % inj->step == 0;
}

int rn_inject_delay(struct rn_inject *inj, const char *name, uint64_t delay_ns, bool at_entry)
{
	int nr = rn_syscall_lookup(name);
	char text[96];

	memset(inj, 0, sizeof(*inj));
	if (nr < 0 || !delay_ns)
		return -EINVAL;
	inj->set = rn_xcalloc((size_t)rn_syscall_table_size(), sizeof(*inj->set));
	inj->set[nr] = true;
	inj->actions = at_entry ? RN_INJECT_DELAY_ENTER : RN_INJECT_DELAY_EXIT;
	*(at_entry ? &inj->delay_enter_ns : &inj->delay_exit_ns) = delay_ns;
	inj->first = 1;
	inj->last = UINT64_MAX;
	inj->step = 1;
	snprintf(text, sizeof(text), "%s:%s=%lluns", name, at_entry ? "delay_enter" : "delay_exit",
		 (unsigned long long)delay_ns);
	inj->text = rn_xstrdup(text);
	return 0;
}
