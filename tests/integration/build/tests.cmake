# What renacer needs from the dynamic loader at start (needed.sh): never libcurl,
# which is loaded on the first OTLP export, and none of the libraries linked from their
# static archives (RN_STATIC_DEPS). Every start pays for each shared library it names.
add_test(NAME build.needed_libraries
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/needed.sh $<TARGET_FILE:renacer> libcurl libpq
		${RN_STATIC_ARCHIVES})
set_tests_properties(build.needed_libraries PROPERTIES LABELS integration SKIP_RETURN_CODE 77)
