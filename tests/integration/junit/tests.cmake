# JUnit XML: write reports covering every verdict kind (junit_sample.c) and validate
# them with xmllint against both schemas of shared/junit/ (windyroad JUnit.xsd and jenkins
# junit-10.xsd), also under a decimal-comma locale. Skips (77) when the schemas or xmllint are
# missing.
add_executable(junit_sample ${CMAKE_CURRENT_LIST_DIR}/junit_sample.c)
target_link_libraries(junit_sample PRIVATE rn_runner)
set_target_properties(junit_sample PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/junit)
rn_sanitize(junit_sample)

add_test(NAME junit.schema
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/validate.sh $<TARGET_FILE:junit_sample>
		${RN_SHARED_DIR}/junit ${CMAKE_BINARY_DIR}/tests/junit/out)
set_tests_properties(junit.schema PROPERTIES LABELS junit SKIP_RETURN_CODE 77)
