# OTLP export against a real OTLP/HTTP receiver built from the OpenTelemetry project's own generated
# protobuf code (receiver.js; packages pinned in package-lock.json, installed with `npm ci --prefix
# tests/integration/otlp`). Each case runs otlp_client, renacer's exporter on the synthetic check of
# fixture.h, and checks what arrived (check.js). Without Node.js or the packages the cases are
# skipped (77).
add_executable(otlp_client ${CMAKE_CURRENT_LIST_DIR}/otlp_client.c)
target_link_libraries(otlp_client PRIVATE rn_runner)
set_target_properties(otlp_client PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
rn_sanitize(otlp_client)

foreach(case protobuf json gzip env_endpoint batches threshold file retry503
		retry_after_too_long bad400 partial refused slow)
	add_test(NAME otlp.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run.sh ${case} $<TARGET_FILE:otlp_client>)
	set_tests_properties(otlp.${case} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
		TIMEOUT 60)
endforeach()
