# What `cmake --install build [--prefix DIR]` puts under the prefix
# (GNUInstallDirs names; README.md, "Install"; docs/CLIENT_SDK.md, "Linking
# a game"):
#
#   bin/                      raceserver, racectl, racebot, racesim
#   include/racesim/          the public headers (RS_PUBLIC_HEADERS)
#   lib/libracesim_client.so.<version>, .so.<major>, .so   the shared SDK
#   lib/libracesim_client.a   the same objects, static
#   lib/pkgconfig/racesim-client.pc
#   lib/cmake/racesim/        racesimConfig.cmake, its version file and
#                             targets: racesim::client (shared),
#                             racesim::client_static
#   share/racesim/data/       cars, tyres and tracks; the installed programs
#                             find it from their own folder (base/src/data_dir.c)
#   share/racesim/web/        the web page raceserver --http serves (docs/WEB.md),
#                             found the same way
#   share/doc/racesim/        the operators' documents (RACESERVER.md, HTTP.md)
#                             and deploy/: the systemd unit, a sample
#                             configuration, the sysctl setting the unit needs
#
# The database migrations are compiled into the programs; nothing else is
# read at run time. Test programs and benchmarks are not installed.
include(CMakePackageConfigHelpers)

install(TARGETS raceserver racectl racebot racesim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(h file IN ZIP_LISTS RS_PUBLIC_HEADERS RS_PUBLIC_HEADER_FILES)
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${file} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir})
endforeach()

install(TARGETS racesim_client racesim_client_static EXPORT racesimTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

install(DIRECTORY ${RS_DATA_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/racesim/data)
# What the systemd unit's Documentation= names, and what it is installed with.
install(FILES ${CMAKE_SOURCE_DIR}/docs/RACESERVER.md ${CMAKE_SOURCE_DIR}/docs/HTTP.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/deploy/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/deploy)
# The installed programs look for it relative to their own folder, so the
# prefix can move (rs_data_dir_find, base/src/data_dir.c).
file(RELATIVE_PATH RS_DATA_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/racesim/data)
target_compile_definitions(rs_base PRIVATE RS_DATA_FROM_BIN="${RS_DATA_FROM_BIN}")

# The web page as the build tree serves it (cmake/web.cmake copies it there,
# with the WebAssembly replay when that was built): only the page's own kinds
# of files, never a build system's. Found the same way as the data
# (rs_web_dir_find, base/src/data_dir.c).
install(DIRECTORY ${CMAKE_BINARY_DIR}/web/ DESTINATION ${CMAKE_INSTALL_DATADIR}/racesim/web
        FILES_MATCHING PATTERN "*.html" PATTERN "*.css" PATTERN "*.js" PATTERN "*.wasm"
        PATTERN "*.png" PATTERN "*.svg" PATTERN "CMakeFiles" EXCLUDE)
file(RELATIVE_PATH RS_WEB_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/racesim/web)
target_compile_definitions(rs_base PRIVATE RS_WEB_FROM_BIN="${RS_WEB_FROM_BIN}")

# racesim-client.pc, with the prefix of the install itself (`--prefix` may
# differ from the configured one), so it is filled in at install time.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(RS_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(RS_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
set(RS_PC_PREFIX "@RS_PC_PREFIX@") # kept for the install-time step
configure_file(${CMAKE_SOURCE_DIR}/cmake/racesim-client.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/racesim-client.pc.tmpl @ONLY)
install(CODE "
  file(READ \"${CMAKE_CURRENT_BINARY_DIR}/racesim-client.pc.tmpl\" pc)
  string(REPLACE \"@RS_PC_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" pc \"\${pc}\")
  file(WRITE \"${CMAKE_CURRENT_BINARY_DIR}/racesim-client.pc\" \"\${pc}\")")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/racesim-client.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The CMake package: find_package(racesim) -> racesim::client. Its files
# locate the prefix from their own place, so any --prefix works.
set(RS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/racesim)
install(EXPORT racesimTargets NAMESPACE racesim:: DESTINATION ${RS_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/racesimConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/racesimConfig.cmake INSTALL_DESTINATION ${RS_CMAKE_DIR})
# Same major version, same ABI: the soname says the same (libracesim_client.so.<major>).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/racesimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/racesimConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/racesimConfigVersion.cmake
        DESTINATION ${RS_CMAKE_DIR})
