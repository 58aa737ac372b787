# CUDA collector tests: the unit tests (tests/unit/collectors/cuda/test_cuda_*.c) need no
# toolkit. The target program cuda_kernels is built with nvcc
# only when the collector is built and nvcc is found; the integration test that runs it under
# `renacer check` exits 77 (skip) without a GPU.
# Without the toolkit the GPU tests are still listed, as skips that say why.
# The loader's region attribution on a record file from the GPU machine
# (tests/bench/cuda/collector_cost.sh); needs no toolkit.
add_executable(count_regions ${CMAKE_SOURCE_DIR}/tests/bench/cuda/count_regions.c)
target_link_libraries(count_regions PRIVATE rn_runner)
rn_sanitize(count_regions)
set_target_properties(count_regions PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

function(rn_cuda_skip_tests reason)
	foreach(t cuda.check_counts cuda.clean_timing cuda.regions cuda.torch_regions cuda.threads)
		add_test(NAME ${t} COMMAND sh -c "echo '${reason}: skipped'; exit 77")
		set_tests_properties(${t} PROPERTIES LABELS integration SKIP_RETURN_CODE 77)
	endforeach()
endfunction()
if(NOT RN_CUDA_BUILT)
	rn_cuda_skip_tests("CUDA collector not built (no cupti.h and libcupti)")
	return()
endif()
get_filename_component(_rn_cupti_lib_dir ${RN_CUPTI_LIBRARY} DIRECTORY)
find_program(RN_NVCC nvcc HINTS ENV CUDA_HOME PATHS ${_rn_cupti_lib_dir}/../bin
	/usr/local/cuda/bin PATH_SUFFIXES bin)
if(NOT RN_NVCC)
	message(STATUS "nvcc not found: the CUDA target program is not built")
	rn_cuda_skip_tests("nvcc not found: the CUDA target programs are not built")
	return()
endif()

set(RN_CUDA_TARGET ${CMAKE_BINARY_DIR}/targets/cuda_kernels)
add_custom_command(OUTPUT ${RN_CUDA_TARGET}
	COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/targets
	COMMAND ${RN_NVCC} -O2 -o ${RN_CUDA_TARGET} ${CMAKE_CURRENT_LIST_DIR}/cuda_kernels.cu
	DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cuda_kernels.cu
	COMMENT "Building cuda_kernels with nvcc" VERBATIM)
add_custom_target(target_cuda_kernels ALL DEPENDS ${RN_CUDA_TARGET})

add_test(NAME cuda.check_counts
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cuda_check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(cuda.check_counts PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)

# Timing runs without the CUPTI library, GPU spans from executions with it (clean_timing):
# the executions are counted without a GPU, the kernels judged with one.
add_test(NAME cuda.clean_timing
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/clean_timing.sh ${CMAKE_BINARY_DIR})
set_tests_properties(cuda.clean_timing PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)

# NVTX regions and graphs (cuda_regions.cu): exact per-region counts under renacer check.
set(RN_CUDA_REGIONS_TARGET ${CMAKE_BINARY_DIR}/targets/cuda_regions)
add_custom_command(OUTPUT ${RN_CUDA_REGIONS_TARGET}
	COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/targets
	COMMAND ${RN_NVCC} -O2 -o ${RN_CUDA_REGIONS_TARGET} ${CMAKE_CURRENT_LIST_DIR}/cuda_regions.cu
	DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cuda_regions.cu
	COMMENT "Building cuda_regions with nvcc" VERBATIM)
add_custom_target(target_cuda_regions ALL DEPENDS ${RN_CUDA_REGIONS_TARGET})
add_test(NAME cuda.regions
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cuda_regions.sh ${CMAKE_BINARY_DIR})
set_tests_properties(cuda.regions PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)

# PyTorch: the kernels of a torch.cuda.nvtx.range region against torch.profiler's count of
# the same range. Skips (77) without a GPU or without torch.
find_program(RN_PYTHON3 python3)
if(RN_PYTHON3)
	add_test(NAME cuda.torch_regions
		COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/torch_regions.sh ${CMAKE_BINARY_DIR}
			${RN_PYTHON3})
	set_tests_properties(cuda.torch_regions PROPERTIES LABELS integration
		SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# Regions across threads (cuda_threads.cu): by time window and by thread.
set(RN_CUDA_THREADS_TARGET ${CMAKE_BINARY_DIR}/targets/cuda_threads)
add_custom_command(OUTPUT ${RN_CUDA_THREADS_TARGET}
	COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/targets
	COMMAND ${RN_NVCC} -O2 -o ${RN_CUDA_THREADS_TARGET} ${CMAKE_CURRENT_LIST_DIR}/cuda_threads.cu
	DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cuda_threads.cu
	COMMENT "Building cuda_threads with nvcc" VERBATIM)
add_custom_target(target_cuda_threads ALL DEPENDS ${RN_CUDA_THREADS_TARGET})
add_test(NAME cuda.threads
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cuda_threads.sh ${CMAKE_BINARY_DIR})
set_tests_properties(cuda.threads PROPERTIES LABELS integration SKIP_RETURN_CODE 77
	TIMEOUT 300)
