/*
 * test_symbolize.c - /proc/PID/maps parsing, the C runtime filter, and symbolization of this
 * test binary's own functions (PIE load bias included) through a live and a relocated snapshot,
 * and C++ names demangled as profiles show them.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collectors/internal.h"
#include "symbolize.h"

/* A function with a known name to find; noinline so it has its own symbol. */
__attribute__((noinline)) int rn_test_symbolize_probe(int x);
__attribute__((noinline)) int rn_test_symbolize_probe(int x)
{
	return x * 3 + 1;
}

static void test_symbolize_parses_maps(void **state)
{
	struct rn_maps *m = rn_maps_parse(
		"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 123  /usr/bin/my tool\n"
		"55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 123  /usr/bin/my tool\n"
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"garbage line\n"
		"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0  [stack]");
	const struct rn_map *e;

	(void)state;
	assert_int_equal(m->n, 4);
	e = rn_maps_find(m, 0x55d0c0a01234);
	assert_non_null(e);
	assert_true(e->exec);
	assert_int_equal(e->offset, 0x1000);
	assert_string_equal(e->path, "/usr/bin/my tool");
	e = rn_maps_find(m, 0x7f0000000010);
	assert_non_null(e);
	assert_null(e->path);
	assert_string_equal(rn_maps_find(m, 0x7ffc00000008)->path, "[stack]");
	assert_null(rn_maps_find(m, 0x1000));
	assert_null(rn_maps_find(m, 0x55d0c0a02000));
	rn_maps_free(m);
	rn_maps_free(NULL);
}

static void test_symbolize_runtime_modules(void **state)
{
	(void)state;
	assert_true(rn_module_is_runtime("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(rn_module_is_runtime("/lib64/ld-linux-x86-64.so.2"));
	assert_true(rn_module_is_runtime("/lib/libpthread-2.31.so"));
	assert_true(rn_module_is_runtime("[vdso]"));
	assert_false(rn_module_is_runtime("/usr/lib/libcurl.so.4"));
	assert_false(rn_module_is_runtime("/usr/lib/libcrypto.so.3"));
	assert_false(rn_module_is_runtime("/home/x/build/ap_smallio"));
	assert_false(rn_module_is_runtime(NULL));
}

static void test_symbolize_system_frames(void **state)
{
	(void)state;
	/* tagged by the profile with their module, or a runtime module without a symbol */
	assert_true(rn_frame_is_system("_IO_new_file_write [libc.so.6]"));
	assert_true(rn_frame_is_system("_dl_start_user [ld-linux-x86-64.so.2]"));
	assert_true(rn_frame_is_system("PyObject_Vectorcall [libpython3.11.so.1.0]"));
	assert_true(rn_frame_is_system("libc.so.6+0x11a2b0"));
	assert_true(rn_frame_is_system("[kernel]"));
	/* CPython's internals by name (a python binary that links libpython statically) */
	assert_true(rn_frame_is_system("_PyEval_EvalFrameDefault"));
	assert_true(rn_frame_is_system("PyObject_Call"));
	assert_true(rn_frame_is_system("Py_RunMain"));
	/* the program's own */
	assert_false(rn_frame_is_system("write_out (w.c:12)"));
	assert_false(rn_frame_is_system("write_out"));
	assert_false(rn_frame_is_system("Pyramid_draw"));
	assert_false(rn_frame_is_system("python_main"));
	assert_false(rn_frame_is_system("app+0x1139"));
	assert_false(rn_frame_is_system("parse [libfoo.so.1]"));
	assert_false(rn_frame_is_system(""));
}

/* The executable mapping of the C runtime in `m`, or NULL. */
static const struct rn_map *runtime_map(const struct rn_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].exec && rn_module_is_runtime(m->v[i].path) && m->v[i].path[0] == '/')
			return &m->v[i];
	return NULL;
}

static void test_symbolize_finds_own_function(void **state)
{
	uint64_t probe = (uint64_t)(uintptr_t)&rn_test_symbolize_probe;
	struct rn_symbolizer *s = rn_symbolizer_new();
	const struct rn_map *libc;
	struct rn_frame fr, fr2;
	struct rn_maps *m = NULL;
	uint64_t stack[3];

	(void)state;
	assert_int_equal(rn_maps_read(getpid(), &m), 0);
	/* a return address 5 bytes into the function resolves to it */
	assert_int_equal(rn_symbolize(s, m, probe + 5, true, &fr), 0);
	assert_non_null(fr.function);
	assert_string_equal(fr.function, "rn_test_symbolize_probe");
	assert_int_equal(fr.function_off, 5);
	assert_non_null(strstr(fr.module, "test_symbolize"));
	/* the caller skips C runtime frames and takes the first frame outside them */
	libc = runtime_map(m);
	assert_non_null(libc);
	stack[0] = libc->start + 16;
	stack[1] = 0x10; /* not mapped */
	stack[2] = probe + 5;
	assert_int_equal(rn_symbolize_caller(s, m, stack, 3, &fr2), 0);
	assert_string_equal(fr2.function, "rn_test_symbolize_probe");
	assert_int_equal(fr2.vaddr, fr.vaddr);
	assert_int_equal(rn_symbolize_caller(s, m, stack, 2, &fr2), -ENOENT);
	assert_int_equal(rn_symbolize(s, m, 0x10, true, &fr2), -ENOENT);
	rn_maps_free(m);
	rn_symbolizer_free(s);
}

/* The same image mapped at another address: the load bias is subtracted, the vaddr is the
 * same. */
static void test_symbolize_relocated_image(void **state)
{
	uint64_t probe = (uint64_t)(uintptr_t)&rn_test_symbolize_probe;
	struct rn_symbolizer *s = rn_symbolizer_new();
	const struct rn_map *e;
	struct rn_maps *m = NULL, *moved;
	struct rn_frame a, b;
	uint64_t base = 0x100000000000ULL;
	char text[8192];

	(void)state;
	assert_int_equal(rn_maps_read(getpid(), &m), 0);
	e = rn_maps_find(m, probe);
	assert_non_null(e);
	snprintf(text, sizeof(text), "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " 00:00 1 %s\n",
		 base, base + (e->end - e->start), e->offset, e->path);
	moved = rn_maps_parse(text);
	assert_int_equal(rn_symbolize(s, m, probe + 2, false, &a), 0);
	assert_int_equal(rn_symbolize(s, moved, base + (probe - e->start) + 2, false, &b), 0);
	assert_int_equal(a.vaddr, b.vaddr);
	assert_string_equal(b.function, "rn_test_symbolize_probe");
	assert_int_equal(b.function_off, 2);
	rn_maps_free(moved);
	rn_maps_free(m);
	rn_symbolizer_free(s);
}

/* One demangled name against what it must read. */
static void expect_demangled(const char *mangled, const char *want)
{
	char *got = rn_symbol_demangle(mangled);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* C++ symbols read as a profile shows them: demangled, without the parameter list, a method's
 * qualifiers or a function template's return type; the spaces that the folded format cannot
 * hold left out after commas and between closing brackets; C names and malformed ones NULL. */
static void test_symbol_demangle(void **state)
{
	(void)state;
	expect_demangled("_ZN4node5StartEiPPc", "node::Start");
	expect_demangled("_ZNK1S4sizeEv", "S::size");
	expect_demangled("_ZN1SclEi", "S::operator()");
	expect_demangled("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()");
	expect_demangled("_ZN12_GLOBAL__N_13fooEi", "(anonymous namespace)::foo");
	expect_demangled("_ZdlPv", "operator delete");
	expect_demangled("_ZN2v88internal12DeserializerINS0_7IsolateEE22ReadSingleBytecodeDataINS0_"
			 "25SlotAccessorForHeapObjectEEEihT_",
			 "v8::internal::Deserializer<v8::internal::Isolate>::ReadSingleBytecodeData<"
			 "v8::internal::SlotAccessorForHeapObject>");
	expect_demangled("_ZNSt6vectorIiSaIiEE9push_backERKi",
			 "std::vector<int,std::allocator<int>>::push_back");
	expect_demangled("main", NULL);
	expect_demangled("_Z", NULL);
	expect_demangled("_Zbogus!", NULL);
	expect_demangled(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolize_parses_maps),
		cmocka_unit_test(test_symbolize_runtime_modules),
		cmocka_unit_test(test_symbolize_system_frames),
		cmocka_unit_test(test_symbolize_finds_own_function),
		cmocka_unit_test(test_symbolize_relocated_image),
		cmocka_unit_test(test_symbol_demangle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
