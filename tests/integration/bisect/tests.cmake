# Integration tests of `renacer bisect` (bisect_test.sh CASE ...): a git repository built by
# the test whose 7th commit plants a regression measured by counts (syscalls, or instructions
# under Valgrind), so the verdict is exact.
foreach(case names_commit7 no_regression bad_revs hostile_subjects instructions_cpu)
	add_test(NAME bisect.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/bisect_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_C_COMPILER})
	set_tests_properties(bisect.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
