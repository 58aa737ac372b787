# The Vulkan collector. Included by collectors/CMakeLists.txt; appends to RN_COLLECTOR_SOURCES,
# RN_COLLECTOR_LIBS and RN_COLLECTOR_DEPENDS.
#
# Runner side (linked into rn_collectors): vulkan.c (the ops table), inject.c (the target's
# environment), load.c (record files -> spans), record.c (the wire format) and clock.c (tick
# arithmetic and clock mapping). record.c and clock.c depend on libc only and are compiled into
# the layer as well.
#
# The layer (layer/): a MODULE library with hidden visibility, built without sanitizers since
# it is loaded into programs that are not, plus its manifest for the build tree and for the
# install tree.
set(RN_VK_SRC ${CMAKE_CURRENT_LIST_DIR})

# Always built: the record reader is fuzzed and used by tools whatever the option says.
list(APPEND RN_COLLECTOR_SOURCES ${RN_VK_SRC}/record.c ${RN_VK_SRC}/clock.c ${RN_VK_SRC}/load.c)

if(RN_WITH_VULKAN)
	set(RN_VK_LAYER_BUILD_DIR ${CMAKE_BINARY_DIR}/vulkan/explicit_layer.d)
	set(RN_VK_LAYER_INSTALL_DIR
		${CMAKE_INSTALL_FULL_DATADIR}/renacer/vulkan/explicit_layer.d)
	list(APPEND RN_COLLECTOR_SOURCES ${RN_VK_SRC}/vulkan.c ${RN_VK_SRC}/inject.c)
	set_source_files_properties(${RN_VK_SRC}/inject.c PROPERTIES COMPILE_DEFINITIONS
		"RN_VK_LAYER_BUILD_DIR=\"${RN_VK_LAYER_BUILD_DIR}\";RN_VK_LAYER_INSTALL_DIR=\"${RN_VK_LAYER_INSTALL_DIR}\";RN_VK_BINARY_DIR=\"${CMAKE_BINARY_DIR}\"")
	add_subdirectory(${RN_VK_SRC}/layer ${CMAKE_CURRENT_BINARY_DIR}/vulkan/layer)
	list(APPEND RN_COLLECTOR_DEPENDS VkLayer_renacer_timing)
else()
	list(APPEND RN_COLLECTOR_SOURCES ${RN_VK_SRC}/vulkan_stub.c)
endif()
