# The bundled example targets of renacer.toml.example (tests/targets/example_*.c), defined
# with the tree, tests on or off: ci/run-example.sh builds renacer and these two alone
# (RN_BUILD_TESTS=OFF). Out of `all` when tests are off, so a package build skips them.
foreach(name example_work example_tree)
	add_executable(target_${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
	set_target_properties(target_${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/targets)
	if(NOT RN_BUILD_TESTS)
		set_target_properties(target_${name} PROPERTIES EXCLUDE_FROM_ALL ON)
	endif()
	# Frame pointers and symbols so evidence can name the calling function.
	target_compile_options(target_${name} PRIVATE -fno-omit-frame-pointer -g)
	target_link_libraries(target_${name} PRIVATE pthread)
endforeach()
