# The web page (web/: index.html, css/, js/; docs/WEB.md) copied into
# ${CMAKE_BINARY_DIR}/web on every build, where the raceserver of the build
# tree serves it from (RS_WEB_DIR, server/app/CMakeLists.txt). The pieces are
# copied one by one and copy_directory merges into what is there, so the
# WebAssembly replay's outputs in ${CMAKE_BINARY_DIR}/web/wasm/ (web/wasm/)
# are never removed or overwritten. cmake/install.cmake installs the result.
set(RS_WEB_SOURCE ${CMAKE_SOURCE_DIR}/web)
set(RS_WEB_BUILD ${CMAKE_BINARY_DIR}/web)
add_custom_target(rs_web ALL
  COMMAND ${CMAKE_COMMAND} -E make_directory ${RS_WEB_BUILD}
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${RS_WEB_SOURCE}/index.html ${RS_WEB_BUILD}/index.html
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${RS_WEB_SOURCE}/css ${RS_WEB_BUILD}/css
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${RS_WEB_SOURCE}/js ${RS_WEB_BUILD}/js
  COMMENT "Copying the web page into ${RS_WEB_BUILD}"
  VERBATIM)
