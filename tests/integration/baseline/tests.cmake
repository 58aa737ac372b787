# Integration tests of the same-job baseline (baseline_test.sh CASE ...).
foreach(case fsync_count new_syscall shell_paths base_missing base_unbuilt base_fails head_fails identical
		confirm_usage calibrate)
	add_test(NAME baseline.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/baseline_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_C_COMPILER})
	set_tests_properties(baseline.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# identical and calibrate judge timing pairs that each run pinned to the CPU renacer is on: run
# beside each other (ctest -j2 on two CPUs) both checks can pick the same CPU, and each one's
# pairs then take the other's planted busy loop (identical read its head +20% over 15 pairs).
# The lock keeps them apart; what they assert is unchanged.
set_tests_properties(baseline.identical baseline.calibrate PROPERTIES RESOURCE_LOCK cpu_pinned_pairs)
