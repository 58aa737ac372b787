# Integration tests of the release ratchet ([ratchet] with check --baseline; ratchet_test.sh
# CASE ...): eight commits of +1.5% syscalls (or instructions) each, counts so the verdicts
# are exact.
foreach(case creep creep_dir bad_reference instructions)
	add_test(NAME ratchet.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/ratchet_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_C_COMPILER})
	set_tests_properties(ratchet.${case} PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
