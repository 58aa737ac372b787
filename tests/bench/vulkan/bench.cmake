# The timing layer's overhead benchmark (included by tests/integration/vulkan/tests.cmake, which
# compiles bench.comp). `vk_bench` is the workload; run.sh compares it without the layer, with the
# layer in cmdbuf mode and in dispatch mode. Not a ctest: timings belong to a quiet machine.
add_executable(vk_bench ${CMAKE_CURRENT_LIST_DIR}/vk_bench.c)
target_include_directories(vk_bench PRIVATE ${RN_VK_SPV_DIR})
target_link_libraries(vk_bench PRIVATE PkgConfig::VULKAN)
set_target_properties(vk_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
add_dependencies(vk_bench rn_vk_shaders VkLayer_renacer_timing)
