/* placeholder: being written */
typedef int rs_placeholder_cmd_tire;
