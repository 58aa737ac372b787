# span_time and the program's own spans (spans_test.sh CASE BUILD_DIR SOURCE_DIR).
foreach(case syscall_max syscall_count_above syscall_p95 config_errors original_keys app_header
		app_otel_proto app_otel_json witness witness_python witness_node
		app_runs_self app_baseline app_cpu)
	add_test(NAME spans.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/spans_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(spans.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 120)
endforeach()
# The program's own span durations against a golden trace (golden_spans_test.sh CASE ...).
foreach(case golden_unchanged golden_slow_span golden_v2)
	add_test(NAME spans.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/golden_spans_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(spans.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 300)
endforeach()
