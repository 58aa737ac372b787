# Integration tests of harness targets and suites (harness_test.sh CASE ...): structure and a
# planted 3x change; the timing bars are tests/bench/harness/bars.sh's.
foreach(case gbench pytest pytest_clock go go_binary hyperfine ctest_suite init_detect)
	add_test(NAME harness.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/harness_test.sh ${case} ${CMAKE_BINARY_DIR}
			c++ ${CMAKE_SOURCE_DIR})
	set_tests_properties(harness.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()
# pytest and go spend minutes in the interpreter and the Go toolchain (a harness run each
# pair, per benchmark), next to nothing in renacer: the sanitizer build leaves them out.
set_property(TEST harness.pytest harness.pytest_clock harness.go harness.go_binary APPEND
	PROPERTY LABELS slow)
