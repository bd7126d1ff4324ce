/* Prints the version of the headers and of the library it runs with. */
#include <stdio.h>

#include <deltac.h>

int main(void) {
  printf("headers %s, library %s\n", DELTAC_VERSION_STRING, delta_version());
  return 0;
}
