# Fuzzing (tests/fuzz): libFuzzer harnesses, and their replay by ctest.
#
# Every harness fuzz_<name>.c is built twice:
# - replay_<name>: the harness with replay_main.c, in every build (gcc or clang, with the
#   project's sanitizers when RN_SANITIZE is set). ctest runs it over the regression inputs
#   of tests/fuzz/regressions/<name>/ and over the seed data, so a crash once found stays
#   fixed and the harnesses' properties hold on every build;
# - fuzz_<name>: the libFuzzer binary, only when RN_FUZZ is ON and the compiler is clang.
#   tests/fuzz/run-fuzzers.sh configures such a build (build-fuzz/) and runs each harness.
#   (RN_FUZZ is declared in the top CMakeLists.txt's options block.)

set(RN_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR}/../fuzz)
get_filename_component(RN_FUZZ_DIR ${RN_FUZZ_DIR} ABSOLUTE)
set(RN_FUZZ_HARNESSES toml config golden json_v1 vk_record xml json regex results diff
	history_import otlp_receive span_pipe)

add_library(rn_fuzz_common STATIC ${RN_FUZZ_DIR}/fuzz_common.c ${RN_FUZZ_DIR}/golden_check.c)
# The Vulkan record reader and loader are folder-private to collectors/vulkan; a folder's
# internal.h is included by its path in the tree ("runner/report/internal.h").
target_include_directories(rn_fuzz_common PUBLIC ${RN_FUZZ_DIR} ${CMAKE_SOURCE_DIR}/collectors/vulkan
	${CMAKE_SOURCE_DIR})
target_link_libraries(rn_fuzz_common PUBLIC rn_runner rn_dep_jansson)
rn_sanitize(rn_fuzz_common)

add_executable(fuzz_vk_seeds ${RN_FUZZ_DIR}/gen_vk_seeds.c)
target_link_libraries(fuzz_vk_seeds PRIVATE rn_collectors rn_util)
target_include_directories(fuzz_vk_seeds PRIVATE ${CMAKE_SOURCE_DIR}/collectors/vulkan)
rn_sanitize(fuzz_vk_seeds)

# Seed data replayed by ctest, per harness (only what exists on this machine).
set(_rn_seed_toml ${CMAKE_SOURCE_DIR}/renacer.toml.example ${RN_SHARED_DIR}/toml-test)
set(_rn_seed_config ${CMAKE_SOURCE_DIR}/renacer.toml.example ${RN_SHARED_DIR}/toml-test/valid)
set(_rn_golden_data ${CMAKE_SOURCE_DIR}/tests/unit/assertions/golden)
set(_rn_seed_golden ${CMAKE_SOURCE_DIR}/golden_traces ${_rn_golden_data})
set(_rn_seed_json_v1 "")
set(_rn_seed_vk_record "")
set(_rn_seed_xml ${CMAKE_SOURCE_DIR}/tests/unit/runner/input/config ${RN_SHARED_DIR}/toml-test)
set(_rn_seed_json ${CMAKE_SOURCE_DIR}/tests/unit/runner/input/config ${RN_SHARED_DIR}/toml-test)
set(_rn_seed_regex "")
set(_rn_seed_results ${CMAKE_SOURCE_DIR}/tests/integration/shard/seeds)
set(_rn_seed_diff "")
set(_rn_seed_history_import ${CMAKE_SOURCE_DIR}/golden_traces ${_rn_golden_data})
set(_rn_seed_span_pipe "")

foreach(h ${RN_FUZZ_HARNESSES})
	add_executable(replay_${h} ${RN_FUZZ_DIR}/fuzz_${h}.c ${RN_FUZZ_DIR}/replay_main.c)
	target_link_libraries(replay_${h} PRIVATE rn_fuzz_common)
	rn_sanitize(replay_${h})

	set(_inputs "")
	foreach(p ${RN_FUZZ_DIR}/regressions/${h} ${_rn_seed_${h}})
		if(EXISTS ${p})
			list(APPEND _inputs ${p})
		endif()
	endforeach()
	if(h STREQUAL "vk_record")
		# Seeds made by fuzz_vk_seeds into a fresh directory, then replayed with the
		# regression inputs.
		add_test(NAME fuzz.replay.${h}
			COMMAND sh -c [=[
set -e
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$1" "$d"; shift
exec "$@" "$d"
]=] replay-vk $<TARGET_FILE:fuzz_vk_seeds> $<TARGET_FILE:replay_${h}> -q ${_inputs})
	elseif(_inputs)
		add_test(NAME fuzz.replay.${h} COMMAND replay_${h} -q ${_inputs})
	else()
		continue()
	endif()
	set_tests_properties(fuzz.replay.${h} PROPERTIES LABELS "fuzz;unit" TIMEOUT 600
		ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1")
endforeach()

# Regressions found by fuzzing that an input replay cannot show in an ordinary build
# (regressions.c): the Vulkan clock and record modules are compiled into the test itself with
# undefined behaviour trapping, so signed overflow fails the test in every build.
add_executable(fuzz_regressions ${RN_FUZZ_DIR}/regressions.c
	${CMAKE_SOURCE_DIR}/collectors/vulkan/clock.c ${CMAKE_SOURCE_DIR}/collectors/vulkan/record.c
	${CMAKE_SOURCE_DIR}/collectors/vulkan/load.c)
target_link_libraries(fuzz_regressions PRIVATE rn_fuzz_common PkgConfig::CMOCKA)
target_compile_definitions(fuzz_regressions PRIVATE RN_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
if(RN_SANITIZE_FLAGS)
	rn_sanitize(fuzz_regressions)
else()
	target_compile_options(fuzz_regressions PRIVATE -fsanitize=undefined
		-fsanitize-undefined-trap-on-error)
endif()
add_test(NAME fuzz.regressions COMMAND fuzz_regressions)
set_tests_properties(fuzz.regressions PROPERTIES LABELS "fuzz;unit")

if(RN_FUZZ)
	if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
		message(WARNING "RN_FUZZ needs clang (libFuzzer); the fuzz_* harnesses are not built "
			"with ${CMAKE_C_COMPILER_ID}")
	else()
		# Coverage feedback must come from the code under test, not only from the harness.
		foreach(lib rn_util rn_toml rn_collectors rn_assertions rn_input rn_report rn_history rn_check
			rn_cli rn_fuzz_common)
			target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link)
		endforeach()
		foreach(h ${RN_FUZZ_HARNESSES})
			add_executable(fuzz_${h} ${RN_FUZZ_DIR}/fuzz_${h}.c)
			target_link_libraries(fuzz_${h} PRIVATE rn_fuzz_common)
			target_compile_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
			target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
			rn_sanitize(fuzz_${h})
		endforeach()
		add_custom_target(fuzzers DEPENDS fuzz_vk_seeds)
		foreach(h ${RN_FUZZ_HARNESSES})
			add_dependencies(fuzzers fuzz_${h})
		endforeach()
	endif()
endif()
