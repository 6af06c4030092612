# gltrace_format_testlib: record encoders, the text consumer and the hostile
# input driver, without gtest: the tests and the fuzzer (tests/fuzz) share it.
add_library(gltrace_format_testlib STATIC
  ${CMAKE_CURRENT_LIST_DIR}/encode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/record_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hostile.cpp)
target_include_directories(gltrace_format_testlib PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gltrace_format_testlib PUBLIC gltrace_format gltrace_api)
# make_container compresses chunks as the writer does.
find_package(PkgConfig REQUIRED)
pkg_check_modules(GLTRACE_TESTLIB_ZSTD REQUIRED IMPORTED_TARGET libzstd)
target_link_libraries(gltrace_format_testlib PRIVATE PkgConfig::GLTRACE_TESTLIB_ZSTD)
