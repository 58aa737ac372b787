# Hostile targets, file systems and strings (security_test.sh CASE ...): a target
# that traces, stops or signals renacer; symlinks and stale files where outputs and their
# temporaries go; FIFOs and devices as golden traces; catastrophic regexes; control characters
# and NUL in names and values; secrets inside shell command strings. Targets
# targets/sec_*.c are built into build/security/.
file(GLOB RN_SEC_TARGETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/targets/sec_*.c)
foreach(src ${RN_SEC_TARGETS})
	get_filename_component(name ${src} NAME_WE)
	add_executable(security_${name} ${src})
	set_target_properties(security_${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/security)
	# sec_spans speaks renacer_span.h
	target_include_directories(security_${name} PRIVATE ${CMAKE_SOURCE_DIR}/collectors/app)
endforeach()

set(RN_SECURITY_CASES
	tmp_final_symlink tmp_mode_and_stale
	guard_seize guard_attach guard_stop guard_stop_group guard_mem guard_trace_modes
	signal_hup signal_quit signal_usr1 signal_usr2 signal_pipe
	regex_catastrophic regex_backref
	golden_fifo golden_dev_zero golden_dev_urandom golden_symlink_loop
	env_nul name_newline_injection
	shell_secrets
	merge_forged_names merge_options_after_files trace_source_fifo diff_deep_chain
	diff_input_limits
	app_span_names app_open_cap app_otlp_times app_orphan_parents explain_deep_stack
	explain_hostile_names explain_wide_profile)
foreach(case ${RN_SECURITY_CASES})
	add_test(NAME security.${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/security_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(security.${case} PROPERTIES LABELS "security;integration"
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# The history store against hostile names, permissions, paths, credentials and servers
# (store_test.sh CASE ...); PostgreSQL cases skip without its server programs.
set(RN_STORE_CASES
	utf8_names_sqlite utf8_names_postgres readonly_store symlink_loop special_files
	pg_credentials
	pg_lock_held pg_silent_server import_names report_last_cap)
foreach(case ${RN_STORE_CASES})
	add_test(NAME security.store_${case}
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/store_test.sh ${case} ${CMAKE_BINARY_DIR}
			${CMAKE_SOURCE_DIR})
	set_tests_properties(security.store_${case} PROPERTIES LABELS "security;integration"
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
