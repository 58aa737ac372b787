# The ptrace collector: included by collectors/CMakeLists.txt (in its directory scope).
#
# The syscall and errno name tables are generated at build time from the kernel headers of the
# build machine (gen_tables.cmake), never typed by hand.
set(RN_PTRACE_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RN_PTRACE_TABLES ${CMAKE_CURRENT_BINARY_DIR}/ptrace/rn_ptrace_tables.c)

add_custom_command(OUTPUT ${RN_PTRACE_TABLES}
	COMMAND ${CMAKE_COMMAND} -DRN_CC=${CMAKE_C_COMPILER} -DRN_OUT=${RN_PTRACE_TABLES}
		-P ${RN_PTRACE_DIR}/gen_tables.cmake
	DEPENDS ${RN_PTRACE_DIR}/gen_tables.cmake
	COMMENT "Generating syscall and errno name tables from the kernel headers"
	VERBATIM)
add_custom_target(rn_ptrace_tables DEPENDS ${RN_PTRACE_TABLES})

list(APPEND RN_COLLECTOR_SOURCES
	${RN_PTRACE_DIR}/ptrace.c
	${RN_PTRACE_DIR}/ptrace_tasks.c
	${RN_PTRACE_DIR}/ptrace_syscall.c
	${RN_PTRACE_DIR}/ptrace_proc.c
	${RN_PTRACE_DIR}/sysent.c
	${RN_PTRACE_DIR}/driver.c
	${RN_PTRACE_DIR}/inject.c
	${RN_PTRACE_TABLES})
list(APPEND RN_COLLECTOR_DEPENDS rn_ptrace_tables)

# The pinning watchdog is a thread.
find_package(Threads REQUIRED)
list(APPEND RN_COLLECTOR_LIBS Threads::Threads)
