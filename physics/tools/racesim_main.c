/* placeholder: being written */
typedef int rs_placeholder_racesim_main;
int main(void) { return 0; }
