# The CUDA collector. Included by collectors/CMakeLists.txt; appends to RN_COLLECTOR_SOURCES,
# RN_COLLECTOR_LIBS and RN_COLLECTOR_DEPENDS.
#
# Runner side (linked into rn_collectors): cuda.c (the ops table), load.c (record files ->
# spans) and clock.c (CUPTI-to-host clock arithmetic). load.c and clock.c are always built:
# their unit tests run on every machine, with or without a CUDA toolkit.
#
# The injection library (inject/): a MODULE library loaded by the CUDA driver through
# CUDA_INJECTION64_PATH, built without sanitizers (it is loaded into programs that are not),
# hidden visibility, exporting only InitializeInjection, linked against libcupti with an rpath
# to the toolkit's library folder.
#
# RN_WITH_CUDA: AUTO (default) builds it when cupti.h and libcupti are found; ON requires
# them; OFF builds the stub collector (declared in the top CMakeLists.txt's options block).
set(RN_CUDA_SRC ${CMAKE_CURRENT_LIST_DIR})

set(RN_CUDA_FOUND OFF)
if(NOT RN_WITH_CUDA STREQUAL "OFF")
	find_path(RN_CUPTI_INCLUDE_DIR cupti.h
		HINTS ENV CUDA_HOME ENV CUDA_PATH
		PATHS /usr/local/cuda /usr/local/cuda/extras/CUPTI
		PATH_SUFFIXES include)
	find_library(RN_CUPTI_LIBRARY cupti
		HINTS ENV CUDA_HOME ENV CUDA_PATH
		PATHS /usr/local/cuda /usr/local/cuda/extras/CUPTI
		PATH_SUFFIXES lib64 lib)
	if(RN_CUPTI_INCLUDE_DIR AND RN_CUPTI_LIBRARY)
		set(RN_CUDA_FOUND ON)
	elseif(RN_WITH_CUDA STREQUAL "ON")
		message(FATAL_ERROR "RN_WITH_CUDA=ON but cupti.h or libcupti was not found")
	else()
		message(STATUS "CUDA collector: no CUDA toolkit with CUPTI found, building the stub")
	endif()
endif()
# Seen by tests/CMakeLists.txt and tests/integration/cuda/tests.cmake.
set(RN_CUDA_BUILT ${RN_CUDA_FOUND} CACHE INTERNAL "CUDA collector built")

list(APPEND RN_COLLECTOR_SOURCES ${RN_CUDA_SRC}/load.c ${RN_CUDA_SRC}/clock.c)
list(APPEND RN_COLLECTOR_LIBS rn_dep_jansson)

if(RN_CUDA_FOUND)
	set(RN_CUDA_INJECT_BUILD_PATH ${CMAKE_BINARY_DIR}/cuda/librenacer_cuda_inject.so)
	set(RN_CUDA_INJECT_INSTALL_PATH
		${RN_PRIVATE_FULL_LIBDIR}/librenacer_cuda_inject.so)
	list(APPEND RN_COLLECTOR_SOURCES ${RN_CUDA_SRC}/cuda.c)
	set_source_files_properties(${RN_CUDA_SRC}/cuda.c PROPERTIES COMPILE_DEFINITIONS
		"RN_CUDA_INJECT_BUILD_PATH=\"${RN_CUDA_INJECT_BUILD_PATH}\";RN_CUDA_INJECT_INSTALL_PATH=\"${RN_CUDA_INJECT_INSTALL_PATH}\";RN_CUDA_BINARY_DIR=\"${CMAKE_BINARY_DIR}\"")
	add_subdirectory(${RN_CUDA_SRC}/inject ${CMAKE_CURRENT_BINARY_DIR}/cuda/inject)
	list(APPEND RN_COLLECTOR_DEPENDS renacer_cuda_inject)
else()
	list(APPEND RN_COLLECTOR_SOURCES ${RN_CUDA_SRC}/cuda_stub.c)
endif()
