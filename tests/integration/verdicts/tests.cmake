# Integration tests of verdict honesty (verdicts_test.sh CASE ...): NOT JUDGED on
# every report, run counts that can never reach alpha, [golden] metrics, new syscalls, golden
# traces of another target or command.
foreach(case not_judged infeasible golden_metrics new_syscall golden_identity
		span_aggregate)
	add_test(NAME verdicts.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/verdicts_test.sh ${case} ${CMAKE_BINARY_DIR})
	set_tests_properties(verdicts.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 300)
endforeach()
