# The instructions collector (cachegrind.h): runs the target under Valgrind's cachegrind,
# found in PATH when it runs (nothing to build against). Included by collectors/CMakeLists.txt.
list(APPEND RN_COLLECTOR_SOURCES ${CMAKE_CURRENT_LIST_DIR}/cachegrind.c)
