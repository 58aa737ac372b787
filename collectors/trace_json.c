/*
 * trace_json.c - the renacer-trace reader (trace_json.h).
 */
#include "trace_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "syscall_names.h"

static uint64_t hex_arg(json_t *v)
{
	const char *s = json_string_value(v);

	return s ? strtoull(s, NULL, 0) : (uint64_t)json_integer_value(v);
}

static int signal_number(const char *name)
{
	int s;

	for (s = 1; name && s < 65; s++)
		if (!strcmp(rn_signal_name(s), name))
			return s;
	return 0;
}

static void read_process(const struct rn_tj_sink *sink, void *ctx, json_t *o, char event)
{
	struct rn_tj_process p;
	json_t *code = json_object_get(o, RN_TJ_EXIT_CODE);
	int end = rn_proc_end_lookup(json_string_value(json_object_get(o, RN_TJ_END)));

	p.pid = (pid_t)json_integer_value(json_object_get(o, RN_TJ_PID));
	p.ppid = (pid_t)json_integer_value(json_object_get(o, RN_TJ_PPID));
	p.exe = json_string_value(json_object_get(o, RN_TJ_EXE));
	p.end = end < 0 ? RN_PROC_RUNNING : (enum rn_proc_end)end;
	p.exit_code = json_is_integer(code) ? (int)json_integer_value(code) : 0;
	p.term_signal = signal_number(json_string_value(json_object_get(o, RN_TJ_SIGNAL)));
	sink->process(ctx, &p, event);
}

static void read_syscall(const struct rn_tj_sink *sink, void *ctx, json_t *o, struct rn_buf *argv)
{
	struct rn_syscall_event ev;
	json_t *args = json_object_get(o, RN_TJ_ARGS), *ret = json_object_get(o, RN_TJ_RET);
	json_t *av = json_object_get(o, RN_TJ_ARGV);
	const char *name = json_string_value(json_object_get(o, RN_TJ_NAME));
	size_t k;

	memset(&ev, 0, sizeof(ev));
	ev.pid = (pid_t)json_integer_value(json_object_get(o, RN_TJ_PID));
	ev.tid = (pid_t)json_integer_value(json_object_get(o, RN_TJ_TID));
	ev.nr = name ? rn_syscall_lookup(name) : -1;
	if (ev.nr < 0)
		ev.nr = (int)json_integer_value(json_object_get(o, RN_TJ_NR));
	for (k = 0; k < 6 && k < json_array_size(args); k++)
		ev.args[k] = hex_arg(json_array_get(args, k));
	if (json_is_null(ret) || json_is_true(json_object_get(o, RN_TJ_UNFINISHED)))
		ev.flags |= RN_SC_UNFINISHED;
	ev.ret = json_integer_value(ret);
	ev.err = ev.ret < 0 && ev.ret > -4096 ? (int)-ev.ret : 0;
	ev.path = json_string_value(json_object_get(o, RN_TJ_PATH));
	ev.path2 = json_string_value(json_object_get(o, RN_TJ_PATH2));
	if (json_is_array(av)) {
		rn_buf_reset(argv);
		for (k = 0; k < json_array_size(av); k++) {
			const char *s = json_string_value(json_array_get(av, k));

			rn_buf_add(argv, s ? s : "", strlen(s ? s : "") + 1);
		}
		ev.argv = argv->buf;
		ev.nargv = (uint32_t)json_array_size(av);
		ev.argv_more = json_is_true(json_object_get(o, RN_TJ_ARGV_MORE));
	}
	sink->syscall(ctx, &ev);
}

static void read_processes(const struct rn_tj_sink *sink, void *ctx, json_t *procs, char event)
{
	size_t i;

	for (i = 0; i < json_array_size(procs); i++)
		read_process(sink, ctx, json_array_get(procs, i), event);
}

/* One JSONL line (an object). 0, or -EINVAL with *err. */
static int read_line(const struct rn_tj_sink *sink, void *ctx, json_t *obj, size_t line,
		     struct rn_buf *argv, const char **err)
{
	const char *type = json_string_value(json_object_get(obj, RN_TJ_TYPE));
	const char *schema = json_string_value(json_object_get(obj, RN_TJ_SCHEMA));

	if (line == 1 &&
	    (!type || strcmp(type, RN_TJ_TYPE_HEADER) || !schema ||
	     strcmp(schema, RN_TJ_SCHEMA_NAME))) {
		*err = "not a renacer-trace header";
		return -EINVAL;
	}
	if (!type)
		return 0;
	if (!strcmp(type, RN_TJ_TYPE_SYSCALL)) {
		read_syscall(sink, ctx, obj, argv);
	} else if (!strcmp(type, RN_TJ_TYPE_PROCESS)) {
		const char *ev = json_string_value(json_object_get(obj, RN_TJ_EVENT));
		char e = 'f';

		if (ev && !strcmp(ev, RN_TJ_EVENT_EXIT))
			e = 'x';
		else if (ev && !strcmp(ev, RN_TJ_EVENT_EXEC))
			e = 'e';
		read_process(sink, ctx, obj, e);
	} else if (!strcmp(type, RN_TJ_TYPE_END)) {
		read_processes(sink, ctx, json_object_get(obj, RN_TJ_PROCESSES), 'x');
	}
	return 0;
}

static int read_lines(const char *text, const struct rn_tj_sink *sink, void *ctx,
		      struct rn_buf *argv, const char **err, size_t *err_line)
{
	const char *p = text;
	size_t line = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		line++;
		if (len) {
			json_error_t je;
			json_t *obj = json_loadb(p, len, 0, &je);
			int rc;

			if (!json_is_object(obj)) {
				json_decref(obj);
				*err = "not a renacer-trace JSON object (expected "
				       "`renacer trace --format json|jsonl` output)";
				*err_line = line;
				return -EINVAL;
			}
			rc = read_line(sink, ctx, obj, line, argv, err);
			json_decref(obj);
			if (rc) {
				*err_line = line;
				return rc;
			}
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (!line) {
		*err = "empty trace";
		return -EINVAL;
	}
	return 0;
}

int rn_trace_json_read(const char *text, size_t len, const struct rn_tj_sink *sink, void *ctx,
		       const char **err, size_t *err_line)
{
	struct rn_buf argv;
	json_error_t je;
	json_t *doc = json_loadb(text, len, 0, &je);
	int rc = 0;

	*err = NULL;
	*err_line = 0;
	rn_buf_init(&argv, 0);
	if (doc && json_is_object(doc) && json_is_array(json_object_get(doc, RN_TJ_SYSCALLS))) {
		/* --format json: processes (with their parents) first, then every span */
		json_t *procs = json_object_get(doc, RN_TJ_PROCESSES),
		       *scs = json_object_get(doc, RN_TJ_SYSCALLS);
		size_t i;

		read_processes(sink, ctx, procs, 'f');
		for (i = 0; i < json_array_size(scs); i++)
			read_syscall(sink, ctx, json_array_get(scs, i), &argv);
		read_processes(sink, ctx, procs, 'x');
	} else if (doc && json_is_object(doc) &&
		   json_is_null(json_object_get(doc, RN_TJ_SYSCALLS))) {
		*err = "the trace has no syscalls (recorded with -c?)";
		rc = -EINVAL;
	} else {
		/* --format jsonl: one object per line */
		rc = read_lines(text, sink, ctx, &argv, err, err_line);
	}
	json_decref(doc);
	rn_buf_release(&argv);
	return rc;
}
