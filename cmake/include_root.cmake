# gltrace_include_root(TARGET DIR [HEADERS FILE...]): TARGET, and whatever
# links it, include the headers of src/DIR as "DIR/name.h" (and only they:
# no target has all of src/ on its include path). TARGET gets a folder of its own in the build tree,
# include-roots/TARGET, holding one link DIR -> src/DIR (with HEADERS, a DIR
# folder of links to just those files of src/DIR: for a folder that holds
# several libraries), and that folder is its include path: PUBLIC for a
# library, INTERFACE for a header-only one, PRIVATE for an executable. So
# "format/reader.h" resolves only where gltrace_format is linked, the compiler
# holds every target to the libraries it declares, and sources keep their
# spelling and place. A target that compiles sources of two folders
# (tests/fuzz) calls it for each. Included from the top-level CMakeLists.txt
# and from tests/fuzz, which builds a few libraries as a project of its own.
include_guard(GLOBAL)
get_filename_component(_gltrace_include_root_src ${CMAKE_CURRENT_LIST_DIR}/../src ABSOLUTE)

function(gltrace_include_root target dir)
  cmake_parse_arguments(ARG "" "" "HEADERS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gltrace_include_root(${target}): unexpected ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(_source ${_gltrace_include_root_src}/${dir})
  if(NOT IS_DIRECTORY ${_source})
    message(FATAL_ERROR "gltrace_include_root(${target}): ${_source} is not a directory")
  endif()
  set(_root ${CMAKE_BINARY_DIR}/include-roots/${target})
  # Made anew at each configure, so a header taken off the list is gone.
  # (REMOVE_RECURSE removes a link, never what it points to.)
  file(REMOVE_RECURSE ${_root}/${dir})
  if(ARG_HEADERS)
    foreach(_header ${ARG_HEADERS})
      if(NOT EXISTS ${_source}/${_header})
        message(FATAL_ERROR "gltrace_include_root(${target}): no header ${_source}/${_header}")
      endif()
      get_filename_component(_folder ${_root}/${dir}/${_header} DIRECTORY)
      file(MAKE_DIRECTORY ${_folder})
      file(CREATE_LINK ${_source}/${_header} ${_root}/${dir}/${_header} SYMBOLIC)
    endforeach()
  else()
    get_filename_component(_folder ${_root}/${dir} DIRECTORY)
    file(MAKE_DIRECTORY ${_folder})
    file(CREATE_LINK ${_source} ${_root}/${dir} SYMBOLIC)
  endif()
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    set(_scope INTERFACE)
  elseif(_type STREQUAL "EXECUTABLE")
    set(_scope PRIVATE)
  else()
    set(_scope PUBLIC)
  endif()
  target_include_directories(${target} ${_scope} $<BUILD_INTERFACE:${_root}>)
endfunction()
