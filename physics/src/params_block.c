/* placeholder: being written */
typedef int rs_placeholder_params_block;
