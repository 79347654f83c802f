# Helpers shared by all simtlab CMake files.

# simtlab_library(name SOURCES ... DEPS ...): one static library per src/ folder.
function(simtlab_library name)
  cmake_parse_arguments(A "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${A_DEPS} PRIVATE ${A_PRIVATE_DEPS})
endfunction()

# simtlab_ptx(OUT var SOURCES a.cu b.cu [FLAGS ...]): compile CUDA sources to PTX with nvcc.
function(simtlab_ptx)
  cmake_parse_arguments(A "" "OUT;DIR" "SOURCES;FLAGS" ${ARGN})
  set(outs)
  foreach(src ${A_SOURCES})
    get_filename_component(stem ${src} NAME_WE)
    get_filename_component(abs ${src} ABSOLUTE)
    set(out ${A_DIR}/${stem}.ptx)
    add_custom_command(OUTPUT ${out}
      COMMAND ${NVCC_EXECUTABLE} -ptx ${A_FLAGS} -o ${out} ${abs}
      DEPENDS ${abs} COMMENT "nvcc -ptx ${stem}.cu" VERBATIM)
    list(APPEND outs ${out})
  endforeach()
  set(${A_OUT} ${outs} PARENT_SCOPE)
endfunction()

# simtlab_cuda_program(name SOURCES ... [FLAGS ...] [DIR dir]): build an executable with
# `nvcc -cudart shared`, the way users build programs for `simtlab run`.
function(simtlab_cuda_program name)
  cmake_parse_arguments(A "STATIC_RUNTIME" "DIR" "SOURCES;FLAGS" ${ARGN})
  set(cudart shared)
  if(A_STATIC_RUNTIME)
    set(cudart static)
  endif()
  set(abs_srcs)
  foreach(src ${A_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    list(APPEND abs_srcs ${abs})
  endforeach()
  set(out ${A_DIR}/${name})
  add_custom_command(OUTPUT ${out}
    COMMAND ${NVCC_EXECUTABLE} -cudart ${cudart} ${A_FLAGS} -o ${out} ${abs_srcs}
    DEPENDS ${abs_srcs} COMMENT "nvcc -cudart ${cudart} ${name}" VERBATIM)
  add_custom_target(${name}_prog ALL DEPENDS ${out})
endfunction()
