# Integration tests of the main job (tests/check/check_test.sh CASE ...).
foreach(case example doubled_syscalls golden_corrupt verdicts warn_only error_target crash_target
		timeout_target usage config_error cli_target collector_unavailable output_error redaction)
	add_test(NAME check.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR} ${RN_SHARED_DIR})
	set_tests_properties(check.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 300)
endforeach()

# Timing runs and counting runs (tests/check/runs_test.sh CASE ...).
foreach(case time_only count_only both golden golden_v1)
	add_test(NAME check.runs_${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/runs_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(check.runs_${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
