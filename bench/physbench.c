/* placeholder: being written */
typedef int rs_placeholder_physbench;
int main(void) { return 0; }
