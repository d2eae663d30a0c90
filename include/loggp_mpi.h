/* The header bindgen reads: the real mpi.h plus the constants exported by src/base/consts.c. */
#ifndef LOGGP_MPI_H
#define LOGGP_MPI_H
#include <mpi.h>

#define LOGGP_CONST(type, name, rust) extern const type loggp_##name;
#include "loggp_consts.def"
#undef LOGGP_CONST

MPI_Comm loggp_comm_f2c(MPI_Fint f);
MPI_Datatype loggp_type_f2c(MPI_Fint f);
MPI_Request loggp_request_f2c(MPI_Fint f);
MPI_Message loggp_message_f2c(MPI_Fint f);
int loggp_is_predefined_type(MPI_Datatype t);
int loggp_op_kind(MPI_Op op);
MPI_Op loggp_op_f2c(MPI_Fint f);
MPI_Win loggp_win_f2c(MPI_Fint f);
MPI_File loggp_file_f2c(MPI_Fint f);
MPI_Group loggp_group_f2c(MPI_Fint f);
#endif
