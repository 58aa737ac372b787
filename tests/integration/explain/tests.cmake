# Integration tests of explaining a failed timing row (tests/integration/explain/explain_test.sh CASE ...):
# a planted hot function and a planted openat loop must rank first with their file:line; a
# one-run spike is not ranked; a python3 target says its items are interpreter frames; a golden
# row WARN that leans to a slowdown is explained, an unchanged WARN row is not; a stripped
# program's item says how to name its functions; a failed span_time row on an app span says
# which functions the samples inside the span were in, and so does the explanation of a failed
# golden:cpu_time row beside a failed golden:span_time:app row (golden_span); code compiled at
# run time is named from its perf map, /tmp/perf-PID.map (jit: a C program's own JIT region;
# jit_py: one shaped as CPython 3.12's trampolines; node: node --perf-basic-prof, node_plain:
# without it the explanation says how to name the JavaScript functions); a cpu_time
# row is explained by time on CPU, where blocked pipe writes that grew more than the reader's
# CPU do not come first (cpu_wait); a C++ program's functions are named qualified and
# demangled (cxx); the waits of idle threads that grew beyond the run rank after the main
# thread's CPU on a wall-time row (idle); reads made by fscanf name their caller (scanf).
foreach(case hot openat child off golden golden_warn golden_warn_same golden_missing stdio one_run
		python stripped span golden_span jit jit_py node node_plain cpu_wait cxx
		idle scanf)
	add_test(NAME explain.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/explain_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_C_COMPILER})
	set_tests_properties(explain.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
