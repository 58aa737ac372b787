/*
 * fingerprint.h - the environment fingerprint of a measurement: the facts of the machine and
 * of the toolchain that move a program's time without a change of its code (a kernel update of
 * a runner image, a frequency governor, SMT, a hypervisor, another compiler). Recorded with
 * every golden trace ("conditions.fingerprint", assertions/golden.h), with each side of a
 * same-job baseline and with each history run; a timing comparison across fingerprints that
 * differ says which fields differ and is never FAIL (docs/timing.md, "Environment
 * fingerprints").
 *
 * Every field is a short text; "" means not known (the file is missing in a container, an old
 * golden trace did not record it). Two fingerprints differ in a field only when both know it:
 * an unknown side explains nothing.
 */
#ifndef RN_FINGERPRINT_H
#define RN_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * The fields, in report order: X(id, name, what). `name` is the key in golden files, history
 * and messages. One table: the struct, the JSON keys, the messages and docs/timing.md's list
 * come from it.
 */
#define RN_FINGERPRINT_FIELDS(X)                                                                   \
	X(CPU_MODEL, cpu_model, "first \"model name\" of /proc/cpuinfo")                           \
	X(MICROCODE, microcode, "first \"microcode\" of /proc/cpuinfo")                            \
	X(KERNEL, kernel, "uname -r")                                                              \
	X(GOVERNOR, governor, "cpufreq scaling_governor of the first CPU policy")                  \
	X(BOOST, boost, "cpufreq boost, or intel_pstate no_turbo: \"on\" or \"off\"")              \
	X(SMT, smt, "/sys/devices/system/cpu/smt/active: \"on\" or \"off\"")                       \
	X(VIRT, virt,                                                                              \
	  "container and hypervisor: \"none\", \"docker\", \"kvm\", \"docker in kvm\"")            \
	X(IMAGE, image, "runner image: $ImageOS/$ImageVersion (GitHub-hosted runners)")            \
	X(COMPILER, compiler, "the target binary's .comment, else the first line of cc --version") \
	X(RENACER, renacer, "renacer's version")

/* Field identifiers (enum rn_fingerprint_field). */
enum rn_fingerprint_field {
#define RN_FINGERPRINT_ENUM(id, name, what) RN_FP_##id,
	RN_FINGERPRINT_FIELDS(RN_FINGERPRINT_ENUM)
#undef RN_FINGERPRINT_ENUM
	RN_FP_COUNT
};

/* The longest text a field keeps, bytes (a longer one is cut). */
#define RN_FINGERPRINT_FIELD_MAX 160

/* One fingerprint: every field a NUL-terminated text, "" when not known. Plain storage. */
struct rn_fingerprint {
	char field[RN_FP_COUNT][RN_FINGERPRINT_FIELD_MAX]; /* by enum rn_fingerprint_field */
};

/* Name of field `f` ("governor"; static), or NULL out of range. */
const char *rn_fingerprint_field_name(enum rn_fingerprint_field f);
/* What field `f` holds and where it comes from (static), or NULL out of range. */
const char *rn_fingerprint_field_what(enum rn_fingerprint_field f);
/* The field named `name`, or -1. */
int rn_fingerprint_field_lookup(const char *name);

/* Set field `f` of `fp` to `v` (NULL: ""), cut at RN_FINGERPRINT_FIELD_MAX - 1 bytes at a
 * character boundary, control characters replaced by spaces, outer blanks trimmed. */
void rn_fingerprint_set(struct rn_fingerprint *fp, enum rn_fingerprint_field f, const char *v);

/*
 * Read this machine's fingerprint into `fp` (overwritten): every field but compiler, which is
 * left "" for the caller (rn_fingerprint_default_compiler, or the target binary's). `root`
 * prefixes every /proc and /sys path read ("" or NULL: the real ones; tests hand a tree of
 * their own). The image comes from the environment. Never fails: what cannot be read is "".
 */
void rn_fingerprint_host(struct rn_fingerprint *fp, const char *root);

/* Set the compiler field to the first line of `cc --version` (run without a shell, stdin and
 * stderr on /dev/null), or "" when there is no cc. Forks once. */
void rn_fingerprint_default_compiler(struct rn_fingerprint *fp);

/*
 * The fields in which `recorded` and `now` differ, both known: a bit (1u << field) each; 0 when
 * they agree on every field both know.
 */
unsigned rn_fingerprint_diff(const struct rn_fingerprint *recorded,
			     const struct rn_fingerprint *now);

/*
 * Append the differing fields of `mask` (from rn_fingerprint_diff) to `b`, in table order, with
 * `now_word` naming the second side ("here", "head"): "kernel '6.1.0', here '6.8.0';
 * governor 'powersave', here 'performance'". Nothing for 0.
 */
void rn_fingerprint_describe_diff(struct rn_buf *b, const struct rn_fingerprint *recorded,
				  const struct rn_fingerprint *now, unsigned mask,
				  const char *now_word);

/* Append the names of the fields of `mask` to `b`, comma-separated: "governor, kernel". */
void rn_fingerprint_add_names(struct rn_buf *b, unsigned mask);

/* Append the known fields of `fp` to `b` as "name=value" pairs separated by "; " (the history
 * store's text form). */
void rn_fingerprint_add_text(struct rn_buf *b, const struct rn_fingerprint *fp);

/* Whether `fp` knows any field. */
bool rn_fingerprint_known(const struct rn_fingerprint *fp);

#endif
