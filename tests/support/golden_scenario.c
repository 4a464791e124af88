/* placeholder: being written */
typedef int rs_placeholder_golden_scenario;
