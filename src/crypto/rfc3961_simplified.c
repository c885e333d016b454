/* placeholder: to be written */
typedef int gk5_placeholder_rfc3961_simplified;
