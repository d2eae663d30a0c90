/* Link-time values of the MPI constants listed in include/loggp_consts.def, compiled with
 * the include path of the MPI the shim is built for. */
#include <mpi.h>

#define MPI_FINT_SIZE ((int)sizeof(MPI_Fint))
#define LOGGP_CONST(type, name, rust) const type loggp_##name = name;
#include "loggp_consts.def"

/* Fortran handle conversions (MPI 4.0 §19.3.4). Some are macros in MPICH, functions in
 * Open MPI: wrapping them here gives Rust one function for either. */
MPI_Comm loggp_comm_f2c(MPI_Fint f) { return MPI_Comm_f2c(f); }
MPI_Datatype loggp_type_f2c(MPI_Fint f) { return MPI_Type_f2c(f); }
MPI_Request loggp_request_f2c(MPI_Fint f) { return MPI_Request_f2c(f); }
MPI_Message loggp_message_f2c(MPI_Fint f) { return MPI_Message_f2c(f); }
