# Integration tests of the ptrace collector, the run loop and `renacer trace`.
# They need python3; tests that need strace or ptrace permission exit 77 (skip).
find_program(RN_PYTHON3 python3)
if(RN_PYTHON3)
	add_test(NAME ptrace.strace_compare
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/strace_compare.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets)
	set_tests_properties(ptrace.strace_compare PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
if(RN_PYTHON3)
	add_test(NAME ptrace.trace_cli
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/trace_cli.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets)
	set_tests_properties(ptrace.trace_cli PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
if(RN_PYTHON3)
	add_test(NAME ptrace.source
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/source_test.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets
			--source-dir ${CMAKE_SOURCE_DIR})
	set_tests_properties(ptrace.source PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
if(RN_PYTHON3)
	add_test(NAME ptrace.image_memory
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/image_memory.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets)
	set_tests_properties(ptrace.image_memory PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# The eBPF driver against strace -f -c on the same cases (skips with the reason where BPF
# cannot load: not root, no BTF, renacer built without RN_WITH_EBPF).
if(RN_PYTHON3)
	add_test(NAME ebpf.strace_compare
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/strace_compare.py --driver ebpf
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets)
	set_tests_properties(ebpf.strace_compare PROPERTIES
		LABELS "ebpf;integration" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
# `renacer trace` -c --percentiles, --inject (against strace's own), --format csv; then -p PID
# and --profile with `renacer explain` (two tests, each a few seconds).
if(RN_PYTHON3)
	add_test(NAME ptrace.explain_cli
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/explain_cli.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets
			--only percentiles,inject,csv)
	set_tests_properties(ptrace.explain_cli PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 300)
	add_test(NAME ptrace.original_flags
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/explain_cli.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets
			--only original_flags)
	set_tests_properties(ptrace.original_flags PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 120)
	add_test(NAME ptrace.explain_profile
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/explain_cli.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets
			--only attach,profile)
	set_tests_properties(ptrace.explain_profile PROPERTIES
		LABELS "ptrace;integration" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
