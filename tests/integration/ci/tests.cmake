# ci/ scripts as users run them.
add_test(NAME ci.regenerate_golden
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/regenerate.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(ci.regenerate_golden PROPERTIES LABELS "ci;integration"
	SKIP_RETURN_CODE 77 TIMEOUT 300)
