/* placeholder: to be written */
typedef int gk5_placeholder_des3;
