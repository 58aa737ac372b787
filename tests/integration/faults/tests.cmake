# Faults the runner must survive (faults_test.sh CASE ...): targets that cannot
# run, crash, resist signals, escape the tree, fork without end, flood their output or exhaust
# memory; renacer itself interrupted; broken golden traces; full disks; unwritable outputs.
# Target programs targets/ft_*.c are built into build/faults/; m32_*.c are
# built by the script with gcc -m32 when it can (else that case is skipped).
file(GLOB RN_FAULT_TARGETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/targets/ft_*.c)
foreach(src ${RN_FAULT_TARGETS})
	get_filename_component(name ${src} NAME_WE)
	add_executable(fault_${name} ${src})
	set_target_properties(fault_${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/faults)
endforeach()

set(RN_FAULT_CASES
	target_missing target_not_executable target_not_elf target_i386 target_exit_nonzero
	target_without_verdicts target_sigsegv target_sigabrt target_sigkill target_ignores_sigterm target_blocks_signals
	grandchild_outlives grandchild_forever fork_bomb output_flood_null output_flood_capture
	target_closes_stdio renacer_stdio_closed memory_limit rss_excludes_runner timeout_tree
	renacer_sigint renacer_sigterm renacer_sigint_group renacer_sigterm_group
	golden_corrupt_variants golden_unreadable golden_update_ulimit golden_update_disk_full
	output_missing_dir output_unwritable_dir output_is_directory
	instructions_child_sigkill valgrind_bogus_summary ebpf_bad_btf golden_update_no_color)
foreach(case ${RN_FAULT_CASES})
	add_test(NAME faults.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/faults_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR} ${RN_SHARED_DIR})
	set_tests_properties(faults.${case} PROPERTIES LABELS "faults;integration"
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
