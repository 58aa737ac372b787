# Target programs: small deterministic programs that make known syscalls (strace's approach).
# Every tests/targets/<name>.c becomes build/targets/<name>; vk_*.c are built by
# tests/integration/vulkan/tests.cmake (they need Vulkan and SPIR-V); example_*.c by
# examples.cmake, which the top CMakeLists.txt includes with tests on or off.
file(GLOB RN_TARGET_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
foreach(src ${RN_TARGET_SOURCES})
	get_filename_component(name ${src} NAME_WE)
	if(name MATCHES "^vk_" OR TARGET target_${name})
		continue()  # vk_*: below; example_*: examples.cmake, included with the tree
	endif()
	add_executable(target_${name} ${src})
	set_target_properties(target_${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/targets)
	# Frame pointers and symbols so evidence can name the calling function.
	target_compile_options(target_${name} PRIVATE -fno-omit-frame-pointer -g)
	target_link_libraries(target_${name} PRIVATE pthread)
endforeach()
# src_lines: the optimised build of a program with debug information that --source resolves
# (tests/integration/ptrace/source_test.py), as a user's -O1 -g build would be.
target_compile_options(target_src_lines PRIVATE -O1 -g)
# Targets that mark their own spans include the installed header from its source folder.
foreach(t sp_app sp_server sp_work sp_cpu)
	target_include_directories(target_${t} PRIVATE ${CMAKE_SOURCE_DIR}/collectors/app)
endforeach()
