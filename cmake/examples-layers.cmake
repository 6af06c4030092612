# The two example layers, built against the installed gltrace package:
#   cmake -S . -B build && cmake --build build
#   gltrace run --layers $PWD/build/libGLES_layer_passive.so -- gltrace-demo --frames 2
cmake_minimum_required(VERSION 3.20)
project(gltrace_example_layers CXX)

find_package(gltrace REQUIRED)
foreach(kind passive active)
  add_library(gles_layer_${kind} MODULE ${kind}_layer.cpp)
  target_link_libraries(gles_layer_${kind} PRIVATE gltrace::layer)
  set_target_properties(gles_layer_${kind} PROPERTIES PREFIX "" OUTPUT_NAME libGLES_layer_${kind})
  target_link_options(gles_layer_${kind} PRIVATE
    -Wl,--version-script=${GLTRACE_LAYER_VERSION_SCRIPT})
endforeach()
