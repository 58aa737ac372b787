# The eBPF driver. Included by collectors/CMakeLists.txt; appends to RN_COLLECTOR_SOURCES,
# RN_COLLECTOR_LIBS and RN_COLLECTOR_DEPENDS.
#
# counter.bpf.c is compiled when renacer is built: vmlinux.h is generated from the build
# machine's BTF (bpftool btf dump file /sys/kernel/btf/vmlinux format c), the object is
# compiled with clang -target bpf (CO-RE: field offsets are relocated by libbpf against the
# running kernel's BTF at load), linked with bpftool gen object (which drops the DWARF, keeping
# the BTF) and turned into a skeleton header (bpftool gen skeleton) that embeds it. No
# compiler runs when renacer runs.
#
# RN_WITH_EBPF: AUTO (default) builds it when clang, bpftool, libbpf and the build machine's
# BTF are found, and the stub otherwise (its message says which was missing); ON requires
# them; OFF builds the stub. RN_EBPF_VMLINUX_BTF names another BTF file to generate from.
# (Both are declared in the top CMakeLists.txt's options block.)
set(RN_EBPF_SRC ${CMAKE_CURRENT_LIST_DIR})

set(RN_EBPF_FOUND OFF)
set(RN_EBPF_WHY "RN_WITH_EBPF=OFF")
if(NOT RN_WITH_EBPF STREQUAL "OFF")
	find_program(RN_CLANG clang)
	find_program(RN_BPFTOOL bpftool PATHS /usr/sbin /sbin)
	pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf)
	# Ubuntu's /usr/sbin/bpftool (linux-tools-common) is a wrapper that fails unless the
	# running kernel's linux-tools package is installed: found is not enough, it must run.
	set(RN_BPFTOOL_RUNS OFF)
	if(RN_BPFTOOL)
		execute_process(COMMAND ${RN_BPFTOOL} version RESULT_VARIABLE _rn_bpftool_rc
			OUTPUT_QUIET ERROR_QUIET)
		if(_rn_bpftool_rc EQUAL 0)
			set(RN_BPFTOOL_RUNS ON)
		endif()
	endif()
	if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
		set(RN_EBPF_ARCH x86)
	elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
		set(RN_EBPF_ARCH arm64)
	endif()
	if(NOT RN_CLANG)
		set(RN_EBPF_WHY "clang was not found at build time")
	elseif(NOT RN_BPFTOOL)
		set(RN_EBPF_WHY "bpftool was not found at build time")
	elseif(NOT RN_BPFTOOL_RUNS)
		set(RN_EBPF_WHY "bpftool at ${RN_BPFTOOL} does not run")
	elseif(NOT LIBBPF_FOUND)
		set(RN_EBPF_WHY "libbpf (libbpf-dev) was not found at build time")
	elseif(NOT EXISTS ${RN_EBPF_VMLINUX_BTF})
		set(RN_EBPF_WHY "the build machine has no BTF at ${RN_EBPF_VMLINUX_BTF}")
	elseif(NOT RN_EBPF_ARCH)
		set(RN_EBPF_WHY "no eBPF counter for ${CMAKE_SYSTEM_PROCESSOR}")
	else()
		set(RN_EBPF_FOUND ON)
	endif()
	if(NOT RN_EBPF_FOUND)
		if(RN_WITH_EBPF STREQUAL "ON")
			message(FATAL_ERROR "RN_WITH_EBPF=ON but ${RN_EBPF_WHY}")
		endif()
		message(STATUS "eBPF driver: ${RN_EBPF_WHY}, building the stub")
	endif()
endif()
# Seen by tests/CMakeLists.txt.
set(RN_EBPF_BUILT ${RN_EBPF_FOUND} CACHE INTERNAL "eBPF driver built")

if(RN_EBPF_FOUND)
	set(_out ${CMAKE_CURRENT_BINARY_DIR}/ebpf)
	file(MAKE_DIRECTORY ${_out})
	add_custom_command(OUTPUT ${_out}/vmlinux.h
		COMMAND ${RN_BPFTOOL} btf dump file ${RN_EBPF_VMLINUX_BTF} format c > ${_out}/vmlinux.h.tmp
		COMMAND ${CMAKE_COMMAND} -E rename ${_out}/vmlinux.h.tmp ${_out}/vmlinux.h
		COMMENT "Generating vmlinux.h from ${RN_EBPF_VMLINUX_BTF}"
		VERBATIM)
	add_custom_command(OUTPUT ${_out}/counter.skel.h
		COMMAND ${RN_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${RN_EBPF_ARCH}
			-I${_out} -I${RN_EBPF_SRC} ${LIBBPF_CFLAGS}
			-c ${RN_EBPF_SRC}/counter.bpf.c -o ${_out}/counter.bpf.o
		COMMAND ${RN_BPFTOOL} gen object ${_out}/counter.o ${_out}/counter.bpf.o
		COMMAND ${RN_BPFTOOL} gen skeleton ${_out}/counter.o name rn_counter > ${_out}/counter.skel.h.tmp
		COMMAND ${CMAKE_COMMAND} -E rename ${_out}/counter.skel.h.tmp ${_out}/counter.skel.h
		DEPENDS ${RN_EBPF_SRC}/counter.bpf.c ${RN_EBPF_SRC}/counter.h ${_out}/vmlinux.h
		COMMENT "Compiling the eBPF counter and its skeleton"
		VERBATIM)
	add_custom_target(rn_ebpf_skel DEPENDS ${_out}/counter.skel.h)
	list(APPEND RN_COLLECTOR_SOURCES ${RN_EBPF_SRC}/ebpf.c)
	list(APPEND RN_COLLECTOR_INCLUDES ${_out})
	# from libbpf.a where libbpf-dev ships it (RN_STATIC_DEPS), like libelf
	rn_dependency(bpf LIBBPF rn_dep_elf rn_dep_z)
	list(PREPEND RN_COLLECTOR_LIBS rn_dep_bpf)
	list(APPEND RN_COLLECTOR_DEPENDS rn_ebpf_skel)
	set_source_files_properties(${RN_EBPF_SRC}/ebpf.c PROPERTIES OBJECT_DEPENDS ${_out}/counter.skel.h)
else()
	list(APPEND RN_COLLECTOR_SOURCES ${RN_EBPF_SRC}/ebpf_stub.c)
	set_source_files_properties(${RN_EBPF_SRC}/ebpf_stub.c PROPERTIES COMPILE_DEFINITIONS
		"RN_EBPF_WHY=\"${RN_EBPF_WHY}\"")
endif()
