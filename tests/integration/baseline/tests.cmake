# Integration tests of the same-job baseline (baseline_test.sh CASE ...).
foreach(case fsync_count new_syscall config_command shell_paths base_missing base_unbuilt base_fails base_child_fails head_fails identical concurrent
		confirm_usage calibrate fingerprint_compiler two_modes instructions duet)
	add_test(NAME baseline.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/baseline_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_C_COMPILER})
	set_tests_properties(baseline.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
