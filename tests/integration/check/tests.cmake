# Integration tests of the main job (check_test.sh CASE ...).
foreach(case example example_junit_schema doubled_syscalls golden_update_budgets golden_corrupt verdicts warn_only error_target crash_target
		timeout_target usage global_options signals_outside_runs config_error cli_target collector_unavailable output_error redaction
		config_errors_all validate_golden spool_fd nothing_judged pattern_matches_none
		syscall_patterns golden_equivalence report_markdown init_equivalence init_shell_name)
	add_test(NAME check.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR} ${RN_SHARED_DIR})
	set_tests_properties(check.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 300)
endforeach()

# A config written for the original renacer validates with exit 0 (notes, no errors).
set(RN_ORIGINAL_TOML ${CMAKE_SOURCE_DIR}/tests/unit/runner/input/config/original.toml)
add_test(NAME check.original_format
	COMMAND $<TARGET_FILE:renacer> validate --config ${RN_ORIGINAL_TOML})
set_tests_properties(check.original_format PROPERTIES LABELS integration)
# A short option whose id differs from its character (-c is --config, id 'C') reaches its
# handler: validate -c FILE loads FILE (it once failed with "unhandled option").
add_test(NAME check.short_config
	COMMAND $<TARGET_FILE:renacer> validate -c ${RN_ORIGINAL_TOML})
set_tests_properties(check.short_config PROPERTIES LABELS integration)

# Timing runs and counting runs (runs_test.sh CASE ...).
foreach(case time_only count_only both both_ebpf golden runs_flag golden_v1 golden_fingerprint)
	add_test(NAME check.runs_${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/runs_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(check.runs_${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The console report: fits COLUMNS (100, 60, --wide), agrees with JUnit, and JUnit's WARN
# rows are not passes under dorny/test-reporter's and GitLab's parsing rules
# (console_test.py CASE BUILD_DIR).
foreach(case width agree reporters)
	add_test(NAME check.console_${case}
		COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/console_test.py ${case} ${CMAKE_BINARY_DIR})
	set_tests_properties(check.console_${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# `renacer init` either completes or leaves the directory as it was: SIGTERM/SIGINT while it is
# blocked outside a run, a complete init, an init over an existing golden trace.
add_test(NAME check.init_signal
	COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/init_signal.py $<TARGET_FILE:renacer>)
set_tests_properties(check.init_signal PROPERTIES LABELS integration TIMEOUT 300)

# An interrupted `renacer golden update` leaves the previous golden traces byte for byte, no
# temporary file, and no golden directory it created and left empty.
add_test(NAME check.golden_signal
	COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/golden_signal.py $<TARGET_FILE:renacer>)
set_tests_properties(check.golden_signal PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)
