# Links gRPC, Protocol Buffers and what they depend on (absl, upb, re2, c-ares, zlib),
# and the C++ runtime, from the static archives Debian ships beside the shared libraries
# (libgrpc++.a next to libgrpc++.so, ...). A program then maps only the parts of those
# libraries it uses and relocates no shared objects at start-up: a bot's resident and anonymous
# memory and its CPU a decision all fall (bench/README.md, "Memory" and the figures).
#
# allfives_link_grpc_statically() rewrites the imported targets the packages' find_package
# modules defined in the calling folder: each one whose library is a shared object with an
# archive of the same name beside it is pointed at the archive. Targets are rewritten as a
# whole, so no program links both copies of a library (two copies of libprotobuf in one process
# would register every descriptor twice).

# An interface target made from pkg-config ("-L<dir>;-l<name>", re2::re2): each "-l<name>" with
# an archive lib<name>.a in one of its "-L" folders links that archive. Others (-latomic, -ldl)
# stay as they are.
function(allfives_static_link_flags t count_var)
  get_target_property(items ${t} INTERFACE_LINK_LIBRARIES)
  if(NOT items)
    return()
  endif()
  set(dirs "")
  foreach(item IN LISTS items)
    if(item MATCHES "^-L(.+)$")
      list(APPEND dirs "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(count ${${count_var}})
  set(rewritten "")
  foreach(item IN LISTS items)
    if(item MATCHES "^-l(.+)$")
      set(name "${CMAKE_MATCH_1}")
      foreach(dir IN LISTS dirs)
        if(EXISTS "${dir}/lib${name}.a")
          set(item "${dir}/lib${name}.a")
          math(EXPR count "${count} + 1")
          break()
        endif()
      endforeach()
    endif()
    list(APPEND rewritten "${item}")
  endforeach()
  set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${rewritten}")
  set(${count_var} ${count} PARENT_SCOPE)
endfunction()

function(allfives_link_grpc_statically)
  get_directory_property(imported IMPORTED_TARGETS)
  set(count 0)
  foreach(t IN LISTS imported)
    if(NOT t MATCHES "^(gRPC|protobuf|absl|c-ares|re2|OpenSSL|ZLIB)::")
      continue()
    endif()
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      allfives_static_link_flags(${t} count)  # made from pkg-config: "-L<dir>;-l<name>"
      continue()
    endif()
    if(NOT type STREQUAL "SHARED_LIBRARY" AND NOT type STREQUAL "UNKNOWN_LIBRARY")
      continue()
    endif()
    foreach(property IMPORTED_LOCATION IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NONE
                     IMPORTED_LOCATION_NOCONFIG)
      get_target_property(location ${t} ${property})
      if(NOT location OR NOT location MATCHES "\\.so(\\.[0-9.]+)?$")
        continue()
      endif()
      string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" archive "${location}")
      if(NOT EXISTS "${archive}")
        message(FATAL_ERROR "ALLFIVES_STATIC_GRPC: ${t} has no static archive beside "
                            "${location} (expected ${archive}); configure with "
                            "-DALLFIVES_STATIC_GRPC=OFF to link the shared libraries")
      endif()
      # An archive has no soname: the target becomes a plain library file.
      set_target_properties(${t} PROPERTIES ${property} "${archive}" IMPORTED_SONAME ""
                                            IMPORTED_NO_SONAME TRUE)
      math(EXPR count "${count} + 1")
    endforeach()
  endforeach()
  # The C++ runtime too, in programs (not in shared modules such as the Python binding, which
  # the interpreter's runtime loads).
  set(CMAKE_EXE_LINKER_FLAGS "${CMAKE_EXE_LINKER_FLAGS} -static-libstdc++ -static-libgcc"
      PARENT_SCOPE)
  message(STATUS "Linking gRPC, Protocol Buffers and the C++ runtime statically "
                 "(${count} library files)")
endfunction()
