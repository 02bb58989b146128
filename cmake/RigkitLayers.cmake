# cmake/RigkitLayers.cmake - one OBJECT library per layer of src/, each
# compiled against a staged include folder that holds only what the layer
# may include, so a forbidden #include does not compile.
#
#   rigkit_layer(<name> DIR <src subfolder> [DEPS <layers...>]
#                [HEADERS <public headers...>] [LIBS <link targets...>])
#
# DEPS lists every layer the module may include (written out, not
# transitive). The staged folder ${PROJECT_BINARY_DIR}/layers/<name> holds
# symlinks: rigkit/<header> for the public headers of the layer and its
# DEPS, and <dir> for the source folder of the layer and of each DEP (their
# internal headers). docs/architecture.md draws the layers;
# tests/test_layers.sh checks the same table on the sources.

set(RIGKIT_LAYER_TARGETS "")
set(RIGKIT_LAYER_ROOT ${PROJECT_BINARY_DIR}/layers)

function(rigkit_layer name)
  cmake_parse_arguments(L "" "DIR" "DEPS;HEADERS;LIBS" ${ARGN})
  set_property(GLOBAL PROPERTY RIGKIT_LAYER_DIR_${name} ${L_DIR})
  set_property(GLOBAL PROPERTY RIGKIT_LAYER_HEADERS_${name} ${L_HEADERS})
  set(stage ${RIGKIT_LAYER_ROOT}/${name})
  file(REMOVE_RECURSE ${stage})
  file(MAKE_DIRECTORY ${stage}/rigkit)
  foreach(layer ${name} ${L_DEPS})
    get_property(dir GLOBAL PROPERTY RIGKIT_LAYER_DIR_${layer})
    get_property(headers GLOBAL PROPERTY RIGKIT_LAYER_HEADERS_${layer})
    if(NOT dir)
      message(FATAL_ERROR "rigkit_layer(${name}): unknown layer ${layer} (declare it first)")
    endif()
    get_filename_component(parent ${stage}/${dir} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/src/${dir} ${stage}/${dir} SYMBOLIC)
    foreach(h ${headers})
      file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/include/rigkit/${h} ${stage}/rigkit/${h} SYMBOLIC)
    endforeach()
  endforeach()
  # *.cpp: C++ shims over C++ libraries (only src/formats/gltf's Draco one)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/${L_DIR}/*.c ${CMAKE_CURRENT_SOURCE_DIR}/src/${L_DIR}/*.cpp)
  add_library(rigkit_${name} OBJECT ${sources})
  target_include_directories(rigkit_${name} PRIVATE ${stage})
  target_compile_options(rigkit_${name} PRIVATE "$<$<COMPILE_LANGUAGE:C>:${RIGKIT_WARNINGS}>"
    "$<$<COMPILE_LANGUAGE:CXX>:${RIGKIT_CXX_WARNINGS}>")
  if(L_LIBS)
    target_link_libraries(rigkit_${name} PRIVATE ${L_LIBS})
  endif()
  set(RIGKIT_LAYER_TARGETS ${RIGKIT_LAYER_TARGETS} rigkit_${name} PARENT_SCOPE)
  set(RIGKIT_SOURCES ${RIGKIT_SOURCES} ${sources} PARENT_SCOPE)
endfunction()
