# Integration tests of the instructions metric and of the eBPF driver in check
# (instr_test.sh CASE BUILD_DIR); they skip (77) without valgrind or BPF.
foreach(case repeat budget golden no_valgrind ebpf_check ebpf_rss trace_cli
		ebpf_unprivileged)
	add_test(NAME instructions.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/instr_test.sh ${case} ${CMAKE_BINARY_DIR})
	set_tests_properties(instructions.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
