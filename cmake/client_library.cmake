# The client SDK as ONE library a game links: libracesim_client.so.<major>
# (target racesim_client) and libracesim_client.a (racesim_client_static),
# both made of the same position-independent objects: rs_client and every
# project library under it (physics, protocol, secure, base), compiled from
# those libraries' own source lists with their own flags (physics'
# determinism flags included), plus -fPIC. ENet and libsodium stay shared
# libraries of the system. Installed by cmake/install.cmake.
#
# Why compile the sources again rather than link the static libraries
# whole: those are built for the server (not position-independent; rs_client
# with -fvisibility=hidden, which would hide the API itself), and the server
# should not pay for a library it does not use.
#
# What is exported: exactly the functions declared in the installed public
# headers (RS_PUBLIC_HEADERS below), each in the version node RACESIM_<major>;
# everything else (rs_client__*, helpers of base, anything in a src/ header)
# is local. Why a generated GNU ld version script and not -fvisibility=hidden
# with an export macro: a macro would have to mark every declaration of five
# modules' public headers by hand, and a forgotten mark is a missing function
# that only a game notices. The script is generated at build time from the
# headers themselves (cmake/racesim_exports.sh), so a function added to
# client.h is exported by the next build, and the version node lets a future
# incompatible change be versioned symbol by symbol. tests/check_exports.sh
# checks the result from the outside (nm -D against the headers' declarations).

# The installed public API, relative to include/. Every header one of these
# includes must be here too (the install test compiles them all against the
# installed tree alone). Only clock.h of base: the examples' clock and sleep;
# the rest of base is internal. secure.h is not public: the SDK seals packets
# itself, a game never calls it.
set(RS_PUBLIC_HEADERS
  racesim/base/clock.h
  racesim/physics.h racesim/track.h racesim/driver.h racesim/tune.h racesim/bop.h racesim/lapproof.h
  racesim/standings.h
  racesim/protocol.h racesim/protocol_messages.def
  racesim/client.h racesim/client_flat.h racesim/predict.h)
set(RS_PUBLIC_HEADER_ROOTS
  ${CMAKE_SOURCE_DIR}/base/include ${CMAKE_SOURCE_DIR}/physics/include
  ${CMAKE_SOURCE_DIR}/protocol/include ${CMAKE_SOURCE_DIR}/client_sdk/include)
set(RS_PUBLIC_HEADER_FILES "")
foreach(h IN LISTS RS_PUBLIC_HEADERS)
  set(found "")
  foreach(root IN LISTS RS_PUBLIC_HEADER_ROOTS)
    if(NOT found AND EXISTS ${root}/${h})
      set(found ${root}/${h})
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "public header ${h} is in none of: ${RS_PUBLIC_HEADER_ROOTS}")
  endif()
  list(APPEND RS_PUBLIC_HEADER_FILES ${found})
endforeach()

# The project libraries rs_client needs, transitively: what goes into the one
# library. Third-party libraries are linked by name below.
set(RS_SDK_MODULES "")
set(todo rs_client)
while(todo)
  list(POP_FRONT todo m)
  if(m IN_LIST RS_SDK_MODULES)
    continue()
  endif()
  list(APPEND RS_SDK_MODULES ${m})
  get_target_property(deps ${m} LINK_LIBRARIES)
  foreach(d IN LISTS deps)
    if(TARGET ${d} AND d MATCHES "^rs_")
      list(APPEND todo ${d})
    endif()
  endforeach()
endwhile()

# -fno-semantic-interposition and -Bsymbolic-functions: the library's calls to
# its own functions are direct (inlined where the static build would), as in
# the static libraries; interposing one of its functions is not supported.
include(CheckCCompilerFlag)
check_c_compiler_flag(-fno-semantic-interposition RS_HAVE_NO_SEMANTIC_INTERPOSITION)

add_library(racesim_client SHARED)
add_library(racesim_client_static STATIC)
foreach(m IN LISTS RS_SDK_MODULES)
  get_target_property(srcs ${m} SOURCES)
  get_target_property(dir ${m} SOURCE_DIR)
  list(TRANSFORM srcs PREPEND ${dir}/ REGEX "^[^/]")
  add_library(${m}_pic OBJECT ${srcs})
  set_target_properties(${m}_pic PROPERTIES POSITION_INDEPENDENT_CODE ON)
  # Generator expressions, so flags a module sets after this file ran count too.
  target_include_directories(${m}_pic PRIVATE $<TARGET_PROPERTY:${m},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${m}_pic PRIVATE $<TARGET_PROPERTY:${m},COMPILE_DEFINITIONS>)
  target_compile_options(${m}_pic PRIVATE
    $<FILTER:$<TARGET_PROPERTY:${m},COMPILE_OPTIONS>,EXCLUDE,^-fvisibility=>
    $<$<BOOL:${RS_HAVE_NO_SEMANTIC_INTERPOSITION}>:-fno-semantic-interposition>)
  target_sources(racesim_client PRIVATE $<TARGET_OBJECTS:${m}_pic>)
  target_sources(racesim_client_static PRIVATE $<TARGET_OBJECTS:${m}_pic>)
endforeach()

# Third-party libraries by their pkg-config names, as racesim-client.pc and
# racesimConfig.cmake name them for a game.
find_package(PkgConfig REQUIRED)
pkg_check_modules(racesim_enet REQUIRED IMPORTED_TARGET libenet)
pkg_check_modules(racesim_sodium REQUIRED IMPORTED_TARGET libsodium)
find_library(RS_SDK_MATH_LIB m)
set(RS_SDK_DEPS PkgConfig::racesim_enet PkgConfig::racesim_sodium)
if(RS_SDK_MATH_LIB)
  list(APPEND RS_SDK_DEPS m) # sqrt for poses and statistics (never the simulation)
endif()

foreach(t racesim_client racesim_client_static)
  set_target_properties(${t} PROPERTIES OUTPUT_NAME racesim_client)
  target_include_directories(${t} INTERFACE
    "$<BUILD_INTERFACE:${RS_PUBLIC_HEADER_ROOTS}>" $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${t} PRIVATE ${RS_SDK_DEPS})
endforeach()
set_target_properties(racesim_client PROPERTIES
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME client)
set_target_properties(racesim_client_static PROPERTIES EXPORT_NAME client_static)

# The version script, from the public headers and the symbols the objects
# define (read from the static archive: the very same object files).
set(RS_SDK_VERSION_NODE RACESIM_${PROJECT_VERSION_MAJOR})
set(RS_SDK_MAP ${CMAKE_CURRENT_BINARY_DIR}/racesim_client.map)
add_custom_command(
  OUTPUT ${RS_SDK_MAP}
  COMMAND ${CMAKE_COMMAND} -E env NM=${CMAKE_NM}
          sh ${CMAKE_SOURCE_DIR}/cmake/racesim_exports.sh ${RS_SDK_MAP} ${RS_SDK_VERSION_NODE}
          $<TARGET_FILE:racesim_client_static> ${CMAKE_C_COMPILER} ${RS_PUBLIC_HEADER_FILES}
  DEPENDS racesim_client_static ${CMAKE_SOURCE_DIR}/cmake/racesim_exports.sh ${RS_PUBLIC_HEADER_FILES}
  COMMENT "Generating the export list of libracesim_client from the public headers"
  VERBATIM)
target_sources(racesim_client PRIVATE ${RS_SDK_MAP})
target_link_options(racesim_client PRIVATE -Wl,--version-script=${RS_SDK_MAP}
                    -Wl,-Bsymbolic-functions)
set_property(TARGET racesim_client APPEND PROPERTY LINK_DEPENDS ${RS_SDK_MAP})
if(NOT RS_SANITIZE AND NOT RS_FUZZ)
  # Every dependency named: an undefined symbol fails here, not in a game.
  # (clang leaves the sanitizer runtimes undefined in a shared library.)
  target_link_options(racesim_client PRIVATE -Wl,--no-undefined)
endif()
