/* delta_version(): the version this copy of the library was built as, which
 * a program linked against the shared library can compare with the
 * DELTAC_VERSION_STRING of the headers it was compiled with. */
#include "deltac/version.h"

const char *delta_version(void) { return DELTAC_VERSION_STRING; }
