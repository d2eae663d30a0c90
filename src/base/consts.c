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

/* Whether `t` is a predefined datatype (MPI 4.0 §3.2.2, §5.9.2, §19.2.5): a handle that
 * is never freed, so its size can be remembered with it (src/record/memo.rs). Only on a
 * thread's first call with a type; a type not listed is sized on every call. */
int loggp_is_predefined_type(MPI_Datatype t) {
    if (t == MPI_DATATYPE_NULL) return 0;
#ifdef MPI_CHAR
    if (t == MPI_CHAR) return 1;
#endif
#ifdef MPI_SIGNED_CHAR
    if (t == MPI_SIGNED_CHAR) return 1;
#endif
#ifdef MPI_UNSIGNED_CHAR
    if (t == MPI_UNSIGNED_CHAR) return 1;
#endif
#ifdef MPI_BYTE
    if (t == MPI_BYTE) return 1;
#endif
#ifdef MPI_WCHAR
    if (t == MPI_WCHAR) return 1;
#endif
#ifdef MPI_SHORT
    if (t == MPI_SHORT) return 1;
#endif
#ifdef MPI_UNSIGNED_SHORT
    if (t == MPI_UNSIGNED_SHORT) return 1;
#endif
#ifdef MPI_INT
    if (t == MPI_INT) return 1;
#endif
#ifdef MPI_UNSIGNED
    if (t == MPI_UNSIGNED) return 1;
#endif
#ifdef MPI_LONG
    if (t == MPI_LONG) return 1;
#endif
#ifdef MPI_UNSIGNED_LONG
    if (t == MPI_UNSIGNED_LONG) return 1;
#endif
#ifdef MPI_LONG_LONG_INT
    if (t == MPI_LONG_LONG_INT) return 1;
#endif
#ifdef MPI_LONG_LONG
    if (t == MPI_LONG_LONG) return 1;
#endif
#ifdef MPI_UNSIGNED_LONG_LONG
    if (t == MPI_UNSIGNED_LONG_LONG) return 1;
#endif
#ifdef MPI_FLOAT
    if (t == MPI_FLOAT) return 1;
#endif
#ifdef MPI_DOUBLE
    if (t == MPI_DOUBLE) return 1;
#endif
#ifdef MPI_LONG_DOUBLE
    if (t == MPI_LONG_DOUBLE) return 1;
#endif
#ifdef MPI_C_BOOL
    if (t == MPI_C_BOOL) return 1;
#endif
#ifdef MPI_INT8_T
    if (t == MPI_INT8_T) return 1;
#endif
#ifdef MPI_INT16_T
    if (t == MPI_INT16_T) return 1;
#endif
#ifdef MPI_INT32_T
    if (t == MPI_INT32_T) return 1;
#endif
#ifdef MPI_INT64_T
    if (t == MPI_INT64_T) return 1;
#endif
#ifdef MPI_UINT8_T
    if (t == MPI_UINT8_T) return 1;
#endif
#ifdef MPI_UINT16_T
    if (t == MPI_UINT16_T) return 1;
#endif
#ifdef MPI_UINT32_T
    if (t == MPI_UINT32_T) return 1;
#endif
#ifdef MPI_UINT64_T
    if (t == MPI_UINT64_T) return 1;
#endif
#ifdef MPI_AINT
    if (t == MPI_AINT) return 1;
#endif
#ifdef MPI_COUNT
    if (t == MPI_COUNT) return 1;
#endif
#ifdef MPI_OFFSET
    if (t == MPI_OFFSET) return 1;
#endif
#ifdef MPI_C_COMPLEX
    if (t == MPI_C_COMPLEX) return 1;
#endif
#ifdef MPI_C_FLOAT_COMPLEX
    if (t == MPI_C_FLOAT_COMPLEX) return 1;
#endif
#ifdef MPI_C_DOUBLE_COMPLEX
    if (t == MPI_C_DOUBLE_COMPLEX) return 1;
#endif
#ifdef MPI_C_LONG_DOUBLE_COMPLEX
    if (t == MPI_C_LONG_DOUBLE_COMPLEX) return 1;
#endif
#ifdef MPI_PACKED
    if (t == MPI_PACKED) return 1;
#endif
#ifdef MPI_FLOAT_INT
    if (t == MPI_FLOAT_INT) return 1;
#endif
#ifdef MPI_DOUBLE_INT
    if (t == MPI_DOUBLE_INT) return 1;
#endif
#ifdef MPI_LONG_INT
    if (t == MPI_LONG_INT) return 1;
#endif
#ifdef MPI_2INT
    if (t == MPI_2INT) return 1;
#endif
#ifdef MPI_SHORT_INT
    if (t == MPI_SHORT_INT) return 1;
#endif
#ifdef MPI_LONG_DOUBLE_INT
    if (t == MPI_LONG_DOUBLE_INT) return 1;
#endif
#ifdef MPI_INTEGER
    if (t == MPI_INTEGER) return 1;
#endif
#ifdef MPI_REAL
    if (t == MPI_REAL) return 1;
#endif
#ifdef MPI_DOUBLE_PRECISION
    if (t == MPI_DOUBLE_PRECISION) return 1;
#endif
#ifdef MPI_COMPLEX
    if (t == MPI_COMPLEX) return 1;
#endif
#ifdef MPI_LOGICAL
    if (t == MPI_LOGICAL) return 1;
#endif
#ifdef MPI_CHARACTER
    if (t == MPI_CHARACTER) return 1;
#endif
#ifdef MPI_DOUBLE_COMPLEX
    if (t == MPI_DOUBLE_COMPLEX) return 1;
#endif
#ifdef MPI_INTEGER1
    if (t == MPI_INTEGER1) return 1;
#endif
#ifdef MPI_INTEGER2
    if (t == MPI_INTEGER2) return 1;
#endif
#ifdef MPI_INTEGER4
    if (t == MPI_INTEGER4) return 1;
#endif
#ifdef MPI_INTEGER8
    if (t == MPI_INTEGER8) return 1;
#endif
#ifdef MPI_REAL4
    if (t == MPI_REAL4) return 1;
#endif
#ifdef MPI_REAL8
    if (t == MPI_REAL8) return 1;
#endif
#ifdef MPI_REAL16
    if (t == MPI_REAL16) return 1;
#endif
#ifdef MPI_COMPLEX8
    if (t == MPI_COMPLEX8) return 1;
#endif
#ifdef MPI_COMPLEX16
    if (t == MPI_COMPLEX16) return 1;
#endif
#ifdef MPI_COMPLEX32
    if (t == MPI_COMPLEX32) return 1;
#endif
#ifdef MPI_2REAL
    if (t == MPI_2REAL) return 1;
#endif
#ifdef MPI_2DOUBLE_PRECISION
    if (t == MPI_2DOUBLE_PRECISION) return 1;
#endif
#ifdef MPI_2INTEGER
    if (t == MPI_2INTEGER) return 1;
#endif
    return 0;
}

/* What a reduction's operation is, for the collective model (MPI 4.0 §6.9.2, §6.9.5):
 * 1 a predefined operation, 2 a user-defined commutative one, 3 a user-defined
 * non-commutative one, 0 not known. The MPIs choose their algorithms by it (Open MPI's
 * coll tuned fixed rules and MPICH's selection tree test commutativity, MPICH also
 * whether the operation is built in). Called only for the collective calls the waits'
 * sample keeps. */
int loggp_op_kind(MPI_Op op) {
    if (op == MPI_OP_NULL) return 0;
    if (op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD || op == MPI_LAND ||
        op == MPI_BAND || op == MPI_LOR || op == MPI_BOR || op == MPI_LXOR || op == MPI_BXOR ||
        op == MPI_MAXLOC || op == MPI_MINLOC || op == MPI_REPLACE || op == MPI_NO_OP)
        return 1;
    int commute = 0;
    if (PMPI_Op_commutative(op, &commute) != MPI_SUCCESS) return 0;
    return commute ? 2 : 3;
}
MPI_Op loggp_op_f2c(MPI_Fint f) { return MPI_Op_f2c(f); }
MPI_Win loggp_win_f2c(MPI_Fint f) { return MPI_Win_f2c(f); }
MPI_File loggp_file_f2c(MPI_Fint f) { return MPI_File_f2c(f); }
MPI_Group loggp_group_f2c(MPI_Fint f) { return MPI_Group_f2c(f); }
