/* Link-time values of the MPI constants listed in include/loggp_consts.def, compiled with
 * the include path of the MPI the shim is built for. */
#include <mpi.h>

#define LOGGP_CONST(type, name) const type loggp_##name = name;
#include "loggp_consts.def"
