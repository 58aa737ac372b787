# Behaviour equivalence: renacer diff between a program, its rewrite and variants.
find_program(RN_PYTHON3 python3)
if(RN_PYTHON3)
	add_test(NAME equivalence.diff
		COMMAND ${RN_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/equiv_test.py
			--renacer $<TARGET_FILE:renacer> --targets ${CMAKE_BINARY_DIR}/targets)
	set_tests_properties(equivalence.diff PROPERTIES
		LABELS "equivalence;integration" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
