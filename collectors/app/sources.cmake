# The app collector: the program's own spans (collectors/app/app.h). Included by
# collectors/CMakeLists.txt. renacer_span.h is installed for programs to include.
set(RN_APP_SRC ${CMAKE_CURRENT_LIST_DIR})
list(APPEND RN_COLLECTOR_SOURCES ${RN_APP_SRC}/app.c ${RN_APP_SRC}/otlp_decode.c)
list(APPEND RN_COLLECTOR_LIBS rn_dep_jansson Threads::Threads)
find_package(Threads REQUIRED)
install(FILES ${RN_APP_SRC}/renacer_span.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
