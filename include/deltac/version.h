/*
 * The version of libdeltac. CMakeLists.txt reads the three numbers below as
 * the project version, so the shared library's file name, deltac.pc and the
 * CMake package always agree with this header.
 *
 * DELTAC_VERSION_STRING is the version of the headers a program was compiled
 * with; delta_version() is the version of the library it runs with.
 */
#ifndef DELTAC_VERSION_H
#define DELTAC_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define DELTAC_VERSION_MAJOR 0
#define DELTAC_VERSION_MINOR 1
#define DELTAC_VERSION_PATCH 0

#define DELTAC_VERSION_STR_(x) #x
#define DELTAC_VERSION_STR(x) DELTAC_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", built from the numbers so that it cannot disagree */
#define DELTAC_VERSION_STRING                                                 \
  DELTAC_VERSION_STR(DELTAC_VERSION_MAJOR) "." DELTAC_VERSION_STR(DELTAC_VERSION_MINOR) "." \
  DELTAC_VERSION_STR(DELTAC_VERSION_PATCH)

/* The library's version, "MAJOR.MINOR.PATCH"; a static string. */
const char *delta_version(void);

#ifdef __cplusplus
}
#endif

#endif
