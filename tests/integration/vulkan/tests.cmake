# Vulkan collector tests (tests/integration/vulkan): the target program vk_compute, the integration
# tool vk_layer_check that runs it with the layer injected and reads the layer's records, and the
# benchmark (tests/bench/vulkan). The unit tests are tests/unit/collectors/vulkan/test_vulkan_*.c.
# Everything needing a Vulkan device exits 77 (skip) without one.
if(NOT RN_WITH_VULKAN)
	return()
endif()

find_program(RN_GLSLANG glslangValidator)
if(NOT RN_GLSLANG)
	message(WARNING "glslangValidator not found: Vulkan integration tests are not built")
	return()
endif()

set(RN_VK_SRC ${CMAKE_SOURCE_DIR}/collectors/vulkan)
set(RN_VK_SHADER_DIR ${CMAKE_CURRENT_LIST_DIR}/shaders)
set(RN_VK_SPV_DIR ${CMAKE_BINARY_DIR}/vulkan/spv)

# Compile one GLSL compute shader into a C header holding its SPIR-V as `<name>_spv[]`.
# Extra arguments go to glslangValidator (e.g. an entry point rename).
function(rn_vk_shader name)
	set(out ${RN_VK_SPV_DIR}/${name}.spv.h)
	add_custom_command(OUTPUT ${out}
		COMMAND ${CMAKE_COMMAND} -E make_directory ${RN_VK_SPV_DIR}
		COMMAND ${RN_GLSLANG} -V --target-env vulkan1.1 ${ARGN} --vn ${name}_spv
			-o ${out} ${RN_VK_SHADER_DIR}/${name}.comp
		DEPENDS ${RN_VK_SHADER_DIR}/${name}.comp
		COMMENT "Compiling ${name}.comp to SPIR-V" VERBATIM)
	set_property(GLOBAL APPEND PROPERTY RN_VK_SHADER_HEADERS ${out})
endfunction()

rn_vk_shader(scale)
rn_vk_shader(add)
rn_vk_shader(reduce -e reduce_sum --source-entrypoint main)
rn_vk_shader(square)
rn_vk_shader(bench)
get_property(RN_VK_SHADER_HEADERS GLOBAL PROPERTY RN_VK_SHADER_HEADERS)
add_custom_target(rn_vk_shaders DEPENDS ${RN_VK_SHADER_HEADERS})

# The target: plain Vulkan, no renacer code, no sanitizers (it loads the layer).
add_executable(target_vk_compute ${CMAKE_SOURCE_DIR}/tests/targets/vk_compute.c)
set_target_properties(target_vk_compute PROPERTIES OUTPUT_NAME vk_compute
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/targets)
target_include_directories(target_vk_compute PRIVATE ${RN_VK_SPV_DIR})
target_link_libraries(target_vk_compute PRIVATE PkgConfig::VULKAN)
add_dependencies(target_vk_compute rn_vk_shaders)

# The integration tool: what the collector's prepare() and finish() do, around one run.
# It links renacer's libraries (as the unit tests do), so the layer's paths are the ones
# renacer uses (collectors/vulkan/sources.cmake sets them once).
add_executable(vk_layer_check ${CMAKE_CURRENT_LIST_DIR}/vk_layer_check.c)
target_include_directories(vk_layer_check PRIVATE ${RN_VK_SRC})
target_link_libraries(vk_layer_check PRIVATE rn_runner m)
set_target_properties(vk_layer_check PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
rn_sanitize(vk_layer_check)
add_dependencies(vk_layer_check VkLayer_renacer_timing target_vk_compute)

# Each mode alone, then with the validation layer enabled by the application (its messages
# are counted by vk_compute, which exits 1 on any error), then the in-stream reset fallback.
set(RN_VK_TARGET ${CMAKE_BINARY_DIR}/targets/vk_compute)
foreach(cfg
		"cmdbuf;--mode;cmdbuf"
		"submit;--mode;submit"
		"dispatch;--mode;dispatch"
		"cmdbuf_validation;--mode;cmdbuf;--validation"
		"dispatch_validation;--mode;dispatch;--validation"
		"dispatch_stream_reset;--mode;dispatch;--reset;stream;--validation"
		"cmdbuf_stream_reset;--mode;cmdbuf;--reset;stream;--validation")
	list(GET cfg 0 tname)
	list(REMOVE_AT cfg 0)
	add_test(NAME vulkan.layer.${tname}
		COMMAND vk_layer_check ${cfg} -- ${RN_VK_TARGET})
	set_tests_properties(vulkan.layer.${tname} PROPERTIES LABELS "vulkan;integration"
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# vk_hostile: valid but awkward Vulkan usage (tests/targets/vk_hostile.c). The program's
# checksums must be the same without the layer and with it in each mode, the validation layer
# (enabled by the program) must report nothing, and the layer must have written a record file.
# The environment is the one rn_vk_inject_env() builds (collectors/vulkan/inject.c).
add_executable(target_vk_hostile ${CMAKE_SOURCE_DIR}/tests/targets/vk_hostile.c)
set_target_properties(target_vk_hostile PROPERTIES OUTPUT_NAME vk_hostile
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/targets)
target_include_directories(target_vk_hostile PRIVATE ${RN_VK_SPV_DIR})
target_link_libraries(target_vk_hostile PRIVATE PkgConfig::VULKAN)
add_dependencies(target_vk_hostile rn_vk_shaders VkLayer_renacer_timing)

set(RN_VK_HOSTILE_SH ${CMAKE_BINARY_DIR}/vulkan/vk_hostile_check.sh)
file(WRITE ${RN_VK_HOSTILE_SH} [=[
#!/bin/sh
# vk_hostile_check.sh PROGRAM LAYER_DIR MODE [RESET]: exit 0 pass, 1 fail, 77 no device.
prog=$1 layer_dir=$2 mode=$3 reset=$4
tmp=$(mktemp -d /tmp/vk_hostile-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$prog" --validation >"$tmp/plain.out"
rc=$?
[ $rc -eq 77 ] && { echo "vk_hostile: skipped (no Vulkan device)"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: without the layer: exit $rc"; exit 1; }
mkdir "$tmp/rec" || exit 1
env VK_ADD_LAYER_PATH="$layer_dir${VK_ADD_LAYER_PATH:+:$VK_ADD_LAYER_PATH}" 	VK_INSTANCE_LAYERS="VK_LAYER_RENACER_timing${VK_INSTANCE_LAYERS:+:$VK_INSTANCE_LAYERS}" 	VK_LOADER_LAYERS_ENABLE="VK_LAYER_RENACER_timing${VK_LOADER_LAYERS_ENABLE:+,$VK_LOADER_LAYERS_ENABLE}" 	RENACER_VK_DIR="$tmp/rec" RENACER_VK_MODE="$mode" ${reset:+RENACER_VK_RESET=$reset} 	"$prog" --validation >"$tmp/layer.out"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: with the layer ($mode): exit $rc"; exit 1; }
cat "$tmp/layer.out"
cmp -s "$tmp/plain.out" "$tmp/layer.out" ||
	{ echo "FAIL: results differ with the layer"; diff "$tmp/plain.out" "$tmp/layer.out"; exit 1; }
set -- "$tmp"/rec/vk-*.rnvk
[ -s "$1" ] || { echo "FAIL: no record file"; exit 1; }
[ "$(head -c 7 "$1")" = RNVKREC ] || { echo "FAIL: $1 is not a record file"; exit 1; }
echo "vk_hostile: mode $mode${reset:+ reset $reset}: same results, $(wc -c <"$1") bytes of records"
]=])
set(RN_VK_HOSTILE ${CMAKE_BINARY_DIR}/targets/vk_hostile)
foreach(cfg "cmdbuf;cmdbuf" "submit;submit" "dispatch;dispatch" "dispatch_stream_reset;dispatch;stream")
	list(GET cfg 0 tname)
	list(REMOVE_AT cfg 0)
	add_test(NAME vulkan.hostile.${tname}
		COMMAND sh ${RN_VK_HOSTILE_SH} ${RN_VK_HOSTILE} ${CMAKE_BINARY_DIR}/vulkan/explicit_layer.d ${cfg})
	set_tests_properties(vulkan.hostile.${tname} PROPERTIES LABELS "vulkan;integration"
		SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

include(${CMAKE_SOURCE_DIR}/tests/bench/vulkan/bench.cmake OPTIONAL)

# Debug-utils labels as regions: per-label counts under `renacer check` (dispatch mode).
add_test(NAME vulkan.regions
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/vk_regions.sh ${CMAKE_BINARY_DIR})
set_tests_properties(vulkan.regions PROPERTIES LABELS "vulkan;integration"
	SKIP_RETURN_CODE 77 TIMEOUT 300)

# renacer trace --collectors vulkan: per-dispatch lines, the -c GPU table, JSON.
add_test(NAME vulkan.trace
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/vk_trace.sh ${CMAKE_BINARY_DIR})
set_tests_properties(vulkan.trace PROPERTIES LABELS "vulkan;integration"
	SKIP_RETURN_CODE 77 TIMEOUT 300)

# span_time over GPU work and regions (lavapipe in CI).
add_test(NAME vulkan.span_time
	COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/vk_span_time.sh ${CMAKE_BINARY_DIR})
set_tests_properties(vulkan.span_time PROPERTIES LABELS "vulkan;integration"
	SKIP_RETURN_CODE 77 TIMEOUT 300)
