// toml++'s implementation, compiled here with the fuzz instrumentation so that the TOML
// parser under wfod_config's loader is coverage-guided and sanitizer-checked rather than
// the opaque gcc-built libtomlplusplus.so. Fuzz builds only.
#define TOML_IMPLEMENTATION 1
#include <toml++/toml.h>
