/* A shared library that is not a graphc model and whose constructor leaves
 * a mark: inspecting it must not run the constructor. The mark's path comes
 * from GRAPHC_TEST_MARK. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void leave_mark(void) {
  const char *path = getenv("GRAPHC_TEST_MARK");
  FILE *file = path ? fopen(path, "w") : NULL;
  if (file) {
    fputs("constructor ran\n", file);
    fclose(file);
  }
}

int foreign_function(void) { return 42; }
