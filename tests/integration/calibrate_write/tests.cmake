# Integration tests of `renacer calibrate --write` and the [[target]] key baseline_tolerance
# it writes (calibrate_write_test.sh CASE ...).
foreach(case writes_tolerance target_tolerance)
	add_test(NAME calibrate_write.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/calibrate_write_test.sh ${case}
			${CMAKE_BINARY_DIR} ${CMAKE_C_COMPILER})
	set_tests_properties(calibrate_write.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
