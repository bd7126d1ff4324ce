# What a user of libdeltac gets: a shared library (libdeltac.so.MAJOR), a
# static one (libdeltac.a), both exporting the delta_* API only, the headers,
# the deltac binary, the docs, deltac.pc and a CMake package
# (find_package(deltac) -> deltac::deltac, deltac::deltac_static).
# Included from CMakeLists.txt once deltac_lib and deltac exist.
include(GNUInstallDirs)

# The shared library, from the objects of deltac_lib (compiled once, with
# -fPIC). The version script exports delta_* and makes every other global
# local; linking deltac_lib after the objects brings its dependencies only
# (every member it could supply is already there).
add_library(deltac_shared SHARED $<TARGET_OBJECTS:deltac_lib>)
target_link_libraries(deltac_shared PRIVATE deltac_lib)
target_include_directories(deltac_shared INTERFACE ${CMAKE_SOURCE_DIR}/include)
set_target_properties(deltac_shared PROPERTIES OUTPUT_NAME deltac
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/deltac.map)
target_link_options(deltac_shared PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/deltac.map)
if(NOT DELTAC_SANITIZE)
  # an unresolved symbol is a link error here, not a load error in the user's
  # program (the sanitizer runtimes resolve theirs at load time)
  target_link_options(deltac_shared PRIVATE -Wl,--no-undefined)
endif()

# The static library: an archive cannot hide symbols, so its objects are
# linked into one relocatable object (ld -r resolves the references between
# them) in which every global but delta_* is then made local.
set(DELTAC_STATIC_LIB ${CMAKE_BINARY_DIR}/libdeltac.a)
add_custom_command(OUTPUT ${DELTAC_STATIC_LIB}
  COMMAND ${CMAKE_LINKER} -r -o deltac_all.o --whole-archive $<TARGET_FILE:deltac_lib>
  COMMAND ${CMAKE_OBJCOPY} --wildcard --keep-global-symbol=delta_* deltac_all.o deltac_public.o
  COMMAND ${CMAKE_COMMAND} -E rm -f ${DELTAC_STATIC_LIB} deltac_all.o
  COMMAND ${CMAKE_AR} qc ${DELTAC_STATIC_LIB} deltac_public.o
  COMMAND ${CMAKE_RANLIB} ${DELTAC_STATIC_LIB}
  DEPENDS deltac_lib WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "Building libdeltac.a (delta_* symbols only)" VERBATIM)
add_custom_target(deltac_static ALL DEPENDS ${DELTAC_STATIC_LIB})

# What a static link needs besides libdeltac.a, for deltac.pc and the CMake
# package. libroaring and snappy ship no .pc file on Debian. libmicrohttpd is
# the server's, not the library's.
set(DELTAC_PC_REQUIRES_PRIVATE "libzstd liblz4 libbrotlidec zlib nettle libcurl")
set(DELTAC_PC_LIBS_PRIVATE "-lsnappy -lroaring -lpthread -lm")
set(DELTAC_STATIC_LINK_LIBS ${ZSTD_LIBRARIES} ${LZ4_LIBRARIES} ${BROTLIDEC_LIBRARIES} ${ZLIB_LIBRARIES}
  snappy roaring ${NETTLE_LIBRARIES} ${CURL_LIBRARIES} Threads::Threads m)

# Install. deltac.pc and the CMake files locate the prefix from their own
# place, so `cmake --install --prefix DIR` (make install PREFIX=DIR) may
# choose another prefix than the configured one.
# Components: lib (libdeltac.so.*), dev (headers, libdeltac.a, .so link,
# deltac.pc, CMake package), doc, cli (bin/deltac); a plain install takes all.
install(TARGETS deltac_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev)
install(FILES ${DELTAC_STATIC_LIB} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS deltac RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
file(GLOB DELTAC_DOCS CONFIGURE_DEPENDS docs/*.md)
install(FILES README.md ${DELTAC_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT doc)

set(DELTAC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/deltac)
file(RELATIVE_PATH DELTAC_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
file(RELATIVE_PATH DELTAC_CMAKE_TO_PREFIX /prefix/${DELTAC_CMAKE_DIR} /prefix)
string(REGEX REPLACE "/$" "" DELTAC_PC_TO_PREFIX "${DELTAC_PC_TO_PREFIX}")
string(REGEX REPLACE "/$" "" DELTAC_CMAKE_TO_PREFIX "${DELTAC_CMAKE_TO_PREFIX}")
configure_file(cmake/deltac.pc.in ${CMAKE_BINARY_DIR}/packaging/deltac.pc @ONLY)
configure_file(cmake/deltac-static.pc.in ${CMAKE_BINARY_DIR}/packaging/deltac-static.pc @ONLY)
configure_file(cmake/deltacTargets.cmake.in ${CMAKE_BINARY_DIR}/packaging/deltacTargets.cmake @ONLY)
configure_file(cmake/deltacConfig.cmake.in ${CMAKE_BINARY_DIR}/packaging/deltacConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
# 0.x: a new minor version may change the API, so only the same minor matches
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/deltacConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packaging/deltac.pc ${CMAKE_BINARY_DIR}/packaging/deltac-static.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
install(FILES ${CMAKE_BINARY_DIR}/packaging/deltacConfig.cmake ${CMAKE_BINARY_DIR}/packaging/deltacConfigVersion.cmake
  ${CMAKE_BINARY_DIR}/packaging/deltacTargets.cmake DESTINATION ${DELTAC_CMAKE_DIR} COMPONENT dev)

# Tests: the exported symbols of both libraries, and a fresh Release build
# with clang installed to a temporary prefix and used the way a user would.
add_test(NAME packaging_symbols COMMAND bash tests/packaging/symbols.sh ${CMAKE_BINARY_DIR}
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME packaging_install COMMAND bash tests/packaging/install.sh ${CMAKE_BINARY_DIR}
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# and that a test lacking a prerequisite is reported as skipped, never passed
add_test(NAME packaging_skip_codes COMMAND bash tests/packaging/skip_codes.sh ${CMAKE_BINARY_DIR}
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(packaging_symbols packaging_install packaging_skip_codes PROPERTIES LABELS packaging
  ENVIRONMENT "DELTAC_SHARED=${CMAKE_SOURCE_DIR}/../shared")
set_tests_properties(packaging_install PROPERTIES TIMEOUT 900)
